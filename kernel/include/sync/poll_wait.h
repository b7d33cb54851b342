/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_SYNC_POLL_WAIT_H
#define TRIGOS_SYNC_POLL_WAIT_H
/*
 * Poll loops with a paced PAUSE: the kernel's wait for a word that another
 * CPU writes.  The trigger's spin phases pace theirs the same way with
 * interrupts on, and PAUSE on every poll with them off (the reason is in
 * kernel/arch/x86/trigger_backends.c, spin_step()).
 *
 *	struct poll_pace pace;
 *
 *	poll_pace_begin(&pace);
 *	while (!condition())
 *		poll_pace_relax(&pace);
 *
 * or, for a counter, poll_wait_at_least(&acks, want, timeout_ns).
 *
 * Where cpu_relax_pace_cycles is 0 (hardware, KVM, pause=on) every poll
 * PAUSEs, as cpu_relax() in a loop does.  Under QEMU TCG (pause=paced, its
 * default) a wait PAUSEs at most once every cpu_relax_pace_cycles for its
 * first cpu_relax_paced_for_cycles, then on every poll: each PAUSE there
 * takes QEMU's global lock, which the CPU being waited for needs to wake
 * from a halt and to answer (asm/instructions.h, kernel/arch/x86/hypervisor.c
 * say why and what was measured).  For a wait that may be long, a trigger
 * (sync/trigger.h) sleeps instead.
 */
#include <stdbool.h>
#include <stdint.h>
#include <cpu/cpu.h>
#include <time/time.h>
#include <asm/instructions.h>

/** struct poll_pace - when a poll loop began and last PAUSEd (TSC) */
struct poll_pace {
	uint64_t begun;
	uint64_t paused;
};

/** poll_pace_begin - start pacing a poll loop's PAUSEs at its first poll */
static inline void poll_pace_begin(struct poll_pace *pace)
{
	pace->begun = pace->paused = cycles();
}

/**
 * poll_pace_due - whether this poll of @pace's loop should PAUSE (and, in
 * a loop that opens an interrupt window with its PAUSE, open it): always
 * where pacing is off and once the paced part of the wait is over, else
 * once every cpu_relax_pace_cycles
 */
static inline bool poll_pace_due(struct poll_pace *pace)
{
	uint64_t interval = cpu_relax_pace_cycles, now;

	if (!interval)
		return true;
	now = cycles();
	if (now - pace->paused < interval && now - pace->begun < cpu_relax_paced_for_cycles)
		return false;
	pace->paused = now;
	return true;
}

/** poll_pace_relax - one poll's pause: cpu_relax() when due, else a compiler barrier */
static inline void poll_pace_relax(struct poll_pace *pace)
{
	if (poll_pace_due(pace))
		cpu_relax();
	else
		compiler_barrier();
}

/**
 * poll_wait_at_least - poll until *@word >= @value (acquire), with a paced
 * PAUSE; false if @timeout_ns passed first.  Interrupts as they are: a CPU
 * that waits here with them enabled takes its interrupts meanwhile.
 */
static inline bool poll_wait_at_least(const uint64_t *word, uint64_t value, uint64_t timeout_ns)
{
	struct poll_pace pace;
	uint64_t limit = ns_to_cycles(timeout_ns);

	poll_pace_begin(&pace);
	while (__atomic_load_n(word, __ATOMIC_ACQUIRE) < value) {
		if (cycles() - pace.begun > limit)
			return false;
		poll_pace_relax(&pace);
	}
	return true;
}

#endif
