// SPDX-License-Identifier: MIT
#include <lib/memory_map.h>

void memory_map_sort(struct memory_region *regions, size_t count)
{
	/* Insertion sort: at most BOOT_INFO_MAX_MEMORY_REGIONS, nearly sorted. */
	for (size_t i = 1; i < count; i++) {
		struct memory_region region = regions[i];
		size_t position = i;

		while (position > 0 && regions[position - 1].base > region.base) {
			regions[position] = regions[position - 1];
			position--;
		}
		regions[position] = region;
	}
}

static uint64_t region_end(const struct memory_region *region)
{
	uint64_t end = region->base + region->length;

	/* A region running past the top of the address space ends there. */
	return end < region->base ? UINT64_MAX : end;
}

size_t memory_map_find_overlap(const struct memory_region *regions, size_t count)
{
	uint64_t reached = 0;
	bool any = false;

	for (size_t i = 0; i < count; i++) {
		if (regions[i].length == 0)
			continue;
		if (any && regions[i].base < reached)
			return i;
		if (!any || region_end(&regions[i]) > reached)
			reached = region_end(&regions[i]);
		any = true;
	}
	return count;
}

bool memory_map_covers(const struct memory_region *regions, size_t count, uint64_t start,
		       uint64_t end, uint32_t type)
{
	uint64_t covered = start;

	if (end <= start)
		return false;
	for (size_t i = 0; i < count && covered < end; i++) {
		if (regions[i].type != type || regions[i].length == 0)
			continue;
		if (regions[i].base <= covered && region_end(&regions[i]) > covered)
			covered = region_end(&regions[i]);
	}
	return covered >= end;
}
