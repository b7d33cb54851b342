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

enum exit_action {
	EXIT_ACTION_AUTO,	/* QEMU exit under QEMU, Bochs's shutdown port under Bochs, else halt */
	EXIT_ACTION_QEMU,
	EXIT_ACTION_HALT,
	EXIT_ACTION_REBOOT,
	EXIT_ACTION_POWEROFF,
	EXIT_ACTION_BOCHS,	/* what auto becomes under Bochs; not an exit= value */
};

/* What the machine= option told the kernel about the machine it runs on. */
enum machine_told {
	MACHINE_TOLD_NOTHING,	/* machine=auto: QEMU is recognised from evidence */
	MACHINE_TOLD_BOCHS,	/* machine=bochs: Debian 12's Bochs 2.7 */
	MACHINE_TOLD_BOCHS_3_0,	/* machine=bochs-3.0: Bochs 3.0 (tools/emulators builds it) */
};

/** machine_set_told - as if machine= had said @told (a test puts it back) */
void machine_set_told(enum machine_told told);

/** machine_told_by_option - what machine= said */
enum machine_told machine_told_by_option(void);

/**
 * running_under_bochs - true only when the command line said machine=bochs
 * and nothing identifies QEMU
 *
 * Bochs 2.7 cannot be recognised: it sets no CPUID hypervisor bit, has no
 * signature leaf and no fw_cfg, and its BIOS's ACPI tables carry the OEM ID
 * "BOCHS" as QEMU's SeaBIOS tables do (docs/emulators.md, Bochs).  So the
 * kernel is told (tools/run --emulator bochs passes machine=bochs) and never
 * guesses.  QEMU's evidence (hypervisor.h) refutes the claim.  Gate every
 * Bochs-only port and every Bochs workaround on this.
 */
bool running_under_bochs(void);

/**
 * bochs_release - which Bochs machine= named, as major * 10 + minor: 27 for
 * machine=bochs (Debian 12's 2.7), 30 for machine=bochs-3.0; 0 when not
 * running_under_bochs().  Each Bochs workaround applies to the releases
 * whose bug it works around (kernel/arch/x86/trigger_bochs.c).
 */
unsigned int bochs_release(void);

/** machine_name - "bochs", "qemu" or "unidentified", as machine_identify() reports */
const char *machine_name(void);

/**
 * machine_identify - report which machine this is: "# machine: ..." (after
 * the command line is parsed, before anything depends on the answer)
 */
void machine_identify(void);


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

/** machine_set_exit_action - as if exit= had said @action (a test puts it back) */
void machine_set_exit_action(enum exit_action action);

/** machine_exit_action - what exit= said (EXIT_ACTION_AUTO by default) */
enum exit_action machine_exit_action(void);

/* Arch hooks. */
void arch_qemu_debug_exit(uint32_t value);
/* Write "Shutdown" to Bochs's port 0x8900; returns only if the machine is still on. */
void arch_bochs_shutdown(void);
/*
 * ACPI S5; returns only if it did not happen.  Refusals and failures are
 * always printed; with @announce_steps the steps too, before they are tried.
 */
bool arch_acpi_poweroff(bool announce_steps);
void arch_reboot(void) __attribute__((noreturn));
void arch_halt_forever(void) __attribute__((noreturn));
/* Stop every other online CPU (NMI into a halt loop) and say how many stopped. */
void arch_halt_other_cpus(void);

#endif
