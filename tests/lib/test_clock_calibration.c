// SPDX-License-Identifier: MIT
/*
 * Tests for kernel/lib/clock_calibration.c: windows that agree decide,
 * windows that disagree never give a confident rate.  The disagreeing
 * inputs are shaped like the ones seen from QEMU TCG's PIT under host load
 * (five 5 ms windows spread over 2096-5018 MHz, the true rate 2245 MHz,
 * tight brackets), and like the 2x-4x late windows measured here since.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <harness/test.h>
#include <lib/clock_calibration.h>
#include <lib/random.h>

#define COUNT_OF(array) (sizeof(array) / sizeof((array)[0]))

#define MHZ		1000000ull
#define TRUE_HZ		(2245 * MHZ)
#define PIT_HZ		1193182ull
#define HPET_HZ		100000000ull

/*
 * A window of @milliseconds on a reference of @reference_hz through which
 * the counter appeared to run at @apparent_hz, each reference read taking
 * @bracket counter cycles.
 */
static struct calibration_window window_of(uint64_t apparent_hz, uint64_t reference_hz,
					   unsigned int milliseconds, uint64_t bracket)
{
	uint64_t ticks = reference_hz * milliseconds / 1000;
	uint64_t cycles = apparent_hz / reference_hz * ticks +
			  apparent_hz % reference_hz * ticks / reference_hz;
	struct calibration_window w = {
		.start_before = 1000000000ull,
		.reference_ticks = ticks,
		.reference_hz = reference_hz,
	};

	w.start_after = w.start_before + bracket;
	w.end_before = w.start_before + cycles;
	w.end_after = w.end_before + bracket;
	return w;
}

static uint64_t ppm_apart(uint64_t a, uint64_t b)
{
	uint64_t difference = a > b ? a - b : b - a;

	return difference * 1000000 / b;
}

static void a_window_gives_its_rate_and_doubt(void)
{
	struct calibration_window w = window_of(TRUE_HZ, HPET_HZ, 5, 0);
	uint32_t ppm;

	EXPECT_EQ(calibration_window_rate(&w, &ppm), TRUE_HZ);
	EXPECT_EQ(ppm, 2u);			/* one tick of 500000 each way, rounded up */
	w = window_of(TRUE_HZ, HPET_HZ, 5, 11225);	/* 5 us brackets in 5 ms */
	EXPECT_EQ(calibration_window_rate(&w, &ppm), TRUE_HZ);
	EXPECT_EQ(ppm, 1000u + 2);
	w = window_of(TRUE_HZ, PIT_HZ, 5, 0);
	EXPECT_LE(ppm_apart(calibration_window_rate(&w, &ppm), TRUE_HZ), 1u);
	EXPECT_EQ(ppm, 168u);			/* 5965 ticks */
}

static void a_window_that_implies_nothing_gives_zero(void)
{
	struct calibration_window w = window_of(TRUE_HZ, HPET_HZ, 5, 100);
	struct calibration_window broken;

	broken = w;
	broken.reference_ticks = 0;
	EXPECT_EQ(calibration_window_rate(&broken, NULL), 0u);
	broken = w;
	broken.reference_hz = 0;
	EXPECT_EQ(calibration_window_rate(&broken, NULL), 0u);
	broken = w;
	broken.end_before = broken.start_before;	/* ends before it started */
	EXPECT_EQ(calibration_window_rate(&broken, NULL), 0u);
	broken = w;
	broken.start_after = broken.start_before - 1;	/* the counter went backwards */
	EXPECT_EQ(calibration_window_rate(&broken, NULL), 0u);
	broken = w;
	broken.reference_hz = UINT64_MAX / 2;		/* beyond 64 bits */
	EXPECT_EQ(calibration_window_rate(&broken, NULL), 0u);
}

static void agreeing_windows_decide_after_four(void)
{
	static const int64_t wobble_ppm[] = { 30, -25, 10, -5 };
	struct calibration c;

	calibration_begin(&c, &calibration_limits_default);
	for (size_t i = 0; i < COUNT_OF(wobble_ppm); i++) {
		uint64_t hz = TRUE_HZ + (uint64_t)((int64_t)TRUE_HZ / 1000000 * wobble_ppm[i]);
		struct calibration_window w = window_of(hz, HPET_HZ, 2 + (unsigned int)i, 800);

		EXPECT_EQ(calibration_add(&c, &w),
			  i + 1 < COUNT_OF(wobble_ppm) ? CALIBRATION_MEASURING : CALIBRATION_AGREED);
	}
	EXPECT_EQ(c.state, CALIBRATION_AGREED);
	EXPECT_EQ(c.agreeing, 4u);
	EXPECT_EQ(c.kept, 4u);
	EXPECT_LE(ppm_apart(c.hz, TRUE_HZ), 30u);
	/* Decided: a later window changes nothing. */
	{
		struct calibration_window late = window_of(2 * TRUE_HZ, HPET_HZ, 2, 800);

		EXPECT_EQ(calibration_add(&c, &late), CALIBRATION_AGREED);
		EXPECT_EQ(c.taken, 4u);
	}
}

/* The spread seen under load, then more of the same: never trusted. */
static void the_seen_spread_is_never_trusted(void)
{
	static const uint64_t seen_mhz[] = { 2096, 3322, 5018, 2245, 4180 };
	struct calibration c;
	struct calibration_window w;
	unsigned int taken = 0;

	calibration_begin(&c, &calibration_limits_default);
	while (c.state == CALIBRATION_MEASURING) {
		/* The same spread again, shifted so that no two windows coincide. */
		uint64_t hz = seen_mhz[taken % COUNT_OF(seen_mhz)] * MHZ + taken * 7 * MHZ;

		w = window_of(hz, PIT_HZ, 5, 400);
		calibration_add(&c, &w);
		taken++;
		ASSERT_LE(taken, calibration_limits_default.windows_max);
	}
	EXPECT_EQ(c.state, CALIBRATION_DISAGREED);
	EXPECT_EQ(c.hz, 0u);
	EXPECT_EQ(c.taken, calibration_limits_default.windows_max);
	EXPECT_LE(ppm_apart(c.lowest_hz, 2096 * MHZ), 1u);
	EXPECT_LT(c.agreeing * 2, c.kept);
	/* One long window is used, but only as a guess. */
	w = window_of(2301 * MHZ, PIT_HZ, 50, 400);
	EXPECT_EQ(calibration_settle(&c, &w), CALIBRATION_UNRELIABLE);
	EXPECT_LE(ppm_apart(c.hz, 2301 * MHZ), 1u);
}

/* Disagreement first, then the truth, more than half of the time: agreed on the truth. */
static void agreement_that_outlasts_noise_decides(void)
{
	static const uint64_t mhz[] = { 2096, 5018, 3322, 2245, 2245, 2245, 2245 };
	struct calibration c;

	calibration_begin(&c, &calibration_limits_default);
	for (size_t i = 0; i < COUNT_OF(mhz); i++) {
		struct calibration_window w = window_of(mhz[i] * MHZ + i * 1000, PIT_HZ, 5, 400);

		EXPECT_EQ(calibration_add(&c, &w),
			  i + 1 < COUNT_OF(mhz) ? CALIBRATION_MEASURING : CALIBRATION_AGREED);
	}
	EXPECT_EQ(c.agreeing, 4u);
	EXPECT_LE(ppm_apart(c.hz, TRUE_HZ), 10u);
}

/* Four windows agree, twice, but neither four is more than half: keep measuring. */
static void a_minority_is_not_agreement(void)
{
	static const uint64_t mhz[] = { 2245, 4490, 3000, 2245, 4490, 3700, 2245, 4490, 2245,
					4490 };
	struct calibration c;

	calibration_begin(&c, &calibration_limits_default);
	for (size_t i = 0; i < COUNT_OF(mhz); i++) {
		struct calibration_window w = window_of(mhz[i] * MHZ, HPET_HZ, 3, 400);

		EXPECT_EQ(calibration_add(&c, &w), CALIBRATION_MEASURING);
	}
	EXPECT_EQ(c.agreeing, 4u);
	EXPECT_EQ(c.kept, 10u);
}

/* A window whose reference read was interrupted for 4 ms is refused, not counted. */
static void interrupted_windows_are_rejected(void)
{
	struct calibration c;
	struct calibration_window w;

	calibration_begin(&c, &calibration_limits_default);
	for (unsigned int i = 0; i < calibration_limits_default.windows_max; i++) {
		w = window_of(TRUE_HZ, HPET_HZ, 5, TRUE_HZ / 250);
		calibration_add(&c, &w);
	}
	EXPECT_EQ(c.state, CALIBRATION_FAILED);
	EXPECT_EQ(c.rejected, calibration_limits_default.windows_max);
	EXPECT_EQ(c.kept, 0u);
	EXPECT_EQ(calibration_settle(&c, &w), CALIBRATION_FAILED);	/* not DISAGREED */
	EXPECT_STREQ(calibration_state_name(c.state), "failed");
}

/*
 * Windows drawn at random: a true one (within 50 ppm) with probability
 * @percent_true, else one 0.9x-4x off, as seen.  Over many draws, a
 * confident rate is always the true one.
 */
static void random_noise_never_gives_a_confident_wrong_rate(void)
{
	static const unsigned int percents[] = { 0, 10, 30, 50, 70, 90, 100 };
	struct random_state random;
	unsigned int agreed[COUNT_OF(percents)] = { 0 };
#ifdef TRIGOS_HOST_TEST
	const unsigned int trials = 20000;	/* on the host: rare coincidences show */
#else
	const unsigned int trials = 500;	/* at boot, under emulation: a spot check */
#endif

	random_seed(&random, 2245);
	for (size_t p = 0; p < COUNT_OF(percents); p++) {
		for (unsigned int trial = 0; trial < trials; trial++) {
			struct calibration c;

			calibration_begin(&c, &calibration_limits_default);
			while (c.state == CALIBRATION_MEASURING) {
				uint64_t hz;
				struct calibration_window w;

				if (random_below(&random, 100) < percents[p])
					hz = TRUE_HZ - 50 * (TRUE_HZ / 1000000) +
					     random_below(&random, 100 * (TRUE_HZ / 1000000));
				else
					hz = TRUE_HZ / 10 * 9 +
					     random_below(&random, TRUE_HZ * 4 - TRUE_HZ / 10 * 9);
				w = window_of(hz, PIT_HZ, 2 + (unsigned int)random_below(&random, 3),
					      300 + random_below(&random, 2000));
				calibration_add(&c, &w);
			}
			if (c.state == CALIBRATION_AGREED) {
				agreed[p]++;
				ASSERT_LE(ppm_apart(c.hz, TRUE_HZ), 1000u);
			}
		}
		test_diag("%u%% true windows: agreed in %u of %u calibrations", percents[p],
			  agreed[p], trials);
	}
	EXPECT_EQ(agreed[0], 0u);		/* noise alone never agrees */
	EXPECT_EQ(agreed[6], trials);		/* the truth alone always does */
	EXPECT_GE(agreed[5], trials * 99 / 100);	/* 10 % noise: decided */
	EXPECT_GE(agreed[4], trials * 95 / 100);	/* 30 % noise: nearly always */
}

static const struct test_case lib_clock_calibration_cases[] = {
	TEST_CASE(a_window_gives_its_rate_and_doubt),
	TEST_CASE(a_window_that_implies_nothing_gives_zero),
	TEST_CASE(agreeing_windows_decide_after_four),
	TEST_CASE(the_seen_spread_is_never_trusted),
	TEST_CASE(agreement_that_outlasts_noise_decides),
	TEST_CASE(a_minority_is_not_agreement),
	TEST_CASE(interrupted_windows_are_rejected),
	TEST_CASE(random_noise_never_gives_a_confident_wrong_rate),
};
TEST_SUITE(lib_clock_calibration, lib_clock_calibration_cases, NULL, NULL);
