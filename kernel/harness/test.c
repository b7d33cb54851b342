// SPDX-License-Identifier: MIT
/*
 * The kernel's test runner.
 *
 * Suites come from the .test_suites.* linker section (test.h), sorted by
 * name in linker.ld.  Each case runs inside a fault-recovery context
 * (recovery.h): a failed ASSERT or test_skip() throws back to the runner, and
 * a CPU exception in the case is dumped as diagnostics and reported as
 * "not ok N case # ERROR <exception>"; either way the run goes on with the
 * next case.  Output is KTAP v1 as docs/ktap.md shows it.
 */
#include <trigos/console.h>
#include <trigos/cpu.h>
#include <trigos/ipi_evidence.h>
#include <asm/interrupts.h>
#include <trigos/ktap.h>
#include <trigos/panic.h>
#include <trigos/recovery.h>
#include <trigos/test.h>
#include <trigos/test_runner.h>
#include <trigos/trigger_backend.h>
#include <trigos/watchdog.h>
#include <lib/format.h>
#include <lib/case_selection.h>
#include <lib/random.h>
#include <lib/string.h>
#include <trigos/options.h>
#include <asm/entropy.h>

extern const struct test_suite *const __start_test_suites[];
extern const struct test_suite *const __stop_test_suites[];

#define THROW_ASSERT	(RECOVERY_THROW_BASE + 0)
#define THROW_SKIP	(RECOVERY_THROW_BASE + 1)

/* The one running case, shared by every CPU (cases may use several). */
static struct {
	const struct test_suite *suite;
	const struct test_case *test_case;
	unsigned int runner_cpu;
	struct recovery_context *context;
	unsigned int failures;
	char skip_reason[128];
	struct random_state random;
} running;

static const char *selection;		/* test= */
static const char *bench_selection;	/* bench= */

/* Does this run's test= and bench= select @test_case of @suite? (lib/case_selection.h) */
static bool case_selected_now(const struct test_suite *suite, const struct test_case *test_case)
{
	return case_selected(selection, bench_selection, suite->name, test_case->name);
}

static size_t selected_case_count(const struct test_suite *suite)
{
	size_t count = 0;

	for (size_t c = 0; c < suite->case_count; c++)
		count += case_selected_now(suite, &suite->cases[c]);
	return count;
}

/* Does the one-pattern selection test=@tests bench=@benchmarks run any case at all? */
static bool selects_any_case(const char *tests, const char *benchmarks)
{
	for (const struct test_suite *const *suite = __start_test_suites;
	     suite < __stop_test_suites; suite++) {
		for (size_t c = 0; c < (*suite)->case_count; c++) {
			if (case_selected(tests, benchmarks, (*suite)->name, (*suite)->cases[c].name))
				return true;
		}
	}
	return false;
}

/* case_selection_report_unmatched()'s question, for test= (@benchmarks NULL) or bench=. */
static bool glob_selects_any_case(const char *pattern, void *benchmarks)
{
	return benchmarks ? selects_any_case("", pattern) : selects_any_case(pattern, "");
}

unsigned int test_select(const char *tests, const char *benchmarks)
{
	unsigned int suites = 0;

	selection = tests;
	bench_selection = benchmarks;
	for (const struct test_suite *const *suite = __start_test_suites;
	     suite < __stop_test_suites; suite++)
		suites += selected_case_count(*suite) > 0;
	return suites;
}

/* --- Options: what to run, how often, how long ------------------------- */

#define REPEAT_MAX 100000

static bool parse_test(const struct cmdline_word *word, const char **error)
{
	return option_parse_glob_list(word, error, kernel_options.test, sizeof(kernel_options.test));
}
KERNEL_OPTION(test, "a glob list, e.g. lib_*,paging", parse_test);

static bool parse_bench(const struct cmdline_word *word, const char **error)
{
	return option_parse_glob_list(word, error, kernel_options.bench,
				      sizeof(kernel_options.bench));
}
KERNEL_OPTION(bench, "a glob list of benchmarks, e.g. trigger*,ipi", parse_bench);

static bool parse_seed(const struct cmdline_word *word, const char **error)
{
	uint64_t seed;
	int result = parse_u64(word->value, word->value_length, &seed);

	if (!word->has_value || result != 0) {
		*error = parse_error_message(word->has_value ? result : PARSE_ERROR_EMPTY);
		return false;
	}
	kernel_options.seed = seed;
	kernel_options.seed_given = true;
	return true;
}
KERNEL_OPTION(seed, "a number", parse_seed);

void test_choose_seed(void)
{
	if (!kernel_options.seed_given)
		kernel_options.seed = arch_entropy() % 1000000;
	ktap_note("seed=%llu (%s; pass seed=%llu to reproduce this run)",
		  (unsigned long long)kernel_options.seed,
		  kernel_options.seed_given ? "given" : "from the TSC",
		  (unsigned long long)kernel_options.seed);
}

static bool parse_repeat(const struct cmdline_word *word, const char **error)
{
	return option_parse_number(word, error, 1, REPEAT_MAX, &kernel_options.repeat);
}
KERNEL_OPTION(repeat, "1..100000", parse_repeat);

static bool parse_torture(const struct cmdline_word *word, const char **error)
{
	static const char *const lengths[] = { "quick", "long" };
	int length = cmdline_value_index(word, lengths, 2);

	if (length < 0)
		return false;
	kernel_options.torture_long = length == 1;
	return true;
}
KERNEL_OPTION(torture, "quick or long", parse_torture);

/* --- What test.h promises ------------------------------------------------ */

void test_report_failure(const char *file, int line, const char *format, ...)
{
	char message[CONSOLE_LINE_MAX - 64];
	const char *name = running.test_case ? running.test_case->name : "-";
	va_list args;

	__atomic_fetch_add(&running.failures, 1, __ATOMIC_RELAXED);
	va_start(args, format);
	vsnprintf(message, sizeof(message), format, args);
	va_end(args);
	kprintf("    # %s: EXPECTATION FAILED at %s:%d%s\n    # %s: %s\n", name, file, line,
		cpu_id() != running.runner_cpu ? " (on another CPU)" : "", name, message);
}

static void __attribute__((noreturn)) throw_to_runner(long code)
{
	struct recovery_context *context = this_cpu()->recovery;

	if (cpu_id() == running.runner_cpu && running.context)
		recovery_throw(running.context, code);
	/*
	 * On a helper CPU the runner's context belongs to another stack: end
	 * whatever this CPU was asked to run, through its own innermost context.
	 */
	if (context)
		recovery_throw(context, code);
	panic("a test assertion failed on cpu %u outside any recovery context", cpu_id());
}

void test_abort_case(void)
{
	throw_to_runner(THROW_ASSERT);
}

void test_skip(const char *reason)
{
	snprintf(running.skip_reason, sizeof(running.skip_reason), "%s", reason);
	throw_to_runner(THROW_SKIP);
}

void test_diag(const char *format, ...)
{
	char message[CONSOLE_LINE_MAX - 64];
	va_list args;

	va_start(args, format);
	vsnprintf(message, sizeof(message), format, args);
	va_end(args);
	kprintf("    # %s: %s\n", running.test_case ? running.test_case->name : "-", message);
}

uint64_t test_random(void)
{
	return random_next(&running.random);
}

const char *test_current_case_name(void)
{
	return running.test_case ? running.test_case->name : NULL;
}

/* --- Running ------------------------------------------------------------- */

/* FNV-1a: each case gets its own stream, the same whatever else is selected. */
static uint64_t name_hash(uint64_t hash, const char *name)
{
	for (; *name; name++)
		hash = (hash ^ (uint8_t)*name) * 0x100000001b3ull;
	return hash;
}

static void run_case_body(void *argument)
{
	const struct test_case *test_case = argument;

	test_case->run();
}

static enum ktap_outcome run_case_once(const struct test_suite *suite,
				       const struct test_case *test_case, uint64_t seed,
				       char *error, size_t error_size)
{
	struct recovery_context context = {
		.report_faults = true,
		.report_prefix = "    # ",
	};
	long outcome;

	running.failures = 0;
	running.skip_reason[0] = '\0';
	random_seed(&running.random, name_hash(name_hash(seed, suite->name), test_case->name));

	if (suite->init && suite->init() != 0) {
		kprintf("    # %s: the suite's init failed\n", test_case->name);
		return KTAP_FAIL;
	}
	running.context = &context;
	watchdog_case_begin(test_case->name);
	outcome = recovery_call(&context, run_case_body, (void *)test_case);
	watchdog_case_end();
	running.context = NULL;
	if (suite->exit)
		suite->exit();
	/* A wake-up or call IPI judged lost during the case fails it (ipi_evidence.h). */
	running.failures += ipi_evidence_report_losses("    # ");

	if (outcome >= 0 && outcome < RECOVERY_THROW_BASE) {
		snprintf(error, error_size, "%s", exception_name((unsigned int)outcome));
		return KTAP_ERROR;
	}
	if (outcome == RECOVERY_TIMEOUT)
		return KTAP_TIMEOUT;
	if (outcome == THROW_SKIP && running.failures == 0)
		return KTAP_SKIP;
	return running.failures ? KTAP_FAIL : KTAP_PASS;
}

static enum ktap_outcome run_case(const struct test_suite *suite, const struct test_case *test_case,
				  unsigned int repeat, uint64_t seed, char *error, size_t error_size)
{
	enum ktap_outcome outcome = KTAP_PASS;
	unsigned int round;

	running.test_case = test_case;
	for (round = 0; round < repeat; round++) {
		outcome = run_case_once(suite, test_case, seed + round, error, error_size);
		if (outcome != KTAP_PASS)
			break;
	}
	if (repeat > 1 && outcome != KTAP_SKIP)
		kprintf("    # %s: %u of %u rounds passed\n", test_case->name,
			outcome == KTAP_PASS ? repeat : round, repeat);
	running.test_case = NULL;
	return outcome;
}

/* Runs the selected cases of @suite, the @number'th suite run, into @totals. */
static void run_suite(const struct test_suite *suite, unsigned int number, unsigned int repeat,
		      uint64_t seed, struct ktap_counts *totals)
{
	struct ktap_counts counts = { 0, 0, 0 };
	unsigned int case_number = 0;
	char error[64];

	running.suite = suite;
	ktap_set_indent(1);
	ktap_write_suite_begin(&ktap_console, suite->name, selected_case_count(suite));
	for (size_t c = 0; c < suite->case_count; c++) {
		const struct test_case *test_case = &suite->cases[c];
		enum ktap_outcome outcome;
		const char *detail = NULL;

		if (!case_selected_now(suite, test_case))
			continue;
		case_number++;
		outcome = run_case(suite, test_case, repeat, seed, error, sizeof(error));
		if (outcome == KTAP_SKIP)
			detail = running.skip_reason;
		else if (outcome == KTAP_ERROR)
			detail = error;
		else if (outcome == KTAP_TIMEOUT)
			detail = "the watchdog ended it";
		ktap_count(&counts, outcome);
		ktap_write_case(&ktap_console, case_number, test_case->name, outcome, detail);
	}
	ktap_write_suite_totals(&ktap_console, suite->name, &counts);
	trigger_report_usage("    # ");
	ktap_set_indent(0);
	ktap_write_suite_end(&ktap_console, number, suite->name, &counts);
	ktap_counts_add(totals, &counts);
	running.suite = NULL;
}

/* What the finished suites counted (the running struct test_run's), for a crash banner. */
static const struct ktap_counts *finished_totals;

void test_describe_progress(char *buffer, size_t size)
{
	static const struct ktap_counts none;
	const struct ktap_counts *done = finished_totals ? finished_totals : &none;

	if (running.suite && running.test_case)
		snprintf(buffer, size, "in %s.%s; before it pass:%u fail:%u skip:%u",
			 running.suite->name, running.test_case->name, done->passed, done->failed,
			 done->skipped);
	else
		snprintf(buffer, size, "outside the tests; pass:%u fail:%u skip:%u", done->passed,
			 done->failed, done->skipped);
}

void test_run_selected(unsigned int repeat, uint64_t seed, struct test_run *run)
{
	*run = (struct test_run){ .suites = 0 };
	finished_totals = &run->totals;
	running.runner_cpu = cpu_id();
	for (const struct test_suite *const *suite = __start_test_suites;
	     suite < __stop_test_suites; suite++) {
		if (selected_case_count(*suite) == 0)
			continue;
		run_suite(*suite, ++run->suites, repeat, seed, &run->totals);
	}
	run->unmatched =
		case_selection_report_unmatched(&ktap_console, "test", selection,
						glob_selects_any_case, NULL) +
		case_selection_report_unmatched(&ktap_console, "bench", bench_selection,
						glob_selects_any_case, (void *)1);
	if (run->suites == 0)
		ktap_write_nothing_matched(&ktap_console, selection, bench_selection);
	else if (run->unmatched)
		kprintf("# %u pattern%s matched nothing: the run fails even though other patterns "
			"matched\n", run->unmatched, run->unmatched == 1 ? "" : "s");
	ktap_write_totals(&ktap_console, &run->totals);
}

enum verdict test_run_verdict(const struct test_run *run, char *detail, size_t size)
{
	const struct ktap_counts *totals = &run->totals;
	enum verdict verdict = verdict_of_run(totals->passed, totals->failed, run->suites,
					      run->unmatched);

	snprintf(detail, size, "pass:%u fail:%u skip:%u total:%u%s", totals->passed,
		 totals->failed, totals->skipped, ktap_counts_total(totals),
		 verdict == VERDICT_SKIP ? " (all skipped)" :
		 run->suites == 0 ? " (nothing matched)" :
		 run->unmatched ? " (a pattern matched nothing)" : "");
	return verdict;
}
