/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_ASM_TRIGGER_H
#define TRIGOS_ASM_TRIGGER_H
/*
 * x86 triggers: the layout of a trigger, and the hooks through which the
 * arch-neutral core (kernel/sync/trigger.c) reaches the hardware.  The ways
 * of waiting are in kernel/arch/x86/trigger_backends.c, the halts in
 * trigger_halt.S, the wake IPIs and NMIs and the NMI handler in
 * trigger_wake.c.
 *
 * A trigger is a kick generation counter, alone in its cache line so that
 * MONITOR watches nothing else, plus two masks of the CPUs that are halting
 * on it and need an interrupt to wake: by IPI (they halt with interrupts
 * enabled) or by NMI (they halt with interrupts disabled).  A kick advances
 * the generation with a locked add (a full barrier), then wakes whoever the
 * masks name.  Each waiter keeps the generation it has seen in its own
 * per-CPU wait state, which is what makes stickiness and the implicit reset
 * per waiter.
 */

#include <stdbool.h>
#include <stdint.h>
#include <asm/instructions.h>

#define ARCH_HAS_TRIGGER 1

struct trigger_user;

#define TRIGGER_CACHE_LINE	64
#define TRIGGER_MASK_WORDS	4	/* 256 CPUs */

struct trigger {
	/* Written by kicks, watched by MONITOR: nothing else in this line. */
	volatile uint64_t generation __attribute__((aligned(TRIGGER_CACHE_LINE)));
	uint8_t line_padding[TRIGGER_CACHE_LINE - sizeof(uint64_t)];
	uint64_t ipi_waiters[TRIGGER_MASK_WORDS];
	uint64_t nmi_waiters[TRIGGER_MASK_WORDS];
	/*
	 * The accounting of converted users (trigger_backend.h): who waits on
	 * this trigger, and how many sequences here ended before their kick was
	 * seen, for the next kick to confirm.
	 */
	struct trigger_user *user;
	uint64_t unconfirmed;
} __attribute__((aligned(TRIGGER_CACHE_LINE)));

typedef struct trigger trigger_t;

#define DEFINE_TRIGGER(name) trigger_t name = { .generation = 0 }
#define DEFINE_TRIGGER_FOR(name, trigger_user) trigger_t name = { .user = (trigger_user) }

/* The core (kernel/sync/trigger.c): @site is the call site, for misuse reports. */
void trigger_core_init(trigger_t *trigger, struct trigger_user *user);
void trigger_core_reset(trigger_t *trigger, void *site);
void trigger_core_wait(trigger_t *trigger, void *site);
bool trigger_core_wait_timeout(trigger_t *trigger, uint64_t deadline_ns, void *site);
void trigger_core_note_late_kicker(trigger_t *trigger, void *site);
void trigger_core_kick(trigger_t *trigger);
void trigger_core_finish(trigger_t *trigger, void *site);

/*
 * The address of the call site, for misuse reports that name both calls:
 * a local label's address (a GCC extension), which after the inline wrapper
 * is inlined lies in the function that called trigger_reset() and friends.
 */
#define TRIGGER_CALL_SITE() ({ __label__ call_site; call_site: (void *)&&call_site; })

#define __raw_trigger_init(t, user)		trigger_core_init(t, user)
#define __raw_trigger_reset(t)			trigger_core_reset(t, TRIGGER_CALL_SITE())
#define __raw_trigger_wait(t)			trigger_core_wait(t, TRIGGER_CALL_SITE())
#define __raw_trigger_wait_timeout(t, d)	trigger_core_wait_timeout(t, d, TRIGGER_CALL_SITE())
#define __raw_trigger_note_late_kicker(t)	trigger_core_note_late_kicker(t, TRIGGER_CALL_SITE())
#define __raw_trigger_kick(t)			trigger_core_kick(t)
#define __raw_trigger_finish(t)			trigger_core_finish(t, TRIGGER_CALL_SITE())

/* --- What the core asks of x86 (kernel/arch/x86/trigger_wake.c) ------------ */

struct trigger_counters;

/**
 * arch_trigger_wake_ipi - a kick's wake-up for @cpu, published in a
 * trigger's ipi_waiters (it halts with interrupts enabled): a wake IPI, or
 * KVM's PV kick; nothing if @cpu is the kicker's own.  Counted in @counters.
 */
void arch_trigger_wake_ipi(unsigned int cpu, struct trigger_counters *counters);

/**
 * arch_trigger_wake_nmi - a kick's wake-up for @cpu, published in a
 * trigger's nmi_waiters (it halts with interrupts disabled): a wake NMI,
 * which @cpu's NMI handler claims; nothing if @cpu is the kicker's own
 */
void arch_trigger_wake_nmi(unsigned int cpu, struct trigger_counters *counters);

/**
 * arch_trigger_wake_nmis_taken - how many wake NMIs @cpu has claimed so far
 * (a wait that saw one return during it ended by TRIGGER_WAKE_NMI)
 */
unsigned long arch_trigger_wake_nmis_taken(unsigned int cpu);

/**
 * arch_trigger_report - print, as diagnostics, what the x86 wake-ups and
 * emulator workarounds did since the last call (trigger_report_usage())
 */
void arch_trigger_report(const char *prefix);

/**
 * arch_trigger_cpu_online - per-CPU trigger state of the calling CPU, set as it comes online
 *
 * IA32_UMWAIT_CONTROL is per logical processor (SDM vol 3, WAITPKG): each
 * CPU that may UMWAIT needs its own limit, written on that CPU.
 */
void arch_trigger_cpu_online(void);

/** arch_trigger_relax - one pause of a wait that cannot wait (PAUSE, SDM vol 2) */
static inline void arch_trigger_relax(void)
{
	arch_cpu_relax();
}

#endif
