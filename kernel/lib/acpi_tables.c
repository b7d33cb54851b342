// SPDX-License-Identifier: MIT
/*
 * ACPI static tables (ACPI 6.5 section 5.2), parsed as untrusted input.
 *
 * Firmware tables are often wrong in small ways and a fuzzer will make
 * them wrong in every way, so the rules here are: know how many bytes are
 * readable before reading any (an explicit @available, or what the
 * accessor mapped); check a structure's own length against that before
 * believing it; compare lengths by subtraction so nothing wraps; read
 * multi-byte fields a byte at a time (little-endian, 5.2), since tables
 * are byte-packed and XSDT entries are not 8-byte aligned.  A table that
 * fails a check is reported and never used.
 */
#include <lib/acpi_tables.h>

#include <stdarg.h>

#include <lib/bytes.h>
#include <lib/format.h>
#include <lib/string.h>

/* RSDP, 5.2.5.3 */
#define RSDP_SIGNATURE		"RSD PTR "
#define RSDP_SIGNATURE_SIZE	8
#define RSDP_OEM_ID		9
#define RSDP_REVISION		15
#define RSDP_RSDT_ADDRESS	16
#define RSDP_LENGTH		20
#define RSDP_XSDT_ADDRESS	24

/* System description table header, 5.2.6 */
#define HEADER_LENGTH		4
#define HEADER_REVISION		8
#define HEADER_CHECKSUM		9
#define HEADER_OEM_ID		10
#define HEADER_OEM_TABLE_ID	16
#define HEADER_OEM_REVISION	24
#define HEADER_CREATOR_ID	28
#define HEADER_CREATOR_REVISION	32

/* MADT, 5.2.12 */
#define MADT_LOCAL_APIC_ADDRESS	36
#define MADT_FLAGS		40
#define MADT_ENTRIES		44
#define MADT_UID_ALL		0xffu		/* type 4: "all processors" */
#define MADT_X2APIC_UID_ALL	0xffffffffu	/* type 10 */

/* FADT, 5.2.9: offsets of the fields read */
#define FADT_DSDT		40
#define FADT_SCI_INT		46
#define FADT_SMI_CMD		48
#define FADT_ACPI_ENABLE	52
#define FADT_ACPI_DISABLE	53
#define FADT_PM1A_CNT_BLK	64
#define FADT_PM1B_CNT_BLK	68
#define FADT_PM_TMR_BLK		76
#define FADT_PM1_CNT_LEN	89
#define FADT_PM_TMR_LEN		91
#define FADT_CENTURY		108
#define FADT_IAPC_BOOT_ARCH	109
#define FADT_FLAGS		112
#define FADT_RESET_REG		116
#define FADT_RESET_VALUE	128
#define FADT_X_DSDT		140
#define FADT_X_PM1A_CNT_BLK	172
#define FADT_X_PM1B_CNT_BLK	184
#define FADT_X_PM_TMR_BLK	208
#define GAS_SIZE		12

/* HPET description table, IA-PC HPET 1.0a 3.2.4 */
#define HPET_BLOCK_ID		36
#define HPET_BASE_ADDRESS	40
#define HPET_NUMBER		52
#define HPET_MINIMUM_TICK	53
#define HPET_PAGE_PROTECTION	55
#define HPET_MIN_LENGTH		56

/* MCFG, PCI Firmware 3.0 4.1.2: 8 reserved bytes, then 16-byte entries */
/* SPCR (Microsoft's Serial Port Console Redirection Table, revisions 1-4) */
#define SPCR_INTERFACE_TYPE	36
#define SPCR_BASE_ADDRESS	40
#define SPCR_INTERRUPT_TYPE	52
#define SPCR_IRQ		53
#define SPCR_GSI		54
#define SPCR_BAUD_RATE		58
#define SPCR_PARITY		59
#define SPCR_STOP_BITS		60
#define SPCR_FLOW_CONTROL	61
#define SPCR_TERMINAL_TYPE	62
#define SPCR_MIN_LENGTH		63

#define MCFG_ENTRIES		44
#define MCFG_ENTRY_SIZE		16

/* AML opcodes and prefixes, 20.2 */
#define AML_ZERO_OP		0x00
#define AML_ONE_OP		0x01
#define AML_NAME_OP		0x08
#define AML_BYTE_PREFIX		0x0a
#define AML_WORD_PREFIX		0x0b
#define AML_DWORD_PREFIX	0x0c
#define AML_QWORD_PREFIX	0x0e
#define AML_PACKAGE_OP		0x12
#define AML_ROOT_CHAR		'\\'
#define AML_PARENT_PREFIX	'^'
#define AML_ONES_OP		0xff

void acpi_report(const struct acpi_reporter *reporter, const char *format, ...)
{
	char message[ACPI_MESSAGE_SIZE];
	va_list args;

	if (!reporter || !reporter->report)
		return;
	va_start(args, format);
	vsnprintf(message, sizeof(message), format, args);
	va_end(args);
	reporter->report(reporter->context, message);
}

/*
 * Compare the 4 signature bytes at @bytes with @signature, which may be a
 * shorter string (it then simply does not match): never reads past its NUL.
 */
static bool signature_matches(const uint8_t *bytes, const char *signature)
{
	for (size_t i = 0; i < ACPI_SIGNATURE_SIZE; i++) {
		if (signature[i] == '\0' || (uint8_t)signature[i] != bytes[i])
			return false;
	}
	return true;
}

/* A signature fit for a message: 4 printable characters, '?' for others. */
static void printable_signature(char text[ACPI_SIGNATURE_SIZE + 1], const uint8_t *bytes,
				size_t available)
{
	for (size_t i = 0; i < ACPI_SIGNATURE_SIZE; i++) {
		uint8_t c = i < available ? bytes[i] : '?';

		text[i] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	text[ACPI_SIGNATURE_SIZE] = '\0';
}

static void copy_field(char *destination, const uint8_t *source, size_t length)
{
	memcpy(destination, source, length);
	destination[length] = '\0';
}

const char *acpi_error_name(int error)
{
	switch (error) {
	case ACPI_OK:
		return "ok";
	case ACPI_ERROR_INVALID_ARGUMENT:
		return "invalid argument";
	case ACPI_ERROR_TRUNCATED:
		return "truncated";
	case ACPI_ERROR_BAD_SIGNATURE:
		return "bad signature";
	case ACPI_ERROR_BAD_CHECKSUM:
		return "bad checksum";
	case ACPI_ERROR_BAD_LENGTH:
		return "bad length";
	case ACPI_ERROR_UNMAPPED:
		return "unmapped";
	case ACPI_ERROR_NOT_FOUND:
		return "not found";
	case ACPI_ERROR_MALFORMED:
		return "malformed";
	default:
		return "unknown error";
	}
}

/* --- RSDP ------------------------------------------------------------------ */

int acpi_rsdp_parse(const void *rsdp, size_t available, struct acpi_rsdp *out)
{
	const uint8_t *bytes = rsdp;
	struct acpi_rsdp parsed;

	if (!out)
		return ACPI_ERROR_INVALID_ARGUMENT;
	memset(out, 0, sizeof(*out));
	if (!bytes)
		return ACPI_ERROR_INVALID_ARGUMENT;
	if (available < ACPI_RSDP_V1_SIZE)
		return ACPI_ERROR_TRUNCATED;
	if (memcmp(bytes, RSDP_SIGNATURE, RSDP_SIGNATURE_SIZE) != 0)
		return ACPI_ERROR_BAD_SIGNATURE;
	/* The ACPI 1.0 checksum covers the first 20 bytes whatever the revision. */
	if (byte_sum(bytes, ACPI_RSDP_V1_SIZE) != 0)
		return ACPI_ERROR_BAD_CHECKSUM;

	memset(&parsed, 0, sizeof(parsed));
	parsed.revision = bytes[RSDP_REVISION];
	copy_field(parsed.oem_id, bytes + RSDP_OEM_ID, 6);
	parsed.rsdt_address = get_le32(bytes + RSDP_RSDT_ADDRESS);
	parsed.length = ACPI_RSDP_V1_SIZE;
	/* Revision 2 (ACPI 2.0) added Length, XsdtAddress and the extended checksum. */
	if (parsed.revision >= 2) {
		uint32_t length;

		if (available < ACPI_RSDP_V2_SIZE)
			return ACPI_ERROR_TRUNCATED;
		length = get_le32(bytes + RSDP_LENGTH);
		if (length < ACPI_RSDP_V2_SIZE)
			return ACPI_ERROR_BAD_LENGTH;
		if (length > available)
			return ACPI_ERROR_TRUNCATED;
		if (byte_sum(bytes, length) != 0)
			return ACPI_ERROR_BAD_CHECKSUM;
		parsed.length = length;
		parsed.xsdt_address = get_le64(bytes + RSDP_XSDT_ADDRESS);
	}
	*out = parsed;
	return ACPI_OK;
}

uint64_t acpi_rsdp_root_address(const struct acpi_rsdp *rsdp, bool *is_xsdt)
{
	bool xsdt = rsdp && rsdp->revision >= 2 && rsdp->xsdt_address != 0;

	if (is_xsdt)
		*is_xsdt = xsdt;
	if (!rsdp)
		return 0;
	return xsdt ? rsdp->xsdt_address : rsdp->rsdt_address;
}

/* --- Table header ------------------------------------------------------------ */

int acpi_table_check(const void *table, size_t available, const char *signature,
		     struct acpi_table_header *header)
{
	const uint8_t *bytes = table;
	uint32_t length;

	if (header)
		memset(header, 0, sizeof(*header));
	if (!bytes)
		return ACPI_ERROR_INVALID_ARGUMENT;
	if (available < ACPI_TABLE_HEADER_SIZE) {
		if (header && available >= ACPI_SIGNATURE_SIZE)
			copy_field(header->signature, bytes, ACPI_SIGNATURE_SIZE);
		return ACPI_ERROR_TRUNCATED;
	}
	length = get_le32(bytes + HEADER_LENGTH);
	if (header) {
		copy_field(header->signature, bytes, ACPI_SIGNATURE_SIZE);
		header->length = length;
		header->revision = bytes[HEADER_REVISION];
		header->checksum = bytes[HEADER_CHECKSUM];
		copy_field(header->oem_id, bytes + HEADER_OEM_ID, 6);
		copy_field(header->oem_table_id, bytes + HEADER_OEM_TABLE_ID, 8);
		header->oem_revision = get_le32(bytes + HEADER_OEM_REVISION);
		header->creator_id = get_le32(bytes + HEADER_CREATOR_ID);
		header->creator_revision = get_le32(bytes + HEADER_CREATOR_REVISION);
	}
	if (signature && !signature_matches(bytes, signature))
		return ACPI_ERROR_BAD_SIGNATURE;
	if (length < ACPI_TABLE_HEADER_SIZE || length > ACPI_TABLE_MAX_LENGTH)
		return ACPI_ERROR_BAD_LENGTH;
	if (length > available)
		return ACPI_ERROR_TRUNCATED;
	if (byte_sum(bytes, length) != 0)
		return ACPI_ERROR_BAD_CHECKSUM;
	return ACPI_OK;
}

/*
 * The check of a table whose contents a parser reads: as acpi_table_check(),
 * but a bad checksum alone does not refuse it (acpi_tables_map() warns of
 * it, as Linux does, and every field is checked on its own anyway).
 */
static int check_for_parsing(const void *table, size_t available, const char *signature,
			     struct acpi_table_header *header)
{
	int error = acpi_table_check(table, available, signature, header);

	return error == ACPI_ERROR_BAD_CHECKSUM ? ACPI_OK : error;
}

/* --- RSDT / XSDT --------------------------------------------------------------- */

int acpi_root_table_parse(const void *table, size_t available, bool is_xsdt,
			  struct acpi_root_table *out)
{
	struct acpi_table_header header;
	size_t entry_size = is_xsdt ? sizeof(uint64_t) : sizeof(uint32_t);
	int error;

	if (!out)
		return ACPI_ERROR_INVALID_ARGUMENT;
	memset(out, 0, sizeof(*out));
	error = check_for_parsing(table, available, is_xsdt ? "XSDT" : "RSDT", &header);
	if (error)
		return error;
	out->entries = (const uint8_t *)table + ACPI_TABLE_HEADER_SIZE;
	out->entry_count = (header.length - ACPI_TABLE_HEADER_SIZE) / entry_size;
	out->is_xsdt = is_xsdt;
	return ACPI_OK;
}

bool acpi_root_table_entry(const struct acpi_root_table *root, size_t index, uint64_t *address)
{
	if (!root || !address || index >= root->entry_count)
		return false;
	if (root->is_xsdt)
		*address = get_le64(root->entries + index * sizeof(uint64_t));
	else
		*address = get_le32(root->entries + index * sizeof(uint32_t));
	return true;
}

/* --- Tables through physical memory ---------------------------------------------- */

/* A signature given by the caller, fit for a message (it may be short). */
static void printable_name(char text[ACPI_SIGNATURE_SIZE + 1], const char *signature)
{
	size_t length = 0;

	if (!signature)
		signature = "any";
	while (length < ACPI_SIGNATURE_SIZE && signature[length] != '\0')
		length++;
	printable_signature(text, (const uint8_t *)signature, length);
	text[length] = '\0';
}

/*
 * acpi_tables_map(), warning of a bad checksum only when @warn_checksum:
 * acpi_tables_find() leaves that to the one enumeration at boot
 * (acpi_tables_next()), so that a table is warned about once, not at each
 * look-up.
 */
static const void *map_table(const struct acpi_tables *tables, uint64_t physical,
			     const char *signature, uint32_t *length, bool warn_checksum)
{
	const struct acpi_reporter *reporter;
	char found[ACPI_SIGNATURE_SIZE + 1], wanted[ACPI_SIGNATURE_SIZE + 1];
	struct acpi_table_header header;
	const uint8_t *bytes;
	uint32_t stated;
	int error;

	if (length)
		*length = 0;
	if (!tables)
		return NULL;
	reporter = &tables->reporter;
	printable_name(wanted, signature);

	bytes = physical_memory_map(&tables->memory, physical, ACPI_TABLE_HEADER_SIZE);
	if (!bytes) {
		acpi_report(reporter, "%s table at 0x%llx: header not mapped", wanted,
			    (unsigned long long)physical);
		return NULL;
	}
	printable_signature(found, bytes, ACPI_TABLE_HEADER_SIZE);
	if (signature && !signature_matches(bytes, signature)) {
		acpi_report(reporter, "table at 0x%llx is \"%s\", expected \"%s\"",
			    (unsigned long long)physical, found, wanted);
		return NULL;
	}
	stated = get_le32(bytes + HEADER_LENGTH);
	if (stated < ACPI_TABLE_HEADER_SIZE || stated > ACPI_TABLE_MAX_LENGTH) {
		acpi_report(reporter, "%s at 0x%llx: implausible length %u; skipped", found,
			    (unsigned long long)physical, stated);
		return NULL;
	}
	bytes = physical_memory_map(&tables->memory, physical, stated);
	if (!bytes) {
		acpi_report(reporter,
			    "%s at 0x%llx: length %u runs past mapped memory; skipped",
			    found, (unsigned long long)physical, stated);
		return NULL;
	}
	/* Checked again on what was mapped: the accessor might not be consistent. */
	error = acpi_table_check(bytes, stated, signature, &header);
	if (error == ACPI_ERROR_BAD_CHECKSUM && warn_checksum) {
		/*
		 * Kept, as Linux keeps it (ACPICA tbprint.c, acpi_tb_verify_checksum():
		 * "Incorrect checksum in table", an error only when built with
		 * ACPI_CHECKSUM_ABORT): firmware that edits a table at boot and
		 * forgets the checksum is common, and its contents are still
		 * checked field by field.
		 */
		acpi_report(reporter, "%s at 0x%llx: bad checksum (sum 0x%02x); used anyway, "
			    "as Linux does", found, (unsigned long long)physical,
			    byte_sum(bytes, stated));
	} else if (error && error != ACPI_ERROR_BAD_CHECKSUM) {
		acpi_report(reporter, "%s at 0x%llx: %s; skipped", found,
			    (unsigned long long)physical, acpi_error_name(error));
		return NULL;
	}
	if (length)
		*length = header.length;
	return bytes;
}

const void *acpi_tables_map(const struct acpi_tables *tables, uint64_t physical,
			    const char *signature, uint32_t *length)
{
	return map_table(tables, physical, signature, length, true);
}

static int use_root_table(struct acpi_tables *tables, uint64_t address, bool is_xsdt)
{
	const void *table;
	uint32_t length;
	int error;

	table = acpi_tables_map(tables, address, is_xsdt ? "XSDT" : "RSDT", &length);
	if (!table)
		return ACPI_ERROR_NOT_FOUND;
	error = acpi_root_table_parse(table, length, is_xsdt, &tables->root);
	if (error)
		return error;
	tables->root_address = address;
	return ACPI_OK;
}

int acpi_tables_init(struct acpi_tables *tables, const void *rsdp, size_t rsdp_available,
		     const struct physical_memory_access *memory,
		     const struct acpi_reporter *reporter)
{
	bool is_xsdt;
	int error;

	if (!tables)
		return ACPI_ERROR_INVALID_ARGUMENT;
	memset(tables, 0, sizeof(*tables));
	if (memory)
		tables->memory = *memory;
	if (reporter)
		tables->reporter = *reporter;

	error = acpi_rsdp_parse(rsdp, rsdp_available, &tables->rsdp);
	if (error) {
		acpi_report(&tables->reporter, "RSDP: %s", acpi_error_name(error));
		return error;
	}
	acpi_rsdp_root_address(&tables->rsdp, &is_xsdt);
	if (is_xsdt) {
		if (use_root_table(tables, tables->rsdp.xsdt_address, true) == ACPI_OK)
			return ACPI_OK;
		acpi_report(&tables->reporter, "XSDT at 0x%llx unusable, trying the RSDT",
			    (unsigned long long)tables->rsdp.xsdt_address);
	}
	if (tables->rsdp.rsdt_address == 0) {
		acpi_report(&tables->reporter, "the RSDP gives no RSDT");
		return ACPI_ERROR_NOT_FOUND;
	}
	error = use_root_table(tables, tables->rsdp.rsdt_address, false);
	if (error)
		acpi_report(&tables->reporter, "no usable RSDT or XSDT");
	return error;
}

int acpi_tables_init_at(struct acpi_tables *tables, uint64_t rsdp_physical,
			const struct physical_memory_access *memory,
			const struct acpi_reporter *reporter)
{
	const uint8_t *bytes;
	size_t available = ACPI_RSDP_V1_SIZE;

	if (!tables)
		return ACPI_ERROR_INVALID_ARGUMENT;
	bytes = physical_memory_map(memory, rsdp_physical, ACPI_RSDP_V1_SIZE);
	if (!bytes) {
		memset(tables, 0, sizeof(*tables));
		acpi_report(reporter, "RSDP at 0x%llx not mapped",
			    (unsigned long long)rsdp_physical);
		return ACPI_ERROR_UNMAPPED;
	}
	/*
	 * Map more only when the revision says there is more; a revision 0
	 * RSDP may end right at the edge of mapped memory.  Whatever cannot be
	 * mapped, acpi_rsdp_parse() then reports as truncated.
	 */
	if (bytes[RSDP_REVISION] >= 2) {
		const uint8_t *longer = physical_memory_map(memory, rsdp_physical,
							    ACPI_RSDP_V2_SIZE);

		if (longer) {
			uint32_t length = get_le32(longer + RSDP_LENGTH);

			bytes = longer;
			available = ACPI_RSDP_V2_SIZE;
			if (length > ACPI_RSDP_V2_SIZE && length <= ACPI_TABLE_MAX_LENGTH) {
				longer = physical_memory_map(memory, rsdp_physical, length);
				if (longer) {
					bytes = longer;
					available = length;
				}
			}
		}
	}
	return acpi_tables_init(tables, bytes, available, memory, reporter);
}

size_t acpi_tables_count(const struct acpi_tables *tables)
{
	return tables ? tables->root.entry_count : 0;
}

const void *acpi_tables_next(const struct acpi_tables *tables, size_t *cursor, uint32_t *length,
			     uint64_t *address)
{
	if (length)
		*length = 0;
	if (!tables || !cursor)
		return NULL;
	while (*cursor < tables->root.entry_count) {
		size_t index = (*cursor)++;
		uint64_t entry = 0;
		const void *table;

		acpi_root_table_entry(&tables->root, index, &entry);
		if (entry == 0) {
			acpi_report(&tables->reporter, "%s entry %zu is null; skipped",
				    tables->root.is_xsdt ? "XSDT" : "RSDT", index);
			continue;
		}
		table = acpi_tables_map(tables, entry, NULL, length);
		if (table) {
			if (address)
				*address = entry;
			return table;
		}
	}
	return NULL;
}

const void *acpi_tables_find(const struct acpi_tables *tables, const char *signature,
			     size_t instance, uint32_t *length)
{
	if (length)
		*length = 0;
	if (!tables || !signature)
		return NULL;
	for (size_t index = 0; index < tables->root.entry_count; index++) {
		const uint8_t *header;
		const void *table;
		uint64_t entry = 0;

		acpi_root_table_entry(&tables->root, index, &entry);
		if (entry == 0)
			continue;
		header = physical_memory_map(&tables->memory, entry, ACPI_TABLE_HEADER_SIZE);
		if (!header || !signature_matches(header, signature))
			continue;
		table = map_table(tables, entry, signature, length, false);
		if (!table)
			continue;
		if (instance == 0)
			return table;
		instance--;
	}
	if (length)
		*length = 0;
	return NULL;
}

/* --- MADT -------------------------------------------------------------------- */

/* The sizes 5.2.12.x define; 2 (just the entry header) for types not decoded. */
static size_t madt_minimum_length(uint8_t type)
{
	switch (type) {
	case ACPI_MADT_LOCAL_APIC:
		return 8;
	case ACPI_MADT_IO_APIC:
		return 12;
	case ACPI_MADT_INTERRUPT_OVERRIDE:
		return 10;
	case ACPI_MADT_NMI_SOURCE:
		return 8;
	case ACPI_MADT_LOCAL_APIC_NMI:
		return 6;
	case ACPI_MADT_LOCAL_APIC_OVERRIDE:
		return 12;
	case ACPI_MADT_LOCAL_X2APIC:
		return 16;
	case ACPI_MADT_LOCAL_X2APIC_NMI:
		return 12;
	default:
		return 2;
	}
}

/*
 * Firmware lists placeholders for CPUs a board could hold: disabled entries
 * with APIC ID 0xff, 0xffffffff or an enabled CPU's ID, dozens of them on
 * some (96 on an ASRock X399 Taichi).  They are counted here and summed up
 * in one report per MADT (report_repeated_apic_ids()).
 */
static void note_repeated_apic_id(struct acpi_madt *out, uint32_t apic_id, bool enabled)
{
	size_t shown = out->repeated_apic_id_count;

	out->duplicate_apic_ids++;
	if (enabled)
		out->enabled_duplicate_apic_ids++;
	for (size_t i = 0; i < shown && i < ACPI_MADT_REPEATED_IDS_SHOWN; i++) {
		if (out->repeated_apic_ids[i] == apic_id)
			return;
	}
	if (shown < ACPI_MADT_REPEATED_IDS_SHOWN)
		out->repeated_apic_ids[shown] = apic_id;
	out->repeated_apic_id_count++;
}

static void report_repeated_apic_ids(const struct acpi_madt *madt,
				     const struct acpi_reporter *reporter)
{
	char ids[64] = "";
	size_t used = 0, shown = madt->repeated_apic_id_count;

	if (!madt->duplicate_apic_ids)
		return;
	if (shown > ACPI_MADT_REPEATED_IDS_SHOWN)
		shown = ACPI_MADT_REPEATED_IDS_SHOWN;
	for (size_t i = 0; i < shown; i++)
		used += scnprintf(ids + used, sizeof(ids) - used, " 0x%x",
				  madt->repeated_apic_ids[i]);
	if (madt->repeated_apic_id_count > shown)
		scnprintf(ids + used, sizeof(ids) - used, " ...");
	acpi_report(reporter, "MADT: %zu CPU entries repeat an APIC ID (%zu of them enabled); "
		    "IDs%s", madt->duplicate_apic_ids, madt->enabled_duplicate_apic_ids, ids);
}

/*
 * Keep every CPU entry, duplicates included: silently merging two entries
 * with one APIC ID would hide a firmware bug that matters when the CPUs
 * are started (the second INIT-SIPI would go to the first CPU again).
 */
static void madt_add_cpu(struct acpi_madt *out, const struct acpi_reporter *reporter,
			 uint32_t apic_id, uint32_t uid, uint32_t flags, bool x2apic)
{
	struct acpi_madt_cpu *cpu;

	for (size_t i = 0; i < out->cpu_count; i++) {
		if (out->cpus[i].apic_id == apic_id) {
			note_repeated_apic_id(out, apic_id, flags & ACPI_MADT_CPU_ENABLED);
			break;
		}
	}
	if (out->cpu_count >= ACPI_MAX_CPUS) {
		out->cpus_beyond_capacity++;
		if (flags & ACPI_MADT_CPU_ENABLED)
			out->enabled_beyond_capacity++;
		return;
	}
	cpu = &out->cpus[out->cpu_count++];
	cpu->apic_id = apic_id;
	cpu->uid = uid;
	cpu->enabled = flags & ACPI_MADT_CPU_ENABLED;
	cpu->online_capable = flags & ACPI_MADT_CPU_ONLINE_CAPABLE;
	cpu->from_x2apic_entry = x2apic;
}

static void madt_add_nmi(struct acpi_madt *out, uint32_t uid, bool all, uint16_t flags,
			 uint8_t lint, bool x2apic)
{
	struct acpi_madt_local_nmi *nmi;

	if (out->nmi_count >= ACPI_MAX_LOCAL_NMIS) {
		out->nmis_beyond_capacity++;
		return;
	}
	nmi = &out->nmis[out->nmi_count++];
	nmi->uid = uid;
	nmi->all_processors = all;
	nmi->flags = flags;
	nmi->lint = lint;
	nmi->from_x2apic_entry = x2apic;
}

/* @entry has at least madt_minimum_length(@entry[0]) bytes. */
static void madt_decode_entry(struct acpi_madt *out, const struct acpi_reporter *reporter,
			      const uint8_t *entry)
{
	switch (entry[0]) {
	case ACPI_MADT_LOCAL_APIC:
		/* 5.2.12.2: u8 ACPI Processor UID, u8 APIC ID, u32 flags */
		madt_add_cpu(out, reporter, entry[3], entry[2], get_le32(entry + 4), false);
		break;
	case ACPI_MADT_LOCAL_X2APIC:
		/* 5.2.12.12: u16 reserved, u32 x2APIC ID, u32 flags, u32 UID */
		madt_add_cpu(out, reporter, get_le32(entry + 4), get_le32(entry + 12),
			     get_le32(entry + 8), true);
		break;
	case ACPI_MADT_IO_APIC:
		/* 5.2.12.3: u8 ID, u8 reserved, u32 address, u32 GSI base */
		if (out->io_apic_count >= ACPI_MAX_IO_APICS) {
			out->io_apics_beyond_capacity++;
			break;
		}
		out->io_apics[out->io_apic_count].id = entry[2];
		out->io_apics[out->io_apic_count].address = get_le32(entry + 4);
		out->io_apics[out->io_apic_count].gsi_base = get_le32(entry + 8);
		out->io_apic_count++;
		break;
	case ACPI_MADT_INTERRUPT_OVERRIDE:
		/* 5.2.12.5: u8 bus, u8 source, u32 GSI, u16 flags */
		if (out->override_count >= ACPI_MAX_INTERRUPT_OVERRIDES) {
			out->overrides_beyond_capacity++;
			break;
		}
		out->overrides[out->override_count].bus = entry[2];
		out->overrides[out->override_count].source = entry[3];
		out->overrides[out->override_count].gsi = get_le32(entry + 4);
		out->overrides[out->override_count].flags = get_le16(entry + 8);
		out->override_count++;
		break;
	case ACPI_MADT_LOCAL_APIC_NMI:
		/* 5.2.12.7: u8 UID (0xff: all), u16 flags, u8 LINT# */
		madt_add_nmi(out, entry[2], entry[2] == MADT_UID_ALL, get_le16(entry + 3), entry[5],
			     false);
		break;
	case ACPI_MADT_LOCAL_X2APIC_NMI:
		/* 5.2.12.13: u16 flags, u32 UID (0xffffffff: all), u8 LINT#, 3 reserved */
		madt_add_nmi(out, get_le32(entry + 4), get_le32(entry + 4) == MADT_X2APIC_UID_ALL,
			     get_le16(entry + 2), entry[8], true);
		break;
	case ACPI_MADT_LOCAL_APIC_OVERRIDE:
		/* 5.2.12.8: u16 reserved, u64 address; "at most one" per MADT */
		if (out->local_apic_address_overridden) {
			acpi_report(reporter, "MADT: second local APIC address override ignored");
			break;
		}
		out->local_apic_address = get_le64(entry + 4);
		out->local_apic_address_overridden = true;
		break;
	default:
		out->other_entries++;
		break;
	}
}

int acpi_madt_parse(const void *table, size_t available, const struct acpi_reporter *reporter,
		    struct acpi_madt *out)
{
	struct acpi_table_header header;
	const uint8_t *bytes = table;
	size_t offset, index = 0;
	int error;

	if (!out)
		return ACPI_ERROR_INVALID_ARGUMENT;
	memset(out, 0, sizeof(*out));
	error = check_for_parsing(table, available, "APIC", &header);
	if (error) {
		acpi_report(reporter, "MADT: %s", acpi_error_name(error));
		return error;
	}
	if (header.length < MADT_ENTRIES) {
		acpi_report(reporter, "MADT: length %u is shorter than its 44-byte header",
			    header.length);
		return ACPI_ERROR_BAD_LENGTH;
	}
	out->local_apic_address = get_le32(bytes + MADT_LOCAL_APIC_ADDRESS);
	out->flags = get_le32(bytes + MADT_FLAGS);

	/* Invariant: offset <= header.length <= available. */
	for (offset = MADT_ENTRIES; offset < header.length; index++) {
		size_t room = header.length - offset;
		uint8_t type, length;

		if (room < 2) {
			acpi_report(reporter, "MADT: stray byte at offset %zu; walk stopped",
				    offset);
			out->bad_entries++;
			out->walk_stopped = true;
			break;
		}
		type = bytes[offset];
		length = bytes[offset + 1];
		if (length < 2 || length > room) {
			/* No safe way to find the next entry: stop. */
			acpi_report(reporter,
				    "MADT: entry %zu (type %u) at offset %zu has length %u%s; stopped",
				    index, type, offset, length,
				    length < 2 ? "" : ", past the end");
			out->bad_entries++;
			out->walk_stopped = true;
			break;
		}
		if (length < madt_minimum_length(type)) {
			acpi_report(reporter,
				    "MADT: entry %zu (type %u) has length %u < %zu; skipped",
				    index, type, length, madt_minimum_length(type));
			out->bad_entries++;
		} else {
			madt_decode_entry(out, reporter, bytes + offset);
		}
		offset += length;
	}

	report_repeated_apic_ids(out, reporter);
	if (out->cpus_beyond_capacity)
		acpi_report(reporter, "MADT: %zu CPUs listed, only %d supported",
			    out->cpu_count + out->cpus_beyond_capacity, ACPI_MAX_CPUS);
	if (out->io_apics_beyond_capacity)
		acpi_report(reporter, "MADT: %zu I/O APICs listed, only %d supported",
			    out->io_apic_count + out->io_apics_beyond_capacity, ACPI_MAX_IO_APICS);
	if (out->overrides_beyond_capacity)
		acpi_report(reporter, "MADT: %zu interrupt overrides listed, only %d supported",
			    out->override_count + out->overrides_beyond_capacity,
			    ACPI_MAX_INTERRUPT_OVERRIDES);
	if (out->nmis_beyond_capacity)
		acpi_report(reporter, "MADT: %zu local NMIs listed, only %d supported",
			    out->nmi_count + out->nmis_beyond_capacity, ACPI_MAX_LOCAL_NMIS);
	return ACPI_OK;
}

/* --- FADT -------------------------------------------------------------------- */

/* Does a table of @length bytes contain the field at @offset of @size bytes? */
static bool covers(uint32_t length, size_t offset, size_t size)
{
	return offset <= length && size <= length - offset;
}

static uint8_t field8(const uint8_t *table, uint32_t length, size_t offset)
{
	return covers(length, offset, 1) ? table[offset] : 0;
}

static uint16_t field16(const uint8_t *table, uint32_t length, size_t offset)
{
	return covers(length, offset, 2) ? get_le16(table + offset) : 0;
}

static uint32_t field32(const uint8_t *table, uint32_t length, size_t offset)
{
	return covers(length, offset, 4) ? get_le32(table + offset) : 0;
}

static uint64_t field64(const uint8_t *table, uint32_t length, size_t offset)
{
	return covers(length, offset, 8) ? get_le64(table + offset) : 0;
}

/* 5.2.3.2: u8 space ID, u8 bit width, u8 bit offset, u8 access size, u64 address */
static bool field_gas(const uint8_t *table, uint32_t length, size_t offset,
		      struct acpi_generic_address *gas)
{
	memset(gas, 0, sizeof(*gas));
	if (!covers(length, offset, GAS_SIZE))
		return false;
	gas->space_id = table[offset];
	gas->bit_width = table[offset + 1];
	gas->bit_offset = table[offset + 2];
	gas->access_size = table[offset + 3];
	gas->address = get_le64(table + offset + 4);
	return true;
}

static unsigned int gas_width_bytes(const struct acpi_generic_address *gas,
				    unsigned int default_bytes)
{
	unsigned int bytes = 1;

	if (gas->access_size != ACPI_GAS_ACCESS_UNDEFINED)
		return gas->access_size <= ACPI_GAS_ACCESS_QWORD ? 1u << (gas->access_size - 1) : 0;
	if (gas->bit_width == 0)
		return default_bytes;
	while (bytes * 8 < gas->bit_width)
		bytes *= 2;
	return bytes;
}

/* Where @bytes-wide accesses to @gas go; the address space's own limits checked. */
static int gas_place(const struct acpi_generic_address *gas, unsigned int bytes,
		     struct acpi_gas_access *out)
{
	if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8)
		return ACPI_ERROR_MALFORMED;
	out->space_id = gas->space_id;
	out->bytes = (uint8_t)bytes;
	switch (gas->space_id) {
	case ACPI_GAS_SYSTEM_IO:
		if (gas->address > 0xffff || gas->address > 0x10000 - bytes || bytes == 8)
			return ACPI_ERROR_MALFORMED;
		out->address = gas->address;
		return ACPI_OK;
	case ACPI_GAS_SYSTEM_MEMORY:
		out->address = gas->address;
		return ACPI_OK;
	case ACPI_GAS_PCI_CONFIG: {
		uint64_t device = (gas->address >> 32) & 0xffff;
		uint64_t function = (gas->address >> 16) & 0xffff;
		uint64_t offset = gas->address & 0xffff;

		if ((gas->address >> 48) || device > 31 || function > 7 || bytes == 8 ||
		    offset + bytes > 4096)
			return ACPI_ERROR_MALFORMED;
		out->address = offset;
		out->pci_device = (uint8_t)device;
		out->pci_function = (uint8_t)function;
		return ACPI_OK;
	}
	default:
		return ACPI_ERROR_MALFORMED;
	}
}

int acpi_gas_decode(const struct acpi_generic_address *gas, unsigned int default_bytes,
		    struct acpi_gas_access *out)
{
	if (!gas || !out)
		return ACPI_ERROR_INVALID_ARGUMENT;
	memset(out, 0, sizeof(*out));
	if (gas->address == 0)
		return ACPI_ERROR_NOT_FOUND;
	return gas_place(gas, gas_width_bytes(gas, default_bytes), out);
}

/*
 * The access width ACPICA gives a register (hwregs.c,
 * acpi_hw_get_access_bit_width()): a GAS in "register" form - bit offset 0
 * and a bit width of 8, 16, 32 or 64 - is accessed at its bit width and its
 * access size is ignored; otherwise (a "region") the access size decides,
 * or, when that is undefined, the smallest power of two covering offset and
 * width, narrowed until the address is aligned to it.  I/O is at most 32
 * bits wide, and no access exceeds @max_bits.
 */
static unsigned int register_access_bits(const struct acpi_generic_address *gas,
					 unsigned int bit_width, unsigned int max_bits)
{
	unsigned int bits;

	if (gas->bit_offset == 0 &&
	    (bit_width == 8 || bit_width == 16 || bit_width == 32 || bit_width == 64)) {
		bits = bit_width;
	} else if (gas->access_size != ACPI_GAS_ACCESS_UNDEFINED) {
		if (gas->access_size > ACPI_GAS_ACCESS_QWORD)
			return 0;
		bits = 8u << (gas->access_size - 1);
	} else {
		bits = 8;
		while (bits < gas->bit_offset + bit_width && bits < 64)
			bits *= 2;
		while (bits > 8 && gas->address % (bits / 8))
			bits /= 2;
	}
	if (gas->space_id == ACPI_GAS_SYSTEM_IO && max_bits > 32)
		max_bits = 32;
	return bits < max_bits ? bits : max_bits;
}

int acpi_gas_register_access(const struct acpi_generic_address *gas, unsigned int max_bytes,
			     struct acpi_gas_access *out)
{
	if (!gas || !out)
		return ACPI_ERROR_INVALID_ARGUMENT;
	memset(out, 0, sizeof(*out));
	if (gas->address == 0)
		return ACPI_ERROR_NOT_FOUND;
	out->stated_bit_width = gas->bit_width;
	return gas_place(gas, register_access_bits(gas, gas->bit_width, max_bytes * 8) / 8, out);
}

const char *acpi_fadt_register_name(enum acpi_fadt_register which)
{
	switch (which) {
	case ACPI_FADT_PM1A_CONTROL:
		return "PM1a_CNT";
	case ACPI_FADT_PM1B_CONTROL:
		return "PM1b_CNT";
	case ACPI_FADT_PM_TIMER:
		return "PM_TMR";
	case ACPI_FADT_RESET:
		return "RESET_REG";
	}
	return "?";
}

int acpi_fadt_register_access(const struct acpi_fadt *fadt, enum acpi_fadt_register which,
			      struct acpi_gas_access *out)
{
	const struct acpi_generic_address *gas;
	unsigned int width;

	if (!fadt || !out)
		return ACPI_ERROR_INVALID_ARGUMENT;
	memset(out, 0, sizeof(*out));
	/*
	 * The width each register must have.  ACPICA replaces any other stated
	 * width by these before accessing them (tbfadt.c,
	 * acpi_tb_setup_fadt_registers(): "Invalid length for FADT/%s: %u, using
	 * default %u"); the FADT itself mandates them: PM1x_CNT is 2 bytes
	 * (PM1_CNT_LEN, ACPI 6.5 4.8.3.2.1), the PM timer 4 (PM_TMR_LEN, 4.8.3.3:
	 * a 32-bit register whatever TMR_VAL_EXT says of its counting bits),
	 * RESET_REG 8 bits (4.8.3.6; ACPICA's acpi_reset() writes an I/O reset
	 * register as one byte whatever the GAS says).
	 */
	switch (which) {
	case ACPI_FADT_PM1A_CONTROL:
		gas = &fadt->pm1a_control;
		width = 16;
		break;
	case ACPI_FADT_PM1B_CONTROL:
		gas = &fadt->pm1b_control;
		width = 16;
		break;
	case ACPI_FADT_PM_TIMER:
		gas = &fadt->pm_timer;
		width = 32;
		break;
	case ACPI_FADT_RESET:
		if (!fadt->has_reset_register)
			return ACPI_ERROR_NOT_FOUND;
		gas = &fadt->reset_register;
		width = 8;
		break;
	default:
		return ACPI_ERROR_INVALID_ARGUMENT;
	}
	if (gas->address == 0)
		return ACPI_ERROR_NOT_FOUND;
	out->stated_bit_width = gas->bit_width;
	out->width_corrected = gas->bit_width != width;
	return gas_place(gas, register_access_bits(gas, width, 64) / 8, out);
}

void acpi_fadt_report_register_widths(const struct acpi_fadt *fadt,
				      const struct acpi_reporter *reporter)
{
	static const enum acpi_fadt_register registers[] = {
		ACPI_FADT_PM1A_CONTROL, ACPI_FADT_PM1B_CONTROL, ACPI_FADT_PM_TIMER, ACPI_FADT_RESET,
	};
	struct acpi_gas_access access;

	for (size_t i = 0; i < sizeof(registers) / sizeof(registers[0]); i++) {
		if (acpi_fadt_register_access(fadt, registers[i], &access) == ACPI_OK &&
		    access.width_corrected)
			acpi_report(reporter, "FADT %s states a %u-bit width; accessed %u bytes "
				    "wide as ACPICA does", acpi_fadt_register_name(registers[i]),
				    access.stated_bit_width, access.bytes);
	}
}

/*
 * 5.2.9: each X_ field, when non-zero, supersedes its 32-bit port field.
 * A port is described as the I/O space register it is, LEN bytes wide.
 */
static void resolve_register(struct acpi_generic_address *resolved,
			     const struct acpi_generic_address *extended, uint32_t port,
			     uint8_t length_in_bytes)
{
	memset(resolved, 0, sizeof(*resolved));
	if (extended->address != 0) {
		*resolved = *extended;
		return;
	}
	if (port == 0)
		return;
	resolved->space_id = ACPI_GAS_SYSTEM_IO;
	resolved->bit_width = length_in_bytes <= UINT8_MAX / 8 ? (uint8_t)(length_in_bytes * 8) : 0;
	resolved->access_size = ACPI_GAS_ACCESS_UNDEFINED;
	resolved->address = port;
}

int acpi_fadt_parse(const void *table, size_t available, struct acpi_fadt *out)
{
	struct acpi_table_header header;
	const uint8_t *bytes = table;
	uint32_t length;
	int error;

	if (!out)
		return ACPI_ERROR_INVALID_ARGUMENT;
	memset(out, 0, sizeof(*out));
	error = check_for_parsing(table, available, "FACP", &header);
	if (error)
		return error;
	length = header.length;
	out->length = length;
	out->revision = header.revision;

	out->dsdt_address32 = field32(bytes, length, FADT_DSDT);
	out->x_dsdt_address = field64(bytes, length, FADT_X_DSDT);
	out->dsdt_address = out->x_dsdt_address ? out->x_dsdt_address : out->dsdt_address32;

	out->sci_interrupt = field16(bytes, length, FADT_SCI_INT);
	out->smi_command_port = field32(bytes, length, FADT_SMI_CMD);
	out->acpi_enable_value = field8(bytes, length, FADT_ACPI_ENABLE);
	out->acpi_disable_value = field8(bytes, length, FADT_ACPI_DISABLE);

	out->pm1a_control_port = field32(bytes, length, FADT_PM1A_CNT_BLK);
	out->pm1b_control_port = field32(bytes, length, FADT_PM1B_CNT_BLK);
	out->pm1_control_length = field8(bytes, length, FADT_PM1_CNT_LEN);
	field_gas(bytes, length, FADT_X_PM1A_CNT_BLK, &out->x_pm1a_control);
	field_gas(bytes, length, FADT_X_PM1B_CNT_BLK, &out->x_pm1b_control);
	resolve_register(&out->pm1a_control, &out->x_pm1a_control, out->pm1a_control_port,
			 out->pm1_control_length);
	resolve_register(&out->pm1b_control, &out->x_pm1b_control, out->pm1b_control_port,
			 out->pm1_control_length);

	out->pm_timer_port = field32(bytes, length, FADT_PM_TMR_BLK);
	out->pm_timer_length = field8(bytes, length, FADT_PM_TMR_LEN);
	field_gas(bytes, length, FADT_X_PM_TMR_BLK, &out->x_pm_timer);
	resolve_register(&out->pm_timer, &out->x_pm_timer, out->pm_timer_port,
			 out->pm_timer_length);

	out->century = field8(bytes, length, FADT_CENTURY);
	/* Offset 109 was reserved in ACPI 1.0 (FADT revision 1): zero there means nothing. */
	if (header.revision >= 2 && covers(length, FADT_IAPC_BOOT_ARCH, 2)) {
		out->has_iapc_boot_arch = true;
		out->iapc_boot_arch = get_le16(bytes + FADT_IAPC_BOOT_ARCH);
	}

	out->flags = field32(bytes, length, FADT_FLAGS);
	out->pm_timer_32bit = out->flags & ACPI_FADT_TMR_VAL_EXT;
	out->hardware_reduced = out->flags & ACPI_FADT_HW_REDUCED_ACPI;

	if (covers(length, FADT_RESET_VALUE, 1)) {
		out->has_reset_register = field_gas(bytes, length, FADT_RESET_REG,
						    &out->reset_register);
		out->reset_value = bytes[FADT_RESET_VALUE];
	}
	/* RESET_REG came with ACPI 2.0; in a revision 1 table those bytes are reserved. */
	out->reset_supported = header.revision >= 2 && out->has_reset_register &&
			       (out->flags & ACPI_FADT_RESET_REG_SUP);
	return ACPI_OK;
}

/* --- HPET, SPCR, MCFG ------------------------------------------------------------ */

/* Clear @out (@size bytes), then check @table as a @signature of at least @minimum bytes. */
static int begin_fixed_table(const void *table, size_t available, const char *signature,
			     uint32_t minimum, void *out, size_t size,
			     struct acpi_table_header *header)
{
	int error;

	if (!out)
		return ACPI_ERROR_INVALID_ARGUMENT;
	memset(out, 0, size);
	error = check_for_parsing(table, available, signature, header);
	if (error)
		return error;
	return header->length < minimum ? ACPI_ERROR_BAD_LENGTH : ACPI_OK;
}

int acpi_hpet_parse(const void *table, size_t available, struct acpi_hpet *out)
{
	struct acpi_table_header header;
	const uint8_t *bytes = table;
	int error;

	error = begin_fixed_table(table, available, "HPET", HPET_MIN_LENGTH, out, sizeof(*out),
				  &header);
	if (error)
		return error;
	out->event_timer_block_id = get_le32(bytes + HPET_BLOCK_ID);
	field_gas(bytes, header.length, HPET_BASE_ADDRESS, &out->base);
	out->hpet_number = bytes[HPET_NUMBER];
	out->minimum_tick = get_le16(bytes + HPET_MINIMUM_TICK);
	out->page_protection = bytes[HPET_PAGE_PROTECTION];
	return ACPI_OK;
}

int acpi_spcr_parse(const void *table, size_t available, struct acpi_spcr *out)
{
	struct acpi_table_header header;
	const uint8_t *bytes = table;
	int error;

	error = begin_fixed_table(table, available, "SPCR", SPCR_MIN_LENGTH, out, sizeof(*out),
				  &header);
	if (error)
		return error;
	out->revision = header.revision;
	out->interface_type = bytes[SPCR_INTERFACE_TYPE];
	field_gas(bytes, header.length, SPCR_BASE_ADDRESS, &out->base);
	out->interrupt_type = bytes[SPCR_INTERRUPT_TYPE];
	out->irq = bytes[SPCR_IRQ];
	out->gsi = get_le32(bytes + SPCR_GSI);
	out->baud_rate_code = bytes[SPCR_BAUD_RATE];
	out->parity = bytes[SPCR_PARITY];
	out->stop_bits = bytes[SPCR_STOP_BITS];
	out->flow_control = bytes[SPCR_FLOW_CONTROL];
	out->terminal_type = bytes[SPCR_TERMINAL_TYPE];
	return ACPI_OK;
}

const char *acpi_spcr_uart(const struct acpi_spcr *spcr, struct acpi_gas_access *access,
			   unsigned int *baud)
{
	if (!spcr || !access || !baud)
		return "no SPCR";
	memset(access, 0, sizeof(*access));
	*baud = 0;
	/* Linux's spcr.c takes these three as 16550s; the rest are other UARTs. */
	if (spcr->interface_type != ACPI_SPCR_16550 &&
	    spcr->interface_type != ACPI_SPCR_16550_SUBSET &&
	    spcr->interface_type != ACPI_SPCR_16550_GAS)
		return "not a 16550-compatible UART";
	if (spcr->base.address == 0)
		return "no UART address (0)";
	if (spcr->base.space_id != ACPI_GAS_SYSTEM_IO &&
	    spcr->base.space_id != ACPI_GAS_SYSTEM_MEMORY)
		return "the UART is neither in I/O nor in memory space";
	/*
	 * Linux's spcr.c: an I/O UART takes byte accesses; in memory the access
	 * size picks 8-, 16- or 32-bit accesses, anything else meaning bytes:
	 * undefined (0) too, whatever the bit width says.
	 */
	if (spcr->base.space_id == ACPI_GAS_SYSTEM_IO) {
		struct acpi_generic_address port = spcr->base;

		port.access_size = ACPI_GAS_ACCESS_BYTE;
		if (acpi_gas_decode(&port, 1, access) != ACPI_OK)
			return "the UART's port is out of range";
	} else {
		struct acpi_generic_address memory = spcr->base;

		if (memory.access_size == ACPI_GAS_ACCESS_UNDEFINED ||
		    memory.access_size > ACPI_GAS_ACCESS_DWORD)
			memory.access_size = ACPI_GAS_ACCESS_BYTE;
		if (acpi_gas_decode(&memory, 1, access) != ACPI_OK)
			return "the UART's address is malformed";
	}
	/* The SPCR's baud codes; 0 means "as the firmware left it" (SPCR 1.04). */
	switch (spcr->baud_rate_code) {
	case 0:
		*baud = 0;
		break;
	case 3:
		*baud = 9600;
		break;
	case 4:
		*baud = 19200;
		break;
	case 6:
		*baud = 57600;
		break;
	case 7:
		*baud = 115200;
		break;
	default:
		return "an unknown baud rate code";
	}
	return NULL;
}

void acpi_spcr_report_unusable(const struct acpi_spcr *spcr, const char *problem,
			       const struct acpi_reporter *reporter)
{
	acpi_report(reporter, "SPCR (interface type 0x%x): %s; not used", spcr->interface_type,
		    problem);
}

int acpi_mcfg_parse(const void *table, size_t available, struct acpi_mcfg *out)
{
	struct acpi_table_header header;
	const uint8_t *bytes = table;
	size_t count;
	int error;

	error = begin_fixed_table(table, available, "MCFG", MCFG_ENTRIES, out, sizeof(*out),
				  &header);
	if (error)
		return error;
	count = (header.length - MCFG_ENTRIES) / MCFG_ENTRY_SIZE;
	for (size_t i = 0; i < count; i++) {
		const uint8_t *entry = bytes + MCFG_ENTRIES + i * MCFG_ENTRY_SIZE;
		struct acpi_mcfg_allocation *allocation;

		if (out->allocation_count >= ACPI_MAX_MCFG_ALLOCATIONS) {
			out->allocations_beyond_capacity++;
			continue;
		}
		allocation = &out->allocations[out->allocation_count++];
		allocation->base_address = get_le64(entry);
		allocation->segment_group = get_le16(entry + 8);
		allocation->start_bus = entry[10];
		allocation->end_bus = entry[11];
	}
	return ACPI_OK;
}

/* --- \_S5 ------------------------------------------------------------------------- */

/*
 * An integer constant (20.2.3 ComputationalData) at *@offset, below @end.
 * Anything else (a name, an expression) is not understood.
 */
static bool aml_integer(const uint8_t *bytes, size_t end, size_t *offset, uint64_t *value)
{
	size_t size;
	uint8_t op;

	if (*offset >= end)
		return false;
	op = bytes[*offset];
	switch (op) {
	case AML_ZERO_OP:
		*value = 0;
		size = 0;
		break;
	case AML_ONE_OP:
		*value = 1;
		size = 0;
		break;
	case AML_ONES_OP:
		*value = UINT64_MAX;
		size = 0;
		break;
	case AML_BYTE_PREFIX:
		size = 1;
		break;
	case AML_WORD_PREFIX:
		size = 2;
		break;
	case AML_DWORD_PREFIX:
		size = 4;
		break;
	case AML_QWORD_PREFIX:
		size = 8;
		break;
	default:
		return false;
	}
	if (size > end - *offset - 1)
		return false;
	if (size) {
		*value = 0;
		for (size_t i = 0; i < size; i++)
			*value |= (uint64_t)bytes[*offset + 1 + i] << (8 * i);
	}
	*offset += 1 + size;
	return true;
}

/*
 * DefPackage := PackageOp PkgLength NumElements PackageElementList (20.2.5.4)
 * PkgLength (20.2.4): bits 7-6 of the lead byte count the bytes that
 * follow (0-3).  With none, bits 5-0 are the length; otherwise bits 3-0
 * are its low nibble and each following byte adds 8 more bits.  The
 * length counts itself and everything up to the end of the package.
 */
static bool aml_decode_s5_package(const uint8_t *bytes, size_t table_length, size_t offset,
				  struct acpi_sleep_type *out)
{
	size_t package_start, end, follow;
	uint32_t package_length;
	uint64_t first, second;
	uint8_t lead, elements;

	if (offset >= table_length || bytes[offset] != AML_PACKAGE_OP)
		return false;
	package_start = ++offset;
	if (offset >= table_length)
		return false;
	lead = bytes[offset];
	follow = lead >> 6;
	if (follow > table_length - offset - 1)
		return false;
	if (follow == 0) {
		package_length = lead & 0x3f;
	} else {
		package_length = lead & 0x0f;
		for (size_t i = 1; i <= follow; i++)
			package_length |= (uint32_t)bytes[offset + i] << (4 + 8 * (i - 1));
	}
	if (package_length > table_length - package_start)
		return false;
	end = package_start + package_length;
	offset += 1 + follow;
	if (offset >= end)
		return false;
	elements = bytes[offset++];
	if (elements == 0 || !aml_integer(bytes, end, &offset, &first))
		return false;
	if (elements == 1) {
		out->slp_typ_a = (uint8_t)first;
		out->slp_typ_b = (uint8_t)(first >> 8);
		return true;
	}
	if (!aml_integer(bytes, end, &offset, &second))
		return false;
	out->slp_typ_a = (uint8_t)first;
	out->slp_typ_b = (uint8_t)second;
	return true;
}

/* NameOp NameString, where NameString may start with '\' or '^'s (20.2.2). */
static bool aml_preceded_by_name_op(const uint8_t *bytes, size_t name)
{
	size_t i = name;

	if (i > ACPI_TABLE_HEADER_SIZE && bytes[i - 1] == AML_ROOT_CHAR) {
		i--;
	} else {
		while (i > ACPI_TABLE_HEADER_SIZE && bytes[i - 1] == AML_PARENT_PREFIX)
			i--;
	}
	return i > ACPI_TABLE_HEADER_SIZE && bytes[i - 1] == AML_NAME_OP;
}

int acpi_aml_find_s5(const void *table, size_t available, struct acpi_sleep_type *out)
{
	struct acpi_table_header header;
	const uint8_t *bytes = table;
	bool seen = false;
	int error;

	if (!out)
		return ACPI_ERROR_INVALID_ARGUMENT;
	error = check_for_parsing(table, available, NULL, &header);
	if (error)
		return error;
	/* header.length >= 36, so the bound cannot wrap. */
	for (size_t i = ACPI_TABLE_HEADER_SIZE; i + 4 <= header.length; i++) {
		struct acpi_sleep_type found;

		if (bytes[i] != '_' || bytes[i + 1] != 'S' || bytes[i + 2] != '5' ||
		    bytes[i + 3] != '_')
			continue;
		if (!aml_preceded_by_name_op(bytes, i))
			continue;
		seen = true;
		if (aml_decode_s5_package(bytes, header.length, i + 4, &found)) {
			*out = found;
			return ACPI_OK;
		}
	}
	return seen ? ACPI_ERROR_MALFORMED : ACPI_ERROR_NOT_FOUND;
}

int acpi_tables_find_s5(const struct acpi_tables *tables, uint64_t dsdt_address,
			struct acpi_sleep_type *out)
{
	int result = ACPI_ERROR_NOT_FOUND;
	const void *table = NULL;
	uint32_t length;

	if (!tables || !out)
		return ACPI_ERROR_INVALID_ARGUMENT;
	if (dsdt_address)
		table = acpi_tables_map(tables, dsdt_address, "DSDT", &length);
	if (table)
		result = acpi_aml_find_s5(table, length, out);
	for (size_t instance = 0; result != ACPI_OK &&
	     (table = acpi_tables_find(tables, "SSDT", instance, &length)) != NULL; instance++)
		result = acpi_aml_find_s5(table, length, out);
	return result;
}
