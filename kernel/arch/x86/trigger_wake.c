// SPDX-License-Identifier: MIT
/*
 * How an x86 kick wakes a halted waiter, and the NMI handler that keeps
 * the halt windows safe: the hardware half of the halting protocol whose
 * ordering half is the core's (kernel/sync/trigger.c).
 *
 * The core's publish and kick are locked instructions on x86, full barriers
 * (SDM vol 3, 9.2.3.8), so either the waiter sees the new generation and
 * does not halt, or the kicker sees the waiter in a mask and calls
 * arch_trigger_wake_ipi() or arch_trigger_wake_nmi() for it.  The interrupt
 * sent then cannot be lost: a waiter with interrupts enabled at the reset
 * holds them off until "sti; hlt", whose STI shadow makes a pending IPI end
 * the HLT (and an NMI that lands inside the shadow, ending it, is moved past
 * the HLT: trigger_halt.S); a waiter with interrupts disabled is woken by an
 * NMI.  A kick sends nothing to its own CPU, which is running: an interrupt
 * handler there cannot run between the re-check and the HLT (interrupts are
 * off), and an NMI handler that can is moved past the HLT by trigger_nmi()
 * below, both halts being marked windows (trigger_halt.S).  A wake IPI or
 * NMI that cannot be sent is retried once, then reported (send_wake()).
 */
#include <log/console.h>
#include <cpu/cpu.h>
#include <arch/hypervisor.h>
#include <arch/ipi_evidence.h>
#include <log/log.h>
#include <smp/smp.h>
#include <lib/string.h>
#include <asm/apic.h>
#include <asm/instructions.h>
#include <asm/interrupts.h>

#include "trigger_internal.h"

#define KVM_CPUID_FEATURES	0x40000001
#define KVM_FEATURE_PV_UNHALT	(1u << 7)
#define KVM_HC_KICK_CPU		5

struct trigger_wake_cpu {
	unsigned int nmi_kicks_pending;	/* wake NMIs sent to this CPU, not yet seen */
	unsigned long wake_nmis;	/* wake NMIs taken (claimed from nmi_kicks_pending) */
	struct trigger_halt_window_stats window;	/* written by its NMI handler only */
	unsigned long own_cpu_published;	/* kicks that found this CPU among the waiters */
};

static struct trigger_wake_cpu trigger_wake_cpus[MAX_CPUS];

/* --- Sending: retried once, then reported ------------------------------------ */

/*
 * A wake IPI or NMI whose ICR write fails (ipi.c gives up when the xAPIC's
 * ICR stays busy for 10 ms, SDM vol 3, 12.6.1) is not dropped silently: it
 * is sent once more, and if that fails too it is counted and reported - at
 * once, or from NMI context (no printing there) at the next
 * trigger_report_usage().  No other way is tried: an NMI goes through the
 * same ICR.  The waiter then sleeps until something else wakes it, and
 * every converted user bounds its wait by its stuck-CPU deadline, whose
 * report fails the suite that checks that user.
 */
static struct trigger_wake_send_stats wake_sends;
static unsigned int wake_failures_to_inject;

static bool injected_failure(void)
{
	unsigned int left = __atomic_load_n(&wake_failures_to_inject, __ATOMIC_RELAXED);

	while (left && !__atomic_compare_exchange_n(&wake_failures_to_inject, &left, left - 1, false,
						    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	return left != 0;
}

static bool send_wake(unsigned int cpu, uint32_t command)
{
	enum ipi_evidence_kind kind = (command & APIC_DELIVERY_NMI) == APIC_DELIVERY_NMI
					      ? IPI_EVIDENCE_NMI : IPI_EVIDENCE_WAKE;

	ipi_evidence_send_begin(kind, cpu);
	for (int attempt = 0; attempt < 2; attempt++) {
		if (!injected_failure() && (ipi_evidence_should_lose(kind, cpu) ||
					    lapic_send_ipi(cpus[cpu].apic_id, command))) {
			/* After the ICR write completed: the post-ICR stamp. */
			ipi_evidence_sent(kind, cpu);
			if (attempt)
				__atomic_fetch_add(&wake_sends.retried, 1, __ATOMIC_RELAXED);
			return true;
		}
		__atomic_fetch_add(&wake_sends.failed_attempts, 1, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&wake_sends.last_dropped_cpu, cpu, __ATOMIC_RELAXED);
	__atomic_fetch_add(&wake_sends.dropped, 1, __ATOMIC_RELEASE);
	if (!in_nmi())
		ktap_note("trigger: cpu %u: the wake %s to cpu %u was not sent, twice (the ICR stayed "
			  "busy); that waiter sleeps until its own deadline", cpu_id(),
			  (command & APIC_DELIVERY_NMI) == APIC_DELIVERY_NMI ? "NMI" : "IPI", cpu);
	return false;
}

void trigger_wake_send_stats_read(struct trigger_wake_send_stats *stats)
{
	stats->dropped = __atomic_load_n(&wake_sends.dropped, __ATOMIC_ACQUIRE);
	stats->failed_attempts = __atomic_load_n(&wake_sends.failed_attempts, __ATOMIC_RELAXED);
	stats->retried = __atomic_load_n(&wake_sends.retried, __ATOMIC_RELAXED);
	stats->last_dropped_cpu = __atomic_load_n(&wake_sends.last_dropped_cpu, __ATOMIC_RELAXED);
}

static void count_own_cpu_published(void)
{
	trigger_wake_cpus[cpu_id()].own_cpu_published++;
}

unsigned long trigger_own_cpu_published(unsigned int cpu)
{
	return __atomic_load_n(&trigger_wake_cpus[cpu].own_cpu_published, __ATOMIC_RELAXED);
}

/* --- Waking halted waiters ----------------------------------------------------------- */

/*
 * KVM's paravirtual kick (Documentation/virt/kvm/x86/hypercalls.rst in
 * Linux: KVM_HC_KICK_CPU, offered when CPUID 0x40000001 has
 * KVM_FEATURE_PV_UNHALT): the hypervisor wakes the halted vCPU directly,
 * cheaper than an IPI that it would have to emulate.  Never under TCG.
 */
static bool pv_kick_uses_vmmcall;	/* AMD's VMMCALL, else Intel's VMCALL */

bool trigger_pv_kick_available(void)
{
	static int available = -1;
	const struct hypervisor_info *info = hypervisor_info();
	int known = __atomic_load_n(&available, __ATOMIC_ACQUIRE);

	/*
	 * Decided once: under KVM every CPUID is a VM exit, too dear to spend
	 * on each kick.  APs kick during bring-up, so several CPUs may decide
	 * at once: they all reach the same answer, and the instruction to use
	 * is published before the answer.
	 */
	if (known < 0) {
		__atomic_store_n(&pv_kick_uses_vmmcall, cpuid(0).ebx == 0x68747541, /* "Auth"enticAMD */
				 __ATOMIC_RELAXED);
		known = info->cpuid_hypervisor_bit &&
			strncmp(info->signature, "KVMKVMKVM", 9) == 0 &&
			cpuid(0x40000000).eax >= KVM_CPUID_FEATURES &&
			(cpuid(KVM_CPUID_FEATURES).eax & KVM_FEATURE_PV_UNHALT);
		__atomic_store_n(&available, known, __ATOMIC_RELEASE);
	}
	return known;
}

void arch_trigger_wake_ipi(unsigned int cpu, struct trigger_counters *counters)
{
	if (cpu == cpu_id()) {
		count_own_cpu_published();
		return;		/* we are running, so not halted (an NMI here: trigger_halt.S) */
	}
	if (trigger_pv_kick_available()) {
		kvm_hypercall2(KVM_HC_KICK_CPU, 0, cpus[cpu].apic_id,
			       __atomic_load_n(&pv_kick_uses_vmmcall, __ATOMIC_RELAXED));
		cpu_local_add(&counters->pv_kicks, 1);
		return;
	}
	if (send_wake(cpu, APIC_DELIVERY_FIXED | VECTOR_WAKE))
		cpu_local_add(&counters->ipis, 1);
}

void arch_trigger_wake_nmi(unsigned int cpu, struct trigger_counters *counters)
{
	if (cpu == cpu_id()) {
		count_own_cpu_published();
		return;		/* we are running, so not halted (an NMI here: trigger_halt.S) */
	}
	__atomic_fetch_add(&trigger_wake_cpus[cpu].nmi_kicks_pending, 1, __ATOMIC_SEQ_CST);
	if (!send_wake(cpu, APIC_DELIVERY_NMI)) {
		/* It never left: its target must not claim another NMI for it. */
		__atomic_fetch_sub(&trigger_wake_cpus[cpu].nmi_kicks_pending, 1, __ATOMIC_SEQ_CST);
		return;
	}
	cpu_local_add(&counters->nmis, 1);
}

unsigned long arch_trigger_wake_nmis_taken(unsigned int cpu)
{
	return __atomic_load_n(&trigger_wake_cpus[cpu].wake_nmis, __ATOMIC_RELAXED);
}

/* --- The NMI handler ------------------------------------------------------------ */

static bool rip_in(uint64_t rip, const char *start, const char *end)
{
	return rip >= (uint64_t)start && rip < (uint64_t)end;
}

/* The end of the marked halt or MWAIT window @rip is in (trigger_halt.S), or NULL. */
static const char *halt_window_end_for(uint64_t rip)
{
	if (rip_in(rip, trigger_halt_irqs_off_window_start, trigger_halt_irqs_off_window_end))
		return trigger_halt_irqs_off_window_end;
	if (rip_in(rip, trigger_mwait_irqs_on_window_start, trigger_mwait_irqs_on_window_end))
		return trigger_mwait_irqs_on_window_end;
	if (rip_in(rip, trigger_mwaitx_irqs_on_window_start, trigger_mwaitx_irqs_on_window_end))
		return trigger_mwaitx_irqs_on_window_end;
	if (rip_in(rip, trigger_halt_irqs_on_window_start, trigger_halt_irqs_on_window_end) &&
	    !__atomic_load_n(&trigger_irqs_on_window_unmarked, __ATOMIC_ACQUIRE))
		return trigger_halt_irqs_on_window_end;
	return NULL;
}

static bool between_recheck_and_halt(uint64_t rip)
{
	return rip_in(rip, trigger_halt_irqs_off_checked, trigger_halt_irqs_off_window_end) ||
	       rip_in(rip, trigger_halt_irqs_on_checked, trigger_halt_irqs_on_window_end);
}

static bool trigger_nmi(struct interrupt_frame *frame)
{
	struct trigger_wake_cpu *cpu = &trigger_wake_cpus[cpu_id()];
	unsigned int pending = __atomic_load_n(&cpu->nmi_kicks_pending, __ATOMIC_ACQUIRE);
	const char *window_end = halt_window_end_for(frame->rip);
	bool ours = false;

	/* Any NMI covers every wake NMI sent before it: they latch one and merge. */
	ipi_evidence_arrived(IPI_EVIDENCE_NMI);
	/*
	 * One of ours if a kick sent it.  A wake NMI can come late (the waiter
	 * woke another way first) or merge with another NMI (one can be pending
	 * behind the one being handled), so this counts them down one by one;
	 * every NMI handler runs anyway (nmi_dispatch), so claiming one that
	 * was not ours starves nobody.
	 */
	while (pending && !__atomic_compare_exchange_n(&cpu->nmi_kicks_pending, &pending,
							  pending - 1, false, __ATOMIC_ACQ_REL,
							  __ATOMIC_ACQUIRE))
		;
	if (pending) {
		ours = true;
		cpu->wake_nmis++;
	}
	if (between_recheck_and_halt(frame->rip))
		cpu->window.nmis_after_recheck++;
	/*
	 * Caught between the re-check and the HLT (trigger_halt.S): resume
	 * past the HLT, so that the wait returns and its caller looks again.
	 * Whatever any NMI handler kicks - this CPU's own kicks send it
	 * nothing - is then seen.  Not claimed as ours for that: the NMI
	 * belongs to whoever sent it.
	 */
	if (window_end) {
		frame->rip = (uint64_t)window_end;
		frame->rax = TRIGGER_HALT_MOVED_PAST;
		cpu->window.moved_past++;
	}
	return ours;
}

void trigger_halt_window_stats_read(unsigned int cpu, struct trigger_halt_window_stats *stats)
{
	stats->nmis_after_recheck = __atomic_load_n(&trigger_wake_cpus[cpu].window.nmis_after_recheck,
						    __ATOMIC_RELAXED);
	stats->moved_past = __atomic_load_n(&trigger_wake_cpus[cpu].window.moved_past,
					    __ATOMIC_RELAXED);
}

void trigger_nmi_init(void)
{
	nmi_register(trigger_nmi);
}

/* --- Reports and test hooks ------------------------------------------------------ */

/* Wake sends dropped since the last report (those from NMI context were not printed). */
static void report_dropped_wakes(const char *prefix)
{
	static unsigned long reported;
	struct trigger_wake_send_stats now;

	trigger_wake_send_stats_read(&now);
	if (now.dropped == reported)
		return;
	kprintf("%strigger: %lu wake IPIs or NMIs could not be sent, even retried (the ICR stayed "
		"busy); the last to cpu %u\n", prefix, now.dropped - reported, now.last_dropped_cpu);
	reported = now.dropped;
}

void arch_trigger_report(const char *prefix)
{
	report_dropped_wakes(prefix);
	ipi_evidence_report(prefix);
	trigger_bochs_report(prefix);
}

void trigger_test_fail_wake_sends(unsigned int count)
{
	__atomic_store_n(&wake_failures_to_inject, count, __ATOMIC_RELAXED);
}
