// SPDX-License-Identifier: MIT
/*
 * The stuck CPU's side of the watchdog: its NMI handler reports where it
 * was and, inside a test case, resumes the case's recovery context with a
 * timeout code, through IRETQ (which also ends NMI blocking).
 */
#include <log/console.h>
#include <cpu/cpu.h>
#include <log/panic.h>
#include <smp/recovery.h>
#include <log/symbols.h>
#include <arch/watchdog_nmi.h>
#include <asm/apic.h>
#include <asm/interrupts.h>

static bool (*nmi_is_ours)(void);

static bool watchdog_nmi(struct interrupt_frame *frame)
{
	struct recovery_context *context = this_cpu()->recovery;
	char name[96];

	if (!nmi_is_ours())
		return false;
	kprintf("    # watchdog: cpu %u was at RIP 0x%llx %s\n", cpu_id(),
		(unsigned long long)frame->rip, symbol_format(frame->rip, name, sizeof(name)));
	stack_trace_print("    # ", frame->rbp);
	if (context)
		recovery_redirect_frame(frame, context, RECOVERY_TIMEOUT);
	return true;
}

void arch_watchdog_nmi_init(bool (*is_ours)(void))
{
	nmi_is_ours = is_ours;
	nmi_register(watchdog_nmi);
}

void arch_send_nmi(unsigned int cpu)
{
	lapic_send_ipi(cpus[cpu].apic_id, APIC_DELIVERY_NMI);
}
