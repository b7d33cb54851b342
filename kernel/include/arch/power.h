/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_ARCH_POWER_H
#define TRIGOS_ARCH_POWER_H
/*
 * Leaving the machine: the arch's ways out, which the harness's end of a
 * run (machine_end_run(), harness/machine.h) chooses between.
 */

#include <stdbool.h>
#include <stdint.h>
#include <log/panic.h>	/* arch_halt_forever() */

void arch_qemu_debug_exit(uint32_t value);
/* Write "Shutdown" to Bochs's port 0x8900; returns only if the machine is still on. */
void arch_bochs_shutdown(void);
/*
 * ACPI S5; returns only if it did not happen.  Refusals and failures are
 * always printed; with @announce_steps the steps too, before they are tried.
 */
bool arch_acpi_poweroff(bool announce_steps);
void arch_reboot(void) __attribute__((noreturn));
/* Stop every other online CPU (NMI into a halt loop) and say how many stopped. */
void arch_halt_other_cpus(void);

#endif
