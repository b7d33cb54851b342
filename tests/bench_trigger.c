// SPDX-License-Identifier: MIT
/*
 * Trigger benchmarks (make bench):
 *  - wake latency, kick to waiter running, per backend (interleaved, one
 *    sample of each in turn), over CPU pairs, for a short wait (the kick
 *    within the adaptive spin budget) and a long one (2 ms: past it);
 *  - idle phases: every AP waits on a trigger for a few seconds with each
 *    backend in turn while the BSP sleeps, marked by "# BENCH-PHASE" lines
 *    so that tools/bench can read the QEMU process's host CPU from /proc
 *    during each one.
 * Latencies compare TSCs of two CPUs, so they are refused when the boot's
 * warp test found the TSCs out of step.
 */
#include <harness/bench.h>
#include <lib/format.h>
#include <log/console.h>
#include <sync/irq.h>
#include <boot/options.h>
#include <smp/smp.h>
#include <harness/test.h>
#include <time/time.h>
#include <sync/trigger.h>
#include <sync/trigger_backend.h>
#include "trigger_test.h"
#include <smp/tsc_sync.h>
#include <harness/watchdog.h>

#define TARGET_SAMPLES		400	/* per backend: a p99 from 4 samples above it */
#define WARMUP_ROUNDS		5	/* per waiting CPU, discarded */
#define BACKEND_BUDGET_NS	(4000ull * 1000 * 1000)
#define REMOTE_TIMEOUT_NS	(2ull * 1000 * 1000 * 1000)

static struct {
	trigger_t trigger;
	volatile unsigned long flag;
	volatile uint64_t waiting_at;
	volatile uint64_t kicked_at;
	volatile uint64_t woke_at;
	volatile bool waiting;
	volatile bool done;
} wake;

static void wake_waiter(void *argument)
{
	unsigned long target = (unsigned long)argument;
	bool was_enabled = local_irq_save();

	local_irq_enable();
	trigger_reset(&wake.trigger);
	wake.waiting_at = cycles();
	__atomic_store_n(&wake.waiting, true, __ATOMIC_RELEASE);
	while (__atomic_load_n(&wake.flag, __ATOMIC_ACQUIRE) != target)
		trigger_wait(&wake.trigger);
	wake.woke_at = cycles();
	trigger_finish(&wake.trigger);
	local_irq_restore(was_enabled);
	__atomic_store_n(&wake.done, true, __ATOMIC_RELEASE);
}

/*
 * One kick-to-wake sample on @waiter, kicked @delay_ns after it waits; 0 on
 * failure.  @kick_after: how long after the waiter began waiting the kick
 * came, by the TSC (the kicker may be descheduled for milliseconds).
 */
static uint64_t one_wake(unsigned int waiter, uint64_t delay_ns, uint64_t *kick_after)
{
	unsigned long target = wake.flag + 1;
	uint64_t start = now_ns();

	wake.waiting = false;
	wake.done = false;
	if (!smp_run_on_async(waiter, wake_waiter, (void *)target))
		return 0;
	while (!__atomic_load_n(&wake.waiting, __ATOMIC_ACQUIRE) &&
	       now_ns() - start < REMOTE_TIMEOUT_NS)
		cpu_relax();
	ndelay(delay_ns);
	wake.kicked_at = cycles();
	__atomic_store_n(&wake.flag, target, __ATOMIC_RELEASE);
	trigger_kick(&wake.trigger);
	if (!smp_wait_for(waiter, REMOTE_TIMEOUT_NS) || !wake.done)
		return 0;
	*kick_after = wake.kicked_at - wake.waiting_at;
	return wake.woke_at > wake.kicked_at ? wake.woke_at - wake.kicked_at : 0;
}

static uint64_t samples[TRIGGER_BACKEND_COUNT][TARGET_SAMPLES];

/* What one set of wake-ups kept, per backend. */
struct wake_counts {
	size_t kept[TRIGGER_BACKEND_COUNT];
	size_t late[TRIGGER_BACKEND_COUNT];	/* dropped: the kick came past the limit */
};

/*
 * Wake-ups for every available backend, interleaved: each round takes one
 * sample of each backend in turn, starting with the next backend each
 * round (a wait right after a spinning one finds the host busier), so that
 * all of them see the same host load and their ratios hold even when the
 * load moves (measured one backend after the other, 2 vCPUs, adaptive's
 * long-wait p50 was 1.0x to 11x hlt's from one boot to the next, and
 * 0.004x once).  The waiting CPUs are taken in turn so that every pair
 * counts alike; the first WARMUP_ROUNDS of each CPU and backend are
 * discarded.  With @kick_within (TSC cycles, 0: any), a sample whose kick
 * came later than that after the wait began is dropped and counted late.
 * Stops at TARGET_SAMPLES per backend or the time budget.
 */
static void measure_backends(uint64_t delay_ns, uint64_t kick_within, struct wake_counts *counts)
{
	static unsigned int rounds[TRIGGER_BACKEND_COUNT][MAX_CPUS];
	uint64_t start = now_ns(), budget = 0;
	unsigned int waiter = 0;
	int first = 0;
	bool wanted = true;

	*counts = (struct wake_counts){ .kept = { 0 }, .late = { 0 } };
	for (int backend = 0; backend < TRIGGER_BACKEND_COUNT; backend++) {
		for (unsigned int cpu = 0; cpu < MAX_CPUS; cpu++)
			rounds[backend][cpu] = 0;
		if (!trigger_backend_unavailable(backend))
			budget += BACKEND_BUDGET_NS;
	}
	while (wanted && now_ns() - start < budget) {
		do
			waiter = waiter + 1 < cpus_present() ? waiter + 1 : 1;
		while (!cpu_is_online(waiter));
		wanted = false;
		first = (first + 1) % TRIGGER_BACKEND_COUNT;
		for (int turn = 0; turn < TRIGGER_BACKEND_COUNT; turn++) {
			int backend = (first + turn) % TRIGGER_BACKEND_COUNT;
			uint64_t latency, kick_after = 0;

			if (counts->kept[backend] == TARGET_SAMPLES || !trigger_backend_set(backend))
				continue;
			trigger_init(&wake.trigger);
			latency = one_wake(waiter, delay_ns, &kick_after);
			if (rounds[backend][waiter]++ < WARMUP_ROUNDS || !latency)
				;
			else if (kick_within && kick_after > kick_within)
				counts->late[backend]++;
			else
				samples[backend][counts->kept[backend]++] = latency;
			wanted |= counts->kept[backend] < TARGET_SAMPLES;
		}
	}
}

static void measure_wake_latency(uint64_t delay_ns, uint64_t kick_within_ns, const char *workload)
{
	struct wake_counts counts;
	char name[64], extra[80];

	if (cpus_online() < 2)
		test_skip("one CPU: nobody to wake");
	if (!cross_cpu_timing_reliable())
		test_skip("the CPUs' TSCs disagree: cross-CPU latencies refused");
	snprintf(name, sizeof(name), "trigger_wake_%s", workload);
	measure_backends(delay_ns, ns_to_cycles(kick_within_ns), &counts);
	for (int backend = 0; backend < TRIGGER_BACKEND_COUNT; backend++) {
		struct bench_figure figure = {
			.name = name, .backend = trigger_backend_name(backend), .unit = "ns",
			.warmup = WARMUP_ROUNDS * (cpus_online() - 1), .extra = extra,
		};

		if (trigger_backend_unavailable(backend))
			continue;
		snprintf(extra, sizeof(extra), ",\"delay_ns\":%llu,\"kicked_late\":%zu",
			 (unsigned long long)delay_ns, counts.late[backend]);
		bench_report_cycles(&figure, samples[backend], counts.kept[backend]);
	}
}

/*
 * A short wait is one whose kick comes within the adaptive backend's spin
 * budget (issue: "short waits (kick within the spin budget)"): the kick is
 * sent 5 us, or half the budget where that is less, after the waiter began,
 * and a sample whose kick the waiter saw come later than the budget (the
 * kicking vCPU was descheduled: at 2 vCPUs under host load, most of them)
 * is dropped and counted as "kicked_late", for every backend alike.
 */
static void wake_latency_short_waits(void)
{
	uint64_t budget_ns = trigger_spin_budget_ns(), delay_ns = budget_ns / 2;

	measure_wake_latency(delay_ns && delay_ns < 5000 ? delay_ns : 5000, budget_ns, "short");
}

static void wake_latency_long_waits(void)
{
	measure_wake_latency(2000000, 0, "long");
}

/* --- Idle phases: host CPU per backend, measured by tools/bench -------------------- */

static DEFINE_TRIGGER(idle_trigger);
static volatile bool idle_over;

static void idle_waiter(void *unused)
{
	bool was_enabled = local_irq_save();

	local_irq_enable();
	trigger_reset(&idle_trigger);
	while (!__atomic_load_n(&idle_over, __ATOMIC_ACQUIRE))
		trigger_wait(&idle_trigger);
	trigger_finish(&idle_trigger);
	local_irq_restore(was_enabled);
}

static void host_cpu_while_all_aps_wait(void)
{
	unsigned int seconds = kernel_options.torture_long ? 10 : 3;

	if (cpus_online() < 2)
		test_skip("one CPU: no AP to wait");
	for (int backend = 0; backend < TRIGGER_BACKEND_COUNT; backend++) {
		unsigned int waiting = 0;

		if (!trigger_backend_set(backend))
			continue;
		idle_over = false;
		for (unsigned int i = 1; i < cpus_present(); i++) {
			if (cpu_is_online(i) && smp_run_on_async(i, idle_waiter, NULL))
				waiting++;
		}
		/* tools/bench samples /proc/<qemu>/stat between these two lines. */
		kprintf("    # BENCH-PHASE begin idle_%s cpus=%u waiting=%u\n",
			trigger_backend_name(backend), cpus_online(), waiting);
		/* The BSP sleeps too, and ticks 10 times a second to count the time. */
		for (unsigned int tick = 0; tick < seconds * 10; tick++)
			cpu_sleep_at_most_ns(100000000);
		kprintf("    # BENCH-PHASE end idle_%s\n", trigger_backend_name(backend));
		__atomic_store_n(&idle_over, true, __ATOMIC_RELEASE);
		trigger_kick(&idle_trigger);
		for (unsigned int i = 1; i < cpus_present(); i++) {
			if (cpu_is_online(i))
				EXPECT_TRUE(smp_wait_for(i, REMOTE_TIMEOUT_NS));
		}
	}
}

static const struct test_case bench_trigger_cases[] = {
	TEST_CASE(wake_latency_short_waits),
	TEST_CASE(wake_latency_long_waits),
	TEST_CASE(host_cpu_while_all_aps_wait),
};
TEST_SUITE(bench_trigger, bench_trigger_cases, NULL, trigger_test_restore_boot_backend);
