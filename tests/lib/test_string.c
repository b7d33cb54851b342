// SPDX-License-Identifier: MIT
/*
 * Tests for kernel/lib/string.c.
 *
 * Buffers are set up and checked with plain loops in this file, never with
 * the functions under test, so that a broken memset() cannot hide a broken
 * memcpy().  Each copy or fill is surrounded by guard bytes that must come
 * out unchanged, and the word-at-a-time paths are reached by trying every
 * alignment of source and destination against every length up to a few
 * words.
 */
#include <stdint.h>

#include <harness/test.h>
#include <lib/string.h>

#define GUARD		0xa5
#define MAX_OFFSET	16	/* two words: every alignment, both pointers */
#define MAX_LENGTH	48	/* a few words beyond any alignment prologue */
#define AREA_SIZE	(MAX_OFFSET + MAX_LENGTH + MAX_OFFSET)

/* Distinct, non-zero, non-GUARD bytes that depend on the position. */
static unsigned char pattern_byte(size_t index)
{
	return (unsigned char)(1 + (index * 7) % 151);
}

static void fill_pattern(unsigned char *bytes, size_t count)
{
	for (size_t i = 0; i < count; i++)
		bytes[i] = pattern_byte(i);
}

static void fill_guard(unsigned char *bytes, size_t count)
{
	for (size_t i = 0; i < count; i++)
		bytes[i] = GUARD;
}

/* The index of the first byte in [from, to) that is not GUARD, or to. */
static size_t first_non_guard(const unsigned char *bytes, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++) {
		if (bytes[i] != GUARD)
			return i;
	}
	return to;
}

/* --- memcpy --------------------------------------------------------------- */

static void memcpy_copies_every_alignment_and_length(void)
{
	/* Aligned so that the offsets below are the real alignments. */
	uint64_t source_words[AREA_SIZE / 8 + 1], destination_words[AREA_SIZE / 8 + 1];
	unsigned char *source = (unsigned char *)source_words;
	unsigned char *destination = (unsigned char *)destination_words;
	unsigned int failures = 0;

	fill_pattern(source, AREA_SIZE);
	for (size_t from = 0; from < MAX_OFFSET; from++) {
		for (size_t to = 0; to < MAX_OFFSET; to++) {
			for (size_t length = 0; length <= MAX_LENGTH; length++) {
				void *result;
				bool good = true;

				fill_guard(destination, AREA_SIZE);
				result = memcpy(destination + to, source + from, length);
				good = result == destination + to;
				for (size_t i = 0; i < length; i++)
					good = good && destination[to + i] == pattern_byte(from + i);
				good = good && first_non_guard(destination, 0, to) == to;
				good = good && first_non_guard(destination, to + length, AREA_SIZE) ==
						       AREA_SIZE;
				if (!good && failures++ < 5)
					test_report_failure(__FILE__, __LINE__,
						"memcpy from offset %zu to offset %zu, %zu bytes",
						from, to, length);
			}
		}
	}
	EXPECT_EQ(failures, 0u);
}

static void memcpy_zero_length_writes_nothing(void)
{
	unsigned char destination[8], source[8];

	fill_guard(destination, sizeof(destination));
	fill_pattern(source, sizeof(source));
	EXPECT_EQ(memcpy(destination, source, 0), (void *)destination);
	EXPECT_EQ(first_non_guard(destination, 0, sizeof(destination)), sizeof(destination));
}

static void memcpy_copies_structures(void)
{
	struct sample {
		uint8_t byte;
		uint64_t word;
		char name[13];
	} original = { 0x12, 0x0123456789abcdefull, "hello, world" }, copy;

	memcpy(&copy, &original, sizeof(copy));
	EXPECT_EQ(copy.byte, 0x12);
	EXPECT_EQ(copy.word, 0x0123456789abcdefull);
	EXPECT_STREQ(copy.name, "hello, world");
}

/* --- memmove -------------------------------------------------------------- */

/*
 * memmove(area + to, area + from, length) on a patterned area, checked
 * against what a copy through a separate buffer gives.
 */
static bool memmove_matches_reference(size_t from, size_t to, size_t length)
{
	uint64_t area_words[AREA_SIZE / 8 + 1];
	unsigned char *area = (unsigned char *)area_words;
	unsigned char expected[AREA_SIZE], saved[MAX_LENGTH];
	void *result;

	fill_pattern(area, AREA_SIZE);
	for (size_t i = 0; i < AREA_SIZE; i++)
		expected[i] = area[i];
	for (size_t i = 0; i < length; i++)
		saved[i] = area[from + i];
	for (size_t i = 0; i < length; i++)
		expected[to + i] = saved[i];

	result = memmove(area + to, area + from, length);
	if (result != area + to)
		return false;
	for (size_t i = 0; i < AREA_SIZE; i++) {
		if (area[i] != expected[i])
			return false;
	}
	return true;
}

static void check_memmove_range(bool destination_below_source)
{
	unsigned int failures = 0, overlapping = 0;

	for (size_t low = 0; low < MAX_OFFSET; low++) {
		for (size_t distance = 1; distance <= MAX_OFFSET; distance++) {
			for (size_t length = 0; length <= MAX_LENGTH; length++) {
				size_t from = destination_below_source ? low + distance : low;
				size_t to = destination_below_source ? low : low + distance;

				if (length > distance)
					overlapping++;
				if (!memmove_matches_reference(from, to, length) && failures++ < 5)
					test_report_failure(__FILE__, __LINE__,
						"memmove from offset %zu to offset %zu, %zu bytes",
						from, to, length);
			}
		}
	}
	EXPECT_EQ(failures, 0u);
	/* The loops must have exercised overlap, word-aligned distances included. */
	EXPECT_GT(overlapping, 1000u);
}

static void memmove_overlapping_to_lower_address(void)
{
	check_memmove_range(true);
}

static void memmove_overlapping_to_higher_address(void)
{
	check_memmove_range(false);
}

static void memmove_shifts_a_string_both_ways(void)
{
	char text[16] = "abcdefgh";

	/* Right by 2, overlapping: a backward copy is needed. */
	EXPECT_EQ(memmove(text + 2, text, 9), (void *)(text + 2));
	EXPECT_STREQ(text, "ababcdefgh");
	/* Left by 3, overlapping: a forward copy is needed. */
	EXPECT_EQ(memmove(text, text + 3, 8), (void *)text);
	EXPECT_STREQ(text, "bcdefgh");
}

static void memmove_onto_itself_and_disjoint(void)
{
	unsigned char area[32];
	bool unchanged = true;

	fill_pattern(area, sizeof(area));
	EXPECT_EQ(memmove(area, area, sizeof(area)), (void *)area);
	for (size_t i = 0; i < sizeof(area); i++)
		unchanged = unchanged && area[i] == pattern_byte(i);
	EXPECT_TRUE(unchanged);

	EXPECT_TRUE(memmove_matches_reference(0, 40, 24));
	EXPECT_TRUE(memmove_matches_reference(40, 0, 24));
	EXPECT_TRUE(memmove_matches_reference(5, 5, 20));
}

/* --- memset --------------------------------------------------------------- */

static void memset_fills_every_alignment_and_length(void)
{
	uint64_t area_words[AREA_SIZE / 8 + 1];
	unsigned char *area = (unsigned char *)area_words;
	unsigned int failures = 0;

	for (size_t offset = 0; offset < MAX_OFFSET; offset++) {
		for (size_t length = 0; length <= MAX_LENGTH; length++) {
			bool good;

			fill_guard(area, AREA_SIZE);
			good = memset(area + offset, 0x3c, length) == area + offset;
			for (size_t i = 0; i < length; i++)
				good = good && area[offset + i] == 0x3c;
			good = good && first_non_guard(area, 0, offset) == offset;
			good = good && first_non_guard(area, offset + length, AREA_SIZE) == AREA_SIZE;
			if (!good && failures++ < 5)
				test_report_failure(__FILE__, __LINE__,
					"memset at offset %zu, %zu bytes", offset, length);
		}
	}
	EXPECT_EQ(failures, 0u);
}

static void memset_uses_only_the_low_byte(void)
{
	unsigned char area[20];
	bool good = true;

	memset(area, 0x1234, sizeof(area));
	for (size_t i = 0; i < sizeof(area); i++)
		good = good && area[i] == 0x34;
	EXPECT_TRUE(good);

	memset(area, -1, sizeof(area));
	good = true;
	for (size_t i = 0; i < sizeof(area); i++)
		good = good && area[i] == 0xff;
	EXPECT_TRUE(good);

	memset(area, 0, sizeof(area));
	good = true;
	for (size_t i = 0; i < sizeof(area); i++)
		good = good && area[i] == 0;
	EXPECT_TRUE(good);
}

static void memset_zero_length_writes_nothing(void)
{
	unsigned char area[4];

	fill_guard(area, sizeof(area));
	EXPECT_EQ(memset(area + 1, 0, 0), (void *)(area + 1));
	EXPECT_EQ(first_non_guard(area, 0, sizeof(area)), sizeof(area));
}

/* --- memcmp, memchr ------------------------------------------------------- */

static void memcmp_orders_bytes_as_unsigned(void)
{
	const unsigned char low[] = { 0x01, 0x02, 0x03 };
	const unsigned char high[] = { 0x01, 0x02, 0x83 };

	EXPECT_EQ(memcmp(low, low, sizeof(low)), 0);
	EXPECT_LT(memcmp(low, high, sizeof(low)), 0);
	EXPECT_GT(memcmp(high, low, sizeof(low)), 0);
	/* The difference is only in the last byte: shorter comparisons are equal. */
	EXPECT_EQ(memcmp(low, high, 2), 0);
	EXPECT_EQ(memcmp(low, high, 0), 0);
	EXPECT_GT(memcmp("b", "a", 1), 0);
	EXPECT_LT(memcmp("abc", "abd", 3), 0);
	/* Unlike strcmp, memcmp goes on past a NUL. */
	EXPECT_LT(memcmp("a\0b", "a\0c", 3), 0);
}

static void memcmp_finds_first_difference(void)
{
	unsigned char left[40], right[40];

	fill_pattern(left, sizeof(left));
	for (size_t position = 0; position < sizeof(left); position++) {
		fill_pattern(right, sizeof(right));
		right[position]++;
		if (memcmp(left, right, sizeof(left)) >= 0 ||
		    memcmp(right, left, sizeof(left)) <= 0 ||
		    memcmp(left, right, position) != 0)
			test_report_failure(__FILE__, __LINE__, "difference at %zu missed", position);
	}
}

static void memchr_finds_the_first_match_within_count(void)
{
	/* Not NUL-terminated: memchr must stay inside the count. */
	const unsigned char bytes[6] = { 'a', 'b', 0x00, 'b', 0xe9, 0xff };

	EXPECT_EQ(memchr(bytes, 'b', sizeof(bytes)), (void *)(bytes + 1));
	EXPECT_EQ(memchr(bytes, 'a', sizeof(bytes)), (void *)bytes);
	EXPECT_EQ(memchr(bytes, 0, sizeof(bytes)), (void *)(bytes + 2));
	EXPECT_EQ(memchr(bytes, 0xe9, sizeof(bytes)), (void *)(bytes + 4));
	/* The value is converted to unsigned char: -1 is 0xff, 0x162 is 'b'. */
	EXPECT_EQ(memchr(bytes, -1, sizeof(bytes)), (void *)(bytes + 5));
	EXPECT_EQ(memchr(bytes, 0x162, sizeof(bytes)), (void *)(bytes + 1));
	EXPECT_EQ(memchr(bytes, 'z', sizeof(bytes)), NULL);
	EXPECT_EQ(memchr(bytes, 'b', 1), NULL);
	EXPECT_EQ(memchr(bytes, 'a', 0), NULL);
	EXPECT_EQ(memchr(bytes, 0xff, sizeof(bytes)), (void *)(bytes + 5));
}

/* --- strlen, strnlen ------------------------------------------------------ */

static void strlen_counts_to_the_nul(void)
{
	char text[64];

	EXPECT_EQ(strlen(""), 0u);
	EXPECT_EQ(strlen("a"), 1u);
	EXPECT_EQ(strlen("hello"), 5u);
	EXPECT_EQ(strlen("ab\0cd"), 2u);
	/* Every length at every starting alignment. */
	for (size_t start = 0; start < 8; start++) {
		for (size_t length = 0; length + start < sizeof(text) - 1; length++) {
			for (size_t i = 0; i < length; i++)
				text[start + i] = 'x';
			text[start + length] = '\0';
			if (strlen(text + start) != length)
				test_report_failure(__FILE__, __LINE__,
					"strlen at %zu of length %zu", start, length);
		}
	}
}

static void strnlen_stops_at_the_limit(void)
{
	const char unterminated[4] = { 'a', 'b', 'c', 'd' };

	EXPECT_EQ(strnlen("hello", 10), 5u);
	EXPECT_EQ(strnlen("hello", 5), 5u);
	EXPECT_EQ(strnlen("hello", 4), 4u);
	EXPECT_EQ(strnlen("hello", 0), 0u);
	EXPECT_EQ(strnlen("", 3), 0u);
	EXPECT_EQ(strnlen(unterminated, sizeof(unterminated)), 4u);
	EXPECT_EQ(strnlen(unterminated, 2), 2u);
	EXPECT_EQ(strnlen("abc", SIZE_MAX), 3u);
}

/* --- strcmp, strncmp ------------------------------------------------------ */

static void strcmp_orders_strings(void)
{
	EXPECT_EQ(strcmp("", ""), 0);
	EXPECT_EQ(strcmp("abc", "abc"), 0);
	EXPECT_LT(strcmp("abc", "abd"), 0);
	EXPECT_GT(strcmp("abd", "abc"), 0);
	/* A prefix sorts first. */
	EXPECT_LT(strcmp("ab", "abc"), 0);
	EXPECT_GT(strcmp("abc", "ab"), 0);
	EXPECT_LT(strcmp("", "a"), 0);
	EXPECT_GT(strcmp("a", ""), 0);
	/* Bytes are unsigned: 0xe9 sorts after 'z'. */
	EXPECT_GT(strcmp("\xe9", "z"), 0);
	EXPECT_LT(strcmp("z", "\xe9"), 0);
	EXPECT_LT(strcmp("A", "a"), 0);
}

static void strncmp_compares_at_most_count(void)
{
	EXPECT_EQ(strncmp("abcX", "abcY", 3), 0);
	EXPECT_LT(strncmp("abcX", "abcY", 4), 0);
	EXPECT_GT(strncmp("abcY", "abcX", 4), 0);
	EXPECT_EQ(strncmp("abc", "xyz", 0), 0);
	/* Stops at a NUL in both even when count goes further. */
	EXPECT_EQ(strncmp("abc\0X", "abc\0Y", 10), 0);
	EXPECT_LT(strncmp("ab", "abc", 10), 0);
	EXPECT_GT(strncmp("abc", "ab", 10), 0);
	EXPECT_EQ(strncmp("ab", "abc", 2), 0);
	EXPECT_GT(strncmp("\x80", "\x7f", 1), 0);
}

/* --- strchr, strrchr, strstr ---------------------------------------------- */

static void strchr_finds_the_first(void)
{
	const char *text = "hello, world";
	const char *accented = "a\xe9z\xe9";

	EXPECT_EQ(strchr(text, 'o'), text + 4);
	EXPECT_EQ(strchr(text, 'h'), text);
	EXPECT_EQ(strchr(text, 'd'), text + 11);
	EXPECT_EQ(strchr(text, 'z'), NULL);
	/* '\0' finds the terminator. */
	EXPECT_EQ(strchr(text, '\0'), text + 12);
	EXPECT_EQ(strchr("", 'a'), NULL);
	/* The character is converted to char, so 0xe9 finds the byte '\xe9'. */
	EXPECT_EQ(strchr(text, 'o' + 256), text + 4);
	EXPECT_EQ(strchr(accented, 0xe9), accented + 1);
	EXPECT_EQ(strchr(accented, '\xe9'), accented + 1);
}

static void strchr_empty_string_finds_terminator(void)
{
	const char *empty = "";

	EXPECT_EQ(strchr(empty, '\0'), empty);
	EXPECT_EQ(strrchr(empty, '\0'), empty);
	EXPECT_EQ(strrchr(empty, 'x'), NULL);
}

static void strrchr_finds_the_last(void)
{
	const char *text = "hello, world";
	const char *accented = "a\xe9z\xe9";

	EXPECT_EQ(strrchr(text, 'o'), text + 8);
	EXPECT_EQ(strrchr(text, 'l'), text + 10);
	EXPECT_EQ(strrchr(text, 'h'), text);
	EXPECT_EQ(strrchr(text, 'z'), NULL);
	EXPECT_EQ(strrchr(text, '\0'), text + 12);
	EXPECT_EQ(strrchr(accented, 0xe9), accented + 3);
	EXPECT_EQ(strrchr(accented, '\xe9'), accented + 3);
}

static void strstr_finds_substrings(void)
{
	const char *text = "the cat sat on the mat";

	EXPECT_EQ(strstr(text, ""), text);
	EXPECT_EQ(strstr(text, "the"), text);
	EXPECT_EQ(strstr(text, "at"), text + 5);
	EXPECT_EQ(strstr(text, "mat"), text + 19);
	EXPECT_EQ(strstr(text, "t"), text);
	EXPECT_EQ(strstr(text, "the mat"), text + 15);
	EXPECT_EQ(strstr(text, "dog"), NULL);
	EXPECT_EQ(strstr(text, "mats"), NULL);
	EXPECT_EQ(strstr("ab", "abc"), NULL);
	EXPECT_EQ(strstr("", "a"), NULL);
	{
		const char *empty = "";

		EXPECT_EQ(strstr(empty, ""), empty);
	}
	/* A partial match must not skip the real one. */
	{
		const char *repeats = "aaaab";

		EXPECT_EQ(strstr(repeats, "aab"), repeats + 2);
		EXPECT_EQ(strstr(repeats, "aaaab"), repeats);
	}
	{
		const char *abab = "abababc";

		EXPECT_EQ(strstr(abab, "ababc"), abab + 2);
	}
}

/* --- strlcpy, strlcat ----------------------------------------------------- */

static void strlcpy_copies_and_terminates(void)
{
	char buffer[8];

	fill_guard((unsigned char *)buffer, sizeof(buffer));
	EXPECT_EQ(strlcpy(buffer, "abc", sizeof(buffer)), 3u);
	EXPECT_STREQ(buffer, "abc");
	/* Nothing past the NUL is written. */
	EXPECT_EQ(first_non_guard((unsigned char *)buffer, 4, sizeof(buffer)), sizeof(buffer));

	/* Exactly size - 1 characters fit. */
	EXPECT_EQ(strlcpy(buffer, "1234567", sizeof(buffer)), 7u);
	EXPECT_STREQ(buffer, "1234567");

	EXPECT_EQ(strlcpy(buffer, "", sizeof(buffer)), 0u);
	EXPECT_STREQ(buffer, "");
}

static void strlcpy_truncates_at_every_size(void)
{
	const char *source = "truncate me";	/* 11 characters */
	char buffer[16];

	for (size_t size = 0; size < sizeof(buffer); size++) {
		size_t copied = size == 0 ? 0 : (size - 1 < 11 ? size - 1 : 11);
		bool good;

		fill_guard((unsigned char *)buffer, sizeof(buffer));
		good = strlcpy(buffer, source, size) == 11;
		for (size_t i = 0; i < copied; i++)
			good = good && buffer[i] == source[i];
		if (size > 0)
			good = good && buffer[copied] == '\0';
		/* size 0 writes nothing; otherwise nothing past the NUL. */
		good = good && first_non_guard((unsigned char *)buffer, size == 0 ? 0 : copied + 1,
					       sizeof(buffer)) == sizeof(buffer);
		if (!good)
			test_report_failure(__FILE__, __LINE__, "strlcpy with size %zu", size);
	}
}

static void strlcat_appends_and_terminates(void)
{
	char buffer[10] = "abc";

	EXPECT_EQ(strlcat(buffer, "def", sizeof(buffer)), 6u);
	EXPECT_STREQ(buffer, "abcdef");
	/* Exactly fills the buffer. */
	EXPECT_EQ(strlcat(buffer, "ghi", sizeof(buffer)), 9u);
	EXPECT_STREQ(buffer, "abcdefghi");
	/* Full: returns what it wanted, leaves the string alone. */
	EXPECT_EQ(strlcat(buffer, "jk", sizeof(buffer)), 11u);
	EXPECT_STREQ(buffer, "abcdefghi");
	EXPECT_EQ(strlcat(buffer, "", sizeof(buffer)), 9u);
	EXPECT_STREQ(buffer, "abcdefghi");
}

static void strlcat_truncates(void)
{
	char buffer[8] = "abc";

	buffer[4] = (char)GUARD;
	buffer[5] = (char)GUARD;
	buffer[6] = (char)GUARD;
	buffer[7] = (char)GUARD;
	EXPECT_EQ(strlcat(buffer, "defghij", 6), 10u);
	EXPECT_STREQ(buffer, "abcde");
	/* Only size bytes were considered: buffer[6] and [7] untouched. */
	EXPECT_EQ((unsigned char)buffer[6], GUARD);
	EXPECT_EQ((unsigned char)buffer[7], GUARD);

	{
		char empty[4] = "";

		EXPECT_EQ(strlcat(empty, "wxyz", sizeof(empty)), 4u);
		EXPECT_STREQ(empty, "wxy");
	}
}

static void strlcat_without_nul_in_size_writes_nothing(void)
{
	char buffer[8] = "abcdefg";

	/* The size claims 4 bytes, none of them a NUL: not a string there. */
	EXPECT_EQ(strlcat(buffer, "xyz", 4), 7u);
	EXPECT_STREQ(buffer, "abcdefg");
	/* Size 0: nothing is a string, nothing written. */
	EXPECT_EQ(strlcat(buffer, "xyz", 0), 3u);
	EXPECT_STREQ(buffer, "abcdefg");
	/* The NUL exactly at size - 1: no room for anything. */
	EXPECT_EQ(strlcat(buffer, "xyz", 8), 10u);
	EXPECT_STREQ(buffer, "abcdefg");
}

static const struct test_case lib_string_cases[] = {
	TEST_CASE(memcpy_copies_every_alignment_and_length),
	TEST_CASE(memcpy_zero_length_writes_nothing),
	TEST_CASE(memcpy_copies_structures),
	TEST_CASE(memmove_overlapping_to_lower_address),
	TEST_CASE(memmove_overlapping_to_higher_address),
	TEST_CASE(memmove_shifts_a_string_both_ways),
	TEST_CASE(memmove_onto_itself_and_disjoint),
	TEST_CASE(memset_fills_every_alignment_and_length),
	TEST_CASE(memset_uses_only_the_low_byte),
	TEST_CASE(memset_zero_length_writes_nothing),
	TEST_CASE(memcmp_orders_bytes_as_unsigned),
	TEST_CASE(memcmp_finds_first_difference),
	TEST_CASE(memchr_finds_the_first_match_within_count),
	TEST_CASE(strlen_counts_to_the_nul),
	TEST_CASE(strnlen_stops_at_the_limit),
	TEST_CASE(strcmp_orders_strings),
	TEST_CASE(strncmp_compares_at_most_count),
	TEST_CASE(strchr_finds_the_first),
	TEST_CASE(strchr_empty_string_finds_terminator),
	TEST_CASE(strrchr_finds_the_last),
	TEST_CASE(strstr_finds_substrings),
	TEST_CASE(strlcpy_copies_and_terminates),
	TEST_CASE(strlcpy_truncates_at_every_size),
	TEST_CASE(strlcat_appends_and_terminates),
	TEST_CASE(strlcat_truncates),
	TEST_CASE(strlcat_without_nul_in_size_writes_nothing),
};
TEST_SUITE(lib_string, lib_string_cases, NULL, NULL);
