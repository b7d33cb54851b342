// SPDX-License-Identifier: MIT
#include <lib/statistics.h>

/*
 * Shell sort with Ciura's gap sequence: in place, no recursion and no
 * allocation, fast enough for the 32 k samples a lock benchmark keeps.
 */
void sort_u64(uint64_t *values, size_t count)
{
	static const size_t gaps[] = { 1750, 701, 301, 132, 57, 23, 10, 4, 1 };

	for (size_t g = 0; g < sizeof(gaps) / sizeof(gaps[0]); g++) {
		size_t gap = gaps[g];

		for (size_t i = gap; i < count; i++) {
			uint64_t value = values[i];
			size_t j = i;

			for (; j >= gap && values[j - gap] > value; j -= gap)
				values[j] = values[j - gap];
			values[j] = value;
		}
	}
}

uint64_t percentile_nearest_rank(const uint64_t *sorted, size_t count, unsigned int percent)
{
	size_t rank;

	if (count == 0)
		return 0;
	if (percent > 100)
		percent = 100;
	rank = (count * percent + 99) / 100;
	return sorted[rank ? rank - 1 : 0];
}

size_t subtract_overhead(uint64_t *samples, size_t count, uint64_t overhead)
{
	size_t clamped = 0;

	for (size_t i = 0; i < count; i++) {
		if (samples[i] < overhead) {
			samples[i] = 0;
			clamped++;
		} else {
			samples[i] -= overhead;
		}
	}
	return clamped;
}

void summarize_samples(uint64_t *samples, size_t count, struct sample_summary *summary)
{
	uint64_t spread, fence;

	summary->count = count;
	summary->outliers = 0;
	if (count == 0) {
		summary->min = summary->p25 = summary->p50 = summary->p75 = 0;
		summary->p90 = summary->p99 = summary->max = summary->outlier_fence = 0;
		return;
	}
	sort_u64(samples, count);
	summary->min = samples[0];
	summary->max = samples[count - 1];
	summary->p25 = percentile_nearest_rank(samples, count, 25);
	summary->p50 = percentile_nearest_rank(samples, count, 50);
	summary->p75 = percentile_nearest_rank(samples, count, 75);
	summary->p90 = percentile_nearest_rank(samples, count, 90);
	summary->p99 = percentile_nearest_rank(samples, count, 99);

	/* Tukey's far-out fence, saturating rather than wrapping on huge samples. */
	spread = summary->p75 - summary->p25;
	fence = spread > (UINT64_MAX - summary->p75) / 3 ? UINT64_MAX : summary->p75 + 3 * spread;
	summary->outlier_fence = fence;
	if (count < 4)
		return;
	/* Sorted: the outliers are the tail above the fence. */
	for (size_t i = count; i > 0 && samples[i - 1] > fence; i--)
		summary->outliers++;
}

uint64_t median_u64(uint64_t *values, size_t count)
{
	sort_u64(values, count);
	return percentile_nearest_rank(values, count, 50);
}
