/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_IRQ_H
#define TRIGOS_IRQ_H
/*
 * Interrupt enable and disable, over the arch hooks of asm/irqflags.h.
 *
 * Disabling nests per CPU.  Two styles, on one counter:
 *
 *	bool enabled = local_irq_save();	// the caller keeps the old state
 *	...
 *	local_irq_restore(enabled);
 *
 *	local_irq_push();			// the CPU keeps it (xv6's pushcli)
 *	...
 *	local_irq_pop();			// the outermost pop re-enables
 *
 * Each CPU counts its saves and pushes not yet undone (local_irq_depth())
 * and remembers whether interrupts were on before the outermost one; an
 * undo with nothing to undo is reported once per CPU.  Plain
 * local_irq_disable()/local_irq_enable() do not count: they are
 * cpu/cpu.h's, below the log, which needs them when it panics.
 */

#include <stdbool.h>
#include <cpu/cpu.h>
#include <asm/irqflags.h>

/**
 * struct irq_nesting - one CPU's interrupt-disable nesting
 * @depth:		saves and pushes not yet restored or popped
 * @outer_enabled:	interrupts were enabled before the outermost one
 * @underflow_reported:	an undo without a matching disable was reported
 *
 * Only its own CPU touches it, so it needs no lock; an interrupt handler
 * that nests on it has undone its part by the time it returns.  One cache
 * line each, so that no CPU's counting slows another's.
 */
struct irq_nesting {
	unsigned int depth;
	bool outer_enabled;
	bool underflow_reported;
} __attribute__((aligned(64)));

extern struct irq_nesting irq_nesting[MAX_CPUS];

/* kernel/sync/irq.c: report an undo without a disable (once per CPU). */
void irq_nesting_underflow(void);

/** local_irq_save - disable interrupts, returning whether they were enabled */
static inline bool local_irq_save(void)
{
	bool enabled = arch_irqs_enabled();
	struct irq_nesting *nesting;

	arch_local_irq_disable();
	/* After the disable: no interrupt handler can see a half-made update. */
	nesting = &irq_nesting[cpu_id()];
	if (nesting->depth++ == 0)
		nesting->outer_enabled = enabled;
	return enabled;
}

/**
 * local_irq_restore - undo one local_irq_save(): interrupts go back on if
 * @enabled (what that save returned) says they were on
 */
static inline void local_irq_restore(bool enabled)
{
	struct irq_nesting *nesting = &irq_nesting[cpu_id()];

	if (nesting->depth == 0)
		irq_nesting_underflow();
	else
		nesting->depth--;
	/* The enable is a compiler barrier: the count is down before any interrupt. */
	if (enabled)
		arch_local_irq_enable();
}

/** local_irq_push - disable interrupts, one nesting level deeper */
static inline void local_irq_push(void)
{
	(void)local_irq_save();
}

/**
 * local_irq_pop - undo one local_irq_push(); the outermost re-enables
 * interrupts if they were enabled before it
 */
static inline void local_irq_pop(void)
{
	struct irq_nesting *nesting = &irq_nesting[cpu_id()];

	if (nesting->depth == 0) {
		irq_nesting_underflow();
		return;
	}
	if (--nesting->depth == 0 && nesting->outer_enabled)
		arch_local_irq_enable();
}

/** local_irq_depth - the calling CPU's saves and pushes not yet undone */
static inline unsigned int local_irq_depth(void)
{
	return irq_nesting[cpu_id()].depth;
}

/** enable_interrupts_and_wait - enable interrupts and sleep until one, with no window */
static inline void enable_interrupts_and_wait(void)
{
	arch_enable_interrupts_and_wait();
}

/** wait_for_interrupt - sleep until an interrupt (or, with them off, an NMI) */
static inline void wait_for_interrupt(void)
{
	arch_wait_for_interrupt();
}

/**
 * interrupt_controller_init - the boot CPU's interrupt controller (the local
 * APIC on x86): mode, spurious, error and timer vectors (the timer's rate is
 * measured later, by timer_calibrate())
 */
void interrupt_controller_init(void);

#endif
