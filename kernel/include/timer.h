/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_TIMER_H
#define TRIGOS_TIMER_H
/* The per-CPU timer interrupt (the LAPIC timer on x86). */

#include <stdint.h>

/** timer_tick - called by the arch timer interrupt on the CPU it hit */
void timer_tick(void);

/* Arch: one-shot and periodic interrupts, and stopping them, on this CPU. */
void timer_oneshot(uint64_t nanoseconds);
void timer_periodic(uint64_t nanoseconds);
void timer_stop(void);

#endif
