/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_SMP_CALL_H
#define TRIGOS_SMP_CALL_H
/*
 * Cross-CPU function calls: run fn(info) on other CPUs, from their
 * call-function IPI (kernel/smp/smp_call.c).
 *
 *	static void note_apic_id(void *info)	// on the target, interrupts off
 *	{
 *		((uint32_t *)info)[cpu_id()] = lapic_id();
 *	}
 *
 *	uint32_t ids[MAX_CPUS];
 *	int status = on_each_cpu(note_apic_id, ids, true);
 *	if (status != SMP_CALL_OK)
 *		... smp_call_status_name(status) says why nothing ran ...
 *
 * How it works.  Each CPU owns a pool of call descriptors (one per queued
 * call, never one global slot; twice as many as there are CPUs, at least
 * 64, allocated on its first call) and each CPU has an incoming queue, a
 * lock-free stack that any CPU pushes onto with one compare-and-swap and the
 * target empties with one exchange.  A caller sends the IPI only when its
 * push found the queue empty: a target that has not yet emptied its queue
 * already has an IPI coming.  The target runs its calls in the order they
 * were queued, in the IPI handler (vector IPI_VECTOR_CALL_FUNCTION, EOI
 * first: see ipi.h), with interrupts disabled.  A caller whose pool is full
 * waits for its oldest call; if it has interrupts disabled meanwhile, it
 * runs the calls queued for itself, so that two CPUs filling each other's
 * queues with interrupts off do not wait for each other forever.
 *
 * Ordering: whatever the caller stored before the call is visible to fn;
 * with @wait, whatever fn stored is visible to the caller when the call
 * returns.  Without @wait, fn must not use the caller's stack, and @info
 * must stay valid until fn has run.
 *
 * Refused, with a diagnostic and SMP_CALL_WOULD_DEADLOCK, nothing sent:
 *  - @wait with interrupts disabled: two CPUs calling each other that way
 *    would each wait for the other to take an IPI it cannot take;
 *  - any call from inside an IPI handler or a call (fn itself): the same,
 *    since handlers run with interrupts disabled.
 *
 * Stuck calls: a waiter that sees its call still pending after the stuck
 * deadline (1 s) reports the target CPU, fn and how long, and sends the
 * call IPI once more (in case it was lost); then it goes on waiting.
 */

#include <stdbool.h>
#include <stdint.h>
#include <cpu/cpumask.h>

typedef void (*smp_call_func_t)(void *info);

enum smp_call_status {
	SMP_CALL_OK = 0,
	SMP_CALL_NO_SUCH_CPU = -1,	/* a target is out of range or not online */
	SMP_CALL_WOULD_DEADLOCK = -2,	/* see "Refused" above */
	SMP_CALL_NO_MEMORY = -3,	/* no page for the caller's descriptor pool */
};

/** smp_call_status_name - "would deadlock" style text for a status */
const char *smp_call_status_name(int status);

/**
 * smp_call_init - register the call-function IPI handler
 *
 * Idempotent and safe from several CPUs at once; the calls below run it on
 * first use.
 */
void smp_call_init(void);

/**
 * smp_call_function_single - run @fn(@info) on @cpu
 * @cpu:	any online CPU; the caller itself runs @fn at once, with
 *		interrupts disabled, as a target would
 * @fn:		the function
 * @info:	its argument
 * @wait:	return only after @fn has run there
 *
 * Returns SMP_CALL_OK or a negative enum smp_call_status (nothing ran).
 */
int smp_call_function_single(unsigned int cpu, smp_call_func_t fn, void *info, bool wait);

/**
 * smp_call_function_many - run @fn(@info) on every CPU of @mask but the caller
 *
 * Every CPU of @mask must be online (else SMP_CALL_NO_SUCH_CPU, nothing
 * sent).  The IPIs go out after every call is queued, as one
 * all-excluding-self shorthand when @mask holds every other CPU, two or
 * more, and the shorthand is usable (ipi.h), else one unicast per CPU whose
 * queue was empty.
 */
int smp_call_function_many(const struct cpumask *mask, smp_call_func_t fn, void *info, bool wait);

/** smp_call_function - run @fn(@info) on every other online CPU */
int smp_call_function(smp_call_func_t fn, void *info, bool wait);

/**
 * on_each_cpu - run @fn(@info) on every online CPU, the caller included
 *
 * The others are called first; then the caller runs @fn with interrupts
 * disabled; then, with @wait, it waits for the others.
 */
int on_each_cpu(smp_call_func_t fn, void *info, bool wait);

/**
 * smp_call_poll - run the calls queued for this CPU now
 *
 * For code that must spin with interrupts disabled: polling keeps the
 * calls of other CPUs (which may be waiting for this one) moving.  Does
 * nothing inside a handler or a call, whose runner drains the queue anyway.
 */
void smp_call_poll(void);

/** smp_call_in_handler - whether this CPU is running a call or an IPI handler */
bool smp_call_in_handler(void);

/**
 * struct smp_call_stats - counters summed over all CPUs since boot
 * @queued:		calls queued for another CPU
 * @ipis_sent:		call IPIs sent (a shorthand counts once)
 * @ipis_taken:		call IPIs taken
 * @run:		calls run on a target
 * @polled:		of those, run by smp_call_poll() or a waiter's poll, not an IPI
 * @local:		calls the caller ran on itself
 * @stuck_reports:	stuck calls reported (and their targets probed: ipi_evidence.h)
 * @refused:		calls refused as deadlock-prone
 * @errors:		descriptors found not pending or on the wrong CPU (bugs)
 * @dropped_ipis:	IPIs withheld on purpose by smp_call_test_drop_next_ipi()
 * @without_kick:	calls run whose target made no kick for them (yet): counted
 *			per call, so that no other call's kick can stand in for one
 */
struct smp_call_stats {
	uint64_t queued;
	uint64_t ipis_sent;
	uint64_t ipis_taken;
	uint64_t run;
	uint64_t polled;
	uint64_t local;
	uint64_t stuck_reports;
	uint64_t refused;
	uint64_t errors;
	uint64_t dropped_ipis;
	uint64_t without_kick;
};

/** smp_call_stats_read - the counters as they are now (not a consistent snapshot) */
void smp_call_stats_read(struct smp_call_stats *stats);

/* --- For tests ------------------------------------------------------------- */

#define SMP_CALL_STUCK_DEADLINE_NS	(1000ull * 1000 * 1000)

/** smp_call_set_stuck_deadline - set the stuck-call deadline; returns the old one */
uint64_t smp_call_set_stuck_deadline(uint64_t nanoseconds);

/**
 * smp_call_test_drop_next_ipi - withhold the next call IPI any CPU would
 * send, as if it were lost, so that a test can see the stuck-call path
 * report it and the evidence judge it lost
 */
void smp_call_test_drop_next_ipi(void);

#endif /* TRIGOS_SMP_CALL_H */
