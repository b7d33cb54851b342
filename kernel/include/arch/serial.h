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

/** struct serial_uart_address - a 16550 that is none of COM1-COM4 (an SPCR's) */
struct serial_uart_address {
	bool memory;		/* false: an I/O port base */
	uint64_t address;
	unsigned int width;	/* memory: bytes per access, and between registers */
};

/**
 * serial_console_add_other - probe the 16550 at @where and print to it at
 * @baud (a divisor of 115200), as console "spcr"
 * @why: set to why not, when it returns false
 *
 * Return: false when its address is unusable or no UART answers there.
 */
bool serial_console_add_other(const struct serial_uart_address *where, unsigned int baud,
			      const char **why);

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
