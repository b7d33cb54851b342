// SPDX-License-Identifier: MIT
/* Fault recovery contexts: the per-CPU nesting around the arch save/resume. */
#include <cpu/cpu.h>
#include <sync/irq.h>
#include <smp/recovery.h>
#include <sync/trigger_backend.h>

long recovery_call(struct recovery_context *context, void (*function)(void *), void *argument)
{
	struct cpu *cpu = this_cpu();
	unsigned int irq_depth = local_irq_depth();
	unsigned int trigger_depth = trigger_sequence_depth();
	long outcome;

	context->outer = cpu->recovery;
	cpu->recovery = context;
	outcome = recovery_enter(context, function, argument);
	/*
	 * Whether the function returned or a fault or throw resumed us, the
	 * resumer has made @context the innermost again: pop it.
	 */
	cpu->recovery = context->outer;
	if (outcome != RECOVERY_RETURNED) {
		/*
		 * The abandoned frames cannot undo what they began: interrupt
		 * saves and trigger wait sequences go back to where they were
		 * (the flags themselves were restored by the resume).
		 */
		irq_nesting[cpu->id].depth = irq_depth;
		trigger_abandon_sequences(trigger_depth);
	}
	return outcome;
}

void recovery_throw(struct recovery_context *context, long code)
{
	/* Contexts nested inside @context are abandoned with their frames. */
	this_cpu()->recovery = context;
	recovery_resume(context, code);
}

struct recovery_context *this_cpu_recovery(void)
{
	return this_cpu()->recovery;
}
