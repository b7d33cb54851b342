/*
 * Interrupt and exception entry stubs, one per vector, and their common path.
 *
 * In 64-bit mode the CPU aligns RSP to 16 bytes and pushes SS, RSP, RFLAGS,
 * CS, RIP and, for some exceptions, an error code (SDM vol 3, 7.14.2 and
 * 7.3 table 7-1).  Each stub pushes a zero where the CPU pushes no error code
 * and then its vector number, so every frame has one layout: struct
 * interrupt_frame in asm/interrupts.h.  The common path saves every general
 * register into that structure, calls interrupt_dispatch(frame) and returns
 * with IRETQ, through whatever the handler left in the frame: that is how
 * fault recovery resumes elsewhere.
 */
#include <asm/boot.h>

/* Vectors for which the CPU pushes an error code. */
#define HAS_ERROR_CODE(v) ((v) == 8 || ((v) >= 10 && (v) <= 14) || (v) == 17 || \
			   (v) == 21 || (v) == 29 || (v) == 30)

	.text
	.altmacro

.macro interrupt_stub vector
	.balign 16
interrupt_stub_\vector:
	.if !(\vector == 8 || (\vector >= 10 && \vector <= 14) || \vector == 17 || \vector == 21 || \vector == 29 || \vector == 30)
	pushq	$0
	.endif
	pushq	$\vector
	jmp	interrupt_common
.endm

.macro stub_address vector
	.quad	interrupt_stub_\vector
.endm

	vector = 0
	.rept	256
	interrupt_stub %vector
	vector = vector + 1
	.endr

interrupt_common:
	cld
	pushq	%rax
	pushq	%rbx
	pushq	%rcx
	pushq	%rdx
	pushq	%rbp
	pushq	%rsi
	pushq	%rdi
	pushq	%r8
	pushq	%r9
	pushq	%r10
	pushq	%r11
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	movq	%rsp, %rdi
	call	interrupt_dispatch
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%r11
	popq	%r10
	popq	%r9
	popq	%r8
	popq	%rdi
	popq	%rsi
	popq	%rbp
	popq	%rdx
	popq	%rcx
	popq	%rbx
	popq	%rax
	addq	$16, %rsp		/* the vector and the error code */
	iretq

	.section .rodata
	.balign 8
	.global interrupt_stub_table
interrupt_stub_table:
	vector = 0
	.rept	256
	stub_address %vector
	vector = vector + 1
	.endr
