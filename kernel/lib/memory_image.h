/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_LIB_MEMORY_IMAGE_H
#define TRIGOS_LIB_MEMORY_IMAGE_H
/*
 * A memory image: a few pieces of physical memory, each with the address it
 * had, packed into one byte buffer.  The fuzz targets of tests/fuzz/ read
 * their input as one (the ACPI tables of a real boot, or a PVH start_info
 * and what it points at), and the acpi_crafted boot test reads a crafted
 * one from QEMU's fw_cfg, so both hand the parsers of kernel/lib the same
 * kind of memory through a struct physical_memory_access.
 *
 * The format (all little-endian) is a sequence of chunks, nothing else:
 *
 *	u64 physical	where the chunk's first byte was
 *	u32 length	how many bytes follow
 *	u8  bytes[length]
 *
 * A last chunk whose bytes run past the end of the buffer is cut to what
 * the buffer holds, and a last header shorter than 12 bytes is ignored, so
 * that every buffer is a valid image (a fuzzer's mutations stay useful).
 *
 * Usage:
 *
 *	struct memory_image image;
 *	struct physical_memory_access memory;
 *	struct memory_image_chunk root;
 *
 *	memory_image_init(&image, bytes, size);
 *	memory = memory_image_access(&image);
 *	if (memory_image_chunk(&image, 0, &root))
 *		acpi_tables_init(&tables, root.bytes, root.length, &memory, NULL);
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <lib/physical_memory.h>

#define MEMORY_IMAGE_CHUNK_HEADER_SIZE	12

struct memory_image {
	const uint8_t *bytes;
	size_t size;
};

struct memory_image_chunk {
	uint64_t physical;
	const uint8_t *bytes;	/* into the image; any alignment */
	size_t length;		/* after cutting to the buffer */
};

/**
 * memory_image_init - describe @size bytes at @bytes as a memory image
 * @image: filled in; it keeps @bytes, which must outlive it
 * @bytes: the buffer (NULL only with @size 0)
 * @size: its size
 */
void memory_image_init(struct memory_image *image, const void *bytes, size_t size);

/**
 * memory_image_chunk - the chunk number @index
 * @image: from memory_image_init()
 * @index: 0 for the first chunk
 * @out: filled in when the chunk exists
 *
 * Return: false when the image has fewer than @index + 1 chunks.
 */
bool memory_image_chunk(const struct memory_image *image, size_t index,
			struct memory_image_chunk *out);

/**
 * memory_image_map - a physical_memory_access map() over a memory image
 * @physical: first byte wanted
 * @length: how many bytes (at least 1)
 * @context: the struct memory_image
 *
 * Return: a pointer into the first chunk holding all of the range, or
 * NULL if no single chunk does (ranges never span two chunks, even
 * adjacent ones, so that a parser reading past a table is refused).
 */
const void *memory_image_map(uint64_t physical, size_t length, void *context);

/**
 * memory_image_access - the accessor that maps through memory_image_map()
 * @image: the image; it must outlive the accessor's use
 */
static inline struct physical_memory_access memory_image_access(const struct memory_image *image)
{
	struct physical_memory_access access = {
		.map = memory_image_map,
		.context = (void *)image,
	};

	return access;
}

#endif /* TRIGOS_LIB_MEMORY_IMAGE_H */
