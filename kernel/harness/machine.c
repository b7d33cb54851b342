// SPDX-License-Identifier: MIT
#include <trigos/console.h>
#include <trigos/hypervisor.h>
#include <trigos/ktap.h>
#include <trigos/machine.h>
#include <trigos/options.h>
#include <trigos/screen_console.h>

static enum exit_action exit_action = EXIT_ACTION_AUTO;
static enum machine_told machine_told = MACHINE_TOLD_NOTHING;

void machine_set_exit_action(enum exit_action action)
{
	exit_action = action;
}

enum exit_action machine_exit_action(void)
{
	return exit_action;
}

void machine_set_told(enum machine_told told)
{
	machine_told = told;
}

enum machine_told machine_told_by_option(void)
{
	return machine_told;
}

static bool parse_exit(const struct cmdline_word *word, const char **error)
{
	/* EXIT_ACTION_BOCHS is what auto becomes under Bochs, not a value. */
	static const char *const actions[] = {
		[EXIT_ACTION_AUTO] = "auto",
		[EXIT_ACTION_QEMU] = "qemu",
		[EXIT_ACTION_HALT] = "halt",
		[EXIT_ACTION_REBOOT] = "reboot",
		[EXIT_ACTION_POWEROFF] = "poweroff",
	};
	int action = cmdline_value_index(word, actions, sizeof(actions) / sizeof(actions[0]));

	if (action < 0)
		return false;
	exit_action = (enum exit_action)action;
	return true;
}
KERNEL_OPTION(exit, "auto, qemu, halt, reboot or poweroff", parse_exit);

static bool parse_machine(const struct cmdline_word *word, const char **error)
{
	static const char *const machines[] = {
		[MACHINE_TOLD_NOTHING] = "auto",
		[MACHINE_TOLD_BOCHS] = "bochs",
		[MACHINE_TOLD_BOCHS_3_0] = "bochs-3.0",
	};
	int told = cmdline_value_index(word, machines, sizeof(machines) / sizeof(machines[0]));

	if (told < 0)
		return false;
	machine_told = (enum machine_told)told;
	return true;
}
KERNEL_OPTION(machine, "auto, bochs (2.7) or bochs-3.0", parse_machine);

bool running_under_bochs(void)
{
	return machine_told != MACHINE_TOLD_NOTHING && !running_under_qemu();
}

unsigned int bochs_release(void)
{
	if (!running_under_bochs())
		return 0;
	return machine_told == MACHINE_TOLD_BOCHS_3_0 ? 30 : 27;
}

const char *machine_name(void)
{
	if (running_under_bochs())
		return "bochs";
	return running_under_qemu() ? "qemu" : "unidentified";
}

void machine_identify(void)
{
	const struct hypervisor_info *info = hypervisor_info();

	if (bochs_release() == 30) {
		ktap_note("machine: bochs 3.0 (told by machine=bochs-3.0)");
	} else if (running_under_bochs()) {
		ktap_note("machine: bochs (told by machine=bochs)");
	} else if (running_under_qemu()) {
		ktap_note("machine: QEMU %s (CPUID signature '%s' and fw_cfg)%s",
			  info->tcg ? "TCG" : "with KVM", info->signature,
			  machine_told != MACHINE_TOLD_NOTHING ?
			  "; machine=bochs ignored: Bochs has no fw_cfg" : "");
	} else {
		ktap_note("machine: no emulator identified (hardware, or a hypervisor trigos does "
			  "not know; machine=bochs tells it Bochs)");
	}
}

static enum exit_action effective_action(void)
{
	if (exit_action != EXIT_ACTION_AUTO)
		return exit_action;
	if (running_under_qemu())
		return EXIT_ACTION_QEMU;
	return running_under_bochs() ? EXIT_ACTION_BOCHS : EXIT_ACTION_HALT;
}

/*
 * Before "# RESULT:", so that the verdict stays the log's last line where
 * it can: the other CPUs are halted now, and a reset or power-off is
 * announced (its steps are printed as they are tried, after the verdict).
 */
static void prepare_exit(void)
{
	switch (effective_action()) {
	case EXIT_ACTION_HALT:
	case EXIT_ACTION_AUTO:
		kprintf("# exit=halt: halting every CPU after the verdict\n");
		arch_halt_other_cpus();
		break;
	case EXIT_ACTION_REBOOT:
		kprintf("# exit=reboot: resetting after the verdict: ACPI reset register, "
			"8042, then a triple fault\n");
		break;
	case EXIT_ACTION_POWEROFF:
		kprintf("# exit=poweroff: powering off through ACPI S5 after the verdict\n");
		break;
	case EXIT_ACTION_QEMU:
	case EXIT_ACTION_BOCHS:
		break;
	}
}

/* Leave the machine as exit= says, @verdict for QEMU's exit status. */
static void __attribute__((noreturn)) leave_machine(enum verdict verdict)
{
	switch (effective_action()) {
	case EXIT_ACTION_QEMU:
		if (running_under_qemu())
			arch_qemu_debug_exit(verdict_qemu_exit_value(verdict));
		/*
		 * Still here: not QEMU, or QEMU without isa-debug-exit.  Power
		 * off so that a plain QEMU still ends the run, quietly: the
		 * verdict stays the last line unless the power-off fails.
		 */
		arch_acpi_poweroff(false);
		arch_halt_other_cpus();
		break;
	case EXIT_ACTION_BOCHS:
		arch_bochs_shutdown();
		kprintf("# machine: still running after Bochs's shutdown port (is this Bochs, as "
			"machine=bochs said?); halting every CPU\n");
		arch_halt_other_cpus();
		break;
	case EXIT_ACTION_POWEROFF:
		arch_acpi_poweroff(true);
		kprintf("# exit=poweroff: the machine is still on; halting every CPU instead\n");
		arch_halt_other_cpus();
		break;
	case EXIT_ACTION_REBOOT:
		arch_reboot();
	case EXIT_ACTION_HALT:
	case EXIT_ACTION_AUTO:
		break;
	}
	arch_halt_forever();
}

void machine_end_run(enum verdict verdict, const char *detail)
{
	prepare_exit();
	/* Column 0, the last line if the exit allows: what tools/ktap and CI read. */
	ktap_write_result(&ktap_console, verdict);
	screen_console_show_verdict(verdict, detail);
	leave_machine(verdict);
}
