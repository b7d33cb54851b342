// SPDX-License-Identifier: MIT
/*
 * Each CPU's GDT and TSS.  Long mode ignores segment bases and limits for
 * code and data (SDM vol 3, 3.2.4), so the GDT exists only for the code
 * selector's L bit and for the TSS, whose IST stacks give #DF, NMI and #MC a
 * known good stack even when the current one has overflowed (SDM vol 3, 7.14.5).
 */
#include <cpu/cpu.h>
#include <lib/string.h>
#include <asm/boot.h>
#include <asm/instructions.h>

#define DESCRIPTOR_KERNEL_CODE_64	0x00af9a000000ffffull	/* P, DPL0, code, L */
#define DESCRIPTOR_KERNEL_DATA		0x00cf92000000ffffull	/* P, DPL0, data, writable */
#define TSS_TYPE_AVAILABLE_64		0x9

static void set_tss_descriptor(uint64_t *gdt, const struct task_state_segment *tss)
{
	uint64_t base = (uint64_t)tss;
	uint64_t limit = sizeof(*tss) - 1;

	/* A 16-byte system descriptor (SDM vol 3, 8.2.3 figure 8-4). */
	gdt[SELECTOR_TSS / 8] = (limit & 0xffff) | ((base & 0xffffff) << 16) |
				((uint64_t)TSS_TYPE_AVAILABLE_64 << 40) | (1ull << 47) |
				(((limit >> 16) & 0xf) << 48) | (((base >> 24) & 0xff) << 56);
	gdt[SELECTOR_TSS / 8 + 1] = base >> 32;
}

void arch_cpu_init(struct cpu *cpu)
{
	struct arch_cpu_state *arch = &cpu->arch;
	struct descriptor_table_pointer pointer;

	memset(arch->gdt, 0, sizeof(arch->gdt));
	arch->gdt[SELECTOR_KERNEL_CODE / 8] = DESCRIPTOR_KERNEL_CODE_64;
	arch->gdt[SELECTOR_KERNEL_DATA / 8] = DESCRIPTOR_KERNEL_DATA;

	memset(&arch->tss, 0, sizeof(arch->tss));
	for (int slot = 1; slot <= IST_STACK_COUNT; slot++)
		arch->tss.ist[slot - 1] = arch->ist_stack_top[slot];
	/* No I/O permission bitmap: the base points past the TSS limit. */
	arch->tss.io_map_base = sizeof(arch->tss);
	set_tss_descriptor(arch->gdt, &arch->tss);

	pointer.limit = sizeof(arch->gdt) - 1;
	pointer.base = (uint64_t)arch->gdt;
	lgdt(&pointer);
	reload_segments(SELECTOR_KERNEL_CODE, SELECTOR_KERNEL_DATA);
	ltr(SELECTOR_TSS);

	cpu->self = cpu;
	arch_set_this_cpu(cpu);
	idt_load();
}
