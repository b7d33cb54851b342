// SPDX-License-Identifier: MIT
/*
 * What each trigger backend does to the users it serves (make bench):
 * stop_machine() latency and smp_call_function_single() latency with
 * waiting, per backend.  tests/bench.cfg runs this with as many vCPUs as
 * host cores and with 4x overcommit (-smp 8 on 2 cores), the trigger patch's
 * motivating case: s390 saw stop_machine take seconds with more vCPUs than
 * CPUs, because the spinning waiters took the CPU from the ones that had
 * work to do.
 */
#include <harness/bench.h>
#include <boot/options.h>
#include <smp/smp.h>
#include <smp/smp_call.h>
#include <smp/stop_machine.h>
#include <harness/test.h>
#include <time/time.h>
#include <sync/trigger_backend.h>
#include "trigger_test.h"

#define ROUNDS		100
#define WARMUP		3
#define BUDGET_NS	(5ull * 1000 * 1000 * 1000)	/* per backend */

static uint64_t samples[ROUNDS];

static int nothing_to_stop(void *unused)
{
	return 0;
}

/*
 * Time @operation (which returns false when a round has nothing to time)
 * with every backend this CPU offers, one figure @name per backend.
 */
static void measure_per_backend(const char *name, bool (*operation)(unsigned int round))
{
	for (int backend = 0; backend < TRIGGER_BACKEND_COUNT; backend++) {
		const struct bench_figure figure = {
			.name = name, .backend = trigger_backend_name(backend), .unit = "ns",
			.warmup = WARMUP,
		};
		uint64_t start_all = now_ns();
		size_t count = 0;

		if (!trigger_backend_set(backend))
			continue;
		for (unsigned int round = 0;
		     round < WARMUP + ROUNDS && now_ns() - start_all < BUDGET_NS; round++) {
			uint64_t start = cycles();

			if (operation(round) && round >= WARMUP)
				samples[count++] = cycles() - start;
		}
		bench_report_cycles(&figure, samples, count);
	}
}

static bool one_stop_machine(unsigned int round)
{
	ASSERT_EQ(stop_machine(nothing_to_stop, NULL, NULL), 0);
	return true;
}

static void stop_machine_latency_per_backend(void)
{
	measure_per_backend("stop_machine", one_stop_machine);
}

static unsigned long calls;

static void count_call(void *counter)
{
	__atomic_fetch_add((unsigned long *)counter, 1, __ATOMIC_RELAXED);
}

static bool one_call(unsigned int round)
{
	unsigned int target = 1 + round % (cpus_present() - 1);

	if (!cpu_is_online(target))
		return false;
	ASSERT_EQ(smp_call_function_single(target, count_call, &calls, true), 0);
	return true;
}

static void call_latency_per_backend(void)
{
	if (cpus_online() < 2)
		test_skip("one CPU: nobody to call");
	measure_per_backend("call_single_wait", one_call);
}

static const struct test_case cases[] = {
	TEST_CASE(stop_machine_latency_per_backend),
	TEST_CASE(call_latency_per_backend),
};
TEST_SUITE(bench_trigger_users, cases, NULL, trigger_test_restore_boot_backend);
