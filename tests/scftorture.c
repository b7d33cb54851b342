// SPDX-License-Identifier: MIT
/*
 * Cross-CPU call torture, in the style of Linux's scftorture: every CPU
 * issues random calls - single, many, all, each; waiting or not; now and
 * then with interrupts disabled - to random targets, for a bounded number
 * of operations and a bounded time (under overcommit, -smp 8 on 2 host
 * cores, everything is slow).  Every call carries a record that its
 * handlers check and mark, so a call that ran on the wrong CPU, ran twice,
 * saw a stale argument or never ran is counted as an error; the caller
 * checks the marks once the call is done.  Fairness (the busiest CPU's
 * operations against the least busy's) is printed, never judged: it is the
 * host scheduler's.  torture=long runs longer; seed=N fixes the operation
 * sequence (not the interleaving).
 */
#include <cpu/cpumask.h>
#include <sync/irq.h>
#include <mm/memory.h>
#include <boot/options.h>
#include <smp/smp.h>
#include <smp/smp_call.h>
#include <smp/stop_machine.h>
#include <harness/test.h>
#include <time/time.h>
#include <lib/random.h>

#include "cpu_test.h"
#include "trigger_user_check.h"

#define QUICK_OPS		300
#define LONG_OPS		200000
#define QUICK_TIME_NS		(2ull * 1000 * 1000 * 1000)
#define LONG_TIME_NS		(20ull * 1000 * 1000 * 1000)
#define QUICK_STOPS		4
#define LONG_STOPS		200
#define RECORDS_PER_CPU		16
#define TOKEN_CHECK		0x5c0f5c0f5c0f5c0full

enum scf_kind {
	SCF_SINGLE,
	SCF_MANY,
	SCF_ALL,
	SCF_EACH,
	SCF_KINDS,
};

static const char *const kind_names[SCF_KINDS] = { "single", "many", "all", "each" };

/* One call in flight: filled in by its caller, marked by each handler. */
struct scf_record {
	struct cpumask expected;	/* where it must run */
	struct cpumask ran;		/* where it did, one bit each */
	uint64_t token;
	uint64_t check;			/* token ^ TOKEN_CHECK, stored before the call */
	uint64_t reply;			/* sum of cpu + 1 over the handlers */
	uint64_t expected_reply;
	unsigned int remaining;		/* handlers yet to finish; 0: done, reusable */
	bool in_use;			/* owner only: holds a call not yet checked */
};

struct scf_errors {
	uint64_t wrong_cpu;		/* ran where it was not sent */
	uint64_t ran_twice;
	uint64_t stale;			/* did not see the caller's stores */
	uint64_t interrupts_on;		/* ran with interrupts enabled */
	uint64_t incomplete;		/* done, but the marks disagree */
	uint64_t lost;			/* never finished */
	uint64_t refused;		/* a call the rules allow came back refused */
};

static struct scf_errors errors;

/* Per CPU, written by that CPU only. */
struct scf_cpu {
	struct random_state random;
	uint64_t ops;
	uint64_t ops_by_kind[SCF_KINDS];
	uint64_t waited;
	uint64_t interrupts_off;	/* no-wait ops issued with interrupts disabled */
	uint64_t handled;		/* handler runs on this CPU */
} __attribute__((aligned(64)));

static struct scf_cpu scf_cpus[MAX_CPUS];
static struct scf_record *records;	/* RECORDS_PER_CPU per present CPU, kept across runs */
static uint64_t op_limit, deadline_ns, start_ns;
static bool stop_workers;
static struct cpu_test_barrier start_line;

static void count_error(uint64_t *counter)
{
	__atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}

static void scf_handler(void *info)
{
	struct scf_record *record = info;
	unsigned int me = cpu_id();

	if (!cpumask_test_cpu(&record->expected, me))
		count_error(&errors.wrong_cpu);
	if (!cpumask_atomic_set_cpu(&record->ran, me))
		count_error(&errors.ran_twice);
	if (record->check != (record->token ^ TOKEN_CHECK))
		count_error(&errors.stale);
	if (irqs_enabled())
		count_error(&errors.interrupts_on);
	__atomic_fetch_add(&record->reply, me + 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&scf_cpus[me].handled, 1, __ATOMIC_RELAXED);
	/* Release, and the last touch: the owner may check and reuse it at once. */
	__atomic_fetch_sub(&record->remaining, 1, __ATOMIC_RELEASE);
}

static void record_prepare(struct scf_record *record, const struct cpumask *expected,
			   uint64_t token)
{
	unsigned int cpu;

	record->expected = *expected;
	cpumask_clear(&record->ran);
	record->token = token;
	record->check = token ^ TOKEN_CHECK;
	record->reply = 0;
	record->expected_reply = 0;
	for_each_cpu(cpu, expected)
		record->expected_reply += cpu + 1;
	record->in_use = true;
	/* Release: the handlers see all of the above (the call's push orders it too). */
	__atomic_store_n(&record->remaining, cpumask_weight(expected), __ATOMIC_RELEASE);
}

static void record_verify(struct scf_record *record)
{
	if (!cpumask_equal(&record->ran, &record->expected) ||
	    __atomic_load_n(&record->reply, __ATOMIC_RELAXED) != record->expected_reply)
		count_error(&errors.incomplete);
	record->in_use = false;
}

static bool record_done(struct scf_record *record)
{
	return __atomic_load_n(&record->remaining, __ATOMIC_ACQUIRE) == 0;
}

/* Wait (bounded) for @record's call to finish, then check it. */
static void record_finish(struct scf_record *record)
{
	uint64_t start = now_ns();

	while (!record_done(record)) {
		if (now_ns() - start > CPU_TEST_TIMEOUT_NS) {
			count_error(&errors.lost);
			record->in_use = false;
			return;
		}
		cpu_relax();
	}
	record_verify(record);
}

/* A record for a no-wait call: a free one, else the oldest once it is done. */
static struct scf_record *record_for_nowait(unsigned int me, unsigned int *cursor)
{
	struct scf_record *mine = &records[me * RECORDS_PER_CPU];
	struct scf_record *record;

	for (unsigned int i = 0; i < RECORDS_PER_CPU; i++) {
		record = &mine[(*cursor + i) % RECORDS_PER_CPU];
		if (!record->in_use || record_done(record)) {
			if (record->in_use)
				record_verify(record);
			*cursor = (*cursor + i + 1) % RECORDS_PER_CPU;
			return record;
		}
	}
	record = &mine[*cursor];
	*cursor = (*cursor + 1) % RECORDS_PER_CPU;
	record_finish(record);
	return record;
}

static void random_mask(struct random_state *random, struct cpumask *mask)
{
	cpumask_clear(mask);
	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++) {
		if (random_below(random, 2))
			cpumask_set_cpu(mask, cpu);
	}
}

/* Issue one random operation. */
static void scf_op(struct scf_cpu *self, unsigned int me, unsigned int *cursor)
{
	struct scf_record on_stack, *record;
	struct cpumask mask, expected;
	uint64_t choice = random_below(&self->random, 100);
	enum scf_kind kind = choice < 50 ? SCF_SINGLE : choice < 80 ? SCF_MANY :
			     choice < 90 ? SCF_ALL : SCF_EACH;
	bool wait = random_below(&self->random, 2);
	bool interrupts_off = !wait && random_below(&self->random, 8) == 0;
	unsigned int target = 0;
	bool enabled = true;
	int status = SMP_CALL_OK;

	switch (kind) {
	case SCF_SINGLE:
		target = (unsigned int)random_below(&self->random, cpus_present());
		cpumask_clear(&expected);
		cpumask_set_cpu(&expected, target);
		break;
	case SCF_MANY:
		random_mask(&self->random, &mask);
		expected = mask;
		cpumask_clear_cpu(&expected, me);
		break;
	case SCF_ALL:
		cpumask_set_online(&expected);
		cpumask_clear_cpu(&expected, me);
		break;
	case SCF_EACH:
	default:
		cpumask_set_online(&expected);
		break;
	}
	record = wait ? &on_stack : record_for_nowait(me, cursor);
	record_prepare(record, &expected, random_next(&self->random));

	if (interrupts_off) {
		enabled = local_irq_save();
		self->interrupts_off++;
	}
	switch (kind) {
	case SCF_SINGLE:
		status = smp_call_function_single(target, scf_handler, record, wait);
		break;
	case SCF_MANY:
		status = smp_call_function_many(&mask, scf_handler, record, wait);
		break;
	case SCF_ALL:
		status = smp_call_function(scf_handler, record, wait);
		break;
	case SCF_EACH:
	default:
		status = on_each_cpu(scf_handler, record, wait);
		break;
	}
	if (interrupts_off)
		local_irq_restore(enabled);

	self->ops++;
	self->ops_by_kind[kind]++;
	if (status != SMP_CALL_OK) {
		count_error(&errors.refused);
		record->in_use = false;
		__atomic_store_n(&record->remaining, 0, __ATOMIC_RELEASE);
		return;
	}
	if (wait) {
		self->waited++;
		/* Waited for: every handler has finished, with its stores visible. */
		if (!record_done(record))
			count_error(&errors.incomplete);
		record_verify(record);
	}
}

static void scf_worker(void *unused)
{
	unsigned int me = cpu_id(), cursor = 0;
	struct scf_cpu *self = &scf_cpus[me];
	struct cpu_test_budget budget;

	if (!cpu_test_barrier_wait(&start_line, CPU_TEST_TIMEOUT_NS))
		count_error(&errors.lost);
	/* Run time, not the clock: a host stall does not use the budget up. */
	cpu_test_budget_start(&budget, deadline_ns);
	while (self->ops < op_limit && !__atomic_load_n(&stop_workers, __ATOMIC_ACQUIRE) &&
	       !cpu_test_budget_spent(&budget))
		scf_op(self, me, &cursor);
	/* Check every no-wait call still out before leaving. */
	for (unsigned int i = 0; i < RECORDS_PER_CPU; i++) {
		struct scf_record *record = &records[me * RECORDS_PER_CPU + i];

		if (record->in_use)
			record_finish(record);
	}
}

static bool scf_setup(void)
{
	uint64_t bytes = (uint64_t)cpus_present() * RECORDS_PER_CPU * sizeof(struct scf_record);

	if (!records)
		records = pages_alloc((bytes + PAGE_SIZE - 1) / PAGE_SIZE);
	if (!records)
		return false;
	for (unsigned int i = 0; i < cpus_present() * RECORDS_PER_CPU; i++)
		records[i] = (struct scf_record){ 0 };
	errors = (struct scf_errors){ 0 };
	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++) {
		scf_cpus[cpu] = (struct scf_cpu){ 0 };
		random_seed(&scf_cpus[cpu].random, test_random());
	}
	op_limit = kernel_options.torture_long ? LONG_OPS : QUICK_OPS;
	deadline_ns = kernel_options.torture_long ? LONG_TIME_NS : QUICK_TIME_NS;
	stop_workers = false;
	start_line = (struct cpu_test_barrier){ .expected = cpus_online() };
	start_ns = now_ns();
	return true;
}

/* @idle_cpu (or -1) issued no operations: it is left out of the fairness figures. */
static void scf_check_and_report(int idle_cpu)
{
	uint64_t ops = 0, handled = 0, waited = 0, off = 0, by_kind[SCF_KINDS] = { 0 };
	uint64_t busiest = 0, least = UINT64_MAX;
	unsigned int busiest_cpu = 0, least_cpu = 0;

	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++) {
		const struct scf_cpu *c = &scf_cpus[cpu];

		ops += c->ops;
		handled += c->handled;
		waited += c->waited;
		off += c->interrupts_off;
		for (int kind = 0; kind < SCF_KINDS; kind++)
			by_kind[kind] += c->ops_by_kind[kind];
		if ((int)cpu == idle_cpu)
			continue;
		if (c->ops >= busiest) {
			busiest = c->ops;
			busiest_cpu = cpu;
		}
		if (c->ops < least) {
			least = c->ops;
			least_cpu = cpu;
		}
	}
	EXPECT_EQ(errors.wrong_cpu, 0u);
	EXPECT_EQ(errors.ran_twice, 0u);
	EXPECT_EQ(errors.stale, 0u);
	EXPECT_EQ(errors.interrupts_on, 0u);
	EXPECT_EQ(errors.incomplete, 0u);
	EXPECT_EQ(errors.lost, 0u);
	EXPECT_EQ(errors.refused, 0u);
	EXPECT_GT(ops, 0u);
	test_diag("%llu ops in %llu ms on %u CPUs (%s): %llu %s, %llu %s, %llu %s, %llu %s; "
		  "%llu waited, %llu issued with interrupts off; %llu handler runs",
		  (unsigned long long)ops, (unsigned long long)((now_ns() - start_ns) / 1000000),
		  cpus_online(), kernel_options.torture_long ? "long" : "quick",
		  (unsigned long long)by_kind[SCF_SINGLE], kind_names[SCF_SINGLE],
		  (unsigned long long)by_kind[SCF_MANY], kind_names[SCF_MANY],
		  (unsigned long long)by_kind[SCF_ALL], kind_names[SCF_ALL],
		  (unsigned long long)by_kind[SCF_EACH], kind_names[SCF_EACH],
		  (unsigned long long)waited, (unsigned long long)off,
		  (unsigned long long)handled);
	test_diag("fairness (diagnostic only): cpu %u did %llu ops, cpu %u %llu", busiest_cpu,
		  (unsigned long long)busiest, least_cpu, (unsigned long long)least);
	test_diag("errors: %llu wrong cpu, %llu twice, %llu stale, %llu interrupts on, "
		  "%llu incomplete, %llu lost, %llu refused",
		  (unsigned long long)errors.wrong_cpu, (unsigned long long)errors.ran_twice,
		  (unsigned long long)errors.stale, (unsigned long long)errors.interrupts_on,
		  (unsigned long long)errors.incomplete, (unsigned long long)errors.lost,
		  (unsigned long long)errors.refused);
}

static void random_calls_from_every_cpu(void)
{
	struct smp_call_stats before, after;

	ASSERT_TRUE(scf_setup());
	smp_call_stats_read(&before);
	ASSERT_TRUE(cpu_test_run_everywhere(scf_worker, NULL, deadline_ns + CPU_TEST_TIMEOUT_NS));
	smp_call_stats_read(&after);
	scf_check_and_report(-1);
	EXPECT_EQ(after.errors, before.errors);
	test_diag("%llu calls queued, %llu IPIs sent (%llu per 100 calls), %llu stuck reports",
		  (unsigned long long)(after.queued - before.queued),
		  (unsigned long long)(after.ipis_sent - before.ipis_sent),
		  (unsigned long long)(after.queued - before.queued ?
				       (after.ipis_sent - before.ipis_sent) * 100 /
				       (after.queued - before.queued) : 0),
		  (unsigned long long)(after.stuck_reports - before.stuck_reports));
}

/* The same, while the runner stops the machine again and again. */
static uint64_t stop_runs[MAX_CPUS];

static int count_stop(void *unused)
{
	__atomic_fetch_add(&stop_runs[cpu_id()], 1, __ATOMIC_RELAXED);
	return irqs_enabled() ? 1 : 0;
}

static void calls_while_the_machine_stops(void)
{
	unsigned int stops = kernel_options.torture_long ? LONG_STOPS : QUICK_STOPS;
	unsigned int done = 0, me = cpu_id();
	bool started[MAX_CPUS] = { false };
	struct cpu_test_budget budget;
	int failures = 0;

	if (cpus_online() < 2)
		test_skip("one CPU: no callers besides the one stopping the machine");
	ASSERT_TRUE(scf_setup());
	start_line.expected = cpus_online() - 1;
	for (unsigned int cpu = 0; cpu < MAX_CPUS; cpu++)
		stop_runs[cpu] = 0;
	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++) {
		if (cpu != me)
			started[cpu] = smp_run_on_async(cpu, scf_worker, NULL);
	}
	/*
	 * The machine stops while the others make calls, not before they
	 * begin: four stops can end in 8 ms, before a worker that took the
	 * first stop's IPI in its idle loop has issued its first call (a
	 * LAVA full run failed so, "0 ops in 8 ms").  A worker that has not
	 * begun within the time-out is left to the checks below.
	 */
	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++) {
		if (started[cpu])
			cpu_test_wait_at_least(&scf_cpus[cpu].ops, 1, CPU_TEST_TIMEOUT_NS);
	}
	cpu_test_budget_start(&budget, deadline_ns);
	for (; done < stops && !cpu_test_budget_spent(&budget); done++) {
		if (stop_machine(count_stop, NULL, NULL) != 0)
			failures++;
	}
	__atomic_store_n(&stop_workers, true, __ATOMIC_RELEASE);
	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++) {
		if (cpu != me) {
			EXPECT_TRUE(started[cpu]);
			if (started[cpu])
				EXPECT_TRUE(smp_wait_for(cpu, CPU_TEST_TIMEOUT_NS * 2));
		}
	}
	EXPECT_EQ(failures, 0);
	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++)
		EXPECT_EQ(stop_runs[cpu], (uint64_t)done);
	test_diag("%u stop_machines while the other CPUs made calls", done);
	scf_check_and_report((int)me);
}

static struct trigger_user_check call_waits, stop_waits;

/* Every call waited for and every stop_machine state change ended its wait by its kick. */
static void call_waits_ended_by_their_kicks(void)
{
	trigger_user_check_end(&call_waits);
}

static void state_waits_ended_by_their_kicks(void)
{
	trigger_user_check_end(&stop_waits);
}

static int scftorture_init(void)
{
	trigger_user_check_begin(&call_waits, "call_completion");
	trigger_user_check_begin(&stop_waits, "stop_machine");
	return 0;
}

static const struct test_case scftorture_cases[] = {
	TEST_CASE(random_calls_from_every_cpu),
	TEST_CASE(calls_while_the_machine_stops),
	TEST_CASE(call_waits_ended_by_their_kicks),
	TEST_CASE(state_waits_ended_by_their_kicks),
};
TEST_SUITE(scftorture, scftorture_cases, scftorture_init, NULL);
