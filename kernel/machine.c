// SPDX-License-Identifier: MIT
#include <console.h>
#include <hypervisor.h>
#include <machine.h>

static enum exit_action exit_action = EXIT_ACTION_AUTO;

static const uint32_t qemu_exit_values[] = {
	[VERDICT_PASS] = QEMU_EXIT_PASS,
	[VERDICT_FAIL] = QEMU_EXIT_FAIL,
	[VERDICT_SKIP] = QEMU_EXIT_SKIP,
	[VERDICT_CRASH] = QEMU_EXIT_CRASH,
};

const char *verdict_name(enum verdict verdict)
{
	switch (verdict) {
	case VERDICT_PASS:
		return "PASS";
	case VERDICT_FAIL:
		return "FAIL";
	case VERDICT_SKIP:
		return "SKIP";
	case VERDICT_CRASH:
		return "CRASH";
	}
	return "CRASH";
}

void machine_set_exit_action(enum exit_action action)
{
	exit_action = action;
}

void machine_exit(enum verdict verdict)
{
	enum exit_action action = exit_action;

	if (action == EXIT_ACTION_AUTO)
		action = running_under_qemu() ? EXIT_ACTION_QEMU : EXIT_ACTION_HALT;

	switch (action) {
	case EXIT_ACTION_QEMU:
		if (running_under_qemu())
			arch_qemu_debug_exit(qemu_exit_values[verdict]);
		/*
		 * Still here: not QEMU, or QEMU without isa-debug-exit.  Power
		 * off so that a plain QEMU still ends the run.
		 */
		arch_acpi_poweroff();
		break;
	case EXIT_ACTION_POWEROFF:
		arch_acpi_poweroff();
		kprintf("# exit=poweroff: ACPI S5 did not power the machine off; halting\n");
		break;
	case EXIT_ACTION_REBOOT:
		arch_reboot();
	case EXIT_ACTION_HALT:
	case EXIT_ACTION_AUTO:
		break;
	}
	arch_halt_forever();
}
