/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_ACPI_REGISTER_H
#define TRIGOS_ACPI_REGISTER_H
/*
 * Access to a FADT register described by an ACPI Generic Address Structure
 * (I/O, memory, or PCI configuration space of bus 0), at the width
 * acpi_fadt_register_access() gives it, e.g.
 *
 *	const char *problem = acpi_register_write(fadt, ACPI_FADT_RESET,
 *						  fadt->reset_value);
 *	if (problem)
 *		kprintf("# reboot: ACPI reset register unusable: %s\n", problem);
 */

#include <stddef.h>
#include <stdint.h>
#include <lib/acpi_tables.h>

/**
 * acpi_register_write - write @value to one of the FADT's registers
 * @fadt: the FADT
 * @which: the register
 * @value: what to write
 *
 * Return: NULL when written; otherwise why nothing was written.
 */
const char *acpi_register_write(const struct acpi_fadt *fadt, enum acpi_fadt_register which,
				uint64_t value);

/** acpi_register_read - as acpi_register_write(), reading into *@value */
const char *acpi_register_read(const struct acpi_fadt *fadt, enum acpi_fadt_register which,
			       uint64_t *value);

/** acpi_register_describe - "I/O port 0xcf9", "PCI 00:1f.0 offset 0x44", ... */
void acpi_register_describe(const struct acpi_generic_address *gas, char *buffer, size_t size);

#endif
