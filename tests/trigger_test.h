/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_TESTS_TRIGGER_TEST_H
#define TRIGOS_TESTS_TRIGGER_TEST_H
/*
 * For the trigger suites: putting the boot's backend back, finding a CPU
 * to wait on, knowing when a waiter really waits, applying test_break= to
 * a test's kicks, and telling a lost wake-up from a late one.
 */

#include <cpu/cpu.h>
#include <boot/options.h>
#include <smp/smp.h>
#include <harness/test.h>
#include <time/time.h>
#include <sync/trigger.h>
#include <sync/trigger_backend.h>
#include <harness/watchdog.h>
#include <lib/format.h>
#include "cpu_test.h"

#define TRIGGER_TEST_MS			1000000ull
/* The bounds under a test_break=, whose sections expect the losses it makes: kept short. */
#define TRIGGER_TEST_BROKEN_REMOTE_NS	(2000ull * TRIGGER_TEST_MS)
#define TRIGGER_TEST_BROKEN_LOST_NS	(1000ull * TRIGGER_TEST_MS)

/*
 * How long a case waits for another CPU to do its part.  Unbroken, the
 * patience for another CPU's answer (cpu_test.h): a host that does not run
 * a vCPU for 1.5-3 s (tools/run --stall-vcpus) is late, never a failure.
 */
static inline uint64_t trigger_test_patience_ns(void)
{
	return kernel_options.test_breaks ? TRIGGER_TEST_BROKEN_REMOTE_NS
					  : CPU_TEST_ANSWER_PATIENCE_NS;
}

/*
 * A waiter not done this long after its kick has lost the wake-up (a
 * self-kick or a store involves no IPI for the evidence to judge, so time
 * is the only judge: the patience, unless a test_break= makes the losses).
 */
static inline uint64_t trigger_test_lost_after_ns(void)
{
	return kernel_options.test_breaks ? TRIGGER_TEST_BROKEN_LOST_NS
					  : CPU_TEST_ANSWER_PATIENCE_NS;
}

static inline void trigger_test_restore_boot_backend(void)
{
	trigger_backend_set(trigger_backend_boot_choice());
}

/*
 * The backends a case that tries "every backend" tries, in order; returns
 * the count.  Every backend this CPU can run - or, when the command line
 * named one (trigger=hlt) and the CPU has it, that one alone: a run that
 * names a backend is about that backend (the matrix's backend sections),
 * and a run with trigger=auto (every full run) tries them all.
 */
static inline unsigned int trigger_test_backends(enum trigger_backend_id *list)
{
	int named = trigger_options.backend;
	unsigned int count = 0;

	if (named != TRIGGER_BACKEND_AUTO && !trigger_backend_unavailable(named)) {
		list[0] = (enum trigger_backend_id)named;
		return 1;
	}
	for (int i = 0; i < TRIGGER_BACKEND_COUNT; i++) {
		if (!trigger_backend_unavailable(i))
			list[count++] = i;
	}
	return count;
}

/*
 * The parameters of a case tried on every backend, for TEST_CASE_PARAM: the
 * backends of trigger_test_backends(), each described by its name, so each
 * is a result of its own ("ok 3 hlt").  A parameter points at its backend's
 * entry in a table of every backend id.
 */
static inline const void *trigger_test_backend_params(const void *previous, char *description)
{
	static enum trigger_backend_id every_backend[TRIGGER_BACKEND_COUNT];
	enum trigger_backend_id list[TRIGGER_BACKEND_COUNT];
	unsigned int count = trigger_test_backends(list), next = 0;

	for (unsigned int i = 0; i < TRIGGER_BACKEND_COUNT; i++)
		every_backend[i] = (enum trigger_backend_id)i;
	if (previous) {
		while (next < count && list[next] != *(const enum trigger_backend_id *)previous)
			next++;
		next++;
	}
	if (next >= count)
		return NULL;
	snprintf(description, TEST_PARAM_DESCRIPTION_MAX, "%s", trigger_backend_name(list[next]));
	return &every_backend[list[next]];
}

/* The backend a trigger_test_backend_params() parameter names, made the current one. */
static inline enum trigger_backend_id trigger_test_use_backend(const void *param)
{
	enum trigger_backend_id backend = *(const enum trigger_backend_id *)param;

	if (!trigger_backend_set(backend))
		test_skip("%s cannot run now: %s", trigger_backend_name(backend),
			  trigger_backend_unavailable(backend));
	return backend;
}

/*
 * The block that follows, with @backend the parameter's backend made
 * current: a one-pass loop, so a `continue` or `break` in the block leaves
 * it and the case's code after it still runs.
 */
#define WITH_PARAM_BACKEND(backend, param)                                               \
	for (enum trigger_backend_id backend = trigger_test_use_backend(param),          \
	     *backend_once_ = &backend; backend_once_; backend_once_ = NULL)

/*
 * For a case whose waiter is this CPU, and which must see it sleep: another
 * CPU to help it.  Skips the case when there is none, or when this CPU
 * keeps the watchdog's tick (which would wake it).
 */
static inline unsigned int trigger_test_helper_cpu(void)
{
	int helper = cpu_test_other_cpu();

	if (helper < 0)
		test_skip("one CPU: no other CPU to help");
	if ((int)cpu_id() == watchdog_cpu())
		test_skip("the runner's CPU keeps the watchdog's tick");
	return (unsigned int)helper;
}

/*
 * Keep @cpu free of interrupts for a waiter: a halted waiter that the
 * watchdog's tick wakes would hide a lost wake-up.  Pauses that tick if
 * @cpu keeps it; returns whether it did (for trigger_test_unquiet_cpu).
 */
static inline bool trigger_test_quiet_cpu(int cpu)
{
	return cpu >= 0 && cpu == watchdog_cpu() && watchdog_pause_tick(true);
}

static inline void trigger_test_unquiet_cpu(bool paused)
{
	if (paused)
		watchdog_pause_tick(false);
}

/* Wait until *@flag is true, at most @timeout_ns; whether it became true. */
static inline bool trigger_test_wait_until(volatile bool *flag, uint64_t timeout_ns)
{
	uint64_t start = now_ns();

	while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE)) {
		if (now_ns() - start > timeout_ns)
			return false;
		cpu_relax();
	}
	return true;
}

/* Whether @cpu is published in a waiter mask of @trigger: a halting waiter about to halt. */
static inline bool trigger_test_published(const trigger_t *trigger, unsigned int cpu)
{
	uint64_t bit = 1ull << (cpu % 64);

	return (__atomic_load_n(&trigger->ipi_waiters[cpu / 64], __ATOMIC_ACQUIRE) |
		__atomic_load_n(&trigger->nmi_waiters[cpu / 64], __ATOMIC_ACQUIRE)) & bit;
}

/*
 * Let @cpu, which said it is about to wait on @trigger (*@about_to_wait),
 * get into its wait before a kick.  First until it has entered a wait on
 * @trigger: a waiter still between its flag and its first wait (its vCPU
 * descheduled by a loaded host, for milliseconds) would find the
 * condition set and never wait, and the case would judge a wait that did
 * not happen.  Then until it publishes itself as a halting waiter (hlt;
 * adaptive after its spin budget), or for 2 ms with a backend that
 * publishes nothing, so that it is likely asleep.  Each step bounded; the
 * sequence record says what the wait did.
 */
static inline void trigger_test_let_it_wait(const trigger_t *trigger, unsigned int cpu,
					    volatile bool *about_to_wait)
{
	enum trigger_backend_id backend = trigger_backend_current();
	uint64_t start;

	trigger_test_wait_until(about_to_wait, trigger_test_patience_ns());
	start = now_ns();
	while (!trigger_cpu_entered_wait(cpu, trigger) &&
	       now_ns() - start < trigger_test_patience_ns())
		cpu_relax();
	if (backend != TRIGGER_BACKEND_HLT && backend != TRIGGER_BACKEND_ADAPTIVE) {
		udelay(2000);
		return;
	}
	start = now_ns();
	while (!trigger_test_published(trigger, cpu) && now_ns() - start < 100 * TRIGGER_TEST_MS)
		cpu_relax();
}

/*
 * For a waiter another CPU will kick, between saying it is about to wait
 * and its first wait: test_late_waiter_us= pauses it there, as a loaded
 * host descheduling its vCPU would (trigger_test_let_it_wait() must cope).
 */
static inline void trigger_test_late_waiter(void)
{
	if (kernel_options.test_late_waiter_us)
		udelay(kernel_options.test_late_waiter_us);
}

/*
 * For a kicker, once its waiter is where the kick must find it, before the
 * kick: test_late_kicker_us= pauses it there, as a loaded host descheduling
 * its vCPU would (a case must not judge how soon the kick comes).
 */
static inline void trigger_test_late_kicker(void)
{
	if (kernel_options.test_late_kicker_us)
		udelay(kernel_options.test_late_kicker_us);
}

/* test_break=kick or kick_fence, if given, for the kicks between on and off. */
static inline void trigger_test_break_kicks(bool on)
{
	enum trigger_test_break mode = test_break_given(TEST_BREAK_KICK) ? TRIGGER_BREAK_KICK :
				       test_break_given(TEST_BREAK_KICK_FENCE) ? TRIGGER_BREAK_KICK_FENCE :
				       TRIGGER_BREAK_NONE;

	if (mode != TRIGGER_BREAK_NONE)
		trigger_test_set_kick_break(on ? mode : TRIGGER_BREAK_NONE);
}

/*
 * After the kick that should end a wait: true if *@done did not come within
 * trigger_test_lost_after_ns() - a lost wake-up - and then real kicks (no test
 * break) free the waiter, for a bounded time.
 */
static inline bool trigger_test_rescue_if_lost(trigger_t *trigger, volatile bool *done)
{
	uint64_t start;

	if (trigger_test_wait_until(done, trigger_test_lost_after_ns()))
		return false;
	trigger_test_set_kick_break(TRIGGER_BREAK_NONE);
	start = now_ns();
	while (!__atomic_load_n(done, __ATOMIC_ACQUIRE) &&
	       now_ns() - start < trigger_test_patience_ns()) {
		trigger_kick(trigger);
		udelay(1000);
	}
	return true;
}

#endif
