// SPDX-License-Identifier: MIT
/*
 * CPU discovery, the AP side of bring-up, the idle loop and the minimal
 * cross-CPU work slot.
 */
#include <boot/acpi.h>
#include <arch/hypervisor.h>
#include <arch/ipi_evidence.h>
#include <sync/irq.h>
#include <log/log.h>
#include <boot/options.h>
#include <log/panic.h>
#include <smp/smp.h>
#include <smp/smp_test_seams.h>
#include <time/time.h>
#include <time/timer.h>
#include <sync/trigger.h>
#include <sync/trigger_backend.h>
#include <sync/poll_wait.h>
#include <lib/format.h>
#include <lib/string.h>

struct smp_summary smp_summary;

static struct acpi_madt madt;	/* 8 KiB: not on the stack */

int cpu_from_apic_id(uint32_t apic_id)
{
	for (unsigned int i = 0; i < smp_summary.present; i++) {
		if (cpus[i].apic_id == apic_id)
			return (int)i;
	}
	return -1;
}

static void report_madt_problem(void *context, const char *message)
{
	ktap_note("smp: %s", message);	/* the message names the MADT */
}

/* xAPIC 0xff and x2APIC 0xffffffff are broadcast IDs, never a CPU's. */
static bool broadcast_apic_id(uint32_t apic_id, bool x2apic_entry)
{
	return apic_id == 0xffffffffu || (!x2apic_entry && apic_id == 0xff);
}

static void add_cpus_from_madt(uint32_t bsp_apic_id)
{
	for (size_t i = 0; i < madt.cpu_count; i++) {
		const struct acpi_madt_cpu *entry = &madt.cpus[i];
		struct cpu *cpu;

		smp_summary.listed++;
		if (!entry->enabled) {
			/* Online-capable or not, it is present but not started. */
			smp_summary.disabled++;
			continue;
		}
		if (broadcast_apic_id(entry->apic_id, entry->from_x2apic_entry)) {
			ktap_note("smp: MADT lists a CPU with the broadcast APIC ID 0x%x; ignored",
				  entry->apic_id);
			continue;
		}
		smp_summary.enabled++;
		if (entry->apic_id == bsp_apic_id || cpu_from_apic_id(entry->apic_id) >= 0)
			continue;	/* the BSP is cpu 0 already; duplicates were reported */
		if (!arch_apic_id_reachable(entry->apic_id)) {
			ktap_note("smp: CPU with APIC ID 0x%x cannot be addressed in %s mode; not "
				  "started", entry->apic_id, arch_apic_mode_name());
			smp_summary.unreachable++;
			continue;
		}
		if (smp_summary.present == MAX_CPUS) {
			smp_summary.beyond_capacity++;
			continue;
		}
		cpu = &cpus[smp_summary.present];
		cpu->id = smp_summary.present++;
		cpu->apic_id = entry->apic_id;
		cpu->present = true;
	}
	/* Disabled entries past the table's capacity were never to be started. */
	smp_summary.beyond_capacity += madt.enabled_beyond_capacity;
}

/*
 * I/O APICs are never programmed, but one listed that does not answer
 * (another machine's MADT in QEMU) is worth knowing: one line for all.
 */
static void report_io_apics(void)
{
	char absent[96] = "";
	size_t used = 0, answering = 0;

	for (size_t i = 0; i < madt.io_apic_count; i++) {
		uint32_t version = io_apic_read_version(madt.io_apics[i].address);

		if (version != 0 && version != 0xffffffffu)
			answering++;
		else
			used += scnprintf(absent + used, sizeof(absent) - used, " %u@0x%x",
					  madt.io_apics[i].id, madt.io_apics[i].address);
	}
	if (answering == madt.io_apic_count)
		return;
	ktap_note("smp: the MADT lists %zu I/O APICs, %zu answer%s; the rest read 0 or all ones, "
		  "not there (never programmed):%s", madt.io_apic_count, answering,
		  answering == 1 ? "s" : "", absent);
}

static const char *discovery_name(void)
{
	switch (smp_summary.discovered_by) {
	case CPU_DISCOVERY_ACPI_MADT:
		return "the MADT";
	case CPU_DISCOVERY_MP_TABLE:
		return "the MP table";
	default:
		return "no firmware table";
	}
}

/*
 * The firmware's table against a second count of the CPUs, where there is
 * one: QEMU's fw_cfg under QEMU, else the cpus=N the user gave.  CPUs the
 * table does not list are never started.  Their APIC IDs are known only
 * from the table (QEMU numbers them by topology: -smp 6,sockets=2,cores=3
 * gives 0,1,2,4,5,6), so guessing IDs could send INIT to nothing or to the
 * wrong CPU, and a broadcast INIT-SIPI would also start CPUs the firmware
 * left out on purpose (disabled in its setup, or reserved).  What the table
 * hides is said plainly instead, and cpus=N then fails the run's CPU count.
 */
static void compare_with_a_second_count(void)
{
	unsigned int listed = smp_summary.enabled;

	if (running_under_qemu())
		smp_summary.platform_cpus = fw_cfg_cpu_count();
	/*
	 * QEMU's firmware builds its tables from QEMU's vCPUs: SeaBIOS's MP
	 * table and the MADT with OEM ID "BOCHS " that SeaBIOS and OVMF get
	 * from QEMU.  Another machine's MADT (GRUB's acpi command, tools/run
	 * --acpi-tables) lists CPUs QEMU may not have.
	 */
	smp_summary.lists_platform_vcpus =
		smp_summary.platform_cpus &&
		(smp_summary.discovered_by == CPU_DISCOVERY_MP_TABLE ||
		 (smp_summary.discovered_by == CPU_DISCOVERY_ACPI_MADT &&
		  strcmp(smp_summary.madt_oem_id, "BOCHS ") == 0));
	if (smp_summary.platform_cpus > listed) {
		smp_summary.hidden = smp_summary.platform_cpus - listed;
		ktap_note("smp: QEMU started %u vCPUs (fw_cfg), %s lists %u: the firmware hid %u; "
			  "only CPUs the firmware lists are started (their APIC IDs come from it)",
			  smp_summary.platform_cpus, discovery_name(), listed, smp_summary.hidden);
	} else if (smp_summary.platform_cpus && smp_summary.platform_cpus < listed) {
		ktap_note("smp: %s lists %u enabled CPUs, but QEMU started only %u vCPUs (fw_cfg)",
			  discovery_name(), listed, smp_summary.platform_cpus);
	} else if (!smp_summary.platform_cpus && kernel_options.expected_cpus > listed) {
		ktap_note("smp: cpus=%u, but %s lists %u enabled CPUs: the firmware hides %u (or "
			  "cpus= is wrong); only CPUs the firmware lists are started",
			  kernel_options.expected_cpus, discovery_name(), listed,
			  kernel_options.expected_cpus - listed);
	}
}

void smp_discover(void)
{
	const struct acpi_tables *tables = acpi_tables_get();
	const struct acpi_reporter reporter = { .report = report_madt_problem };
	uint32_t bsp_apic_id = this_cpu_apic_id();
	const void *table = NULL;
	uint32_t length = 0;

	cpus[0].apic_id = bsp_apic_id;
	cpus[0].present = true;
	smp_summary.present = 1;
	smp_summary.online = 1;

	if (tables)
		table = acpi_tables_find(tables, "APIC", 0, &length);
	if (table && acpi_madt_parse(table, length, &reporter, &madt) == ACPI_OK) {
		struct acpi_table_header header;

		smp_summary.discovered_by = CPU_DISCOVERY_ACPI_MADT;
		if (acpi_table_check(table, length, "APIC", &header) == ACPI_OK)
			memcpy(smp_summary.madt_oem_id, header.oem_id, sizeof(header.oem_id));
		add_cpus_from_madt(bsp_apic_id);
		report_io_apics();
	} else if (arch_mp_table_discover(bsp_apic_id)) {
		smp_summary.discovered_by = CPU_DISCOVERY_MP_TABLE;
	} else {
		ktap_note("smp: no MADT and no MP table: running on the boot CPU alone");
	}
	if (smp_summary.discovered_by != CPU_DISCOVERY_NONE && cpu_from_apic_id(bsp_apic_id) != 0)
		ktap_note("smp: the boot CPU (APIC ID %u) is not in the firmware's table",
			  bsp_apic_id);
	if (smp_summary.beyond_capacity)
		ktap_note("smp: found %u more enabled CPUs than the %u trigos supports; they are not "
			  "started", smp_summary.beyond_capacity, MAX_CPUS);
	ktap_note("smp: %s lists %u CPUs: %u enabled, %u disabled (counted present, never started)",
		  smp_summary.discovered_by == CPU_DISCOVERY_NONE ? "nothing" : discovery_name(),
		  smp_summary.listed, smp_summary.enabled, smp_summary.disabled);
	compare_with_a_second_count();
}

/* Register a CPU found by the MP table (arch code calls this). */
bool smp_add_cpu(uint32_t apic_id)
{
	struct cpu *cpu;

	if (cpu_from_apic_id(apic_id) >= 0)
		return true;
	if (smp_summary.present == MAX_CPUS) {
		smp_summary.beyond_capacity++;
		return false;
	}
	cpu = &cpus[smp_summary.present];
	cpu->id = smp_summary.present++;
	cpu->apic_id = apic_id;
	cpu->present = true;
	return true;
}

#define AP_BOOT_DEADLINE_NS	(1000ull * 1000 * 1000)	/* 1 s for all of them */
/*
 * How long in all the BSP waits for APs that are QEMU's vCPUs but not yet
 * online at the deadline: as long as the tests wait for any vCPU's answer,
 * past what a loaded host keeps a vCPU thread from running (the host-stall
 * sections stop one for up to 3 s).
 */
#define AP_LATE_VCPU_PATIENCE_NS	(10ull * 1000 * 1000 * 1000)

static bool boot_window_closed;
static bool bringup_waiting;	/* the BSP has begun its wait for the APs */

bool smp_bringup_wait_begun(void)
{
	return __atomic_load_n(&bringup_waiting, __ATOMIC_ACQUIRE);
}

DEFINE_TRIGGER_USER(trigger_user_ap_bringup, "ap_bringup");
static DEFINE_TRIGGER_FOR(aps_online_trigger, &trigger_user_ap_bringup);

static bool prepared, started_early;
static uint64_t ipis_sent;

static void prepare_aps(void)
{
	if (prepared)
		return;
	prepared = true;
	for (unsigned int i = 1; i < smp_summary.present; i++)
		arch_smp_prepare_cpu(&cpus[i]);
	/* The trampoline too, so that the span timed below begins at the first INIT. */
	arch_smp_prepare_start();
	/* Before any AP can kick aps_online_trigger (see the wait below). */
	trigger_backend_set(TRIGGER_BACKEND_HLT);
	/*
	 * This line and the last AP's (ap_online()) are printed at once, the
	 * other notes being held: the host stamps their arrival, so that
	 * tools/bench can time bring-up as it times kvm-unit-tests' (from its
	 * BSP's last line before INIT to its last AP's "online"), on one clock.
	 */
	ktap_note_now("smp: sending INIT and STARTUP to %u APs", smp_summary.present - 1);
	smp_summary.first_init_cycles = cycles();
}

void smp_start_aps_early(void)
{
	if (smp_summary.present < 2 || !arch_smp_can_start_early())
		return;
	prepare_aps();
	started_early = arch_smp_start_aps_early();
	ipis_sent = cycles();
}
/*
 * CPUs the MADT lists that never answered: tables describing other
 * hardware (a real machine's in QEMU, tools/run --acpi-tables) list dozens.
 * One line names them all, the first few by CPU and APIC ID.
 */
#define NOT_STARTED_SHOWN	6

struct not_started {
	unsigned int count;
	char shown[NOT_STARTED_SHOWN * 24];
	size_t used;
};

static void note_not_started(struct not_started *list, unsigned int cpu)
{
	if (list->count++ < NOT_STARTED_SHOWN)
		list->used += scnprintf(list->shown + list->used, sizeof(list->shown) - list->used,
					" %u (apic 0x%x)", cpu, cpus[cpu].apic_id);
}

static void report_not_started(const struct not_started *list)
{
	if (list->count)
		ktap_note("smp: %u CPU%s did not start: cpu%s%s", list->count,
			  list->count == 1 ? "" : "s", list->shown,
			  list->count > NOT_STARTED_SHOWN ? " ..." : "");
}


/*
 * How many CPUs must come online where the table lists QEMU's own vCPUs:
 * every one listed, but the one smp_withhold= keeps back, and no more than
 * QEMU started.  0 where that is not known (hardware, Bochs, another
 * machine's tables): there an AP not online at the deadline did not start.
 */
static unsigned int vcpus_coming(void)
{
	unsigned int coming = smp_summary.present;

	if (!smp_summary.lists_platform_vcpus)
		return 0;
	if (kernel_options.smp_withhold_cpu && kernel_options.smp_withhold_cpu < coming)
		coming--;
	return coming < smp_summary.platform_cpus ? coming : smp_summary.platform_cpus;
}

void smp_boot_aps(void)
{
	uint64_t wait_begun, deadline, first_online = UINT64_MAX;
	struct not_started not_started = { .count = 0 };
	bool in_time = true, waited_for_late_vcpus = false;
	unsigned int waiting = smp_summary.present - 1;

	if (waiting == 0) {
		ktap_note("smp: 1 CPU online; no APs to start");
		return;
	}
	prepare_aps();		/* done already if they were started early */
	arch_smp_start_aps();
	if (!started_early)
		ipis_sent = cycles();

	/*
	 * No AP prints while starting: printing would serialise them.  The
	 * BSP waits on a trigger that every AP kicks as it comes online, with
	 * the hlt backend (the trigger backends are measured and chosen only
	 * once the APs are up): under emulation a spinning BSP would take a
	 * host CPU away from the very APs it is waiting for.  It sleeps until
	 * the kicks, with one bound, the AP deadline, stretched once for
	 * vCPUs the host is late to run (below): reaching it is reported here
	 * and is a deadline return of the ap_bringup user, which the smp
	 * suite checks (bring_up_wait_ended_by_the_last_aps_kick).
	 */
	wait_begun = now_ns();
	deadline = wait_begun + AP_BOOT_DEADLINE_NS;
	trigger_reset(&aps_online_trigger);
	__atomic_store_n(&bringup_waiting, true, __ATOMIC_RELEASE);
	while (cpus_online() != smp_summary.present) {
		if (trigger_wait_timeout(&aps_online_trigger, deadline))
			continue;
		/*
		 * Late or lost?  Under QEMU, with its own table, an AP that is
		 * one of its vCPUs and not online yet has not been run by the
		 * host: late.  The deadline is then a late kicker's, and the
		 * wait goes on for it, once, to the vCPU patience.
		 */
		if (!waited_for_late_vcpus && cpus_online() < vcpus_coming()) {
			waited_for_late_vcpus = true;
			trigger_note_late_kicker(&aps_online_trigger);
			ktap_note("smp: %u of %u CPUs online at the %llu ms deadline, but QEMU runs %u "
				  "vCPUs: the host has not run the others yet; waiting up to %llu s in "
				  "all", cpus_online(), smp_summary.present, AP_BOOT_DEADLINE_NS / 1000000,
				  smp_summary.platform_cpus, AP_LATE_VCPU_PATIENCE_NS / 1000000000);
			deadline = wait_begun + AP_LATE_VCPU_PATIENCE_NS;
			continue;
		}
		in_time = false;
		break;
	}
	trigger_finish(&aps_online_trigger);
	__atomic_store_n(&boot_window_closed, true, __ATOMIC_SEQ_CST);
	if (!in_time)
		ktap_note("smp: the bring-up wait reached its %llu ms deadline with %u of %u CPUs "
			  "online", (waited_for_late_vcpus ? AP_LATE_VCPU_PATIENCE_NS :
				     AP_BOOT_DEADLINE_NS) / 1000000, cpus_online(), smp_summary.present);
	else if (waited_for_late_vcpus)
		ktap_note("smp: the late vCPUs came %llu ms after the bring-up wait began",
			  (unsigned long long)((now_ns() - wait_begun) / 1000000));

	for (unsigned int i = 1; i < smp_summary.present; i++) {
		if (!__atomic_load_n(&cpus[i].online, __ATOMIC_ACQUIRE)) {
			cpus[i].boot_failed = true;
			note_not_started(&not_started, i);
		} else {
			if (cpus[i].online_cycles > smp_summary.all_online_cycles)
				smp_summary.all_online_cycles = cpus[i].online_cycles;
			if (cpus[i].online_cycles < first_online)
				first_online = cpus[i].online_cycles;
		}
	}
	report_not_started(&not_started);
	ktap_note("smp: %u of %u CPUs online; first INIT to all online: %llu us",
		  cpus_online(), smp_summary.present,
		  (unsigned long long)(smp_summary.all_online_cycles > smp_summary.first_init_cycles ?
				       cycles_to_ns(smp_summary.all_online_cycles -
						    smp_summary.first_init_cycles) / 1000 : 0));
	ktap_note("smp: started by %s", arch_smp_start_path());
	if (first_online > smp_summary.first_init_cycles && first_online != UINT64_MAX)
		ktap_note("smp: INIT and STARTUP IPIs sent in %llu us; the first AP was online "
			  "after %llu us", (unsigned long long)(cycles_to_ns(ipis_sent -
						smp_summary.first_init_cycles) / 1000),
			  (unsigned long long)(cycles_to_ns(first_online -
						smp_summary.first_init_cycles) / 1000));
}

void ap_online(struct cpu *cpu)
{
	bool kick;

	/*
	 * An AP that arrives after the BSP stopped waiting has been reported
	 * as failed: it stays out rather than join a run that has moved on.
	 */
	if (__atomic_load_n(&boot_window_closed, __ATOMIC_ACQUIRE)) {
		local_irq_disable();
		for (;;)
			wait_for_interrupt();
	}
	kick = smp_bringup_test_seam();		/* the one test seam: may wait, may drop the kick */
	cpu->online_cycles = cycles();
	__atomic_store_n(&cpu->online, true, __ATOMIC_RELEASE);
	if (__atomic_add_fetch(&smp_summary.online, 1, __ATOMIC_ACQ_REL) == smp_summary.present)
		ktap_note_now("smp: all %u CPUs online, cpu %u the last", smp_summary.present,
			      cpu->id);	/* timed by the host, with prepare_aps()'s line */
	if (kick)
		trigger_kick(&aps_online_trigger);	/* the BSP may be asleep waiting for us */
	cpu_idle_loop();
}

void cpu_sleep_at_most_ns(uint64_t nanoseconds)
{
	bool enabled = local_irq_save();
	/*
	 * The watchdog CPU's tick is put back after the one-shot: stopped, it
	 * would end the watchdog and the IPI evidence's sweep for the rest of
	 * the run, after any work that slept there (a 2-CPU run's only helper
	 * is the watchdog's CPU).
	 */
	uint64_t period = timer_period_ns();

	/*
	 * Armed with interrupts off: if the timer fires before the halt, the
	 * interrupt waits for the enable, which ends the halt (irq.h).
	 */
	timer_oneshot(nanoseconds);
	enable_interrupts_and_wait();
	local_irq_disable();
	if (period)
		timer_periodic(period);
	else
		timer_stop();
	local_irq_restore(enabled);
}

/* smp_set_work_runner(): what calls each piece of work (NULL: the idle loop, directly). */
static void (*work_runner)(void (*function)(void *), void *argument);

void smp_set_work_runner(void (*runner)(void (*function)(void *), void *argument))
{
	__atomic_store_n(&work_runner, runner, __ATOMIC_RELEASE);
}

void cpu_idle_loop(void)
{
	struct cpu *cpu = this_cpu();

	for (;;) {
		uint32_t posted = WORK_SLOT_POSTED, running = WORK_SLOT_RUNNING;
		unsigned long requested;

		/*
		 * Check for work with interrupts off, then enable them and halt
		 * in one step: a wake IPI that arrives after the check is
		 * taken right after the enable and ends the halt (asm: sti_hlt),
		 * so no request is slept through.
		 */
		local_irq_disable();
		/*
		 * Back from a halt with interrupts off, outside any handler:
		 * where a trigger wait's return judges, so that a work wake
		 * lost while a tick (the watchdog CPU's) woke the halt anyway
		 * is named, not only run late (arch/ipi_evidence.h).
		 */
		ipi_evidence_judge();
		requested = __atomic_load_n(&cpu->work.requested, __ATOMIC_ACQUIRE);
		if (requested == cpu->work.completed) {
			enable_interrupts_and_wait();
			continue;
		}
		/*
		 * A request is POSTED or, if its requester timed out before we
		 * got here, WITHDRAWN: then it is not run, only completed, and
		 * the slot freed.  Neither the request nor the state moves
		 * until we do.
		 */
		if (!__atomic_compare_exchange_n(&cpu->work.state, &posted, WORK_SLOT_RUNNING, false,
						 __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)) {
			__atomic_store_n(&cpu->work.completed, requested, __ATOMIC_RELEASE);
			__atomic_store_n(&cpu->work.state, WORK_SLOT_FREE, __ATOMIC_RELEASE);
			continue;
		}
		void (*runner)(void (*)(void *), void *) =
			__atomic_load_n(&work_runner, __ATOMIC_ACQUIRE);

		local_irq_enable();
		if (runner)
			runner(cpu->work.function, cpu->work.argument);
		else
			cpu->work.function(cpu->work.argument);
		/* Completed however the work ended, so smp_wait_for() returns. */
		__atomic_store_n(&cpu->work.completed, requested, __ATOMIC_RELEASE);
		if (!__atomic_compare_exchange_n(&cpu->work.state, &running, WORK_SLOT_DONE, false,
						 __ATOMIC_RELEASE, __ATOMIC_RELAXED))
			__atomic_store_n(&cpu->work.state, WORK_SLOT_FREE, __ATOMIC_RELEASE);
	}
}

/*
 * The work wake is a wake IPI like a trigger's (one vector, VECTOR_WAKE on
 * x86), and counted as one by the IPI evidence: an idle CPU halts with
 * interrupts on until it comes, so one that vanished would leave the work
 * unrun, its requester's time-out saying only "not begun" - a lost IPI
 * passed off as a host that did not run the CPU.  Counted, it is probed
 * by the watchdog CPU's sweep once 200 ms old: the probe's handler judges
 * it lost if the vector is in neither IRR nor ISR, and its interrupt ends
 * the halt, so the work runs and the case fails naming the loss.
 */
static void smp_wake_for_work(unsigned int target)
{
	ipi_evidence_kick("cpu_work");
	ipi_evidence_send_begin(IPI_EVIDENCE_WAKE, target);
	if (smp_work_wake_test_seam())	/* false: the next wake vanishes after its "send" */
		arch_wake_cpu(&cpus[target]);
	ipi_evidence_sent(IPI_EVIDENCE_WAKE, target);
}

bool smp_run_on_async(unsigned int target, void (*function)(void *), void *argument)
{
	struct cpu *cpu;
	uint32_t free = WORK_SLOT_FREE;

	if (target >= smp_summary.present || !__atomic_load_n(&cpus[target].online, __ATOMIC_ACQUIRE))
		return false;
	cpu = &cpus[target];
	if (!__atomic_compare_exchange_n(&cpu->work.state, &free, WORK_SLOT_POSTED, false,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return false;
	cpu->work.function = function;
	cpu->work.argument = argument;
	/* Release: the target sees function and argument before the request. */
	__atomic_fetch_add(&cpu->work.requested, 1, __ATOMIC_RELEASE);
	smp_wake_for_work(target);
	return true;
}

/* Numbers handed to begun work being given up on, this boot (smp_await_abandoned_work()). */
static unsigned long work_abandoned;

/*
 * smp_wait_for()'s time-out: the host may only have stopped the target, so
 * the slot is not kept taken for good.  Work not yet begun is withdrawn: it
 * never runs, so it cannot write to its requester's stack after the
 * requester has gone on, and the target frees the slot when it next looks.
 * Begun work frees the slot when it ends.  Only a target that never runs
 * again keeps the slot, and no request queues behind its stuck one.
 * Returns whether the work ended after all.
 */
static bool smp_give_up_on(struct cpu_work *work)
{
	uint32_t state = WORK_SLOT_POSTED;

	if (!smp_work_slot_test_seam())
		return false;	/* test_break=abandoned_slot: the slot stays taken */
	if (__atomic_compare_exchange_n(&work->state, &state, WORK_SLOT_WITHDRAWN, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return false;
	if (state == WORK_SLOT_RUNNING) {
		/*
		 * Numbered for smp_await_abandoned_work() while the slot is
		 * still RUNNING, which only its requester (this caller) may
		 * change: numbered after the exchange, a slot already freed,
		 * taken and given up on again could get the older number.
		 * Work that ends first wastes its number.
		 */
		__atomic_store_n(&work->abandoned_serial,
				 __atomic_add_fetch(&work_abandoned, 1, __ATOMIC_ACQ_REL),
				 __ATOMIC_RELAXED);
		if (__atomic_compare_exchange_n(&work->state, &state, WORK_SLOT_ABANDONED, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return false;
	}
	if (state != WORK_SLOT_DONE)
		return false;	/* not ours: smp_wait_for() was called again after giving up */
	/* It ended between the last look and now. */
	__atomic_store_n(&work->state, WORK_SLOT_FREE, __ATOMIC_RELEASE);
	return true;
}

bool smp_wait_for(unsigned int target, uint64_t timeout_ns)
{
	struct cpu *cpu = &cpus[target];
	uint64_t limit = ns_to_cycles(timeout_ns);
	struct poll_pace pace;

	poll_pace_begin(&pace);
	while (__atomic_load_n(&cpu->work.state, __ATOMIC_ACQUIRE) != WORK_SLOT_DONE) {
		if (cycles() - pace.begun > limit)
			return smp_give_up_on(&cpu->work);
		poll_pace_relax(&pace);
	}
	__atomic_store_n(&cpu->work.state, WORK_SLOT_FREE, __ATOMIC_RELEASE);
	return true;
}

unsigned long smp_work_abandoned_so_far(void)
{
	return __atomic_load_n(&work_abandoned, __ATOMIC_ACQUIRE);
}

/* Whether @cpu still runs work given up on after the @since'th such. */
static bool runs_work_abandoned_since(const struct cpu *cpu, unsigned long since)
{
	return __atomic_load_n(&cpu->work.state, __ATOMIC_ACQUIRE) == WORK_SLOT_ABANDONED &&
	       __atomic_load_n(&cpu->work.abandoned_serial, __ATOMIC_ACQUIRE) > since;
}

unsigned int smp_await_abandoned_work(unsigned long since, uint64_t timeout_ns)
{
	uint64_t limit = ns_to_cycles(timeout_ns);
	struct poll_pace pace;

	poll_pace_begin(&pace);
	for (;;) {
		unsigned int running = 0;

		for (unsigned int cpu = 0; cpu < smp_summary.present; cpu++)
			running += runs_work_abandoned_since(&cpus[cpu], since);
		if (!running || cycles() - pace.begun > limit)
			return running;
		poll_pace_relax(&pace);
	}
}

bool smp_run_on(unsigned int target, void (*function)(void *), void *argument, uint64_t timeout_ns)
{
	uint64_t waited_ns;
	struct poll_pace pace;

	if (target == cpu_id()) {
		function(argument);
		return true;
	}
	/*
	 * The slot may still be taken by a request an earlier caller gave up
	 * on: it is freed when that late CPU runs again, which is worth the
	 * wait that this caller would give the work itself.
	 */
	poll_pace_begin(&pace);
	while (!smp_run_on_async(target, function, argument)) {
		if (!cpu_is_online(target) || cycles_to_ns(cycles() - pace.begun) > timeout_ns)
			return false;
		poll_pace_relax(&pace);
	}
	waited_ns = cycles_to_ns(cycles() - pace.begun);
	return smp_wait_for(target, timeout_ns > waited_ns ? timeout_ns - waited_ns : 0);
}

/* --- Options --------------------------------------------------------------- */

static bool parse_cpus(const struct cmdline_word *word, const char **error)
{
	return option_parse_number(word, error, 1, MAX_CPUS, &kernel_options.expected_cpus);
}
KERNEL_OPTION(cpus, "the expected number of CPUs, 1..256", parse_cpus);
