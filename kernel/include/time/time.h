/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_TIME_H
#define TRIGOS_TIME_H
/*
 * Time from the TSC, once its frequency is known (kernel/arch/x86/tsc.c
 * calibrates it at boot).  Before calibration, now_ns() and the delays use
 * a conservative 3 GHz guess so that early bounded waits still end.
 */

#include <stdbool.h>
#include <stdint.h>
#include <asm/cycles.h>

enum clock_source {
	CLOCK_SOURCE_NONE,
	CLOCK_SOURCE_CPUID,		/* CPUID leaf 0x15 (or 0x16) */
	CLOCK_SOURCE_HPET,
	CLOCK_SOURCE_PM_TIMER,
	CLOCK_SOURCE_PIT,
};

struct tsc_calibration {
	uint64_t hz;
	enum clock_source source;
	bool invariant;			/* CPUID.80000007h:EDX[8] */
	bool reliable;			/* the measurements agreed (or CPUID stated it) */
};

extern struct tsc_calibration tsc_calibration;

const char *clock_source_name(enum clock_source source);

/** cycles - the TSC (arch hook: RDTSC) */
static inline uint64_t cycles(void)
{
	return arch_cycles();
}

/** cycles_to_ns - @delta TSC cycles in nanoseconds */
uint64_t cycles_to_ns(uint64_t delta);

/** ns_to_cycles - @nanoseconds in TSC cycles */
uint64_t ns_to_cycles(uint64_t nanoseconds);

/** time_mark_boot - remember the TSC at kernel entry (first thing in kmain) */
void time_mark_boot(void);

/** boot_timestamp - the TSC value time_mark_boot() saw */
uint64_t boot_timestamp(void);

/** now_ns - nanoseconds since an arbitrary point at boot (this CPU's TSC) */
uint64_t now_ns(void);

void ndelay(uint64_t nanoseconds);
void udelay(uint64_t microseconds);

/**
 * spin_while_unchanged - spin while what @read returns (other CPUs'
 * counters) stays what it returned first, for at most @timeout_ns; whether
 * it changed
 */
bool spin_while_unchanged(uint64_t (*read)(void), uint64_t timeout_ns);

/** tsc_calibrate - find the TSC frequency; says which source it used */
void tsc_calibrate(void);

struct calibration;

/**
 * measure_tsc_against - the TSC frequency a reference clock implies
 * @source: the clock to measure against (CLOCK_SOURCE_CPUID: read, not measured)
 * @milliseconds: the shortest window (windows of @milliseconds to 2 more, in turn)
 * @calibration: filled with the decision, its windows and their spread unless NULL
 *
 * Measures until the windows agree (kernel/lib/clock_calibration.h), or
 * else settles on one long window and says so in @calibration->state.
 * Returns the rate, 0 if @source is unavailable or every window was
 * disturbed.  The boot calibration uses it, and so does the test that
 * checks the calibration against a second source.
 */
uint64_t measure_tsc_against(enum clock_source source, unsigned int milliseconds,
			     struct calibration *calibration);

#endif
