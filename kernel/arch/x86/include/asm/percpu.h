/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_ASM_PERCPU_H
#define TRIGOS_ASM_PERCPU_H

#include <asm/instructions.h>

struct cpu;

/*
 * GS base holds the address of this CPU's struct cpu, whose first field
 * points at itself, so one %gs-relative load yields the pointer.  Nothing in
 * trigos runs in user mode, so GS is never swapped.
 */
static inline struct cpu *arch_this_cpu(void)
{
	return (struct cpu *)read_gs_quad(0);
}

/* Make @cpu the calling CPU's per-CPU area. */
static inline void arch_set_this_cpu(struct cpu *cpu)
{
	wrmsr(MSR_GS_BASE, (uint64_t)cpu);
}

#endif
