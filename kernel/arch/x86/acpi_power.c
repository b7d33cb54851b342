// SPDX-License-Identifier: MIT
/*
 * ACPI on PC hardware: the BIOS-area RSDP scan and soft-off (S5).
 *
 * Entering S5 (ACPI 6.5, 7.4.2 and 4.8.3.2.1): write SLP_TYPx from \_S5 with
 * SLP_EN into PM1a_CNT (and PM1b_CNT if there is one).  If the firmware left
 * ACPI in legacy mode (SCI_EN clear), switch it over first by writing
 * ACPI_ENABLE to the SMI command port (4.8.2.1).  Only the fixed-hardware,
 * I/O-port form is handled; hardware-reduced platforms use the sleep control
 * register instead, which is left out: the caller then halts.
 */
#include <acpi.h>
#include <machine.h>
#include <lib/acpi_tables.h>
#include <asm/bios.h>
#include <asm/instructions.h>

#define PM1_CONTROL_SCI_ENABLE	(1u << 0)
#define PM1_CONTROL_SLEEP_TYPE_SHIFT 10
#define PM1_CONTROL_SLEEP_ENABLE (1u << 13)

#define BIOS_AREA_START		0xe0000
#define BIOS_AREA_END		0x100000

static uint64_t scan_area(uint64_t start, uint64_t end)
{
	struct acpi_rsdp rsdp;

	/* The RSDP is on a 16-byte boundary (ACPI 6.5, 5.2.5.1). */
	for (uint64_t address = start; address + ACPI_RSDP_V1_SIZE <= end; address += 16) {
		if (acpi_rsdp_parse((const void *)address, end - address, &rsdp) == ACPI_OK)
			return address;
	}
	return 0;
}

uint64_t arch_acpi_scan_for_rsdp(void)
{
	uint64_t ebda = bios_ebda_address();
	uint64_t found = 0;

	/* The first KiB of the EBDA, then the BIOS read-only area. */
	if (ebda)
		found = scan_area(ebda, ebda + 1024);
	return found ? found : scan_area(BIOS_AREA_START, BIOS_AREA_END);
}

static bool io_port_register(const struct acpi_generic_address *gas)
{
	return gas->address != 0 && gas->address <= 0xffff && gas->space_id == ACPI_GAS_SYSTEM_IO;
}

bool arch_acpi_poweroff(void)
{
	const struct acpi_fadt *fadt = acpi_fadt_get();
	struct acpi_sleep_type values;
	uint16_t pm1a, pm1b;

	if (!fadt || fadt->hardware_reduced || !acpi_soft_off_values(&values) ||
	    !io_port_register(&fadt->pm1a_control))
		return false;
	pm1a = (uint16_t)fadt->pm1a_control.address;
	pm1b = io_port_register(&fadt->pm1b_control) ? (uint16_t)fadt->pm1b_control.address : 0;

	if (!(inw(pm1a) & PM1_CONTROL_SCI_ENABLE) && fadt->smi_command_port &&
	    fadt->acpi_enable_value) {
		outb((uint16_t)fadt->smi_command_port, fadt->acpi_enable_value);
		for (int wait = 0; wait < 1000000 && !(inw(pm1a) & PM1_CONTROL_SCI_ENABLE); wait++)
			cpu_relax();
	}
	outw(pm1a, (uint16_t)((values.slp_typ_a & 7) << PM1_CONTROL_SLEEP_TYPE_SHIFT) |
			   PM1_CONTROL_SLEEP_ENABLE);
	if (pm1b)
		outw(pm1b, (uint16_t)((values.slp_typ_b & 7) << PM1_CONTROL_SLEEP_TYPE_SHIFT) |
				   PM1_CONTROL_SLEEP_ENABLE);
	/* The machine should be off by now; if not, the caller halts. */
	for (int wait = 0; wait < 10000000; wait++)
		cpu_relax();
	return false;
}
