// SPDX-License-Identifier: MIT
/*
 * ACPI on PC hardware: the BIOS-area RSDP scan and soft-off (S5).
 *
 * Entering S5 (ACPI 6.5, 7.4.2 and 4.8.3.2.1): write SLP_TYPx from \_S5 with
 * SLP_EN into PM1a_CNT (and PM1b_CNT if there is one).  If the firmware left
 * ACPI in legacy mode (SCI_EN clear), switch it over first by writing
 * ACPI_ENABLE to the SMI command port (4.8.2.1).  Only the fixed-hardware,
 * form is handled; hardware-reduced platforms use the sleep control
 * register instead, which is left out: the caller then halts.  PM1x_CNT
 * may be an I/O port or, through its X_ GAS, memory (acpi_register.c).
 */
#include <boot/acpi.h>
#include <arch/acpi_register.h>
#include <log/console.h>
#include <arch/power.h>
#include <arch/serial.h>
#include <time/time.h>
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

static uint16_t sleep_control(uint8_t sleep_type)
{
	return (uint16_t)(((sleep_type & 7u) << PM1_CONTROL_SLEEP_TYPE_SHIFT) |
			  PM1_CONTROL_SLEEP_ENABLE);
}

static bool poweroff_refused(const char *why)
{
	kprintf("# poweroff: ACPI S5 not attempted: %s\n", why);
	return false;
}

bool arch_acpi_poweroff(bool announce_steps)
{
	const struct acpi_fadt *fadt = acpi_fadt_get();
	struct acpi_sleep_type values;
	uint64_t control = 0;
	const char *problem;
	char where[64];

	if (!fadt)
		return poweroff_refused("no FADT");
	if (fadt->hardware_reduced)
		return poweroff_refused("a hardware-reduced platform (sleep control register "
					"not supported)");
	if (!acpi_soft_off_values(&values))
		return poweroff_refused("no usable \\_S5 in the DSDT or an SSDT");
	if (fadt->pm1a_control.address == 0)
		return poweroff_refused("the FADT has no PM1a control register");
	acpi_register_describe(&fadt->pm1a_control, where, sizeof(where));
	problem = acpi_register_read(fadt, ACPI_FADT_PM1A_CONTROL, &control);
	if (problem)
		return poweroff_refused(problem);

	if (!(control & PM1_CONTROL_SCI_ENABLE) && fadt->smi_command_port &&
	    fadt->smi_command_port <= 0xffff && fadt->acpi_enable_value) {
		if (announce_steps)
				kprintf("# poweroff: switching the firmware to ACPI mode (SMI_CMD 0x%x)\n",
				fadt->smi_command_port);
		outb((uint16_t)fadt->smi_command_port, fadt->acpi_enable_value);
		for (int wait = 0; wait < 1000000 && !(control & PM1_CONTROL_SCI_ENABLE); wait++) {
			arch_cpu_relax();
			acpi_register_read(fadt, ACPI_FADT_PM1A_CONTROL, &control);
		}
	}
	if (announce_steps)
		kprintf("# poweroff: entering ACPI S5: SLP_TYPa %u through PM1a_CNT (%s)%s\n",
			values.slp_typ_a, where, fadt->pm1b_control.address ? " and PM1b_CNT" : "");
	serial_drain();
	acpi_register_write(fadt, ACPI_FADT_PM1A_CONTROL, sleep_control(values.slp_typ_a));
	if (fadt->pm1b_control.address)
		acpi_register_write(fadt, ACPI_FADT_PM1B_CONTROL, sleep_control(values.slp_typ_b));
	/* The machine should be off by now; if not, the caller halts. */
	udelay(500000);
	kprintf("# poweroff: still running half a second after entering S5\n");
	return false;
}
