/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_LIB_CASE_SELECTION_H
#define TRIGOS_LIB_CASE_SELECTION_H
/*
 * Which test cases a run selects, the one home of the rule: the kernel's
 * runner applies it to test= and bench= (kernel/harness/test.c), the host
 * runner of make check to its command-line argument (tests/host/runner.c).
 *
 * A pattern list is comma-separated globs (glob.h) over "suite" and
 * "suite.case".  A glob marked with CASE_SELECTION_EXCLUDE takes what it
 * matches out: "*,-lib_*", or "-lib_*" alone (a list without an including
 * glob starts from everything), runs every suite but the lib_* ones.
 * Suites named selftest_* (the harness checking itself by failing on
 * purpose) and bench_* (measurements, make bench) run only when an
 * including pattern spells their prefix out: "*" alone never selects them.
 */

#define CASE_SELECTION_EXCLUDE '-'

#include <stdbool.h>
#include <lib/ktap_writer.h>

/**
 * case_selected - does the selection run case @case_name of suite @suite_name?
 * @tests: test= patterns; NULL or "" selects every suite but the
 *         selftest_* and bench_* ones; "-GLOB" ones exclude
 * @benchmarks: bench= patterns over the bench_* suites, matched with and
 *         without their "bench_" prefix; NULL or "" selects none
 *
 * With only @benchmarks given just the benchmarks they name run; with both,
 * the cases either selects.
 */
bool case_selected(const char *tests, const char *benchmarks, const char *suite_name,
		   const char *case_name);

/*
 * The longest glob of a selection (longer ones select nothing and are
 * skipped by the report below: the command line already refused them).
 */
#define CASE_SELECTION_GLOB_MAX 255

/**
 * case_selection_report_unmatched - every glob of @patterns (a test= or
 * bench= list, @key "test" or "bench") that selects no case on its own
 * (an excluding one: that would select none without its mark),
 * written with ktap_write_unmatched_pattern() - a typo beside a good
 * pattern is still a typo; returns how many there were
 * @selects_any: whether the one-glob selection @pattern runs any case (the
 *               runner knows its suites)
 */
unsigned int case_selection_report_unmatched(const struct ktap_writer *writer, const char *key,
					     const char *patterns,
					     bool (*selects_any)(const char *pattern, void *context),
					     void *context);

#endif
