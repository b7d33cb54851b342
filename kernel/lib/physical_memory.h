/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_LIB_PHYSICAL_MEMORY_H
#define TRIGOS_LIB_PHYSICAL_MEMORY_H
/*
 * How the pure parsers of kernel/lib (pvh.c, acpi_tables.c) reach memory
 * named by a physical address, without knowing how the kernel maps it.
 *
 * Firmware structures point at each other by physical address: the PVH
 * start_info at its command line and memory map, the RSDP at the XSDT, the
 * XSDT at the MADT.  The parsers never turn such an address into a pointer
 * themselves; they ask the caller's map() for a range and treat a NULL
 * answer as "not readable".  The kernel answers from its identity map after
 * checking the range against what it knows is mapped; the host tests answer
 * from a static array with a bounds check; a fuzzer answers from its input.
 *
 * One type serves both parsers, so the kernel writes one accessor.
 */

#include <stddef.h>
#include <stdint.h>

/**
 * struct physical_memory_access - a caller-supplied window on physical memory
 * @map:	return a pointer through which all of the @length bytes starting
 *		at @physical can be read, or NULL if any of them cannot (not
 *		mapped, not RAM, or @physical + @length wraps around).  The
 *		pointer need not be aligned: parsers read multi-byte fields a
 *		byte at a time.  It must stay valid until the parser call that
 *		asked for it returns, because a parser may hold a table while
 *		it maps the next (a temporary single-slot mapping window does
 *		not satisfy this).  Parsers never ask for zero bytes.
 * @context:	passed to @map unchanged
 */
struct physical_memory_access {
	const void *(*map)(uint64_t physical, size_t length, void *context);
	void *context;
};

/**
 * physical_memory_map - map @length bytes at @physical through @memory
 * @memory: the accessor; NULL or one without @map maps nothing
 * @physical: first byte
 * @length: number of bytes; 0 maps nothing
 *
 * Refuses ranges that wrap around the 64-bit address space before asking,
 * so accessors need not get that check right themselves.
 *
 * Return: a pointer to @length readable bytes, or NULL.
 */
static inline const void *physical_memory_map(const struct physical_memory_access *memory,
					      uint64_t physical, size_t length)
{
	if (!memory || !memory->map || length == 0)
		return NULL;
	if ((uint64_t)length - 1 > UINT64_MAX - physical)
		return NULL;
	return memory->map(physical, length, memory->context);
}

#endif /* TRIGOS_LIB_PHYSICAL_MEMORY_H */
