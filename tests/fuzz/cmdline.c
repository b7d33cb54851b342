// SPDX-License-Identifier: MIT
/*
 * Fuzz target: the command line (lib/cmdline.c) and the value parsers the
 * kernel's options use (KERNEL_OPTION() parsers beside their users, and
 * kernel/boot/options.c's walk: parse_u64, parse_bool, cmdline_copy_value,
 * cmdline_value_is; those need the kernel, so their pattern is repeated
 * here).  The input is the command line; it
 * ends at its first NUL, as the boot loader's does.
 */
#include <stdlib.h>

#include <lib/cmdline.h>
#include <lib/format.h>
#include <lib/string.h>

#include "fuzz.h"

static bool inside(const char *line, size_t line_length, const char *start, size_t length)
{
	return start >= line && length <= line_length && (size_t)(start - line) <= line_length - length;
}

/* What options.c does with a value, and that a number survives printing and parsing. */
static void parse_value(const struct cmdline_word *word)
{
	char copy[24];
	uint64_t number, again;
	bool flag;
	int length;
	size_t full;

	if (parse_u64(word->value, word->value_length, &number) == 0) {
		length = snprintf(copy, sizeof(copy), "%llu", (unsigned long long)number);
		FUZZ_CHECK(length > 0 && (size_t)length < sizeof(copy));
		FUZZ_CHECK(parse_u64(copy, (size_t)length, &again) == 0 && again == number);
	}
	parse_bool(word->value, word->value_length, &flag);
	parse_error_message(parse_u64(word->key, word->key_length, &number));
	for (size_t size = 0; size <= sizeof(copy); size += 8) {
		full = cmdline_copy_value(word, size ? copy : NULL, size);
		FUZZ_CHECK(full == word->value_length);
		if (size)
			FUZZ_CHECK(strlen(copy) == (full < size ? full : size - 1));
	}
	cmdline_value_is(word, "on");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cmdline_cursor cursor;
	struct cmdline_word word, found;
	char *line = malloc(size + 1);
	size_t line_length, words = 0;

	if (!line)
		fuzz_fail("out of memory");
	memcpy(line, data, size);
	line[size] = '\0';
	line_length = strlen(line);
	cmdline_start(&cursor, line);
	while (cmdline_next(&cursor, &word)) {
		FUZZ_CHECK(inside(line, line_length, word.text, word.text_length));
		FUZZ_CHECK(word.text_length > 0);
		FUZZ_CHECK(inside(word.text, word.text_length, word.key, word.key_length));
		FUZZ_CHECK(word.malformed == (word.error != NULL));
		FUZZ_CHECK(word.has_value || word.value_length == 0);
		if (word.has_value)
			FUZZ_CHECK(inside(word.text, word.text_length, word.value, word.value_length));
		parse_value(&word);
		if (!word.malformed && word.key_length < 32) {
			char key[32];

			memcpy(key, word.key, word.key_length);
			key[word.key_length] = '\0';
			FUZZ_CHECK(cmdline_key_is(&word, key));
			FUZZ_CHECK(cmdline_find(line, key, &found) && cmdline_key_is(&found, key));
		}
		FUZZ_CHECK(++words <= line_length);
	}
	FUZZ_CHECK(!cmdline_next(&cursor, &word));
	free(line);
	return 0;
}
