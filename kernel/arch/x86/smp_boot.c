// SPDX-License-Identifier: MIT
/*
 * Starting the APs, in one of two ways (the log says which ran):
 *
 * - On hardware, and under any hypervisor but QEMU, the INIT-SIPI-SIPI
 *   sequence of SDM vol 3, 9.4.4.1 ("typical AP initialization sequence")
 *   with its delays, once the TSC is calibrated: INIT, 10 ms (kept on bare
 *   metal only: hypervisors deliver INIT at once), STARTUP, up to 200 us,
 *   a second STARTUP to the APs that have not arrived.
 *
 * - Under QEMU (identified by fw_cfg), INIT and one STARTUP back to back,
 *   before any clock is calibrated, so that the APs come up while the BSP
 *   calibrates.  QEMU keeps a STARTUP that arrives while its INIT is still
 *   pending and runs it once the INIT is done (do_cpu_init() in
 *   target/i386/helper.c, QEMU 7.2, carries CPU_INTERRUPT_SIPI across the
 *   reset), and KVM does the same (kvm_apic_accept_events() in Linux's
 *   arch/x86/kvm/lapic.c handles a pending INIT before a pending SIPI), so
 *   no delay is needed between them.  The SDM's second STARTUP is still
 *   sent, after calibration, to any AP that has not arrived by then.
 *
 * Either way all APs get each IPI before any wait, so they come up in
 * parallel.
 */
#include <boot/boot.h>
#include <cpu/cpu.h>
#include <arch/hypervisor.h>
#include <arch/ipi_evidence.h>
#include <log/log.h>
#include <mm/memory.h>
#include <boot/options.h>
#include <log/panic.h>
#include <smp/smp.h>
#include <time/time.h>
#include <lib/mptable.h>
#include <lib/format.h>
#include <lib/string.h>
#include <asm/apic.h>
#include <asm/bios.h>
#include <asm/boot.h>
#include <asm/instructions.h>
#include <asm/interrupts.h>
#include <asm/trigger.h>

#define AP_STACK_PAGES		4	/* 16 KiB, above one guard page */
#define INIT_DELAY_US		10000	/* SDM: 10 ms after INIT */
#define STARTUP_DELAY_US	200	/* SDM: 200 us after each STARTUP */

/* Mirrors the parameter block at the end of trampoline.S. */
struct trampoline_parameters {
	uint16_t gdt_limit;
	uint32_t gdt_base;
	uint16_t padding0;
	uint32_t jump32_offset;
	uint16_t jump32_selector;
	uint16_t padding1;
	uint32_t jump64_offset;
	uint16_t jump64_selector;
	uint16_t padding2;
	uint32_t cr3;
	uint32_t arrivals;
	uint32_t cpu_count;
	uint32_t x2apic;
	uint64_t stack_tops;		/* uint64_t[cpu_count], by logical CPU; 0: not started */
	uint64_t apic_ids;		/* uint32_t[cpu_count], by logical CPU */
	uint64_t entry;
	uint32_t initial_cr0;		/* CR0 as INIT/SIPI left it, ORed over the APs */
	uint32_t padding3;
} __attribute__((packed));

_Static_assert(sizeof(struct trampoline_parameters) == 72, "trampoline.S layout");

extern const char trampoline_start[], trampoline_end[], trampoline_parameters[];
extern const uint32_t trampoline_entry32_offset, trampoline_entry64_offset;
extern const uint32_t trampoline_gdt_offset, trampoline_gdt_size;

static uint64_t ap_stack_tops[MAX_CPUS];
static uint32_t ap_apic_ids[MAX_CPUS];

void ap_entry(uint32_t logical_cpu);

void arch_smp_prepare_cpu(struct cpu *cpu)
{
	uint8_t *stack = pages_alloc(AP_STACK_PAGES + 1);
	uint8_t *ist = pages_alloc(IST_STACK_COUNT * IST_STACK_SIZE / PAGE_SIZE);

	if (!stack || !ist)
		panic("out of memory for the stacks of cpu %u", cpu->id);
	/* The lowest page is the guard: an overflow faults, into #DF on IST. */
	unmap_range((uint64_t)stack, PAGE_SIZE);
	ap_stack_tops[cpu->id] = (uint64_t)stack + (AP_STACK_PAGES + 1) * PAGE_SIZE;
	ap_apic_ids[cpu->id] = cpu->apic_id;
	for (int slot = 1; slot <= IST_STACK_COUNT; slot++)
		cpu->arch.ist_stack_top[slot] = (uint64_t)ist + (uint64_t)slot * IST_STACK_SIZE;
}

static volatile struct trampoline_parameters *parameters;

static uint64_t place_trampoline(void)
{
	uint8_t *page = page_alloc_below(0x100000);
	uint64_t base = (uint64_t)page;
	size_t size = (size_t)(trampoline_end - trampoline_start);

	if (!page)
		return 0;
	/* Executable: the AP runs it with paging already on, on our page tables. */
	map_phys(base, PAGE_SIZE, MAP_WRITE | MAP_EXECUTE);
	memcpy(page, trampoline_start, size);
	parameters = (volatile struct trampoline_parameters *)(page + (trampoline_parameters -
								       trampoline_start));
	parameters->gdt_limit = (uint16_t)(trampoline_gdt_size - 1);
	parameters->gdt_base = (uint32_t)(base + trampoline_gdt_offset);
	parameters->jump32_offset = (uint32_t)(base + trampoline_entry32_offset);
	parameters->jump32_selector = 0x08;
	parameters->jump64_offset = (uint32_t)(base + trampoline_entry64_offset);
	parameters->jump64_selector = 0x18;
	parameters->cr3 = (uint32_t)read_cr3();
	parameters->arrivals = 0;
	parameters->cpu_count = cpus_present();
	parameters->x2apic = lapic_mode() == APIC_MODE_X2APIC;
	parameters->stack_tops = (uint64_t)ap_stack_tops;
	parameters->apic_ids = (uint64_t)ap_apic_ids;
	parameters->entry = (uint64_t)ap_entry;
	parameters->initial_cr0 = 0;
	return base;
}

/*
 * The all-excluding-self shorthand reaches every CPU in the machine, listed
 * or not.  It is used only when that is exactly the set being started: the
 * firmware lists no disabled CPU, none is past MAX_CPUS or unaddressable,
 * and none is withheld.  Otherwise each AP gets its own IPIs.  Either way an
 * AP that is not in the table parks in the trampoline.  Under TCG each
 * xAPIC IPI costs tens of microseconds, so with 8 CPUs this halves bring-up.
 */
static bool shorthand_reaches_exactly_our_cpus(void)
{
	return smp_summary.discovered_by != CPU_DISCOVERY_NONE && smp_summary.disabled == 0 &&
	       smp_summary.beyond_capacity == 0 && smp_summary.unreachable == 0 &&
	       smp_summary.enabled == cpus_present() && kernel_options.smp_withhold_cpu == 0;
}

static void send_to_aps(bool shorthand, uint32_t command, bool only_not_arrived)
{
	if (shorthand) {
		lapic_send_ipi_all_but_self(command);
		return;
	}
	for (unsigned int i = 1; i < cpus_present(); i++) {
		if (i == kernel_options.smp_withhold_cpu)
			continue;	/* smp_withhold=: play a CPU that never starts */
		if (only_not_arrived && __atomic_load_n(&cpus[i].online, __ATOMIC_ACQUIRE))
			continue;
		if (!lapic_send_ipi(cpus[i].apic_id, command))
			ktap_note("smp: IPI 0x%x to apic 0x%x was not accepted", command,
				  cpus[i].apic_id);
	}
}

static unsigned int startup_vector, expected_arrivals;
static bool shorthand;
static char start_path[160];

static unsigned int arrivals(void)
{
	return __atomic_load_n(&parameters->arrivals, __ATOMIC_ACQUIRE);
}

/*
 * The trampoline and the set of APs to start, once (an early start and the
 * late one share them); false (said why) if there is no trampoline.
 */
bool arch_smp_prepare_start(void)
{
	static bool prepared, usable;
	uint64_t trampoline;

	if (prepared)
		return usable;
	prepared = true;
	trampoline = place_trampoline();
	if (!trampoline || trampoline >= 0x100000 || read_cr3() >= 0x100000000ull) {
		ktap_note("smp: no page below 1 MiB (or page tables above 4 GiB) for the trampoline");
		return false;
	}
	startup_vector = (unsigned int)(trampoline >> 12);
	shorthand = shorthand_reaches_exactly_our_cpus();
	expected_arrivals = cpus_present() - 1;
	if (kernel_options.smp_withhold_cpu && kernel_options.smp_withhold_cpu < cpus_present()) {
		expected_arrivals--;
		ap_stack_tops[kernel_options.smp_withhold_cpu] = 0;
		ktap_note("smp: smp_withhold=%u: cpu %u is deliberately not started",
			  kernel_options.smp_withhold_cpu, kernel_options.smp_withhold_cpu);
	}
	usable = true;
	return true;
}

static bool started_early;

/*
 * smp_start=sdm: the SDM's timed INIT-SIPI-SIPI even under QEMU (auto:
 * INIT+SIPI before calibration there).
 */
static bool start_sdm;

static bool parse_smp_start(const struct cmdline_word *word, const char **error)
{
	static const char *const ways[] = { "auto", "sdm" };
	int way = cmdline_value_index(word, ways, 2);

	if (way < 0)
		return false;
	start_sdm = way == 1;
	return true;
}
KERNEL_OPTION(smp_start, "auto or sdm", parse_smp_start);

bool arch_smp_can_start_early(void)
{
	return running_under_qemu() && !start_sdm;
}

bool arch_smp_start_aps_early(void)
{
	if (!arch_smp_prepare_start())
		return false;
	send_to_aps(shorthand, APIC_DELIVERY_INIT, false);
	send_to_aps(shorthand, APIC_DELIVERY_STARTUP | startup_vector, false);
	started_early = true;
	return true;
}

/* The rest of the early start, once the clocks are calibrated. */
static bool finish_early_start(void)
{
	unsigned int arrived = arrivals();
	unsigned int missing = arrived < expected_arrivals ? expected_arrivals - arrived : 0;

	if (missing)
		send_to_aps(false, APIC_DELIVERY_STARTUP | startup_vector, true);
	scnprintf(start_path, sizeof(start_path), "QEMU: INIT and STARTUP%s at once, before "
		  "calibration; %u AP%s had not arrived by its end%s", shorthand ? " shorthands" : "s",
		  missing, missing == 1 ? "" : "s", missing ? " and got a second STARTUP" : "");
	return true;
}

bool arch_smp_start_aps(void)
{
	/*
	 * The 10 ms after INIT is for old hardware; hypervisors deliver INIT
	 * at once, so it is kept on bare metal only, where it costs 10 ms once.
	 */
	bool delay = !hypervisor_info()->cpuid_hypervisor_bit;
	bool old_cpu = ((cpuid(1).eax >> 8) & 0xf) < 6;
	int rounds = 0;

	if (started_early)
		return finish_early_start();
	if (!arch_smp_prepare_start())
		return false;
	send_to_aps(shorthand, APIC_DELIVERY_INIT, false);
	if (old_cpu && !shorthand) {
		for (unsigned int i = 1; i < cpus_present(); i++)
			lapic_send_init_deassert(cpus[i].apic_id);
	}
	if (delay)
		udelay(INIT_DELAY_US);
	/*
	 * Two STARTUPs, 200 us apart (SDM 9.4.4.1); the second goes only to
	 * APs that have not arrived yet, each by its own APIC ID (a running AP
	 * ignores a STARTUP, but under emulation it still costs it an exit),
	 * and neither wait lasts longer than it takes every AP to arrive.
	 */
	while (rounds < 2 && arrivals() < expected_arrivals) {
		uint64_t start = cycles();

		send_to_aps(shorthand && rounds == 0, APIC_DELIVERY_STARTUP | startup_vector,
			    rounds > 0);
		rounds++;
		while (cycles_to_ns(cycles() - start) < STARTUP_DELAY_US * 1000ull &&
		       arrivals() < expected_arrivals)
			cpu_sleep_at_most_ns(STARTUP_DELAY_US * 1000ull / 4);
	}
	scnprintf(start_path, sizeof(start_path), "SDM 9.4.4.1: INIT%s, %s, %d STARTUP%s (%s)",
		  shorthand ? " shorthand" : "s", delay ? "10 ms" : "no delay (a hypervisor)",
		  rounds, rounds == 1 ? "" : "s", running_under_qemu() ? "QEMU, smp_start=sdm" :
		  "not QEMU: after calibration");
	return true;
}

uint32_t arch_smp_ap_initial_cr0(void)
{
	return parameters ? __atomic_load_n(&parameters->initial_cr0, __ATOMIC_ACQUIRE) : 0;
}

const char *arch_smp_start_path(void)
{
	return start_path;
}

void ap_entry(uint32_t logical_cpu)
{
	struct cpu *cpu = &cpus[logical_cpu];

	/* The APIC in the BSP's mode first: in x2APIC mode the ID is an MSR. */
	lapic_init_ap();
	if (lapic_id() != cpu->apic_id) {
		/* CPUID's initial APIC ID was changed by firmware: not safe to run. */
		for (;;) {
			cli();
			hlt();
		}
	}
	cpu->stack_top = ap_stack_tops[logical_cpu];
	arch_cpu_init(cpu);
	arch_trigger_cpu_online();	/* its own IA32_UMWAIT_CONTROL limit */
	ap_online(cpu);
}

static void wake_interrupt(struct interrupt_frame *frame)
{
	struct cpu *cpu = this_cpu();

	cpu->wake_interrupted_rflags = frame->rflags;
	cpu->wake_interrupted_rip = frame->rip;
	cpu->wake_interrupts++;
	ipi_evidence_arrived(IPI_EVIDENCE_WAKE);
	lapic_eoi();
}

void arch_wake_cpu(struct cpu *cpu)
{
	lapic_send_ipi(cpu->apic_id, APIC_DELIVERY_FIXED | VECTOR_WAKE);
}

void smp_arch_init(void)
{
	interrupt_register(VECTOR_WAKE, wake_interrupt);
}

/* --- Without ACPI: the MP table (MultiProcessor Specification 1.4) -------- */

static struct mp_configuration mp_configuration;	/* 3 KiB: off the stack */

static void report_mp_problem(void *context, const char *message)
{
	ktap_note("smp: MP table: %s", message);
}

bool arch_mp_table_discover(uint32_t bsp_apic_id)
{
	const struct acpi_reporter reporter = { .report = report_mp_problem };
	struct mp_floating_pointer pointer;
	if (boot_info.efi_boot ||
	    mp_tables_find(&kernel_physical_memory, bios_ebda_address(), bios_base_memory_end(),
			   &reporter, &pointer, &mp_configuration) != ACPI_OK)
		return false;
	ktap_note("smp: MP table 1.%u at 0x%llx, OEM '%s' product '%s', %u entries, %zu CPUs",
		  mp_configuration.spec_revision, (unsigned long long)pointer.config_table_address,
		  mp_configuration.oem_id, mp_configuration.product_id,
		  (unsigned int)mp_configuration.entry_count, mp_configuration.cpu_count);
	for (size_t i = 0; i < mp_configuration.cpu_count; i++) {
		const struct mp_cpu *processor = &mp_configuration.cpus[i];

		smp_summary.listed++;
		if (!processor->enabled) {
			smp_summary.disabled++;
			continue;
		}
		smp_summary.enabled++;
		if (processor->apic_id != bsp_apic_id)
			smp_add_cpu(processor->apic_id);
	}
	smp_summary.beyond_capacity += mp_configuration.cpus_beyond_capacity;
	return true;
}

/* --- Options --------------------------------------------------------------- */

static bool parse_smp_withhold(const struct cmdline_word *word, const char **error)
{
	return option_parse_number(word, error, 1, MAX_CPUS - 1, &kernel_options.smp_withhold_cpu);
}
KERNEL_OPTION(smp_withhold, "a logical CPU number, 1..255", parse_smp_withhold);
