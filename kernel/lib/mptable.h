/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_LIB_MPTABLE_H
#define TRIGOS_LIB_MPTABLE_H
/*
 * Intel MultiProcessor Specification 1.4 tables, parsed without trusting them.
 *
 * The MP tables are how a machine without ACPI (QEMU -machine acpi=off,
 * where SeaBIOS still builds them, or a genuinely old board) says how many
 * CPUs it has and where its APICs are.  Two structures (MP spec chapter 4):
 *
 *  - the MP floating pointer structure, 16 bytes with the signature "_MP_"
 *    on a 16-byte boundary in one of three areas (4: the first KiB of the
 *    EBDA, the last KiB of base memory, 0xf0000-0xfffff), which holds the
 *    physical address of
 *  - the MP configuration table, "PCMP": a 44-byte header, then entries
 *    whose size is implied by their type (4.3).
 *
 * A floating pointer may instead name one of the default configurations of
 * chapter 5 (feature byte 1 non-zero); there is then no table and
 * mp_default_configuration() fills in what the spec says such a system has.
 *
 * The layers are those of lib/acpi_tables.h, and so are the conventions:
 * mp_floating_pointer_scan() and mp_config_table_parse() are pure parsers
 * over (pointer, length) that read no byte outside what they are given;
 * mp_tables_find() reaches the areas and the table through a struct
 * physical_memory_access.  Problems are described to the same struct
 * acpi_reporter the ACPI parsers use (so the kernel has one reporter), and
 * every function returning int returns an enum acpi_error value, so that
 * acpi_error_name() names it.  Nothing allocates or keeps state.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <lib/acpi_tables.h>
#include <lib/physical_memory.h>

#define MP_FLOATING_POINTER_SIZE	16	/* 4.1: length 1, in 16-byte units */
#define MP_CONFIG_HEADER_SIZE		44	/* 4.2, Figure 4-3 */

/* Where the floating pointer is searched for (MP spec 4). */
#define MP_EBDA_SEARCH_LENGTH		1024u		/* the first KiB of the EBDA */
#define MP_BASE_MEMORY_SEARCH_LENGTH	1024u		/* the last KiB of base memory */
#define MP_DEFAULT_BASE_MEMORY_END	0xa0000ull	/* 640 KiB, when not known */
#define MP_BIOS_ROM_START		0xf0000ull
#define MP_BIOS_ROM_LENGTH		0x10000u

/* Base table entry types (4.3, Table 4-3); their sizes are implied. */
enum mp_entry_type {
	MP_ENTRY_PROCESSOR = 0,			/* 4.3.1, 20 bytes */
	MP_ENTRY_BUS = 1,			/* 4.3.2, 8 bytes */
	MP_ENTRY_IO_APIC = 2,			/* 4.3.3, 8 bytes */
	MP_ENTRY_IO_INTERRUPT = 3,		/* 4.3.4, 8 bytes */
	MP_ENTRY_LOCAL_INTERRUPT = 4,		/* 4.3.5, 8 bytes */
};

#define MP_PROCESSOR_ENTRY_SIZE		20
#define MP_SMALL_ENTRY_SIZE		8	/* every other base entry type */

#define MP_CPU_ENABLED			(1u << 0)	/* CPU flags: EN */
#define MP_CPU_BOOTSTRAP		(1u << 1)	/* CPU flags: BP */
#define MP_IO_APIC_ENABLED		(1u << 0)	/* I/O APIC flags: EN */
#define MP_FEATURE2_IMCR_PRESENT	(1u << 7)	/* feature byte 2: IMCRP */

/* APIC IDs are 8 bits in the MP tables, so 256 distinct CPUs at most. */
#define MP_MAX_CPUS			256
#define MP_MAX_IO_APICS			16
/* Duplicate APIC IDs reported one by one; further ones only counted. */
#define MP_MAX_DUPLICATE_REPORTS	8

/* Chapter 5, Table 5-1: the codes feature byte 1 may hold. */
#define MP_DEFAULT_CONFIGURATION_FIRST	1
#define MP_DEFAULT_CONFIGURATION_LAST	7
/* 5: every default configuration puts the APICs here */
#define MP_DEFAULT_LOCAL_APIC_ADDRESS	0xfee00000u
#define MP_DEFAULT_IO_APIC_ADDRESS	0xfec00000u

/**
 * struct mp_floating_pointer - a validated MP floating pointer structure (4.1)
 * @physical:		where it was found
 * @config_table_address: PHYSICAL ADDRESS POINTER, the configuration table;
 *			0 when there is none
 * @spec_revision:	SPEC_REV: 1 for MP 1.1, 4 for MP 1.4
 * @default_configuration: MP feature information byte 1: 0 when a
 *			configuration table is present, else the Table 5-1 code
 *			of the default configuration the system implements
 * @imcr_present:	feature byte 2 bit 7 (IMCRP): the IMCR exists and the
 *			system starts in PIC Mode; otherwise Virtual Wire Mode
 * @feature_bytes:	MP feature information bytes 1-5, raw
 */
struct mp_floating_pointer {
	uint64_t physical;
	uint32_t config_table_address;
	uint8_t spec_revision;
	uint8_t default_configuration;
	bool imcr_present;
	uint8_t feature_bytes[5];
};

/**
 * mp_floating_pointer_scan - search a memory area for the MP floating pointer
 * @area: the bytes to search
 * @length: readable bytes at @area; a partial 16-byte slot at either end is
 *          not searched (nor read)
 * @area_physical: the physical address of @area[0]; the structure lies on a
 *                 16-byte boundary of physical memory (4), so when this is
 *                 not a multiple of 16 the first slot starts further in
 * @out: filled in on success; cleared otherwise
 *
 * Looks at each 16-byte slot for "_MP_", a LENGTH of 1 (the only size
 * MP 1.4 defines; the checksum would cover LENGTH * 16 bytes) and a zero
 * sum of the 16 bytes.  A candidate failing a check does not end the
 * search: a later slot may hold the real structure.
 *
 * Return: ACPI_OK for the first valid structure; otherwise
 * ACPI_ERROR_INVALID_ARGUMENT (NULL @area or @out, or an area that wraps
 * around the address space), the error of the first rejected candidate
 * (ACPI_ERROR_BAD_LENGTH, ACPI_ERROR_BAD_CHECKSUM), or ACPI_ERROR_NOT_FOUND
 * when no slot has the signature.
 */
int mp_floating_pointer_scan(const void *area, size_t length, uint64_t area_physical,
			     struct mp_floating_pointer *out);

/* One processor entry (4.3.1). */
struct mp_cpu {
	uint8_t apic_id;
	uint8_t apic_version;		/* bits 0-7 of the local APIC version register */
	bool enabled;			/* EN: clear means unusable, leave it alone */
	bool bootstrap;			/* BP */
	uint32_t signature;		/* CPU signature: stepping 3-0, model 7-4, family 11-8 */
	uint32_t features;		/* feature flags, as CPUID leaf 1 EDX */
};

/* One I/O APIC entry (4.3.3). */
struct mp_io_apic {
	uint8_t id;
	uint8_t version;
	bool enabled;			/* EN: clear means unusable, leave it alone */
	uint32_t address;
};

/**
 * struct mp_configuration - what an MP configuration table says, in table order
 * @default_configuration: 0 when parsed from a table; else the Table 5-1
 *			code mp_default_configuration() filled this in for
 * @spec_revision:	SPEC_REV of the table header
 * @oem_id:		OEM ID string, trailing spaces removed, unprintable
 *			bytes shown as '?'
 * @product_id:		PRODUCT ID string, likewise
 * @oem_table_address:	OEM TABLE POINTER (0: none); not read here
 * @oem_table_size:	OEM TABLE SIZE
 * @base_table_length:	BASE TABLE LENGTH, header included, as validated
 * @entry_count:	ENTRY COUNT as stated (compare with @entries_walked)
 * @local_apic_address:	ADDRESS OF LOCAL APIC
 * @extended_table_length: EXTENDED TABLE LENGTH; its entries are not decoded
 * @extended_table_checked: the extended table was within the bytes given
 *			and its checksum was verified
 * @extended_table_valid: ...and the EXTENDED TABLE CHECKSUM matched
 * @cpus:		processor entries in table order, every one whatever its
 *			flags (check @enabled), duplicates kept
 * @cpu_count:		entries stored in @cpus
 * @cpus_beyond_capacity: processor entries seen after @cpus was full
 * @duplicate_apic_ids:	processor entries whose APIC ID an earlier one had
 *			(over all entries, stored or not)
 * @bootstrap_cpus:	processor entries with BP set; 4.3.1 means one
 * @io_apics:		I/O APIC entries in table order, whatever their flags
 * @io_apic_count:	entries stored in @io_apics
 * @io_apics_beyond_capacity: I/O APIC entries seen after @io_apics was full
 * @bus_entries:	bus entries (4.3.2), counted, not decoded
 * @io_interrupt_entries: I/O interrupt assignment entries (4.3.4), counted
 * @local_interrupt_entries: local interrupt assignment entries (4.3.5), counted
 * @entries_walked:	entries decoded; @entry_count unless @walk_stopped
 * @walk_stopped:	the walk ended early, at an unknown entry type, an
 *			entry running past BASE TABLE LENGTH, or the end of the
 *			table before ENTRY COUNT entries; later entries are unknown
 * @trailing_bytes:	bytes between the last of ENTRY COUNT entries and
 *			BASE TABLE LENGTH (not read as entries)
 */
struct mp_configuration {
	uint8_t default_configuration;
	uint8_t spec_revision;
	char oem_id[9];
	char product_id[13];
	uint32_t oem_table_address;
	uint16_t oem_table_size;
	uint16_t base_table_length;
	uint16_t entry_count;
	uint32_t local_apic_address;
	uint16_t extended_table_length;
	bool extended_table_checked;
	bool extended_table_valid;

	struct mp_cpu cpus[MP_MAX_CPUS];
	size_t cpu_count;
	size_t cpus_beyond_capacity;
	size_t duplicate_apic_ids;
	size_t bootstrap_cpus;

	struct mp_io_apic io_apics[MP_MAX_IO_APICS];
	size_t io_apic_count;
	size_t io_apics_beyond_capacity;

	size_t bus_entries;
	size_t io_interrupt_entries;
	size_t local_interrupt_entries;

	size_t entries_walked;
	bool walk_stopped;
	size_t trailing_bytes;
};

/**
 * mp_config_table_parse - decode an MP configuration table
 * @table: the table ("PCMP")
 * @available: readable bytes at @table; at least BASE TABLE LENGTH, and
 *             if it also covers the extended table that one's checksum
 *             is verified
 * @reporter: where problems are described (may be NULL)
 * @out: cleared, then filled in (about 3.5 KiB: keep it off small stacks);
 *       cleared again on failure
 *
 * Checks, in order: 44 readable bytes, the "PCMP" signature, BASE TABLE
 * LENGTH >= 44, BASE TABLE LENGTH <= @available, and that the base table's
 * bytes sum to zero (4.2).  Then walks ENTRY COUNT entries.  An entry's
 * size follows from its type (4.3, Table 4-3), so an unknown type cannot
 * be skipped: it stops the walk, as does an entry that would run past
 * BASE TABLE LENGTH or the end of the table reached before ENTRY COUNT
 * entries.  Duplicate APIC IDs, a BP count other than one, overflowing
 * capacities and a bad extended table checksum are reported but do not
 * fail the parse.
 *
 * Return: ACPI_OK, possibly with reports and @out->walk_stopped; otherwise
 * a negative enum acpi_error (INVALID_ARGUMENT, TRUNCATED, BAD_SIGNATURE,
 * BAD_LENGTH, BAD_CHECKSUM), also reported.
 */
int mp_config_table_parse(const void *table, size_t available,
			  const struct acpi_reporter *reporter, struct mp_configuration *out);

/**
 * mp_default_configuration_name - what a Table 5-1 code stands for
 * @type: MP feature information byte 1
 *
 * Return: a static string such as "ISA + PCI, integrated APICs"; "none"
 * for 0 and "undefined" for codes above 7.
 */
const char *mp_default_configuration_name(uint8_t type);

/**
 * mp_default_configuration - fill in a default configuration (chapter 5)
 * @type: the Table 5-1 code, 1-7 (MP feature information byte 1)
 * @out: cleared, then filled in
 *
 * Chapter 5 defines these systems as having exactly two processors, with
 * local APIC IDs assigned by hardware consecutively from zero, local APICs
 * at 0xfee00000 and an I/O APIC at 0xfec00000.  So: two enabled CPUs with
 * APIC IDs 0 and 1; neither marked BP (there is no table to say which, so
 * @out->bootstrap_cpus is 0: the BSP is whichever reads its own APIC ID);
 * APIC versions 0x01 for codes 1-4 (discrete 82489DX APICs, whose version
 * register reads 0x0X) and 0x10 for codes 5-7 (APICs integrated in the
 * processor, 0x1X), representative of the family, not read from hardware;
 * one enabled I/O APIC at 0xfec00000 with ID 2.  Chapter 5 fixes the I/O
 * APIC's address but not its ID: 2 is the first ID the CPUs leave free,
 * the usual assumption; read the I/O APIC's ID register if it matters.
 * CPU signatures and features are 0 (unknown).  The bus and interrupt
 * entries the defaults imply (5.3, 5.4) are not synthesised: their counts
 * stay 0 and @out->default_configuration tells the caller which routing
 * applies.
 *
 * Return: ACPI_OK; ACPI_ERROR_INVALID_ARGUMENT if @out is NULL;
 * ACPI_ERROR_MALFORMED for codes outside 1-7 (@out then only cleared).
 */
int mp_default_configuration(uint8_t type, struct mp_configuration *out);

/**
 * mp_tables_find - locate the MP floating pointer and decode what it leads to
 * @memory: how to map the search areas and the configuration table
 * @ebda_physical: start of the Extended BIOS Data Area (the real-mode
 *                 segment in the BIOS data area word at 0x40e, times 16);
 *                 0 when unknown, and that area is then not searched
 * @base_memory_end: end of base memory in bytes (the KiB count in the BIOS
 *                   data area word at 0x413, times 1024); 0 means 640 KiB
 * @reporter: where problems are described (may be NULL)
 * @pointer: set to the floating pointer found (may be NULL); cleared if none
 * @out: cleared, then filled in (see mp_config_table_parse())
 *
 * Searches, in the order of MP spec 4 and stopping at the first valid
 * structure: the first KiB of the EBDA, the last KiB of base memory (which
 * 4 requires only when the EBDA is undefined, but searching it anyway
 * costs little and finds firmware that misplaced it; skipped when it is
 * the same KiB as the EBDA's), and the BIOS ROM, 0xf0000-0xfffff.  Each
 * area is mapped whole; one that cannot be mapped is reported and
 * skipped, as is a rejected candidate (the search goes on).
 *
 * If the structure names a default configuration (feature byte 1 non-zero)
 * there is no table: @out is filled by mp_default_configuration(),
 * @out->default_configuration says so, and the choice is reported with
 * the code and its Table 5-1 description (a non-zero table address, which
 * chapter 5 forbids then, is reported and ignored).  Otherwise the table's
 * 44-byte header is mapped, then BASE TABLE LENGTH plus EXTENDED TABLE
 * LENGTH bytes (or, if that fails, BASE TABLE LENGTH alone, leaving the
 * extended table unchecked), and mp_config_table_parse() decodes it.
 *
 * Return: ACPI_OK; ACPI_ERROR_NOT_FOUND if no area holds a valid floating
 * pointer; ACPI_ERROR_MALFORMED if it names neither a table nor a defined
 * default configuration; ACPI_ERROR_UNMAPPED if the table header cannot be
 * mapped; or an error of mp_config_table_parse().  Every failure is
 * reported.
 */
int mp_tables_find(const struct physical_memory_access *memory, uint64_t ebda_physical,
		   uint64_t base_memory_end, const struct acpi_reporter *reporter,
		   struct mp_floating_pointer *pointer, struct mp_configuration *out);

#endif /* TRIGOS_LIB_MPTABLE_H */
