/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_CPU_H
#define TRIGOS_CPU_H
/*
 * Per-CPU state.  Each CPU reaches its own struct cpu through an arch
 * register (GS base on x86: asm/percpu.h), so this_cpu() costs one load and
 * needs no lock.  Logical CPU numbers (cpu->id, dense from 0) and hardware
 * APIC IDs (sparse) are different things: see the maps in smp code.
 */

#include <stdbool.h>
#include <stdint.h>
#include <asm/cpu_state.h>

#define MAX_CPUS	256

struct recovery_context;

/*
 * The minimal cross-CPU work slot (smp.h): one request at a time per
 * target, a sequence number each way.  The SMP issue's call-function queues
 * build on the same idle loop.  Its state changes are each one
 * compare-and-exchange or a store by the one side that may make it:
 * FREE -> POSTED by a requester; POSTED -> RUNNING by the target, which
 * then runs the work; RUNNING -> DONE by the target and DONE -> FREE by
 * the requester that waited.  A requester that times out withdraws work
 * not yet begun (POSTED -> WITHDRAWN; the target does not run it, and
 * frees the slot when it next looks), or leaves running work to free the
 * slot when it ends (RUNNING -> ABANDONED -> FREE by the target): a vCPU
 * the host stopped is late, not lost.
 */
enum work_slot_state {
	WORK_SLOT_FREE,
	WORK_SLOT_POSTED,
	WORK_SLOT_RUNNING,
	WORK_SLOT_DONE,
	WORK_SLOT_WITHDRAWN,
	WORK_SLOT_ABANDONED,
};

struct cpu_work {
	void (*function)(void *argument);
	void *argument;
	unsigned long requested;	/* bumped by the requester */
	unsigned long completed;	/* set to requested by the target when done */
	uint32_t state;			/* enum work_slot_state */
	unsigned long abandoned_serial;	/* its number when given up on (ABANDONED) */
};

struct cpu {
	struct cpu *self;			/* offset 0: asm/percpu.h reads it via GS */
	unsigned int id;			/* logical CPU number */
	uint32_t apic_id;
	struct recovery_context *recovery;	/* innermost fault-recovery context */
	unsigned int exception_depth;		/* nested exceptions being handled */
	bool present;				/* listed by the firmware and enabled */
	bool online;				/* running trigos code */
	bool boot_failed;			/* did not come up within the deadline */
	uint64_t online_cycles;			/* TSC when it came online */
	uint64_t stack_top;			/* its kernel stack (guard page below) */
	struct cpu_work work;
	unsigned long timer_ticks;		/* LAPIC timer interrupts taken */
	unsigned long interrupts;		/* interrupts taken (vectors 32-255) */
	unsigned long nmis;			/* NMIs taken */
	unsigned long wake_interrupts;		/* wake IPIs taken */
	uint64_t wake_interrupted_rflags;	/* RFLAGS the last wake IPI interrupted */
	uint64_t wake_interrupted_rip;
	uint64_t scratch;			/* for tests of per-CPU privacy */
	struct arch_cpu_state arch;
};

extern struct cpu cpus[MAX_CPUS];

#include <asm/percpu.h>

/** this_cpu - the calling CPU's own struct cpu */
static inline struct cpu *this_cpu(void)
{
	return arch_this_cpu();
}

/** cpu_id - the calling CPU's logical number */
static inline unsigned int cpu_id(void)
{
	return this_cpu()->id;
}

/**
 * cpu_local_add - add @amount to a counter that only the calling CPU
 * writes (its handlers and NMIs included); other CPUs may read it, never
 * write it.  No locked operation: per-CPU accounting costs no more than
 * an add.
 */
static inline void cpu_local_add(uint64_t *counter, uint64_t amount)
{
	arch_local_add(counter, amount);
}

/*
 * This CPU's interrupt flag and spin-wait hint, over the arch hooks of
 * asm/irqflags.h and asm/instructions.h.  The plain disable and enable do
 * not count; the nesting ones (local_irq_save(), local_irq_push()) are
 * kernel/sync's, in sync/irq.h.
 */
#include <asm/irqflags.h>
#include <asm/instructions.h>

/** local_irq_disable - disable maskable interrupts on this CPU (not counted) */
static inline void local_irq_disable(void)
{
	arch_local_irq_disable();
}

/** local_irq_enable - enable maskable interrupts on this CPU (not counted) */
static inline void local_irq_enable(void)
{
	arch_local_irq_enable();
}

/** irqs_enabled - whether maskable interrupts are enabled on this CPU */
static inline bool irqs_enabled(void)
{
	return arch_irqs_enabled();
}

/**
 * cpu_relax - tell the CPU that this is a spin-wait loop (PAUSE on x86,
 * unless pause=off); a compiler barrier in any case, so a loop that
 * polls memory reads it again each time round
 */
static inline void cpu_relax(void)
{
	arch_cpu_relax();
}

/** cpu_early_init - point the per-CPU register at cpus[0] (first thing in kmain) */
void cpu_early_init(void);

/**
 * cpu_init_bsp - make cpus[0] the boot CPU's state and load its GDT, TSS,
 * IDT and per-CPU pointer; the first thing kmain does after paging.
 */
void cpu_init_bsp(void);

/** arch_cpu_init - load @cpu's GDT, TSS and per-CPU pointer on the calling CPU */
void arch_cpu_init(struct cpu *cpu);

#endif
