// SPDX-License-Identifier: MIT
#include <cpu/cpu.h>
#include <arch/ipi_evidence.h>
#include <time/time.h>
#include <time/timer.h>

static void (*tick_hook)(void);
/* Called after the tick hook on every tick: the harness's watchdog registers itself. */
static void (*tick_watcher)(void);

void timer_calibrate(void)
{
	arch_timer_calibrate();
}

void timer_set_tick_hook(void (*hook)(void))
{
	__atomic_store_n(&tick_hook, hook, __ATOMIC_RELEASE);
}

void timer_set_tick_watcher(void (*watcher)(void))
{
	__atomic_store_n(&tick_watcher, watcher, __ATOMIC_RELEASE);
}

/* The pending one-shot of each CPU, in TSC cycles; 0: none (or periodic). */
static uint64_t oneshot_due[MAX_CPUS];
static uint64_t period_ns[MAX_CPUS];	/* the periodic timer's period; 0: not periodic */

void timer_oneshot(uint64_t nanoseconds)
{
	oneshot_due[cpu_id()] = cycles() + ns_to_cycles(nanoseconds);
	period_ns[cpu_id()] = 0;
	arch_timer_oneshot(nanoseconds);
}

void timer_oneshot_no_later_than(uint64_t nanoseconds)
{
	uint64_t due = oneshot_due[cpu_id()];

	/* A periodic timer (the watchdog's) already bounds any wait. */
	if (period_ns[cpu_id()])
		return;
	if (due && due <= cycles() + ns_to_cycles(nanoseconds))
		return;
	timer_oneshot(nanoseconds);
}

void timer_periodic(uint64_t nanoseconds)
{
	oneshot_due[cpu_id()] = 0;
	period_ns[cpu_id()] = nanoseconds;
	arch_timer_periodic(nanoseconds);
}

uint64_t timer_period_ns(void)
{
	return period_ns[cpu_id()];
}

void timer_stop(void)
{
	oneshot_due[cpu_id()] = 0;
	period_ns[cpu_id()] = 0;
	arch_timer_stop();
}

void timer_tick(void)
{
	void (*hook)(void) = __atomic_load_n(&tick_hook, __ATOMIC_ACQUIRE);
	void (*watcher)(void) = __atomic_load_n(&tick_watcher, __ATOMIC_ACQUIRE);

	if (!period_ns[cpu_id()])
		oneshot_due[cpu_id()] = 0;
	this_cpu()->timer_ticks++;
	if (hook)
		hook();
	if (watcher)
		watcher();
	/* The one periodic tick: an untimed wait's wake-up gets its probe here. */
	if (period_ns[cpu_id()])
		ipi_evidence_sweep();
}
