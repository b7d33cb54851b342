/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_TRIGGER_H
#define TRIGOS_TRIGGER_H
/*
 * Triggers - wait for a condition without blocking, cheaply.
 *
 * The interface of Jeremy Fitzhardinge's trigger-API patch ("[PATCH RFC 1/3]
 * Add a trigger API for efficient non-blocking waiting", linux-kernel,
 * 2008-08-16; described in LWN's "Triggers: less busy busy-waiting",
 * 2008-08-18), for code that cannot sleep but expects to wait a while:
 *
 *	DEFINE_TRIGGER(done_trigger);		// or trigger_init(&trigger)
 *
 *	// wait side (preemption is never an issue in trigos)
 *	trigger_reset(&done_trigger);
 *	while (!done)
 *		trigger_wait(&done_trigger);
 *	trigger_finish(&done_trigger);
 *
 *	// kick side, any context (interrupt and NMI handlers included)
 *	done = true;
 *	trigger_kick(&done_trigger);
 *
 * The rules, every one of them the trigger patch's:
 *  - the wait side checks its condition between trigger_reset() and
 *    trigger_wait(), and between calls to trigger_wait();
 *  - a trigger is sticky: a kick after trigger_reset() makes the next
 *    trigger_wait() return at once;
 *  - trigger_wait() may return without a kick (spuriously);
 *  - trigger_wait() implicitly resets: a kick that it returned for does not
 *    make the next trigger_wait() return;
 *  - trigger_kick() is a write barrier, trigger_wait() a read barrier;
 *  - trigger_reset() may disable interrupts; if they were enabled then, they
 *    are enabled during the wait and disabled again when trigger_wait()
 *    returns; trigger_finish() restores the interrupt state of the reset.
 * And trigos's additions:
 *  - a trigger outlives every kick of it: a kick writes and reads the
 *    trigger after the condition is set, so a waiter that sees the condition
 *    and returns may not free or reuse the trigger while a kick may still be
 *    running (keep triggers static or per CPU, not in the condition's data);
 *  - trigger_wait_timeout() bounds a wait by a deadline, and
 *    trigger_note_late_kicker() tells a deadline that came before the
 *    awaited work was done (its kick is still to come) from one that came
 *    after it (the kick did not end the wait);
 *  - every wait's return is accounted by why it returned (the kick, its wake
 *    interrupt, another interrupt, the deadline, nothing), per backend and,
 *    for triggers tagged with trigger_init_user(), per user
 *    (trigger_backend.h);
 *  - many CPUs may wait on one trigger at once; stickiness and the implicit
 *    reset are per waiter (each waiter remembers the kick generation it has
 *    seen), so one waiter's reset never erases a kick meant for another;
 *  - misuse (a wait or finish without a reset, a second reset before the
 *    finish) is reported with both call sites;
 *  - the way of waiting (the backend: spin, mwait, hlt, adaptive, mwaitx,
 *    umwait) is chosen at boot (trigger=) and may be switched at run time;
 *    a wait sequence keeps the backend it started with.
 *
 * The generic implementation below, for architectures without
 * ARCH_HAS_TRIGGER, is the trigger patch's: a cpu_relax() poll.  x86 defines
 * ARCH_HAS_TRIGGER (asm/trigger.h): its __raw_trigger_*() are the
 * arch-neutral core (kernel/sync/trigger.c), which reaches the hardware
 * through the arch_trigger_*() hooks and the backends.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <asm/trigger.h>

#ifndef ARCH_HAS_TRIGGER
#include <cpu/cpu.h>	/* cpu_relax() */

struct trigger_user;

typedef struct {
	char unused;
} trigger_t;

#define DEFINE_TRIGGER(name) trigger_t name = { 0 }
#define DEFINE_TRIGGER_FOR(name, trigger_user) trigger_t name = { 0 }

static inline void __raw_trigger_init(trigger_t *trigger, struct trigger_user *user)
{
}

static inline void __raw_trigger_reset(trigger_t *trigger)
{
}

static inline void __raw_trigger_wait(trigger_t *trigger)
{
	/* cpu_relax() is a compiler barrier; x86 keeps loads in order. */
	cpu_relax();
}

static inline bool __raw_trigger_wait_timeout(trigger_t *trigger, uint64_t deadline_ns)
{
	cpu_relax();
	return true;
}

static inline void __raw_trigger_note_late_kicker(trigger_t *trigger)
{
}

static inline void __raw_trigger_kick(trigger_t *trigger)
{
	/* Make sure earlier writes are visible before going on. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

static inline void __raw_trigger_finish(trigger_t *trigger)
{
}
#endif /* !ARCH_HAS_TRIGGER */

/**
 * trigger_init - initialize a trigger for use
 * @t: trigger to be initialized
 */
static inline void trigger_init(trigger_t *t)
{
	__raw_trigger_init(t, NULL);
}

/**
 * trigger_init_user - initialize a trigger whose waits are accounted to @user
 * @t: trigger to be initialized
 * @user: a DEFINE_TRIGGER_USER() (trigger_backend.h); DEFINE_TRIGGER_FOR()
 *	does the same for a static trigger
 */
static inline void trigger_init_user(trigger_t *t, struct trigger_user *user)
{
	__raw_trigger_init(t, user);
}

/**
 * trigger_reset - reset a trigger, starting a wait sequence
 * @t: trigger to be reset
 *
 * From now on a kick is remembered: the next trigger_wait() returns at
 * once for a kick that came after this reset.  Interrupts may be disabled
 * from here to trigger_finish() (see the file comment).  Every reset is
 * paired with a trigger_finish().
 */
static inline void trigger_reset(trigger_t *t)
{
	__raw_trigger_reset(t);
}

/**
 * trigger_wait - wait for a trigger to be kicked
 * @t: trigger to be waited on, reset by this CPU
 *
 * Returns when the trigger has been kicked since the reset or the last
 * return, at once if it already was; it may also return without any kick,
 * so the caller must test its condition before waiting again.  A read
 * barrier: what the kicker wrote before its kick is visible after the
 * return.  On return the trigger is reset again.
 */
static inline void trigger_wait(trigger_t *t)
{
	__raw_trigger_wait(t);
}

/**
 * trigger_wait_timeout - trigger_wait() that gives up at a deadline
 * @t: trigger to be waited on, reset by this CPU
 * @deadline_ns: a now_ns() value
 *
 * Returns false if it returned because the deadline passed, true otherwise
 * (kicked, or a spurious return: test the condition either way).  With
 * interrupts disabled the wait spins: no timer can end a halt then.
 */
static inline bool trigger_wait_timeout(trigger_t *t, uint64_t deadline_ns)
{
	return __raw_trigger_wait_timeout(t, deadline_ns);
}

/**
 * trigger_note_late_kicker - the deadline just reached came before the work
 * @t: trigger whose last trigger_wait_timeout() returned false (the deadline)
 *
 * The waiter looked at its condition after that return and found the work
 * it waits for not yet done: the CPU that does it and kicks is late (a vCPU
 * the host has not run, say), its kick still to come.  The deadline is then
 * accounted to the trigger's user as a late kicker, not as a deadline
 * reached (trigger_backend.h): a deadline after the work was done means
 * that its kick did not end the wait.  Only for that return: a later
 * deadline of the sequence counts again.
 */
static inline void trigger_note_late_kicker(trigger_t *t)
{
	__raw_trigger_note_late_kicker(t);
}

/**
 * trigger_kick - kick a trigger
 * @t: trigger to kick
 *
 * Makes every CPU waiting on @t return from trigger_wait(), and a CPU that
 * reset it but is not waiting yet return at once when it does.  May be
 * called in any context, NMI handlers included (on the waiting CPU too).
 * A write barrier.  It reads and writes @t until it returns, after the
 * condition is already visible to the waiters: @t must outlive the kick.
 */
static inline void trigger_kick(trigger_t *t)
{
	__raw_trigger_kick(t);
}

/**
 * trigger_finish - end a wait sequence
 * @t: trigger that was reset
 *
 * Restores the interrupt state trigger_reset() found.
 */
static inline void trigger_finish(trigger_t *t)
{
	__raw_trigger_finish(t);
}

#endif /* TRIGOS_TRIGGER_H */
