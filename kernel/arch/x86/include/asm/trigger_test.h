/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_ASM_TRIGGER_TEST_H
#define TRIGOS_ASM_TRIGGER_TEST_H
/*
 * What the x86 trigger code lets tests drive and observe: the wake IPIs and
 * NMIs whose ICR write failed, the halt windows of trigger_halt.S, the
 * MONITOR backends' store-only mode and the Bochs 2.7 workarounds.  The
 * arch-neutral test hooks (test_break=, the publish-and-recheck half of the
 * protocol, trigger_cpu_entered_wait()) are in sync/trigger_backend.h.
 * Implemented in kernel/arch/x86/trigger_wake.c, trigger_backends.c and
 * trigger_bochs.c; used by the trigger suites under tests/.
 */

#include <stdbool.h>
#include <stdint.h>

/* Wake IPIs and NMIs whose ICR write failed (x86 trigger_wake.c says what is done about it). */
struct trigger_wake_send_stats {
	unsigned long failed_attempts;	/* ICR writes that failed */
	unsigned long retried;		/* wake-ups sent on the second try */
	unsigned long dropped;		/* wake-ups not sent at all: reported */
	unsigned int last_dropped_cpu;
};

/** trigger_wake_send_stats_read - the wake sends that failed so far */
void trigger_wake_send_stats_read(struct trigger_wake_send_stats *stats);

/**
 * trigger_set_broken_hlt - test only: make the hlt backend skip its
 * re-check between publishing itself and halting (the lost-wakeup bug the
 * torture must catch)
 */
void trigger_set_broken_hlt(bool broken);

/**
 * trigger_set_monitor_store_only - test only: interrupts-off waits of the
 * mwait and mwaitx backends sleep with ECX=0 (no interrupt break, no
 * MWAITX timer, no LAPIC bound) and are never sent a wake IPI, so that
 * only a store to the line (or an NMI, SMI, INIT) can end them
 */
void trigger_set_monitor_store_only(bool store_only);

/*
 * What the Bochs 2.7 workarounds did (trigger_bochs.c), when told
 * machine=bochs; all zero elsewhere.
 */
struct trigger_bochs_counts {
	uint64_t monitors;		/* MONITOR/MONITORX armed after an INVLPG (bug 1) */
	uint64_t sleeps;		/* MWAIT/MWAITX sleeps under Bochs */
	uint64_t published_sleeps;	/* of them: published for the kick's wake IPI (bug 3) */
	uint64_t reset_sleeps;		/* of them: another CPU armed a monitor meanwhile */
	uint64_t reset_sleeps_kicked;	/* of those: ended with the generation moved */
	uint64_t mwaitx_oneshots;	/* interrupts-off MWAITX bounded by the LAPIC (bug 6) */
};

/**
 * trigger_umwait_set_limit - write IA32_UMWAIT_CONTROL's time limit (TSC
 * cycles, 0: none) on this CPU; the boot value is the umwait slice
 */
void trigger_umwait_set_limit(uint32_t limit_cycles);

/** trigger_umwait_boot_limit - the limit every CPU's UMWAITs have outside the tests */
uint32_t trigger_umwait_boot_limit(void);

/** trigger_umwait_os_limit_returns - UMWAITs that returned CF=1 (the OS limit ended them) */
uint64_t trigger_umwait_os_limit_returns(void);

/**
 * trigger_bochs_bug_fixed - whether the Bochs release machine= named has
 * Bochs 2.7's bug @bug (1-6, trigger_bochs.c) fixed; false when not under
 * Bochs.  Tests ask this rather than compare releases, so that which
 * release fixed what is said once (bochs_fixed_in[]).
 */
bool trigger_bochs_bug_fixed(unsigned int bug);

/** trigger_bochs_counts_read - the Bochs workarounds' counts so far */
void trigger_bochs_counts_read(struct trigger_bochs_counts *counts);

/** trigger_set_halt_window_delay - test only: widen the window before the halt */
void trigger_set_halt_window_delay(uint64_t nanoseconds);

/** trigger_halt_window_widened - test only: whether a widening is still set */
bool trigger_halt_window_widened(void);

/**
 * trigger_set_halt_window_hook - test only: call @hook inside the halt
 * window of the hlt and adaptive backends, after the waiter's last look at
 * the trigger and before it publishes itself (NULL: none)
 */
void trigger_set_halt_window_hook(void (*hook)(void));

/**
 * trigger_set_before_recheck_hook - test only: call @hook just before
 * the marked halt windows (trigger_halt.S), after the waiter published
 * itself and before its re-check, with interrupts off: from there only an
 * NMI handler can run on the CPU until its HLT (NULL: none)
 */
void trigger_set_before_recheck_hook(void (*hook)(void));

/**
 * trigger_set_irqs_on_window_unmarked - test only: the NMI handler leaves a
 * CPU interrupted inside the interrupts-on halt window where it is, as
 * before the window was marked: an NMI handler's kick on the waiting CPU
 * is then lost (the NMI self-kick test shows it)
 */
void trigger_set_irqs_on_window_unmarked(bool unmarked);

/**
 * trigger_test_fail_wake_sends - test only: the next @count wake sends fail
 * as an ICR time-out would
 */
void trigger_test_fail_wake_sends(unsigned int count);

/* What one CPU's NMI handler found in the marked halt windows (trigger_halt.S). */
struct trigger_halt_window_stats {
	unsigned long nmis_after_recheck;	/* NMIs that landed after a re-check, before its HLT */
	unsigned long moved_past;		/* windows it moved past their HLT */
};

/** trigger_halt_window_stats_read - test only: @cpu's halt-window NMI statistics */
void trigger_halt_window_stats_read(unsigned int cpu, struct trigger_halt_window_stats *stats);

#endif
