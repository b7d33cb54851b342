/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_IRQ_H
#define TRIGOS_IRQ_H
/* Interrupt enable and disable, over the arch hooks of asm/irqflags.h. */

#include <stdbool.h>
#include <asm/irqflags.h>

static inline void local_irq_disable(void)
{
	arch_local_irq_disable();
}

static inline void local_irq_enable(void)
{
	arch_local_irq_enable();
}

static inline bool irqs_enabled(void)
{
	return arch_irqs_enabled();
}

/** local_irq_save - disable interrupts, returning whether they were enabled */
static inline bool local_irq_save(void)
{
	bool enabled = arch_irqs_enabled();

	arch_local_irq_disable();
	return enabled;
}

static inline void local_irq_restore(bool enabled)
{
	if (enabled)
		arch_local_irq_enable();
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
 * APIC on x86): mode, spurious and error vectors, timer calibration (arch)
 */
void interrupt_controller_init(void);

#endif
