/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_ASM_SPINLOCK_H
#define TRIGOS_ASM_SPINLOCK_H
/*
 * The x86 instructions the spinlocks are built on; kernel/include/sync/spinlock.h
 * lists the hooks and has a generic fallback for each.
 *
 * Every read-modify-write here is locked: LOCK XADD and LOCK CMPXCHG by
 * their prefix, XCHG with a memory operand always (SDM vol 3, 9.1.2.1).  A
 * locked instruction is atomic and is not reordered with any earlier or
 * later load or store (SDM vol 3, 9.2.2), so taking a lock needs no fence.
 * Releasing needs none either: x86 does not reorder a store with earlier
 * loads or stores, so a plain store is a release.
 */

#include <stdbool.h>
#include <stdint.h>
#include <asm/instructions.h>

#define ARCH_HAS_SPINLOCK_PRIMITIVES 1

/* Atomically add @addend to *@word; returns the value before (a ticket). */
static inline uint32_t __raw_fetch_add_u32(uint32_t *word, uint32_t addend)
{
	asm volatile("lock xaddl %0, %1" : "+r"(addend), "+m"(*word) : : "memory", "cc");
	return addend;
}

/* Set *@word to @desired if it holds @expected; true if it did. */
static inline bool __raw_cmpxchg_u32(uint32_t *word, uint32_t expected, uint32_t desired)
{
	bool swapped;

	asm volatile("lock cmpxchgl %3, %1"
		     : "=@ccz"(swapped), "+m"(*word), "+a"(expected)
		     : "r"(desired)
		     : "memory");
	return swapped;
}

/* Store @value into *@word and return what was there, in one step. */
static inline uint32_t __raw_xchg_u32(uint32_t *word, uint32_t value)
{
	asm volatile("xchgl %0, %1" : "+r"(value), "+m"(*word) : : "memory");
	return value;
}

/*
 * One iteration of a spin-wait: PAUSE tells the CPU this is a spin loop, so
 * that leaving it does not cost a memory-order mis-speculation and the
 * sibling hyper-thread gets the core meanwhile (SDM vol 2, PAUSE).
 */
static inline void __raw_spin_relax(void)
{
	arch_cpu_relax();
}

#endif /* TRIGOS_ASM_SPINLOCK_H */
