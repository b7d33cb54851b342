/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_TEST_H
#define TRIGOS_TEST_H
/*
 * The test harness: KUnit-style declaration, KTAP v1 output.
 *
 * A test file declares its cases in a table and registers the table as a
 * suite; no central list needs editing:
 *
 *	static void adds_small_numbers(void)
 *	{
 *		EXPECT_EQ(2 + 2, 4);
 *		ASSERT_TRUE(some_pointer != NULL);	// ends the case if false
 *	}
 *
 *	static const struct test_case arithmetic_cases[] = {
 *		TEST_CASE(adds_small_numbers),
 *	};
 *	TEST_SUITE(arithmetic, arithmetic_cases, NULL, NULL);
 *
 * EXPECT_*() records a failure with file:line and both values and lets the
 * case go on; ASSERT_*() records it and ends the case at once.
 * test_skip("reason") ends the case as skipped.
 *
 * The same header serves two runners: the kernel's (kernel/harness/test.c, which also
 * turns a CPU exception inside a case into "not ok ... # ERROR") and the
 * host's (tests/host/runner.c, for the kernel/lib tests that `make check`
 * runs).  Suites are placed, as pointers, in a linker section; the kernel's
 * linker script sorts them by name, the host runner sorts them at run time.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <lib/expect_compare.h>

struct test_case {
	const char *name;
	void (*run)(void);
};

/**
 * struct test_suite - a named table of test cases
 * @name:	suite name, printed as the KTAP subtest name; no spaces or '#'
 * @cases:	the cases, run in table order
 * @case_count:	number of entries in @cases
 * @init:	run before each case; a non-zero return marks the case failed
 * @exit:	run after each case, also after a failed or aborted one
 */
struct test_suite {
	const char *name;
	const struct test_case *cases;
	size_t case_count;
	int (*init)(void);
	void (*exit)(void);
};

#define TEST_CASE(fn) { .name = #fn, .run = fn }

#ifdef TRIGOS_HOST_TEST
#define TEST_SUITE_SECTION(suite_name) "test_suites"
#else
/* linker.ld keeps and name-sorts .test_suites.* between the start/stop symbols */
#define TEST_SUITE_SECTION(suite_name) ".test_suites." #suite_name
#endif

#define TEST_SUITE(suite_name, case_table, init_fn, exit_fn)                    \
	static const struct test_suite test_suite_##suite_name = {             \
		.name = #suite_name,                                           \
		.cases = case_table,                                           \
		.case_count = sizeof(case_table) / sizeof((case_table)[0]),    \
		.init = init_fn,                                               \
		.exit = exit_fn,                                               \
	};                                                                     \
	static const struct test_suite *const test_suite_pointer_##suite_name  \
		__attribute__((used, section(TEST_SUITE_SECTION(suite_name)))) =  \
			&test_suite_##suite_name

/* --- Provided by the runner (kernel or host) ----------------------------- */

/** test_report_failure - record a failed expectation in the running case */
void test_report_failure(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/** test_abort_case - end the running case now (after a failed assertion) */
void test_abort_case(void) __attribute__((noreturn));

/** test_skip - end the running case, reporting it as skipped for @reason */
void test_skip(const char *reason) __attribute__((noreturn));

/** test_diag - print a KTAP diagnostic line "# <case>: <message>" */
void test_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/** test_random - next number of the run's pseudo-random stream (seed=N) */
uint64_t test_random(void);

/** test_current_case_name - name of the running case, or NULL outside one */
const char *test_current_case_name(void);

/* --- Expectations -------------------------------------------------------- */

/*
 * Each operand is evaluated exactly once.  Integers are compared by C's
 * usual arithmetic conversions (so EXPECT_EQ(size, 0) works without a
 * sign-compare warning; mind that -1 compares equal to an all-ones unsigned
 * value); values are shown in decimal and hex.
 */
#define TEST_CHECK_INT_(abort, a, op, b)                                        \
	do {                                                                   \
		__typeof__(a) test_left_ = (a);                                \
		__typeof__(b) test_right_ = (b);                               \
		bool test_holds_;                                              \
		/* Literals are int: let EXPECT_EQ(size, 0) compare as C does. */ \
		_Pragma("GCC diagnostic push")                                 \
		_Pragma("GCC diagnostic ignored \"-Wsign-compare\"")           \
		test_holds_ = test_left_ op test_right_;                       \
		_Pragma("GCC diagnostic pop")                                  \
		if (!test_holds_) {                                            \
			test_report_failure(__FILE__, __LINE__,                \
				"expected %s %s %s, but %s == %lld (0x%llx), " \
				"%s == %lld (0x%llx)",                         \
				#a, #op, #b,                                   \
				#a, (long long)test_left_,                     \
				(unsigned long long)test_left_,                \
				#b, (long long)test_right_,                    \
				(unsigned long long)test_right_);              \
			if (abort)                                             \
				test_abort_case();                             \
		}                                                              \
	} while (0)

#define TEST_CHECK_BOOL_(abort, condition, expected)                            \
	do {                                                                   \
		if ((bool)(condition) != (bool)(expected)) {                   \
			test_report_failure(__FILE__, __LINE__,                \
				"expected %s to be %s", #condition,            \
				(expected) ? "true" : "false");                \
			if (abort)                                             \
				test_abort_case();                             \
		}                                                              \
	} while (0)

#define TEST_CHECK_STR_(abort, a, op, b)                                        \
	do {                                                                   \
		const char *test_left_ = (a);                                  \
		const char *test_right_ = (b);                                 \
		if (!(expect_string_compare(test_left_, test_right_) op 0)) {  \
			test_report_failure(__FILE__, __LINE__,                \
				"expected %s %s %s, but %s == \"%s\", "        \
				"%s == \"%s\"", #a, #op, #b,                   \
				#a, test_left_ ? test_left_ : "(null)",        \
				#b, test_right_ ? test_right_ : "(null)");     \
			if (abort)                                             \
				test_abort_case();                             \
		}                                                              \
	} while (0)

#define TEST_CHECK_MEM_(abort, a, b, size)                                      \
	do {                                                                   \
		if (expect_memory_compare((a), (b), (size)) != 0) {            \
			test_report_failure(__FILE__, __LINE__,                \
				"expected the %zu bytes at %s and %s to be "   \
				"equal", (size_t)(size), #a, #b);              \
			if (abort)                                             \
				test_abort_case();                             \
		}                                                              \
	} while (0)

#define EXPECT_TRUE(c)		TEST_CHECK_BOOL_(false, c, true)
#define EXPECT_FALSE(c)		TEST_CHECK_BOOL_(false, c, false)
#define EXPECT_EQ(a, b)		TEST_CHECK_INT_(false, a, ==, b)
#define EXPECT_NE(a, b)		TEST_CHECK_INT_(false, a, !=, b)
#define EXPECT_LT(a, b)		TEST_CHECK_INT_(false, a, <, b)
#define EXPECT_LE(a, b)		TEST_CHECK_INT_(false, a, <=, b)
#define EXPECT_GT(a, b)		TEST_CHECK_INT_(false, a, >, b)
#define EXPECT_GE(a, b)		TEST_CHECK_INT_(false, a, >=, b)
#define EXPECT_NULL(p)		TEST_CHECK_BOOL_(false, (p) == NULL, true)
#define EXPECT_NOT_NULL(p)	TEST_CHECK_BOOL_(false, (p) != NULL, true)
#define EXPECT_STREQ(a, b)	TEST_CHECK_STR_(false, a, ==, b)
#define EXPECT_STRNE(a, b)	TEST_CHECK_STR_(false, a, !=, b)
#define EXPECT_MEMEQ(a, b, n)	TEST_CHECK_MEM_(false, a, b, n)

#define ASSERT_TRUE(c)		TEST_CHECK_BOOL_(true, c, true)
#define ASSERT_FALSE(c)		TEST_CHECK_BOOL_(true, c, false)
#define ASSERT_EQ(a, b)		TEST_CHECK_INT_(true, a, ==, b)
#define ASSERT_NE(a, b)		TEST_CHECK_INT_(true, a, !=, b)
#define ASSERT_LT(a, b)		TEST_CHECK_INT_(true, a, <, b)
#define ASSERT_LE(a, b)		TEST_CHECK_INT_(true, a, <=, b)
#define ASSERT_GT(a, b)		TEST_CHECK_INT_(true, a, >, b)
#define ASSERT_GE(a, b)		TEST_CHECK_INT_(true, a, >=, b)
#define ASSERT_NULL(p)		TEST_CHECK_BOOL_(true, (p) == NULL, true)
#define ASSERT_NOT_NULL(p)	TEST_CHECK_BOOL_(true, (p) != NULL, true)
#define ASSERT_STREQ(a, b)	TEST_CHECK_STR_(true, a, ==, b)
#define ASSERT_MEMEQ(a, b, n)	TEST_CHECK_MEM_(true, a, b, n)

#endif /* TRIGOS_TEST_H */
