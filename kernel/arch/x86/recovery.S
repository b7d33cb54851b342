/*
 * The register-level half of fault recovery (kernel/include/smp/recovery.h).
 *
 * recovery_enter saves what the System V ABI says a callee must preserve
 * (RBX, RBP, R12-R15, RSP) plus RFLAGS, so that recovery_resume can later make
 * the same recovery_enter call return a second way, with a code in RAX, as if
 * the function it called had returned.  It is setjmp/longjmp with the call
 * folded in.
 */
#define CONTEXT_RBX	0
#define CONTEXT_RBP	8
#define CONTEXT_R12	16
#define CONTEXT_R13	24
#define CONTEXT_R14	32
#define CONTEXT_R15	40
#define CONTEXT_RSP	48
#define CONTEXT_RFLAGS	56

	.text
	.global recovery_enter
recovery_enter:				/* (context, function, argument) */
	movq	%rbx, CONTEXT_RBX(%rdi)
	movq	%rbp, CONTEXT_RBP(%rdi)
	movq	%r12, CONTEXT_R12(%rdi)
	movq	%r13, CONTEXT_R13(%rdi)
	movq	%r14, CONTEXT_R14(%rdi)
	movq	%r15, CONTEXT_R15(%rdi)
	movq	%rsp, CONTEXT_RSP(%rdi)	/* points at our return address */
	pushfq
	popq	CONTEXT_RFLAGS(%rdi)

	pushq	%rbp			/* a frame, so stack traces walk through us */
	movq	%rsp, %rbp		/* and RSP is 16-byte aligned for the call */
	movq	%rsi, %rax
	movq	%rdx, %rdi
	call	*%rax
	popq	%rbp
	movq	$-1, %rax		/* RECOVERY_RETURNED */
	ret

	.global recovery_resume
recovery_resume:			/* (context, code) */
	movq	CONTEXT_RSP(%rdi), %rsp
	movq	CONTEXT_RBX(%rdi), %rbx
	movq	CONTEXT_RBP(%rdi), %rbp
	movq	CONTEXT_R12(%rdi), %r12
	movq	CONTEXT_R13(%rdi), %r13
	movq	CONTEXT_R14(%rdi), %r14
	movq	CONTEXT_R15(%rdi), %r15
	pushq	CONTEXT_RFLAGS(%rdi)
	popfq
	movq	%rsi, %rax
	ret

	.global call_on_stack
call_on_stack:				/* (stack_top, function, argument) */
	pushq	%rbp
	movq	%rsp, %rbp
	movq	%rdi, %rsp
	movq	%rsi, %rax
	movq	%rdx, %rdi
	call	*%rax
	movq	%rbp, %rsp
	popq	%rbp
	ret
