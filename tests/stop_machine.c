// SPDX-License-Identifier: MIT
/*
 * stop_machine (stop_machine.h): fn runs exactly once on each requested
 * CPU, with interrupts disabled there and everywhere else (an IPI sent from
 * fn is taken by no CPU before the machine restarts), the return values are
 * ORed, the interrupt state comes back, round after round, from any CPU and
 * from several at once, on every subset of the CPUs; where it could
 * deadlock it refuses, and a CPU that holds everyone up is named.
 */
#include <cpu/cpumask.h>
#include <arch/ipi.h>
#include <arch/ipi_evidence.h>
#include <sync/irq.h>
#include <boot/options.h>
#include <smp/smp.h>
#include <smp/smp_call.h>
#include <smp/stop_machine.h>
#include <harness/test.h>
#include <time/time.h>

#include "cpu_test.h"
#include "trigger_user_check.h"

/*
 * Under overcommit (-smp 8 on 2 host cores) one stop_machine takes ~150 ms,
 * since every state change needs every vCPU to be scheduled: rounds are
 * bounded by time as well as by number.
 */
#define SUBSET_ROUNDS		8
#define QUICK_ROUNDS		100
#define LONG_ROUNDS		5000
#define QUICK_TIME_LIMIT_NS	(2ull * 1000 * 1000 * 1000)
#define LONG_TIME_LIMIT_NS	(20ull * 1000 * 1000 * 1000)
#define CONCURRENT_ROUNDS	4

static uint64_t runs_on[MAX_CPUS];
static uint64_t runs_with_interrupts_on;
static uint64_t runs_outside_a_call;

static int cpu_bit(unsigned int cpu)
{
	return 1 << (cpu % 30);
}

/* The usual fn: count where it ran and how, return this CPU's bit. */
static int count_run(void *unused)
{
	unsigned int me = cpu_id();

	if (irqs_enabled())
		__atomic_fetch_add(&runs_with_interrupts_on, 1, __ATOMIC_RELAXED);
	if (!smp_call_in_handler())
		__atomic_fetch_add(&runs_outside_a_call, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&runs_on[me], 1, __ATOMIC_RELAXED);
	return cpu_bit(me);
}

static void count_run_call(void *unused)
{
	count_run(NULL);
}

static int expected_result(const struct cpumask *mask)
{
	unsigned int cpu;
	int result = 0;

	for_each_cpu(cpu, mask)
		result |= cpu_bit(cpu);
	return result;
}

static struct trigger_user_check stop_waits;

static int stop_suite_init(void)
{
	trigger_user_check_begin(&stop_waits, "stop_machine");
	for (unsigned int cpu = 0; cpu < MAX_CPUS; cpu++)
		runs_on[cpu] = 0;
	runs_with_interrupts_on = runs_outside_a_call = 0;
	return 0;
}

/* Every CPU ran fn as often as @expected says, and always as it should. */
static void check_runs(const uint64_t *expected)
{
	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++)
		EXPECT_EQ(runs_on[cpu], expected[cpu]);
	EXPECT_EQ(runs_with_interrupts_on, 0u);
	EXPECT_EQ(runs_outside_a_call, 0u);
}

/* --- Where fn runs ------------------------------------------------------------- */

static void runs_once_on_every_cpu_with_interrupts_disabled(void)
{
	uint64_t expected[MAX_CPUS] = { 0 };
	struct cpumask online;

	cpumask_set_online(&online);
	EXPECT_EQ(stop_machine(count_run, NULL, NULL), expected_result(&online));
	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++)
		expected[cpu] = 1;
	check_runs(expected);
	EXPECT_TRUE(irqs_enabled());
}

static void runs_only_on_the_requested_cpus(void)
{
	uint64_t expected[MAX_CPUS] = { 0 };
	struct cpumask mask;
	unsigned int cpu;

	/* Each CPU alone, then every prefix 0..k, then random sets, then none. */
	for (unsigned int one = 0; one < cpus_present(); one++) {
		cpumask_clear(&mask);
		cpumask_set_cpu(&mask, one);
		EXPECT_EQ(stop_machine(count_run, NULL, &mask), cpu_bit(one));
		expected[one]++;
	}
	cpumask_clear(&mask);
	for (unsigned int last = 0; last < cpus_present(); last++) {
		cpumask_set_cpu(&mask, last);
		EXPECT_EQ(stop_machine(count_run, NULL, &mask), expected_result(&mask));
		for_each_cpu(cpu, &mask)
			expected[cpu]++;
	}
	for (int round = 0; round < SUBSET_ROUNDS; round++) {
		cpumask_clear(&mask);
		for (cpu = 0; cpu < cpus_present(); cpu++) {
			if (test_random() & 1)
				cpumask_set_cpu(&mask, cpu);
		}
		EXPECT_EQ(stop_machine(count_run, NULL, &mask), expected_result(&mask));
		for_each_cpu(cpu, &mask)
			expected[cpu]++;
	}
	cpumask_clear(&mask);
	EXPECT_EQ(stop_machine(count_run, NULL, &mask), 0);
	check_runs(expected);
}

/* --- Everyone else waits with interrupts disabled ------------------------------------ */

static uint64_t pinged[MAX_CPUS];
static uint64_t pinged_during_run;	/* pings some CPU took while fn ran */

static void count_ping(void)
{
	__atomic_fetch_add(&pinged[cpu_id()], 1, __ATOMIC_RELEASE);
}

static uint64_t pings_total(void)
{
	uint64_t total = 0;

	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++)
		total += __atomic_load_n(&pinged[cpu], __ATOMIC_ACQUIRE);
	return total;
}

static int ping_everyone_else(void *vector)
{
	uint64_t before = pings_total();

	/* Nobody can take these before the machine restarts: interrupts are off everywhere. */
	ipi_send_allbutself((unsigned int)(uintptr_t)vector);
	cpu_test_spin_ns(3000000);
	__atomic_fetch_add(&pinged_during_run, pings_total() - before, __ATOMIC_RELAXED);
	return 0;
}

static void other_cpus_wait_with_interrupts_disabled(void)
{
	unsigned int runners[2] = { cpu_id(), cpus_present() - 1 };
	int vector;

	if (cpus_online() < 2)
		test_skip("one CPU: nobody else to wait");
	vector = ipi_vector_alloc(count_ping);
	ASSERT_GE(vector, 0);
	for (unsigned int cpu = 0; cpu < MAX_CPUS; cpu++)
		pinged[cpu] = 0;
	pinged_during_run = 0;
	/* fn on the caller, then on another CPU. */
	for (int i = 0; i < 2; i++) {
		uint64_t before = pings_total(), before_on[MAX_CPUS];
		struct cpumask one;

		for (unsigned int cpu = 0; cpu < cpus_present(); cpu++)
			before_on[cpu] = __atomic_load_n(&pinged[cpu], __ATOMIC_ACQUIRE);
		cpumask_clear(&one);
		cpumask_set_cpu(&one, runners[i]);
		EXPECT_EQ(stop_machine(ping_everyone_else, (void *)(uintptr_t)vector, &one), 0);
		/* After it, each of the others takes its ping. */
		for (unsigned int cpu = 0; cpu < cpus_present(); cpu++) {
			if (cpu == runners[i])
				continue;
			EXPECT_TRUE(cpu_test_wait_at_least(&pinged[cpu], before_on[cpu] + 1,
							   CPU_TEST_TIMEOUT_NS));
		}
		EXPECT_EQ(pings_total() - before, (uint64_t)cpus_online() - 1);
	}
	ipi_vector_free((unsigned int)vector);
	EXPECT_EQ(pinged_during_run, 0u);
}

/* --- Return values and interrupt state ---------------------------------------------- */

static int return_given(void *data)
{
	const int *values = data;

	return values[cpu_id()];
}

static void return_values_are_ored(void)
{
	static int values[MAX_CPUS];
	struct cpumask online;

	cpumask_set_online(&online);
	for (unsigned int cpu = 0; cpu < MAX_CPUS; cpu++)
		values[cpu] = 0;
	EXPECT_EQ(stop_machine(return_given, values, NULL), 0);
	values[cpus_present() - 1] = 0x40;	/* one CPU reports an error bit */
	EXPECT_EQ(stop_machine(return_given, values, NULL), 0x40);
	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++)
		values[cpu] = cpu_bit(cpu);
	EXPECT_EQ(stop_machine(return_given, values, NULL), expected_result(&online));
}

static void interrupt_state_is_restored(void)
{
	uint64_t expected[MAX_CPUS] = { 0 };

	ASSERT_TRUE(irqs_enabled());
	EXPECT_GE(stop_machine(count_run, NULL, NULL), 0);
	EXPECT_TRUE(irqs_enabled());
	/* A caller with interrupts disabled: the others join through their IPIs. */
	local_irq_disable();
	EXPECT_GE(stop_machine(count_run, NULL, NULL), 0);
	EXPECT_FALSE(irqs_enabled());
	local_irq_enable();
	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++)
		expected[cpu] = 2;
	check_runs(expected);
	/* And the helper CPUs are back to taking interrupts: a call reaches them. */
	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++)
		EXPECT_EQ(smp_call_function_single(cpu, count_run_call, NULL, true), SMP_CALL_OK);
	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++)
		expected[cpu] = 3;
	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++)
		EXPECT_EQ(runs_on[cpu], expected[cpu]);
}

/* --- Many rounds, from everywhere ----------------------------------------------------- */

static void many_rounds_in_a_row(void)
{
	unsigned int rounds = kernel_options.torture_long ? LONG_ROUNDS : QUICK_ROUNDS;
	uint64_t limit = kernel_options.torture_long ? LONG_TIME_LIMIT_NS : QUICK_TIME_LIMIT_NS;
	uint64_t expected[MAX_CPUS] = { 0 }, start = now_ns();
	unsigned int done = 0;
	int wrong_results = 0;

	for (; done < rounds && now_ns() - start < limit; done++) {
		struct cpumask mask;
		unsigned int cpu;

		cpumask_clear(&mask);
		for (cpu = 0; cpu < cpus_present(); cpu++) {
			if (test_random() & 1)
				cpumask_set_cpu(&mask, cpu);
		}
		if (stop_machine(count_run, NULL, &mask) != expected_result(&mask))
			wrong_results++;
		for_each_cpu(cpu, &mask)
			expected[cpu]++;
	}
	EXPECT_EQ(wrong_results, 0);
	check_runs(expected);
	EXPECT_GT(done, 0u);
	test_diag("%u of %u rounds in %llu ms on %u CPUs", done, rounds,
		  (unsigned long long)((now_ns() - start) / 1000000), cpus_online());
}

static int stop_from_here(void *unused)
{
	return stop_machine(count_run, NULL, NULL);
}

static int ap_result;

static void stop_machine_on_this_cpu(void *unused)
{
	ap_result = stop_from_here(NULL);
}

static void works_from_any_cpu(void)
{
	uint64_t expected[MAX_CPUS] = { 0 };
	struct cpumask online;

	cpumask_set_online(&online);
	for (unsigned int caller = 0; caller < cpus_present(); caller++) {
		ap_result = -100;
		ASSERT_TRUE(smp_run_on(caller, stop_machine_on_this_cpu, NULL,
				       CPU_TEST_TIMEOUT_NS));
		EXPECT_EQ(ap_result, expected_result(&online));
	}
	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++)
		expected[cpu] = cpus_online();
	check_runs(expected);
}

static struct cpu_test_barrier start_line;
static int machines_active;
static uint64_t overlaps, concurrent_failures;

static int one_at_a_time(void *unused)
{
	/* Each machine runs fn on its caller alone: two machines at once would overlap here. */
	if (__atomic_exchange_n(&machines_active, 1, __ATOMIC_ACQ_REL) != 0)
		__atomic_fetch_add(&overlaps, 1, __ATOMIC_RELAXED);
	cpu_test_spin_ns(100000);
	__atomic_store_n(&machines_active, 0, __ATOMIC_RELEASE);
	return count_run(NULL);
}

static void stop_machine_repeatedly(void *unused)
{
	struct cpumask self;

	cpumask_clear(&self);
	cpumask_set_cpu(&self, cpu_id());
	if (!cpu_test_barrier_wait(&start_line, CPU_TEST_TIMEOUT_NS))
		__atomic_fetch_add(&concurrent_failures, 1, __ATOMIC_RELAXED);
	for (int round = 0; round < CONCURRENT_ROUNDS; round++) {
		/*
		 * Odd CPUs call with interrupts disabled: while they wait for
		 * their turn they must still join the machines of the others,
		 * by running the calls that bring them in themselves.
		 */
		bool disable = cpu_id() & 1;
		bool enabled = irqs_enabled();

		if (disable)
			local_irq_disable();
		if (stop_machine(one_at_a_time, NULL, &self) != cpu_bit(cpu_id()))
			__atomic_fetch_add(&concurrent_failures, 1, __ATOMIC_RELAXED);
		if (disable && irqs_enabled())
			__atomic_fetch_add(&concurrent_failures, 1, __ATOMIC_RELAXED);
		if (enabled)
			local_irq_enable();
	}
}

static void concurrent_callers_take_turns(void)
{
	uint64_t expected[MAX_CPUS] = { 0 };
	struct stop_machine_stats before, after;

	overlaps = concurrent_failures = 0;
	machines_active = 0;
	start_line = (struct cpu_test_barrier){ .expected = cpus_online() };
	stop_machine_stats_read(&before);
	ASSERT_TRUE(cpu_test_run_everywhere(stop_machine_repeatedly, NULL,
					    CPU_TEST_TIMEOUT_NS * 4));
	stop_machine_stats_read(&after);
	EXPECT_EQ(overlaps, 0u);
	EXPECT_EQ(concurrent_failures, 0u);
	EXPECT_EQ(after.rounds - before.rounds, (uint64_t)cpus_online() * CONCURRENT_ROUNDS);
	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++)
		expected[cpu] = CONCURRENT_ROUNDS;
	check_runs(expected);
}

/* --- Refusals and stuck CPUs ------------------------------------------------------- */

static int status_in_call;

static void stop_machine_in_a_call(void *unused)
{
	status_in_call = stop_machine(count_run, NULL, NULL);
}

static void refused_where_it_could_deadlock(void)
{
	unsigned int target = cpus_online() > 1 ? 1 : 0;
	uint64_t none[MAX_CPUS] = { 0 };
	struct cpumask missing;

	status_in_call = 1;
	ASSERT_EQ(smp_call_function_single(target, stop_machine_in_a_call, NULL, true),
		  SMP_CALL_OK);
	EXPECT_EQ(status_in_call, SMP_CALL_WOULD_DEADLOCK);
	check_runs(none);

	/* From inside fn: the inner one is refused, the outer one runs once. */
	cpumask_clear(&missing);
	cpumask_set_cpu(&missing, cpu_id());
	EXPECT_EQ(stop_machine(stop_from_here, NULL, &missing), SMP_CALL_WOULD_DEADLOCK);
	check_runs(none);

	cpumask_set_cpu(&missing, cpus_present());
	EXPECT_EQ(stop_machine(count_run, NULL, &missing), SMP_CALL_NO_SUCH_CPU);
	check_runs(none);
}

#define SHORT_DEADLINE_NS	(50ull * 1000 * 1000)
#define HOLD_LIMIT_NS		CPU_TEST_TIMEOUT_NS	/* when no report ever comes */

/*
 * The laggard: interrupts off, so stop_machine's call cannot reach it,
 * until the report that names it is out (or the limit: a report never
 * came).  Holding for a fixed time instead would make the report depend
 * on when the caller, delayed by the host, started to wait.
 */
static struct {
	uint64_t reports_before;
	bool parked;
	bool released_by_report;
} hold;

static void hold_until_reported(void *unused)
{
	bool enabled = local_irq_save();
	uint64_t start = cycles(), limit = ns_to_cycles(HOLD_LIMIT_NS);
	struct stop_machine_stats now;

	__atomic_store_n(&hold.parked, true, __ATOMIC_RELEASE);
	do {
		cpu_relax();
		stop_machine_stats_read(&now);
	} while (now.stuck_reports == hold.reports_before && cycles() - start < limit);
	hold.released_by_report = now.stuck_reports != hold.reports_before;
	local_irq_restore(enabled);
}

static void a_cpu_holding_everyone_up_is_named(void)
{
	struct stop_machine_stats before, after;
	uint64_t old_deadline, start, took, deadlines;
	unsigned long losses = ipi_evidence_losses();
	unsigned int laggard = cpus_present() - 1;

	if (cpus_online() < 2)
		test_skip("one CPU: nobody to hold it up");
	stop_machine_stats_read(&before);
	hold.reports_before = before.stuck_reports;
	hold.parked = hold.released_by_report = false;
	ASSERT_TRUE(smp_run_on_async(laggard, hold_until_reported, NULL));
	while (!__atomic_load_n(&hold.parked, __ATOMIC_ACQUIRE))
		cpu_relax();
	deadlines = trigger_user_check_deadlines(&stop_waits);
	old_deadline = stop_machine_set_stuck_deadline(SHORT_DEADLINE_NS);
	start = now_ns();
	/* The laggard joins once its report is out. */
	EXPECT_GE(stop_machine(count_run, NULL, NULL), 0);
	took = now_ns() - start;
	stop_machine_set_stuck_deadline(old_deadline);
	/*
	 * The caller's wait reached its one bound, the stuck deadline, and
	 * found the state unchanged: a late CPU, which the evidence does not
	 * call lost.  Once at least: the caller watches every state to the
	 * end, so a later one slower than the short deadline (a host that did
	 * not run a CPU, a wake NMI lost and probed: test_lose_wake_nmi=)
	 * reaches it again; the report stays one.
	 */
	EXPECT_GE(trigger_user_check_deadlines(&stop_waits) - deadlines, 1u);
	EXPECT_EQ(ipi_evidence_losses() - losses, 0u);
	stop_machine_stats_read(&after);
	ASSERT_TRUE(smp_wait_for(laggard, CPU_TEST_TIMEOUT_NS));
	EXPECT_TRUE(hold.released_by_report);
	EXPECT_EQ(after.stuck_reports - before.stuck_reports, 1u);
	EXPECT_TRUE(cpumask_test_cpu(&after.last_late, laggard));
	/* No report before the deadline: the caller waited that long at least. */
	EXPECT_GE(took, SHORT_DEADLINE_NS);
	EXPECT_EQ(runs_on[laggard], 1u);
}

/*
 * Every state change every CPU waited for in this suite got its kick
 * (set_state): no sequence is left without it.  Deadlines are no verdict
 * (the case above, or a CPU the host did not run: test_late_target=
 * stop_machine); a lost wake-up fails the case the evidence finds it in.
 * test_drop_kick=stop_machine must make this fail.
 */
static void state_waits_ended_by_their_kicks(void)
{
	trigger_user_check_end(&stop_waits);
}

static const struct test_case stop_machine_cases[] = {
	TEST_CASE(runs_once_on_every_cpu_with_interrupts_disabled),
	TEST_CASE(runs_only_on_the_requested_cpus),
	TEST_CASE(other_cpus_wait_with_interrupts_disabled),
	TEST_CASE(return_values_are_ored),
	TEST_CASE(interrupt_state_is_restored),
	TEST_CASE(many_rounds_in_a_row),
	TEST_CASE(works_from_any_cpu),
	TEST_CASE(concurrent_callers_take_turns),
	TEST_CASE(refused_where_it_could_deadlock),
	TEST_CASE(a_cpu_holding_everyone_up_is_named),
	TEST_CASE(state_waits_ended_by_their_kicks),
};
TEST_SUITE(stop_machine, stop_machine_cases, stop_suite_init, NULL);
