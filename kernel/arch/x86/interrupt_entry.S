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
 * fault recovery resumes elsewhere.  When interrupt_dispatch() says so (a
 * fault fixed up inside an NMI handler), the return goes without IRETQ,
 * which would end NMI blocking (SDM vol 3, 6.7.1): see return_without_iret.
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
	movq	%rax, 15*8(%rsp)	/* the vector's slot: how to return */
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
	cmpq	$0, (%rsp)
	leaq	16(%rsp), %rsp		/* the vector and the error code (flags kept) */
	jne	return_without_iret
	iretq

/*
 * The same return without IRETQ, for a fault taken and fixed up at CPL 0
 * inside an NMI handler, on the same stack (no IST for #GP, #PF, #UD...).
 * Here RSP points at the frame the CPU pushed: RIP, CS, RFLAGS, RSP, SS
 * (SDM vol 3, 7.14.2), every general register already restored.  The
 * interrupted RSP (call it T) is above that frame: the CPU aligned it down
 * to 16 bytes and pushed 40 (7.14.2), so the frame lies in [T - 48, T).
 * RIP, RFLAGS and the two scratch registers are copied to [T - 32, T) and
 * restored from there: each copy lands on a slot already read (the copies
 * go to higher addresses than the two saved registers, and each of the
 * frame's slots is read before a copy can land on it).  Below T nothing is
 * live (-mno-red-zone) and nothing can interrupt: interrupts are off in an
 * NMI handler and NMIs are still blocked, which is the point.  CS and SS
 * are the same (CPL 0, one kernel code and stack selector).
 */
return_without_iret:
	pushq	%rax
	pushq	%rcx			/* 0: rcx, 8: rax, 16: RIP, 24: CS, 32: RFLAGS, 40: RSP */
	movq	40(%rsp), %rax		/* T */
	movq	16(%rsp), %rcx
	movq	%rcx, -8(%rax)		/* RIP, for the RET */
	movq	32(%rsp), %rcx
	movq	%rcx, -16(%rax)		/* RFLAGS, for the POPFQ */
	movq	8(%rsp), %rcx
	movq	%rcx, -24(%rax)		/* rax */
	movq	(%rsp), %rcx
	movq	%rcx, -32(%rax)		/* rcx */
	leaq	-32(%rax), %rsp
	popq	%rcx
	popq	%rax
	popfq
	ret

	.section .rodata
	.balign 8
	.global interrupt_stub_table
interrupt_stub_table:
	vector = 0
	.rept	256
	stub_address %vector
	vector = vector + 1
	.endr
