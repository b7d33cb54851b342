/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_SERIAL_H
#define TRIGOS_SERIAL_H

#include <stdbool.h>

/** serial_console_init - probe COM1 and, if a UART answers, print to it */
bool serial_console_init(void);

/** debugcon_console_init - print to QEMU's debugcon port too (call only under QEMU) */
void debugcon_console_init(void);

#endif
