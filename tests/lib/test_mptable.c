// SPDX-License-Identifier: MIT
/*
 * Tests for kernel/lib/mptable.c: MP floating pointers and configuration
 * tables built by helper functions that compute the checksums, so that
 * each test breaks exactly one thing on purpose.
 *
 * What the pure parsers are given is copied to the very end of a static
 * array first, and the fake physical memory behind mp_tables_find() ends
 * each of its segments at the end of an array, so that under
 * AddressSanitizer a read past what was handed over is caught.
 */
#include <harness/test.h>

#include <lib/mptable.h>
#include <lib/string.h>

#include "fake_memory.h"

/* --- Messages --------------------------------------------------------------------- */

#define MAX_MESSAGES	32

static char messages[MAX_MESSAGES][ACPI_MESSAGE_SIZE];
static size_t message_count;		/* all calls, stored or not */
static size_t longest_message;

static void collect(void *context, const char *message)
{
	size_t length = strlen(message);

	if (length > longest_message)
		longest_message = length;
	if (message_count < MAX_MESSAGES)
		strlcpy(messages[message_count], message, sizeof(messages[0]));
	message_count++;
}

static const struct acpi_reporter reporter = { .report = collect, .context = NULL };

static void forget_messages(void)
{
	memset(messages, 0, sizeof(messages));
	message_count = 0;
	longest_message = 0;
}

static bool has_message(const char *needle)
{
	for (size_t i = 0; i < message_count && i < MAX_MESSAGES; i++) {
		if (text_contains(messages[i], needle))
			return true;
	}
	return false;
}

/* --- Building configuration tables ----------------------------------------------- */

#define TABLE_CAPACITY	8192

static uint8_t table[TABLE_CAPACITY];
static size_t table_length;		/* bytes of the base table built so far */
static size_t table_total;		/* base table plus extended table */
static uint16_t table_entries;
static uint8_t parse_tail[TABLE_CAPACITY];
static struct mp_configuration config;

/* A header with nothing after it yet; messages forgotten. */
static void table_begin(void)
{
	memset(table, 0, sizeof(table));
	memcpy(table, "PCMP", 4);
	table[6] = 4;				/* MP 1.4 */
	memcpy(table + 8, "TRIGOS  ", 8);
	memcpy(table + 16, "MPTEST 1    ", 12);
	put32(table + 36, 0xfee00000);
	table_length = MP_CONFIG_HEADER_SIZE;
	table_total = table_length;
	table_entries = 0;
	forget_messages();
}

static uint8_t *table_append(size_t size)
{
	uint8_t *entry = table + table_length;

	table_length += size;
	table_total = table_length;
	table_entries++;
	return entry;
}

static void add_processor(uint8_t apic_id, uint8_t flags)
{
	uint8_t *entry = table_append(MP_PROCESSOR_ENTRY_SIZE);

	entry[0] = MP_ENTRY_PROCESSOR;
	entry[1] = apic_id;
	entry[2] = 0x14;
	entry[3] = flags;
	put32(entry + 4, 0x663);		/* family 6, model 6, stepping 3 */
	put32(entry + 8, 0x0781abfd);
}

static void add_bus(uint8_t id, const char *type)
{
	uint8_t *entry = table_append(MP_SMALL_ENTRY_SIZE);

	entry[0] = MP_ENTRY_BUS;
	entry[1] = id;
	memcpy(entry + 2, type, 6);
}

static void add_io_apic(uint8_t id, uint8_t flags, uint32_t address)
{
	uint8_t *entry = table_append(MP_SMALL_ENTRY_SIZE);

	entry[0] = MP_ENTRY_IO_APIC;
	entry[1] = id;
	entry[2] = 0x11;
	entry[3] = flags;
	put32(entry + 4, address);
}

static void add_io_interrupt(uint8_t bus, uint8_t irq, uint8_t io_apic, uint8_t pin)
{
	uint8_t *entry = table_append(MP_SMALL_ENTRY_SIZE);

	entry[0] = MP_ENTRY_IO_INTERRUPT;
	entry[1] = 0;				/* INT */
	put16(entry + 2, 0);			/* conforms to the bus */
	entry[4] = bus;
	entry[5] = irq;
	entry[6] = io_apic;
	entry[7] = pin;
}

static void add_local_interrupt(uint8_t type, uint8_t lint)
{
	uint8_t *entry = table_append(MP_SMALL_ENTRY_SIZE);

	entry[0] = MP_ENTRY_LOCAL_INTERRUPT;
	entry[1] = type;
	put16(entry + 2, 0);
	entry[4] = 0;
	entry[5] = 0;
	entry[6] = 0xff;			/* all local APICs */
	entry[7] = lint;
}

/* 8 bytes of an entry type MP 1.4 does not define in the base table. */
static void add_unknown_entry(uint8_t type)
{
	uint8_t *entry = table_append(MP_SMALL_ENTRY_SIZE);

	memset(entry, 0x5a, MP_SMALL_ENTRY_SIZE);
	entry[0] = type;
}

/* The base table checksum over the length the header states. */
static void table_fix_checksum(void)
{
	size_t base = table[4] | (size_t)table[5] << 8;

	if (base > TABLE_CAPACITY)
		base = TABLE_CAPACITY;
	table[7] = 0;
	table[7] = (uint8_t)(0 - bytes_sum(table, base));
}

/* Length and entry count as built, then the checksum. */
static void table_finish(void)
{
	put16(table + 4, (uint16_t)table_length);
	put16(table + 34, table_entries);
	table_fix_checksum();
}

/* Append an extended table after the finished base table (4.2: EXTENDED TABLE LENGTH/CHECKSUM). */
static void table_add_extended(const uint8_t *bytes, size_t length, bool good_checksum)
{
	memcpy(table + table_length, bytes, length);
	table_total = table_length + length;
	put16(table + 40, (uint16_t)length);
	table[42] = (uint8_t)(0 - bytes_sum(bytes, length) + (good_checksum ? 0 : 1));
	table_fix_checksum();
}

/* A table as SeaBIOS builds them: 4 CPUs with IDs 0, 2, 5, 9; the one with ID 5 disabled. */
static void build_typical_table(void)
{
	table_begin();
	add_processor(0, MP_CPU_ENABLED | MP_CPU_BOOTSTRAP);
	add_processor(2, MP_CPU_ENABLED);
	add_processor(5, 0);
	add_processor(9, MP_CPU_ENABLED);
	add_bus(0, "PCI   ");
	add_bus(1, "ISA   ");
	add_io_apic(10, MP_IO_APIC_ENABLED, 0xfec00000);
	for (uint8_t irq = 0; irq < 16; irq++)
		add_io_interrupt(1, irq, 10, irq == 0 ? 2 : irq);
	add_local_interrupt(3, 0);		/* ExtINT on LINT0 */
	add_local_interrupt(1, 1);		/* NMI on LINT1 */
	table_finish();
}

/* Parse the first @available bytes of the table, placed at the very end of an array. */
static int parse_bytes(size_t available)
{
	const uint8_t *copy = copy_to_end(parse_tail, sizeof(parse_tail), table, available);

	return mp_config_table_parse(copy, available, &reporter, &config);
}

static int parse(void)
{
	return parse_bytes(table_total);
}

/* --- Floating pointers -------------------------------------------------------------- */

#define AREA_CAPACITY	2048

static uint8_t area[AREA_CAPACITY];
static uint8_t scan_tail[AREA_CAPACITY];
static struct mp_floating_pointer pointer;

static void put_floating_pointer(uint8_t *slot, uint32_t table_address, uint8_t feature1,
				 uint8_t feature2)
{
	memset(slot, 0, MP_FLOATING_POINTER_SIZE);
	memcpy(slot, "_MP_", 4);
	put32(slot + 4, table_address);
	slot[8] = 1;
	slot[9] = 4;
	slot[11] = feature1;
	slot[12] = feature2;
	slot[10] = (uint8_t)(0 - bytes_sum(slot, MP_FLOATING_POINTER_SIZE));
}

/* Scan the first @length bytes of area[], placed at the very end of an array. */
static int scan(size_t length, uint64_t physical)
{
	const uint8_t *copy = copy_to_end(scan_tail, sizeof(scan_tail), area, length);

	return mp_floating_pointer_scan(copy, length, physical, &pointer);
}

static void floating_pointer_in_first_slot_is_found(void)
{
	memset(area, 0, sizeof(area));
	put_floating_pointer(area, 0xf1000, 0, MP_FEATURE2_IMCR_PRESENT);
	ASSERT_EQ(scan(1024, 0x9fc00), ACPI_OK);
	EXPECT_EQ(pointer.physical, 0x9fc00);
	EXPECT_EQ(pointer.config_table_address, 0xf1000);
	EXPECT_EQ(pointer.spec_revision, 4);
	EXPECT_EQ(pointer.default_configuration, 0);
	EXPECT_TRUE(pointer.imcr_present);
	EXPECT_EQ(pointer.feature_bytes[1], MP_FEATURE2_IMCR_PRESENT);
}

static void floating_pointer_in_later_slot_is_found(void)
{
	memset(area, 0xff, sizeof(area));
	/* A signature off the 16-byte grid is not a candidate. */
	put_floating_pointer(area + 0x104, 0x1111, 0, 0);
	put_floating_pointer(area + 0x3f0, 0xf5a50, 0, 0);
	ASSERT_EQ(scan(1024, 0xf0000), ACPI_OK);
	EXPECT_EQ(pointer.physical, 0xf03f0);
	EXPECT_EQ(pointer.config_table_address, 0xf5a50);
	EXPECT_FALSE(pointer.imcr_present);
}

static void floating_pointer_with_bad_checksum_is_rejected(void)
{
	memset(area, 0, sizeof(area));
	put_floating_pointer(area + 0x20, 0xf1000, 0, 0);
	area[0x20 + 4] ^= 0x01;			/* address changed, checksum not */
	EXPECT_EQ(scan(1024, 0xf0000), ACPI_ERROR_BAD_CHECKSUM);
	EXPECT_EQ(pointer.physical, 0);
	EXPECT_EQ(pointer.config_table_address, 0);

	/* ...and a valid one after it is still found. */
	put_floating_pointer(area + 0x80, 0xf2000, 0, 0);
	ASSERT_EQ(scan(1024, 0xf0000), ACPI_OK);
	EXPECT_EQ(pointer.physical, 0xf0080);
	EXPECT_EQ(pointer.config_table_address, 0xf2000);
}

static void floating_pointer_with_bad_length_is_rejected(void)
{
	memset(area, 0, sizeof(area));
	for (unsigned int length = 0; length < 4; length++) {
		if (length == 1)
			continue;
		put_floating_pointer(area, 0xf1000, 0, 0);
		/* Change LENGTH and repair the checksum, so only the length is wrong. */
		area[8] = (uint8_t)length;
		area[10] = 0;
		area[10] = (uint8_t)(0 - bytes_sum(area, MP_FLOATING_POINTER_SIZE));
		EXPECT_EQ(scan(64, 0xf0000), ACPI_ERROR_BAD_LENGTH);
	}
	/* The first rejection is what is returned when nothing valid follows. */
	put_floating_pointer(area + 0x10, 0xf1000, 0, 0);
	area[0x10 + 10] ^= 0xff;
	EXPECT_EQ(scan(64, 0xf0000), ACPI_ERROR_BAD_LENGTH);
}

static void floating_pointer_for_default_configuration(void)
{
	memset(area, 0, sizeof(area));
	put_floating_pointer(area + 0x10, 0, 5, 0);
	ASSERT_EQ(scan(1024, 0xf0000), ACPI_OK);
	EXPECT_EQ(pointer.default_configuration, 5);
	EXPECT_EQ(pointer.config_table_address, 0);
	EXPECT_EQ(pointer.feature_bytes[0], 5);
}

static void scan_area_not_a_multiple_of_16(void)
{
	memset(area, 0, sizeof(area));
	put_floating_pointer(area + 32, 0xf1000, 0, 0);
	/* The structure's last byte is the area's last: found. */
	EXPECT_EQ(scan(48, 0xf0000), ACPI_OK);
	EXPECT_EQ(pointer.physical, 0xf0020);
	/* One byte short: that slot is partial and is not read (ASan would see). */
	EXPECT_EQ(scan(47, 0xf0000), ACPI_ERROR_NOT_FOUND);
	EXPECT_EQ(scan(33, 0xf0000), ACPI_ERROR_NOT_FOUND);
	/* A signature in a partial trailing slot is not found either. */
	EXPECT_EQ(scan(36, 0xf0000), ACPI_ERROR_NOT_FOUND);
	EXPECT_EQ(scan(15, 0xf0000), ACPI_ERROR_NOT_FOUND);
}

static void scan_starts_at_physical_16_byte_boundary(void)
{
	memset(area, 0, sizeof(area));
	/* area[0] is at physical 0xf0008: slots start at area + 8. */
	put_floating_pointer(area, 0xf1000, 0, 0);
	EXPECT_EQ(scan(64, 0xf0008), ACPI_ERROR_NOT_FOUND);
	put_floating_pointer(area + 8, 0xf1000, 0, 0);
	ASSERT_EQ(scan(64, 0xf0008), ACPI_OK);
	EXPECT_EQ(pointer.physical, 0xf0010);
	/* With 8 bytes before the first boundary, 23 bytes hold no whole slot. */
	EXPECT_EQ(scan(23, 0xf0008), ACPI_ERROR_NOT_FOUND);
	EXPECT_EQ(scan(24, 0xf0008), ACPI_OK);
}

static void scan_zero_length_area(void)
{
	memset(area, 0, sizeof(area));
	put_floating_pointer(area, 0xf1000, 0, 0);
	EXPECT_EQ(scan(0, 0xf0000), ACPI_ERROR_NOT_FOUND);
	EXPECT_EQ(mp_floating_pointer_scan(area, 0, 0xf0000, &pointer), ACPI_ERROR_NOT_FOUND);
}

static void scan_rejects_bad_arguments(void)
{
	memset(area, 0, sizeof(area));
	put_floating_pointer(area, 0xf1000, 0, 0);
	EXPECT_EQ(mp_floating_pointer_scan(NULL, 16, 0xf0000, &pointer),
		  ACPI_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(mp_floating_pointer_scan(area, 16, 0xf0000, NULL), ACPI_ERROR_INVALID_ARGUMENT);
	/* An area that would wrap around the address space. */
	EXPECT_EQ(mp_floating_pointer_scan(area, 32, UINT64_MAX - 15, &pointer),
		  ACPI_ERROR_INVALID_ARGUMENT);
	/* Ending exactly at the top is fine. */
	EXPECT_EQ(mp_floating_pointer_scan(area, 16, UINT64_MAX - 15, &pointer), ACPI_OK);
	EXPECT_EQ(pointer.physical, UINT64_MAX - 15);
}

/* --- Configuration tables ------------------------------------------------------------- */

static void typical_table_is_decoded(void)
{
	build_typical_table();
	ASSERT_EQ(parse(), ACPI_OK);
	EXPECT_EQ(message_count, 0);
	EXPECT_EQ(config.default_configuration, 0);
	EXPECT_EQ(config.spec_revision, 4);
	EXPECT_STREQ(config.oem_id, "TRIGOS");
	EXPECT_STREQ(config.product_id, "MPTEST 1");
	EXPECT_EQ(config.base_table_length, table_length);
	EXPECT_EQ(config.entry_count, 4 + 2 + 1 + 16 + 2);
	EXPECT_EQ(config.entries_walked, config.entry_count);
	EXPECT_FALSE(config.walk_stopped);
	EXPECT_EQ(config.trailing_bytes, 0);
	EXPECT_EQ(config.local_apic_address, 0xfee00000);
	EXPECT_EQ(config.extended_table_length, 0);
	EXPECT_FALSE(config.extended_table_checked);

	ASSERT_EQ(config.cpu_count, 4);
	EXPECT_EQ(config.cpus[0].apic_id, 0);
	EXPECT_EQ(config.cpus[1].apic_id, 2);
	EXPECT_EQ(config.cpus[2].apic_id, 5);
	EXPECT_EQ(config.cpus[3].apic_id, 9);
	EXPECT_EQ(config.cpus[3].apic_version, 0x14);
	EXPECT_EQ(config.cpus[3].signature, 0x663);
	EXPECT_EQ(config.cpus[3].features, 0x0781abfd);
	EXPECT_EQ(config.cpus_beyond_capacity, 0);
	EXPECT_EQ(config.duplicate_apic_ids, 0);
	EXPECT_EQ(config.bootstrap_cpus, 1);

	ASSERT_EQ(config.io_apic_count, 1);
	EXPECT_EQ(config.io_apics[0].id, 10);
	EXPECT_EQ(config.io_apics[0].version, 0x11);
	EXPECT_TRUE(config.io_apics[0].enabled);
	EXPECT_EQ(config.io_apics[0].address, 0xfec00000);

	EXPECT_EQ(config.bus_entries, 2);
	EXPECT_EQ(config.io_interrupt_entries, 16);
	EXPECT_EQ(config.local_interrupt_entries, 2);
}

static void disabled_cpu_is_kept_and_marked(void)
{
	build_typical_table();
	ASSERT_EQ(parse(), ACPI_OK);
	ASSERT_EQ(config.cpu_count, 4);
	EXPECT_TRUE(config.cpus[0].enabled);
	EXPECT_TRUE(config.cpus[1].enabled);
	EXPECT_FALSE(config.cpus[2].enabled);
	EXPECT_EQ(config.cpus[2].apic_id, 5);
	EXPECT_TRUE(config.cpus[3].enabled);
}

static void bootstrap_flag_is_decoded(void)
{
	table_begin();
	add_processor(3, MP_CPU_ENABLED);
	add_processor(7, MP_CPU_ENABLED | MP_CPU_BOOTSTRAP);
	table_finish();
	ASSERT_EQ(parse(), ACPI_OK);
	ASSERT_EQ(config.cpu_count, 2);
	EXPECT_FALSE(config.cpus[0].bootstrap);
	EXPECT_TRUE(config.cpus[1].bootstrap);
	EXPECT_EQ(config.bootstrap_cpus, 1);
	EXPECT_EQ(message_count, 0);
}

static void bootstrap_count_other_than_one_is_reported(void)
{
	table_begin();
	add_processor(0, MP_CPU_ENABLED);
	add_processor(1, MP_CPU_ENABLED);
	table_finish();
	ASSERT_EQ(parse(), ACPI_OK);
	EXPECT_EQ(config.bootstrap_cpus, 0);
	EXPECT_TRUE(has_message("0 processor entries have the BP flag"));

	table_begin();
	add_processor(0, MP_CPU_ENABLED | MP_CPU_BOOTSTRAP);
	add_processor(1, MP_CPU_ENABLED | MP_CPU_BOOTSTRAP);
	table_finish();
	ASSERT_EQ(parse(), ACPI_OK);
	EXPECT_EQ(config.bootstrap_cpus, 2);
	EXPECT_TRUE(config.cpus[0].bootstrap && config.cpus[1].bootstrap);
	EXPECT_TRUE(has_message("2 processor entries have the BP flag"));

	table_begin();
	add_processor(4, MP_CPU_BOOTSTRAP);
	table_finish();
	ASSERT_EQ(parse(), ACPI_OK);
	EXPECT_TRUE(has_message("bootstrap processor (APIC ID 4) is marked disabled"));

	table_begin();
	add_bus(0, "ISA   ");
	table_finish();
	ASSERT_EQ(parse(), ACPI_OK);
	EXPECT_EQ(config.cpu_count, 0);
	EXPECT_TRUE(has_message("lists no processors"));
}

static void bad_checksum_is_rejected(void)
{
	build_typical_table();
	table[7] ^= 0x40;
	EXPECT_EQ(parse(), ACPI_ERROR_BAD_CHECKSUM);
	EXPECT_TRUE(has_message("bad checksum"));
	EXPECT_EQ(config.cpu_count, 0);
	EXPECT_EQ(config.base_table_length, 0);

	/* A byte in the last entry changed: still covered by the checksum. */
	build_typical_table();
	table[table_length - 1] ^= 0x01;
	EXPECT_EQ(parse(), ACPI_ERROR_BAD_CHECKSUM);
}

static void bad_signature_is_rejected(void)
{
	build_typical_table();
	memcpy(table, "PCMQ", 4);
	table_fix_checksum();
	EXPECT_EQ(parse(), ACPI_ERROR_BAD_SIGNATURE);
	EXPECT_TRUE(has_message("signature"));
	memcpy(table, "_MP_", 4);
	table_fix_checksum();
	EXPECT_EQ(parse(), ACPI_ERROR_BAD_SIGNATURE);
}

static void truncated_table_is_rejected(void)
{
	build_typical_table();
	/* Every length short of the base table: rejected, never read past. */
	for (size_t available = 0; available < table_length; available++) {
		forget_messages();
		EXPECT_EQ(parse_bytes(available), ACPI_ERROR_TRUNCATED);
		EXPECT_EQ(message_count, 1);
	}
	forget_messages();
	EXPECT_EQ(parse_bytes(43), ACPI_ERROR_TRUNCATED);
	EXPECT_TRUE(has_message("only 43 bytes readable"));
	forget_messages();
	EXPECT_EQ(parse_bytes(table_length - 1), ACPI_ERROR_TRUNCATED);
	EXPECT_TRUE(has_message("but only"));
	EXPECT_EQ(config.cpu_count, 0);
	EXPECT_EQ(parse_bytes(table_length), ACPI_OK);
	EXPECT_EQ(config.cpu_count, 4);
}

static void implausible_base_length_is_rejected(void)
{
	build_typical_table();
	put16(table + 4, 43);
	table_fix_checksum();
	EXPECT_EQ(parse(), ACPI_ERROR_BAD_LENGTH);
	EXPECT_TRUE(has_message("shorter than its 44-byte header"));
	put16(table + 4, 0);
	EXPECT_EQ(parse(), ACPI_ERROR_BAD_LENGTH);

	/* A length beyond what is readable, whatever the checksum. */
	build_typical_table();
	put16(table + 4, 0xffff);
	EXPECT_EQ(parse(), ACPI_ERROR_TRUNCATED);
	EXPECT_TRUE(has_message("base table length 65535"));
}

static void header_only_table_is_valid_and_empty(void)
{
	table_begin();
	table_finish();
	ASSERT_EQ(parse(), ACPI_OK);
	EXPECT_EQ(config.entry_count, 0);
	EXPECT_EQ(config.entries_walked, 0);
	EXPECT_EQ(config.cpu_count, 0);
	EXPECT_FALSE(config.walk_stopped);
}

static void entry_count_larger_than_table_stops_walk(void)
{
	build_typical_table();
	put16(table + 34, 200);
	table_fix_checksum();
	ASSERT_EQ(parse(), ACPI_OK);
	EXPECT_TRUE(config.walk_stopped);
	EXPECT_EQ(config.entry_count, 200);
	EXPECT_EQ(config.entries_walked, 25);
	EXPECT_EQ(config.cpu_count, 4);
	EXPECT_TRUE(has_message("entry count 200, but the table ends after 25 entries"));

	/* The base length cuts the last processor entry in two. */
	table_begin();
	add_processor(0, MP_CPU_ENABLED | MP_CPU_BOOTSTRAP);
	add_processor(1, MP_CPU_ENABLED);
	table_finish();
	put16(table + 4, (uint16_t)(table_length - 12));
	table_fix_checksum();
	ASSERT_EQ(parse_bytes(table_length - 12), ACPI_OK);
	EXPECT_TRUE(config.walk_stopped);
	EXPECT_EQ(config.entries_walked, 1);
	EXPECT_EQ(config.cpu_count, 1);
	EXPECT_TRUE(has_message("runs past the 72-byte table"));
}

static void entry_count_smaller_than_table_leaves_trailing_bytes(void)
{
	build_typical_table();
	put16(table + 34, 3);
	table_fix_checksum();
	ASSERT_EQ(parse(), ACPI_OK);
	EXPECT_FALSE(config.walk_stopped);
	EXPECT_EQ(config.entries_walked, 3);
	EXPECT_EQ(config.cpu_count, 3);
	EXPECT_EQ(config.io_apic_count, 0);
	EXPECT_EQ(config.trailing_bytes, table_length - MP_CONFIG_HEADER_SIZE - 3 * 20);
	EXPECT_TRUE(has_message("bytes after the last of 3 entries ignored"));
}

static void unknown_entry_type_stops_walk(void)
{
	table_begin();
	add_processor(0, MP_CPU_ENABLED | MP_CPU_BOOTSTRAP);
	add_bus(0, "ISA   ");
	add_unknown_entry(0x80);		/* an extended entry type in the base table */
	add_processor(1, MP_CPU_ENABLED);
	table_finish();
	ASSERT_EQ(parse(), ACPI_OK);
	EXPECT_TRUE(config.walk_stopped);
	EXPECT_EQ(config.entries_walked, 2);
	EXPECT_EQ(config.cpu_count, 1);
	EXPECT_EQ(config.bus_entries, 1);
	EXPECT_TRUE(has_message("entry 2 at offset 72 has unknown type 128; walk stopped"));

	table_begin();
	add_unknown_entry(5);
	table_finish();
	ASSERT_EQ(parse(), ACPI_OK);
	EXPECT_TRUE(config.walk_stopped);
	EXPECT_EQ(config.entries_walked, 0);
	EXPECT_TRUE(has_message("unknown type 5"));
}

static void more_cpus_than_capacity_are_counted(void)
{
	/* 300 entries, IDs 0-255 then 0-43 again: 44 beyond capacity, 44 repeats. */
	table_begin();
	for (unsigned int i = 0; i < 300; i++)
		add_processor((uint8_t)i, MP_CPU_ENABLED | (i == 0 ? MP_CPU_BOOTSTRAP : 0));
	table_finish();
	ASSERT_LE(table_length, TABLE_CAPACITY);
	ASSERT_EQ(parse(), ACPI_OK);
	EXPECT_EQ(config.entries_walked, 300);
	EXPECT_EQ(config.cpu_count, MP_MAX_CPUS);
	EXPECT_EQ(config.cpus_beyond_capacity, 44);
	EXPECT_EQ(config.cpus[255].apic_id, 255);
	EXPECT_EQ(config.duplicate_apic_ids, 44);
	EXPECT_EQ(config.bootstrap_cpus, 1);
	EXPECT_TRUE(has_message("300 processors listed, only 256 supported"));
	/* Repeats beyond the first few are counted, not each reported. */
	EXPECT_LE(message_count, MP_MAX_DUPLICATE_REPORTS + 2);
	EXPECT_TRUE(has_message("further duplicate APIC IDs only counted"));
}

static void duplicate_apic_ids_are_reported_and_kept(void)
{
	table_begin();
	add_processor(0, MP_CPU_ENABLED | MP_CPU_BOOTSTRAP);
	add_processor(3, MP_CPU_ENABLED);
	add_processor(3, MP_CPU_ENABLED);
	add_processor(1, MP_CPU_ENABLED);
	table_finish();
	ASSERT_EQ(parse(), ACPI_OK);
	EXPECT_EQ(config.cpu_count, 4);
	EXPECT_EQ(config.duplicate_apic_ids, 1);
	EXPECT_EQ(config.cpus[2].apic_id, 3);
	EXPECT_TRUE(has_message("entry 2: APIC ID 3 listed again"));
	EXPECT_EQ(message_count, 1);
}

static void io_apics_beyond_capacity_are_counted(void)
{
	table_begin();
	add_processor(0, MP_CPU_ENABLED | MP_CPU_BOOTSTRAP);
	for (unsigned int i = 0; i < MP_MAX_IO_APICS + 3; i++)
		add_io_apic((uint8_t)(i + 1), i == 1 ? 0 : MP_IO_APIC_ENABLED,
			    0xfec00000u + i * 0x1000u);
	table_finish();
	ASSERT_EQ(parse(), ACPI_OK);
	EXPECT_EQ(config.io_apic_count, MP_MAX_IO_APICS);
	EXPECT_EQ(config.io_apics_beyond_capacity, 3);
	EXPECT_FALSE(config.io_apics[1].enabled);
	EXPECT_EQ(config.io_apics[15].address, 0xfec0f000);
	EXPECT_TRUE(has_message("19 I/O APICs listed, only 16 supported"));
}

static void extended_table_checksum_is_verified(void)
{
	/* A bus hierarchy descriptor (type 129, length 8). */
	static const uint8_t extended[] = { 129, 8, 2, 1, 0, 0, 0, 0 };

	build_typical_table();
	table_add_extended(extended, sizeof(extended), true);
	ASSERT_EQ(parse(), ACPI_OK);
	EXPECT_EQ(config.extended_table_length, 8);
	EXPECT_TRUE(config.extended_table_checked);
	EXPECT_TRUE(config.extended_table_valid);
	EXPECT_EQ(message_count, 0);
	/* Given only the base table, the extended one cannot be checked. */
	ASSERT_EQ(parse_bytes(table_length + 7), ACPI_OK);
	EXPECT_FALSE(config.extended_table_checked);
	EXPECT_EQ(config.cpu_count, 4);

	build_typical_table();
	table_add_extended(extended, sizeof(extended), false);
	forget_messages();
	ASSERT_EQ(parse(), ACPI_OK);
	EXPECT_TRUE(config.extended_table_checked);
	EXPECT_FALSE(config.extended_table_valid);
	EXPECT_TRUE(has_message("extended table (8 bytes) has a bad checksum"));
}

static void id_strings_are_made_printable(void)
{
	build_typical_table();
	memcpy(table + 8, "A\x01" "B\x7f    ", 8);
	memcpy(table + 16, "\xff" "PRODUCTNAME", 12);
	table_fix_checksum();
	ASSERT_EQ(parse(), ACPI_OK);
	EXPECT_STREQ(config.oem_id, "A?B?");
	EXPECT_STREQ(config.product_id, "?PRODUCTNAME");
	memset(table + 8, ' ', 8);
	table_fix_checksum();
	ASSERT_EQ(parse(), ACPI_OK);
	EXPECT_STREQ(config.oem_id, "");
}

static void config_parse_rejects_bad_arguments(void)
{
	build_typical_table();
	EXPECT_EQ(mp_config_table_parse(table, table_length, &reporter, NULL),
		  ACPI_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(mp_config_table_parse(NULL, table_length, &reporter, &config),
		  ACPI_ERROR_INVALID_ARGUMENT);
	/* A NULL reporter, or one without a function, is silent. */
	EXPECT_EQ(mp_config_table_parse(table, table_length, NULL, &config), ACPI_OK);
	{
		const struct acpi_reporter mute = { .report = NULL, .context = NULL };

		table[7] ^= 1;
		EXPECT_EQ(mp_config_table_parse(table, table_length, &mute, &config),
			  ACPI_ERROR_BAD_CHECKSUM);
	}
}

/*
 * Random entries after a valid header, checksum fixed: whatever they say,
 * the parse stays inside the table (ASan) and its counts add up.
 */
static void random_tables_stay_in_bounds(void)
{
	for (unsigned int round = 0; round < 2000; round++) {
		size_t length = MP_CONFIG_HEADER_SIZE + (size_t)(test_random() % 400);
		size_t counted;

		table_begin();
		for (size_t i = MP_CONFIG_HEADER_SIZE; i < length; i++) {
			uint64_t r = test_random();

			/* Mostly small type numbers, so that entries do get decoded. */
			table[i] = (uint8_t)((r & 0x300) ? r % 6 : r >> 16);
		}
		table_length = length;
		table_total = length;
		put16(table + 4, (uint16_t)length);
		put16(table + 34, (uint16_t)(test_random() % 64));
		if (test_random() % 4 == 0) {
			put16(table + 40, (uint16_t)(test_random() % 64));
			table_total = length + (size_t)(test_random() % 80);
		}
		table_fix_checksum();
		ASSERT_EQ(parse(), ACPI_OK);
		counted = config.cpu_count + config.cpus_beyond_capacity + config.io_apic_count +
			  config.io_apics_beyond_capacity + config.bus_entries +
			  config.io_interrupt_entries + config.local_interrupt_entries;
		ASSERT_EQ(counted, config.entries_walked);
		ASSERT_LE(config.entries_walked, config.entry_count);
		ASSERT_TRUE(config.walk_stopped || config.entries_walked == config.entry_count);
		ASSERT_LT(longest_message, ACPI_MESSAGE_SIZE);
	}
}

/* Random areas with planted signatures: the scan never reads past the area. */
static void random_areas_stay_in_bounds(void)
{
	for (unsigned int round = 0; round < 500; round++) {
		size_t length = (size_t)(test_random() % 300);
		uint64_t physical = 0xf0000 + test_random() % 32;
		int error;

		for (size_t i = 0; i < length; i++)
			area[i] = (uint8_t)test_random();
		for (size_t i = 0; i + 4 <= length; i += 1 + test_random() % 24)
			memcpy(area + i, "_MP_", 4);
		error = scan(length, physical);
		ASSERT_TRUE(error == ACPI_OK || error == ACPI_ERROR_NOT_FOUND ||
			    error == ACPI_ERROR_BAD_LENGTH || error == ACPI_ERROR_BAD_CHECKSUM);
		if (error == ACPI_OK) {
			ASSERT_EQ(pointer.physical % 16, 0);
			ASSERT_GE(pointer.physical, physical);
			ASSERT_LE(pointer.physical + 16, physical + length);
		}
	}
}

/* --- Default configurations ------------------------------------------------------------ */

static void default_configurations_are_filled_in(void)
{
	for (uint8_t type = 1; type <= 7; type++) {
		ASSERT_EQ(mp_default_configuration(type, &config), ACPI_OK);
		EXPECT_EQ(config.default_configuration, type);
		EXPECT_EQ(config.local_apic_address, 0xfee00000);
		ASSERT_EQ(config.cpu_count, 2);
		EXPECT_EQ(config.cpus[0].apic_id, 0);
		EXPECT_EQ(config.cpus[1].apic_id, 1);
		EXPECT_TRUE(config.cpus[0].enabled && config.cpus[1].enabled);
		EXPECT_FALSE(config.cpus[0].bootstrap || config.cpus[1].bootstrap);
		EXPECT_EQ(config.bootstrap_cpus, 0);
		EXPECT_EQ(config.cpus[0].apic_version, type <= 4 ? 0x01 : 0x10);
		ASSERT_EQ(config.io_apic_count, 1);
		EXPECT_EQ(config.io_apics[0].address, 0xfec00000);
		EXPECT_EQ(config.io_apics[0].id, 2);
		EXPECT_TRUE(config.io_apics[0].enabled);
		EXPECT_EQ(config.duplicate_apic_ids, 0);
		EXPECT_STRNE(mp_default_configuration_name(type), "undefined");
	}
	EXPECT_STREQ(mp_default_configuration_name(5), "ISA + PCI, integrated APICs");
}

static void undefined_default_configurations_are_rejected(void)
{
	EXPECT_EQ(mp_default_configuration(0, &config), ACPI_ERROR_MALFORMED);
	EXPECT_EQ(config.cpu_count, 0);
	EXPECT_EQ(mp_default_configuration(8, &config), ACPI_ERROR_MALFORMED);
	EXPECT_EQ(mp_default_configuration(255, &config), ACPI_ERROR_MALFORMED);
	EXPECT_EQ(mp_default_configuration(1, NULL), ACPI_ERROR_INVALID_ARGUMENT);
	EXPECT_STREQ(mp_default_configuration_name(0), "none");
	EXPECT_STREQ(mp_default_configuration_name(8), "undefined");
}

/* --- Through physical memory ------------------------------------------------------------ */

#define LOW_BASE	0x9f000ull	/* EBDA and the last KiB of base memory */
#define ROM_BASE	0xf0000ull
#define HIGH_BASE	0x7fe0000ull	/* somewhere a table might be, above 1 MiB */

static uint8_t low_memory[0x1000];
static uint8_t bios_rom[0x10000];
static uint8_t high_memory[0x2000];

struct segment {
	uint64_t base;
	uint8_t *bytes;
	size_t size;
	bool refused;			/* pretend it is not mapped */
};

static struct segment segments[] = {
	{ LOW_BASE, low_memory, sizeof(low_memory), false },
	{ ROM_BASE, bios_rom, sizeof(bios_rom), false },
	{ HIGH_BASE, high_memory, sizeof(high_memory), false },
};

struct map_log {
	size_t calls;
	size_t refused;
};

static struct map_log map_log;

static const void *fake_map(uint64_t physical, size_t length, void *context)
{
	struct map_log *recorded = context;

	recorded->calls++;
	for (size_t i = 0; i < sizeof(segments) / sizeof(segments[0]); i++) {
		const struct segment *segment = &segments[i];
		const void *window = fake_memory_window(segment->bytes, segment->size,
							segment->base, physical, length);

		if (!window)
			continue;
		if (segment->refused)
			break;
		return window;
	}
	recorded->refused++;
	return NULL;
}

static const struct physical_memory_access memory = { .map = fake_map, .context = &map_log };

static uint8_t *at(uint64_t physical)
{
	for (size_t i = 0; i < sizeof(segments) / sizeof(segments[0]); i++) {
		if (physical >= segments[i].base && physical - segments[i].base < segments[i].size)
			return segments[i].bytes + (physical - segments[i].base);
	}
	return NULL;
}

static void memory_begin(void)
{
	memset(low_memory, 0, sizeof(low_memory));
	memset(bios_rom, 0, sizeof(bios_rom));
	memset(high_memory, 0, sizeof(high_memory));
	for (size_t i = 0; i < sizeof(segments) / sizeof(segments[0]); i++)
		segments[i].refused = false;
	memset(&map_log, 0, sizeof(map_log));
	memset(&pointer, 0xaa, sizeof(pointer));
	forget_messages();
}

/* Put the table built in table[] (base and extended) at @physical. */
static void place_table(uint64_t physical)
{
	uint8_t *destination = at(physical);

	memcpy(destination, table, table_total);
}

#define EBDA		0x9fc00ull
#define BASE_END	0x9fc00ull	/* 639 KiB: its last KiB is 0x9f800-0x9fbff */

static int find(void)
{
	forget_messages();
	return mp_tables_find(&memory, EBDA, BASE_END, &reporter, &pointer, &config);
}

static void find_in_ebda_with_table_in_rom(void)
{
	memory_begin();
	build_typical_table();
	place_table(0xf1000);
	put_floating_pointer(at(EBDA + 0x10), 0xf1000, 0, 0);
	ASSERT_EQ(find(), ACPI_OK);
	EXPECT_EQ(message_count, 0);
	EXPECT_EQ(pointer.physical, EBDA + 0x10);
	EXPECT_EQ(pointer.config_table_address, 0xf1000);
	EXPECT_EQ(config.cpu_count, 4);
	EXPECT_EQ(config.cpus[3].apic_id, 9);
	EXPECT_EQ(config.io_apic_count, 1);
	EXPECT_EQ(config.default_configuration, 0);
	/* EBDA, then the header, then the table: nothing else mapped. */
	EXPECT_EQ(map_log.calls, 3);
	EXPECT_EQ(map_log.refused, 0);
}

static void find_in_last_kib_of_base_memory(void)
{
	memory_begin();
	build_typical_table();
	place_table(HIGH_BASE);
	put_floating_pointer(at(BASE_END - 16), (uint32_t)HIGH_BASE, 0, 0);
	ASSERT_EQ(find(), ACPI_OK);
	EXPECT_EQ(pointer.physical, BASE_END - 16);
	EXPECT_EQ(config.cpu_count, 4);

	/* With the EBDA unknown as well. */
	ASSERT_EQ(mp_tables_find(&memory, 0, BASE_END, &reporter, &pointer, &config), ACPI_OK);
	EXPECT_EQ(pointer.physical, BASE_END - 16);
}

static void find_in_bios_rom(void)
{
	memory_begin();
	build_typical_table();
	place_table(0xf5a50);
	put_floating_pointer(at(0xffff0), 0xf5a50, 0, 0);
	ASSERT_EQ(find(), ACPI_OK);
	EXPECT_EQ(pointer.physical, 0xffff0);
	EXPECT_EQ(config.cpu_count, 4);
	EXPECT_EQ(message_count, 0);
}

static void find_defaults_base_memory_to_640k(void)
{
	memory_begin();
	build_typical_table();
	place_table(0xf1000);
	put_floating_pointer(at(0x9fc00), 0xf1000, 0, 0);
	ASSERT_EQ(mp_tables_find(&memory, 0, 0, &reporter, &pointer, &config), ACPI_OK);
	EXPECT_EQ(pointer.physical, 0x9fc00);
}

static void find_searches_a_shared_kib_once(void)
{
	memory_begin();
	/* EBDA at 639 KiB with 640 KiB of base memory: one KiB, searched once. */
	EXPECT_EQ(mp_tables_find(&memory, 0x9fc00, 0xa0000, &reporter, &pointer, &config),
		  ACPI_ERROR_NOT_FOUND);
	EXPECT_EQ(map_log.calls, 2);
}

static void find_nothing(void)
{
	memory_begin();
	EXPECT_EQ(find(), ACPI_ERROR_NOT_FOUND);
	EXPECT_TRUE(has_message("no valid floating pointer structure found"));
	EXPECT_EQ(map_log.calls, 3);
	EXPECT_EQ(pointer.physical, 0);
	EXPECT_EQ(config.cpu_count, 0);
}

static void find_skips_unmapped_area(void)
{
	memory_begin();
	build_typical_table();
	place_table(0xf1000);
	put_floating_pointer(at(0xf0000), 0xf1000, 0, 0);
	segments[0].refused = true;
	ASSERT_EQ(find(), ACPI_OK);
	EXPECT_EQ(pointer.physical, 0xf0000);
	EXPECT_TRUE(has_message("EBDA (0x9fc00, 1024 bytes) not mapped"));
	EXPECT_TRUE(has_message("last KiB of base memory (0x9f800, 1024 bytes) not mapped"));
	EXPECT_EQ(config.cpu_count, 4);
}

static void find_goes_on_after_rejected_candidate(void)
{
	memory_begin();
	build_typical_table();
	place_table(0xf1000);
	put_floating_pointer(at(EBDA), 0xdead000, 0, 0);
	at(EBDA)[10] ^= 0x10;
	put_floating_pointer(at(0xf8000), 0xf1000, 0, 0);
	ASSERT_EQ(find(), ACPI_OK);
	EXPECT_EQ(pointer.physical, 0xf8000);
	EXPECT_TRUE(has_message("EBDA: floating pointer candidate rejected: bad checksum"));
	EXPECT_EQ(config.cpu_count, 4);
}

static void find_default_configuration(void)
{
	memory_begin();
	put_floating_pointer(at(EBDA), 0, 6, 0);
	ASSERT_EQ(find(), ACPI_OK);
	EXPECT_EQ(pointer.default_configuration, 6);
	EXPECT_EQ(config.default_configuration, 6);
	ASSERT_EQ(config.cpu_count, 2);
	EXPECT_EQ(config.cpus[0].apic_id, 0);
	EXPECT_EQ(config.cpus[1].apic_id, 1);
	EXPECT_EQ(config.io_apics[0].address, 0xfec00000);
	EXPECT_TRUE(has_message("default configuration 6 (EISA + PCI, integrated APICs)"));
	EXPECT_EQ(map_log.calls, 1);		/* no table to map */

	/* 5: the table address must then be zero; if not, it is ignored. */
	memory_begin();
	put_floating_pointer(at(EBDA), 0xf1000, 1, 0);
	ASSERT_EQ(find(), ACPI_OK);
	EXPECT_EQ(config.default_configuration, 1);
	EXPECT_EQ(config.cpus[0].apic_version, 0x01);
	EXPECT_TRUE(has_message("table address 0xf1000; address ignored"));
	EXPECT_EQ(map_log.calls, 1);
}

static void find_undefined_default_configuration(void)
{
	memory_begin();
	put_floating_pointer(at(EBDA), 0, 9, 0);
	EXPECT_EQ(find(), ACPI_ERROR_MALFORMED);
	EXPECT_EQ(pointer.default_configuration, 9);
	EXPECT_EQ(config.cpu_count, 0);
	EXPECT_TRUE(has_message("default configuration 9 is not defined"));
}

static void find_pointer_without_table(void)
{
	memory_begin();
	put_floating_pointer(at(EBDA), 0, 0, 0);
	EXPECT_EQ(find(), ACPI_ERROR_MALFORMED);
	EXPECT_TRUE(has_message("names neither a table nor a default configuration"));
}

static void find_table_unmapped(void)
{
	memory_begin();
	put_floating_pointer(at(EBDA), 0x12345000, 0, 0);
	EXPECT_EQ(find(), ACPI_ERROR_UNMAPPED);
	EXPECT_EQ(pointer.config_table_address, 0x12345000);
	EXPECT_TRUE(has_message("header at 0x12345000 not mapped"));
	EXPECT_EQ(config.cpu_count, 0);
}

static void find_table_running_past_mapped_memory(void)
{
	const uint64_t end = HIGH_BASE + sizeof(high_memory);

	/* The header fits at the end of the segment; the entries would not. */
	memory_begin();
	build_typical_table();
	table_total = MP_CONFIG_HEADER_SIZE;
	place_table(end - MP_CONFIG_HEADER_SIZE);
	put_floating_pointer(at(EBDA), (uint32_t)(end - MP_CONFIG_HEADER_SIZE), 0, 0);
	EXPECT_EQ(find(), ACPI_ERROR_TRUNCATED);
	EXPECT_TRUE(has_message("only 44 bytes readable"));
	EXPECT_EQ(config.cpu_count, 0);

	/* Not even the header fits. */
	memory_begin();
	put_floating_pointer(at(EBDA), (uint32_t)(end - 20), 0, 0);
	EXPECT_EQ(find(), ACPI_ERROR_UNMAPPED);
}

static void find_checks_extended_table_when_mapped(void)
{
	static const uint8_t extended[] = { 129, 8, 2, 1, 0, 0, 0, 0 };
	const uint64_t end = HIGH_BASE + sizeof(high_memory);
	uint64_t physical;

	memory_begin();
	build_typical_table();
	table_add_extended(extended, sizeof(extended), true);
	place_table(HIGH_BASE);
	put_floating_pointer(at(EBDA), (uint32_t)HIGH_BASE, 0, 0);
	ASSERT_EQ(find(), ACPI_OK);
	EXPECT_TRUE(config.extended_table_checked);
	EXPECT_TRUE(config.extended_table_valid);

	/* The base table ends the segment: the extended one is left unchecked. */
	memory_begin();
	physical = end - table_length;
	table_total = table_length;
	place_table(physical);
	put_floating_pointer(at(EBDA), (uint32_t)physical, 0, 0);
	ASSERT_EQ(find(), ACPI_OK);
	EXPECT_FALSE(config.extended_table_checked);
	EXPECT_EQ(config.cpu_count, 4);
}

static void find_reports_bad_table(void)
{
	memory_begin();
	build_typical_table();
	table[7] ^= 1;
	place_table(0xf1000);
	put_floating_pointer(at(EBDA), 0xf1000, 0, 0);
	EXPECT_EQ(find(), ACPI_ERROR_BAD_CHECKSUM);
	EXPECT_TRUE(has_message("MP: configuration table: bad checksum"));
	EXPECT_EQ(pointer.config_table_address, 0xf1000);
}

static void find_rejects_bad_arguments(void)
{
	memory_begin();
	EXPECT_EQ(mp_tables_find(&memory, EBDA, BASE_END, &reporter, &pointer, NULL),
		  ACPI_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(pointer.physical, 0);
	/* No accessor: nothing can be mapped, so nothing is found. */
	EXPECT_EQ(mp_tables_find(NULL, EBDA, BASE_END, NULL, NULL, &config), ACPI_ERROR_NOT_FOUND);
}

static const struct test_case mptable_cases[] = {
	TEST_CASE(floating_pointer_in_first_slot_is_found),
	TEST_CASE(floating_pointer_in_later_slot_is_found),
	TEST_CASE(floating_pointer_with_bad_checksum_is_rejected),
	TEST_CASE(floating_pointer_with_bad_length_is_rejected),
	TEST_CASE(floating_pointer_for_default_configuration),
	TEST_CASE(scan_area_not_a_multiple_of_16),
	TEST_CASE(scan_starts_at_physical_16_byte_boundary),
	TEST_CASE(scan_zero_length_area),
	TEST_CASE(scan_rejects_bad_arguments),
	TEST_CASE(typical_table_is_decoded),
	TEST_CASE(disabled_cpu_is_kept_and_marked),
	TEST_CASE(bootstrap_flag_is_decoded),
	TEST_CASE(bootstrap_count_other_than_one_is_reported),
	TEST_CASE(bad_checksum_is_rejected),
	TEST_CASE(bad_signature_is_rejected),
	TEST_CASE(truncated_table_is_rejected),
	TEST_CASE(implausible_base_length_is_rejected),
	TEST_CASE(header_only_table_is_valid_and_empty),
	TEST_CASE(entry_count_larger_than_table_stops_walk),
	TEST_CASE(entry_count_smaller_than_table_leaves_trailing_bytes),
	TEST_CASE(unknown_entry_type_stops_walk),
	TEST_CASE(more_cpus_than_capacity_are_counted),
	TEST_CASE(duplicate_apic_ids_are_reported_and_kept),
	TEST_CASE(io_apics_beyond_capacity_are_counted),
	TEST_CASE(extended_table_checksum_is_verified),
	TEST_CASE(id_strings_are_made_printable),
	TEST_CASE(config_parse_rejects_bad_arguments),
	TEST_CASE(random_tables_stay_in_bounds),
	TEST_CASE(random_areas_stay_in_bounds),
	TEST_CASE(default_configurations_are_filled_in),
	TEST_CASE(undefined_default_configurations_are_rejected),
	TEST_CASE(find_in_ebda_with_table_in_rom),
	TEST_CASE(find_in_last_kib_of_base_memory),
	TEST_CASE(find_in_bios_rom),
	TEST_CASE(find_defaults_base_memory_to_640k),
	TEST_CASE(find_searches_a_shared_kib_once),
	TEST_CASE(find_nothing),
	TEST_CASE(find_skips_unmapped_area),
	TEST_CASE(find_goes_on_after_rejected_candidate),
	TEST_CASE(find_default_configuration),
	TEST_CASE(find_undefined_default_configuration),
	TEST_CASE(find_pointer_without_table),
	TEST_CASE(find_table_unmapped),
	TEST_CASE(find_table_running_past_mapped_memory),
	TEST_CASE(find_checks_extended_table_when_mapped),
	TEST_CASE(find_reports_bad_table),
	TEST_CASE(find_rejects_bad_arguments),
};
TEST_SUITE(lib_mptable, mptable_cases, NULL, NULL);
