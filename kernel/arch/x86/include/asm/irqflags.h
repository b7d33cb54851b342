/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_ASM_IRQFLAGS_H
#define TRIGOS_ASM_IRQFLAGS_H

#include <stdbool.h>
#include <asm/instructions.h>

static inline void arch_local_irq_disable(void)
{
	cli();
}

static inline void arch_local_irq_enable(void)
{
	sti();
}

static inline bool arch_irqs_enabled(void)
{
	return (read_rflags() & RFLAGS_IF) != 0;
}

static inline void arch_enable_interrupts_and_wait(void)
{
	sti_hlt();
}

static inline void arch_wait_for_interrupt(void)
{
	hlt();
}

#endif
