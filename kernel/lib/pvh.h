/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_LIB_PVH_H
#define TRIGOS_LIB_PVH_H
/*
 * The PVH start_info (Xen's struct hvm_start_info, public header
 * xen/include/public/arch-x86/hvm/start_info.h; the x86 PVH boot ABI that
 * QEMU's -kernel uses for an ELF with a PHYS32_ENTRY note), parsed into
 * struct boot_info.
 *
 * Unlike Multiboot2's self-contained tag list, start_info points by
 * physical address at its command line, module list and memory map, so the
 * parser reads those through a struct physical_memory_access.
 */

#include <stddef.h>
#include <stdint.h>

#include <lib/boot_info.h>
#include <lib/physical_memory.h>

/* start_info.magic: "xEn3" with the 0x80 bit of the 'E' set. */
#define PVH_START_INFO_MAGIC		0x336ec578u

/* Bytes of start_info: version 0 ends after rsdp_paddr, version 1 after reserved. */
#define PVH_START_INFO_V0_SIZE		40
#define PVH_START_INFO_V1_SIZE		56

/* struct hvm_modlist_entry: u64 paddr, u64 size, u64 cmdline_paddr, u64 reserved */
#define PVH_MODULE_ENTRY_SIZE		32
/* struct hvm_memmap_table_entry: u64 addr, u64 size, u32 type, u32 reserved */
#define PVH_MEMMAP_ENTRY_SIZE		24

/* What pvh_parse() returns when the start_info cannot be used at all. */
enum pvh_error {
	PVH_ERROR_INVALID_ARGUMENT = -1,	/* @start_info or @out is NULL */
	PVH_ERROR_TOO_SHORT = -2,		/* fewer than PVH_START_INFO_V0_SIZE bytes */
	PVH_ERROR_BAD_MAGIC = -3,
};

/**
 * pvh_parse - fill @out from a PVH start_info
 * @start_info: the hvm_start_info structure (any alignment)
 * @available: how many bytes at @start_info are readable; no byte beyond is
 *             read.  PVH_START_INFO_V1_SIZE is enough for every version.
 * @start_info_physical: the physical address of @start_info (EBX at the
 *                       PVH entry), recorded in @out->info_start/info_end
 * @memory: how to read the command line, module list and memory map
 * @out: cleared, then filled in; protocol is BOOT_PROTOCOL_PVH
 *
 * Keeps the command line, truncated to BOOT_INFO_CMDLINE_SIZE - 1 bytes;
 * the modules (paddr, size); the memory map, whose types are E820 types
 * stored as given (1..5 are enum memory_type; 6 "disabled" and 7
 * "persistent memory" count as reserved); and rsdp_paddr as
 * @out->rsdp_address.  loader_name stays empty (PVH names no loader).
 *
 * The command line has no stated length, so it is read one page at a time
 * (never asking @memory for bytes beyond the 4 KiB page that holds the
 * next unread byte), until its NUL or BOOT_INFO_CMDLINE_SIZE bytes.  List
 * entries are mapped one at a time, so a huge entry count costs no large
 * mapping and cannot overflow a size computation; entries beyond
 * boot_info's capacity are not read at all.
 *
 * Version 0 has no memory map; that, an unreadable address, and anything
 * else odd, is described in @out->messages while 0 is still returned.
 *
 * Return: 0, possibly with messages; a negative enum pvh_error when the
 * structure is unusable (a message says why, if @out is not NULL).
 */
int pvh_parse(const void *start_info, size_t available, uint64_t start_info_physical,
	      const struct physical_memory_access *memory, struct boot_info *out);

#endif /* TRIGOS_LIB_PVH_H */
