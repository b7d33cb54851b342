/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_LIB_STATISTICS_H
#define TRIGOS_LIB_STATISTICS_H
/*
 * Summaries of benchmark samples, in integer math only (the kernel has no
 * FPU state to spare): percentiles by nearest rank, and outliers counted by
 * Tukey's "far out" fence, never dropped — a wait that took 50x the median
 * is part of what a way of waiting costs.
 */

#include <stddef.h>
#include <stdint.h>

/**
 * struct sample_summary - the distribution of a set of samples
 * @count: samples summarised
 * @min, @p25, @p50, @p75, @p90, @p99, @max: nearest-rank percentiles
 * @outlier_fence: p75 + 3 * (p75 - p25); samples above it are outliers
 * @outliers: how many samples lie above @outlier_fence
 * @clamped: samples that were smaller than the overhead subtracted (now 0)
 */
struct sample_summary {
	size_t count;
	uint64_t min, p25, p50, p75, p90, p99, max;
	uint64_t outlier_fence;
	size_t outliers;
	size_t clamped;
};

/** sort_u64 - sort @count values in place, ascending (no recursion, no allocation) */
void sort_u64(uint64_t *values, size_t count);

/**
 * percentile_nearest_rank - the @percent percentile of @count sorted values:
 * the smallest value with at least @percent % of them at or below it (0 if
 * @count is 0)
 */
uint64_t percentile_nearest_rank(const uint64_t *sorted, size_t count, unsigned int percent);

/**
 * subtract_overhead - subtract @overhead from every sample, stopping at 0
 *
 * Returns how many samples were smaller than @overhead: a few mean the
 * overhead estimate is a little high for this measurement; many mean the
 * samples are below the timer's resolution.
 */
size_t subtract_overhead(uint64_t *samples, size_t count, uint64_t overhead);

/**
 * summarize_samples - sort @samples in place and fill @summary
 *
 * @summary->clamped is left as it is (subtract_overhead() reports it).
 * With fewer than 100 samples p99 is the maximum, and with fewer than 4 the
 * outlier fence is meaningless (no outliers are counted).
 */
void summarize_samples(uint64_t *samples, size_t count, struct sample_summary *summary);

/**
 * median_u64 - the nearest-rank median of @count values, sorting them in place
 */
uint64_t median_u64(uint64_t *values, size_t count);

#endif
