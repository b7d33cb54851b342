/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_ARCH_PAGING_H
#define TRIGOS_ARCH_PAGING_H
/*
 * Pages and mappings (kernel/arch/x86/paging.c), below kernel/mm: memory is
 * identity-mapped, so a physical address is also its virtual address.
 */

#include <lib/boot_info.h>
#include <stdbool.h>
#include <stdint.h>

#define PAGE_SIZE	4096ul
#define PAGE_MASK	(~(PAGE_SIZE - 1))

static inline uint64_t page_align_down(uint64_t address)
{
	return address & PAGE_MASK;
}

static inline uint64_t page_align_up(uint64_t address)
{
	return (address + PAGE_SIZE - 1) & PAGE_MASK;
}

/* --- Mappings (arch) ------------------------------------------------------ */

#define MAP_WRITE	(1u << 0)
#define MAP_EXECUTE	(1u << 1)
#define MAP_UNCACHED	(1u << 2)	/* MMIO: strong uncacheable */

/**
 * paging_init - build and load the final page tables: RAM read-write and
 * non-executable, kernel text read-only and executable, rodata read-only,
 * data/bss non-executable, page 0 and the boot stack's guard page unmapped.
 */
void paging_init(const struct boot_info *info);

/**
 * map_phys - identity-map [@physical, @physical + @size) with @attributes
 * (MAP_* flags; readable always) and return its virtual address, or NULL
 * when page tables cannot be allocated.  Remapping a range replaces its
 * attributes.
 */
void *map_phys(uint64_t physical, uint64_t size, unsigned int attributes);

/**
 * map_page_alias - map the 4 KiB page at @physical a second time, at @virtual
 * (page-aligned, outside the identity map), with @attributes; returns
 * @virtual, or NULL when page tables cannot be allocated.  Only for tests
 * that need two linear addresses of one line (Bochs 2.7's bug 4,
 * docs/emulators.md); unmap_range() removes it.
 */
void *map_page_alias(uint64_t virtual, uint64_t physical, unsigned int attributes);

/** unmap_range - make [@address, @address + @size) fault on any access */
void unmap_range(uint64_t address, uint64_t size);

/**
 * paging_query - how @address is mapped
 * Returns false if it is not mapped; otherwise sets *@attributes (MAP_*).
 */
bool paging_query(uint64_t address, unsigned int *attributes);

#endif
