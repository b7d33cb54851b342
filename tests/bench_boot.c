// SPDX-License-Identifier: MIT
/*
 * Boot benchmarks (make bench): how long AP bring-up took, first INIT to
 * the last AP online, and the boot before it, from kernel entry.  The host
 * side (tools/bench) puts these beside the whole QEMU run's wall time.
 */
#include <harness/bench.h>
#include <smp/smp.h>
#include <harness/test.h>
#include <time/time.h>

static void ap_bring_up_time(void)
{
	uint64_t nanoseconds;

	if (cpus_present() < 2)
		test_skip("one CPU: no APs to bring up");
	ASSERT_GT(smp_summary.all_online_cycles, smp_summary.first_init_cycles);
	nanoseconds = cycles_to_ns(smp_summary.all_online_cycles - smp_summary.first_init_cycles);
	bench_report_value("ap_bringup", "us", nanoseconds / 1000);
}

static void kernel_entry_to_first_init(void)
{
	uint64_t nanoseconds;

	if (cpus_present() < 2)
		test_skip("one CPU: no INIT was sent");
	nanoseconds = cycles_to_ns(smp_summary.first_init_cycles - boot_timestamp());
	bench_report_value("kernel_entry_to_first_init", "us", nanoseconds / 1000);
}

static const struct test_case bench_boot_cases[] = {
	TEST_CASE(ap_bring_up_time),
	TEST_CASE(kernel_entry_to_first_init),
};
TEST_SUITE(bench_boot, bench_boot_cases, NULL, NULL);
