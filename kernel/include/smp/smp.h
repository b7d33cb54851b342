/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_SMP_H
#define TRIGOS_SMP_H
/*
 * CPU discovery and bring-up.  Logical CPU numbers are dense (0 is the
 * boot CPU, then the firmware's enabled CPUs in table order); APIC IDs are
 * whatever the hardware uses (QEMU -smp 6,sockets=2,cores=3 gives
 * 0,1,2,4,5,6), with maps both ways.
 */

#include <stdbool.h>
#include <stdint.h>
#include <cpu/cpu.h>
#include <cpu/cpumask.h>

enum cpu_discovery {
	CPU_DISCOVERY_NONE,		/* nothing found: the BSP alone */
	CPU_DISCOVERY_ACPI_MADT,
	CPU_DISCOVERY_MP_TABLE,
};

struct smp_summary {
	enum cpu_discovery discovered_by;
	unsigned int listed;		/* CPU entries in the firmware table */
	unsigned int enabled;		/* of those, enabled (BSP included) */
	unsigned int disabled;		/* present but not enabled: never started */
	unsigned int beyond_capacity;	/* enabled ones past MAX_CPUS, not used */
	unsigned int unreachable;	/* enabled, but an APIC ID the APIC mode cannot address */
	unsigned int platform_cpus;	/* vCPUs QEMU started (fw_cfg); 0: not known */
	unsigned int hidden;		/* of those, how many the table does not list as enabled */
	bool lists_platform_vcpus;	/* the table is QEMU's own (its CPUs are QEMU's vCPUs) */
	char madt_oem_id[7];		/* the MADT's OEM ID, "" without one */
	unsigned int present;		/* logical CPUs we tried to run: cpus[0..present) */
	unsigned int online;		/* of those, running */
	uint64_t kernel_entry_cycles;	/* TSC at kmain */
	uint64_t first_init_cycles;	/* TSC as the first INIT went out */
	uint64_t all_online_cycles;	/* TSC when the last AP came online */
};

extern struct smp_summary smp_summary;

/** smp_discover - fill cpus[] from the MADT (or the MP table); BSP is cpu 0 */
void smp_discover(void);

/**
 * smp_start_aps_early - where the arch allows it (QEMU), send every AP its
 * start-up IPIs now, before the clocks are calibrated, so that the APs come
 * up while the BSP calibrates; elsewhere nothing happens until smp_boot_aps()
 */
void smp_start_aps_early(void);

/** smp_boot_aps - start every present AP in parallel (unless started early) and wait, bounded */
void smp_boot_aps(void);

/** smp_bringup_wait_begun - whether the BSP has begun its bounded wait for the APs */
bool smp_bringup_wait_begun(void);

static inline unsigned int cpus_present(void)
{
	return smp_summary.present;
}

static inline unsigned int cpus_online(void)
{
	return __atomic_load_n(&smp_summary.online, __ATOMIC_ACQUIRE);
}

/** cpu_is_online - whether logical CPU @cpu is up (a present CPU may have failed to start) */
static inline bool cpu_is_online(unsigned int cpu)
{
	return cpu < MAX_CPUS && __atomic_load_n(&cpus[cpu].online, __ATOMIC_ACQUIRE);
}

/** cpu_from_apic_id - the logical number of @apic_id, or -1 */
int cpu_from_apic_id(uint32_t apic_id);

/**
 * smp_run_on_async - ask online CPU @cpu to run @function(@argument) from
 * its idle loop; returns false if it is not online or busy with a request
 */
bool smp_run_on_async(unsigned int cpu, void (*function)(void *), void *argument);

/**
 * smp_wait_for - wait until @cpu finished the request the caller posted;
 * false after @timeout_ns.  The slot is then given up, not kept: a CPU that
 * was only late (a vCPU the host stopped) takes requests again once it has
 * finished that one (work it had not begun is withdrawn and never runs);
 * a stuck one never does.  After false the request is no longer the
 * caller's to wait for.
 */
bool smp_wait_for(unsigned int cpu, uint64_t timeout_ns);

/**
 * smp_work_abandoned_so_far - the last number smp_wait_for() handed to
 * work its target had already begun when it gave up on it (0: none, this
 * boot): such work runs on, and may still write to what its requester gave
 * it (its stack, say)
 */
unsigned long smp_work_abandoned_so_far(void);

/**
 * smp_await_abandoned_work - wait until no CPU runs begun work given up on
 * after the first @since (a smp_work_abandoned_so_far() value), for
 * @timeout_ns at most; returns how many CPUs still run such work
 */
unsigned int smp_await_abandoned_work(unsigned long since, uint64_t timeout_ns);

/**
 * smp_set_work_runner - have @runner(function, argument) call each piece of
 * work a CPU is given (smp_run_on_async()) instead of calling it directly;
 * NULL: directly.  The test harness runs helpers' parts of a case under a
 * recovery context this way, so an ASSERT there ends only that part.
 */
void smp_set_work_runner(void (*runner)(void (*function)(void *), void *argument));

/**
 * smp_run_on - run and wait; @cpu may be the caller itself.  A slot still
 * taken by a request an earlier caller gave up on is waited for, within
 * the same @timeout_ns.
 */
bool smp_run_on(unsigned int cpu, void (*function)(void *), void *argument, uint64_t timeout_ns);

/**
 * cpu_sleep_at_most_ns - halt until an interrupt or for @nanoseconds at most
 * (with this CPU's timer); gives the host CPU back under emulation
 */
void cpu_sleep_at_most_ns(uint64_t nanoseconds);

/** cpu_idle_loop - what an AP does once online: sleep until given work */
void cpu_idle_loop(void) __attribute__((noreturn));

/** ap_online - called by the arch AP entry once the CPU is set up */
void ap_online(struct cpu *cpu) __attribute__((noreturn));

/* Arch hooks. */
void smp_arch_init(void);			/* vectors bring-up and the idle loop use */
void arch_smp_prepare_cpu(struct cpu *cpu);	/* stacks, IST stacks */
bool arch_smp_prepare_start(void);		/* the trampoline; false: none (said why) */
bool arch_smp_can_start_early(void);		/* before calibration, safely (QEMU) */
bool arch_smp_start_aps_early(void);		/* then INIT+SIPI now; false: no trampoline */
bool arch_smp_start_aps(void);			/* INIT/SIPI/SIPI, or what an early start left */
const char *arch_smp_start_path(void);		/* which sequence ran, for the log */
void arch_wake_cpu(struct cpu *cpu);		/* a wake IPI */
bool arch_mp_table_discover(uint32_t bsp_apic_id);	/* calls smp_add_cpu() */
bool arch_apic_id_reachable(uint32_t apic_id);	/* xAPIC: 8-bit IDs only */
const char *arch_apic_mode_name(void);

#include <asm/apic.h>

/** this_cpu_apic_id - the calling CPU's APIC ID, as the firmware's tables list it */
static inline uint32_t this_cpu_apic_id(void)
{
	return lapic_id();
}

/**
 * io_apic_read_version - the IOAPICVER register of the I/O APIC at MMIO
 * @base (from the MADT), read only; 0 or 0xffffffff where none answers
 */
static inline uint32_t io_apic_read_version(uint64_t base)
{
	return io_apic_version(base);
}

/** smp_add_cpu - add an enabled CPU by APIC ID (for the MP table path) */
bool smp_add_cpu(uint32_t apic_id);

/** cpumask_set_online - @mask = every CPU that is online now */
static inline void cpumask_set_online(struct cpumask *mask)
{
	cpumask_clear(mask);
	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++) {
		if (__atomic_load_n(&cpus[cpu].online, __ATOMIC_ACQUIRE))
			cpumask_set_cpu(mask, cpu);
	}
}

#endif
