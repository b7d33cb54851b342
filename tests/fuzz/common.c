// SPDX-License-Identifier: MIT
/* The checks the fuzz targets share (tests/fuzz/fuzz.h). */
#include <stdio.h>
#include <stdlib.h>

#include <lib/bytes.h>
#include <lib/memory_image.h>
#include <lib/string.h>

#include "fuzz.h"

void fuzz_fail_at(const char *file, int line, const char *what)
{
	fprintf(stderr, "fuzz: %s:%d: broken promise: %s\n", file, line, what);
	abort();
}

static void check_acpi_message(void *context, const char *message)
{
	size_t length = strnlen(message, ACPI_MESSAGE_SIZE);

	FUZZ_CHECK(length > 0 && length < ACPI_MESSAGE_SIZE);
	if (getenv("FUZZ_VERBOSE"))
		fprintf(stderr, "report: %s\n", message);
	if (context)
		(*(size_t *)context)++;
}

const struct acpi_reporter fuzz_acpi_reporter = { .report = check_acpi_message };

void fuzz_check_boot_info(const struct boot_info *info)
{
	FUZZ_CHECK(strnlen(info->cmdline, sizeof(info->cmdline)) < sizeof(info->cmdline));
	FUZZ_CHECK(strnlen(info->loader_name, sizeof(info->loader_name)) <
		   sizeof(info->loader_name));
	FUZZ_CHECK(info->memory_count <= BOOT_INFO_MAX_MEMORY_REGIONS);
	FUZZ_CHECK(info->module_count <= BOOT_INFO_MAX_MODULES);
	FUZZ_CHECK(info->message_count <= BOOT_INFO_MAX_MESSAGES);
	FUZZ_CHECK(info->rsdp_copy_length <= sizeof(info->rsdp_copy));
	FUZZ_CHECK(!info->has_rsdp_copy || info->rsdp_address == 0);
	FUZZ_CHECK(info->info_start <= info->info_end);
	for (size_t i = 0; i < info->message_count; i++)
		FUZZ_CHECK(strnlen(info->messages[i], BOOT_INFO_MESSAGE_SIZE) <
			   BOOT_INFO_MESSAGE_SIZE);
}

void fuzz_fix_checksum(uint8_t *bytes, size_t covered, size_t checksum_offset)
{
	uint8_t sum = 0;

	if (checksum_offset >= covered)
		return;
	bytes[checksum_offset] = 0;
	for (size_t i = 0; i < covered; i++)
		sum = (uint8_t)(sum + bytes[i]);
	bytes[checksum_offset] = (uint8_t)-sum;
}

void fuzz_fix_acpi_checksums(uint8_t *bytes, size_t size)
{
	size_t length;

	if (size >= 8 && memcmp(bytes, "RSD PTR ", 8) == 0) {
		fuzz_fix_checksum(bytes, size < ACPI_RSDP_V1_SIZE ? size : ACPI_RSDP_V1_SIZE, 8);
		if (size >= ACPI_RSDP_V2_SIZE) {
			length = get_le32(bytes + 20);
			fuzz_fix_checksum(bytes, length < size ? length : size, 32);
		}
		return;
	}
	if (size >= ACPI_TABLE_HEADER_SIZE) {
		length = get_le32(bytes + 4);
		fuzz_fix_checksum(bytes, length < size ? length : size, 9);
	}
}

uint8_t *fuzz_copy(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size ? size : 1);

	if (!copy)
		fuzz_fail("out of memory");
	memcpy(copy, data, size);
	return copy;
}

void fuzz_image_as_given_and_fixed(const uint8_t *data, size_t size,
				   void (*run)(const uint8_t *data, size_t size),
				   void (*fix)(uint8_t *bytes, size_t length))
{
	struct memory_image image;
	struct memory_image_chunk chunk;
	uint8_t *copy;

	run(data, size);
	copy = fuzz_copy(data, size);
	memory_image_init(&image, copy, size);
	for (size_t i = 0; memory_image_chunk(&image, i, &chunk); i++)
		fix((uint8_t *)chunk.bytes, chunk.length);	/* it points into copy */
	run(copy, size);
	free(copy);
}

/*
 * The chunks of the image being fuzzed, each copied to a heap block of its
 * own size: in the image they are adjacent, so a parser reading past one
 * would read the next chunk's header unnoticed; past a heap block,
 * AddressSanitizer stops it.
 */
#define FUZZ_MAX_CHUNKS 64

static struct {
	uint64_t physical;
	uint8_t *bytes;
	size_t length;
} chunks[FUZZ_MAX_CHUNKS];
static size_t chunk_count;

static const void *map_chunk(uint64_t physical, size_t length, void *context)
{
	for (size_t i = 0; i < chunk_count; i++) {
		uint64_t skip = physical - chunks[i].physical;

		if (physical >= chunks[i].physical && skip <= chunks[i].length &&
		    length <= chunks[i].length - skip)
			return chunks[i].bytes + skip;
	}
	return NULL;
}

bool fuzz_memory_open(const uint8_t *data, size_t size, struct physical_memory_access *memory,
		      struct memory_image_chunk *first)
{
	struct memory_image image;
	struct memory_image_chunk chunk;

	fuzz_memory_close();
	memory_image_init(&image, data, size);
	while (chunk_count < FUZZ_MAX_CHUNKS && memory_image_chunk(&image, chunk_count, &chunk)) {
		chunks[chunk_count].physical = chunk.physical;
		chunks[chunk_count].bytes = fuzz_copy(chunk.bytes, chunk.length);
		chunks[chunk_count].length = chunk.length;
		chunk_count++;
	}
	memory->map = map_chunk;
	memory->context = NULL;
	if (chunk_count == 0)
		return false;
	first->physical = chunks[0].physical;
	first->bytes = chunks[0].bytes;
	first->length = chunks[0].length;
	return true;
}

void fuzz_memory_close(void)
{
	for (size_t i = 0; i < chunk_count; i++)
		free(chunks[i].bytes);
	chunk_count = 0;
}
