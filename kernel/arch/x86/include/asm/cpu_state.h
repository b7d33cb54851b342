/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_ASM_CPU_STATE_H
#define TRIGOS_ASM_CPU_STATE_H
/* The x86 part of each CPU's private state (embedded in struct cpu). */

#include <stdint.h>
#include <asm/interrupts.h>

/* The 64-bit TSS (SDM vol 3, 8.7 figure 8-11): only its stack pointers matter here. */
struct task_state_segment {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t io_map_base;
} __attribute__((packed));

#define GDT_ENTRIES		5	/* null, code, data, and the TSS's two */
#define IST_STACK_SIZE		(16 * 1024)

struct arch_cpu_state {
	uint64_t gdt[GDT_ENTRIES] __attribute__((aligned(16)));
	struct task_state_segment tss __attribute__((aligned(16)));
	uint64_t ist_stack_top[IST_STACK_COUNT + 1];	/* index by IST_* */
};

/**
 * arch_smp_ap_initial_cr0 - CR0 as INIT/SIPI left it on the APs, ORed over all
 * that ran the trampoline (0 if none did): recorded before the trampoline
 * loads its own, for the probe of Bochs 2.7's CD/NW-on-INIT (docs/emulators.md).
 */
uint32_t arch_smp_ap_initial_cr0(void);

#endif
