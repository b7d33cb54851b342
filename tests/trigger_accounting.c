// SPDX-License-Identifier: MIT
/*
 * Every return of a trigger wait is accounted by why it returned
 * (trigger_backend.h: sticky, kick, ipi, nmi, interrupt, deadline,
 * spurious), per backend, per CPU's last sequence and per user; and every
 * sequence of a user by how it ended (before waiting, by its kick, before
 * its kick, still without a kick, reached a deadline, late kicker).  The suites of the
 * converted users (call completion, stop_machine, the MCS hand-over, AP
 * bring-up) assert on these counters, so this suite checks that they say
 * what happened, one situation at a time.
 */
#include <cpu/cpu.h>
#include <sync/irq.h>
#include <smp/smp.h>
#include <harness/test.h>
#include <time/time.h>
#include <sync/trigger.h>
#include <sync/trigger_backend.h>
#include "trigger_test.h"
#include <harness/watchdog.h>

#define MILLISECOND		1000000ull
#define REMOTE_TIMEOUT_NS	CPU_TEST_ANSWER_PATIENCE_NS

static DEFINE_TRIGGER(plain_trigger);

DEFINE_TRIGGER_USER(trigger_user_accounting_test, "accounting_test");
static DEFINE_TRIGGER_FOR(user_trigger, &trigger_user_accounting_test);

static void restore_backend(void)
{
	trigger_test_restore_boot_backend();
}

static void read_user(struct trigger_user_counters *counters)
{
	trigger_user_counters_read(&trigger_user_accounting_test, counters);
}

/* A CPU other than this one without the watchdog's periodic tick, or -1. */
static int tickless_other_cpu(void)
{
	for (unsigned int i = 0; i < cpus_present(); i++) {
		if (i != cpu_id() && cpu_is_online(i) && (int)i != watchdog_cpu())
			return (int)i;
	}
	return -1;
}

/* --- One CPU's own waits ------------------------------------------------------------- */

static void a_sticky_return_is_counted_as_sticky(void)
{
	struct trigger_sequence_record record;

	ASSERT_TRUE(trigger_backend_set(TRIGGER_BACKEND_SPIN));
	trigger_reset(&plain_trigger);
	trigger_kick(&plain_trigger);
	trigger_wait(&plain_trigger);
	trigger_finish(&plain_trigger);
	trigger_last_sequence(cpu_id(), &record);
	EXPECT_EQ(record.backend, TRIGGER_BACKEND_SPIN);
	EXPECT_EQ(record.waits, 1u);
	EXPECT_EQ(record.returns[TRIGGER_WAKE_STICKY], 1u);
	EXPECT_EQ(record.last_return, TRIGGER_WAKE_STICKY);
	EXPECT_EQ(record.sleeps, 0u);
}

static void a_return_at_the_deadline_is_counted_as_such(void)
{
	struct trigger_sequence_record record;
	struct trigger_counters before, after;
	uint64_t deadline;

	ASSERT_TRUE(trigger_backend_set(TRIGGER_BACKEND_SPIN));
	trigger_counters_read(TRIGGER_BACKEND_SPIN, &before);
	trigger_reset(&plain_trigger);
	deadline = now_ns() + MILLISECOND;
	while (trigger_wait_timeout(&plain_trigger, deadline))
		;
	trigger_finish(&plain_trigger);
	trigger_counters_read(TRIGGER_BACKEND_SPIN, &after);
	trigger_last_sequence(cpu_id(), &record);
	/* The spin backend looks until the kick or the deadline: one wait, no kick. */
	EXPECT_EQ(record.waits, 1u);
	EXPECT_EQ(record.last_return, TRIGGER_WAKE_DEADLINE);
	EXPECT_EQ(record.returns[TRIGGER_WAKE_DEADLINE], 1u);
	EXPECT_EQ(after.returns[TRIGGER_WAKE_DEADLINE], before.returns[TRIGGER_WAKE_DEADLINE] + 1);
	EXPECT_EQ(after.waits, before.waits + 1);
	EXPECT_GE(now_ns(), deadline);
}

/* --- A waiter on another CPU, kicked from here ----------------------------------------- */

static DEFINE_TRIGGER(remote_trigger);
static volatile unsigned long remote_flag;
static struct trigger_sequence_record remote_record;
static volatile bool remote_about_to_wait;

struct remote_wait {
	unsigned long target;
	bool interrupts_on;
};

static void wait_for_remote_flag(void *argument)
{
	const struct remote_wait *wait = argument;
	bool was_enabled = local_irq_save();

	if (wait->interrupts_on)
		local_irq_enable();
	trigger_reset(&remote_trigger);
	__atomic_store_n(&remote_about_to_wait, true, __ATOMIC_RELEASE);
	trigger_test_late_waiter();
	while (__atomic_load_n(&remote_flag, __ATOMIC_ACQUIRE) != wait->target)
		trigger_wait(&remote_trigger);
	trigger_finish(&remote_trigger);
	local_irq_restore(was_enabled);
	trigger_last_sequence(cpu_id(), &remote_record);
}

/*
 * Start a waiter on @cpu, let it get into its wait (trigger_test_let_it_wait:
 * entered, then published or 2 ms), kick, and return what its sequence
 * recorded.  Whether it was asleep by the time of the kick is up to the
 * host's scheduling; what it recorded is exact either way.
 */
static unsigned int halt_head_start_us;	/* the kicker's pause after the waiter published */
static uint64_t kicked_at;			/* the TSC just before the kick */

static bool kick_a_remote_waiter(int cpu, bool interrupts_on, struct trigger_sequence_record *record)
{
	struct remote_wait wait = { .target = remote_flag + 1, .interrupts_on = interrupts_on };

	remote_about_to_wait = false;
	if (!smp_run_on_async((unsigned int)cpu, wait_for_remote_flag, &wait))
		return false;
	trigger_test_let_it_wait(&remote_trigger, (unsigned int)cpu, &remote_about_to_wait);
	udelay(halt_head_start_us);
	__atomic_store_n(&remote_flag, wait.target, __ATOMIC_RELEASE);
	kicked_at = cycles();
	trigger_kick(&remote_trigger);
	if (!smp_wait_for((unsigned int)cpu, REMOTE_TIMEOUT_NS))
		return false;
	*record = remote_record;
	return true;
}

static void a_spinning_waiter_is_ended_by_the_kick_itself(void)
{
	int cpu = tickless_other_cpu();
	struct trigger_sequence_record record;

	if (cpu < 0)
		test_skip("no other CPU without the watchdog's tick");
	ASSERT_TRUE(trigger_backend_set(TRIGGER_BACKEND_SPIN));
	ASSERT_TRUE(kick_a_remote_waiter(cpu, true, &record));
	EXPECT_EQ(record.backend, TRIGGER_BACKEND_SPIN);
	EXPECT_GT(record.waits, 0u);	/* else last_return means nothing */
	EXPECT_TRUE(trigger_wake_saw_kick(record.last_return));
	EXPECT_EQ(record.returns[TRIGGER_WAKE_IPI] + record.returns[TRIGGER_WAKE_NMI], 0u);
	EXPECT_EQ(record.sleeps, 0u);
}

/*
 * A halted waiter on a CPU with no timer of its own can only have been
 * woken by the kick's wake interrupt: an IPI when it waits with interrupts
 * on, an NMI when they are off.  The case is about a halt, so it needs one:
 * a waiter the host ran late may see the kick in its re-check instead and
 * never halt, so a round without a sleep is tried again (the kicker also
 * gives a published waiter HALT_HEAD_START_US to get into its HLT), and
 * HALT_TRIES rounds without any fail the case (test_break=skip_halt shows
 * it: the backend then never halts).
 */
#define HALT_TRIES		5
#define HALT_HEAD_START_US	20000

/*
 * The sequence's stamps follow the wake-up: the kick (after its generation
 * add) after the kicker's last look at the TSC, the send (after its ICR
 * write) and the arrival after the kick, the waiter's return after the
 * arrival.  The arrival may precede the sender's post-ICR stamp: the IPI
 * leaves with the ICR write, the stamp comes after it.
 */
static void check_wake_stamps(const struct trigger_sequence_record *record)
{
	const uint64_t *stamp[] = { &record->kick_tsc, &record->wake_arrived_tsc,
				    &record->return_tsc };
	bool ordered = true;
	uint64_t previous = kicked_at;
	char send[48] = "not stamped yet when the waiter finished";

	/* Kick, arrival and return, each after the one before. */
	for (size_t i = 0; i < sizeof(stamp) / sizeof(stamp[0]); i++) {
		EXPECT_GE(*stamp[i], previous);
		ordered = ordered && *stamp[i] >= previous;
		previous = *stamp[i];
	}
	/* The send after the kick, if stamped by the time the waiter finished. */
	if (record->wake_sent_tsc)
		EXPECT_GE(record->wake_sent_tsc, record->kick_tsc);
	if (!ordered)
		return;
	if (record->wake_sent_tsc >= kicked_at)
		snprintf(send, sizeof(send), "+%llu ns",
			 (unsigned long long)cycles_to_ns(record->wake_sent_tsc - kicked_at));
	test_diag("stamps after the kicker's last TSC read: kick +%llu ns, send %s, arrival +%llu ns, "
		  "return +%llu ns", (unsigned long long)cycles_to_ns(record->kick_tsc - kicked_at),
		  send, (unsigned long long)cycles_to_ns(record->wake_arrived_tsc - kicked_at),
		  (unsigned long long)cycles_to_ns(record->return_tsc - kicked_at));
}

static void check_halted_waiter(bool interrupts_on, enum trigger_wake expected)
{
	int cpu = tickless_other_cpu();
	struct trigger_sequence_record record = { 0 };
	unsigned int tries = 0;
	bool finished = true;

	if (cpu < 0)
		test_skip("no other CPU without the watchdog's tick");
	ASSERT_TRUE(trigger_backend_set(TRIGGER_BACKEND_HLT));
	halt_head_start_us = HALT_HEAD_START_US;
	while (finished && tries++ < HALT_TRIES) {
		finished = kick_a_remote_waiter(cpu, interrupts_on, &record);
		if (!finished)
			break;
		test_diag("try %u: waits %u sleeps %u, last return %s", tries, record.waits,
			  record.sleeps, trigger_wake_name(record.last_return));
		if (record.sleeps)
			break;
	}
	halt_head_start_us = 0;
	ASSERT_TRUE(finished);
	EXPECT_EQ(record.backend, TRIGGER_BACKEND_HLT);
	EXPECT_GT(record.waits, 0u);	/* else last_return means nothing */
	EXPECT_TRUE(trigger_wake_saw_kick(record.last_return));
	EXPECT_GT(record.sleeps, 0u);	/* never halted in HALT_TRIES rounds */
	EXPECT_EQ(record.returns[expected], 1u);
	EXPECT_EQ(record.last_return, expected);
	check_wake_stamps(&record);
}

static void a_halted_waiter_is_ended_by_the_wake_ipi(void)
{
	check_halted_waiter(true, TRIGGER_WAKE_IPI);
}

static void a_halted_waiter_with_interrupts_off_is_ended_by_the_wake_nmi(void)
{
	check_halted_waiter(false, TRIGGER_WAKE_NMI);
}

/* --- A user's sequences ------------------------------------------------------------------ */

static void a_users_sequences_are_accounted_by_how_they_ended(void)
{
	struct trigger_user_counters before, after;
	bool condition = true;

	ASSERT_TRUE(trigger_user_find("accounting_test") == &trigger_user_accounting_test);
	ASSERT_TRUE(trigger_backend_set(TRIGGER_BACKEND_SPIN));
	read_user(&before);

	/* The condition held at the reset: no wait. */
	trigger_reset(&user_trigger);
	while (!condition)
		trigger_wait(&user_trigger);
	trigger_finish(&user_trigger);

	/* Kicked: the wait returns for the kick. */
	trigger_reset(&user_trigger);
	trigger_kick(&user_trigger);
	trigger_wait(&user_trigger);
	trigger_finish(&user_trigger);

	read_user(&after);
	EXPECT_EQ(after.sequences, before.sequences + 2);
	EXPECT_EQ(after.before_waiting, before.before_waiting + 1);
	EXPECT_EQ(after.by_kick, before.by_kick + 1);
	EXPECT_EQ(after.awaiting_kick, before.awaiting_kick);
	EXPECT_EQ(after.reached_deadline, before.reached_deadline);
	EXPECT_EQ(after.waits, before.waits + 1);
	EXPECT_EQ(after.returns[TRIGGER_WAKE_STICKY], before.returns[TRIGGER_WAKE_STICKY] + 1);
}

/*
 * A sequence that ends without seeing a kick (here: at a deadline, its
 * condition set by no one) waits for one; when a kick does come it was only
 * early.  A kick that never comes leaves it counted "still without a kick".
 */
/*
 * @count sequences of this CPU end at their deadline, unkicked, then one
 * kick comes: the user's counters before, after the sequences, after the kick.
 */
static void finish_early_then_kick(int count, struct trigger_user_counters *before,
				   struct trigger_user_counters *finished,
				   struct trigger_user_counters *kicked)
{
	read_user(before);
	for (int i = 0; i < count; i++) {
		trigger_reset(&user_trigger);
		trigger_wait_timeout(&user_trigger, now_ns() + MILLISECOND);
		trigger_finish(&user_trigger);
	}
	read_user(finished);
	trigger_kick(&user_trigger);
	read_user(kicked);
}

static void a_sequence_that_ended_before_its_kick_is_confirmed_by_the_kick(void)
{
	struct trigger_user_counters before, finished, kicked;

	ASSERT_TRUE(trigger_backend_set(TRIGGER_BACKEND_SPIN));
	finish_early_then_kick(1, &before, &finished, &kicked);

	EXPECT_EQ(finished.sequences, before.sequences + 1);
	EXPECT_EQ(finished.reached_deadline, before.reached_deadline + 1);
	EXPECT_EQ(finished.awaiting_kick, before.awaiting_kick + 1);
	EXPECT_EQ(finished.before_its_kick, before.before_its_kick);
	EXPECT_EQ(kicked.awaiting_kick, before.awaiting_kick);
	EXPECT_EQ(kicked.before_its_kick, before.before_its_kick + 1);
}

/*
 * Two sequences of one CPU end before the kick, then one kick comes: both
 * were only early.  (A one-bit mark per CPU, as before, confirmed one and
 * left the other "still without a kick" for ever.)
 */
static void two_early_finishes_before_one_kick_are_both_confirmed(void)
{
	struct trigger_user_counters before, finished, kicked;

	ASSERT_TRUE(trigger_backend_set(TRIGGER_BACKEND_SPIN));
	finish_early_then_kick(2, &before, &finished, &kicked);

	EXPECT_EQ(finished.awaiting_kick, before.awaiting_kick + 2);
	EXPECT_EQ(kicked.awaiting_kick, before.awaiting_kick);
	EXPECT_EQ(kicked.before_its_kick, before.before_its_kick + 2);
}

/*
 * A deadline its waiter noted as before the work (trigger_note_late_kicker())
 * makes the sequence a late kicker, not one that reached a deadline; a later
 * deadline in the same sequence, not noted, counts as reached again.
 */
static void a_deadline_before_the_work_is_a_late_kicker(void)
{
	struct trigger_user_counters before, late, reached;

	ASSERT_TRUE(trigger_backend_set(TRIGGER_BACKEND_SPIN));
	read_user(&before);
	trigger_reset(&user_trigger);
	EXPECT_FALSE(trigger_wait_timeout(&user_trigger, now_ns() + MILLISECOND));
	trigger_note_late_kicker(&user_trigger);
	trigger_kick(&user_trigger);
	EXPECT_TRUE(trigger_wait_timeout(&user_trigger, now_ns() + REMOTE_TIMEOUT_NS));
	trigger_finish(&user_trigger);
	read_user(&late);

	trigger_reset(&user_trigger);
	EXPECT_FALSE(trigger_wait_timeout(&user_trigger, now_ns() + MILLISECOND));
	trigger_note_late_kicker(&user_trigger);
	EXPECT_FALSE(trigger_wait_timeout(&user_trigger, now_ns() + MILLISECOND));
	trigger_kick(&user_trigger);
	trigger_wait(&user_trigger);
	trigger_finish(&user_trigger);
	read_user(&reached);

	EXPECT_EQ(late.late_kicker, before.late_kicker + 1);
	EXPECT_EQ(late.reached_deadline, before.reached_deadline);
	EXPECT_EQ(late.by_kick, before.by_kick + 1);
	EXPECT_EQ(reached.late_kicker, late.late_kicker);
	EXPECT_EQ(reached.reached_deadline, late.reached_deadline + 1);
	EXPECT_EQ(reached.by_kick, late.by_kick + 1);
}

/*
 * A kick whose wake-up has not come when another interrupt (here the
 * deadline's timer, or the watchdog's tick) ends the halt: the wait returns
 * for that interrupt, the sequence is a late kicker - and its kick came, so
 * it is not "still without a kick" for ever.  The other CPU moves the
 * generation as a kick does but sends no wake IPI: a wake-up still on its
 * way.  (The sequence's implicit reset took the kick's generation, so the
 * kick counted as not yet come: every late kicker stayed "still without a
 * kick", and the MCS suite of one CI run failed on it.)
 */
static struct {
	unsigned int waiter;
	volatile bool moved;
} late_wake;

static void move_the_generation_only(void *unused)
{
	uint64_t start = now_ns();

	(void)unused;
	while (!trigger_cpu_entered_wait(late_wake.waiter, &user_trigger) &&
	       now_ns() - start < REMOTE_TIMEOUT_NS)
		cpu_relax();
	udelay(5000);		/* into its HLT; the deadline is 45 ms later */
	__atomic_fetch_add(&user_trigger.generation, 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&late_wake.moved, true, __ATOMIC_RELEASE);
}

static void a_kick_whose_wake_up_is_late_is_not_still_awaited(void)
{
	struct trigger_user_counters before, after;
	int other = -1;

	for (unsigned int i = 0; i < cpus_present() && other < 0; i++) {
		if (i != cpu_id() && cpu_is_online(i))
			other = (int)i;
	}
	if (other < 0)
		test_skip("one CPU: nobody to move the generation");
	ASSERT_TRUE(trigger_backend_set(TRIGGER_BACKEND_HLT));
	late_wake.waiter = cpu_id();
	for (int try = 1; try <= 5; try++) {
		uint64_t deadline;

		late_wake.moved = false;
		read_user(&before);
		trigger_reset(&user_trigger);
		ASSERT_TRUE(smp_run_on_async((unsigned int)other, move_the_generation_only, NULL));
		deadline = now_ns() + 50 * MILLISECOND;
		while (!__atomic_load_n(&late_wake.moved, __ATOMIC_ACQUIRE))
			if (!trigger_wait_timeout(&user_trigger, deadline))
				deadline = now_ns() + 50 * MILLISECOND;	/* moved late: wait on */
		trigger_finish(&user_trigger);
		ASSERT_TRUE(smp_wait_for((unsigned int)other, REMOTE_TIMEOUT_NS));
		read_user(&after);
		/* Moved between two waits (a sticky return) is not the situation: again. */
		if (after.late_kicker == before.late_kicker) {
			test_diag("try %d: the move was seen by a wait's entry, not at a return; "
				  "again", try);
			continue;
		}
		test_diag("try %d: late kicker %llu, by its kick %llu, still without a kick %llu",
			  try, (unsigned long long)(after.late_kicker - before.late_kicker),
			  (unsigned long long)(after.by_kick - before.by_kick),
			  (unsigned long long)(after.awaiting_kick - before.awaiting_kick));
		EXPECT_EQ(after.sequences, before.sequences + 1);
		EXPECT_EQ(after.by_kick, before.by_kick + 1);
		EXPECT_EQ(after.awaiting_kick, before.awaiting_kick);
		return;
	}
	test_skip("the generation never moved during a halt in 5 tries");
}

static const struct test_case trigger_accounting_cases[] = {
	TEST_CASE(a_sticky_return_is_counted_as_sticky),
	TEST_CASE(a_return_at_the_deadline_is_counted_as_such),
	TEST_CASE(a_spinning_waiter_is_ended_by_the_kick_itself),
	TEST_CASE(a_halted_waiter_is_ended_by_the_wake_ipi),
	TEST_CASE(a_halted_waiter_with_interrupts_off_is_ended_by_the_wake_nmi),
	TEST_CASE(a_users_sequences_are_accounted_by_how_they_ended),
	TEST_CASE(a_sequence_that_ended_before_its_kick_is_confirmed_by_the_kick),
	TEST_CASE(two_early_finishes_before_one_kick_are_both_confirmed),
	TEST_CASE(a_deadline_before_the_work_is_a_late_kicker),
	TEST_CASE(a_kick_whose_wake_up_is_late_is_not_still_awaited),
};

TEST_SUITE(trigger_accounting, trigger_accounting_cases, NULL, restore_backend);
