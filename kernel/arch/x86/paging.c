// SPDX-License-Identifier: MIT
/*
 * The kernel's page tables: 4-level, identity-mapped (SDM vol 3, 5.5).
 *
 * kernel/arch/x86/entry.S gets us to long mode with the low 4 GiB mapped read-write-
 * execute in 2 MiB pages.  paging_init() replaces that with the real map:
 *  - RAM from the memory map (available, ACPI reclaimable and NVS) read-write,
 *    no-execute, in 2 MiB pages where alignment allows;
 *  - the first MiB (BIOS data, EBDA, option ROMs, where the AP trampoline
 *    goes) read-write, except page 0, left unmapped so that NULL faults;
 *  - the kernel image in 4 KiB pages with per-section permissions: text
 *    read-only and executable, rodata read-only, data and bss no-execute
 *    (EFER.NXE is set in entry.S, CR0.WP makes read-only bind ring 0 too);
 *  - the boot stack's guard page unmapped.
 * Everything else (LAPIC, HPET, framebuffer, ACPI tables in reserved memory)
 * is mapped on demand with map_phys(), uncached for MMIO.
 *
 * The tables are allocated while the boot map is live, lowest pages first,
 * so they lie below 4 GiB where the boot map reaches them.
 */
#include <mm/memory.h>
#include <log/panic.h>
#include <sync/spinlock.h>
#include <lib/string.h>
#include <asm/instructions.h>
#include <asm/paging.h>

#define PTE_PRESENT		(1ull << 0)
#define PTE_WRITABLE		(1ull << 1)
#define PTE_WRITE_THROUGH	(1ull << 3)
#define PTE_CACHE_DISABLE	(1ull << 4)
#define PTE_LARGE		(1ull << 7)	/* in a PD entry: a 2 MiB page */
#define PTE_PAT			(1ull << 7)	/* in a PTE: bit 2 of the PAT index */
#define PTE_LARGE_PAT		(1ull << 12)	/* the same in a 2 MiB page's PD entry */
#define PTE_NO_EXECUTE		(1ull << 63)
#define PTE_ADDRESS_MASK	0x000ffffffffff000ull

#define ENTRIES_PER_TABLE	512
#define LARGE_PAGE_SIZE		(2ull * 1024 * 1024)
#define BOOT_MAP_LIMIT		(4ull * 1024 * 1024 * 1024)

/* Intermediate entries allow everything; the leaf entry decides. */
#define PTE_TABLE		(PTE_PRESENT | PTE_WRITABLE)

extern char __kernel_start[], __text_start[], __text_end[], __rodata_start[], __rodata_end[];
extern char __data_start[], __bss_end[], __kernel_symbols_start[], __kernel_end[];
extern char boot_stack_guard[];

static uint64_t *kernel_pml4;
static DEFINE_SPINLOCK(paging_lock);

static uint64_t leaf_flags(unsigned int attributes)
{
	uint64_t flags = PTE_PRESENT;

	if (attributes & MAP_WRITE)
		flags |= PTE_WRITABLE;
	if (!(attributes & MAP_EXECUTE))
		flags |= PTE_NO_EXECUTE;
	/* PCD+PWT selects PAT entry 3, UC by default (SDM vol 3, 13.12.3). */
	if (attributes & MAP_UNCACHED)
		flags |= PTE_CACHE_DISABLE | PTE_WRITE_THROUGH;
	return flags;
}

static unsigned int attributes_of(uint64_t entry)
{
	unsigned int attributes = 0;

	if (entry & PTE_WRITABLE)
		attributes |= MAP_WRITE;
	if (!(entry & PTE_NO_EXECUTE))
		attributes |= MAP_EXECUTE;
	if (entry & PTE_CACHE_DISABLE)
		attributes |= MAP_UNCACHED;
	return attributes;
}

static unsigned int table_index(uint64_t address, int level)
{
	return (address >> (12 + 9 * (level - 1))) & (ENTRIES_PER_TABLE - 1);
}

static uint64_t *table_at(uint64_t entry)
{
	return (uint64_t *)(entry & PTE_ADDRESS_MASK);
}

/* Replace a 2 MiB page by a page table of 512 4 KiB pages with its flags. */
static bool split_large_page(uint64_t *pd_entry)
{
	uint64_t *table = page_alloc();
	uint64_t base = *pd_entry & PTE_ADDRESS_MASK & ~(LARGE_PAGE_SIZE - 1);
	uint64_t flags = *pd_entry & ~PTE_ADDRESS_MASK & ~PTE_LARGE;

	if (!table)
		return false;
	for (int i = 0; i < ENTRIES_PER_TABLE; i++)
		table[i] = (base + (uint64_t)i * PAGE_SIZE) | flags;
	*pd_entry = (uint64_t)table | PTE_TABLE;
	return true;
}

/*
 * The entry for @address at @level (1: a 4 KiB page's PTE, 2: a PD entry),
 * creating tables on the way when @create; NULL if absent or out of memory.
 */
static uint64_t *find_entry(uint64_t address, int level, bool create)
{
	uint64_t *table = kernel_pml4;

	for (int current = 4; current > level; current--) {
		uint64_t *entry = &table[table_index(address, current)];

		if (!(*entry & PTE_PRESENT)) {
			uint64_t *new_table;

			if (!create)
				return NULL;
			new_table = page_alloc();
			if (!new_table)
				return NULL;
			*entry = (uint64_t)new_table | PTE_TABLE;
		} else if (*entry & PTE_LARGE) {
			if (current != 2)
				return NULL;	/* 1 GiB pages are never made here */
			if (!create || !split_large_page(entry))
				return NULL;
		}
		table = table_at(*entry);
	}
	return &table[table_index(address, level)];
}

static bool map_range_locked(uint64_t start, uint64_t end, uint64_t flags)
{
	uint64_t address = start;

	while (address < end) {
		uint64_t *entry;

		if ((address & (LARGE_PAGE_SIZE - 1)) == 0 && end - address >= LARGE_PAGE_SIZE) {
			uint64_t *pd_entry = find_entry(address, 2, true);

			if (!pd_entry)
				return false;
			/* Only an empty or large slot may take a large page. */
			if (!(*pd_entry & PTE_PRESENT) || (*pd_entry & PTE_LARGE)) {
				*pd_entry = address | flags | PTE_LARGE;
				address += LARGE_PAGE_SIZE;
				continue;
			}
		}
		entry = find_entry(address, 1, true);
		if (!entry)
			return false;
		*entry = address | flags;
		address += PAGE_SIZE;
	}
	return true;
}

static void flush_range(uint64_t start, uint64_t end)
{
	/*
	 * Only this CPU's TLB: mappings change while one CPU runs, or for
	 * addresses other CPUs have not touched yet.
	 */
	if (end - start > 64 * PAGE_SIZE) {
		write_cr3(read_cr3());
		return;
	}
	for (uint64_t address = start; address < end; address += PAGE_SIZE)
		invlpg((void *)address);
}

void *map_phys(uint64_t physical, uint64_t size, unsigned int attributes)
{
	uint64_t start = page_align_down(physical);
	uint64_t end = page_align_up(physical + size);
	bool mapped;

	if (size == 0 || end < start)
		return NULL;
	/* Before paging_init() the boot map covers the low 4 GiB, all read-write. */
	if (!kernel_pml4)
		return end <= BOOT_MAP_LIMIT ? (void *)physical : NULL;
	spin_lock(&paging_lock);
	mapped = map_range_locked(start, end, leaf_flags(attributes));
	if (read_cr3() == (uint64_t)kernel_pml4)
		flush_range(start, end);
	spin_unlock(&paging_lock);
	return mapped ? (void *)physical : NULL;
}

void *map_page_alias(uint64_t virtual, uint64_t physical, unsigned int attributes)
{
	uint64_t *entry;

	if ((virtual | physical) & (PAGE_SIZE - 1) || !kernel_pml4)
		return NULL;
	spin_lock(&paging_lock);
	entry = find_entry(virtual, 1, true);
	if (entry)
		*entry = physical | leaf_flags(attributes);
	if (read_cr3() == (uint64_t)kernel_pml4)
		flush_range(virtual, virtual + PAGE_SIZE);
	spin_unlock(&paging_lock);
	return entry ? (void *)virtual : NULL;
}

void unmap_range(uint64_t address, uint64_t size)
{
	uint64_t start = page_align_down(address);
	uint64_t end = page_align_up(address + size);

	spin_lock(&paging_lock);
	for (uint64_t page = start; page < end; page += PAGE_SIZE) {
		uint64_t *entry = find_entry(page, 1, true);

		if (entry)
			*entry = 0;
	}
	if (read_cr3() == (uint64_t)kernel_pml4)
		flush_range(start, end);
	spin_unlock(&paging_lock);
}

/*
 * The leaf entry that maps @address in the kernel's tables, and the size of
 * the page it maps (or, when it returns false, of the table slot found
 * empty): what the queries below walk.  Before paging_init() the boot map
 * covers the low 4 GiB with read-write-execute 2 MiB pages, identity-mapped.
 */
static bool find_leaf(uint64_t address, uint64_t *entry, uint64_t *size)
{
	uint64_t *table = kernel_pml4;

	if (!table) {
		*size = LARGE_PAGE_SIZE;
		*entry = (address & ~(LARGE_PAGE_SIZE - 1)) | PTE_PRESENT | PTE_WRITABLE | PTE_LARGE;
		return address < BOOT_MAP_LIMIT;
	}
	for (int level = 4; level >= 1; level--) {
		*entry = table[table_index(address, level)];
		*size = 1ull << (12 + 9 * (level - 1));
		if (!(*entry & PTE_PRESENT))
			return false;
		if (level == 1 || (level == 2 && (*entry & PTE_LARGE)))
			return true;
		table = table_at(*entry);
	}
	return false;
}

bool paging_query(uint64_t address, unsigned int *attributes)
{
	uint64_t entry, size;

	if (!find_leaf(address, &entry, &size))
		return false;
	*attributes = attributes_of(entry);
	return true;
}

bool paging_translate(uint64_t address, uint64_t *physical)
{
	uint64_t entry, size;

	if (!find_leaf(address, &entry, &size))
		return false;
	*physical = (entry & PTE_ADDRESS_MASK & ~(size - 1)) | (address & (size - 1));
	return true;
}

/* SDM vol 3A, 12.12.3: the PAT entry is PAT:PCD:PWT, PAT at bit 7 or (large) 12. */
static unsigned int pat_index_of(uint64_t entry, bool large)
{
	return ((entry & (large ? PTE_LARGE_PAT : PTE_PAT)) ? 4u : 0u) |
	       ((entry & PTE_CACHE_DISABLE) ? 2u : 0u) | ((entry & PTE_WRITE_THROUGH) ? 1u : 0u);
}

unsigned int paging_pat_indices(uint64_t start, uint64_t end)
{
	unsigned int indices = 0;
	uint64_t address = page_align_down(start);

	while (address < end) {
		uint64_t entry, size;

		if (find_leaf(address, &entry, &size))
			indices |= 1u << pat_index_of(entry, size > PAGE_SIZE);
		/* On to the next page, or the next slot of the level found empty. */
		address = (address & ~(size - 1)) + size;
		if (address == 0)
			break;		/* wrapped past the top */
	}
	return indices;
}

static void map_or_panic(uint64_t start, uint64_t end, unsigned int attributes, const char *what)
{
	if (!map_range_locked(page_align_down(start), page_align_up(end), leaf_flags(attributes)))
		panic("out of memory for page tables while mapping %s", what);
}

void paging_init(const struct boot_info *info)
{
	kernel_pml4 = page_alloc();
	if (!kernel_pml4)
		panic("no memory for the page tables");

	for (size_t i = 0; i < info->memory_count; i++) {
		const struct memory_region *region = &info->memory[i];

		if (region->type == MEMORY_AVAILABLE || region->type == MEMORY_ACPI_RECLAIMABLE ||
		    region->type == MEMORY_ACPI_NVS)
			map_or_panic(region->base, region->base + region->length, MAP_WRITE, "RAM");
	}
	/* The first MiB, legacy VGA memory uncached; page 0 stays unmapped. */
	map_or_panic(PAGE_SIZE, 0xa0000, MAP_WRITE, "low memory");
	map_or_panic(0xa0000, 0xc0000, MAP_WRITE | MAP_UNCACHED, "VGA memory");
	map_or_panic(0xc0000, 0x100000, MAP_WRITE, "the BIOS area");
	/*
	 * The framebuffer stays where the screen console found it in the boot
	 * map.  Uncached: there is no PAT set-up for write-combining, and the
	 * console never reads it back.
	 */
	if (info->has_framebuffer && info->framebuffer.type == 1)
		map_or_panic(info->framebuffer.address,
			     info->framebuffer.address +
				     (uint64_t)info->framebuffer.pitch * info->framebuffer.height,
			     MAP_WRITE | MAP_UNCACHED, "the framebuffer");

	map_or_panic((uint64_t)__text_start, (uint64_t)__text_end, MAP_EXECUTE, "kernel text");
	map_or_panic((uint64_t)__rodata_start, (uint64_t)__rodata_end, 0, "kernel rodata");
	map_or_panic((uint64_t)__data_start, (uint64_t)__bss_end, MAP_WRITE, "kernel data");
	map_or_panic((uint64_t)__kernel_symbols_start, (uint64_t)__kernel_end, 0, "the symbol table");

	*find_entry(0, 1, true) = 0;
	*find_entry((uint64_t)boot_stack_guard, 1, true) = 0;

	write_cr3((uint64_t)kernel_pml4);
}
