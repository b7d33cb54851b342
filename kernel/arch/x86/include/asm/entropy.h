/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_ASM_ENTROPY_H
#define TRIGOS_ASM_ENTROPY_H

#include <asm/instructions.h>

/* A boot-to-boot varying number for default seeds: the TSC's low bits. */
static inline uint64_t arch_entropy(void)
{
	return rdtsc();
}

#endif
