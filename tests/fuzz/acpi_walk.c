// SPDX-License-Identifier: MIT
/*
 * Fuzz target: the ACPI tables as the kernel reaches them, by physical
 * address (struct acpi_tables of lib/acpi_tables.c).  The input is a
 * memory image (lib/memory_image.h) whose first chunk is the RSDP and
 * whose other chunks are the tables where the firmware put them
 * (tools/fuzz-corpus packs real boots this way).  The RSDP is used both as
 * the boot loader's copy and by its address; every valid table is
 * enumerated, the FADT, MADT, HPET and MCFG are decoded, and the DSDT the
 * FADT names is scanned for \_S5.  Then all once more with every chunk's
 * checksums made right.
 */
#include <stdlib.h>

#include <lib/memory_image.h>

#include "fuzz.h"

static struct acpi_madt madt;

static void decode_tables(const struct acpi_tables *tables)
{
	struct acpi_fadt fadt;
	struct acpi_hpet hpet;
	struct acpi_mcfg mcfg;
	struct acpi_sleep_type sleep;
	const void *table;
	uint32_t length;
	size_t cursor = 0, valid = 0;

	while ((table = acpi_tables_next(tables, &cursor, &length, NULL)) != NULL) {
		FUZZ_CHECK(length >= ACPI_TABLE_HEADER_SIZE);
		valid++;
	}
	FUZZ_CHECK(valid <= acpi_tables_count(tables));
	table = acpi_tables_find(tables, "APIC", 0, &length);
	if (table)
		acpi_madt_parse(table, length, &tables->reporter, &madt);
	table = acpi_tables_find(tables, "HPET", 0, &length);
	if (table)
		acpi_hpet_parse(table, length, &hpet);
	table = acpi_tables_find(tables, "MCFG", 0, &length);
	if (table)
		acpi_mcfg_parse(table, length, &mcfg);
	acpi_tables_find(tables, "APIC", 1, NULL);
	table = acpi_tables_find(tables, "FACP", 0, &length);
	if (!table || acpi_fadt_parse(table, length, &fadt) != ACPI_OK || !fadt.dsdt_address)
		return;
	table = acpi_tables_map(tables, fadt.dsdt_address, "DSDT", &length);
	if (table)
		acpi_aml_find_s5(table, length, &sleep);
}

static void walk(const uint8_t *data, size_t size)
{
	struct memory_image image;
	struct memory_image_chunk rsdp;
	struct physical_memory_access memory;
	struct acpi_tables tables;

	memory_image_init(&image, data, size);
	memory = memory_image_access(&image);
	if (!memory_image_chunk(&image, 0, &rsdp))
		return;
	if (acpi_tables_init(&tables, rsdp.bytes, rsdp.length, &memory,
			     &fuzz_acpi_reporter) == ACPI_OK)
		decode_tables(&tables);
	if (acpi_tables_init_at(&tables, rsdp.physical, &memory, &fuzz_acpi_reporter) == ACPI_OK)
		decode_tables(&tables);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct memory_image image;
	struct memory_image_chunk chunk;
	uint8_t *copy;

	walk(data, size);
	copy = fuzz_copy(data, size);
	memory_image_init(&image, copy, size);
	for (size_t i = 0; memory_image_chunk(&image, i, &chunk); i++)
		fuzz_fix_acpi_checksums((uint8_t *)chunk.bytes, chunk.length);
	walk(copy, size);
	free(copy);
	return 0;
}
