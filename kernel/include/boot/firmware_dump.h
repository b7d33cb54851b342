/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_FIRMWARE_DUMP_H
#define TRIGOS_FIRMWARE_DUMP_H
/*
 * dump=multiboot,pvh,acpi,mptable (or dump=all): print the raw firmware and
 * boot loader structures the parsers of kernel/lib read, as KTAP
 * diagnostics, so that tools/fuzz-corpus can turn a real boot into fuzzing
 * seeds.  Each structure is printed as lines of
 *
 *	# DUMP <kind> <name> 0x<physical address> +<offset> <hex bytes>
 *
 * (at most FIRMWARE_DUMP_LINE_BYTES bytes a line, offsets in order), and
 * closed by "# DUMP <kind> <name> 0x<address> end <length>".
 */

#define FIRMWARE_DUMP_MULTIBOOT		(1u << 0)
#define FIRMWARE_DUMP_PVH		(1u << 1)
#define FIRMWARE_DUMP_ACPI		(1u << 2)
#define FIRMWARE_DUMP_MPTABLE		(1u << 3)
#define FIRMWARE_DUMP_ALL		0xfu

#define FIRMWARE_DUMP_LINE_BYTES	96

/**
 * firmware_dump_parse - the FIRMWARE_DUMP_* mask a dump= value names
 * @value: comma-separated kinds ("multiboot", "pvh", "acpi", "mptable", "all")
 * @length: bytes of @value
 *
 * Return: the mask, or 0 if a kind is unknown or the list is empty.
 */
unsigned int firmware_dump_parse(const char *value, size_t length);

/**
 * firmware_dump_boot_info - dump the multiboot2 block or the PVH start_info
 *
 * Call before memory_init(): QEMU's PVH structures live in page 0, which
 * is unmapped after it.  Does nothing unless dump= asked for it.
 */
void firmware_dump_boot_info(void);

/**
 * firmware_dump_tables - dump the ACPI tables and the MP tables
 *
 * Call after acpi_init().  Does nothing unless dump= asked for it.
 */
void firmware_dump_tables(void);

#endif
