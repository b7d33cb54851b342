// SPDX-License-Identifier: MIT
#include <lib/bytes.h>
#include <lib/memory_image.h>

void memory_image_init(struct memory_image *image, const void *bytes, size_t size)
{
	image->bytes = bytes;
	image->size = bytes ? size : 0;
}

/* The chunk whose header is at @offset, and where the next header would be. */
static bool chunk_at(const struct memory_image *image, size_t offset,
		     struct memory_image_chunk *out, size_t *next)
{
	size_t left, length;

	if (offset > image->size || image->size - offset < MEMORY_IMAGE_CHUNK_HEADER_SIZE)
		return false;
	left = image->size - offset - MEMORY_IMAGE_CHUNK_HEADER_SIZE;
	length = get_le32(image->bytes + offset + 8);
	if (length > left)
		length = left;
	out->physical = get_le64(image->bytes + offset);
	out->bytes = image->bytes + offset + MEMORY_IMAGE_CHUNK_HEADER_SIZE;
	out->length = length;
	*next = offset + MEMORY_IMAGE_CHUNK_HEADER_SIZE + length;
	return true;
}

bool memory_image_chunk(const struct memory_image *image, size_t index,
			struct memory_image_chunk *out)
{
	struct memory_image_chunk chunk;
	size_t offset = 0;

	for (size_t i = 0; chunk_at(image, offset, &chunk, &offset); i++) {
		if (i == index) {
			*out = chunk;
			return true;
		}
	}
	return false;
}

const void *memory_image_map(uint64_t physical, size_t length, void *context)
{
	const struct memory_image *image = context;
	struct memory_image_chunk chunk;
	size_t offset = 0;

	if (!image || length == 0)
		return NULL;
	while (chunk_at(image, offset, &chunk, &offset)) {
		uint64_t skip;

		/* Differences only, so that no sum can wrap around 2^64. */
		if (physical < chunk.physical)
			continue;
		skip = physical - chunk.physical;
		if (skip <= chunk.length && length <= chunk.length - skip)
			return chunk.bytes + skip;
	}
	return NULL;
}
