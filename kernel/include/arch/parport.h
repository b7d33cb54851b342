/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_ARCH_PARPORT_H
#define TRIGOS_ARCH_PARPORT_H
/* The parallel port console, lp0 (kernel/arch/x86/parport.c). */

#include <stdbool.h>

/** PARALLEL_PORT_LP0 - lp0's I/O base, LPT1 */
#define PARALLEL_PORT_LP0	0x378

/**
 * parallel_console_add - print to lp0 too, if a port answers there
 *
 * Only when asked (console=lp0): nothing probes port 0x378 otherwise.
 * Return: whether lp0 prints.
 */
bool parallel_console_add(void);

/** parallel_console_remove - stop printing to lp0 (a no-op if it does not) */
void parallel_console_remove(void);

#endif
