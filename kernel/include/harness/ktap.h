/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_KTAP_H
#define TRIGOS_KTAP_H
/*
 * KTAP v1 framing (docs/ktap.md, and Documentation/dev-tools/ktap.rst in
 * Linux, for the format).  Boot-time findings are diagnostics, but a
 * diagnostic before "KTAP version 1" is not part of the KTAP document, so
 * what boot code says before the header is kept and printed right after the
 * plan.
 */

#include <stdbool.h>
#include <lib/ktap_writer.h>

/*
 * ktap_console - the KTAP writer (lib/ktap_writer.h) that prints on the
 * console: the test runner's suites, cases, totals and result lines
 */
extern const struct ktap_writer ktap_console;

/**
 * ktap_note - a top-level diagnostic ("# ..."): printed now if the header is
 * out, else kept (up to a limit) and printed after it
 */
void ktap_note(const char *format, ...) __attribute__((format(printf, 1, 2)));

/**
 * ktap_header - print "KTAP version 1" on a line of its own, the plan
 * "1..@suite_count", then every kept note
 */
void ktap_header(unsigned int suite_count);

bool ktap_header_printed(void);

/**
 * ktap_hold_notes - keep ktap_note() lines from now on instead of printing
 * them: while the APs start, every console write is an exit that the
 * emulator serialises with theirs (main.c)
 */
void ktap_hold_notes(void);

/** ktap_release_notes - print what was kept, in order, and print from now on */
void ktap_release_notes(void);

/**
 * ktap_flush_notes - print what is kept now, header or not (the panic path:
 * kept notes are the story of how the boot got there)
 */
void ktap_flush_notes(void);

/** ktap_set_indent - nesting level for ktap_note(): 0 top, 1 inside a suite */
void ktap_set_indent(unsigned int level);

#endif
