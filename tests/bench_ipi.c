// SPDX-License-Identifier: MIT
/*
 * Benchmarks (make bench; run only when test= names them): IPI delivery and
 * round trip (unicast, broadcast, self, NMI), cross-CPU call latency
 * (single, many against the number of targets, all, each) and stop_machine
 * latency, each to targets that spin with interrupts enabled and to targets
 * halted in their idle loop.  Distributions in TSC cycles, the warm-up
 * discarded and the timer overhead subtracted; one "# BENCH {...}" line
 * per figure (bench.h).
 *
 * A round trip is TSC before the send to TSC when the sender sees the
 * handler's acknowledgement; delivery is TSC before the send to TSC at the
 * handler's entry on the target (only where the TSCs agree across CPUs).
 * Under overcommit (-smp 8 on 2 host cores) spinning targets compete with
 * the sender for host CPUs: the figures are what this machine does, not
 * what the code costs alone.  Each figure stops at a sample count or a time
 * limit, whichever comes first.
 */
#include <harness/bench.h>
#include <cpu/cpumask.h>
#include <arch/ipi.h>
#include <sync/irq.h>
#include <sync/trigger.h>
#include <sync/trigger_backend.h>
#include <smp/smp.h>
#include <smp/smp_call.h>
#include <smp/stop_machine.h>
#include <harness/test.h>
#include <time/time.h>
#include <smp/tsc_sync.h>
#include <lib/format.h>
#include <asm/interrupts.h>

#include "cpu_test.h"

#define SAMPLES_MAX		2000
#define WARMUP			20
#define FIGURE_TIME_NS		(1500ull * 1000 * 1000)
#define HANDSHAKE_TIMEOUT_NS	(1000ull * 1000 * 1000)
#define STOP_SAMPLES_MAX	200
#define STOP_WARMUP		2
#define STOP_FIGURE_TIME_NS	(4000ull * 1000 * 1000)

#define fail_here(message) test_report_failure(__FILE__, __LINE__, "%s", message)

static uint64_t samples[SAMPLES_MAX];
static uint64_t delivery[SAMPLES_MAX];
static uint64_t send_cost[SAMPLES_MAX];

/* Report @count samples of TSC cycles, @warmup rounds discarded before them. */
static void report_after_warmup(const char *name, uint64_t *values, size_t count,
				unsigned int warmup)
{
	const struct bench_figure figure = { .name = name, .unit = "cycles", .warmup = warmup };

	bench_report_cycles(&figure, values, count);
}

static void report(const char *name, uint64_t *values, size_t count)
{
	report_after_warmup(name, values, count, WARMUP);
}

/* --- Targets that spin ------------------------------------------------------- */

static bool spinners_stop;
static uint64_t spinners_running;

static void spin_until_stopped(void *unused)
{
	/* In the idle loop's work slot: interrupts are enabled here. */
	__atomic_fetch_add(&spinners_running, 1, __ATOMIC_ACQ_REL);
	while (!__atomic_load_n(&spinners_stop, __ATOMIC_ACQUIRE))
		cpu_relax();
}

/*
 * Start a spinner on every CPU of @mask; on failure stop those started (an
 * ASSERT must not leave CPUs spinning, their work slots taken).
 */
static bool spinners_start(const struct cpumask *mask)
{
	unsigned int cpu, started = 0;

	spinners_stop = false;
	spinners_running = 0;
	for_each_cpu(cpu, mask) {
		if (!smp_run_on_async(cpu, spin_until_stopped, NULL))
			break;
		started++;
	}
	if (started == cpumask_weight(mask) &&
	    cpu_test_wait_at_least(&spinners_running, started, CPU_TEST_TIMEOUT_NS))
		return true;
	__atomic_store_n(&spinners_stop, true, __ATOMIC_RELEASE);
	for_each_cpu(cpu, mask) {
		if (started-- == 0)
			break;
		smp_wait_for(cpu, CPU_TEST_TIMEOUT_NS);
	}
	return false;
}

static void spinners_end(const struct cpumask *mask)
{
	unsigned int cpu;

	__atomic_store_n(&spinners_stop, true, __ATOMIC_RELEASE);
	for_each_cpu(cpu, mask)
		EXPECT_TRUE(smp_wait_for(cpu, CPU_TEST_TIMEOUT_NS));
}

static void others(struct cpumask *mask)
{
	cpumask_set_online(mask);
	cpumask_clear_cpu(mask, cpu_id());
}

static void one_cpu(struct cpumask *mask, unsigned int cpu)
{
	cpumask_clear(mask);
	cpumask_set_cpu(mask, cpu);
}

/* --- IPIs --------------------------------------------------------------------- */

static uint64_t acks[MAX_CPUS];
static uint64_t arrival[MAX_CPUS];	/* TSC at the handler's entry */
static int bench_vector = -1;

/*
 * The mean figure's sender waits for the acknowledgement on a trigger, the
 * kernel's wait: the adaptive backend spins for about one wake-up's cost,
 * then halts, giving the host CPU back to the target it waits for.  The
 * handler kicks it.
 */
static DEFINE_TRIGGER_USER(ipi_ack_user, "bench_ipi_ack");
static DEFINE_TRIGGER(ack_trigger);
static bool ack_kicks;			/* the handler kicks ack_trigger */
static uint64_t kicked_at;		/* TSC just before the handler's kick */

static void acknowledge(void)
{
	unsigned int me = cpu_id();

	arrival[me] = cycles();
	__atomic_store_n(&acks[me], acks[me] + 1, __ATOMIC_RELEASE);
	if (__atomic_load_n(&ack_kicks, __ATOMIC_ACQUIRE)) {
		__atomic_store_n(&kicked_at, cycles(), __ATOMIC_RELAXED);
		trigger_kick(&ack_trigger);
	}
}

static int ipi_bench_init(void)
{
	trigger_init_user(&ack_trigger, &ipi_ack_user);
	bench_vector = ipi_vector_alloc(acknowledge);
	return bench_vector < 0;
}

static void ipi_bench_exit(void)
{
	if (bench_vector >= 0)
		ipi_vector_free((unsigned int)bench_vector);
	bench_vector = -1;
}

/* Wait until every CPU of @mask has acknowledged @round; false after the timeout. */
static bool all_acknowledged(const struct cpumask *mask, const uint64_t *want)
{
	unsigned int cpu;

	for_each_cpu(cpu, mask) {
		if (!cpu_test_wait_at_least(&acks[cpu], want[cpu], HANDSHAKE_TIMEOUT_NS))
			return false;
	}
	return true;
}

enum send_way {
	SEND_UNICAST,		/* ipi_send() to the one CPU of the mask */
	SEND_ALLBUTSELF,	/* ipi_send_allbutself(): the shorthand when usable */
	SEND_MASK,		/* ipi_send_mask(): one unicast per CPU */
};

/* Time IPIs to @mask, sent @way, one at a time, each waited for. */
static size_t measure_ipis(const struct cpumask *mask, enum send_way way, size_t *delivered)
{
	uint64_t returned;
	uint64_t want[MAX_CPUS], start = now_ns();
	bool timing = cross_cpu_timing_reliable();
	unsigned int cpu, target = cpumask_first(mask);
	size_t count = 0;

	*delivered = 0;
	for (int round = 0; count < SAMPLES_MAX && now_ns() - start < FIGURE_TIME_NS; round++) {
		uint64_t sent, seen, latest = 0;

		for_each_cpu(cpu, mask)
			want[cpu] = __atomic_load_n(&acks[cpu], __ATOMIC_ACQUIRE) + 1;
		sent = cycles();
		if (way == SEND_ALLBUTSELF)
			ipi_send_allbutself((unsigned int)bench_vector);
		else if (way == SEND_MASK)
			ipi_send_mask(mask, (unsigned int)bench_vector);
		else
			ipi_send(target, (unsigned int)bench_vector);
		returned = cycles();
		if (!all_acknowledged(mask, want)) {
			fail_here("an IPI was not acknowledged in time");
			break;
		}
		seen = cycles();
		if (round < WARMUP)
			continue;
		send_cost[count] = returned - sent;
		samples[count++] = seen - sent;
		for_each_cpu(cpu, mask) {
			if (arrival[cpu] - sent > latest)
				latest = arrival[cpu] - sent;
		}
		if (timing && latest < seen - sent)
			delivery[(*delivered)++] = latest;
	}
	return count;
}

static void report_ipis(const char *round_trip_name, const char *delivery_name,
			const char *send_name, const struct cpumask *mask, enum send_way way)
{
	size_t delivered, count = measure_ipis(mask, way, &delivered);

	report(round_trip_name, samples, count);
	if (delivered)
		report(delivery_name, delivery, delivered);
	if (send_name)
		report(send_name, send_cost, count);
}

static void ipi_unicast_to_a_spinning_cpu(void)
{
	struct cpumask target;

	if (cpus_online() < 2)
		test_skip("one CPU: no other CPU");
	one_cpu(&target, 1);
	ASSERT_TRUE(spinners_start(&target));
	report_ipis("ipi_unicast_round_trip_spinning", "ipi_unicast_delivery_spinning",
		    "ipi_unicast_send_cost", &target, SEND_UNICAST);
	spinners_end(&target);
}

static void ipi_unicast_to_a_halted_cpu(void)
{
	struct cpumask target;

	if (cpus_online() < 2)
		test_skip("one CPU: no other CPU");
	one_cpu(&target, 1);
	report_ipis("ipi_unicast_round_trip_halted", "ipi_unicast_delivery_halted", NULL, &target,
		    SEND_UNICAST);
}

/*
 * The mean of back-to-back round trips to a halted CPU over at least
 * MEAN_WINDOW_CYCLES: kvm-unit-tests' vmexit `ipi` statistic (its printed
 * figure is cycles per IPI-and-wait over a run of at least 2^30 cycles),
 * so that tools/bench can set the two side by side.  The target halts in
 * its idle loop between them, as vmexit's does in `sti; hlt`; the next IPI
 * may find it not yet back in HLT, in both.  The sender waits on
 * ack_trigger (above): what a kernel user waiting for another CPU does.
 */
#define MEAN_WINDOW_CYCLES	(1ull << 30)

/* Wait on ack_trigger until @cpu's acknowledgements reach @want; false at the timeout. */
static bool wait_acknowledged(unsigned int cpu, uint64_t want)
{
	uint64_t deadline = now_ns() + HANDSHAKE_TIMEOUT_NS;
	bool in_time = true;

	trigger_reset(&ack_trigger);
	while (__atomic_load_n(&acks[cpu], __ATOMIC_ACQUIRE) < want) {
		if (!trigger_wait_timeout(&ack_trigger, deadline) &&
		    __atomic_load_n(&acks[cpu], __ATOMIC_ACQUIRE) < want) {
			in_time = false;
			break;
		}
	}
	trigger_finish(&ack_trigger);
	return in_time;
}

/*
 * Where a round trip's cycles go, each phase's mean over the rounds whose
 * stamps are in order (TSCs compared across CPUs: only where they agree),
 * in the order they happen: the loop from the previous round's end to this
 * send, the sender's ipi_send() (the ICR write wakes the halted target's
 * vCPU), from its return to the handler's entry on the target, the handler
 * up to its kick, from the kick to the sender's wait returning (the spin
 * seeing it, or the kick's wake-up), and the trigger's bookkeeping to
 * trigger_finish().  Phase i runs from stamp i to stamp i + 1.
 */
enum round_stamp {
	STAMP_PREVIOUS_END, STAMP_BEGIN, STAMP_SENT, STAMP_HANDLED, STAMP_KICKED, STAMP_RETURNED,
	STAMP_FINISHED, STAMP_COUNT
};
#define PHASE_COUNT	(STAMP_COUNT - 1)

static const char *const round_phase_names[PHASE_COUNT] = {
	"ipi_halted_mean_phase_loop", "ipi_halted_mean_phase_send",
	"ipi_halted_mean_phase_to_handler", "ipi_halted_mean_phase_handler",
	"ipi_halted_mean_phase_to_waiter", "ipi_halted_mean_phase_bookkeeping",
};

static bool add_round_phases(uint64_t *sums, const uint64_t *stamps)
{
	for (int i = 1; i < STAMP_COUNT; i++) {
		if (stamps[i] < stamps[i - 1])
			return false;
	}
	for (int i = 1; i < STAMP_COUNT; i++)
		sums[i - 1] += stamps[i] - stamps[i - 1];
	return true;
}

static void ipi_unicast_to_a_halted_cpu_mean(void)
{
	uint64_t want, begin, took, previous = 0, phase_sums[PHASE_COUNT] = { 0 }, stamped = 0;
	uint64_t rounds = 0;
	bool in_time = true, timing = cross_cpu_timing_reliable();

	if (cpus_online() < 2)
		test_skip("one CPU: no other CPU");
	want = __atomic_load_n(&acks[1], __ATOMIC_ACQUIRE);
	__atomic_store_n(&ack_kicks, true, __ATOMIC_RELEASE);
	begin = cycles();
	do {
		uint64_t round[STAMP_COUNT] = { [STAMP_PREVIOUS_END] = previous,
						[STAMP_BEGIN] = cycles() };
		struct trigger_sequence_record sequence;

		ipi_send(1, (unsigned int)bench_vector);
		round[STAMP_SENT] = cycles();
		in_time = wait_acknowledged(1, ++want);
		round[STAMP_FINISHED] = cycles();
		if (!in_time)
			break;
		trigger_last_sequence(cpu_id(), &sequence);
		round[STAMP_HANDLED] = __atomic_load_n(&arrival[1], __ATOMIC_RELAXED);
		round[STAMP_KICKED] = __atomic_load_n(&kicked_at, __ATOMIC_RELAXED);
		round[STAMP_RETURNED] = sequence.return_tsc;
		if (timing && previous && sequence.waits && add_round_phases(phase_sums, round))
			stamped++;
		previous = round[STAMP_FINISHED];
		rounds++;
		took = cycles() - begin;
	} while (took < MEAN_WINDOW_CYCLES);
	__atomic_store_n(&ack_kicks, false, __ATOMIC_RELEASE);
	if (!in_time) {
		fail_here("an IPI was not acknowledged in time");
		return;
	}
	bench_report_value("ipi_unicast_round_trip_halted_mean", "cycles", took / rounds);
	test_diag("%llu round trips in %llu cycles, the sender waiting on a trigger",
		  (unsigned long long)rounds, (unsigned long long)took);
	if (!stamped) {
		test_diag("no round's stamps in order%s: no phases reported",
			  timing ? "" : " (the TSCs of the CPUs may disagree)");
		return;
	}
	for (int phase = 0; phase < PHASE_COUNT; phase++)
		bench_report_value(round_phase_names[phase], "cycles", phase_sums[phase] / stamped);
	test_diag("phases from %llu of the rounds (the sender waited, stamps in order)",
		  (unsigned long long)stamped);
}

static void ipi_broadcast_to_spinning_cpus(void)
{
	struct cpumask targets;

	if (cpus_online() < 2)
		test_skip("one CPU: nobody to broadcast to");
	others(&targets);
	ASSERT_TRUE(spinners_start(&targets));
	report_ipis("ipi_broadcast_round_trip_spinning", "ipi_broadcast_delivery_spinning",
		    "ipi_broadcast_send_cost", &targets, SEND_ALLBUTSELF);
	report_ipis("ipi_multicast_round_trip_spinning", "ipi_multicast_delivery_spinning",
		    "ipi_multicast_send_cost", &targets, SEND_MASK);
	spinners_end(&targets);
	test_diag("broadcast: %s; multicast: one unicast per CPU", ipi_shorthand_usable() ?
		  "one all-excluding-self shorthand" :
		  "one unicast per CPU (not every listed CPU is online)");
}

static void ipi_broadcast_to_halted_cpus(void)
{
	struct cpumask targets;

	if (cpus_online() < 2)
		test_skip("one CPU: nobody to broadcast to");
	others(&targets);
	report_ipis("ipi_broadcast_round_trip_halted", "ipi_broadcast_delivery_halted", NULL,
		    &targets, SEND_ALLBUTSELF);
	report_ipis("ipi_multicast_round_trip_halted", "ipi_multicast_delivery_halted", NULL,
		    &targets, SEND_MASK);
}

static void ipi_to_self(void)
{
	struct cpumask self;
	size_t delivered;

	one_cpu(&self, cpu_id());
	report("ipi_self_round_trip", samples, measure_ipis(&self, SEND_UNICAST, &delivered));
}

/* NMIs: claimed only while owed (the watchdog sends NMIs too). */
static uint64_t nmi_owed[MAX_CPUS], nmi_seen[MAX_CPUS];

static bool bench_nmi(struct interrupt_frame *frame)
{
	unsigned int me = cpu_id();

	if (__atomic_load_n(&nmi_seen[me], __ATOMIC_RELAXED) >=
	    __atomic_load_n(&nmi_owed[me], __ATOMIC_ACQUIRE))
		return false;
	__atomic_fetch_add(&nmi_seen[me], 1, __ATOMIC_RELEASE);
	return true;
}

static void nmi_unicast_to_a_spinning_cpu(void)
{
	static bool registered;
	struct cpumask target;
	uint64_t start;
	size_t count = 0;

	if (cpus_online() < 2)
		test_skip("one CPU: no other CPU");
	if (!registered)
		registered = nmi_register(bench_nmi);
	ASSERT_TRUE(registered);
	one_cpu(&target, 1);
	ASSERT_TRUE(spinners_start(&target));
	start = now_ns();
	for (int round = 0; count < SAMPLES_MAX && now_ns() - start < FIGURE_TIME_NS; round++) {
		uint64_t want = __atomic_add_fetch(&nmi_owed[1], 1, __ATOMIC_ACQ_REL);
		uint64_t sent = cycles();

		ipi_send_nmi(1);
		if (!cpu_test_wait_at_least(&nmi_seen[1], want, HANDSHAKE_TIMEOUT_NS)) {
			fail_here("an NMI was not acknowledged in time");
			break;
		}
		if (round >= WARMUP)
			samples[count++] = cycles() - sent;
	}
	spinners_end(&target);
	report("nmi_unicast_round_trip_spinning", samples, count);
}

/*
 * The floor under every cross-CPU round trip: a store seen by a CPU that
 * polls for it, answered by a store the sender polls for.  No interrupt.
 */
static uint64_t ping, pong;

static void answer_pings(void *unused)
{
	uint64_t seen = 0;

	__atomic_fetch_add(&spinners_running, 1, __ATOMIC_ACQ_REL);
	while (!__atomic_load_n(&spinners_stop, __ATOMIC_ACQUIRE)) {
		uint64_t now = __atomic_load_n(&ping, __ATOMIC_ACQUIRE);

		if (now != seen) {
			seen = now;
			__atomic_store_n(&pong, now, __ATOMIC_RELEASE);
		}
		cpu_relax();
	}
}

static void memory_round_trip(void)
{
	struct cpumask target;
	uint64_t start;
	size_t count = 0;

	if (cpus_online() < 2)
		test_skip("one CPU: no other CPU");
	one_cpu(&target, 1);
	ping = pong = 0;
	spinners_stop = false;
	spinners_running = 0;
	ASSERT_TRUE(smp_run_on_async(1, answer_pings, NULL));
	if (!cpu_test_wait_at_least(&spinners_running, 1, CPU_TEST_TIMEOUT_NS)) {
		spinners_end(&target);
		ASSERT_TRUE(false);
	}
	start = now_ns();
	for (uint64_t round = 1; count < SAMPLES_MAX && now_ns() - start < FIGURE_TIME_NS;
	     round++) {
		uint64_t sent = cycles();

		__atomic_store_n(&ping, round, __ATOMIC_RELEASE);
		if (!cpu_test_wait_at_least(&pong, round, HANDSHAKE_TIMEOUT_NS)) {
			fail_here("a ping was not answered in time");
			break;
		}
		if (round > WARMUP)
			samples[count++] = cycles() - sent;
	}
	spinners_end(&target);
	report("memory_round_trip", samples, count);
}

static const struct test_case bench_ipi_cases[] = {
	TEST_CASE(memory_round_trip),
	TEST_CASE(ipi_unicast_to_a_spinning_cpu),
	TEST_CASE(ipi_unicast_to_a_halted_cpu),
	TEST_CASE(ipi_unicast_to_a_halted_cpu_mean),
	TEST_CASE(ipi_broadcast_to_spinning_cpus),
	TEST_CASE(ipi_broadcast_to_halted_cpus),
	TEST_CASE(ipi_to_self),
	TEST_CASE(nmi_unicast_to_a_spinning_cpu),
};
TEST_SUITE(bench_ipi, bench_ipi_cases, ipi_bench_init, ipi_bench_exit);

/* --- Cross-CPU calls -------------------------------------------------------------- */

static uint64_t calls_run;

static void nop_call(void *unused)
{
	__atomic_fetch_add(&calls_run, 1, __ATOMIC_RELEASE);
}

enum call_kind { CALL_SINGLE, CALL_MANY, CALL_ALL, CALL_EACH };

/* Time waited calls of @kind (@mask for CALL_MANY, @target for CALL_SINGLE). */
static size_t measure_calls(enum call_kind kind, unsigned int target, const struct cpumask *mask)
{
	uint64_t start = now_ns();
	size_t count = 0;

	for (int round = 0; count < SAMPLES_MAX && now_ns() - start < FIGURE_TIME_NS; round++) {
		uint64_t begin = cycles(), took;
		int status;

		switch (kind) {
		case CALL_SINGLE:
			status = smp_call_function_single(target, nop_call, NULL, true);
			break;
		case CALL_MANY:
			status = smp_call_function_many(mask, nop_call, NULL, true);
			break;
		case CALL_ALL:
			status = smp_call_function(nop_call, NULL, true);
			break;
		case CALL_EACH:
		default:
			status = on_each_cpu(nop_call, NULL, true);
			break;
		}
		took = cycles() - begin;
		if (status != SMP_CALL_OK) {
			EXPECT_EQ(status, SMP_CALL_OK);
			break;
		}
		if (round >= WARMUP)
			samples[count++] = took;
	}
	return count;
}

static void call_single_to_a_spinning_cpu(void)
{
	struct cpumask target;

	if (cpus_online() < 2)
		test_skip("one CPU: no other CPU");
	one_cpu(&target, 1);
	ASSERT_TRUE(spinners_start(&target));
	report("call_single_wait_spinning", samples, measure_calls(CALL_SINGLE, 1, NULL));
	spinners_end(&target);
}

static void call_single_to_a_halted_cpu(void)
{
	if (cpus_online() < 2)
		test_skip("one CPU: no other CPU");
	report("call_single_wait_halted", samples, measure_calls(CALL_SINGLE, 1, NULL));
}

static void call_single_to_self(void)
{
	report("call_single_wait_self", samples, measure_calls(CALL_SINGLE, cpu_id(), NULL));
}

/* What a no-wait call costs its caller (the call's completion is waited for, untimed). */
static void call_single_nowait_issue_cost(void)
{
	struct cpumask target;
	uint64_t start;
	size_t count = 0;

	if (cpus_online() < 2)
		test_skip("one CPU: no other CPU");
	one_cpu(&target, 1);
	ASSERT_TRUE(spinners_start(&target));
	calls_run = 0;
	start = now_ns();
	for (int round = 0; count < SAMPLES_MAX && now_ns() - start < FIGURE_TIME_NS; round++) {
		uint64_t begin = cycles(), took;

		if (smp_call_function_single(1, nop_call, NULL, false) != SMP_CALL_OK) {
			fail_here("a no-wait call was refused");
			break;
		}
		took = cycles() - begin;
		if (!cpu_test_wait_at_least(&calls_run, (uint64_t)round + 1,
					    HANDSHAKE_TIMEOUT_NS)) {
			fail_here("a no-wait call did not run in time");
			break;
		}
		if (round >= WARMUP)
			samples[count++] = took;
	}
	spinners_end(&target);
	report("call_single_nowait_issue_spinning", samples, count);
}

static void call_many_against_the_number_of_targets(void)
{
	char name[64];

	if (cpus_online() < 2)
		test_skip("one CPU: no other CPU");
	for (unsigned int targets = 1; targets < cpus_online(); targets++) {
		struct cpumask mask;

		cpumask_clear(&mask);
		for (unsigned int cpu = 1; cpu <= targets; cpu++)
			cpumask_set_cpu(&mask, cpu);
		ASSERT_TRUE(spinners_start(&mask));
		snprintf(name, sizeof(name), "call_many_wait_spinning_%utargets", targets);
		report(name, samples, measure_calls(CALL_MANY, 0, &mask));
		spinners_end(&mask);
	}
}

static void call_all_to_spinning_cpus(void)
{
	struct cpumask targets;

	if (cpus_online() < 2)
		test_skip("one CPU: no other CPU");
	others(&targets);
	ASSERT_TRUE(spinners_start(&targets));
	report("call_all_wait_spinning", samples, measure_calls(CALL_ALL, 0, NULL));
	spinners_end(&targets);
}

static void call_all_to_halted_cpus(void)
{
	if (cpus_online() < 2)
		test_skip("one CPU: no other CPU");
	report("call_all_wait_halted", samples, measure_calls(CALL_ALL, 0, NULL));
}

static void on_each_cpu_with_the_others_halted(void)
{
	report("on_each_cpu_wait_halted", samples, measure_calls(CALL_EACH, 0, NULL));
}

static const struct test_case bench_call_cases[] = {
	TEST_CASE(call_single_to_a_spinning_cpu),
	TEST_CASE(call_single_to_a_halted_cpu),
	TEST_CASE(call_single_to_self),
	TEST_CASE(call_single_nowait_issue_cost),
	TEST_CASE(call_many_against_the_number_of_targets),
	TEST_CASE(call_all_to_spinning_cpus),
	TEST_CASE(call_all_to_halted_cpus),
	TEST_CASE(on_each_cpu_with_the_others_halted),
};
TEST_SUITE(bench_call, bench_call_cases, NULL, NULL);

/* --- stop_machine --------------------------------------------------------------------- */

static int nothing_to_do(void *unused)
{
	return 0;
}

static size_t measure_stop_machine(void)
{
	uint64_t start = now_ns();
	size_t count = 0;

	for (int round = 0; count < STOP_SAMPLES_MAX && now_ns() - start < STOP_FIGURE_TIME_NS;
	     round++) {
		uint64_t begin = cycles(), took;
		int result = stop_machine(nothing_to_do, NULL, NULL);

		took = cycles() - begin;
		if (result != 0) {
			EXPECT_EQ(result, 0);
			break;
		}
		if (round >= STOP_WARMUP)
			samples[count++] = took;
	}
	return count;
}

static void stop_machine_with_the_others_halted(void)
{
	report_after_warmup("stop_machine_halted", samples, measure_stop_machine(), STOP_WARMUP);
}

static void stop_machine_with_the_others_spinning(void)
{
	struct cpumask targets;

	if (cpus_online() < 2)
		test_skip("one CPU: no other CPU");
	others(&targets);
	ASSERT_TRUE(spinners_start(&targets));
	report_after_warmup("stop_machine_spinning", samples, measure_stop_machine(),
			    STOP_WARMUP);
	spinners_end(&targets);
}

static const struct test_case bench_stop_machine_cases[] = {
	TEST_CASE(stop_machine_with_the_others_halted),
	TEST_CASE(stop_machine_with_the_others_spinning),
};
TEST_SUITE(bench_stop_machine, bench_stop_machine_cases, NULL, NULL);
