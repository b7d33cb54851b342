// SPDX-License-Identifier: MIT
/* Tests for kernel/lib/memory_image.c. */
#include <harness/test.h>

#include <lib/memory_image.h>

#include "fake_memory.h"

static uint8_t image_bytes[64];

/* Two chunks: 8 bytes at 0x1000 ("ABCDEFGH"), 4 bytes at 0x1008 ("wxyz"). */
static size_t build_two_chunks(void)
{
	put64(&image_bytes[0], 0x1000);
	put32(&image_bytes[8], 8);
	memcpy(&image_bytes[12], "ABCDEFGH", 8);
	put64(&image_bytes[20], 0x1008);
	put32(&image_bytes[28], 4);
	memcpy(&image_bytes[32], "wxyz", 4);
	return 36;
}

static void chunks_are_listed_in_order(void)
{
	struct memory_image image;
	struct memory_image_chunk chunk;

	memory_image_init(&image, image_bytes, build_two_chunks());
	ASSERT_TRUE(memory_image_chunk(&image, 0, &chunk));
	EXPECT_EQ(chunk.physical, 0x1000u);
	EXPECT_EQ(chunk.length, 8u);
	EXPECT_EQ(chunk.bytes[0], 'A');
	ASSERT_TRUE(memory_image_chunk(&image, 1, &chunk));
	EXPECT_EQ(chunk.physical, 0x1008u);
	EXPECT_EQ(chunk.bytes[3], 'z');
	EXPECT_FALSE(memory_image_chunk(&image, 2, &chunk));
}

static void map_stays_inside_one_chunk(void)
{
	struct memory_image image;
	struct physical_memory_access memory;
	const uint8_t *bytes;

	memory_image_init(&image, image_bytes, build_two_chunks());
	memory = memory_image_access(&image);
	bytes = physical_memory_map(&memory, 0x1002, 6);
	ASSERT_NOT_NULL(bytes);
	EXPECT_EQ(bytes[0], 'C');
	bytes = physical_memory_map(&memory, 0x1008, 4);
	ASSERT_NOT_NULL(bytes);
	EXPECT_EQ(bytes[0], 'w');
	/* Adjacent chunks are not joined, and nothing outside them maps. */
	EXPECT_NULL(physical_memory_map(&memory, 0x1006, 4));
	EXPECT_NULL(physical_memory_map(&memory, 0x0fff, 2));
	EXPECT_NULL(physical_memory_map(&memory, 0x100c, 1));
	EXPECT_NULL(physical_memory_map(&memory, 0x1000, 0));
}

static void a_cut_last_chunk_keeps_what_the_buffer_holds(void)
{
	struct memory_image image;
	struct memory_image_chunk chunk;

	build_two_chunks();
	put32(&image_bytes[28], 0xffffffffu);
	memory_image_init(&image, image_bytes, 34);
	ASSERT_TRUE(memory_image_chunk(&image, 1, &chunk));
	EXPECT_EQ(chunk.length, 2u);
	EXPECT_NULL(memory_image_map(0x1008, 3, &image));
	EXPECT_NOT_NULL(memory_image_map(0x1008, 2, &image));
	/* A header of fewer than 12 bytes is no chunk. */
	memory_image_init(&image, image_bytes, 31);
	EXPECT_FALSE(memory_image_chunk(&image, 1, &chunk));
	memory_image_init(&image, NULL, 10);
	EXPECT_FALSE(memory_image_chunk(&image, 0, &chunk));
}

static void ranges_near_the_top_of_memory_do_not_wrap(void)
{
	struct memory_image image;

	put64(&image_bytes[0], UINT64_MAX - 3);
	put32(&image_bytes[8], 4);
	memory_image_init(&image, image_bytes, 16);
	EXPECT_NOT_NULL(memory_image_map(UINT64_MAX - 3, 4, &image));
	EXPECT_NOT_NULL(memory_image_map(UINT64_MAX, 1, &image));
	EXPECT_NULL(memory_image_map(UINT64_MAX, 2, &image));
	EXPECT_NULL(memory_image_map(0, 1, &image));
}

static const struct test_case memory_image_cases[] = {
	TEST_CASE(chunks_are_listed_in_order),
	TEST_CASE(map_stays_inside_one_chunk),
	TEST_CASE(a_cut_last_chunk_keeps_what_the_buffer_holds),
	TEST_CASE(ranges_near_the_top_of_memory_do_not_wrap),
};
TEST_SUITE(lib_memory_image, memory_image_cases, NULL, NULL);
