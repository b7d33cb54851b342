// SPDX-License-Identifier: MIT
/*
 * Host runner for the kernel/lib tests (`make check`).
 *
 * It runs the same suites the kernel runs, from the same tests/lib/ files and
 * test.h macros, so a kernel/lib bug is caught on the host in milliseconds
 * and again inside the kernel on the real target.  Output is KTAP v1 like the
 * kernel's, followed by the plain closing line "N passed, N failed, N skipped".
 *
 * Usage: unit-tests [GLOB]   (GLOB matches "suite" or "suite.case")
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <trigos/test.h>
#include <lib/glob.h>
#include <lib/random.h>
#include <lib/verdict.h>

extern const struct test_suite *const __start_test_suites[];
extern const struct test_suite *const __stop_test_suites[];

enum case_outcome { CASE_PASS, CASE_FAIL, CASE_SKIP };

static jmp_buf case_exit;
static const char *running_case;
static unsigned int running_case_failures;
static char skip_reason[256];
static struct random_state random_stream;

void test_report_failure(const char *file, int line, const char *fmt, ...)
{
	va_list args;

	running_case_failures++;
	printf("    # %s: EXPECTATION FAILED at %s:%d\n", running_case, file, line);
	printf("    # %s: ", running_case);
	va_start(args, fmt);
	vprintf(fmt, args);
	va_end(args);
	printf("\n");
}

void test_abort_case(void)
{
	longjmp(case_exit, 1);
}

void test_skip(const char *reason)
{
	snprintf(skip_reason, sizeof(skip_reason), "%s", reason);
	longjmp(case_exit, 2);
}

void test_diag(const char *fmt, ...)
{
	va_list args;

	printf("    # %s: ", running_case ? running_case : "-");
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

int test_string_compare_(const char *left, const char *right)
{
	if (!left || !right)
		return left == right ? 0 : (left ? 1 : -1);
	return strcmp(left, right);
}

int test_memory_compare_(const void *left, const void *right, size_t size)
{
	return memcmp(left, right, size);
}

static int by_name(const void *a, const void *b)
{
	const struct test_suite *const *left = a, *const *right = b;

	return strcmp((*left)->name, (*right)->name);
}

static enum case_outcome run_case(const struct test_suite *suite, const struct test_case *test_case)
{
	volatile enum case_outcome outcome = CASE_PASS;
	int jumped;

	running_case = test_case->name;
	running_case_failures = 0;
	skip_reason[0] = '\0';
	if (suite->init && suite->init() != 0) {
		printf("    # %s: suite init failed\n", test_case->name);
		running_case = NULL;
		return CASE_FAIL;
	}
	jumped = setjmp(case_exit);
	if (jumped == 0)
		test_case->run();
	else if (jumped == 2)
		outcome = CASE_SKIP;
	if (suite->exit)
		suite->exit();
	if (running_case_failures)
		outcome = CASE_FAIL;
	running_case = NULL;
	return outcome;
}

static bool case_selected(const char *glob, const struct test_suite *suite, const struct test_case *test_case)
{
	char full_name[256];

	if (!glob)
		return true;
	snprintf(full_name, sizeof(full_name), "%s.%s", suite->name, test_case->name);
	return glob_match_list(glob, suite->name) || glob_match_list(glob, full_name);
}

int main(int argc, char **argv)
{
	const char *glob = argc > 1 ? argv[1] : NULL;
	size_t suite_count = (size_t)(__stop_test_suites - __start_test_suites);
	const struct test_suite **suites = calloc(suite_count + 1, sizeof(*suites));
	unsigned int passed = 0, failed = 0, skipped = 0;
	size_t selected_suites = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	random_seed(&random_stream, 1);
	memcpy(suites, __start_test_suites, suite_count * sizeof(*suites));
	qsort(suites, suite_count, sizeof(*suites), by_name);

	for (size_t s = 0; s < suite_count; s++) {
		for (size_t c = 0; c < suites[s]->case_count; c++) {
			if (case_selected(glob, suites[s], &suites[s]->cases[c])) {
				suites[selected_suites++] = suites[s];
				break;
			}
		}
	}

	printf("KTAP version 1\n1..%zu\n", selected_suites);
	for (size_t s = 0; s < selected_suites; s++) {
		const struct test_suite *suite = suites[s];
		unsigned int suite_counts[3] = { 0, 0, 0 };
		unsigned int number = 0;
		size_t plan = 0;

		for (size_t c = 0; c < suite->case_count; c++)
			plan += case_selected(glob, suite, &suite->cases[c]);
		printf("    KTAP version 1\n    # Subtest: %s\n    1..%zu\n", suite->name, plan);
		for (size_t c = 0; c < suite->case_count; c++) {
			const struct test_case *test_case = &suite->cases[c];
			enum case_outcome outcome;

			if (!case_selected(glob, suite, test_case))
				continue;
			outcome = run_case(suite, test_case);
			suite_counts[outcome]++;
			number++;
			if (outcome == CASE_SKIP)
				printf("    ok %u %s # SKIP %s\n", number, test_case->name, skip_reason);
			else
				printf("    %s %u %s\n", outcome == CASE_PASS ? "ok" : "not ok", number,
				       test_case->name);
		}
		printf("    # %s: pass:%u fail:%u skip:%u total:%u\n", suite->name,
		       suite_counts[CASE_PASS], suite_counts[CASE_FAIL], suite_counts[CASE_SKIP], number);
		if (suite_counts[CASE_FAIL])
			printf("not ok %zu %s\n", s + 1, suite->name);
		else if (suite_counts[CASE_PASS] == 0)
			printf("ok %zu %s # SKIP all cases skipped\n", s + 1, suite->name);
		else
			printf("ok %zu %s\n", s + 1, suite->name);
		passed += suite_counts[CASE_PASS];
		failed += suite_counts[CASE_FAIL];
		skipped += suite_counts[CASE_SKIP];
	}
	printf("# Totals: pass:%u fail:%u skip:%u total:%u\n", passed, failed, skipped,
	       passed + failed + skipped);
	printf("%u passed, %u failed, %u skipped\n", passed, failed, skipped);
	printf(VERDICT_RESULT_PREFIX "%s\n", verdict_result_word(failed ? VERDICT_FAIL : VERDICT_PASS));
	free(suites);
	return failed ? 1 : 0;
}
