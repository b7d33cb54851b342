// SPDX-License-Identifier: MIT
#include <log/console.h>
#include <cpu/cpu.h>
#include <harness/ktap.h>
#include <boot/options.h>
#include <smp/smp.h>
#include <time/time.h>
#include <time/timer.h>
#include <harness/watchdog.h>

#define WATCHDOG_TICK_NS	(100ull * 1000 * 1000)	/* 10 checks a second */

static struct {
	int watcher;			/* logical CPU, -1: none */
	uint64_t timeout_cycles;
	/* The running case, written by the runner. */
	const char *case_name;
	unsigned int case_cpu;
	uint64_t case_start;
	unsigned long sequence;		/* odd while a case runs */
	unsigned long fired_for;	/* the sequence the watchdog fired for */
	unsigned long nmi_for;		/* the sequence its NMI is about */
} watch = { .watcher = -1 };

int watchdog_cpu(void)
{
	return watch.watcher;
}

static void start_ticking(void *unused)
{
	/* A candidate that comes to this late, passed over, keeps its timer off. */
	if ((int)cpu_id() == __atomic_load_n(&watch.watcher, __ATOMIC_ACQUIRE))
		timer_periodic(WATCHDOG_TICK_NS);
}

/* watchdog=S: a case may run S seconds; 0 turns the watchdog off. */
static unsigned int timeout_seconds = WATCHDOG_DEFAULT_SECONDS;

static bool parse_watchdog(const struct cmdline_word *word, const char **error)
{
	return option_parse_number(word, error, 0, 86400, &timeout_seconds);
}
KERNEL_OPTION(watchdog, "seconds, 0..86400 (0: off)", parse_watchdog);

void watchdog_init(void)
{
	bool tried = false;

	timer_set_tick_watcher(watchdog_tick);
	if (timeout_seconds == 0) {
		ktap_note("watchdog: off (watchdog=0)");
		return;
	}
	watch.timeout_cycles = ns_to_cycles((uint64_t)timeout_seconds * 1000000000ull);
	arch_watchdog_nmi_init(watchdog_nmi_is_ours);
	/*
	 * The highest online AP watches; one that does not start its timer in
	 * time (a vCPU the host stopped) hands the job to the next, and if it
	 * gets to start_ticking() later it finds it is no longer the watcher.
	 */
	for (unsigned int candidate = cpus_present(); candidate-- > 1;) {
		if (!__atomic_load_n(&cpus[candidate].online, __ATOMIC_ACQUIRE))
			continue;
		tried = true;
		__atomic_store_n(&watch.watcher, (int)candidate, __ATOMIC_RELEASE);
		if (!smp_run_on(candidate, start_ticking, NULL, 1000000000ull)) {
			__atomic_store_n(&watch.watcher, -1, __ATOMIC_RELEASE);
			ktap_note("watchdog: cpu %u did not start its timer", candidate);
			continue;
		}
		ktap_note("watchdog: cpu %u ends any test case that runs longer than %u s",
			  candidate, timeout_seconds);
		return;
	}
	if (tried)
		ktap_note("watchdog: off (no AP started its timer): a hung case is ended by the "
			  "host's timeout");
	else
		ktap_note("watchdog: off (one CPU): a hung case is ended by the host's timeout");
}

static void stop_ticking(void *unused)
{
	timer_stop();
}

bool watchdog_pause_tick(bool paused)
{
	int watcher = __atomic_load_n(&watch.watcher, __ATOMIC_ACQUIRE);

	if (watcher < 0)
		return false;
	return smp_run_on((unsigned int)watcher, paused ? stop_ticking : start_ticking, NULL,
			  1000000000ull);
}

void watchdog_case_begin(const char *case_name)
{
	watch.case_name = case_name;
	watch.case_cpu = cpu_id();
	watch.case_start = cycles();
	__atomic_fetch_add(&watch.sequence, 1, __ATOMIC_RELEASE);
}

void watchdog_case_end(void)
{
	__atomic_fetch_add(&watch.sequence, 1, __ATOMIC_RELEASE);
}

void watchdog_tick(void)
{
	unsigned long sequence;

	if ((int)cpu_id() != __atomic_load_n(&watch.watcher, __ATOMIC_ACQUIRE))
		return;
	sequence = __atomic_load_n(&watch.sequence, __ATOMIC_ACQUIRE);
	if (!(sequence & 1) || sequence == watch.fired_for)
		return;
	/* TSCs are synchronised (checked at boot), so the runner's start is comparable. */
	if (cycles() - watch.case_start < watch.timeout_cycles)
		return;
	watch.fired_for = sequence;
	/* The case's whole time, progress or not: watchdog=S is a budget, not a stall detector. */
	kprintf("    # watchdog: cpu %u has run %s for %llu s, more than watchdog= allows; "
		"sending it an NMI\n", watch.case_cpu, watch.case_name,
		(unsigned long long)(cycles_to_ns(cycles() - watch.case_start) / 1000000000ull));
	__atomic_store_n(&watch.nmi_for, sequence, __ATOMIC_RELEASE);
	arch_send_nmi(watch.case_cpu);
}

bool watchdog_nmi_is_ours(void)
{
	unsigned long expected = __atomic_load_n(&watch.nmi_for, __ATOMIC_ACQUIRE);

	if (expected == 0 || cpu_id() != watch.case_cpu ||
	    expected != __atomic_load_n(&watch.sequence, __ATOMIC_ACQUIRE))
		return false;
	return __atomic_compare_exchange_n(&watch.nmi_for, &expected, 0, false, __ATOMIC_ACQ_REL,
					   __ATOMIC_RELAXED);
}
