/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_TSC_SYNC_H
#define TRIGOS_TSC_SYNC_H
/*
 * Do the CPUs' TSCs agree?  Later suites time events across CPUs (a kick on
 * one, the wake-up on another) by comparing TSC values, which only means
 * something if the counters are synchronised.  At boot every online CPU
 * takes turns, under one lock, reading its TSC and comparing it with the
 * last value any CPU read: a value lower than that is a warp, and the
 * largest warp bounds the skew that could be seen.  They start together:
 * the first to arrive wait on a trigger (user "tsc_warp_start") that the
 * last one kicks.
 */

#include <stdbool.h>
#include <stdint.h>

#define TSC_SKEW_LIMIT_NS 2000	/* more than this and cross-CPU timings are refused */

struct tsc_sync_result {
	bool checked;
	unsigned int cpus;
	unsigned int participants;	/* the CPUs that ran it: the online ones that took it */
	uint64_t samples;
	uint64_t warps;			/* readings lower than the previous one */
	uint64_t max_warp_cycles;
	bool reliable;			/* max warp within TSC_SKEW_LIMIT_NS */
	unsigned int unfinished;	/* CPUs asked that did not finish in time */
};

extern struct tsc_sync_result tsc_sync;

/** tsc_sync_check - run the warp test on every online CPU (after bring-up) */
void tsc_sync_check(void);

/** cross_cpu_timing_reliable - whether TSC values of two CPUs may be compared */
bool cross_cpu_timing_reliable(void);

#endif
