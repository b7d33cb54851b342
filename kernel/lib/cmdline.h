/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_LIB_CMDLINE_H
#define TRIGOS_LIB_CMDLINE_H
/*
 * The kernel command line, split into words without copying or changing it.
 *
 * Words are separated by runs of spaces, tabs, carriage returns and
 * newlines.  A word is a bare "key" or "key=value"; the key runs to the
 * first '=' and the value is everything after it, so "a=b=c" has key "a"
 * and value "b=c".  A value may be enclosed in double quotes to hold
 * separators: label="two words" has the value "two words" (there are no
 * escapes, so a quoted value cannot hold '"').
 *
 * Anything else is returned as a malformed word with a reason, so that the
 * caller can report it and carry on with the rest of the line:
 *
 *	unterminated quote	a '"' with no closing one; the word runs to
 *				the end of the line
 *	empty key		"=value"
 *	quote in key		'"' before the '='
 *	quote inside value	a '"' in a value that does not start with one
 *	text after quote	key="value"junk
 *
 * A quote anywhere keeps separators inside it part of the word, so a
 * malformed word never spills its quoted part into following words.
 *
 * Usage:
 *
 *	struct cmdline_cursor cursor;
 *	struct cmdline_word word;
 *
 *	cmdline_start(&cursor, boot_info->cmdline);
 *	while (cmdline_next(&cursor, &word)) {
 *		if (word.malformed)
 *			warn("%.*s: %s", (int)word.text_length, word.text, word.error);
 *		else if (cmdline_key_is(&word, "seed"))
 *			error = parse_u64(word.value, word.value_length, &seed);
 *	}
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * struct cmdline_word - one word of the command line, pointing into it
 * @text:		the word as written, quotes included (not NUL-terminated)
 * @text_length:	its length in bytes
 * @key:		the key: @text up to the first '=' or the end
 * @key_length:		its length in bytes
 * @value:		the value, without its quotes; NULL if !@has_value
 * @value_length:	its length in bytes; 0 if !@has_value
 * @has_value:		the word has an '=' (the value may still be empty)
 * @malformed:		the word breaks the rules above; @key and @value are
 *			then a best effort
 * @error:		why it is malformed (a constant string), NULL if it is not
 */
struct cmdline_word {
	const char *text;
	size_t text_length;
	const char *key;
	size_t key_length;
	const char *value;
	size_t value_length;
	bool has_value;
	bool malformed;
	const char *error;
};

/**
 * struct cmdline_cursor - where cmdline_next() goes on from
 * @next: the first character not yet consumed
 */
struct cmdline_cursor {
	const char *next;
};

/**
 * cmdline_start - begin splitting a command line
 * @cursor: the cursor to set up
 * @cmdline: the NUL-terminated command line; NULL is taken as empty.  It
 *           must stay unchanged while its words are in use.
 */
void cmdline_start(struct cmdline_cursor *cursor, const char *cmdline);

/**
 * cmdline_next - the next word of the command line
 * @cursor: as set up by cmdline_start()
 * @word: filled in with the word
 *
 * Return: true with @word filled in, or false (and @word untouched) when
 * no words are left; it then keeps returning false.
 */
bool cmdline_next(struct cmdline_cursor *cursor, struct cmdline_word *word);

/**
 * cmdline_key_is - whether @word's key is exactly @key
 * @word: a word from cmdline_next(), malformed or not
 * @key: NUL-terminated key to compare with (case-sensitive)
 */
bool cmdline_key_is(const struct cmdline_word *word, const char *key);

/**
 * cmdline_value_is - whether @word has exactly the value @value
 * @word: a word from cmdline_next()
 * @value: NUL-terminated value to compare with (case-sensitive)
 *
 * Return: false for a word without '=' (even if @value is ""), and for a
 * malformed word.
 */
bool cmdline_value_is(const struct cmdline_word *word, const char *value);

/**
 * cmdline_value_index - which of @values @word's value is
 * @word: a word from cmdline_next()
 * @values: @count NUL-terminated values, compared as cmdline_value_is() does
 *
 * Return: the index of the first value equal to @word's, or -1 (also for a
 * word without '=' and for a malformed word).
 */
int cmdline_value_index(const struct cmdline_word *word, const char *const *values, size_t count);

/**
 * cmdline_copy_value - copy @word's value out as a NUL-terminated string
 * @word: a word from cmdline_next(); one without a value copies ""
 * @buffer: where to copy to
 * @size: size of @buffer; at most @size - 1 bytes are copied, and nothing
 *        at all is written if @size is 0
 *
 * Return: the value's full length, as strlcpy() does: the copy was
 * truncated if that is >= @size.
 */
size_t cmdline_copy_value(const struct cmdline_word *word, char *buffer, size_t size);

/**
 * cmdline_find - the last word of @cmdline whose key is @key
 * @cmdline: NUL-terminated command line (NULL is empty)
 * @key: the key to look for
 * @word: filled in with the word if found
 *
 * The last one, so that an option appended to a command line overrides
 * an earlier setting.  Malformed words are candidates too: the caller
 * should check @word->malformed.
 *
 * Return: true if found.
 */
bool cmdline_find(const char *cmdline, const char *key, struct cmdline_word *word);

/* Return values of parse_u64() and parse_bool(); success is 0. */
#define PARSE_ERROR_EMPTY	(-1)	/* no characters at all */
#define PARSE_ERROR_INVALID	(-2)	/* not a number / not a boolean word */
#define PARSE_ERROR_OVERFLOW	(-3)	/* a number above UINT64_MAX */

/**
 * parse_u64 - parse a decimal or 0x-prefixed hexadecimal number
 * @text: the characters (need not be NUL-terminated)
 * @length: how many of them; all must belong to the number
 * @value: set to the number on success, untouched on failure
 *
 * Accepts [0-9]+ or 0x/0X followed by [0-9a-fA-F]+; no sign, no spaces,
 * no suffixes.  Leading zeros are allowed and do not mean octal.
 *
 * Return: 0 on success; PARSE_ERROR_EMPTY for @length 0,
 * PARSE_ERROR_INVALID for any other character (or a bare "0x"),
 * PARSE_ERROR_OVERFLOW for a well-formed number above UINT64_MAX.
 */
int parse_u64(const char *text, size_t length, uint64_t *value);

/**
 * parse_bool - parse on/off, yes/no, true/false or 1/0
 * @text: the characters (need not be NUL-terminated)
 * @length: how many of them
 * @value: set on success, untouched on failure
 *
 * The words are matched ignoring ASCII case ("On", "TRUE").
 *
 * Return: 0 on success, PARSE_ERROR_EMPTY for @length 0,
 * PARSE_ERROR_INVALID for anything else.
 */
int parse_bool(const char *text, size_t length, bool *value);

/**
 * parse_error_message - a short description of a parse_*() return value
 * @error: 0 or a PARSE_ERROR_* code
 *
 * Return: a constant string, e.g. "empty" for PARSE_ERROR_EMPTY.
 */
const char *parse_error_message(int error);

#endif /* TRIGOS_LIB_CMDLINE_H */
