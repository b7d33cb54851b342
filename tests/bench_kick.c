// SPDX-License-Identifier: MIT
/*
 * What a kick costs the CPU that kicks (make bench, bench=kick).
 *
 * The 2008 patch's kick is one locked add on the trigger word, plus a wake
 * send for each waiter that published itself.  Whatever trigos adds to it
 * (its accounting, the evidence stamps) is paid on every kick, waiter or
 * not, so it shows in the kick nobody waits for: every online CPU kicks a
 * trigger of its own, all at once, and times each trigger_kick() with the
 * TSC.  Anything the kicks share (a global counter, a per-CPU array whose
 * entries share cache lines) then has every CPU writing it together.
 *
 * Under QEMU's TCG a shared line costs what the host's cache coherence
 * makes the vCPU threads' atomics cost, with at most as many threads in
 * parallel as host cores; TCG models no caches of its own, so this can
 * show that the kick is not worse, not what it costs on hardware.
 */
#include <harness/bench.h>
#include <cpu/cpu.h>
#include <sync/irq.h>
#include <smp/smp.h>
#include <harness/test.h>
#include <time/time.h>
#include <sync/trigger.h>
#include <lib/format.h>

#define SAMPLES		32768	/* shared out among the CPUs taking part */
#define WARMUP		256	/* kicks per CPU not recorded */
#define START_BOUND_NS	(2000ull * 1000 * 1000)
#define FINISH_BOUND_NS	(20000ull * 1000 * 1000)

static struct {
	trigger_t trigger[MAX_CPUS];
	unsigned int slot[MAX_CPUS];
	unsigned int arrived, expected;
	size_t slice;		/* samples per CPU */
} kickers;

static uint64_t samples[SAMPLES];

static void kick_own_trigger(void *unused)
{
	unsigned int me = cpu_id(), slot = kickers.slot[me];
	uint64_t *mine = &samples[slot * kickers.slice];
	trigger_t *trigger = &kickers.trigger[me];
	uint64_t start = now_ns();
	bool enabled;

	(void)unused;
	/* Together: the point is every CPU kicking at once. */
	__atomic_fetch_add(&kickers.arrived, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(&kickers.arrived, __ATOMIC_ACQUIRE) < kickers.expected &&
	       now_ns() - start < START_BOUND_NS)
		cpu_relax();
	enabled = local_irq_save();
	for (size_t i = 0; i < WARMUP + kickers.slice; i++) {
		uint64_t before = cycles();

		trigger_kick(trigger);
		if (i >= WARMUP)
			mine[i - WARMUP] = cycles() - before;
	}
	local_irq_restore(enabled);
}

static void kick_with_nobody_waiting(void)
{
	unsigned int me = cpu_id(), taking_part = 0, asked = 1;
	bool started[MAX_CPUS] = { false };
	char extra[48];
	struct bench_figure figure = {
		.name = "trigger_kick_nobody_waiting", .unit = "cycles", .warmup = WARMUP,
		.extra = extra,
	};

	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++) {
		trigger_init(&kickers.trigger[cpu]);
		if (cpu == me || cpu_is_online(cpu))
			kickers.slot[cpu] = taking_part++;
	}
	kickers.arrived = 0;
	kickers.expected = taking_part;
	kickers.slice = SAMPLES / taking_part;
	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++) {
		if (cpu != me && cpu_is_online(cpu))
			asked += started[cpu] = smp_run_on_async(cpu, kick_own_trigger, NULL);
	}
	EXPECT_EQ(asked, taking_part);
	kick_own_trigger(NULL);
	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++) {
		if (started[cpu])
			ASSERT_TRUE(smp_wait_for(cpu, FINISH_BOUND_NS));
	}
	snprintf(extra, sizeof(extra), ",\"kickers\":%u", taking_part);
	figure.cpus = taking_part;
	bench_report_cycles(&figure, samples, taking_part * kickers.slice);
}

static const struct test_case bench_kick_cases[] = {
	TEST_CASE(kick_with_nobody_waiting),
};
TEST_SUITE(bench_kick, bench_kick_cases, NULL, NULL);
