// SPDX-License-Identifier: MIT
/*
 * The suite docs/writing-tests.md builds step by step: a ping-pong between
 * this CPU and every other, the reply awaited on a trigger and judged by the
 * trigger's accounting, a ticket-lock counter run on every CPU at once, a
 * case that needs a CPU feature and skips without it, and (bench_example) a
 * benchmark figure.  test_break=example_no_kick makes the replies come
 * without their kick: the accounting must then fail the ping-pong (the
 * matrix's example-broken section).
 */
#include <boot/options.h>
#include <sync/spinlock.h>
#include <harness/test.h>
#include <harness/test_runner.h>
#include <harness/bench.h>
#include "cpu_test.h"
#include "trigger_test.h"

/* --- A ping-pong awaited on a trigger ----------------------------------------------- */

#define ROUNDS_PER_CPU		20
/*
 * The one bound of a wait for a reply.  Reaching it after the reply came
 * means the kick did not end the wait (a failure the accounting counts);
 * reaching it before is a late helper (the host did not run it), allowed.
 */
#define REPLY_DEADLINE_NS	(200ull * 1000 * 1000)

static DEFINE_TRIGGER_USER(example_user, "example_pong");
static DEFINE_TRIGGER(reply_trigger);
static unsigned long reply;		/* the round the helper answered last */

static unsigned int waiter_cpu;

/*
 * On the helper CPU: answer round @argument once the waiter waits, then
 * kick it.  Answering at once would test little: the waiter, still on its
 * way to its first wait, would find the reply and never wait.
 */
static void answer_ping(void *argument)
{
	uint64_t start = now_ns();

	while (!trigger_cpu_entered_wait(waiter_cpu, &reply_trigger) &&
	       now_ns() - start < REPLY_DEADLINE_NS)
		cpu_relax();
	__atomic_store_n(&reply, (unsigned long)argument, __ATOMIC_RELEASE);
	if (!test_break_given(TEST_BREAK_EXAMPLE_NO_KICK))
		trigger_kick(&reply_trigger);
}

/* The user's counters at the start of the running case (the case-start notifier's baseline). */
static struct trigger_user_counters at_case_start;
static const char *baseline_case;	/* the case it was taken for */

static void take_baseline(const char *suite, const char *test_case, void *data)
{
	trigger_user_counters_read(&example_user, &at_case_start);
	baseline_case = test_case;
}

static struct test_case_notifier baseline_notifier = { .case_start = take_baseline };

/* Once per run of the suite: tag the trigger, and have each case take its baseline. */
static int example_suite_init(void)
{
	static bool registered;

	trigger_init_user(&reply_trigger, &example_user);
	if (!registered)
		test_case_notifier_register(&baseline_notifier);
	registered = true;
	return 0;
}

/* One round with @cpu: ping, then wait for the reply; false if @cpu could not be asked. */
static bool ping_pong(unsigned int cpu, unsigned long round)
{
	uint64_t deadline;

	waiter_cpu = cpu_id();
	trigger_reset(&reply_trigger);
	if (!smp_run_on_async(cpu, answer_ping, (void *)round)) {
		trigger_finish(&reply_trigger);
		return false;
	}
	deadline = now_ns() + REPLY_DEADLINE_NS;
	while (__atomic_load_n(&reply, __ATOMIC_ACQUIRE) != round) {
		if (!trigger_wait_timeout(&reply_trigger, deadline)) {
			if (__atomic_load_n(&reply, __ATOMIC_ACQUIRE) != round)
				trigger_note_late_kicker(&reply_trigger);
			deadline = now_ns() + REPLY_DEADLINE_NS;
		}
	}
	trigger_finish(&reply_trigger);
	return smp_wait_for(cpu, CPU_TEST_TIMEOUT_NS);
}

static void every_cpu_answers_and_its_kick_ends_the_wait(void)
{
	struct trigger_user_counters now;
	unsigned long round = 0;

	if (cpus_online() < 2)
		test_skip("one CPU: nobody to answer");
	/* The watchdog's tick would end this CPU's waits and hide a lost kick. */
	if ((int)cpu_id() == watchdog_cpu())
		test_skip("this CPU keeps the watchdog's tick");
	__atomic_store_n(&reply, 0, __ATOMIC_RELEASE);
	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++) {
		if (cpu == cpu_id() || !cpu_is_online(cpu))
			continue;
		for (unsigned int i = 0; i < ROUNDS_PER_CPU; i++) {
			round++;
			ASSERT_TRUE_MSG(ping_pong(cpu, round),
					"cpu %u -> cpu %u, round %lu: no answer", cpu_id(), cpu,
					round);
		}
	}
	trigger_user_counters_read(&example_user, &now);
	EXPECT_STREQ_MSG(baseline_case, test_current_case_name(), "no baseline for this case");
	test_diag("%lu sequences: by its kick %llu, before waiting %llu, before its kick %llu, "
		  "reached a deadline %llu, late helper %llu, still without a kick %llu",
		  round, (unsigned long long)(now.by_kick - at_case_start.by_kick),
		  (unsigned long long)(now.before_waiting - at_case_start.before_waiting),
		  (unsigned long long)(now.before_its_kick - at_case_start.before_its_kick),
		  (unsigned long long)(now.reached_deadline - at_case_start.reached_deadline),
		  (unsigned long long)(now.late_kicker - at_case_start.late_kicker),
		  (unsigned long long)(now.awaiting_kick - at_case_start.awaiting_kick));
	EXPECT_EQ(now.sequences - at_case_start.sequences, round);
	EXPECT_EQ_MSG(now.reached_deadline - at_case_start.reached_deadline, 0u,
		      "waits that outlived their reply: the kick did not end them");
	/* A count that goes up and down; the case's own part is what it adds. */
	EXPECT_EQ_MSG(now.awaiting_kick - at_case_start.awaiting_kick, 0u,
		      "waits that ended without their kick");
}

/* --- A ticket-lock counter, every CPU at once ------------------------------------- */

/* A time budget, not a number of rounds: a descheduled waiter stalls every hand-over. */
#define COUNTER_BUDGET_NS	(300ull * 1000 * 1000)

static DEFINE_SPINLOCK(counter_lock);
static struct {
	uint64_t total;			/* under counter_lock */
	uint64_t mine[MAX_CPUS];	/* each CPU's own count */
	uint64_t deadline;
} counter;

/*
 * At least one round each, then rounds until the budget is spent: a vCPU
 * that the host stops past the whole budget (matrix host-stall-vcpus stops
 * one for 1.5-2.3 s) still takes its turn, so "never got the lock" means
 * the lock never served it, not that its CPU ran late.
 */
static void count_under_the_lock(void *unused)
{
	uint64_t done = 0;

	do {
		spin_lock(&counter_lock);
		counter.total++;
		spin_unlock(&counter_lock);
		done++;
	} while (now_ns() < counter.deadline);
	counter.mine[cpu_id()] = done;
}

static void ticket_lock_counts_every_increment(void)
{
	uint64_t sum = 0;

	counter.total = 0;
	for (unsigned int i = 0; i < MAX_CPUS; i++)
		counter.mine[i] = 0;
	counter.deadline = now_ns() + COUNTER_BUDGET_NS;
	ASSERT_TRUE(cpu_test_run_everywhere(count_under_the_lock, NULL, CPU_TEST_TIMEOUT_NS));
	for (unsigned int i = 0; i < cpus_present(); i++) {
		if (cpu_is_online(i))
			EXPECT_GT_MSG(counter.mine[i], 0u, "cpu %u never got the lock", i);
		sum += counter.mine[i];
	}
	EXPECT_EQ(counter.total, sum);
	EXPECT_TRUE_MSG(cpu_test_everywhere_overlapped(),
			"a CPU reached the start line after the others had left it");
}

/* --- A case that needs a CPU feature --------------------------------------------- */

static void mwaitx_waits_end_by_the_kick(void)
{
	const char *missing = trigger_backend_unavailable(TRIGGER_BACKEND_MWAITX);

	if (missing)
		test_skip("no %s", missing);
	ASSERT_TRUE(trigger_backend_set(TRIGGER_BACKEND_MWAITX));
	every_cpu_answers_and_its_kick_ends_the_wait();
}

static void example_exit(void)
{
	trigger_test_restore_boot_backend();
}

static const struct test_case example_cases[] = {
	TEST_CASE(every_cpu_answers_and_its_kick_ends_the_wait),
	TEST_CASE(ticket_lock_counts_every_increment),
	TEST_CASE(mwaitx_waits_end_by_the_kick),
};
TEST_SUITE_ONCE(example, example_cases, example_suite_init, NULL, NULL, example_exit);

/* --- A benchmark figure (bench=example) ------------------------------------------- */

static void ping_pong_round_trip(void)
{
	int other = cpu_test_other_cpu();
	uint64_t start, rounds = 100;

	if (other < 0)
		test_skip("one CPU: nobody to answer");
	trigger_init_user(&reply_trigger, &example_user);
	start = now_ns();
	for (unsigned long round = 1; round <= rounds; round++)
		ASSERT_TRUE(ping_pong((unsigned int)other, round + 1000000));
	/* A figure, never a verdict: a loaded host makes it anything. */
	bench_report_value("example_ping_pong", "ns", (now_ns() - start) / rounds);
}

static const struct test_case bench_example_cases[] = {
	TEST_CASE(ping_pong_round_trip),
};
TEST_SUITE(bench_example, bench_example_cases, NULL, NULL);
