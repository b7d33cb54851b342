// SPDX-License-Identifier: MIT
/*
 * Finding the ACPI tables: the RSDP copy in the multiboot2 information
 * (GRUB, BIOS or UEFI), or its address from PVH, or - on BIOS boots that
 * gave neither - a scan of the areas ACPI 6.5 5.2.5.1 names.  Every table
 * the root table lists is checked once here so that each broken one is
 * reported at boot.
 */
#include <boot/acpi.h>
#include <boot/boot.h>
#include <log/log.h>
#include <arch/acpi_register.h>
#include <arch/serial.h>
#include <lib/format.h>
#include <lib/string.h>

static struct acpi_tables tables;
static bool tables_ready;
static struct acpi_fadt fadt;
static bool fadt_ready;
static struct acpi_sleep_type soft_off;
static bool soft_off_ready;
static struct {
	bool usable;		/* a 16550 the serial driver can reach */
	struct acpi_console uart;
} spcr_console;

static void report_to_ktap(void *context, const char *message)
{
	ktap_note("acpi: %s", message);
}

static const struct acpi_reporter ktap_reporter = { .report = report_to_ktap };

static int find_root(const char **how)
{
	uint64_t scanned;

	if (boot_info.has_rsdp_copy) {
		*how = "from the boot loader";
		return acpi_tables_init(&tables, boot_info.rsdp_copy, boot_info.rsdp_copy_length,
					&kernel_physical_memory, &ktap_reporter);
	}
	if (boot_info.rsdp_address) {
		*how = "at the address PVH gave";
		return acpi_tables_init_at(&tables, boot_info.rsdp_address,
					   &kernel_physical_memory, &ktap_reporter);
	}
	if (boot_info.efi_boot) {
		*how = "nowhere: a UEFI boot without an RSDP tag has no BIOS areas to scan";
		return ACPI_ERROR_NOT_FOUND;
	}
	scanned = arch_acpi_scan_for_rsdp();
	if (!scanned) {
		*how = "nowhere: not in the boot information nor the BIOS areas";
		return ACPI_ERROR_NOT_FOUND;
	}
	*how = "by scanning the BIOS areas";
	return acpi_tables_init_at(&tables, scanned, &kernel_physical_memory, &ktap_reporter);
}

/* What exit=reboot, exit=poweroff and the TSC calibration will rely on. */
static void report_fadt(void)
{
	char reset[64] = "none", timer[64] = "none";

	if (fadt.reset_supported) {
		acpi_register_describe(&fadt.reset_register, reset, sizeof(reset));
		scnprintf(&reset[strlen(reset)], sizeof(reset) - strlen(reset), ", value 0x%x",
			  fadt.reset_value);
	} else if (fadt.has_reset_register && fadt.reset_register.address) {
		scnprintf(reset, sizeof(reset), "not offered (%s)",
			  fadt.revision < 2 ? "revision 1" : "RESET_REG_SUP clear");
	}
	if (fadt.pm_timer.address) {
		acpi_register_describe(&fadt.pm_timer, timer, sizeof(timer));
		scnprintf(&timer[strlen(timer)], sizeof(timer) - strlen(timer), ", %u bits",
			  fadt.pm_timer_32bit ? 32 : 24);
	}
	ktap_note("acpi: FADT revision %u, %u bytes%s; reset register: %s; PM timer: %s",
		  fadt.revision, fadt.length, fadt.hardware_reduced ? ", hardware-reduced" : "",
		  reset, timer);
	/* A stated width that is not the mandated one: accessed as ACPICA does. */
	acpi_fadt_report_register_widths(&fadt, &ktap_reporter);
}

/* \_S5 from the DSDT or an SSDT (lib: acpi_tables_find_s5()). */
static void resolve_soft_off(void)
{
	int result;

	if (!fadt_ready || fadt.dsdt_address == 0)
		return;
	result = acpi_tables_find_s5(&tables, fadt.dsdt_address, &soft_off);
	if (result == ACPI_OK)
		soft_off_ready = true;
	else
		ktap_note("acpi: no usable \\_S5 in the DSDT or an SSDT (%s): ACPI power-off "
			  "unavailable", acpi_error_name(result));
}

/*
 * The UART the SPCR names for the console (a server's BMC, often COM2):
 * validated as Linux's spcr.c does (lib: acpi_spcr_uart()), then matched
 * to a COM port; any other I/O port or memory address is used as it is
 * (console "spcr").  One line says what it is.
 */
static void resolve_spcr(void)
{
	struct acpi_console *uart = &spcr_console.uart;
	struct acpi_gas_access access;
	char speed[32] = "baud as the firmware left it";
	struct acpi_spcr spcr;
	const char *problem;
	const void *table;
	uint32_t length;

	table = acpi_tables_find(&tables, "SPCR", 0, &length);
	if (!table)
		return;
	if (acpi_spcr_parse(table, length, &spcr) != ACPI_OK) {
		ktap_note("acpi: SPCR: unreadable; not used");
		return;
	}
	problem = acpi_spcr_uart(&spcr, &access, &uart->baud);
	if (problem) {
		acpi_spcr_report_unusable(&spcr, problem, &ktap_reporter);
		return;
	}
	if (uart->baud)
		scnprintf(speed, sizeof(speed), "%u baud", uart->baud);
	spcr_console.usable = true;
	uart->com = -1;
	for (unsigned int port = 0; port < SERIAL_PORT_COUNT; port++) {
		if (access.space_id == ACPI_GAS_SYSTEM_IO &&
		    access.address == serial_port_address(port)) {
			uart->com = (int)port;
			ktap_note("acpi: SPCR: 16550 at I/O port 0x%llx (ttyS%u, COM%u), %s",
				  (unsigned long long)access.address, port, port + 1, speed);
			return;
		}
	}
	uart->other = (struct serial_uart_address){
		.memory = access.space_id != ACPI_GAS_SYSTEM_IO,
		.address = access.address,
		.width = access.bytes,
	};
	if (uart->other.memory)
		ktap_note("acpi: SPCR: 16550 in memory at 0x%llx, %u-byte registers, %s",
			  (unsigned long long)access.address, access.bytes, speed);
	else
		ktap_note("acpi: SPCR: 16550 at I/O port 0x%llx (none of COM1-COM4), %s",
			  (unsigned long long)access.address, speed);
}

void acpi_init(void)
{
	char signatures[160] = "";
	size_t cursor = 0, used = 0, count = 0;
	const char *how = "";
	const void *table;
	uint32_t length;
	int result = find_root(&how);

	if (result != ACPI_OK) {
		ktap_note("acpi: no usable ACPI tables (RSDP %s; %s)", how, acpi_error_name(result));
		return;
	}
	tables_ready = true;
	while ((table = acpi_tables_next(&tables, &cursor, &length, NULL)) != NULL) {
		if (used + 6 < sizeof(signatures)) {
			memcpy(&signatures[used], table, 4);
			used += 4;
			signatures[used++] = ' ';
			signatures[used] = '\0';
		}
		count++;
	}
	ktap_note("acpi: RSDP revision %u (OEM '%s') found %s; %s with %zu entries, %zu valid: %s",
		  tables.rsdp.revision, tables.rsdp.oem_id, how,
		  tables.root.is_xsdt ? "XSDT" : "RSDT", acpi_tables_count(&tables), count,
		  signatures);

	table = acpi_tables_find(&tables, "FACP", 0, &length);
	if (table && acpi_fadt_parse(table, length, &fadt) == ACPI_OK) {
		fadt_ready = true;
		report_fadt();
	}
	resolve_soft_off();
	resolve_spcr();
}

const struct acpi_tables *acpi_tables_get(void)
{
	return tables_ready ? &tables : NULL;
}

const struct acpi_fadt *acpi_fadt_get(void)
{
	return fadt_ready ? &fadt : NULL;
}

bool acpi_console_uart(struct acpi_console *out)
{
	if (!spcr_console.usable)
		return false;
	*out = spcr_console.uart;
	return true;
}

bool acpi_soft_off_values(struct acpi_sleep_type *values)
{
	if (!soft_off_ready)
		return false;
	*values = soft_off;
	return true;
}
