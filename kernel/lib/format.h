/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_LIB_FORMAT_H
#define TRIGOS_LIB_FORMAT_H
/*
 * printf-style formatting into a buffer, for the kernel's console and logs.
 *
 * The accepted directives are a subset of C11 7.21.6.1, with its meaning:
 *
 *	%[flags][width][.precision][length]conversion
 *
 *	flags		'-' left-justify, '0' pad with zeros, '+' always a sign,
 *			' ' a space where '+' would be, '#' 0x/0X for %x/%X
 *	width		digits or '*' (an int argument; negative means '-')
 *	precision	'.' then digits or '*' (an int argument; negative means
 *			none): minimum digits for integers, at most that many
 *			bytes for %s
 *	length		hh h l ll z t j, for d i u x X only
 *	conversion	d i u x X c s p %
 *
 * As in C, '-' overrides '0', '+' overrides ' ', '0' is ignored when a
 * precision is given, and a zero with precision 0 prints no digits.
 * Beyond C (whose behaviour there is undefined):
 *
 *	%p	"0x" and 16 hex digits, whatever the pointer; only width and
 *		'-' apply
 *	%s	a NULL argument prints "(null)" (cut by the precision like
 *		any string)
 *	%%	prints '%' whatever flags, width or precision it has
 *	other	an unknown conversion, a length modifier on c/s/p, or a
 *		format ending inside a directive prints the directive as
 *		written and consumes no argument for it (any '*' already did)
 *
 * There is no floating point (the kernel is built -mgeneral-regs-only) and
 * no %n.  Widths and precisions above INT_MAX are treated as INT_MAX.
 * Padding beyond the end of the buffer is counted, not produced, so a huge
 * width costs no more time than the buffer is long.
 */

#include <stdarg.h>
#include <stddef.h>

/**
 * vsnprintf - format into a buffer of @size bytes
 * @buffer: where the result goes; may be NULL when @size is 0
 * @size: size of @buffer in bytes
 * @format: the format string (see the top of this header)
 * @args: the arguments, as by va_start()
 *
 * Writes at most @size - 1 characters and always NUL-terminates when
 * @size > 0; writes nothing when @size is 0.
 *
 * Return: the number of characters (excluding the NUL) that the complete
 * result has, written or not, as in C99; the output was truncated if that
 * is >= @size.  A result longer than INT_MAX returns INT_MAX.
 */
int vsnprintf(char *buffer, size_t size, const char *format, va_list args)
	__attribute__((format(printf, 3, 0)));

/**
 * snprintf - format into a buffer of @size bytes
 * @buffer: where the result goes; may be NULL when @size is 0
 * @size: size of @buffer in bytes
 * @format: the format string, then its arguments
 *
 * Return: as vsnprintf(): the untruncated length.
 */
int snprintf(char *buffer, size_t size, const char *format, ...)
	__attribute__((format(printf, 3, 4)));

/**
 * vscnprintf - format into a buffer, returning what was actually written
 * @buffer: where the result goes; may be NULL when @size is 0
 * @size: size of @buffer in bytes
 * @format: the format string
 * @args: the arguments, as by va_start()
 *
 * Like vsnprintf(), for callers that append piece by piece and must not
 * step past the end of the buffer.
 *
 * Return: the number of characters stored in @buffer, excluding the NUL:
 * at most @size - 1, and 0 when @size is 0.
 */
int vscnprintf(char *buffer, size_t size, const char *format, va_list args)
	__attribute__((format(printf, 3, 0)));

/**
 * scnprintf - format into a buffer, returning what was actually written
 * @buffer: where the result goes; may be NULL when @size is 0
 * @size: size of @buffer in bytes
 * @format: the format string, then its arguments
 *
 * Return: as vscnprintf(): the number of characters stored, excluding the NUL.
 */
int scnprintf(char *buffer, size_t size, const char *format, ...)
	__attribute__((format(printf, 3, 4)));

/* Where vformat_to() sends its output: @length bytes at @text, not NUL-terminated. */
typedef void (*format_sink_fn)(void *context, const char *text, size_t length);

/**
 * vformat_to - format with no buffer and no limit, each piece sent to @sink
 * @sink: called with the output in order, a piece at a time (plain text,
 *        one conversion, padding), never with an empty piece
 * @context: passed to @sink as it is
 * @format: the format string (see the top of this header)
 * @args: the arguments, as by va_start()
 *
 * For output that must never be cut, such as a failed expectation's
 * message (lib/expect_report.h), which is then split into lines.
 *
 * Return: the number of characters sent, as vsnprintf() counts them.
 */
int vformat_to(format_sink_fn sink, void *context, const char *format, va_list args)
	__attribute__((format(printf, 3, 0)));

#endif /* TRIGOS_LIB_FORMAT_H */
