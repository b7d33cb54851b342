/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_MEMORY_H
#define TRIGOS_MEMORY_H
/*
 * Physical memory: the page allocator (kernel/mm/page_alloc.c) and the
 * mappings (kernel/arch/x86/paging.c).  Memory is identity-mapped: a
 * physical address is also its virtual address, so page_alloc() returns a
 * pointer that can be used at once.
 */

#include <arch/paging.h>
#include <lib/boot_info.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** struct physical_range - [start, end) in bytes */
struct physical_range {
	uint64_t start;
	uint64_t end;
};

/**
 * page_allocator_init - hand out the available RAM of @info's memory map,
 * except the @reserved ranges (the kernel, the boot information, modules,
 * BIOS areas), which are never handed out.
 */
void page_allocator_init(const struct boot_info *info, const struct physical_range *reserved,
			 size_t reserved_count);

/** page_alloc - one zeroed 4 KiB page at or above 1 MiB, or NULL when none is left */
void *page_alloc(void);

/**
 * page_alloc_below - one zeroed page wholly below @limit (e.g. 1 MiB for the
 * real-mode AP trampoline), or NULL
 */
void *page_alloc_below(uint64_t limit);

/** page_free - give back a page from page_alloc() or page_alloc_below() */
void page_free(void *page);

/** pages_alloc - @count physically contiguous zeroed pages, or NULL (never freed) */
void *pages_alloc(size_t count);

struct page_allocator_stats {
	uint64_t free_pages;
	uint64_t total_pages;		/* managed pages, free or not */
	uint64_t reserved_bytes;	/* available RAM kept back by reservations */
	size_t range_count;
};

void page_allocator_stats(struct page_allocator_stats *stats);

#endif
