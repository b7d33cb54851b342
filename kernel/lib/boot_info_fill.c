// SPDX-License-Identifier: MIT
/*
 * Filling struct boot_info, shared by the Multiboot2 and PVH parsers.
 */
#include <lib/boot_info_fill.h>

#include <stdarg.h>
#include <stddef.h>

#include <lib/format.h>

void boot_info_report(struct boot_info *out, const char *source, const char *format, ...)
{
	char *message;
	va_list args;
	int prefix;

	if (out->message_count >= BOOT_INFO_MAX_MESSAGES) {
		out->messages_dropped++;
		return;
	}
	message = out->messages[out->message_count];
	prefix = scnprintf(message, BOOT_INFO_MESSAGE_SIZE, "%s: ", source);
	va_start(args, format);
	vsnprintf(message + prefix, BOOT_INFO_MESSAGE_SIZE - (size_t)prefix, format, args);
	va_end(args);
	out->message_count++;
}

bool boot_info_add_module(struct boot_info *out, uint64_t start, uint64_t end)
{
	struct boot_module *module;

	if (out->module_count >= BOOT_INFO_MAX_MODULES)
		return false;
	module = &out->modules[out->module_count++];
	module->start = start;
	module->end = end;
	return true;
}

bool boot_info_add_memory_region(struct boot_info *out, uint64_t base, uint64_t length,
				 uint32_t type)
{
	struct memory_region *region;

	if (out->memory_count >= BOOT_INFO_MAX_MEMORY_REGIONS)
		return false;
	region = &out->memory[out->memory_count++];
	region->base = base;
	region->length = length;
	region->type = type;
	return true;
}
