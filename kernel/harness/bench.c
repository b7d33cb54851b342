// SPDX-License-Identifier: MIT
#include <harness/bench.h>
#include <log/console.h>
#include <arch/hypervisor.h>
#include <sync/irq.h>
#include <harness/machine.h>
#include <smp/smp.h>
#include <harness/test.h>
#include <time/time.h>
#include <sync/trigger_backend.h>
#include <lib/format.h>
#include <lib/statistics.h>
#include <lib/string.h>

#define OVERHEAD_PAIRS	1000

/*
 * Every sample is "TSC after - TSC before", so it includes one TSC read's
 * worth of cost that the measured operation did not have.  The median of
 * back-to-back pairs is that cost; measured with interrupts off so that no
 * timer tick lands inside a pair.
 */
uint64_t bench_timer_overhead_cycles(void)
{
	static uint64_t pairs[OVERHEAD_PAIRS];
	static uint64_t overhead;
	static bool measured;
	bool enabled;

	if (measured)
		return overhead;
	enabled = local_irq_save();
	for (size_t i = 0; i < OVERHEAD_PAIRS; i++) {
		uint64_t before = cycles();

		pairs[i] = cycles() - before;
	}
	local_irq_restore(enabled);
	overhead = median_u64(pairs, OVERHEAD_PAIRS);
	measured = true;
	return overhead;
}

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
		"\"tsc_hz\":%llu,\"tsc_source\":\"%s\",\"unreliable_clock\":%s,"
		"\"cpu_model\":\"%s\",\"hypervisor\":\"%s\",\"machine\":\"%s\","
		"\"trigger_backend\":\"%s\",\"timer_overhead_cycles\":%llu}\n",
		cpus_online(), (unsigned long long)tsc_calibration.hz,
		clock_source_name(tsc_calibration.source),
		tsc_calibration.reliable ? "false" : "true", model, hypervisor_info()->signature,
		machine_name(),
		trigger_backend_name(trigger_backend_boot_choice()),
		(unsigned long long)bench_timer_overhead_cycles());
}

/*
 * A figure in a unit of time is TSC cycles scaled by the calibrated rate;
 * when the calibration's windows did not agree (tsc.c) that rate may be off
 * by any factor, so such figures are refused, said so, and not printed as
 * BENCH records.  Figures in cycles do not depend on it and stay.
 */
static bool refused(const char *name, const char *backend, const char *unit)
{
	if (strcmp(unit, "cycles") == 0 || tsc_calibration.reliable)
		return false;
	test_diag("%s%s%s not reported: a figure in %s, and this run's TSC calibration is "
		  "unreliable", name, backend && *backend ? " " : "", backend ? backend : "", unit);
	return true;
}

void bench_report_value(const char *name, const char *unit, uint64_t value)
{
	bench_header_once();
	if (refused(name, NULL, unit))
		return;
	kprintf("    # BENCH {\"v\":1,\"name\":\"%s\",\"cpus\":%u,\"unit\":\"%s\",\"value\":%llu}\n",
		name, cpus_online(), unit, (unsigned long long)value);
}

/* @cycles in @unit ("cycles", "ns", "us"), integer. */
static uint64_t cycles_in_unit(uint64_t cycles, const char *unit)
{
	if (strcmp(unit, "ns") == 0)
		return cycles_to_ns(cycles);
	if (strcmp(unit, "us") == 0)
		return cycles_to_ns(cycles) / 1000;
	return cycles;
}

void bench_report_cycles(const struct bench_figure *figure, uint64_t *samples, size_t count)
{
	uint64_t overhead = bench_timer_overhead_cycles();
	const char *backend = figure->backend ? figure->backend : "";
	unsigned int cpu_count = figure->cpus ? figure->cpus : cpus_online();
	struct sample_summary summary;
	char backend_member[48] = "";
	size_t clamped;

	bench_header_once();
	if (refused(figure->name, backend, figure->unit))
		return;
	if (count == 0) {
		test_diag("%s%s%s: no samples", figure->name, *backend ? " " : "", backend);
		return;
	}
	clamped = subtract_overhead(samples, count, overhead);
	for (size_t i = 0; i < count; i++)
		samples[i] = cycles_in_unit(samples[i], figure->unit);
	summarize_samples(samples, count, &summary);
	summary.clamped = clamped;

	test_diag("%s%s%s, %u CPUs: p50 %llu %s, p90 %llu, p99 %llu, min %llu, max %llu; n %zu, "
		  "%zu outliers above %llu, %u warm-up rounds discarded, %llu cycles timer overhead "
		  "subtracted%s", figure->name, *backend ? " " : "", backend, cpu_count,
		  (unsigned long long)summary.p50, figure->unit, (unsigned long long)summary.p90,
		  (unsigned long long)summary.p99, (unsigned long long)summary.min,
		  (unsigned long long)summary.max, summary.count, summary.outliers,
		  (unsigned long long)summary.outlier_fence, figure->warmup,
		  (unsigned long long)overhead,
		  summary.count < 100 ? " (under 100 samples: p99 is the max)" : "");
	if (*backend)
		snprintf(backend_member, sizeof(backend_member), "\"backend\":\"%s\",", backend);
	/* One kprintf: tools/bench wants "# BENCH {" and the object on one line. */
	kprintf("    # BENCH {\"v\":1,\"name\":\"%s\",%s\"cpus\":%u,\"unit\":\"%s\",\"n\":%zu,"
		"\"warmup\":%u,\"overhead\":%llu,\"min\":%llu,\"p25\":%llu,\"p50\":%llu,"
		"\"p75\":%llu,\"p90\":%llu,\"p99\":%llu,\"max\":%llu,\"outliers\":%zu,"
		"\"outlier_fence\":%llu,\"clamped\":%zu%s}\n",
		figure->name, backend_member, cpu_count, figure->unit, summary.count,
		figure->warmup, (unsigned long long)cycles_in_unit(overhead, figure->unit),
		(unsigned long long)summary.min, (unsigned long long)summary.p25,
		(unsigned long long)summary.p50, (unsigned long long)summary.p75,
		(unsigned long long)summary.p90, (unsigned long long)summary.p99,
		(unsigned long long)summary.max, summary.outliers,
		(unsigned long long)summary.outlier_fence, summary.clamped,
		figure->extra ? figure->extra : "");
}
