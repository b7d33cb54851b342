/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_TEST_RUNNER_H
#define TRIGOS_TEST_RUNNER_H
/* The kernel's test runner: what kmain calls (tests use test.h). */

#include <stddef.h>
#include <stdint.h>
#include <machine.h>

/**
 * test_select - choose the cases matching @globs (comma-separated globs
 * over "suite" and "suite.case"; "" selects everything)
 * Returns the number of suites with at least one selected case.
 */
unsigned int test_select(const char *globs);

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
