// SPDX-License-Identifier: MIT
/*
 * The local APIC mode as every CPU really runs it, not as selected: which
 * mode IA32_APIC_BASE says each CPU is in, whether the x2APIC MSRs answer
 * (they must in x2APIC mode and must not in xAPIC mode), and that each
 * CPU's APIC ID reads back at the width of its mode.  Under Bochs's Intel
 * models (x2APIC) these run the x2APIC paths for real; under QEMU TCG and
 * Bochs's ryzen (no x2APIC) the xAPIC ones.  The IPI, NMI, INIT/SIPI and
 * timer paths of either mode are exercised by the ipi and smp suites and by
 * bring-up itself; the matrix pins the mode each machine runs in.
 */
#include <cpu/cpu.h>
#include <smp/smp.h>
#include <harness/test.h>
#include <asm/apic.h>
#include <asm/extable.h>
#include <asm/instructions.h>

#include "cpu_test.h"

#define MSR_APIC_BASE		0x1b
#define APIC_BASE_BSP		(1ull << 8)
#define APIC_BASE_EXTD		(1ull << 10)	/* x2APIC mode */
#define APIC_BASE_ENABLE	(1ull << 11)
#define MSR_X2APIC_ID		0x802		/* 0x800 + (0x20 >> 4) */
#define MSR_X2APIC_VERSION	0x803		/* 0x800 + (0x30 >> 4) */
#define VECTOR_GP		13

struct apic_view {
	bool seen;
	uint64_t base;
	int id_fault, version_fault;
	uint64_t id_msr, version;
	uint32_t lapic_id, cpuid_id;
	bool has_leaf_0b;
};

static struct apic_view views[MAX_CPUS];

/* The initial APIC ID CPUID gives: 32 bits from leaf 0BH, 8 from leaf 01H. */
static void look_at_own_apic(void *unused)
{
	struct apic_view *view = &views[cpu_id()];

	view->base = rdmsr(MSR_APIC_BASE);
	view->id_fault = rdmsr_safe(MSR_X2APIC_ID, &view->id_msr);
	view->version_fault = rdmsr_safe(MSR_X2APIC_VERSION, &view->version);
	view->lapic_id = lapic_id();
	view->has_leaf_0b = cpuid(0).eax >= 0xb && cpuid_count(0xb, 0).ebx != 0;
	view->cpuid_id = lapic_mode() == APIC_MODE_X2APIC && view->has_leaf_0b
				 ? cpuid_count(0xb, 0).edx
				 : cpuid(1).ebx >> 24;
	view->seen = true;
}

static unsigned int look_everywhere(void)
{
	unsigned int seen = 0;

	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++) {
		views[cpu].seen = false;
		if (cpu_test_online(cpu) && smp_run_on(cpu, look_at_own_apic, NULL, CPU_TEST_TIMEOUT_NS))
			seen++;
	}
	return seen;
}

static void every_cpu_runs_in_the_chosen_mode(void)
{
	bool x2apic = lapic_mode() == APIC_MODE_X2APIC;

	ASSERT_EQ(look_everywhere(), cpus_online());
	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++) {
		uint64_t base = views[cpu].base;

		if (!views[cpu].seen)
			continue;
		EXPECT_EQ(base & APIC_BASE_ENABLE, APIC_BASE_ENABLE);
		EXPECT_EQ((base & APIC_BASE_EXTD) != 0, x2apic);
		/* IA32_APIC_BASE.BSP: set on the boot CPU alone (SDM vol 3A, 12.4.4). */
		EXPECT_EQ((base & APIC_BASE_BSP) != 0, cpu == 0);
	}
	test_diag("%s mode on %u CPU%s (IA32_APIC_BASE.EXTD %s), %u of them started by INIT/SIPI "
		  "in that mode", apic_mode_name(lapic_mode()), cpus_online(),
		  cpus_online() == 1 ? "" : "s", x2apic ? "set" : "clear", cpus_online() - 1);
}

/*
 * The MSRs 800H-8FFH are the x2APIC registers: they answer in x2APIC mode,
 * and a CPU that has x2APIC raises #GP for them in xAPIC mode (SDM vol 3A,
 * 12.12.1.2).  On a CPU without x2APIC they do not exist, and emulators
 * differ: QEMU 7.2 TCG reads MSRs it does not know as 0, and so does Bochs
 * 2.7 unless told ignore_bad_msrs=0 (cpu/msr.cc); nothing is expected there.
 */
static void x2apic_registers_answer_only_in_x2apic_mode(void)
{
	bool x2apic = lapic_mode() == APIC_MODE_X2APIC;
	bool has_x2apic = (cpuid(1).ecx & (1u << 21)) != 0;

	ASSERT_EQ(look_everywhere(), cpus_online());
	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++) {
		const struct apic_view *view = &views[cpu];

		if (!view->seen)
			continue;
		if (x2apic) {
			EXPECT_EQ(view->id_fault, FAULT_NONE);
			EXPECT_EQ(view->version_fault, FAULT_NONE);
			/* The x2APIC ID register is all 32 bits of the ID. */
			EXPECT_EQ(view->id_msr, cpus[cpu].apic_id);
			EXPECT_NE(view->version & 0xff, 0u);
		} else if (has_x2apic) {
			EXPECT_EQ(view->id_fault, VECTOR_GP);
			EXPECT_EQ(view->version_fault, VECTOR_GP);
		}
	}
	if (x2apic)
		test_diag("x2APIC MSRs 802H/803H answer on every CPU: ID %#llx, version %#llx on cpu 0",
			  (unsigned long long)views[0].id_msr, (unsigned long long)views[0].version);
	else if (has_x2apic)
		test_diag("x2APIC MSRs 802H/803H raise #GP in xAPIC mode on every CPU");
	else
		test_diag("no x2APIC here: MSR 802H %s (not a register of this CPU; not checked)",
			  views[0].id_fault == FAULT_NONE ? "reads without a fault" : "faults");
}

static void apic_ids_read_back_at_the_width_of_the_mode(void)
{
	ASSERT_EQ(look_everywhere(), cpus_online());
	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++) {
		const struct apic_view *view = &views[cpu];

		if (!view->seen)
			continue;
		EXPECT_EQ(view->lapic_id, cpus[cpu].apic_id);
		EXPECT_EQ(view->lapic_id, view->cpuid_id);
		if (lapic_mode() == APIC_MODE_XAPIC)
			EXPECT_LE(view->lapic_id, 0xffu);
	}
	test_diag("cpu %u: APIC ID %u, as CPUID leaf %s says", cpus_online() - 1,
		  views[cpus_online() - 1].lapic_id,
		  lapic_mode() == APIC_MODE_X2APIC && views[0].has_leaf_0b ? "0BH (32 bits)"
									 : "01H (8 bits)");
}

/* 0xff is the xAPIC broadcast: a CPU with that ID or above needs x2APIC. */
static void apic_ids_past_xapic_need_x2apic(void)
{
	bool x2apic = lapic_mode() == APIC_MODE_X2APIC;

	EXPECT_TRUE(arch_apic_id_reachable(0));
	EXPECT_TRUE(arch_apic_id_reachable(0xfe));
	EXPECT_EQ(arch_apic_id_reachable(0xff), x2apic);
	EXPECT_EQ(arch_apic_id_reachable(0x100), x2apic);
}

static const struct test_case apic_cases[] = {
	TEST_CASE(every_cpu_runs_in_the_chosen_mode),
	TEST_CASE(x2apic_registers_answer_only_in_x2apic_mode),
	TEST_CASE(apic_ids_read_back_at_the_width_of_the_mode),
	TEST_CASE(apic_ids_past_xapic_need_x2apic),
};
TEST_SUITE(apic, apic_cases, NULL, NULL);
