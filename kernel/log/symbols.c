// SPDX-License-Identifier: MIT
/*
 * Address-to-name lookup over the table tools/symbols generates from the
 * first link pass (see Makefile).  The table holds the text symbols sorted by
 * address; lookup is a binary search for the last symbol at or below the
 * address.
 */
#include <log/symbols.h>
#include <lib/format.h>
#include <lib/string.h>

extern const uint64_t kernel_symbol_count;
extern const uint64_t kernel_symbol_addresses[];
extern const uint32_t kernel_symbol_name_offsets[];
extern const char kernel_symbol_names[];
extern const char __text_start[], __text_end[];

size_t symbol_count(void)
{
	return (size_t)kernel_symbol_count;
}

const char *symbol_lookup(uint64_t address, uint64_t *offset)
{
	size_t low = 0, high = (size_t)kernel_symbol_count;

	if (address < (uint64_t)__text_start || address >= (uint64_t)__text_end || high == 0)
		return NULL;
	/* Invariant: every symbol below @low starts at or below @address. */
	while (low < high) {
		size_t middle = low + (high - low) / 2;

		if (kernel_symbol_addresses[middle] <= address)
			low = middle + 1;
		else
			high = middle;
	}
	if (low == 0)
		return NULL;
	*offset = address - kernel_symbol_addresses[low - 1];
	return &kernel_symbol_names[kernel_symbol_name_offsets[low - 1]];
}

uint64_t symbol_address(const char *name)
{
	for (size_t i = 0; i < (size_t)kernel_symbol_count; i++) {
		if (strcmp(&kernel_symbol_names[kernel_symbol_name_offsets[i]], name) == 0)
			return kernel_symbol_addresses[i];
	}
	return 0;
}

char *symbol_format(uint64_t address, char *buffer, size_t size)
{
	uint64_t offset;
	const char *name = symbol_lookup(address, &offset);

	if (name)
		snprintf(buffer, size, "%s+0x%llx", name, (unsigned long long)offset);
	else
		snprintf(buffer, size, "0x%llx", (unsigned long long)address);
	return buffer;
}

char *symbol_format_return_address(uint64_t address, char *buffer, size_t size)
{
	uint64_t offset;
	const char *name = symbol_lookup(address - 1, &offset);

	if (name)
		snprintf(buffer, size, "%s+0x%llx", name, (unsigned long long)offset + 1);
	else
		snprintf(buffer, size, "0x%llx", (unsigned long long)address);
	return buffer;
}
