/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_ASM_PAGING_H
#define TRIGOS_ASM_PAGING_H
/* What x86 page tables say beyond memory.h's generic mappings. */

#include <stdbool.h>
#include <stdint.h>

/**
 * paging_pat_indices - which PAT entries the kernel's mappings of [@start,
 * @end) select: bit i is set when some present page there uses entry i
 * (its PAT, PCD and PWT bits, SDM vol 3A, 12.12.3); unmapped pages count
 * for nothing
 */
unsigned int paging_pat_indices(uint64_t start, uint64_t end);

/**
 * paging_translate - the physical address the kernel's page tables map
 * @address to; false if it is not mapped
 */
bool paging_translate(uint64_t address, uint64_t *physical);

#endif
