/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_LIB_CONSOLE_OPTION_H
#define TRIGOS_LIB_CONSOLE_OPTION_H
/*
 * The value of one console= word, Linux style:
 *
 *	console=ttyS1,115200	the second UART (COM2), 115200 baud 8N1
 *	console=ttyS0		COM1 at the default 115200 baud
 *	console=fb		the screen (framebuffer); tty0 means the same
 *	console=auto		the UART the firmware's SPCR table names (a
 *				server's BMC console, often COM2); without a
 *				usable one, every console as with no console=
 *	console=lp0		the first parallel port, LPT1 (Bochs writes
 *				it to a file at once: tools/run uses it there)
 *
 * Several console= words may be given; output goes to all of them.
 */

#include <stddef.h>

#define CONSOLE_SERIAL_PORTS	4	/* ttyS0-ttyS3: COM1-COM4 */
#define CONSOLE_DEFAULT_BAUD	115200u

enum console_kind {
	CONSOLE_KIND_SERIAL,
	CONSOLE_KIND_SCREEN,
	CONSOLE_KIND_AUTO,	/* the SPCR's UART, known once ACPI is read */
	CONSOLE_KIND_PARALLEL,	/* lp0, LPT1 */
};

struct console_spec {
	enum console_kind kind;
	unsigned int port;	/* CONSOLE_KIND_SERIAL: 0..3 */
	unsigned int baud;	/* CONSOLE_KIND_SERIAL: a divisor of 115200 */
};

/**
 * console_spec_parse - read "ttyS<N>[,<baud>[n8]]", "fb", "tty0", "auto" or "lp0"
 * @value: the characters after "console=" (need not be NUL-terminated)
 * @length: how many
 * @spec: filled in on success
 *
 * The baud rate must divide the 16550's 115200 base exactly (50..115200),
 * since the UART can make no other; "n8" (no parity, 8 bits, what the
 * console always uses) may follow it.
 *
 * Return: NULL on success, else why @value was refused.
 */
const char *console_spec_parse(const char *value, size_t length, struct console_spec *spec);

#endif
