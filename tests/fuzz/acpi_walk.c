// SPDX-License-Identifier: MIT
/*
 * Fuzz target: the ACPI tables as the kernel reaches them, by physical
 * address (struct acpi_tables of lib/acpi_tables.c), walked as
 * tests/acpi_image_walk.h does.  The input is a memory image
 * (lib/memory_image.h) whose first chunk is the RSDP and whose other
 * chunks are the tables where the firmware put them (tools/fuzz-corpus
 * packs real boots this way).  Then all once more with every chunk's
 * checksums made right, since mutations almost always break them.
 */

#include "../acpi_image_walk.h"
#include "fuzz.h"

static struct acpi_image_walk walk;

static void check(const uint8_t *data, size_t size)
{
	struct physical_memory_access memory;
	struct memory_image_chunk rsdp;

	if (!fuzz_memory_open(data, size, &memory, &rsdp))
		return;
	acpi_image_walk(&rsdp, &memory, &fuzz_acpi_reporter, &walk);
	fuzz_memory_close();
	FUZZ_CHECK(walk.valid_tables <= walk.entries);
	if (walk.madt_result == ACPI_OK) {
		FUZZ_CHECK(walk.madt.cpu_count <= ACPI_MAX_CPUS);
		FUZZ_CHECK(walk.madt.io_apic_count <= ACPI_MAX_IO_APICS);
	}
	if (walk.mcfg_result == ACPI_OK)
		FUZZ_CHECK(walk.mcfg.allocation_count <= ACPI_MAX_MCFG_ALLOCATIONS);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_image_as_given_and_fixed(data, size, check, fuzz_fix_acpi_checksums);
	return 0;
}
