/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_BOOT_INFO_H
#define TRIGOS_BOOT_INFO_H
/*
 * What the boot loader told us, in one shape whichever way we were booted:
 * GRUB's multiboot2 information (kernel/lib/multiboot2.c) or the PVH
 * start_info of QEMU's direct -kernel boot (kernel/lib/pvh.c).  The parsers
 * copy everything they keep into this structure, so nothing later points
 * into loader memory except @cmdline, which is copied too.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BOOT_INFO_MAX_MEMORY_REGIONS	128
#define BOOT_INFO_MAX_MODULES		8
#define BOOT_INFO_CMDLINE_SIZE		1024
#define BOOT_INFO_LOADER_NAME_SIZE	64
#define BOOT_INFO_MAX_MESSAGES		8
#define BOOT_INFO_MESSAGE_SIZE		96

/* Memory region types, numbered as in multiboot2 and the E820 map. */
enum memory_type {
	MEMORY_AVAILABLE = 1,
	MEMORY_RESERVED = 2,
	MEMORY_ACPI_RECLAIMABLE = 3,
	MEMORY_ACPI_NVS = 4,
	MEMORY_BAD = 5,
};

struct memory_region {
	uint64_t base;
	uint64_t length;
	uint32_t type;		/* enum memory_type; other values mean reserved */
};

struct boot_module {
	uint64_t start;		/* physical, first byte */
	uint64_t end;		/* physical, one past the last byte */
};

struct boot_framebuffer {
	uint64_t address;	/* physical */
	uint32_t pitch;		/* bytes per line */
	uint32_t width;		/* pixels (or characters for EGA text) */
	uint32_t height;
	uint8_t bits_per_pixel;
	uint8_t type;		/* 0 indexed, 1 direct RGB, 2 EGA text */
	uint8_t red_position, red_size;
	uint8_t green_position, green_size;
	uint8_t blue_position, blue_size;
};

enum boot_protocol {
	BOOT_PROTOCOL_NONE = 0,
	BOOT_PROTOCOL_MULTIBOOT2,
	BOOT_PROTOCOL_PVH,
};

struct boot_info {
	enum boot_protocol protocol;

	char cmdline[BOOT_INFO_CMDLINE_SIZE];
	char loader_name[BOOT_INFO_LOADER_NAME_SIZE];

	struct memory_region memory[BOOT_INFO_MAX_MEMORY_REGIONS];
	size_t memory_count;

	struct boot_module modules[BOOT_INFO_MAX_MODULES];
	size_t module_count;

	/*
	 * Multiboot2 hands over a copy of the RSDP (tags 14 and 15), PVH its
	 * physical address.  At most one of the two forms is filled in.
	 */
	bool has_rsdp_copy;
	uint8_t rsdp_copy[36];		/* an ACPI 2.0 RSDP is 36 bytes */
	size_t rsdp_copy_length;
	uint64_t rsdp_address;		/* 0: not given */

	bool has_framebuffer;
	struct boot_framebuffer framebuffer;

	bool efi_boot;			/* an EFI tag (11, 12, 17-20) was present */
	uint32_t efi_tags;		/* bit N: multiboot2 EFI tag N was present */

	/* Where the information itself lies, so the page allocator keeps off it. */
	uint64_t info_start;
	uint64_t info_end;

	/*
	 * Problems found while parsing (a malformed tag, a list cut short),
	 * kept as text because the console may not be up yet; kmain prints
	 * them as KTAP diagnostics.
	 */
	char messages[BOOT_INFO_MAX_MESSAGES][BOOT_INFO_MESSAGE_SIZE];
	size_t message_count;
	size_t messages_dropped;
};

#endif /* TRIGOS_BOOT_INFO_H */
