// SPDX-License-Identifier: MIT
/*
 * Command-line words and option values; the rules are in cmdline.h.
 *
 * Everything works on (pointer, length) pairs into the caller's string, so
 * nothing is copied or modified and there is no limit on a word's length.
 */
#include <lib/cmdline.h>

#include <lib/string.h>

static bool is_separator(char character)
{
	return character == ' ' || character == '\t' || character == '\n' || character == '\r';
}

void cmdline_start(struct cmdline_cursor *cursor, const char *cmdline)
{
	cursor->next = cmdline ? cmdline : "";
}

/* Fill in @word's value from the text after its '=', [@raw, @end). */
static const char *split_value(struct cmdline_word *word, const char *raw, const char *end)
{
	size_t raw_length = (size_t)(end - raw);
	const char *closing;

	word->has_value = true;
	if (raw_length == 0 || *raw != '"') {
		word->value = raw;
		word->value_length = raw_length;
		return memchr(raw, '"', raw_length) ? "quote inside value" : NULL;
	}
	word->value = raw + 1;
	closing = memchr(raw + 1, '"', raw_length - 1);
	if (!closing) {
		/* Unterminated: cmdline_next() reports it; keep what there is. */
		word->value_length = raw_length - 1;
		return NULL;
	}
	word->value_length = (size_t)(closing - (raw + 1));
	return closing + 1 != end ? "text after quote" : NULL;
}

bool cmdline_next(struct cmdline_cursor *cursor, struct cmdline_word *word)
{
	const char *p = cursor->next;
	const char *start, *equals, *value_error = NULL;
	bool in_quote = false;

	while (is_separator(*p))
		p++;
	if (*p == '\0') {
		cursor->next = p;
		return false;
	}

	/* The word ends at a separator outside quotes, or at the end of the line. */
	start = p;
	for (; *p != '\0' && (in_quote || !is_separator(*p)); p++) {
		if (*p == '"')
			in_quote = !in_quote;
	}
	cursor->next = p;

	*word = (struct cmdline_word){
		.text = start,
		.text_length = (size_t)(p - start),
		.key = start,
	};
	equals = memchr(start, '=', word->text_length);
	word->key_length = equals ? (size_t)(equals - start) : word->text_length;
	if (equals)
		value_error = split_value(word, equals + 1, p);

	/* An unterminated quote first: it is what swallowed the rest of the line. */
	if (in_quote)
		word->error = "unterminated quote";
	else if (word->key_length == 0)
		word->error = "empty key";
	else if (memchr(word->key, '"', word->key_length))
		word->error = "quote in key";
	else
		word->error = value_error;
	word->malformed = word->error != NULL;
	return true;
}

/* Whether the @length bytes at @text are exactly the string @expected. */
static bool span_is(const char *text, size_t length, const char *expected)
{
	/* strnlen: do not run past a long @expected when @length is short. */
	return strnlen(expected, length + 1) == length && memcmp(text, expected, length) == 0;
}

bool cmdline_key_is(const struct cmdline_word *word, const char *key)
{
	return span_is(word->key, word->key_length, key);
}

bool cmdline_value_is(const struct cmdline_word *word, const char *value)
{
	return word->has_value && !word->malformed &&
	       span_is(word->value, word->value_length, value);
}

int cmdline_value_index(const struct cmdline_word *word, const char *const *values, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		if (cmdline_value_is(word, values[i]))
			return (int)i;
	}
	return -1;
}

size_t cmdline_copy_value(const struct cmdline_word *word, char *buffer, size_t size)
{
	size_t length = word->has_value ? word->value_length : 0;

	if (size > 0) {
		size_t copied = length < size - 1 ? length : size - 1;

		if (copied > 0)
			memcpy(buffer, word->value, copied);
		buffer[copied] = '\0';
	}
	return length;
}

bool cmdline_find(const char *cmdline, const char *key, struct cmdline_word *word)
{
	struct cmdline_cursor cursor;
	struct cmdline_word candidate;
	bool found = false;

	cmdline_start(&cursor, cmdline);
	while (cmdline_next(&cursor, &candidate)) {
		if (cmdline_key_is(&candidate, key)) {
			*word = candidate;
			found = true;
		}
	}
	return found;
}

/* The value of a hex digit, or 16 for a character that is not one. */
static unsigned int digit_value(char character)
{
	if (character >= '0' && character <= '9')
		return (unsigned int)(character - '0');
	if (character >= 'a' && character <= 'f')
		return (unsigned int)(character - 'a' + 10);
	if (character >= 'A' && character <= 'F')
		return (unsigned int)(character - 'A' + 10);
	return 16;
}

int parse_u64(const char *text, size_t length, uint64_t *value)
{
	unsigned int base = 10;
	uint64_t result = 0;
	bool overflow = false;
	size_t i = 0;

	if (length == 0)
		return PARSE_ERROR_EMPTY;
	if (length >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
		base = 16;
		i = 2;
		if (length == 2)
			return PARSE_ERROR_INVALID;
	}
	/*
	 * Look at every character even after an overflow, so that
	 * "99999999999999999999x" is reported as not a number rather than
	 * as too large.
	 */
	for (; i < length; i++) {
		unsigned int digit = digit_value(text[i]);

		if (digit >= base)
			return PARSE_ERROR_INVALID;
		if (result > (UINT64_MAX - digit) / base)
			overflow = true;
		else
			result = result * base + digit;
	}
	if (overflow)
		return PARSE_ERROR_OVERFLOW;
	*value = result;
	return 0;
}

/* ASCII case-insensitive comparison of the @length bytes at @text with @word. */
static bool span_is_ignoring_case(const char *text, size_t length, const char *word)
{
	if (strnlen(word, length + 1) != length)
		return false;
	for (size_t i = 0; i < length; i++) {
		char character = text[i];

		if (character >= 'A' && character <= 'Z')
			character = (char)(character - 'A' + 'a');
		if (character != word[i])
			return false;
	}
	return true;
}

int parse_bool(const char *text, size_t length, bool *value)
{
	static const char *const true_words[] = { "on", "yes", "true", "1" };
	static const char *const false_words[] = { "off", "no", "false", "0" };

	if (length == 0)
		return PARSE_ERROR_EMPTY;
	for (size_t i = 0; i < sizeof(true_words) / sizeof(true_words[0]); i++) {
		if (span_is_ignoring_case(text, length, true_words[i])) {
			*value = true;
			return 0;
		}
		if (span_is_ignoring_case(text, length, false_words[i])) {
			*value = false;
			return 0;
		}
	}
	return PARSE_ERROR_INVALID;
}

const char *parse_error_message(int error)
{
	switch (error) {
	case 0:
		return "no error";
	case PARSE_ERROR_EMPTY:
		return "empty";
	case PARSE_ERROR_INVALID:
		return "invalid";
	case PARSE_ERROR_OVERFLOW:
		return "too large";
	}
	return "unknown error";
}
