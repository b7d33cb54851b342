// SPDX-License-Identifier: MIT
/*
 * Spinlocks (spinlock.h) and interrupt-disable nesting (irq.h): mutual
 * exclusion of both lock kinds with every online CPU contending, trylock,
 * irqsave, the debug state and every debug report (caught through the
 * report hook instead of panicking), the long-spin report, and the MCS
 * queue nodes.  The random, all-CPU torture is tests/locktorture.c.
 */
#include <sync/irq.h>
#include <boot/options.h>
#include <smp/smp.h>
#include <sync/spinlock.h>
#include <log/symbols.h>
#include <harness/test.h>
#include <time/time.h>
#include <lib/string.h>
#include "trigger_user_check.h"

#define MS			(1000ull * 1000)
#define REMOTE_TIMEOUT_NS	(10000 * MS)

static const enum spinlock_kind lock_kinds[] = { SPINLOCK_TICKET, SPINLOCK_MCS };
#define for_each_lock_kind(kind)                                                       \
	for (const enum spinlock_kind *kind = lock_kinds;                              \
	     kind < lock_kinds + sizeof(lock_kinds) / sizeof(lock_kinds[0]); kind++)

/* The function a return address lies in (the call may end it: look one byte back). */
static const char *function_of(uint64_t return_address)
{
	uint64_t offset;
	const char *name = return_address ? symbol_lookup(return_address - 1, &offset) : NULL;

	return name ? name : "(none)";
}

/* --- Catching reports ------------------------------------------------------ */

static struct {
	unsigned int count;
	struct spinlock_report last;
} caught;

static void catch_report(const struct spinlock_report *report)
{
	caught.last = *report;
	__atomic_fetch_add(&caught.count, 1, __ATOMIC_RELEASE);
}

static void catch_reports(void)
{
	memset(&caught, 0, sizeof(caught));
	spinlock_set_report_hook(catch_report);
}

static unsigned int reports_caught(void)
{
	return __atomic_load_n(&caught.count, __ATOMIC_ACQUIRE);
}

static void show_report(void)
{
	char line[320];

	test_diag("caught: %s", spinlock_report_format(&caught.last, line, sizeof(line)));
}

static struct trigger_user_check mcs_waits;

/* Whatever a case did, the next one starts with the default hook and deadline. */
static void restore_defaults(void)
{
	spinlock_set_report_hook(NULL);
	spinlock_set_deadline_ns(SPINLOCK_DEFAULT_DEADLINE_NS);
}

/* --- Running on other CPUs ------------------------------------------------- */

/*
 * Run @function(@argument) on every online CPU at once, this one included.
 * Returns how many CPUs took part; *@stuck counts those that did not finish
 * within the timeout (their state must then outlive the case: keep it static).
 */
static unsigned int run_on_all_cpus(void (*function)(void *), void *argument,
				    unsigned int *stuck)
{
	static bool started[MAX_CPUS];
	unsigned int me = cpu_id(), count = 1;

	*stuck = 0;
	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++) {
		started[cpu] = cpu != me && smp_run_on_async(cpu, function, argument);
		count += started[cpu];
	}
	function(argument);
	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++) {
		if (started[cpu] && !smp_wait_for(cpu, REMOTE_TIMEOUT_NS))
			(*stuck)++;
	}
	return count;
}

/* An online CPU other than the caller, or -1. */
static int another_cpu(void)
{
	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++) {
		if (cpu != cpu_id() && __atomic_load_n(&cpus[cpu].online, __ATOMIC_ACQUIRE))
			return (int)cpu;
	}
	return -1;
}

static void wait_until_set(const unsigned int *flag, uint64_t timeout_ns)
{
	uint64_t start = now_ns();

	while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE) && now_ns() - start < timeout_ns)
		cpu_relax();
}

/* A lock held on another CPU until the test lets go (or a timeout passes). */
static struct {
	spinlock_t *lock;
	unsigned int held;
	unsigned int release;
} holder;

static void hold_lock(void *unused)
{
	spin_lock(holder.lock);
	__atomic_store_n(&holder.held, 1, __ATOMIC_RELEASE);
	wait_until_set(&holder.release, REMOTE_TIMEOUT_NS / 2);
	spin_unlock(holder.lock);
}

/* Start hold_lock() on @cpu; true once it holds @lock. */
static bool hold_on(unsigned int cpu, spinlock_t *lock)
{
	holder.lock = lock;
	__atomic_store_n(&holder.held, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&holder.release, 0, __ATOMIC_RELEASE);
	if (!smp_run_on_async(cpu, hold_lock, NULL))
		return false;
	wait_until_set(&holder.held, REMOTE_TIMEOUT_NS);
	return __atomic_load_n(&holder.held, __ATOMIC_ACQUIRE);
}

static bool let_go(unsigned int cpu)
{
	__atomic_store_n(&holder.release, 1, __ATOMIC_RELEASE);
	return smp_wait_for(cpu, REMOTE_TIMEOUT_NS);
}

/* --- Mutual exclusion -------------------------------------------------------- */

/*
 * The most a holder waits, inside, for another CPU to want the lock: long
 * enough for a vCPU the host runs to reach it, short enough that one it
 * does not run costs little.
 */
#define HAMMER_HOLD_LIMIT_NS	(50 * 1000)

static struct {
	spinlock_t lock;
	volatile unsigned long counter;		/* updated non-atomically, under the lock */
	unsigned int expected, arrived;
	unsigned int wanting;			/* CPUs between "I want it" and holding it */
	unsigned int running;			/* CPUs not through their turns yet */
	unsigned long limit;			/* iterations per CPU */
	uint64_t budget_cycles;			/* time per CPU, from the common start */
	unsigned long done[MAX_CPUS];
	unsigned long waited_for[MAX_CPUS];	/* holds that saw another CPU queue */
} hammer;

/*
 * Inside the lock: wait until another CPU wants it (or none runs, or the
 * bound passes), so that every acquisition is contended whatever the
 * host's scheduling.  Without it, a host that ran the vCPUs one after
 * another gave no contention at all in one make test (80000 acquisitions
 * in 42 ms, no MCS waiter, so the hand-over kicks that test_drop_kick=mcs
 * drops were never needed and drop-kick-mcs failed its expectation).
 * Returns whether another CPU was waiting.
 */
static bool hold_until_wanted(void)
{
	uint64_t start = cycles(), limit = ns_to_cycles(HAMMER_HOLD_LIMIT_NS);

	while (!__atomic_load_n(&hammer.wanting, __ATOMIC_ACQUIRE)) {
		if (__atomic_load_n(&hammer.running, __ATOMIC_ACQUIRE) < 2 ||
		    cycles() - start > limit)
			return false;
		cpu_relax();
	}
	return true;
}

static void hammer_the_lock(void *unused)
{
	unsigned long mine = 0, waited_for = 0;
	uint64_t start = now_ns(), stop;

	/* Start together, so that the CPUs really contend (bounded: a CPU may never come). */
	__atomic_fetch_add(&hammer.running, 1, __ATOMIC_ACQ_REL);
	__atomic_fetch_add(&hammer.arrived, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(&hammer.arrived, __ATOMIC_ACQUIRE) < hammer.expected &&
	       now_ns() - start < 2000 * MS)
		cpu_relax();
	stop = cycles() + hammer.budget_cycles;
	while (mine < hammer.limit && cycles() < stop) {
		unsigned long value;

		__atomic_fetch_add(&hammer.wanting, 1, __ATOMIC_ACQ_REL);
		spin_lock(&hammer.lock);
		__atomic_fetch_sub(&hammer.wanting, 1, __ATOMIC_ACQ_REL);
		/* Read, let the others run, write: a second CPU inside would lose an update. */
		value = hammer.counter;
		waited_for += hold_until_wanted();
		hammer.counter = value + 1;
		spin_unlock(&hammer.lock);
		mine++;
	}
	__atomic_fetch_sub(&hammer.running, 1, __ATOMIC_ACQ_REL);
	hammer.done[cpu_id()] = mine;
	hammer.waited_for[cpu_id()] = waited_for;
}

static void check_exclusion(enum spinlock_kind kind)
{
	unsigned long total = 0, most = 0, least = ~0ul, contended = 0;
	unsigned int stuck, taking_part;
	uint64_t start;

	memset(&hammer, 0, sizeof(hammer));
	spin_lock_init(&hammer.lock, "hammer", kind);
	/* Each acquisition a hand-over: a few thousand per CPU are plenty. */
	hammer.limit = kernel_options.torture_long ? 1000000 : 2000;
	hammer.budget_cycles = ns_to_cycles((kernel_options.torture_long ? 5000 : 300) * MS);
	/* Every online CPU will be asked; those that cannot start are not waited for. */
	hammer.expected = cpus_online();
	/* A broken lock may trip a debug check: count that as a failure, not a panic. */
	catch_reports();
	start = now_ns();
	taking_part = run_on_all_cpus(hammer_the_lock, NULL, &stuck);
	restore_defaults();
	ASSERT_EQ(stuck, 0u);
	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++) {
		total += hammer.done[cpu];
		contended += hammer.waited_for[cpu];
		if (hammer.done[cpu] > most)
			most = hammer.done[cpu];
		if (hammer.done[cpu] < least && cpus[cpu].online)
			least = hammer.done[cpu];
	}
	test_diag("%s: %u CPUs, %lu acquisitions in %llu ms (per CPU: most %lu, least %lu); "
		  "%lu held while another CPU queued", spin_lock_kind_name(kind), taking_part,
		  total, (unsigned long long)((now_ns() - start) / MS), most, least, contended);
	EXPECT_EQ(taking_part, cpus_online());
	EXPECT_GT(total, 0u);
	EXPECT_EQ(hammer.counter, total);
	EXPECT_FALSE(spin_is_locked(&hammer.lock));
	EXPECT_EQ(reports_caught(), 0u);
	if (reports_caught())
		show_report();
}

static void ticket_lock_excludes_under_contention(void)
{
	check_exclusion(SPINLOCK_TICKET);
}

static void mcs_lock_excludes_under_contention(void)
{
	check_exclusion(SPINLOCK_MCS);
	/* Every node went back: none leaked on any CPU. */
	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++)
		EXPECT_EQ(spinlock_mcs_nodes_in_use(cpu), 0u);
}

/* --- Trylock, irqsave, debug state ------------------------------------------ */

static void trylock_takes_a_free_lock_only(void)
{
	for_each_lock_kind(kind) {
		spinlock_t lock;

		spin_lock_init(&lock, "try", *kind);
		ASSERT_TRUE(spin_trylock(&lock));
		EXPECT_TRUE(spin_is_locked(&lock));
		EXPECT_EQ(spin_lock_owner(&lock), (int)cpu_id());
		/* Held, by us: not free, so false, and not a recursion report. */
		EXPECT_FALSE(spin_trylock(&lock));
		spin_unlock(&lock);
		EXPECT_FALSE(spin_is_locked(&lock));
		ASSERT_TRUE(spin_trylock(&lock));
		spin_unlock(&lock);
	}
	EXPECT_EQ(spinlock_mcs_nodes_in_use(cpu_id()), 0u);
}

static void trylock_fails_while_another_cpu_holds_the_lock(void)
{
	int other = another_cpu();

	if (other < 0)
		test_skip("one CPU: no other CPU to hold the lock");
	for_each_lock_kind(kind) {
		static spinlock_t lock;
		bool taken;

		spin_lock_init(&lock, "held_elsewhere", *kind);
		ASSERT_TRUE(hold_on((unsigned int)other, &lock));
		EXPECT_EQ(spin_lock_owner(&lock), other);
		EXPECT_STREQ(function_of(lock.owner_caller), "hold_lock");
		taken = spin_trylock(&lock);
		EXPECT_FALSE(taken);
		ASSERT_TRUE(let_go((unsigned int)other));
		if (taken)
			spin_unlock(&lock);
		EXPECT_TRUE(spin_trylock(&lock));
		spin_unlock(&lock);
	}
}

static void irqsave_disables_and_restores_the_interrupt_flag(void)
{
	bool was_enabled = irqs_enabled();
	unsigned int depth = local_irq_depth();

	for_each_lock_kind(kind) {
		spinlock_t lock;
		bool enabled;

		spin_lock_init(&lock, "irqsave", *kind);

		local_irq_enable();
		enabled = spin_lock_irqsave(&lock);
		EXPECT_TRUE(enabled);
		EXPECT_FALSE(irqs_enabled());
		EXPECT_EQ(local_irq_depth(), depth + 1);
		spin_unlock_irqrestore(&lock, enabled);
		EXPECT_TRUE(irqs_enabled());
		EXPECT_EQ(local_irq_depth(), depth);

		local_irq_disable();
		enabled = spin_lock_irqsave(&lock);
		EXPECT_FALSE(enabled);
		EXPECT_FALSE(irqs_enabled());
		spin_unlock_irqrestore(&lock, enabled);
		EXPECT_FALSE(irqs_enabled());
		EXPECT_EQ(local_irq_depth(), depth);
	}
	if (was_enabled)
		local_irq_enable();
}

static void interrupt_disabling_nests_per_cpu(void)
{
	bool was_enabled = irqs_enabled(), outer, inner;

	local_irq_enable();
	if (local_irq_depth() != 0)
		test_diag("cpu %u starts at depth %u: an earlier save or push was never undone "
			  "(a case ended between them?)", cpu_id(), local_irq_depth());
	ASSERT_EQ(local_irq_depth(), 0u);
	outer = local_irq_save();
	inner = local_irq_save();
	EXPECT_TRUE(outer);
	EXPECT_FALSE(inner);
	EXPECT_EQ(local_irq_depth(), 2u);
	local_irq_restore(inner);
	EXPECT_FALSE(irqs_enabled());
	EXPECT_EQ(local_irq_depth(), 1u);
	local_irq_restore(outer);
	EXPECT_TRUE(irqs_enabled());
	EXPECT_EQ(local_irq_depth(), 0u);

	/* push/pop: only the outermost pop re-enables, and only if they were on. */
	local_irq_push();
	local_irq_push();
	EXPECT_EQ(local_irq_depth(), 2u);
	local_irq_pop();
	EXPECT_FALSE(irqs_enabled());
	local_irq_pop();
	EXPECT_TRUE(irqs_enabled());

	local_irq_disable();
	local_irq_push();
	local_irq_pop();
	EXPECT_FALSE(irqs_enabled());

	/* The two styles share the count. */
	local_irq_enable();
	outer = local_irq_save();
	local_irq_push();
	EXPECT_EQ(local_irq_depth(), 2u);
	local_irq_pop();
	EXPECT_FALSE(irqs_enabled());
	local_irq_restore(outer);
	EXPECT_TRUE(irqs_enabled());
	EXPECT_EQ(local_irq_depth(), 0u);

	if (!was_enabled)
		local_irq_disable();
}

static void lock_records_its_name_owner_and_call_sites(void)
{
	static DEFINE_SPINLOCK(static_ticket);
	static DEFINE_MCS_SPINLOCK(static_mcs);
	spinlock_t zeroed;

	EXPECT_STREQ(static_ticket.name, "static_ticket");
	EXPECT_EQ(static_ticket.kind, SPINLOCK_TICKET);
	EXPECT_STREQ(static_mcs.name, "static_mcs");
	EXPECT_EQ(static_mcs.kind, SPINLOCK_MCS);
	for_each_lock_kind(kind) {
		spinlock_t lock;

		spin_lock_init(&lock, "recorded", *kind);
		EXPECT_STREQ(lock.name, "recorded");
		EXPECT_EQ(spin_lock_owner(&lock), -1);
		spin_lock(&lock);
		EXPECT_EQ(spin_lock_owner(&lock), (int)cpu_id());
		EXPECT_STREQ(function_of(lock.owner_caller), __func__);
		spin_unlock(&lock);
		EXPECT_EQ(spin_lock_owner(&lock), -1);
		EXPECT_EQ(lock.released_cpu, cpu_id() + 1);
		EXPECT_STREQ(function_of(lock.released_caller), __func__);
		EXPECT_NE(lock.released_caller, lock.owner_caller);
	}
	/* All zeroes is a free ticket lock. */
	memset(&zeroed, 0, sizeof(zeroed));
	spin_lock(&zeroed);
	EXPECT_TRUE(spin_is_locked(&zeroed));
	spin_unlock(&zeroed);
	EXPECT_FALSE(spin_is_locked(&zeroed));
}

/* --- The debug reports ------------------------------------------------------- */

static void recursive_acquire_is_reported_with_both_call_sites(void)
{
	for_each_lock_kind(kind) {
		spinlock_t lock;

		spin_lock_init(&lock, "recursive", *kind);
		catch_reports();
		spin_lock(&lock);
		spin_lock(&lock);
		ASSERT_EQ(reports_caught(), 1u);
		show_report();
		EXPECT_EQ(caught.last.problem, SPINLOCK_RECURSION);
		EXPECT_TRUE(caught.last.lock == &lock);
		EXPECT_EQ(caught.last.cpu, cpu_id());
		EXPECT_EQ(caught.last.other_cpu, (int)cpu_id());
		EXPECT_STREQ(function_of(caught.last.caller), __func__);
		EXPECT_STREQ(function_of(caught.last.other_caller), __func__);
		/* The second acquire's site, and the first's: two different calls. */
		EXPECT_NE(caught.last.caller, caught.last.other_caller);
		/* Refused: held once, so one unlock frees it and nothing is reported. */
		spin_unlock(&lock);
		EXPECT_FALSE(spin_is_locked(&lock));
		EXPECT_EQ(reports_caught(), 1u);
		restore_defaults();
	}
}

static void unlock_of_a_free_lock_is_reported_with_both_call_sites(void)
{
	for_each_lock_kind(kind) {
		spinlock_t lock;

		spin_lock_init(&lock, "free", *kind);
		catch_reports();
		spin_lock(&lock);
		spin_unlock(&lock);
		spin_unlock(&lock);
		ASSERT_EQ(reports_caught(), 1u);
		show_report();
		EXPECT_EQ(caught.last.problem, SPINLOCK_UNLOCK_FREE);
		EXPECT_EQ(caught.last.cpu, cpu_id());
		/* The other site is the release that freed it. */
		EXPECT_EQ(caught.last.other_cpu, (int)cpu_id());
		EXPECT_STREQ(function_of(caught.last.caller), __func__);
		EXPECT_STREQ(function_of(caught.last.other_caller), __func__);
		EXPECT_NE(caught.last.caller, caught.last.other_caller);
		/* Refused: the lock still works (a ticket lock did not serve ahead). */
		EXPECT_FALSE(spin_is_locked(&lock));
		EXPECT_TRUE(spin_trylock(&lock));
		spin_unlock(&lock);

		/* A lock never taken: no other site to name. */
		spin_lock_init(&lock, "never_taken", *kind);
		spin_unlock(&lock);
		ASSERT_EQ(reports_caught(), 2u);
		EXPECT_EQ(caught.last.problem, SPINLOCK_UNLOCK_FREE);
		EXPECT_EQ(caught.last.other_cpu, -1);
		EXPECT_EQ(caught.last.other_caller, 0u);
		restore_defaults();
	}
	EXPECT_EQ(spinlock_mcs_nodes_in_use(cpu_id()), 0u);
}

static void unlock_by_another_cpu_is_reported_with_both_call_sites(void)
{
	int other = another_cpu();

	if (other < 0)
		test_skip("one CPU: no other CPU to hold the lock");
	for_each_lock_kind(kind) {
		static spinlock_t lock;

		spin_lock_init(&lock, "not_mine", *kind);
		ASSERT_TRUE(hold_on((unsigned int)other, &lock));
		catch_reports();
		spin_unlock(&lock);
		/* Refused: still held by the other CPU. */
		EXPECT_TRUE(spin_is_locked(&lock));
		EXPECT_EQ(spin_lock_owner(&lock), other);
		ASSERT_TRUE(let_go((unsigned int)other));
		ASSERT_EQ(reports_caught(), 1u);
		show_report();
		EXPECT_EQ(caught.last.problem, SPINLOCK_UNLOCK_NOT_OWNER);
		EXPECT_EQ(caught.last.cpu, cpu_id());
		EXPECT_EQ(caught.last.other_cpu, other);
		EXPECT_STREQ(function_of(caught.last.caller), __func__);
		EXPECT_STREQ(function_of(caught.last.other_caller), "hold_lock");
		/* The holder's own unlock went through without a report. */
		EXPECT_FALSE(spin_is_locked(&lock));
		restore_defaults();
	}
}

/* --- The long-spin report ---------------------------------------------------- */

static struct {
	spinlock_t *lock;
	unsigned int spinning;
	uint64_t waited_ns;
} spinner;

static void spin_on_the_lock(void *unused)
{
	uint64_t start;

	__atomic_store_n(&spinner.spinning, 1, __ATOMIC_RELEASE);
	start = now_ns();
	spin_lock(spinner.lock);
	spinner.waited_ns = now_ns() - start;
	spin_unlock(spinner.lock);
}

static void long_spin_reports_the_holder_once_and_goes_on(void)
{
	const uint64_t deadline = 20 * MS;
	int other = another_cpu();

	if (other < 0)
		test_skip("one CPU: no other CPU to spin");
	for_each_lock_kind(kind) {
		static spinlock_t lock;
		uint64_t reported_at, deadlines = trigger_user_check_deadlines(&mcs_waits);
		bool sleeps = *kind == SPINLOCK_MCS && spinlock_mcs_wait_mode() == MCS_WAIT_TRIGGER;

		spin_lock_init(&lock, "deadlocked", *kind);
		spinner.lock = &lock;
		spinner.spinning = 0;
		catch_reports();
		spinlock_set_deadline_ns(deadline);
		spin_lock(&lock);
		ASSERT_TRUE(smp_run_on_async((unsigned int)other, spin_on_the_lock, NULL));
		wait_until_set(&caught.count, REMOTE_TIMEOUT_NS / 2);
		reported_at = now_ns();
		/* Hold on for five more deadlines: a second report would show by then. */
		while (now_ns() - reported_at < 5 * deadline)
			cpu_relax();
		spin_unlock(&lock);
		ASSERT_TRUE(smp_wait_for((unsigned int)other, REMOTE_TIMEOUT_NS));
		restore_defaults();

		ASSERT_EQ(reports_caught(), 1u);
		show_report();
		EXPECT_EQ(caught.last.problem, SPINLOCK_SPUN_TOO_LONG);
		EXPECT_EQ(caught.last.cpu, (unsigned int)other);
		EXPECT_EQ(caught.last.other_cpu, (int)cpu_id());
		EXPECT_STREQ(function_of(caught.last.caller), "spin_on_the_lock");
		EXPECT_STREQ(function_of(caught.last.other_caller), __func__);
		EXPECT_GE(caught.last.waited_ns, deadline);
		/* ...and it went on spinning until it got the lock. */
		EXPECT_GE(spinner.waited_ns, 6 * deadline);
		EXPECT_FALSE(spin_is_locked(&lock));
		/* An MCS waiter on its trigger reached its one bound, this deadline, once. */
		EXPECT_EQ(trigger_user_check_deadlines(&mcs_waits) - deadlines, sleeps ? 1u : 0u);
		if (sleeps)
			trigger_user_check_expect_deadline(&mcs_waits);
	}
}

/* --- MCS queue nodes ----------------------------------------------------------- */

static void mcs_nodes_come_back_in_any_release_order(void)
{
	static spinlock_t locks[SPINLOCK_MCS_NODES_PER_CPU + 1];
	const unsigned int nodes = SPINLOCK_MCS_NODES_PER_CPU;
	unsigned int me = cpu_id();

	for (unsigned int i = 0; i <= nodes; i++)
		spin_lock_init(&locks[i], "nested", SPINLOCK_MCS);
	ASSERT_EQ(spinlock_mcs_nodes_in_use(me), 0u);
	spin_lock(&locks[0]);
	spin_lock(&locks[1]);
	spin_lock(&locks[2]);
	EXPECT_EQ(spinlock_mcs_nodes_in_use(me), 3u);
	/* Not in reverse order: the middle one first. */
	spin_unlock(&locks[1]);
	EXPECT_EQ(spinlock_mcs_nodes_in_use(me), 2u);
	spin_lock(&locks[3]);			/* reuses the middle node */
	spin_unlock(&locks[0]);
	spin_unlock(&locks[3]);
	spin_unlock(&locks[2]);
	EXPECT_EQ(spinlock_mcs_nodes_in_use(me), 0u);
	for (unsigned int i = 0; i <= nodes; i++)
		EXPECT_FALSE(spin_is_locked(&locks[i]));

	/* One more lock than nodes: reported and refused, not a corrupted queue. */
	catch_reports();
	for (unsigned int i = 0; i <= nodes; i++)
		spin_lock(&locks[i]);
	EXPECT_EQ(reports_caught(), 1u);
	EXPECT_EQ(caught.last.problem, SPINLOCK_MCS_NODES_EXHAUSTED);
	EXPECT_FALSE(spin_is_locked(&locks[nodes]));
	for (unsigned int i = 0; i < nodes; i++)
		spin_unlock(&locks[i]);
	restore_defaults();
	EXPECT_EQ(spinlock_mcs_nodes_in_use(me), 0u);
}

/*
 * Every MCS hand-over a waiter slept for in this suite ended its wait by
 * the releaser's kick (mcs_node_kick), never at the too-long deadline but
 * in the case above.  test_drop_kick=mcs must make this fail.
 */
static void mcs_handovers_ended_by_their_kicks(void)
{
	trigger_user_check_end(&mcs_waits);
}

static const struct test_case spinlock_cases[] = {
	TEST_CASE(ticket_lock_excludes_under_contention),
	TEST_CASE(mcs_lock_excludes_under_contention),
	TEST_CASE(trylock_takes_a_free_lock_only),
	TEST_CASE(trylock_fails_while_another_cpu_holds_the_lock),
	TEST_CASE(irqsave_disables_and_restores_the_interrupt_flag),
	TEST_CASE(interrupt_disabling_nests_per_cpu),
	TEST_CASE(lock_records_its_name_owner_and_call_sites),
	TEST_CASE(recursive_acquire_is_reported_with_both_call_sites),
	TEST_CASE(unlock_of_a_free_lock_is_reported_with_both_call_sites),
	TEST_CASE(unlock_by_another_cpu_is_reported_with_both_call_sites),
	TEST_CASE(long_spin_reports_the_holder_once_and_goes_on),
	TEST_CASE(mcs_nodes_come_back_in_any_release_order),
	TEST_CASE(mcs_handovers_ended_by_their_kicks),
};

static int reset_reports(void)
{
	trigger_user_check_begin(&mcs_waits, "mcs_handover");
	restore_defaults();
	return 0;
}

TEST_SUITE(spinlock, spinlock_cases, reset_reports, restore_defaults);
