/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_TEST_H
#define TRIGOS_TEST_H
/*
 * The test harness: KUnit-style declaration, KTAP v1 output.
 *
 * A test file declares its cases in a table and registers the table as a
 * suite; no central list needs editing (docs/writing-tests.md walks through
 * a whole suite):
 *
 *	static void adds_small_numbers(void)
 *	{
 *		EXPECT_EQ(2 + 2, 4);
 *		ASSERT_NOT_NULL(some_pointer);		// ends the case if NULL
 *		EXPECT_EQ_MSG(replies, sent, "cpu %u -> cpu %u", from, to);
 *	}
 *
 *	static const struct test_case arithmetic_cases[] = {
 *		TEST_CASE(adds_small_numbers),
 *		TEST_CASE_PARAM(works_on_each_backend, backend_params),
 *	};
 *	TEST_SUITE(arithmetic, arithmetic_cases, NULL, NULL);
 *
 * EXPECT_*() records a failure with file:line and every operand's value and
 * lets the case go on; ASSERT_*() records it and ends the case at once.  Each
 * has a _MSG form that adds a printf-style message (lib/format.h's
 * directives).  test_skip("format", ...) ends the case as skipped.
 *
 * On a helper CPU (work given with smp_run_on(), smp_run_on_async(),
 * cpu_test_run_everywhere()) while a case runs, an EXPECT is recorded for
 * the case ("(on cpu N)"); an ASSERT or test_skip() ends that CPU's part
 * only - its work slot completes, so the case's smp_wait_for() returns -
 * and marks the case failed or skipped (a failure wins); the run goes on.
 * A CPU exception there fails the case the same way.
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
#include <lib/expect_report.h>

/* Room for one parameter's description, its NUL included (KUnit's size). */
#define TEST_PARAM_DESCRIPTION_MAX 128

/**
 * struct test_case - one case of a suite
 * @name:	its name, printed in its result line; a C identifier
 * @run:	the case (NULL for a parameterized case)
 * @run_param:	a parameterized case, run once for each parameter
 * @generate_params: the parameters: called with NULL for the first, then with
 *		the last one it returned, it returns the next (NULL: no more)
 *		and writes its description (at most TEST_PARAM_DESCRIPTION_MAX
 *		bytes with the NUL).  It must give the same list each time it
 *		is walked: the runner walks it once to count, then to run.
 *
 * A parameterized case is printed as KUnit prints one: a nested subtest
 * named after the case, with one result per parameter ("ok 2 hlt"), then
 * the case's own result (not ok if any parameter failed).
 */
struct test_case {
	const char *name;
	void (*run)(void);
	void (*run_param)(const void *param);
	const void *(*generate_params)(const void *previous, char *description);
};

/**
 * struct test_suite - a named table of test cases
 * @name:	suite name, printed as the KTAP subtest name; no spaces or '#'
 * @cases:	the cases, run in table order
 * @case_count:	number of entries in @cases
 * @init:	run before each case (each parameter, each round of repeat=);
 *		a non-zero return marks that run failed
 * @exit:	run after each case, also after a failed or aborted one
 * @suite_init:	run once, before the suite's first selected case; a non-zero
 *		return fails every selected case without running it
 * @suite_exit:	run once after the last case, if @suite_init succeeded
 */
struct test_suite {
	const char *name;
	const struct test_case *cases;
	size_t case_count;
	int (*init)(void);
	void (*exit)(void);
	int (*suite_init)(void);
	void (*suite_exit)(void);
};

#define TEST_CASE(fn) { .name = #fn, .run = fn }
#define TEST_CASE_PARAM(fn, generator)                                         \
	{ .name = #fn, .run_param = fn, .generate_params = generator }

#ifdef TRIGOS_HOST_TEST
#define TEST_SUITE_SECTION(suite_name) "test_suites"
#else
/* linker.ld keeps and name-sorts .test_suites.* between the start/stop symbols */
#define TEST_SUITE_SECTION(suite_name) ".test_suites." #suite_name
#endif

/*
 * TEST_SUITE_ONCE: as TEST_SUITE, with KUnit's suite_init/suite_exit (run
 * once around all the suite's cases) besides init/exit (around each case).
 */
#define TEST_SUITE_ONCE(suite_name, case_table, suite_init_fn, suite_exit_fn, init_fn, exit_fn) \
	static const struct test_suite test_suite_##suite_name = {             \
		.name = #suite_name,                                           \
		.cases = case_table,                                           \
		.case_count = sizeof(case_table) / sizeof((case_table)[0]),    \
		.init = init_fn,                                               \
		.exit = exit_fn,                                               \
		.suite_init = suite_init_fn,                                   \
		.suite_exit = suite_exit_fn,                                   \
	};                                                                     \
	static const struct test_suite *const test_suite_pointer_##suite_name  \
		__attribute__((used, section(TEST_SUITE_SECTION(suite_name)))) = \
			&test_suite_##suite_name

#define TEST_SUITE(suite_name, case_table, init_fn, exit_fn)                   \
	TEST_SUITE_ONCE(suite_name, case_table, NULL, NULL, init_fn, exit_fn)

/* --- Provided by the runner (kernel or host) ----------------------------- */

/**
 * test_report_failure - record a failure in the running case: file:line and
 * the message, which may be of any length (long lines are continued)
 */
void test_report_failure(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/**
 * test_expectation_failed - record the failed check @expectation (the
 * macros below fill it) with the message @fmt (NULL: none); the caller
 * ends the case if it was an assertion
 */
void test_expectation_failed(const struct expectation *expectation, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/** test_abort_case - end the running case (or a helper CPU's part of it) now */
void test_abort_case(void) __attribute__((noreturn));

/**
 * test_skip - end the running case (or a helper CPU's part), reporting it
 * as skipped for the reason formatted from @fmt; a failure already recorded
 * (or recorded later on another CPU) wins
 */
void test_skip(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

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
 * value); each is shown in decimal, signed or not as its type is, and hex.
 * The _MSG forms take a printf format and its arguments after the operands;
 * the message is printed after the values.
 */
#define TEST_SIGNED_(x)                                                        \
	_Generic((x), bool: false, unsigned char: false, unsigned short: false, \
		 unsigned int: false, unsigned long: false,                    \
		 unsigned long long: false, default: true)

/* Report @expectation_ (with the message, if any) and end the case if it is an ASSERT. */
#define TEST_FAILED_(expectation_, ...)                                        \
	do {                                                                   \
		test_expectation_failed(&(expectation_), __VA_ARGS__);         \
		if ((expectation_).assertion)                                  \
			test_abort_case();                                     \
	} while (0)

#define TEST_CHECK_INT_(abort, a, compare, b, ...)                             \
	do {                                                                   \
		__typeof__(a) test_left_ = (a);                                \
		__typeof__(b) test_right_ = (b);                               \
		bool test_holds_;                                              \
		/* Literals are int: let EXPECT_EQ(size, 0) compare as C does. */ \
		_Pragma("GCC diagnostic push")                                 \
		_Pragma("GCC diagnostic ignored \"-Wsign-compare\"")           \
		test_holds_ = test_left_ compare test_right_;                  \
		_Pragma("GCC diagnostic pop")                                  \
		if (!test_holds_) {                                            \
			struct expectation test_e_ = {                         \
				.file = __FILE__, .line = __LINE__,            \
				.assertion = abort, .kind = EXPECT_KIND_INT,   \
				.op = #compare, .left_text = #a, .right_text = #b, \
				.left = (uint64_t)test_left_,                  \
				.right = (uint64_t)test_right_,                \
				.left_signed = TEST_SIGNED_(test_left_),       \
				.right_signed = TEST_SIGNED_(test_right_),     \
			};                                                     \
			TEST_FAILED_(test_e_, __VA_ARGS__);                    \
		}                                                              \
	} while (0)

#define TEST_CHECK_BOOL_(abort, condition, expected, ...)                      \
	do {                                                                   \
		if ((bool)(condition) != (expected)) {                         \
			struct expectation test_e_ = {                         \
				.file = __FILE__, .line = __LINE__,            \
				.assertion = abort, .kind = EXPECT_KIND_BOOL,  \
				.op = (expected) ? "true" : "false",           \
				.left_text = #condition,                       \
			};                                                     \
			TEST_FAILED_(test_e_, __VA_ARGS__);                    \
		}                                                              \
	} while (0)

#define TEST_CHECK_PTR_(abort, a, compare, b, b_text, ...)                     \
	do {                                                                   \
		const void *test_left_ = (a);                                  \
		const void *test_right_ = (b);                                 \
		if (!(test_left_ compare test_right_)) {                       \
			struct expectation test_e_ = {                         \
				.file = __FILE__, .line = __LINE__,            \
				.assertion = abort, .kind = EXPECT_KIND_PTR,   \
				.op = #compare, .left_text = #a,               \
				.right_text = b_text,                          \
				.left_pointer = test_left_,                    \
				.right_pointer = test_right_,                  \
			};                                                     \
			TEST_FAILED_(test_e_, __VA_ARGS__);                    \
		}                                                              \
	} while (0)

#define TEST_CHECK_STR_(abort, a, compare, b, ...)                             \
	do {                                                                   \
		const char *test_left_ = (a);                                  \
		const char *test_right_ = (b);                                 \
		if (!(expect_string_compare(test_left_, test_right_) compare 0)) { \
			struct expectation test_e_ = {                         \
				.file = __FILE__, .line = __LINE__,            \
				.assertion = abort, .kind = EXPECT_KIND_STR,   \
				.op = #compare, .left_text = #a, .right_text = #b, \
				.left_pointer = test_left_,                    \
				.right_pointer = test_right_,                  \
			};                                                     \
			TEST_FAILED_(test_e_, __VA_ARGS__);                    \
		}                                                              \
	} while (0)

#define TEST_CHECK_MEM_(abort, a, compare, b, n, ...)                          \
	do {                                                                   \
		const void *test_left_ = (a);                                  \
		const void *test_right_ = (b);                                 \
		size_t test_size_ = (n);                                       \
		if (!(expect_memory_compare(test_left_, test_right_,           \
					    test_size_) compare 0)) {          \
			struct expectation test_e_ = {                         \
				.file = __FILE__, .line = __LINE__,            \
				.assertion = abort, .kind = EXPECT_KIND_MEM,   \
				.op = #compare, .left_text = #a, .right_text = #b, \
				.left_pointer = test_left_,                    \
				.right_pointer = test_right_,                  \
				.size = test_size_,                            \
			};                                                     \
			TEST_FAILED_(test_e_, __VA_ARGS__);                    \
		}                                                              \
	} while (0)

/*
 * A failed check of three integer operands (IN_RANGE, NEAR): the record
 * expect_report prints, each operand as written (@l, @r, @x: the outer
 * macro's stringified arguments, before expansion) and as valued
 * (@lv, @rv, @xv), signed as its type is.
 */
#define TEST_FAILED_3_(abort, kind_, l, r, x, lv, rv, xv, ...)                 \
	do {                                                                   \
		struct expectation test_e_ = {                                 \
			.file = __FILE__, .line = __LINE__,                    \
			.assertion = abort, .kind = kind_,                     \
			.left_text = l, .right_text = r, .extra_text = x,      \
			.left = (uint64_t)(lv), .right = (uint64_t)(rv),       \
			.extra = (uint64_t)(xv),                               \
			.left_signed = TEST_SIGNED_(lv),                       \
			.right_signed = TEST_SIGNED_(rv),                      \
			.extra_signed = TEST_SIGNED_(xv),                      \
		};                                                             \
		TEST_FAILED_(test_e_, __VA_ARGS__);                            \
	} while (0)

/* low <= value <= high, each compared as C does (see TEST_CHECK_INT_). */
#define TEST_CHECK_RANGE_(abort, value, low, high, ...)                        \
	do {                                                                   \
		__typeof__(value) test_value_ = (value);                       \
		__typeof__(low) test_low_ = (low);                             \
		__typeof__(high) test_high_ = (high);                          \
		bool test_holds_;                                              \
		_Pragma("GCC diagnostic push")                                 \
		_Pragma("GCC diagnostic ignored \"-Wsign-compare\"")           \
		_Pragma("GCC diagnostic ignored \"-Wtype-limits\"")            \
		test_holds_ = test_low_ <= test_value_ && test_value_ <= test_high_; \
		_Pragma("GCC diagnostic pop")                                  \
		if (!test_holds_)                                              \
			TEST_FAILED_3_(abort, EXPECT_KIND_RANGE, #value, #low, #high, \
				       test_value_, test_low_, test_high_, __VA_ARGS__); \
	} while (0)

/*
 * |a - b| <= tolerance, for integers (a TSC within so many cycles of
 * another): the distance is taken as the larger minus the smaller, so it
 * cannot overflow for operands of one type.
 */
#define TEST_CHECK_NEAR_(abort, a, b, tolerance, ...)                          \
	do {                                                                   \
		__typeof__(a) test_left_ = (a);                                \
		__typeof__(b) test_right_ = (b);                               \
		__typeof__(tolerance) test_tolerance_ = (tolerance);           \
		unsigned long long test_distance_;                             \
		bool test_holds_;                                              \
		_Pragma("GCC diagnostic push")                                 \
		_Pragma("GCC diagnostic ignored \"-Wsign-compare\"")           \
		_Pragma("GCC diagnostic ignored \"-Wtype-limits\"")            \
		test_distance_ = test_left_ >= test_right_ ?                   \
			(unsigned long long)test_left_ - (unsigned long long)test_right_ : \
			(unsigned long long)test_right_ - (unsigned long long)test_left_; \
		test_holds_ = test_tolerance_ >= 0 &&                          \
			test_distance_ <= (unsigned long long)test_tolerance_; \
		_Pragma("GCC diagnostic pop")                                  \
		if (!test_holds_)                                              \
			TEST_FAILED_3_(abort, EXPECT_KIND_NEAR, #a, #b, #tolerance, \
				       test_left_, test_right_, test_tolerance_, __VA_ARGS__); \
	} while (0)

/* One line per check: the plain form (message NULL) and the _MSG form, EXPECT and ASSERT. */
#define EXPECT_TRUE(c)			TEST_CHECK_BOOL_(false, c, true, NULL)
#define EXPECT_FALSE(c)			TEST_CHECK_BOOL_(false, c, false, NULL)
#define EXPECT_EQ(a, b)			TEST_CHECK_INT_(false, a, ==, b, NULL)
#define EXPECT_NE(a, b)			TEST_CHECK_INT_(false, a, !=, b, NULL)
#define EXPECT_LT(a, b)			TEST_CHECK_INT_(false, a, <, b, NULL)
#define EXPECT_LE(a, b)			TEST_CHECK_INT_(false, a, <=, b, NULL)
#define EXPECT_GT(a, b)			TEST_CHECK_INT_(false, a, >, b, NULL)
#define EXPECT_GE(a, b)			TEST_CHECK_INT_(false, a, >=, b, NULL)
#define EXPECT_IN_RANGE(v, lo, hi)	TEST_CHECK_RANGE_(false, v, lo, hi, NULL)
#define EXPECT_NEAR(a, b, tol)		TEST_CHECK_NEAR_(false, a, b, tol, NULL)
#define EXPECT_PTR_EQ(a, b)		TEST_CHECK_PTR_(false, a, ==, b, #b, NULL)
#define EXPECT_PTR_NE(a, b)		TEST_CHECK_PTR_(false, a, !=, b, #b, NULL)
#define EXPECT_NULL(p)			TEST_CHECK_PTR_(false, p, ==, NULL, "NULL", NULL)
#define EXPECT_NOT_NULL(p)		TEST_CHECK_PTR_(false, p, !=, NULL, "NULL", NULL)
#define EXPECT_STREQ(a, b)		TEST_CHECK_STR_(false, a, ==, b, NULL)
#define EXPECT_STRNE(a, b)		TEST_CHECK_STR_(false, a, !=, b, NULL)
#define EXPECT_MEMEQ(a, b, n)		TEST_CHECK_MEM_(false, a, ==, b, n, NULL)
#define EXPECT_MEMNE(a, b, n)		TEST_CHECK_MEM_(false, a, !=, b, n, NULL)

#define EXPECT_TRUE_MSG(c, ...)		TEST_CHECK_BOOL_(false, c, true, __VA_ARGS__)
#define EXPECT_FALSE_MSG(c, ...)	TEST_CHECK_BOOL_(false, c, false, __VA_ARGS__)
#define EXPECT_EQ_MSG(a, b, ...)	TEST_CHECK_INT_(false, a, ==, b, __VA_ARGS__)
#define EXPECT_NE_MSG(a, b, ...)	TEST_CHECK_INT_(false, a, !=, b, __VA_ARGS__)
#define EXPECT_LT_MSG(a, b, ...)	TEST_CHECK_INT_(false, a, <, b, __VA_ARGS__)
#define EXPECT_LE_MSG(a, b, ...)	TEST_CHECK_INT_(false, a, <=, b, __VA_ARGS__)
#define EXPECT_GT_MSG(a, b, ...)	TEST_CHECK_INT_(false, a, >, b, __VA_ARGS__)
#define EXPECT_GE_MSG(a, b, ...)	TEST_CHECK_INT_(false, a, >=, b, __VA_ARGS__)
#define EXPECT_IN_RANGE_MSG(v, lo, hi, ...) TEST_CHECK_RANGE_(false, v, lo, hi, __VA_ARGS__)
#define EXPECT_NEAR_MSG(a, b, tol, ...)	TEST_CHECK_NEAR_(false, a, b, tol, __VA_ARGS__)
#define EXPECT_PTR_EQ_MSG(a, b, ...)	TEST_CHECK_PTR_(false, a, ==, b, #b, __VA_ARGS__)
#define EXPECT_PTR_NE_MSG(a, b, ...)	TEST_CHECK_PTR_(false, a, !=, b, #b, __VA_ARGS__)
#define EXPECT_NULL_MSG(p, ...)	TEST_CHECK_PTR_(false, p, ==, NULL, "NULL", __VA_ARGS__)
#define EXPECT_NOT_NULL_MSG(p, ...)	TEST_CHECK_PTR_(false, p, !=, NULL, "NULL", __VA_ARGS__)
#define EXPECT_STREQ_MSG(a, b, ...)	TEST_CHECK_STR_(false, a, ==, b, __VA_ARGS__)
#define EXPECT_STRNE_MSG(a, b, ...)	TEST_CHECK_STR_(false, a, !=, b, __VA_ARGS__)
#define EXPECT_MEMEQ_MSG(a, b, n, ...)	TEST_CHECK_MEM_(false, a, ==, b, n, __VA_ARGS__)
#define EXPECT_MEMNE_MSG(a, b, n, ...)	TEST_CHECK_MEM_(false, a, !=, b, n, __VA_ARGS__)

#define ASSERT_TRUE(c)			TEST_CHECK_BOOL_(true, c, true, NULL)
#define ASSERT_FALSE(c)			TEST_CHECK_BOOL_(true, c, false, NULL)
#define ASSERT_EQ(a, b)			TEST_CHECK_INT_(true, a, ==, b, NULL)
#define ASSERT_NE(a, b)			TEST_CHECK_INT_(true, a, !=, b, NULL)
#define ASSERT_LT(a, b)			TEST_CHECK_INT_(true, a, <, b, NULL)
#define ASSERT_LE(a, b)			TEST_CHECK_INT_(true, a, <=, b, NULL)
#define ASSERT_GT(a, b)			TEST_CHECK_INT_(true, a, >, b, NULL)
#define ASSERT_GE(a, b)			TEST_CHECK_INT_(true, a, >=, b, NULL)
#define ASSERT_IN_RANGE(v, lo, hi)	TEST_CHECK_RANGE_(true, v, lo, hi, NULL)
#define ASSERT_NEAR(a, b, tol)		TEST_CHECK_NEAR_(true, a, b, tol, NULL)
#define ASSERT_PTR_EQ(a, b)		TEST_CHECK_PTR_(true, a, ==, b, #b, NULL)
#define ASSERT_PTR_NE(a, b)		TEST_CHECK_PTR_(true, a, !=, b, #b, NULL)
#define ASSERT_NULL(p)			TEST_CHECK_PTR_(true, p, ==, NULL, "NULL", NULL)
#define ASSERT_NOT_NULL(p)		TEST_CHECK_PTR_(true, p, !=, NULL, "NULL", NULL)
#define ASSERT_STREQ(a, b)		TEST_CHECK_STR_(true, a, ==, b, NULL)
#define ASSERT_STRNE(a, b)		TEST_CHECK_STR_(true, a, !=, b, NULL)
#define ASSERT_MEMEQ(a, b, n)		TEST_CHECK_MEM_(true, a, ==, b, n, NULL)
#define ASSERT_MEMNE(a, b, n)		TEST_CHECK_MEM_(true, a, !=, b, n, NULL)

#define ASSERT_TRUE_MSG(c, ...)		TEST_CHECK_BOOL_(true, c, true, __VA_ARGS__)
#define ASSERT_FALSE_MSG(c, ...)	TEST_CHECK_BOOL_(true, c, false, __VA_ARGS__)
#define ASSERT_EQ_MSG(a, b, ...)	TEST_CHECK_INT_(true, a, ==, b, __VA_ARGS__)
#define ASSERT_NE_MSG(a, b, ...)	TEST_CHECK_INT_(true, a, !=, b, __VA_ARGS__)
#define ASSERT_LT_MSG(a, b, ...)	TEST_CHECK_INT_(true, a, <, b, __VA_ARGS__)
#define ASSERT_LE_MSG(a, b, ...)	TEST_CHECK_INT_(true, a, <=, b, __VA_ARGS__)
#define ASSERT_GT_MSG(a, b, ...)	TEST_CHECK_INT_(true, a, >, b, __VA_ARGS__)
#define ASSERT_GE_MSG(a, b, ...)	TEST_CHECK_INT_(true, a, >=, b, __VA_ARGS__)
#define ASSERT_IN_RANGE_MSG(v, lo, hi, ...) TEST_CHECK_RANGE_(true, v, lo, hi, __VA_ARGS__)
#define ASSERT_NEAR_MSG(a, b, tol, ...)	TEST_CHECK_NEAR_(true, a, b, tol, __VA_ARGS__)
#define ASSERT_PTR_EQ_MSG(a, b, ...)	TEST_CHECK_PTR_(true, a, ==, b, #b, __VA_ARGS__)
#define ASSERT_PTR_NE_MSG(a, b, ...)	TEST_CHECK_PTR_(true, a, !=, b, #b, __VA_ARGS__)
#define ASSERT_NULL_MSG(p, ...)	TEST_CHECK_PTR_(true, p, ==, NULL, "NULL", __VA_ARGS__)
#define ASSERT_NOT_NULL_MSG(p, ...)	TEST_CHECK_PTR_(true, p, !=, NULL, "NULL", __VA_ARGS__)
#define ASSERT_STREQ_MSG(a, b, ...)	TEST_CHECK_STR_(true, a, ==, b, __VA_ARGS__)
#define ASSERT_STRNE_MSG(a, b, ...)	TEST_CHECK_STR_(true, a, !=, b, __VA_ARGS__)
#define ASSERT_MEMEQ_MSG(a, b, n, ...)	TEST_CHECK_MEM_(true, a, ==, b, n, __VA_ARGS__)
#define ASSERT_MEMNE_MSG(a, b, n, ...)	TEST_CHECK_MEM_(true, a, !=, b, n, __VA_ARGS__)

#endif /* TRIGOS_TEST_H */
