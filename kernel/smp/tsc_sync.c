// SPDX-License-Identifier: MIT
#include <stddef.h>
#include <log/log.h>
#include <smp/smp.h>
#include <smp/smp_test_seams.h>
#include <sync/trigger.h>
#include <sync/trigger_backend.h>
#include <time/time.h>
#include <smp/tsc_sync.h>

/*
 * Bounded by time, not rounds: with more vCPUs than host CPUs a lock
 * passes from CPU to CPU only as fast as the host schedules them, and a
 * fixed round count could take minutes (seen with -smp 8 on 2 cores).
 */
#define WARP_TEST_NS		(20ull * 1000 * 1000)
#define WARP_TEST_MAX_ROUNDS	5000
#define WARP_TEST_TIMEOUT_NS	(5ull * 1000 * 1000 * 1000)
/*
 * How long after the start the boot CPU waits for the others to finish:
 * the start's patience, then the test's time and a margin.  A CPU that
 * waited the whole patience (its kick never came) still finishes.
 */
#define WARP_FINISH_NS		(WARP_TEST_TIMEOUT_NS + 1000ull * 1000 * 1000)

struct tsc_sync_result tsc_sync;

/*
 * A test-and-set lock, not the ticket lock: a ticket lock hands over in a
 * fixed order, so under overcommit every handover waits for one particular
 * descheduled vCPU; here whoever runs takes it.
 */
static uint32_t warp_lock;
static uint64_t last_reading;
static unsigned int arrived, participants;

DEFINE_TRIGGER_USER(trigger_user_tsc_warp_start, "tsc_warp_start");
static DEFINE_TRIGGER_FOR(everyone_arrived, &trigger_user_tsc_warp_start);

/*
 * Start together, so that the CPUs really interleave; but not forever: a
 * CPU the host stopped before it took the request, or a stuck one, must not
 * hang the boot (the BSP reports who did not finish).  The early arrivals
 * sleep on a trigger that the last one kicks (the backend is still
 * bring-up's hlt).  They used to spin: with 16 vCPUs on 2 host cores the
 * spinners kept the host CPUs from the vCPUs still to arrive, and the last
 * arrived 70 ms after the first of a test that then took 1-8 ms (one boot,
 * TSC stamps per CPU).
 */
static void wait_for_everyone(void)
{
	uint64_t deadline = now_ns() + WARP_TEST_TIMEOUT_NS;

	trigger_reset(&everyone_arrived);
	if (__atomic_add_fetch(&arrived, 1, __ATOMIC_ACQ_REL) == participants &&
	    smp_tsc_warp_test_seam())
		trigger_kick(&everyone_arrived);
	while (__atomic_load_n(&arrived, __ATOMIC_ACQUIRE) < participants) {
		if (!trigger_wait_timeout(&everyone_arrived, deadline) &&
		    __atomic_load_n(&arrived, __ATOMIC_ACQUIRE) < participants)
			break;
	}
	trigger_finish(&everyone_arrived);
}

static void warp_test(void *unused)
{
	wait_for_everyone();
	uint64_t start = cycles(), duration = ns_to_cycles(WARP_TEST_NS);

	for (int round = 0; round < WARP_TEST_MAX_ROUNDS && cycles() - start < duration; round++) {
		uint64_t now;

		while (__atomic_exchange_n(&warp_lock, 1, __ATOMIC_ACQUIRE))
			cpu_relax();
		now = cycles();
		if (now < last_reading) {
			tsc_sync.warps++;
			if (last_reading - now > tsc_sync.max_warp_cycles)
				tsc_sync.max_warp_cycles = last_reading - now;
		}
		last_reading = now;
		tsc_sync.samples++;
		__atomic_store_n(&warp_lock, 0, __ATOMIC_RELEASE);
	}
}

void tsc_sync_check(void)
{
	bool asked[MAX_CPUS] = { false };	/* only a CPU that took the request is waited for */
	unsigned int started = 0;
	uint64_t give_up = now_ns() + WARP_FINISH_NS, now;

	participants = cpus_online();
	tsc_sync.cpus = participants;
	if (participants < 2) {
		tsc_sync.reliable = true;
		return;
	}
	for (unsigned int i = 1; i < cpus_present(); i++) {
		asked[i] = cpus[i].online && smp_run_on_async(i, warp_test, NULL);
		started += asked[i];
	}
	if (started + 1 < participants)
		participants = started + 1;	/* do not wait for a CPU that was not asked */
	tsc_sync.participants = participants;
	warp_test(NULL);
	for (unsigned int i = 1; i < cpus_present(); i++) {
		now = now_ns();
		if (asked[i] && !smp_wait_for(i, give_up > now ? give_up - now : 1)) {
			tsc_sync.unfinished++;
			ktap_note("time: cpu %u did not finish the TSC warp test", i);
		}
	}
	tsc_sync.checked = true;
	tsc_sync.reliable = cycles_to_ns(tsc_sync.max_warp_cycles) <= TSC_SKEW_LIMIT_NS;
	ktap_note("time: TSC warp test on %u CPUs, %llu readings: %llu warps, the largest %llu ns%s",
		  participants, (unsigned long long)tsc_sync.samples,
		  (unsigned long long)tsc_sync.warps,
		  (unsigned long long)cycles_to_ns(tsc_sync.max_warp_cycles),
		  tsc_sync.reliable ? "" : ": cross-CPU timings will be refused");
}

bool cross_cpu_timing_reliable(void)
{
	return tsc_sync.reliable;
}
