/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_TESTS_TRIGGER_USER_CHECK_H
#define TRIGOS_TESTS_TRIGGER_USER_CHECK_H
/*
 * The suites of the converted trigger users (call completion, stop_machine,
 * the MCS hand-over) end with a case that checks, from the user's counters
 * (trigger_backend.h), that every wait sequence of the suite got its kick:
 * none is still without it.  "Before waiting" (the condition held at the
 * reset) and "before its kick" (the waiter found its condition just before
 * the kick, which came: the kick confirms it) are the other allowed ends.
 * A kick never made leaves a sequence without its kick.  A deadline is no
 * verdict either way: a wake-up or IPI that did not come in time is judged
 * lost or late by the evidence (arch/ipi_evidence.h), and a loss fails
 * the case in which the runner finds it; deadlines are printed here.
 *
 *	trigger_user_check_begin(&check, "call_completion")    the suite's init (each case)
 *	trigger_user_check_expect_deadline(&check)             a case that reaches a deadline
 *	trigger_user_check_end(&check)                         the last case
 */

#include <lib/string.h>
#include <smp/smp_call.h>
#include <harness/test.h>
#include <sync/trigger_backend.h>

struct trigger_user_check {
	const char *name;
	struct trigger_user *user;
	struct trigger_user_counters start;
	uint64_t expected_deadlines;
	uint64_t calls_without_kick;	/* call_completion: smp_call's per-call count */
	bool begun;
};

/*
 * From the suite's init, which runs before every case: only the first call
 * (after the last trigger_user_check_end()) takes the snapshot.
 */
static inline void trigger_user_check_begin(struct trigger_user_check *check, const char *name)
{
	if (check->begun)
		return;
	check->begun = true;
	check->name = name;
	check->user = trigger_user_find(name);
	check->expected_deadlines = 0;
	if (check->user)
		trigger_user_counters_read(check->user, &check->start);
	if (strcmp(name, "call_completion") == 0) {
		struct smp_call_stats stats;

		smp_call_stats_read(&stats);
		check->calls_without_kick = stats.without_kick;
	}
}

/* A case of the suite ran one sequence of the user to its deadline on purpose. */
static inline void trigger_user_check_expect_deadline(struct trigger_user_check *check)
{
	check->expected_deadlines++;
}

/* The user's counters now, zero without a user. */
static inline void trigger_user_check_read(const struct trigger_user_check *check,
					   struct trigger_user_counters *now)
{
	*now = (struct trigger_user_counters){ 0 };
	if (check->user)
		trigger_user_counters_read(check->user, now);
}

/* The sequences of the user that reached a deadline (the work done) so far. */
static inline uint64_t trigger_user_check_deadlines(const struct trigger_user_check *check)
{
	struct trigger_user_counters now;

	trigger_user_check_read(check, &now);
	return now.reached_deadline;
}

/* The sequences of the user whose deadline found the work not yet done so far. */
static inline uint64_t trigger_user_check_late_kickers(const struct trigger_user_check *check)
{
	struct trigger_user_counters now;

	trigger_user_check_read(check, &now);
	return now.late_kicker;
}

static inline void trigger_user_check_end(struct trigger_user_check *check)
{
	struct trigger_user_counters now, *start = &check->start;

	check->begun = false;		/* the next run of the suite starts afresh */
	ASSERT_TRUE(check->user != NULL);
	trigger_user_counters_read(check->user, &now);
	if (now.sequences == start->sequences)
		test_skip("no wait sequences of this user in the suite");
	test_diag("%s: %llu sequences: by its kick %llu, before waiting %llu, before its kick "
		  "%llu, reached a deadline %llu (%llu on purpose), late kicker %llu, still without "
		  "a kick %llu (since the suite began)",
		  check->name, (unsigned long long)(now.sequences - start->sequences),
		  (unsigned long long)(now.by_kick - start->by_kick),
		  (unsigned long long)(now.before_waiting - start->before_waiting),
		  (unsigned long long)(now.before_its_kick - start->before_its_kick),
		  (unsigned long long)(now.reached_deadline - start->reached_deadline),
		  (unsigned long long)check->expected_deadlines,
		  (unsigned long long)(now.late_kicker - start->late_kicker),
		  (unsigned long long)(now.awaiting_kick > start->awaiting_kick
					       ? now.awaiting_kick - start->awaiting_kick : 0));
	/* Not since boot: a loss an earlier suite showed on purpose is not this one's. */
	EXPECT_LE(now.awaiting_kick, start->awaiting_kick);
	/*
	 * The trigger's count confirms an early finish by any later kick of
	 * the trigger; call completion's per-CPU trigger takes the kicks of
	 * every call, so each call is also checked for its own kick.
	 */
	if (strcmp(check->name, "call_completion") == 0) {
		struct smp_call_stats stats;

		smp_call_stats_read(&stats);
		test_diag("%s: calls run without their own kick: %llu", check->name,
			  (unsigned long long)(stats.without_kick - check->calls_without_kick));
		EXPECT_LE(stats.without_kick, check->calls_without_kick);
	}
}

#endif
