// SPDX-License-Identifier: MIT
/*
 * vsnprintf() and friends; the accepted directives are described in
 * format.h.  One pass over the format: each directive is parsed into a
 * struct conversion, its argument fetched, and its characters sent to a
 * struct output that stores what fits and counts everything.
 */
#include <lib/format.h>

#include <stdbool.h>
#include <stdint.h>

#include <lib/string.h>

/*
 * Not from <limits.h>: in the kernel build (-nostdinc) gcc's limits.h
 * #include_next's the C library's, which is not there.  gcc predefines
 * the value; limits.h itself takes it from there.
 */
#define INT_MAX __INT_MAX__
#define INT_MIN (-__INT_MAX__ - 1)

/*
 * %zd reads the signed type corresponding to size_t and %tu the unsigned
 * one corresponding to ptrdiff_t (C11 7.21.6.1p7).  C has no name for
 * either; on every target the kernel has they are ptrdiff_t and size_t.
 */
_Static_assert(sizeof(ptrdiff_t) == sizeof(size_t), "ptrdiff_t and size_t differ in size");
_Static_assert(sizeof(uintmax_t) <= sizeof(uint64_t), "uintmax_t wider than 64 bits");

/* The output so far: @length counts every character, stored or not. */
struct output {
	char *buffer;
	size_t size;
	size_t length;
	/* vformat_to(): every piece goes to @sink instead, nothing is stored. */
	format_sink_fn sink;
	void *sink_context;
};

enum length_modifier {
	LENGTH_DEFAULT,
	LENGTH_HH,
	LENGTH_H,
	LENGTH_L,
	LENGTH_LL,
	LENGTH_Z,
	LENGTH_T,
	LENGTH_J,
};

/* One parsed directive. */
struct conversion {
	bool left_justify;
	bool zero_pad;
	bool plus_sign;
	bool space_sign;
	bool alternate_form;
	bool has_precision;
	size_t width;
	size_t precision;
	enum length_modifier length;
};

/* How many more characters fit before the byte reserved for the NUL. */
static size_t room_left(const struct output *out)
{
	if (out->size == 0 || out->length >= out->size - 1)
		return 0;
	return out->size - 1 - out->length;
}

/* Saturate rather than wrap, so that the length is never under-reported. */
static void count_characters(struct output *out, size_t count)
{
	out->length = count > SIZE_MAX - out->length ? SIZE_MAX : out->length + count;
}

static void put_characters(struct output *out, const char *text, size_t count)
{
	size_t stored = count < room_left(out) ? count : room_left(out);

	if (out->sink) {
		if (count)
			out->sink(out->sink_context, text, count);
		count_characters(out, count);
		return;
	}

	for (size_t i = 0; i < stored; i++)
		out->buffer[out->length + i] = text[i];
	count_characters(out, count);
}

static void put_character(struct output *out, char character)
{
	put_characters(out, &character, 1);
}

/* Padding: only the part that fits is written, the rest just counted. */
static void put_repeated(struct output *out, char character, size_t count)
{
	size_t stored = count < room_left(out) ? count : room_left(out);

	if (out->sink) {
		/* A piece at a time: a huge width must not need a huge buffer. */
		static const char spaces[16] = "                ", zeros[16] = "0000000000000000";

		for (size_t left = count; left > 0;) {
			size_t piece = left < sizeof(spaces) ? left : sizeof(spaces);

			out->sink(out->sink_context, character == '0' ? zeros : spaces, piece);
			left -= piece;
		}
		count_characters(out, count);
		return;
	}

	for (size_t i = 0; i < stored; i++)
		out->buffer[out->length + i] = character;
	count_characters(out, count);
}

/* @text justified in a field of conversion->width (for %s, %c and %p). */
static void put_field(struct output *out, const struct conversion *conversion,
		      const char *text, size_t length)
{
	size_t padding = conversion->width > length ? conversion->width - length : 0;

	if (!conversion->left_justify)
		put_repeated(out, ' ', padding);
	put_characters(out, text, length);
	if (conversion->left_justify)
		put_repeated(out, ' ', padding);
}

/*
 * An integer: [padding][sign][0x][zeros]digits[padding], following
 * C11 7.21.6.1 for which of those appear and how long they are.
 * @sign is '-', '+', ' ' or 0 for none.
 */
static void put_integer(struct output *out, const struct conversion *conversion,
			uint64_t magnitude, char sign, unsigned int base, bool uppercase)
{
	const char *digit_set = uppercase ? "0123456789ABCDEF" : "0123456789abcdef";
	char digits[20];	/* UINT64_MAX has 20 decimal digits, 16 hex */
	size_t digit_count = 0, zeros = 0, used, padding;
	size_t prefix_length = 0;
	bool nonzero = magnitude != 0;

	/* "The result of converting a zero value with a precision of zero is no characters." */
	if (nonzero || !conversion->has_precision || conversion->precision != 0) {
		do {
			digits[digit_count++] = digit_set[magnitude % base];
			magnitude /= base;
		} while (magnitude != 0);
	}
	/* '#' prefixes 0x only to a nonzero value. */
	if (conversion->alternate_form && base == 16 && nonzero)
		prefix_length = 2;

	if (conversion->has_precision && conversion->precision > digit_count)
		zeros = conversion->precision - digit_count;
	used = (sign != 0) + prefix_length + digit_count;
	if (!conversion->has_precision && conversion->zero_pad && !conversion->left_justify &&
	    conversion->width > used)
		zeros = conversion->width - used;
	used += zeros;
	padding = conversion->width > used ? conversion->width - used : 0;

	if (!conversion->left_justify)
		put_repeated(out, ' ', padding);
	if (sign != 0)
		put_character(out, sign);
	if (prefix_length != 0)
		put_characters(out, uppercase ? "0X" : "0x", 2);
	put_repeated(out, '0', zeros);
	while (digit_count > 0)
		put_character(out, digits[--digit_count]);
	if (conversion->left_justify)
		put_repeated(out, ' ', padding);
}

/* The va_arg type for each length modifier, signed (C11 7.21.6.1p7). */
static int64_t fetch_signed(enum length_modifier length, va_list *args)
{
	switch (length) {
	case LENGTH_HH:
		return (signed char)va_arg(*args, int);
	case LENGTH_H:
		return (short)va_arg(*args, int);
	case LENGTH_L:
		return va_arg(*args, long);
	case LENGTH_LL:
		return va_arg(*args, long long);
	case LENGTH_Z:
	case LENGTH_T:
		return va_arg(*args, ptrdiff_t);
	case LENGTH_J:
		return va_arg(*args, intmax_t);
	case LENGTH_DEFAULT:
		break;
	}
	return va_arg(*args, int);
}

/* ... and unsigned. */
static uint64_t fetch_unsigned(enum length_modifier length, va_list *args)
{
	switch (length) {
	case LENGTH_HH:
		return (unsigned char)va_arg(*args, unsigned int);
	case LENGTH_H:
		return (unsigned short)va_arg(*args, unsigned int);
	case LENGTH_L:
		return va_arg(*args, unsigned long);
	case LENGTH_LL:
		return va_arg(*args, unsigned long long);
	case LENGTH_Z:
	case LENGTH_T:
		return va_arg(*args, size_t);
	case LENGTH_J:
		return va_arg(*args, uintmax_t);
	case LENGTH_DEFAULT:
		break;
	}
	return va_arg(*args, unsigned int);
}

/* Digits of a width or precision, saturating at INT_MAX (C gives them type int). */
static size_t parse_count(const char **cursor)
{
	size_t value = 0;

	while (**cursor >= '0' && **cursor <= '9') {
		size_t digit = (size_t)(**cursor - '0');

		value = value > (INT_MAX - digit) / 10 ? INT_MAX : value * 10 + digit;
		(*cursor)++;
	}
	return value;
}

/* Parse flags, width, precision and length; leave *cursor on the conversion. */
static void parse_conversion(const char **cursor, struct conversion *conversion, va_list *args)
{
	const char *p = *cursor;

	*conversion = (struct conversion){ .length = LENGTH_DEFAULT };
	for (;; p++) {
		if (*p == '-')
			conversion->left_justify = true;
		else if (*p == '0')
			conversion->zero_pad = true;
		else if (*p == '+')
			conversion->plus_sign = true;
		else if (*p == ' ')
			conversion->space_sign = true;
		else if (*p == '#')
			conversion->alternate_form = true;
		else
			break;
	}

	if (*p == '*') {
		int width = va_arg(*args, int);

		/*
		 * "A negative field width argument is taken as a - flag followed
		 * by a positive field width"; -INT_MIN is no int, so clamp it.
		 */
		if (width < 0) {
			conversion->left_justify = true;
			conversion->width = width == INT_MIN ? (size_t)INT_MAX : (size_t)-width;
		} else {
			conversion->width = (size_t)width;
		}
		p++;
	} else {
		conversion->width = parse_count(&p);
	}

	if (*p == '.') {
		p++;
		conversion->has_precision = true;
		if (*p == '*') {
			int precision = va_arg(*args, int);

			/* "A negative precision argument is taken as if the precision were omitted." */
			if (precision < 0)
				conversion->has_precision = false;
			else
				conversion->precision = (size_t)precision;
			p++;
		} else {
			/* A lone '.' means precision zero. */
			conversion->precision = parse_count(&p);
		}
	}

	switch (*p) {
	case 'h':
		p++;
		conversion->length = LENGTH_H;
		if (*p == 'h') {
			p++;
			conversion->length = LENGTH_HH;
		}
		break;
	case 'l':
		p++;
		conversion->length = LENGTH_L;
		if (*p == 'l') {
			p++;
			conversion->length = LENGTH_LL;
		}
		break;
	case 'z':
		p++;
		conversion->length = LENGTH_Z;
		break;
	case 't':
		p++;
		conversion->length = LENGTH_T;
		break;
	case 'j':
		p++;
		conversion->length = LENGTH_J;
		break;
	}
	*cursor = p;
}

/*
 * Convert one argument for @conversion_character.  Return false, having
 * consumed no argument and written nothing, if the directive is not one we
 * accept; the caller then prints it as written.
 */
static bool put_argument(struct output *out, const struct conversion *conversion,
			 char conversion_character, va_list *args)
{
	bool integer = conversion_character == 'd' || conversion_character == 'i' ||
		       conversion_character == 'u' || conversion_character == 'x' ||
		       conversion_character == 'X';

	if (!integer && conversion->length != LENGTH_DEFAULT)
		return false;

	switch (conversion_character) {
	case 'd':
	case 'i': {
		int64_t value = fetch_signed(conversion->length, args);
		char sign = 0;

		if (value < 0)
			sign = '-';
		else if (conversion->plus_sign)
			sign = '+';
		else if (conversion->space_sign)
			sign = ' ';
		/* Negate in unsigned arithmetic: -INT64_MIN overflows int64_t. */
		put_integer(out, conversion, value < 0 ? 0 - (uint64_t)value : (uint64_t)value,
			    sign, 10, false);
		return true;
	}
	case 'u':
		put_integer(out, conversion, fetch_unsigned(conversion->length, args), 0, 10, false);
		return true;
	case 'x':
	case 'X':
		put_integer(out, conversion, fetch_unsigned(conversion->length, args), 0, 16,
			    conversion_character == 'X');
		return true;
	case 'c': {
		char character = (char)va_arg(*args, int);

		put_field(out, conversion, &character, 1);
		return true;
	}
	case 's': {
		const char *text = va_arg(*args, const char *);

		if (text == NULL)
			text = "(null)";
		/* strnlen: with a precision the string need not be NUL-terminated. */
		put_field(out, conversion, text,
			  strnlen(text, conversion->has_precision ? conversion->precision : SIZE_MAX));
		return true;
	}
	case 'p': {
		uintptr_t address = (uintptr_t)va_arg(*args, void *);
		char text[2 + 16];

		text[0] = '0';
		text[1] = 'x';
		for (size_t i = 0; i < 16; i++)
			text[2 + i] = "0123456789abcdef"[(address >> (60 - 4 * i)) & 0xf];
		put_field(out, conversion, text, sizeof(text));
		return true;
	}
	case '%':
		put_character(out, '%');
		return true;
	}
	return false;
}

/* The one pass over @format, into @out (a buffer, or a sink). */
static void format_into(struct output *out, const char *format, va_list args)
{
	va_list arguments;

	/*
	 * Work on a copy so the helpers can take a pointer to it: on x86-64
	 * va_list is an array type, and &args of the parameter would not be a
	 * va_list *.
	 */
	va_copy(arguments, args);
	while (*format != '\0') {
		const char *directive = format;
		struct conversion conversion;

		if (*format != '%') {
			/* Copy the whole run of plain text at once. */
			while (*format != '\0' && *format != '%')
				format++;
			put_characters(out, directive, (size_t)(format - directive));
			continue;
		}
		format++;
		parse_conversion(&format, &conversion, &arguments);
		if (*format != '\0' && put_argument(out, &conversion, *format, &arguments)) {
			format++;
			continue;
		}
		/* Unknown or cut short by the end: print it as written, never past the NUL. */
		if (*format != '\0')
			format++;
		put_characters(out, directive, (size_t)(format - directive));
	}
	va_end(arguments);
}

int vsnprintf(char *buffer, size_t size, const char *format, va_list args)
{
	struct output out = { .buffer = buffer, .size = size, .length = 0 };

	format_into(&out, format, args);
	if (size > 0)
		buffer[out.length < size - 1 ? out.length : size - 1] = '\0';
	return out.length > INT_MAX ? INT_MAX : (int)out.length;
}

int snprintf(char *buffer, size_t size, const char *format, ...)
{
	va_list args;
	int length;

	va_start(args, format);
	length = vsnprintf(buffer, size, format, args);
	va_end(args);
	return length;
}

int vscnprintf(char *buffer, size_t size, const char *format, va_list args)
{
	int length = vsnprintf(buffer, size, format, args);

	if (size == 0)
		return 0;
	/* vsnprintf() stored min(length, size - 1) characters. */
	return (size_t)length < size - 1 ? length : (int)(size - 1 > INT_MAX ? INT_MAX : size - 1);
}

int scnprintf(char *buffer, size_t size, const char *format, ...)
{
	va_list args;
	int length;

	va_start(args, format);
	length = vscnprintf(buffer, size, format, args);
	va_end(args);
	return length;
}

int vformat_to(format_sink_fn sink, void *context, const char *format, va_list args)
{
	struct output out = { .sink = sink, .sink_context = context };

	format_into(&out, format, args);
	return out.length > INT_MAX ? INT_MAX : (int)out.length;
}
