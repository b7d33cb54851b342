/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_ARCH_MATH64_H
#define TRIGOS_ARCH_MATH64_H
/*
 * 64-bit arithmetic with a 128-bit intermediate, over the arch's hook in
 * asm/instructions.h (which says why it is no libgcc helper).
 */

#include <stdint.h>
#include <asm/instructions.h>

/**
 * mul_div_u64 - @a * @b / @c with a 128-bit intermediate product
 *
 * Return: the quotient, or UINT64_MAX when @c is 0 or the quotient does not
 * fit in 64 bits.
 */
static inline uint64_t mul_div_u64(uint64_t a, uint64_t b, uint64_t c)
{
	return arch_mul_div_u64(a, b, c);
}

#endif
