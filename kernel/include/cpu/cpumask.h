/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_CPUMASK_H
#define TRIGOS_CPUMASK_H
/*
 * A set of logical CPUs: one bit per CPU, MAX_CPUS (256) bits.
 *
 *	struct cpumask targets;
 *
 *	cpumask_clear(&targets);
 *	cpumask_set_cpu(&targets, 2);
 *	cpumask_set_cpu(&targets, 5);
 *	for_each_cpu(cpu, &targets)
 *		...;			// cpu is 2, then 5
 *
 * The plain helpers are for a mask one CPU owns (on its stack, or built
 * before it is shared).  A mask several CPUs change at once uses the
 * cpumask_atomic_*() helpers, which are single locked operations on the
 * word that holds the bit.
 */

#include <stdbool.h>
#include <stdint.h>
#include <cpu/cpu.h>

#define CPUMASK_WORD_BITS	64u
#define CPUMASK_WORDS		((MAX_CPUS + CPUMASK_WORD_BITS - 1) / CPUMASK_WORD_BITS)

struct cpumask {
	uint64_t bits[CPUMASK_WORDS];
};

static inline uint64_t cpumask_bit_(unsigned int cpu)
{
	return 1ull << (cpu % CPUMASK_WORD_BITS);
}

static inline void cpumask_clear(struct cpumask *mask)
{
	for (unsigned int i = 0; i < CPUMASK_WORDS; i++)
		mask->bits[i] = 0;
}

static inline void cpumask_set_cpu(struct cpumask *mask, unsigned int cpu)
{
	if (cpu < MAX_CPUS)
		mask->bits[cpu / CPUMASK_WORD_BITS] |= cpumask_bit_(cpu);
}

static inline void cpumask_clear_cpu(struct cpumask *mask, unsigned int cpu)
{
	if (cpu < MAX_CPUS)
		mask->bits[cpu / CPUMASK_WORD_BITS] &= ~cpumask_bit_(cpu);
}

static inline bool cpumask_test_cpu(const struct cpumask *mask, unsigned int cpu)
{
	return cpu < MAX_CPUS && (mask->bits[cpu / CPUMASK_WORD_BITS] & cpumask_bit_(cpu));
}

/** cpumask_first_from - the lowest CPU in @mask that is >= @start, or MAX_CPUS */
static inline unsigned int cpumask_first_from(const struct cpumask *mask, unsigned int start)
{
	for (unsigned int word = start / CPUMASK_WORD_BITS; word < CPUMASK_WORDS; word++) {
		uint64_t bits = mask->bits[word];

		if (word == start / CPUMASK_WORD_BITS)
			bits &= ~0ull << (start % CPUMASK_WORD_BITS);
		if (bits)
			return word * CPUMASK_WORD_BITS + (unsigned int)__builtin_ctzll(bits);
	}
	return MAX_CPUS;
}

static inline unsigned int cpumask_first(const struct cpumask *mask)
{
	return cpumask_first_from(mask, 0);
}

/* Every CPU in @mask, in increasing order; @mask must not change meanwhile. */
#define for_each_cpu(cpu, mask)                                                 \
	for ((cpu) = cpumask_first(mask); (cpu) < MAX_CPUS;                     \
	     (cpu) = cpumask_first_from((mask), (cpu) + 1))

/*
 * Population count without __builtin_popcountll, which compiles to a call
 * into libgcc unless the target has POPCNT; the kernel links no libgcc.
 */
static inline unsigned int cpumask_word_weight_(uint64_t bits)
{
	unsigned int count = 0;

	for (; bits; bits &= bits - 1)
		count++;
	return count;
}

/** cpumask_weight - how many CPUs @mask holds */
static inline unsigned int cpumask_weight(const struct cpumask *mask)
{
	unsigned int weight = 0;

	for (unsigned int i = 0; i < CPUMASK_WORDS; i++)
		weight += cpumask_word_weight_(mask->bits[i]);
	return weight;
}

static inline bool cpumask_empty(const struct cpumask *mask)
{
	for (unsigned int i = 0; i < CPUMASK_WORDS; i++) {
		if (mask->bits[i])
			return false;
	}
	return true;
}

static inline bool cpumask_equal(const struct cpumask *a, const struct cpumask *b)
{
	for (unsigned int i = 0; i < CPUMASK_WORDS; i++) {
		if (a->bits[i] != b->bits[i])
			return false;
	}
	return true;
}

/** cpumask_subset - whether every CPU of @inner is also in @outer */
static inline bool cpumask_subset(const struct cpumask *inner, const struct cpumask *outer)
{
	for (unsigned int i = 0; i < CPUMASK_WORDS; i++) {
		if (inner->bits[i] & ~outer->bits[i])
			return false;
	}
	return true;
}

/** cpumask_and - @result = @a & @b (@result may be @a or @b) */
static inline void cpumask_and(struct cpumask *result, const struct cpumask *a,
			       const struct cpumask *b)
{
	for (unsigned int i = 0; i < CPUMASK_WORDS; i++)
		result->bits[i] = a->bits[i] & b->bits[i];
}

/** cpumask_or - @result = @a | @b */
static inline void cpumask_or(struct cpumask *result, const struct cpumask *a,
			      const struct cpumask *b)
{
	for (unsigned int i = 0; i < CPUMASK_WORDS; i++)
		result->bits[i] = a->bits[i] | b->bits[i];
}

/** cpumask_andnot - @result = @a & ~@b */
static inline void cpumask_andnot(struct cpumask *result, const struct cpumask *a,
				  const struct cpumask *b)
{
	for (unsigned int i = 0; i < CPUMASK_WORDS; i++)
		result->bits[i] = a->bits[i] & ~b->bits[i];
}

/** cpumask_atomic_set_cpu - set @cpu's bit with one locked OR; false if it was already set */
static inline bool cpumask_atomic_set_cpu(struct cpumask *mask, unsigned int cpu)
{
	uint64_t old;

	if (cpu >= MAX_CPUS)
		return false;
	old = __atomic_fetch_or(&mask->bits[cpu / CPUMASK_WORD_BITS], cpumask_bit_(cpu),
				__ATOMIC_ACQ_REL);
	return !(old & cpumask_bit_(cpu));
}

/** cpumask_atomic_clear_cpu - clear @cpu's bit with one locked AND; false if it was clear */
static inline bool cpumask_atomic_clear_cpu(struct cpumask *mask, unsigned int cpu)
{
	uint64_t old;

	if (cpu >= MAX_CPUS)
		return false;
	old = __atomic_fetch_and(&mask->bits[cpu / CPUMASK_WORD_BITS], ~cpumask_bit_(cpu),
				 __ATOMIC_ACQ_REL);
	return (old & cpumask_bit_(cpu)) != 0;
}

/** cpumask_atomic_test_cpu - read @cpu's bit with acquire ordering */
static inline bool cpumask_atomic_test_cpu(const struct cpumask *mask, unsigned int cpu)
{
	return cpu < MAX_CPUS && (__atomic_load_n(&mask->bits[cpu / CPUMASK_WORD_BITS],
						  __ATOMIC_ACQUIRE) & cpumask_bit_(cpu));
}

#endif /* TRIGOS_CPUMASK_H */
