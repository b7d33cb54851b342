// SPDX-License-Identifier: MIT
#include <stdarg.h>
#include <lib/format.h>
#include <lib/ktap_writer.h>

/*
 * One write (a line, or the three of a header, passed together so that the
 * console prints them as one): a suite or case name is a C identifier and a directive's text
 * a short message, so a line this long is cut (vsnprintf's rule) only if a
 * caller passes something that is not.
 */
#define KTAP_LINE_MAX 320

static void __attribute__((format(printf, 2, 3)))
write_line(const struct ktap_writer *writer, const char *format, ...)
{
	char line[KTAP_LINE_MAX];
	va_list args;

	va_start(args, format);
	vsnprintf(line, sizeof(line), format, args);
	va_end(args);
	writer->print(writer->context, line);
}

void ktap_count(struct ktap_counts *counts, enum ktap_outcome outcome)
{
	switch (outcome) {
	case KTAP_PASS:
		counts->passed++;
		break;
	case KTAP_SKIP:
		counts->skipped++;
		break;
	case KTAP_FAIL:
	case KTAP_ERROR:
	case KTAP_TIMEOUT:
		counts->failed++;
		break;
	}
}

void ktap_counts_add(struct ktap_counts *counts, const struct ktap_counts *more)
{
	counts->passed += more->passed;
	counts->failed += more->failed;
	counts->skipped += more->skipped;
}

unsigned int ktap_counts_total(const struct ktap_counts *counts)
{
	return counts->passed + counts->failed + counts->skipped;
}

void ktap_write_header(const struct ktap_writer *writer, unsigned int suite_count)
{
	write_line(writer, "KTAP version 1\n1..%u\n", suite_count);
}

void ktap_write_suite_begin(const struct ktap_writer *writer, const char *name, size_t plan)
{
	write_line(writer, "    KTAP version 1\n    # Subtest: %s\n    1..%zu\n", name, plan);
}

/* A result line at @indent: "ok N name", "not ok N name # DIRECTIVE detail". */
static void write_result(const struct ktap_writer *writer, const char *indent, unsigned int number,
			 const char *name, enum ktap_outcome outcome, const char *detail)
{
	const char *directive = NULL;

	switch (outcome) {
	case KTAP_PASS:
	case KTAP_FAIL:
		break;
	case KTAP_SKIP:
		directive = "SKIP";
		break;
	case KTAP_ERROR:
		directive = "ERROR";
		break;
	case KTAP_TIMEOUT:
		directive = "TIMEOUT";
		break;
	}
	if (directive)
		write_line(writer, "%s%s %u %s # %s %s\n", indent,
			   outcome == KTAP_SKIP ? "ok" : "not ok", number, name, directive,
			   detail ? detail : "");
	else
		write_line(writer, "%s%s %u %s\n", indent, outcome == KTAP_PASS ? "ok" : "not ok",
			   number, name);
}

void ktap_write_case(const struct ktap_writer *writer, unsigned int number, const char *name,
		     enum ktap_outcome outcome, const char *detail)
{
	write_result(writer, "    ", number, name, outcome, detail);
}

void ktap_write_params_begin(const struct ktap_writer *writer, const char *case_name, size_t plan)
{
	write_line(writer, "        KTAP version 1\n        # Subtest: %s\n        1..%zu\n",
		   case_name, plan);
}

void ktap_write_param(const struct ktap_writer *writer, unsigned int number,
		      const char *description, enum ktap_outcome outcome, const char *detail)
{
	char name[KTAP_LINE_MAX / 2];
	size_t length = 0;

	/* A '#' would start a directive, a line break a new line: neither may be in a name. */
	for (; description[length] && length < sizeof(name) - 1; length++) {
		char c = description[length];

		name[length] = c == '#' ? '_' : c == '\n' || c == '\r' ? ' ' : c;
	}
	name[length] = '\0';
	write_result(writer, "        ", number, name, outcome, detail);
}

enum ktap_outcome ktap_params_outcome(const struct ktap_counts *counts)
{
	if (counts->failed)
		return KTAP_FAIL;
	return counts->passed ? KTAP_PASS : KTAP_SKIP;
}

void ktap_write_suite_totals(const struct ktap_writer *writer, const char *name,
			     const struct ktap_counts *counts)
{
	write_line(writer, "    # %s: pass:%u fail:%u skip:%u total:%u\n", name, counts->passed,
		   counts->failed, counts->skipped, ktap_counts_total(counts));
}

void ktap_write_suite_end(const struct ktap_writer *writer, unsigned int number, const char *name,
			  const struct ktap_counts *counts)
{
	if (counts->failed)
		write_line(writer, "not ok %u %s\n", number, name);
	else if (counts->passed == 0)
		write_line(writer, "ok %u %s # SKIP all its cases were skipped\n", number, name);
	else
		write_line(writer, "ok %u %s\n", number, name);
}

void ktap_write_unmatched_pattern(const struct ktap_writer *writer, const char *key,
				  const char *pattern, size_t length)
{
	write_line(writer, "# %s=%.*s: no suite or case matches this pattern\n", key, (int)length,
		   pattern);
}

void ktap_write_nothing_matched(const struct ktap_writer *writer, const char *tests,
				const char *benchmarks)
{
	bool has_tests = tests && *tests, has_benchmarks = benchmarks && *benchmarks;

	write_line(writer, "# no test case matched%s%s%s%s: a run that selects nothing fails\n",
		   has_tests ? " test=" : "", has_tests ? tests : "",
		   has_benchmarks ? " bench=" : "", has_benchmarks ? benchmarks : "");
}

void ktap_write_totals(const struct ktap_writer *writer, const struct ktap_counts *counts)
{
	write_line(writer, "# Totals: pass:%u fail:%u skip:%u total:%u\n", counts->passed,
		   counts->failed, counts->skipped, ktap_counts_total(counts));
}

void ktap_write_result(const struct ktap_writer *writer, enum verdict verdict)
{
	write_line(writer, VERDICT_RESULT_PREFIX "%s\n", verdict_result_word(verdict));
}
