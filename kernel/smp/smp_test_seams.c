// SPDX-License-Identifier: MIT
/*
 * The test-only switches of smp_call, stop_machine, AP bring-up and the work
 * slot behind their seams (smp/smp_test_seams.h), and the one option that
 * drops the kicks of any converted user, the MCS lock's included (its seam
 * is sync/sync_test_seams.h): what each switch breaks or delays, and its
 * option.  Never for real runs.
 */
#include <cpu/cpu.h>
#include <log/log.h>
#include <boot/options.h>
#include <smp/smp_test_seams.h>
#include <sync/sync_test_seams.h>
#include <smp/smp.h>
#include <smp/stop_machine.h>
#include <log/symbols.h>
#include <time/time.h>

enum drop_mode {
	DROP_NONE,
	DROP_ALL,	/* test_drop_kick=call, stop_machine: every kick */
	DROP_ONCE,	/* test_drop_kick=call_once: the first waited call's only */
};

static int call_drop, stop_machine_drop;
static bool bringup_drop, tsc_warp_drop;
static unsigned int ap_delay_us;	/* smp_ap_delay_us=N */
static bool call_late_target, stop_machine_late_target;	/* test_late_target=: once */

/*
 * A target the host does not run holds, interrupts off, until the user's
 * stuck reports move - its caller has reported it - or five stuck deadlines
 * have passed (spin_while_unchanged()).
 */
static uint64_t call_stuck_reports(void)
{
	struct smp_call_stats stats;

	smp_call_stats_read(&stats);
	return stats.stuck_reports;
}

static uint64_t stop_machine_stuck_reports(void)
{
	struct stop_machine_stats stats;

	stop_machine_stats_read(&stats);
	return stats.stuck_reports;
}

bool smp_call_test_seam(unsigned int source, bool waited, smp_call_func_t function)
{
	char name[96];
	bool reported;

	if (waited && __atomic_load_n(&call_late_target, __ATOMIC_RELAXED) &&
	    __atomic_exchange_n(&call_late_target, false, __ATOMIC_RELAXED)) {
		reported = spin_while_unchanged(call_stuck_reports, 5 * SMP_CALL_STUCK_DEADLINE_NS);
		ktap_note("smp_call: cpu %u: test_late_target: runs the call of %s from cpu %u %s",
			  cpu_id(), symbol_format((uint64_t)function, name, sizeof(name)), source,
			  reported ? "late, after its caller's stuck report"
				   : "late, but no stuck report came");
	}
	switch (__atomic_load_n(&call_drop, __ATOMIC_RELAXED)) {
	case DROP_ALL:
		return false;
	case DROP_ONCE:
		if (!waited)
			return true;
		return __atomic_exchange_n(&call_drop, DROP_NONE, __ATOMIC_RELAXED) != DROP_ONCE;
	default:
		return true;
	}
}

bool stop_machine_test_seam(enum stop_machine_test_point point)
{
	bool reported;

	if (point == STOP_MACHINE_TEST_KICK)
		return __atomic_load_n(&stop_machine_drop, __ATOMIC_RELAXED) != DROP_ALL;
	if (__atomic_load_n(&stop_machine_late_target, __ATOMIC_RELAXED) &&
	    __atomic_exchange_n(&stop_machine_late_target, false, __ATOMIC_RELAXED)) {
		reported = spin_while_unchanged(stop_machine_stuck_reports,
						5 * STOP_MACHINE_STUCK_DEADLINE_NS);
		ktap_note("stop_machine: cpu %u: test_late_target: joins late, %s", cpu_id(),
			  reported ? "after the caller's stuck report" : "but no stuck report came");
	}
	return true;
}

/*
 * A late AP comes ap_delay_us after the BSP began its wait, not after its
 * own start: under QEMU the APs start before the BSP calibrates its clocks,
 * and at host load 6 one make test's BSP took longer than the 200 ms delay
 * to reach its wait, so the APs were online before it ("before waiting 1")
 * and smp-late-aps failed.  The calibration is done once the wait begins,
 * so the delay is right too.
 */
bool smp_bringup_test_seam(void)
{
	if (ap_delay_us) {
		while (!smp_bringup_wait_begun())
			cpu_relax();
		udelay(ap_delay_us);	/* a late AP: the BSP waits for its kick */
	}
	return !__atomic_load_n(&bringup_drop, __ATOMIC_RELAXED);
}

bool smp_tsc_warp_test_seam(void)
{
	return !__atomic_load_n(&tsc_warp_drop, __ATOMIC_RELAXED);
}

bool smp_work_slot_test_seam(void)
{
	return !test_break_given(TEST_BREAK_ABANDONED_SLOT);
}

static bool lose_next_work_wake;

void smp_test_lose_next_work_wake(void)
{
	__atomic_store_n(&lose_next_work_wake, true, __ATOMIC_RELEASE);
}

bool smp_work_wake_test_seam(void)
{
	return !__atomic_load_n(&lose_next_work_wake, __ATOMIC_RELAXED) ||
	       !__atomic_exchange_n(&lose_next_work_wake, false, __ATOMIC_ACQ_REL);
}

unsigned int smp_test_ap_delay_us(void)
{
	return ap_delay_us;
}

/*
 * test_drop_kick=call|call_once|stop_machine|mcs|bringup|tsc_warp: one converted
 * user's kicks are dropped, so that the suite that checks that user's waits
 * is seen to fail.  call_once drops one waited call's kick only: the next
 * call's kick of the same per-CPU trigger then "confirms" it to the
 * trigger's own count, and only the per-call count of smp_call catches it.
 */
static bool parse_test_drop_kick(const struct cmdline_word *word, const char **error)
{
	if (cmdline_value_is(word, "call"))
		call_drop = DROP_ALL;
	else if (cmdline_value_is(word, "call_once"))
		call_drop = DROP_ONCE;
	else if (cmdline_value_is(word, "stop_machine"))
		stop_machine_drop = DROP_ALL;
	else if (cmdline_value_is(word, "mcs"))
		sync_test_drop_mcs_kicks();
	else if (cmdline_value_is(word, "bringup"))
		bringup_drop = true;
	else if (cmdline_value_is(word, "tsc_warp"))
		tsc_warp_drop = true;
	else
		return false;
	return true;
}
KERNEL_OPTION(test_drop_kick, "call, call_once, stop_machine, mcs, bringup or tsc_warp (its "
			      "suite must then fail)", parse_test_drop_kick);

/*
 * test_late_target=call|stop_machine: once, the CPU that a converted user
 * waits for comes late, past the user's stuck deadline (it holds, interrupts
 * off, until the waiter has reported it), as a vCPU that a loaded host does
 * not run for over a second.  The suite that checks that user must still
 * pass: the deadline decides nothing, and the evidence finds the IPI late,
 * not lost (matrix sections late-target-call, late-target-stop-machine).
 */
static bool parse_test_late_target(const struct cmdline_word *word, const char **error)
{
	if (cmdline_value_is(word, "call"))
		call_late_target = true;
	else if (cmdline_value_is(word, "stop_machine"))
		stop_machine_late_target = true;
	else
		return false;
	return true;
}
KERNEL_OPTION(test_late_target, "call or stop_machine (its suite must still pass)",
	      parse_test_late_target);

/*
 * smp_ap_delay_us=N: each AP waits N us before it comes online, so that the
 * BSP's bring-up wait really waits for kicks (matrix sections
 * smp-late-aps and drop-kick-bringup), or past its 1 s deadline
 * (smp-aps-late-past-the-deadline).
 */
static bool parse_smp_ap_delay_us(const struct cmdline_word *word, const char **error)
{
	return option_parse_number(word, error, 0, 2000000, &ap_delay_us);
}
KERNEL_OPTION(smp_ap_delay_us, "microseconds, 0..2000000", parse_smp_ap_delay_us);
