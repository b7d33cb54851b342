// SPDX-License-Identifier: MIT
/*
 * Per-CPU interrupt-disable nesting (irq.h).  The counting is inline in
 * irq.h; this file holds the counters and the report of a bad undo.
 */
#include <sync/irq.h>
#include <log/log.h>
#include <log/symbols.h>

struct irq_nesting irq_nesting[MAX_CPUS];

/*
 * Not inlined, so that the return address is the undo's call site in the
 * function that inlined local_irq_restore() or local_irq_pop().
 */
__attribute__((noinline)) void irq_nesting_underflow(void)
{
	struct irq_nesting *nesting = &irq_nesting[cpu_id()];
	char where[96];

	if (nesting->underflow_reported)
		return;
	nesting->underflow_reported = true;
	ktap_note("irq: cpu %u: interrupt restore or pop without a matching save or push, at %s",
		  cpu_id(), symbol_format_return_address((uint64_t)__builtin_return_address(0),
							 where, sizeof(where)));
}
