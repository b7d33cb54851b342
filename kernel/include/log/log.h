/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_CONSOLE_LOG_H
#define TRIGOS_CONSOLE_LOG_H
/*
 * The kernel's log (kernel/log/log.c): top-level diagnostics ("# ...").
 * Boot-time findings are diagnostics, but a diagnostic before "KTAP version
 * 1" is not part of the KTAP document (docs/ktap.md), so what boot code says
 * before the header is kept and printed right after the plan.
 */

#include <stdbool.h>

/**
 * ktap_note - a top-level diagnostic ("# ..."): printed now if the header is
 * out, else kept (up to a limit) and printed after it
 */
void ktap_note(const char *format, ...) __attribute__((format(printf, 1, 2)));

bool ktap_header_printed(void);

/**
 * ktap_note_now - a note printed at once, even while notes are held (kept
 * until the header is out, like any note): for the two lines whose arrival
 * the host times around AP bring-up (smp.c), one line each, so that the
 * console's exits cannot slow the APs that are starting
 */
void ktap_note_now(const char *format, ...) __attribute__((format(printf, 1, 2)));

/**
 * ktap_log_header_printed - the KTAP header is out (ktap_header()): print
 * every kept note unless they are held, and print from now on
 */
void ktap_log_header_printed(void);


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
