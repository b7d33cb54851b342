// SPDX-License-Identifier: MIT
/*
 * The lines of a failed expectation (expect_report.h): both runners print
 * them byte for byte alike, and tests/host/expect_output.golden holds what
 * each form prints.
 */
#include <lib/expect_report.h>
#include <lib/format.h>
#include <lib/string.h>

/* Bytes shown on each side of the first difference of a memory comparison. */
#define MEMORY_CONTEXT	8

void expect_report_begin(struct expect_report *report, void (*print)(void *, const char *),
			 void *context, const char *prefix)
{
	size_t length = strnlen(prefix, EXPECT_REPORT_PREFIX_MAX);

	report->print = print;
	report->context = context;
	memcpy(report->line, prefix, length);
	report->prefix_length = length;
	report->used = 0;
	report->continued = false;
}

static void print_line(struct expect_report *report)
{
	char *end = &report->line[report->prefix_length + report->used];

	end[0] = '\n';
	end[1] = '\0';
	report->print(report->context, report->line);
	report->used = 0;
}

static void add_byte(struct expect_report *report, char byte)
{
	if (byte == '\n') {
		print_line(report);
		report->continued = false;
		return;
	}
	if (report->used == EXPECT_REPORT_WIDTH) {
		/* Full: this line ends here, the text goes on in the next. */
		print_line(report);
		report->continued = true;
	}
	if (report->used == 0 && report->continued) {
		memcpy(&report->line[report->prefix_length], EXPECT_REPORT_CONTINUED,
		       sizeof(EXPECT_REPORT_CONTINUED) - 1);
		report->used = sizeof(EXPECT_REPORT_CONTINUED) - 1;
	}
	report->line[report->prefix_length + report->used++] = byte;
}

void expect_report_add(struct expect_report *report, const char *text, size_t length)
{
	for (size_t i = 0; i < length; i++)
		add_byte(report, text[i]);
}

static void add_piece(void *context, const char *text, size_t length)
{
	expect_report_add(context, text, length);
}

void expect_report_vprintf(struct expect_report *report, const char *format, va_list args)
{
	vformat_to(add_piece, report, format, args);
}

void expect_report_printf(struct expect_report *report, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	expect_report_vprintf(report, format, args);
	va_end(args);
}

void expect_report_end_line(struct expect_report *report)
{
	if (report->used)
		print_line(report);
	report->continued = false;
}

void expect_report_string(struct expect_report *report, const char *string)
{
	if (!string) {
		expect_report_printf(report, "NULL");
		return;
	}
	add_byte(report, '"');
	for (; *string; string++) {
		unsigned char byte = (unsigned char)*string;

		switch (byte) {
		case '\n':
			expect_report_printf(report, "\\n");
			break;
		case '\t':
			expect_report_printf(report, "\\t");
			break;
		case '\r':
			expect_report_printf(report, "\\r");
			break;
		case '"':
		case '\\':
			add_byte(report, '\\');
			add_byte(report, (char)byte);
			break;
		default:
			if (byte < 0x20 || byte >= 0x7f)
				expect_report_printf(report, "\\x%02x", byte);
			else
				add_byte(report, (char)byte);
		}
	}
	add_byte(report, '"');
}

static void add_integer(struct expect_report *report, const char *text, uint64_t value,
			bool is_signed)
{
	if (is_signed)
		expect_report_printf(report, "    %s == %lld (0x%llx)\n", text, (long long)value,
				     (unsigned long long)value);
	else
		expect_report_printf(report, "    %s == %llu (0x%llx)\n", text,
				     (unsigned long long)value, (unsigned long long)value);
}

static void add_pointer(struct expect_report *report, const char *text, const void *pointer)
{
	if (pointer)
		expect_report_printf(report, "    %s == %p\n", text, pointer);
	else
		expect_report_printf(report, "    %s == NULL\n", text);
}

/* "    left + 8: 00 11 [22] 33" - @size bytes from @start, the one at @marked bracketed. */
static void add_bytes(struct expect_report *report, const char *text, const unsigned char *bytes,
		      size_t start, size_t end, size_t marked)
{
	expect_report_printf(report, "    %s + %zu:", text, start);
	for (size_t i = start; i < end; i++)
		expect_report_printf(report, i == marked ? " [%02x]" : " %02x", bytes[i]);
	expect_report_printf(report, "\n");
}

static void add_memory(struct expect_report *report, const struct expectation *e)
{
	const unsigned char *left = e->left_pointer, *right = e->right_pointer;
	size_t first = e->size, differing = 0, start, end;

	for (size_t i = 0; i < e->size; i++) {
		if (left[i] != right[i]) {
			differing++;
			if (first == e->size)
				first = i;
		}
	}
	if (e->op[0] == '!') {
		end = e->size < 2 * MEMORY_CONTEXT ? e->size : 2 * MEMORY_CONTEXT;
		expect_report_printf(report, "expected the %zu bytes at %s and %s to differ, but "
				     "they are equal\n", e->size, e->left_text, e->right_text);
		add_bytes(report, e->left_text, left, 0, end, e->size);
		return;
	}
	start = first > MEMORY_CONTEXT ? first - MEMORY_CONTEXT : 0;
	end = e->size - first > MEMORY_CONTEXT ? first + MEMORY_CONTEXT + 1 : e->size;
	expect_report_printf(report, "expected the %zu bytes at %s and %s to be equal, but byte "
			     "%zu (0x%zx) differs (%zu of %zu differ)\n", e->size, e->left_text,
			     e->right_text, first, first, differing, e->size);
	add_bytes(report, e->left_text, left, start, end, first);
	add_bytes(report, e->right_text, right, start, end, first);
}

/* The lines that show what was compared, for each kind of check. */
static void add_operands(struct expect_report *report, const struct expectation *e)
{
	switch (e->kind) {
	case EXPECT_KIND_NONE:
		break;
	case EXPECT_KIND_BOOL:
		expect_report_printf(report, "expected %s to be %s, but it is %s\n", e->left_text,
				     e->op, e->op[0] == 't' ? "false" : "true");
		break;
	case EXPECT_KIND_INT:
		expect_report_printf(report, "expected %s %s %s, but\n", e->left_text, e->op,
				     e->right_text);
		add_integer(report, e->left_text, e->left, e->left_signed);
		add_integer(report, e->right_text, e->right, e->right_signed);
		break;
	case EXPECT_KIND_PTR:
		expect_report_printf(report, "expected %s %s %s, but\n", e->left_text, e->op,
				     e->right_text);
		add_pointer(report, e->left_text, e->left_pointer);
		if (e->right_pointer || strcmp(e->right_text, "NULL") != 0)
			add_pointer(report, e->right_text, e->right_pointer);
		break;
	case EXPECT_KIND_STR:
		expect_report_printf(report, "expected %s %s %s, but\n", e->left_text, e->op,
				     e->right_text);
		expect_report_printf(report, "    %s == ", e->left_text);
		expect_report_string(report, e->left_pointer);
		expect_report_printf(report, "\n    %s == ", e->right_text);
		expect_report_string(report, e->right_pointer);
		expect_report_end_line(report);
		break;
	case EXPECT_KIND_MEM:
		add_memory(report, e);
		break;
	case EXPECT_KIND_RANGE:
		expect_report_printf(report, "expected %s <= %s <= %s, but\n", e->right_text,
				     e->left_text, e->extra_text);
		add_integer(report, e->left_text, e->left, e->left_signed);
		add_integer(report, e->right_text, e->right, e->right_signed);
		add_integer(report, e->extra_text, e->extra, e->extra_signed);
		break;
	case EXPECT_KIND_NEAR:
		expect_report_printf(report, "expected %s within %s of %s, but\n", e->left_text,
				     e->extra_text, e->right_text);
		add_integer(report, e->left_text, e->left, e->left_signed);
		add_integer(report, e->right_text, e->right, e->right_signed);
		add_integer(report, e->extra_text, e->extra, e->extra_signed);
		break;
	}
}

void expect_report_failure(struct expect_report *report, const struct expectation *expectation,
			   const char *where, const char *format, va_list args)
{
	expect_report_printf(report, "%s FAILED at %s:%d%s\n",
			     expectation->assertion ? "ASSERTION" : "EXPECTATION",
			     expectation->file, expectation->line, where ? where : "");
	add_operands(report, expectation);
	if (format) {
		expect_report_vprintf(report, format, args);
		expect_report_end_line(report);
	}
}
