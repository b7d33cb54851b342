/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_IPI_EVIDENCE_H
#define TRIGOS_IPI_EVIDENCE_H
/*
 * Lost or late, decided by evidence (x86: kernel/arch/x86/ipi_evidence.c).
 *
 * A wake-up or a call that does not come in time is either lost (the IPI
 * never reached its target) or late (the target was not run, or had
 * interrupts off).  A time-out cannot tell them apart; stamps can.  Every
 * send of a wake IPI, a call IPI or a wake NMI bumps its target's send
 * count after the ICR write completed and stamps the TSC; each arrival
 * records, in its handler, the send count it covers.  An IPI is judged
 * lost when no arrival covers its send although, after its post-ICR stamp,
 * its target entered a handler from interrupts-on code and returned there
 * with nothing in service (the local APIC delivers a pending IPI then: SDM
 * vol 3, 12.8.3, "Interrupt, Task, and Processor Priority"), or took a
 * probe interrupt (a higher class) whose handler finds the vector in
 * neither IRR nor ISR.  It is late when no such point
 * is known: a diagnostic with the gap, never a failure.
 *
 * Each CPU writes only its own records, except the send counts, one cache
 * line per target that its senders bump.  A loss is recorded where it is
 * judged (an interrupt handler, a wait's return) and printed, failing the
 * case, by the test runner at the case's end (ipi_evidence_report_losses()).
 */

#include <stdbool.h>
#include <stdint.h>

enum ipi_evidence_kind {
	IPI_EVIDENCE_WAKE,	/* a trigger kick's wake IPI (VECTOR_WAKE) */
	IPI_EVIDENCE_CALL,	/* smp_call's IPI (IPI_VECTOR_CALL_FUNCTION) */
	IPI_EVIDENCE_NMI,	/* a trigger kick's wake NMI */
	IPI_EVIDENCE_KINDS
};

/** ipi_evidence_kind_name - "wake IPI", "call IPI", "wake NMI" */
const char *ipi_evidence_kind_name(enum ipi_evidence_kind kind);

/**
 * ipi_evidence_kick - stamp this CPU's kick of a trigger of @user (NULL:
 * untagged): the TSC after its generation add, taken when its first
 * wake-up is about to go (a kick nobody waits for pays no TSC read), which
 * the wake-ups it sends carry to their targets' records
 */
void ipi_evidence_kick(const char *user);

/** struct ipi_evidence_wake_stamps - a wake-up's stamps (TSC; 0: none recorded) */
struct ipi_evidence_wake_stamps {
	uint64_t kick_tsc;	/* its kick, after the generation add */
	uint64_t sent_tsc;	/* its send, after the ICR write completed (0: not yet) */
	uint64_t arrived_tsc;	/* its arrival in this CPU's handler */
};

/**
 * ipi_evidence_last_wake - on this CPU: the stamps of the latest wake-up of
 * @kind (IPI_EVIDENCE_WAKE or IPI_EVIDENCE_NMI) sent to it and of the
 * latest that arrived; the kick's is the latest wake-up's of either kind
 */
void ipi_evidence_last_wake(enum ipi_evidence_kind kind, struct ipi_evidence_wake_stamps *stamps);

/**
 * ipi_evidence_should_lose - test only (test_lose=): whether this send of
 * @kind to @cpu is to vanish after its ICR write, as a lossy chipset or
 * hypervisor would lose it.  The seam of every test_lose_*= switch; the
 * smp suite's one-shot loss of a work wake is smp_work_wake_test_seam()'s
 * (smp/smp_test_seams.h), so that these switches lose no work wakes.
 */
bool ipi_evidence_should_lose(enum ipi_evidence_kind kind, unsigned int cpu);

/**
 * ipi_evidence_send_begin - a send of @kind to @cpu is about to write the
 * ICR.  An arrival covers the sends begun before it; so an unrelated
 * arrival between a lost send's begin and its end would cover it too - a
 * window of a few instructions in which a loss can go unseen, never one
 * in which a send that arrived is called lost.
 */
void ipi_evidence_send_begin(enum ipi_evidence_kind kind, unsigned int cpu);

/**
 * ipi_evidence_sent - a send of @kind to @cpu completed its ICR write (or
 * was lost by ipi_evidence_should_lose()): count and stamp it
 */
void ipi_evidence_sent(enum ipi_evidence_kind kind, unsigned int cpu);

/** ipi_evidence_arrived - in the handler: an IPI or NMI of @kind reached this CPU */
void ipi_evidence_arrived(enum ipi_evidence_kind kind);

/**
 * ipi_evidence_judge - on this CPU, interrupts off, outside any handler,
 * after it ran interrupts-on code (a wait's return): judge the wake and
 * call IPIs whose sends a handler entered since then proves due; whether
 * it judged one lost
 */
bool ipi_evidence_judge(void);

/**
 * ipi_evidence_probe - send @cpu the probe interrupt, whose handler looks
 * for the wake and call vectors in IRR and ISR: an untimed wait's only
 * evidence (smp_call's and stop_machine's stuck reports, the watchdog CPU's
 * sweep); and an NMI if a wake NMI to @cpu is unclaimed, which it returns
 */
bool ipi_evidence_probe(unsigned int cpu);

/**
 * ipi_evidence_sweep - from the watchdog CPU's periodic tick: probe every
 * CPU that has a send no arrival covered for a while
 */
void ipi_evidence_sweep(void);

/** ipi_evidence_losses - the losses judged so far, every CPU */
unsigned long ipi_evidence_losses(void);

/**
 * ipi_evidence_report_losses - print, one "LOST" line each, the losses
 * judged since the last call, and the late arrivals' largest gap; returns
 * how many losses it printed (the runner fails the case for them)
 */
unsigned int ipi_evidence_report_losses(const char *prefix);

/**
 * ipi_evidence_take_losses - a case that planted a loss of @kind takes it:
 * print the losses of @kind not yet printed, with @prefix, and return how
 * many, so that the runner does not fail the case for them.  Losses of
 * the other kinds stay the runner's: a loss the case did not plant (a
 * test_lose_*= switch, a real one) still fails it.
 */
unsigned int ipi_evidence_take_losses(enum ipi_evidence_kind kind, const char *prefix);

/** ipi_evidence_report - the largest late gap and the losses since the last report */
void ipi_evidence_report(const char *prefix);

/** ipi_evidence_init - boot: the probe vector, and the vector priority assertion */
void ipi_evidence_init(void);

#endif /* TRIGOS_IPI_EVIDENCE_H */
