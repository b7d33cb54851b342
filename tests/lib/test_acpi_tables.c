// SPDX-License-Identifier: MIT
/*
 * Tests for kernel/lib/acpi_tables.c with hand-built tables.
 *
 * Tables are built in a scratch array with helpers that compute their
 * checksums (independently of the code under test), then parsed from a
 * copy placed at the very end of another array, so that under
 * AddressSanitizer a read past the table is caught.  Tables reached by
 * physical address live in a fake physical memory behind a bounds-checking
 * map callback; it too ends at the end of its array.
 */
#include <harness/test.h>

#include <lib/acpi_tables.h>
#include <lib/string.h>

#include "fake_memory.h"

#define PHYS_BASE	0x80000ull
#define PHYS_SIZE	0x10000u

static uint8_t phys[PHYS_SIZE];
static uint8_t table[16384];
static uint8_t tail[16384];
static struct acpi_madt madt;
static size_t madt_length;

static const void *phys_map(uint64_t physical, size_t length, void *context)
{
	return fake_memory_window(phys, PHYS_SIZE, PHYS_BASE, physical, length);
}

static const struct physical_memory_access memory = { .map = phys_map, .context = NULL };

/* --- Collected reports ------------------------------------------------------------ */

#define MAX_COLLECTED 24

struct collected {
	char text[MAX_COLLECTED][ACPI_MESSAGE_SIZE];
	size_t count;
	bool too_long;
};

static struct collected messages;

static void collect(void *context, const char *message)
{
	struct collected *collected = context;
	size_t length = strnlen(message, ACPI_MESSAGE_SIZE);

	if (length == ACPI_MESSAGE_SIZE)
		collected->too_long = true;
	if (collected->count < MAX_COLLECTED && length < ACPI_MESSAGE_SIZE)
		memcpy(collected->text[collected->count], message, length + 1);
	collected->count++;
}

static const struct acpi_reporter reporter = { .report = collect, .context = &messages };

static bool reported(const char *needle)
{
	for (size_t i = 0; i < messages.count && i < MAX_COLLECTED; i++) {
		if (text_contains(messages.text[i], needle))
			return true;
	}
	return false;
}

/* --- Byte helpers ---------------------------------------------------------------- */

static uint32_t get32(const uint8_t *bytes)
{
	return (uint32_t)bytes[0] | (uint32_t)bytes[1] << 8 | (uint32_t)bytes[2] << 16 |
	       (uint32_t)bytes[3] << 24;
}

/* Zero @length bytes at @t and write a header for them. */
static void begin_table(uint8_t *t, const char *signature, uint32_t length, uint8_t revision)
{
	memset(t, 0, length < 36 ? 36 : length);
	memcpy(t, signature, 4);
	put32(t + 4, length);
	t[8] = revision;
	memcpy(t + 10, "TRIGOS", 6);
	memcpy(t + 16, "TESTTABL", 8);
	put32(t + 24, 7);
	memcpy(t + 28, "TEST", 4);
	put32(t + 32, 0x20240101);
}

/* Set the checksum so that the Length bytes sum to zero. */
static void seal(uint8_t *t)
{
	t[9] = 0;
	t[9] = (uint8_t)(0x100 - bytes_sum(t, get32(t + 4)));
}

static const uint8_t *at_end(const uint8_t *bytes, size_t length)
{
	return copy_to_end(tail, sizeof(tail), bytes, length);
}

static uint8_t *phys_at(uint64_t physical)
{
	return phys + (physical - PHYS_BASE);
}

static void make_rsdp(uint8_t *r, uint8_t revision, uint32_t rsdt, uint64_t xsdt)
{
	memset(r, 0, 36);
	memcpy(r, "RSD PTR ", 8);
	memcpy(r + 9, "TRIGOS", 6);
	r[15] = revision;
	put32(r + 16, rsdt);
	if (revision >= 2) {
		put32(r + 20, 36);
		put64(r + 24, xsdt);
	}
	r[8] = (uint8_t)(0x100 - bytes_sum(r, 20));
	if (revision >= 2)
		r[32] = (uint8_t)(0x100 - bytes_sum(r, 36));
}

static void make_table_at(uint64_t physical, const char *signature, uint32_t length)
{
	uint8_t *t = phys_at(physical);

	begin_table(t, signature, length, 1);
	seal(t);
}

static void make_root_at(uint64_t physical, bool xsdt, const uint64_t *entries, size_t count)
{
	size_t size = xsdt ? 8 : 4;
	uint8_t *t = phys_at(physical);

	begin_table(t, xsdt ? "XSDT" : "RSDT", (uint32_t)(36 + count * size), 1);
	for (size_t i = 0; i < count; i++) {
		if (xsdt)
			put64(t + 36 + 8 * i, entries[i]);
		else
			put32(t + 36 + 4 * i, (uint32_t)entries[i]);
	}
	seal(t);
}

static void reset(void)
{
	memset(phys, 0, sizeof(phys));
	memset(&messages, 0, sizeof(messages));
}

/* --- RSDP ------------------------------------------------------------------------- */

static void error_names_are_distinct(void)
{
	EXPECT_STREQ(acpi_error_name(ACPI_OK), "ok");
	EXPECT_STREQ(acpi_error_name(ACPI_ERROR_BAD_CHECKSUM), "bad checksum");
	EXPECT_STREQ(acpi_error_name(ACPI_ERROR_TRUNCATED), "truncated");
	EXPECT_STRNE(acpi_error_name(ACPI_ERROR_BAD_LENGTH), acpi_error_name(ACPI_ERROR_MALFORMED));
	EXPECT_STREQ(acpi_error_name(-1000), "unknown error");
}

static void rsdp_revision_0_is_valid_and_uses_rsdt(void)
{
	uint8_t r[36];
	struct acpi_rsdp rsdp;
	bool is_xsdt = true;

	make_rsdp(r, 0, 0x7fe14d0, 0);
	ASSERT_EQ(acpi_rsdp_parse(at_end(r, 20), 20, &rsdp), ACPI_OK);
	EXPECT_EQ(rsdp.revision, 0);
	EXPECT_EQ(rsdp.rsdt_address, 0x7fe14d0);
	EXPECT_EQ(rsdp.xsdt_address, 0);
	EXPECT_EQ(rsdp.length, 20);
	EXPECT_STREQ(rsdp.oem_id, "TRIGOS");
	EXPECT_EQ(acpi_rsdp_root_address(&rsdp, &is_xsdt), 0x7fe14d0);
	EXPECT_FALSE(is_xsdt);
}

static void rsdp_revision_2_uses_xsdt(void)
{
	uint8_t r[36];
	struct acpi_rsdp rsdp;
	bool is_xsdt = false;

	make_rsdp(r, 2, 0x7fe14d0, 0x17fe15000ull);
	ASSERT_EQ(acpi_rsdp_parse(at_end(r, 36), 36, &rsdp), ACPI_OK);
	EXPECT_EQ(rsdp.revision, 2);
	EXPECT_EQ(rsdp.length, 36);
	EXPECT_EQ(rsdp.xsdt_address, 0x17fe15000ull);
	EXPECT_EQ(acpi_rsdp_root_address(&rsdp, &is_xsdt), 0x17fe15000ull);
	EXPECT_TRUE(is_xsdt);
}

static void rsdp_revision_2_without_xsdt_uses_rsdt(void)
{
	uint8_t r[36];
	struct acpi_rsdp rsdp;
	bool is_xsdt = true;

	make_rsdp(r, 2, 0x1234, 0);
	ASSERT_EQ(acpi_rsdp_parse(r, 36, &rsdp), ACPI_OK);
	EXPECT_EQ(acpi_rsdp_root_address(&rsdp, &is_xsdt), 0x1234);
	EXPECT_FALSE(is_xsdt);
}

static void rsdp_revision_1_is_read_as_acpi_1(void)
{
	uint8_t r[36];
	struct acpi_rsdp rsdp;

	make_rsdp(r, 1, 0x1234, 0);
	memset(r + 20, 0xee, 16);	/* not part of a revision 1 RSDP */
	ASSERT_EQ(acpi_rsdp_parse(r, 36, &rsdp), ACPI_OK);
	EXPECT_EQ(rsdp.xsdt_address, 0);
	EXPECT_EQ(rsdp.length, 20);
}

static void rsdp_bad_signature_is_rejected(void)
{
	uint8_t r[36];
	struct acpi_rsdp rsdp;

	make_rsdp(r, 0, 0x1234, 0);
	r[7] = '_';
	r[8] = (uint8_t)(r[8] + ' ' - '_');	/* keep the checksum right */
	EXPECT_EQ(acpi_rsdp_parse(r, 20, &rsdp), ACPI_ERROR_BAD_SIGNATURE);
	EXPECT_EQ(rsdp.rsdt_address, 0);
}

static void rsdp_bad_checksum_is_rejected(void)
{
	uint8_t r[36];
	struct acpi_rsdp rsdp;

	make_rsdp(r, 0, 0x1234, 0);
	r[8]++;
	EXPECT_EQ(acpi_rsdp_parse(r, 20, &rsdp), ACPI_ERROR_BAD_CHECKSUM);
}

static void rsdp_bad_extended_checksum_is_rejected(void)
{
	uint8_t r[36];
	struct acpi_rsdp rsdp;

	make_rsdp(r, 2, 0x1234, 0x5678);
	r[32]++;
	ASSERT_EQ(bytes_sum(r, 20), 0);
	EXPECT_EQ(acpi_rsdp_parse(r, 36, &rsdp), ACPI_ERROR_BAD_CHECKSUM);
	EXPECT_EQ(rsdp.xsdt_address, 0);
}

static void rsdp_length_below_36_is_rejected(void)
{
	uint8_t r[36];
	struct acpi_rsdp rsdp;

	make_rsdp(r, 2, 0x1234, 0x5678);
	put32(r + 20, 24);
	r[8] = 0;
	r[8] = (uint8_t)(0x100 - bytes_sum(r, 20));
	EXPECT_EQ(acpi_rsdp_parse(r, 36, &rsdp), ACPI_ERROR_BAD_LENGTH);
}

static void rsdp_length_beyond_available_is_rejected(void)
{
	uint8_t r[36];
	struct acpi_rsdp rsdp;

	make_rsdp(r, 2, 0x1234, 0x5678);
	put32(r + 20, 40);	/* claims 4 bytes more than there are */
	r[8] = 0;
	r[8] = (uint8_t)(0x100 - bytes_sum(r, 20));
	EXPECT_EQ(acpi_rsdp_parse(at_end(r, 36), 36, &rsdp), ACPI_ERROR_TRUNCATED);
	put32(r + 20, UINT32_MAX);
	r[8] = 0;
	r[8] = (uint8_t)(0x100 - bytes_sum(r, 20));
	EXPECT_EQ(acpi_rsdp_parse(at_end(r, 36), 36, &rsdp), ACPI_ERROR_TRUNCATED);
}

static void rsdp_revision_2_cut_to_20_bytes_is_rejected(void)
{
	uint8_t r[36];
	struct acpi_rsdp rsdp;

	make_rsdp(r, 2, 0x1234, 0x5678);
	EXPECT_EQ(acpi_rsdp_parse(at_end(r, 20), 20, &rsdp), ACPI_ERROR_TRUNCATED);
	EXPECT_EQ(acpi_rsdp_parse(at_end(r, 19), 19, &rsdp), ACPI_ERROR_TRUNCATED);
	EXPECT_EQ(acpi_rsdp_parse(NULL, 36, &rsdp), ACPI_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(acpi_rsdp_parse(r, 36, NULL), ACPI_ERROR_INVALID_ARGUMENT);
}

/* --- Table header ----------------------------------------------------------------- */

static void valid_table_header_is_read(void)
{
	struct acpi_table_header header;

	begin_table(table, "HPET", 56, 1);
	seal(table);
	ASSERT_EQ(acpi_table_check(at_end(table, 56), 56, "HPET", &header), ACPI_OK);
	EXPECT_STREQ(header.signature, "HPET");
	EXPECT_EQ(header.length, 56);
	EXPECT_EQ(header.revision, 1);
	EXPECT_STREQ(header.oem_id, "TRIGOS");
	EXPECT_STREQ(header.oem_table_id, "TESTTABL");
	EXPECT_EQ(header.oem_revision, 7);
	EXPECT_EQ(header.creator_revision, 0x20240101);
	EXPECT_EQ(acpi_table_check(table, 56, NULL, NULL), ACPI_OK);
}

static void table_bad_checksum_is_rejected(void)
{
	begin_table(table, "APIC", 44, 1);
	seal(table);
	table[40] ^= 1;
	EXPECT_EQ(acpi_table_check(table, 44, "APIC", NULL), ACPI_ERROR_BAD_CHECKSUM);
}

static void table_wrong_signature_is_rejected(void)
{
	struct acpi_table_header header;

	begin_table(table, "APIC", 44, 1);
	seal(table);
	EXPECT_EQ(acpi_table_check(table, 44, "FACP", &header), ACPI_ERROR_BAD_SIGNATURE);
	EXPECT_STREQ(header.signature, "APIC");
	/* A short signature argument never matches and is not read past its NUL. */
	EXPECT_EQ(acpi_table_check(table, 44, "AP", NULL), ACPI_ERROR_BAD_SIGNATURE);
	EXPECT_EQ(acpi_table_check(table, 44, "", NULL), ACPI_ERROR_BAD_SIGNATURE);
}

static void table_length_below_header_is_rejected(void)
{
	begin_table(table, "APIC", 20, 1);
	seal(table);
	EXPECT_EQ(acpi_table_check(table, 36, "APIC", NULL), ACPI_ERROR_BAD_LENGTH);
	put32(table + 4, 0);
	EXPECT_EQ(acpi_table_check(table, 36, "APIC", NULL), ACPI_ERROR_BAD_LENGTH);
}

static void table_length_larger_than_available_is_rejected(void)
{
	begin_table(table, "APIC", 100, 1);
	seal(table);
	EXPECT_EQ(acpi_table_check(at_end(table, 60), 60, "APIC", NULL), ACPI_ERROR_TRUNCATED);
	put32(table + 4, ACPI_TABLE_MAX_LENGTH + 1);
	EXPECT_EQ(acpi_table_check(at_end(table, 60), 60, "APIC", NULL), ACPI_ERROR_BAD_LENGTH);
}

static void table_shorter_than_a_header_is_rejected(void)
{
	struct acpi_table_header header;

	begin_table(table, "SSDT", 36, 1);
	seal(table);
	EXPECT_EQ(acpi_table_check(at_end(table, 20), 20, NULL, &header), ACPI_ERROR_TRUNCATED);
	EXPECT_STREQ(header.signature, "SSDT");
	EXPECT_EQ(header.length, 0);
	EXPECT_EQ(acpi_table_check(at_end(table, 2), 2, NULL, &header), ACPI_ERROR_TRUNCATED);
	EXPECT_STREQ(header.signature, "");
	EXPECT_EQ(acpi_table_check(NULL, 36, NULL, NULL), ACPI_ERROR_INVALID_ARGUMENT);
}

/* --- RSDT / XSDT --------------------------------------------------------------------- */

static void rsdt_entries_are_read(void)
{
	struct acpi_root_table root;
	uint64_t address = 0;

	begin_table(table, "RSDT", 36 + 12, 1);
	put32(table + 36, 0x7fe1000);
	put32(table + 40, 0x7fe2000);
	put32(table + 44, 0xfffff000);
	seal(table);
	ASSERT_EQ(acpi_root_table_parse(at_end(table, 48), 48, false, &root), ACPI_OK);
	ASSERT_EQ(root.entry_count, 3);
	EXPECT_TRUE(acpi_root_table_entry(&root, 0, &address));
	EXPECT_EQ(address, 0x7fe1000);
	EXPECT_TRUE(acpi_root_table_entry(&root, 2, &address));
	EXPECT_EQ(address, 0xfffff000);
	EXPECT_FALSE(acpi_root_table_entry(&root, 3, &address));
	EXPECT_EQ(acpi_root_table_parse(table, 48, true, &root), ACPI_ERROR_BAD_SIGNATURE);
	EXPECT_EQ(root.entry_count, 0);
}

static void xsdt_unaligned_entries_are_read(void)
{
	struct acpi_root_table root;
	uint64_t address = 0;
	uint8_t *odd = table + 1;	/* every 64-bit entry misaligned */

	begin_table(odd, "XSDT", 36 + 16 + 5, 1);	/* a partial third entry */
	put64(odd + 36, 0x123456789abcdef0ull);
	put64(odd + 44, 0x7fe3000);
	seal(odd);
	ASSERT_EQ(acpi_root_table_parse(odd, 57, true, &root), ACPI_OK);
	ASSERT_EQ(root.entry_count, 2);
	EXPECT_TRUE(acpi_root_table_entry(&root, 0, &address));
	EXPECT_EQ(address, 0x123456789abcdef0ull);
	EXPECT_TRUE(acpi_root_table_entry(&root, 1, &address));
	EXPECT_EQ(address, 0x7fe3000);
	EXPECT_FALSE(acpi_root_table_entry(&root, 2, &address));
	EXPECT_FALSE(acpi_root_table_entry(NULL, 0, &address));
}

/* --- Tables through physical memory -------------------------------------------------- */

/*
 * The standard layout: RSDP (v2) → XSDT at an odd address and RSDT, both
 * listing APIC, FACP, HPET, MCFG.
 */
#define XSDT_AT		(PHYS_BASE + 0x1001)
#define RSDT_AT		(PHYS_BASE + 0x1100)
#define APIC_AT		(PHYS_BASE + 0x2000)
#define FACP_AT		(PHYS_BASE + 0x3000)
#define HPET_AT		(PHYS_BASE + 0x4003)
#define MCFG_AT		(PHYS_BASE + 0x5000)

static void standard_layout(uint8_t *rsdp)
{
	const uint64_t entries[] = { APIC_AT, FACP_AT, HPET_AT, MCFG_AT };

	reset();
	make_table_at(APIC_AT, "APIC", 44);
	make_table_at(FACP_AT, "FACP", 276);
	make_table_at(HPET_AT, "HPET", 56);
	make_table_at(MCFG_AT, "MCFG", 60);
	make_root_at(XSDT_AT, true, entries, 4);
	make_root_at(RSDT_AT, false, entries, 4);
	make_rsdp(rsdp, 2, (uint32_t)RSDT_AT, XSDT_AT);
}

static void tables_are_found_through_the_xsdt(void)
{
	struct acpi_tables tables;
	uint8_t rsdp[36];
	uint32_t length = 0;

	standard_layout(rsdp);
	ASSERT_EQ(acpi_tables_init(&tables, rsdp, 36, &memory, &reporter), ACPI_OK);
	EXPECT_TRUE(tables.root.is_xsdt);
	EXPECT_EQ(tables.root_address, XSDT_AT);
	EXPECT_EQ(acpi_tables_count(&tables), 4);
	EXPECT_TRUE(acpi_tables_find(&tables, "APIC", 0, &length) == phys_at(APIC_AT));
	EXPECT_EQ(length, 44);
	EXPECT_TRUE(acpi_tables_find(&tables, "FACP", 0, &length) == phys_at(FACP_AT));
	EXPECT_EQ(length, 276);
	EXPECT_TRUE(acpi_tables_find(&tables, "HPET", 0, NULL) == phys_at(HPET_AT));
	EXPECT_TRUE(acpi_tables_find(&tables, "MCFG", 0, NULL) == phys_at(MCFG_AT));
	EXPECT_NULL(acpi_tables_find(&tables, "SRAT", 0, &length));
	EXPECT_EQ(length, 0);
	EXPECT_NULL(acpi_tables_find(&tables, "APIC", 1, NULL));
	EXPECT_EQ(messages.count, 0);
}

static void revision_0_rsdp_uses_the_rsdt(void)
{
	struct acpi_tables tables;
	uint8_t rsdp[36];

	standard_layout(rsdp);
	make_rsdp(rsdp, 0, (uint32_t)RSDT_AT, 0);
	ASSERT_EQ(acpi_tables_init(&tables, rsdp, 20, &memory, &reporter), ACPI_OK);
	EXPECT_FALSE(tables.root.is_xsdt);
	EXPECT_EQ(tables.root_address, RSDT_AT);
	EXPECT_TRUE(acpi_tables_find(&tables, "HPET", 0, NULL) == phys_at(HPET_AT));
	EXPECT_EQ(messages.count, 0);
}

static void bad_xsdt_falls_back_to_the_rsdt(void)
{
	struct acpi_tables tables;
	uint8_t rsdp[36];

	standard_layout(rsdp);
	phys_at(XSDT_AT)[0] = 'Y';	/* not an XSDT at all */
	ASSERT_EQ(acpi_tables_init(&tables, rsdp, 36, &memory, &reporter), ACPI_OK);
	EXPECT_FALSE(tables.root.is_xsdt);
	EXPECT_EQ(tables.root_address, RSDT_AT);
	EXPECT_TRUE(reported("expected \"XSDT\""));
	EXPECT_TRUE(reported("trying the RSDT"));
	EXPECT_TRUE(acpi_tables_find(&tables, "FACP", 0, NULL) == phys_at(FACP_AT));
}

/* As Linux does (ACPICA's acpi_tb_verify_checksum() only warns): kept, with a warning. */
static void xsdt_with_a_bad_checksum_is_used_with_a_warning(void)
{
	struct acpi_tables tables;
	uint8_t rsdp[36];

	standard_layout(rsdp);
	phys_at(XSDT_AT)[9]++;
	ASSERT_EQ(acpi_tables_init(&tables, rsdp, 36, &memory, &reporter), ACPI_OK);
	EXPECT_TRUE(tables.root.is_xsdt);
	EXPECT_TRUE(reported("XSDT at 0x81001: bad checksum (sum 0x01); used anyway"));
	EXPECT_FALSE(reported("trying the RSDT"));
	EXPECT_TRUE(acpi_tables_find(&tables, "FACP", 0, NULL) == phys_at(FACP_AT));
}

static void invalid_rsdp_is_reported(void)
{
	struct acpi_tables tables;
	uint8_t rsdp[36];

	standard_layout(rsdp);
	rsdp[8]++;
	EXPECT_EQ(acpi_tables_init(&tables, rsdp, 36, &memory, &reporter),
		  ACPI_ERROR_BAD_CHECKSUM);
	EXPECT_TRUE(reported("RSDP: bad checksum"));
	EXPECT_EQ(acpi_tables_count(&tables), 0);
	EXPECT_NULL(acpi_tables_find(&tables, "APIC", 0, NULL));
	EXPECT_EQ(acpi_tables_init(NULL, rsdp, 36, &memory, &reporter),
		  ACPI_ERROR_INVALID_ARGUMENT);
}

static void missing_root_tables_are_reported(void)
{
	struct acpi_tables tables;
	uint8_t rsdp[36];

	reset();
	make_rsdp(rsdp, 2, 0, PHYS_BASE + PHYS_SIZE + 0x1000);	/* XSDT outside memory */
	EXPECT_EQ(acpi_tables_init(&tables, rsdp, 36, &memory, &reporter), ACPI_ERROR_NOT_FOUND);
	EXPECT_TRUE(reported("header not mapped"));
	EXPECT_TRUE(reported("no RSDT"));

	reset();
	make_rsdp(rsdp, 0, (uint32_t)RSDT_AT, 0);	/* RSDT address holds zeros */
	EXPECT_EQ(acpi_tables_init(&tables, rsdp, 20, &memory, &reporter), ACPI_ERROR_NOT_FOUND);
	EXPECT_TRUE(reported("expected \"RSDT\""));
	EXPECT_TRUE(reported("no usable RSDT or XSDT"));
	EXPECT_FALSE(messages.too_long);
}

static void null_accessor_maps_nothing(void)
{
	struct acpi_tables tables;
	uint8_t rsdp[36];

	standard_layout(rsdp);
	EXPECT_EQ(acpi_tables_init(&tables, rsdp, 36, NULL, &reporter), ACPI_ERROR_NOT_FOUND);
	EXPECT_TRUE(reported("not mapped"));
	/* And without a reporter, silently. */
	reset();
	EXPECT_EQ(acpi_tables_init(&tables, rsdp, 36, NULL, NULL), ACPI_ERROR_NOT_FOUND);
	EXPECT_EQ(messages.count, 0);
}

static void find_skips_a_bad_copy_and_reports_it(void)
{
	const uint64_t entries[] = { APIC_AT, APIC_AT + 0x100 };
	struct acpi_tables tables;
	size_t cursor = 0;
	uint8_t rsdp[36];

	reset();
	make_table_at(APIC_AT, "APIC", 44);
	phys_at(APIC_AT)[9]++;
	make_table_at(APIC_AT + 0x100, "APIC", 44);
	make_root_at(RSDT_AT, false, entries, 2);
	make_rsdp(rsdp, 0, (uint32_t)RSDT_AT, 0);
	ASSERT_EQ(acpi_tables_init(&tables, rsdp, 20, &memory, &reporter), ACPI_OK);
	/*
	 * A bad checksum alone keeps the table (Linux does too), warned of once
	 * by the enumeration at boot, not at every look-up.
	 */
	EXPECT_TRUE(acpi_tables_find(&tables, "APIC", 0, NULL) == phys_at(APIC_AT));
	EXPECT_EQ(messages.count, 0);
	EXPECT_TRUE(acpi_tables_next(&tables, &cursor, NULL, NULL) == phys_at(APIC_AT));
	EXPECT_TRUE(reported("APIC at 0x82000: bad checksum (sum 0x01); used anyway"));
	EXPECT_TRUE(acpi_tables_find(&tables, "APIC", 1, NULL) == phys_at(APIC_AT + 0x100));
	put32(phys_at(APIC_AT) + 4, 30);	/* a length below the header's: skipped */
	EXPECT_TRUE(acpi_tables_find(&tables, "APIC", 0, NULL) == phys_at(APIC_AT + 0x100));
	EXPECT_TRUE(reported("APIC at 0x82000: implausible length 30; skipped"));
	EXPECT_NULL(acpi_tables_find(&tables, "APIC", 1, NULL));
}

static void find_counts_instances(void)
{
	const uint64_t entries[] = { PHYS_BASE + 0x2000, PHYS_BASE + 0x2100, PHYS_BASE + 0x2200 };
	struct acpi_tables tables;
	uint8_t rsdp[36];

	reset();
	make_table_at(entries[0], "SSDT", 40);
	make_table_at(entries[1], "FACP", 116);
	make_table_at(entries[2], "SSDT", 48);
	make_root_at(RSDT_AT, false, entries, 3);
	make_rsdp(rsdp, 0, (uint32_t)RSDT_AT, 0);
	ASSERT_EQ(acpi_tables_init(&tables, rsdp, 20, &memory, &reporter), ACPI_OK);
	EXPECT_TRUE(acpi_tables_find(&tables, "SSDT", 0, NULL) == phys_at(entries[0]));
	EXPECT_TRUE(acpi_tables_find(&tables, "SSDT", 1, NULL) == phys_at(entries[2]));
	EXPECT_NULL(acpi_tables_find(&tables, "SSDT", 2, NULL));
	EXPECT_NULL(acpi_tables_find(&tables, NULL, 0, NULL));
	EXPECT_NULL(acpi_tables_find(NULL, "SSDT", 0, NULL));
}

static void table_longer_than_mapped_memory_is_skipped(void)
{
	/* The header fits at the end of memory, the stated length does not. */
	const uint64_t hpet = PHYS_BASE + PHYS_SIZE - 40;
	const uint64_t entries[] = { hpet };
	struct acpi_tables tables;
	uint8_t rsdp[36];

	reset();
	begin_table(phys_at(hpet), "HPET", 40, 1);
	put32(phys_at(hpet) + 4, 56);
	make_root_at(RSDT_AT, false, entries, 1);
	make_rsdp(rsdp, 0, (uint32_t)RSDT_AT, 0);
	ASSERT_EQ(acpi_tables_init(&tables, rsdp, 20, &memory, &reporter), ACPI_OK);
	EXPECT_NULL(acpi_tables_find(&tables, "HPET", 0, NULL));
	EXPECT_TRUE(reported("HPET at 0x8ffd8: length 56 runs past mapped memory"));
}

static void implausible_length_is_not_mapped(void)
{
	const uint64_t entries[] = { APIC_AT };
	struct acpi_tables tables;
	uint8_t rsdp[36];

	reset();
	make_table_at(APIC_AT, "APIC", 44);
	put32(phys_at(APIC_AT) + 4, UINT32_MAX);
	make_root_at(RSDT_AT, false, entries, 1);
	make_rsdp(rsdp, 0, (uint32_t)RSDT_AT, 0);
	ASSERT_EQ(acpi_tables_init(&tables, rsdp, 20, &memory, &reporter), ACPI_OK);
	EXPECT_NULL(acpi_tables_find(&tables, "APIC", 0, NULL));
	EXPECT_TRUE(reported("implausible length 4294967295"));
}

static void next_reports_every_bad_entry(void)
{
	const uint64_t entries[] = {
		APIC_AT, 0, PHYS_BASE + PHYS_SIZE + 0x1000, FACP_AT, HPET_AT,
	};
	struct acpi_tables tables;
	const void *found;
	uint64_t address = 0;
	uint32_t length = 0;
	size_t cursor = 0;
	uint8_t rsdp[36];

	reset();
	make_table_at(APIC_AT, "APIC", 44);
	make_table_at(FACP_AT, "FACP", 116);
	phys_at(FACP_AT)[50] ^= 0xff;
	make_table_at(HPET_AT, "HPET", 56);
	make_root_at(XSDT_AT, true, entries, 5);
	make_rsdp(rsdp, 2, 0, XSDT_AT);
	ASSERT_EQ(acpi_tables_init(&tables, rsdp, 36, &memory, &reporter), ACPI_OK);
	ASSERT_EQ(acpi_tables_count(&tables), 5);

	found = acpi_tables_next(&tables, &cursor, &length, &address);
	EXPECT_TRUE(found == phys_at(APIC_AT));
	EXPECT_EQ(address, APIC_AT);
	EXPECT_EQ(length, 44);
	EXPECT_EQ(messages.count, 0);
	found = acpi_tables_next(&tables, &cursor, &length, &address);
	EXPECT_TRUE(found == phys_at(FACP_AT));
	EXPECT_EQ(cursor, 4);
	EXPECT_EQ(messages.count, 3);
	EXPECT_TRUE(reported("XSDT entry 1 is null"));
	EXPECT_TRUE(reported("header not mapped"));
	EXPECT_TRUE(reported("FACP at 0x83000: bad checksum"));
	found = acpi_tables_next(&tables, &cursor, &length, &address);
	EXPECT_TRUE(found == phys_at(HPET_AT));
	EXPECT_EQ(address, HPET_AT);
	EXPECT_EQ(cursor, 5);
	EXPECT_NULL(acpi_tables_next(&tables, &cursor, &length, &address));
	EXPECT_EQ(length, 0);
	EXPECT_NULL(acpi_tables_next(&tables, NULL, NULL, NULL));
}

static void map_checks_the_expected_signature(void)
{
	struct acpi_tables tables;
	uint8_t rsdp[36];
	uint32_t length = 0;

	standard_layout(rsdp);
	make_table_at(PHYS_BASE + 0x6000, "DSDT", 100);
	ASSERT_EQ(acpi_tables_init(&tables, rsdp, 36, &memory, &reporter), ACPI_OK);
	EXPECT_TRUE(acpi_tables_map(&tables, PHYS_BASE + 0x6000, "DSDT", &length) ==
		    phys_at(PHYS_BASE + 0x6000));
	EXPECT_EQ(length, 100);
	EXPECT_NULL(acpi_tables_map(&tables, PHYS_BASE + 0x6000, "FACS", &length));
	EXPECT_EQ(length, 0);
	EXPECT_TRUE(reported("is \"DSDT\", expected \"FACS\""));
	EXPECT_NULL(acpi_tables_map(&tables, UINT64_MAX - 10, "DSDT", NULL));
}

static void signatures_in_reports_are_printable(void)
{
	const uint64_t entries[] = { APIC_AT };
	struct acpi_tables tables;
	size_t cursor = 0;
	uint8_t rsdp[36];

	reset();
	make_table_at(APIC_AT, "A\001\n\377", 44);
	put32(phys_at(APIC_AT) + 4, 20);
	make_root_at(RSDT_AT, false, entries, 1);
	make_rsdp(rsdp, 0, (uint32_t)RSDT_AT, 0);
	ASSERT_EQ(acpi_tables_init(&tables, rsdp, 20, &memory, &reporter), ACPI_OK);
	EXPECT_NULL(acpi_tables_next(&tables, &cursor, NULL, NULL));
	EXPECT_TRUE(reported("A??? at 0x82000"));
}

static void rsdp_is_mapped_by_address(void)
{
	struct acpi_tables tables;
	uint8_t rsdp[36];

	standard_layout(rsdp);
	memcpy(phys_at(PHYS_BASE + 0x100), rsdp, 36);
	ASSERT_EQ(acpi_tables_init_at(&tables, PHYS_BASE + 0x100, &memory, &reporter), ACPI_OK);
	EXPECT_TRUE(tables.root.is_xsdt);
	EXPECT_EQ(tables.rsdp.length, 36);
}

/* Records the largest request made for one watched address. */
struct watch {
	uint64_t address;
	size_t largest;
};

static const void *watching_map(uint64_t physical, size_t length, void *context)
{
	struct watch *watch = context;

	if (physical == watch->address && length > watch->largest)
		watch->largest = length;
	return phys_map(physical, length, NULL);
}

static void revision_0_rsdp_at_the_end_of_memory_is_mapped(void)
{
	const uint64_t at = PHYS_BASE + PHYS_SIZE - 20;
	struct watch watch = { .address = at, .largest = 0 };
	const struct physical_memory_access watched = { .map = watching_map, .context = &watch };
	struct acpi_tables tables;
	uint8_t rsdp[36];

	standard_layout(rsdp);
	make_rsdp(rsdp, 0, (uint32_t)RSDT_AT, 0);
	memcpy(phys_at(at), rsdp, 20);
	ASSERT_EQ(acpi_tables_init_at(&tables, at, &watched, &reporter), ACPI_OK);
	EXPECT_EQ(tables.root_address, RSDT_AT);
	/* Only the 20 bytes a revision 0 RSDP has were asked for. */
	EXPECT_EQ(watch.largest, 20);
}

static void truncated_rsdp_by_address_is_reported(void)
{
	const uint64_t at = PHYS_BASE + PHYS_SIZE - 20;
	struct acpi_tables tables;
	uint8_t rsdp[36];

	standard_layout(rsdp);
	memcpy(phys_at(at), rsdp, 20);	/* revision 2, but only 20 bytes mapped */
	EXPECT_EQ(acpi_tables_init_at(&tables, at, &memory, &reporter), ACPI_ERROR_TRUNCATED);
	EXPECT_TRUE(reported("RSDP: truncated"));
	EXPECT_EQ(acpi_tables_init_at(&tables, 0x1000, &memory, &reporter), ACPI_ERROR_UNMAPPED);
	EXPECT_TRUE(reported("RSDP at 0x1000 not mapped"));
}

/* --- MADT ------------------------------------------------------------------------------ */

static void madt_begin(uint32_t local_apic_address, uint32_t flags)
{
	memset(table, 0, sizeof(table));
	begin_table(table, "APIC", 44, 5);
	put32(table + 36, local_apic_address);
	put32(table + 40, flags);
	madt_length = 44;
	memset(&messages, 0, sizeof(messages));
}

/* An entry claiming @length bytes; the table grows by @advance. */
static uint8_t *madt_raw(uint8_t type, uint8_t length, size_t advance)
{
	uint8_t *entry = table + madt_length;

	entry[0] = type;
	entry[1] = length;
	madt_length += advance;
	return entry;
}

static uint8_t *madt_entry(uint8_t type, uint8_t length)
{
	return madt_raw(type, length, length);
}

static void madt_lapic(uint8_t uid, uint8_t apic_id, uint32_t flags)
{
	uint8_t *entry = madt_entry(0, 8);

	entry[2] = uid;
	entry[3] = apic_id;
	put32(entry + 4, flags);
}

static void madt_x2apic(uint32_t x2apic_id, uint32_t flags, uint32_t uid)
{
	uint8_t *entry = madt_entry(9, 16);

	put32(entry + 4, x2apic_id);
	put32(entry + 8, flags);
	put32(entry + 12, uid);
}

static void madt_ioapic(uint8_t id, uint32_t address, uint32_t gsi_base)
{
	uint8_t *entry = madt_entry(1, 12);

	entry[2] = id;
	put32(entry + 4, address);
	put32(entry + 8, gsi_base);
}

static void madt_override(uint8_t bus, uint8_t source, uint32_t gsi, uint16_t flags)
{
	uint8_t *entry = madt_entry(2, 10);

	entry[2] = bus;
	entry[3] = source;
	put32(entry + 4, gsi);
	put16(entry + 8, flags);
}

static void madt_lapic_nmi(uint8_t uid, uint16_t flags, uint8_t lint)
{
	uint8_t *entry = madt_entry(4, 6);

	entry[2] = uid;
	put16(entry + 3, flags);
	entry[5] = lint;
}

static void madt_x2apic_nmi(uint16_t flags, uint32_t uid, uint8_t lint)
{
	uint8_t *entry = madt_entry(10, 12);

	put16(entry + 2, flags);
	put32(entry + 4, uid);
	entry[8] = lint;
}

static void madt_lapic_override(uint64_t address)
{
	put64(madt_entry(5, 12) + 4, address);
}

static int parse_madt(void)
{
	put32(table + 4, (uint32_t)madt_length);
	seal(table);
	return acpi_madt_parse(at_end(table, madt_length), madt_length, &reporter, &madt);
}

static void qemu_like_madt_is_parsed(void)
{
	madt_begin(0xfee00000, ACPI_MADT_PCAT_COMPAT);
	for (uint8_t i = 0; i < 4; i++)
		madt_lapic(i, i, ACPI_MADT_CPU_ENABLED);
	madt_ioapic(0, 0xfec00000, 0);
	madt_override(0, 0, 2, 0);
	madt_override(0, 9, 9, ACPI_MPS_POLARITY_ACTIVE_HIGH | ACPI_MPS_TRIGGER_LEVEL);
	madt_lapic_nmi(0xff, 0, 1);

	ASSERT_EQ(parse_madt(), ACPI_OK);
	EXPECT_EQ(messages.count, 0);
	EXPECT_EQ(madt.local_apic_address, 0xfee00000);
	EXPECT_FALSE(madt.local_apic_address_overridden);
	EXPECT_EQ(madt.flags, ACPI_MADT_PCAT_COMPAT);
	ASSERT_EQ(madt.cpu_count, 4);
	for (uint32_t i = 0; i < 4; i++) {
		EXPECT_EQ(madt.cpus[i].apic_id, i);
		EXPECT_EQ(madt.cpus[i].uid, i);
		EXPECT_TRUE(madt.cpus[i].enabled);
		EXPECT_FALSE(madt.cpus[i].online_capable);
		EXPECT_FALSE(madt.cpus[i].from_x2apic_entry);
	}
	ASSERT_EQ(madt.io_apic_count, 1);
	EXPECT_EQ(madt.io_apics[0].id, 0);
	EXPECT_EQ(madt.io_apics[0].address, 0xfec00000);
	EXPECT_EQ(madt.io_apics[0].gsi_base, 0);
	ASSERT_EQ(madt.override_count, 2);
	EXPECT_EQ(madt.overrides[0].source, 0);
	EXPECT_EQ(madt.overrides[0].gsi, 2);
	EXPECT_EQ(madt.overrides[1].source, 9);
	EXPECT_EQ(madt.overrides[1].flags & ACPI_MPS_TRIGGER_MASK, ACPI_MPS_TRIGGER_LEVEL);
	EXPECT_EQ(madt.overrides[1].flags & ACPI_MPS_POLARITY_MASK,
		  ACPI_MPS_POLARITY_ACTIVE_HIGH);
	ASSERT_EQ(madt.nmi_count, 1);
	EXPECT_TRUE(madt.nmis[0].all_processors);
	EXPECT_EQ(madt.nmis[0].lint, 1);
	EXPECT_EQ(madt.bad_entries, 0);
	EXPECT_FALSE(madt.walk_stopped);
}

static void non_contiguous_apic_ids_are_kept(void)
{
	static const uint8_t ids[] = { 0, 1, 2, 4, 5, 6 };

	madt_begin(0xfee00000, 0);
	for (uint8_t i = 0; i < 6; i++)
		madt_lapic(i, ids[i], ACPI_MADT_CPU_ENABLED);
	ASSERT_EQ(parse_madt(), ACPI_OK);
	ASSERT_EQ(madt.cpu_count, 6);
	for (size_t i = 0; i < 6; i++) {
		EXPECT_EQ(madt.cpus[i].apic_id, ids[i]);
		EXPECT_EQ(madt.cpus[i].uid, i);
	}
	EXPECT_EQ(madt.duplicate_apic_ids, 0);
	EXPECT_EQ(messages.count, 0);
}

static void disabled_and_online_capable_cpus_are_distinguished(void)
{
	madt_begin(0xfee00000, 0);
	madt_lapic(0, 0, ACPI_MADT_CPU_ENABLED);
	madt_lapic(1, 1, 0);
	madt_lapic(2, 2, ACPI_MADT_CPU_ONLINE_CAPABLE);
	madt_lapic(3, 3, 0xfffffffc);	/* reserved bits only */
	ASSERT_EQ(parse_madt(), ACPI_OK);
	ASSERT_EQ(madt.cpu_count, 4);
	EXPECT_TRUE(madt.cpus[0].enabled);
	EXPECT_FALSE(madt.cpus[0].online_capable);
	EXPECT_FALSE(madt.cpus[1].enabled);
	EXPECT_FALSE(madt.cpus[1].online_capable);
	EXPECT_FALSE(madt.cpus[2].enabled);
	EXPECT_TRUE(madt.cpus[2].online_capable);
	EXPECT_FALSE(madt.cpus[3].enabled);
	EXPECT_FALSE(madt.cpus[3].online_capable);
}

static void local_apic_address_override_is_used(void)
{
	madt_begin(0xfee00000, 0);
	madt_lapic(0, 0, 1);
	madt_lapic_override(0x1fee00000ull);
	ASSERT_EQ(parse_madt(), ACPI_OK);
	EXPECT_EQ(madt.local_apic_address, 0x1fee00000ull);
	EXPECT_TRUE(madt.local_apic_address_overridden);
	EXPECT_EQ(madt.cpu_count, 1);
}

static void second_local_apic_override_is_ignored(void)
{
	madt_begin(0xfee00000, 0);
	madt_lapic_override(0x100000000ull);
	madt_lapic_override(0x200000000ull);
	ASSERT_EQ(parse_madt(), ACPI_OK);
	EXPECT_EQ(madt.local_apic_address, 0x100000000ull);
	EXPECT_TRUE(reported("second local APIC address override"));
}

static void x2apic_entries_are_parsed(void)
{
	madt_begin(0xfee00000, 0);
	madt_lapic(0, 0, 1);
	madt_x2apic(0x100, ACPI_MADT_CPU_ENABLED, 0x1000);
	madt_x2apic(0xfffffffe, ACPI_MADT_CPU_ONLINE_CAPABLE, 0x1001);
	madt_x2apic_nmi(ACPI_MPS_POLARITY_ACTIVE_HIGH, 0xffffffff, 1);
	madt_x2apic_nmi(0, 0x1000, 0);
	ASSERT_EQ(parse_madt(), ACPI_OK);
	ASSERT_EQ(madt.cpu_count, 3);
	EXPECT_EQ(madt.cpus[1].apic_id, 0x100);
	EXPECT_EQ(madt.cpus[1].uid, 0x1000);
	EXPECT_TRUE(madt.cpus[1].enabled);
	EXPECT_TRUE(madt.cpus[1].from_x2apic_entry);
	EXPECT_EQ(madt.cpus[2].apic_id, 0xfffffffe);
	EXPECT_TRUE(madt.cpus[2].online_capable);
	EXPECT_FALSE(madt.cpus[2].enabled);
	ASSERT_EQ(madt.nmi_count, 2);
	EXPECT_TRUE(madt.nmis[0].all_processors);
	EXPECT_TRUE(madt.nmis[0].from_x2apic_entry);
	EXPECT_EQ(madt.nmis[0].flags, ACPI_MPS_POLARITY_ACTIVE_HIGH);
	EXPECT_EQ(madt.nmis[0].lint, 1);
	EXPECT_FALSE(madt.nmis[1].all_processors);
	EXPECT_EQ(madt.nmis[1].uid, 0x1000);
}

static void local_apic_nmi_for_one_processor_is_parsed(void)
{
	madt_begin(0xfee00000, 0);
	madt_lapic_nmi(3, ACPI_MPS_TRIGGER_EDGE, 1);
	ASSERT_EQ(parse_madt(), ACPI_OK);
	ASSERT_EQ(madt.nmi_count, 1);
	EXPECT_EQ(madt.nmis[0].uid, 3);
	EXPECT_FALSE(madt.nmis[0].all_processors);
	EXPECT_FALSE(madt.nmis[0].from_x2apic_entry);
	EXPECT_EQ(madt.nmis[0].flags, ACPI_MPS_TRIGGER_EDGE);
	EXPECT_EQ(madt.nmis[0].lint, 1);
}

static void zero_length_entry_stops_the_walk(void)
{
	madt_begin(0xfee00000, 0);
	madt_lapic(0, 0, 1);
	madt_raw(0, 0, 8);
	madt_lapic(1, 1, 1);	/* beyond the bad entry: unknowable */
	ASSERT_EQ(parse_madt(), ACPI_OK);
	EXPECT_EQ(madt.cpu_count, 1);
	EXPECT_TRUE(madt.walk_stopped);
	EXPECT_EQ(madt.bad_entries, 1);
	EXPECT_TRUE(reported("entry 1 (type 0) at offset 52 has length 0"));
}

static void length_one_entry_stops_the_walk(void)
{
	madt_begin(0xfee00000, 0);
	madt_raw(1, 1, 12);
	madt_lapic(1, 1, 1);
	ASSERT_EQ(parse_madt(), ACPI_OK);
	EXPECT_EQ(madt.cpu_count, 0);
	EXPECT_EQ(madt.io_apic_count, 0);
	EXPECT_TRUE(madt.walk_stopped);
	EXPECT_TRUE(reported("has length 1"));
}

static void entry_past_the_end_stops_the_walk(void)
{
	madt_begin(0xfee00000, 0);
	madt_lapic(0, 0, 1);
	madt_raw(9, 16, 10);	/* claims 16 bytes, the table ends after 10 */
	ASSERT_EQ(parse_madt(), ACPI_OK);
	EXPECT_EQ(madt.cpu_count, 1);
	EXPECT_TRUE(madt.walk_stopped);
	EXPECT_TRUE(reported("has length 16, past the end; stopped"));
}

static void stray_trailing_byte_is_reported(void)
{
	madt_begin(0xfee00000, 0);
	madt_lapic(0, 0, 1);
	madt_length += 1;
	ASSERT_EQ(parse_madt(), ACPI_OK);
	EXPECT_EQ(madt.cpu_count, 1);
	EXPECT_TRUE(madt.walk_stopped);
	EXPECT_TRUE(reported("stray byte at offset 52"));
}

static void entry_shorter_than_its_type_is_skipped(void)
{
	uint8_t *entry;

	madt_begin(0xfee00000, 0);
	entry = madt_entry(0, 6);	/* a local APIC entry needs 8 */
	entry[3] = 9;
	madt_entry(9, 12);		/* an x2APIC entry needs 16 */
	madt_entry(5, 8);		/* an override needs 12 */
	madt_lapic(1, 1, 1);
	ASSERT_EQ(parse_madt(), ACPI_OK);
	ASSERT_EQ(madt.cpu_count, 1);
	EXPECT_EQ(madt.cpus[0].apic_id, 1);
	EXPECT_EQ(madt.bad_entries, 3);
	EXPECT_FALSE(madt.walk_stopped);
	EXPECT_FALSE(madt.local_apic_address_overridden);
	EXPECT_TRUE(reported("entry 0 (type 0) has length 6 < 8; skipped"));
	EXPECT_TRUE(reported("entry 1 (type 9) has length 12 < 16; skipped"));
}

static void longer_entries_are_accepted(void)
{
	uint8_t *entry;

	madt_begin(0xfee00000, 0);
	entry = madt_entry(0, 12);	/* a future revision's longer entry */
	entry[2] = 7;
	entry[3] = 8;
	put32(entry + 4, 1);
	madt_lapic(1, 1, 1);
	ASSERT_EQ(parse_madt(), ACPI_OK);
	ASSERT_EQ(madt.cpu_count, 2);
	EXPECT_EQ(madt.cpus[0].apic_id, 8);
	EXPECT_EQ(madt.cpus[0].uid, 7);
	EXPECT_EQ(madt.cpus[1].apic_id, 1);
}

static void unknown_entry_types_are_skipped_by_length(void)
{
	madt_begin(0xfee00000, 0);
	madt_entry(0x7f, 5);
	madt_entry(0x0b, 80);	/* GICC, not ours */
	madt_entry(3, 8);	/* NMI source: known, not decoded */
	madt_lapic(0, 0, 1);
	ASSERT_EQ(parse_madt(), ACPI_OK);
	EXPECT_EQ(madt.cpu_count, 1);
	EXPECT_EQ(madt.other_entries, 3);
	EXPECT_EQ(madt.bad_entries, 0);
	EXPECT_EQ(messages.count, 0);
}

static void more_cpus_than_capacity_are_counted(void)
{
	madt_begin(0xfee00000, 0);
	/* The last ten disabled: listed beyond capacity, but never to be started. */
	for (uint32_t i = 0; i < 300; i++)
		madt_x2apic(i, i < 290 ? ACPI_MADT_CPU_ENABLED : 0, i);
	ASSERT_EQ(parse_madt(), ACPI_OK);
	EXPECT_EQ(madt.cpu_count, (size_t)ACPI_MAX_CPUS);
	EXPECT_EQ(madt.cpus_beyond_capacity, 300 - ACPI_MAX_CPUS);
	EXPECT_EQ(madt.enabled_beyond_capacity, 290 - ACPI_MAX_CPUS);
	EXPECT_EQ(madt.cpus[ACPI_MAX_CPUS - 1].apic_id, ACPI_MAX_CPUS - 1);
	EXPECT_EQ(madt.duplicate_apic_ids, 0);
	EXPECT_TRUE(reported("300 CPUs listed, only 256 supported"));
}

static void duplicate_apic_ids_are_reported_not_merged(void)
{
	madt_begin(0xfee00000, 0);
	madt_lapic(0, 0, 1);
	madt_lapic(1, 1, 1);
	madt_lapic(2, 1, 1);
	madt_x2apic(0, 1, 3);
	ASSERT_EQ(parse_madt(), ACPI_OK);
	EXPECT_EQ(madt.cpu_count, 4);
	EXPECT_EQ(madt.duplicate_apic_ids, 2);
	EXPECT_EQ(madt.enabled_duplicate_apic_ids, 2);
	EXPECT_EQ(messages.count, 1);
	EXPECT_TRUE(reported("MADT: 2 CPU entries repeat an APIC ID (2 of them enabled); "
			     "IDs 0x1 0x0"));
}

/*
 * Placeholders for CPUs the board could hold, as an ASRock X399 Taichi lists
 * them (96 repeats of disabled IDs): one line for the whole MADT.
 */
static void placeholder_duplicates_are_summed_up_in_one_report(void)
{
	madt_begin(0xfee00000, 0);
	madt_lapic(0, 0, 1);
	madt_lapic(1, 1, 1);
	for (unsigned int i = 0; i < 96; i++)
		madt_lapic((uint8_t)(2 + i), i < 60 ? 0xff : (uint8_t)(i % 2), 0);
	ASSERT_EQ(parse_madt(), ACPI_OK);
	EXPECT_EQ(madt.cpu_count, 98);
	EXPECT_EQ(madt.duplicate_apic_ids, 95);
	EXPECT_EQ(madt.enabled_duplicate_apic_ids, 0);
	EXPECT_EQ(madt.repeated_apic_id_count, 3);
	EXPECT_EQ(messages.count, 1);
	EXPECT_TRUE(reported("MADT: 95 CPU entries repeat an APIC ID (0 of them enabled); "
			     "IDs 0xff 0x0 0x1"));
}

static void io_apics_beyond_capacity_are_counted(void)
{
	madt_begin(0xfee00000, 0);
	for (uint8_t i = 0; i < ACPI_MAX_IO_APICS + 2; i++)
		madt_ioapic(i, 0xfec00000 + 0x1000u * i, 24u * i);
	ASSERT_EQ(parse_madt(), ACPI_OK);
	EXPECT_EQ(madt.io_apic_count, (size_t)ACPI_MAX_IO_APICS);
	EXPECT_EQ(madt.io_apics_beyond_capacity, 2);
	EXPECT_EQ(madt.io_apics[ACPI_MAX_IO_APICS - 1].gsi_base, 24u * (ACPI_MAX_IO_APICS - 1));
	EXPECT_TRUE(reported("I/O APICs listed"));
}

static void madt_header_problems_are_errors(void)
{
	madt_begin(0xfee00000, 0);
	madt_lapic(0, 0, 1);
	put32(table + 4, (uint32_t)madt_length);
	seal(table);
	table[50] ^= 1;
	/* A bad checksum is acpi_tables_map()'s to warn of; the entries are still read. */
	EXPECT_EQ(acpi_madt_parse(table, madt_length, &reporter, &madt), ACPI_OK);
	EXPECT_EQ(madt.cpu_count, 1);
	memcpy(table, "APIX", 4);
	EXPECT_EQ(acpi_madt_parse(table, madt_length, &reporter, &madt), ACPI_ERROR_BAD_SIGNATURE);
	EXPECT_EQ(madt.cpu_count, 0);
	EXPECT_TRUE(reported("MADT: bad signature"));
	memcpy(table, "APIC", 4);
	/* The stated length lies: more than was handed over. */
	table[50] ^= 1;
	EXPECT_EQ(acpi_madt_parse(at_end(table, madt_length - 4), madt_length - 4, &reporter,
				  &madt), ACPI_ERROR_TRUNCATED);
	EXPECT_EQ(acpi_madt_parse(table, madt_length, &reporter, NULL),
		  ACPI_ERROR_INVALID_ARGUMENT);
}

static void madt_shorter_than_44_bytes_is_rejected(void)
{
	madt_begin(0xfee00000, 0);
	madt_length = 40;
	EXPECT_EQ(parse_madt(), ACPI_ERROR_BAD_LENGTH);
	EXPECT_TRUE(reported("shorter than its 44-byte header"));
}

static void empty_madt_has_no_cpus(void)
{
	madt_begin(0xfee00000, ACPI_MADT_PCAT_COMPAT);
	ASSERT_EQ(parse_madt(), ACPI_OK);
	EXPECT_EQ(madt.cpu_count, 0);
	EXPECT_EQ(madt.flags, ACPI_MADT_PCAT_COMPAT);
	EXPECT_EQ(messages.count, 0);
}

/* --- FADT --------------------------------------------------------------------------- */

static void put_gas(uint8_t *at, uint8_t space, uint8_t width, uint8_t offset, uint8_t access,
		    uint64_t address)
{
	at[0] = space;
	at[1] = width;
	at[2] = offset;
	at[3] = access;
	put64(at + 4, address);
}

/* A QEMU-like ACPI 6 FADT of 276 bytes. */
static void fadt_full(void)
{
	memset(table, 0, sizeof(table));
	begin_table(table, "FACP", 276, 6);
	put32(table + 40, 0x7fe0040);		/* DSDT */
	put16(table + 46, 9);			/* SCI_INT */
	put32(table + 48, 0xb2);		/* SMI_CMD */
	table[52] = 0xf1;
	table[53] = 0xf0;
	put32(table + 64, 0x604);		/* PM1a_CNT_BLK */
	put32(table + 76, 0x608);		/* PM_TMR_BLK */
	table[89] = 2;				/* PM1_CNT_LEN */
	table[91] = 4;				/* PM_TMR_LEN */
	table[108] = 0x32;			/* CENTURY */
	put16(table + 109, ACPI_IAPC_8042 | ACPI_IAPC_VGA_NOT_PRESENT);
	put32(table + 112, ACPI_FADT_TMR_VAL_EXT | ACPI_FADT_RESET_REG_SUP);
	put_gas(table + 116, ACPI_GAS_SYSTEM_IO, 8, 0, ACPI_GAS_ACCESS_UNDEFINED, 0xcf9);
	table[128] = 0x0f;			/* RESET_VALUE */
	put64(table + 140, 0);			/* X_DSDT */
	put_gas(table + 172, ACPI_GAS_SYSTEM_IO, 16, 0, ACPI_GAS_ACCESS_WORD, 0x604);
	put_gas(table + 208, ACPI_GAS_SYSTEM_IO, 32, 0, ACPI_GAS_ACCESS_DWORD, 0x608);
}

static int parse_fadt(struct acpi_fadt *fadt)
{
	size_t length = get32(table + 4);

	seal(table);
	return acpi_fadt_parse(at_end(table, length), length, fadt);
}

static void full_fadt_is_parsed(void)
{
	struct acpi_fadt fadt;

	fadt_full();
	ASSERT_EQ(parse_fadt(&fadt), ACPI_OK);
	EXPECT_EQ(fadt.length, 276);
	EXPECT_EQ(fadt.revision, 6);
	EXPECT_EQ(fadt.dsdt_address32, 0x7fe0040);
	EXPECT_EQ(fadt.dsdt_address, 0x7fe0040);
	EXPECT_EQ(fadt.sci_interrupt, 9);
	EXPECT_EQ(fadt.smi_command_port, 0xb2);
	EXPECT_EQ(fadt.acpi_enable_value, 0xf1);
	EXPECT_EQ(fadt.acpi_disable_value, 0xf0);
	EXPECT_EQ(fadt.pm1a_control_port, 0x604);
	EXPECT_EQ(fadt.pm1b_control_port, 0);
	EXPECT_EQ(fadt.pm1a_control.address, 0x604);
	EXPECT_EQ(fadt.pm1a_control.bit_width, 16);
	EXPECT_EQ(fadt.pm1a_control.access_size, ACPI_GAS_ACCESS_WORD);
	EXPECT_EQ(fadt.pm1b_control.address, 0);
	EXPECT_EQ(fadt.pm_timer_port, 0x608);
	EXPECT_EQ(fadt.pm_timer_length, 4);
	EXPECT_EQ(fadt.x_pm_timer.address, 0x608);
	EXPECT_EQ(fadt.pm_timer.space_id, ACPI_GAS_SYSTEM_IO);
	EXPECT_EQ(fadt.pm_timer.bit_width, 32);
	EXPECT_EQ(fadt.pm_timer.access_size, ACPI_GAS_ACCESS_DWORD);
	EXPECT_TRUE(fadt.pm_timer_32bit);
	EXPECT_EQ(fadt.century, 0x32);
	EXPECT_TRUE(fadt.has_iapc_boot_arch);
	EXPECT_EQ(fadt.iapc_boot_arch, ACPI_IAPC_8042 | ACPI_IAPC_VGA_NOT_PRESENT);
	EXPECT_FALSE(fadt.iapc_boot_arch & ACPI_IAPC_LEGACY_DEVICES);
	EXPECT_TRUE(fadt.has_reset_register);
	EXPECT_TRUE(fadt.reset_supported);
	EXPECT_EQ(fadt.reset_register.space_id, ACPI_GAS_SYSTEM_IO);
	EXPECT_EQ(fadt.reset_register.bit_width, 8);
	EXPECT_EQ(fadt.reset_register.address, 0xcf9);
	EXPECT_EQ(fadt.reset_value, 0x0f);
	EXPECT_FALSE(fadt.hardware_reduced);
}

static void acpi_1_fadt_has_only_the_old_fields(void)
{
	struct acpi_fadt fadt;

	fadt_full();
	table[8] = 1;
	put32(table + 4, 116);
	ASSERT_EQ(parse_fadt(&fadt), ACPI_OK);
	EXPECT_EQ(fadt.length, 116);
	EXPECT_EQ(fadt.dsdt_address, 0x7fe0040);
	EXPECT_EQ(fadt.x_pm_timer.address, 0);
	/* The timer comes from the 32-bit port, as a 32-bit I/O register. */
	EXPECT_EQ(fadt.pm_timer.space_id, ACPI_GAS_SYSTEM_IO);
	EXPECT_EQ(fadt.pm_timer.address, 0x608);
	EXPECT_EQ(fadt.pm_timer.bit_width, 32);
	EXPECT_EQ(fadt.pm_timer.access_size, ACPI_GAS_ACCESS_UNDEFINED);
	EXPECT_EQ(fadt.pm1a_control.address, 0x604);
	EXPECT_EQ(fadt.pm1a_control.bit_width, 16);
	EXPECT_TRUE(fadt.pm_timer_32bit);
	EXPECT_FALSE(fadt.has_reset_register);
	EXPECT_FALSE(fadt.reset_supported);
	EXPECT_EQ(fadt.reset_value, 0);
	/* Revision 1: offset 109 was reserved. */
	EXPECT_FALSE(fadt.has_iapc_boot_arch);
	EXPECT_EQ(fadt.iapc_boot_arch, 0);
	EXPECT_EQ(fadt.century, 0x32);
}

static void fadt_length_cutting_reset_value_has_no_reset_register(void)
{
	struct acpi_fadt fadt;

	fadt_full();
	put32(table + 4, 128);	/* RESET_REG fits, RESET_VALUE (offset 128) does not */
	ASSERT_EQ(parse_fadt(&fadt), ACPI_OK);
	EXPECT_FALSE(fadt.has_reset_register);
	EXPECT_FALSE(fadt.reset_supported);
	EXPECT_EQ(fadt.reset_register.address, 0);
	EXPECT_EQ(fadt.flags & ACPI_FADT_RESET_REG_SUP, ACPI_FADT_RESET_REG_SUP);
}

/* QEMU's pc machine has been seen with revision 1 FADTs longer than 116 bytes. */
static void revision_1_fadt_reset_register_is_not_trusted(void)
{
	struct acpi_fadt fadt;

	fadt_full();
	table[8] = 1;
	ASSERT_EQ(parse_fadt(&fadt), ACPI_OK);
	EXPECT_TRUE(fadt.has_reset_register);
	EXPECT_EQ(fadt.reset_register.address, 0xcf9);
	EXPECT_FALSE(fadt.reset_supported);

	table[8] = 2;
	ASSERT_EQ(parse_fadt(&fadt), ACPI_OK);
	EXPECT_TRUE(fadt.reset_supported);

	put32(table + 112, ACPI_FADT_TMR_VAL_EXT);	/* RESET_REG_SUP clear */
	ASSERT_EQ(parse_fadt(&fadt), ACPI_OK);
	EXPECT_TRUE(fadt.has_reset_register);
	EXPECT_FALSE(fadt.reset_supported);
}

static struct acpi_generic_address gas(uint8_t space, uint8_t bit_width, uint8_t access,
				       uint64_t address)
{
	return (struct acpi_generic_address){ .space_id = space, .bit_width = bit_width,
					      .access_size = access, .address = address };
}

static void gas_io_and_memory_registers_are_decoded(void)
{
	struct acpi_generic_address reg = gas(ACPI_GAS_SYSTEM_IO, 8, 0, 0xcf9);
	struct acpi_gas_access access;

	ASSERT_EQ(acpi_gas_decode(&reg, 4, &access), ACPI_OK);
	EXPECT_EQ(access.space_id, ACPI_GAS_SYSTEM_IO);
	EXPECT_EQ(access.bytes, 1);
	EXPECT_EQ(access.address, 0xcf9);

	/* The access size wins over the bit width; no width at all takes the default. */
	reg = gas(ACPI_GAS_SYSTEM_MEMORY, 8, ACPI_GAS_ACCESS_DWORD, 0xfed00000ull);
	ASSERT_EQ(acpi_gas_decode(&reg, 1, &access), ACPI_OK);
	EXPECT_EQ(access.bytes, 4);
	EXPECT_EQ(access.address, 0xfed00000ull);
	reg = gas(ACPI_GAS_SYSTEM_MEMORY, 0, 0, 0x1000);
	ASSERT_EQ(acpi_gas_decode(&reg, 2, &access), ACPI_OK);
	EXPECT_EQ(access.bytes, 2);
	/* A 24-bit register is read 32 bits wide. */
	reg = gas(ACPI_GAS_SYSTEM_IO, 24, 0, 0x608);
	ASSERT_EQ(acpi_gas_decode(&reg, 1, &access), ACPI_OK);
	EXPECT_EQ(access.bytes, 4);
	reg = gas(ACPI_GAS_SYSTEM_MEMORY, 64, ACPI_GAS_ACCESS_QWORD, 0x1000);
	ASSERT_EQ(acpi_gas_decode(&reg, 1, &access), ACPI_OK);
	EXPECT_EQ(access.bytes, 8);
}

static void gas_pci_config_register_is_decoded(void)
{
	/* Device 0x1f, function 0, offset 0x44 (bus 0, segment 0). */
	struct acpi_generic_address reg = gas(ACPI_GAS_PCI_CONFIG, 8, ACPI_GAS_ACCESS_BYTE,
					      (0x1full << 32) | (0ull << 16) | 0x44);
	struct acpi_gas_access access;

	ASSERT_EQ(acpi_gas_decode(&reg, 1, &access), ACPI_OK);
	EXPECT_EQ(access.space_id, ACPI_GAS_PCI_CONFIG);
	EXPECT_EQ(access.pci_device, 0x1f);
	EXPECT_EQ(access.pci_function, 0);
	EXPECT_EQ(access.address, 0x44);
	EXPECT_EQ(access.bytes, 1);

	reg.address = (3ull << 32) | (5ull << 16) | 0xffc;
	reg.access_size = ACPI_GAS_ACCESS_DWORD;
	ASSERT_EQ(acpi_gas_decode(&reg, 1, &access), ACPI_OK);
	EXPECT_EQ(access.pci_device, 3);
	EXPECT_EQ(access.pci_function, 5);
	EXPECT_EQ(access.address, 0xffc);
}

static void bad_gas_registers_are_refused(void)
{
	static const struct {
		uint8_t space, bit_width, access;
		uint64_t address;
	} bad[] = {
		{ ACPI_GAS_SYSTEM_IO, 8, 0, 0x10000 },			/* no such port */
		{ ACPI_GAS_SYSTEM_IO, 32, 0, 0xfffe },			/* runs past 0xffff */
		{ ACPI_GAS_SYSTEM_IO, 64, 0, 0x600 },			/* no 8-byte port access */
		{ ACPI_GAS_SYSTEM_MEMORY, 8, 5, 0x1000 },		/* access size 5 */
		{ ACPI_GAS_SYSTEM_MEMORY, 72, 0, 0x1000 },		/* 9 bytes wide */
		{ ACPI_GAS_PCI_CONFIG, 8, 0, 32ull << 32 },		/* device 32 */
		{ ACPI_GAS_PCI_CONFIG, 8, 0, 8ull << 16 },		/* function 8 */
		{ ACPI_GAS_PCI_CONFIG, 8, 0, 0x1000 },			/* offset past 4 KiB */
		{ ACPI_GAS_PCI_CONFIG, 8, 0, (1ull << 48) | 0x44 },	/* reserved bits */
		{ ACPI_GAS_FUNCTIONAL_FIXED_HW, 8, 0, 0x44 },		/* not a register */
		{ 0x42, 8, 0, 0x44 },					/* unknown space */
	};
	struct acpi_gas_access access;
	struct acpi_generic_address reg;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		reg = gas(bad[i].space, bad[i].bit_width, bad[i].access, bad[i].address);
		EXPECT_EQ(acpi_gas_decode(&reg, 1, &access), ACPI_ERROR_MALFORMED);
	}
	reg = gas(ACPI_GAS_SYSTEM_IO, 8, 0, 0);
	EXPECT_EQ(acpi_gas_decode(&reg, 1, &access), ACPI_ERROR_NOT_FOUND);
	EXPECT_EQ(acpi_gas_decode(NULL, 1, &access), ACPI_ERROR_INVALID_ARGUMENT);
}

/*
 * The FADT registers of real machines whose GAS access size contradicts its
 * bit width (linuxhw/ACPI reports, iasl's decode): each is accessed as ACPICA
 * accesses it, which is what their firmware was tested against.
 */
static void fadt_register_widths_follow_acpica_on_real_machines(void)
{
	struct acpi_gas_access access;
	struct acpi_fadt fadt;

	/* Dell Precision WorkStation T3500: PM timer 32 bits, PM1a_CNT 16, both byte access. */
	memset(&fadt, 0, sizeof(fadt));
	fadt.pm_timer = gas(ACPI_GAS_SYSTEM_IO, 32, ACPI_GAS_ACCESS_BYTE, 0x808);
	fadt.pm1a_control = gas(ACPI_GAS_SYSTEM_IO, 16, ACPI_GAS_ACCESS_BYTE, 0x804);
	ASSERT_EQ(acpi_fadt_register_access(&fadt, ACPI_FADT_PM_TIMER, &access), ACPI_OK);
	EXPECT_EQ(access.bytes, 4);
	EXPECT_EQ(access.address, 0x808);
	EXPECT_FALSE(access.width_corrected);
	ASSERT_EQ(acpi_fadt_register_access(&fadt, ACPI_FADT_PM1A_CONTROL, &access), ACPI_OK);
	EXPECT_EQ(access.bytes, 2);
	EXPECT_EQ(acpi_fadt_register_access(&fadt, ACPI_FADT_PM1B_CONTROL, &access),
		  ACPI_ERROR_NOT_FOUND);
	EXPECT_EQ(acpi_fadt_register_access(&fadt, ACPI_FADT_RESET, &access),
		  ACPI_ERROR_NOT_FOUND);

	/* Toshiba TECRA A50-A: PM1a_CNT 16 bits with dword access. */
	fadt.pm1a_control = gas(ACPI_GAS_SYSTEM_IO, 16, ACPI_GAS_ACCESS_DWORD, 0x1804);
	ASSERT_EQ(acpi_fadt_register_access(&fadt, ACPI_FADT_PM1A_CONTROL, &access), ACPI_OK);
	EXPECT_EQ(access.bytes, 2);

	/* HP laptops: the reset register at 0xCF9, 8 bits with word access. */
	fadt.has_reset_register = true;
	fadt.reset_register = gas(ACPI_GAS_SYSTEM_IO, 8, ACPI_GAS_ACCESS_WORD, 0xcf9);
	ASSERT_EQ(acpi_fadt_register_access(&fadt, ACPI_FADT_RESET, &access), ACPI_OK);
	EXPECT_EQ(access.bytes, 1);
	EXPECT_EQ(access.address, 0xcf9);
	EXPECT_FALSE(access.width_corrected);

	/*
	 * A stated width other than the register's own is replaced by it
	 * (ACPICA's "Invalid length for FADT/PmTimerBlock: 8, using default 32"),
	 * and said so.
	 */
	fadt.pm_timer = gas(ACPI_GAS_SYSTEM_IO, 8, ACPI_GAS_ACCESS_BYTE, 0x408);
	ASSERT_EQ(acpi_fadt_register_access(&fadt, ACPI_FADT_PM_TIMER, &access), ACPI_OK);
	EXPECT_EQ(access.bytes, 4);
	EXPECT_TRUE(access.width_corrected);
	EXPECT_EQ(access.stated_bit_width, 8);
	fadt.reset_register = gas(ACPI_GAS_SYSTEM_MEMORY, 32, ACPI_GAS_ACCESS_DWORD, 0xfed00000);
	ASSERT_EQ(acpi_fadt_register_access(&fadt, ACPI_FADT_RESET, &access), ACPI_OK);
	EXPECT_EQ(access.bytes, 1);
	EXPECT_TRUE(access.width_corrected);
	/* An ACPI 1.0 port (no access size, width from PM1_CNT_LEN) is unchanged. */
	fadt.pm1a_control = gas(ACPI_GAS_SYSTEM_IO, 16, ACPI_GAS_ACCESS_UNDEFINED, 0x404);
	ASSERT_EQ(acpi_fadt_register_access(&fadt, ACPI_FADT_PM1A_CONTROL, &access), ACPI_OK);
	EXPECT_EQ(access.bytes, 2);
	EXPECT_FALSE(access.width_corrected);
}

/* ACPICA's register/region rule (hwregs.c, acpi_hw_get_access_bit_width()). */
static void gas_register_form_uses_bit_width_region_form_access_size(void)
{
	struct acpi_generic_address reg = gas(ACPI_GAS_SYSTEM_MEMORY, 32, ACPI_GAS_ACCESS_BYTE,
					       0x1000);
	struct acpi_gas_access access;

	ASSERT_EQ(acpi_gas_register_access(&reg, 8, &access), ACPI_OK);
	EXPECT_EQ(access.bytes, 4);
	/* A region (bit offset 3) is accessed at its access size. */
	reg.bit_offset = 3;
	reg.bit_width = 5;
	ASSERT_EQ(acpi_gas_register_access(&reg, 8, &access), ACPI_OK);
	EXPECT_EQ(access.bytes, 1);
	/* No access size: the power of two covering offset and width, aligned. */
	reg = gas(ACPI_GAS_SYSTEM_MEMORY, 24, 0, 0x1000);
	ASSERT_EQ(acpi_gas_register_access(&reg, 8, &access), ACPI_OK);
	EXPECT_EQ(access.bytes, 4);
	reg.address = 0x1002;
	ASSERT_EQ(acpi_gas_register_access(&reg, 8, &access), ACPI_OK);
	EXPECT_EQ(access.bytes, 2);
	/* I/O is at most 32 bits wide; the caller's maximum caps the rest. */
	reg = gas(ACPI_GAS_SYSTEM_IO, 64, 0, 0x600);
	ASSERT_EQ(acpi_gas_register_access(&reg, 8, &access), ACPI_OK);
	EXPECT_EQ(access.bytes, 4);
	reg = gas(ACPI_GAS_SYSTEM_MEMORY, 64, 0, 0x1000);
	ASSERT_EQ(acpi_gas_register_access(&reg, 2, &access), ACPI_OK);
	EXPECT_EQ(access.bytes, 2);
	/* The SPCR's reading (access size first) differs on the same GAS. */
	reg = gas(ACPI_GAS_SYSTEM_IO, 32, ACPI_GAS_ACCESS_BYTE, 0x808);
	ASSERT_EQ(acpi_gas_decode(&reg, 4, &access), ACPI_OK);
	EXPECT_EQ(access.bytes, 1);
	reg.access_size = 7;
	reg.bit_offset = 1;
	EXPECT_EQ(acpi_gas_register_access(&reg, 8, &access), ACPI_ERROR_MALFORMED);
}

static void fadt_cut_inside_a_gas_ignores_it(void)
{
	struct acpi_fadt fadt;

	fadt_full();
	put32(table + 4, 219);	/* X_PM_TMR_BLK is 208..219 */
	ASSERT_EQ(parse_fadt(&fadt), ACPI_OK);
	EXPECT_EQ(fadt.x_pm_timer.address, 0);
	EXPECT_EQ(fadt.pm_timer.address, 0x608);
	EXPECT_EQ(fadt.pm_timer.access_size, ACPI_GAS_ACCESS_UNDEFINED);
	EXPECT_EQ(fadt.x_pm1a_control.address, 0x604);
}

static void extended_pm_timer_is_preferred(void)
{
	struct acpi_fadt fadt;

	fadt_full();
	put_gas(table + 208, ACPI_GAS_SYSTEM_MEMORY, 32, 0, ACPI_GAS_ACCESS_DWORD, 0xfed00f0ull);
	ASSERT_EQ(parse_fadt(&fadt), ACPI_OK);
	EXPECT_EQ(fadt.pm_timer.space_id, ACPI_GAS_SYSTEM_MEMORY);
	EXPECT_EQ(fadt.pm_timer.address, 0xfed00f0ull);
	EXPECT_EQ(fadt.pm_timer_port, 0x608);
}

static void zero_extended_pm_timer_falls_back_to_the_port(void)
{
	struct acpi_fadt fadt;

	fadt_full();
	put_gas(table + 208, ACPI_GAS_SYSTEM_IO, 32, 0, 0, 0);
	put32(table + 112, 0);	/* 24-bit timer */
	ASSERT_EQ(parse_fadt(&fadt), ACPI_OK);
	EXPECT_EQ(fadt.pm_timer.address, 0x608);
	EXPECT_EQ(fadt.pm_timer.access_size, ACPI_GAS_ACCESS_UNDEFINED);
	EXPECT_FALSE(fadt.pm_timer_32bit);

	put32(table + 76, 0);	/* and no port either: no timer */
	ASSERT_EQ(parse_fadt(&fadt), ACPI_OK);
	EXPECT_EQ(fadt.pm_timer.address, 0);
	EXPECT_EQ(fadt.pm_timer.space_id, 0);
}

static void x_dsdt_is_preferred(void)
{
	struct acpi_fadt fadt;

	fadt_full();
	put64(table + 140, 0x17fe00000ull);
	ASSERT_EQ(parse_fadt(&fadt), ACPI_OK);
	EXPECT_EQ(fadt.x_dsdt_address, 0x17fe00000ull);
	EXPECT_EQ(fadt.dsdt_address, 0x17fe00000ull);
	EXPECT_EQ(fadt.dsdt_address32, 0x7fe0040);
}

static void hardware_reduced_flag_is_read(void)
{
	struct acpi_fadt fadt;

	fadt_full();
	put32(table + 112, ACPI_FADT_HW_REDUCED_ACPI);
	ASSERT_EQ(parse_fadt(&fadt), ACPI_OK);
	EXPECT_TRUE(fadt.hardware_reduced);
	EXPECT_FALSE(fadt.reset_supported);
	EXPECT_FALSE(fadt.pm_timer_32bit);
}

static void legacy_boot_flags_are_read(void)
{
	struct acpi_fadt fadt;

	fadt_full();
	put16(table + 109, ACPI_IAPC_LEGACY_DEVICES | ACPI_IAPC_CMOS_RTC_NOT_PRESENT);
	ASSERT_EQ(parse_fadt(&fadt), ACPI_OK);
	EXPECT_EQ(fadt.iapc_boot_arch, ACPI_IAPC_LEGACY_DEVICES | ACPI_IAPC_CMOS_RTC_NOT_PRESENT);
	EXPECT_FALSE(fadt.iapc_boot_arch & ACPI_IAPC_8042);
}

static void header_only_fadt_has_nothing(void)
{
	struct acpi_fadt fadt;

	fadt_full();
	put32(table + 4, 36);
	ASSERT_EQ(parse_fadt(&fadt), ACPI_OK);
	EXPECT_EQ(fadt.dsdt_address, 0);
	EXPECT_EQ(fadt.pm_timer.address, 0);
	EXPECT_EQ(fadt.flags, 0);
	EXPECT_FALSE(fadt.has_iapc_boot_arch);
	EXPECT_EQ(fadt.century, 0);
}

static void fadt_with_wrong_signature_is_rejected(void)
{
	struct acpi_fadt fadt;

	fadt_full();
	memcpy(table, "FADT", 4);
	EXPECT_EQ(parse_fadt(&fadt), ACPI_ERROR_BAD_SIGNATURE);
	EXPECT_EQ(fadt.dsdt_address, 0);
	EXPECT_EQ(acpi_fadt_parse(table, 276, NULL), ACPI_ERROR_INVALID_ARGUMENT);
}

/* --- HPET, MCFG ---------------------------------------------------------------------- */

static void hpet_table_is_parsed(void)
{
	struct acpi_hpet hpet;

	begin_table(table, "HPET", 56, 1);
	put32(table + 36, 0x8086a201);
	put_gas(table + 40, ACPI_GAS_SYSTEM_MEMORY, 64, 0, 0, 0xfed00000);
	table[52] = 0;
	put16(table + 53, 0x80);
	table[55] = 1;
	seal(table);
	ASSERT_EQ(acpi_hpet_parse(at_end(table, 56), 56, &hpet), ACPI_OK);
	EXPECT_EQ(hpet.event_timer_block_id, 0x8086a201);
	EXPECT_EQ(hpet.base.space_id, ACPI_GAS_SYSTEM_MEMORY);
	EXPECT_EQ(hpet.base.bit_width, 64);
	EXPECT_EQ(hpet.base.address, 0xfed00000);
	EXPECT_EQ(hpet.hpet_number, 0);
	EXPECT_EQ(hpet.minimum_tick, 0x80);
	EXPECT_EQ(hpet.page_protection, 1);
}

static void short_hpet_table_is_rejected(void)
{
	struct acpi_hpet hpet;

	begin_table(table, "HPET", 52, 1);
	put_gas(table + 40, 0, 64, 0, 0, 0xfed00000);
	seal(table);
	EXPECT_EQ(acpi_hpet_parse(at_end(table, 52), 52, &hpet), ACPI_ERROR_BAD_LENGTH);
	EXPECT_EQ(hpet.base.address, 0);
}

static void mcfg_allocations_are_parsed(void)
{
	struct acpi_mcfg mcfg;

	begin_table(table, "MCFG", 44 + 2 * 16 + 7, 1);
	put64(table + 44, 0xb0000000);
	put16(table + 52, 0);
	table[54] = 0;
	table[55] = 0xff;
	put64(table + 60, 0x1000000000ull);
	put16(table + 68, 1);
	table[70] = 0x10;
	table[71] = 0x1f;
	seal(table);
	ASSERT_EQ(acpi_mcfg_parse(at_end(table, 83), 83, &mcfg), ACPI_OK);
	ASSERT_EQ(mcfg.allocation_count, 2);
	EXPECT_EQ(mcfg.allocations[0].base_address, 0xb0000000);
	EXPECT_EQ(mcfg.allocations[0].end_bus, 0xff);
	EXPECT_EQ(mcfg.allocations[1].base_address, 0x1000000000ull);
	EXPECT_EQ(mcfg.allocations[1].segment_group, 1);
	EXPECT_EQ(mcfg.allocations[1].start_bus, 0x10);
	EXPECT_EQ(mcfg.allocations[1].end_bus, 0x1f);
	EXPECT_EQ(mcfg.allocations_beyond_capacity, 0);
}

static void mcfg_allocations_beyond_capacity_are_counted(void)
{
	const uint32_t count = ACPI_MAX_MCFG_ALLOCATIONS + 3;
	struct acpi_mcfg mcfg;

	begin_table(table, "MCFG", 44 + 16 * count, 1);
	for (uint32_t i = 0; i < count; i++)
		put16(table + 44 + 16 * i + 8, (uint16_t)i);
	seal(table);
	ASSERT_EQ(acpi_mcfg_parse(table, 44 + 16 * count, &mcfg), ACPI_OK);
	EXPECT_EQ(mcfg.allocation_count, (size_t)ACPI_MAX_MCFG_ALLOCATIONS);
	EXPECT_EQ(mcfg.allocations_beyond_capacity, 3);
	EXPECT_EQ(mcfg.allocations[ACPI_MAX_MCFG_ALLOCATIONS - 1].segment_group,
		  ACPI_MAX_MCFG_ALLOCATIONS - 1);

	begin_table(table, "MCFG", 40, 1);
	seal(table);
	EXPECT_EQ(acpi_mcfg_parse(table, 40, &mcfg), ACPI_ERROR_BAD_LENGTH);
}

/* --- \_S5 ------------------------------------------------------------------------------ */

static int find_s5(const uint8_t *aml, size_t aml_length, struct acpi_sleep_type *sleep)
{
	size_t length = 36 + aml_length;

	memset(table, 0, sizeof(table));
	begin_table(table, "DSDT", (uint32_t)length, 2);
	memcpy(table + 36, aml, aml_length);
	seal(table);
	return acpi_aml_find_s5(at_end(table, length), length, sleep);
}

static void s5_with_zero_ops_is_found(void)
{
	/* QEMU's: Name (_S5, Package (0x04) { Zero, Zero, Zero, Zero }), after other code */
	static const uint8_t aml[] = {
		0x10, 0x05, 0x5c, 0x2e, 0x5f, 0x53, 0x42,	/* noise before */
		0x08, '_', 'S', '5', '_', 0x12, 0x06, 0x04, 0x00, 0x00, 0x00, 0x00,
	};
	struct acpi_sleep_type sleep = { 0xaa, 0xbb };

	EXPECT_EQ(find_s5(aml, sizeof(aml), &sleep), ACPI_OK);
	EXPECT_EQ(sleep.slp_typ_a, 0);
	EXPECT_EQ(sleep.slp_typ_b, 0);
}

static void s5_with_byte_prefixes_is_found(void)
{
	/* Name (_S5, Package (0x04) { 0x07, 0x05, Zero, Zero }) */
	static const uint8_t aml[] = {
		0x08, '_', 'S', '5', '_', 0x12, 0x08, 0x04, 0x0a, 0x07, 0x0a, 0x05, 0x00, 0x00,
	};
	struct acpi_sleep_type sleep;

	EXPECT_EQ(find_s5(aml, sizeof(aml), &sleep), ACPI_OK);
	EXPECT_EQ(sleep.slp_typ_a, 7);
	EXPECT_EQ(sleep.slp_typ_b, 5);
}

static void s5_with_root_prefix_and_mixed_encodings_is_found(void)
{
	/* Name (\_S5, Package (0x02) { One, 0x0006 as a word }) */
	static const uint8_t aml[] = {
		0x08, '\\', '_', 'S', '5', '_', 0x12, 0x06, 0x02, 0x01, 0x0b, 0x06, 0x00,
	};
	struct acpi_sleep_type sleep;

	EXPECT_EQ(find_s5(aml, sizeof(aml), &sleep), ACPI_OK);
	EXPECT_EQ(sleep.slp_typ_a, 1);
	EXPECT_EQ(sleep.slp_typ_b, 6);
}

static void s5_with_parent_prefix_and_dword_is_found(void)
{
	static const uint8_t aml[] = {
		0x08, '^', '^', '_', 'S', '5', '_', 0x12, 0x10, 0x02,
		0x0c, 0x03, 0x00, 0x00, 0x00, 0x0e, 0x04, 0, 0, 0, 0, 0, 0, 0,
	};
	struct acpi_sleep_type sleep;

	EXPECT_EQ(find_s5(aml, sizeof(aml), &sleep), ACPI_OK);
	EXPECT_EQ(sleep.slp_typ_a, 3);
	EXPECT_EQ(sleep.slp_typ_b, 4);
}

static void s5_with_one_element_packs_both_values(void)
{
	/* Older firmware: Package (1) { 0x0705 }: SLP_TYPa 5, SLP_TYPb 7 */
	static const uint8_t aml[] = {
		0x08, '_', 'S', '5', '_', 0x12, 0x05, 0x01, 0x0b, 0x05, 0x07,
	};
	struct acpi_sleep_type sleep;

	EXPECT_EQ(find_s5(aml, sizeof(aml), &sleep), ACPI_OK);
	EXPECT_EQ(sleep.slp_typ_a, 5);
	EXPECT_EQ(sleep.slp_typ_b, 7);
}

static void s5_with_multi_byte_package_length_is_found(void)
{
	/* PkgLength 0x41 0x01: one following byte, length 0x11 = 17 */
	uint8_t aml[5 + 1 + 17];
	struct acpi_sleep_type sleep;

	memset(aml, 0, sizeof(aml));
	memcpy(aml, "\x08_S5_\x12", 6);
	aml[6] = 0x41;
	aml[7] = 0x01;
	aml[8] = 0x04;
	aml[9] = 0x0a;
	aml[10] = 0x02;
	aml[11] = 0xff;	/* OnesOp */
	ASSERT_EQ(sizeof(aml), 6 + 17u);
	EXPECT_EQ(find_s5(aml, sizeof(aml), &sleep), ACPI_OK);
	EXPECT_EQ(sleep.slp_typ_a, 2);
	EXPECT_EQ(sleep.slp_typ_b, 0xff);
}

static void s5_absent_is_not_found(void)
{
	static const uint8_t aml[] = {
		0x08, '_', 'S', '3', '_', 0x12, 0x06, 0x04, 0x01, 0x01, 0x00, 0x00,
	};
	struct acpi_sleep_type sleep;

	EXPECT_EQ(find_s5(aml, sizeof(aml), &sleep), ACPI_ERROR_NOT_FOUND);
	EXPECT_EQ(find_s5(aml, 0, &sleep), ACPI_ERROR_NOT_FOUND);
}

static void s5_not_declared_by_name_is_not_found(void)
{
	/* A Method (_S5_) or a reference to the name: not a NameOp declaration. */
	static const uint8_t aml[] = {
		0x14, 0x09, '_', 'S', '5', '_', 0x00, 0xa4, 0x12, 0x03, 0x01, 0x00,
		0x70, '_', 'S', '5', '_', 0x60,
	};
	struct acpi_sleep_type sleep;

	EXPECT_EQ(find_s5(aml, sizeof(aml), &sleep), ACPI_ERROR_NOT_FOUND);
}

static void s5_package_running_past_the_table_is_malformed(void)
{
	static const uint8_t aml[] = {
		0x08, '_', 'S', '5', '_', 0x12, 0x3f, 0x04, 0x0a, 0x05, 0x0a, 0x05,
	};
	struct acpi_sleep_type sleep;

	EXPECT_EQ(find_s5(aml, sizeof(aml), &sleep), ACPI_ERROR_MALFORMED);
}

static void s5_cut_at_every_byte_is_never_read_past(void)
{
	static const uint8_t aml[] = {
		0x08, '_', 'S', '5', '_', 0x12, 0x41, 0x01, 0x04,
		0x0e, 1, 2, 3, 4, 5, 6, 7, 8, 0x0c, 1, 2, 3, 4,
	};
	struct acpi_sleep_type sleep;

	/* Whole: a 17-byte package, {QWord, DWord}.  Every shorter cut is malformed. */
	EXPECT_EQ(find_s5(aml, sizeof(aml), &sleep), ACPI_OK);
	EXPECT_EQ(sleep.slp_typ_a, 1);
	EXPECT_EQ(sleep.slp_typ_b, 1);
	for (size_t cut = 5; cut < sizeof(aml); cut++)
		EXPECT_EQ(find_s5(aml, cut, &sleep), ACPI_ERROR_MALFORMED);
}

static void s5_integer_crossing_the_package_end_is_malformed(void)
{
	/* PkgLength 5 ends the package after the WordPrefix's first byte. */
	static const uint8_t aml[] = {
		0x08, '_', 'S', '5', '_', 0x12, 0x05, 0x02, 0x00, 0x0b, 0x05, 0x00, 0x00,
	};
	struct acpi_sleep_type sleep;

	EXPECT_EQ(find_s5(aml, sizeof(aml), &sleep), ACPI_ERROR_MALFORMED);
}

static void s5_with_a_reference_element_is_malformed(void)
{
	static const uint8_t aml[] = {
		0x08, '_', 'S', '5', '_', 0x12, 0x0a, 0x02, 'S', 'L', 'P', 'A', 0x0a, 0x05, 0, 0,
	};
	struct acpi_sleep_type sleep;

	EXPECT_EQ(find_s5(aml, sizeof(aml), &sleep), ACPI_ERROR_MALFORMED);
}

static void s5_with_no_elements_is_malformed(void)
{
	static const uint8_t aml[] = { 0x08, '_', 'S', '5', '_', 0x12, 0x02, 0x00 };
	struct acpi_sleep_type sleep;

	EXPECT_EQ(find_s5(aml, sizeof(aml), &sleep), ACPI_ERROR_MALFORMED);
}

static void s5_first_bad_candidate_does_not_hide_a_good_one(void)
{
	static const uint8_t aml[] = {
		0x08, '_', 'S', '5', '_', 0x0a, 0x05,				/* not a package */
		0x08, '_', 'S', '5', '_', 0x12, 0x06, 0x04, 0x0a, 0x07, 0x0a, 0x07, 0x00,
	};
	struct acpi_sleep_type sleep;

	EXPECT_EQ(find_s5(aml, sizeof(aml), &sleep), ACPI_OK);
	EXPECT_EQ(sleep.slp_typ_a, 7);
	EXPECT_EQ(sleep.slp_typ_b, 7);
}

static void s5_in_a_table_with_a_bad_checksum_or_length(void)
{
	static const uint8_t aml[] = {
		0x08, '_', 'S', '5', '_', 0x12, 0x06, 0x04, 0x0a, 0x07, 0x0a, 0x07, 0x00,
	};
	struct acpi_sleep_type sleep;
	size_t length = 36 + sizeof(aml);

	begin_table(table, "DSDT", (uint32_t)length, 2);
	memcpy(table + 36, aml, sizeof(aml));
	seal(table);
	table[36 + 9] = 0x06;
	/* A bad checksum is warned of by acpi_tables_map(); the package is still read. */
	ASSERT_EQ(acpi_aml_find_s5(table, length, &sleep), ACPI_OK);
	EXPECT_EQ(sleep.slp_typ_a, 6);
	EXPECT_EQ(sleep.slp_typ_b, 7);
	EXPECT_EQ(acpi_aml_find_s5(table, length, NULL), ACPI_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(acpi_aml_find_s5(at_end(table, 30), 30, &sleep), ACPI_ERROR_TRUNCATED);
}

/* --- SPCR ------------------------------------------------------------------------- */

static int parse_spcr(uint8_t type, uint8_t space, uint8_t access, uint64_t address,
		      uint8_t baud_code, struct acpi_spcr *spcr)
{
	memset(table, 0, sizeof(table));
	begin_table(table, "SPCR", 80, 2);
	table[36] = type;
	put_gas(table + 40, space, 8, 0, access, address);
	table[52] = 3;
	table[53] = 3;
	put32(table + 54, 3);
	table[58] = baud_code;
	seal(table);
	return acpi_spcr_parse(at_end(table, 80), 80, spcr);
}

/* The SPCR as Linux's spcr.c reads it: a server's BMC UART at COM2, and what is refused. */
static void spcr_uart_is_validated(void)
{
	struct acpi_gas_access access;
	struct acpi_spcr spcr;
	unsigned int baud;

	ASSERT_EQ(parse_spcr(ACPI_SPCR_16550, ACPI_GAS_SYSTEM_IO, ACPI_GAS_ACCESS_DWORD, 0x2f8, 7,
			     &spcr), ACPI_OK);
	EXPECT_EQ(spcr.irq, 3);
	EXPECT_NULL(acpi_spcr_uart(&spcr, &access, &baud));
	EXPECT_EQ(access.space_id, ACPI_GAS_SYSTEM_IO);
	EXPECT_EQ(access.address, 0x2f8);
	EXPECT_EQ(access.bytes, 1);	/* I/O: bytes, whatever the access size */
	EXPECT_EQ(baud, 115200);

	ASSERT_EQ(parse_spcr(ACPI_SPCR_16550_GAS, ACPI_GAS_SYSTEM_MEMORY, ACPI_GAS_ACCESS_DWORD,
			     0xfe030000, 0, &spcr), ACPI_OK);
	EXPECT_NULL(acpi_spcr_uart(&spcr, &access, &baud));
	EXPECT_EQ(access.bytes, 4);	/* memory: the access size picks the width */
	EXPECT_EQ(baud, 0);		/* as the firmware left it */

	/*
	 * Access size undefined (0) on a 32-bit wide register: Linux's spcr.c
	 * finds no 8-, 16- or 32-bit access (ACPI_ACCESS_BIT_WIDTH(0) is 4) and
	 * uses bytes; the bit width does not count.
	 */
	ASSERT_EQ(parse_spcr(ACPI_SPCR_16550, ACPI_GAS_SYSTEM_MEMORY, ACPI_GAS_ACCESS_UNDEFINED,
			     0xfe030000, 7, &spcr), ACPI_OK);
	spcr.base.bit_width = 32;
	EXPECT_NULL(acpi_spcr_uart(&spcr, &access, &baud));
	EXPECT_EQ(access.bytes, 1);

	/* Address 0, as the SPCR of a Dell PowerEdge R820 has it. */
	ASSERT_EQ(parse_spcr(ACPI_SPCR_16550, ACPI_GAS_SYSTEM_MEMORY, 0, 0, 0, &spcr), ACPI_OK);
	EXPECT_STREQ(acpi_spcr_uart(&spcr, &access, &baud), "no UART address (0)");
	ASSERT_EQ(parse_spcr(3, ACPI_GAS_SYSTEM_MEMORY, 0, 0x1000, 7, &spcr), ACPI_OK);
	EXPECT_STREQ(acpi_spcr_uart(&spcr, &access, &baud), "not a 16550-compatible UART");
	ASSERT_EQ(parse_spcr(ACPI_SPCR_16550, ACPI_GAS_SYSTEM_IO, 0, 0x3f8, 5, &spcr), ACPI_OK);
	EXPECT_STREQ(acpi_spcr_uart(&spcr, &access, &baud), "an unknown baud rate code");
	ASSERT_EQ(parse_spcr(ACPI_SPCR_16550, ACPI_GAS_PCI_CONFIG, 0, 0x3f8, 7, &spcr), ACPI_OK);
	EXPECT_STREQ(acpi_spcr_uart(&spcr, &access, &baud),
		     "the UART is neither in I/O nor in memory space");
	EXPECT_EQ(acpi_spcr_parse(at_end(table, 60), 60, &spcr), ACPI_ERROR_TRUNCATED);
}

/* --- Random input -------------------------------------------------------------------- */

/*
 * Random bodies behind valid headers and checksums reach every parser's
 * inner logic; ASan checks they stay inside, the expectations check the
 * outputs stay consistent.
 */
static void random_tables_are_survived(void)
{
	struct acpi_fadt fadt;
	struct acpi_hpet hpet;
	struct acpi_mcfg mcfg;
	struct acpi_sleep_type sleep;
	struct acpi_root_table root;

	for (int round = 0; round < 400; round++) {
		size_t length = 36 + test_random() % 600;
		const uint8_t *copy;
		int result;

		memset(table, 0, sizeof(table));
		begin_table(table, "APIC", (uint32_t)length, 1);
		for (size_t i = 36; i < length; i++)
			table[i] = (uint8_t)test_random();
		/* Bias the AML scan towards the interesting case. */
		if (round % 2 && length > 48)
			memcpy(table + 36 + test_random() % (length - 48), "\x08_S5_\x12", 6);
		seal(table);
		copy = at_end(table, length);
		memset(&messages, 0, sizeof(messages));
		result = acpi_madt_parse(copy, length, &reporter, &madt);
		EXPECT_TRUE(result == ACPI_OK || result == ACPI_ERROR_BAD_LENGTH);
		EXPECT_LE(madt.cpu_count, (size_t)ACPI_MAX_CPUS);
		EXPECT_LE(madt.nmi_count, (size_t)ACPI_MAX_LOCAL_NMIS);
		EXPECT_FALSE(messages.too_long);

		memcpy(table, "FACP", 4);
		seal(table);
		EXPECT_EQ(acpi_fadt_parse(at_end(table, length), length, &fadt), ACPI_OK);
		EXPECT_EQ(fadt.length, length);

		memcpy(table, "HPET", 4);
		seal(table);
		result = acpi_hpet_parse(at_end(table, length), length, &hpet);
		EXPECT_EQ(result, length >= 56 ? ACPI_OK : ACPI_ERROR_BAD_LENGTH);

		memcpy(table, "MCFG", 4);
		seal(table);
		result = acpi_mcfg_parse(at_end(table, length), length, &mcfg);
		if (result == ACPI_OK)
			EXPECT_EQ(mcfg.allocation_count + mcfg.allocations_beyond_capacity,
				  (length - 44) / 16);

		memcpy(table, "XSDT", 4);
		seal(table);
		EXPECT_EQ(acpi_root_table_parse(at_end(table, length), length, true, &root),
			  ACPI_OK);
		EXPECT_EQ(root.entry_count, (length - 36) / 8);

		memcpy(table, "DSDT", 4);
		seal(table);
		result = acpi_aml_find_s5(at_end(table, length), length, &sleep);
		EXPECT_TRUE(result == ACPI_OK || result == ACPI_ERROR_NOT_FOUND ||
			    result == ACPI_ERROR_MALFORMED);

		/* And with the stated length promising more than is readable. */
		memcpy(table, "APIC", 4);
		seal(table);
		EXPECT_EQ(acpi_madt_parse(at_end(table, length - 1), length - 1, NULL, &madt),
			  ACPI_ERROR_TRUNCATED);
	}
}

static const struct test_case acpi_tables_cases[] = {
	TEST_CASE(error_names_are_distinct),
	TEST_CASE(rsdp_revision_0_is_valid_and_uses_rsdt),
	TEST_CASE(rsdp_revision_2_uses_xsdt),
	TEST_CASE(rsdp_revision_2_without_xsdt_uses_rsdt),
	TEST_CASE(rsdp_revision_1_is_read_as_acpi_1),
	TEST_CASE(rsdp_bad_signature_is_rejected),
	TEST_CASE(rsdp_bad_checksum_is_rejected),
	TEST_CASE(rsdp_bad_extended_checksum_is_rejected),
	TEST_CASE(rsdp_length_below_36_is_rejected),
	TEST_CASE(rsdp_length_beyond_available_is_rejected),
	TEST_CASE(rsdp_revision_2_cut_to_20_bytes_is_rejected),
	TEST_CASE(valid_table_header_is_read),
	TEST_CASE(table_bad_checksum_is_rejected),
	TEST_CASE(table_wrong_signature_is_rejected),
	TEST_CASE(table_length_below_header_is_rejected),
	TEST_CASE(table_length_larger_than_available_is_rejected),
	TEST_CASE(table_shorter_than_a_header_is_rejected),
	TEST_CASE(rsdt_entries_are_read),
	TEST_CASE(xsdt_unaligned_entries_are_read),
	TEST_CASE(tables_are_found_through_the_xsdt),
	TEST_CASE(revision_0_rsdp_uses_the_rsdt),
	TEST_CASE(bad_xsdt_falls_back_to_the_rsdt),
	TEST_CASE(xsdt_with_a_bad_checksum_is_used_with_a_warning),
	TEST_CASE(invalid_rsdp_is_reported),
	TEST_CASE(missing_root_tables_are_reported),
	TEST_CASE(null_accessor_maps_nothing),
	TEST_CASE(find_skips_a_bad_copy_and_reports_it),
	TEST_CASE(find_counts_instances),
	TEST_CASE(table_longer_than_mapped_memory_is_skipped),
	TEST_CASE(implausible_length_is_not_mapped),
	TEST_CASE(next_reports_every_bad_entry),
	TEST_CASE(map_checks_the_expected_signature),
	TEST_CASE(signatures_in_reports_are_printable),
	TEST_CASE(rsdp_is_mapped_by_address),
	TEST_CASE(revision_0_rsdp_at_the_end_of_memory_is_mapped),
	TEST_CASE(truncated_rsdp_by_address_is_reported),
	TEST_CASE(qemu_like_madt_is_parsed),
	TEST_CASE(non_contiguous_apic_ids_are_kept),
	TEST_CASE(disabled_and_online_capable_cpus_are_distinguished),
	TEST_CASE(local_apic_address_override_is_used),
	TEST_CASE(second_local_apic_override_is_ignored),
	TEST_CASE(x2apic_entries_are_parsed),
	TEST_CASE(local_apic_nmi_for_one_processor_is_parsed),
	TEST_CASE(zero_length_entry_stops_the_walk),
	TEST_CASE(length_one_entry_stops_the_walk),
	TEST_CASE(entry_past_the_end_stops_the_walk),
	TEST_CASE(stray_trailing_byte_is_reported),
	TEST_CASE(entry_shorter_than_its_type_is_skipped),
	TEST_CASE(longer_entries_are_accepted),
	TEST_CASE(unknown_entry_types_are_skipped_by_length),
	TEST_CASE(more_cpus_than_capacity_are_counted),
	TEST_CASE(duplicate_apic_ids_are_reported_not_merged),
	TEST_CASE(placeholder_duplicates_are_summed_up_in_one_report),
	TEST_CASE(io_apics_beyond_capacity_are_counted),
	TEST_CASE(madt_header_problems_are_errors),
	TEST_CASE(madt_shorter_than_44_bytes_is_rejected),
	TEST_CASE(empty_madt_has_no_cpus),
	TEST_CASE(full_fadt_is_parsed),
	TEST_CASE(acpi_1_fadt_has_only_the_old_fields),
	TEST_CASE(fadt_length_cutting_reset_value_has_no_reset_register),
	TEST_CASE(revision_1_fadt_reset_register_is_not_trusted),
	TEST_CASE(gas_io_and_memory_registers_are_decoded),
	TEST_CASE(gas_pci_config_register_is_decoded),
	TEST_CASE(bad_gas_registers_are_refused),
	TEST_CASE(fadt_register_widths_follow_acpica_on_real_machines),
	TEST_CASE(gas_register_form_uses_bit_width_region_form_access_size),
	TEST_CASE(fadt_cut_inside_a_gas_ignores_it),
	TEST_CASE(extended_pm_timer_is_preferred),
	TEST_CASE(zero_extended_pm_timer_falls_back_to_the_port),
	TEST_CASE(x_dsdt_is_preferred),
	TEST_CASE(hardware_reduced_flag_is_read),
	TEST_CASE(legacy_boot_flags_are_read),
	TEST_CASE(header_only_fadt_has_nothing),
	TEST_CASE(fadt_with_wrong_signature_is_rejected),
	TEST_CASE(hpet_table_is_parsed),
	TEST_CASE(short_hpet_table_is_rejected),
	TEST_CASE(mcfg_allocations_are_parsed),
	TEST_CASE(mcfg_allocations_beyond_capacity_are_counted),
	TEST_CASE(s5_with_zero_ops_is_found),
	TEST_CASE(s5_with_byte_prefixes_is_found),
	TEST_CASE(s5_with_root_prefix_and_mixed_encodings_is_found),
	TEST_CASE(s5_with_parent_prefix_and_dword_is_found),
	TEST_CASE(s5_with_one_element_packs_both_values),
	TEST_CASE(s5_with_multi_byte_package_length_is_found),
	TEST_CASE(s5_absent_is_not_found),
	TEST_CASE(s5_not_declared_by_name_is_not_found),
	TEST_CASE(s5_package_running_past_the_table_is_malformed),
	TEST_CASE(s5_cut_at_every_byte_is_never_read_past),
	TEST_CASE(s5_integer_crossing_the_package_end_is_malformed),
	TEST_CASE(s5_with_a_reference_element_is_malformed),
	TEST_CASE(s5_with_no_elements_is_malformed),
	TEST_CASE(s5_first_bad_candidate_does_not_hide_a_good_one),
	TEST_CASE(s5_in_a_table_with_a_bad_checksum_or_length),
	TEST_CASE(spcr_uart_is_validated),
	TEST_CASE(random_tables_are_survived),
};
TEST_SUITE(lib_acpi_tables, acpi_tables_cases, NULL, NULL);
