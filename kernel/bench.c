// SPDX-License-Identifier: MIT
#include <bench.h>
#include <console.h>
#include <smp.h>

void bench_report_value(const char *name, const char *unit, uint64_t value)
{
	kprintf("    # BENCH {\"v\":1,\"name\":\"%s\",\"cpus\":%u,\"unit\":\"%s\",\"value\":%llu}\n",
		name, cpus_online(), unit, (unsigned long long)value);
}

/* Shell sort: in place, no recursion, fine for the few thousand samples here. */
static void sort_samples(uint64_t *samples, size_t count)
{
	for (size_t gap = count / 2; gap > 0; gap /= 2) {
		for (size_t i = gap; i < count; i++) {
			uint64_t value = samples[i];
			size_t j = i;

			for (; j >= gap && samples[j - gap] > value; j -= gap)
				samples[j] = samples[j - gap];
			samples[j] = value;
		}
	}
}

/* Nearest-rank percentile of sorted samples. */
static uint64_t percentile(const uint64_t *sorted, size_t count, unsigned int percent)
{
	size_t rank = (count * percent + 99) / 100;

	return sorted[rank ? rank - 1 : 0];
}

void bench_report_samples(const char *name, const char *unit, uint64_t *samples, size_t count)
{
	if (count == 0)
		return;
	sort_samples(samples, count);
	kprintf("    # BENCH {\"v\":1,\"name\":\"%s\",\"cpus\":%u,\"unit\":\"%s\",\"n\":%zu,"
		"\"min\":%llu,\"p50\":%llu,\"p90\":%llu,\"p99\":%llu,\"max\":%llu}\n",
		name, cpus_online(), unit, count, (unsigned long long)samples[0],
		(unsigned long long)percentile(samples, count, 50),
		(unsigned long long)percentile(samples, count, 90),
		(unsigned long long)percentile(samples, count, 99),
		(unsigned long long)samples[count - 1]);
}
