/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_CONSOLE_H
#define TRIGOS_CONSOLE_H
/*
 * The console: every line printed goes, whole, to every registered backend
 * (COM1, QEMU's debugcon, later the screen).  A line is formatted first and
 * written under the console lock, so lines from different CPUs never mix:
 * KTAP parsers reject interleaved lines.
 */

#include <stdarg.h>
#include <stddef.h>

#define CONSOLE_LINE_MAX	512

/**
 * struct console_backend - one output device
 * @name: shown in diagnostics
 * @write: write @length bytes; "\n" is the line end, the backend adds any "\r"
 */
struct console_backend {
	const char *name;
	void (*write)(const char *text, size_t length);
	struct console_backend *next;
};

/** console_register - add @backend; output from now on reaches it too */
void console_register(struct console_backend *backend);

/** console_unregister - remove @backend (a no-op if it is not registered) */
void console_unregister(struct console_backend *backend);

/** console_write - write @length bytes to every backend, under the console lock */
void console_write(const char *text, size_t length);

/**
 * kprintf - format and print, under the console lock
 *
 * Print whole lines (end the format with "\n"); output longer than
 * CONSOLE_LINE_MAX is cut there and marked with "...".
 */
int kprintf(const char *format, ...) __attribute__((format(printf, 1, 2)));
int vkprintf(const char *format, va_list args);

/**
 * console_panic_mode - stop honouring the console lock
 *
 * For panic and the fault dump: the CPU that faulted may hold the lock, or
 * another CPU may be wedged holding it; a crash report must get out anyway.
 */
void console_panic_mode(void);

/** console_backend_names - "com1,debugcon" style list, for diagnostics */
void console_backend_names(char *buffer, size_t size);

#endif
