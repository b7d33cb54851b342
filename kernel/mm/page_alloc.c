// SPDX-License-Identifier: MIT
/*
 * The page allocator: free ranges carved from the memory map, plus a list
 * of freed pages.  Simple on purpose: trigos allocates a few hundred pages
 * (page tables, stacks, per-CPU areas) and frees few of them.
 *
 * Reservations matter more than speed here.  GRUB puts the multiboot2
 * information inside RAM that the memory map calls available (docs/emulators.md),
 * so the kernel, the boot information and every module are cut out of the
 * free ranges before the first page is handed out.
 */
#include <mm/memory.h>
#include <sync/spinlock.h>
#include <lib/string.h>

#define MAX_FREE_RANGES		(BOOT_INFO_MAX_MEMORY_REGIONS + 32)
#define LOW_MEMORY_LIMIT	0x100000ull

struct freed_page {
	struct freed_page *next;
};

static struct physical_range free_ranges[MAX_FREE_RANGES];
static size_t free_range_count;
static struct freed_page *freed_pages;
static struct page_allocator_stats stats;
static DEFINE_SPINLOCK(allocator_lock);

/* Remove [cut.start, cut.end) from every free range, splitting one if needed. */
static void cut_range(struct physical_range cut)
{
	for (size_t i = 0; i < free_range_count; i++) {
		struct physical_range *range = &free_ranges[i];

		if (cut.end <= range->start || cut.start >= range->end)
			continue;
		stats.reserved_bytes += (cut.end < range->end ? cut.end : range->end) -
					(cut.start > range->start ? cut.start : range->start);
		if (cut.start > range->start && cut.end < range->end &&
		    free_range_count < MAX_FREE_RANGES) {
			/* The cut is inside: keep the part after it as a new range. */
			memmove(&free_ranges[i + 2], &free_ranges[i + 1],
				(free_range_count - i - 1) * sizeof(*range));
			free_ranges[i + 1] = (struct physical_range){ cut.end, range->end };
			free_range_count++;
			range->end = cut.start;
			i++;
		} else if (cut.start > range->start) {
			range->end = cut.start;
		} else if (cut.end < range->end) {
			range->start = cut.end;
		} else {
			range->start = range->end;	/* swallowed whole; dropped below */
		}
	}
}

static void add_available(uint64_t base, uint64_t length)
{
	uint64_t start = page_align_up(base);
	uint64_t end = page_align_down(base + length);
	size_t position;

	if (end <= start || free_range_count == MAX_FREE_RANGES)
		return;
	/* Keep the ranges sorted so that allocation goes lowest first. */
	position = free_range_count;
	while (position > 0 && free_ranges[position - 1].start > start) {
		free_ranges[position] = free_ranges[position - 1];
		position--;
	}
	free_ranges[position] = (struct physical_range){ start, end };
	free_range_count++;
}

void page_allocator_init(const struct boot_info *info, const struct physical_range *reserved,
			 size_t reserved_count)
{
	size_t kept = 0;

	for (size_t i = 0; i < info->memory_count; i++) {
		if (info->memory[i].type == MEMORY_AVAILABLE)
			add_available(info->memory[i].base, info->memory[i].length);
	}
	/*
	 * Where the firmware's regions overlap, a reserved claim beats an
	 * available one: nothing that any region calls reserved is handed out.
	 */
	for (size_t i = 0; i < info->memory_count; i++) {
		const struct memory_region *region = &info->memory[i];

		if (region->type != MEMORY_AVAILABLE && region->length)
			cut_range((struct physical_range){ page_align_down(region->base),
							   page_align_up(region->base + region->length) });
	}
	stats.reserved_bytes = 0;	/* count only the caller's reservations */
	for (size_t i = 0; i < reserved_count; i++) {
		struct physical_range cut = {
			page_align_down(reserved[i].start), page_align_up(reserved[i].end)
		};

		cut_range(cut);
	}
	for (size_t i = 0; i < free_range_count; i++) {
		if (free_ranges[i].end > free_ranges[i].start)
			free_ranges[kept++] = free_ranges[i];
	}
	free_range_count = kept;
	for (size_t i = 0; i < free_range_count; i++)
		stats.total_pages += (free_ranges[i].end - free_ranges[i].start) / PAGE_SIZE;
	stats.free_pages = stats.total_pages;
	stats.range_count = free_range_count;
}

/* Take the lowest page within [minimum, limit) from the free ranges. */
static void *take_from_ranges(uint64_t minimum, uint64_t limit)
{
	for (size_t i = 0; i < free_range_count; i++) {
		struct physical_range *range = &free_ranges[i];
		uint64_t page = range->start > minimum ? range->start : minimum;

		if (page >= range->end || page + PAGE_SIZE > limit)
			continue;
		if (page == range->start) {
			range->start += PAGE_SIZE;
		} else if (page + PAGE_SIZE == range->end) {
			range->end -= PAGE_SIZE;
		} else {
			/* Only below-1-MiB requests or the 1 MiB boundary split a range. */
			if (free_range_count == MAX_FREE_RANGES)
				continue;
			memmove(&free_ranges[i + 2], &free_ranges[i + 1],
				(free_range_count - i - 1) * sizeof(*range));
			free_ranges[i + 1] = (struct physical_range){ page + PAGE_SIZE, range->end };
			free_range_count++;
			range->end = page;
		}
		return (void *)page;
	}
	return NULL;
}

static void *allocate(uint64_t minimum, uint64_t limit)
{
	void *page = NULL;

	spin_lock(&allocator_lock);
	/* Freed pages first, if one fits the request. */
	for (struct freed_page **link = &freed_pages; *link; link = &(*link)->next) {
		uint64_t address = (uint64_t)*link;

		if (address >= minimum && address + PAGE_SIZE <= limit) {
			page = *link;
			*link = (*link)->next;
			break;
		}
	}
	if (!page)
		page = take_from_ranges(minimum, limit);
	if (page)
		stats.free_pages--;
	spin_unlock(&allocator_lock);
	if (page)
		memset(page, 0, PAGE_SIZE);
	return page;
}

void *page_alloc(void)
{
	void *page = allocate(LOW_MEMORY_LIMIT, UINT64_MAX);

	/* A machine with no RAM above 1 MiB is unlikely, but fall back. */
	return page ? page : allocate(0, LOW_MEMORY_LIMIT);
}

void *page_alloc_below(uint64_t limit)
{
	return allocate(0, limit);
}

void page_free(void *page)
{
	struct freed_page *freed = page;

	spin_lock(&allocator_lock);
	freed->next = freed_pages;
	freed_pages = freed;
	stats.free_pages++;
	spin_unlock(&allocator_lock);
}

void *pages_alloc(size_t count)
{
	uint64_t bytes = (uint64_t)count * PAGE_SIZE;
	void *block = NULL;

	spin_lock(&allocator_lock);
	for (size_t i = 0; i < free_range_count; i++) {
		struct physical_range *range = &free_ranges[i];

		if (range->start >= LOW_MEMORY_LIMIT && range->end - range->start >= bytes) {
			block = (void *)range->start;
			range->start += bytes;
			stats.free_pages -= count;
			break;
		}
	}
	spin_unlock(&allocator_lock);
	if (block)
		memset(block, 0, bytes);
	return block;
}

void page_allocator_stats(struct page_allocator_stats *out)
{
	spin_lock(&allocator_lock);
	*out = stats;
	out->range_count = free_range_count;
	spin_unlock(&allocator_lock);
}
