/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_IPI_H
#define TRIGOS_IPI_H
/*
 * Inter-processor interrupts: fixed-vector and NMI IPIs to one CPU, to a
 * set, to every other CPU and to the sender itself, and a small registry of
 * the vectors 0xe2..0xef with their handlers (kernel/arch/x86/ipi.c).
 *
 *	static void pinged(void)		// interrupts off, EOI already sent
 *	{
 *		__atomic_fetch_add(&pings, 1, __ATOMIC_RELEASE);
 *	}
 *
 *	int vector = ipi_vector_alloc(pinged);	// one of 0xe8..0xef, or -1
 *	ipi_send(2, vector);			// to logical CPU 2
 *	...
 *	ipi_vector_free(vector);
 *
 * Where the EOI goes: ipi.c's dispatcher signals end of interrupt to the
 * local APIC *before* it calls the registered handler.  Interrupts stay
 * disabled for the whole handler (the IDT gates are interrupt gates), so an
 * IPI of the same vector that arrives meanwhile is latched in the IRR and
 * taken right after the IRET; nothing is lost, and a handler that never
 * returns (a test that throws, a stop_machine that spins) does not leave its
 * vector's ISR bit set, which would block every vector of its priority class
 * 0xe0..0xef - the timer and the wake IPI included - on that CPU for good
 * (SDM vol 3, 12.8.3 and 12.8.4).  Handlers must not enable interrupts.
 *
 * IPIs of one vector coalesce: the IRR holds one pending bit per vector, so
 * ten IPIs sent before the target takes the first may arrive as two.  Only a
 * handshake per IPI (send, wait for the handler's acknowledgement, send the
 * next) can count them exactly.  At most one NMI waits behind the one being
 * handled; the rest are dropped.
 *
 * NMI context: an NMI can land between the two writes (ICR high, then ICR
 * low) with which an xAPIC sends an IPI.  A handler that then sent its own
 * IPI the plain way would leave its destination in ICR high, and the
 * interrupted IPI would go there instead.  So in NMI context (in_nmi()) every
 * send here saves ICR high and puts it back; ipi_send_from_nmi() and
 * ipi_send_nmi_from_nmi() take that path explicitly, and also skip the
 * first-use setup, which may wait for another CPU.  (x2APIC writes the ICR
 * with one WRMSR: no window.)
 */

#include <stdbool.h>
#include <stdint.h>
#include <cpu/cpumask.h>

/* The vectors of this registry; the lead's are 0xe0 timer, 0xe1 wake, 0xfe, 0xff. */
#define IPI_VECTOR_FIRST		0xe2
#define IPI_VECTOR_CALL_FUNCTION	0xe2	/* smp_call.c's per-CPU queues */
/* 0xe3..0xe7: kept for future fixed users (ipi_register()). */
#define IPI_VECTOR_DYNAMIC_FIRST	0xe8	/* handed out by ipi_vector_alloc() */
#define IPI_VECTOR_DYNAMIC_LAST		0xef
#define IPI_VECTOR_LAST			0xef
#define IPI_VECTOR_COUNT		(IPI_VECTOR_LAST - IPI_VECTOR_FIRST + 1)

/* Called with interrupts disabled, after the EOI, on the CPU the IPI reached. */
typedef void (*ipi_handler_t)(void);

/**
 * ipi_init - register the dispatcher for 0xe2..0xef and find the ICR
 *
 * Idempotent and safe from several CPUs at once; every function below calls
 * it on first use, so calling it from kmain only makes the cost explicit.
 */
void ipi_init(void);

/**
 * ipi_register - install @handler for @vector (IPI_VECTOR_FIRST..LAST)
 * Returns false if @vector is outside the range or already has a handler.
 */
bool ipi_register(unsigned int vector, ipi_handler_t handler);

/** ipi_unregister - remove @vector's handler; its IPIs are then counted as stray */
void ipi_unregister(unsigned int vector);

/** ipi_vector_alloc - a free vector of 0xe8..0xef with @handler installed, or -1 */
int ipi_vector_alloc(ipi_handler_t handler);

/** ipi_vector_free - give back a vector from ipi_vector_alloc() */
void ipi_vector_free(unsigned int vector);

/** ipi_in_handler - whether the calling CPU is inside a handler of this registry */
bool ipi_in_handler(void);

/**
 * ipi_run_handler - run @vector's handler here, interrupts off, as its IPI
 * would have: for an IPI judged lost (ipi_evidence.h), so that the run
 * goes on to report the loss instead of hanging on it
 */
void ipi_run_handler(unsigned int vector);

/**
 * ipi_send - send fixed-vector IPI @vector (32..255) to logical CPU @cpu
 * (which may be the caller)
 *
 * Returns false, sending nothing, if @cpu is not online or @vector is an
 * exception vector, or if the xAPIC still reported the previous IPI as
 * pending after a 10 ms deadline (that is also reported as a diagnostic).
 * Interrupts may be enabled or disabled; not for NMI handlers (see above).
 */
bool ipi_send(unsigned int cpu, unsigned int vector);

/**
 * ipi_send_mask - ipi_send() to every CPU of @mask (the caller too if it is
 * in @mask), one unicast each; false, sending nothing, if any CPU of
 * @mask is not online
 */
bool ipi_send_mask(const struct cpumask *mask, unsigned int vector);

/**
 * ipi_send_allbutself - @vector to every online CPU but the caller
 *
 * With the ALL-EXCLUDING-SELF shorthand (one ICR write) when every CPU the
 * firmware lists is online (ipi_shorthand_usable()); otherwise one unicast
 * per online CPU, since the shorthand would also reach CPUs that were never
 * started or that failed to start.  True with one CPU (nothing to send).
 */
bool ipi_send_allbutself(unsigned int vector);

/** ipi_send_self - @vector to the calling CPU, with the SELF shorthand */
bool ipi_send_self(unsigned int vector);

/** ipi_shorthand_usable - whether the all-excluding-self shorthand reaches only online CPUs */
bool ipi_shorthand_usable(void);

/** ipi_send_nmi - an NMI to @cpu (the caller itself too, by its own APIC ID) */
bool ipi_send_nmi(unsigned int cpu);

/** ipi_send_nmi_mask - an NMI to every CPU of @mask, one unicast each */
bool ipi_send_nmi_mask(const struct cpumask *mask);

/** ipi_send_nmi_allbutself - an NMI to every other online CPU (shorthand when usable) */
bool ipi_send_nmi_allbutself(void);

/**
 * ipi_send_from_nmi - ipi_send() for NMI handlers
 *
 * Saves xAPIC ICR high, waits (bounded) for the ICR to be idle, sends,
 * waits for the IPI to leave and restores ICR high, so that an IPI the NMI
 * interrupted between its two ICR writes still goes where it was meant to.
 * Never prints and takes no lock: a delivery-status timeout is only counted.
 */
bool ipi_send_from_nmi(unsigned int cpu, unsigned int vector);

/** ipi_send_nmi_from_nmi - ipi_send_nmi() for NMI handlers, as ipi_send_from_nmi() */
bool ipi_send_nmi_from_nmi(unsigned int cpu);

/**
 * struct ipi_stats - IPI counters since boot: one per CPU in ipi.c, summed by ipi_stats_read()
 * @sent:		IPIs sent (a shorthand counts once)
 * @shorthand_sent:	of those, with the all-excluding-self or self shorthand
 * @nmi_sent:		of those, NMIs
 * @received:		IPIs taken on vectors 0xe2..0xef
 * @stray:		of those, on a vector with no handler
 * @delivery_timeouts:	sends abandoned because the ICR stayed busy
 * @nmi_sends:		sends from NMI context (ipi_send_*from_nmi)
 * @nmi_window_hits:	of those, NMIs that arrived between the two xAPIC ICR
 *			writes of an interrupted send, whose ICR high was put back
 */
struct ipi_stats {
	uint64_t sent;
	uint64_t shorthand_sent;
	uint64_t nmi_sent;
	uint64_t received;
	uint64_t stray;
	uint64_t delivery_timeouts;
	uint64_t nmi_sends;
	uint64_t nmi_window_hits;
};

/** ipi_stats_read - the counters as they are now (not a consistent snapshot) */
void ipi_stats_read(struct ipi_stats *stats);

/**
 * ipi_test_widen_icr_window - for tests: spend about @nanoseconds between
 * the two xAPIC ICR writes of every plain send (0: none, the default), so
 * that NMIs land there even under TCG, which takes an NMI only between
 * translation blocks
 */
void ipi_test_widen_icr_window(uint64_t nanoseconds);

/** ipi_test_cpu_in_icr_window - for tests: whether @cpu is between its two ICR writes now */
bool ipi_test_cpu_in_icr_window(unsigned int cpu);

#endif /* TRIGOS_IPI_H */
