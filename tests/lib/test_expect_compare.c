// SPDX-License-Identifier: MIT
/*
 * Tests for kernel/lib/expect_compare.c, the comparisons behind the string and
 * memory expectations of both runners.  They call the functions themselves:
 * an EXPECT_STREQ() that compared wrongly could not be trusted to say so.
 */
#include <harness/test.h>
#include <lib/expect_compare.h>

static void null_equals_only_null_and_sorts_first(void)
{
	EXPECT_TRUE(expect_string_compare(NULL, NULL) == 0);
	EXPECT_TRUE(expect_string_compare(NULL, "") < 0);
	EXPECT_TRUE(expect_string_compare("", NULL) > 0);
	EXPECT_TRUE(expect_string_compare("trigger", NULL) > 0);
}

static void strings_compare_as_strcmp(void)
{
	EXPECT_TRUE(expect_string_compare("kick", "kick") == 0);
	EXPECT_TRUE(expect_string_compare("kick", "kicks") < 0);
	EXPECT_TRUE(expect_string_compare("wait", "kick") > 0);
	/* Bytes compare unsigned, as strcmp() specifies (C11 7.24.4). */
	EXPECT_TRUE(expect_string_compare("\x80", "a") > 0);
}

static void memory_compares_exactly_size_bytes(void)
{
	static const unsigned char left[] = { 1, 2, 3, 4 };
	static const unsigned char right[] = { 1, 2, 3, 5 };

	EXPECT_TRUE(expect_memory_compare(left, right, 3) == 0);
	EXPECT_TRUE(expect_memory_compare(left, right, 4) < 0);
	EXPECT_TRUE(expect_memory_compare(left, right, 0) == 0);
}

static const struct test_case lib_expect_compare_cases[] = {
	TEST_CASE(null_equals_only_null_and_sorts_first),
	TEST_CASE(strings_compare_as_strcmp),
	TEST_CASE(memory_compares_exactly_size_bytes),
};
TEST_SUITE(lib_expect_compare, lib_expect_compare_cases, NULL, NULL);
