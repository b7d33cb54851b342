// SPDX-License-Identifier: MIT
#include <cpu/cpu.h>

struct cpu cpus[MAX_CPUS];

extern char boot_stack_top[];

/* The boot CPU's IST stacks; APs get theirs from the page allocator. */
static uint8_t bsp_ist_stacks[IST_STACK_COUNT][IST_STACK_SIZE] __attribute__((aligned(16)));

void cpu_early_init(void)
{
	/*
	 * Before anything can print: the console lock asks this_cpu() who
	 * holds it, and GS base is 0 until now.
	 */
	cpus[0].self = &cpus[0];
	cpus[0].id = 0;
	arch_set_this_cpu(&cpus[0]);
}

void cpu_init_bsp(void)
{
	struct cpu *cpu = &cpus[0];

	for (int slot = 1; slot <= IST_STACK_COUNT; slot++)
		cpu->arch.ist_stack_top[slot] = (uint64_t)&bsp_ist_stacks[slot - 1][IST_STACK_SIZE];
	cpu->stack_top = (uint64_t)boot_stack_top;
	idt_init();
	arch_cpu_init(cpu);
	cpu->online = true;
}
