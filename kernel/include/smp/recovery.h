/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_RECOVERY_H
#define TRIGOS_RECOVERY_H
/*
 * Fault recovery: run a function so that a CPU exception inside it (or an
 * explicit throw) returns control to the caller instead of panicking.
 *
 *	struct recovery_context context = { .report_faults = true };
 *	long outcome = recovery_call(&context, function, argument);
 *	if (outcome == RECOVERY_RETURNED)
 *		... function returned normally ...
 *	else if (outcome < RECOVERY_THROW_BASE)
 *		... exception number outcome, details in context.fault ...
 *
 * Contexts nest per CPU (each CPU has its own innermost one); the exception
 * handler resumes the innermost.  The test harness runs every case this way,
 * so a fault in a case is reported as that case's ERROR and the run goes on.
 * Resumption restores the callee-saved registers, the stack pointer and the
 * flags (interrupt state included) the caller had at recovery_call().
 */

#include <stdbool.h>
#include <stdint.h>
#include <asm/interrupts.h>

#define RECOVERY_RETURNED	(-1L)
#define RECOVERY_THROW_BASE	256L	/* codes below it are exception vectors */
#define RECOVERY_TIMEOUT	(RECOVERY_THROW_BASE + 100)	/* the watchdog ended it */

/**
 * recovery_exception_name - the name of exception @vector ("#PF page fault"
 * style), for an outcome below RECOVERY_THROW_BASE
 */
static inline const char *recovery_exception_name(unsigned int vector)
{
	return exception_name(vector);
}

struct fault_record {
	uint64_t vector;
	uint64_t error_code;
	uint64_t rip;
	uint64_t rsp;
	uint64_t cr2;
};

struct recovery_context {
	/* Saved by recovery_enter (asm: keep the offsets in recovery.S). */
	uint64_t rbx, rbp, r12, r13, r14, r15, rsp, rflags;
	struct recovery_context *outer;
	bool report_faults;		/* print the full dump when a fault lands here */
	const char *report_prefix;	/* e.g. "    # " inside a KTAP suite */
	struct fault_record fault;	/* the fault that ended the call, if any */
};

/**
 * recovery_call - call @function(@argument) under @context
 * Returns RECOVERY_RETURNED, an exception vector, or a thrown code.
 */
long recovery_call(struct recovery_context *context, void (*function)(void *), void *argument);

/**
 * recovery_throw - abandon everything down to @context, making its
 * recovery_call() return @code (>= RECOVERY_THROW_BASE).  Must be called on
 * the CPU that entered @context, while @context is active.
 */
void recovery_throw(struct recovery_context *context, long code) __attribute__((noreturn));

/** this_cpu_recovery - the calling CPU's innermost recovery context, or NULL */
struct recovery_context *this_cpu_recovery(void);

/* Arch: save state into @context and call; or resume @context with @code. */
long recovery_enter(struct recovery_context *context, void (*function)(void *), void *argument);
void recovery_resume(struct recovery_context *context, long code) __attribute__((noreturn));

/**
 * call_on_stack - call @function(@argument) with the stack pointer at @stack_top
 * (16-byte aligned), back on the caller's stack afterwards.
 */
void call_on_stack(void *stack_top, void (*function)(void *), void *argument);

#endif
