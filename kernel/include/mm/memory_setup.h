/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_MEMORY_SETUP_H
#define TRIGOS_MEMORY_SETUP_H

#include <stddef.h>
#include <mm/memory.h>

/** memory_init - page allocator (with every reservation), then the final page tables */
void memory_init(void);

/**
 * memory_when_mapped - have memory_init() call @hook once the final page
 * tables are on (one hook: the screen console, when its framebuffer lies
 * above what the boot page tables map)
 */
void memory_when_mapped(void (*hook)(void));

/** arch_firmware_reserved_ranges - firmware areas never to allocate; returns the count */
size_t arch_firmware_reserved_ranges(const struct boot_info *info, struct physical_range *ranges,
				     size_t capacity);

#endif
