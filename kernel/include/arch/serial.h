/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_SERIAL_H
#define TRIGOS_SERIAL_H

#include <stdbool.h>
#include <stdint.h>

#define SERIAL_PORT_COUNT	4	/* COM1-COM4, ttyS0-ttyS3 */

/** serial_console_init - probe COM1 and, if a UART answers, print to it at 115200 */
bool serial_console_init(void);

/**
 * serial_console_add - probe COM<@index + 1> and print to it at @baud
 * (a divisor of 115200); an already registered port is only re-programmed
 *
 * Return: false when no UART answers there (or @index/@baud are invalid).
 */
bool serial_console_add(unsigned int index, unsigned int baud);

/** serial_console_remove - stop printing to COM<@index + 1>, if it was used */
void serial_console_remove(unsigned int index);

/**
 * serial_drain - wait (bounded) until every UART in use has sent all it was
 * given; call before ending or resetting the machine
 */
void serial_drain(void);

/** serial_port_address - the I/O base of COM<@index + 1>, 0 for a bad @index */
uint16_t serial_port_address(unsigned int index);

/** debugcon_console_init - print to QEMU's debugcon port too (call only under QEMU) */
void debugcon_console_init(void);

#endif
