// SPDX-License-Identifier: MIT
/*
 * The memory type of the trigger memory on every CPU (memtype_check.h says
 * why it matters), from the registers of each CPU: CR0.CD (SDM vol 3A,
 * 12.5.1), the MTRRs (12.11: IA32_MTRRCAP, IA32_MTRR_DEF_TYPE, the fixed
 * ranges, IA32_MTRR_PHYSBASEn/PHYSMASKn), the PAT (12.12: IA32_PAT) and the
 * PAT entries the kernel's page tables select for that memory.
 * kernel/lib/memtype.c combines them.
 *
 * Every CPU reads its own registers: firmware is supposed to program the
 * MTRRs alike on all CPUs (12.11.8), and this is where it shows if it did
 * not; CR0 is per CPU too, and INIT leaves its CD as it was (asm/boot.h).
 */
#include <boot/boot.h>
#include <cpu/cpu.h>
#include <sync/irq.h>
#include <log/log.h>
#include <arch/memtype_check.h>
#include <boot/options.h>
#include <smp/smp.h>
#include <lib/format.h>
#include <lib/string.h>
#include <asm/boot.h>
#include <asm/extable.h>
#include <asm/instructions.h>
#include <asm/paging.h>

#define CPUID_MTRR		(1u << 12)	/* CPUID.01H:EDX */
#define CPUID_PAT		(1u << 16)	/* CPUID.01H:EDX */
#define MSR_MTRRCAP		0xfe
#define MSR_MTRR_PHYSBASE0	0x200		/* PHYSMASKn follows PHYSBASEn */
#define MSR_MTRR_FIX64K_00000	0x250
#define MSR_MTRR_FIX16K_80000	0x258
#define MSR_MTRR_FIX16K_A0000	0x259
#define MSR_MTRR_FIX4K_C0000	0x268		/* ... 0x26f: FIX4K_F8000 */
#define MSR_PAT			0x277
#define MSR_MTRR_DEF_TYPE	0x2ff
#define RAM_FLOOR		0x100000ull	/* the page allocator hands out RAM from 1 MiB */
/*
 * Longer than a host keeps a vCPU, or the whole machine, from running (the
 * host-stall matrix sections stop one for up to 3 s): with 1 s, a 2.5 s
 * stall at boot left an AP "not answering" and its work slot taken.
 */
#define SURVEY_TIMEOUT_NS	10000000000ull

extern char __data_start[], __bss_end[];

static struct memtype_survey surveys[MAX_CPUS];
static bool surveyed[MAX_CPUS];
static char problem[160];
static unsigned int data_pat_indices, ram_pat_indices;

/* --- One CPU's registers --------------------------------------------------------- */

/* The fixed-range MTRRs in address order (SDM vol 3A, 12.11.2.2). */
static const uint32_t fixed_msrs[MTRR_FIXED_COUNT] = {
	MSR_MTRR_FIX64K_00000, MSR_MTRR_FIX16K_80000, MSR_MTRR_FIX16K_A0000,
	MSR_MTRR_FIX4K_C0000, MSR_MTRR_FIX4K_C0000 + 1, MSR_MTRR_FIX4K_C0000 + 2,
	MSR_MTRR_FIX4K_C0000 + 3, MSR_MTRR_FIX4K_C0000 + 4, MSR_MTRR_FIX4K_C0000 + 5,
	MSR_MTRR_FIX4K_C0000 + 6, MSR_MTRR_FIX4K_C0000 + 7,
};

/* False if an MSR CPUID promised faulted: then nothing read is trusted. */
static bool read_mtrrs(struct mtrr_settings *mtrr)
{
	bool ok = true;
	unsigned int count;

	memset(mtrr, 0, sizeof(*mtrr));
	mtrr->physical_address_bits = 36;
	if (cpuid(0x80000000).eax >= 0x80000008)
		mtrr->physical_address_bits = cpuid(0x80000008).eax & 0xff;
	mtrr->present = (cpuid(1).edx & CPUID_MTRR) != 0;
	if (!mtrr->present)
		return true;
	ok &= rdmsr_safe(MSR_MTRRCAP, &mtrr->capabilities) == FAULT_NONE;
	ok &= rdmsr_safe(MSR_MTRR_DEF_TYPE, &mtrr->default_type) == FAULT_NONE;
	if (mtrr->capabilities & MTRR_CAP_FIXED) {
		for (unsigned int i = 0; i < MTRR_FIXED_COUNT; i++)
			ok &= rdmsr_safe(fixed_msrs[i], &mtrr->fixed[i]) == FAULT_NONE;
	}
	count = MTRR_CAP_VARIABLE_COUNT(mtrr->capabilities);
	mtrr->variable_truncated = count > MTRR_VARIABLE_MAX;
	if (count > MTRR_VARIABLE_MAX)
		count = MTRR_VARIABLE_MAX;
	for (unsigned int i = 0; i < count; i++) {
		ok &= rdmsr_safe(MSR_MTRR_PHYSBASE0 + 2 * i, &mtrr->variable[i].base) == FAULT_NONE;
		ok &= rdmsr_safe(MSR_MTRR_PHYSBASE0 + 2 * i + 1, &mtrr->variable[i].mask) ==
		      FAULT_NONE;
	}
	mtrr->variable_count = count;
	return ok;
}

static memtype_set pat_types(uint64_t pat, unsigned int indices)
{
	memtype_set types = 0;

	for (unsigned int i = 0; i < 8; i++) {
		if (indices & (1u << i))
			types |= MEMTYPE_BIT(pat_entry_type(pat, i));
	}
	return types;
}

/* The RAM the page allocator hands out: the memory map's available RAM from 1 MiB. */
static memtype_set mtrr_types_of_ram(const struct mtrr_settings *mtrr)
{
	memtype_set types = 0;

	for (size_t i = 0; i < boot_info.memory_count; i++) {
		const struct memory_region *region = &boot_info.memory[i];
		uint64_t start = region->base, end = region->base + region->length;

		if (region->type != MEMORY_AVAILABLE || end <= RAM_FLOOR)
			continue;
		types |= mtrr_types_of_range(mtrr, start < RAM_FLOOR ? RAM_FLOOR : start, end);
	}
	return types;
}

static unsigned int pat_indices_of_ram(void)
{
	unsigned int indices = 0;

	for (size_t i = 0; i < boot_info.memory_count; i++) {
		const struct memory_region *region = &boot_info.memory[i];
		uint64_t start = region->base, end = region->base + region->length;

		if (region->type == MEMORY_AVAILABLE && end > RAM_FLOOR)
			indices |= paging_pat_indices(start < RAM_FLOOR ? RAM_FLOOR : start, end);
	}
	return indices;
}

static void format_indices(unsigned int indices, uint64_t pat, char *buffer, size_t size)
{
	int length = 0;

	buffer[0] = '\0';
	for (unsigned int i = 0; i < 8; i++) {
		if (indices & (1u << i))
			length += scnprintf(buffer + length, size - (size_t)length, "%s%u (%s)",
					    length ? ", " : "", i,
					    memtype_name(pat_entry_type(pat, i)));
	}
}

void memtype_survey_this_cpu(struct memtype_survey *survey)
{
	struct mtrr_settings mtrr;
	bool pat_present = (cpuid(1).edx & CPUID_PAT) != 0, readable;
	uint64_t pat = PAT_POWER_UP_VALUE;
	memtype_set data_mtrr, ram_mtrr, everything;
	char data_text[24], ram_text[24], all_text[24], mtrr_text[72], pat_text[64];
	bool caching_disabled;

	survey->cr0 = read_cr0();
	caching_disabled = (survey->cr0 & CR0_CD) != 0;
	readable = read_mtrrs(&mtrr);
	/* Without a PAT, PCD and PWT select from what are the PAT's power-up entries 0-3. */
	if (pat_present && rdmsr_safe(MSR_PAT, &pat) != FAULT_NONE)
		readable = false;
	data_mtrr = mtrr_types_of_range(&mtrr, (uint64_t)__data_start, (uint64_t)__bss_end);
	ram_mtrr = mtrr_types_of_ram(&mtrr);
	if (!readable)
		data_mtrr = ram_mtrr = MEMTYPE_BIT(MEMTYPE_UNDEFINED);
	survey->data = memtype_effective_set(data_mtrr, pat_types(pat, data_pat_indices),
					     caching_disabled);
	survey->ram = memtype_effective_set(ram_mtrr, pat_types(pat, ram_pat_indices),
					    caching_disabled);
	everything = survey->data | survey->ram;

	memtype_set_format(survey->data, data_text, sizeof(data_text));
	memtype_set_format(survey->ram, ram_text, sizeof(ram_text));
	memtype_set_format(everything, all_text, sizeof(all_text));
	if (!readable) {
		snprintf(mtrr_text, sizeof(mtrr_text), "an MTRR or PAT MSR faulted");
	} else if (!mtrr.present) {
		snprintf(mtrr_text, sizeof(mtrr_text), "no MTRRs (CPUID.01H:EDX[12] clear)");
	} else if (!(mtrr.default_type & MTRR_DEF_ENABLE)) {
		snprintf(mtrr_text, sizeof(mtrr_text), "MTRRs disabled (all UC)");
	} else {
		unsigned int valid = 0;

		for (unsigned int i = 0; i < mtrr.variable_count; i++)
			valid += (mtrr.variable[i].mask & MTRR_PHYSMASK_VALID) != 0;
		snprintf(mtrr_text, sizeof(mtrr_text),
			 "MTRRs default %s, fixed %s, %u of %u variable ranges in use",
			 memtype_name(mtrr.default_type & MTRR_DEF_TYPE_MASK),
			 (mtrr.default_type & MTRR_DEF_FIXED_ENABLE) ? "on" : "off", valid,
			 MTRR_CAP_VARIABLE_COUNT(mtrr.capabilities));
	}
	format_indices(data_pat_indices | ram_pat_indices, pat, pat_text, sizeof(pat_text));
	snprintf(survey->description, sizeof(survey->description),
		 "trigger memory %s (kernel data/bss %s, RAM %s); CR0 %#llx, caching %s; %s; "
		 "%s %s",
		 all_text, data_text, ram_text, (unsigned long long)survey->cr0,
		 caching_disabled ? "off (CD set)" : "on", mtrr_text,
		 pat_present ? "PAT entries" : "no PAT, PCD/PWT select", pat_text);
}

/* --- One MTRR map for all (SDM vol 3A, 12.11.8) ------------------------------------- */

static struct mtrr_settings boot_mtrrs;
static unsigned int aps_given_mtrrs;
static char first_mismatch[96];

static bool mtrrs_equal(const struct mtrr_settings *a, const struct mtrr_settings *b)
{
	if (a->present != b->present || a->default_type != b->default_type ||
	    a->variable_count != b->variable_count)
		return false;
	if ((a->capabilities & MTRR_CAP_FIXED) &&
	    memcmp(a->fixed, b->fixed, sizeof(a->fixed)) != 0)
		return false;
	for (unsigned int i = 0; i < a->variable_count; i++) {
		if (a->variable[i].base != b->variable[i].base ||
		    a->variable[i].mask != b->variable[i].mask)
			return false;
	}
	return true;
}

/*
 * Load the boot CPU's MTRRs on this CPU the way 12.11.7.2 changes them:
 * caches in no-fill mode and flushed, TLBs flushed, MTRRs disabled while
 * written, then the same in reverse.  Only this CPU changes, to the map
 * every other CPU already uses, so no rendezvous is needed.
 */
static void adopt_boot_mtrrs(void *failed)
{
	const struct mtrr_settings *boot = &boot_mtrrs;
	bool enabled = local_irq_save(), ok = true;
	uint64_t cr0 = read_cr0(), cr4 = read_cr4();

	write_cr0((cr0 | CR0_CD) & ~CR0_NW);
	wbinvd();
	write_cr4(cr4 & ~CR4_PGE);	/* flushes the TLBs, global entries too */
	write_cr3(read_cr3());
	ok &= wrmsr_safe(MSR_MTRR_DEF_TYPE, boot->default_type & ~MTRR_DEF_ENABLE) == FAULT_NONE;
	if (boot->capabilities & MTRR_CAP_FIXED) {
		for (unsigned int i = 0; i < MTRR_FIXED_COUNT; i++)
			ok &= wrmsr_safe(fixed_msrs[i], boot->fixed[i]) == FAULT_NONE;
	}
	for (unsigned int i = 0; i < boot->variable_count; i++) {
		ok &= wrmsr_safe(MSR_MTRR_PHYSBASE0 + 2 * i, boot->variable[i].base) == FAULT_NONE;
		ok &= wrmsr_safe(MSR_MTRR_PHYSBASE0 + 2 * i + 1, boot->variable[i].mask) ==
		      FAULT_NONE;
	}
	ok &= wrmsr_safe(MSR_MTRR_DEF_TYPE, boot->default_type) == FAULT_NONE;
	wbinvd();
	write_cr4(cr4);
	write_cr3(read_cr3());
	write_cr0(cr0);
	local_irq_restore(enabled);
	*(bool *)failed = !ok;
}

static void read_mtrrs_here(void *settings)
{
	if (!read_mtrrs(settings))
		((struct mtrr_settings *)settings)->present = false;
}

/*
 * Firmware sets every CPU's MTRRs alike; an INIT must keep them (SDM vol 3A,
 * table 9-1), but under QEMU 7.2 TCG the APs trigos starts read
 * IA32_MTRR_DEF_TYPE 0: MTRRs disabled, all memory UC.  A CPU whose map
 * differs from the boot CPU's gets the boot CPU's, as Linux does for its
 * APs; on a machine whose firmware did its part this changes nothing.
 */
static void give_aps_the_boot_mtrrs(void)
{
	/*
	 * Not on this stack: work smp_run_on() gave up on after it had begun
	 * (a vCPU the host stopped) still ends, later, and writes its answer,
	 * which would land in a frame gone.  The flag is per CPU, so that a
	 * late one is not taken for the next CPU's answer; a late MTRR read
	 * can only make one comparison wrong.
	 */
	static struct mtrr_settings ap_mtrrs;
	static bool failed[MAX_CPUS];

	if (!read_mtrrs(&boot_mtrrs) || !boot_mtrrs.present)
		return;
	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++) {
		if (cpu == cpu_id() || !cpu_is_online(cpu) ||
		    !smp_run_on(cpu, read_mtrrs_here, &ap_mtrrs, SURVEY_TIMEOUT_NS) ||
		    mtrrs_equal(&ap_mtrrs, &boot_mtrrs))
			continue;
		if (!first_mismatch[0])
			snprintf(first_mismatch, sizeof(first_mismatch),
				 "cpu %u had MTRRs %s, default %s", cpu,
				 (ap_mtrrs.default_type & MTRR_DEF_ENABLE) ? "on" : "off",
				 memtype_name(ap_mtrrs.default_type & MTRR_DEF_TYPE_MASK));
		if (ap_mtrrs.variable_count < boot_mtrrs.variable_count ||
		    !smp_run_on(cpu, adopt_boot_mtrrs, &failed[cpu], SURVEY_TIMEOUT_NS) ||
		    failed[cpu])
			ktap_note("memtype: cpu %u: could not load the boot CPU's MTRRs", cpu);
		else
			aps_given_mtrrs++;
	}
	if (aps_given_mtrrs)
		ktap_note("memtype: %u AP%s had MTRRs unlike the boot CPU's (%s): given the "
			  "boot CPU's (SDM vol 3A, 12.11.8)", aps_given_mtrrs,
			  aps_given_mtrrs == 1 ? "" : "s", first_mismatch);
}

/* --- Every CPU ---------------------------------------------------------------------- */

static void survey_on_this_cpu(void *unused)
{
	memtype_survey_this_cpu(&surveys[cpu_id()]);
}

/*
 * test_break=cr0_cd: what the AP trampoline did before it loaded a defined CR0,
 * seen under Bochs 2.7 (CD and NW as INIT left them), done on purpose on
 * one AP so that the CR0 test and this check are seen to catch it.
 */
static void disable_caching_for_test(void *unused)
{
	write_cr0(read_cr0() | CR0_CD | CR0_NW);
}

static unsigned int last_online_ap(void)
{
	unsigned int last = 0;

	for (unsigned int cpu = 1; cpu < cpus_present(); cpu++) {
		if (cpu_is_online(cpu))
			last = cpu;
	}
	return last;
}

const char *memtype_trigger_memory_problem(void)
{
	return problem[0] ? problem : NULL;
}

void memtype_check(void)
{
	unsigned int same = 0, boot_cpu = cpu_id();

	if (test_break_given(TEST_BREAK_CR0_CD) && last_online_ap()) {
		ktap_note("memtype: test_break=cr0_cd: cpu %u sets CR0.CD and NW (test only)",
			  last_online_ap());
		smp_run_on(last_online_ap(), disable_caching_for_test, NULL, SURVEY_TIMEOUT_NS);
	}
	give_aps_the_boot_mtrrs();
	data_pat_indices = paging_pat_indices((uint64_t)__data_start, (uint64_t)__bss_end);
	ram_pat_indices = pat_indices_of_ram();
	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++) {
		if (cpu_is_online(cpu))
			surveyed[cpu] = smp_run_on(cpu, survey_on_this_cpu, NULL, SURVEY_TIMEOUT_NS);
	}
	ktap_note("memtype: cpu %u: %s", boot_cpu, surveys[boot_cpu].description);
	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++) {
		const struct memtype_survey *survey = &surveys[cpu];

		if (cpu == boot_cpu || !cpu_is_online(cpu))
			continue;
		if (!surveyed[cpu]) {
			ktap_note("memtype: cpu %u did not answer: its memory type is unknown", cpu);
			if (!problem[0])
				snprintf(problem, sizeof(problem),
					 "cpu %u did not say how it sees the trigger memory", cpu);
			continue;
		}
		if (strcmp(survey->description, surveys[boot_cpu].description) == 0)
			same++;
		else
			ktap_note("memtype: cpu %u: %s", cpu, survey->description);
	}
	if (same)
		ktap_note("memtype: %u other CPU%s the same as cpu %u", same,
			  same == 1 ? " sees" : "s see", boot_cpu);
	for (unsigned int cpu = 0; cpu < cpus_present() && !problem[0]; cpu++) {
		memtype_set types = surveys[cpu].data | surveys[cpu].ram;
		char text[24];

		if (!surveyed[cpu] || types == MEMTYPE_BIT(MEMTYPE_WB))
			continue;
		memtype_set_format(types, text, sizeof(text));
		snprintf(problem, sizeof(problem), "cpu %u sees the trigger memory as %s%s", cpu,
			 text, (surveys[cpu].cr0 & CR0_CD) ? " (CR0.CD set)" : "");
	}
	if (problem[0])
		ktap_note("memtype: %s: MONITOR watches write-back memory only, so mwait, "
			  "mwaitx and umwait are refused for this run", problem);
	else
		ktap_note("memtype: every online CPU sees the trigger memory as write-back");
}
