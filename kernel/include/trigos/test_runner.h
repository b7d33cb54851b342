/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_TEST_RUNNER_H
#define TRIGOS_TEST_RUNNER_H
/* The kernel's test runner: what kmain calls (tests use test.h). */

#include <stddef.h>
#include <stdint.h>
#include <trigos/machine.h>

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
 * test_run_selected - run the selected suites in name order, printing KTAP
 * (the header must already be out: ktap_header()), each case @repeat times,
 * the pseudo-random stream seeded from @seed; ends with the totals and the
 * "# RESULT:" line and returns the verdict.
 */
enum verdict test_run_selected(unsigned int repeat, uint64_t seed);

/**
 * test_describe_progress - "in suite.case; before it pass:P fail:F skip:S"
 * (or "outside the tests; ..."), for a crash report; takes no lock
 */
void test_describe_progress(char *buffer, size_t size);

#endif
