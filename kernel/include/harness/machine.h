/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_MACHINE_H
#define TRIGOS_MACHINE_H
/*
 * Which machine this is (QEMU from evidence, Bochs only when told), and
 * leaving it at the end of a run.
 */

#include <stdbool.h>
#include <stdint.h>
#include <lib/verdict.h>
#include <boot/machine_identity.h>

enum exit_action {
	EXIT_ACTION_AUTO,	/* QEMU exit under QEMU, Bochs's shutdown port under Bochs, else halt */
	EXIT_ACTION_QEMU,
	EXIT_ACTION_HALT,
	EXIT_ACTION_REBOOT,
	EXIT_ACTION_POWEROFF,
	EXIT_ACTION_BOCHS,	/* what auto becomes under Bochs; not an exit= value */
};

/**
 * machine_end_run - end the run with @verdict: the one way out, for a run
 * that finished (kmain) and for one that crashed (panic)
 * @verdict: the run's verdict
 * @detail: a line under the screen's banner (the totals, or where it crashed)
 *
 * In this order, once: the exit is prepared (with exit=halt the other CPUs
 * are halted now and that is reported; a reset or power-off is announced),
 * so that "# RESULT: <word>" comes next and stays the log's last line where
 * the exit allows; then the screen's verdict banner; then the exit= action.
 * Under QEMU (confirmed, see hypervisor.h) the verdict becomes QEMU's exit
 * status through isa-debug-exit; if that device is absent, ACPI S5 powers
 * off.  Under Bochs (told, see running_under_bochs()) Bochs's shutdown port
 * ends the simulation and the host reads the verdict from the log.  On
 * hardware: halt every CPU, or reboot (ACPI reset register, 8042, triple
 * fault) with exit=reboot, or power off (ACPI S5) with exit=poweroff.
 */
void machine_end_run(enum verdict verdict, const char *detail) __attribute__((noreturn));

/**
 * machine_end_crashed_run - end a run that panicked: "# RESULT: CRASH" with
 * what the test runner was doing (panic_end() calls it; kmain() registers it)
 */
void machine_end_crashed_run(void) __attribute__((noreturn));

/** machine_set_exit_action - as if exit= had said @action (a test puts it back) */
void machine_set_exit_action(enum exit_action action);

/** machine_exit_action - what exit= said (EXIT_ACTION_AUTO by default) */
enum exit_action machine_exit_action(void);

#include <arch/power.h>

#endif
