// SPDX-License-Identifier: MIT
/*
 * Caching on every CPU: a defined CR0 (asm/boot.h says why) and write-back
 * trigger memory (memtype_check.h), and the rule that keeps the MONITOR
 * backends off memory they cannot watch.
 *
 * test_break=cr0_cd makes one AP set CR0.CD and NW after bring-up, as INIT
 * leaves them under Bochs 2.7: the matrix section cache-control-broken
 * expects these cases to fail then.
 */
#include <cpu/cpu.h>
#include <arch/memtype_check.h>
#include <boot/options.h>
#include <smp/smp.h>
#include <harness/test.h>
#include <sync/trigger_backend.h>
#include <asm/boot.h>
#include <asm/cpu_state.h>
#include <asm/instructions.h>

#include "cpu_test.h"

static struct memtype_survey surveys[MAX_CPUS];
static bool answered[MAX_CPUS];

static void survey_this_cpu(void *unused)
{
	memtype_survey_this_cpu(&surveys[cpu_id()]);
	__atomic_store_n(&answered[cpu_id()], true, __ATOMIC_RELEASE);
}

/* Survey every online CPU on itself; false if one did not answer. */
static bool survey_every_cpu(void)
{
	bool all = true;

	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++) {
		answered[cpu] = false;
		if (!cpu_test_online(cpu))
			continue;
		if (!smp_run_on(cpu, survey_this_cpu, NULL, CPU_TEST_TIMEOUT_NS)) {
			test_diag("cpu %u did not answer", cpu);
			all = false;
		}
	}
	return all;
}

static void cr0_is_defined_on_every_cpu(void)
{
	unsigned int checked = 0;

	ASSERT_TRUE(survey_every_cpu());
	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++) {
		uint64_t cr0 = surveys[cpu].cr0;

		if (!answered[cpu])
			continue;
		checked++;
		if (cr0 & (CR0_CD | CR0_NW))
			test_diag("cpu %u: CR0 %#llx has%s%s set: its caches are off", cpu,
				  (unsigned long long)cr0, (cr0 & CR0_CD) ? " CD" : "",
				  (cr0 & CR0_NW) ? " NW" : "");
		EXPECT_EQ(cr0 & (CR0_CD | CR0_NW), 0);
		EXPECT_EQ(cr0, CR0_KERNEL);
	}
	test_diag("CR0 checked on %u CPUs (the kernel's value %#x)", checked, CR0_KERNEL);
	EXPECT_EQ(checked, cpus_online());
}

/*
 * A probe of Bochs 2.7's bug 2 (docs/emulators.md): the APs' CR0 as INIT
 * and SIPI left it, recorded by the trampoline before it loads its own.
 * Under Bochs 2.7 CD and NW are set there (its reset and INIT value); on
 * real CPUs INIT keeps what the firmware set (SDM vol 3A, the table of
 * the state after power-up, reset or INIT).
 * Reported, not judged: the kernel loads CR0 on every CPU whatever it finds
 * (the case above checks the result).  Asserted: the record was made, in
 * real mode (PE clear) with ET set, which reads 1 since the P6 (SDM vol 3A,
 * 2.5).
 */
static void cr0_as_init_left_it_on_the_aps(void)
{
	uint32_t initial = arch_smp_ap_initial_cr0();

	if (cpus_online() < 2)
		test_skip("no AP: nothing was started by INIT and SIPI");
	test_diag("APs' CR0 after INIT/SIPI (ORed over %u): %#x: CD %s, NW %s; the trampoline "
		  "loads %#x, then %#x", cpus_online() - 1, initial,
		  (initial & CR0_CD) ? "set" : "clear", (initial & CR0_NW) ? "set" : "clear",
		  CR0_PROTECTED_MODE, CR0_KERNEL);
	EXPECT_EQ(initial & CR0_PE, 0);
	EXPECT_NE(initial & CR0_ET, 0);
}

static void trigger_memory_is_write_back_on_every_cpu(void)
{
	ASSERT_TRUE(survey_every_cpu());
	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++) {
		if (!answered[cpu])
			continue;
		if ((surveys[cpu].data | surveys[cpu].ram) != MEMTYPE_BIT(MEMTYPE_WB) ||
		    cpu == 0)
			test_diag("cpu %u: %s", cpu, surveys[cpu].description);
		EXPECT_EQ(surveys[cpu].data, MEMTYPE_BIT(MEMTYPE_WB));
		EXPECT_EQ(surveys[cpu].ram, MEMTYPE_BIT(MEMTYPE_WB));
	}
	/* The boot check saw the same: its verdict is what selection used. */
	EXPECT_NULL(memtype_trigger_memory_problem());
}

/*
 * Whatever the boot check found, selection followed it: with a CPU that
 * does not see write-back memory the MONITOR backends are refused (naming
 * the CPU) and auto does not pick them; the halting ones never are.
 */
static void monitor_backends_follow_the_memory_type(void)
{
	static const enum trigger_backend_id monitoring[] = {
		TRIGGER_BACKEND_MWAIT, TRIGGER_BACKEND_MWAITX, TRIGGER_BACKEND_UMWAIT,
	};
	static const enum trigger_backend_id halting[] = {
		TRIGGER_BACKEND_SPIN, TRIGGER_BACKEND_HLT, TRIGGER_BACKEND_ADAPTIVE,
	};
	const char *problem = memtype_trigger_memory_problem();
	enum trigger_backend_id chosen = trigger_backend_boot_choice();

	for (size_t i = 0; i < sizeof(monitoring) / sizeof(monitoring[0]); i++) {
		const char *refusal = trigger_backend_memory_refusal(monitoring[i]);

		EXPECT_EQ(refusal, problem);
		if (refusal) {
			EXPECT_FALSE(trigger_backend_set(monitoring[i]));
			EXPECT_NE(chosen, monitoring[i]);
			test_diag("%s refused: %s", trigger_backend_name(monitoring[i]), refusal);
		}
	}
	for (size_t i = 0; i < sizeof(halting) / sizeof(halting[0]); i++)
		EXPECT_NULL(trigger_backend_memory_refusal(halting[i]));
	EXPECT_TRUE(trigger_backend_set(chosen));
	test_diag("boot choice %s; trigger memory %s", trigger_backend_name(chosen),
		  problem ? problem : "write-back on every CPU");
}

static const struct test_case cache_control_cases[] = {
	TEST_CASE(cr0_is_defined_on_every_cpu),
	TEST_CASE(cr0_as_init_left_it_on_the_aps),
	TEST_CASE(trigger_memory_is_write_back_on_every_cpu),
	TEST_CASE(monitor_backends_follow_the_memory_type),
};
TEST_SUITE(cache_control, cache_control_cases, NULL, NULL);
