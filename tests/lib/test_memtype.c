// SPDX-License-Identifier: MIT
/*
 * Tests for kernel/lib/memtype.c: MTRR layouts a firmware may leave,
 * the precedence rules, and the MTRR x PAT table of SDM vol 3A, table 12-7.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <harness/test.h>
#include <lib/memtype.h>
#include <lib/string.h>

#define MIB		(1024ull * 1024)
#define GIB		(1024 * MIB)
#define WB_BIT		MEMTYPE_BIT(MEMTYPE_WB)
#define UC_BIT		MEMTYPE_BIT(MEMTYPE_UC)
#define WT_BIT		MEMTYPE_BIT(MEMTYPE_WT)
#define UNDEFINED_BIT	MEMTYPE_BIT(MEMTYPE_UNDEFINED)

/* MTRRs on, fixed ranges off, default @type, no variable range, 36 address bits. */
static struct mtrr_settings enabled_mtrrs(enum memtype type)
{
	struct mtrr_settings mtrr;

	memset(&mtrr, 0, sizeof(mtrr));
	mtrr.present = true;
	mtrr.capabilities = MTRR_CAP_FIXED | 8;
	mtrr.default_type = MTRR_DEF_ENABLE | type;
	mtrr.physical_address_bits = 36;
	return mtrr;
}

/* A variable range of @size bytes (a power of two) at @base, as PHYSBASE/PHYSMASK hold it. */
static void add_range(struct mtrr_settings *mtrr, uint64_t base, uint64_t size,
		      enum memtype type)
{
	uint64_t mask = ~(size - 1) & ((1ull << mtrr->physical_address_bits) - 1);

	mtrr->variable[mtrr->variable_count].base = base | type;
	mtrr->variable[mtrr->variable_count].mask = mask | MTRR_PHYSMASK_VALID;
	mtrr->variable_count++;
}

static void effective_types_follow_table_12_7(void)
{
	/* Rows: the MTRR type; columns: the PAT entry UC, UC-, WC, WT, WB, WP. */
	static const enum memtype columns[] = { MEMTYPE_UC, MEMTYPE_UC_MINUS,
						    MEMTYPE_WC, MEMTYPE_WT,
						    MEMTYPE_WB, MEMTYPE_WP };
	static const struct {
		enum memtype mtrr;
		const char *effective[6];
	} rows[] = {
		{ MEMTYPE_UC, { "UC", "UC", "WC", "UC", "UC", "UC" } },
		{ MEMTYPE_WC, { "UC", "WC", "WC", "UC", "WC", "UC" } },
		{ MEMTYPE_WT, { "UC", "UC", "WC", "WT", "WT", "WP" } },
		{ MEMTYPE_WB, { "UC", "UC", "WC", "WT", "WB", "WP" } },
		{ MEMTYPE_WP, { "UC", "WC", "WC", "WT", "WP", "WP" } },
	};

	for (size_t row = 0; row < sizeof(rows) / sizeof(rows[0]); row++) {
		for (size_t column = 0; column < 6; column++) {
			const char *got = memtype_name(
				memtype_effective(rows[row].mtrr, columns[column]));

			if (strcmp(got, rows[row].effective[column]) != 0)
				test_report_failure(__FILE__, __LINE__,
						    "MTRR %s, PAT %s: got %s, table 12-7 says %s",
						    memtype_name(rows[row].mtrr),
						    memtype_name(columns[column]), got,
						    rows[row].effective[column]);
		}
	}
	EXPECT_EQ(memtype_effective(MEMTYPE_UNDEFINED, MEMTYPE_WB),
		  MEMTYPE_UNDEFINED);
	EXPECT_EQ(memtype_effective(MEMTYPE_WB, MEMTYPE_UNDEFINED),
		  MEMTYPE_UNDEFINED);
	/* UC- is a PAT type only: as an MTRR type it is not valid. */
	EXPECT_EQ(memtype_effective(MEMTYPE_UC_MINUS, MEMTYPE_WB),
		  MEMTYPE_UNDEFINED);
}

static void absent_or_disabled_mtrrs(void)
{
	struct mtrr_settings mtrr = enabled_mtrrs(MEMTYPE_WB);

	EXPECT_EQ(mtrr_types_of_range(&mtrr, MIB, 256 * MIB), WB_BIT);
	EXPECT_EQ(mtrr_types_of_range(&mtrr, MIB, MIB), 0);	/* empty */
	/* E clear: every byte UC, whatever the default type field says. */
	mtrr.default_type &= ~MTRR_DEF_ENABLE;
	EXPECT_EQ(mtrr_types_of_range(&mtrr, MIB, 256 * MIB), UC_BIT);
	/* No MTRRs at all (CPUID.01H:EDX[12] clear): the PAT alone decides. */
	mtrr.present = false;
	EXPECT_EQ(mtrr_types_of_range(&mtrr, 0, 256 * MIB), WB_BIT);
}

static void write_back_ram_below_an_uncached_hole(void)
{
	/* SeaBIOS's way: default WB, the PCI hole 3-4 GiB UC. */
	struct mtrr_settings mtrr = enabled_mtrrs(MEMTYPE_WB);

	add_range(&mtrr, 3 * GIB, GIB, MEMTYPE_UC);
	EXPECT_EQ(mtrr_types_of_range(&mtrr, MIB, 256 * MIB), WB_BIT);
	EXPECT_EQ(mtrr_types_of_range(&mtrr, 2 * GIB, 3 * GIB), WB_BIT);
	EXPECT_EQ(mtrr_types_of_range(&mtrr, 3 * GIB - 4096, 3 * GIB + 4096), WB_BIT | UC_BIT);
	EXPECT_EQ(mtrr_types_of_range(&mtrr, 3 * GIB, 4 * GIB), UC_BIT);
	EXPECT_EQ(mtrr_types_of_range(&mtrr, 4 * GIB, 24 * GIB), WB_BIT);

	/* The other way round: default UC, WB ranges for 0-2 GiB and 2-3 GiB. */
	mtrr = enabled_mtrrs(MEMTYPE_UC);
	add_range(&mtrr, 0, 2 * GIB, MEMTYPE_WB);
	add_range(&mtrr, 2 * GIB, GIB, MEMTYPE_WB);
	EXPECT_EQ(mtrr_types_of_range(&mtrr, MIB, 3 * GIB), WB_BIT);
	EXPECT_EQ(mtrr_types_of_range(&mtrr, MIB, 3 * GIB + 4096), WB_BIT | UC_BIT);
	/* An invalid pair (V clear) matches nothing. */
	mtrr.variable[1].mask &= ~MTRR_PHYSMASK_VALID;
	EXPECT_EQ(mtrr_types_of_range(&mtrr, 2 * GIB, 3 * GIB), UC_BIT);
}

static void overlapping_ranges_follow_the_precedence(void)
{
	struct mtrr_settings mtrr = enabled_mtrrs(MEMTYPE_WB);

	/* WT over WB gives WT. */
	add_range(&mtrr, 0, GIB, MEMTYPE_WB);
	add_range(&mtrr, 256 * MIB, 256 * MIB, MEMTYPE_WT);
	EXPECT_EQ(mtrr_types_of_range(&mtrr, 256 * MIB, 512 * MIB), WT_BIT);
	EXPECT_EQ(mtrr_types_of_range(&mtrr, MIB, 256 * MIB), WB_BIT);
	/* UC wins over anything, even over an undefined pair. */
	add_range(&mtrr, 256 * MIB, 128 * MIB, MEMTYPE_WC);
	EXPECT_EQ(mtrr_types_of_range(&mtrr, 256 * MIB, 384 * MIB), UNDEFINED_BIT);
	add_range(&mtrr, 256 * MIB, 64 * MIB, MEMTYPE_UC);
	EXPECT_EQ(mtrr_types_of_range(&mtrr, 256 * MIB, 320 * MIB), UC_BIT);
	EXPECT_EQ(mtrr_types_of_range(&mtrr, 256 * MIB, 512 * MIB),
		  UC_BIT | UNDEFINED_BIT | WT_BIT);
	/* Two ranges of the same type agree. */
	mtrr = enabled_mtrrs(MEMTYPE_UC);
	add_range(&mtrr, 0, GIB, MEMTYPE_WB);
	add_range(&mtrr, 0, 512 * MIB, MEMTYPE_WB);
	EXPECT_EQ(mtrr_types_of_range(&mtrr, MIB, GIB), WB_BIT);
	/* A reserved type in a range is never taken for anything known. */
	mtrr.variable[1].base = 2;
	EXPECT_EQ(mtrr_types_of_range(&mtrr, MIB, 512 * MIB), UNDEFINED_BIT);
}

static void fixed_ranges_decide_below_one_mib(void)
{
	struct mtrr_settings mtrr = enabled_mtrrs(MEMTYPE_UC);

	for (unsigned int i = 0; i < MTRR_FIXED_COUNT; i++)
		mtrr.fixed[i] = 0x0606060606060606ull;	/* all WB */
	mtrr.fixed[0] = 0x0006060606060606ull;		/* 70000-7FFFF UC */
	mtrr.fixed[2] = 0x0101010101010101ull;		/* A0000-BFFFF WC */
	mtrr.fixed[10] = 0x0506060606060606ull;		/* FF000-FFFFF WP */
	mtrr.default_type |= MTRR_DEF_FIXED_ENABLE;
	EXPECT_EQ(mtrr_types_of_range(&mtrr, 0x1000, 0x70000), WB_BIT);
	EXPECT_EQ(mtrr_types_of_range(&mtrr, 0x6f000, 0x71000), WB_BIT | UC_BIT);
	EXPECT_EQ(mtrr_types_of_range(&mtrr, 0xa0000, 0xc0000), MEMTYPE_BIT(MEMTYPE_WC));
	EXPECT_EQ(mtrr_types_of_range(&mtrr, 0xfe000, 0xff000), WB_BIT);
	EXPECT_EQ(mtrr_types_of_range(&mtrr, 0xff000, 0x100000), MEMTYPE_BIT(MEMTYPE_WP));
	/* Past 1 MiB the default (UC here) and the variable ranges take over. */
	EXPECT_EQ(mtrr_types_of_range(&mtrr, 0xfe000, 0x101000),
		  WB_BIT | MEMTYPE_BIT(MEMTYPE_WP) | UC_BIT);
	/* FE clear, or no fixed ranges offered: the variable ranges and default decide. */
	mtrr.default_type &= ~MTRR_DEF_FIXED_ENABLE;
	EXPECT_EQ(mtrr_types_of_range(&mtrr, 0x1000, 0x70000), UC_BIT);
	mtrr.default_type |= MTRR_DEF_FIXED_ENABLE;
	mtrr.capabilities &= ~MTRR_CAP_FIXED;
	EXPECT_EQ(mtrr_types_of_range(&mtrr, 0x1000, 0x70000), UC_BIT);
}

static void non_contiguous_masks_are_evaluated_or_never_taken_for_write_back(void)
{
	struct mtrr_settings mtrr = enabled_mtrrs(MEMTYPE_WB);
	uint64_t all = ((1ull << 36) - 1) & ~0xfffull;

	/* Bit 16 left out of the mask: 0-4 KiB and 64-68 KiB match, nothing between. */
	mtrr.variable[0].base = MEMTYPE_UC;
	mtrr.variable[0].mask = (all & ~(1ull << 16)) | MTRR_PHYSMASK_VALID;
	mtrr.variable_count = 1;
	EXPECT_EQ(mtrr_types_of_range(&mtrr, 0, 0x1000), UC_BIT);
	EXPECT_EQ(mtrr_types_of_range(&mtrr, 0x2000, 0xf000), WB_BIT);
	EXPECT_EQ(mtrr_types_of_range(&mtrr, 0x10000, 0x11000), UC_BIT);
	EXPECT_EQ(mtrr_types_of_range(&mtrr, 0x11000, 0x20000), WB_BIT);

	/* Only bit 12 in the mask: every other 4 KiB page, too many blocks to look at. */
	mtrr.variable[0].mask = (1ull << 12) | MTRR_PHYSMASK_VALID;
	EXPECT_EQ(mtrr_types_of_range(&mtrr, MIB, MIB + 0x4000), WB_BIT | UC_BIT);
	EXPECT_EQ(mtrr_types_of_range(&mtrr, MIB, GIB) & UNDEFINED_BIT, UNDEFINED_BIT);
}

static void unread_variable_ranges_are_never_write_back(void)
{
	struct mtrr_settings mtrr = enabled_mtrrs(MEMTYPE_WB);

	mtrr.variable_truncated = true;
	EXPECT_EQ(mtrr_types_of_range(&mtrr, MIB, 2 * MIB), WB_BIT | UNDEFINED_BIT);
}

static void pat_entries_and_the_power_up_value(void)
{
	static const enum memtype power_up[8] = {
		MEMTYPE_WB, MEMTYPE_WT, MEMTYPE_UC_MINUS, MEMTYPE_UC,
		MEMTYPE_WB, MEMTYPE_WT, MEMTYPE_UC_MINUS, MEMTYPE_UC,
	};

	for (unsigned int i = 0; i < 8; i++)
		EXPECT_EQ(pat_entry_type(PAT_POWER_UP_VALUE, i), power_up[i]);
	EXPECT_EQ(pat_entry_type(0x0000000000000200ull, 1), MEMTYPE_UNDEFINED);	/* 02H */
	EXPECT_EQ(pat_entry_type(0x0000000000000800ull, 1), MEMTYPE_UNDEFINED);	/* 08H */
	EXPECT_EQ(pat_entry_type(0x0100000000000000ull, 7), MEMTYPE_WC);
}

static void sets_combine_every_pair_and_cr0_cd_wins(void)
{
	memtype_set wb_or_wt = WB_BIT | WT_BIT;

	EXPECT_EQ(memtype_effective_set(WB_BIT, WB_BIT, false), WB_BIT);
	EXPECT_EQ(memtype_effective_set(WB_BIT, wb_or_wt, false), wb_or_wt);
	EXPECT_EQ(memtype_effective_set(wb_or_wt, MEMTYPE_BIT(MEMTYPE_UC_MINUS), false),
		  UC_BIT);
	EXPECT_EQ(memtype_effective_set(WB_BIT, WB_BIT, true), UC_BIT);
	EXPECT_EQ(memtype_effective_set(0, WB_BIT, false), 0);
	EXPECT_EQ(memtype_effective_set(WB_BIT | UNDEFINED_BIT, WB_BIT, false),
		  WB_BIT | UNDEFINED_BIT);
}

static void sets_are_named(void)
{
	char text[32];

	EXPECT_EQ(memtype_set_format(WB_BIT, text, sizeof(text)), 2);
	EXPECT_STREQ(text, "WB");
	memtype_set_format(WB_BIT | UC_BIT | UNDEFINED_BIT, text, sizeof(text));
	EXPECT_STREQ(text, "UC+WB+undefined");
	memtype_set_format(0, text, sizeof(text));
	EXPECT_STREQ(text, "none");
	EXPECT_EQ(memtype_set_format(WB_BIT | UC_BIT, text, 4), 3);
	EXPECT_STREQ(text, "UC+");
	EXPECT_STREQ(memtype_name(MEMTYPE_UC_MINUS), "UC-");
	EXPECT_STREQ(memtype_name((enum memtype)3), "reserved");
}

static const struct test_case memtype_cases[] = {
	TEST_CASE(effective_types_follow_table_12_7),
	TEST_CASE(absent_or_disabled_mtrrs),
	TEST_CASE(write_back_ram_below_an_uncached_hole),
	TEST_CASE(overlapping_ranges_follow_the_precedence),
	TEST_CASE(fixed_ranges_decide_below_one_mib),
	TEST_CASE(non_contiguous_masks_are_evaluated_or_never_taken_for_write_back),
	TEST_CASE(unread_variable_ranges_are_never_write_back),
	TEST_CASE(pat_entries_and_the_power_up_value),
	TEST_CASE(sets_combine_every_pair_and_cr0_cd_wins),
	TEST_CASE(sets_are_named),
};
TEST_SUITE(lib_memtype, memtype_cases, NULL, NULL);
