/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_ACPI_H
#define TRIGOS_ACPI_H
/*
 * The machine's ACPI tables, found and validated once at boot
 * (kernel/boot/acpi.c over the parsers of kernel/lib/acpi_tables.c).  A table that
 * fails its checks is reported by signature and skipped, never trusted.
 */

#include <stdbool.h>
#include <arch/serial.h>
#include <lib/acpi_tables.h>

/** acpi_init - find the RSDP (boot loader, then BIOS areas), check every table */
void acpi_init(void);

/** acpi_tables_get - the validated root table, or NULL without ACPI */
const struct acpi_tables *acpi_tables_get(void);

/**
 * struct acpi_console - the UART the SPCR names for the console
 * @com: 0..3 when it is COM1-COM4 (ttyS0..ttyS3), else -1: @other says where
 * @other: its I/O port or memory address and register width
 * @baud: the SPCR's baud rate; 0 when it says "as the firmware left it"
 */
struct acpi_console {
	int com;
	struct serial_uart_address other;
	unsigned int baud;
};

/**
 * acpi_console_uart - the UART the SPCR names for the console, if usable
 * @out: filled in when it returns true
 *
 * Return: false when there is no SPCR or it names no 16550 (acpi_init()
 * has said why).
 */
bool acpi_console_uart(struct acpi_console *out);

/** acpi_fadt_get - the parsed FADT, or NULL if there is none (or it is broken) */
const struct acpi_fadt *acpi_fadt_get(void);

/**
 * acpi_soft_off_values - SLP_TYPa/b for S5 from the DSDT, resolved at boot
 * so that a panic can power off without parsing or mapping anything.
 * Returns false if they are not known.
 */
bool acpi_soft_off_values(struct acpi_sleep_type *values);

/* Arch: where the BIOS may keep the RSDP (EBDA, 0xE0000-0xFFFFF); 0 if none. */
uint64_t arch_acpi_scan_for_rsdp(void);

#endif
