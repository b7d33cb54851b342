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

#endif
