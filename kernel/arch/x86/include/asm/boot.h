/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_ASM_BOOT_H
#define TRIGOS_ASM_BOOT_H
/* Constants shared by the assembly entry code and C. */

/* What %eax holds on entry from a multiboot2 loader (Multiboot2 spec 3.2). */
#define MULTIBOOT2_BOOTLOADER_MAGIC	0x36d76289
/*
 * hvm_start_info.magic; pvh_entry hands it to kmain in place of the
 * multiboot2 magic so that kmain can tell the two boot paths apart.
 */
#define PVH_START_INFO_MAGIC		0x336ec578

/* GDT selectors, the same in the boot GDT and every CPU's own GDT. */
#define SELECTOR_KERNEL_CODE		0x08
#define SELECTOR_KERNEL_DATA		0x10
#define SELECTOR_TSS			0x18	/* a 16-byte descriptor */

#define BOOT_PAGE_SIZE			4096
#define BOOT_STACK_SIZE			(16 * 1024)

/* Control-register and EFER bits used on the way to long mode (SDM vol 3, 2.5 and 2.2.1). */
#define CR0_PE				(1u << 0)
#define CR0_MP				(1u << 1)
#define CR0_EM				(1u << 2)
#define CR0_TS				(1u << 3)
#define CR0_ET				(1u << 4)
#define CR0_NE				(1u << 5)
#define CR0_WP				(1u << 16)
#define CR0_AM				(1u << 18)
#define CR0_NW				(1u << 29)
#define CR0_CD				(1u << 30)
#define CR0_PG				(1u << 31)

/*
 * The whole of CR0, loaded as a value on every CPU (kernel/arch/x86/entry.S, the AP
 * trampoline), never ORed into what the CPU held before.  CD and NW are
 * clear: caching on, write-back where the memory type says so.  After
 * power-up CR0 is 60000010H (CD, NW and ET set, SDM vol 3A, 9.1.1, table
 * 9-1), and INIT leaves CD and NW as they were (note 2 of that table), so
 * a CPU owes its cache mode to whoever set CR0 last: the firmware on real
 * machines, nobody under Bochs 2.7, whose reset sets 60000010H on every
 * INIT too (cpu/init.cc, BX_CPU_C::reset, at tag REL_2_7_FINAL).  With CD
 * set, memory is uncached and MONITOR, which watches write-back memory
 * only, never arms (docs/emulators.md, Bochs).  MP and NE are the x87
 * settings SDM vol 3A, 9.2.1 recommends (the kernel does not use the FPU:
 * -mgeneral-regs-only); EM and TS clear, so an x87 or SSE instruction does
 * not fault; AM clear: alignment checking is for ring 3, which never runs.
 */
#define CR0_PROTECTED_MODE		(CR0_PE | CR0_MP | CR0_ET | CR0_NE)
#define CR0_KERNEL			(CR0_PROTECTED_MODE | CR0_WP | CR0_PG)
#define CR4_PAE				(1u << 5)
#define CR4_PGE				(1u << 7)
#define MSR_EFER			0xc0000080
#define EFER_SCE			(1u << 0)
#define EFER_LME			(1u << 8)
#define EFER_NXE			(1u << 11)

#endif
