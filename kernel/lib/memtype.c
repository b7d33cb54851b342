// SPDX-License-Identifier: MIT
/*
 * Memory types from MTRR, PAT and CR0.CD values (memtype.h says where in
 * the SDM each rule comes from).
 */
#include <lib/format.h>
#include <lib/memtype.h>

#define FIXED_RANGES_END	0x100000ull	/* the fixed ranges cover the first MiB */
#define MTRR_ADDRESS_MASK	(~0xfffull)	/* PHYSBASE/PHYSMASK bits 12 and up */
#define MTRR_EVALUATION_BUDGET	65536u	/* aligned blocks looked at per range */

static bool valid_mtrr_type(unsigned int type)
{
	return type == MEMTYPE_UC || type == MEMTYPE_WC || type == MEMTYPE_WT ||
	       type == MEMTYPE_WP || type == MEMTYPE_WB;
}

static enum memtype mtrr_encoding(uint64_t value)
{
	unsigned int type = (unsigned int)(value & 0xff);

	return valid_mtrr_type(type) ? (enum memtype)type : MEMTYPE_UNDEFINED;
}

/* --- Fixed ranges (SDM vol 3A, 12.11.2.2): eight sub-ranges per MSR, one type a byte --- */

static void fixed_layout(unsigned int msr, uint64_t *base, uint64_t *unit)
{
	if (msr == 0) {
		*base = 0;
		*unit = 0x10000;		/* 8 x 64 KiB: 00000-7FFFF */
	} else if (msr <= 2) {
		*base = 0x80000 + (msr - 1) * 0x20000ull;
		*unit = 0x4000;			/* 8 x 16 KiB: 80000-9FFFF, A0000-BFFFF */
	} else {
		*base = 0xc0000 + (msr - 3) * 0x8000ull;
		*unit = 0x1000;			/* 8 x 4 KiB each, C0000-FFFFF */
	}
}

static memtype_set fixed_types(const struct mtrr_settings *mtrr, uint64_t start, uint64_t end)
{
	memtype_set types = 0;

	for (unsigned int msr = 0; msr < MTRR_FIXED_COUNT; msr++) {
		uint64_t base, unit;

		fixed_layout(msr, &base, &unit);
		for (unsigned int byte = 0; byte < 8; byte++) {
			uint64_t from = base + byte * unit, to = from + unit;

			if (from < end && start < to)
				types |= MEMTYPE_BIT(mtrr_encoding(mtrr->fixed[msr] >> (8 * byte)));
		}
	}
	return types;
}

/* --- Variable ranges (SDM vol 3A, 12.11.2.3 and the precedence of 12.11.4.1) ------- */

struct variable_ranges {
	unsigned int count;
	struct {
		uint64_t base, mask;
		enum memtype type;
	} range[MTRR_VARIABLE_MAX];
	enum memtype default_type;
};

static void collect_variable_ranges(const struct mtrr_settings *mtrr, struct variable_ranges *out)
{
	unsigned int bits = mtrr->physical_address_bits;
	uint64_t limit = (bits == 0 || bits >= 64) ? ~0ull : (1ull << bits) - 1;
	unsigned int count = mtrr->variable_count;

	out->count = 0;
	out->default_type = mtrr_encoding(mtrr->default_type & MTRR_DEF_TYPE_MASK);
	if (count > MTRR_VARIABLE_MAX)
		count = MTRR_VARIABLE_MAX;
	for (unsigned int i = 0; i < count; i++) {
		uint64_t mask = mtrr->variable[i].mask;

		if (!(mask & MTRR_PHYSMASK_VALID))
			continue;
		mask &= MTRR_ADDRESS_MASK & limit;
		out->range[out->count].mask = mask;
		out->range[out->count].base = mtrr->variable[i].base & mask;
		out->range[out->count].type = mtrr_encoding(mtrr->variable[i].base);
		out->count++;
	}
}

/* The type at @address: a matching UC wins, WT and WB give WT, equal types agree. */
static enum memtype variable_type_at(const struct variable_ranges *ranges, uint64_t address)
{
	enum memtype type = ranges->default_type;
	bool matched = false;

	for (unsigned int i = 0; i < ranges->count; i++) {
		enum memtype this_type = ranges->range[i].type;

		if ((address & ranges->range[i].mask) != ranges->range[i].base)
			continue;
		if (this_type == MEMTYPE_UC)
			return MEMTYPE_UC;
		if (!matched) {
			type = this_type;
			matched = true;
		} else if (type != this_type) {
			bool write_through_and_back =
				(type == MEMTYPE_WT && this_type == MEMTYPE_WB) ||
				(type == MEMTYPE_WB && this_type == MEMTYPE_WT);

			type = write_through_and_back ? MEMTYPE_WT : MEMTYPE_UNDEFINED;
		}
	}
	return type;
}

/*
 * Within an aligned block of 2^@order bytes every range matches all of it or
 * none of it when no mask bit lies below the order: then one address tells.
 * Otherwise the halves are looked at, down to the lowest mask bit (4 KiB
 * at worst); a contiguous mask splits only along its range's edges.  A
 * budget bounds the pathological masks the SDM discourages (12.11.3).
 */
static void add_block_types(const struct variable_ranges *ranges, uint64_t base, unsigned int order,
			    memtype_set *types, unsigned int *budget)
{
	uint64_t inside = order >= 64 ? ~0ull : (1ull << order) - 1;
	bool uniform = true;

	if (*budget == 0) {
		*types |= MEMTYPE_BIT(MEMTYPE_UNDEFINED);
		return;
	}
	(*budget)--;
	for (unsigned int i = 0; i < ranges->count && uniform; i++)
		uniform = (ranges->range[i].mask & inside) == 0;
	if (uniform) {
		*types |= MEMTYPE_BIT(variable_type_at(ranges, base));
		return;
	}
	add_block_types(ranges, base, order - 1, types, budget);
	add_block_types(ranges, base + (1ull << (order - 1)), order - 1, types, budget);
}

static memtype_set variable_types(const struct mtrr_settings *mtrr, uint64_t start, uint64_t end)
{
	struct variable_ranges ranges;
	memtype_set types = 0;
	unsigned int budget = MTRR_EVALUATION_BUDGET;

	collect_variable_ranges(mtrr, &ranges);
	if (mtrr->variable_truncated)
		types |= MEMTYPE_BIT(MEMTYPE_UNDEFINED);
	/* Cut [start, end) into the largest aligned power-of-two blocks. */
	while (start < end) {
		unsigned int order = start ? (unsigned int)__builtin_ctzll(start) : 63;

		if (order > 63)
			order = 63;
		while (order > 0 && (1ull << order) > end - start)
			order--;
		add_block_types(&ranges, start, order, &types, &budget);
		start += 1ull << order;
	}
	return types;
}

memtype_set mtrr_types_of_range(const struct mtrr_settings *mtrr, uint64_t start, uint64_t end)
{
	memtype_set types = 0;

	if (start >= end)
		return 0;
	if (!mtrr->present)
		return MEMTYPE_BIT(MEMTYPE_WB);
	if (!(mtrr->default_type & MTRR_DEF_ENABLE))
		return MEMTYPE_BIT(MEMTYPE_UC);	/* 12.11.2.1: all of memory UC */
	if (start < FIXED_RANGES_END && (mtrr->capabilities & MTRR_CAP_FIXED) &&
	    (mtrr->default_type & MTRR_DEF_FIXED_ENABLE)) {
		types |= fixed_types(mtrr, start, end < FIXED_RANGES_END ? end : FIXED_RANGES_END);
		start = FIXED_RANGES_END;
	}
	return types | variable_types(mtrr, start, end);
}

/* --- The PAT and the combination ------------------------------------------------------ */

enum memtype pat_entry_type(uint64_t pat, unsigned int index)
{
	unsigned int type = (unsigned int)(pat >> (8 * (index & 7))) & 0xff;

	return (valid_mtrr_type(type) || type == MEMTYPE_UC_MINUS) ? (enum memtype)type
								      : MEMTYPE_UNDEFINED;
}

enum memtype memtype_effective(enum memtype mtrr, enum memtype pat)
{
	bool mtrr_uncached = mtrr == MEMTYPE_UC || mtrr == MEMTYPE_WC;

	if (!valid_mtrr_type(mtrr))
		return MEMTYPE_UNDEFINED;
	switch (pat) {
	case MEMTYPE_UC:
		return MEMTYPE_UC;
	case MEMTYPE_WC:
		return MEMTYPE_WC;
	case MEMTYPE_UC_MINUS:
		/* WC for WC, and for WP (note 3 of table 12-7); UC otherwise. */
		return (mtrr == MEMTYPE_WC || mtrr == MEMTYPE_WP) ? MEMTYPE_WC
									  : MEMTYPE_UC;
	case MEMTYPE_WT:
		return mtrr_uncached ? MEMTYPE_UC : MEMTYPE_WT;
	case MEMTYPE_WP:
		return mtrr_uncached ? MEMTYPE_UC : MEMTYPE_WP;
	case MEMTYPE_WB:
		return mtrr;
	default:
		return MEMTYPE_UNDEFINED;
	}
}

memtype_set memtype_effective_set(memtype_set mtrr, memtype_set pat, bool caching_disabled)
{
	memtype_set types = 0;

	if (!mtrr || !pat)
		return 0;
	/* CR0.CD: no new line is cached whatever the types say (table 12-5). */
	if (caching_disabled)
		return MEMTYPE_BIT(MEMTYPE_UC);
	for (unsigned int m = 0; m <= MEMTYPE_UNDEFINED; m++) {
		for (unsigned int p = 0; p <= MEMTYPE_UNDEFINED; p++) {
			if ((mtrr & MEMTYPE_BIT(m)) && (pat & MEMTYPE_BIT(p)))
				types |= MEMTYPE_BIT(memtype_effective(m, p));
		}
	}
	return types;
}

const char *memtype_name(enum memtype type)
{
	switch (type) {
	case MEMTYPE_UC:
		return "UC";
	case MEMTYPE_WC:
		return "WC";
	case MEMTYPE_WT:
		return "WT";
	case MEMTYPE_WP:
		return "WP";
	case MEMTYPE_WB:
		return "WB";
	case MEMTYPE_UC_MINUS:
		return "UC-";
	case MEMTYPE_UNDEFINED:
		return "undefined";
	}
	return "reserved";
}

int memtype_set_format(memtype_set types, char *buffer, size_t size)
{
	int length = 0;

	if (!types)
		return scnprintf(buffer, size, "none");
	if (size)
		buffer[0] = '\0';
	for (unsigned int type = 0; type <= MEMTYPE_UNDEFINED; type++) {
		if (types & MEMTYPE_BIT(type))
			length += scnprintf(buffer + length, size - (size_t)length, "%s%s",
					    length ? "+" : "", memtype_name(type));
	}
	return length;
}
