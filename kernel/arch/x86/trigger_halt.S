/*
 * The halts of the hlt backend (and adaptive's halt phase), each inside a
 * marked window: from the re-check of the generation to the HLT.
 *
 *	interrupts on   re-check ... sti; hlt   woken by a wake IPI (the STI
 *	                                        shadow holds a pending one
 *	                                        until HLT begins; SDM vol 2, STI)
 *	interrupts off  re-check ... hlt        (stop_machine's DISABLE_IRQ and
 *	                                        RUN states) woken by a wake NMI
 *
 * Interrupts are off inside both windows, so of everything that can run on
 * this CPU only an NMI handler can land between the re-check and the HLT.
 * If that handler kicks the trigger itself, its wake-up would be lost: a
 * kick sends no IPI or NMI to the CPU it runs on (that CPU is running), and
 * the CPU would then halt until some unrelated interrupt.  So the trigger
 * NMI handler (trigger_wake.c), finding the interrupted RIP inside a window,
 * resumes at the window's end, past the HLT, and sets RAX to
 * TRIGGER_HALT_MOVED_PAST: the wait returns and the caller looks again.  An
 * NMI taken during the HLT itself resumes at the window's end anyway.
 *
 * The window covers a second case, which the Promela model found
 * (tests/model/, mutant unfixed-stray-nmi): STI holds off interrupts, but
 * NMIs only "may" be held off, for one instruction (SDM vol 2B, STI), so on
 * some processors an NMI can land between STI and HLT.  Its IRET ends the
 * STI shadow, a wake IPI already pending is then taken before the HLT, and
 * the HLT would sleep with nothing left to end it - no self-kick needed.
 * RIP is the HLT then, inside the window, so the NMI handler moves the CPU
 * past it as well.
 *
 * The re-check is the window's first instruction, a plain load.  That is
 * how x86 does a sequentially consistent load (a MOV); what makes it one is
 * the locked OR that published this CPU just before (trigger_publish): loads
 * are not reordered with locked instructions (SDM vol 3, 9.2.2), so the load
 * cannot be satisfied before the publish is visible to every kicker.  It is
 * written here, not left to the compiler, so that no code generation can
 * move it out of the window.
 *
 * Return value (EAX), for the counters and the tests: TRIGGER_HALT_MOVED
 * (the re-check saw a kick: no halt), TRIGGER_HALT_HALTED (reached the HLT;
 * an interrupt or NMI ended it), TRIGGER_HALT_MOVED_PAST (the NMI handler
 * moved it past the HLT).  The values are in trigger_internal.h.
 *
 * Test-only parts, both off unless a test sets them:
 * trigger_before_recheck_hook (a C function called just before the
 * window, after the publish: the NMI self-kick test learns there that the
 * waiter is about to re-check) and trigger_halt_window_delay_cycles (a
 * PAUSE loop inside the window, after the re-check, that widens it so that
 * the torture's kicks and the test's NMIs land there; the NMI handler says
 * whether one did).
 */
#define TRIGGER_HALT_MOVED	0
#define TRIGGER_HALT_HALTED	1

	.text

/*
 * Test only: widen the window by trigger_halt_window_delay_cycles (clobbers
 * rax, rcx, rdx, r8).  A test that sets it back to 0 ends the widening at
 * once (its NMI landed: the CPU goes on to the HLT, so that a wake-up lost
 * there is the HLT's, not a widening longer than the test's "lost" bound).
 */
.macro window_delay
	movq	trigger_halt_window_delay_cycles(%rip), %rcx
	testq	%rcx, %rcx
	jz	2f
	rdtsc
	shlq	$32, %rdx
	orq	%rdx, %rax
	leaq	(%rax, %rcx), %r8
1:	pause
	cmpq	$0, trigger_halt_window_delay_cycles(%rip)
	je	2f
	rdtsc
	shlq	$32, %rdx
	orq	%rdx, %rax
	cmpq	%r8, %rax
	jb	1b
2:
.endm

/* Test only: call trigger_before_recheck_hook, keeping the arguments (stack 16-aligned). */
.macro window_hook
	movq	trigger_before_recheck_hook(%rip), %rax
	testq	%rax, %rax
	jz	3f
	pushq	%rdi
	pushq	%rsi
	subq	$8, %rsp
	call	*%rax
	addq	$8, %rsp
	popq	%rsi
	popq	%rdi
3:
.endm

/*
 * One window: [the test hook,] re-check, [the test delay,] [sti;] hlt.
 * Nothing inside a window touches the stack: the NMI handler resumes at
 * the window's end, whose RET must find the return address on top.  So the
 * hook, a call, comes before the window.
 */
.macro halt_window name, enable
	.global \name, \name\()_window_start, \name\()_checked, \name\()_window_end
\name:					/* (const volatile uint64_t *generation, uint64_t seen) */
	window_hook
\name\()_window_start:
	movl	$TRIGGER_HALT_MOVED, %eax
	cmpq	%rsi, (%rdi)		/* the re-check */
	jne	\name\()_window_end
\name\()_checked:
	window_delay
	movl	$TRIGGER_HALT_HALTED, %eax
	.if \enable
	sti				/* its shadow covers the HLT: a pending IPI ends it */
	.endif
	hlt
\name\()_window_end:
	ret
.endm

	halt_window trigger_halt_irqs_on, 1
	halt_window trigger_halt_irqs_off, 0

/*
 * The interrupts-on MWAIT and MWAITX sleeps of the mwait and mwaitx
 * backends ("sti; mwait"), in marked windows as well: re-check, sti,
 * mwait[x].  They have the halts' two hazards.  An NMI in the STI shadow
 * (SDM vol 2B, STI: NMIs "may" be held off) ends the shadow with its IRET,
 * a wake IPI already pending is taken before the MWAIT, and the MWAIT then
 * sleeps with nothing left to end it unless the monitored store ends it -
 * which it need not: under Bochs the kernel relies on the wake IPI because
 * Bochs's monitor misses stores (trigger_bochs.c), and MWAIT may sleep
 * whatever the monitor saw once an interrupt has been taken in between
 * (SDM vol 2B, MWAIT: the monitor may be cleared by events).  And an NMI
 * handler's kick on this CPU, after the re-check, sends it nothing.  So the
 * trigger NMI handler moves a CPU interrupted inside either window past its
 * MWAIT too; the Promela model has the step (tests/model/, mutant
 * unmarked-mwait).
 *
 * Arguments (System V): the generation, seen, MWAIT's hints (EAX) and
 * extensions (ECX), for MWAITX its timeout (EBX, AMD APM vol 3, MWAITX).
 * The monitor is armed by the caller, before.  Returns an enum
 * trigger_halt_outcome: TRIGGER_HALT_HALTED once past the MWAIT - set by
 * the window's last instruction, so a CPU woken there by an NMI comes out
 * as TRIGGER_HALT_MOVED_PAST, which is no harm: the caller looks again.
 * RBX (callee-saved) is pushed before the window and popped after it:
 * nothing inside touches the stack.
 */
.macro mwait_window name, mwaitx
	.global \name, \name\()_window_start, \name\()_window_end
\name:					/* (generation, seen, hints, extensions[, timeout]) */
	.if \mwaitx
	pushq	%rbx
	movl	%r8d, %ebx
	.endif
	movl	%edx, %r9d
\name\()_window_start:
	movl	$TRIGGER_HALT_MOVED, %eax
	cmpq	%rsi, (%rdi)		/* the re-check */
	jne	\name\()_window_end
	movl	%r9d, %eax
	sti				/* its shadow covers the MWAIT: a pending IPI ends it */
	.if \mwaitx
	.byte	0x0f, 0x01, 0xfb	/* mwaitx */
	.else
	mwait
	.endif
	movl	$TRIGGER_HALT_HALTED, %eax
\name\()_window_end:
	.if \mwaitx
	popq	%rbx
	.endif
	ret
.endm

	mwait_window trigger_mwait_irqs_on, 0
	mwait_window trigger_mwaitx_irqs_on, 1
