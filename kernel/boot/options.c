// SPDX-License-Identifier: MIT
#include <trigos/boot.h>
#include <trigos/firmware_dump.h>
#include <trigos/hypervisor.h>
#include <trigos/ktap.h>
#include <trigos/options.h>
#include <trigos/cpu.h>
#include <trigos/smp.h>
#include <trigos/smp_call.h>
#include <trigos/spinlock.h>
#include <trigos/stop_machine.h>
#include <trigos/trigger_backend.h>
#include <trigos/watchdog.h>
#include <asm/entropy.h>
#include <lib/cmdline.h>
#include <lib/string.h>

struct kernel_options kernel_options = {
	.test = "",
	.repeat = 1,
	.exit_action = EXIT_ACTION_AUTO,
	.watchdog_seconds = WATCHDOG_DEFAULT_SECONDS,
	.trigger_backend = TRIGGER_BACKEND_AUTO,
};

#define REPEAT_MAX 100000

struct option {
	const char *key;
	const char *values;	/* shown when a value is rejected */
	/* Returns false when the value is bad; *error may say why. */
	bool (*apply)(const struct cmdline_word *word, const char **error);
};

/* A glob list into @buffer: test= and bench=. */
static bool apply_glob_list(const struct cmdline_word *word, const char **error, char *buffer,
			    size_t size)
{
	if (!word->has_value || word->value_length == 0)
		return false;
	if (word->value_length >= size) {
		*error = "too long";
		return false;
	}
	cmdline_copy_value(word, buffer, size);
	return true;
}

static bool apply_test(const struct cmdline_word *word, const char **error)
{
	return apply_glob_list(word, error, kernel_options.test, sizeof(kernel_options.test));
}

static bool apply_bench(const struct cmdline_word *word, const char **error)
{
	return apply_glob_list(word, error, kernel_options.bench, sizeof(kernel_options.bench));
}

static bool apply_seed(const struct cmdline_word *word, const char **error)
{
	uint64_t seed;
	int result = parse_u64(word->value, word->value_length, &seed);

	if (!word->has_value || result != 0) {
		*error = parse_error_message(word->has_value ? result : PARSE_ERROR_EMPTY);
		return false;
	}
	kernel_options.seed = seed;
	kernel_options.seed_given = true;
	return true;
}

static bool apply_repeat(const struct cmdline_word *word, const char **error)
{
	uint64_t repeat;
	int result = parse_u64(word->value, word->value_length, &repeat);

	if (!word->has_value || result != 0) {
		*error = parse_error_message(word->has_value ? result : PARSE_ERROR_EMPTY);
		return false;
	}
	if (repeat < 1 || repeat > REPEAT_MAX) {
		*error = "out of range";
		return false;
	}
	kernel_options.repeat = (unsigned int)repeat;
	return true;
}

static bool apply_number(const struct cmdline_word *word, const char **error, uint64_t minimum,
			 uint64_t maximum, unsigned int *out)
{
	uint64_t value;
	int result = parse_u64(word->value, word->value_length, &value);

	if (!word->has_value || result != 0) {
		*error = parse_error_message(word->has_value ? result : PARSE_ERROR_EMPTY);
		return false;
	}
	if (value < minimum || value > maximum) {
		*error = "out of range";
		return false;
	}
	*out = (unsigned int)value;
	return true;
}

static bool apply_watchdog(const struct cmdline_word *word, const char **error)
{
	return apply_number(word, error, 0, 86400, &kernel_options.watchdog_seconds);
}

static bool apply_cpus(const struct cmdline_word *word, const char **error)
{
	return apply_number(word, error, 1, MAX_CPUS, &kernel_options.expected_cpus);
}

static bool apply_smp_withhold(const struct cmdline_word *word, const char **error)
{
	return apply_number(word, error, 1, MAX_CPUS - 1, &kernel_options.smp_withhold_cpu);
}

static bool apply_smp_ap_delay_us(const struct cmdline_word *word, const char **error)
{
	return apply_number(word, error, 0, 500000, &kernel_options.smp_ap_delay_us);
}

static bool apply_trigger(const struct cmdline_word *word, const char **error)
{
	int backend = word->has_value ? trigger_backend_from_name(word->value, word->value_length) : -1;

	if (backend < 0)
		return false;
	kernel_options.trigger_backend = backend;
	return true;
}

static bool apply_trigger_spin_ns(const struct cmdline_word *word, const char **error)
{
	unsigned int value;

	if (!apply_number(word, error, 0, 100000000, &value))
		return false;
	kernel_options.trigger_spin_ns = value;
	return true;
}

static bool apply_mwait_hint(const struct cmdline_word *word, const char **error)
{
	return apply_number(word, error, 0, 0xff, &kernel_options.mwait_hint);
}

static bool apply_mcs_wait(const struct cmdline_word *word, const char **error)
{
	if (cmdline_value_is(word, "spin"))
		spinlock_set_mcs_wait_mode(MCS_WAIT_SPIN);
	else if (cmdline_value_is(word, "trigger"))
		spinlock_set_mcs_wait_mode(MCS_WAIT_TRIGGER);
	else
		return false;
	return true;
}

static bool apply_tsc_noise(const struct cmdline_word *word, const char **error)
{
	return apply_number(word, error, 0, 100, &kernel_options.tsc_noise_percent);
}

static bool apply_smp_start(const struct cmdline_word *word, const char **error)
{
	if (cmdline_value_is(word, "auto"))
		kernel_options.smp_start_sdm = false;
	else if (cmdline_value_is(word, "sdm"))
		kernel_options.smp_start_sdm = true;
	else
		return false;
	return true;
}
/* The test_break= names outside the trigger core, in TEST_BREAK_* bit order (options.h). */
static const char *const test_break_names[] = {
	"cr0_cd",
	"bochs_monitor_operand",
	"bochs_wake_ipi",
	"store_kick_elsewhere",
	"store_kicker_monitors",
};

static bool apply_test_break(const struct cmdline_word *word, const char **error)
{
	int mode = word->has_value ? trigger_test_break_from_name(word->value, word->value_length)
				   : -1;

	if (mode >= 0) {
		kernel_options.test_break = mode;
		return true;
	}
	for (size_t i = 0; i < sizeof(test_break_names) / sizeof(test_break_names[0]); i++) {
		if (cmdline_value_is(word, test_break_names[i])) {
			kernel_options.test_breaks |= 1u << i;
			return true;
		}
	}
	return false;
}

/*
 * test_drop_kick=call|stop_machine|mcs|bringup: one converted user's kicks
 * are dropped (its setter lives beside its kick), so that the suite that
 * checks that user's waits is seen to fail.
 */
static bool apply_test_drop_kick(const struct cmdline_word *word, const char **error)
{
	static const struct {
		const char *user;
		void (*drop)(bool drop);
	} users[] = {
		{ "call", smp_call_test_drop_kicks },
		{ "stop_machine", stop_machine_test_drop_kicks },
		{ "mcs", spinlock_test_drop_mcs_kicks },
		{ "bringup", smp_test_drop_bringup_kicks },
	};

	for (size_t i = 0; i < sizeof(users) / sizeof(users[0]); i++) {
		if (cmdline_value_is(word, users[i].user)) {
			users[i].drop(true);
			return true;
		}
	}
	return false;
}

static bool apply_torture(const struct cmdline_word *word, const char **error)
{
	if (cmdline_value_is(word, "quick"))
		kernel_options.torture_long = false;
	else if (cmdline_value_is(word, "long"))
		kernel_options.torture_long = true;
	else
		return false;
	return true;
}

static bool apply_exit(const struct cmdline_word *word, const char **error)
{
	static const struct {
		const char *name;
		enum exit_action action;
	} actions[] = {
		{ "auto", EXIT_ACTION_AUTO },
		{ "qemu", EXIT_ACTION_QEMU },
		{ "halt", EXIT_ACTION_HALT },
		{ "reboot", EXIT_ACTION_REBOOT },
		{ "poweroff", EXIT_ACTION_POWEROFF },
	};

	for (size_t i = 0; i < sizeof(actions) / sizeof(actions[0]); i++) {
		if (cmdline_value_is(word, actions[i].name)) {
			kernel_options.exit_action = actions[i].action;
			machine_set_exit_action(actions[i].action);
			return true;
		}
	}
	return false;
}

static bool apply_machine(const struct cmdline_word *word, const char **error)
{
	if (cmdline_value_is(word, "auto"))
		kernel_options.machine = MACHINE_TOLD_NOTHING;
	else if (cmdline_value_is(word, "bochs"))
		kernel_options.machine = MACHINE_TOLD_BOCHS;
	else
		return false;
	machine_set_told(kernel_options.machine);
	return true;
}

static bool apply_dump(const struct cmdline_word *word, const char **error)
{
	unsigned int mask = word->has_value ? firmware_dump_parse(word->value, word->value_length) : 0;

	if (!mask)
		return false;
	kernel_options.dump = mask;
	return true;
}

static bool apply_console(const struct cmdline_word *word, const char **error)
{
	struct console_choice *choice = &kernel_options.consoles;

	if (!word->has_value)
		return false;
	if (choice->count == CONSOLE_CHOICES_MAX) {
		*error = "too many console= words";
		return false;
	}
	*error = console_spec_parse(word->value, word->value_length, &choice->specs[choice->count]);
	if (*error)
		return false;
	choice->count++;
	return true;
}

static const struct option known_options[] = {
	{ "test", "a glob list, e.g. lib_*,paging", apply_test },
	{ "bench", "a glob list of benchmarks, e.g. trigger*,ipi", apply_bench },
	{ "seed", "a number", apply_seed },
	{ "repeat", "1..100000", apply_repeat },
	{ "exit", "auto, qemu, halt, reboot or poweroff", apply_exit },
	{ "machine", "auto or bochs", apply_machine },
	{ "watchdog", "seconds, 0..86400 (0: off)", apply_watchdog },
	{ "cpus", "the expected number of CPUs, 1..256", apply_cpus },
	{ "torture", "quick or long", apply_torture },
	{ "trigger", "auto, spin, mwait, hlt, adaptive, mwaitx or umwait", apply_trigger },
	{ "trigger_spin_ns", "nanoseconds, 0..100000000 (0: measured)", apply_trigger_spin_ns },
	{ "mwait_hint", "MWAIT's EAX hint, 0..255 (0: C1)", apply_mwait_hint },
	{ "mcs_wait", "spin or trigger", apply_mcs_wait },
	{ "test_break", "halt_window, kick, kick_fence, cr0_cd, bochs_monitor_operand, "
			"bochs_wake_ipi, store_kick_elsewhere or store_kicker_monitors (tests that "
			"must then fail)", apply_test_break },
	{ "test_drop_kick", "call, stop_machine, mcs or bringup (its suite must then fail)",
	  apply_test_drop_kick },
	{ "smp_withhold", "a logical CPU number, 1..255", apply_smp_withhold },
	{ "smp_start", "auto or sdm", apply_smp_start },
	{ "tsc_noise", "a percentage, 0..100", apply_tsc_noise },
	{ "smp_ap_delay_us", "microseconds, 0..500000", apply_smp_ap_delay_us },
	{ "dump", "multiboot, pvh, acpi, mptable or all, comma-separated", apply_dump },
	{ "console", "ttyS0..ttyS3[,BAUD] or fb, one or more words", apply_console },
};

/* Words the boot loader or Linux conventions put there that are not ours. */
static bool ignored_word(const struct cmdline_word *word)
{
	/* GRUB passes the kernel's path as the first word: /boot/trigos.elf */
	return word->key_length > 0 && word->key[0] == '/';
}

void options_parse(const char *cmdline, const char *source)
{
	struct cmdline_cursor cursor;
	struct cmdline_word word;

	cmdline_start(&cursor, cmdline);
	while (cmdline_next(&cursor, &word)) {
		const struct option *option = NULL;
		const char *error = NULL;

		if (word.malformed) {
			ktap_note("option: malformed word '%.*s' in the %s: %s; ignored",
				  (int)word.text_length, word.text, source,
				  word.error ? word.error : "bad syntax");
			continue;
		}
		if (ignored_word(&word))
			continue;
		for (size_t i = 0; i < sizeof(known_options) / sizeof(known_options[0]); i++) {
			if (cmdline_key_is(&word, known_options[i].key))
				option = &known_options[i];
		}
		if (!option) {
			ktap_note("option: unknown option '%.*s' in the %s; ignored",
				  (int)word.key_length, word.key, source);
			continue;
		}
		if (!option->apply(&word, &error))
			ktap_note("option: bad value '%.*s' for %s= in the %s (%s%s%s); "
				  "keeping the default", (int)word.value_length,
				  word.has_value ? word.value : "", option->key, source,
				  option->values, error ? ": " : "", error ? error : "");
	}
}

#define FW_CFG_CMDLINE_FILE "opt/trigos/cmdline"

void boot_options_init(void)
{
	static char fw_cfg_cmdline[BOOT_INFO_CMDLINE_SIZE];
	long size;

	options_parse(boot_info.cmdline, "boot loader command line");
	if (running_under_qemu()) {
		size = fw_cfg_read_file(FW_CFG_CMDLINE_FILE, fw_cfg_cmdline,
					sizeof(fw_cfg_cmdline) - 1);
		if (size >= (long)sizeof(fw_cfg_cmdline))
			ktap_note("option: fw_cfg %s is %ld bytes; only the first %zu are used",
				  FW_CFG_CMDLINE_FILE, size, sizeof(fw_cfg_cmdline) - 1);
		if (size > 0) {
			ktap_note("option: fw_cfg command line: %s", fw_cfg_cmdline);
			options_parse(fw_cfg_cmdline, "fw_cfg command line");
		}
	}
	if (!kernel_options.seed_given)
		kernel_options.seed = arch_entropy() % 1000000;
	ktap_note("seed=%llu (%s; pass seed=%llu to reproduce this run)",
		  (unsigned long long)kernel_options.seed,
		  kernel_options.seed_given ? "given" : "from the TSC",
		  (unsigned long long)kernel_options.seed);
}
