/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_LIB_MEMTYPE_H
#define TRIGOS_LIB_MEMTYPE_H
/*
 * The memory type of a physical range, as an x86 CPU computes it from its
 * MTRRs, the PAT entry its page tables select and CR0.CD (SDM vol 3A,
 * chapter 12 "Memory Cache Control": 12.11 the MTRRs, 12.12 the PAT,
 * 12.5.2.2 and table 12-7 how the two combine, 12.5.1 and table 12-5 CR0.CD).
 *
 * Pure functions over register values, so that the host tests can feed them
 * any machine: kernel/arch/x86/memtype.c reads the registers of each CPU.
 * A range can hold several types, so results are sets: one bit per type.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The encodings of the MTRRs and the PAT (SDM vol 3A, tables 12-8 and 12-10). */
enum memtype {
	MEMTYPE_UC = 0,
	MEMTYPE_WC = 1,
	MEMTYPE_WT = 4,
	MEMTYPE_WP = 5,
	MEMTYPE_WB = 6,
	MEMTYPE_UC_MINUS = 7,	/* PAT only */
	/*
	 * Not an encoding: a reserved value in a register, an overlap of
	 * variable ranges the SDM leaves undefined (12.11.4.1), or MTRRs too
	 * fragmented to evaluate.  Never taken for write-back.
	 */
	MEMTYPE_UNDEFINED = 8,
};

typedef uint16_t memtype_set;	/* bit (1 << type) for each type present */

#define MEMTYPE_BIT(type)	((memtype_set)(1u << (type)))

#define MTRR_FIXED_COUNT	11	/* FIX64K_00000, FIX16K_80000/A0000, FIX4K_C0000..F8000 */
#define MTRR_VARIABLE_MAX	32	/* pairs evaluated; IA32_MTRRCAP.VCNT may say more */

/* IA32_MTRRCAP and IA32_MTRR_DEF_TYPE fields (SDM vol 3A, 12.11.1 and 12.11.2.1). */
#define MTRR_CAP_VARIABLE_COUNT(cap)	((unsigned int)((cap) & 0xff))
#define MTRR_CAP_FIXED			(1ull << 8)
#define MTRR_DEF_TYPE_MASK		0xffull
#define MTRR_DEF_FIXED_ENABLE		(1ull << 10)
#define MTRR_DEF_ENABLE			(1ull << 11)
#define MTRR_PHYSMASK_VALID		(1ull << 11)

/**
 * struct mtrr_settings - one CPU's MTRRs, as read
 * @present: CPUID.01H:EDX[12]; without MTRRs the page attributes alone decide
 * @capabilities: IA32_MTRRCAP
 * @default_type: IA32_MTRR_DEF_TYPE (type, FE, E)
 * @fixed: the fixed-range MSRs in address order, one type a byte
 * @variable_count: the IA32_MTRR_PHYSBASEn/PHYSMASKn pairs read into @variable
 * @variable_truncated: VCNT named more pairs than were read (never taken for WB)
 * @physical_address_bits: MAXPHYADDR (CPUID.80000008H:EAX[7:0]), 36 without
 */
struct mtrr_settings {
	bool present;
	uint64_t capabilities;
	uint64_t default_type;
	uint64_t fixed[MTRR_FIXED_COUNT];
	unsigned int variable_count;
	bool variable_truncated;
	struct {
		uint64_t base, mask;
	} variable[MTRR_VARIABLE_MAX];
	unsigned int physical_address_bits;
};

/**
 * mtrr_types_of_range - the MTRR memory types of the bytes [@start, @end)
 *
 * MTRRs disabled (E clear): UC everywhere.  Below 1 MiB the fixed ranges
 * decide when FE is set (and IA32_MTRRCAP offers them); elsewhere the
 * variable ranges, by the precedence of 12.11.4.1, else the default type.
 * Without MTRRs: WB, which lets the PAT entry alone decide (table 12-7's WB
 * row passes every PAT type through but UC-, which is UC there anyway).
 * An empty range gives the empty set.
 */
memtype_set mtrr_types_of_range(const struct mtrr_settings *mtrr, uint64_t start, uint64_t end);

/** pat_entry_type - the type of PAT entry @index (0..7) of the IA32_PAT value @pat */
enum memtype pat_entry_type(uint64_t pat, unsigned int index);

/* IA32_PAT after power-up or reset (SDM vol 3A, table 12-12): WB WT UC- UC WB WT UC- UC. */
#define PAT_POWER_UP_VALUE	0x0007040600070406ull

/**
 * memtype_effective - what a CPU uses for a page whose MTRR type is
 * @mtrr and whose PAT entry is @pat, with caching on (SDM vol 3A, table 12-7)
 */
enum memtype memtype_effective(enum memtype mtrr, enum memtype pat);

/**
 * memtype_effective_set - every type that some byte of a range can have,
 * given the MTRR types over it and the types of the PAT entries its pages
 * select; with @caching_disabled (CR0.CD set) nothing is cached: UC
 */
memtype_set memtype_effective_set(memtype_set mtrr, memtype_set pat, bool caching_disabled);

/** memtype_name - "UC", "WC", "WT", "WP", "WB", "UC-", "reserved" or "undefined" */
const char *memtype_name(enum memtype type);

/**
 * memtype_set_format - the set as names joined by '+' ("UC+WB"), "none"
 * when empty, into @buffer of @size bytes (@size > 0); returns the length
 * written, as scnprintf()
 */
int memtype_set_format(memtype_set types, char *buffer, size_t size);

#endif
