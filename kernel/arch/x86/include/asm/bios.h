/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_ASM_BIOS_H
#define TRIGOS_ASM_BIOS_H
/* What the BIOS data area said (read at boot: page 0 is unmapped later). */

#include <stdint.h>

/** bios_ebda_address - the EBDA's physical address, 0 if none (or UEFI) */
uint64_t bios_ebda_address(void);

/** bios_base_memory_end - the end of base memory from the BDA, 0 if unknown */
uint64_t bios_base_memory_end(void);

#endif
