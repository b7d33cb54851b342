// SPDX-License-Identifier: MIT
/*
 * Sending IPIs through the local APIC's interrupt command register (SDM
 * vol 3, 12.6.1), and the dispatcher of the vectors 0xe2..0xef (ipi.h).
 *
 * This file is the only writer of the ICR (apic_icr_send(), which lapic.c's
 * INIT/SIPI and wake senders use too): the shorthands, the bounded
 * delivery-status polls and the NMI path's save and restore of ICR high
 * live in one place.  The mode (xAPIC or x2APIC) is the one lapic.c chose
 * for every CPU.
 */
#include <cpu/cpu.h>
#include <arch/ipi.h>
#include <arch/ipi_evidence.h>
#include <sync/irq.h>
#include <log/log.h>
#include <mm/memory.h>
#include <smp/smp.h>
#include <time/time.h>
#include <asm/apic.h>
#include <asm/instructions.h>
#include <asm/interrupts.h>

#define MSR_APIC_BASE			0x1b
#define APIC_BASE_ADDRESS_MASK		0xffffff000ull
#define MSR_X2APIC_ICR			0x830	/* 0x800 + (0x300 >> 4): the 64-bit ICR */

#define XAPIC_ICR_LOW			(0x300 / 4)
#define XAPIC_ICR_HIGH			(0x310 / 4)

/* ICR low (SDM vol 3, 12.6.1, "Interrupt Command Register"). */
#define ICR_DELIVERY_FIXED		(0u << 8)
#define ICR_DELIVERY_NMI		(4u << 8)
#define ICR_DELIVERY_MASK		(7u << 8)
#define ICR_DELIVERY_PENDING		(1u << 12)	/* xAPIC only; reserved in x2APIC */
#define ICR_LEVEL_ASSERT		(1u << 14)
#define ICR_SHORTHAND_NONE		(0u << 18)
#define ICR_SHORTHAND_SELF		(1u << 18)
#define ICR_SHORTHAND_ALL_BUT_SELF	(3u << 18)
#define ICR_SHORTHAND_MASK		(3u << 18)
#define ICR_XAPIC_DESTINATION_SHIFT	24		/* in ICR high */

#define ICR_IDLE_DEADLINE_NS		(10ull * 1000 * 1000)	/* 10 ms */

/* One cache line per CPU, written only by that CPU (and its NMI handler). */
struct ipi_cpu {
	unsigned int handler_depth;	/* inside a registered handler */
	bool in_icr_write;		/* between the two xAPIC ICR writes */
	struct ipi_stats counts;	/* this CPU's share; ipi_stats_read() sums them */
} __attribute__((aligned(64)));

static struct ipi_cpu ipi_cpus[MAX_CPUS];
static ipi_handler_t handlers[IPI_VECTOR_COUNT];
static volatile uint32_t *xapic;
static uint64_t idle_deadline_cycles;

enum { IPI_UNINITIALISED, IPI_INITIALISING, IPI_READY };
static int init_state;

static struct ipi_cpu *this_ipi_cpu(void)
{
	return &ipi_cpus[cpu_id()];
}

/*
 * Counters take a locked add: a single instruction, so an NMI on the same
 * CPU cannot split it, and a reader elsewhere never sees a torn value.
 */
static void count(uint64_t *counter)
{
	__atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}

/* --- The dispatcher -------------------------------------------------------- */

static void ipi_interrupt(struct interrupt_frame *frame)
{
	unsigned int slot = (unsigned int)frame->vector - IPI_VECTOR_FIRST;
	struct ipi_cpu *self = this_ipi_cpu();
	ipi_handler_t handler = __atomic_load_n(&handlers[slot], __ATOMIC_ACQUIRE);

	/* EOI first, before the handler: why, in ipi.h. */
	lapic_eoi();
	count(&self->counts.received);
	if (!handler) {
		count(&self->counts.stray);
		return;
	}
	self->handler_depth++;
	handler();
	self->handler_depth--;
}

void ipi_run_handler(unsigned int vector)
{
	struct ipi_cpu *self = this_ipi_cpu();
	ipi_handler_t handler;

	if (vector < IPI_VECTOR_FIRST || vector > IPI_VECTOR_LAST)
		return;
	handler = __atomic_load_n(&handlers[vector - IPI_VECTOR_FIRST], __ATOMIC_ACQUIRE);
	if (!handler)
		return;
	self->handler_depth++;
	handler();
	self->handler_depth--;
}

void ipi_init(void)
{
	int expected = IPI_UNINITIALISED;

	/* An NMI handler must not wait for another CPU: it sends nothing before init. */
	if (__atomic_load_n(&init_state, __ATOMIC_ACQUIRE) == IPI_READY || in_nmi())
		return;
	if (!__atomic_compare_exchange_n(&init_state, &expected, IPI_INITIALISING, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		/* Another CPU is at it: a few register writes, then it is done. */
		while (__atomic_load_n(&init_state, __ATOMIC_ACQUIRE) != IPI_READY)
			arch_cpu_relax();
		return;
	}
	if (lapic_mode() == APIC_MODE_XAPIC) {
		/* Already mapped uncached by lapic.c; the same mapping again is harmless. */
		xapic = map_phys(rdmsr(MSR_APIC_BASE) & APIC_BASE_ADDRESS_MASK, PAGE_SIZE,
				 MAP_WRITE | MAP_UNCACHED);
	}
	idle_deadline_cycles = ns_to_cycles(ICR_IDLE_DEADLINE_NS);
	for (unsigned int vector = IPI_VECTOR_FIRST; vector <= IPI_VECTOR_LAST; vector++) {
		if (!interrupt_register(vector, ipi_interrupt))
			ktap_note("ipi: vector 0x%x already has a handler; its IPIs bypass ipi.c",
				  vector);
	}
	ipi_evidence_init();
	__atomic_store_n(&init_state, IPI_READY, __ATOMIC_RELEASE);
}

bool ipi_register(unsigned int vector, ipi_handler_t handler)
{
	ipi_handler_t none = NULL;

	ipi_init();
	if (vector < IPI_VECTOR_FIRST || vector > IPI_VECTOR_LAST || !handler)
		return false;
	return __atomic_compare_exchange_n(&handlers[vector - IPI_VECTOR_FIRST], &none, handler,
					   false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

void ipi_unregister(unsigned int vector)
{
	if (vector >= IPI_VECTOR_FIRST && vector <= IPI_VECTOR_LAST)
		__atomic_store_n(&handlers[vector - IPI_VECTOR_FIRST], NULL, __ATOMIC_RELEASE);
}

int ipi_vector_alloc(ipi_handler_t handler)
{
	for (unsigned int vector = IPI_VECTOR_DYNAMIC_FIRST; vector <= IPI_VECTOR_DYNAMIC_LAST;
	     vector++) {
		if (ipi_register(vector, handler))
			return (int)vector;
	}
	return -1;
}

void ipi_vector_free(unsigned int vector)
{
	if (vector >= IPI_VECTOR_DYNAMIC_FIRST && vector <= IPI_VECTOR_DYNAMIC_LAST)
		ipi_unregister(vector);
}

bool ipi_in_handler(void)
{
	return this_ipi_cpu()->handler_depth != 0;
}

/* --- The ICR --------------------------------------------------------------- */

/*
 * Wait until the xAPIC has sent the previous IPI: while delivery status
 * says "send pending" a new ICR write may be lost (SDM vol 3, 12.6.1).
 * Bounded, since a wedged APIC must not hang the sender.
 */
static bool xapic_wait_idle(void)
{
	uint64_t start = cycles();

	while (xapic[XAPIC_ICR_LOW] & ICR_DELIVERY_PENDING) {
		if (cycles() - start > idle_deadline_cycles)
			return false;
		arch_cpu_relax();
	}
	return true;
}

/*
 * Tests only (ipi_test_widen_icr_window): stay a while between the two
 * xAPIC ICR writes.  Under TCG an NMI is taken only between translation
 * blocks, and two back-to-back stores are one block, so without this the
 * NMI path's restore of ICR high is never exercised there.
 */
static uint64_t icr_window_cycles;

static void widen_icr_window(void)
{
	uint64_t start = cycles();

	while (cycles() - start < __atomic_load_n(&icr_window_cycles, __ATOMIC_RELAXED))
		arch_cpu_relax();
}

void ipi_test_widen_icr_window(uint64_t nanoseconds)
{
	__atomic_store_n(&icr_window_cycles, ns_to_cycles(nanoseconds), __ATOMIC_RELAXED);
}

bool ipi_test_cpu_in_icr_window(unsigned int cpu)
{
	return cpu < MAX_CPUS && __atomic_load_n(&ipi_cpus[cpu].in_icr_write, __ATOMIC_RELAXED);
}

/*
 * From NMI context: the NMI may have landed between the two ICR writes of a
 * send on this CPU (interrupts being off does not hold an NMI back), so ICR
 * high is saved and put back, and the ICR must be idle again before the
 * interrupted send goes on.  No printing, no locks.
 */
static bool icr_write_from_nmi(uint32_t apic_id, uint32_t low)
{
	struct ipi_cpu *self = this_ipi_cpu();
	uint32_t saved_high;
	bool sent;

	if (__atomic_load_n(&init_state, __ATOMIC_ACQUIRE) != IPI_READY)
		return false;
	count(&self->counts.nmi_sends);
	if (lapic_mode() == APIC_MODE_X2APIC) {
		mfence();
		wrmsr(MSR_X2APIC_ICR, ((uint64_t)apic_id << 32) | low);
		return true;
	}
	if (self->in_icr_write)
		count(&self->counts.nmi_window_hits);
	saved_high = xapic[XAPIC_ICR_HIGH];
	sent = xapic_wait_idle();
	if (sent) {
		xapic[XAPIC_ICR_HIGH] = apic_id << ICR_XAPIC_DESTINATION_SHIFT;
		xapic[XAPIC_ICR_LOW] = low;
		/* Let ours leave before the interrupted send's low write reuses the ICR. */
		sent = xapic_wait_idle();
	}
	xapic[XAPIC_ICR_HIGH] = saved_high;
	if (!sent)
		count(&self->counts.delivery_timeouts);
	return sent;
}

/* The one place an ICR is written: plain sends, and NMI context handed on. */
static bool icr_write(uint32_t apic_id, uint32_t low)
{
	struct ipi_cpu *self = this_ipi_cpu();
	bool enabled, sent = true;

	if (in_nmi())
		return icr_write_from_nmi(apic_id, low);
	if (lapic_mode() == APIC_MODE_X2APIC) {
		/*
		 * A WRMSR to the x2APIC ICR is not serializing (SDM vol 3,
		 * 12.12.3): fence so that the target sees every store made
		 * before the IPI.  One write, so no NMI window.
		 */
		mfence();
		wrmsr(MSR_X2APIC_ICR, ((uint64_t)apic_id << 32) | low);
		return true;
	}
	/*
	 * xAPIC: high, then low, which sends.  Interrupts stay off in between
	 * so that no handler on this CPU writes the ICR in the middle; NMIs
	 * cannot be held off, hence the restore in the NMI path below.  The
	 * UC store to the ICR is ordered after earlier stores (SDM vol 3,
	 * 9.2.2), so the target sees them.
	 */
	enabled = local_irq_save();
	if (xapic_wait_idle()) {
		if ((low & ICR_SHORTHAND_MASK) == ICR_SHORTHAND_NONE) {
			self->in_icr_write = true;
			compiler_barrier();
			xapic[XAPIC_ICR_HIGH] = apic_id << ICR_XAPIC_DESTINATION_SHIFT;
			if (__atomic_load_n(&icr_window_cycles, __ATOMIC_RELAXED))
				widen_icr_window();
			xapic[XAPIC_ICR_LOW] = low;
			compiler_barrier();
			self->in_icr_write = false;
		} else {
			/* A shorthand ignores the destination field: one write. */
			xapic[XAPIC_ICR_LOW] = low;
		}
	} else {
		sent = false;
	}
	local_irq_restore(enabled);
	if (!sent) {
		count(&self->counts.delivery_timeouts);
		ktap_note("ipi: cpu %u: the xAPIC ICR stayed busy for %llu ms; IPI 0x%x to APIC "
			  "ID %u not sent", cpu_id(), ICR_IDLE_DEADLINE_NS / 1000000,
			  low & 0x7ff, apic_id);
	}
	return sent;
}

bool apic_icr_send(uint32_t apic_id, uint32_t low)
{
	ipi_init();	/* maps the xAPIC on first use (never from NMI context) */
	if (lapic_mode() == APIC_MODE_XAPIC && !xapic)
		return false;
	return icr_write(apic_id, low);
}

/* --- Sending ---------------------------------------------------------------- */

/* cpu_is_online() comes from smp.h. */

static bool vector_is_valid(unsigned int vector)
{
	/* 0-31 are exceptions; a fixed IPI with a vector below 16 is an APIC error. */
	return vector >= EXCEPTION_COUNT && vector < INTERRUPT_VECTOR_COUNT;
}

static bool is_nmi(uint32_t command)
{
	return (command & ICR_DELIVERY_MASK) == ICR_DELIVERY_NMI;
}

static bool send_unicast(unsigned int cpu, uint32_t command)
{
	count(&this_ipi_cpu()->counts.sent);
	if (is_nmi(command))
		count(&this_ipi_cpu()->counts.nmi_sent);
	return icr_write(cpus[cpu].apic_id, command | ICR_LEVEL_ASSERT);
}

static bool send_mask(const struct cpumask *mask, uint32_t command)
{
	unsigned int cpu;
	bool sent = true;

	/* All or nothing: a set naming an offline CPU is the caller's mistake. */
	for_each_cpu(cpu, mask) {
		if (!cpu_is_online(cpu))
			return false;
	}
	for_each_cpu(cpu, mask)
		sent &= send_unicast(cpu, command);
	return sent;
}

bool ipi_shorthand_usable(void)
{
	/*
	 * The shorthand reaches every APIC on the bus, including CPUs the
	 * firmware lists as disabled (never started), CPUs beyond MAX_CPUS and
	 * CPUs that failed to come up.  Only when none of those exist does it
	 * reach exactly the online CPUs.
	 */
	return cpus_online() == cpus_present() && smp_summary.disabled == 0 &&
	       smp_summary.beyond_capacity == 0;
}

static bool send_allbutself(uint32_t command)
{
	struct cpumask others;
	bool sent;

	if (cpus_online() < 2)
		return true;
	if (ipi_shorthand_usable()) {
		count(&this_ipi_cpu()->counts.sent);
		count(&this_ipi_cpu()->counts.shorthand_sent);
		if (is_nmi(command))
			count(&this_ipi_cpu()->counts.nmi_sent);
		return icr_write(0, command | ICR_LEVEL_ASSERT | ICR_SHORTHAND_ALL_BUT_SELF);
	}
	cpumask_set_online(&others);
	cpumask_clear_cpu(&others, cpu_id());
	sent = send_mask(&others, command);
	return sent;
}

bool ipi_send(unsigned int cpu, unsigned int vector)
{
	ipi_init();
	if (!cpu_is_online(cpu) || !vector_is_valid(vector))
		return false;
	return send_unicast(cpu, ICR_DELIVERY_FIXED | vector);
}

bool ipi_send_mask(const struct cpumask *mask, unsigned int vector)
{
	ipi_init();
	if (!vector_is_valid(vector))
		return false;
	return send_mask(mask, ICR_DELIVERY_FIXED | vector);
}

bool ipi_send_allbutself(unsigned int vector)
{
	ipi_init();
	if (!vector_is_valid(vector))
		return false;
	return send_allbutself(ICR_DELIVERY_FIXED | vector);
}

bool ipi_send_self(unsigned int vector)
{
	ipi_init();
	if (!vector_is_valid(vector))
		return false;
	count(&this_ipi_cpu()->counts.sent);
	count(&this_ipi_cpu()->counts.shorthand_sent);
	return icr_write(0, ICR_DELIVERY_FIXED | vector | ICR_LEVEL_ASSERT | ICR_SHORTHAND_SELF);
}

bool ipi_send_nmi(unsigned int cpu)
{
	ipi_init();
	if (!cpu_is_online(cpu))
		return false;
	/*
	 * By APIC ID even for the caller itself: the SELF shorthand is valid
	 * only with fixed delivery (SDM vol 3, 12.6.1, the table of valid ICR
	 * combinations for the xAPIC), while no-shorthand allows every mode.
	 */
	return send_unicast(cpu, ICR_DELIVERY_NMI);
}

bool ipi_send_nmi_mask(const struct cpumask *mask)
{
	ipi_init();
	return send_mask(mask, ICR_DELIVERY_NMI);
}

bool ipi_send_nmi_allbutself(void)
{
	ipi_init();
	return send_allbutself(ICR_DELIVERY_NMI);
}

/* No ipi_init() in these two: it may wait for another CPU, which an NMI must not. */
bool ipi_send_from_nmi(unsigned int cpu, unsigned int vector)
{
	if (!cpu_is_online(cpu) || !vector_is_valid(vector))
		return false;
	return icr_write_from_nmi(cpus[cpu].apic_id,
				  ICR_DELIVERY_FIXED | vector | ICR_LEVEL_ASSERT);
}

bool ipi_send_nmi_from_nmi(unsigned int cpu)
{
	if (!cpu_is_online(cpu))
		return false;
	return icr_write_from_nmi(cpus[cpu].apic_id, ICR_DELIVERY_NMI | ICR_LEVEL_ASSERT);
}

void ipi_stats_read(struct ipi_stats *stats)
{
	*stats = (struct ipi_stats){ 0 };
	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++) {
		const struct ipi_stats *c = &ipi_cpus[cpu].counts;

		stats->sent += __atomic_load_n(&c->sent, __ATOMIC_RELAXED);
		stats->shorthand_sent += __atomic_load_n(&c->shorthand_sent, __ATOMIC_RELAXED);
		stats->nmi_sent += __atomic_load_n(&c->nmi_sent, __ATOMIC_RELAXED);
		stats->received += __atomic_load_n(&c->received, __ATOMIC_RELAXED);
		stats->stray += __atomic_load_n(&c->stray, __ATOMIC_RELAXED);
		stats->delivery_timeouts += __atomic_load_n(&c->delivery_timeouts,
							    __ATOMIC_RELAXED);
		stats->nmi_sends += __atomic_load_n(&c->nmi_sends, __ATOMIC_RELAXED);
		stats->nmi_window_hits += __atomic_load_n(&c->nmi_window_hits, __ATOMIC_RELAXED);
	}
}
