// SPDX-License-Identifier: MIT
#include <harness/test.h>
#include <lib/memory_map.h>

static void sort_orders_by_base_and_keeps_contents(void)
{
	struct memory_region regions[] = {
		{ 0x100000, 0x1000, MEMORY_AVAILABLE },
		{ 0x0, 0x9fc00, MEMORY_AVAILABLE },
		{ 0xf0000, 0x10000, MEMORY_RESERVED },
		{ 0x9fc00, 0x400, MEMORY_RESERVED },
	};

	memory_map_sort(regions, 4);
	EXPECT_EQ(regions[0].base, 0x0u);
	EXPECT_EQ(regions[0].length, 0x9fc00u);
	EXPECT_EQ(regions[1].base, 0x9fc00u);
	EXPECT_EQ(regions[1].type, (uint32_t)MEMORY_RESERVED);
	EXPECT_EQ(regions[2].base, 0xf0000u);
	EXPECT_EQ(regions[3].base, 0x100000u);
	EXPECT_EQ(regions[3].length, 0x1000u);
}

static void sort_handles_empty_and_single(void)
{
	struct memory_region one = { 5, 5, MEMORY_AVAILABLE };

	memory_map_sort(NULL, 0);
	memory_map_sort(&one, 1);
	EXPECT_EQ(one.base, 5u);
}

static void overlap_found_and_not_found(void)
{
	struct memory_region disjoint[] = {
		{ 0, 0x1000, 1 }, { 0x1000, 0x1000, 2 }, { 0x3000, 0x10, 1 },
	};
	struct memory_region overlapping[] = {
		{ 0, 0x2000, 1 }, { 0x1000, 0x1000, 2 }, { 0x3000, 0x10, 1 },
	};
	struct memory_region nested[] = {
		{ 0, 0x10000, 1 }, { 0x1000, 0x10, 2 }, { 0x2000, 0x10, 1 },
	};
	struct memory_region empty_inside[] = {
		{ 0, 0x2000, 1 }, { 0x1000, 0, 2 },
	};

	EXPECT_EQ(memory_map_find_overlap(disjoint, 3), 3u);
	EXPECT_EQ(memory_map_find_overlap(overlapping, 3), 1u);
	EXPECT_EQ(memory_map_find_overlap(nested, 3), 1u);
	EXPECT_EQ(memory_map_find_overlap(empty_inside, 2), 2u);
}

static void covers_requires_every_byte_of_the_type(void)
{
	struct memory_region regions[] = {
		{ 0, 0x9f000, MEMORY_AVAILABLE },
		{ 0x100000, 0x100000, MEMORY_AVAILABLE },
		{ 0x200000, 0x100000, MEMORY_AVAILABLE },
		{ 0x300000, 0x1000, MEMORY_RESERVED },
	};

	EXPECT_TRUE(memory_map_covers(regions, 4, 0x100000, 0x300000, MEMORY_AVAILABLE));
	EXPECT_TRUE(memory_map_covers(regions, 4, 0x1000, 0x2000, MEMORY_AVAILABLE));
	EXPECT_FALSE(memory_map_covers(regions, 4, 0x9e000, 0x100000, MEMORY_AVAILABLE));
	EXPECT_FALSE(memory_map_covers(regions, 4, 0x2ff000, 0x301000, MEMORY_AVAILABLE));
	EXPECT_TRUE(memory_map_covers(regions, 4, 0x300000, 0x301000, MEMORY_RESERVED));
	EXPECT_FALSE(memory_map_covers(regions, 4, 0x1000, 0x1000, MEMORY_AVAILABLE));
}

static void region_at_the_top_does_not_wrap(void)
{
	struct memory_region regions[] = {
		{ 0xfffffffffffff000ull, 0x2000, MEMORY_RESERVED },
	};

	EXPECT_TRUE(memory_map_covers(regions, 1, 0xfffffffffffff000ull, 0xffffffffffffffffull,
				      MEMORY_RESERVED));
	EXPECT_EQ(memory_map_find_overlap(regions, 1), 1u);
}

static const struct test_case memory_map_cases[] = {
	TEST_CASE(sort_orders_by_base_and_keeps_contents),
	TEST_CASE(sort_handles_empty_and_single),
	TEST_CASE(overlap_found_and_not_found),
	TEST_CASE(covers_requires_every_byte_of_the_type),
	TEST_CASE(region_at_the_top_does_not_wrap),
};
TEST_SUITE(lib_memory_map, memory_map_cases, NULL, NULL);
