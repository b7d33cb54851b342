/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_OPTIONS_H
#define TRIGOS_OPTIONS_H
/*
 * Kernel command-line options: key=value words from the boot loader's
 * command line, then from QEMU's fw_cfg file opt/trigos/cmdline (tools/run
 * --cmdline), later words overriding earlier ones.  An unknown key or a bad
 * value is reported as a KTAP diagnostic and the default is kept: a typo
 * must not stop a run, nor pass silently.
 *
 * Each option is declared beside the code that uses it, with its key, the
 * values it takes and its parser:
 *
 *	static bool parse_watchdog(const struct cmdline_word *word, const char **error)
 *	{
 *		return option_parse_number(word, error, 0, 86400, &timeout_seconds);
 *	}
 *	KERNEL_OPTION(watchdog, "seconds, 0..86400 (0: off)", parse_watchdog);
 *
 * KERNEL_OPTION() places a pointer to it in the .kernel_options.* linker
 * section (linker.ld sorts them by key); kernel/boot/options.c only walks
 * the command line, finds each word's option there and reports the words it
 * cannot apply.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <lib/cmdline.h>

/**
 * struct kernel_option - one key of the command line
 * @key: the word's key, before '='
 * @values: what it takes, shown when a value is rejected
 * @parse: applies @word's value; returns false if it is bad (then *error
 *         may say why, and the diagnostic adds it after @values)
 */
struct kernel_option {
	const char *key;
	const char *values;
	bool (*parse)(const struct cmdline_word *word, const char **error);
};

/* The key is a C identifier: it names the option's objects and section. */
#define KERNEL_OPTION(option_key, help, parse_fn)                                 \
	static const struct kernel_option kernel_option_##option_key = {           \
		.key = #option_key,                                                 \
		.values = help,                                                     \
		.parse = parse_fn,                                                  \
	};                                                                          \
	static const struct kernel_option *const kernel_option_pointer_##option_key \
		__attribute__((used, section(".kernel_options." #option_key))) =     \
			&kernel_option_##option_key

/**
 * option_parse_number - a decimal or 0x number in @minimum..@maximum into *@out
 * (else false, with *@error saying why)
 */
bool option_parse_number(const struct cmdline_word *word, const char **error, uint64_t minimum,
			 uint64_t maximum, unsigned int *out);

/** option_parse_glob_list - a non-empty value that fits @size bytes into @buffer */
bool option_parse_glob_list(const struct cmdline_word *word, const char **error, char *buffer,
			    size_t size);

#define OPTION_GLOB_SIZE 256

/*
 * The values of the options that more than one file reads (kmain, which
 * hands them on, and the tests count).  Each is still parsed beside its
 * main user; an option read by one file only keeps its value there.
 */
struct kernel_options {
	char test[OPTION_GLOB_SIZE];	/* test=GLOB[,GLOB]: suites or suite.case; "" all */
	char bench[OPTION_GLOB_SIZE];	/* bench=GLOB[,GLOB]: benchmarks, bench_ prefix optional */
	uint64_t seed;			/* seed=N: the pseudo-random stream */
	bool seed_given;
	unsigned int repeat;		/* repeat=N: run each selected case N times */
	unsigned int expected_cpus;	/* cpus=N: how many should come online, 0 unknown */
	bool torture_long;		/* torture=quick|long: how long torture suites run */
	unsigned int smp_withhold_cpu;	/* smp_withhold=N: never start logical CPU N (tests the
					 * path of an AP that does not come up); 0: none */
	unsigned int test_breaks;	/* test_break=: TEST_BREAK_* bits (its one home) */
	unsigned int test_late_waiter_us; /* test_late_waiter_us=N: the trigger suite's remote
					 * waiters pause N us between "about to wait" and their
					 * first wait, as a descheduled vCPU does */
	unsigned int test_late_kicker_us; /* test_late_kicker_us=N: a trigger-suite kicker that
					 * waited for its waiter to be where the kick must find
					 * it pauses N us before its kick, as a descheduled
					 * vCPU does */
};

extern struct kernel_options kernel_options;

/*
 * The test_break= switches, named in this bit order by trigger_options.c:
 * each breaks one property on purpose so that its test is seen failing;
 * the matrix has a section for each that expects the failure.  Never for
 * real runs.
 */
#define TEST_BREAK_CR0_CD			(1u << 0)	/* cr0_cd: an AP sets CR0.CD, NW */
#define TEST_BREAK_BOCHS_MONITOR_OPERAND	(1u << 1)	/* no INVLPG before MONITOR */
#define TEST_BREAK_BOCHS_WAKE_IPI		(1u << 2)	/* MWAIT sleepers get no IPI */
#define TEST_BREAK_STORE_KICK_ELSEWHERE		(1u << 3)	/* the store test's kicker stores
								 * to another line */
#define TEST_BREAK_STORE_KICKER_MONITORS	(1u << 4)	/* ... executes MONITOR first */
#define TEST_BREAK_HALT_WINDOW			(1u << 5)	/* the interrupts-on halt window
								 * unmarked (the trigger tests) */
#define TEST_BREAK_KICK				(1u << 6)	/* the trigger tests' kicks do
								 * nothing */
#define TEST_BREAK_KICK_FENCE			(1u << 7)	/* their generation update a
								 * plain store, unfenced */
#define TEST_BREAK_EXAMPLE_NO_KICK		(1u << 8)	/* tests/example.c: replies
								 * without their kick */
#define TEST_BREAK_SKIP_HALT			(1u << 9)	/* skip_halt: the halting backends
								 * never execute their HLT */
#define TEST_BREAK_NMI_FIXUP_IRET		(1u << 10)	/* nmi_fixup_iret: a fault fixed
								 * up in an NMI handler returns
								 * with IRET */
#define TEST_BREAK_UMWAIT_NO_LIMIT		(1u << 11)	/* the UMWAIT limit test sets
								 * no IA32_UMWAIT_CONTROL limit */
#define TEST_BREAK_PROBE_WARM_LATE		(1u << 12)	/* the store probes' kicker warms
								 * its mapping after the MONITOR */
#define TEST_BREAK_ABANDONED_SLOT		(1u << 13)	/* a work slot given up after a
								 * time-out is never freed */
#define TEST_BREAK_UNAWAITED_WORK		(1u << 14)	/* the next case starts while
								 * work a case gave up on runs */
#define TEST_BREAK_LAPIC_WINDOW			(1u << 15)	/* the LAPIC timer's calibration
								 * takes a 20 ms window as 10 */

/** test_break_given - whether test_break= named @what (a TEST_BREAK_* bit) */
static inline bool test_break_given(unsigned int what)
{
	return (kernel_options.test_breaks & what) != 0;
}

/** options_table - every KERNEL_OPTION() linked in, sorted by key; *@count of them */
const struct kernel_option *const *options_table(size_t *count);

/** options_parse - apply every word of @cmdline; @source names it in messages */
void options_parse(const char *cmdline, const char *source);

/**
 * boot_options_init - parse the loader's command line, then (under QEMU)
 * fw_cfg's opt/trigos/cmdline (kmain() then has the harness choose the seed)
 */
void boot_options_init(void);

#endif
