// SPDX-License-Identifier: MIT
/* The embedded symbol table, the command-line options and the machine checks. */
#include <arch/hypervisor.h>
#include <harness/machine.h>
#include <boot/options.h>
#include <log/symbols.h>
#include <harness/test.h>
#include <lib/string.h>
#include <sync/poll_wait.h>
#include <asm/instructions.h>

void kmain(uint32_t magic, uint32_t info_physical);

static void symbols_name_the_functions_they_contain(void)
{
	uint64_t offset = ~0ull;
	const char *name;

	EXPECT_GT(symbol_count(), 100u);
	name = symbol_lookup((uint64_t)kmain, &offset);
	EXPECT_STREQ(name, "kmain");
	EXPECT_EQ(offset, 0u);
	name = symbol_lookup((uint64_t)symbols_name_the_functions_they_contain + 5, &offset);
	EXPECT_STREQ(name, "symbols_name_the_functions_they_contain");
	EXPECT_EQ(offset, 5u);
	EXPECT_EQ(symbol_address("kmain"), (uint64_t)kmain);
}

static void symbols_outside_text_are_not_named(void)
{
	static const int not_code = 1;
	uint64_t offset;

	EXPECT_NULL(symbol_lookup((uint64_t)&not_code, &offset));
	EXPECT_NULL(symbol_lookup(0, &offset));
	EXPECT_EQ(symbol_address("no_such_function_anywhere"), 0u);
}

static struct kernel_options saved_options;
static enum exit_action saved_exit_action;
static enum machine_told saved_machine_told;

static int save_options(void)
{
	saved_options = kernel_options;
	saved_exit_action = machine_exit_action();
	saved_machine_told = machine_told_by_option();
	return 0;
}

static void restore_options(void)
{
	kernel_options = saved_options;
	machine_set_exit_action(saved_exit_action);
	machine_set_told(saved_machine_told);
}

static void options_apply_known_keys(void)
{
	options_parse("test=alpha.*,beta seed=0x10 repeat=3 exit=halt", "test line");
	EXPECT_STREQ(kernel_options.test, "alpha.*,beta");
	EXPECT_EQ(kernel_options.seed, 16u);
	EXPECT_TRUE(kernel_options.seed_given);
	EXPECT_EQ(kernel_options.repeat, 3u);
	EXPECT_EQ(machine_exit_action(), EXIT_ACTION_HALT);
}

static void bad_values_keep_the_defaults(void)
{
	kernel_options.repeat = 1;
	kernel_options.seed = 99;
	kernel_options.seed_given = false;
	/* Each of these prints a diagnostic and changes nothing. */
	options_parse("repeat=0 repeat=lots seed= seed=12x exit=sideways unknown=1 \"unclosed",
		      "test line");
	EXPECT_EQ(kernel_options.repeat, 1u);
	EXPECT_EQ(kernel_options.seed, 99u);
	EXPECT_FALSE(kernel_options.seed_given);
	EXPECT_EQ(machine_exit_action(), saved_exit_action);
}

static void later_words_override_earlier_ones(void)
{
	options_parse("seed=1 seed=2", "test line");
	EXPECT_EQ(kernel_options.seed, 2u);
}

/*
 * Every option the kernel documents is linked in, declared once, with the
 * values it takes (a file that stops declaring its option, or is no longer
 * linked, drops the key silently otherwise: the word would be "unknown").
 */
static void every_option_is_declared_once(void)
{
	static const char *const keys[] = {
		"bench", "console", "cpus", "dump", "exit", "machine", "mcs_wait", "mwait_hint",
		"pause", "repeat", "seed", "smp_ap_delay_us", "smp_start", "smp_withhold", "test",
		"test_break", "test_drop_kick", "test_late_kicker_us", "test_late_target",
		"test_late_waiter_us", "test_lose_call_ipi", "test_lose_wake_ipi",
		"test_lose_wake_nmi", "torture", "trigger", "trigger_spin_ns", "tsc_noise",
		"watchdog",
	};
	size_t count;
	const struct kernel_option *const *table = options_table(&count);

	EXPECT_EQ(count, sizeof(keys) / sizeof(keys[0]));
	for (size_t i = 0; i < count && i < sizeof(keys) / sizeof(keys[0]); i++) {
		/* Sorted by key (linker.ld), so one per key means a strict order. */
		EXPECT_STREQ(table[i]->key, keys[i]);
		EXPECT_NOT_NULL(table[i]->parse);
		EXPECT_TRUE(table[i]->values && table[i]->values[0] != '\0');
	}
}

static void qemu_is_identified_only_with_evidence(void)
{
	const struct hypervisor_info *info = hypervisor_info();

	/* running_under_qemu() must mean: hypervisor bit, a QEMU signature, fw_cfg. */
	if (running_under_qemu()) {
		EXPECT_TRUE(info->cpuid_hypervisor_bit);
		EXPECT_TRUE(info->fw_cfg_present);
		EXPECT_TRUE(strcmp(info->signature, "TCGTCGTCGTCG") == 0 ||
			    strncmp(info->signature, "KVMKVMKVM", 9) == 0);
	}
	if (!info->cpuid_hypervisor_bit)
		EXPECT_FALSE(running_under_qemu());
	test_diag("hypervisor signature '%s', fw_cfg %s", info->signature,
		  info->fw_cfg_present ? "present" : "absent");
}

/* Bochs cannot be recognised: machine=bochs is believed unless QEMU's evidence refutes it. */
static void bochs_is_believed_only_when_told(void)
{
	enum machine_told told = machine_told_by_option();

	options_parse("machine=auto", "test line");
	EXPECT_FALSE(running_under_bochs());
	EXPECT_EQ(bochs_release(), 0u);
	options_parse("machine=bochs", "test line");
	EXPECT_EQ(machine_told_by_option(), MACHINE_TOLD_BOCHS);
	EXPECT_EQ(running_under_bochs(), !running_under_qemu());
	EXPECT_EQ(bochs_release(), running_under_bochs() ? 27u : 0u);
	test_diag("machine=bochs is %s here", running_under_bochs() ? "believed" :
		  "refuted by QEMU's evidence");
	options_parse("machine=bochs-2.8", "test line");
	EXPECT_EQ(machine_told_by_option(), MACHINE_TOLD_BOCHS_2_8);
	EXPECT_EQ(bochs_release(), running_under_bochs() ? 28u : 0u);
	options_parse("machine=bochs-3.0", "test line");
	EXPECT_EQ(machine_told_by_option(), MACHINE_TOLD_BOCHS_3_0);
	EXPECT_EQ(bochs_release(), running_under_bochs() ? 30u : 0u);
	machine_set_told(told);
}

/*
 * pause= decides whether spin loops execute PAUSE and whether the poll loops
 * pace it (asm/instructions.h, sync/poll_wait.h); paced by default under TCG.
 */
static void pause_option_decides_whether_spin_loops_pause(void)
{
	bool pauses = cpu_relax_pauses;
	uint64_t pace = cpu_relax_pace_cycles, paced_for = cpu_relax_paced_for_cycles;
	struct poll_pace poll;

	options_parse("pause=off", "test line");
	EXPECT_FALSE(cpu_relax_pauses);
	EXPECT_EQ(cpu_relax_pace_cycles, 0);
	options_parse("pause=paced", "test line");
	EXPECT_TRUE(cpu_relax_pauses);
	EXPECT_NE(cpu_relax_pace_cycles, 0);
	EXPECT_GT(cpu_relax_paced_for_cycles, cpu_relax_pace_cycles);
	/* Paced: the first poll is not due, a poll after the whole paced part is. */
	poll_pace_begin(&poll);
	EXPECT_FALSE(poll_pace_due(&poll));
	poll.begun -= cpu_relax_paced_for_cycles;
	EXPECT_TRUE(poll_pace_due(&poll));
	options_parse("pause=on", "test line");
	EXPECT_TRUE(cpu_relax_pauses);
	EXPECT_EQ(cpu_relax_pace_cycles, 0);
	poll_pace_begin(&poll);
	EXPECT_TRUE(poll_pace_due(&poll));
	options_parse("pause=sometimes", "test line");
	EXPECT_TRUE(cpu_relax_pauses);
	EXPECT_EQ(cpu_relax_pace_cycles, 0);
	cpu_relax_pauses = pauses;
	cpu_relax_pace_cycles = pace;
	cpu_relax_paced_for_cycles = paced_for;
}

static const struct test_case kernel_service_cases[] = {
	TEST_CASE(symbols_name_the_functions_they_contain),
	TEST_CASE(symbols_outside_text_are_not_named),
	TEST_CASE(options_apply_known_keys),
	TEST_CASE(bad_values_keep_the_defaults),
	TEST_CASE(later_words_override_earlier_ones),
	TEST_CASE(every_option_is_declared_once),
	TEST_CASE(qemu_is_identified_only_with_evidence),
	TEST_CASE(bochs_is_believed_only_when_told),
	TEST_CASE(pause_option_decides_whether_spin_loops_pause),
};
TEST_SUITE(kernel_services, kernel_service_cases, save_options, restore_options);
