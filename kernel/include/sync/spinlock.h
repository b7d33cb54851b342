/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_SPINLOCK_H
#define TRIGOS_SPINLOCK_H
/*
 * Spinlocks: two kinds behind one API, and debug state on every lock.
 *
 *	static DEFINE_SPINLOCK(table_lock);		// a ticket lock
 *	static DEFINE_MCS_SPINLOCK(queue_lock);		// a queued (MCS) lock
 *
 *	spin_lock(&table_lock);
 *	... at most one CPU at a time here ...
 *	spin_unlock(&table_lock);
 *
 *	bool enabled = spin_lock_irqsave(&queue_lock);	// interrupts off too
 *	...
 *	spin_unlock_irqrestore(&queue_lock, enabled);
 *
 *	if (spin_trylock(&table_lock)) { ...; spin_unlock(&table_lock); }
 *
 * or at run time: spin_lock_init(&lock, "name", SPINLOCK_MCS).  A lock that
 * is all zeroes is a free, unnamed ticket lock.
 *
 * The ticket lock hands the lock over in the order CPUs asked for it, so
 * none starves; every waiter spins on the same cache line, so each handover
 * costs a line transfer to every waiter.  The MCS lock (Mellor-Crummey and
 * Scott, "Algorithms for scalable synchronization on shared-memory
 * multiprocessors", ACM TOCS 9(1), 1991) is FIFO too, but each waiter spins
 * on its own queue node, so a handover touches one waiter's line only.  The
 * nodes are per CPU, SPINLOCK_MCS_NODES_PER_CPU of them: that many MCS locks
 * can be held or awaited at once by one CPU (interrupt handlers included).
 *
 * Debug state: every lock knows its name, the CPU holding it and where that
 * CPU took it, and where it was last released.  Taking a lock this CPU
 * already holds, releasing one held by another CPU, and releasing a free
 * one are reported with both call sites; the operation is then refused.
 * A CPU that spins on a lock for longer than the deadline (default
 * SPINLOCK_DEFAULT_DEADLINE_NS) reports, once, which CPU holds it and where
 * it was taken, and keeps spinning: a deadlock is a message, not a silent
 * hang.  Reports go to a hook, by default spinlock_report_default(), which
 * panics on misuse and prints the long-spin message; a test installs its
 * own hook with spinlock_set_report_hook() to catch them.
 *
 * The atomic instructions come from the arch (asm/spinlock.h: the
 * __raw_*() hooks below); without one, the generic fallbacks use the
 * compiler's atomic builtins.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sync/irq.h>
#include <asm/spinlock.h>

#ifndef ARCH_HAS_SPINLOCK_PRIMITIVES
static inline uint32_t __raw_fetch_add_u32(uint32_t *word, uint32_t addend)
{
	return __atomic_fetch_add(word, addend, __ATOMIC_SEQ_CST);
}

static inline bool __raw_cmpxchg_u32(uint32_t *word, uint32_t expected, uint32_t desired)
{
	return __atomic_compare_exchange_n(word, &expected, desired, false, __ATOMIC_SEQ_CST,
					   __ATOMIC_SEQ_CST);
}

static inline uint32_t __raw_xchg_u32(uint32_t *word, uint32_t value)
{
	return __atomic_exchange_n(word, value, __ATOMIC_SEQ_CST);
}

static inline void __raw_spin_relax(void)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}
#endif

enum spinlock_kind {
	SPINLOCK_TICKET = 0,		/* zero: a zeroed lock is a ticket lock */
	SPINLOCK_MCS,
};

/*
 * Test only: skip the owner checks of spin_lock()/spin_unlock() on this
 * lock, so that a torture test can prove its own checker catches what they
 * would have caught (tests/locktorture.c).  Honoured by ticket locks only
 * (an MCS release needs the holder's own queue node); such a lock's release
 * also ignores an unlock of a free lock instead of corrupting the lock.
 */
#define SPINLOCK_FLAG_UNCHECKED		(1u << 0)

#define SPINLOCK_MCS_NODES_PER_CPU	4
#define SPINLOCK_DEFAULT_DEADLINE_NS	(5ull * 1000 * 1000 * 1000)

struct spinlock {
	union {
		struct {			/* SPINLOCK_TICKET */
			uint32_t next_ticket;	/* the ticket the next CPU to ask gets */
			uint32_t now_serving;	/* the ticket that may hold the lock */
		};
		struct {			/* SPINLOCK_MCS; node numbers, 0: none */
			uint32_t queue_tail;	/* the last CPU's node in the queue */
			uint32_t holder_node;	/* the holder's node (written by it) */
		};
	};
	uint8_t kind;			/* enum spinlock_kind */
	uint8_t flags;			/* SPINLOCK_FLAG_* */
	/* Debug state.  Written by the holder; read by anyone for reports. */
	uint32_t owner;			/* the holder's logical CPU + 1; 0 when free */
	uint32_t released_cpu;		/* the last releaser's CPU + 1; 0: never */
	const char *name;
	uint64_t owner_caller;		/* where the holder took it (return address) */
	uint64_t released_caller;	/* where it was last released */
};

typedef struct spinlock spinlock_t;

#define __SPINLOCK_INITIALIZER(lock_name, lock_kind) { .kind = (lock_kind), .name = #lock_name }
#define SPINLOCK_INITIALIZER(lock_name) __SPINLOCK_INITIALIZER(lock_name, SPINLOCK_TICKET)
#define MCS_SPINLOCK_INITIALIZER(lock_name) __SPINLOCK_INITIALIZER(lock_name, SPINLOCK_MCS)
#define DEFINE_SPINLOCK(lock_name) spinlock_t lock_name = SPINLOCK_INITIALIZER(lock_name)
#define DEFINE_MCS_SPINLOCK(lock_name) spinlock_t lock_name = MCS_SPINLOCK_INITIALIZER(lock_name)

/** spin_lock_init - make @lock a free lock of @kind named @name (kept, not copied) */
void spin_lock_init(spinlock_t *lock, const char *name, enum spinlock_kind kind);

/**
 * spin_lock - take @lock, spinning until it is free
 *
 * An acquire: nothing of the critical section is read before the lock is
 * taken.  Taking a lock the calling CPU already holds is reported (and
 * refused, if the report hook returns).
 */
void spin_lock(spinlock_t *lock);

/**
 * spin_unlock - release @lock, which the calling CPU holds
 *
 * A release: everything the critical section wrote is visible to the next
 * holder.  Releasing a lock held by another CPU or by none is reported (and
 * refused, if the report hook returns).
 */
void spin_unlock(spinlock_t *lock);

/**
 * spin_trylock - take @lock if it is free, without waiting
 * Returns true if the lock is now held by the calling CPU.  A lock the
 * caller already holds is not free: false, and no report.
 */
bool spin_trylock(spinlock_t *lock);

/**
 * spin_lock_irqsave - disable interrupts on this CPU, then take @lock
 * Returns whether interrupts were enabled, for spin_unlock_irqrestore().
 */
bool spin_lock_irqsave(spinlock_t *lock);

/**
 * spin_unlock_irqrestore - release @lock, then re-enable interrupts if
 * @enabled (what spin_lock_irqsave() returned) says they were on
 */
void spin_unlock_irqrestore(spinlock_t *lock, bool enabled);

/** spin_is_locked - whether some CPU holds @lock (a snapshot) */
static inline bool spin_is_locked(const spinlock_t *lock)
{
	if (lock->kind == SPINLOCK_MCS)
		return __atomic_load_n(&lock->queue_tail, __ATOMIC_RELAXED) != 0;
	return __atomic_load_n(&lock->next_ticket, __ATOMIC_RELAXED) !=
	       __atomic_load_n(&lock->now_serving, __ATOMIC_RELAXED);
}

/** spin_lock_owner - the CPU holding @lock by its debug state, or -1 (a snapshot) */
static inline int spin_lock_owner(const spinlock_t *lock)
{
	return (int)__atomic_load_n(&lock->owner, __ATOMIC_RELAXED) - 1;
}

/** spin_lock_kind_name - "ticket" or "mcs" */
const char *spin_lock_kind_name(enum spinlock_kind kind);

/* --- Reports -------------------------------------------------------------- */

enum spinlock_problem {
	SPINLOCK_RECURSION,		/* the holder asked for the lock again */
	SPINLOCK_UNLOCK_NOT_OWNER,	/* released by a CPU that does not hold it */
	SPINLOCK_UNLOCK_FREE,		/* released while no CPU held it */
	SPINLOCK_SPUN_TOO_LONG,		/* waited past the deadline: a deadlock? */
	SPINLOCK_MCS_NODES_EXHAUSTED,	/* more MCS locks at once than nodes */
};

/**
 * struct spinlock_report - one problem found with a lock
 * @problem:	what went wrong
 * @lock:	the lock
 * @cpu:	the CPU that found it
 * @caller:	where that CPU called the lock function (a return address)
 * @other_cpu:	the CPU holding the lock (for SPINLOCK_UNLOCK_FREE: the one
 *		that last released it); -1 if unknown
 * @other_caller: where @other_cpu took (or released) the lock; 0 if unknown
 * @waited_ns:	SPINLOCK_SPUN_TOO_LONG: how long @cpu has spun so far
 */
struct spinlock_report {
	enum spinlock_problem problem;
	const spinlock_t *lock;
	unsigned int cpu;
	uint64_t caller;
	int other_cpu;
	uint64_t other_caller;
	uint64_t waited_ns;
};

/** spinlock_problem_name - "recursive acquire", "unlock of a free lock", ... */
const char *spinlock_problem_name(enum spinlock_problem problem);

typedef void (*spinlock_report_hook_t)(const struct spinlock_report *report);

/**
 * spinlock_set_report_hook - send every report to @hook from now on
 * @hook: the new hook; NULL restores spinlock_report_default()
 *
 * Returns the previous hook.  The hook runs on the CPU that found the
 * problem, in the lock function, possibly with interrupts off; when it
 * returns, a misuse is refused (the lock is left as it was) and a long
 * spin goes on spinning.
 */
spinlock_report_hook_t spinlock_set_report_hook(spinlock_report_hook_t hook);

/** spinlock_report_default - panic on a misuse; print a long spin and go on */
void spinlock_report_default(const struct spinlock_report *report);

/** spinlock_report_format - @report as one line of text (both call sites) into @buffer */
char *spinlock_report_format(const struct spinlock_report *report, char *buffer, size_t size);

/**
 * spinlock_set_deadline_ns - how long a CPU spins on a lock before it
 * reports; returns the previous value (tests shorten it, then restore it)
 */
uint64_t spinlock_set_deadline_ns(uint64_t nanoseconds);

/** spinlock_mcs_nodes_in_use - MCS queue nodes @cpu holds now (for tests) */
unsigned int spinlock_mcs_nodes_in_use(unsigned int cpu);

/*
 * How an MCS waiter waits: spinning on its node (the classic MCS lock), or
 * on its node's own trigger, kicked by its predecessor (mcs_wait=; default
 * trigger).  Switchable at run time for the torture and benchmarks.
 */
enum mcs_wait_mode {
	MCS_WAIT_SPIN,
	MCS_WAIT_TRIGGER,
};

void spinlock_set_mcs_wait_mode(enum mcs_wait_mode mode);
enum mcs_wait_mode spinlock_mcs_wait_mode(void);

#endif /* TRIGOS_SPINLOCK_H */
