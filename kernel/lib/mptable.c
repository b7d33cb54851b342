// SPDX-License-Identifier: MIT
/*
 * Intel MultiProcessor Specification 1.4 tables, parsed as untrusted input.
 *
 * The rules are those of acpi_tables.c: know how many bytes are readable
 * before reading any; check a structure's own length against that before
 * believing it; compare lengths by subtraction so nothing wraps; read
 * multi-byte fields a byte at a time (the tables are byte-packed and
 * little-endian, and nothing promises their alignment).  The MP tables add
 * one difficulty: base table entries carry no length (4.3), so an entry of
 * a type not defined by the spec hides where the next one starts, and the
 * walk must stop there.
 */
#include <lib/mptable.h>

#include <lib/bytes.h>
#include <lib/string.h>

/* MP floating pointer structure, 4.1 (Figure 4-2, Table 4-1) */
#define FLOATING_SIGNATURE		"_MP_"
#define FLOATING_SIGNATURE_SIZE		4
#define FLOATING_ALIGNMENT		16
#define FLOATING_PHYSICAL_POINTER	4
#define FLOATING_LENGTH			8	/* in 16-byte units */
#define FLOATING_SPEC_REVISION		9
#define FLOATING_CHECKSUM		10
#define FLOATING_FEATURE_BYTES		11	/* bytes 1-5 at 11-15 */
#define FLOATING_FEATURE_COUNT		5

/* MP configuration table header, 4.2 (Figure 4-3, Table 4-2) */
#define CONFIG_SIGNATURE		"PCMP"
#define CONFIG_SIGNATURE_SIZE		4
#define CONFIG_BASE_TABLE_LENGTH	4
#define CONFIG_SPEC_REVISION		6
#define CONFIG_CHECKSUM			7
#define CONFIG_OEM_ID			8
#define CONFIG_OEM_ID_SIZE		8
#define CONFIG_PRODUCT_ID		16
#define CONFIG_PRODUCT_ID_SIZE		12
#define CONFIG_OEM_TABLE_POINTER	28
#define CONFIG_OEM_TABLE_SIZE		32
#define CONFIG_ENTRY_COUNT		34
#define CONFIG_LOCAL_APIC_ADDRESS	36
#define CONFIG_EXTENDED_LENGTH		40
#define CONFIG_EXTENDED_CHECKSUM	42

/* Processor entry, 4.3.1 (Figure 4-4, Table 4-4) */
#define PROCESSOR_APIC_ID		1
#define PROCESSOR_APIC_VERSION		2
#define PROCESSOR_FLAGS			3
#define PROCESSOR_SIGNATURE		4
#define PROCESSOR_FEATURES		8

/* I/O APIC entry, 4.3.3 (Figure 4-6, Table 4-8) */
#define IO_APIC_ID			1
#define IO_APIC_VERSION			2
#define IO_APIC_FLAGS			3
#define IO_APIC_ADDRESS			4

/* In the default configurations the CPUs take APIC IDs 0 and 1 (5). */
#define DEFAULT_CPU_COUNT		2
#define DEFAULT_IO_APIC_ID		2
#define DISCRETE_APIC_VERSION		0x01	/* 82489DX: version register 0x0X */
#define INTEGRATED_APIC_VERSION		0x10	/* on-chip local APIC: 0x1X */
#define LAST_DISCRETE_CONFIGURATION	4	/* Table 5-1: codes 1-4 use the 82489DX */

/*
 * The OEM and product IDs are space-padded ASCII (4.2): copy them with the
 * padding removed and anything unprintable shown as '?', so that they can
 * go into a message as they are.
 */
static void copy_id_string(char *destination, const uint8_t *source, size_t length)
{
	size_t end = length;

	while (end > 0 && (source[end - 1] == ' ' || source[end - 1] == '\0'))
		end--;
	for (size_t i = 0; i < end; i++) {
		uint8_t c = source[i];

		destination[i] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	destination[end] = '\0';
}

/* --- Floating pointer (4.1) ------------------------------------------------------ */

/* @slot has MP_FLOATING_POINTER_SIZE readable bytes. */
static int floating_pointer_check(const uint8_t *slot, uint64_t physical,
				  struct mp_floating_pointer *out)
{
	/*
	 * LENGTH counts 16-byte paragraphs and 4.1 defines only 1; a larger
	 * value would make the checksum cover bytes past the slot, which the
	 * structure defined by MP 1.4 does not have.
	 */
	if (slot[FLOATING_LENGTH] != 1)
		return ACPI_ERROR_BAD_LENGTH;
	if (byte_sum(slot, MP_FLOATING_POINTER_SIZE) != 0)
		return ACPI_ERROR_BAD_CHECKSUM;

	memset(out, 0, sizeof(*out));
	out->physical = physical;
	out->config_table_address = get_le32(slot + FLOATING_PHYSICAL_POINTER);
	out->spec_revision = slot[FLOATING_SPEC_REVISION];
	memcpy(out->feature_bytes, slot + FLOATING_FEATURE_BYTES, FLOATING_FEATURE_COUNT);
	out->default_configuration = out->feature_bytes[0];
	out->imcr_present = out->feature_bytes[1] & MP_FEATURE2_IMCR_PRESENT;
	return ACPI_OK;
}

int mp_floating_pointer_scan(const void *area, size_t length, uint64_t area_physical,
			     struct mp_floating_pointer *out)
{
	const uint8_t *bytes = area;
	int first_error = ACPI_ERROR_NOT_FOUND;
	size_t offset;

	if (!out)
		return ACPI_ERROR_INVALID_ARGUMENT;
	memset(out, 0, sizeof(*out));
	if (!bytes)
		return ACPI_ERROR_INVALID_ARGUMENT;
	if (length > 0 && (uint64_t)length - 1 > UINT64_MAX - area_physical)
		return ACPI_ERROR_INVALID_ARGUMENT;

	/* 4: the structure starts on a 16-byte boundary of physical memory. */
	offset = (size_t)((FLOATING_ALIGNMENT - area_physical % FLOATING_ALIGNMENT) %
			  FLOATING_ALIGNMENT);
	/* Invariant: a slot is examined only if all its 16 bytes are readable. */
	for (; offset <= length && length - offset >= MP_FLOATING_POINTER_SIZE;
	     offset += FLOATING_ALIGNMENT) {
		const uint8_t *slot = bytes + offset;
		int error;

		if (memcmp(slot, FLOATING_SIGNATURE, FLOATING_SIGNATURE_SIZE) != 0)
			continue;
		error = floating_pointer_check(slot, area_physical + offset, out);
		if (error == ACPI_OK)
			return ACPI_OK;
		if (first_error == ACPI_ERROR_NOT_FOUND)
			first_error = error;
	}
	return first_error;
}

/* --- Configuration table (4.2, 4.3) ------------------------------------------------ */

/* Table 4-3: the size each base entry type implies; 0 for types it does not define. */
static size_t entry_size(uint8_t type)
{
	switch (type) {
	case MP_ENTRY_PROCESSOR:
		return MP_PROCESSOR_ENTRY_SIZE;
	case MP_ENTRY_BUS:
	case MP_ENTRY_IO_APIC:
	case MP_ENTRY_IO_INTERRUPT:
	case MP_ENTRY_LOCAL_INTERRUPT:
		return MP_SMALL_ENTRY_SIZE;
	default:
		return 0;
	}
}

/* Which APIC IDs processor entries have used so far: one bit per 8-bit ID. */
struct apic_id_set {
	uint8_t bits[256 / 8];
};

/*
 * 4.3.1: "the only restriction placed on the assignment of APIC IDs is
 * that they be unique".  A repeated ID is a firmware bug that matters when
 * CPUs are started (the second INIT-SIPI would reach the first CPU
 * again), so every entry is kept, duplicates included, and the repeat
 * counted and reported.
 */
static void add_cpu(struct mp_configuration *out, const struct acpi_reporter *reporter,
		    struct apic_id_set *seen, size_t entry_index, const uint8_t *entry)
{
	uint8_t apic_id = entry[PROCESSOR_APIC_ID];
	uint8_t flags = entry[PROCESSOR_FLAGS];
	uint8_t bit = (uint8_t)(1u << (apic_id % 8));
	struct mp_cpu *cpu;

	if (seen->bits[apic_id / 8] & bit) {
		out->duplicate_apic_ids++;
		if (out->duplicate_apic_ids <= MP_MAX_DUPLICATE_REPORTS)
			acpi_report(reporter, "MP: entry %zu: APIC ID %u listed again", entry_index,
				    apic_id);
		else if (out->duplicate_apic_ids == MP_MAX_DUPLICATE_REPORTS + 1)
			acpi_report(reporter, "MP: further duplicate APIC IDs only counted");
	}
	seen->bits[apic_id / 8] |= bit;

	if (flags & MP_CPU_BOOTSTRAP) {
		out->bootstrap_cpus++;
		if (!(flags & MP_CPU_ENABLED))
			acpi_report(reporter, "MP: entry %zu: bootstrap processor (APIC ID %u) is marked disabled",
				    entry_index, apic_id);
	}

	if (out->cpu_count >= MP_MAX_CPUS) {
		out->cpus_beyond_capacity++;
		return;
	}
	cpu = &out->cpus[out->cpu_count++];
	cpu->apic_id = apic_id;
	cpu->apic_version = entry[PROCESSOR_APIC_VERSION];
	cpu->enabled = flags & MP_CPU_ENABLED;
	cpu->bootstrap = flags & MP_CPU_BOOTSTRAP;
	cpu->signature = get_le32(entry + PROCESSOR_SIGNATURE);
	cpu->features = get_le32(entry + PROCESSOR_FEATURES);
}

static void add_io_apic(struct mp_configuration *out, const uint8_t *entry)
{
	struct mp_io_apic *io_apic;

	if (out->io_apic_count >= MP_MAX_IO_APICS) {
		out->io_apics_beyond_capacity++;
		return;
	}
	io_apic = &out->io_apics[out->io_apic_count++];
	io_apic->id = entry[IO_APIC_ID];
	io_apic->version = entry[IO_APIC_VERSION];
	io_apic->enabled = entry[IO_APIC_FLAGS] & MP_IO_APIC_ENABLED;
	io_apic->address = get_le32(entry + IO_APIC_ADDRESS);
}

/* @entry has entry_size(@entry[0]) readable bytes, and that size is not 0. */
static void decode_entry(struct mp_configuration *out, const struct acpi_reporter *reporter,
			 struct apic_id_set *seen, size_t entry_index, const uint8_t *entry)
{
	switch (entry[0]) {
	case MP_ENTRY_PROCESSOR:
		add_cpu(out, reporter, seen, entry_index, entry);
		break;
	case MP_ENTRY_IO_APIC:
		add_io_apic(out, entry);
		break;
	case MP_ENTRY_BUS:
		out->bus_entries++;
		break;
	case MP_ENTRY_IO_INTERRUPT:
		out->io_interrupt_entries++;
		break;
	case MP_ENTRY_LOCAL_INTERRUPT:
		out->local_interrupt_entries++;
		break;
	}
}

/* Invariant on entry: offset <= base_length <= available. */
static void walk_entries(const uint8_t *bytes, struct mp_configuration *out,
			 const struct acpi_reporter *reporter)
{
	struct apic_id_set seen;
	size_t offset = MP_CONFIG_HEADER_SIZE;
	size_t base_length = out->base_table_length;

	memset(&seen, 0, sizeof(seen));
	for (size_t index = 0; index < out->entry_count; index++) {
		size_t room = base_length - offset;
		uint8_t type;
		size_t size;

		if (room == 0) {
			acpi_report(reporter,
				    "MP: entry count %u, but the table ends after %zu entries",
				    out->entry_count, index);
			out->walk_stopped = true;
			break;
		}
		type = bytes[offset];
		size = entry_size(type);
		if (size == 0) {
			/* 4.3: sizes are implied by type, so there is no way past it. */
			acpi_report(reporter, "MP: entry %zu at offset %zu has unknown type %u; walk stopped",
				    index, offset, type);
			out->walk_stopped = true;
			break;
		}
		if (size > room) {
			acpi_report(reporter, "MP: entry %zu (type %u, %zu bytes) at offset %zu runs past the %zu-byte table; walk stopped",
				    index, type, size, offset, base_length);
			out->walk_stopped = true;
			break;
		}
		decode_entry(out, reporter, &seen, index, bytes + offset);
		out->entries_walked++;
		offset += size;
	}
	if (!out->walk_stopped && offset < base_length) {
		out->trailing_bytes = base_length - offset;
		acpi_report(reporter, "MP: %zu bytes after the last of %u entries ignored",
			    out->trailing_bytes, out->entry_count);
	}
}

/* Things worth a line in the log that do not make the table unusable. */
static void report_oddities(const struct mp_configuration *out,
			    const struct acpi_reporter *reporter)
{
	if (out->cpu_count == 0)
		acpi_report(reporter, "MP: the table lists no processors");
	else if (out->bootstrap_cpus != 1)
		acpi_report(reporter, "MP: %zu processor entries have the BP flag, expected 1",
			    out->bootstrap_cpus);
	if (out->cpus_beyond_capacity)
		acpi_report(reporter, "MP: %zu processors listed, only %d supported",
			    out->cpu_count + out->cpus_beyond_capacity, MP_MAX_CPUS);
	if (out->io_apics_beyond_capacity)
		acpi_report(reporter, "MP: %zu I/O APICs listed, only %d supported",
			    out->io_apic_count + out->io_apics_beyond_capacity, MP_MAX_IO_APICS);
	if (out->extended_table_checked && !out->extended_table_valid)
		acpi_report(reporter, "MP: extended table (%u bytes) has a bad checksum",
			    out->extended_table_length);
}

int mp_config_table_parse(const void *table, size_t available,
			  const struct acpi_reporter *reporter, struct mp_configuration *out)
{
	const uint8_t *bytes = table;
	uint16_t base_length;

	if (!out)
		return ACPI_ERROR_INVALID_ARGUMENT;
	memset(out, 0, sizeof(*out));
	if (!bytes) {
		acpi_report(reporter, "MP: no configuration table given");
		return ACPI_ERROR_INVALID_ARGUMENT;
	}
	if (available < MP_CONFIG_HEADER_SIZE) {
		acpi_report(reporter, "MP: configuration table: only %zu bytes readable",
			    available);
		return ACPI_ERROR_TRUNCATED;
	}
	if (memcmp(bytes, CONFIG_SIGNATURE, CONFIG_SIGNATURE_SIZE) != 0) {
		acpi_report(reporter, "MP: configuration table: signature is not \"PCMP\"");
		return ACPI_ERROR_BAD_SIGNATURE;
	}
	base_length = get_le16(bytes + CONFIG_BASE_TABLE_LENGTH);
	if (base_length < MP_CONFIG_HEADER_SIZE) {
		acpi_report(reporter, "MP: base table length %u is shorter than its 44-byte header",
			    base_length);
		return ACPI_ERROR_BAD_LENGTH;
	}
	if (base_length > available) {
		acpi_report(reporter, "MP: base table length %u, but only %zu bytes readable",
			    base_length, available);
		return ACPI_ERROR_TRUNCATED;
	}
	/* 4.2 CHECKSUM: the base table, header included, sums to zero. */
	if (byte_sum(bytes, base_length) != 0) {
		acpi_report(reporter, "MP: configuration table: bad checksum");
		return ACPI_ERROR_BAD_CHECKSUM;
	}

	out->spec_revision = bytes[CONFIG_SPEC_REVISION];
	copy_id_string(out->oem_id, bytes + CONFIG_OEM_ID, CONFIG_OEM_ID_SIZE);
	copy_id_string(out->product_id, bytes + CONFIG_PRODUCT_ID, CONFIG_PRODUCT_ID_SIZE);
	out->oem_table_address = get_le32(bytes + CONFIG_OEM_TABLE_POINTER);
	out->oem_table_size = get_le16(bytes + CONFIG_OEM_TABLE_SIZE);
	out->base_table_length = base_length;
	out->entry_count = get_le16(bytes + CONFIG_ENTRY_COUNT);
	out->local_apic_address = get_le32(bytes + CONFIG_LOCAL_APIC_ADDRESS);
	out->extended_table_length = get_le16(bytes + CONFIG_EXTENDED_LENGTH);

	/*
	 * 4.2 EXTENDED TABLE CHECKSUM: the extended entries, which follow the
	 * base table directly, plus this byte sum to zero.  Checked only if
	 * the caller handed those bytes over.
	 */
	if (out->extended_table_length > 0 &&
	    out->extended_table_length <= available - base_length) {
		uint8_t sum = byte_sum(bytes + base_length, out->extended_table_length);

		out->extended_table_checked = true;
		out->extended_table_valid =
			(uint8_t)(sum + bytes[CONFIG_EXTENDED_CHECKSUM]) == 0;
	}

	walk_entries(bytes, out, reporter);
	report_oddities(out, reporter);
	return ACPI_OK;
}

/* --- Default configurations (5) ---------------------------------------------------- */

const char *mp_default_configuration_name(uint8_t type)
{
	/* Table 5-1 */
	switch (type) {
	case 0:
		return "none";
	case 1:
		return "ISA, discrete APICs";
	case 2:
		return "EISA without IRQ0/IRQ13 at the I/O APIC, discrete APICs";
	case 3:
		return "EISA, discrete APICs";
	case 4:
		return "MCA, discrete APICs";
	case 5:
		return "ISA + PCI, integrated APICs";
	case 6:
		return "EISA + PCI, integrated APICs";
	case 7:
		return "MCA + PCI, integrated APICs";
	default:
		return "undefined";
	}
}

int mp_default_configuration(uint8_t type, struct mp_configuration *out)
{
	uint8_t version;

	if (!out)
		return ACPI_ERROR_INVALID_ARGUMENT;
	memset(out, 0, sizeof(*out));
	if (type < MP_DEFAULT_CONFIGURATION_FIRST || type > MP_DEFAULT_CONFIGURATION_LAST)
		return ACPI_ERROR_MALFORMED;

	version = type <= LAST_DISCRETE_CONFIGURATION ? DISCRETE_APIC_VERSION :
							 INTEGRATED_APIC_VERSION;
	out->default_configuration = type;
	out->local_apic_address = MP_DEFAULT_LOCAL_APIC_ADDRESS;
	/* 5: two processors, APIC IDs assigned by hardware from zero. */
	for (uint8_t id = 0; id < DEFAULT_CPU_COUNT; id++) {
		struct mp_cpu *cpu = &out->cpus[out->cpu_count++];

		cpu->apic_id = id;
		cpu->apic_version = version;
		cpu->enabled = true;
	}
	out->io_apics[0].id = DEFAULT_IO_APIC_ID;
	out->io_apics[0].version = version;
	out->io_apics[0].enabled = true;
	out->io_apics[0].address = MP_DEFAULT_IO_APIC_ADDRESS;
	out->io_apic_count = 1;
	return ACPI_OK;
}

/* --- Through physical memory ------------------------------------------------------- */

struct search_area {
	const char *name;
	uint64_t physical;
	size_t length;
};

static int find_floating_pointer(const struct physical_memory_access *memory,
				 const struct search_area *area,
				 const struct acpi_reporter *reporter,
				 struct mp_floating_pointer *pointer)
{
	const void *bytes = physical_memory_map(memory, area->physical, area->length);
	int error;

	if (!bytes) {
		acpi_report(reporter, "MP: %s (0x%llx, %zu bytes) not mapped; not searched",
			    area->name, (unsigned long long)area->physical, area->length);
		return ACPI_ERROR_UNMAPPED;
	}
	error = mp_floating_pointer_scan(bytes, area->length, area->physical, pointer);
	if (error != ACPI_OK && error != ACPI_ERROR_NOT_FOUND)
		acpi_report(reporter, "MP: %s: floating pointer candidate rejected: %s", area->name,
			    acpi_error_name(error));
	return error;
}

static int use_default_configuration(const struct mp_floating_pointer *pointer,
				     const struct acpi_reporter *reporter,
				     struct mp_configuration *out)
{
	uint8_t type = pointer->default_configuration;
	int error;

	/* 5: "The physical address pointer field ... must be zero". */
	if (pointer->config_table_address != 0)
		acpi_report(reporter, "MP: default configuration %u with a table address 0x%x; address ignored",
			    type, pointer->config_table_address);
	error = mp_default_configuration(type, out);
	if (error) {
		acpi_report(reporter, "MP: default configuration %u is not defined", type);
		return error;
	}
	acpi_report(reporter, "MP: default configuration %u (%s): no table, two CPUs assumed", type,
		    mp_default_configuration_name(type));
	return ACPI_OK;
}

static int map_and_parse(const struct physical_memory_access *memory, uint64_t table_physical,
			 const struct acpi_reporter *reporter, struct mp_configuration *out)
{
	const uint8_t *bytes;
	size_t base_length, extended_length, available = MP_CONFIG_HEADER_SIZE;

	bytes = physical_memory_map(memory, table_physical, MP_CONFIG_HEADER_SIZE);
	if (!bytes) {
		memset(out, 0, sizeof(*out));
		acpi_report(reporter, "MP: configuration table header at 0x%llx not mapped",
			    (unsigned long long)table_physical);
		return ACPI_ERROR_UNMAPPED;
	}
	/*
	 * Map what the header claims only once it plausibly is a header;
	 * whatever cannot be mapped, mp_config_table_parse() then reports as
	 * truncated (it is given only the 44 bytes known to be readable).
	 */
	base_length = get_le16(bytes + CONFIG_BASE_TABLE_LENGTH);
	extended_length = get_le16(bytes + CONFIG_EXTENDED_LENGTH);
	if (memcmp(bytes, CONFIG_SIGNATURE, CONFIG_SIGNATURE_SIZE) == 0 &&
	    base_length >= MP_CONFIG_HEADER_SIZE) {
		const uint8_t *longer = NULL;

		if (extended_length > 0) {
			longer = physical_memory_map(memory, table_physical,
						     base_length + extended_length);
			if (longer)
				available = base_length + extended_length;
		}
		if (!longer) {
			longer = physical_memory_map(memory, table_physical, base_length);
			if (longer)
				available = base_length;
		}
		if (longer)
			bytes = longer;
	}
	return mp_config_table_parse(bytes, available, reporter, out);
}

int mp_tables_find(const struct physical_memory_access *memory, uint64_t ebda_physical,
		   uint64_t base_memory_end, const struct acpi_reporter *reporter,
		   struct mp_floating_pointer *pointer, struct mp_configuration *out)
{
	struct search_area areas[3];
	struct mp_floating_pointer found;
	size_t area_count = 0;
	int error = ACPI_ERROR_NOT_FOUND;

	if (pointer)
		memset(pointer, 0, sizeof(*pointer));
	if (!out)
		return ACPI_ERROR_INVALID_ARGUMENT;
	memset(out, 0, sizeof(*out));
	memset(&found, 0, sizeof(found));

	/* MP spec 4, a-c */
	if (ebda_physical != 0) {
		areas[area_count].name = "EBDA";
		areas[area_count].physical = ebda_physical;
		areas[area_count].length = MP_EBDA_SEARCH_LENGTH;
		area_count++;
	}
	if (base_memory_end == 0)
		base_memory_end = MP_DEFAULT_BASE_MEMORY_END;
	if (base_memory_end >= MP_BASE_MEMORY_SEARCH_LENGTH &&
	    (ebda_physical == 0 ||
	     base_memory_end - MP_BASE_MEMORY_SEARCH_LENGTH != ebda_physical)) {
		areas[area_count].name = "last KiB of base memory";
		areas[area_count].physical = base_memory_end - MP_BASE_MEMORY_SEARCH_LENGTH;
		areas[area_count].length = MP_BASE_MEMORY_SEARCH_LENGTH;
		area_count++;
	}
	areas[area_count].name = "BIOS ROM";
	areas[area_count].physical = MP_BIOS_ROM_START;
	areas[area_count].length = MP_BIOS_ROM_LENGTH;
	area_count++;

	for (size_t i = 0; i < area_count && error != ACPI_OK; i++)
		error = find_floating_pointer(memory, &areas[i], reporter, &found);
	if (error != ACPI_OK) {
		acpi_report(reporter, "MP: no valid floating pointer structure found");
		return ACPI_ERROR_NOT_FOUND;
	}
	if (pointer)
		*pointer = found;

	if (found.default_configuration != 0)
		return use_default_configuration(&found, reporter, out);
	if (found.config_table_address == 0) {
		acpi_report(reporter, "MP: floating pointer at 0x%llx names neither a table nor a default configuration",
			    (unsigned long long)found.physical);
		return ACPI_ERROR_MALFORMED;
	}
	return map_and_parse(memory, found.config_table_address, reporter, out);
}
