/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_X86_TRIGGER_INTERNAL_H
#define TRIGOS_X86_TRIGGER_INTERNAL_H
/* Between the trigger core (trigger.c) and its backends (trigger_backends.c). */

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
	bool reached_deadline;			/* some wait returned at its deadline */
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
	struct trigger_counters counters;
};

extern struct trigger_backend trigger_backends[TRIGGER_BACKEND_COUNT];

/* A backend calls this right before each sleeping instruction it executes. */
static inline void trigger_count_sleep(struct trigger_wait_state *state)
{
	state->sleeps++;
	__atomic_fetch_add(&state->backend->counters.sleeps, 1, __ATOMIC_RELAXED);
}

/* Shared knobs, set by trigger_boot_init(). */
extern uint64_t trigger_spin_budget_cycles;
extern uint32_t trigger_mwait_hint;
extern bool trigger_hlt_broken;
extern uint64_t trigger_halt_window_delay_cycles;

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

/* Waiter masks: publish this CPU (a locked RMW: a full barrier), unpublish it. */
void trigger_publish(uint64_t *mask, unsigned int cpu);
void trigger_unpublish(uint64_t *mask, unsigned int cpu);

/*
 * The halts, each inside a window marked for the NMI handler
 * (trigger_halt.S): re-check *generation against @seen, then halt, with
 * interrupts enabled for the HLT (woken by an IPI) or left disabled (woken
 * by an NMI).  They return how the window ended.
 */
enum trigger_halt_outcome {
	TRIGGER_HALT_MOVED,		/* the re-check saw a kick: no halt */
	TRIGGER_HALT_HALTED,		/* reached the HLT; an interrupt or NMI ended it */
	TRIGGER_HALT_MOVED_PAST,	/* an NMI handler moved it past the HLT */
};
unsigned int trigger_halt_irqs_on(const volatile uint64_t *generation, uint64_t seen);
unsigned int trigger_halt_irqs_off(const volatile uint64_t *generation, uint64_t seen);
extern const char trigger_halt_irqs_on_window_start[], trigger_halt_irqs_on_checked[],
	trigger_halt_irqs_on_window_end[];
extern const char trigger_halt_irqs_off_window_start[], trigger_halt_irqs_off_checked[],
	trigger_halt_irqs_off_window_end[];
/* Test only, called just before both windows, after the publish (NULL: none). */
extern void (*trigger_before_recheck_hook)(void);
/* Test only: the NMI handler leaves the interrupts-on window alone (the old halt). */
extern bool trigger_irqs_on_window_unmarked;

/* MWAIT/MWAITX's interrupt break (ECX[0]) where CPUID.05H offers it, else 0. */
uint32_t trigger_interrupt_break(void);

/*
 * Bochs 2.7 (trigger_bochs.c): set at boot only when told machine=bochs.
 * trigger_monitor() and trigger_monitorx() arm the monitor (with bug 1's
 * INVLPG under Bochs) and return a count to give trigger_bochs_sleep_end().
 */
extern bool trigger_bochs;
extern bool trigger_monitor_store_only;
uint64_t trigger_monitor(const volatile void *line);
uint64_t trigger_monitorx(const volatile void *line);
bool trigger_bochs_sleep_begin(trigger_t *trigger, const struct trigger_wait_state *state);
void trigger_bochs_sleep_end(trigger_t *trigger, const struct trigger_wait_state *state,
			     bool published, bool slept, uint64_t monitors_before);
bool trigger_bochs_may_sleep_interrupts_off(void);
void trigger_bochs_bound_mwaitx(uint64_t slice_cycles);
void trigger_bochs_init(void);
void trigger_bochs_report(const char *prefix);

bool trigger_in_nmi(void);
void trigger_nmi_init(void);

/* The kick's wake-ups, by whatever means the waiters need. */
bool trigger_send_wake(unsigned int cpu, uint32_t command);	/* retried once, then reported */
/* A kick found its own CPU among the waiters (a handler kicking what its CPU waits on). */
void trigger_count_own_cpu_published(void);
void trigger_wake_ipi(unsigned int cpu, struct trigger_counters *counters);
void trigger_wake_nmi(unsigned int cpu, struct trigger_counters *counters);

#endif
