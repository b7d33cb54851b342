// SPDX-License-Identifier: MIT
/*
 * Trigger benchmarks (make bench):
 *  - wake latency, kick to waiter running, per backend, over CPU pairs, for
 *    a short wait (the kick comes 5 us after the waiter started waiting:
 *    within any spin budget) and a long one (2 ms: past it);
 *  - idle phases: every AP waits on a trigger for a few seconds with each
 *    backend in turn while the BSP sleeps, marked by "# BENCH-PHASE" lines
 *    so that tools/bench can read the QEMU process's host CPU from /proc
 *    during each one.
 * Latencies compare TSCs of two CPUs, so they are refused when the boot's
 * warp test found the TSCs out of step.
 */
#include <bench.h>
#include <lib/format.h>
#include <console.h>
#include <irq.h>
#include <options.h>
#include <smp.h>
#include <test.h>
#include <time.h>
#include <trigger.h>
#include <trigger_backend.h>
#include "trigger_test.h"
#include <tsc_sync.h>
#include <watchdog.h>

#define TARGET_SAMPLES		400	/* per backend: a p99 from 4 samples above it */
#define WARMUP_ROUNDS		5	/* per waiting CPU, discarded */
#define BACKEND_BUDGET_NS	(4000ull * 1000 * 1000)
#define REMOTE_TIMEOUT_NS	(2ull * 1000 * 1000 * 1000)

static struct {
	trigger_t trigger;
	volatile unsigned long flag;
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
	__atomic_store_n(&wake.waiting, true, __ATOMIC_RELEASE);
	while (__atomic_load_n(&wake.flag, __ATOMIC_ACQUIRE) != target)
		trigger_wait(&wake.trigger);
	wake.woke_at = cycles();
	trigger_finish(&wake.trigger);
	local_irq_restore(was_enabled);
	__atomic_store_n(&wake.done, true, __ATOMIC_RELEASE);
}

/* One kick-to-wake sample on @waiter, kicked @delay_ns after it waits; 0 on failure. */
static uint64_t one_wake(unsigned int waiter, uint64_t delay_ns)
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
	return wake.woke_at > wake.kicked_at ? wake.woke_at - wake.kicked_at : 0;
}

static uint64_t samples[TARGET_SAMPLES];

/*
 * Wake-ups for one backend, the waiting CPUs taken in turn so that every
 * pair counts alike; the first WARMUP_ROUNDS of each CPU discarded.  Stops
 * at TARGET_SAMPLES or the time budget.
 */
static size_t measure_backend(uint64_t delay_ns)
{
	uint64_t start = now_ns();
	unsigned int rounds[MAX_CPUS] = { 0 };
	unsigned int waiter = 0;
	size_t count = 0;

	while (count < TARGET_SAMPLES && now_ns() - start < BACKEND_BUDGET_NS) {
		uint64_t latency;

		do
			waiter = waiter + 1 < cpus_present() ? waiter + 1 : 1;
		while (!cpu_is_online(waiter));
		latency = one_wake(waiter, delay_ns);
		if (rounds[waiter]++ >= WARMUP_ROUNDS && latency)
			samples[count++] = latency;
	}
	return count;
}

static void measure_wake_latency(uint64_t delay_ns, const char *workload)
{
	char name[64];

	if (cpus_online() < 2)
		test_skip("one CPU: nobody to wake");
	if (!cross_cpu_timing_reliable())
		test_skip("the CPUs' TSCs disagree: cross-CPU latencies refused");
	snprintf(name, sizeof(name), "trigger_wake_%s", workload);
	for (int backend = 0; backend < TRIGGER_BACKEND_COUNT; backend++) {
		struct bench_figure figure = {
			.name = name, .backend = trigger_backend_name(backend), .unit = "ns",
			.warmup = WARMUP_ROUNDS * (cpus_online() - 1),
		};

		if (!trigger_backend_set(backend))
			continue;
		trigger_init(&wake.trigger);
		bench_report_cycles(&figure, samples, measure_backend(delay_ns));
	}
}

static void wake_latency_short_waits(void)
{
	measure_wake_latency(5000, "short");
}

static void wake_latency_long_waits(void)
{
	measure_wake_latency(2000000, "long");
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
