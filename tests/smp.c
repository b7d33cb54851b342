// SPDX-License-Identifier: MIT
/*
 * SMP bring-up as it happened on this boot: every CPU the firmware enabled
 * is online with the right APIC ID, private per-CPU data, interrupts enabled
 * in its idle loop and a working LAPIC timer; the TSC agrees with a second
 * clock; the CPUs' TSCs agree with each other.
 */
#include <boot/acpi.h>
#include <arch/hypervisor.h>
#include <arch/ipi_evidence.h>
#include <sync/irq.h>
#include <boot/options.h>
#include <smp/smp.h>
#include <smp/smp_call.h>
#include <smp/smp_test_seams.h>
#include <log/symbols.h>
#include <harness/test.h>
#include <time/time.h>
#include <time/timer.h>
#include <sync/trigger_backend.h>
#include <smp/tsc_sync.h>
#include <harness/watchdog.h>
#include <lib/clock_calibration.h>
#include <lib/string.h>
#include <asm/apic.h>
#include <asm/instructions.h>

#include "cpu_test.h"

#define REMOTE_TIMEOUT_NS	CPU_TEST_ANSWER_PATIENCE_NS

/*
 * Whether the MADT is another machine's, handed over by GRUB's acpi command
 * (tools/run --acpi-tables): its CPUs are not QEMU's vCPUs, so their counts
 * need not agree (smp_summary says which table is QEMU's own).
 */
static bool madt_from_another_machine(void)
{
	return running_under_qemu() && smp_summary.discovered_by == CPU_DISCOVERY_ACPI_MADT &&
	       !smp_summary.lists_platform_vcpus;
}

static void online_count_matches_the_firmware(void)
{
	unsigned int expected = smp_summary.enabled - smp_summary.beyond_capacity -
				smp_summary.unreachable;

	unsigned int withheld = kernel_options.smp_withhold_cpu;

	if (smp_summary.discovered_by == CPU_DISCOVERY_NONE)
		expected = 1;
	EXPECT_EQ(cpus_present(), expected);
	if (madt_from_another_machine()) {
		/*
		 * The CPUs QEMU lacks never answer: each must be reported failed
		 * (the wait ends at its deadline), and no more come up than QEMU has.
		 */
		test_diag("the MADT (OEM '%s') lists %u CPUs, QEMU has %u: %u online, the rest "
			  "failed", smp_summary.madt_oem_id, expected, smp_summary.platform_cpus,
			  cpus_online());
		EXPECT_LE(cpus_online(), smp_summary.platform_cpus);
		for (unsigned int i = 0; i < cpus_present(); i++)
			EXPECT_EQ(cpus[i].boot_failed, !cpus[i].online);
		return;
	}
	if (withheld && withheld < cpus_present()) {
		/* smp_withhold=N: that CPU must be reported as failed, the rest online. */
		expected--;
		EXPECT_TRUE(cpus[withheld].boot_failed);
		EXPECT_FALSE(cpus[withheld].online);
	}
	EXPECT_EQ(cpus_online(), expected);
	if (kernel_options.expected_cpus)
		EXPECT_EQ(cpus_online(), kernel_options.expected_cpus);
	else
		test_diag("no cpus=N given: checked against the firmware's count only");
	for (unsigned int i = 0; i < cpus_present(); i++) {
		if (i != withheld)
			EXPECT_FALSE(cpus[i].boot_failed);
	}
}

static void record_apic_id(void *slot)
{
	*(uint32_t *)slot = lapic_id();
}

/*
 * Under QEMU, fw_cfg counts the vCPUs: a second source for the firmware's
 * table.  The MADT QEMU builds lists every one; an MP table may list fewer
 * (SeaBIOS's lists the first logical CPU of each package: QEMU -machine
 * acpi=off -smp 4 shows one), and then the difference must be exactly what
 * the boot reported as hidden.
 */
static void firmware_cpu_count_agrees_with_qemu(void)
{
	unsigned int vcpus;

	if (!running_under_qemu())
		test_skip("not under QEMU: no second count of the CPUs (cpus=N is the only one)");
	if (madt_from_another_machine())
		test_skip("the MADT is another machine's (tools/run --acpi-tables): its CPUs are "
			  "not QEMU's vCPUs");
	vcpus = fw_cfg_cpu_count();
	ASSERT_GT(vcpus, 0u);
	EXPECT_EQ(smp_summary.platform_cpus, vcpus);
	if (smp_summary.discovered_by == CPU_DISCOVERY_ACPI_MADT)
		EXPECT_EQ(smp_summary.enabled, vcpus);
	else
		EXPECT_LE(smp_summary.enabled, vcpus);
	EXPECT_EQ(smp_summary.enabled + smp_summary.hidden, vcpus);
	if (smp_summary.hidden)
		test_diag("%s lists %u of QEMU's %u vCPUs; the other %u were reported hidden",
			  smp_summary.discovered_by == CPU_DISCOVERY_MP_TABLE ? "the MP table" :
			  "the firmware", smp_summary.enabled, vcpus, smp_summary.hidden);
}

static void apic_ids_are_distinct_and_match(void)
{
	for (unsigned int i = 0; i < cpus_present(); i++) {
		uint32_t seen = ~0u;

		if (!cpu_is_online(i))
			continue;
		ASSERT_TRUE(smp_run_on(i, record_apic_id, &seen, REMOTE_TIMEOUT_NS));
		EXPECT_EQ(seen, cpus[i].apic_id);
		EXPECT_EQ(cpu_from_apic_id(cpus[i].apic_id), (int)i);
		for (unsigned int j = 0; j < i; j++)
			EXPECT_NE(cpus[i].apic_id, cpus[j].apic_id);
	}
}

#define SCRATCH_MAGIC 0x5eed000000000000ull

static void write_own_scratch(void *unused)
{
	struct cpu *cpu = this_cpu();

	cpu->scratch = SCRATCH_MAGIC | cpu->id;
}

static void per_cpu_data_is_private(void)
{
	for (unsigned int i = 0; i < cpus_present(); i++)
		cpus[i].scratch = 0;
	for (unsigned int i = 0; i < cpus_present(); i++) {
		if (cpu_is_online(i))
			ASSERT_TRUE(smp_run_on(i, write_own_scratch, NULL, REMOTE_TIMEOUT_NS));
	}
	for (unsigned int i = 0; i < cpus_present(); i++) {
		if (!cpu_is_online(i))
			continue;
		EXPECT_EQ(cpus[i].scratch, SCRATCH_MAGIC | i);
		EXPECT_TRUE(cpus[i].self == &cpus[i]);
	}
}

static void aps_idle_with_interrupts_enabled(void)
{
	if (cpus_present() < 2)
		test_skip("one CPU: no AP to look at");
	for (unsigned int i = 1; i < cpus_present(); i++) {
		unsigned long before = __atomic_load_n(&cpus[i].wake_interrupts, __ATOMIC_ACQUIRE);
		uint64_t start = now_ns(), offset;
		const char *where;

		if (!cpu_is_online(i))
			continue;
		arch_wake_cpu(&cpus[i]);
		while (__atomic_load_n(&cpus[i].wake_interrupts, __ATOMIC_ACQUIRE) == before &&
		       now_ns() - start < REMOTE_TIMEOUT_NS)
			cpu_relax();
		ASSERT_NE(__atomic_load_n(&cpus[i].wake_interrupts, __ATOMIC_ACQUIRE), before);
		/* The wake IPI interrupted the idle loop's halt, with IF set. */
		EXPECT_EQ(cpus[i].wake_interrupted_rflags & RFLAGS_IF, RFLAGS_IF);
		where = symbol_lookup(cpus[i].wake_interrupted_rip, &offset);
		EXPECT_STREQ(where, "cpu_idle_loop");
	}
}

static void wait_for_own_timer(void *result)
{
	struct cpu *cpu = this_cpu();
	unsigned long before = cpu->timer_ticks;
	bool was_enabled = local_irq_save();
	bool watcher = (int)cpu->id == watchdog_cpu();
	uint64_t start = now_ns();

	/* The watchdog's CPU already ticks periodically: do not disturb it. */
	if (!watcher)
		timer_oneshot(1000000);
	local_irq_enable();
	while (cpu->timer_ticks == before && now_ns() - start < REMOTE_TIMEOUT_NS / 2)
		cpu_relax();
	local_irq_disable();
	*(bool *)result = cpu->timer_ticks != before;
	local_irq_restore(was_enabled);
}

static void lapic_timer_fires_on_every_cpu(void)
{
	for (unsigned int i = 0; i < cpus_present(); i++) {
		bool fired = false;

		if (!cpu_is_online(i))
			continue;
		ASSERT_TRUE(smp_run_on(i, wait_for_own_timer, &fired, REMOTE_TIMEOUT_NS));
		EXPECT_TRUE(fired);
	}
	EXPECT_GT(lapic_timer_hz(), 0u);
}

/*
 * The timer's calibrated rate (lapic.c, which may count through the TSC's
 * calibration) against a measurement of this case's own: the count over
 * 5 ms of TSC.  Each read of the count sits between two TSC reads, so the
 * true rate lies between the count over the widest span and over the
 * narrowest; the calibration may err by 0.5 % beyond those.  Both sides
 * use the calibrated TSC rate, so its own error cancels.
 * test_break=lapic_window (a 20 ms window taken as 10) must fail this.
 */
#define TIMER_RATE_WINDOW_NS	(5ull * 1000 * 1000)

static void lapic_timer_rate_agrees_with_the_tsc(void)
{
	uint64_t hz = lapic_timer_hz(), start_before, start_after, end_before, end_after;
	uint64_t counted, lowest, highest;
	uint32_t start_count, end_count;
	bool enabled;

	ASSERT_GT(hz, 0u);
	if (!tsc_calibration.reliable)
		test_skip("the TSC calibration is unreliable: no rate to compare against");
	enabled = local_irq_save();
	lapic_timer_oneshot_count(UINT32_MAX);
	start_before = cycles();
	start_count = lapic_timer_current_count();
	start_after = cycles();
	while (cycles() - start_after < ns_to_cycles(TIMER_RATE_WINDOW_NS))
		cpu_relax();
	end_before = cycles();
	end_count = lapic_timer_current_count();
	end_after = cycles();
	timer_stop();
	local_irq_restore(enabled);
	counted = start_count - end_count;
	lowest = counted * 1000000000ull / cycles_to_ns(end_after - start_before);
	highest = counted * 1000000000ull / cycles_to_ns(end_before - start_after);
	test_diag("calibrated %llu Hz; measured here %llu-%llu Hz", (unsigned long long)hz,
		  (unsigned long long)lowest, (unsigned long long)highest);
	EXPECT_GE(hz, lowest - lowest / 200);
	EXPECT_LE(hz, highest + highest / 200);
}

static void tsc_deadline_timer_fires_where_offered(void)
{
	unsigned long before = this_cpu()->timer_ticks;
	bool was_enabled;
	uint64_t start;

	if (!tsc_deadline_supported())
		test_skip("no TSC-deadline timer on this CPU (CPUID.1:ECX[24]; QEMU TCG has none): "
			  "not exercised");
	was_enabled = local_irq_save();
	lapic_timer_deadline(cycles() + ns_to_cycles(1000000));
	local_irq_enable();
	start = now_ns();
	while (this_cpu()->timer_ticks == before && now_ns() - start < REMOTE_TIMEOUT_NS)
		cpu_relax();
	local_irq_disable();
	lapic_timer_stop();
	local_irq_restore(was_enabled);
	EXPECT_NE(this_cpu()->timer_ticks, before);
}

static uint64_t difference(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

static void tsc_agrees_with_a_second_clock(void)
{
	static const enum clock_source sources[] = {
		CLOCK_SOURCE_HPET, CLOCK_SOURCE_PM_TIMER, CLOCK_SOURCE_PIT,
	};
	uint64_t hz = tsc_calibration.hz, best = UINT64_MAX;
	enum clock_source other = CLOCK_SOURCE_NONE;
	static struct calibration stats, best_stats;

	ASSERT_GT(hz, 0u);
	for (size_t i = 0; i < sizeof(sources) / sizeof(sources[0]); i++) {
		if (sources[i] != tsc_calibration.source && measure_tsc_against(sources[i], 1, NULL)) {
			other = sources[i];
			break;
		}
	}
	if (other == CLOCK_SOURCE_NONE)
		test_skip("no second clock source to compare with");
	/*
	 * A measurement whose windows agree with each other
	 * (kernel/lib/clock_calibration.h) is one a vCPU the host stopped did
	 * not skew; the best of three such is compared, within 20%: a real
	 * calibration error (a wrong divisor, a wrong period) is far larger
	 * than that, and its windows agree as well as right ones do.  One whose
	 * windows never agreed is a guess (seen with the PIT under a loaded
	 * host): if all three are, the host did not let the clocks be compared.
	 */
	for (int attempt = 0; attempt < 3; attempt++) {
		uint64_t measured = measure_tsc_against(other, 10, &stats);

		/* No usable window at all is the clock's fault, not the host's. */
		ASSERT_NE_MSG(stats.state, CALIBRATION_FAILED, "the %s gave no usable window",
			      clock_source_name(other));
		if (stats.state == CALIBRATION_AGREED && difference(measured, hz) < best) {
			best = difference(measured, hz);
			best_stats = stats;
		}
	}
	if (best == UINT64_MAX)
		test_skip("no measurement against the %s agreed (the last: %s): the host "
			  "ran this CPU too unsteadily to compare", clock_source_name(other),
			  calibration_state_name(stats.state));
	test_diag("calibrated %llu kHz from the %s; the %s agrees within %llu kHz "
		  "(%u of %u windows agreed, %s, %llu-%llu kHz)",
		  (unsigned long long)(hz / 1000), clock_source_name(tsc_calibration.source),
		  clock_source_name(other), (unsigned long long)(best / 1000),
		  best_stats.agreeing, best_stats.kept, calibration_state_name(best_stats.state),
		  (unsigned long long)(best_stats.lowest_hz / 1000),
		  (unsigned long long)(best_stats.highest_hz / 1000));
	EXPECT_LT(best, hz / 5);
}

static void delays_last_as_long_as_asked(void)
{
	uint64_t start = cycles();

	udelay(2000);
	EXPECT_GE(cycles_to_ns(cycles() - start), 2000000u);
	EXPECT_EQ(cycles_to_ns(ns_to_cycles(1000000000ull)) / 1000, 1000000u);
}

static void tscs_of_all_cpus_agree(void)
{
	if (cpus_online() < 2)
		test_skip("one CPU: nothing to compare");
	ASSERT_TRUE(tsc_sync.checked);
	EXPECT_EQ(tsc_sync.cpus, cpus_online());
	EXPECT_GT(tsc_sync.samples, 0u);
	EXPECT_TRUE(tsc_sync.reliable);
}

static void bring_up_was_timed(void)
{
	if (cpus_present() < 2)
		test_skip("one CPU: no bring-up to time");
	EXPECT_GT(smp_summary.first_init_cycles, boot_timestamp());
	/* Another machine's tables (tools/run --acpi-tables) may list no vCPU QEMU has. */
	if (cpus_online() < 2)
		test_skip("no AP came online (every one listed was reported failed): nothing "
			  "to time");
	EXPECT_GT(smp_summary.all_online_cycles, smp_summary.first_init_cycles);
	for (unsigned int i = 1; i < cpus_present(); i++) {
		if (cpu_is_online(i))
			EXPECT_GE(cpus[i].online_cycles, smp_summary.first_init_cycles);
	}
	test_diag("first INIT to all %u online: %llu us", cpus_online(),
		  (unsigned long long)(cycles_to_ns(smp_summary.all_online_cycles -
						    smp_summary.first_init_cycles) / 1000));
}

static void apic_mode_selection_follows_cpuid_and_firmware(void)
{
	const uint64_t enabled = 1ull << 11, x2apic = 1ull << 10;

	EXPECT_EQ(apic_select_mode(false, enabled), APIC_MODE_XAPIC);
	EXPECT_EQ(apic_select_mode(true, enabled), APIC_MODE_X2APIC);
	/* Handed over in x2APIC mode: stay there, whatever CPUID says. */
	EXPECT_EQ(apic_select_mode(false, enabled | x2apic), APIC_MODE_X2APIC);
	EXPECT_EQ(apic_select_mode(true, enabled | x2apic), APIC_MODE_X2APIC);
	/* EXTD without EN is not x2APIC mode (SDM vol 3, table 12-5). */
	EXPECT_EQ(apic_select_mode(false, x2apic), APIC_MODE_XAPIC);
	EXPECT_EQ(lapic_mode(), apic_select_mode((cpuid(1).ecx & (1u << 21)) != 0,
						 rdmsr(0x1b)));
	if (lapic_mode() == APIC_MODE_XAPIC)
		test_diag("running in xAPIC mode: the x2APIC path was not exercised here");
}

/*
 * AP bring-up runs before any suite: this case checks its wait.  The BSP
 * waited for the APs on a trigger that each AP kicks as it comes online
 * (kernel/smp/smp.c): one sequence, ended by the last AP's kick (or before
 * waiting, every AP already online; or just before that kick, which then
 * came), with its one bound, the 1 s AP deadline, reached only when an AP
 * did not start - as reported at boot.  test_drop_kick=bringup must make
 * this fail.
 */
static void bring_up_wait_ended_by_the_last_aps_kick(void)
{
	struct trigger_user *user = trigger_user_find("ap_bringup");
	struct trigger_user_counters counters;
	unsigned int failed = 0;

	ASSERT_TRUE(user != NULL);
	if (cpus_present() < 2)
		test_skip("one CPU: no APs to wait for");
	for (unsigned int i = 1; i < cpus_present(); i++)
		failed += cpus[i].boot_failed;
	trigger_user_counters_read(user, &counters);
	test_diag("ap_bringup: %llu sequence: by its kick %llu, before waiting %llu, before its "
		  "kick %llu, reached the deadline %llu, still without a kick %llu; %u APs did not "
		  "start", (unsigned long long)counters.sequences,
		  (unsigned long long)counters.by_kick, (unsigned long long)counters.before_waiting,
		  (unsigned long long)counters.before_its_kick,
		  (unsigned long long)counters.reached_deadline,
		  (unsigned long long)counters.awaiting_kick, failed);
	EXPECT_EQ(counters.sequences, 1u);
	EXPECT_EQ(counters.reached_deadline, failed ? 1u : 0u);
	/* smp_ap_delay_us= makes every AP late: the BSP must have waited for a kick. */
	if (smp_test_ap_delay_us())
		EXPECT_EQ(counters.before_waiting, 0u);
	if (!failed) {
		EXPECT_EQ(counters.awaiting_kick, 0u);
		EXPECT_EQ(counters.by_kick + counters.before_waiting + counters.before_its_kick, 1u);
	}
}

/*
 * The TSC warp test's start (kernel/smp/tsc_sync.c), also before any suite:
 * every CPU that ran it waited on one trigger until the last had arrived,
 * which kicked the others.  One sequence per CPU, each ended by that kick
 * (or before waiting: the last one, and any that saw it arrive first), and
 * the deadline reached only when a CPU never arrived - reported at boot as
 * not finishing.  test_drop_kick=tsc_warp must make this fail.
 */
static void warp_test_start_ended_by_the_last_arrivals_kick(void)
{
	struct trigger_user *user = trigger_user_find("tsc_warp_start");
	struct trigger_user_counters counters;

	ASSERT_TRUE(user != NULL);
	if (cpus_online() < 2)
		test_skip("one CPU: no warp test, nobody to wait for");
	ASSERT_TRUE(tsc_sync.checked);
	trigger_user_counters_read(user, &counters);
	test_diag("tsc_warp_start: %llu sequences of %u CPUs: by its kick %llu, before waiting %llu, "
		  "before its kick %llu, reached the deadline %llu, still without a kick %llu; %u "
		  "CPUs did not finish", (unsigned long long)counters.sequences,
		  tsc_sync.participants, (unsigned long long)counters.by_kick,
		  (unsigned long long)counters.before_waiting,
		  (unsigned long long)counters.before_its_kick,
		  (unsigned long long)counters.reached_deadline,
		  (unsigned long long)counters.awaiting_kick, tsc_sync.unfinished);
	EXPECT_EQ(counters.sequences, tsc_sync.participants);
	if (tsc_sync.unfinished == 0) {
		EXPECT_EQ(counters.reached_deadline, 0u);
		EXPECT_EQ(counters.awaiting_kick, 0u);
		EXPECT_EQ(counters.by_kick + counters.before_waiting + counters.before_its_kick,
			  counters.sequences);
	}
}

/*
 * The work slot after a time-out (smp.h): a requester that gives up on a
 * CPU the host only stopped must not lose that CPU for the rest of the run
 * (one make test did: after the boot's calls to a stopped vCPU timed out,
 * it answered nothing).  The test holds the helper itself, so the time-out
 * is certain however the host runs it; what follows has the usual patience.
 */
#define SLOT_TEST_TIMEOUT_NS	(1000ull * 1000)

static struct {
	uint64_t holding;	/* 1 once the helper holds (cpu_test_wait_at_least) */
	bool released;
	unsigned int late_runs;
	unsigned int ran_on;
} slot_test;

static void hold_until_released(void *unused)
{
	__atomic_store_n(&slot_test.holding, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&slot_test.released, __ATOMIC_ACQUIRE))
		cpu_relax();
}

static void count_late_run(void *unused)
{
	__atomic_fetch_add(&slot_test.late_runs, 1, __ATOMIC_ACQ_REL);
}

static void record_cpu(void *unused)
{
	__atomic_store_n(&slot_test.ran_on, cpu_id(), __ATOMIC_RELEASE);
}

static void slot_test_start(void)
{
	slot_test = (typeof(slot_test)){ .ran_on = ~0u };
}

/*
 * Gives @cpu a request to record where it ran, as soon as its slot is free
 * again, and waits for it; then checks it ran there.
 */
static void slot_test_cpu_takes_work(unsigned int cpu)
{
	uint64_t start = now_ns();

	while (!smp_run_on_async(cpu, record_cpu, NULL)) {
		if (now_ns() - start > REMOTE_TIMEOUT_NS) {
			test_report_failure(__FILE__, __LINE__, "cpu %u's work slot was not free "
					    "again %llu s after the time-out", cpu,
					    (unsigned long long)(REMOTE_TIMEOUT_NS / 1000000000ull));
			test_abort_case();
		}
		cpu_sleep_at_most_ns(1000 * 1000);	/* the host CPU back, for the helper */
	}
	ASSERT_TRUE(smp_wait_for(cpu, REMOTE_TIMEOUT_NS));
	EXPECT_EQ(__atomic_load_n(&slot_test.ran_on, __ATOMIC_ACQUIRE), cpu);
}

static void work_not_begun_by_its_time_out_is_withdrawn(void)
{
	int helper = cpu_test_other_cpu();
	bool held, posted = false, finished = false;

	if (helper < 0)
		test_skip("one CPU: no other CPU to give work");
	slot_test_start();
	/* Held in a call's handler, interrupts off: its idle loop cannot look at the slot. */
	ASSERT_EQ(smp_call_function_single((unsigned int)helper, hold_until_released, NULL, false),
		  SMP_CALL_OK);
	held = cpu_test_wait_at_least(&slot_test.holding, 1, REMOTE_TIMEOUT_NS);
	if (held) {
		posted = smp_run_on_async((unsigned int)helper, count_late_run, NULL);
		finished = posted && smp_wait_for((unsigned int)helper, SLOT_TEST_TIMEOUT_NS);
	}
	__atomic_store_n(&slot_test.released, true, __ATOMIC_RELEASE);
	ASSERT_TRUE(held);
	ASSERT_TRUE(posted);
	EXPECT_FALSE(finished);
	slot_test_cpu_takes_work((unsigned int)helper);
	/* Taken back before it began: it must never run, late, into a caller gone on. */
	EXPECT_EQ(__atomic_load_n(&slot_test.late_runs, __ATOMIC_ACQUIRE), 0u);
}

static void a_cpu_late_with_its_work_takes_work_again(void)
{
	int helper = cpu_test_other_cpu();
	bool held, finished = false;

	if (helper < 0)
		test_skip("one CPU: no other CPU to give work");
	slot_test_start();
	ASSERT_TRUE(smp_run_on_async((unsigned int)helper, hold_until_released, NULL));
	held = cpu_test_wait_at_least(&slot_test.holding, 1, REMOTE_TIMEOUT_NS);
	if (held)
		finished = smp_wait_for((unsigned int)helper, SLOT_TEST_TIMEOUT_NS);
	__atomic_store_n(&slot_test.released, true, __ATOMIC_RELEASE);
	ASSERT_TRUE(held);
	EXPECT_FALSE(finished);
	slot_test_cpu_takes_work((unsigned int)helper);
}

/*
 * Begun work given up on ends before the next case begins (harness/test.c):
 * the first case gives a helper work that it holds until the case has
 * given up on it (so the time-out is certain however the host runs either
 * CPU), which then runs LATE_WORK_NS more, past the case's end; the second,
 * run next, finds it ended.  Without the harness's wait
 * (test_break=unawaited_work) it begins while the work still runs, as a
 * later case would while a late vCPU wrote to its stack.
 */
#define LATE_WORK_NS	(300ull * 1000 * 1000)

static struct {
	uint64_t begun;		/* 1 once the helper runs it (cpu_test_wait_at_least) */
	bool released;		/* the case gave up on it */
	bool ended;
	bool given_up;		/* by the first case, for the second */
} late_work;

static void sleep_for_ns(uint64_t nanoseconds, const bool *until)
{
	uint64_t start = now_ns();

	while (!(until && __atomic_load_n(until, __ATOMIC_ACQUIRE)) &&
	       now_ns() - start < nanoseconds)
		cpu_sleep_at_most_ns(1000 * 1000);	/* the host CPU back, for the requester */
}

static void run_long_past_the_time_out(void *unused)
{
	__atomic_store_n(&late_work.begun, 1, __ATOMIC_RELEASE);
	sleep_for_ns(REMOTE_TIMEOUT_NS, &late_work.released);
	sleep_for_ns(LATE_WORK_NS, NULL);
	__atomic_store_n(&late_work.ended, true, __ATOMIC_RELEASE);
}

static void begun_work_given_up_on_runs_past_its_case(void)
{
	int helper = cpu_test_other_cpu();
	bool begun, finished;

	late_work = (typeof(late_work)){ 0 };
	if (helper < 0)
		test_skip("one CPU: no other CPU to give work");
	ASSERT_TRUE(smp_run_on_async((unsigned int)helper, run_long_past_the_time_out, NULL));
	begun = cpu_test_wait_at_least(&late_work.begun, 1, REMOTE_TIMEOUT_NS);
	/* Given up on whether or not it began: work not begun is withdrawn. */
	finished = smp_wait_for((unsigned int)helper, SLOT_TEST_TIMEOUT_NS);
	__atomic_store_n(&late_work.released, true, __ATOMIC_RELEASE);
	ASSERT_TRUE(begun);
	ASSERT_FALSE(finished);
	late_work.given_up = true;
}

static void work_the_case_before_gave_up_on_has_ended(void)
{
	if (!late_work.given_up)
		test_skip("runs right after begun_work_given_up_on_runs_past_its_case");
	late_work.given_up = false;
	EXPECT_TRUE_MSG(__atomic_load_n(&late_work.ended, __ATOMIC_ACQUIRE),
			"this case began while the work the case before gave up on still ran");
}

/*
 * A work wake that vanished after its ICR write leaves an idle CPU halted,
 * its work posted and unrun.  It is counted as sent (smp_wake_for_work()),
 * so the loss is judged, not passed off as a CPU the host did not run: the
 * watchdog CPU's sweep probes a CPU whose wake is 200 ms old, the probe's
 * handler finds the wake vector in neither IRR nor ISR, and its interrupt
 * ends the halt so that the work runs (on the watchdog CPU itself, its
 * own tick ends the halt, and the idle loop judges what the tick's handler
 * saw).  The case takes the loss it made; any other still fails it.
 */
static void a_lost_work_wake_is_judged_lost_and_the_work_runs(void)
{
	int helper = cpu_test_other_cpu();
	uint64_t start, took;
	bool ran;

	if (helper < 0)
		test_skip("one CPU: no other CPU to give work");
	if (watchdog_cpu() < 0)
		test_skip("no watchdog CPU (watchdog=off): no sweep to probe the lost wake");
	/* Work first, so that the helper is back in its idle loop's halt. */
	ASSERT_TRUE(smp_run_on((unsigned int)helper, record_cpu, NULL, REMOTE_TIMEOUT_NS));
	cpu_test_spin_ns(1000000);
	slot_test_start();
	smp_test_lose_next_work_wake();
	start = now_ns();
	ran = smp_run_on((unsigned int)helper, record_cpu, NULL, REMOTE_TIMEOUT_NS);
	took = now_ns() - start;
	EXPECT_TRUE_MSG(ran, "cpu %d never ran the work whose wake IPI was lost", helper);
	EXPECT_EQ(__atomic_load_n(&slot_test.ran_on, __ATOMIC_ACQUIRE), (unsigned int)helper);
	/* Only the wake it lost: another loss still fails the case. */
	EXPECT_EQ(ipi_evidence_take_losses(IPI_EVIDENCE_WAKE, "    # expected: "), 1u);
	test_diag("cpu %d%s %s the work %llu ms after its wake IPI was lost", helper,
		  helper == watchdog_cpu() ? " (the watchdog's)" : "",
		  ran ? "ran" : "was given up on with", (unsigned long long)(took / 1000000));
}

static const struct test_case smp_cases[] = {
	TEST_CASE(online_count_matches_the_firmware),
	TEST_CASE(firmware_cpu_count_agrees_with_qemu),
	TEST_CASE(apic_ids_are_distinct_and_match),
	TEST_CASE(per_cpu_data_is_private),
	TEST_CASE(aps_idle_with_interrupts_enabled),
	TEST_CASE(lapic_timer_fires_on_every_cpu),
	TEST_CASE(lapic_timer_rate_agrees_with_the_tsc),
	TEST_CASE(tsc_deadline_timer_fires_where_offered),
	TEST_CASE(tsc_agrees_with_a_second_clock),
	TEST_CASE(delays_last_as_long_as_asked),
	TEST_CASE(tscs_of_all_cpus_agree),
	TEST_CASE(bring_up_was_timed),
	TEST_CASE(bring_up_wait_ended_by_the_last_aps_kick),
	TEST_CASE(warp_test_start_ended_by_the_last_arrivals_kick),
	TEST_CASE(apic_mode_selection_follows_cpuid_and_firmware),
	TEST_CASE(work_not_begun_by_its_time_out_is_withdrawn),
	TEST_CASE(a_cpu_late_with_its_work_takes_work_again),
	TEST_CASE(begun_work_given_up_on_runs_past_its_case),
	TEST_CASE(work_the_case_before_gave_up_on_has_ended),
	TEST_CASE(a_lost_work_wake_is_judged_lost_and_the_work_runs),
};
TEST_SUITE(smp, smp_cases, NULL, NULL);
