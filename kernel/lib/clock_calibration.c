// SPDX-License-Identifier: MIT
/*
 * The decision of a clock calibration (clock_calibration.h says why it
 * looks for agreement instead of taking a median).  Integer math only:
 * rates in Hz, uncertainties in parts per million.
 */
#include <lib/clock_calibration.h>
#include <lib/statistics.h>

#define PPM			1000000u
#define PPM_MAX			UINT32_MAX

const struct calibration_limits calibration_limits_default = {
	.agreeing = 4,
	.windows_max = 16,
	.uncertainty_max_ppm = 2000,
	.slack_ppm = 100,
};

static uint64_t bracket_middle(uint64_t before, uint64_t after)
{
	return before + (after - before) / 2;
}

/* @cycles * @reference_hz / @ticks, or 0 if it does not fit in 64 bits. */
static uint64_t scale_to_hz(uint64_t cycles, uint64_t reference_hz, uint64_t ticks)
{
	uint64_t whole = cycles / ticks, part = cycles % ticks;

	if (reference_hz > UINT64_MAX / ticks)
		return 0;	/* part * reference_hz could overflow: no real clock is this fast */
	if (whole > (UINT64_MAX - part * reference_hz / ticks) / reference_hz)
		return 0;
	return whole * reference_hz + part * reference_hz / ticks;
}

uint64_t calibration_window_rate(const struct calibration_window *window,
				 uint32_t *uncertainty_ppm)
{
	const struct calibration_window *w = window;
	uint64_t cycles, doubt, ppm;

	if (w->reference_ticks == 0 || w->reference_hz == 0 || w->start_after < w->start_before ||
	    w->end_after < w->end_before || w->end_before < w->start_after)
		return 0;
	cycles = bracket_middle(w->end_before, w->end_after) -
		 bracket_middle(w->start_before, w->start_after);
	if (cycles == 0)
		return 0;
	/*
	 * The true count between the two reference reads lies within half of
	 * both brackets of the middles; the reference itself is known to a
	 * tick at each end (a counter read is a sample of a running count).
	 */
	doubt = (w->start_after - w->start_before + w->end_after - w->end_before) / 2;
	if (doubt >= cycles)
		ppm = PPM_MAX;
	else
		ppm = (doubt * PPM + cycles - 1) / cycles + (PPM + w->reference_ticks - 1) /
							 w->reference_ticks;
	if (uncertainty_ppm)
		*uncertainty_ppm = ppm > PPM_MAX ? PPM_MAX : (uint32_t)ppm;
	return scale_to_hz(cycles, w->reference_hz, w->reference_ticks);
}

void calibration_begin(struct calibration *calibration, const struct calibration_limits *limits)
{
	*calibration = (struct calibration){ .limits = *limits, .state = CALIBRATION_MEASURING };
	if (calibration->limits.windows_max > CALIBRATION_WINDOWS_MAX)
		calibration->limits.windows_max = CALIBRATION_WINDOWS_MAX;
	if (calibration->limits.agreeing == 0)
		calibration->limits.agreeing = 1;
}

/* How far from its rate a kept window still agrees: its own doubt plus the slack. */
static uint64_t reach(const struct calibration *c, unsigned int i)
{
	uint64_t ppm = (uint64_t)c->window_ppm[i] + c->limits.slack_ppm;

	return c->window_hz[i] / PPM * ppm + c->window_hz[i] % PPM * ppm / PPM;
}

static uint64_t lowest_agreeing(const struct calibration *c, unsigned int i)
{
	return c->window_hz[i] > reach(c, i) ? c->window_hz[i] - reach(c, i) : 0;
}

static bool covers(const struct calibration *c, unsigned int i, uint64_t hz)
{
	return hz >= lowest_agreeing(c, i) &&
	       (hz <= c->window_hz[i] || hz - c->window_hz[i] <= reach(c, i));
}

/*
 * The largest set of kept windows whose ranges share a rate.  Such a
 * shared rate can always be taken at some window's lower end, so those
 * are the only candidates (at most CALIBRATION_WINDOWS_MAX squared tests).
 */
static unsigned int largest_agreement(const struct calibration *c, uint64_t *shared_hz)
{
	unsigned int best = 0;

	for (unsigned int candidate = 0; candidate < c->kept; candidate++) {
		uint64_t hz = lowest_agreeing(c, candidate);
		unsigned int count = 0;

		for (unsigned int i = 0; i < c->kept; i++)
			count += covers(c, i, hz);
		if (count > best) {
			best = count;
			*shared_hz = hz;
		}
	}
	return best;
}

/* The median rate of the windows that share @shared_hz. */
static uint64_t agreed_rate(const struct calibration *c, uint64_t shared_hz)
{
	uint64_t members[CALIBRATION_WINDOWS_MAX];
	size_t count = 0;

	for (unsigned int i = 0; i < c->kept; i++) {
		if (covers(c, i, shared_hz))
			members[count++] = c->window_hz[i];
	}
	return median_u64(members, count);
}

enum calibration_state calibration_add(struct calibration *calibration,
				       const struct calibration_window *window)
{
	struct calibration *c = calibration;
	uint64_t hz, shared_hz = 0;
	uint32_t ppm = PPM_MAX;

	if (c->state != CALIBRATION_MEASURING)
		return c->state;
	c->taken++;
	hz = calibration_window_rate(window, &ppm);
	if (hz == 0 || ppm > c->limits.uncertainty_max_ppm) {
		c->rejected++;
	} else {
		c->window_hz[c->kept] = hz;
		c->window_ppm[c->kept] = ppm;
		if (c->kept == 0 || hz < c->lowest_hz)
			c->lowest_hz = hz;
		if (hz > c->highest_hz)
			c->highest_hz = hz;
		c->kept++;
		c->agreeing = largest_agreement(c, &shared_hz);
		if (c->agreeing >= c->limits.agreeing && 2 * c->agreeing > c->kept) {
			c->hz = agreed_rate(c, shared_hz);
			c->state = CALIBRATION_AGREED;
			return c->state;
		}
	}
	if (c->taken >= c->limits.windows_max)
		c->state = c->kept ? CALIBRATION_DISAGREED : CALIBRATION_FAILED;
	return c->state;
}

enum calibration_state calibration_settle(struct calibration *calibration,
					  const struct calibration_window *longest)
{
	if (calibration->state != CALIBRATION_DISAGREED)
		return calibration->state;
	calibration->hz = calibration_window_rate(longest, NULL);
	calibration->state = calibration->hz ? CALIBRATION_UNRELIABLE : CALIBRATION_FAILED;
	return calibration->state;
}

const char *calibration_state_name(enum calibration_state state)
{
	switch (state) {
	case CALIBRATION_MEASURING:
		return "measuring";
	case CALIBRATION_AGREED:
		return "agreed";
	case CALIBRATION_DISAGREED:
		return "disagreed";
	case CALIBRATION_UNRELIABLE:
		return "unreliable";
	case CALIBRATION_FAILED:
		break;
	}
	return "failed";
}
