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

#include <log/log.h>
#include <lib/ktap_writer.h>

/*
 * ktap_console - the KTAP writer (lib/ktap_writer.h) that prints on the
 * console: the test runner's suites, cases, totals and result lines
 */
extern const struct ktap_writer ktap_console;

/**
 * ktap_header - print "KTAP version 1" on a line of its own, the plan
 * "1..@suite_count", then every kept note
 */
void ktap_header(unsigned int suite_count);

#endif
