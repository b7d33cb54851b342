/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_LIB_EXPECT_REPORT_H
#define TRIGOS_LIB_EXPECT_REPORT_H
/*
 * What a failed expectation prints (harness/test.h), spelt once for the
 * kernel's runner and the host runner of make check, which only say where
 * the lines go and what prefix they carry:
 *
 *	    # case: EXPECTATION FAILED at tests/example.c:42 (on cpu 2) (round 3 of 10)
 *	    # case: expected replies == sent, but
 *	    # case:     replies == 7 (0x7)
 *	    # case:     sent == 8 (0x8)
 *	    # case: cpu 1 -> cpu 3: no reply          the _MSG form's message
 *
 * Every operand is shown: integers in decimal (as their type's signedness
 * says) and hex, pointers in hex or NULL, strings quoted with C escapes,
 * memory as the first differing offset with the bytes around it.  Nothing
 * is cut: text longer than EXPECT_REPORT_WIDTH (or holding a newline) goes
 * on in further diagnostic lines that start with EXPECT_REPORT_CONTINUED.
 */

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes of text per diagnostic line, after the prefix. */
#define EXPECT_REPORT_WIDTH	160
/* What a continued line's text starts with. */
#define EXPECT_REPORT_CONTINUED	"... "
/* The longest prefix kept whole ("        # <case>: "); a longer one is cut. */
#define EXPECT_REPORT_PREFIX_MAX	96

/* What kind of check failed: which operands struct expectation holds. */
enum expect_kind {
	EXPECT_KIND_NONE,	/* test_report_failure(): the message alone */
	EXPECT_KIND_BOOL,	/* left_text was not @op ("true" or "false") */
	EXPECT_KIND_INT,	/* left op right, integers */
	EXPECT_KIND_PTR,	/* left op right, pointers (NULL forms: right NULL) */
	EXPECT_KIND_STR,	/* left op right, strings (or NULL) */
	EXPECT_KIND_MEM,	/* size bytes at left and right, op "==" or "!=" */
	EXPECT_KIND_RANGE,	/* low <= value <= high: left value, right low, extra high */
	EXPECT_KIND_NEAR,	/* |left - right| <= extra */
};

/**
 * struct expectation - one failed check, as the macros of harness/test.h saw it
 * @file: source file of the check
 * @line: its line
 * @assertion: an ASSERT (ends the case), not an EXPECT
 * @kind: which of the fields below mean something
 * @op: the comparison as written ("==", "<", ...), or "true"/"false" for BOOL
 * @left_text: the left (or only) operand's expression
 * @right_text: the right operand's expression
 * @extra_text: the third operand's (RANGE: high; NEAR: the tolerance)
 * @left: integer operands, as their bits
 * @right: ...
 * @extra: ...
 * @left_signed: print @left as a signed number
 * @right_signed: ...
 * @extra_signed: ...
 * @left_pointer: PTR, STR and MEM operands
 * @right_pointer: ...
 * @size: MEM: how many bytes were compared
 */
struct expectation {
	const char *file;
	int line;
	bool assertion;
	enum expect_kind kind;
	const char *op;
	const char *left_text, *right_text, *extra_text;
	uint64_t left, right, extra;
	bool left_signed, right_signed, extra_signed;
	const void *left_pointer, *right_pointer;
	size_t size;
};

/**
 * struct expect_report - lines being written: text is added, and each line
 * goes to @print whole (prefix, text, newline) once it is full or ended
 * @print: called with one line at a time, its newline included
 * @context: passed to @print as it is
 */
struct expect_report {
	void (*print)(void *context, const char *line);
	void *context;
	size_t prefix_length;		/* bytes of prefix at the start of @line */
	size_t used;			/* bytes of text after the prefix */
	bool continued;			/* the line being filled continues the last */
	char line[EXPECT_REPORT_PREFIX_MAX + EXPECT_REPORT_WIDTH + 2];
};

/** expect_report_begin - start writing lines that each begin with @prefix */
void expect_report_begin(struct expect_report *report, void (*print)(void *, const char *),
			 void *context, const char *prefix);

/** expect_report_add - add @length bytes of @text; a '\n' in it ends a line */
void expect_report_add(struct expect_report *report, const char *text, size_t length);

/** expect_report_printf - add formatted text (lib/format.h), never cut */
void expect_report_printf(struct expect_report *report, const char *format, ...)
	__attribute__((format(printf, 2, 3)));

/** expect_report_vprintf - expect_report_printf() with a va_list */
void expect_report_vprintf(struct expect_report *report, const char *format, va_list args)
	__attribute__((format(printf, 2, 0)));

/** expect_report_end_line - print the line being filled (if it holds any text) */
void expect_report_end_line(struct expect_report *report);

/** expect_report_string - add @string quoted, with C escapes, or NULL */
void expect_report_string(struct expect_report *report, const char *string);

/**
 * expect_report_failure - every line of a failed check: the header
 * ("EXPECTATION FAILED at FILE:LINE" and @where, e.g. " (on cpu 2)"), the
 * operands, then the message of a _MSG form (@format NULL: none)
 */
void expect_report_failure(struct expect_report *report, const struct expectation *expectation,
			   const char *where, const char *format, va_list args)
	__attribute__((format(printf, 4, 0)));

#endif
