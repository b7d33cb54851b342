/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_LIB_KTAP_WRITER_H
#define TRIGOS_LIB_KTAP_WRITER_H
/*
 * The KTAP v1 lines of a test run (docs/ktap.md), the one place they are
 * spelled: the kernel's runner (kernel/harness/test.c) and the host runner
 * of make check (tests/host/runner.c) both write through it, each with its
 * own print callback (the console, stdout).  Diagnostics inside a case
 * ("    # case: ...") are the runners' own; everything a KTAP parser counts
 * is here.
 *
 *	KTAP version 1				ktap_write_header()
 *	1..N
 *	    KTAP version 1			ktap_write_suite_begin()
 *	    # Subtest: SUITE
 *	    1..M
 *	    ok 1 CASE				ktap_write_case()
 *	    ok 2 CASE # SKIP REASON
 *	    not ok 3 CASE # ERROR #PF page fault
 *	        KTAP version 1			ktap_write_params_begin(): a parameterized case
 *	        # Subtest: CASE
 *	        1..P
 *	        ok 1 PARAM DESCRIPTION		ktap_write_param()
 *	    # CASE: pass:P fail:F skip:S total:T	ktap_write_suite_totals() with the case's name
 *	    ok 4 CASE				ktap_write_case() (ktap_params_outcome())
 *	    # SUITE: pass:P fail:F skip:S total:T	ktap_write_suite_totals()
 *	ok 1 SUITE				ktap_write_suite_end()
 *	# test=GLOB: no suite or case matches this pattern	ktap_write_unmatched_pattern()
 *	# no test case matched test=GLOB: ...	ktap_write_nothing_matched()
 *	# Totals: pass:P fail:F skip:S total:T	ktap_write_totals()
 *	# RESULT: PASS				ktap_write_result()
 */

#include <stdbool.h>
#include <stddef.h>
#include <lib/verdict.h>

/**
 * struct ktap_writer - where the lines go
 * @print: called once per line with the line's text, its newline included
 * @context: passed to @print as it is
 */
struct ktap_writer {
	void (*print)(void *context, const char *text);
	void *context;
};

/* How one case ended, and the directive its result line carries. */
enum ktap_outcome {
	KTAP_PASS,	/* ok N name */
	KTAP_FAIL,	/* not ok N name */
	KTAP_SKIP,	/* ok N name # SKIP <reason> */
	KTAP_ERROR,	/* not ok N name # ERROR <what>: a CPU exception in the case */
	KTAP_TIMEOUT,	/* not ok N name # TIMEOUT <what>: the watchdog ended it */
};

/* A tally of case results: a suite's, or a run's. */
struct ktap_counts {
	unsigned int passed, failed, skipped;
};

/** ktap_count - add one case that ended with @outcome to @counts */
void ktap_count(struct ktap_counts *counts, enum ktap_outcome outcome);

/** ktap_counts_add - add @more into @counts */
void ktap_counts_add(struct ktap_counts *counts, const struct ktap_counts *more);

/** ktap_counts_total - passed + failed + skipped */
unsigned int ktap_counts_total(const struct ktap_counts *counts);

/** ktap_write_header - "KTAP version 1" and the plan "1..@suite_count" */
void ktap_write_header(const struct ktap_writer *writer, unsigned int suite_count);

/** ktap_write_suite_begin - a suite's nested header: version, "# Subtest: @name", plan */
void ktap_write_suite_begin(const struct ktap_writer *writer, const char *name, size_t plan);

/**
 * ktap_write_case - one case's result line
 * @number: the case's number within its suite, from 1
 * @name: the case's name
 * @outcome: how it ended
 * @detail: the directive's text for KTAP_SKIP, KTAP_ERROR and KTAP_TIMEOUT
 *          (NULL: empty); unused for KTAP_PASS and KTAP_FAIL
 */
void ktap_write_case(const struct ktap_writer *writer, unsigned int number, const char *name,
		     enum ktap_outcome outcome, const char *detail);

/**
 * ktap_write_params_begin - a parameterized case's nested header, as KUnit
 * prints it: version, "# Subtest: @case_name", the plan (@plan parameters),
 * one level deeper than the cases
 */
void ktap_write_params_begin(const struct ktap_writer *writer, const char *case_name, size_t plan);

/**
 * ktap_write_param - one parameter's result line, "ok N @description",
 * with @outcome and @detail as for ktap_write_case(); a '#' of @description
 * is printed '_' and a line break ' ', so that the line stays one result
 */
void ktap_write_param(const struct ktap_writer *writer, unsigned int number,
		      const char *description, enum ktap_outcome outcome, const char *detail);

/**
 * ktap_params_outcome - a parameterized case's own result from its
 * parameters' @counts: failed if one failed, else passed if one passed,
 * else skipped
 */
enum ktap_outcome ktap_params_outcome(const struct ktap_counts *counts);

/** ktap_write_suite_totals - "    # @name: pass:P fail:F skip:S total:T" */
void ktap_write_suite_totals(const struct ktap_writer *writer, const char *name,
			     const struct ktap_counts *counts);

/**
 * ktap_write_suite_end - the suite's result line at the top level: not ok
 * if a case failed, else "# SKIP" if none passed, else ok
 */
void ktap_write_suite_end(const struct ktap_writer *writer, unsigned int number, const char *name,
			  const struct ktap_counts *counts);

/**
 * ktap_write_unmatched_pattern - "# KEY=PATTERN: no suite or case matches
 * this pattern", for one glob (@length bytes of @pattern) of a selection
 * (@key "test" or "bench") that selects no case: the run then fails
 */
void ktap_write_unmatched_pattern(const struct ktap_writer *writer, const char *key,
				  const char *pattern, size_t length);

/**
 * ktap_write_nothing_matched - the line saying the selection (@tests,
 * @benchmarks: NULL or "" for none) ran no case at all: the run then fails
 */
void ktap_write_nothing_matched(const struct ktap_writer *writer, const char *tests,
				const char *benchmarks);

/** ktap_write_totals - "# Totals: pass:P fail:F skip:S total:T" */
void ktap_write_totals(const struct ktap_writer *writer, const struct ktap_counts *counts);

/** ktap_write_result - "# RESULT: <word>" (verdict.h), a run's last line */
void ktap_write_result(const struct ktap_writer *writer, enum verdict verdict);

#endif
