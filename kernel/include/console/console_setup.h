/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_CONSOLE_SETUP_H
#define TRIGOS_CONSOLE_SETUP_H
/*
 * Which consoles print: with no console= option, every UART that answers
 * on COM1-COM4 and the screen; with console= words, exactly those (QEMU's
 * debugcon aside, which only tools read).
 */

#include <stdbool.h>


/** console_setup - apply the console= words; call before ktap_header() */
void console_setup(void);

/**
 * console_setup_auto - console=auto: print to the UART the firmware's SPCR names
 * @named: whether the SPCR names a usable one (acpi_console_uart())
 * @port: 0..3, its COM port
 * @baud: its baud rate, 0 for "as the firmware left it" (115200 then)
 *
 * Without console=auto, nothing changes.  Until this is called (after the
 * ACPI tables are read), console=auto prints to every console found; so it
 * does after, when the SPCR names nothing usable or its UART does not answer.
 */
void console_setup_auto(bool named, unsigned int port, unsigned int baud);

#endif
