/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_LIB_CLOCK_CALIBRATION_H
#define TRIGOS_LIB_CLOCK_CALIBRATION_H
/*
 * Deciding a counter's frequency (the TSC's) from measurements against a
 * reference clock of known frequency, when some measurements lie.
 *
 * One measurement (a window) reads the reference twice, each read between
 * two counter reads.  If the reference behaved, the counter's true count
 * between the two reference reads lies within what the brackets allow, so
 * every window gives a rate and an uncertainty.  Under emulation a window
 * can be wrong far beyond that uncertainty with tight brackets (seen: QEMU
 * TCG's PIT under host load ended windows 2x to 4x late), so no single
 * window, and no median of a handful, is trusted: the decision waits until
 * more than half of the windows taken so far, and at least a minimum
 * number, agree within their uncertainties; it takes more windows (up to a
 * limit) while they do not.  When the limit is reached without agreement
 * the caller measures one long window, which dilutes a stop of the
 * reference or of the measuring CPU, and uses it marked unreliable.
 *
 * Pure: no clock is read here, so the host tests feed it any measurements.
 */

#include <stdbool.h>
#include <stdint.h>

/* The most windows one calibration keeps. */
#define CALIBRATION_WINDOWS_MAX	24

/**
 * struct calibration_window - one measurement of a counter against a reference
 * @start_before: the counter just before the reference's first read
 * @start_after: the counter just after it
 * @end_before: the counter just before the reference's last read
 * @end_after: the counter just after it
 * @reference_ticks: reference ticks between its two reads
 * @reference_hz: the reference's frequency
 */
struct calibration_window {
	uint64_t start_before, start_after;
	uint64_t end_before, end_after;
	uint64_t reference_ticks;
	uint64_t reference_hz;
};

/**
 * struct calibration_limits - how much agreement a calibration asks for
 * @agreeing: windows that must agree (and be more than half of those kept)
 * @windows_max: windows taken before giving up (at most CALIBRATION_WINDOWS_MAX)
 * @uncertainty_max_ppm: a window whose brackets and tick resolution leave
 *	more doubt than this (parts per million) is rejected: a read was
 *	interrupted, or the window was too short for its reference
 * @slack_ppm: how much further apart than their uncertainties allow two
 *	windows may be and still agree
 */
struct calibration_limits {
	unsigned int agreeing;
	unsigned int windows_max;
	uint32_t uncertainty_max_ppm;
	uint32_t slack_ppm;
};

/*
 * What the kernel's TSC calibration asks for: four agreeing windows (with
 * three, noise alone agreed once in the 3500 calibrations of the boot-time
 * spot check in tests/lib/test_clock_calibration.c; with four, never in
 * its 140000 host calibrations), at most 16 windows, a window rejected
 * beyond 0.2 % of doubt, 100 ppm of slack (quiet QEMU runs agree within
 * 40 ppm, real PITs within ~500).
 */
extern const struct calibration_limits calibration_limits_default;

enum calibration_state {
	CALIBRATION_MEASURING,	/* not decided: measure another window */
	CALIBRATION_AGREED,	/* enough windows agree: @hz is trusted */
	CALIBRATION_DISAGREED,	/* windows_max taken, no agreement: see calibration_settle() */
	CALIBRATION_UNRELIABLE,	/* settled on one long window: @hz is a guess */
	CALIBRATION_FAILED,	/* no usable window at all */
};

/**
 * struct calibration - the state of one calibration, and its outcome
 * @limits: as given to calibration_begin()
 * @state: where the decision stands
 * @taken: windows offered
 * @rejected: windows refused (too uncertain, or no ticks)
 * @kept: windows accepted (@taken - @rejected)
 * @agreeing: the most kept windows that share a common rate
 * @hz: the decided rate (0 until AGREED or UNRELIABLE)
 * @lowest_hz: the lowest kept window's rate
 * @highest_hz: the highest
 * @window_hz: each kept window's rate, in the order taken
 * @window_ppm: each kept window's uncertainty
 */
struct calibration {
	struct calibration_limits limits;
	enum calibration_state state;
	unsigned int taken, rejected, kept, agreeing;
	uint64_t hz, lowest_hz, highest_hz;
	uint64_t window_hz[CALIBRATION_WINDOWS_MAX];
	uint32_t window_ppm[CALIBRATION_WINDOWS_MAX];
};

/**
 * calibration_window_rate - the rate one window implies, and its uncertainty
 * @window: the measurement
 * @uncertainty_ppm: set to the relative uncertainty (brackets and one
 *	reference tick), in parts per million, unless NULL
 *
 * Returns 0 for a window that implies nothing (no ticks, a counter that
 * went backwards, a rate beyond 64 bits).
 */
uint64_t calibration_window_rate(const struct calibration_window *window,
				 uint32_t *uncertainty_ppm);

/** calibration_begin - start a calibration with @limits (clamped to what fits) */
void calibration_begin(struct calibration *calibration, const struct calibration_limits *limits);

/**
 * calibration_add - offer one more window
 *
 * Returns the new state: MEASURING while more windows are wanted, AGREED
 * once more than half of the kept windows (and at least @limits.agreeing)
 * agree, DISAGREED once @limits.windows_max were taken without that, and
 * FAILED if by then not one window was kept.  A decided calibration
 * ignores further windows.
 */
enum calibration_state calibration_add(struct calibration *calibration,
				       const struct calibration_window *window);

/**
 * calibration_settle - after DISAGREED, use @longest (one long window) as a guess
 *
 * Returns UNRELIABLE with @hz from @longest, or FAILED if it implies
 * nothing.  In any other state it changes nothing.
 */
enum calibration_state calibration_settle(struct calibration *calibration,
					  const struct calibration_window *longest);

/** calibration_state_name - "measuring", "agreed", ... for the log */
const char *calibration_state_name(enum calibration_state state);

#endif
