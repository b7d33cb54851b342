/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_LIB_MEMORY_MAP_H
#define TRIGOS_LIB_MEMORY_MAP_H
/* Checks and fix-ups of the firmware memory map, pure over the region array. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <lib/boot_info.h>

/**
 * memory_map_sort - order @regions by base address (stable, in place)
 *
 * Firmware maps are usually sorted, but neither E820 nor multiboot2
 * promises it; the page allocator and the tests want them in order.
 */
void memory_map_sort(struct memory_region *regions, size_t count);

/**
 * memory_map_find_overlap - first pair of overlapping regions, if any
 * @regions: sorted by base
 * Returns the index of the second region of the first overlapping pair, or
 * @count when no two regions overlap.  A zero-length region overlaps nothing.
 */
size_t memory_map_find_overlap(const struct memory_region *regions, size_t count);

/**
 * memory_map_covers - whether [@start, @end) lies wholly inside regions of
 * @type (adjacent regions of that type count as one)
 * @regions: sorted by base
 */
bool memory_map_covers(const struct memory_region *regions, size_t count, uint64_t start,
		       uint64_t end, uint32_t type);

#endif
