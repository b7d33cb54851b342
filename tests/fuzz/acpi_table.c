// SPDX-License-Identifier: MIT
/*
 * Fuzz target: one ACPI structure, through every pure parser of
 * lib/acpi_tables.c: the RSDP, the header check, RSDT and XSDT, MADT, FADT,
 * HPET, MCFG and the \_S5 scan of a DSDT.  The input is one table as the
 * firmware had it (tools/fuzz-corpus dumps them from real boots); it is
 * parsed as given, then with its checksums made right, since a mutation
 * almost always breaks them.
 */
#include <stdlib.h>

#include <lib/string.h>

#include "fuzz.h"

static struct acpi_madt madt;	/* about 8 KiB: off the stack */

static void check_root_table(const uint8_t *data, size_t size, bool is_xsdt)
{
	struct acpi_root_table root;
	uint64_t address;

	if (acpi_root_table_parse(data, size, is_xsdt, &root) != ACPI_OK)
		return;
	FUZZ_CHECK(root.entry_count * (is_xsdt ? 8 : 4) + ACPI_TABLE_HEADER_SIZE <= size);
	for (size_t i = 0; i < root.entry_count; i++)
		FUZZ_CHECK(acpi_root_table_entry(&root, i, &address));
	FUZZ_CHECK(!acpi_root_table_entry(&root, root.entry_count, &address));
}

static void check_madt(const uint8_t *data, size_t size)
{
	size_t messages = 0;
	struct acpi_reporter reporter = fuzz_acpi_reporter;

	reporter.context = &messages;
	if (acpi_madt_parse(data, size, &reporter, &madt) != ACPI_OK)
		return;
	FUZZ_CHECK(madt.cpu_count <= ACPI_MAX_CPUS);
	FUZZ_CHECK(madt.io_apic_count <= ACPI_MAX_IO_APICS);
	FUZZ_CHECK(madt.override_count <= ACPI_MAX_INTERRUPT_OVERRIDES);
	FUZZ_CHECK(madt.nmi_count <= ACPI_MAX_LOCAL_NMIS);
	FUZZ_CHECK(madt.duplicate_apic_ids <= madt.cpu_count);
	FUZZ_CHECK(madt.cpus_beyond_capacity == 0 || madt.cpu_count == ACPI_MAX_CPUS);
}

static void parse_everything(const uint8_t *data, size_t size)
{
	struct acpi_table_header header;
	struct acpi_rsdp rsdp;
	struct acpi_fadt fadt;
	struct acpi_hpet hpet;
	struct acpi_mcfg mcfg;
	struct acpi_sleep_type sleep;

	if (acpi_rsdp_parse(data, size, &rsdp) == ACPI_OK) {
		FUZZ_CHECK(rsdp.length <= size);
		FUZZ_CHECK(strnlen(rsdp.oem_id, sizeof(rsdp.oem_id)) < sizeof(rsdp.oem_id));
		acpi_rsdp_root_address(&rsdp, NULL);
	}
	if (acpi_table_check(data, size, NULL, &header) == ACPI_OK)
		FUZZ_CHECK(header.length >= ACPI_TABLE_HEADER_SIZE && header.length <= size);
	check_root_table(data, size, false);
	check_root_table(data, size, true);
	check_madt(data, size);
	if (acpi_fadt_parse(data, size, &fadt) == ACPI_OK)
		FUZZ_CHECK(fadt.length <= size);
	acpi_hpet_parse(data, size, &hpet);
	if (acpi_mcfg_parse(data, size, &mcfg) == ACPI_OK)
		FUZZ_CHECK(mcfg.allocation_count <= ACPI_MAX_MCFG_ALLOCATIONS);
	if (acpi_aml_find_s5(data, size, &sleep) == ACPI_OK)
		FUZZ_CHECK(size > ACPI_TABLE_HEADER_SIZE);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy;

	parse_everything(data, size);
	copy = fuzz_copy(data, size);
	fuzz_fix_acpi_checksums(copy, size);
	parse_everything(copy, size);
	free(copy);
	return 0;
}
