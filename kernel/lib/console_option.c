// SPDX-License-Identifier: MIT
#include <lib/console_option.h>

#include <lib/cmdline.h>
#include <lib/string.h>

#define SERIAL_PREFIX		"ttyS"
#define SERIAL_PREFIX_LENGTH	4
#define MINIMUM_BAUD		50

static bool is(const char *value, size_t length, const char *word)
{
	return length == strlen(word) && memcmp(value, word, length) == 0;
}

static const char *parse_baud(const char *text, size_t length, unsigned int *baud)
{
	uint64_t value;

	/* "115200n8": the framing the console uses anyway may be spelt out. */
	if (length > 2 && memcmp(text + length - 2, "n8", 2) == 0)
		length -= 2;
	if (parse_u64(text, length, &value) != 0)
		return "the baud rate is not a number";
	if (value < MINIMUM_BAUD || value > CONSOLE_DEFAULT_BAUD ||
	    CONSOLE_DEFAULT_BAUD % value != 0)
		return "the baud rate must divide 115200 (e.g. 115200, 57600, 38400, 9600)";
	*baud = (unsigned int)value;
	return NULL;
}

const char *console_spec_parse(const char *value, size_t length, struct console_spec *spec)
{
	const char *comma;

	if (is(value, length, "auto")) {
		spec->kind = CONSOLE_KIND_AUTO;
		spec->port = 0;
		spec->baud = 0;
		return NULL;
	}
	if (is(value, length, "lp0")) {
		spec->kind = CONSOLE_KIND_PARALLEL;
		spec->port = 0;
		spec->baud = 0;
		return NULL;
	}
	if (is(value, length, "fb") || is(value, length, "tty0")) {
		spec->kind = CONSOLE_KIND_SCREEN;
		spec->port = 0;
		spec->baud = 0;
		return NULL;
	}
	if (length <= SERIAL_PREFIX_LENGTH || memcmp(value, SERIAL_PREFIX, SERIAL_PREFIX_LENGTH) != 0)
		return "expected ttyS0..ttyS3[,BAUD], fb, tty0, auto or lp0";
	value += SERIAL_PREFIX_LENGTH;
	length -= SERIAL_PREFIX_LENGTH;
	if (value[0] < '0' || value[0] >= '0' + CONSOLE_SERIAL_PORTS ||
	    (length > 1 && value[1] != ','))
		return "only ttyS0..ttyS3 (COM1-COM4) exist";
	spec->kind = CONSOLE_KIND_SERIAL;
	spec->port = (unsigned int)(value[0] - '0');
	spec->baud = CONSOLE_DEFAULT_BAUD;
	comma = memchr(value, ',', length);
	if (!comma)
		return NULL;
	return parse_baud(comma + 1, length - (size_t)(comma + 1 - value), &spec->baud);
}
