/*
 * The AP start-up trampoline: real mode -> protected mode -> long mode.
 *
 * A STARTUP IPI starts an AP in real mode at CS:IP = (vector << 8):0000
 * (SDM vol 3, 9.4.4.1), so smp_boot.c copies this code to a free page below
 * 1 MiB taken from the memory map, fills in the parameter block at its end,
 * and sends the page number as the vector.  Every AP runs it at once
 * (parallel bring-up), so nothing here is written except the arrival
 * counter, with LOCK XADD, and the initial CR0, with LOCK OR; each AP finds its logical number (and so its
 * stack) by looking its APIC ID up in a table, with no lock.
 *
 * Addresses are relative to trampoline_start; %ebx holds the page's linear
 * address from the first instructions on.
 */
#include <asm/boot.h>

#define TRAMPOLINE_CODE32	0x08
#define TRAMPOLINE_DATA32	0x10
#define TRAMPOLINE_CODE64	0x18

#define OFFSET(symbol) ((symbol) - trampoline_start)

	.section .rodata, "a"
	.balign 16
	.global trampoline_start, trampoline_end, trampoline_parameters
trampoline_start:
	.code16
	cli
	cld
	movw	%cs, %ax
	movw	%ax, %ds
	xorl	%ebx, %ebx
	movw	%ax, %bx
	shll	$4, %ebx			/* the page's linear address */

	/*
	 * CR0 as INIT/SIPI left it, ORed over every AP (LOCK OR: they run at
	 * once), for the log and the cache_control probe of Bochs 2.7's
	 * CD/NW-on-INIT (docs/emulators.md).  MOV from CR0 is allowed in
	 * real mode (SDM vol 2B, MOV--Move to/from Control Registers).
	 */
	movl	%cr0, %eax
	lock orl %eax, OFFSET(parameter_initial_cr0)

	lgdtl	OFFSET(parameter_gdt_pointer)
	/*
	 * Defined values from here on, never what INIT left: under Bochs 2.7
	 * that has CD and NW set, and on real CPUs whatever the firmware
	 * last set (asm/boot.h, CR0_KERNEL).
	 */
	movl	$CR0_PROTECTED_MODE, %eax
	movl	%eax, %cr0
	/* A 6-byte far pointer (offset, selector) the BSP filled in. */
	ljmpl	*OFFSET(parameter_jump32)

	.code32
trampoline_entry32:
	movw	$TRAMPOLINE_DATA32, %ax
	movw	%ax, %ds
	movw	%ax, %es
	movw	%ax, %ss

	/* Same order as kernel/arch/x86/entry.S (SDM vol 3, 10.8.5). */
	movl	%cr4, %eax
	orl	$(CR4_PAE | CR4_PGE), %eax
	movl	%eax, %cr4
	movl	OFFSET(parameter_cr3)(%ebx), %eax
	movl	%eax, %cr3
	movl	$MSR_EFER, %ecx
	rdmsr
	orl	$(EFER_LME | EFER_NXE | EFER_SCE), %eax
	wrmsr
	movl	$CR0_KERNEL, %eax
	movl	%eax, %cr0
	ljmpl	*OFFSET(parameter_jump64)(%ebx)

	.code64
trampoline_entry64:
	/* Count the arrival (the BSP stops waiting once all have come). */
	movl	$1, %eax
	lock xaddl %eax, OFFSET(parameter_arrivals)(%rbx)

	/*
	 * Who am I?  The initial APIC ID from CPUID (leaf 0xB's x2APIC ID when
	 * the BSP runs in x2APIC mode, else CPUID.1:EBX[31:24]), looked up in
	 * the BSP's table of the CPUs it is starting.  A CPU that is not in
	 * the table (woken by a shorthand IPI but not ours to run) parks.
	 */
	cmpl	$0, OFFSET(parameter_x2apic)(%rbx)
	je	1f
	movl	$0xb, %eax
	xorl	%ecx, %ecx
	cpuid
	movl	%edx, %esi
	jmp	2f
1:	movl	$1, %eax
	cpuid
	movl	%ebx, %esi
	shrl	$24, %esi
	/* CPUID clobbered %rbx: recompute the trampoline's base from RIP. */
2:	leaq	trampoline_start(%rip), %rbx
	movq	OFFSET(parameter_apic_ids)(%rbx), %rdx
	movl	OFFSET(parameter_cpu_count)(%rbx), %ecx
	movl	$1, %eax			/* logical CPU 0 is the BSP */
3:	cmpl	%ecx, %eax
	jae	park
	cmpl	(%rdx, %rax, 4), %esi
	je	4f
	incl	%eax
	jmp	3b
4:	movq	OFFSET(parameter_stack_tops)(%rbx), %rcx
	movq	(%rcx, %rax, 8), %rsp
	testq	%rsp, %rsp
	jz	park				/* not one we are starting */
	movl	%eax, %edi			/* ap_entry(logical CPU number) */
	xorl	%ebp, %ebp			/* ends the frame-pointer chain */
	movq	OFFSET(parameter_entry)(%rbx), %rax
	call	*%rax
park:
	cli
	hlt
	jmp	park

	/* Filled in by smp_boot.c: keep in step with struct trampoline_parameters. */
	.balign 8
trampoline_parameters:
parameter_gdt_pointer:
	.short	0
	.long	0
	.short	0
parameter_jump32:
	.long	0
	.short	0
	.short	0
parameter_jump64:
	.long	0
	.short	0
	.short	0
parameter_cr3:
	.long	0
parameter_arrivals:
	.long	0
parameter_cpu_count:
	.long	0
parameter_x2apic:
	.long	0
parameter_stack_tops:
	.quad	0
parameter_apic_ids:
	.quad	0
parameter_entry:
	.quad	0
parameter_initial_cr0:
	.long	0
	.long	0
parameter_gdt:
	.quad	0
	.quad	0x00cf9a000000ffff		/* 0x08: 32-bit code */
	.quad	0x00cf92000000ffff		/* 0x10: 32-bit data */
	.quad	0x00af9a000000ffff		/* 0x18: 64-bit code */
parameter_gdt_end:
trampoline_end:

	.global trampoline_entry32_offset, trampoline_entry64_offset, trampoline_gdt_offset
	.global trampoline_gdt_size
	.balign 4
trampoline_entry32_offset:
	.long	OFFSET(trampoline_entry32)
trampoline_entry64_offset:
	.long	OFFSET(trampoline_entry64)
trampoline_gdt_offset:
	.long	OFFSET(parameter_gdt)
trampoline_gdt_size:
	.long	parameter_gdt_end - parameter_gdt
