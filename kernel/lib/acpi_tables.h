/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_LIB_ACPI_TABLES_H
#define TRIGOS_LIB_ACPI_TABLES_H
/*
 * ACPI static tables, parsed without trusting them (ACPI 6.5 chapter 5.2).
 *
 * Two layers:
 *
 *  - Pure parsers over (pointer, available bytes): acpi_rsdp_parse(),
 *    acpi_table_check(), acpi_root_table_parse(), acpi_madt_parse(),
 *    acpi_fadt_parse(), acpi_hpet_parse(), acpi_mcfg_parse(),
 *    acpi_aml_find_s5().  Each one checks what it is given (signature,
 *    length against @available, checksum) before reading a field, and reads
 *    no byte at or beyond the pointer + @available, whatever the contents.
 *
 *  - struct acpi_tables: the RSDT/XSDT reached from the RSDP, whose entries
 *    are physical addresses mapped through a struct physical_memory_access
 *    (lib/physical_memory.h, the same accessor the PVH parser uses).  A
 *    table that fails a check is reported, by signature and address, to
 *    the caller's struct acpi_reporter and skipped, never returned.
 *
 * Everything is copied out into fixed-capacity structures; nothing here
 * allocates or keeps state between calls.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <lib/physical_memory.h>

#define ACPI_SIGNATURE_SIZE		4
#define ACPI_TABLE_HEADER_SIZE		36	/* 5.2.6 */
#define ACPI_RSDP_V1_SIZE		20	/* 5.2.5.3: the ACPI 1.0 checksum covers these */
#define ACPI_RSDP_V2_SIZE		36
/*
 * A sanity bound on a table's Length field: real tables, DSDTs included,
 * are well below it, and it keeps a corrupt Length from making the kernel
 * map and checksum gigabytes.
 */
#define ACPI_TABLE_MAX_LENGTH		(16u << 20)
/* Longest message handed to a struct acpi_reporter, NUL included. */
#define ACPI_MESSAGE_SIZE		128

#define ACPI_MAX_CPUS			256
#define ACPI_MAX_IO_APICS		16
#define ACPI_MAX_INTERRUPT_OVERRIDES	48
#define ACPI_MAX_LOCAL_NMIS		ACPI_MAX_CPUS	/* firmware may list one per CPU */
#define ACPI_MAX_MCFG_ALLOCATIONS	16
#define ACPI_MADT_REPEATED_IDS_SHOWN	5	/* in the one report of repeated APIC IDs */

/* Return values; every function returning int uses these. */
enum acpi_error {
	ACPI_OK = 0,
	ACPI_ERROR_INVALID_ARGUMENT = -1,	/* a NULL pointer */
	ACPI_ERROR_TRUNCATED = -2,		/* fewer bytes readable than needed or claimed */
	ACPI_ERROR_BAD_SIGNATURE = -3,
	ACPI_ERROR_BAD_CHECKSUM = -4,
	ACPI_ERROR_BAD_LENGTH = -5,		/* a length field too small or implausible */
	ACPI_ERROR_UNMAPPED = -6,		/* the accessor could not map it */
	ACPI_ERROR_NOT_FOUND = -7,
	ACPI_ERROR_MALFORMED = -8,		/* found, but its contents make no sense */
};

/**
 * acpi_error_name - a short text for an enum acpi_error value
 * @error: the value
 *
 * Return: a static string such as "bad checksum"; "unknown error" for
 * values outside the enum.
 */
const char *acpi_error_name(int error);

/**
 * struct acpi_reporter - where problems found in the tables are described
 * @report:	called with one NUL-terminated line (no newline) per problem,
 *		at most ACPI_MESSAGE_SIZE bytes with the NUL; the text is only
 *		valid during the call.  May be NULL to discard messages.
 * @context:	passed to @report unchanged
 *
 * Every function taking a reporter accepts NULL for "discard".
 */
struct acpi_reporter {
	void (*report)(void *context, const char *message);
	void *context;
};

/**
 * acpi_report - format a message and hand it to @reporter
 * @reporter: the reporter; NULL, or one whose @report is NULL, discards it
 * @format: printf-style format (lib/format.h), then its arguments
 *
 * The parsers of lib/acpi_tables.c and lib/mptable.c describe every problem
 * through this.  The message is cut to ACPI_MESSAGE_SIZE bytes, NUL
 * included, before @reporter sees it.
 */
void acpi_report(const struct acpi_reporter *reporter, const char *format, ...)
	__attribute__((format(printf, 2, 3)));

/* --- RSDP (5.2.5.3) -------------------------------------------------------- */

struct acpi_rsdp {
	uint8_t revision;		/* 0: ACPI 1.0; 2 and later: ACPI 2.0+ */
	char oem_id[7];			/* NUL-terminated copy */
	uint32_t length;		/* bytes validated: 20 below revision 2, else Length */
	uint32_t rsdt_address;
	uint64_t xsdt_address;		/* 0 below revision 2 */
};

/**
 * acpi_rsdp_parse - validate a Root System Description Pointer
 * @rsdp: the structure (a copy, as Multiboot2 gives, or firmware memory)
 * @available: readable bytes at @rsdp
 * @out: filled in on success; cleared on failure
 *
 * Checks the "RSD PTR " signature and the checksum of the first 20 bytes;
 * for revision 2 and later also that Length is at least 36 and within
 * @available and the extended checksum over Length bytes.
 *
 * Return: ACPI_OK or a negative enum acpi_error.
 */
int acpi_rsdp_parse(const void *rsdp, size_t available, struct acpi_rsdp *out);

/**
 * acpi_rsdp_root_address - the root table a validated RSDP leads to
 * @rsdp: from acpi_rsdp_parse()
 * @is_xsdt: set to whether the address is the XSDT's (may be NULL)
 *
 * The XSDT when the revision is 2 or later and its address non-zero
 * (5.2.5.3: "an ACPI-compatible OS must use the XSDT if present"),
 * otherwise the RSDT.
 *
 * Return: the physical address; 0 if there is none.
 */
uint64_t acpi_rsdp_root_address(const struct acpi_rsdp *rsdp, bool *is_xsdt);

/* --- System description table header (5.2.6) ------------------------------- */

struct acpi_table_header {
	char signature[5];		/* NUL-terminated copy */
	uint32_t length;
	uint8_t revision;
	uint8_t checksum;
	char oem_id[7];
	char oem_table_id[9];
	uint32_t oem_revision;
	uint32_t creator_id;
	uint32_t creator_revision;
};

/**
 * acpi_table_check - validate a table's header and checksum
 * @table: the table
 * @available: readable bytes at @table
 * @signature: the 4-character signature it must have, or NULL for any
 * @header: if not NULL, filled with the header fields when at least 36
 *          bytes are readable (even if a check then fails, so that the
 *          caller can name the table), otherwise cleared
 *
 * Checks, in order: 36 readable bytes, the signature, Length >= 36,
 * Length <= ACPI_TABLE_MAX_LENGTH, Length <= @available, and that the
 * Length bytes sum to zero.
 *
 * Return: ACPI_OK or a negative enum acpi_error (TRUNCATED, BAD_SIGNATURE,
 * BAD_LENGTH, BAD_CHECKSUM).
 */
int acpi_table_check(const void *table, size_t available, const char *signature,
		     struct acpi_table_header *header);

/* --- RSDT (5.2.7) and XSDT (5.2.8) ----------------------------------------- */

struct acpi_root_table {
	const uint8_t *entries;		/* into the table; 32- or 64-bit, unaligned */
	size_t entry_count;
	bool is_xsdt;
};

/**
 * acpi_root_table_parse - validate an RSDT or XSDT and locate its entries
 * @table: the table
 * @available: readable bytes at @table
 * @is_xsdt: expect "XSDT" with 64-bit entries, else "RSDT" with 32-bit ones
 * @out: filled in on success; cleared on failure
 *
 * Trailing bytes that do not make a whole entry are ignored.
 *
 * Return: ACPI_OK or a negative enum acpi_error.
 */
int acpi_root_table_parse(const void *table, size_t available, bool is_xsdt,
			  struct acpi_root_table *out);

/**
 * acpi_root_table_entry - the physical address in entry @index
 * @root: from acpi_root_table_parse()
 * @index: 0 .. entry_count - 1
 * @address: where the address goes
 *
 * Return: false if @index is out of range.
 */
bool acpi_root_table_entry(const struct acpi_root_table *root, size_t index, uint64_t *address);

/* --- Tables reached through physical memory -------------------------------- */

/**
 * struct acpi_tables - the root table and how to reach what it lists
 * @memory:		copy of the caller's accessor
 * @reporter:		copy of the caller's reporter (report NULL: silent)
 * @rsdp:		the validated RSDP
 * @root_address:	physical address of the root table in use
 * @root:		its entries (pointing into memory mapped by @memory)
 *
 * Filled by acpi_tables_init() or acpi_tables_init_at(); read-only after.
 */
struct acpi_tables {
	struct physical_memory_access memory;
	struct acpi_reporter reporter;
	struct acpi_rsdp rsdp;
	uint64_t root_address;
	struct acpi_root_table root;
};

/**
 * acpi_tables_init - validate an RSDP and the root table it leads to
 * @tables: filled in
 * @rsdp: the RSDP bytes (e.g. boot_info.rsdp_copy)
 * @rsdp_available: readable bytes at @rsdp (e.g. boot_info.rsdp_copy_length)
 * @memory: how to map the root table and the tables it lists
 * @reporter: where problems are described (may be NULL)
 *
 * Uses the XSDT when the RSDP offers one; if the XSDT fails its checks, it
 * is reported and the RSDT is tried instead, as the RSDP always has one.
 *
 * Return: ACPI_OK, or a negative enum acpi_error if the RSDP is invalid or
 * no usable root table exists (reported too).
 */
int acpi_tables_init(struct acpi_tables *tables, const void *rsdp, size_t rsdp_available,
		     const struct physical_memory_access *memory,
		     const struct acpi_reporter *reporter);

/**
 * acpi_tables_init_at - acpi_tables_init() for an RSDP given by address
 * @tables: filled in
 * @rsdp_physical: where the RSDP is (e.g. boot_info.rsdp_address under PVH)
 * @memory: how to map it and everything else
 * @reporter: where problems are described (may be NULL)
 *
 * Maps 20 bytes, then, for revision 2 and later, the Length the RSDP
 * states (at least 36, at most ACPI_TABLE_MAX_LENGTH).
 *
 * Return: as acpi_tables_init(); ACPI_ERROR_UNMAPPED if the RSDP's first
 * 20 bytes cannot be mapped.
 */
int acpi_tables_init_at(struct acpi_tables *tables, uint64_t rsdp_physical,
			const struct physical_memory_access *memory,
			const struct acpi_reporter *reporter);

/**
 * acpi_tables_count - how many entries the root table has
 * @tables: from acpi_tables_init()
 *
 * Return: the entry count, valid tables or not.
 */
size_t acpi_tables_count(const struct acpi_tables *tables);

/**
 * acpi_tables_map - map and check the table at a physical address
 * @tables: from acpi_tables_init()
 * @physical: where the table is (e.g. acpi_fadt.dsdt_address)
 * @signature: the signature it must have, or NULL for any
 * @length: set to the table's checked Length on success (may be NULL)
 *
 * Maps the 36-byte header, then Length bytes, and runs acpi_table_check().
 * A failure is reported with the signature found and the address.  A bad
 * checksum alone does not refuse the table: it is reported ("used anyway,
 * as Linux does": ACPICA only warns, tbprint.c acpi_tb_verify_checksum())
 * and the table returned; every parser checks its fields on their own.
 *
 * Return: the mapped, checked table, or NULL.
 */
const void *acpi_tables_map(const struct acpi_tables *tables, uint64_t physical,
			    const char *signature, uint32_t *length);

/**
 * acpi_tables_next - iterate over the valid tables of the root table
 * @tables: from acpi_tables_init()
 * @cursor: start at 0; advanced past the table returned
 * @length: set to the table's Length (may be NULL)
 * @address: set to the table's physical address (may be NULL)
 *
 * Every entry is mapped and checked; a null entry or a table failing a
 * check is reported and skipped.  Enumerating once this way at boot logs
 * every broken table; acpi_tables_find() reports only broken candidates.
 *
 * Return: the next valid table, or NULL when there are no more.
 */
const void *acpi_tables_next(const struct acpi_tables *tables, size_t *cursor, uint32_t *length,
			     uint64_t *address);

/**
 * acpi_tables_find - find a valid table by signature
 * @tables: from acpi_tables_init()
 * @signature: e.g. "APIC", "FACP", "HPET", "MCFG" (not "DSDT" or "FACS":
 *             the FADT points at those, see acpi_tables_map())
 * @instance: 0 for the first valid table with @signature, 1 for the second...
 * @length: set to the table's Length (may be NULL)
 *
 * Entries whose header cannot be mapped are skipped silently (their
 * signature is unknown); a table with @signature failing a check is
 * reported and skipped, so a later valid copy can still be found.  A bad
 * checksum alone is not reported here (acpi_tables_next() reports it).
 *
 * Return: the mapped, checked table, or NULL.
 */
const void *acpi_tables_find(const struct acpi_tables *tables, const char *signature,
			     size_t instance, uint32_t *length);

/* --- MADT, "APIC" (5.2.12) -------------------------------------------------- */

enum acpi_madt_entry_type {
	ACPI_MADT_LOCAL_APIC = 0,		/* 5.2.12.2 */
	ACPI_MADT_IO_APIC = 1,			/* 5.2.12.3 */
	ACPI_MADT_INTERRUPT_OVERRIDE = 2,	/* 5.2.12.5 */
	ACPI_MADT_NMI_SOURCE = 3,		/* 5.2.12.6 */
	ACPI_MADT_LOCAL_APIC_NMI = 4,		/* 5.2.12.7 */
	ACPI_MADT_LOCAL_APIC_OVERRIDE = 5,	/* 5.2.12.8 */
	ACPI_MADT_LOCAL_X2APIC = 9,		/* 5.2.12.12 */
	ACPI_MADT_LOCAL_X2APIC_NMI = 10,	/* 5.2.12.13 */
};

#define ACPI_MADT_PCAT_COMPAT		(1u << 0)	/* MADT flags: dual 8259s present */
#define ACPI_MADT_CPU_ENABLED		(1u << 0)	/* Local (x2)APIC flags */
#define ACPI_MADT_CPU_ONLINE_CAPABLE	(1u << 1)	/* ACPI 6.3+ */
/* MPS INTI flags of overrides and NMIs (5.2.12.5) */
#define ACPI_MPS_POLARITY_MASK		0x3u
#define ACPI_MPS_POLARITY_CONFORMS	0x0u
#define ACPI_MPS_POLARITY_ACTIVE_HIGH	0x1u
#define ACPI_MPS_POLARITY_ACTIVE_LOW	0x3u
#define ACPI_MPS_TRIGGER_MASK		0xcu
#define ACPI_MPS_TRIGGER_CONFORMS	0x0u
#define ACPI_MPS_TRIGGER_EDGE		0x4u
#define ACPI_MPS_TRIGGER_LEVEL		0xcu

/* One Processor Local APIC (type 0) or Processor Local x2APIC (type 9) entry. */
struct acpi_madt_cpu {
	uint32_t apic_id;		/* 8-bit in type 0 entries */
	uint32_t uid;			/* ACPI Processor UID; 8-bit in type 0 entries */
	bool enabled;			/* flags bit 0: usable now */
	bool online_capable;		/* flags bit 1: may be brought online later */
	bool from_x2apic_entry;
};

struct acpi_madt_io_apic {
	uint8_t id;
	uint32_t address;
	uint32_t gsi_base;
};

struct acpi_madt_interrupt_override {
	uint8_t bus;			/* 0: ISA */
	uint8_t source;			/* bus-relative IRQ */
	uint32_t gsi;
	uint16_t flags;			/* ACPI_MPS_* */
};

/* A Local APIC NMI (type 4) or Local x2APIC NMI (type 10) entry. */
struct acpi_madt_local_nmi {
	uint32_t uid;			/* ACPI Processor UID, unless all_processors */
	bool all_processors;		/* UID 0xff (type 4) or 0xffffffff (type 10) */
	uint16_t flags;			/* ACPI_MPS_* */
	uint8_t lint;			/* LINT0 or LINT1 */
	bool from_x2apic_entry;
};

/**
 * struct acpi_madt - what the MADT says, in table order
 * @local_apic_address:	the 32-bit field, or the type 5 override's 64-bit one
 * @local_apic_address_overridden: a type 5 entry supplied it
 * @flags:		MADT flags (ACPI_MADT_PCAT_COMPAT)
 * @cpus:		type 0 and 9 entries in table order, every one whatever its
 *			flags (check @enabled / @online_capable), duplicates kept
 * @cpu_count:		entries stored in @cpus
 * @cpus_beyond_capacity: CPU entries seen after @cpus was full; the table
 *			lists @cpu_count + @cpus_beyond_capacity CPUs
 * @enabled_beyond_capacity: of those, the enabled ones (a sparse topology
 *			lists every possible CPU: QEMU's 258 with two present)
 * @duplicate_apic_ids:	CPU entries whose APIC ID an earlier stored entry
 *			already had; one report per MADT sums them up
 * @enabled_duplicate_apic_ids: those of them that are enabled (a firmware bug
 *			that matters: the second start would reach the first CPU)
 * @repeated_apic_ids:	the first distinct repeated IDs, for the report
 * @repeated_apic_id_count: distinct repeated IDs (may exceed what is kept)
 * @bad_entries:	entries skipped for being shorter than their type
 *			requires, plus the one that stopped the walk, if any
 * @other_entries:	well-formed entries of types not decoded here
 * @walk_stopped:	an entry with a length below 2 or past the end of the
 *			table ended the walk; later entries are unknown
 */
struct acpi_madt {
	uint64_t local_apic_address;
	bool local_apic_address_overridden;
	uint32_t flags;

	struct acpi_madt_cpu cpus[ACPI_MAX_CPUS];
	size_t cpu_count;
	size_t cpus_beyond_capacity;
	size_t enabled_beyond_capacity;
	size_t duplicate_apic_ids;
	size_t enabled_duplicate_apic_ids;
	uint32_t repeated_apic_ids[ACPI_MADT_REPEATED_IDS_SHOWN];
	size_t repeated_apic_id_count;

	struct acpi_madt_io_apic io_apics[ACPI_MAX_IO_APICS];
	size_t io_apic_count;
	size_t io_apics_beyond_capacity;

	struct acpi_madt_interrupt_override overrides[ACPI_MAX_INTERRUPT_OVERRIDES];
	size_t override_count;
	size_t overrides_beyond_capacity;

	struct acpi_madt_local_nmi nmis[ACPI_MAX_LOCAL_NMIS];
	size_t nmi_count;
	size_t nmis_beyond_capacity;

	size_t bad_entries;
	size_t other_entries;
	bool walk_stopped;
};

/**
 * acpi_madt_parse - decode a Multiple APIC Description Table
 * @table: the table ("APIC")
 * @available: readable bytes at @table
 * @reporter: where problems are described (may be NULL)
 * @out: cleared, then filled in (about 8 KiB: keep it off small stacks)
 *
 * Each entry's length is checked: at least 2 and inside the table (else
 * the walk stops), at least the size its type defines (else the entry is
 * skipped); unknown types are skipped by their length.  Duplicate APIC IDs
 * and overflowing capacities are reported.
 *
 * Return: ACPI_OK, possibly with reports; a negative enum acpi_error if
 * the header or checksum is bad or the table is shorter than 44 bytes.
 */
int acpi_madt_parse(const void *table, size_t available, const struct acpi_reporter *reporter,
		    struct acpi_madt *out);

/* --- Generic Address Structure (5.2.3.2) and FADT, "FACP" (5.2.9) ----------- */

#define ACPI_GAS_SYSTEM_MEMORY		0
#define ACPI_GAS_SYSTEM_IO		1
#define ACPI_GAS_PCI_CONFIG		2
#define ACPI_GAS_FUNCTIONAL_FIXED_HW	0x7f

/* Access sizes of a GAS: 0 undefined (legacy), then 1..4 byte to qword. */
#define ACPI_GAS_ACCESS_UNDEFINED	0
#define ACPI_GAS_ACCESS_BYTE		1
#define ACPI_GAS_ACCESS_WORD		2
#define ACPI_GAS_ACCESS_DWORD		3
#define ACPI_GAS_ACCESS_QWORD		4

struct acpi_generic_address {
	uint8_t space_id;		/* ACPI_GAS_SYSTEM_MEMORY, _SYSTEM_IO, ... */
	uint8_t bit_width;
	uint8_t bit_offset;
	uint8_t access_size;		/* ACPI_GAS_ACCESS_* */
	uint64_t address;		/* 0: not present */
};

/**
 * struct acpi_gas_access - how to reach the register a GAS describes
 * @space_id:	ACPI_GAS_SYSTEM_IO, _SYSTEM_MEMORY or _PCI_CONFIG
 * @bytes:	the access width: 1, 2, 4 or 8
 * @address:	the I/O port or physical address (for PCI: the offset)
 * @pci_device, @pci_function: for ACPI_GAS_PCI_CONFIG, on segment 0 bus 0
 * @stated_bit_width: the GAS's Register Bit Width field, as the table has it
 * @width_corrected: acpi_fadt_register_access() replaced @stated_bit_width by
 *		the width the FADT mandates for the register (worth a warning)
 */
struct acpi_gas_access {
	uint8_t space_id;
	uint8_t bytes;
	uint64_t address;
	uint8_t pci_device;
	uint8_t pci_function;
	uint8_t stated_bit_width;
	bool width_corrected;
};

/**
 * acpi_gas_decode - check a Generic Address Structure and say how to access it
 * @gas: the register (e.g. acpi_fadt.reset_register)
 * @default_bytes: the width to use when the GAS gives neither an access
 *                 size nor a bit width (legacy ACPI 1.0 fields)
 * @out: filled in on success
 *
 * ACPI 6.5 5.2.3.2 defines the GAS fields but not which one wins when the
 * access size contradicts the bit width; each consumer follows the OS
 * whose reading firmware was tested against.  This one is Linux's reading
 * for the SPCR (drivers/acpi/spcr.c: the access size picks the MMIO
 * width): the access size when given, else the bit width rounded up to a
 * power of two, else @default_bytes.  The FADT's registers are read as
 * ACPICA does, by acpi_fadt_register_access().  PCI
 * configuration addresses are device (bits 47:32), function (31:16) and
 * offset (15:0) on segment 0, bus 0.
 *
 * Return: ACPI_OK; ACPI_ERROR_NOT_FOUND for a zero address;
 * ACPI_ERROR_MALFORMED for an unknown space, a width that is not 1-8 bytes,
 * a port above 0xffff, a PCI address with reserved bits set or device > 31,
 * function > 7, or an offset past 4 KiB.
 */
int acpi_gas_decode(const struct acpi_generic_address *gas, unsigned int default_bytes,
		    struct acpi_gas_access *out);

/**
 * acpi_gas_register_access - the access ACPICA makes to a register
 * @gas: the register
 * @max_bytes: the widest access the caller allows (8 for "any")
 * @out: filled in on success
 *
 * ACPICA's rule (hwregs.c, acpi_hw_get_access_bit_width()): a "register"
 * GAS (bit offset 0, bit width 8, 16, 32 or 64) is accessed at its bit
 * width, its access size ignored; any other is a "region", accessed at
 * its access size, or when that is undefined at the smallest power of two
 * covering offset and width that the address is aligned to.  I/O accesses
 * are at most 4 bytes.  Firmware is tested against this reading: Dell
 * Precision T3500s state a 32-bit PM timer with byte access, which this
 * reads 4 bytes wide.
 *
 * Return: as acpi_gas_decode().
 */
int acpi_gas_register_access(const struct acpi_generic_address *gas, unsigned int max_bytes,
			     struct acpi_gas_access *out);

/* FADT fixed feature flags (5.2.9) */
#define ACPI_FADT_TMR_VAL_EXT		(1u << 8)	/* PM timer counts 32 bits, not 24 */
#define ACPI_FADT_RESET_REG_SUP		(1u << 10)
#define ACPI_FADT_HW_REDUCED_ACPI	(1u << 20)
/* IA-PC boot architecture flags (5.2.9.3) */
#define ACPI_IAPC_LEGACY_DEVICES	(1u << 0)
#define ACPI_IAPC_8042			(1u << 1)
#define ACPI_IAPC_VGA_NOT_PRESENT	(1u << 2)
#define ACPI_IAPC_MSI_NOT_SUPPORTED	(1u << 3)
#define ACPI_IAPC_PCIE_ASPM_CONTROLS	(1u << 4)
#define ACPI_IAPC_CMOS_RTC_NOT_PRESENT	(1u << 5)

/**
 * struct acpi_fadt - the FADT fields the kernel uses
 *
 * Each field is read only if the table's Length covers it (ACPI 1.0 FADTs
 * are 116 bytes, ACPI 2.0+ ones 244 or more); a field the table is too
 * short for stays 0 / false.  Raw fields keep their spec names; the
 * resolved GAS fields say which register to use: the X_ (GAS) field when
 * present with a non-zero address, which 5.2.9 says supersedes the 32-bit
 * port, else the port as a SYSTEM_IO GAS of width LEN * 8 (access size 0),
 * else all zero.
 */
struct acpi_fadt {
	uint32_t length;
	uint8_t revision;

	uint32_t dsdt_address32;		/* DSDT, offset 40 */
	uint64_t x_dsdt_address;		/* X_DSDT, offset 140 */
	uint64_t dsdt_address;			/* resolved: X_DSDT if non-zero, else DSDT */

	uint16_t sci_interrupt;			/* SCI_INT, offset 46 */
	uint32_t smi_command_port;		/* SMI_CMD, offset 48 */
	uint8_t acpi_enable_value;		/* ACPI_ENABLE, offset 52 */
	uint8_t acpi_disable_value;		/* ACPI_DISABLE, offset 53 */

	uint32_t pm1a_control_port;		/* PM1a_CNT_BLK, offset 64 */
	uint32_t pm1b_control_port;		/* PM1b_CNT_BLK, offset 68 */
	uint8_t pm1_control_length;		/* PM1_CNT_LEN, offset 89 */
	struct acpi_generic_address x_pm1a_control;	/* offset 172 */
	struct acpi_generic_address x_pm1b_control;	/* offset 184 */
	struct acpi_generic_address pm1a_control;	/* resolved */
	struct acpi_generic_address pm1b_control;	/* resolved */

	uint32_t pm_timer_port;			/* PM_TMR_BLK, offset 76 */
	uint8_t pm_timer_length;		/* PM_TMR_LEN, offset 91 */
	struct acpi_generic_address x_pm_timer;	/* X_PM_TMR_BLK, offset 208 */
	struct acpi_generic_address pm_timer;	/* resolved */
	bool pm_timer_32bit;			/* flags & ACPI_FADT_TMR_VAL_EXT */

	uint8_t century;			/* CMOS index of the century, 0: none; offset 108 */
	bool has_iapc_boot_arch;		/* revision >= 2 and Length covers offset 109 */
	uint16_t iapc_boot_arch;		/* ACPI_IAPC_*, offset 109 */

	uint32_t flags;				/* ACPI_FADT_*, offset 112 */
	bool hardware_reduced;			/* flags & ACPI_FADT_HW_REDUCED_ACPI */

	bool has_reset_register;		/* Length covers RESET_REG and RESET_VALUE */
	struct acpi_generic_address reset_register;	/* RESET_REG, offset 116 */
	uint8_t reset_value;			/* RESET_VALUE, offset 128 */
	bool reset_supported;			/* revision >= 2, RESET_REG_SUP and has_reset_register */
};

/**
 * acpi_fadt_parse - read the Fixed ACPI Description Table
 * @table: the table ("FACP")
 * @available: readable bytes at @table
 * @out: cleared, then filled in
 *
 * Return: ACPI_OK or a negative enum acpi_error from the header check.
 */
int acpi_fadt_parse(const void *table, size_t available, struct acpi_fadt *out);

/* The FADT registers the kernel accesses, for acpi_fadt_register_access(). */
enum acpi_fadt_register {
	ACPI_FADT_PM1A_CONTROL,
	ACPI_FADT_PM1B_CONTROL,
	ACPI_FADT_PM_TIMER,
	ACPI_FADT_RESET,
};

/** acpi_fadt_register_name - "PM1a_CNT", "PM1b_CNT", "PM_TMR" or "RESET_REG" */
const char *acpi_fadt_register_name(enum acpi_fadt_register which);

/**
 * acpi_fadt_register_access - how to access one of the FADT's registers
 * @fadt: from acpi_fadt_parse()
 * @which: the register (its resolved GAS: X_ field or 32-bit port)
 * @out: filled in on success; @out->width_corrected says whether the
 *       stated bit width was replaced
 *
 * As ACPICA does: the bit width is first forced to the one the register
 * must have (PM1x_CNT 16, PM_TMR 32, RESET_REG 8; tbfadt.c "Invalid length
 * for FADT/..., using default"), then acpi_gas_register_access()'s rule
 * picks the access width, so PM1a_CNT stated "16 bits, byte access" is
 * written 2 bytes wide (one byte could never set SLP_EN, bit 13) and a
 * reset register at 0xCF9 stated "8 bits, word access" 1 byte wide.
 * RESET_REG is not checked for RESET_REG_SUP: see acpi_fadt.reset_supported.
 *
 * Return: ACPI_OK; ACPI_ERROR_NOT_FOUND when the FADT has no such register
 * (address 0); ACPI_ERROR_MALFORMED as acpi_gas_decode().
 */
int acpi_fadt_register_access(const struct acpi_fadt *fadt, enum acpi_fadt_register which,
			      struct acpi_gas_access *out);

/**
 * acpi_fadt_report_register_widths - tell @reporter of each FADT register
 * whose stated bit width acpi_fadt_register_access() replaces
 * @fadt: from acpi_fadt_parse()
 * @reporter: where the lines go, one a register ("FADT PM_TMR states a
 *            8-bit width; accessed 4 bytes wide as ACPICA does")
 *
 * The kernel's boot notes and tools/acpi-check print these same lines.
 */
void acpi_fadt_report_register_widths(const struct acpi_fadt *fadt,
				      const struct acpi_reporter *reporter);

/* --- HPET (IA-PC HPET specification 1.0a, 3.2.4) ----------------------------- */

struct acpi_hpet {
	uint32_t event_timer_block_id;		/* offset 36 */
	struct acpi_generic_address base;	/* offset 40; the address itself at 44 */
	uint8_t hpet_number;			/* offset 52 */
	uint16_t minimum_tick;			/* periodic mode minimum, offset 53 */
	uint8_t page_protection;		/* offset 55 */
};

/**
 * acpi_hpet_parse - read the HPET description table
 * @table: the table ("HPET", at least 56 bytes)
 * @available: readable bytes at @table
 * @out: cleared, then filled in
 *
 * Return: ACPI_OK or a negative enum acpi_error (BAD_LENGTH below 56 bytes).
 */
int acpi_hpet_parse(const void *table, size_t available, struct acpi_hpet *out);

/* --- MCFG (PCI Firmware Specification 3.0, 4.1.2) ---------------------------- */

struct acpi_mcfg_allocation {
	uint64_t base_address;		/* ECAM base of the segment's bus 0 */
	uint16_t segment_group;
	uint8_t start_bus;
	uint8_t end_bus;
};

struct acpi_mcfg {
	struct acpi_mcfg_allocation allocations[ACPI_MAX_MCFG_ALLOCATIONS];
	size_t allocation_count;
	size_t allocations_beyond_capacity;
};

/**
 * acpi_mcfg_parse - read the PCI Express memory-mapped configuration table
 * @table: the table ("MCFG", at least 44 bytes)
 * @available: readable bytes at @table
 * @out: cleared, then filled in; a partial trailing entry is ignored
 *
 * Return: ACPI_OK or a negative enum acpi_error.
 */
int acpi_mcfg_parse(const void *table, size_t available, struct acpi_mcfg *out);

/* --- SPCR (Microsoft Serial Port Console Redirection Table) ---------------- */

/* Interface types (Microsoft's DBG2 port subtypes) that are 16550s. */
#define ACPI_SPCR_16550			0x00	/* fully 16550-compatible */
#define ACPI_SPCR_16550_SUBSET		0x01	/* 16550 subset (the DBGP rev 1 kind) */
#define ACPI_SPCR_16550_GAS		0x12	/* 16550 with parameters from the GAS */

/*
 * The UART a server's firmware and its BMC use for the console (often COM2,
 * serial-over-LAN).  Read as Linux's drivers/acpi/spcr.c reads it.
 */
struct acpi_spcr {
	uint8_t revision;
	uint8_t interface_type;			/* offset 36: ACPI_SPCR_* or another UART */
	struct acpi_generic_address base;	/* offset 40: the UART's registers */
	uint8_t interrupt_type;			/* offset 52: bit 0 PC-AT IRQ, bit 1 I/O APIC */
	uint8_t irq;				/* offset 53 */
	uint32_t gsi;				/* offset 54 */
	uint8_t baud_rate_code;			/* offset 58: 0 as left, 3 9600 ... 7 115200 */
	uint8_t parity, stop_bits, flow_control, terminal_type;	/* offsets 59-62 */
};

/**
 * acpi_spcr_parse - read the SPCR's fields
 * @table: the table ("SPCR", at least 63 bytes)
 * @available: readable bytes at @table
 * @out: cleared, then filled in
 *
 * Return: ACPI_OK or a negative enum acpi_error (BAD_LENGTH below 63 bytes).
 */
int acpi_spcr_parse(const void *table, size_t available, struct acpi_spcr *out);

/**
 * acpi_spcr_uart - whether the SPCR names a 16550 the console can use
 * @spcr: from acpi_spcr_parse()
 * @access: set to the UART's base: I/O port (byte accesses) or memory, whose
 *          access width the GAS's access size gives (8, 16 or 32 bits, else 8),
 *          as Linux's spcr.c does
 * @baud: set to the baud rate; 0 means "as the firmware left it"
 *
 * Address 0 is common on desktops whose SPCR describes nothing.
 *
 * Return: NULL when usable, else why not ("no UART address (0)", ...).
 */
const char *acpi_spcr_uart(const struct acpi_spcr *spcr, struct acpi_gas_access *access,
			   unsigned int *baud);

/**
 * acpi_spcr_report_unusable - tell @reporter why the SPCR's UART is not used
 * @spcr: from acpi_spcr_parse()
 * @problem: what acpi_spcr_uart() returned
 * @reporter: where the line goes ("SPCR (interface type 0x0): no UART
 *            address (0); not used"): the kernel's boot notes and
 *            tools/acpi-check print the same words
 */
void acpi_spcr_report_unusable(const struct acpi_spcr *spcr, const char *problem,
			       const struct acpi_reporter *reporter);

/* --- \_S5 in AML (7.4.2, 20.2) ---------------------------------------------- */

struct acpi_sleep_type {
	uint8_t slp_typ_a;		/* for PM1a_CNT.SLP_TYP (bits 10-12) */
	uint8_t slp_typ_b;		/* for PM1b_CNT.SLP_TYP */
};

/**
 * acpi_aml_find_s5 - find the soft-off sleep type values in a DSDT or SSDT
 * @table: the table (header checked, any signature)
 * @available: readable bytes at @table
 * @out: set on success
 *
 * A byte scan, not an AML interpreter: it looks for a NameOp declaring
 * "_S5_" (optionally with a root '\' or parent '^' prefix) whose value is
 * a literal Package, and takes its first two elements when they are
 * integer constants (ZeroOp, OneOp, OnesOp, BytePrefix, WordPrefix,
 * DWordPrefix, QWordPrefix), keeping the low byte of each.  A package of
 * one integer is read as older firmware meant it, SLP_TYPa in bits 0-7 and
 * SLP_TYPb in bits 8-15.  It does not evaluate methods, so an \_S5 that is
 * a Method, sits in a conditional that would not be taken, or holds
 * references or expressions is not understood; the first decodable
 * candidate wins.  Every read stays within the table and the package.
 *
 * Return: ACPI_OK; ACPI_ERROR_NOT_FOUND if there is no _S5_ name;
 * ACPI_ERROR_MALFORMED if there is one but no candidate could be decoded;
 * or an error from the header check.
 */
int acpi_aml_find_s5(const void *table, size_t available, struct acpi_sleep_type *out);

/**
 * acpi_tables_find_s5 - \_S5 from the DSDT, else from the first SSDT that has it
 * @tables: from acpi_tables_init()
 * @dsdt_address: the FADT's (acpi_fadt.dsdt_address)
 * @out: set on success
 *
 * \_S5 is a name in the ACPI namespace, which the DSDT and every SSDT build
 * together (ACPI 6.5 5.2.11.2): firmware may declare it in an SSDT.
 * SeaBIOS's own tables do (QEMU q35 with acpi=off, where SeaBIOS builds them
 * instead of QEMU: its "misc" SSDT holds \_S3, \_S4 and \_S5).
 *
 * Return: ACPI_OK, or the last acpi_aml_find_s5() error (ACPI_ERROR_NOT_FOUND
 * when no table could be searched).
 */
int acpi_tables_find_s5(const struct acpi_tables *tables, uint64_t dsdt_address,
			struct acpi_sleep_type *out);

#endif /* TRIGOS_LIB_ACPI_TABLES_H */
