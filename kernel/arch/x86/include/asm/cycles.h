/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_ASM_CYCLES_H
#define TRIGOS_ASM_CYCLES_H

#include <asm/instructions.h>

static inline uint64_t arch_cycles(void)
{
	return rdtsc();
}

#endif
