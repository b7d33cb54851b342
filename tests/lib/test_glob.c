// SPDX-License-Identifier: MIT
/* Tests for kernel/lib/glob.c. */
#include <stdbool.h>
#include <stddef.h>

#include <harness/test.h>
#include <lib/glob.h>
#include <lib/string.h>

struct glob_example {
	const char *pattern;
	const char *text;
	bool matches;
};

/* Run a table of examples through @match, reporting each one that is wrong. */
static void check_examples(int line, bool (*match)(const char *, const char *),
			   const struct glob_example *examples, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		if (match(examples[i].pattern, examples[i].text) != examples[i].matches)
			test_report_failure(__FILE__, line, "\"%s\" against \"%s\" should %s",
					    examples[i].pattern, examples[i].text,
					    examples[i].matches ? "match" : "not match");
	}
}

#define CHECK_EXAMPLES(match, examples) \
	check_examples(__LINE__, match, examples, sizeof(examples) / sizeof((examples)[0]))

static void literal_patterns_match_exactly(void)
{
	static const struct glob_example examples[] = {
		{ "abc", "abc", true },
		{ "abc", "abd", false },
		{ "abc", "ab", false },
		{ "ab", "abc", false },
		{ "abc", "", false },
		{ "abc", "ABC", false },
		{ "lib_string", "lib_string", true },
		{ "a.b", "a.b", true },
		{ "a.b", "aXb", false },
	};

	CHECK_EXAMPLES(glob_match, examples);
}

static void empty_pattern_matches_only_empty_text(void)
{
	EXPECT_TRUE(glob_match("", ""));
	EXPECT_FALSE(glob_match("", "a"));
	EXPECT_FALSE(glob_match("", " "));
}

static void question_mark_matches_one_character(void)
{
	static const struct glob_example examples[] = {
		{ "?", "a", true },
		{ "?", "", false },
		{ "?", "ab", false },
		{ "a?c", "abc", true },
		{ "a?c", "ac", false },
		{ "a?c", "abbc", false },
		{ "???", "xyz", true },
		{ "???", "xy", false },
		{ "?bc", "abc", true },
		{ "ab?", "abc", true },
		{ "ab?", "ab", false },
	};

	CHECK_EXAMPLES(glob_match, examples);
}

static void star_matches_any_run(void)
{
	static const struct glob_example examples[] = {
		{ "*", "", true },
		{ "*", "anything at all", true },
		{ "lib_*", "lib_string", true },
		{ "lib_*", "lib_", true },
		{ "lib_*", "lib", false },
		{ "lib_*", "xlib_string", false },
		{ "*.c", "main.c", true },
		{ "*.c", ".c", true },
		{ "*.c", "main.h", false },
		{ "*.c", "main.c.h", false },
		{ "a*c", "ac", true },
		{ "a*c", "abc", true },
		{ "a*c", "abbbc", true },
		{ "a*c", "abd", false },
		{ "a*c", "acb", false },
		{ "*a", "aaa", true },
		{ "*ab", "aab", true },
		{ "*ab", "abab", true },
		{ "*ab", "aba", false },
	};

	CHECK_EXAMPLES(glob_match, examples);
}

static void several_stars_backtrack(void)
{
	static const struct glob_example examples[] = {
		{ "*a*b*", "ab", true },
		{ "*a*b*", "xxaxxbxx", true },
		{ "*a*b*", "ba", false },
		{ "a*b*c", "aXbYbZc", true },
		{ "a*b*c", "abcbc", true },
		{ "a*b*c", "acb", false },
		{ "*ab*cd", "xabyabzcd", true },
		{ "*ab*cd", "xabycdz", false },
		{ "**", "", true },
		{ "a**b", "ab", true },
		{ "*?", "", false },
		{ "*?", "a", true },
		{ "?*?", "a", false },
		{ "?*?", "ab", true },
		{ "*?*?*", "abc", true },
		{ "paging.*_to_*", "paging.write_to_text", true },
		{ "paging.*_to_*", "paging.write_text", false },
	};

	CHECK_EXAMPLES(glob_match, examples);
}

static void trailing_stars_match_nothing_more(void)
{
	static const struct glob_example examples[] = {
		{ "abc*", "abc", true },
		{ "abc**", "abc", true },
		{ "abc***", "abcdef", true },
		{ "abc*", "ab", false },
		{ "abc?*", "abc", false },
		{ "abc*?", "abcd", true },
	};

	CHECK_EXAMPLES(glob_match, examples);
}

static void list_matches_any_of_its_patterns(void)
{
	static const struct glob_example examples[] = {
		{ "lib_*,paging.write", "lib_string", true },
		{ "lib_*,paging.write", "paging.write", true },
		{ "lib_*,paging.write", "paging", false },
		{ "lib_*,paging.write", "paging.writes", false },
		{ "a,b,c", "b", true },
		{ "a,b,c", "c", true },
		{ "a,b,c", "d", false },
		/* A comma splits: the text "a,b" is not a list entry. */
		{ "a,b", "a,b", false },
		{ "single", "single", true },
		{ "*", "x", true },
		{ "x,*", "anything", true },
	};

	CHECK_EXAMPLES(glob_match_list, examples);
}

static void list_entries_end_at_commas(void)
{
	static const struct glob_example examples[] = {
		/* Each entry ends at its comma: "ab" must not see ",c". */
		{ "ab,c", "ab", true },
		{ "ab,c", "ab,c", false },
		{ "a*,x", "a,x", true },
		{ "?,?", "ab", false },
		{ "ab*,zz", "abc", true },
		{ "ab?,zz", "ab", false },
	};

	CHECK_EXAMPLES(glob_match_list, examples);
}

static void empty_lists_and_entries_match_nothing(void)
{
	static const struct glob_example examples[] = {
		{ "", "", false },
		{ "", "a", false },
		{ ",", "", false },
		{ ",,", "x", false },
		{ ",lib_*", "lib_glob", true },
		{ "lib_*,", "lib_glob", true },
		{ "a,,b", "b", true },
		{ "a,,b", "", false },
	};

	CHECK_EXAMPLES(glob_match_list, examples);
}

/* glob_list_next: every pattern in order, empty ones included, and NULL at the end. */
static void list_walk_gives_each_pattern_once(void)
{
	const char *cursor = "lib_*,,paging.x,", *pattern;
	size_t length = 99;

	pattern = glob_list_next(&cursor, &length);
	ASSERT_NOT_NULL(pattern);
	EXPECT_EQ(length, 5u);
	EXPECT_EQ(memcmp(pattern, "lib_*", 5), 0);
	pattern = glob_list_next(&cursor, &length);
	ASSERT_NOT_NULL(pattern);
	EXPECT_EQ(length, 0u);
	pattern = glob_list_next(&cursor, &length);
	ASSERT_NOT_NULL(pattern);
	EXPECT_EQ(length, 8u);
	EXPECT_EQ(memcmp(pattern, "paging.x", 8), 0);
	EXPECT_NULL(glob_list_next(&cursor, &length));
	EXPECT_NULL(glob_list_next(&cursor, &length));

	cursor = "";
	EXPECT_NULL(glob_list_next(&cursor, &length));
	cursor = NULL;
	EXPECT_NULL(glob_list_next(&cursor, &length));
}

static const struct test_case lib_glob_cases[] = {
	TEST_CASE(literal_patterns_match_exactly),
	TEST_CASE(empty_pattern_matches_only_empty_text),
	TEST_CASE(question_mark_matches_one_character),
	TEST_CASE(star_matches_any_run),
	TEST_CASE(several_stars_backtrack),
	TEST_CASE(trailing_stars_match_nothing_more),
	TEST_CASE(list_matches_any_of_its_patterns),
	TEST_CASE(list_entries_end_at_commas),
	TEST_CASE(empty_lists_and_entries_match_nothing),
	TEST_CASE(list_walk_gives_each_pattern_once),
};
TEST_SUITE(lib_glob, lib_glob_cases, NULL, NULL);
