/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_BENCH_H
#define TRIGOS_BENCH_H
/*
 * Machine-readable benchmark results: one line per figure,
 *
 *	# BENCH {"v":1,"name":"ap_bringup","cpus":8,"unit":"us","value":812}
 *	# BENCH {"v":1,"name":"...","cpus":2,"unit":"cycles","n":1000,"min":..,
 *	         "p50":..,"p90":..,"p99":..,"max":..}
 *
 * a KTAP diagnostic (so KTAP parsers ignore it) holding a JSON object that
 * tools read.  "v" is the format version.
 */

#include <stddef.h>
#include <stdint.h>

/** bench_report_value - one measured value */
void bench_report_value(const char *name, const char *unit, uint64_t value);

/**
 * bench_report_samples - sort @samples in place and report their
 * distribution (min, p50, p90, p99, max, count)
 */
void bench_report_samples(const char *name, const char *unit, uint64_t *samples, size_t count);

/** bench_sort - sort @count samples in place, ascending */
void bench_sort(uint64_t *samples, size_t count);

/** bench_percentile - the nearest-rank @percent percentile of sorted samples */
uint64_t bench_percentile(const uint64_t *sorted, size_t count, unsigned int percent);

/** arch_cpu_model - the CPU's brand string (CPUID 0x80000002-4), "" if none */
void arch_cpu_model(char *buffer, size_t size);

#endif
