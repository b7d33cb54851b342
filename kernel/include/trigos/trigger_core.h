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
#include <trigos/trigger.h>
#include <trigos/trigger_backend.h>

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

/*
 * The boot's choice (the arch's trigger_boot_init() calls it once it has
 * measured): @requested, or "auto" when it is, or when it cannot run here
 * (said in a note), which trigger_choose_auto() decides from what the arch
 * reports; selects it, remembers it for trigger_backend_boot_choice() and
 * prints the choice and its reason.
 */
void trigger_backend_boot_select(enum trigger_backend_id requested, bool mwait_available,
				 bool mwait_sleeps, bool virtualized, bool memory_write_back);

/* A note for each backend that cannot run here, naming what is missing. */
void trigger_backends_report_unavailable(void);

#endif /* TRIGOS_TRIGGER_CORE_H */
