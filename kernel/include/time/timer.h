/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_TIMER_H
#define TRIGOS_TIMER_H
/* The per-CPU timer interrupt (the LAPIC timer on x86). */

#include <stdint.h>

/**
 * timer_calibrate - measure the timer's rate against the TSC (boot CPU,
 * once, after tsc_calibrate(); until then one-shots fire at once)
 */
void timer_calibrate(void);

/** timer_tick - called by the arch timer interrupt on the CPU it hit */
void timer_tick(void);

/** timer_set_tick_hook - test only: call @hook from every timer interrupt (NULL: none) */
void timer_set_tick_hook(void (*hook)(void));

/**
 * timer_set_tick_watcher - call @watcher from every timer interrupt, after
 * the test hook: how the harness's watchdog (watchdog_init()) sees the time
 * pass without kernel/time knowing of it
 */
void timer_set_tick_watcher(void (*watcher)(void));

/*
 * One timer per CPU.  A one-shot is remembered so that a second user can
 * ask for "no later than" without moving an earlier one-shot out: the
 * trigger backends bound their halts that way, and a test's own one-shot
 * still fires when it asked.
 */

/** timer_oneshot - one timer interrupt on this CPU after @nanoseconds */
void timer_oneshot(uint64_t nanoseconds);

/** timer_oneshot_no_later_than - a one-shot at @nanoseconds unless one is due sooner */
void timer_oneshot_no_later_than(uint64_t nanoseconds);

/** timer_periodic - an interrupt every @nanoseconds (more than 0) */
void timer_periodic(uint64_t nanoseconds);

/** timer_stop - no more timer interrupts on this CPU */
void timer_stop(void);

/**
 * timer_period_ns - this CPU's periodic timer's period, 0 if it has none:
 * for code that programs a one-shot and must put a periodic tick (the
 * watchdog CPU's) back after it, with timer_periodic()
 */
uint64_t timer_period_ns(void);

/* Arch: calibrate, program this CPU's timer. */
void arch_timer_calibrate(void);
void arch_timer_oneshot(uint64_t nanoseconds);
void arch_timer_periodic(uint64_t nanoseconds);
void arch_timer_stop(void);

#endif
