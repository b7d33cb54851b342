/*
 * 32-bit entry from GRUB (multiboot2) or from QEMU's -kernel (PVH), on to long
 * mode and kmain().
 *
 * Both loaders enter in flat 32-bit protected mode with paging off and
 * interrupts disabled (Multiboot2 spec 3.2; the PVH boot ABI), %ebx pointing
 * at their boot information.  We check that the loader and the CPU are what
 * we need, map the low 4 GiB with 2 MiB pages (enough to reach the kernel, the
 * boot information and anything the loader placed below 4 GiB), enable PAE,
 * long mode, NX and paging, and jump to 64-bit code.  kernel/arch/x86/paging.c
 * replaces these tables with the final ones (4 KiB pages and permissions)
 * before anything else runs.
 */
#include <asm/boot.h>

#define COM1			0x3f8
#define VGA_TEXT_MEMORY		0xb8000
#define VGA_WHITE_ON_RED	0x4f

#define PAGE_PRESENT		0x1
#define PAGE_WRITABLE		0x2
#define PAGE_LARGE		0x80

	.section .boot.text, "ax"
	.code32

	.global multiboot2_entry
multiboot2_entry:
	cli
	cld
	jmp	common_entry

	.global pvh_entry
pvh_entry:
	cli
	cld
	/* PVH has no magic in a register; the structure carries it. */
	cmpl	$PVH_START_INFO_MAGIC, (%ebx)
	jne	bad_pvh_magic
	movl	$PVH_START_INFO_MAGIC, %eax

common_entry:
	movl	$boot_stack_top, %esp
	movl	%eax, %ebp			/* the magic, kept across the checks */
	movl	%ebx, %edx			/* the boot information */

	cmpl	$MULTIBOOT2_BOOTLOADER_MAGIC, %ebp
	je	1f
	cmpl	$PVH_START_INFO_MAGIC, %ebp
	jne	bad_loader_magic
1:
	/*
	 * Clear .bss ourselves: GRUB's ELF loader does, but the boot page
	 * tables live there and we would rather not depend on every loader.
	 */
	movl	$__bss_start, %edi
	movl	$__bss_end, %ecx
	subl	%edi, %ecx
	xorl	%eax, %eax
	rep stosb

	/* CPUID exists if EFLAGS.ID (bit 21) can be toggled (SDM vol 1, 20.1). */
	pushfl
	popl	%eax
	movl	%eax, %ecx
	xorl	$(1 << 21), %eax
	pushl	%eax
	popfl
	pushfl
	popl	%eax
	cmpl	%eax, %ecx
	je	no_long_mode

	/* Long mode is CPUID.80000001h:EDX[29] (SDM vol 3, 9.8.5). */
	pushl	%edx
	movl	$0x80000000, %eax
	cpuid
	cmpl	$0x80000001, %eax
	jb	no_long_mode_pop
	movl	$0x80000001, %eax
	cpuid
	testl	$(1 << 29), %edx
	jz	no_long_mode_pop
	/* NX (EDX[20]): linker.ld gives data and stacks no-execute. */
	testl	$(1 << 20), %edx
	jz	no_nx_pop
	popl	%edx

	/* PML4[0] -> PDPT; PDPT[0..3] -> four page directories of 2 MiB pages. */
	movl	$boot_pdpt, %eax
	orl	$(PAGE_PRESENT | PAGE_WRITABLE), %eax
	movl	%eax, boot_pml4

	movl	$boot_page_directories, %eax
	orl	$(PAGE_PRESENT | PAGE_WRITABLE), %eax
	movl	$boot_pdpt, %edi
	movl	$4, %ecx
2:	movl	%eax, (%edi)
	addl	$BOOT_PAGE_SIZE, %eax
	addl	$8, %edi
	loop	2b

	/* 2048 entries: entry i maps i * 2 MiB (the high dword stays 0). */
	movl	$boot_page_directories, %edi
	movl	$(PAGE_PRESENT | PAGE_WRITABLE | PAGE_LARGE), %eax
	xorl	%ebx, %ebx
	movl	$2048, %ecx
3:	movl	%eax, (%edi)
	movl	%ebx, 4(%edi)
	addl	$0x200000, %eax
	adcl	$0, %ebx
	addl	$8, %edi
	loop	3b

	/* The order is fixed by SDM vol 3, 10.8.5: PAE, CR3, EFER.LME, then CR0.PG. */
	movl	%cr4, %eax
	orl	$(CR4_PAE | CR4_PGE), %eax
	movl	%eax, %cr4

	movl	$boot_pml4, %eax
	movl	%eax, %cr3

	pushl	%edx
	movl	$MSR_EFER, %ecx
	rdmsr
	orl	$(EFER_LME | EFER_NXE | EFER_SCE), %eax
	wrmsr
	popl	%edx

	/* A defined CR0, not the loader's with bits added (asm/boot.h says why). */
	movl	$CR0_KERNEL, %eax
	movl	%eax, %cr0

	lgdt	boot_gdt_pointer
	ljmp	$SELECTOR_KERNEL_CODE, $long_mode_entry

no_long_mode_pop:
	popl	%edx
no_long_mode:
	movl	$message_no_long_mode, %esi
	jmp	fatal32
no_nx_pop:
	popl	%edx
	movl	$message_no_nx, %esi
	jmp	fatal32
bad_pvh_magic:
	movl	$boot_stack_top, %esp
	xorl	%ebp, %ebp			/* not multiboot2: no tags to look at */
	movl	$message_bad_pvh, %esi
	jmp	fatal32
bad_loader_magic:
	movl	$message_bad_magic, %esi
	/* fall through */

/*
 * Print the NUL-terminated message at %esi on COM1 and in VGA text memory,
 * then halt for good.  Nothing is set up yet, so this is deliberately simple:
 * the UART is programmed for 115200 8N1 and polled with a bounded wait so that
 * a machine without one does not hang here before reaching the halt.
 * VGA text memory exists on BIOS machines only: when %ebp holds the
 * multiboot2 magic and the information at %edx has an EFI tag (types 11, 12
 * and 17-20, Multiboot2 spec 3.6), 0xb8000 may be RAM or nothing and is
 * left alone.
 */
fatal32:
	movl	$VGA_TEXT_MEMORY, %edi
	cmpl	$MULTIBOOT2_BOOTLOADER_MAGIC, %ebp
	jne	3f
	movl	(%edx), %eax			/* total_size: the tags end at %edx + it */
	addl	%edx, %eax
	leal	8(%edx), %ecx			/* the first tag */
1:	leal	8(%ecx), %ebx
	cmpl	%eax, %ebx
	ja	3f				/* no whole tag header left */
	movl	(%ecx), %ebx			/* type */
	testl	%ebx, %ebx
	jz	3f				/* the end tag */
	cmpl	$11, %ebx
	je	2f
	cmpl	$12, %ebx
	je	2f
	subl	$17, %ebx
	cmpl	$3, %ebx
	jbe	2f				/* 17..20 */
	movl	4(%ecx), %ebx			/* size, then to the next 8-byte boundary */
	cmpl	$8, %ebx
	jb	3f
	addl	$7, %ebx
	andl	$~7, %ebx
	addl	%ebx, %ecx
	jmp	1b
2:	xorl	%edi, %edi			/* EFI: no VGA text memory */
3:
	movw	$(COM1 + 3), %dx
	movb	$0x80, %al		/* line control: divisor latch access */
	outb	%al, %dx
	movw	$COM1, %dx
	movb	$1, %al			/* divisor 1: 115200 baud */
	outb	%al, %dx
	movw	$(COM1 + 1), %dx
	xorb	%al, %al
	outb	%al, %dx
	movw	$(COM1 + 3), %dx
	movb	$0x03, %al		/* 8 data bits, no parity, 1 stop bit */
	outb	%al, %dx

4:	movb	(%esi), %bl
	testb	%bl, %bl
	jz	6f
	movl	$100000, %ecx
	movw	$(COM1 + 5), %dx	/* line status: transmitter empty is bit 5 */
5:	inb	%dx, %al
	testb	$0x20, %al
	loopz	5b
	movw	$COM1, %dx
	movb	%bl, %al
	outb	%al, %dx
	testl	%edi, %edi
	jz	7f
	movb	%bl, (%edi)
	movb	$VGA_WHITE_ON_RED, 1(%edi)
	addl	$2, %edi
7:	incl	%esi
	jmp	4b
6:	cli
	hlt
	jmp	6b

	.code64
long_mode_entry:
	movw	$SELECTOR_KERNEL_DATA, %ax
	movw	%ax, %ds
	movw	%ax, %es
	movw	%ax, %ss
	xorw	%ax, %ax
	movw	%ax, %fs
	movw	%ax, %gs

	movl	$boot_stack_top, %esp		/* zero-extends to %rsp */
	movl	%ebp, %edi			/* kmain(magic, boot information) */
	movl	%edx, %esi
	xorl	%ebp, %ebp			/* ends the frame-pointer chain */
	call	kmain
7:	cli
	hlt
	jmp	7b

	.section .rodata
message_no_long_mode:
	.asciz	"trigos: this CPU does not support 64-bit long mode; halted.\r\n"
message_no_nx:
	.asciz	"trigos: this CPU does not support the NX bit; halted.\r\n"
message_bad_magic:
	.asciz	"trigos: not started by a multiboot2 loader (bad magic in EAX); halted.\r\n"
message_bad_pvh:
	.asciz	"trigos: PVH entry without a valid hvm_start_info; halted.\r\n"

	.balign 8
boot_gdt:
	.quad	0				/* the null descriptor */
	.quad	0x00af9a000000ffff		/* 0x08: 64-bit code, DPL 0 */
	.quad	0x00cf92000000ffff		/* 0x10: data, DPL 0 */
boot_gdt_end:
boot_gdt_pointer:
	.short	boot_gdt_end - boot_gdt - 1
	.long	boot_gdt

	.section .bss.page_aligned, "aw", @nobits
	.balign BOOT_PAGE_SIZE
boot_pml4:
	.skip	BOOT_PAGE_SIZE
boot_pdpt:
	.skip	BOOT_PAGE_SIZE
boot_page_directories:
	.skip	4 * BOOT_PAGE_SIZE

	/*
	 * The boot stack, with a guard page below it that paging.c leaves
	 * unmapped: an overflow faults (and ends in #DF on its own IST stack)
	 * instead of silently overwriting whatever lies below.
	 */
	.global boot_stack_guard, boot_stack_bottom, boot_stack_top
boot_stack_guard:
	.skip	BOOT_PAGE_SIZE
boot_stack_bottom:
	.skip	BOOT_STACK_SIZE
boot_stack_top:
