// SPDX-License-Identifier: MIT
/*
 * The boot information as this boot really delivered it: the parsers run
 * again on the loader's own structure, and the memory map and allocator are
 * checked against what must be true of any sane machine.
 */
#include <boot/acpi.h>
#include <boot/boot.h>
#include <harness/test.h>
#include <mm/memory.h>
#include <lib/acpi_tables.h>
#include <lib/memory_map.h>
#include <lib/multiboot2.h>
#include <lib/string.h>

extern char __kernel_start[], __kernel_end[];

static struct boot_info reparsed;


static void reparsing_the_real_information_gives_the_same_result(void)
{
	const void *info = (const void *)boot_info.info_start;
	size_t size = (size_t)(boot_info.info_end - boot_info.info_start);
	int result;

	/*
	 * The multiboot2 information is one block, reserved for the whole run.
	 * A PVH start_info points at a command line and memory map elsewhere
	 * (QEMU puts them in page 0 and the pages after it), which the boot
	 * copied and then let the allocator reuse: there is nothing to re-parse.
	 */
	if (boot_info.protocol != BOOT_PROTOCOL_MULTIBOOT2)
		test_skip("PVH boot: its data was copied at boot and its pages reused");
	ASSERT_GT(boot_info.info_end, boot_info.info_start);
	result = multiboot2_parse(info, size, boot_info.info_start, &reparsed);
	ASSERT_EQ(result, 0);
	EXPECT_EQ(reparsed.protocol, boot_info.protocol);
	EXPECT_STREQ(reparsed.cmdline, boot_info.cmdline);
	EXPECT_STREQ(reparsed.loader_name, boot_info.loader_name);
	EXPECT_EQ(reparsed.memory_count, boot_info.memory_count);
	EXPECT_EQ(reparsed.message_count, 0u);
}

/*
 * What GRUB gives on every PC, BIOS or UEFI: its name and the memory map
 * (Multiboot2 spec 3.6.9, 3.6.8).  The header requests the RSDP tags too,
 * but requested is not promised: a loader can only pass on an RSDP the
 * firmware has, which is the next case's business.
 */
static void multiboot2_information_has_what_every_loader_gives(void)
{
	if (boot_info.protocol != BOOT_PROTOCOL_MULTIBOOT2)
		test_skip("booted through PVH, not multiboot2");
	EXPECT_TRUE(boot_info.loader_name[0] != '\0');
	EXPECT_GT(boot_info.memory_count, 0u);
}

/*
 * The RSDP tags (Multiboot2 3.6.16, 3.6.17) against the firmware itself.
 * On a BIOS boot the loader looks for the RSDP where ACPI 6.5 5.2.5.1 says
 * the firmware puts it (the EBDA's first KiB, 0xE0000-0xFFFFF), and so does
 * arch_acpi_scan_for_rsdp(): a machine with ACPI must have handed over the
 * same RSDP, one without (QEMU -machine acpi=off) no tag at all.  A UEFI
 * firmware keeps its RSDP in the EFI configuration table, which trigos does
 * not read: there a tag is only checked for being a valid RSDP.
 */
static void multiboot2_rsdp_tag_is_given_exactly_when_the_firmware_has_one(void)
{
	struct acpi_rsdp parsed;
	const uint8_t *firmware;
	uint64_t scanned;

	if (boot_info.protocol != BOOT_PROTOCOL_MULTIBOOT2)
		test_skip("booted through PVH, not multiboot2");
	if (boot_info.has_rsdp_copy)
		EXPECT_EQ(acpi_rsdp_parse(boot_info.rsdp_copy, boot_info.rsdp_copy_length, &parsed),
			  ACPI_OK);
	if (boot_info.efi_boot) {
		test_diag("UEFI: %s; the firmware's own copy is in its configuration table, not "
			  "read here", boot_info.has_rsdp_copy ? "the RSDP tag is a valid RSDP" :
			  "no RSDP tag");
		return;
	}
	scanned = arch_acpi_scan_for_rsdp();
	if (!scanned) {
		EXPECT_FALSE(boot_info.has_rsdp_copy);
		test_diag("no RSDP in the BIOS areas (a machine without ACPI), %s",
			  boot_info.has_rsdp_copy ? "yet the loader gave one" :
			  "and the loader rightly gave no RSDP tag");
		return;
	}
	ASSERT_TRUE(boot_info.has_rsdp_copy);
	/* The first 20 bytes are every revision's: signature, OEM, revision, RSDT. */
	firmware = physical_memory_map(&kernel_physical_memory, scanned, 20);
	ASSERT_NOT_NULL(firmware);
	EXPECT_MEMEQ(boot_info.rsdp_copy, firmware, 20);
}

static void memory_map_is_sorted_and_disjoint(void)
{
	ASSERT_GT(boot_info.memory_count, 0u);
	for (size_t i = 1; i < boot_info.memory_count; i++)
		EXPECT_LE(boot_info.memory[i - 1].base, boot_info.memory[i].base);
	EXPECT_EQ(memory_map_find_overlap(boot_info.memory, boot_info.memory_count),
		  boot_info.memory_count);
}

static void memory_map_has_low_and_high_ram(void)
{
	/* Every PC has conventional memory at 0 and RAM from 1 MiB up. */
	EXPECT_TRUE(memory_map_covers(boot_info.memory, boot_info.memory_count, 0x1000, 0x9f000,
				      MEMORY_AVAILABLE));
	EXPECT_TRUE(memory_map_covers(boot_info.memory, boot_info.memory_count, 0x100000,
				      0x800000, MEMORY_AVAILABLE));
}

static void kernel_lies_in_available_ram(void)
{
	EXPECT_TRUE(memory_map_covers(boot_info.memory, boot_info.memory_count,
				      (uint64_t)__kernel_start, (uint64_t)__kernel_end,
				      MEMORY_AVAILABLE));
}

static bool overlaps(uint64_t page, uint64_t start, uint64_t end)
{
	return page < end && page + PAGE_SIZE > start;
}

static void allocator_never_returns_reserved_memory(void)
{
	void *pages[64];
	size_t count = 0;

	for (; count < 64; count++) {
		uint64_t page;

		pages[count] = page_alloc();
		ASSERT_NOT_NULL(pages[count]);
		page = (uint64_t)pages[count];
		EXPECT_EQ(page & (PAGE_SIZE - 1), 0u);
		EXPECT_FALSE(overlaps(page, (uint64_t)__kernel_start, (uint64_t)__kernel_end));
		EXPECT_FALSE(overlaps(page, boot_info.info_start, boot_info.info_end));
		EXPECT_TRUE(memory_map_covers(boot_info.memory, boot_info.memory_count, page,
					      page + PAGE_SIZE, MEMORY_AVAILABLE));
	}
	for (size_t i = 0; i < count; i++)
		page_free(pages[i]);
}

static void allocator_pages_are_zeroed_and_distinct(void)
{
	uint8_t *first = page_alloc(), *second = page_alloc();

	ASSERT_NOT_NULL(first);
	ASSERT_NOT_NULL(second);
	EXPECT_TRUE(first != second);
	for (size_t i = 0; i < PAGE_SIZE; i++) {
		if (first[i] != 0 || second[i] != 0) {
			EXPECT_EQ(first[i] | second[i], 0);
			break;
		}
	}
	memset(first, 0xaa, PAGE_SIZE);
	page_free(first);
	first = page_alloc();
	ASSERT_NOT_NULL(first);
	EXPECT_EQ(first[0], 0);
	EXPECT_EQ(first[PAGE_SIZE - 1], 0);
	page_free(first);
	page_free(second);
}

static void low_page_for_the_trampoline_is_below_one_megabyte(void)
{
	void *page = page_alloc_below(0x100000);

	ASSERT_NOT_NULL(page);
	EXPECT_LT((uint64_t)page + PAGE_SIZE, 0x100001u);
	EXPECT_GE((uint64_t)page, PAGE_SIZE);
	page_free(page);
}

static void free_page_count_is_consistent(void)
{
	struct page_allocator_stats before, during, after;
	void *page;

	page_allocator_stats(&before);
	page = page_alloc();
	ASSERT_NOT_NULL(page);
	page_allocator_stats(&during);
	page_free(page);
	page_allocator_stats(&after);
	EXPECT_EQ(during.free_pages + 1, before.free_pages);
	EXPECT_EQ(after.free_pages, before.free_pages);
	EXPECT_LE(before.free_pages, before.total_pages);
}

static const struct test_case boot_info_cases[] = {
	TEST_CASE(reparsing_the_real_information_gives_the_same_result),
	TEST_CASE(multiboot2_information_has_what_every_loader_gives),
	TEST_CASE(multiboot2_rsdp_tag_is_given_exactly_when_the_firmware_has_one),
	TEST_CASE(memory_map_is_sorted_and_disjoint),
	TEST_CASE(memory_map_has_low_and_high_ram),
	TEST_CASE(kernel_lies_in_available_ram),
	TEST_CASE(allocator_never_returns_reserved_memory),
	TEST_CASE(allocator_pages_are_zeroed_and_distinct),
	TEST_CASE(low_page_for_the_trampoline_is_below_one_megabyte),
	TEST_CASE(free_page_count_is_consistent),
};
TEST_SUITE(boot_info, boot_info_cases, NULL, NULL);
