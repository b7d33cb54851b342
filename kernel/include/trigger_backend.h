/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_TRIGGER_BACKEND_H
#define TRIGOS_TRIGGER_BACKEND_H
/*
 * Choosing and watching the way triggers wait (trigger.h is the API itself).
 *
 *	spin      PAUSE loop, the seed's generic behaviour
 *	mwait     MONITOR/MWAIT on the trigger's line      CPUID.01H:ECX[3]
 *	hlt       HLT, woken by an IPI (or, with interrupts off, an NMI)
 *	adaptive  spin for a budget, then as hlt (the default)
 *	mwaitx    AMD MONITORX/MWAITX with its timer      CPUID.80000001H:ECX[29]
 *	umwait    WAITPKG UMONITOR/UMWAIT, TSC deadline   CPUID.(EAX=07H,ECX=0):ECX[5]
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum trigger_backend_id {
	TRIGGER_BACKEND_SPIN,
	TRIGGER_BACKEND_MWAIT,
	TRIGGER_BACKEND_HLT,
	TRIGGER_BACKEND_ADAPTIVE,
	TRIGGER_BACKEND_MWAITX,
	TRIGGER_BACKEND_UMWAIT,
	TRIGGER_BACKEND_COUNT,
	TRIGGER_BACKEND_AUTO = TRIGGER_BACKEND_COUNT,
};

struct trigger_counters {
	uint64_t waits;		/* trigger_wait() calls */
	uint64_t kicks;		/* trigger_kick() calls (counted by the current backend) */
	uint64_t immediate;	/* waits that returned at once for a kick already seen (sticky) */
	uint64_t spurious;	/* waits that returned with no new kick */
	uint64_t ipis;		/* wake IPIs sent by kicks */
	uint64_t nmis;		/* wake NMIs sent by kicks */
	uint64_t pv_kicks;	/* hypervisor kick hypercalls instead of IPIs */
	uint64_t timeouts;	/* trigger_wait_timeout() deadlines reached */
	uint64_t spin_fallbacks; /* waits that had to spin (NMI context, IF=0 with no wake source) */
	uint64_t wait_cycles;	/* TSC cycles spent inside trigger_wait() */
};

/** trigger_backend_name - "spin", "mwait", ... ("auto" for TRIGGER_BACKEND_AUTO) */
const char *trigger_backend_name(enum trigger_backend_id backend);

/** trigger_backend_from_name - the id of @name (@length bytes), or -1 */
int trigger_backend_from_name(const char *name, size_t length);

/**
 * trigger_backend_unavailable - why @backend cannot run here, naming the
 * missing CPUID bit (or, for a backend the CPU has, the memory-type refusal
 * below), or NULL when it can
 */
const char *trigger_backend_unavailable(enum trigger_backend_id backend);

/**
 * trigger_backend_memory_refusal - for a backend whose wait ends on a store
 * to a monitored line (mwait, mwaitx, umwait): the sentence naming a CPU
 * that does not see the trigger memory as write-back, which only MONITOR
 * watches (memtype_check.h); NULL when every CPU does, or for the others
 */
const char *trigger_backend_memory_refusal(enum trigger_backend_id backend);

/**
 * trigger_backend_set - use @backend for wait sequences that start from now
 * on (sequences already under way keep theirs); false if unavailable
 */
bool trigger_backend_set(enum trigger_backend_id backend);

enum trigger_backend_id trigger_backend_current(void);

/** trigger_backend_boot_choice - what trigger_boot_init() selected (tests put it back) */
enum trigger_backend_id trigger_backend_boot_choice(void);

/**
 * trigger_choose_auto - what "auto" picks given what the CPU offers, whether
 * MWAIT was seen to sleep, and whether every CPU sees the trigger memory as
 * write-back; pure, so its logic is testable anywhere
 * @reason: set to a sentence saying why
 */
enum trigger_backend_id trigger_choose_auto(bool mwait_available, bool mwait_sleeps,
					    bool virtualized, bool memory_write_back,
					    const char **reason);

/**
 * trigger_boot_init - measure (does MWAIT sleep? what does an IPI wake-up
 * cost?) and select @requested (or auto), printing the choice and reason.
 * After SMP bring-up.
 */
void trigger_boot_init(enum trigger_backend_id requested, uint64_t spin_budget_ns,
		       uint32_t mwait_hint);

/** trigger_counters_read - the counters of @backend so far */
void trigger_counters_read(enum trigger_backend_id backend, struct trigger_counters *counters);

/** trigger_report_usage - print, as diagnostics, the counters that moved since the last call */
void trigger_report_usage(const char *prefix);

/** trigger_spin_budget_ns - the adaptive backend's spin phase */
uint64_t trigger_spin_budget_ns(void);

/** trigger_mwait_sleeps - whether the boot measurement saw MWAIT really sleep */
bool trigger_mwait_sleeps(void);

/** trigger_sequence_depth - how many wait sequences this CPU has open */
unsigned int trigger_sequence_depth(void);

/** trigger_abandon_sequences - forget this CPU's sequences above @depth (fault recovery) */
void trigger_abandon_sequences(unsigned int depth);

/* --- Test hooks ------------------------------------------------------------ */

/** trigger_set_misuse_hook - catch misuse reports instead of panicking (NULL: panic) */
void trigger_set_misuse_hook(void (*hook)(const char *message));

/**
 * trigger_set_broken_hlt - test only: make the hlt backend skip its
 * re-check between publishing itself and halting (the lost-wakeup bug the
 * torture must catch)
 */
void trigger_set_broken_hlt(bool broken);

/** trigger_set_halt_window_delay - test only: widen the window before the halt */
void trigger_set_halt_window_delay(uint64_t nanoseconds);

/**
 * trigger_set_halt_window_hook - test only: call @hook inside the halt
 * window of the hlt and adaptive backends, after the waiter's last look at
 * the trigger and before it publishes itself (NULL: none)
 */
void trigger_set_halt_window_hook(void (*hook)(void));

#endif
