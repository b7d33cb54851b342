/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_CONSOLE_SETUP_H
#define TRIGOS_CONSOLE_SETUP_H
/*
 * Which consoles print: with no console= option, every UART that answers
 * on COM1-COM4 and the screen; with console= words, exactly those (QEMU's
 * debugcon aside, which only tools read).
 */

#include <stdbool.h>

struct acpi_console;

/** console_setup - apply the console= words; call before ktap_header() */
void console_setup(void);

/**
 * console_setup_auto - console=auto: print to the UART the firmware's SPCR names
 * @uart: the one it names (acpi_console_uart()), NULL when it names none;
 *        a baud rate of 0 ("as the firmware left it") means 115200
 *
 * Without console=auto, nothing changes.  Until this is called (after the
 * ACPI tables are read), console=auto prints to every console found; so it
 * does after, when the SPCR names nothing usable or its UART does not answer.
 */
void console_setup_auto(const struct acpi_console *uart);

#endif
