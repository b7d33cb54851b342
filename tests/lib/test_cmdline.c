// SPDX-License-Identifier: MIT
/* Tests for kernel/lib/cmdline.c. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <harness/test.h>
#include <lib/cmdline.h>
#include <lib/string.h>

#define GUARD 0x5a

/*
 * The next word of @cursor must be @key with @value (NULL: no '='), well
 * formed.  Failures are reported at the caller's @line.
 */
static void expect_word(int line, struct cmdline_cursor *cursor, const char *key,
			const char *value)
{
	struct cmdline_word word;

	if (!cmdline_next(cursor, &word)) {
		test_report_failure(__FILE__, line, "no word where \"%s\" was expected", key);
		return;
	}
	if (word.malformed || word.error != NULL)
		test_report_failure(__FILE__, line, "\"%.*s\" malformed: %s",
				    (int)word.text_length, word.text, word.error);
	if (!cmdline_key_is(&word, key))
		test_report_failure(__FILE__, line, "key \"%.*s\", expected \"%s\"",
				    (int)word.key_length, word.key, key);
	if (value == NULL) {
		if (word.has_value || word.value != NULL || word.value_length != 0)
			test_report_failure(__FILE__, line, "\"%s\" has a value", key);
	} else if (!word.has_value || !cmdline_value_is(&word, value)) {
		test_report_failure(__FILE__, line, "value \"%.*s\" (has_value %d), expected \"%s\"",
				    (int)word.value_length, word.value ? word.value : "",
				    word.has_value, value);
	}
}

/* The next word must be malformed for @reason, with key @key. */
static void expect_malformed(int line, struct cmdline_cursor *cursor, const char *key,
			     const char *reason)
{
	struct cmdline_word word;

	if (!cmdline_next(cursor, &word)) {
		test_report_failure(__FILE__, line, "no word where \"%s\" was expected", key);
		return;
	}
	if (!word.malformed || word.error == NULL || strcmp(word.error, reason) != 0)
		test_report_failure(__FILE__, line, "\"%.*s\": error %s, expected %s",
				    (int)word.text_length, word.text,
				    word.error ? word.error : "(none)", reason);
	if (!cmdline_key_is(&word, key))
		test_report_failure(__FILE__, line, "key \"%.*s\", expected \"%s\"",
				    (int)word.key_length, word.key, key);
}

/* No word may be left. */
static void expect_end(int line, struct cmdline_cursor *cursor)
{
	struct cmdline_word word;

	if (cmdline_next(cursor, &word))
		test_report_failure(__FILE__, line, "unexpected word \"%.*s\"",
				    (int)word.text_length, word.text);
}

#define EXPECT_WORD(cursor, key, value)		expect_word(__LINE__, cursor, key, value)
#define EXPECT_MALFORMED(cursor, key, reason)	expect_malformed(__LINE__, cursor, key, reason)
#define EXPECT_END(cursor)			expect_end(__LINE__, cursor)

static void fill_guard(char *buffer, size_t size)
{
	for (size_t i = 0; i < size; i++)
		buffer[i] = (char)GUARD;
}

/* --- Splitting ------------------------------------------------------------ */

static void empty_line_has_no_words(void)
{
	struct cmdline_cursor cursor;

	cmdline_start(&cursor, "");
	EXPECT_END(&cursor);
	cmdline_start(&cursor, " \t\n\r  ");
	EXPECT_END(&cursor);
	cmdline_start(&cursor, NULL);
	EXPECT_END(&cursor);
}

static void end_is_sticky_and_leaves_word_alone(void)
{
	struct cmdline_cursor cursor;
	struct cmdline_word word;

	cmdline_start(&cursor, "only ");
	ASSERT_TRUE(cmdline_next(&cursor, &word));
	EXPECT_FALSE(cmdline_next(&cursor, &word));
	EXPECT_FALSE(cmdline_next(&cursor, &word));
	/* The failed calls did not touch the last word. */
	EXPECT_TRUE(cmdline_key_is(&word, "only"));
	EXPECT_EQ(word.key_length, 4u);
}

static void bare_key(void)
{
	const char *line = "quiet";
	struct cmdline_cursor cursor;
	struct cmdline_word word;

	cmdline_start(&cursor, line);
	ASSERT_TRUE(cmdline_next(&cursor, &word));
	EXPECT_EQ(word.key, line);
	EXPECT_EQ(word.key_length, 5u);
	EXPECT_EQ(word.text, line);
	EXPECT_EQ(word.text_length, 5u);
	EXPECT_FALSE(word.has_value);
	EXPECT_EQ(word.value, NULL);
	EXPECT_EQ(word.value_length, 0u);
	EXPECT_FALSE(word.malformed);
	EXPECT_EQ(word.error, NULL);
	EXPECT_END(&cursor);
}

static void key_and_value_point_into_the_line(void)
{
	const char *line = "  cpus=4 ";
	struct cmdline_cursor cursor;
	struct cmdline_word word;

	cmdline_start(&cursor, line);
	ASSERT_TRUE(cmdline_next(&cursor, &word));
	EXPECT_EQ(word.text, line + 2);
	EXPECT_EQ(word.text_length, 6u);
	EXPECT_EQ(word.key, line + 2);
	EXPECT_EQ(word.key_length, 4u);
	EXPECT_TRUE(word.has_value);
	EXPECT_EQ(word.value, line + 7);
	EXPECT_EQ(word.value_length, 1u);
	EXPECT_FALSE(word.malformed);
	EXPECT_END(&cursor);
}

static void splits_on_every_separator(void)
{
	struct cmdline_cursor cursor;

	cmdline_start(&cursor, "a=1\tb  c\nd=4\r\ne \t ");
	EXPECT_WORD(&cursor, "a", "1");
	EXPECT_WORD(&cursor, "b", NULL);
	EXPECT_WORD(&cursor, "c", NULL);
	EXPECT_WORD(&cursor, "d", "4");
	EXPECT_WORD(&cursor, "e", NULL);
	EXPECT_END(&cursor);
}

static void value_runs_to_the_word_end(void)
{
	struct cmdline_cursor cursor;

	/* Only the first '=' separates; the value keeps later ones. */
	cmdline_start(&cursor, "test=lib_*,paging.write a=b=c path=/boot/x.elf");
	EXPECT_WORD(&cursor, "test", "lib_*,paging.write");
	EXPECT_WORD(&cursor, "a", "b=c");
	EXPECT_WORD(&cursor, "path", "/boot/x.elf");
	EXPECT_END(&cursor);
}

static void empty_value(void)
{
	const char *line = "key= next";
	struct cmdline_cursor cursor;
	struct cmdline_word word;

	cmdline_start(&cursor, line);
	ASSERT_TRUE(cmdline_next(&cursor, &word));
	EXPECT_TRUE(word.has_value);
	EXPECT_EQ(word.value_length, 0u);
	EXPECT_EQ(word.value, line + 4);
	EXPECT_FALSE(word.malformed);
	EXPECT_TRUE(cmdline_value_is(&word, ""));
	EXPECT_FALSE(cmdline_value_is(&word, "next"));
	EXPECT_WORD(&cursor, "next", NULL);
	EXPECT_END(&cursor);
}

static void quoted_value_holds_separators(void)
{
	const char *line = "label=\"two words\" next";
	struct cmdline_cursor cursor;
	struct cmdline_word word;

	cmdline_start(&cursor, line);
	ASSERT_TRUE(cmdline_next(&cursor, &word));
	EXPECT_FALSE(word.malformed);
	EXPECT_TRUE(cmdline_key_is(&word, "label"));
	EXPECT_EQ(word.value, line + 7);
	EXPECT_EQ(word.value_length, 9u);
	EXPECT_TRUE(cmdline_value_is(&word, "two words"));
	/* The text is the word as written, quotes included. */
	EXPECT_EQ(word.text, line);
	EXPECT_EQ(word.text_length, 17u);
	EXPECT_WORD(&cursor, "next", NULL);
	EXPECT_END(&cursor);
}

static void quoted_values_of_every_kind(void)
{
	struct cmdline_cursor cursor;

	cmdline_start(&cursor, "a=\"\" b=\"x=y\tz\" c=\"\n\" d=\"plain\"");
	EXPECT_WORD(&cursor, "a", "");
	EXPECT_WORD(&cursor, "b", "x=y\tz");
	EXPECT_WORD(&cursor, "c", "\n");
	EXPECT_WORD(&cursor, "d", "plain");
	EXPECT_END(&cursor);
}

/* --- Malformed words ------------------------------------------------------ */

static void unterminated_quote_is_reported(void)
{
	const char *line = "x=1 label=\"oops more words";
	struct cmdline_cursor cursor;
	struct cmdline_word word;

	cmdline_start(&cursor, line);
	EXPECT_WORD(&cursor, "x", "1");
	ASSERT_TRUE(cmdline_next(&cursor, &word));
	EXPECT_TRUE(word.malformed);
	EXPECT_STREQ(word.error, "unterminated quote");
	EXPECT_TRUE(cmdline_key_is(&word, "label"));
	/* It swallowed the rest of the line, and its value is what there was. */
	EXPECT_EQ(word.text, line + 4);
	EXPECT_EQ(word.text_length, 22u);
	EXPECT_EQ(word.value, line + 11);
	EXPECT_EQ(word.value_length, 15u);
	/* A malformed word's value never matches. */
	EXPECT_FALSE(cmdline_value_is(&word, "oops more words"));
	EXPECT_END(&cursor);
}

static void unterminated_quote_at_the_very_end(void)
{
	struct cmdline_cursor cursor;

	cmdline_start(&cursor, "a=\"");
	EXPECT_MALFORMED(&cursor, "a", "unterminated quote");
	EXPECT_END(&cursor);
	cmdline_start(&cursor, "a=\"x\"\"");
	EXPECT_MALFORMED(&cursor, "a", "unterminated quote");
	EXPECT_END(&cursor);
	cmdline_start(&cursor, "ab\"cd ef");
	EXPECT_MALFORMED(&cursor, "ab\"cd ef", "unterminated quote");
	EXPECT_END(&cursor);
}

static void empty_key_is_reported(void)
{
	struct cmdline_cursor cursor;
	struct cmdline_word word;

	cmdline_start(&cursor, "=value ok");
	ASSERT_TRUE(cmdline_next(&cursor, &word));
	EXPECT_TRUE(word.malformed);
	EXPECT_STREQ(word.error, "empty key");
	EXPECT_EQ(word.key_length, 0u);
	EXPECT_TRUE(cmdline_key_is(&word, ""));
	EXPECT_WORD(&cursor, "ok", NULL);
	EXPECT_END(&cursor);

	cmdline_start(&cursor, "=");
	EXPECT_MALFORMED(&cursor, "", "empty key");
	EXPECT_END(&cursor);
}

static void quote_in_key_is_reported(void)
{
	struct cmdline_cursor cursor;

	/* The quoted space stays inside the word: no stray second word. */
	cmdline_start(&cursor, "\"a b\"=c next");
	EXPECT_MALFORMED(&cursor, "\"a b\"", "quote in key");
	EXPECT_WORD(&cursor, "next", NULL);
	EXPECT_END(&cursor);
	cmdline_start(&cursor, "k\"\"");
	EXPECT_MALFORMED(&cursor, "k\"\"", "quote in key");
	EXPECT_END(&cursor);
}

static void quote_inside_unquoted_value_is_reported(void)
{
	struct cmdline_cursor cursor;

	cmdline_start(&cursor, "a=x\"y z\" b");
	EXPECT_MALFORMED(&cursor, "a", "quote inside value");
	EXPECT_WORD(&cursor, "b", NULL);
	EXPECT_END(&cursor);
}

static void text_after_closing_quote_is_reported(void)
{
	struct cmdline_cursor cursor;
	struct cmdline_word word;

	cmdline_start(&cursor, "a=\"x\"y b");
	ASSERT_TRUE(cmdline_next(&cursor, &word));
	EXPECT_TRUE(word.malformed);
	EXPECT_STREQ(word.error, "text after quote");
	EXPECT_TRUE(cmdline_key_is(&word, "a"));
	EXPECT_EQ(word.value_length, 1u);
	EXPECT_EQ(word.text_length, 6u);
	EXPECT_WORD(&cursor, "b", NULL);
	EXPECT_END(&cursor);
}

static void words_after_a_malformed_one_are_found(void)
{
	struct cmdline_cursor cursor;

	cmdline_start(&cursor, "=x good=1 a=\"b\"c also");
	EXPECT_MALFORMED(&cursor, "", "empty key");
	EXPECT_WORD(&cursor, "good", "1");
	EXPECT_MALFORMED(&cursor, "a", "text after quote");
	EXPECT_WORD(&cursor, "also", NULL);
	EXPECT_END(&cursor);
}

/* --- Comparisons and copying ---------------------------------------------- */

static void key_is_compares_exactly(void)
{
	struct cmdline_cursor cursor;
	struct cmdline_word word;

	cmdline_start(&cursor, "quiet=1");
	ASSERT_TRUE(cmdline_next(&cursor, &word));
	EXPECT_TRUE(cmdline_key_is(&word, "quiet"));
	EXPECT_FALSE(cmdline_key_is(&word, "quie"));
	EXPECT_FALSE(cmdline_key_is(&word, "quieter"));
	EXPECT_FALSE(cmdline_key_is(&word, "Quiet"));
	EXPECT_FALSE(cmdline_key_is(&word, ""));
	EXPECT_FALSE(cmdline_key_is(&word, "quiet=1"));
}

static void value_is_compares_exactly(void)
{
	struct cmdline_cursor cursor;
	struct cmdline_word word;

	cmdline_start(&cursor, "mode=fast bare");
	ASSERT_TRUE(cmdline_next(&cursor, &word));
	EXPECT_TRUE(cmdline_value_is(&word, "fast"));
	EXPECT_FALSE(cmdline_value_is(&word, "fas"));
	EXPECT_FALSE(cmdline_value_is(&word, "faster"));
	EXPECT_FALSE(cmdline_value_is(&word, "FAST"));
	EXPECT_FALSE(cmdline_value_is(&word, ""));
	/* A bare key has no value, not even an empty one. */
	ASSERT_TRUE(cmdline_next(&cursor, &word));
	EXPECT_FALSE(cmdline_value_is(&word, ""));
	EXPECT_FALSE(cmdline_value_is(&word, "bare"));
}

static void value_index_finds_the_first_equal_value(void)
{
	static const char *const modes[] = { "auto", "fast", "slow", "fast" };
	struct cmdline_cursor cursor;
	struct cmdline_word word;

	cmdline_start(&cursor, "mode=fast mode=auto mode=fas mode= bare \"oops");
	ASSERT_TRUE(cmdline_next(&cursor, &word));
	EXPECT_EQ(cmdline_value_index(&word, modes, 4), 1);
	EXPECT_EQ(cmdline_value_index(&word, modes, 1), -1);
	ASSERT_TRUE(cmdline_next(&cursor, &word));
	EXPECT_EQ(cmdline_value_index(&word, modes, 4), 0);
	ASSERT_TRUE(cmdline_next(&cursor, &word));
	EXPECT_EQ(cmdline_value_index(&word, modes, 4), -1);
	ASSERT_TRUE(cmdline_next(&cursor, &word));
	EXPECT_EQ(cmdline_value_index(&word, modes, 4), -1);
	ASSERT_TRUE(cmdline_next(&cursor, &word));
	EXPECT_EQ(cmdline_value_index(&word, modes, 4), -1);
	EXPECT_EQ(cmdline_value_index(&word, modes, 0), -1);
}

static void copy_value_copies_and_terminates(void)
{
	struct cmdline_cursor cursor;
	struct cmdline_word word;
	char buffer[16];

	cmdline_start(&cursor, "label=\"two words\" bare");
	ASSERT_TRUE(cmdline_next(&cursor, &word));
	fill_guard(buffer, sizeof(buffer));
	EXPECT_EQ(cmdline_copy_value(&word, buffer, sizeof(buffer)), 9u);
	EXPECT_STREQ(buffer, "two words");
	EXPECT_EQ((unsigned char)buffer[10], GUARD);

	/* No value: copies "" and returns 0. */
	ASSERT_TRUE(cmdline_next(&cursor, &word));
	fill_guard(buffer, sizeof(buffer));
	EXPECT_EQ(cmdline_copy_value(&word, buffer, sizeof(buffer)), 0u);
	EXPECT_STREQ(buffer, "");
	EXPECT_EQ((unsigned char)buffer[1], GUARD);
}

static void copy_value_truncates(void)
{
	struct cmdline_cursor cursor;
	struct cmdline_word word;
	char buffer[8];

	cmdline_start(&cursor, "name=abcdefghij");
	ASSERT_TRUE(cmdline_next(&cursor, &word));

	fill_guard(buffer, sizeof(buffer));
	EXPECT_EQ(cmdline_copy_value(&word, buffer, 5), 10u);
	EXPECT_STREQ(buffer, "abcd");
	EXPECT_EQ((unsigned char)buffer[5], GUARD);

	fill_guard(buffer, sizeof(buffer));
	EXPECT_EQ(cmdline_copy_value(&word, buffer, 1), 10u);
	EXPECT_EQ(buffer[0], '\0');
	EXPECT_EQ((unsigned char)buffer[1], GUARD);

	/* Size 0 writes nothing at all. */
	fill_guard(buffer, sizeof(buffer));
	EXPECT_EQ(cmdline_copy_value(&word, buffer, 0), 10u);
	EXPECT_EQ((unsigned char)buffer[0], GUARD);
}

static void find_returns_the_last_match(void)
{
	const char *line = "seed=1 quiet seed=2 seeds=3";
	struct cmdline_word word;

	ASSERT_TRUE(cmdline_find(line, "seed", &word));
	EXPECT_EQ(word.value, line + 18);
	EXPECT_TRUE(cmdline_value_is(&word, "2"));
	ASSERT_TRUE(cmdline_find(line, "quiet", &word));
	EXPECT_FALSE(word.has_value);
	EXPECT_FALSE(cmdline_find(line, "see", &word));
	EXPECT_FALSE(cmdline_find(line, "missing", &word));
	EXPECT_FALSE(cmdline_find("", "seed", &word));
	EXPECT_FALSE(cmdline_find(NULL, "seed", &word));
	/* Malformed words are found too, for the caller to report. */
	ASSERT_TRUE(cmdline_find("label=\"open", "label", &word));
	EXPECT_TRUE(word.malformed);
}

/* --- Numbers and booleans ------------------------------------------------- */

/* parse_u64() over a whole NUL-terminated string. */
static int parse_number(const char *text, uint64_t *value)
{
	return parse_u64(text, strlen(text), value);
}

static void parses_decimal(void)
{
	uint64_t value = 99;

	EXPECT_EQ(parse_number("0", &value), 0);
	EXPECT_EQ(value, 0u);
	EXPECT_EQ(parse_number("42", &value), 0);
	EXPECT_EQ(value, 42u);
	EXPECT_EQ(parse_number("000123", &value), 0);
	EXPECT_EQ(value, 123u);
	EXPECT_EQ(parse_number("18446744073709551615", &value), 0);
	EXPECT_EQ(value, UINT64_MAX);
	EXPECT_EQ(parse_number("18446744073709551610", &value), 0);
	EXPECT_EQ(value, UINT64_MAX - 5);
	EXPECT_EQ(parse_number("00000000000000000000018446744073709551615", &value), 0);
	EXPECT_EQ(value, UINT64_MAX);
}

static void parses_hexadecimal(void)
{
	uint64_t value = 99;

	EXPECT_EQ(parse_number("0x0", &value), 0);
	EXPECT_EQ(value, 0u);
	EXPECT_EQ(parse_number("0x10", &value), 0);
	EXPECT_EQ(value, 16u);
	EXPECT_EQ(parse_number("0XdeadBEEF", &value), 0);
	EXPECT_EQ(value, 0xdeadbeefu);
	EXPECT_EQ(parse_number("0xFFFFFFFFFFFFFFFF", &value), 0);
	EXPECT_EQ(value, UINT64_MAX);
	EXPECT_EQ(parse_number("0x00000000000000000001", &value), 0);
	EXPECT_EQ(value, 1u);
	EXPECT_EQ(parse_number("0x8000000000000000", &value), 0);
	EXPECT_EQ(value, 1ull << 63);
}

static void rejects_overflow(void)
{
	uint64_t value = 99;

	EXPECT_EQ(parse_number("18446744073709551616", &value), PARSE_ERROR_OVERFLOW);
	EXPECT_EQ(parse_number("18446744073709551620", &value), PARSE_ERROR_OVERFLOW);
	EXPECT_EQ(parse_number("99999999999999999999", &value), PARSE_ERROR_OVERFLOW);
	EXPECT_EQ(parse_number("184467440737095516150", &value), PARSE_ERROR_OVERFLOW);
	EXPECT_EQ(parse_number("0x10000000000000000", &value), PARSE_ERROR_OVERFLOW);
	EXPECT_EQ(parse_number("0x1FFFFFFFFFFFFFFFF", &value), PARSE_ERROR_OVERFLOW);
	/* Junk wins over overflow: that is not a number at all. */
	EXPECT_EQ(parse_number("99999999999999999999x", &value), PARSE_ERROR_INVALID);
	/* Failures leave the value alone. */
	EXPECT_EQ(value, 99u);
}

static void rejects_empty_and_junk(void)
{
	uint64_t value = 99;

	EXPECT_EQ(parse_number("", &value), PARSE_ERROR_EMPTY);
	EXPECT_EQ(parse_u64(NULL, 0, &value), PARSE_ERROR_EMPTY);
	EXPECT_EQ(parse_number("0x", &value), PARSE_ERROR_INVALID);
	EXPECT_EQ(parse_number("0X", &value), PARSE_ERROR_INVALID);
	EXPECT_EQ(parse_number("12a", &value), PARSE_ERROR_INVALID);
	EXPECT_EQ(parse_number("a12", &value), PARSE_ERROR_INVALID);
	EXPECT_EQ(parse_number("0x1g", &value), PARSE_ERROR_INVALID);
	EXPECT_EQ(parse_number("-1", &value), PARSE_ERROR_INVALID);
	EXPECT_EQ(parse_number("+1", &value), PARSE_ERROR_INVALID);
	EXPECT_EQ(parse_number(" 1", &value), PARSE_ERROR_INVALID);
	EXPECT_EQ(parse_number("1 ", &value), PARSE_ERROR_INVALID);
	EXPECT_EQ(parse_number("1k", &value), PARSE_ERROR_INVALID);
	EXPECT_EQ(parse_number("0x0x1", &value), PARSE_ERROR_INVALID);
	EXPECT_EQ(parse_number("x10", &value), PARSE_ERROR_INVALID);
	EXPECT_EQ(parse_number("1.5", &value), PARSE_ERROR_INVALID);
	/* Hex digits without the prefix are not decimal. */
	EXPECT_EQ(parse_number("ff", &value), PARSE_ERROR_INVALID);
	EXPECT_EQ(value, 99u);
}

static void number_parsing_respects_the_length(void)
{
	/* Not NUL-terminated: nothing past the length may be read. */
	const char digits[6] = { '1', '2', '3', '4', '5', '6' };
	const char hex[4] = { '0', 'x', 'a', 'b' };
	uint64_t value = 0;

	EXPECT_EQ(parse_u64(digits, 3, &value), 0);
	EXPECT_EQ(value, 123u);
	EXPECT_EQ(parse_u64(digits, sizeof(digits), &value), 0);
	EXPECT_EQ(value, 123456u);
	EXPECT_EQ(parse_u64(hex, sizeof(hex), &value), 0);
	EXPECT_EQ(value, 0xabu);
	/* "0x" cut to "0": plain zero. */
	EXPECT_EQ(parse_u64(hex, 1, &value), 0);
	EXPECT_EQ(value, 0u);
	EXPECT_EQ(parse_u64(hex, 2, &value), PARSE_ERROR_INVALID);
	EXPECT_EQ(parse_u64("12 junk", 2, &value), 0);
	EXPECT_EQ(value, 12u);
}

static void parses_option_values_from_words(void)
{
	struct cmdline_cursor cursor;
	struct cmdline_word word;
	uint64_t value = 0;

	cmdline_start(&cursor, "cpus=8 mem=0x1000 bad=8x");
	ASSERT_TRUE(cmdline_next(&cursor, &word));
	EXPECT_EQ(parse_u64(word.value, word.value_length, &value), 0);
	EXPECT_EQ(value, 8u);
	ASSERT_TRUE(cmdline_next(&cursor, &word));
	EXPECT_EQ(parse_u64(word.value, word.value_length, &value), 0);
	EXPECT_EQ(value, 0x1000u);
	ASSERT_TRUE(cmdline_next(&cursor, &word));
	EXPECT_EQ(parse_u64(word.value, word.value_length, &value), PARSE_ERROR_INVALID);
}

/* parse_bool() over a whole NUL-terminated string. */
static int parse_flag(const char *text, bool *value)
{
	return parse_bool(text, strlen(text), value);
}

static void parses_booleans(void)
{
	static const char *const true_words[] = { "on", "yes", "true", "1", "ON", "Yes", "tRuE" };
	static const char *const false_words[] = { "off", "no", "false", "0", "OFF", "No", "FALSE" };

	for (size_t i = 0; i < sizeof(true_words) / sizeof(true_words[0]); i++) {
		bool value = false;

		if (parse_flag(true_words[i], &value) != 0 || !value)
			test_report_failure(__FILE__, __LINE__, "\"%s\" is not true", true_words[i]);
	}
	for (size_t i = 0; i < sizeof(false_words) / sizeof(false_words[0]); i++) {
		bool value = true;

		if (parse_flag(false_words[i], &value) != 0 || value)
			test_report_failure(__FILE__, __LINE__, "\"%s\" is not false",
					    false_words[i]);
	}
}

static void rejects_other_booleans(void)
{
	static const char *const rejected[] = {
		"2", "onn", "o", "of", "yes ", " no", "truex", "tru", "01", "y", "n", "enable", "-1",
	};
	bool value = true;

	EXPECT_EQ(parse_flag("", &value), PARSE_ERROR_EMPTY);
	EXPECT_EQ(parse_bool(NULL, 0, &value), PARSE_ERROR_EMPTY);
	for (size_t i = 0; i < sizeof(rejected) / sizeof(rejected[0]); i++) {
		if (parse_flag(rejected[i], &value) != PARSE_ERROR_INVALID)
			test_report_failure(__FILE__, __LINE__, "\"%s\" accepted", rejected[i]);
	}
	EXPECT_TRUE(value);
}

static void boolean_parsing_respects_the_length(void)
{
	const char onward[6] = { 'o', 'n', 'w', 'a', 'r', 'd' };
	bool value = false;

	EXPECT_EQ(parse_bool(onward, 2, &value), 0);
	EXPECT_TRUE(value);
	EXPECT_EQ(parse_bool(onward, 1, &value), PARSE_ERROR_INVALID);
	EXPECT_EQ(parse_bool(onward, sizeof(onward), &value), PARSE_ERROR_INVALID);
	EXPECT_EQ(parse_bool("nothing", 2, &value), 0);
	EXPECT_FALSE(value);
}

static void error_messages(void)
{
	EXPECT_STREQ(parse_error_message(0), "no error");
	EXPECT_STREQ(parse_error_message(PARSE_ERROR_EMPTY), "empty");
	EXPECT_STREQ(parse_error_message(PARSE_ERROR_INVALID), "invalid");
	EXPECT_STREQ(parse_error_message(PARSE_ERROR_OVERFLOW), "too large");
	EXPECT_STREQ(parse_error_message(-100), "unknown error");
	/* The codes are distinct and negative. */
	EXPECT_LT(PARSE_ERROR_EMPTY, 0);
	EXPECT_LT(PARSE_ERROR_INVALID, 0);
	EXPECT_LT(PARSE_ERROR_OVERFLOW, 0);
	EXPECT_NE(PARSE_ERROR_EMPTY, PARSE_ERROR_INVALID);
	EXPECT_NE(PARSE_ERROR_EMPTY, PARSE_ERROR_OVERFLOW);
	EXPECT_NE(PARSE_ERROR_INVALID, PARSE_ERROR_OVERFLOW);
}

static const struct test_case lib_cmdline_cases[] = {
	TEST_CASE(empty_line_has_no_words),
	TEST_CASE(end_is_sticky_and_leaves_word_alone),
	TEST_CASE(bare_key),
	TEST_CASE(key_and_value_point_into_the_line),
	TEST_CASE(splits_on_every_separator),
	TEST_CASE(value_runs_to_the_word_end),
	TEST_CASE(empty_value),
	TEST_CASE(quoted_value_holds_separators),
	TEST_CASE(quoted_values_of_every_kind),
	TEST_CASE(unterminated_quote_is_reported),
	TEST_CASE(unterminated_quote_at_the_very_end),
	TEST_CASE(empty_key_is_reported),
	TEST_CASE(quote_in_key_is_reported),
	TEST_CASE(quote_inside_unquoted_value_is_reported),
	TEST_CASE(text_after_closing_quote_is_reported),
	TEST_CASE(words_after_a_malformed_one_are_found),
	TEST_CASE(key_is_compares_exactly),
	TEST_CASE(value_is_compares_exactly),
	TEST_CASE(value_index_finds_the_first_equal_value),
	TEST_CASE(copy_value_copies_and_terminates),
	TEST_CASE(copy_value_truncates),
	TEST_CASE(find_returns_the_last_match),
	TEST_CASE(parses_decimal),
	TEST_CASE(parses_hexadecimal),
	TEST_CASE(rejects_overflow),
	TEST_CASE(rejects_empty_and_junk),
	TEST_CASE(number_parsing_respects_the_length),
	TEST_CASE(parses_option_values_from_words),
	TEST_CASE(parses_booleans),
	TEST_CASE(rejects_other_booleans),
	TEST_CASE(boolean_parsing_respects_the_length),
	TEST_CASE(error_messages),
};
TEST_SUITE(lib_cmdline, lib_cmdline_cases, NULL, NULL);
