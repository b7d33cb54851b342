/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_LIB_MULTIBOOT2_H
#define TRIGOS_LIB_MULTIBOOT2_H
/*
 * The Multiboot2 boot information structure (Multiboot2 specification 2.0,
 * section 3.6), parsed into struct boot_info.
 *
 * The parser is pure: it reads only the bytes it is given, copies what it
 * keeps, and treats the information as untrusted input (it is fuzzed).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <lib/boot_info.h>

/* EAX at the kernel's entry when a Multiboot2 loader started it (spec 3.2). */
#define MULTIBOOT2_BOOTLOADER_MAGIC	0x36d76289u

/* Tag types of the boot information (spec 3.6.x). */
enum multiboot2_tag_type {
	MULTIBOOT2_TAG_END = 0,
	MULTIBOOT2_TAG_CMDLINE = 1,
	MULTIBOOT2_TAG_BOOT_LOADER_NAME = 2,
	MULTIBOOT2_TAG_MODULE = 3,
	MULTIBOOT2_TAG_BASIC_MEMINFO = 4,
	MULTIBOOT2_TAG_BOOTDEV = 5,
	MULTIBOOT2_TAG_MMAP = 6,
	MULTIBOOT2_TAG_VBE = 7,
	MULTIBOOT2_TAG_FRAMEBUFFER = 8,
	MULTIBOOT2_TAG_ELF_SECTIONS = 9,
	MULTIBOOT2_TAG_APM = 10,
	MULTIBOOT2_TAG_EFI32 = 11,
	MULTIBOOT2_TAG_EFI64 = 12,
	MULTIBOOT2_TAG_SMBIOS = 13,
	MULTIBOOT2_TAG_ACPI_OLD = 14,
	MULTIBOOT2_TAG_ACPI_NEW = 15,
	MULTIBOOT2_TAG_NETWORK = 16,
	MULTIBOOT2_TAG_EFI_MMAP = 17,
	MULTIBOOT2_TAG_EFI_BS = 18,
	MULTIBOOT2_TAG_EFI32_IH = 19,
	MULTIBOOT2_TAG_EFI64_IH = 20,
	MULTIBOOT2_TAG_LOAD_BASE_ADDR = 21,
};

/* What multiboot2_parse() returns when the information cannot be used at all. */
enum multiboot2_error {
	MULTIBOOT2_ERROR_INVALID_ARGUMENT = -1,	/* @info or @out is NULL */
	MULTIBOOT2_ERROR_TOO_SHORT = -2,	/* fewer than 16 bytes, or total_size < 16 */
	MULTIBOOT2_ERROR_TRUNCATED = -3,	/* total_size larger than @available */
};

/**
 * multiboot2_magic_valid - did a Multiboot2 loader start us?
 * @eax: the value of EAX at the kernel's 32-bit entry point
 *
 * Return: true if @eax is MULTIBOOT2_BOOTLOADER_MAGIC.
 */
bool multiboot2_magic_valid(uint32_t eax);

/**
 * multiboot2_parse - fill @out from a Multiboot2 boot information structure
 * @info: the structure (total_size, reserved, then the tags); no alignment
 *        is required of the pointer, tags are located relative to it
 * @available: how many bytes at @info the caller guarantees are readable;
 *             no byte at or beyond @info + @available is ever read
 * @info_physical: the physical address of @info, recorded in
 *                 @out->info_start/info_end (the kernel passes the EBX value,
 *                 memory being identity-mapped; tests pass anything)
 * @out: cleared, then filled in; protocol is BOOT_PROTOCOL_MULTIBOOT2
 *
 * Keeps the command line (tag 1) and boot loader name (tag 2), truncated
 * to fit; modules (tag 3); the memory map (tag 6); the common part and RGB
 * layout of the framebuffer (tag 8); a copy of the RSDP, the ACPI 2.0 one
 * (tag 15) in preference to the ACPI 1.0 one (tag 14), unchecked: ACPI
 * validation is acpi_tables.c's job; and efi_boot when any of tags 11, 12,
 * 17, 18, 19 or 20 is present, each one seen as bit N of efi_tags.  The first of each single-instance tag wins.
 *
 * Anything malformed after the fixed header (a tag smaller than its
 * header, a tag running past total_size, a missing end tag, bad memory map
 * geometry, more regions or modules than boot_info holds) is described in
 * @out->messages and parsing stops (for the tag list) or skips the bad
 * part; what was parsed before stays valid and 0 is still returned.  The
 * caller decides whether what is left is enough (e.g. no memory map).
 *
 * Return: 0, possibly with messages; a negative enum multiboot2_error when
 * the structure is unusable (a message says why, if @out is not NULL).
 */
int multiboot2_parse(const void *info, size_t available, uint64_t info_physical,
		     struct boot_info *out);

#endif /* TRIGOS_LIB_MULTIBOOT2_H */
