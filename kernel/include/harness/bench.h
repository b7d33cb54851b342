/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_BENCH_H
#define TRIGOS_BENCH_H
/*
 * Machine-readable benchmark results: one line per figure, a KTAP
 * diagnostic (so KTAP parsers ignore it) holding a JSON object,
 *
 *	# BENCH {"v":1,"name":"ap_bringup","cpus":8,"unit":"us","value":812}
 *	# BENCH {"v":1,"name":"trigger_wake_short","backend":"hlt","cpus":2,
 *	         "unit":"ns","n":400,"warmup":5,"overhead":9,"min":..,"p50":..,
 *	         "p90":..,"p99":..,"max":..,"outliers":3,"outlier_fence":..}
 *
 * and once per boot, before the first figure, a "header" record saying what
 * the figures were measured on (TSC frequency and its source, whether that
 * calibration was unreliable, CPU model, hypervisor signature, trigger
 * backend, timer overhead).  With an unreliable calibration no figure in a
 * unit of time is printed (a diagnostic says which were refused).  "v" is the
 * format version: a key may be added within a version, never renamed or
 * given another meaning.  Distribution keys: "n" samples kept after
 * "warmup" rounds were discarded; "overhead" the timer overhead (two
 * back-to-back TSC reads, in "unit") subtracted from every sample; min and
 * nearest-rank percentiles; "outliers" the samples above "outlier_fence"
 * (p75 + 3 IQR), counted and kept; "clamped" samples that were below the
 * overhead.  Every figure is integer.
 */

#include <stddef.h>
#include <stdint.h>

/**
 * struct bench_figure - what a set of samples measured
 * @name: the figure ("trigger_wake_short"), without the backend
 * @backend: the trigger backend or other way of waiting measured, or NULL
 * @unit: "cycles", "ns" or "us": what to report the samples in
 * @cpus: the CPUs taking part, 0 for every online CPU
 * @warmup: rounds run and discarded before the first sample
 * @extra: more JSON members to append (",\"lock\":\"mcs\""), or NULL
 */
struct bench_figure {
	const char *name;
	const char *backend;
	const char *unit;
	unsigned int cpus;
	unsigned int warmup;
	const char *extra;
};

/** bench_report_value - one measured value in @unit */
void bench_report_value(const char *name, const char *unit, uint64_t value);

/**
 * bench_report_cycles - report samples measured as TSC differences
 * @figure: what they measured
 * @samples: each one the TSC after minus the TSC before (overwritten:
 *           overhead subtracted, converted to @figure->unit, sorted)
 * @count: how many
 *
 * Subtracts bench_timer_overhead_cycles() from each sample, converts to the
 * figure's unit, and prints a readable KTAP diagnostic and the BENCH line.
 */
void bench_report_cycles(const struct bench_figure *figure, uint64_t *samples, size_t count);

/**
 * bench_timer_overhead_cycles - what two back-to-back TSC reads cost: the
 * median of 1000 pairs with interrupts off, measured once per boot
 */
uint64_t bench_timer_overhead_cycles(void);

#endif
