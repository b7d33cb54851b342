/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_X86_TRIGGER_INTERNAL_H
#define TRIGOS_X86_TRIGGER_INTERNAL_H
/*
 * Between the x86 trigger files: the backends (trigger_backends.c), the
 * halts (trigger_halt.S), the wake-ups and the NMI handler (trigger_wake.c)
 * and the Bochs workarounds (trigger_bochs.c).  What they share with the
 * core (kernel/sync/trigger.c) is in sync/trigger_core.h.
 */

#include <stdbool.h>
#include <stdint.h>
#include <sync/trigger_core.h>
#include <asm/trigger_test.h>

/* Shared knobs, set by trigger_boot_init(). */
extern uint32_t trigger_mwait_hint;
extern bool trigger_hlt_broken;
extern uint64_t trigger_halt_window_delay_cycles;

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
/*
 * The interrupts-on MWAIT and MWAITX sleeps, in marked windows too
 * (trigger_halt.S): re-check, then "sti; mwait[x]" with @hints and
 * @extensions (and MWAITX's @timeout); the monitor is armed before.
 */
unsigned int trigger_mwait_irqs_on(const volatile uint64_t *generation, uint64_t seen,
				   uint32_t hints, uint32_t extensions);
unsigned int trigger_mwaitx_irqs_on(const volatile uint64_t *generation, uint64_t seen,
				    uint32_t hints, uint32_t extensions, uint32_t timeout);
extern const char trigger_mwait_irqs_on_window_start[], trigger_mwait_irqs_on_window_end[];
extern const char trigger_mwaitx_irqs_on_window_start[], trigger_mwaitx_irqs_on_window_end[];
/* Test only, called just before both windows, after the publish (NULL: none). */
extern void (*trigger_before_recheck_hook)(void);
/* Test only: the NMI handler leaves the interrupts-on window alone (the old halt). */
extern bool trigger_irqs_on_window_unmarked;

/* MWAIT/MWAITX's interrupt break (ECX[0]) where CPUID.05H offers it, else 0. */
uint32_t trigger_interrupt_break(void);

/*
 * Bochs (trigger_bochs.c): set at boot only when told machine=bochs or bochs-3.0.
 * trigger_monitor() and trigger_monitorx() arm the monitor (with bug 1's
 * INVLPG under Bochs) and return a count to give trigger_bochs_sleep_end().
 */
extern bool trigger_bochs;
extern bool trigger_bochs_no_mwaitx_timer;	/* bug 6: this Bochs's MWAITX timer is broken */
extern bool trigger_monitor_store_only;
uint64_t trigger_monitor(const volatile void *line);
uint64_t trigger_monitorx(const volatile void *line);
uint64_t trigger_umonitor(const volatile void *line);
bool trigger_bochs_sleep_begin(trigger_t *trigger, const struct trigger_wait_state *state);
void trigger_bochs_sleep_end(trigger_t *trigger, const struct trigger_wait_state *state,
			     bool published, bool slept, uint64_t monitors_before);
bool trigger_bochs_may_sleep_interrupts_off(void);
void trigger_bochs_bound_mwaitx(uint64_t slice_cycles);
void trigger_bochs_init(void);
void trigger_bochs_report(const char *prefix);

/* The NMI handler that claims wake NMIs and moves a CPU past a halt (trigger_wake.c). */
void trigger_nmi_init(void);

/* Whether wake IPIs go through KVM's PV_UNHALT hypercall instead (trigger_wake.c). */
bool trigger_pv_kick_available(void);

#endif
