/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_BOOT_MACHINE_IDENTITY_H
#define TRIGOS_BOOT_MACHINE_IDENTITY_H
/* Which machine this is: QEMU from evidence, Bochs only when told. */

#include <stdbool.h>

/* What the machine= option told the kernel about the machine it runs on. */
enum machine_told {
	MACHINE_TOLD_NOTHING,	/* machine=auto: QEMU is recognised from evidence */
	MACHINE_TOLD_BOCHS,	/* machine=bochs: Debian 12's Bochs 2.7 */
	MACHINE_TOLD_BOCHS_2_8,	/* machine=bochs-2.8: Bochs 2.8 (no package here; probed) */
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
 * machine=bochs (Debian 12's 2.7), 28 for machine=bochs-2.8, 30 for
 * machine=bochs-3.0; 0 when not
 * running_under_bochs().  Each Bochs workaround applies to the releases
 * whose bug it works around (kernel/arch/x86/trigger_bochs.c).
 */
unsigned int bochs_release(void);

/** bochs_release_name - bochs_release() as written: "2.7", "2.8", "3.0"; "" when not Bochs */
const char *bochs_release_name(void);

/** machine_name - "bochs", "qemu" or "unidentified", as machine_identify() reports */
const char *machine_name(void);

/**
 * machine_identify - report which machine this is: "# machine: ..." (after
 * the command line is parsed, before anything depends on the answer)
 */
void machine_identify(void);

#endif
