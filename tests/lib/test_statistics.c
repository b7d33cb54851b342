// SPDX-License-Identifier: MIT
/* Tests for kernel/lib/statistics.c. */
#include <stdint.h>

#include <harness/test.h>
#include <lib/statistics.h>
#include <lib/random.h>

#define COUNT_OF(array) (sizeof(array) / sizeof((array)[0]))

static void sorting_orders_any_input(void)
{
	static uint64_t values[5000];
	struct random_state random;

	random_seed(&random, 12345);
	for (size_t i = 0; i < COUNT_OF(values); i++)
		values[i] = random_next(&random) % 1000;	/* many duplicates */
	sort_u64(values, COUNT_OF(values));
	for (size_t i = 1; i < COUNT_OF(values); i++)
		ASSERT_LE(values[i - 1], values[i]);

	sort_u64(values, 0);	/* nothing to do, nothing touched */
	values[0] = UINT64_MAX;
	values[1] = 0;
	sort_u64(values, 2);
	EXPECT_EQ(values[0], 0u);
	EXPECT_EQ(values[1], UINT64_MAX);
}

static void percentiles_are_nearest_rank(void)
{
	uint64_t values[100];

	for (size_t i = 0; i < COUNT_OF(values); i++)
		values[i] = i + 1;	/* 1..100 */
	EXPECT_EQ(percentile_nearest_rank(values, 100, 0), 1u);
	EXPECT_EQ(percentile_nearest_rank(values, 100, 1), 1u);
	EXPECT_EQ(percentile_nearest_rank(values, 100, 50), 50u);
	EXPECT_EQ(percentile_nearest_rank(values, 100, 99), 99u);
	EXPECT_EQ(percentile_nearest_rank(values, 100, 100), 100u);
	EXPECT_EQ(percentile_nearest_rank(values, 100, 250), 100u);
	/* Ten samples: p50 is the 5th, p90 the 9th, p99 the 10th (the max). */
	EXPECT_EQ(percentile_nearest_rank(values, 10, 50), 5u);
	EXPECT_EQ(percentile_nearest_rank(values, 10, 90), 9u);
	EXPECT_EQ(percentile_nearest_rank(values, 10, 99), 10u);
	EXPECT_EQ(percentile_nearest_rank(values, 1, 50), 1u);
	EXPECT_EQ(percentile_nearest_rank(values, 0, 50), 0u);
}

static void overhead_subtraction_stops_at_zero(void)
{
	uint64_t values[] = { 100, 30, 29, 0, 1000 };

	EXPECT_EQ(subtract_overhead(values, COUNT_OF(values), 30), 2u);
	EXPECT_EQ(values[0], 70u);
	EXPECT_EQ(values[1], 0u);
	EXPECT_EQ(values[2], 0u);
	EXPECT_EQ(values[3], 0u);
	EXPECT_EQ(values[4], 970u);
	EXPECT_EQ(subtract_overhead(values, COUNT_OF(values), 0), 0u);
	EXPECT_EQ(values[4], 970u);
}

static void outliers_are_counted_not_dropped(void)
{
	uint64_t values[100];
	struct sample_summary summary;

	/* 96 samples of 100..195, then four far out. */
	for (size_t i = 0; i < 96; i++)
		values[i] = 100 + i;
	values[96] = 5000;
	values[97] = 100000;
	values[98] = 300;	/* inside the fence: p75 + 3 * IQR */
	values[99] = 7000;
	summarize_samples(values, COUNT_OF(values), &summary);
	EXPECT_EQ(summary.count, 100u);
	EXPECT_EQ(summary.min, 100u);
	EXPECT_EQ(summary.max, 100000u);
	EXPECT_EQ(summary.p25, 124u);
	EXPECT_EQ(summary.p75, 174u);
	EXPECT_EQ(summary.outlier_fence, 174u + 3 * 50);
	EXPECT_EQ(summary.outliers, 3u);
	EXPECT_EQ(summary.p99, 7000u);	/* the outliers stay in the distribution */
}

static void summaries_of_few_or_equal_samples(void)
{
	uint64_t same[50], three[] = { 9, 1, 5 };
	struct sample_summary summary;

	summarize_samples(NULL, 0, &summary);
	EXPECT_EQ(summary.count, 0u);
	EXPECT_EQ(summary.p50, 0u);
	EXPECT_EQ(summary.outliers, 0u);

	for (size_t i = 0; i < COUNT_OF(same); i++)
		same[i] = 42;
	summarize_samples(same, COUNT_OF(same), &summary);
	EXPECT_EQ(summary.min, 42u);
	EXPECT_EQ(summary.p99, 42u);
	EXPECT_EQ(summary.outliers, 0u);

	summarize_samples(three, COUNT_OF(three), &summary);
	EXPECT_EQ(summary.min, 1u);
	EXPECT_EQ(summary.p50, 5u);
	EXPECT_EQ(summary.max, 9u);
	EXPECT_EQ(summary.outliers, 0u);	/* too few to call anything far out */
}

static void huge_samples_do_not_wrap_the_fence(void)
{
	uint64_t values[8] = { 0, 0, 0, 0, 0, 0, UINT64_MAX / 2, UINT64_MAX };
	struct sample_summary summary;

	summarize_samples(values, COUNT_OF(values), &summary);
	EXPECT_GE(summary.outlier_fence, summary.p75);
	EXPECT_EQ(summary.max, UINT64_MAX);
}

static void median_sorts_and_picks_the_middle(void)
{
	uint64_t values[] = { 7, 3, 9, 1, 5 };

	EXPECT_EQ(median_u64(values, COUNT_OF(values)), 5u);
	EXPECT_EQ(values[0], 1u);
}

static const struct test_case lib_statistics_cases[] = {
	TEST_CASE(sorting_orders_any_input),
	TEST_CASE(percentiles_are_nearest_rank),
	TEST_CASE(overhead_subtraction_stops_at_zero),
	TEST_CASE(outliers_are_counted_not_dropped),
	TEST_CASE(summaries_of_few_or_equal_samples),
	TEST_CASE(huge_samples_do_not_wrap_the_fence),
	TEST_CASE(median_sorts_and_picks_the_middle),
};
TEST_SUITE(lib_statistics, lib_statistics_cases, NULL, NULL);
