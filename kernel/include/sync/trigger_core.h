/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_TRIGGER_CORE_H
#define TRIGOS_TRIGGER_CORE_H
/*
 * Between the trigger core (kernel/sync/trigger.c) and an architecture's
 * backends (kernel/arch/x86/trigger_backends.c): one CPU's wait sequence,
 * the backend table, the generation and the waiter masks.  Users of
 * triggers need none of it (trigger.h, trigger_backend.h).
 *
 * The arch lays out struct trigger (asm/trigger.h: x86 gives the generation
 * a cache line of its own, for MONITOR); the core uses its fields
 * generation, ipi_waiters and nmi_waiters (TRIGGER_MASK_WORDS words each),
 * user and unconfirmed.
 */

#include <stdbool.h>
#include <stdint.h>
#include <sync/trigger.h>
#include <sync/trigger_backend.h>

/* One CPU's wait sequence on one trigger: between reset and finish. */
struct trigger_wait_state {
	trigger_t *trigger;
	struct trigger_backend *backend;	/* bound at reset */
	uint64_t seen;				/* the generation this waiter has seen */
	bool irqs_were_enabled;			/* at the reset */
	uint32_t deadlines;			/* waits that returned at their deadline, unkicked */
	uint32_t late_kickers;			/* of those, noted as before the work */
	/*
	 * Waits kicked but ended by their timer or another interrupt, with no
	 * wake-up judged lost: the kick's wake-up left after that interrupt
	 * (a kicker not run between its generation add and its ICR write).
	 */
	uint32_t kicked_late;
	void *reset_site;
	/* What this sequence's waits did, for the counters (trigger_backend.h). */
	uint32_t waits;
	uint32_t sleeps;
	uint32_t returns[TRIGGER_WAKE_COUNT];
	enum trigger_wake last_return;
	bool last_saw_kick;	/* the last wait found the generation moved, whatever woke it */
	uint64_t kick_tsc, wake_sent_tsc, wake_arrived_tsc, return_tsc;	/* the last wait's */
};

struct trigger_backend {
	enum trigger_backend_id id;
	const char *name;
	/* NULL if it can run here, else the missing CPUID bit. */
	const char *(*unavailable)(void);
	/*
	 * One wait: return when the generation moved from state->seen, or
	 * when the wait otherwise ended (spuriously, or at @deadline_cycles
	 * if non-zero).  Called and returns with interrupts disabled.
	 */
	void (*wait)(trigger_t *trigger, struct trigger_wait_state *state, uint64_t deadline_cycles);
	/* The kick's store itself ends its waits (spin, MONITOR): no wake interrupt needed. */
	bool store_wakes;
};

/*
 * This CPU's counters of @backend (trigger_backend.h): each CPU counts in
 * its own cache lines, and trigger_counters_read() sums them, so that no
 * wait or kick adds to a line another CPU writes.  A locked add still: an
 * NMI handler on this CPU may count in the middle.
 */
struct trigger_counters *trigger_counters_here(enum trigger_backend_id backend);

/* The architecture's ways of waiting, indexed by id (x86: trigger_backends.c). */
extern struct trigger_backend trigger_backends[TRIGGER_BACKEND_COUNT];

/* A backend calls this right before each sleeping instruction it executes. */
static inline void trigger_count_sleep(struct trigger_wait_state *state)
{
	state->sleeps++;
	__atomic_fetch_add(&trigger_counters_here(state->backend->id)->sleeps, 1, __ATOMIC_RELAXED);
}

static inline uint64_t trigger_generation(const trigger_t *trigger)
{
	return __atomic_load_n(&trigger->generation, __ATOMIC_ACQUIRE);
}

static inline bool trigger_moved(const trigger_t *trigger, const struct trigger_wait_state *state)
{
	return trigger_generation(trigger) != state->seen;
}

/*
 * The re-check after publishing: a sequentially consistent load, so that
 * with the publish's sequentially consistent OR before it, it cannot be
 * satisfied before the publish is visible (the store-buffer case that the
 * kick's locked add closes on the other side).
 */
static inline bool trigger_moved_after_publish(const trigger_t *trigger,
					       const struct trigger_wait_state *state)
{
	return __atomic_load_n(&trigger->generation, __ATOMIC_SEQ_CST) != state->seen;
}

/*
 * Waiter masks (ipi_waiters, nmi_waiters): publish this CPU (a sequentially
 * consistent RMW: a full barrier), unpublish it.
 */
void trigger_publish(uint64_t *mask, unsigned int cpu);
void trigger_unpublish(uint64_t *mask, unsigned int cpu);

/* The adaptive backend's spin phase in TSC cycles, decided by trigger_boot_init(). */
extern uint64_t trigger_spin_budget_cycles;

/* What the arch found at boot, for trigger_boot_init() (kernel/sync/trigger_boot.c) to decide. */
struct trigger_arch_facts {
	bool mwait_available;		/* MONITOR/MWAIT offered (CPUID) */
	bool mwait_sleeps;		/* and the probe saw MWAIT sleep (majority of 3 tries) */
	unsigned int mwait_slept, mwait_returned_at_once, mwait_retried;	/* the probe's tries */
	uint64_t mwait_longest_us;	/* the longest stay of a counted try */
	uint64_t ipi_wake_ns;		/* fastest IPI wake-up of a halted AP; 0: none measured */
	bool virtualized;		/* CPUID.01H:ECX[31], the hypervisor bit */
	const char *memory_problem;	/* why MONITOR would not arm on the trigger memory; NULL: WB */
	bool pv_kick;			/* hlt kicks go through KVM's PV_UNHALT hypercall */
};

/*
 * arch_trigger_boot_probe - the arch's boot measurements and set-up of the
 * backends (NMI handler, emulator workarounds, MWAIT's EAX @mwait_hint),
 * reported in @facts; @busy_cpu (the watchdog's, or -1) is measured against
 * only when no other AP is online
 */
void arch_trigger_boot_probe(struct trigger_arch_facts *facts, uint32_t mwait_hint,
			     int busy_cpu);

#endif /* TRIGOS_TRIGGER_CORE_H */
