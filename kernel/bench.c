// SPDX-License-Identifier: MIT
#include <bench.h>
#include <console.h>
#include <hypervisor.h>
#include <smp.h>
#include <time.h>
#include <trigger_backend.h>

/*
 * Once per boot, before the first figure: what the figures were measured
 * on, so that a results file says it itself.
 */
static void bench_header_once(void)
{
	static bool printed;
	char model[49];

	if (printed)
		return;
	printed = true;
	arch_cpu_model(model, sizeof(model));
	kprintf("    # BENCH {\"v\":1,\"name\":\"header\",\"unit\":\"info\",\"cpus\":%u,"
		"\"tsc_hz\":%llu,\"tsc_source\":\"%s\",\"cpu_model\":\"%s\","
		"\"hypervisor\":\"%s\",\"trigger_backend\":\"%s\"}\n",
		cpus_online(), (unsigned long long)tsc_calibration.hz,
		clock_source_name(tsc_calibration.source), model, hypervisor_info()->signature,
		trigger_backend_name(trigger_backend_current()));
}

void bench_report_value(const char *name, const char *unit, uint64_t value)
{
	bench_header_once();
	kprintf("    # BENCH {\"v\":1,\"name\":\"%s\",\"cpus\":%u,\"unit\":\"%s\",\"value\":%llu}\n",
		name, cpus_online(), unit, (unsigned long long)value);
}

/* Shell sort (Ciura's gaps): in place, no recursion, integer only. */
void bench_sort(uint64_t *samples, size_t count)
{
	static const size_t gaps[] = { 1750, 701, 301, 132, 57, 23, 10, 4, 1 };

	for (size_t g = 0; g < sizeof(gaps) / sizeof(gaps[0]); g++) {
		size_t gap = gaps[g];

		for (size_t i = gap; i < count; i++) {
			uint64_t value = samples[i];
			size_t j = i;

			for (; j >= gap && samples[j - gap] > value; j -= gap)
				samples[j] = samples[j - gap];
			samples[j] = value;
		}
	}
}

/* Nearest rank: the smallest sample with at least @percent of them at or below it. */
uint64_t bench_percentile(const uint64_t *sorted, size_t count, unsigned int percent)
{
	size_t rank = (count * percent + 99) / 100;

	return sorted[rank ? rank - 1 : 0];
}

void bench_report_samples(const char *name, const char *unit, uint64_t *samples, size_t count)
{
	if (count == 0)
		return;
	bench_header_once();
	bench_sort(samples, count);
	kprintf("    # BENCH {\"v\":1,\"name\":\"%s\",\"cpus\":%u,\"unit\":\"%s\",\"n\":%zu,"
		"\"min\":%llu,\"p50\":%llu,\"p90\":%llu,\"p99\":%llu,\"max\":%llu}\n",
		name, cpus_online(), unit, count, (unsigned long long)samples[0],
		(unsigned long long)bench_percentile(samples, count, 50),
		(unsigned long long)bench_percentile(samples, count, 90),
		(unsigned long long)bench_percentile(samples, count, 99),
		(unsigned long long)samples[count - 1]);
}
