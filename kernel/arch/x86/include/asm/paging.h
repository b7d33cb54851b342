/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_ASM_PAGING_H
#define TRIGOS_ASM_PAGING_H
/* What x86 page tables say beyond memory.h's generic mappings. */

#include <stdint.h>

/**
 * paging_pat_indices - which PAT entries the kernel's mappings of [@start,
 * @end) select: bit i is set when some present page there uses entry i
 * (its PAT, PCD and PWT bits, SDM vol 3A, 12.12.3); unmapped pages count
 * for nothing
 */
unsigned int paging_pat_indices(uint64_t start, uint64_t end);

#endif
