/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_TESTS_LIB_FAKE_MEMORY_H
#define TRIGOS_TESTS_LIB_FAKE_MEMORY_H
/*
 * What the suites for the firmware and boot information parsers
 * (test_acpi_tables.c, test_mptable.c, test_multiboot2.c, test_pvh.c)
 * share: writing little-endian structures into arrays, placing bytes at
 * the very end of an array, a bounds-checked window on an array that
 * stands for physical memory, and looking for words in the messages the
 * parsers leave.
 *
 * Bytes handed to a parser end where their array ends, so that under
 * AddressSanitizer a read past them is caught as a global buffer overflow.
 *
 * These helpers are written independently of kernel/lib (no lib/bytes.h,
 * no strstr()), so that a bug there cannot hide itself from the tests.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <lib/boot_info.h>
#include <lib/string.h>

static inline void put16(uint8_t *bytes, uint16_t value)
{
	bytes[0] = (uint8_t)value;
	bytes[1] = (uint8_t)(value >> 8);
}

static inline void put32(uint8_t *bytes, uint32_t value)
{
	for (int i = 0; i < 4; i++)
		bytes[i] = (uint8_t)(value >> (8 * i));
}

static inline void put64(uint8_t *bytes, uint64_t value)
{
	for (int i = 0; i < 8; i++)
		bytes[i] = (uint8_t)(value >> (8 * i));
}

/* The sum of @length bytes mod 256, from which ACPI and MP checksums are set. */
static inline uint8_t bytes_sum(const uint8_t *bytes, size_t length)
{
	uint8_t total = 0;

	for (size_t i = 0; i < length; i++)
		total = (uint8_t)(total + bytes[i]);
	return total;
}

/*
 * Copy @length bytes from @source to the very end of @array (@array_size
 * bytes long, at least @length) and return where they now start.
 */
static inline uint8_t *copy_to_end(uint8_t *array, size_t array_size, const void *source,
				   size_t length)
{
	uint8_t *copy = array + array_size - length;

	memmove(copy, source, length);
	return copy;
}

/*
 * The map() of a fake physical memory: @size bytes at @bytes stand for
 * physical addresses @base to @base + @size - 1.  Returns where @length
 * bytes at @physical are, or NULL unless all of them lie inside.
 */
static inline const void *fake_memory_window(const uint8_t *bytes, size_t size, uint64_t base,
					     uint64_t physical, size_t length)
{
	uint64_t offset;

	if (physical < base)
		return NULL;
	offset = physical - base;
	if (offset > size || length > size - offset)
		return NULL;
	return bytes + offset;
}

/* Whether @needle appears in @text; the empty needle appears everywhere. */
static inline bool text_contains(const char *text, const char *needle)
{
	for (size_t from = 0; text[from] != '\0'; from++) {
		size_t i = 0;

		while (needle[i] != '\0' && text[from + i] == needle[i])
			i++;
		if (needle[i] == '\0')
			return true;
	}
	return needle[0] == '\0';
}

/* Whether one of the messages a boot information parser kept contains @needle. */
static inline bool boot_info_has_message(const struct boot_info *info, const char *needle)
{
	for (size_t i = 0; i < info->message_count; i++) {
		if (text_contains(info->messages[i], needle))
			return true;
	}
	return false;
}

#endif /* TRIGOS_TESTS_LIB_FAKE_MEMORY_H */
