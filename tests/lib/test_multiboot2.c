// SPDX-License-Identifier: MIT
/*
 * Tests for kernel/lib/multiboot2.c with hand-built boot information.
 *
 * Every parse runs on a copy placed at the very end of a static array, so
 * that under AddressSanitizer any read past the bytes handed over is
 * caught as a global buffer overflow.  Large objects are static to keep
 * them off the kernel's stack when these tests run at boot.
 */
#include <harness/test.h>

#include <lib/boot_info.h>
#include <lib/multiboot2.h>
#include <lib/string.h>

#include "fake_memory.h"

#define BUILD_SIZE	8192
#define INFO_PHYSICAL	0x10000ull

static uint8_t build[BUILD_SIZE] __attribute__((aligned(8)));
static size_t build_used;
static uint8_t tail[BUILD_SIZE] __attribute__((aligned(8)));
static struct boot_info info;

static void mb_begin(void)
{
	memset(build, 0, sizeof(build));
	build_used = 8;
}

/* Append a tag of @size bytes (header included); returns its start. */
static uint8_t *mb_tag(uint32_t type, uint32_t size)
{
	uint8_t *tag = build + build_used;

	put32(tag, type);
	put32(tag + 4, size);
	build_used += ((size_t)size + 7) & ~(size_t)7;
	return tag;
}

static void mb_string_tag(uint32_t type, const char *text)
{
	size_t length = strlen(text) + 1;
	uint8_t *tag = mb_tag(type, (uint32_t)(8 + length));

	memcpy(tag + 8, text, length);
}

static void mb_module(uint32_t start, uint32_t end, const char *name)
{
	size_t length = strlen(name) + 1;
	uint8_t *tag = mb_tag(MULTIBOOT2_TAG_MODULE, (uint32_t)(16 + length));

	put32(tag + 8, start);
	put32(tag + 12, end);
	memcpy(tag + 16, name, length);
}

/* A memory map tag with @count entries of @entry_size bytes; returns the first entry. */
static uint8_t *mb_mmap(uint32_t entry_size, uint32_t version, uint32_t count)
{
	uint8_t *tag = mb_tag(MULTIBOOT2_TAG_MMAP, 16 + entry_size * count);

	put32(tag + 8, entry_size);
	put32(tag + 12, version);
	return tag + 16;
}

static void mb_mmap_entry(uint8_t *entry, uint64_t base, uint64_t length, uint32_t type)
{
	put64(entry, base);
	put64(entry + 8, length);
	put32(entry + 16, type);
}

/* Add the end tag and set total_size. */
static void mb_finish(void)
{
	mb_tag(MULTIBOOT2_TAG_END, 8);
	put32(build, (uint32_t)build_used);
}

/* Parse the first @available bytes of the build, copied to the end of tail[]. */
static int parse_bytes(size_t available)
{
	const uint8_t *copy = copy_to_end(tail, sizeof(tail), build, available);

	return multiboot2_parse(copy, available, INFO_PHYSICAL, &info);
}

static int parse(void)
{
	return parse_bytes(build_used);
}

static bool has_message(const char *needle)
{
	return boot_info_has_message(&info, needle);
}

/* --- Basics ------------------------------------------------------------------- */

static void magic_valid_accepts_only_multiboot2_magic(void)
{
	EXPECT_TRUE(multiboot2_magic_valid(0x36d76289u));
	EXPECT_FALSE(multiboot2_magic_valid(0x2badb002u));	/* Multiboot 1 */
	EXPECT_FALSE(multiboot2_magic_valid(0));
	EXPECT_FALSE(multiboot2_magic_valid(0x36d76288u));
}

static void minimal_info_parses_without_messages(void)
{
	mb_begin();
	mb_finish();
	ASSERT_EQ(build_used, 16);
	EXPECT_EQ(parse(), 0);
	EXPECT_EQ(info.protocol, BOOT_PROTOCOL_MULTIBOOT2);
	EXPECT_EQ(info.message_count, 0);
	EXPECT_EQ(info.memory_count, 0);
	EXPECT_EQ(info.module_count, 0);
	EXPECT_STREQ(info.cmdline, "");
	EXPECT_FALSE(info.has_rsdp_copy);
	EXPECT_FALSE(info.has_framebuffer);
	EXPECT_FALSE(info.efi_boot);
}

static void info_range_is_recorded(void)
{
	mb_begin();
	mb_string_tag(MULTIBOOT2_TAG_CMDLINE, "x");
	mb_finish();
	EXPECT_EQ(parse(), 0);
	EXPECT_EQ(info.info_start, INFO_PHYSICAL);
	EXPECT_EQ(info.info_end, INFO_PHYSICAL + build_used);
}

static void misaligned_info_is_reported(void)
{
	mb_begin();
	mb_finish();
	EXPECT_EQ(multiboot2_parse(build, build_used, INFO_PHYSICAL + 4, &info), 0);
	EXPECT_TRUE(has_message("aligned"));
	EXPECT_EQ(info.info_start, INFO_PHYSICAL + 4);
}

static void info_at_top_of_address_space_saturates(void)
{
	mb_begin();
	mb_finish();
	EXPECT_EQ(multiboot2_parse(build, build_used, UINT64_MAX - 7, &info), 0);
	EXPECT_EQ(info.info_end, UINT64_MAX);
	EXPECT_TRUE(has_message("wraps"));
}

static void previous_contents_of_out_are_cleared(void)
{
	memset(&info, 0xff, sizeof(info));
	mb_begin();
	mb_finish();
	EXPECT_EQ(parse(), 0);
	EXPECT_EQ(info.memory_count, 0);
	EXPECT_EQ(info.messages_dropped, 0);
	EXPECT_EQ(info.loader_name[0], '\0');
	EXPECT_FALSE(info.has_framebuffer);
}

static void null_arguments_are_rejected(void)
{
	mb_begin();
	mb_finish();
	EXPECT_EQ(multiboot2_parse(build, build_used, 0, NULL), MULTIBOOT2_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(multiboot2_parse(NULL, 100, 0, &info), MULTIBOOT2_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(info.message_count, 1);
}

/* --- Header errors ---------------------------------------------------------------- */

static void total_size_larger_than_available_is_rejected(void)
{
	mb_begin();
	mb_string_tag(MULTIBOOT2_TAG_CMDLINE, "console=serial");
	mb_finish();
	EXPECT_EQ(parse_bytes(build_used - 8), MULTIBOOT2_ERROR_TRUNCATED);
	EXPECT_TRUE(has_message("exceeds"));
	EXPECT_STREQ(info.cmdline, "");
}

static void total_size_below_16_is_rejected(void)
{
	mb_begin();
	mb_finish();
	put32(build, 8);
	EXPECT_EQ(parse(), MULTIBOOT2_ERROR_TOO_SHORT);
	put32(build, 15);
	EXPECT_EQ(parse(), MULTIBOOT2_ERROR_TOO_SHORT);
	put32(build, 0);
	EXPECT_EQ(parse(), MULTIBOOT2_ERROR_TOO_SHORT);
	EXPECT_EQ(info.message_count, 1);
}

static void fewer_than_8_readable_bytes_are_rejected(void)
{
	mb_begin();
	mb_finish();
	EXPECT_EQ(parse_bytes(7), MULTIBOOT2_ERROR_TOO_SHORT);
	EXPECT_EQ(parse_bytes(0), MULTIBOOT2_ERROR_TOO_SHORT);
	EXPECT_EQ(info.message_count, 1);
}

/* --- Tag walk errors --------------------------------------------------------------- */

static void tag_with_size_4_stops_the_walk(void)
{
	mb_begin();
	mb_string_tag(MULTIBOOT2_TAG_CMDLINE, "before");
	put32(build + build_used, MULTIBOOT2_TAG_BOOT_LOADER_NAME);
	put32(build + build_used + 4, 4);
	build_used += 8;
	mb_string_tag(MULTIBOOT2_TAG_BOOT_LOADER_NAME, "after");
	mb_finish();
	EXPECT_EQ(parse(), 0);
	EXPECT_STREQ(info.cmdline, "before");
	EXPECT_STREQ(info.loader_name, "");
	EXPECT_TRUE(has_message("size 4 < 8"));
}

static void tag_with_size_0_stops_the_walk(void)
{
	mb_begin();
	put32(build + build_used, MULTIBOOT2_TAG_CMDLINE);
	put32(build + build_used + 4, 0);
	build_used += 8;
	mb_finish();
	EXPECT_EQ(parse(), 0);
	EXPECT_TRUE(has_message("size 0 < 8"));
}

static void tag_running_past_total_size_stops_the_walk(void)
{
	uint8_t *tag;

	mb_begin();
	mb_string_tag(MULTIBOOT2_TAG_CMDLINE, "kept");
	tag = mb_tag(MULTIBOOT2_TAG_BOOT_LOADER_NAME, 16);
	memcpy(tag + 8, "GRUB", 5);
	mb_finish();
	put32(tag + 4, 4096);
	EXPECT_EQ(parse(), 0);
	EXPECT_STREQ(info.cmdline, "kept");
	EXPECT_STREQ(info.loader_name, "");
	EXPECT_TRUE(has_message("runs past total_size"));
}

static void tag_size_near_4g_does_not_wrap(void)
{
	uint8_t *tag;

	mb_begin();
	tag = mb_tag(MULTIBOOT2_TAG_CMDLINE, 16);
	mb_finish();
	put32(tag + 4, UINT32_MAX);
	EXPECT_EQ(parse(), 0);
	EXPECT_TRUE(has_message("runs past total_size"));
	EXPECT_STREQ(info.cmdline, "");
}

static void missing_end_tag_is_reported(void)
{
	mb_begin();
	mb_string_tag(MULTIBOOT2_TAG_CMDLINE, "no end");
	put32(build, (uint32_t)build_used);
	EXPECT_EQ(parse(), 0);
	EXPECT_STREQ(info.cmdline, "no end");
	EXPECT_TRUE(has_message("no end tag"));
}

static void header_cut_short_at_the_end_is_reported(void)
{
	mb_begin();
	mb_string_tag(MULTIBOOT2_TAG_CMDLINE, "abc");
	/* total_size leaves 4 bytes: not enough for another tag header. */
	build_used += 4;
	put32(build, (uint32_t)build_used);
	EXPECT_EQ(parse(), 0);
	EXPECT_TRUE(has_message("no end tag"));
}

static void padding_past_total_size_is_reported(void)
{
	uint8_t *tag;

	mb_begin();
	tag = mb_tag(99, 13);	/* padded to 16, but total_size ends after 13 */
	(void)tag;
	put32(build, (uint32_t)(8 + 13));
	EXPECT_EQ(parse_bytes(8 + 13), 0);
	EXPECT_TRUE(has_message("no end tag"));
}

static void end_tag_with_wrong_size_is_reported(void)
{
	mb_begin();
	mb_tag(MULTIBOOT2_TAG_END, 16);
	put32(build, (uint32_t)build_used);
	EXPECT_EQ(parse(), 0);
	EXPECT_TRUE(has_message("end tag has size 16"));
}

static void bytes_after_end_tag_are_ignored(void)
{
	mb_begin();
	mb_finish();
	mb_string_tag(MULTIBOOT2_TAG_CMDLINE, "ignored");
	put32(build, (uint32_t)build_used);
	EXPECT_EQ(parse(), 0);
	EXPECT_STREQ(info.cmdline, "");
	EXPECT_EQ(info.message_count, 0);
}

static void unknown_tags_are_skipped_with_padding(void)
{
	uint8_t *tag;

	mb_begin();
	tag = mb_tag(99, 13);
	memset(tag + 8, 0x5a, 5);
	mb_tag(MULTIBOOT2_TAG_BASIC_MEMINFO, 16);
	mb_tag(MULTIBOOT2_TAG_ELF_SECTIONS, 20);
	mb_string_tag(MULTIBOOT2_TAG_CMDLINE, "after unknown");
	mb_finish();
	EXPECT_EQ(parse(), 0);
	EXPECT_STREQ(info.cmdline, "after unknown");
	EXPECT_EQ(info.message_count, 0);
}

static void messages_beyond_capacity_are_counted(void)
{
	mb_begin();
	for (int i = 0; i < BOOT_INFO_MAX_MESSAGES + 3; i++)
		mb_tag(MULTIBOOT2_TAG_MODULE, 12);	/* too short: one message each */
	mb_finish();
	EXPECT_EQ(parse(), 0);
	EXPECT_EQ(info.message_count, BOOT_INFO_MAX_MESSAGES);
	EXPECT_EQ(info.messages_dropped, 3);
	for (size_t i = 0; i < info.message_count; i++)
		EXPECT_LT(strnlen(info.messages[i], BOOT_INFO_MESSAGE_SIZE),
			  (size_t)BOOT_INFO_MESSAGE_SIZE);
}

/* --- Strings ------------------------------------------------------------------------ */

static void cmdline_is_copied(void)
{
	mb_begin();
	mb_string_tag(MULTIBOOT2_TAG_CMDLINE, "test=lib_* seed=7");
	mb_finish();
	EXPECT_EQ(parse(), 0);
	EXPECT_STREQ(info.cmdline, "test=lib_* seed=7");
	EXPECT_EQ(info.message_count, 0);
}

static void cmdline_stops_at_first_nul(void)
{
	uint8_t *tag;

	mb_begin();
	tag = mb_tag(MULTIBOOT2_TAG_CMDLINE, 8 + 8);
	memcpy(tag + 8, "ab\0cdefg", 8);
	mb_finish();
	EXPECT_EQ(parse(), 0);
	EXPECT_STREQ(info.cmdline, "ab");
	EXPECT_EQ(info.message_count, 0);
}

static void cmdline_without_nul_is_kept_and_reported(void)
{
	uint8_t *tag;

	mb_begin();
	tag = mb_tag(MULTIBOOT2_TAG_CMDLINE, 8 + 5);
	memcpy(tag + 8, "hello", 5);
	mb_finish();
	EXPECT_EQ(parse(), 0);
	EXPECT_STREQ(info.cmdline, "hello");
	EXPECT_TRUE(has_message("no terminating NUL"));
}

static void cmdline_without_nul_as_last_tag_bytes_is_bounded(void)
{
	uint8_t *tag;

	/* The string's bytes are the last ones handed over: no end tag, no NUL. */
	mb_begin();
	tag = mb_tag(MULTIBOOT2_TAG_CMDLINE, 8 + 8);
	memcpy(tag + 8, "abcdefgh", 8);
	put32(build, (uint32_t)build_used);
	EXPECT_EQ(parse(), 0);
	EXPECT_STREQ(info.cmdline, "abcdefgh");
	EXPECT_TRUE(has_message("no terminating NUL"));
	EXPECT_TRUE(has_message("no end tag"));
}

static void empty_cmdline_tag_is_reported(void)
{
	mb_begin();
	mb_tag(MULTIBOOT2_TAG_CMDLINE, 8);
	mb_finish();
	EXPECT_EQ(parse(), 0);
	EXPECT_STREQ(info.cmdline, "");
	EXPECT_TRUE(has_message("no terminating NUL"));
}

static void long_cmdline_is_truncated_and_reported(void)
{
	uint8_t *tag;

	mb_begin();
	tag = mb_tag(MULTIBOOT2_TAG_CMDLINE, 8 + 2001);
	memset(tag + 8, 'a', 2000);
	tag[8 + 2000] = '\0';
	mb_finish();
	EXPECT_EQ(parse(), 0);
	EXPECT_EQ(strlen(info.cmdline), BOOT_INFO_CMDLINE_SIZE - 1);
	EXPECT_EQ(info.cmdline[BOOT_INFO_CMDLINE_SIZE - 2], 'a');
	EXPECT_TRUE(has_message("truncated"));
}

static void cmdline_of_exactly_the_capacity_is_not_truncated(void)
{
	uint8_t *tag;

	mb_begin();
	tag = mb_tag(MULTIBOOT2_TAG_CMDLINE, 8 + BOOT_INFO_CMDLINE_SIZE);
	memset(tag + 8, 'b', BOOT_INFO_CMDLINE_SIZE - 1);
	tag[8 + BOOT_INFO_CMDLINE_SIZE - 1] = '\0';
	mb_finish();
	EXPECT_EQ(parse(), 0);
	EXPECT_EQ(strlen(info.cmdline), BOOT_INFO_CMDLINE_SIZE - 1);
	EXPECT_EQ(info.message_count, 0);
}

static void cmdline_one_byte_over_capacity_is_truncated(void)
{
	uint8_t *tag;

	/* The loader name comes first: an overrun of cmdline[] would clobber it. */
	mb_begin();
	mb_string_tag(MULTIBOOT2_TAG_BOOT_LOADER_NAME, "GRUB");
	tag = mb_tag(MULTIBOOT2_TAG_CMDLINE, 8 + BOOT_INFO_CMDLINE_SIZE + 1);
	memset(tag + 8, 'c', BOOT_INFO_CMDLINE_SIZE);
	tag[8 + BOOT_INFO_CMDLINE_SIZE] = '\0';
	mb_finish();
	EXPECT_EQ(parse(), 0);
	EXPECT_EQ(strnlen(info.cmdline, sizeof(info.cmdline)), BOOT_INFO_CMDLINE_SIZE - 1);
	EXPECT_STREQ(info.loader_name, "GRUB");
	EXPECT_TRUE(has_message("command line of 1024 bytes truncated to 1023"));
}

static void second_cmdline_tag_is_ignored(void)
{
	mb_begin();
	mb_string_tag(MULTIBOOT2_TAG_CMDLINE, "first");
	mb_string_tag(MULTIBOOT2_TAG_CMDLINE, "second");
	mb_finish();
	EXPECT_EQ(parse(), 0);
	EXPECT_STREQ(info.cmdline, "first");
	EXPECT_TRUE(has_message("second command line"));
}

static void loader_name_is_copied(void)
{
	mb_begin();
	mb_string_tag(MULTIBOOT2_TAG_BOOT_LOADER_NAME, "GRUB 2.06");
	mb_finish();
	EXPECT_EQ(parse(), 0);
	EXPECT_STREQ(info.loader_name, "GRUB 2.06");
}

static void long_loader_name_is_truncated(void)
{
	char name[100];

	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	mb_begin();
	mb_string_tag(MULTIBOOT2_TAG_BOOT_LOADER_NAME, name);
	mb_finish();
	EXPECT_EQ(parse(), 0);
	EXPECT_EQ(strlen(info.loader_name), BOOT_INFO_LOADER_NAME_SIZE - 1);
	EXPECT_TRUE(has_message("boot loader name of 99 bytes truncated"));
}

/* --- Modules ------------------------------------------------------------------------- */

static void modules_are_collected(void)
{
	mb_begin();
	mb_module(0x200000, 0x210000, "initrd");
	mb_module(0x300000, 0x300001, "");
	mb_finish();
	EXPECT_EQ(parse(), 0);
	ASSERT_EQ(info.module_count, 2);
	EXPECT_EQ(info.modules[0].start, 0x200000);
	EXPECT_EQ(info.modules[0].end, 0x210000);
	EXPECT_EQ(info.modules[1].start, 0x300000);
	EXPECT_EQ(info.modules[1].end, 0x300001);
	EXPECT_EQ(info.message_count, 0);
}

static void module_ending_before_it_starts_is_ignored(void)
{
	mb_begin();
	mb_module(0x300000, 0x200000, "backwards");
	mb_module(0x400000, 0x400000, "empty");
	mb_finish();
	EXPECT_EQ(parse(), 0);
	ASSERT_EQ(info.module_count, 1);
	EXPECT_EQ(info.modules[0].start, 0x400000);
	EXPECT_TRUE(has_message("ends before it starts"));
}

static void module_tag_too_short_is_ignored(void)
{
	mb_begin();
	mb_tag(MULTIBOOT2_TAG_MODULE, 12);
	mb_finish();
	EXPECT_EQ(parse(), 0);
	EXPECT_EQ(info.module_count, 0);
	EXPECT_TRUE(has_message("module tag of 12 bytes"));
}

static void modules_beyond_capacity_are_reported(void)
{
	mb_begin();
	for (uint32_t i = 0; i < BOOT_INFO_MAX_MODULES + 2; i++)
		mb_module(0x100000 * (i + 1), 0x100000 * (i + 1) + 0x1000, "m");
	mb_finish();
	EXPECT_EQ(parse(), 0);
	EXPECT_EQ(info.module_count, BOOT_INFO_MAX_MODULES);
	EXPECT_EQ(info.modules[BOOT_INFO_MAX_MODULES - 1].start,
		  0x100000ull * BOOT_INFO_MAX_MODULES);
	EXPECT_TRUE(has_message("2 modules beyond"));
}

/* --- Memory map ------------------------------------------------------------------------ */

static void memory_map_entries_are_parsed(void)
{
	uint8_t *entry;

	mb_begin();
	entry = mb_mmap(24, 0, 3);
	mb_mmap_entry(entry, 0, 0x9fc00, MEMORY_AVAILABLE);
	mb_mmap_entry(entry + 24, 0xf0000, 0x10000, MEMORY_RESERVED);
	mb_mmap_entry(entry + 48, 0x100000000ull, 0x40000000ull, MEMORY_ACPI_NVS);
	mb_finish();
	EXPECT_EQ(parse(), 0);
	ASSERT_EQ(info.memory_count, 3);
	EXPECT_EQ(info.memory[0].base, 0);
	EXPECT_EQ(info.memory[0].length, 0x9fc00);
	EXPECT_EQ(info.memory[0].type, MEMORY_AVAILABLE);
	EXPECT_EQ(info.memory[1].base, 0xf0000);
	EXPECT_EQ(info.memory[1].type, MEMORY_RESERVED);
	EXPECT_EQ(info.memory[2].base, 0x100000000ull);
	EXPECT_EQ(info.memory[2].length, 0x40000000ull);
	EXPECT_EQ(info.memory[2].type, MEMORY_ACPI_NVS);
	EXPECT_EQ(info.message_count, 0);
}

static void memory_map_unknown_types_are_kept(void)
{
	uint8_t *entry;

	mb_begin();
	entry = mb_mmap(24, 0, 1);
	mb_mmap_entry(entry, 0x1000, 0x1000, 12);
	mb_finish();
	EXPECT_EQ(parse(), 0);
	ASSERT_EQ(info.memory_count, 1);
	EXPECT_EQ(info.memory[0].type, 12);
}

static void memory_map_larger_entries_are_strided(void)
{
	uint8_t *entry;

	mb_begin();
	entry = mb_mmap(32, 0, 2);
	mb_mmap_entry(entry, 0x1000, 0x2000, MEMORY_AVAILABLE);
	memset(entry + 24, 0xee, 8);	/* a future version's extra field */
	mb_mmap_entry(entry + 32, 0x5000, 0x3000, MEMORY_BAD);
	mb_finish();
	EXPECT_EQ(parse(), 0);
	ASSERT_EQ(info.memory_count, 2);
	EXPECT_EQ(info.memory[1].base, 0x5000);
	EXPECT_EQ(info.memory[1].length, 0x3000);
	EXPECT_EQ(info.memory[1].type, MEMORY_BAD);
}

static void memory_map_entry_size_not_multiple_of_8_is_rejected(void)
{
	uint8_t *entry;

	mb_begin();
	entry = mb_mmap(28, 0, 2);
	mb_mmap_entry(entry, 0x1000, 0x2000, MEMORY_AVAILABLE);
	mb_finish();
	EXPECT_EQ(parse(), 0);
	EXPECT_EQ(info.memory_count, 0);
	EXPECT_TRUE(has_message("entry_size 28"));
}

static void memory_map_entry_size_below_24_is_rejected(void)
{
	mb_begin();
	mb_mmap(16, 0, 2);
	mb_finish();
	EXPECT_EQ(parse(), 0);
	EXPECT_EQ(info.memory_count, 0);
	EXPECT_TRUE(has_message("entry_size 16"));

	mb_begin();
	mb_mmap(0, 0, 0);
	mb_finish();
	EXPECT_EQ(parse(), 0);
	EXPECT_TRUE(has_message("entry_size 0"));
}

static void memory_map_partial_entry_is_ignored(void)
{
	uint8_t *tag, *entry;

	mb_begin();
	tag = build + build_used;
	entry = mb_mmap(24, 0, 2);
	mb_mmap_entry(entry, 0x1000, 0x1000, MEMORY_AVAILABLE);
	mb_mmap_entry(entry + 24, 0x8000, 0x1000, MEMORY_AVAILABLE);
	put32(tag + 4, 16 + 24 + 20);	/* the second entry overflows the tag */
	mb_finish();
	EXPECT_EQ(parse(), 0);
	ASSERT_EQ(info.memory_count, 1);
	EXPECT_EQ(info.memory[0].base, 0x1000);
	EXPECT_TRUE(has_message("ends inside entry 1"));
}

static void memory_map_unknown_version_is_read_and_reported(void)
{
	uint8_t *entry;

	mb_begin();
	entry = mb_mmap(24, 3, 1);
	mb_mmap_entry(entry, 0x1000, 0x1000, MEMORY_AVAILABLE);
	mb_finish();
	EXPECT_EQ(parse(), 0);
	EXPECT_EQ(info.memory_count, 1);
	EXPECT_TRUE(has_message("entry_version 3"));
}

static void memory_map_tag_shorter_than_its_header_is_ignored(void)
{
	mb_begin();
	mb_tag(MULTIBOOT2_TAG_MMAP, 12);
	mb_finish();
	EXPECT_EQ(parse(), 0);
	EXPECT_EQ(info.memory_count, 0);
	EXPECT_TRUE(has_message("memory map tag of 12 bytes"));
}

static void memory_map_regions_beyond_capacity_are_reported(void)
{
	const uint32_t count = BOOT_INFO_MAX_MEMORY_REGIONS + 5;
	uint8_t *entry;

	mb_begin();
	entry = mb_mmap(24, 0, count);
	for (uint32_t i = 0; i < count; i++)
		mb_mmap_entry(entry + 24 * i, 0x1000ull * i, 0x1000, MEMORY_AVAILABLE);
	mb_finish();
	ASSERT_LT(build_used, sizeof(build));
	EXPECT_EQ(parse(), 0);
	EXPECT_EQ(info.memory_count, BOOT_INFO_MAX_MEMORY_REGIONS);
	EXPECT_EQ(info.memory[BOOT_INFO_MAX_MEMORY_REGIONS - 1].base,
		  0x1000ull * (BOOT_INFO_MAX_MEMORY_REGIONS - 1));
	EXPECT_TRUE(has_message("5 memory regions beyond"));
}

static void memory_map_wrapping_region_is_ignored(void)
{
	uint8_t *entry;

	mb_begin();
	entry = mb_mmap(24, 0, 3);
	mb_mmap_entry(entry, UINT64_MAX - 0xfff, 0x2000, MEMORY_AVAILABLE);
	mb_mmap_entry(entry + 24, UINT64_MAX - 0xfff, 0x1000, MEMORY_RESERVED);	/* ends at 2^64 */
	mb_mmap_entry(entry + 48, 0, 0, MEMORY_RESERVED);
	mb_finish();
	EXPECT_EQ(parse(), 0);
	ASSERT_EQ(info.memory_count, 2);
	EXPECT_EQ(info.memory[0].type, MEMORY_RESERVED);
	EXPECT_EQ(info.memory[0].length, 0x1000);
	EXPECT_TRUE(has_message("wraps"));
}

static void second_memory_map_is_ignored(void)
{
	uint8_t *entry;

	mb_begin();
	entry = mb_mmap(24, 0, 1);
	mb_mmap_entry(entry, 0x1000, 0x1000, MEMORY_AVAILABLE);
	entry = mb_mmap(24, 0, 1);
	mb_mmap_entry(entry, 0x9000, 0x1000, MEMORY_AVAILABLE);
	mb_finish();
	EXPECT_EQ(parse(), 0);
	ASSERT_EQ(info.memory_count, 1);
	EXPECT_EQ(info.memory[0].base, 0x1000);
	EXPECT_TRUE(has_message("second memory map"));
}

/* --- Framebuffer ----------------------------------------------------------------------- */

static uint8_t *framebuffer_tag(uint32_t size, uint8_t type)
{
	uint8_t *tag = mb_tag(MULTIBOOT2_TAG_FRAMEBUFFER, size);

	put64(tag + 8, 0xfd000000ull);
	put32(tag + 16, 4096);
	put32(tag + 20, 1024);
	put32(tag + 24, 768);
	tag[28] = 32;
	tag[29] = type;
	return tag;
}

static void rgb_framebuffer_is_parsed(void)
{
	uint8_t *tag;

	mb_begin();
	tag = framebuffer_tag(38, 1);
	tag[32] = 16;
	tag[33] = 8;
	tag[34] = 8;
	tag[35] = 8;
	tag[36] = 0;
	tag[37] = 8;
	mb_finish();
	EXPECT_EQ(parse(), 0);
	ASSERT_TRUE(info.has_framebuffer);
	EXPECT_EQ(info.framebuffer.address, 0xfd000000ull);
	EXPECT_EQ(info.framebuffer.pitch, 4096);
	EXPECT_EQ(info.framebuffer.width, 1024);
	EXPECT_EQ(info.framebuffer.height, 768);
	EXPECT_EQ(info.framebuffer.bits_per_pixel, 32);
	EXPECT_EQ(info.framebuffer.type, 1);
	EXPECT_EQ(info.framebuffer.red_position, 16);
	EXPECT_EQ(info.framebuffer.red_size, 8);
	EXPECT_EQ(info.framebuffer.green_position, 8);
	EXPECT_EQ(info.framebuffer.green_size, 8);
	EXPECT_EQ(info.framebuffer.blue_position, 0);
	EXPECT_EQ(info.framebuffer.blue_size, 8);
	EXPECT_EQ(info.message_count, 0);
}

static void ega_text_framebuffer_has_no_colour_layout(void)
{
	uint8_t *tag;

	mb_begin();
	tag = framebuffer_tag(32, 2);
	put64(tag + 8, 0xb8000);
	mb_finish();
	EXPECT_EQ(parse(), 0);
	ASSERT_TRUE(info.has_framebuffer);
	EXPECT_EQ(info.framebuffer.address, 0xb8000);
	EXPECT_EQ(info.framebuffer.type, 2);
	EXPECT_EQ(info.framebuffer.red_size, 0);
	EXPECT_EQ(info.message_count, 0);
}

static void rgb_framebuffer_without_colour_layout_is_reported(void)
{
	mb_begin();
	framebuffer_tag(32, 1);
	mb_finish();
	EXPECT_EQ(parse(), 0);
	EXPECT_TRUE(info.has_framebuffer);
	EXPECT_EQ(info.framebuffer.red_size, 0);
	EXPECT_TRUE(has_message("no colour layout"));
}

static void framebuffer_tag_too_short_is_ignored(void)
{
	mb_begin();
	framebuffer_tag(29, 1);
	mb_finish();
	EXPECT_EQ(parse(), 0);
	EXPECT_FALSE(info.has_framebuffer);
	EXPECT_TRUE(has_message("framebuffer tag of 29 bytes"));
}

/* --- ACPI and EFI ------------------------------------------------------------------------- */

static void rsdp_tag(uint32_t type, size_t body, uint8_t fill)
{
	uint8_t *tag = mb_tag(type, (uint32_t)(8 + body));

	memset(tag + 8, fill, body);
	memcpy(tag + 8, "RSD PTR ", 8);
}

static void old_rsdp_is_copied(void)
{
	mb_begin();
	rsdp_tag(MULTIBOOT2_TAG_ACPI_OLD, 20, 0x11);
	mb_finish();
	EXPECT_EQ(parse(), 0);
	ASSERT_TRUE(info.has_rsdp_copy);
	EXPECT_EQ(info.rsdp_copy_length, 20);
	EXPECT_MEMEQ(info.rsdp_copy, "RSD PTR ", 8);
	EXPECT_EQ(info.rsdp_copy[19], 0x11);
	EXPECT_EQ(info.rsdp_copy[20], 0);
	EXPECT_EQ(info.rsdp_address, 0);
}

static void new_rsdp_is_preferred_when_it_comes_first(void)
{
	mb_begin();
	rsdp_tag(MULTIBOOT2_TAG_ACPI_NEW, 36, 0x22);
	rsdp_tag(MULTIBOOT2_TAG_ACPI_OLD, 20, 0x11);
	mb_finish();
	EXPECT_EQ(parse(), 0);
	ASSERT_TRUE(info.has_rsdp_copy);
	EXPECT_EQ(info.rsdp_copy_length, 36);
	EXPECT_EQ(info.rsdp_copy[35], 0x22);
	EXPECT_EQ(info.rsdp_copy[19], 0x22);
}

static void new_rsdp_is_preferred_when_it_comes_last(void)
{
	mb_begin();
	rsdp_tag(MULTIBOOT2_TAG_ACPI_OLD, 20, 0x11);
	rsdp_tag(MULTIBOOT2_TAG_ACPI_NEW, 36, 0x22);
	mb_finish();
	EXPECT_EQ(parse(), 0);
	EXPECT_EQ(info.rsdp_copy_length, 36);
	EXPECT_EQ(info.rsdp_copy[19], 0x22);
	EXPECT_EQ(info.message_count, 0);
}

static void short_rsdp_tags_are_ignored(void)
{
	mb_begin();
	rsdp_tag(MULTIBOOT2_TAG_ACPI_NEW, 24, 0x22);
	rsdp_tag(MULTIBOOT2_TAG_ACPI_OLD, 12, 0x11);
	mb_finish();
	EXPECT_EQ(parse(), 0);
	EXPECT_FALSE(info.has_rsdp_copy);
	EXPECT_TRUE(has_message("new RSDP tag holds 24 bytes"));
	EXPECT_TRUE(has_message("old RSDP tag holds 12 bytes"));
}

static void short_new_rsdp_leaves_old_one_in_use(void)
{
	mb_begin();
	rsdp_tag(MULTIBOOT2_TAG_ACPI_OLD, 20, 0x11);
	rsdp_tag(MULTIBOOT2_TAG_ACPI_NEW, 30, 0x22);
	mb_finish();
	EXPECT_EQ(parse(), 0);
	ASSERT_TRUE(info.has_rsdp_copy);
	EXPECT_EQ(info.rsdp_copy_length, 20);
	EXPECT_EQ(info.rsdp_copy[19], 0x11);
}

static void efi_tags_mark_an_efi_boot(void)
{
	static const uint32_t efi_tags[] = {
		MULTIBOOT2_TAG_EFI32, MULTIBOOT2_TAG_EFI64, MULTIBOOT2_TAG_EFI_MMAP,
		MULTIBOOT2_TAG_EFI_BS, MULTIBOOT2_TAG_EFI32_IH, MULTIBOOT2_TAG_EFI64_IH,
	};

	for (size_t i = 0; i < sizeof(efi_tags) / sizeof(efi_tags[0]); i++) {
		mb_begin();
		mb_tag(efi_tags[i], efi_tags[i] == MULTIBOOT2_TAG_EFI_BS ? 8 : 16);
		mb_finish();
		EXPECT_EQ(parse(), 0);
		EXPECT_TRUE(info.efi_boot);
		EXPECT_EQ(info.efi_tags, 1u << efi_tags[i]);
	}
	mb_begin();
	mb_tag(MULTIBOOT2_TAG_SMBIOS, 16);
	mb_tag(MULTIBOOT2_TAG_LOAD_BASE_ADDR, 12);
	mb_finish();
	EXPECT_EQ(parse(), 0);
	EXPECT_FALSE(info.efi_boot);
	EXPECT_EQ(info.efi_tags, 0);
}

/* A GRUB-like information structure with every kind of tag. */
static void full_grub_like_info_is_parsed(void)
{
	uint8_t *entry, *tag;

	mb_begin();
	mb_string_tag(MULTIBOOT2_TAG_CMDLINE, "cpus=4");
	mb_string_tag(MULTIBOOT2_TAG_BOOT_LOADER_NAME, "GRUB 2.06-13+deb12u1");
	mb_module(0x800000, 0x880000, "tests.img");
	tag = mb_tag(MULTIBOOT2_TAG_BASIC_MEMINFO, 16);
	put32(tag + 8, 639);
	mb_tag(MULTIBOOT2_TAG_BOOTDEV, 20);
	entry = mb_mmap(24, 0, 2);
	mb_mmap_entry(entry, 0, 0x9fc00, MEMORY_AVAILABLE);
	mb_mmap_entry(entry + 24, 0x100000, 0x7ee0000, MEMORY_AVAILABLE);
	framebuffer_tag(32, 2);
	mb_tag(MULTIBOOT2_TAG_EFI64, 16);
	rsdp_tag(MULTIBOOT2_TAG_ACPI_NEW, 36, 0);
	mb_tag(MULTIBOOT2_TAG_EFI_MMAP, 16 + 48);
	mb_tag(MULTIBOOT2_TAG_EFI64_IH, 16);
	mb_tag(MULTIBOOT2_TAG_LOAD_BASE_ADDR, 12);
	mb_finish();
	EXPECT_EQ(parse(), 0);
	EXPECT_EQ(info.message_count, 0);
	EXPECT_STREQ(info.cmdline, "cpus=4");
	EXPECT_STREQ(info.loader_name, "GRUB 2.06-13+deb12u1");
	EXPECT_EQ(info.module_count, 1);
	EXPECT_EQ(info.memory_count, 2);
	EXPECT_TRUE(info.has_framebuffer);
	EXPECT_TRUE(info.efi_boot);
	EXPECT_EQ(info.efi_tags, (1u << MULTIBOOT2_TAG_EFI64) | (1u << MULTIBOOT2_TAG_EFI_MMAP) |
				 (1u << MULTIBOOT2_TAG_EFI64_IH));
	EXPECT_TRUE(info.has_rsdp_copy);
	EXPECT_EQ(info.info_end - info.info_start, build_used);
}

/*
 * Random corruption of a valid structure: whatever the bytes, the parser
 * must stay inside them (ASan watches) and keep its output consistent.
 */
static void random_corruption_is_survived(void)
{
	for (int round = 0; round < 300; round++) {
		uint8_t *entry;
		size_t flips;
		int result;

		mb_begin();
		mb_string_tag(MULTIBOOT2_TAG_CMDLINE, "console=ttyS0");
		mb_module(0x200000, 0x300000, "m");
		entry = mb_mmap(24, 0, 3);
		mb_mmap_entry(entry, 0, 0x9fc00, MEMORY_AVAILABLE);
		framebuffer_tag(38, 1);
		rsdp_tag(MULTIBOOT2_TAG_ACPI_OLD, 20, 1);
		mb_finish();
		flips = 1 + test_random() % 8;
		for (size_t i = 0; i < flips; i++)
			build[test_random() % build_used] = (uint8_t)test_random();

		result = parse_bytes(build_used);
		EXPECT_TRUE(result == 0 || result == MULTIBOOT2_ERROR_TOO_SHORT ||
			    result == MULTIBOOT2_ERROR_TRUNCATED);
		EXPECT_LE(info.memory_count, (size_t)BOOT_INFO_MAX_MEMORY_REGIONS);
		EXPECT_LE(info.module_count, (size_t)BOOT_INFO_MAX_MODULES);
		EXPECT_LE(info.message_count, (size_t)BOOT_INFO_MAX_MESSAGES);
		EXPECT_LT(strnlen(info.cmdline, sizeof(info.cmdline)), sizeof(info.cmdline));
		EXPECT_LT(strnlen(info.loader_name, sizeof(info.loader_name)),
			  sizeof(info.loader_name));
		EXPECT_LE(info.rsdp_copy_length, sizeof(info.rsdp_copy));
	}
}

static const struct test_case multiboot2_cases[] = {
	TEST_CASE(magic_valid_accepts_only_multiboot2_magic),
	TEST_CASE(minimal_info_parses_without_messages),
	TEST_CASE(info_range_is_recorded),
	TEST_CASE(misaligned_info_is_reported),
	TEST_CASE(info_at_top_of_address_space_saturates),
	TEST_CASE(previous_contents_of_out_are_cleared),
	TEST_CASE(null_arguments_are_rejected),
	TEST_CASE(total_size_larger_than_available_is_rejected),
	TEST_CASE(total_size_below_16_is_rejected),
	TEST_CASE(fewer_than_8_readable_bytes_are_rejected),
	TEST_CASE(tag_with_size_4_stops_the_walk),
	TEST_CASE(tag_with_size_0_stops_the_walk),
	TEST_CASE(tag_running_past_total_size_stops_the_walk),
	TEST_CASE(tag_size_near_4g_does_not_wrap),
	TEST_CASE(missing_end_tag_is_reported),
	TEST_CASE(header_cut_short_at_the_end_is_reported),
	TEST_CASE(padding_past_total_size_is_reported),
	TEST_CASE(end_tag_with_wrong_size_is_reported),
	TEST_CASE(bytes_after_end_tag_are_ignored),
	TEST_CASE(unknown_tags_are_skipped_with_padding),
	TEST_CASE(messages_beyond_capacity_are_counted),
	TEST_CASE(cmdline_is_copied),
	TEST_CASE(cmdline_stops_at_first_nul),
	TEST_CASE(cmdline_without_nul_is_kept_and_reported),
	TEST_CASE(cmdline_without_nul_as_last_tag_bytes_is_bounded),
	TEST_CASE(empty_cmdline_tag_is_reported),
	TEST_CASE(long_cmdline_is_truncated_and_reported),
	TEST_CASE(cmdline_of_exactly_the_capacity_is_not_truncated),
	TEST_CASE(cmdline_one_byte_over_capacity_is_truncated),
	TEST_CASE(second_cmdline_tag_is_ignored),
	TEST_CASE(loader_name_is_copied),
	TEST_CASE(long_loader_name_is_truncated),
	TEST_CASE(modules_are_collected),
	TEST_CASE(module_ending_before_it_starts_is_ignored),
	TEST_CASE(module_tag_too_short_is_ignored),
	TEST_CASE(modules_beyond_capacity_are_reported),
	TEST_CASE(memory_map_entries_are_parsed),
	TEST_CASE(memory_map_unknown_types_are_kept),
	TEST_CASE(memory_map_larger_entries_are_strided),
	TEST_CASE(memory_map_entry_size_not_multiple_of_8_is_rejected),
	TEST_CASE(memory_map_entry_size_below_24_is_rejected),
	TEST_CASE(memory_map_partial_entry_is_ignored),
	TEST_CASE(memory_map_unknown_version_is_read_and_reported),
	TEST_CASE(memory_map_tag_shorter_than_its_header_is_ignored),
	TEST_CASE(memory_map_regions_beyond_capacity_are_reported),
	TEST_CASE(memory_map_wrapping_region_is_ignored),
	TEST_CASE(second_memory_map_is_ignored),
	TEST_CASE(rgb_framebuffer_is_parsed),
	TEST_CASE(ega_text_framebuffer_has_no_colour_layout),
	TEST_CASE(rgb_framebuffer_without_colour_layout_is_reported),
	TEST_CASE(framebuffer_tag_too_short_is_ignored),
	TEST_CASE(old_rsdp_is_copied),
	TEST_CASE(new_rsdp_is_preferred_when_it_comes_first),
	TEST_CASE(new_rsdp_is_preferred_when_it_comes_last),
	TEST_CASE(short_rsdp_tags_are_ignored),
	TEST_CASE(short_new_rsdp_leaves_old_one_in_use),
	TEST_CASE(efi_tags_mark_an_efi_boot),
	TEST_CASE(full_grub_like_info_is_parsed),
	TEST_CASE(random_corruption_is_survived),
};
TEST_SUITE(lib_multiboot2, multiboot2_cases, NULL, NULL);
