/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_TESTS_ACPI_IMAGE_WALK_H
#define TRIGOS_TESTS_ACPI_IMAGE_WALK_H
/*
 * Everything the kernel does with ACPI tables, done to a memory image
 * (lib/memory_image.h) whose first chunk is the RSDP: the root table from
 * the RSDP as a boot loader's copy and by its address, every valid table
 * enumerated, the MADT, FADT, HPET and MCFG decoded, \_S5 looked for in
 * the DSDT the FADT names and the SSDTs.  Shared by the acpi_walk fuzz target
 * (tests/fuzz/acpi_walk.c) and the acpi_crafted boot test
 * (tests/acpi_crafted.c), so that a table the fuzzer found troublesome is
 * replayed in the kernel through the very same calls.
 */

#include <lib/acpi_tables.h>
#include <lib/memory_image.h>
#include <lib/string.h>

/*
 * What the walk found; @madt is large, so the caller keeps this off small
 * stacks.  The *_result fields are ACPI_OK or an enum acpi_error;
 * ACPI_ERROR_NOT_FOUND when the table is not there.
 */
struct acpi_image_walk {
	int root_result;		/* acpi_tables_init() on the RSDP copy */
	int root_at_result;		/* acpi_tables_init_at() on its address */
	bool is_xsdt;
	size_t entries, valid_tables;
	int madt_result, fadt_result, hpet_result, mcfg_result, s5_result;
	struct acpi_madt madt;
	struct acpi_fadt fadt;
	struct acpi_hpet hpet;
	struct acpi_mcfg mcfg;
	struct acpi_sleep_type s5;
};

/* Decode what @tables lists into @out. */
static inline void acpi_image_walk_tables(const struct acpi_tables *tables,
					  struct acpi_image_walk *out)
{
	const void *table;
	uint32_t length;
	size_t cursor = 0;

	out->is_xsdt = tables->root.is_xsdt;
	out->entries = acpi_tables_count(tables);
	out->valid_tables = 0;
	while (acpi_tables_next(tables, &cursor, NULL, NULL))
		out->valid_tables++;
	out->madt_result = out->fadt_result = out->hpet_result = ACPI_ERROR_NOT_FOUND;
	out->mcfg_result = out->s5_result = ACPI_ERROR_NOT_FOUND;
	if ((table = acpi_tables_find(tables, "APIC", 0, &length)) != NULL)
		out->madt_result = acpi_madt_parse(table, length, &tables->reporter, &out->madt);
	if ((table = acpi_tables_find(tables, "HPET", 0, &length)) != NULL)
		out->hpet_result = acpi_hpet_parse(table, length, &out->hpet);
	if ((table = acpi_tables_find(tables, "MCFG", 0, &length)) != NULL)
		out->mcfg_result = acpi_mcfg_parse(table, length, &out->mcfg);
	if ((table = acpi_tables_find(tables, "FACP", 0, &length)) != NULL)
		out->fadt_result = acpi_fadt_parse(table, length, &out->fadt);
	if (out->fadt_result != ACPI_OK || !out->fadt.dsdt_address)
		return;
	out->s5_result = acpi_tables_find_s5(tables, out->fadt.dsdt_address, &out->s5);
}

/**
 * acpi_image_walk - walk the ACPI tables behind an RSDP
 * @rsdp: the RSDP (the first chunk of a memory image)
 * @memory: the rest of the image, by physical address
 * @reporter: where the parsers describe problems (may be NULL)
 * @out: filled in; for the root found through the RSDP copy when that
 *       works, else through its address
 */
static inline void acpi_image_walk(const struct memory_image_chunk *rsdp,
				   const struct physical_memory_access *memory,
				   const struct acpi_reporter *reporter,
				   struct acpi_image_walk *out)
{
	struct acpi_tables tables;

	memset(out, 0, sizeof(*out));
	out->root_at_result = acpi_tables_init_at(&tables, rsdp->physical, memory, reporter);
	if (out->root_at_result == ACPI_OK)
		acpi_image_walk_tables(&tables, out);
	out->root_result = acpi_tables_init(&tables, rsdp->bytes, rsdp->length, memory, reporter);
	if (out->root_result == ACPI_OK)
		acpi_image_walk_tables(&tables, out);
}

#endif /* TRIGOS_TESTS_ACPI_IMAGE_WALK_H */
