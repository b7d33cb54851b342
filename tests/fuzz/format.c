// SPDX-License-Identifier: MIT
/*
 * Fuzz target: vsnprintf's format handling (lib/format.c).
 *
 * Raw bytes as a format string would be undefined behaviour by
 * construction (a "%s" with no string), so the input is read as choices
 * in a grammar instead: each piece of output is some literal text and one
 * directive, whose flags, width, precision, length and conversion the
 * input picks, and the argument is passed with the type the directive
 * names.  Two kinds of piece:
 *
 *  - strict: only what C11 7.21.6.1 defines (no %p, no NULL %s, flags
 *    only where C gives them a meaning, widths below 100).  The result
 *    must be byte for byte what the host C library prints.
 *  - loose: also what only trigos defines (lib/format.h): %p, NULL %s,
 *    huge widths, unknown conversions, a length on %c, a format ending
 *    inside the directive.  Only self-consistency is checked.
 *
 * Every piece is also printed into a small buffer, which must hold a
 * NUL-terminated prefix of the full output, with the same return value.
 */
#include <stdio.h>

#include <lib/format.h>
#include <lib/string.h>

#include "fuzz.h"

/* The host C library's snprintf: host_names.h renamed ours to lib_snprintf. */
#undef snprintf
int snprintf(char *buffer, size_t size, const char *format, ...);

typedef int (*snprintf_function)(char *buffer, size_t size, const char *format, ...);

struct reader {
	const uint8_t *data;
	size_t size, position;
};

static uint8_t next(struct reader *reader)
{
	return reader->position < reader->size ? reader->data[reader->position++] : 0;
}

static uint64_t next_u64(struct reader *reader)
{
	uint64_t value = 0;

	for (int i = 0; i < 8; i++)
		value = value << 8 | next(reader);
	return value;
}

enum argument_type {
	ARG_NONE, ARG_INT, ARG_LONG, ARG_LONG_LONG, ARG_INTMAX,
	ARG_UNSIGNED, ARG_UNSIGNED_LONG, ARG_UNSIGNED_LONG_LONG, ARG_UINTMAX,
	ARG_STRING, ARG_POINTER,
};

struct piece {
	char format[96];
	size_t format_length;
	int stars[2];
	int star_count;
	enum argument_type type;
	uint64_t value;
	char string[24];
	bool null_string;
};

static void append(struct piece *piece, const char *text)
{
	size_t length = strlen(text);

	if (piece->format_length + length < sizeof(piece->format)) {
		memcpy(piece->format + piece->format_length, text, length + 1);
		piece->format_length += length;
	}
}

/* hh h l ll z t j and their argument types, signed then unsigned. */
static const struct {
	const char *text;
	enum argument_type signed_type, unsigned_type;
} lengths[] = {
	{ "", ARG_INT, ARG_UNSIGNED },
	{ "hh", ARG_INT, ARG_UNSIGNED },
	{ "h", ARG_INT, ARG_UNSIGNED },
	{ "l", ARG_LONG, ARG_UNSIGNED_LONG },
	{ "ll", ARG_LONG_LONG, ARG_UNSIGNED_LONG_LONG },
	{ "z", ARG_LONG, ARG_UNSIGNED_LONG },	/* size_t is unsigned long on x86-64 */
	{ "t", ARG_LONG, ARG_UNSIGNED_LONG },	/* ptrdiff_t is long */
	{ "j", ARG_INTMAX, ARG_UINTMAX },
};

/* A width or precision: none, digits or '*'. */
static void add_number(struct reader *reader, struct piece *piece, bool strict, bool precision)
{
	char digits[24];
	uint8_t choice = next(reader) % 4;

	if (choice == 0 || choice == 3)
		return;
	if (precision)
		append(piece, ".");
	if (choice == 2) {
		append(piece, "*");
		piece->stars[piece->star_count++] = strict ? (int8_t)next(reader) % 100
						   : (int)(int32_t)(next_u64(reader) >> 32);
		return;
	}
	if (strict)
		snprintf(digits, sizeof(digits), "%u", next(reader) % 100u);
	else
		snprintf(digits, sizeof(digits), "%llu", (unsigned long long)(next_u64(reader) >> 20));
	append(piece, digits);
}

static void build_piece(struct reader *reader, struct piece *piece, bool strict)
{
	static const char conversions[] = "diuxXcs%pqn";
	size_t literal = next(reader) % 8;
	uint8_t flags, length;
	char conversion;
	bool integer, is_signed;

	memset(piece, 0, sizeof(*piece));
	for (size_t i = 0; i < literal; i++) {
		char text[2] = { (char)next(reader), '\0' };

		append(piece, text[0] == '%' || text[0] == '\0' ? "%%" : text);
	}
	conversion = conversions[next(reader) % (strict ? 8 : sizeof(conversions) - 1)];
	integer = strchr("diuxX", conversion) != NULL;
	is_signed = conversion == 'd' || conversion == 'i';
	append(piece, "%");
	if (strict && conversion == '%') {
		append(piece, "%");
		return;
	}
	flags = next(reader);
	if (flags & 1)
		append(piece, "-");
	if ((flags & 2) && (integer || !strict))
		append(piece, "0");
	if ((flags & 4) && (is_signed || !strict))
		append(piece, "+");
	if ((flags & 8) && (is_signed || !strict))
		append(piece, " ");
	if ((flags & 16) && (conversion == 'x' || conversion == 'X' || !strict))
		append(piece, "#");
	if (!strict && (flags & 32))
		return;		/* the format ends inside the directive */
	add_number(reader, piece, strict, false);
	if (integer || conversion == 's' || !strict)
		add_number(reader, piece, strict, true);
	length = next(reader) % 8;
	if (integer || (!strict && (flags & 64)))
		append(piece, lengths[length].text);
	piece->format[piece->format_length++] = conversion;
	piece->format[piece->format_length] = '\0';
	piece->value = next_u64(reader);
	if (integer)
		piece->type = is_signed ? lengths[length].signed_type : lengths[length].unsigned_type;
	else if (conversion == 'c')
		piece->type = ARG_INT;
	else if (conversion == 'p')
		piece->type = ARG_POINTER;
	else if (conversion == 's')
		piece->type = ARG_STRING;
	for (size_t i = 0, n = next(reader) % sizeof(piece->string); i < n; i++)
		piece->string[i] = (char)(next(reader) | 1);
	piece->null_string = !strict && (flags & 128);
}

#define WITH_STARS(print, buffer, size, piece, argument)					\
	((piece)->star_count == 0 ? print(buffer, size, (piece)->format, argument) :		\
	 (piece)->star_count == 1 ? print(buffer, size, (piece)->format, (piece)->stars[0],	\
					  argument) :						\
	 print(buffer, size, (piece)->format, (piece)->stars[0], (piece)->stars[1], argument))

static int print_piece(snprintf_function print, char *buffer, size_t size,
		       const struct piece *piece)
{
	uint64_t v = piece->value;

	switch (piece->type) {
	case ARG_NONE:
	case ARG_INT:
		return WITH_STARS(print, buffer, size, piece, (int)v);
	case ARG_LONG:
		return WITH_STARS(print, buffer, size, piece, (long)v);
	case ARG_LONG_LONG:
		return WITH_STARS(print, buffer, size, piece, (long long)v);
	case ARG_INTMAX:
		return WITH_STARS(print, buffer, size, piece, (intmax_t)v);
	case ARG_UNSIGNED:
		return WITH_STARS(print, buffer, size, piece, (unsigned int)v);
	case ARG_UNSIGNED_LONG:
		return WITH_STARS(print, buffer, size, piece, (unsigned long)v);
	case ARG_UNSIGNED_LONG_LONG:
		return WITH_STARS(print, buffer, size, piece, (unsigned long long)v);
	case ARG_UINTMAX:
		return WITH_STARS(print, buffer, size, piece, (uintmax_t)v);
	case ARG_STRING:
		return WITH_STARS(print, buffer, size, piece,
				  piece->null_string ? (const char *)NULL : piece->string);
	case ARG_POINTER:
		return WITH_STARS(print, buffer, size, piece, (void *)(uintptr_t)v);
	}
	fuzz_fail("unknown argument type");
}

static char ours[4096], theirs[4096], small[64];

static void check_piece(const struct piece *piece, bool strict, size_t small_size)
{
	int length = print_piece(lib_snprintf, ours, sizeof(ours), piece);
	size_t kept;

	FUZZ_CHECK(length >= 0);
	if (strict) {
		int expected = print_piece(snprintf, theirs, sizeof(theirs), piece);

		if (length != expected || memcmp(ours, theirs, (size_t)length) != 0) {
			fprintf(stderr, "format \"%s\": trigos %d \"%s\", C library %d \"%s\"\n",
				piece->format, length, ours, expected, theirs);
			fuzz_fail("output differs from the C library's");
		}
	}
	FUZZ_CHECK(print_piece(lib_snprintf, small_size ? small : NULL, small_size, piece) ==
		   length);
	if (small_size == 0)
		return;
	kept = (size_t)length < small_size - 1 ? (size_t)length : small_size - 1;
	FUZZ_CHECK(small[kept] == '\0');
	FUZZ_CHECK(memcmp(small, ours, kept) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct reader reader = { .data = data, .size = size };
	struct piece piece;

	for (int pieces = 0; pieces < 16 && reader.position < reader.size; pieces++) {
		uint8_t mode = next(&reader);
		bool strict = (mode & 1) == 0;

		build_piece(&reader, &piece, strict);
		check_piece(&piece, strict, (mode >> 1) % sizeof(small));
	}
	return 0;
}
