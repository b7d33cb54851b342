// SPDX-License-Identifier: MIT
/*
 * dump=: the raw structures behind the boot facts, for seeding the fuzzers
 * of tests/fuzz/ from real firmware (tools/fuzz-corpus reads the lines).
 * Only what the parsers already accepted, or at least located, is dumped:
 * the dump reads through the same kernel_physical_memory accessor.
 */
#include <boot/acpi.h>
#include <boot/boot.h>
#include <boot/firmware_dump.h>
#include <log/log.h>
#include <boot/options.h>
#include <lib/bytes.h>
#include <lib/mptable.h>
#include <lib/pvh.h>
#include <lib/string.h>

/* PVH start_info fields (lib/pvh.h names the structure). */
#define PVH_NR_MODULES_OFFSET	12
#define PVH_MODLIST_OFFSET	16
#define PVH_CMDLINE_OFFSET	24
#define PVH_MEMMAP_OFFSET	40
#define PVH_MEMMAP_COUNT_OFFSET	48
/* Enough for what QEMU hands over, and a bound on a corrupt count. */
#define PVH_DUMP_MAX_MODULES	8
#define PVH_DUMP_MAX_MEMMAP	128
#define PVH_DUMP_MAX_CMDLINE	4096

unsigned int firmware_dump_parse(const char *value, size_t length)
{
	static const struct {
		const char *name;
		unsigned int mask;
	} kinds[] = {
		{ "multiboot", FIRMWARE_DUMP_MULTIBOOT }, { "pvh", FIRMWARE_DUMP_PVH },
		{ "acpi", FIRMWARE_DUMP_ACPI }, { "mptable", FIRMWARE_DUMP_MPTABLE },
		{ "all", FIRMWARE_DUMP_ALL },
	};
	unsigned int mask = 0;
	size_t start = 0;

	while (start <= length) {
		size_t end = start;
		unsigned int found = 0;

		while (end < length && value[end] != ',')
			end++;
		for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
			if (strlen(kinds[i].name) == end - start &&
			    memcmp(kinds[i].name, value + start, end - start) == 0)
				found = kinds[i].mask;
		}
		if (!found)
			return 0;
		mask |= found;
		start = end + 1;
	}
	return mask;
}

/* dump=: FIRMWARE_DUMP_* bits, what to print; 0 by default. */
static unsigned int dump_mask;

static bool parse_dump(const struct cmdline_word *word, const char **error)
{
	unsigned int mask = word->has_value ? firmware_dump_parse(word->value, word->value_length) : 0;

	if (!mask)
		return false;
	dump_mask = mask;
	return true;
}
KERNEL_OPTION(dump, "multiboot, pvh, acpi, mptable or all, comma-separated", parse_dump);

static void dump_bytes(const char *kind, const char *name, uint64_t physical,
		       const uint8_t *bytes, size_t length)
{
	static const char digits[] = "0123456789abcdef";
	char hex[2 * FIRMWARE_DUMP_LINE_BYTES + 1];

	for (size_t offset = 0; offset < length; offset += FIRMWARE_DUMP_LINE_BYTES) {
		size_t count = length - offset;

		if (count > FIRMWARE_DUMP_LINE_BYTES)
			count = FIRMWARE_DUMP_LINE_BYTES;
		for (size_t i = 0; i < count; i++) {
			hex[2 * i] = digits[bytes[offset + i] >> 4];
			hex[2 * i + 1] = digits[bytes[offset + i] & 0xf];
		}
		hex[2 * count] = '\0';
		ktap_note("DUMP %s %s 0x%llx +%zu %s", kind, name, (unsigned long long)physical,
			  offset, hex);
	}
	ktap_note("DUMP %s %s 0x%llx end %zu", kind, name, (unsigned long long)physical, length);
}

/* Dump @length bytes at @physical, or say why they cannot be. */
static void dump_physical(const char *kind, const char *name, uint64_t physical, size_t length)
{
	const uint8_t *bytes = length ? physical_memory_map(&kernel_physical_memory, physical,
							    length) : NULL;

	if (!bytes) {
		ktap_note("DUMP %s %s 0x%llx: %zu bytes not readable; skipped", kind, name,
			  (unsigned long long)physical, length);
		return;
	}
	dump_bytes(kind, name, physical, bytes, length);
}

static void dump_pvh(void)
{
	const uint8_t *start = physical_memory_map(&kernel_physical_memory, boot_info.info_start,
						   PVH_START_INFO_V1_SIZE);
	uint64_t cmdline, modules, memmap;
	uint32_t module_count, memmap_count;
	const char *text;
	size_t length = 0;

	if (!start) {
		ktap_note("DUMP pvh start_info: not readable; skipped");
		return;
	}
	dump_bytes("pvh", "start_info", boot_info.info_start, start, PVH_START_INFO_V1_SIZE);
	module_count = get_le32(start + PVH_NR_MODULES_OFFSET);
	modules = get_le64(start + PVH_MODLIST_OFFSET);
	cmdline = get_le64(start + PVH_CMDLINE_OFFSET);
	memmap = get_le64(start + PVH_MEMMAP_OFFSET);
	memmap_count = get_le32(start + PVH_MEMMAP_COUNT_OFFSET);
	if (cmdline) {
		/* Byte by byte: the line has no stated length and may end a page. */
		while (length < PVH_DUMP_MAX_CMDLINE &&
		       (text = physical_memory_map(&kernel_physical_memory, cmdline + length, 1)) &&
		       *text != '\0')
			length++;
		dump_physical("pvh", "cmdline", cmdline, length + 1);
	}
	if (modules && module_count)
		dump_physical("pvh", "modules", modules, PVH_MODULE_ENTRY_SIZE *
			      (module_count < PVH_DUMP_MAX_MODULES ? module_count : PVH_DUMP_MAX_MODULES));
	if (memmap && memmap_count)
		dump_physical("pvh", "memmap", memmap, PVH_MEMMAP_ENTRY_SIZE *
			      (memmap_count < PVH_DUMP_MAX_MEMMAP ? memmap_count : PVH_DUMP_MAX_MEMMAP));
}

void firmware_dump_boot_info(void)
{
	unsigned int dump = dump_mask;

	if ((dump & FIRMWARE_DUMP_MULTIBOOT) && boot_info.protocol == BOOT_PROTOCOL_MULTIBOOT2)
		dump_physical("multiboot2", "info", boot_info.info_start,
			      boot_info.info_end - boot_info.info_start);
	if ((dump & FIRMWARE_DUMP_PVH) && boot_info.protocol == BOOT_PROTOCOL_PVH)
		dump_pvh();
}

static void dump_acpi(void)
{
	const struct acpi_tables *tables = acpi_tables_get();
	const struct acpi_fadt *fadt = acpi_fadt_get();
	uint64_t rsdp_physical = boot_info.rsdp_address;
	const void *table;
	size_t cursor = 0;
	uint64_t address;
	uint32_t length;
	char name[5];

	if (!tables) {
		ktap_note("DUMP acpi: no usable ACPI tables; nothing dumped");
		return;
	}
	/* The boot loader's copy has no address of its own: 0 stands for it. */
	if (boot_info.has_rsdp_copy)
		dump_bytes("acpi", "RSDP", 0, boot_info.rsdp_copy, boot_info.rsdp_copy_length);
	else
		dump_physical("acpi", "RSDP", rsdp_physical, tables->rsdp.length);
	table = acpi_tables_map(tables, tables->root_address, NULL, &length);
	if (table)
		dump_bytes("acpi", tables->root.is_xsdt ? "XSDT" : "RSDT", tables->root_address,
			   table, length);
	while ((table = acpi_tables_next(tables, &cursor, &length, &address)) != NULL) {
		memcpy(name, table, 4);
		name[4] = '\0';
		dump_bytes("acpi", name, address, table, length);
	}
	if (fadt && fadt->dsdt_address &&
	    (table = acpi_tables_map(tables, fadt->dsdt_address, "DSDT", &length)) != NULL)
		dump_bytes("acpi", "DSDT", fadt->dsdt_address, table, length);
}

static struct mp_configuration dump_configuration;	/* 3 KiB: off the stack */

static void dump_mptable(void)
{
	struct mp_floating_pointer pointer;
	const uint8_t *header;
	size_t length;

	if (boot_info.efi_boot ||
	    mp_tables_find(&kernel_physical_memory, firmware_ebda_address(), firmware_base_memory_end(),
			   NULL, &pointer, &dump_configuration) != ACPI_OK) {
		ktap_note("DUMP mptable: no MP floating pointer found; nothing dumped");
		return;
	}
	/* The KiB that holds the pointer: the fuzz target searches it. */
	dump_physical("mptable", "area", pointer.physical & ~1023ull, 1024);
	if (!pointer.config_table_address)
		return;
	header = physical_memory_map(&kernel_physical_memory, pointer.config_table_address,
				     MP_CONFIG_HEADER_SIZE);
	if (!header)
		return;
	/* Base table length at offset 4, extended table length at 40 (MP spec 4.2). */
	length = (size_t)get_le16(header + 4) + get_le16(header + 40);
	dump_physical("mptable", "config", pointer.config_table_address, length);
}

void firmware_dump_tables(void)
{
	if (dump_mask & FIRMWARE_DUMP_ACPI)
		dump_acpi();
	if (dump_mask & FIRMWARE_DUMP_MPTABLE)
		dump_mptable();
}
