// SPDX-License-Identifier: MIT
/* Tests for kernel/lib/verdict.c: the words and codes the host tools read. */
#include <harness/test.h>
#include <lib/string.h>
#include <lib/verdict.h>

static void names_and_result_words(void)
{
	EXPECT_STREQ(verdict_name(VERDICT_PASS), "PASS");
	EXPECT_STREQ(verdict_name(VERDICT_FAIL), "FAIL");
	EXPECT_STREQ(verdict_name(VERDICT_SKIP), "SKIP");
	EXPECT_STREQ(verdict_name(VERDICT_CRASH), "CRASH");
	/* An all-skipped run did not fail: its RESULT line says PASS. */
	EXPECT_STREQ(verdict_result_word(VERDICT_SKIP), VERDICT_RESULT_PASS);
	EXPECT_STREQ(verdict_result_word(VERDICT_PASS), VERDICT_RESULT_PASS);
	EXPECT_STREQ(verdict_result_word(VERDICT_FAIL), VERDICT_RESULT_FAIL);
	EXPECT_STREQ(verdict_result_word(VERDICT_CRASH), VERDICT_RESULT_CRASH);
	EXPECT_STREQ(verdict_result_word((enum verdict)42), VERDICT_RESULT_CRASH);
}

static void qemu_exit_values_are_distinct_and_odd_once_shifted(void)
{
	uint32_t values[] = {
		verdict_qemu_exit_value(VERDICT_PASS), verdict_qemu_exit_value(VERDICT_FAIL),
		verdict_qemu_exit_value(VERDICT_SKIP), verdict_qemu_exit_value(VERDICT_CRASH),
	};

	EXPECT_EQ(values[0], 0x10u);
	EXPECT_EQ(values[3], 0x13u);
	for (int i = 0; i < 4; i++) {
		/* QEMU exits with (value << 1) | 1: never 0 or 1, its own statuses. */
		EXPECT_GT((values[i] << 1) | 1, 1u);
		for (int j = i + 1; j < 4; j++)
			EXPECT_NE(values[i], values[j]);
	}
}

static void a_run_fails_on_a_failure_or_a_selection_that_misses(void)
{
	EXPECT_EQ(verdict_of_run(5, 0, 2, 0), VERDICT_PASS);
	EXPECT_EQ(verdict_of_run(5, 1, 2, 0), VERDICT_FAIL);
	EXPECT_EQ(verdict_of_run(0, 0, 0, 0), VERDICT_FAIL);	/* nothing selected */
	EXPECT_EQ(verdict_of_run(5, 0, 2, 1), VERDICT_FAIL);	/* one glob matched nothing */
	EXPECT_EQ(verdict_of_run(0, 0, 1, 0), VERDICT_SKIP);	/* every case skipped */
	EXPECT_EQ(verdict_of_run(0, 1, 1, 0), VERDICT_FAIL);
}

static const struct test_case lib_verdict_cases[] = {
	TEST_CASE(names_and_result_words),
	TEST_CASE(qemu_exit_values_are_distinct_and_odd_once_shifted),
	TEST_CASE(a_run_fails_on_a_failure_or_a_selection_that_misses),
};

TEST_SUITE(lib_verdict, lib_verdict_cases, NULL, NULL);
