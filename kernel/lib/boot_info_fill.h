/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_LIB_BOOT_INFO_FILL_H
#define TRIGOS_LIB_BOOT_INFO_FILL_H
/*
 * What the boot information parsers (lib/multiboot2.c, lib/pvh.c) do to a
 * struct boot_info in the same way: leave a message in it, and append a
 * module or a memory region to its fixed-capacity lists.
 */

#include <stdbool.h>
#include <stdint.h>

#include <lib/boot_info.h>

/**
 * boot_info_report - keep a message about the boot information in @out
 * @out: the structure being filled
 * @source: who speaks, such as "pvh"; the message starts with "@source: "
 * @format: printf-style format (lib/format.h), then its arguments
 *
 * Messages are kept as text because the console may not be up yet.  Each
 * is cut to BOOT_INFO_MESSAGE_SIZE bytes, NUL included; once
 * BOOT_INFO_MAX_MESSAGES are kept, further ones are only counted in
 * @out->messages_dropped.
 */
void boot_info_report(struct boot_info *out, const char *source, const char *format, ...)
	__attribute__((format(printf, 3, 4)));

/**
 * boot_info_add_module - append a module to @out unless its list is full
 * @out: the structure being filled
 * @start: physical address of the module's first byte
 * @end: physical address one past its last byte
 *
 * Return: true if it was added, false if BOOT_INFO_MAX_MODULES are already
 * there (@out is then unchanged).
 */
bool boot_info_add_module(struct boot_info *out, uint64_t start, uint64_t end);

/**
 * boot_info_add_memory_region - append a memory region to @out unless its map is full
 * @out: the structure being filled
 * @base: physical address of the region's first byte
 * @length: its length in bytes
 * @type: its type, an enum memory_type value or another (read as reserved)
 *
 * Return: true if it was added, false if BOOT_INFO_MAX_MEMORY_REGIONS are
 * already there (@out is then unchanged).
 */
bool boot_info_add_memory_region(struct boot_info *out, uint64_t base, uint64_t length,
				 uint32_t type);

#endif /* TRIGOS_LIB_BOOT_INFO_FILL_H */
