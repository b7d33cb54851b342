/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_SPINLOCK_H
#define TRIGOS_SPINLOCK_H
/*
 * A ticket spinlock: CPUs get the lock in the order they asked for it, so
 * none starves.  (The SMP issue extends this with debug state and a queued
 * variant behind the same API.)
 */

#include <stdbool.h>
#include <stdint.h>
#include <irq.h>
#include <asm/instructions.h>

struct spinlock {
	uint32_t next_ticket;
	uint32_t now_serving;
	const char *name;
};

typedef struct spinlock spinlock_t;

#define SPINLOCK_INITIALIZER(lock_name) { .next_ticket = 0, .now_serving = 0, .name = #lock_name }
#define DEFINE_SPINLOCK(lock_name) spinlock_t lock_name = SPINLOCK_INITIALIZER(lock_name)

static inline void spin_lock(spinlock_t *lock)
{
	uint32_t ticket = __atomic_fetch_add(&lock->next_ticket, 1, __ATOMIC_RELAXED);

	/* Acquire: the critical section cannot be read before the lock is ours. */
	while (__atomic_load_n(&lock->now_serving, __ATOMIC_ACQUIRE) != ticket)
		cpu_relax();
}

static inline void spin_unlock(spinlock_t *lock)
{
	/* Only the holder writes now_serving, so a plain increment is enough. */
	__atomic_store_n(&lock->now_serving, lock->now_serving + 1, __ATOMIC_RELEASE);
}

static inline bool spin_trylock(spinlock_t *lock)
{
	uint32_t serving = __atomic_load_n(&lock->now_serving, __ATOMIC_RELAXED);
	uint32_t expected = serving;

	/* Free exactly when the next ticket is the one being served. */
	return __atomic_compare_exchange_n(&lock->next_ticket, &expected, serving + 1, false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

/** spin_lock_irqsave - disable interrupts, then lock; returns the old interrupt state */
static inline bool spin_lock_irqsave(spinlock_t *lock)
{
	bool enabled = local_irq_save();

	spin_lock(lock);
	return enabled;
}

static inline void spin_unlock_irqrestore(spinlock_t *lock, bool enabled)
{
	spin_unlock(lock);
	local_irq_restore(enabled);
}

#endif
