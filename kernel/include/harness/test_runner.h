/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_TEST_RUNNER_H
#define TRIGOS_TEST_RUNNER_H
/* The kernel's test runner: what kmain calls (tests use test.h). */

#include <stddef.h>
#include <stdint.h>
#include <lib/ktap_writer.h>
#include <lib/verdict.h>

/**
 * struct test_case_notifier - told when each case starts
 * @case_start: called on the runner's CPU before the suite's init, for each
 *		run of a case (each parameter, each round of repeat=), with
 *		the suite's and the case's names and @data
 * @data: passed to @case_start as it is
 * @next: the runner's list (test_case_notifier_register() sets it)
 *
 * For counters that should be read per case rather than since boot (the
 * trigger users' awaiting_kick, say): a notifier takes its baseline here.
 */
struct test_case_notifier {
	void (*case_start)(const char *suite, const char *test_case, void *data);
	void *data;
	struct test_case_notifier *next;
};

/** test_case_notifier_register - call @notifier at the start of every case from now on */
void test_case_notifier_register(struct test_case_notifier *notifier);

/**
 * test_select - choose the cases to run
 * @tests: comma-separated globs over "suite" and "suite.case" (test=);
 *         "" selects every suite but the selftest_* and bench_* ones
 * @benchmarks: globs over the bench_* suites (bench=), matched with and
 *         without their "bench_" prefix; "" selects none
 *
 * With only @benchmarks given just the benchmarks run; with both, the
 * cases either selects.  Returns the number of suites with a selected case.
 */
unsigned int test_select(const char *tests, const char *benchmarks);

/**
 * struct test_run - what a run of the selected cases counted
 * @totals: its cases' results
 * @suites: how many suites ran
 * @unmatched: how many test= and bench= patterns selected nothing
 * @refused: how many requests of the command line cannot run here (a
 *	trigger= backend this machine lacks); each fails the run as @unmatched do
 */
struct test_run {
	struct ktap_counts totals;
	unsigned int suites;
	unsigned int unmatched;
	unsigned int refused;
};

/**
 * test_run_selected - run the selected suites in name order, printing KTAP
 * (the header must already be out: ktap_header()), each case @repeat times,
 * the pseudo-random stream seeded from @seed, into @run; ends with the
 * patterns that matched nothing and the totals line.  The verdict and the
 * end of the run are the caller's (test_run_verdict(), machine_end_run()).
 */
void test_run_selected(unsigned int repeat, uint64_t seed, struct test_run *run);

/**
 * test_run_verdict - the verdict of @run: FAIL if a case failed, nothing
 * was selected or a pattern matched nothing, else SKIP if nothing passed,
 * else PASS; @detail gets the totals (and why, for the screen's banner)
 */
enum verdict test_run_verdict(const struct test_run *run, char *detail, size_t size);

/**
 * test_choose_seed - after the command line: unless seed= was given, a seed
 * from the TSC; either way a note says which, to reproduce the run
 */
void test_choose_seed(void);

/**
 * test_describe_progress - "in suite.case; before it pass:P fail:F skip:S"
 * (or "outside the tests; ..."), for a crash report; takes no lock
 */
void test_describe_progress(char *buffer, size_t size);

#endif
