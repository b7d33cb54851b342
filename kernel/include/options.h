/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_OPTIONS_H
#define TRIGOS_OPTIONS_H
/*
 * Kernel command-line options: key=value words from the boot loader's
 * command line, then from QEMU's fw_cfg file opt/trigos/cmdline (tools/run
 * --cmdline), later words overriding earlier ones.  An unknown key or a bad
 * value is reported as a KTAP diagnostic and the default is kept: a typo
 * must not stop a run, nor pass silently.
 */

#include <stdbool.h>
#include <stdint.h>
#include <console_setup.h>
#include <machine.h>

#define OPTION_GLOB_SIZE 256

struct kernel_options {
	char test[OPTION_GLOB_SIZE];	/* test=GLOB[,GLOB]: suites or suite.case; "" all */
	char bench[OPTION_GLOB_SIZE];	/* bench=GLOB[,GLOB]: benchmarks, bench_ prefix optional */
	uint64_t seed;			/* seed=N: the pseudo-random stream */
	bool seed_given;
	unsigned int repeat;		/* repeat=N: run each selected case N times */
	enum exit_action exit_action;	/* exit=auto|qemu|halt|reboot|poweroff */
	enum machine_told machine;	/* machine=auto|bochs: what the kernel is told it runs on */
	unsigned int watchdog_seconds;	/* watchdog=S: end a case after S seconds, 0 off */
	unsigned int expected_cpus;	/* cpus=N: how many should come online, 0 unknown */
	bool torture_long;		/* torture=quick|long: how long torture suites run */
	int trigger_backend;		/* trigger=auto|spin|mwait|hlt|adaptive|mwaitx|umwait */
	uint64_t trigger_spin_ns;	/* trigger_spin_ns=N: adaptive's spin budget, 0 measured */
	unsigned int mwait_hint;	/* mwait_hint=N: MWAIT's EAX (C-state), default 0 (C1) */
	unsigned int smp_withhold_cpu;	/* smp_withhold=N: never start logical CPU N (tests the
					 * path of an AP that does not come up); 0: none */
	unsigned int smp_ap_delay_us;	/* smp_ap_delay_us=N: each AP waits N us before it comes
					 * online, so that the BSP's bring-up wait really waits */
	int test_break;			/* test_break=halt_window|kick|kick_fence: enum
					 * trigger_test_break, applied by the trigger tests */
	unsigned int dump;		/* dump=acpi,multiboot,...: FIRMWARE_DUMP_* (firmware_dump.h) */
	unsigned int breaks;		/* break=NAME,...: BREAK_* below, test only */
	struct console_choice consoles;	/* console=ttyS<N>[,BAUD]|fb, repeatable; none: all */
};

extern struct kernel_options kernel_options;

/*
 * break=NAME[,NAME]: test only.  Each name breaks one property on purpose,
 * so that the test of that property is seen failing (the matrix has a
 * section for each that expects the failure).  Never for real runs.
 */
#define BREAK_CR0_CD		(1u << 0)	/* cr0_cd: one AP sets CR0.CD and NW after bring-up */
#define BREAK_BOCHS_MONITOR_OPERAND (1u << 1)	/* bochs_monitor_operand: no INVLPG (bug 1) */
#define BREAK_BOCHS_WAKE_IPI	(1u << 2)	/* bochs_wake_ipi: MWAIT sleepers not IPI'd (bug 3) */
#define BREAK_STORE_KICK_ELSEWHERE (1u << 3)	/* store_kick_elsewhere: the store test's kicker
						 * writes another line, not the trigger's */
#define BREAK_STORE_KICKER_MONITORS (1u << 4)	/* store_kicker_monitors: the store test's kicker
						 * executes MONITOR before it kicks (bug 3) */

/** option_break - whether break=@what (a BREAK_* bit) was given */
static inline bool option_break(unsigned int what)
{
	return (kernel_options.breaks & what) != 0;
}

/** options_parse - apply every word of @cmdline; @source names it in messages */
void options_parse(const char *cmdline, const char *source);

/**
 * boot_options_init - parse the loader's command line, then (under QEMU)
 * fw_cfg's opt/trigos/cmdline; pick a seed from the TSC if none was given
 */
void boot_options_init(void);

#endif
