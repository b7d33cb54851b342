// SPDX-License-Identifier: MIT
/*
 * Host runner for the kernel/lib tests (`make check`).
 *
 * It runs the same suites the kernel runs, from the same tests/lib/ files and
 * test.h macros, so a kernel/lib bug is caught on the host in milliseconds
 * and again inside the kernel on the real target.  Output is KTAP v1 like the
 * kernel's, followed by the plain closing line "N passed, N failed, N skipped".
 *
 * Usage: unit-tests [GLOBS]   (comma-separated, as test=: each matches "suite" or
 * "suite.case"; the run fails, as the kernel's does, if a glob matches no case)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <harness/test.h>
#include <lib/case_selection.h>
#include <lib/expect_report.h>
#include <lib/ktap_writer.h>
#include <lib/random.h>
#include <lib/verdict.h>

extern const struct test_suite *const __start_test_suites[];
extern const struct test_suite *const __stop_test_suites[];

static jmp_buf case_exit;
static const char *running_case;
static bool running_param;	/* a parameter's lines are one level deeper */
static unsigned int running_case_failures;
static char skip_reason[256];
static struct random_state random_stream;

static const char *indent(void)
{
	return running_param ? "        " : "    ";
}

static void print_line(void *context, const char *line)
{
	fputs(line, stdout);
}

/* The lines of lib/expect_report.h, as the kernel's runner prints them. */
static void report_failure(const struct expectation *expectation, const char *fmt, va_list args)
{
	struct expect_report report;
	char prefix[EXPECT_REPORT_PREFIX_MAX];

	running_case_failures++;
	snprintf(prefix, sizeof(prefix), "%s# %s: ", indent(), running_case ? running_case : "-");
	expect_report_begin(&report, print_line, NULL, prefix);
	expect_report_failure(&report, expectation, NULL, fmt, args);
	expect_report_end_line(&report);
}

void test_report_failure(const char *file, int line, const char *fmt, ...)
{
	struct expectation expectation = { .file = file, .line = line, .kind = EXPECT_KIND_NONE };
	va_list args;

	va_start(args, fmt);
	report_failure(&expectation, fmt, args);
	va_end(args);
}

void test_expectation_failed(const struct expectation *expectation, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	report_failure(expectation, fmt, args);
	va_end(args);
}

void test_abort_case(void)
{
	longjmp(case_exit, 1);
}

void test_skip(const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	vsnprintf(skip_reason, sizeof(skip_reason), fmt, args);
	va_end(args);
	longjmp(case_exit, 2);
}

void test_diag(const char *fmt, ...)
{
	va_list args;

	printf("%s# %s: ", indent(), running_case ? running_case : "-");
	va_start(args, fmt);
	vprintf(fmt, args);
	va_end(args);
	printf("\n");
}

uint64_t test_random(void)
{
	return random_next(&random_stream);
}

const char *test_current_case_name(void)
{
	return running_case;
}

static int by_name(const void *a, const void *b)
{
	const struct test_suite *const *left = a, *const *right = b;

	return strcmp((*left)->name, (*right)->name);
}

/* One run of @test_case (with @param, if it has parameters), init and exit around it. */
static enum ktap_outcome run_once(const struct test_suite *suite, const struct test_case *test_case,
				  const void *param)
{
	volatile enum ktap_outcome outcome = KTAP_PASS;
	int jumped;

	running_case_failures = 0;
	skip_reason[0] = '\0';
	if (suite->init && suite->init() != 0) {
		printf("%s# %s: suite init failed\n", indent(), test_case->name);
		return KTAP_FAIL;
	}
	jumped = setjmp(case_exit);
	if (jumped == 0) {
		if (test_case->generate_params)
			test_case->run_param(param);
		else
			test_case->run();
	} else if (jumped == 2) {
		outcome = KTAP_SKIP;
	}
	if (suite->exit)
		suite->exit();
	if (running_case_failures)
		outcome = KTAP_FAIL;
	return outcome;
}

static void print_on_stdout(void *context, const char *text)
{
	fputs(text, stdout);
}

static const struct ktap_writer ktap_stdout = { .print = print_on_stdout };

/*
 * Runs @test_case, adding what it counts (one result, or one per parameter)
 * to @counts; returns the outcome of its own result line.
 */
static enum ktap_outcome run_case(const struct test_suite *suite, const struct test_case *test_case,
				  struct ktap_counts *counts)
{
	struct ktap_counts params = { 0, 0, 0 };
	char description[TEST_PARAM_DESCRIPTION_MAX];
	enum ktap_outcome outcome;
	unsigned int number = 0;
	size_t plan = 0;

	running_case = test_case->name;
	if (!test_case->generate_params) {
		outcome = run_once(suite, test_case, NULL);
		ktap_count(counts, outcome);
		running_case = NULL;
		return outcome;
	}
	for (const void *param = test_case->generate_params(NULL, description); param;
	     param = test_case->generate_params(param, description))
		plan++;
	ktap_write_params_begin(&ktap_stdout, test_case->name, plan);
	running_param = true;
	for (const void *param = test_case->generate_params(NULL, description); param;
	     param = test_case->generate_params(param, description)) {
		char shown[TEST_PARAM_DESCRIPTION_MAX];

		snprintf(shown, sizeof(shown), "%s", description);
		outcome = run_once(suite, test_case, param);
		ktap_count(&params, outcome);
		ktap_write_param(&ktap_stdout, ++number, shown, outcome, skip_reason);
	}
	running_param = false;
	ktap_write_suite_totals(&ktap_stdout, test_case->name, &params);
	ktap_counts_add(counts, &params);
	snprintf(skip_reason, sizeof(skip_reason), "all its parameters were skipped");
	running_case = NULL;
	return ktap_params_outcome(&params);
}

static bool selected(const char *glob, const struct test_suite *suite,
		     const struct test_case *test_case)
{
	return case_selected(glob, NULL, suite->name, test_case->name);
}

/* case_selection_report_unmatched()'s question, over this runner's suites. */
static bool glob_selects_any_case(const char *pattern, void *unused)
{
	for (const struct test_suite *const *suite = __start_test_suites;
	     suite < __stop_test_suites; suite++) {
		for (size_t c = 0; c < (*suite)->case_count; c++) {
			if (selected(pattern, *suite, &(*suite)->cases[c]))
				return true;
		}
	}
	return false;
}

int main(int argc, char **argv)
{
	const char *glob = argc > 1 ? argv[1] : NULL;
	size_t suite_count = (size_t)(__stop_test_suites - __start_test_suites);
	const struct test_suite **suites = calloc(suite_count + 1, sizeof(*suites));
	struct ktap_counts totals = { 0, 0, 0 };
	unsigned int selected_suites = 0, unmatched;
	enum verdict verdict;

	setvbuf(stdout, NULL, _IOLBF, 0);
	random_seed(&random_stream, 1);
	memcpy(suites, __start_test_suites, suite_count * sizeof(*suites));
	qsort(suites, suite_count, sizeof(*suites), by_name);

	for (size_t s = 0; s < suite_count; s++) {
		for (size_t c = 0; c < suites[s]->case_count; c++) {
			if (selected(glob, suites[s], &suites[s]->cases[c])) {
				suites[selected_suites++] = suites[s];
				break;
			}
		}
	}

	ktap_write_header(&ktap_stdout, selected_suites);
	for (unsigned int s = 0; s < selected_suites; s++) {
		const struct test_suite *suite = suites[s];
		struct ktap_counts counts = { 0, 0, 0 };
		unsigned int number = 0;
		size_t plan = 0;

		for (size_t c = 0; c < suite->case_count; c++)
			plan += selected(glob, suite, &suite->cases[c]);
		int suite_init_result = 0;

		ktap_write_suite_begin(&ktap_stdout, suite->name, plan);
		if (suite->suite_init)
			suite_init_result = suite->suite_init();
		for (size_t c = 0; c < suite->case_count; c++) {
			const struct test_case *test_case = &suite->cases[c];
			enum ktap_outcome outcome;

			if (!selected(glob, suite, test_case))
				continue;
			if (suite_init_result) {
				printf("    # %s: not run: the suite's suite_init failed (%d)\n",
				       test_case->name, suite_init_result);
				outcome = KTAP_FAIL;
				ktap_count(&counts, outcome);
			} else {
				outcome = run_case(suite, test_case, &counts);
			}
			ktap_write_case(&ktap_stdout, ++number, test_case->name, outcome,
					skip_reason);
		}
		if (suite->suite_exit && !suite_init_result)
			suite->suite_exit();
		ktap_write_suite_totals(&ktap_stdout, suite->name, &counts);
		ktap_write_suite_end(&ktap_stdout, s + 1, suite->name, &counts);
		ktap_counts_add(&totals, &counts);
	}
	unmatched = case_selection_report_unmatched(&ktap_stdout, "test", glob,
						    glob_selects_any_case, NULL);
	verdict = verdict_of_run(totals.passed, totals.failed, selected_suites, unmatched);
	if (selected_suites == 0)
		ktap_write_nothing_matched(&ktap_stdout, glob, NULL);
	ktap_write_totals(&ktap_stdout, &totals);
	printf("%u passed, %u failed, %u skipped\n", totals.passed, totals.failed, totals.skipped);
	ktap_write_result(&ktap_stdout, verdict);
	free(suites);
	return verdict == VERDICT_FAIL ? 1 : 0;
}
