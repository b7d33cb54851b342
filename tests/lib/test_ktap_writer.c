// SPDX-License-Identifier: MIT
/*
 * Tests for kernel/lib/ktap_writer.c and kernel/lib/case_selection.c: the
 * lines both runners print (tools/ktap, tests/matrix.cfg and Linux's
 * kunit.py parse them) and the rule that picks the cases they run.
 */
#include <harness/test.h>
#include <lib/case_selection.h>
#include <lib/ktap_writer.h>
#include <lib/string.h>

/* What the writer printed, every call appended. */
static char captured[1024];

static void capture(void *context, const char *text)
{
	size_t *calls = context;

	(*calls)++;
	strlcat(captured, text, sizeof(captured));
}

static size_t print_calls;
static const struct ktap_writer writer = { .print = capture, .context = &print_calls };

static int clear_capture(void)
{
	captured[0] = '\0';
	print_calls = 0;
	return 0;
}

static void header_and_suite_begin(void)
{
	ktap_write_header(&writer, 3);
	EXPECT_STREQ(captured, "KTAP version 1\n1..3\n");
	captured[0] = '\0';
	ktap_write_suite_begin(&writer, "lib_glob", 12);
	EXPECT_STREQ(captured, "    KTAP version 1\n    # Subtest: lib_glob\n    1..12\n");
	/* Each header is one print: the kernel's console writes it whole. */
	EXPECT_EQ(print_calls, 2u);
}

static void case_lines_and_their_directives(void)
{
	ktap_write_case(&writer, 1, "passes", KTAP_PASS, "ignored");
	ktap_write_case(&writer, 2, "fails", KTAP_FAIL, NULL);
	ktap_write_case(&writer, 3, "skips", KTAP_SKIP, "no HPET");
	ktap_write_case(&writer, 4, "faults", KTAP_ERROR, "#PF page fault");
	ktap_write_case(&writer, 5, "hangs", KTAP_TIMEOUT, "the watchdog ended it");
	ktap_write_case(&writer, 6, "skips_quietly", KTAP_SKIP, NULL);
	EXPECT_STREQ(captured,
		     "    ok 1 passes\n"
		     "    not ok 2 fails\n"
		     "    ok 3 skips # SKIP no HPET\n"
		     "    not ok 4 faults # ERROR #PF page fault\n"
		     "    not ok 5 hangs # TIMEOUT the watchdog ended it\n"
		     "    ok 6 skips_quietly # SKIP \n");
}

static void counts_follow_outcomes(void)
{
	struct ktap_counts counts = { 0, 0, 0 }, totals = { 1, 1, 1 };

	ktap_count(&counts, KTAP_PASS);
	ktap_count(&counts, KTAP_FAIL);
	ktap_count(&counts, KTAP_SKIP);
	ktap_count(&counts, KTAP_ERROR);
	ktap_count(&counts, KTAP_TIMEOUT);
	EXPECT_EQ(counts.passed, 1u);
	EXPECT_EQ(counts.failed, 3u);
	EXPECT_EQ(counts.skipped, 1u);
	EXPECT_EQ(ktap_counts_total(&counts), 5u);
	ktap_counts_add(&totals, &counts);
	EXPECT_EQ(totals.passed, 2u);
	EXPECT_EQ(totals.failed, 4u);
	EXPECT_EQ(totals.skipped, 2u);
}

static void suite_end_fails_skips_or_passes(void)
{
	struct ktap_counts failed = { 5, 1, 2 }, skipped = { 0, 0, 3 }, passed = { 4, 0, 2 };

	ktap_write_suite_totals(&writer, "smp", &failed);
	ktap_write_suite_end(&writer, 1, "smp", &failed);
	ktap_write_suite_end(&writer, 2, "x2apic", &skipped);
	ktap_write_suite_end(&writer, 3, "paging", &passed);
	/* A suite that selected nothing passes nothing: it is a skip too. */
	ktap_write_suite_end(&writer, 4, "empty", &(struct ktap_counts){ 0, 0, 0 });
	EXPECT_STREQ(captured,
		     "    # smp: pass:5 fail:1 skip:2 total:8\n"
		     "not ok 1 smp\n"
		     "ok 2 x2apic # SKIP all its cases were skipped\n"
		     "ok 3 paging\n"
		     "ok 4 empty # SKIP all its cases were skipped\n");
}

static void totals_and_result(void)
{
	struct ktap_counts totals = { 480, 2, 9 };

	ktap_write_totals(&writer, &totals);
	ktap_write_result(&writer, VERDICT_FAIL);
	ktap_write_result(&writer, VERDICT_SKIP);
	ktap_write_result(&writer, VERDICT_CRASH);
	EXPECT_STREQ(captured,
		     "# Totals: pass:480 fail:2 skip:9 total:491\n"
		     "# RESULT: FAIL\n"
		     "# RESULT: PASS\n"
		     "# RESULT: CRASH\n");
}

static void selection_by_suite_or_case(void)
{
	EXPECT_TRUE(case_selected(NULL, NULL, "smp", "all_online"));
	EXPECT_TRUE(case_selected("", "", "smp", "all_online"));
	EXPECT_TRUE(case_selected("smp", NULL, "smp", "all_online"));
	EXPECT_FALSE(case_selected("smpp", NULL, "smp", "all_online"));
	EXPECT_TRUE(case_selected("paging,smp.all_*", NULL, "smp", "all_online"));
	EXPECT_FALSE(case_selected("paging,smp.all_*", NULL, "smp", "some_online"));
	EXPECT_TRUE(case_selected("lib_*", NULL, "lib_glob", "star"));
	/* A prefix of a suite's name is not the suite. */
	EXPECT_FALSE(case_selected("lib", NULL, "lib_glob", "star"));
}

static void explicit_only_suites_need_their_prefix(void)
{
	EXPECT_FALSE(case_selected(NULL, NULL, "selftest_outcomes", "passes"));
	EXPECT_FALSE(case_selected("*", NULL, "selftest_outcomes", "passes"));
	EXPECT_FALSE(case_selected("*_outcomes", NULL, "selftest_outcomes", "passes"));
	EXPECT_TRUE(case_selected("selftest_*", NULL, "selftest_outcomes", "passes"));
	EXPECT_TRUE(case_selected("paging,selftest_outcomes.passes", NULL, "selftest_outcomes",
				  "passes"));
	EXPECT_FALSE(case_selected("*", NULL, "bench_ipi", "round_trip"));
	EXPECT_TRUE(case_selected("bench_ipi", NULL, "bench_ipi", "round_trip"));
}

static void benchmarks_with_or_without_their_prefix(void)
{
	EXPECT_TRUE(case_selected(NULL, "ipi", "bench_ipi", "round_trip"));
	EXPECT_TRUE(case_selected(NULL, "bench_ipi", "bench_ipi", "round_trip"));
	EXPECT_TRUE(case_selected(NULL, "ipi.round_*", "bench_ipi", "round_trip"));
	EXPECT_TRUE(case_selected(NULL, "bench_ipi.round_trip", "bench_ipi", "round_trip"));
	EXPECT_FALSE(case_selected(NULL, "ipi.one_way", "bench_ipi", "round_trip"));
	EXPECT_FALSE(case_selected(NULL, "ipii", "bench_ipi", "round_trip"));
	/* bench= alone runs just the benchmarks; bench= never names a test. */
	EXPECT_FALSE(case_selected(NULL, "ipi", "ipi", "self_ipi"));
	EXPECT_FALSE(case_selected(NULL, "*", "smp", "all_online"));
	/* Both given: the cases either selects. */
	EXPECT_TRUE(case_selected("smp", "ipi", "smp", "all_online"));
	EXPECT_TRUE(case_selected("smp", "ipi", "bench_ipi", "round_trip"));
	EXPECT_FALSE(case_selected("smp", "ipi", "paging", "maps"));
}

static void excluding_patterns_take_cases_out(void)
{
	EXPECT_FALSE(case_selected("*,-lib_*", NULL, "lib_glob", "star"));
	EXPECT_TRUE(case_selected("*,-lib_*", NULL, "smp", "all_online"));
	/* Only excluding patterns: everything else. */
	EXPECT_TRUE(case_selected("-lib_*", NULL, "smp", "all_online"));
	EXPECT_FALSE(case_selected("-lib_*", NULL, "lib_glob", "star"));
	EXPECT_FALSE(case_selected("-smp.all_*", NULL, "smp", "all_online"));
	EXPECT_TRUE(case_selected("-smp.all_*", NULL, "smp", "some_online"));
	/* The exclusion wins whatever the order. */
	EXPECT_FALSE(case_selected("-smp,smp", NULL, "smp", "all_online"));
	EXPECT_FALSE(case_selected("smp,paging,-smp", NULL, "smp", "all_online"));
	EXPECT_TRUE(case_selected("smp,paging,-smp", NULL, "paging", "maps"));
	/* "All but" still leaves out the explicit-only suites; a marked prefix names none. */
	EXPECT_FALSE(case_selected("-lib_*", NULL, "selftest_outcomes", "passes"));
	EXPECT_FALSE(case_selected("-selftest_*", NULL, "selftest_outcomes", "passes"));
	EXPECT_FALSE(case_selected("selftest_*,-selftest_outcomes.passes", NULL, "selftest_outcomes",
				   "passes"));
	EXPECT_TRUE(case_selected("selftest_*,-selftest_outcomes.passes", NULL, "selftest_outcomes",
				  "fails"));
	/* bench=: excluded with or without the prefix. */
	EXPECT_FALSE(case_selected(NULL, "-ipi", "bench_ipi", "round_trip"));
	EXPECT_FALSE(case_selected(NULL, "*,-bench_ipi", "bench_ipi", "round_trip"));
	EXPECT_TRUE(case_selected(NULL, "-ipi", "bench_trigger", "kick"));
	EXPECT_FALSE(case_selected(NULL, "-ipi", "smp", "all_online"));
}

/* For the report: a selection whose only cases are smp.* and lib_glob.*. */
static bool selects_smp_or_lib_glob(const char *pattern, void *unused)
{
	return case_selected(pattern, NULL, "smp", "all_online") ||
	       case_selected(pattern, NULL, "lib_glob", "star");
}

static void unmatched_patterns_are_each_named(void)
{
	EXPECT_EQ(case_selection_report_unmatched(&writer, "test", "smp,smpp,,lib_*,x.y",
						  selects_smp_or_lib_glob, NULL), 2u);
	EXPECT_EQ(case_selection_report_unmatched(&writer, "test", NULL,
						  selects_smp_or_lib_glob, NULL), 0u);
	/* An exclusion that names no case is a typo as well. */
	EXPECT_EQ(case_selection_report_unmatched(&writer, "test", "-lib_*,-lib_globb",
						  selects_smp_or_lib_glob, NULL), 1u);
	ktap_write_nothing_matched(&writer, "smpp", NULL);
	ktap_write_nothing_matched(&writer, "", "ipii");
	ktap_write_nothing_matched(&writer, "a", "b");
	EXPECT_STREQ(captured,
		     "# test=smpp: no suite or case matches this pattern\n"
		     "# test=x.y: no suite or case matches this pattern\n"
		     "# test=-lib_globb: no suite or case matches this pattern\n"
		     "# no test case matched test=smpp: a run that selects nothing fails\n"
		     "# no test case matched bench=ipii: a run that selects nothing fails\n"
		     "# no test case matched test=a bench=b: a run that selects nothing fails\n");
}

static void parameters_one_level_deeper(void)
{
	struct ktap_counts counts = { 0, 0, 0 };

	ktap_write_params_begin(&writer, "every_backend", 3);
	ktap_write_param(&writer, 1, "hlt", KTAP_PASS, NULL);
	ktap_write_param(&writer, 2, "size #2\nof 4", KTAP_FAIL, NULL);
	ktap_write_param(&writer, 3, "mwaitx", KTAP_SKIP, "no MONITORX");
	EXPECT_STREQ(captured,
		     "        KTAP version 1\n        # Subtest: every_backend\n        1..3\n"
		     "        ok 1 hlt\n"
		     "        not ok 2 size _2 of 4\n"
		     "        ok 3 mwaitx # SKIP no MONITORX\n");
	EXPECT_EQ(ktap_params_outcome(&counts), KTAP_SKIP);
	counts.passed = 1;
	EXPECT_EQ(ktap_params_outcome(&counts), KTAP_PASS);
	counts.failed = 1;
	EXPECT_EQ(ktap_params_outcome(&counts), KTAP_FAIL);
}

static const struct test_case lib_ktap_writer_cases[] = {
	TEST_CASE(header_and_suite_begin),
	TEST_CASE(case_lines_and_their_directives),
	TEST_CASE(parameters_one_level_deeper),
	TEST_CASE(counts_follow_outcomes),
	TEST_CASE(suite_end_fails_skips_or_passes),
	TEST_CASE(totals_and_result),
	TEST_CASE(selection_by_suite_or_case),
	TEST_CASE(explicit_only_suites_need_their_prefix),
	TEST_CASE(benchmarks_with_or_without_their_prefix),
	TEST_CASE(excluding_patterns_take_cases_out),
	TEST_CASE(unmatched_patterns_are_each_named),
};

TEST_SUITE(lib_ktap_writer, lib_ktap_writer_cases, clear_capture, NULL);
