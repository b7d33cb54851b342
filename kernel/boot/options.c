// SPDX-License-Identifier: MIT
/*
 * The command line's walk: each word is looked up among the options their
 * users declare (KERNEL_OPTION(), options.h) and handed to its parser; a
 * malformed word, an unknown key or a value its parser rejects is reported
 * as a KTAP note and the run goes on with the default.
 */
#include <boot/boot.h>
#include <arch/hypervisor.h>
#include <log/log.h>
#include <boot/options.h>
#include <lib/cmdline.h>

extern const struct kernel_option *const __start_kernel_options[];
extern const struct kernel_option *const __stop_kernel_options[];

struct kernel_options kernel_options = {
	.test = "",
	.repeat = 1,
};

bool option_parse_glob_list(const struct cmdline_word *word, const char **error, char *buffer,
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

bool option_parse_number(const struct cmdline_word *word, const char **error, uint64_t minimum,
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

const struct kernel_option *const *options_table(size_t *count)
{
	*count = (size_t)(__stop_kernel_options - __start_kernel_options);
	return __start_kernel_options;
}

/* The option whose key @word has, or NULL. */
static const struct kernel_option *find_option(const struct cmdline_word *word)
{
	for (const struct kernel_option *const *option = __start_kernel_options;
	     option < __stop_kernel_options; option++) {
		if (cmdline_key_is(word, (*option)->key))
			return *option;
	}
	return NULL;
}

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
		const struct kernel_option *option;
		const char *error = NULL;

		if (word.malformed) {
			ktap_note("option: malformed word '%.*s' in the %s: %s; ignored",
				  (int)word.text_length, word.text, source,
				  word.error ? word.error : "bad syntax");
			continue;
		}
		if (ignored_word(&word))
			continue;
		option = find_option(&word);
		if (!option) {
			ktap_note("option: unknown option '%.*s' in the %s; ignored",
				  (int)word.key_length, word.key, source);
			continue;
		}
		if (!option->parse(&word, &error))
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
}
