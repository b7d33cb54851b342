// SPDX-License-Identifier: MIT
/*
 * Tests for kernel/lib/pvh.c: a hand-built start_info and a fake physical
 * memory (a static array behind a bounds-checking map callback that also
 * records what it was asked for).
 *
 * The start_info is parsed from a copy at the very end of a static array,
 * and the fake memory ends at the end of its array, so that under
 * AddressSanitizer a read past what was handed over is caught.
 */
#include <harness/test.h>

#include <lib/boot_info.h>
#include <lib/pvh.h>
#include <lib/string.h>

#include "fake_memory.h"

#define FAKE_BASE	0x100000ull
#define PAGE		4096u
#define FAKE_SIZE	(6 * PAGE)
#define START_PHYSICAL	0x9000ull

struct fake_stats {
	size_t calls;
	size_t largest;
	size_t total;
	bool crossed_page;
};

static uint8_t fake[FAKE_SIZE] __attribute__((aligned(4096)));
static struct fake_stats stats;
static uint8_t start[PVH_START_INFO_V1_SIZE];
static uint8_t start_tail[64];
static struct boot_info info;

static const void *fake_map(uint64_t physical, size_t length, void *context)
{
	struct fake_stats *recorded = context;

	recorded->calls++;
	recorded->total += length;
	if (length > recorded->largest)
		recorded->largest = length;
	if (physical % PAGE + length > PAGE)
		recorded->crossed_page = true;
	return fake_memory_window(fake, FAKE_SIZE, FAKE_BASE, physical, length);
}

static const struct physical_memory_access memory = { .map = fake_map, .context = &stats };

static uint8_t *at(uint64_t physical)
{
	return fake + (physical - FAKE_BASE);
}

static void set_cmdline(uint64_t physical, const char *text)
{
	if (text)
		memcpy(at(physical), text, strlen(text) + 1);
	put64(start + 24, physical);
}

static void set_modules(uint64_t list, uint32_t count)
{
	put32(start + 12, count);
	put64(start + 16, list);
}

static void put_module(uint64_t list, uint32_t index, uint64_t address, uint64_t size)
{
	uint8_t *entry = at(list) + (size_t)index * PVH_MODULE_ENTRY_SIZE;

	put64(entry, address);
	put64(entry + 8, size);
}

static void set_memory_map(uint64_t map, uint32_t count)
{
	put64(start + 40, map);
	put32(start + 48, count);
}

static void put_region(uint64_t map, uint32_t index, uint64_t base, uint64_t length, uint32_t type)
{
	uint8_t *entry = at(map) + (size_t)index * PVH_MEMMAP_ENTRY_SIZE;

	put64(entry, base);
	put64(entry + 8, length);
	put32(entry + 16, type);
}

/*
 * A version 1 start_info with only a one-entry memory map (in the last
 * page, out of the way of what the tests place); fake memory cleared.
 */
#define DEFAULT_MAP	(FAKE_BASE + 5 * PAGE + 0x100)

static void begin(void)
{
	memset(fake, 0, sizeof(fake));
	memset(&stats, 0, sizeof(stats));
	memset(start, 0, sizeof(start));
	put32(start + 0, PVH_START_INFO_MAGIC);
	put32(start + 4, 1);
	set_memory_map(DEFAULT_MAP, 1);
	put_region(DEFAULT_MAP, 0, 0x100000, 0x1000000, MEMORY_AVAILABLE);
}

static int parse_bytes(size_t available, const struct physical_memory_access *access)
{
	const uint8_t *copy = copy_to_end(start_tail, sizeof(start_tail), start, available);

	return pvh_parse(copy, available, START_PHYSICAL, access, &info);
}

static int parse(void)
{
	return parse_bytes(sizeof(start), &memory);
}

static bool has_message(const char *needle)
{
	return boot_info_has_message(&info, needle);
}

/* --- The structure itself ---------------------------------------------------------- */

static void full_start_info_is_parsed(void)
{
	const uint64_t cmdline = FAKE_BASE + 0x100, list = FAKE_BASE + 0x200;
	const uint64_t map = FAKE_BASE + 0x300;

	begin();
	set_cmdline(cmdline, "test=lib_pvh");
	set_modules(list, 2);
	put_module(list, 0, 0x2000000, 0x1000);
	put_module(list, 1, 0x3000000, 0x20);
	set_memory_map(map, 3);
	put_region(map, 0, 0, 0x9fc00, MEMORY_AVAILABLE);
	put_region(map, 1, 0xf0000, 0x10000, MEMORY_RESERVED);
	put_region(map, 2, 0x100000, 0x7f00000, MEMORY_AVAILABLE);
	put64(start + 32, 0xf5a40);

	EXPECT_EQ(parse(), 0);
	EXPECT_EQ(info.protocol, BOOT_PROTOCOL_PVH);
	EXPECT_EQ(info.message_count, 0);
	EXPECT_STREQ(info.cmdline, "test=lib_pvh");
	EXPECT_STREQ(info.loader_name, "");
	ASSERT_EQ(info.module_count, 2);
	EXPECT_EQ(info.modules[0].start, 0x2000000);
	EXPECT_EQ(info.modules[0].end, 0x2001000);
	EXPECT_EQ(info.modules[1].start, 0x3000000);
	EXPECT_EQ(info.modules[1].end, 0x3000020);
	ASSERT_EQ(info.memory_count, 3);
	EXPECT_EQ(info.memory[1].base, 0xf0000);
	EXPECT_EQ(info.memory[1].length, 0x10000);
	EXPECT_EQ(info.memory[1].type, MEMORY_RESERVED);
	EXPECT_EQ(info.memory[2].length, 0x7f00000);
	EXPECT_EQ(info.rsdp_address, 0xf5a40);
	EXPECT_FALSE(info.has_rsdp_copy);
	EXPECT_EQ(info.info_start, START_PHYSICAL);
	EXPECT_EQ(info.info_end, START_PHYSICAL + PVH_START_INFO_V1_SIZE);
}

static void bad_magic_is_rejected(void)
{
	begin();
	put32(start, 0x336ec579);
	set_cmdline(FAKE_BASE, "never read");
	EXPECT_EQ(parse(), PVH_ERROR_BAD_MAGIC);
	EXPECT_TRUE(has_message("bad start_info magic 0x336ec579"));
	EXPECT_STREQ(info.cmdline, "");
	EXPECT_EQ(stats.calls, 0);

	put32(start, 0x36d76289);	/* the Multiboot2 magic is not PVH's */
	EXPECT_EQ(parse(), PVH_ERROR_BAD_MAGIC);
}

static void version_0_has_no_memory_map(void)
{
	const uint64_t map = FAKE_BASE + 0x300;

	begin();
	put32(start + 4, 0);
	set_cmdline(FAKE_BASE + 0x100, "v0");
	/* Bytes 40.. are not part of a version 0 structure: never read. */
	set_memory_map(map, 1);
	put_region(map, 0, 0, 0x1000, MEMORY_AVAILABLE);
	EXPECT_EQ(parse_bytes(PVH_START_INFO_V0_SIZE, &memory), 0);
	EXPECT_STREQ(info.cmdline, "v0");
	EXPECT_EQ(info.memory_count, 0);
	EXPECT_TRUE(has_message("version 0"));
	EXPECT_EQ(info.info_end, START_PHYSICAL + PVH_START_INFO_V0_SIZE);
}

static void version_1_cut_to_40_bytes_has_no_memory_map(void)
{
	const uint64_t map = FAKE_BASE + 0x300;

	begin();
	set_memory_map(map, 1);
	put_region(map, 0, 0, 0x1000, MEMORY_AVAILABLE);
	EXPECT_EQ(parse_bytes(PVH_START_INFO_V0_SIZE, &memory), 0);
	EXPECT_EQ(info.memory_count, 0);
	EXPECT_TRUE(has_message("cut to 40 readable bytes"));
	EXPECT_EQ(info.info_end, START_PHYSICAL + PVH_START_INFO_V0_SIZE);
}

static void later_versions_are_read_as_version_1(void)
{
	const uint64_t map = FAKE_BASE + 0x300;

	begin();
	put32(start + 4, 2);
	put32(start + 52, 0x40);	/* version 2: offset of VGA information */
	set_memory_map(map, 1);
	put_region(map, 0, 0x1000, 0x1000, MEMORY_AVAILABLE);
	EXPECT_EQ(parse(), 0);
	EXPECT_EQ(info.memory_count, 1);
	EXPECT_EQ(info.message_count, 0);
}

static void too_few_bytes_are_rejected(void)
{
	begin();
	EXPECT_EQ(parse_bytes(PVH_START_INFO_V0_SIZE - 1, &memory), PVH_ERROR_TOO_SHORT);
	EXPECT_TRUE(has_message("need 40"));
	EXPECT_EQ(parse_bytes(3, &memory), PVH_ERROR_TOO_SHORT);
	EXPECT_EQ(parse_bytes(0, &memory), PVH_ERROR_TOO_SHORT);
}

static void null_arguments_are_rejected(void)
{
	begin();
	EXPECT_EQ(pvh_parse(start, sizeof(start), 0, &memory, NULL), PVH_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(pvh_parse(NULL, sizeof(start), 0, &memory, &info), PVH_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(info.message_count, 1);
}

static void missing_accessor_reads_nothing_more(void)
{
	begin();
	set_cmdline(FAKE_BASE + 0x100, "unreachable");
	EXPECT_EQ(parse_bytes(sizeof(start), NULL), 0);
	EXPECT_STREQ(info.cmdline, "");
	EXPECT_TRUE(has_message("unreadable"));
	EXPECT_EQ(stats.calls, 0);
}

static void no_rsdp_leaves_address_zero(void)
{
	begin();
	EXPECT_EQ(parse(), 0);
	EXPECT_EQ(info.rsdp_address, 0);
	EXPECT_FALSE(info.has_rsdp_copy);
}

static void start_info_at_top_of_address_space_saturates(void)
{
	const uint8_t *copy;

	begin();
	copy = copy_to_end(start_tail, sizeof(start_tail), start, sizeof(start));
	EXPECT_EQ(pvh_parse(copy, sizeof(start), UINT64_MAX - 8, &memory, &info), 0);
	EXPECT_EQ(info.info_end, UINT64_MAX);
	EXPECT_TRUE(has_message("wraps"));
}

/* --- Command line ----------------------------------------------------------------------- */

static void cmdline_crossing_a_page_is_read_in_pieces(void)
{
	const uint64_t cmdline = FAKE_BASE + PAGE - 5;

	begin();
	set_cmdline(cmdline, "console=ttyS0 test=*");
	EXPECT_EQ(parse(), 0);
	EXPECT_STREQ(info.cmdline, "console=ttyS0 test=*");
	EXPECT_FALSE(stats.crossed_page);
	EXPECT_EQ(info.message_count, 0);
}

static void cmdline_ending_at_end_of_memory_is_read(void)
{
	/* "end" and its NUL are the last 4 bytes of the fake memory. */
	const uint64_t cmdline = FAKE_BASE + FAKE_SIZE - 4;

	begin();
	set_cmdline(cmdline, "end");
	EXPECT_EQ(parse(), 0);
	EXPECT_STREQ(info.cmdline, "end");
	EXPECT_EQ(info.message_count, 0);
}

static void cmdline_without_nul_is_truncated_at_capacity(void)
{
	const uint64_t cmdline = FAKE_BASE + 3 * PAGE - 100;

	begin();
	memset(at(cmdline), 'x', 2 * PAGE);
	set_cmdline(cmdline, NULL);
	EXPECT_EQ(parse(), 0);
	EXPECT_EQ(strlen(info.cmdline), BOOT_INFO_CMDLINE_SIZE - 1);
	EXPECT_TRUE(has_message("truncated"));
	EXPECT_FALSE(stats.crossed_page);
	/* Exactly BOOT_INFO_CMDLINE_SIZE bytes of line were asked for, plus the map entry. */
	EXPECT_EQ(stats.total, (size_t)(BOOT_INFO_CMDLINE_SIZE + PVH_MEMMAP_ENTRY_SIZE));
}

static void cmdline_of_exactly_capacity_is_not_truncated(void)
{
	const uint64_t cmdline = FAKE_BASE + 0x10;

	begin();
	memset(at(cmdline), 'y', BOOT_INFO_CMDLINE_SIZE - 1);
	at(cmdline)[BOOT_INFO_CMDLINE_SIZE - 1] = '\0';
	memset(at(cmdline) + BOOT_INFO_CMDLINE_SIZE, 'z', 16);
	set_cmdline(cmdline, NULL);
	EXPECT_EQ(parse(), 0);
	EXPECT_EQ(strlen(info.cmdline), BOOT_INFO_CMDLINE_SIZE - 1);
	EXPECT_EQ(info.message_count, 0);
}

static void cmdline_outside_memory_is_reported(void)
{
	begin();
	set_cmdline(0x5000, NULL);
	EXPECT_EQ(parse(), 0);
	EXPECT_STREQ(info.cmdline, "");
	EXPECT_TRUE(has_message("command line at 0x5000 unreadable"));
}

static void cmdline_running_out_of_memory_keeps_its_start(void)
{
	const uint64_t cmdline = FAKE_BASE + FAKE_SIZE - 6;

	begin();
	memcpy(at(cmdline), "abcdef", 6);	/* no NUL before the end of memory */
	set_cmdline(cmdline, NULL);
	EXPECT_EQ(parse(), 0);
	EXPECT_STREQ(info.cmdline, "abcdef");
	EXPECT_TRUE(has_message("unreadable"));
}

static void cmdline_at_top_of_address_space_does_not_wrap(void)
{
	begin();
	set_cmdline(UINT64_MAX - 2, NULL);
	EXPECT_EQ(parse(), 0);
	EXPECT_STREQ(info.cmdline, "");
	EXPECT_TRUE(has_message("unreadable"));
}

static void absent_cmdline_is_empty_without_message(void)
{
	begin();
	EXPECT_EQ(parse(), 0);
	EXPECT_STREQ(info.cmdline, "");
	EXPECT_EQ(info.message_count, 0);
}

/* --- Modules ------------------------------------------------------------------------------ */

static void modules_beyond_capacity_are_not_read(void)
{
	/* Entries 0..7 fit in memory; the 9th and 10th would lie beyond it. */
	const uint64_t list = FAKE_BASE + FAKE_SIZE - BOOT_INFO_MAX_MODULES * PVH_MODULE_ENTRY_SIZE;

	begin();
	set_modules(list, BOOT_INFO_MAX_MODULES + 2);
	for (uint32_t i = 0; i < BOOT_INFO_MAX_MODULES; i++)
		put_module(list, i, 0x1000000 * (i + 1ull), 0x100);
	EXPECT_EQ(parse(), 0);
	EXPECT_EQ(info.module_count, (size_t)BOOT_INFO_MAX_MODULES);
	EXPECT_EQ(info.modules[7].start, 0x8000000);
	EXPECT_TRUE(has_message("10 modules, only the first 8 kept"));
	EXPECT_FALSE(has_message("unreadable"));
}

static void module_count_without_list_is_reported(void)
{
	begin();
	set_modules(0, 2);
	EXPECT_EQ(parse(), 0);
	EXPECT_EQ(info.module_count, 0);
	EXPECT_TRUE(has_message("2 modules but no module list"));
}

static void unreadable_module_entry_is_reported(void)
{
	const uint64_t list = FAKE_BASE + FAKE_SIZE - PVH_MODULE_ENTRY_SIZE;

	begin();
	set_modules(list, 2);
	put_module(list, 0, 0x1000000, 0x10);
	EXPECT_EQ(parse(), 0);
	EXPECT_EQ(info.module_count, 1);
	EXPECT_TRUE(has_message("module list entry 1"));
}

static void wrapping_module_is_ignored(void)
{
	const uint64_t list = FAKE_BASE + 0x400;

	begin();
	set_modules(list, 2);
	put_module(list, 0, UINT64_MAX - 0xf, 0x20);
	put_module(list, 1, 0x1000000, 0x10);
	EXPECT_EQ(parse(), 0);
	ASSERT_EQ(info.module_count, 1);
	EXPECT_EQ(info.modules[0].start, 0x1000000);
	EXPECT_TRUE(has_message("wraps"));
}

static void module_list_at_top_of_address_space_does_not_wrap(void)
{
	begin();
	set_modules(UINT64_MAX - 40, 3);
	EXPECT_EQ(parse(), 0);
	EXPECT_EQ(info.module_count, 0);
	EXPECT_TRUE(has_message("module list entry 0"));
}

/* --- Memory map ------------------------------------------------------------------------- */

static void memory_map_keeps_e820_types_as_given(void)
{
	const uint64_t map = FAKE_BASE + 0x800;

	begin();
	set_memory_map(map, 3);
	put_region(map, 0, 0x100000, 0x1000, 6);	/* disabled */
	put_region(map, 1, 0x200000, 0x1000, 7);	/* persistent memory */
	put_region(map, 2, 0x300000, 0x1000, MEMORY_ACPI_RECLAIMABLE);
	EXPECT_EQ(parse(), 0);
	ASSERT_EQ(info.memory_count, 3);
	EXPECT_EQ(info.memory[0].type, 6);
	EXPECT_EQ(info.memory[1].type, 7);
	EXPECT_EQ(info.memory[2].type, MEMORY_ACPI_RECLAIMABLE);
}

static void memory_map_beyond_capacity_is_reported(void)
{
	const uint32_t count = BOOT_INFO_MAX_MEMORY_REGIONS + 4;
	const uint64_t map = FAKE_BASE;

	begin();
	set_memory_map(map, count);
	for (uint32_t i = 0; i < count; i++)
		put_region(map, i, 0x1000ull * i, 0x1000, MEMORY_AVAILABLE);
	EXPECT_EQ(parse(), 0);
	EXPECT_EQ(info.memory_count, (size_t)BOOT_INFO_MAX_MEMORY_REGIONS);
	EXPECT_EQ(info.memory[BOOT_INFO_MAX_MEMORY_REGIONS - 1].base,
		  0x1000ull * (BOOT_INFO_MAX_MEMORY_REGIONS - 1));
	EXPECT_TRUE(has_message("132 memory map entries"));
}

static void huge_memory_map_count_stops_at_the_end_of_memory(void)
{
	const uint64_t map = FAKE_BASE + FAKE_SIZE - 3 * PVH_MEMMAP_ENTRY_SIZE;

	begin();
	set_memory_map(map, UINT32_MAX);
	for (uint32_t i = 0; i < 3; i++)
		put_region(map, i, 0x1000ull * i, 0x1000, MEMORY_AVAILABLE);
	EXPECT_EQ(parse(), 0);
	EXPECT_EQ(info.memory_count, 3);
	EXPECT_TRUE(has_message("memory map entry 3"));
	EXPECT_LE(stats.largest, (size_t)PVH_MEMMAP_ENTRY_SIZE);
}

static void memory_map_at_top_of_address_space_does_not_wrap(void)
{
	begin();
	set_memory_map(UINT64_MAX - 30, 4);
	EXPECT_EQ(parse(), 0);
	EXPECT_EQ(info.memory_count, 0);
	EXPECT_TRUE(has_message("memory map entry 0"));
}

static void absent_memory_map_is_reported(void)
{
	begin();
	set_memory_map(FAKE_BASE, 0);
	EXPECT_EQ(parse(), 0);
	EXPECT_TRUE(has_message("no memory map"));

	begin();
	set_memory_map(0, 5);
	EXPECT_EQ(parse(), 0);
	EXPECT_EQ(info.memory_count, 0);
	EXPECT_TRUE(has_message("no memory map"));
}

static void wrapping_memory_region_is_ignored(void)
{
	const uint64_t map = FAKE_BASE + 0x40;

	begin();
	set_memory_map(map, 2);
	put_region(map, 0, UINT64_MAX, 2, MEMORY_AVAILABLE);
	put_region(map, 1, 0x1000, 0x1000, MEMORY_AVAILABLE);
	EXPECT_EQ(parse(), 0);
	ASSERT_EQ(info.memory_count, 1);
	EXPECT_EQ(info.memory[0].base, 0x1000);
	EXPECT_TRUE(has_message("wraps"));
}

/* Random addresses and contents: the parser must stay inside what it is given. */
static void random_start_info_is_survived(void)
{
	for (int round = 0; round < 300; round++) {
		int result;

		begin();
		for (size_t i = 0; i < sizeof(fake); i += 8)
			put64(fake + i, test_random());
		for (size_t i = 8; i < sizeof(start); i += 8)
			put64(start + i, test_random());
		if (test_random() % 2)
			put32(start + 4, (uint32_t)(test_random() % 3));
		/* Mostly point into the fake memory, sometimes anywhere. */
		if (test_random() % 4)
			set_cmdline(FAKE_BASE + test_random() % FAKE_SIZE, NULL);
		if (test_random() % 4)
			set_modules(FAKE_BASE + test_random() % FAKE_SIZE,
				    (uint32_t)(test_random() % 20));
		if (test_random() % 4)
			set_memory_map(FAKE_BASE + test_random() % FAKE_SIZE,
				       (uint32_t)(test_random() % 200));

		result = parse_bytes(PVH_START_INFO_V0_SIZE + test_random() % 17, &memory);
		EXPECT_EQ(result, 0);
		EXPECT_LE(info.memory_count, (size_t)BOOT_INFO_MAX_MEMORY_REGIONS);
		EXPECT_LE(info.module_count, (size_t)BOOT_INFO_MAX_MODULES);
		EXPECT_LT(strnlen(info.cmdline, sizeof(info.cmdline)), sizeof(info.cmdline));
		/* Nothing is mapped in one piece larger than the command line buffer. */
		EXPECT_LE(stats.largest, (size_t)BOOT_INFO_CMDLINE_SIZE);
	}
}

static const struct test_case pvh_cases[] = {
	TEST_CASE(full_start_info_is_parsed),
	TEST_CASE(bad_magic_is_rejected),
	TEST_CASE(version_0_has_no_memory_map),
	TEST_CASE(version_1_cut_to_40_bytes_has_no_memory_map),
	TEST_CASE(later_versions_are_read_as_version_1),
	TEST_CASE(too_few_bytes_are_rejected),
	TEST_CASE(null_arguments_are_rejected),
	TEST_CASE(missing_accessor_reads_nothing_more),
	TEST_CASE(no_rsdp_leaves_address_zero),
	TEST_CASE(start_info_at_top_of_address_space_saturates),
	TEST_CASE(cmdline_crossing_a_page_is_read_in_pieces),
	TEST_CASE(cmdline_ending_at_end_of_memory_is_read),
	TEST_CASE(cmdline_without_nul_is_truncated_at_capacity),
	TEST_CASE(cmdline_of_exactly_capacity_is_not_truncated),
	TEST_CASE(cmdline_outside_memory_is_reported),
	TEST_CASE(cmdline_running_out_of_memory_keeps_its_start),
	TEST_CASE(cmdline_at_top_of_address_space_does_not_wrap),
	TEST_CASE(absent_cmdline_is_empty_without_message),
	TEST_CASE(modules_beyond_capacity_are_not_read),
	TEST_CASE(module_count_without_list_is_reported),
	TEST_CASE(unreadable_module_entry_is_reported),
	TEST_CASE(wrapping_module_is_ignored),
	TEST_CASE(module_list_at_top_of_address_space_does_not_wrap),
	TEST_CASE(memory_map_keeps_e820_types_as_given),
	TEST_CASE(memory_map_beyond_capacity_is_reported),
	TEST_CASE(huge_memory_map_count_stops_at_the_end_of_memory),
	TEST_CASE(memory_map_at_top_of_address_space_does_not_wrap),
	TEST_CASE(absent_memory_map_is_reported),
	TEST_CASE(wrapping_memory_region_is_ignored),
	TEST_CASE(random_start_info_is_survived),
};
TEST_SUITE(lib_pvh, pvh_cases, NULL, NULL);
