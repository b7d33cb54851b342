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
#include <log/console.h>
#include <cpu/cpu.h>
#include <arch/ipi_evidence.h>
#include <harness/ktap.h>
#include <log/panic.h>
#include <smp/recovery.h>
#include <smp/smp.h>
#include <harness/test.h>
#include <harness/test_runner.h>
#include <sync/trigger_backend.h>
#include <harness/watchdog.h>
#include <lib/format.h>
#include <lib/case_selection.h>
#include <lib/expect_report.h>
#include <lib/random.h>
#include <lib/string.h>
#include <boot/options.h>
#include <arch/entropy.h>
#include <time/time.h>

extern const struct test_suite *const __start_test_suites[];
extern const struct test_suite *const __stop_test_suites[];

#define THROW_ASSERT	(RECOVERY_THROW_BASE + 0)
#define THROW_SKIP	(RECOVERY_THROW_BASE + 1)

/* The one running case, shared by every CPU (cases may use several). */
static struct {
	const struct test_suite *suite;
	const struct test_case *test_case;
	bool in_param;			/* a parameter's lines are one level deeper */
	unsigned int round, rounds;	/* repeat=: this round (from 1) of how many */
	unsigned int runner_cpu;
	struct recovery_context *context;
	unsigned int failures;
	bool helper_skipped;		/* a helper CPU's part called test_skip() */
	char skip_reason[128];
	struct random_state random;
} running;

static struct test_case_notifier *case_notifiers;

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
		kernel_options.seed = entropy() % 1000000;
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

void test_case_notifier_register(struct test_case_notifier *notifier)
{
	notifier->next = case_notifiers;
	case_notifiers = notifier;
}

/* "    # case: " (or a parameter's "        # case: "), the start of a case's diagnostic. */
static void diagnostic_prefix(char *prefix, size_t size)
{
	snprintf(prefix, size, "%s# %s: ", running.in_param ? "        " : "    ",
		 running.test_case ? running.test_case->name : "-");
}

static void print_line(void *context, const char *line)
{
	kprintf("%s", line);
}

/* lib/expect_report.h's lines, saying which CPU and which round of repeat= saw the failure. */
static void report_failure(const struct expectation *expectation, const char *format,
			   va_list args)
{
	struct expect_report report;
	char prefix[EXPECT_REPORT_PREFIX_MAX], where[64];
	size_t used = 0;

	__atomic_fetch_add(&running.failures, 1, __ATOMIC_RELAXED);
	diagnostic_prefix(prefix, sizeof(prefix));
	where[0] = '\0';
	if (cpu_id() != running.runner_cpu)
		used += (size_t)scnprintf(where, sizeof(where), " (on cpu %u)", cpu_id());
	if (running.rounds > 1)
		scnprintf(where + used, sizeof(where) - used, " (round %u of %u)", running.round,
			  running.rounds);
	expect_report_begin(&report, print_line, NULL, prefix);
	expect_report_failure(&report, expectation, where, format, args);
	expect_report_end_line(&report);
}

void test_report_failure(const char *file, int line, const char *format, ...)
{
	struct expectation expectation = { .file = file, .line = line, .kind = EXPECT_KIND_NONE };
	va_list args;

	va_start(args, format);
	report_failure(&expectation, format, args);
	va_end(args);
}

void test_expectation_failed(const struct expectation *expectation, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	report_failure(expectation, format, args);
	va_end(args);
}

static void __attribute__((noreturn)) throw_to_runner(long code)
{
	struct recovery_context *context = this_cpu()->recovery;

	if (cpu_id() == running.runner_cpu && running.context)
		recovery_throw(running.context, code);
	/*
	 * On a helper CPU the runner's context belongs to another stack: end
	 * whatever this CPU was asked to run, through its own innermost context
	 * (run_helper_part()'s, for work given while a case runs).
	 */
	if (context)
		recovery_throw(context, code);
	panic("a test assertion failed on cpu %u outside any recovery context", cpu_id());
}

void test_abort_case(void)
{
	throw_to_runner(THROW_ASSERT);
}

void test_skip(const char *format, ...)
{
	va_list args;

	va_start(args, format);
	vsnprintf(running.skip_reason, sizeof(running.skip_reason), format, args);
	va_end(args);
	throw_to_runner(THROW_SKIP);
}

void test_diag(const char *format, ...)
{
	char prefix[EXPECT_REPORT_PREFIX_MAX], message[CONSOLE_LINE_MAX - 64];
	va_list args;

	diagnostic_prefix(prefix, sizeof(prefix));
	va_start(args, format);
	vsnprintf(message, sizeof(message), format, args);
	va_end(args);
	if (running.rounds > 1)
		kprintf("%sround %u of %u: %s\n", prefix, running.round, running.rounds, message);
	else
		kprintf("%s%s\n", prefix, message);
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

/* A case's body under the recovery context: the plain case, or one parameter of it. */
struct case_call {
	const struct test_case *test_case;
	const void *param;
};

/*
 * Stack between run_case_once()'s frame and the case's, which its wait for
 * work the case gave up on (await_work_given_up_on()) may use while that
 * work may still write to the case's frames: the wait's calls take about
 * 100 bytes (gcc -fstack-usage: smp_await_abandoned_work() 32, its callees
 * less), so they never reach the case's frames.
 */
#define CASE_STACK_ROOM		512

static void run_case_body(void *argument)
{
	volatile char room[CASE_STACK_ROOM];
	const struct case_call *call = argument;

	room[0] = 0;	/* a volatile store and load: kept in the frame, the case's below it */
	(void)room[0];
	if (call->test_case->generate_params)
		call->test_case->run_param(call->param);
	else
		call->test_case->run();
}

/*
 * Work a helper CPU is given while a case runs (smp_set_work_runner()): an
 * ASSERT, test_skip() or CPU exception there ends this part only, the case
 * is marked (a failure wins over a skip), and the work slot completes.
 */
static void run_helper_part(void (*function)(void *), void *argument)
{
	struct recovery_context context = {
		.report_faults = true,
		.report_prefix = "    # ",
	};
	long outcome;

	if (!__atomic_load_n(&running.test_case, __ATOMIC_ACQUIRE)) {
		function(argument);
		return;
	}
	outcome = recovery_call(&context, function, argument);
	if (outcome == RECOVERY_RETURNED)
		return;
	if (outcome == THROW_SKIP) {
		__atomic_store_n(&running.helper_skipped, true, __ATOMIC_RELEASE);
		test_diag("cpu %u: its part skipped: %s", cpu_id(), running.skip_reason);
	} else if (outcome == THROW_ASSERT) {
		test_diag("cpu %u: its part ended by the failed assertion above", cpu_id());
	} else {
		__atomic_fetch_add(&running.failures, 1, __ATOMIC_RELAXED);
		test_diag("cpu %u: its part ended by %s", cpu_id(),
			  outcome < RECOVERY_THROW_BASE ? recovery_exception_name((unsigned int)outcome) :
							  "the watchdog");
	}
}

/*
 * Begun work a case gave up on (smp_wait_for()'s time-out: a vCPU the host
 * stopped) runs on when that CPU runs again, and may still write to what
 * the case gave it: the case's stack, which the next case reuses, and the
 * suite's state, which its exit tears down.  So both wait until that work
 * has ended, or, if it does not end within the patience a late vCPU gets
 * elsewhere, go on with a note that says so.  Until then the wait uses only
 * the stack above the case's frames (CASE_STACK_ROOM) and prints nothing.
 */
#define GIVEN_UP_WORK_PATIENCE_NS	(10ull * 1000 * 1000 * 1000)

static void await_work_given_up_on(unsigned long abandoned_before)
{
	uint64_t start;
	unsigned int still_running;

	if (smp_work_abandoned_so_far() == abandoned_before ||
	    !smp_await_abandoned_work(abandoned_before, 0) ||
	    test_break_given(TEST_BREAK_UNAWAITED_WORK))
		return;
	start = now_ns();
	still_running = smp_await_abandoned_work(abandoned_before, GIVEN_UP_WORK_PATIENCE_NS);
	if (still_running)
		test_diag("%u CPU%s still run%s work this case gave up on, %llu s after it: what "
			  "it writes may land in what later cases use", still_running,
			  still_running == 1 ? "" : "s", still_running == 1 ? "s" : "",
			  (unsigned long long)(GIVEN_UP_WORK_PATIENCE_NS / 1000000000ull));
	else
		test_diag("work this case gave up on ended %llu ms after the case; the next case "
			  "waited for it", (unsigned long long)((now_ns() - start) / 1000000));
}

static enum ktap_outcome run_case_once(const struct test_suite *suite,
				       const struct test_case *test_case, const void *param,
				       uint64_t seed, char *error, size_t error_size)
{
	struct recovery_context context = {
		.report_faults = true,
		.report_prefix = running.in_param ? "        # " : "    # ",
	};
	struct case_call call = { .test_case = test_case, .param = param };
	unsigned long abandoned_before = smp_work_abandoned_so_far();
	long outcome;

	running.failures = 0;
	running.helper_skipped = false;
	running.skip_reason[0] = '\0';
	random_seed(&running.random, name_hash(name_hash(seed, suite->name), test_case->name));
	for (struct test_case_notifier *notifier = case_notifiers; notifier;
	     notifier = notifier->next)
		notifier->case_start(suite->name, test_case->name, notifier->data);

	if (suite->init && suite->init() != 0) {
		test_diag("the suite's init failed");
		return KTAP_FAIL;
	}
	running.context = &context;
	watchdog_case_begin(test_case->name);
	outcome = recovery_call(&context, run_case_body, &call);
	watchdog_case_end();
	running.context = NULL;
	await_work_given_up_on(abandoned_before);
	if (suite->exit)
		suite->exit();
	/* A wake-up or call IPI judged lost during the case fails it (ipi_evidence.h). */
	running.failures += ipi_evidence_report_losses("    # ");

	if (outcome >= 0 && outcome < RECOVERY_THROW_BASE) {
		snprintf(error, error_size, "%s", recovery_exception_name((unsigned int)outcome));
		return KTAP_ERROR;
	}
	if (outcome == RECOVERY_TIMEOUT)
		return KTAP_TIMEOUT;
	if (__atomic_load_n(&running.failures, __ATOMIC_ACQUIRE))
		return KTAP_FAIL;
	if (outcome == THROW_SKIP || __atomic_load_n(&running.helper_skipped, __ATOMIC_ACQUIRE))
		return KTAP_SKIP;
	return KTAP_PASS;
}

/* Runs @test_case (with @param) @repeat times, or until a round does not pass. */
static enum ktap_outcome run_rounds(const struct test_suite *suite,
				    const struct test_case *test_case, const void *param,
				    unsigned int repeat, uint64_t seed, char *error,
				    size_t error_size)
{
	enum ktap_outcome outcome = KTAP_PASS;
	unsigned int round;

	running.rounds = repeat;
	for (round = 0; round < repeat; round++) {
		running.round = round + 1;
		outcome = run_case_once(suite, test_case, param, seed + round, error, error_size);
		if (outcome != KTAP_PASS)
			break;
	}
	running.rounds = 0;
	if (repeat > 1 && outcome != KTAP_SKIP)
		test_diag("%u of %u rounds passed", outcome == KTAP_PASS ? repeat : round, repeat);
	return outcome;
}

/* The detail of a result line's directive, for @outcome. */
static const char *outcome_detail(enum ktap_outcome outcome, const char *error)
{
	if (outcome == KTAP_SKIP)
		return running.skip_reason;
	if (outcome == KTAP_ERROR)
		return error;
	if (outcome == KTAP_TIMEOUT)
		return "the watchdog ended it";
	return NULL;
}

/*
 * Runs @test_case, adding what it counts to @counts (one result, or one per
 * parameter: each is a result of its own); returns the outcome of the case's
 * own result line, its directive's text in @error.
 */
static enum ktap_outcome run_case(const struct test_suite *suite, const struct test_case *test_case,
				  unsigned int repeat, uint64_t seed, struct ktap_counts *counts,
				  char *error, size_t error_size)
{
	struct ktap_counts params = { 0, 0, 0 };
	char description[TEST_PARAM_DESCRIPTION_MAX];
	enum ktap_outcome outcome;
	unsigned int number = 0;
	size_t plan = 0;

	__atomic_store_n(&running.test_case, test_case, __ATOMIC_RELEASE);
	if (!test_case->generate_params) {
		outcome = run_rounds(suite, test_case, NULL, repeat, seed, error, error_size);
		ktap_count(counts, outcome);
		__atomic_store_n(&running.test_case, NULL, __ATOMIC_RELEASE);
		return outcome;
	}
	for (const void *param = test_case->generate_params(NULL, description); param;
	     param = test_case->generate_params(param, description))
		plan++;
	ktap_write_params_begin(&ktap_console, test_case->name, plan);
	running.in_param = true;
	for (const void *param = test_case->generate_params(NULL, description); param;
	     param = test_case->generate_params(param, description)) {
		char shown[TEST_PARAM_DESCRIPTION_MAX];

		/* The generator's buffer is written again by the next call. */
		snprintf(shown, sizeof(shown), "%s", description);
		outcome = run_rounds(suite, test_case, param, repeat, seed, error, error_size);
		ktap_count(&params, outcome);
		ktap_write_param(&ktap_console, ++number, shown, outcome,
				 outcome_detail(outcome, error));
	}
	running.in_param = false;
	ktap_write_suite_totals(&ktap_console, test_case->name, &params);
	ktap_counts_add(counts, &params);
	snprintf(running.skip_reason, sizeof(running.skip_reason),
		 plan ? "all its parameters were skipped" : "it has no parameters here");
	__atomic_store_n(&running.test_case, NULL, __ATOMIC_RELEASE);
	return ktap_params_outcome(&params);
}

/* Runs the selected cases of @suite, the @number'th suite run, into @totals. */
static void run_suite(const struct test_suite *suite, unsigned int number, unsigned int repeat,
		      uint64_t seed, struct ktap_counts *totals)
{
	struct ktap_counts counts = { 0, 0, 0 };
	unsigned int case_number = 0;
	int suite_init_result = 0;
	char error[64];

	running.suite = suite;
	ktap_set_indent(1);
	ktap_write_suite_begin(&ktap_console, suite->name, selected_case_count(suite));
	if (suite->suite_init)
		suite_init_result = suite->suite_init();
	for (size_t c = 0; c < suite->case_count; c++) {
		const struct test_case *test_case = &suite->cases[c];
		enum ktap_outcome outcome;

		if (!case_selected_now(suite, test_case))
			continue;
		case_number++;
		if (suite_init_result) {
			kprintf("    # %s: not run: the suite's suite_init failed (%d)\n",
				test_case->name, suite_init_result);
			outcome = KTAP_FAIL;
			ktap_count(&counts, outcome);
		} else {
			outcome = run_case(suite, test_case, repeat, seed, &counts, error,
					   sizeof(error));
		}
		ktap_write_case(&ktap_console, case_number, test_case->name, outcome,
				outcome_detail(outcome, error));
	}
	if (suite->suite_exit && !suite_init_result)
		suite->suite_exit();
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
	smp_set_work_runner(run_helper_part);
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
	if (trigger_backend_request_refusal()) {
		/* Asked for a backend that cannot run: as loud as a test= typo. */
		kprintf("# %s: the run fails (trigger=auto asks for the best available)\n",
			trigger_backend_request_refusal());
		run->refused = 1;
	}
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
					      run->unmatched + run->refused);

	snprintf(detail, size, "pass:%u fail:%u skip:%u total:%u%s", totals->passed,
		 totals->failed, totals->skipped, ktap_counts_total(totals),
		 verdict == VERDICT_SKIP ? " (all skipped)" :
		 run->suites == 0 ? " (nothing matched)" :
		 run->unmatched ? " (a pattern matched nothing)" :
		 run->refused ? " (the trigger= asked for cannot run)" : "");
	return verdict;
}
