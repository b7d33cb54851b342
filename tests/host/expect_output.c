// SPDX-License-Identifier: MIT
/*
 * Every expectation form of harness/test.h, failing on purpose, run by the
 * host runner into build/host/expect-output.log; `make check` compares that
 * log byte for byte with tests/host/expect_output.golden.  So each form is
 * seen failing, and what it prints (both operands, the message, continued
 * lines, parameters as KUnit prints them) cannot change unnoticed.  The
 * kernel's runner prints the same lines (lib/expect_report.c), adding
 * " (on cpu N)" and " (round R of N)" where they apply.
 *
 * Pointers are made from numbers so that the log does not depend on where
 * the loader put anything.
 */
#include <stdio.h>

#include <harness/test.h>

static int minus_one = -1;
static unsigned long long all_ones = ~0ull;

static void integers_show_both_operands_signed_or_not(void)
{
	unsigned int replies = 7, sent = 8;

	EXPECT_EQ(minus_one, 4);
	EXPECT_LT(all_ones, 1u);
	EXPECT_EQ_MSG(replies, sent, "cpu %u -> cpu %u: %u missing", 1u, 3u, sent - replies);
	ASSERT_GE(minus_one, 0);
	EXPECT_EQ(1, 2);	/* not reached: the ASSERT ended the case */
}

static void conditions_show_the_expression_and_the_message(void)
{
	bool kicked = false;

	EXPECT_TRUE(kicked);
	EXPECT_FALSE_MSG(!kicked, "the waiter on cpu %d was never kicked", 2);
}

static void ranges_and_tolerances(void)
{
	long long skew = -900;
	unsigned long tsc_a = 1000, tsc_b = 1500;

	EXPECT_IN_RANGE(skew, -500, 500);
	EXPECT_IN_RANGE_MSG(tsc_b, tsc_a, 1200ul, "tsc of cpu %u", 1u);
	EXPECT_NEAR(tsc_a, tsc_b, 100);
	EXPECT_NEAR(tsc_b, tsc_a, 499u);
}

static void pointers_are_printed(void)
{
	const void *mapped = (const void *)0x1000, *expected = (const void *)0x2000;

	EXPECT_PTR_EQ(mapped, expected);
	EXPECT_PTR_NE(mapped, (const void *)0x1000);
	EXPECT_NULL(mapped);
	EXPECT_NOT_NULL_MSG((const void *)0, "page %d", 5);
}

static void strings_are_escaped(void)
{
	const char *line = "tab\there \"quoted\" \\ \x01\n";

	EXPECT_STREQ(line, "tab here");
	EXPECT_STREQ(NULL, "text");
	EXPECT_STRNE_MSG("same", "same", "names of cpus %u and %u", 0u, 1u);
	ASSERT_STRNE("hlt", "hlt");
}

static void memory_shows_the_first_difference(void)
{
	unsigned char left[32], right[32];

	for (unsigned int i = 0; i < sizeof(left); i++)
		left[i] = right[i] = (unsigned char)i;
	right[20] = 0xee;
	right[30] = 0xff;
	EXPECT_MEMEQ(left, right, sizeof(left));
	EXPECT_MEMEQ(left, right + 1, 4);
	EXPECT_MEMNE(left, left, 4);
	ASSERT_MEMNE_MSG(left, left, sizeof(left), "copy %d", 1);
}

static void long_lines_are_continued_never_cut(void)
{
	char word[401];

	for (unsigned int i = 0; i < sizeof(word) - 1; i++)
		word[i] = (char)('a' + i % 26);
	word[sizeof(word) - 1] = '\0';
	EXPECT_STREQ(word, "short");
	test_report_failure(__FILE__, __LINE__, "a message of its own\nwith a second line");
}

static void skip_takes_a_format(void)
{
	test_skip("no %s on cpu %u", "MONITORX", 3u);
}

/* Three parameters: one passes, one fails, one skips. */
static const char *const colours[] = { "red", "green", "blue" };

static const void *colour_params(const void *previous, char *description)
{
	const char *const *next = previous ? (const char *const *)previous + 1 : colours;

	if (next == colours + sizeof(colours) / sizeof(colours[0]))
		return NULL;
	snprintf(description, TEST_PARAM_DESCRIPTION_MAX, "colour %s", *next);
	return next;
}

static void each_parameter_is_a_result(const void *param)
{
	const char *colour = *(const char *const *)param;

	if (colour[0] == 'b')
		test_skip("%s is not tried", colour);
	EXPECT_STRNE(colour, "green");
}

/* Every EXPECT form the cases above do not use, once each, all failing. */
static void every_other_expect_form(void)
{
	const void *page = (const void *)0x3000;
	const char nmi[] = "nmi", ipi[] = "ipi";
	int acked = 3, sent = 4;

	EXPECT_NE(acked, 3);
	EXPECT_NE_MSG(sent, 4, "cpu %d", 1);
	EXPECT_LT_MSG(sent, acked, "cpu %d", 2);
	EXPECT_LE(sent, acked);
	EXPECT_LE_MSG(sent, acked, "cpu %d", 3);
	EXPECT_GT(acked, sent);
	EXPECT_GT_MSG(acked, sent, "cpu %d", 4);
	EXPECT_GE(acked, sent);
	EXPECT_GE_MSG(acked, sent, "cpu %d", 5);
	EXPECT_TRUE_MSG(acked == sent, "%d of %d acked", acked, sent);
	EXPECT_FALSE(acked != sent);
	EXPECT_NEAR_MSG(acked, 10, 2, "skew of cpu %d", 6);
	EXPECT_PTR_EQ_MSG(page, (const void *)0x4000, "page of cpu %d", 7);
	EXPECT_PTR_NE_MSG(page, (const void *)0x3000, "page of cpu %d", 8);
	EXPECT_NULL_MSG(page, "page of cpu %d", 9);
	EXPECT_NOT_NULL((const void *)0);
	EXPECT_STREQ_MSG(nmi, ipi, "vector of cpu %d", 10);
	EXPECT_MEMEQ_MSG(nmi, ipi, sizeof(nmi), "vector of cpu %d", 11);
	EXPECT_MEMNE_MSG(nmi, nmi, sizeof(nmi), "vector of cpu %d", 12);
}

/*
 * Every ASSERT form the cases above do not use, one per parameter: each
 * fails and ends its parameter's run, so the line after it never prints.
 */
static const char *const assert_forms[] = {
	"ASSERT_EQ", "ASSERT_EQ_MSG", "ASSERT_NE", "ASSERT_NE_MSG", "ASSERT_LT", "ASSERT_LT_MSG",
	"ASSERT_LE", "ASSERT_LE_MSG", "ASSERT_GT", "ASSERT_GT_MSG", "ASSERT_GE_MSG", "ASSERT_TRUE",
	"ASSERT_TRUE_MSG", "ASSERT_FALSE", "ASSERT_FALSE_MSG", "ASSERT_IN_RANGE",
	"ASSERT_IN_RANGE_MSG", "ASSERT_NEAR", "ASSERT_NEAR_MSG", "ASSERT_PTR_EQ",
	"ASSERT_PTR_EQ_MSG", "ASSERT_PTR_NE", "ASSERT_PTR_NE_MSG", "ASSERT_NULL", "ASSERT_NULL_MSG",
	"ASSERT_NOT_NULL", "ASSERT_NOT_NULL_MSG", "ASSERT_STREQ", "ASSERT_STREQ_MSG",
	"ASSERT_STRNE_MSG", "ASSERT_MEMEQ", "ASSERT_MEMEQ_MSG", "ASSERT_MEMNE",
};

static const void *assert_form_params(const void *previous, char *description)
{
	const char *const *next = previous ? (const char *const *)previous + 1 : assert_forms;

	if (next == assert_forms + sizeof(assert_forms) / sizeof(assert_forms[0]))
		return NULL;
	snprintf(description, TEST_PARAM_DESCRIPTION_MAX, "%s", *next);
	return next;
}

static void each_assert_form_ends_its_run(const void *param)
{
	const void *page = (const void *)0x3000;
	int acked = 3, sent = 4;

	switch ((const char *const *)param - assert_forms) {
	case 0: ASSERT_EQ(acked, sent); break;
	case 1: ASSERT_EQ_MSG(acked, sent, "cpu %d", 1); break;
	case 2: ASSERT_NE(acked, 3); break;
	case 3: ASSERT_NE_MSG(acked, 3, "cpu %d", 1); break;
	case 4: ASSERT_LT(sent, acked); break;
	case 5: ASSERT_LT_MSG(sent, acked, "cpu %d", 1); break;
	case 6: ASSERT_LE(sent, acked); break;
	case 7: ASSERT_LE_MSG(sent, acked, "cpu %d", 1); break;
	case 8: ASSERT_GT(acked, sent); break;
	case 9: ASSERT_GT_MSG(acked, sent, "cpu %d", 1); break;
	case 10: ASSERT_GE_MSG(acked, sent, "cpu %d", 1); break;
	case 11: ASSERT_TRUE(acked == sent); break;
	case 12: ASSERT_TRUE_MSG(acked == sent, "cpu %d", 1); break;
	case 13: ASSERT_FALSE(acked != sent); break;
	case 14: ASSERT_FALSE_MSG(acked != sent, "cpu %d", 1); break;
	case 15: ASSERT_IN_RANGE(acked, 4, 8); break;
	case 16: ASSERT_IN_RANGE_MSG(acked, 4, 8, "cpu %d", 1); break;
	case 17: ASSERT_NEAR(acked, 10, 2); break;
	case 18: ASSERT_NEAR_MSG(acked, 10, 2, "cpu %d", 1); break;
	case 19: ASSERT_PTR_EQ(page, (const void *)0x4000); break;
	case 20: ASSERT_PTR_EQ_MSG(page, (const void *)0x4000, "cpu %d", 1); break;
	case 21: ASSERT_PTR_NE(page, (const void *)0x3000); break;
	case 22: ASSERT_PTR_NE_MSG(page, (const void *)0x3000, "cpu %d", 1); break;
	case 23: ASSERT_NULL(page); break;
	case 24: ASSERT_NULL_MSG(page, "cpu %d", 1); break;
	case 25: ASSERT_NOT_NULL((const void *)0); break;
	case 26: ASSERT_NOT_NULL_MSG((const void *)0, "cpu %d", 1); break;
	case 27: ASSERT_STREQ("nmi", "ipi"); break;
	case 28: ASSERT_STREQ_MSG("nmi", "ipi", "cpu %d", 1); break;
	case 29: ASSERT_STRNE_MSG("nmi", "nmi", "cpu %d", 1); break;
	case 30: ASSERT_MEMEQ("nmi", "ipi", 3); break;
	case 31: ASSERT_MEMEQ_MSG("nmi", "ipi", 3, "cpu %d", 1); break;
	case 32: ASSERT_MEMNE("nmi", "nmi", 3); break;
	}
	EXPECT_STREQ("reached", "the line after an ASSERT");	/* never printed */
}

static unsigned int suite_inits, case_inits;

static int count_suite_init(void)
{
	suite_inits++;
	return 0;
}

static void say_suite_exit(void)
{
	printf("    # expect_output: suite_exit after %u case inits, %u suite init\n", case_inits,
	       suite_inits);
}

static int count_case_init(void)
{
	case_inits++;
	return 0;
}

static void suite_init_ran_once(void)
{
	EXPECT_EQ(suite_inits, 2u);	/* fails: it ran once, and init before each case */
}

static const struct test_case expect_output_cases[] = {
	TEST_CASE(integers_show_both_operands_signed_or_not),
	TEST_CASE(conditions_show_the_expression_and_the_message),
	TEST_CASE(ranges_and_tolerances),
	TEST_CASE(pointers_are_printed),
	TEST_CASE(strings_are_escaped),
	TEST_CASE(memory_shows_the_first_difference),
	TEST_CASE(long_lines_are_continued_never_cut),
	TEST_CASE(skip_takes_a_format),
	TEST_CASE_PARAM(each_parameter_is_a_result, colour_params),
	TEST_CASE(every_other_expect_form),
	TEST_CASE_PARAM(each_assert_form_ends_its_run, assert_form_params),
	TEST_CASE(suite_init_ran_once),
};
TEST_SUITE_ONCE(expect_output, expect_output_cases, count_suite_init, say_suite_exit,
		count_case_init, NULL);
