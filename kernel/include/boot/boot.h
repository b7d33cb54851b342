/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_BOOT_H
#define TRIGOS_BOOT_H

#include <lib/boot_info.h>
#include <stdint.h>
#include <lib/physical_memory.h>

extern struct boot_info boot_info;

/** the accessor the kernel gives kernel/lib parsers (map_phys underneath) */
extern const struct physical_memory_access kernel_physical_memory;

/**
 * boot_info_init - parse what the loader handed over
 * @magic: MULTIBOOT2_BOOTLOADER_MAGIC or PVH_START_INFO_MAGIC (entry.S)
 * @info_physical: the multiboot2 information or the PVH start_info
 */
void boot_info_init(uint32_t magic, uint32_t info_physical);

/** boot_report - the boot facts as KTAP notes: loader, command line, hypervisor, consoles */
void boot_report(void);

/* Where a legacy BIOS keeps the MP tables, over the arch's asm/bios.h. */
#include <asm/bios.h>

/** firmware_ebda_address - the EBDA's physical address, 0 if none (or UEFI) */
static inline uint64_t firmware_ebda_address(void)
{
	return bios_ebda_address();
}

/** firmware_base_memory_end - the end of base memory the BIOS reported, 0 if unknown */
static inline uint64_t firmware_base_memory_end(void)
{
	return bios_base_memory_end();
}

#endif
