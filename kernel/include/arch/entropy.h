/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_ARCH_ENTROPY_H
#define TRIGOS_ARCH_ENTROPY_H
/* A number that differs from boot to boot, over the arch's asm/entropy.h. */

#include <stdint.h>
#include <asm/entropy.h>

/** entropy - a boot-to-boot varying number (for a default seed=), not a secret */
static inline uint64_t entropy(void)
{
	return arch_entropy();
}

#endif
