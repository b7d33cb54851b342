/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_STOP_MACHINE_H
#define TRIGOS_STOP_MACHINE_H
/*
 * stop_machine: run a function while every online CPU has interrupts
 * disabled and does nothing else (kernel/smp/stop_machine.c).
 *
 *	static int patch_text(void *where)	// interrupts off everywhere
 *	{
 *		...
 *		return 0;
 *	}
 *
 *	int result = stop_machine(patch_text, address, NULL);	// on every CPU
 *
 *	struct cpumask one;
 *	cpumask_clear(&one);
 *	cpumask_set_cpu(&one, 3);
 *	result = stop_machine(patch_text, address, &one);	// on CPU 3 only
 *
 * Every online CPU steps through the same states, PREPARE, DISABLE_IRQ,
 * RUN, EXIT: each acknowledges a state when it has done that state's work,
 * and the last to acknowledge moves everyone to the next.  So no CPU
 * disables interrupts before all have arrived, fn runs only once every CPU
 * has interrupts disabled, and no CPU enables them again before fn has
 * returned everywhere.
 *
 * The other CPUs are brought in by a no-wait cross-CPU call (smp_call.h):
 * the per-CPU part runs in their call IPI handler, so it reaches a CPU
 * whatever it was doing with interrupts enabled - idle, running a test
 * helper, waiting for a call or for stop_machine itself - where the idle
 * loop's work slot (smp_run_on_async) would reach only idle CPUs.
 *
 * One stop_machine runs at a time; concurrent callers wait their turn,
 * taking (or, with interrupts disabled, polling for) the calls that bring
 * them into the running one meanwhile.
 *
 * Limits: fn runs with interrupts disabled, as a cross-CPU call on every
 * CPU (the caller's part is a call to itself), so it must not wait for
 * interrupts, and cross-CPU calls and stop_machine from it are refused.
 * A CPU that spins with interrupts disabled (on a lock a stopped CPU holds,
 * say) keeps stop_machine from going on: after the stuck deadline (1 s) the
 * caller names the CPUs not yet there, once, and at each deadline of every
 * state probes them (a wake NMI that never came ends no halt otherwise:
 * the others, the watchdog's CPU too, wait with interrupts off).  A
 * stop_machine that never completes holds every CPU with interrupts
 * disabled, the watchdog's too: the host's timeout ends such a run.
 */

#include <stdint.h>
#include <cpu/cpumask.h>

typedef int (*stop_machine_fn_t)(void *data);

/**
 * stop_machine - run @fn(@data) on @run_on with the whole machine stopped
 * @fn:		the function; runs once on each CPU of @run_on, all at once
 * @data:	its argument
 * @run_on:	where @fn runs: NULL for every online CPU, else a set of online
 *		CPUs (empty is allowed: the machine stops, @fn runs nowhere)
 *
 * The caller may have interrupts enabled or disabled; every CPU's
 * interrupt state, the caller's included, is as it was afterwards.
 *
 * Returns the bitwise OR of @fn's return values (as the trigger patch's
 * stop_machine combines them: 0 when every run returned 0, and any error
 * bits that any CPU returned), or, before anything ran, a negative enum
 * smp_call_status: SMP_CALL_WOULD_DEADLOCK from an IPI handler or a call,
 * SMP_CALL_NO_SUCH_CPU when @run_on names a CPU that is not online,
 * SMP_CALL_NO_MEMORY.  (A @fn that returns negative values makes the two
 * indistinguishable: return error bits instead.)
 */
int stop_machine(stop_machine_fn_t fn, void *data, const struct cpumask *run_on);

/**
 * struct stop_machine_stats - since boot
 * @rounds:		stop_machines completed
 * @stuck_reports:	reports of CPUs that did not acknowledge a state in time
 * @refused:		calls refused before anything ran
 * @last_late:		the CPUs the last stuck report named
 */
struct stop_machine_stats {
	uint64_t rounds;
	uint64_t stuck_reports;
	uint64_t refused;
	struct cpumask last_late;
};

void stop_machine_stats_read(struct stop_machine_stats *stats);

#define STOP_MACHINE_STUCK_DEADLINE_NS	(1000ull * 1000 * 1000)

/** stop_machine_set_stuck_deadline - for tests; returns the old deadline */
uint64_t stop_machine_set_stuck_deadline(uint64_t nanoseconds);

#endif /* TRIGOS_STOP_MACHINE_H */
