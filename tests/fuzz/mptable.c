// SPDX-License-Identifier: MIT
/*
 * Fuzz target: the MP tables (lib/mptable.c).  The input is a memory image
 * (lib/memory_image.h): its first chunk is an area to search for the
 * floating pointer (tools/fuzz-corpus takes the KiB of a real boot that
 * holds it), the others hold the configuration table.  The area is
 * scanned directly, then mp_tables_find() searches it as the EBDA and
 * follows the pointer; both again with the checksums made right.
 */
#include <lib/bytes.h>
#include <lib/mptable.h>
#include <lib/string.h>

#include "fuzz.h"

static struct mp_configuration configuration;

static void check_configuration(const struct mp_configuration *config)
{
	FUZZ_CHECK(config->cpu_count <= MP_MAX_CPUS);
	FUZZ_CHECK(config->io_apic_count <= MP_MAX_IO_APICS);
	FUZZ_CHECK(config->bootstrap_cpus <= config->cpu_count + config->cpus_beyond_capacity);
	FUZZ_CHECK(strnlen(config->oem_id, sizeof(config->oem_id)) < sizeof(config->oem_id));
	FUZZ_CHECK(strnlen(config->product_id, sizeof(config->product_id)) <
		   sizeof(config->product_id));
}

static void search(const uint8_t *data, size_t size)
{
	struct memory_image_chunk area;
	struct physical_memory_access memory;
	struct mp_floating_pointer pointer;

	if (!fuzz_memory_open(data, size, &memory, &area))
		return;
	if (mp_floating_pointer_scan(area.bytes, area.length, area.physical, &pointer) == ACPI_OK) {
		FUZZ_CHECK(pointer.physical >= area.physical &&
			   pointer.physical - area.physical + MP_FLOATING_POINTER_SIZE <= area.length);
		if (mp_default_configuration(pointer.default_configuration, &configuration) ==
		    ACPI_OK)
			check_configuration(&configuration);
	}
	if (mp_tables_find(&memory, area.physical, area.physical + area.length,
			   &fuzz_acpi_reporter, &pointer, &configuration) == ACPI_OK)
		check_configuration(&configuration);
	fuzz_memory_close();
}

/* Make the checksums right: a floating pointer's in every 16-byte slot, a table's. */
static void fix_checksums(uint8_t *bytes, size_t length)
{
	if (length >= MP_CONFIG_HEADER_SIZE && memcmp(bytes, "PCMP", 4) == 0) {
		size_t base = get_le16(bytes + 4);

		fuzz_fix_checksum(bytes, base < length ? base : length, 7);
		return;
	}
	for (size_t offset = 0; offset + MP_FLOATING_POINTER_SIZE <= length; offset += 16) {
		if (memcmp(bytes + offset, "_MP_", 4) == 0)
			fuzz_fix_checksum(bytes + offset, MP_FLOATING_POINTER_SIZE, 10);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_image_as_given_and_fixed(data, size, search, fix_checksums);
	return 0;
}
