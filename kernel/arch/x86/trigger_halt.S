/*
 * The halt of a trigger wait with interrupts disabled (the hlt backend in
 * stop_machine's DISABLE_IRQ and RUN states): only an NMI can end it.
 *
 * The lost-wakeup window is between the last look at the generation and
 * the HLT: a kick whose NMI lands there would be handled and then the CPU
 * would halt for good.  So the window is marked, and the trigger NMI handler
 * (trigger.c), finding the interrupted RIP inside it, resumes at its end,
 * past the HLT: the wait returns and the caller looks again.  The torture
 * widens the window on purpose (trigger_halt_window_delay_cycles) so that
 * kicks do land in it.
 */
	.text
	.global trigger_halt_unless_moved, trigger_halt_window_start, trigger_halt_window_end
trigger_halt_unless_moved:		/* (const volatile uint64_t *generation, uint64_t seen) */
trigger_halt_window_start:
	cmpq	%rsi, (%rdi)
	jne	trigger_halt_window_end
	movq	trigger_halt_window_delay_cycles(%rip), %rcx
	testq	%rcx, %rcx
	jz	2f
	rdtsc
	shlq	$32, %rdx
	orq	%rdx, %rax
	leaq	(%rax, %rcx), %r8
1:	pause
	rdtsc
	shlq	$32, %rdx
	orq	%rdx, %rax
	cmpq	%r8, %rax
	jb	1b
2:	hlt
trigger_halt_window_end:
	ret
