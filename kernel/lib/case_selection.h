/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_LIB_CASE_SELECTION_H
#define TRIGOS_LIB_CASE_SELECTION_H
/*
 * Which test cases a run selects, the one home of the rule: the kernel's
 * runner applies it to test= and bench= (kernel/harness/test.c), the host
 * runner of make check to its command-line argument (tests/host/runner.c).
 *
 * A pattern list is comma-separated globs (glob.h) over "suite" and
 * "suite.case".  Suites named selftest_* (the harness checking itself by
 * failing on purpose) and bench_* (measurements, make bench) run only when
 * a pattern spells their prefix out: "*" alone never selects them.
 */

#include <stdbool.h>

/**
 * case_selected - does the selection run case @case_name of suite @suite_name?
 * @tests: test= patterns; NULL or "" selects every suite but the
 *         selftest_* and bench_* ones
 * @benchmarks: bench= patterns over the bench_* suites, matched with and
 *         without their "bench_" prefix; NULL or "" selects none
 *
 * With only @benchmarks given just the benchmarks they name run; with both,
 * the cases either selects.
 */
bool case_selected(const char *tests, const char *benchmarks, const char *suite_name,
		   const char *case_name);

#endif
