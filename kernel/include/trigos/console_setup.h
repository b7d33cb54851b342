/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_CONSOLE_SETUP_H
#define TRIGOS_CONSOLE_SETUP_H
/*
 * Which consoles print: with no console= option, every UART that answers
 * on COM1-COM4 and the screen; with console= words, exactly those (QEMU's
 * debugcon aside, which only tools read).
 */

#include <stdbool.h>

#include <lib/console_option.h>

#define CONSOLE_CHOICES_MAX	8

/** struct console_choice - the console= words, in order */
struct console_choice {
	struct console_spec specs[CONSOLE_CHOICES_MAX];
	unsigned int count;
};

/** console_setup - apply @choice (from the command line); call before ktap_header() */
void console_setup(const struct console_choice *choice);

#endif
