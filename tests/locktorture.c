// SPDX-License-Identifier: MIT
/*
 * Lock torture, in the style of Linux's locktorture: every online CPU does
 * random lock operations (lock/unlock, trylock, irqsave, nested pairs and
 * triples released in either order) on a few shared locks, for a bounded
 * number of rounds and a bounded time; a checker inside each critical
 * section counts any second CPU it finds there, and a counter updated
 * non-atomically under each lock must come out exact.  The random stream
 * is seeded from test_random() (seed=N makes a run reproducible; the seed
 * is printed).  Fairness (busiest against least busy CPU) is printed, never
 * judged: under overcommit it is the host's scheduling that decides it.
 *
 * The checker is itself tested: a run with rogue unlocks (a CPU releasing a
 * lock it failed to take) must be caught by the locks' owner check, and a
 * run on a lock whose owner check is deliberately off
 * (SPINLOCK_FLAG_UNCHECKED) must be caught by the checker.
 *
 * Also here: bench_spinlock, the lock benchmarks (run only when named:
 * test=bench_spinlock).
 */
#include <log/console.h>
#include <sync/irq.h>
#include <boot/options.h>
#include <harness/machine.h>
#include <smp/smp.h>
#include <sync/spinlock.h>
#include <harness/bench.h>
#include <harness/test.h>
#include <time/time.h>
#include <lib/format.h>
#include <lib/random.h>
#include <lib/string.h>
#include "trigger_user_check.h"

#define MS			(1000ull * 1000)
#define TORTURE_LOCKS		3
#define MIN_ROGUE_UNLOCKS	8
#define FINISH_TIMEOUT_NS	(20000 * MS)	/* beyond the time bound, for a stuck CPU */
#define WITNESSED_CPUS		2		/* CPUs whose critical sections are timed */
#define WITNESSED_SECTIONS	8192		/* per CPU and lock, in one run */
#define BROKEN_LOCK_BOUND_NS	(8000 * MS)	/* runs start until then, for an overlap */
#define QUICK_OPERATIONS	20000ul		/* per CPU (torture=long: 2000000) */
/*
 * Bochs runs the CPUs a quantum of instructions each in turn, so a seed
 * gives one interleaving, and every MCS waiter sleeps in MWAIT behind an
 * INVLPG: at 20000 operations per CPU the torture took 10 s of host time
 * in a 4-CPU full run (36% of its suites).  A quarter keeps its mechanics.
 */
#define QUICK_OPERATIONS_BOCHS	5000ul

/* --- Running on several CPUs ------------------------------------------------ */

static bool started_on[MAX_CPUS];

/*
 * Run @function(@argument) on @count online CPUs at once: this one and the
 * first @count - 1 others.  Returns how many took part; *@stuck counts those
 * that did not finish in time.  What they use must be static: a stuck CPU
 * may still use it after the case ends.
 */
static unsigned int run_on_cpus(unsigned int count, void (*function)(void *), void *argument,
				unsigned int *stuck)
{
	unsigned int me = cpu_id(), taking_part = 1;

	*stuck = 0;
	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++) {
		started_on[cpu] = false;
		if (cpu == me || taking_part == count)
			continue;
		started_on[cpu] = smp_run_on_async(cpu, function, argument);
		taking_part += started_on[cpu];
	}
	function(argument);
	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++) {
		if (started_on[cpu] && !smp_wait_for(cpu, FINISH_TIMEOUT_NS))
			(*stuck)++;
	}
	return taking_part;
}

/* Wait until @expected CPUs arrived, so that they start together (bounded). */
static void start_together(unsigned int *arrived, unsigned int expected)
{
	uint64_t start = now_ns();

	__atomic_fetch_add(arrived, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(arrived, __ATOMIC_ACQUIRE) < expected &&
	       now_ns() - start < 2000 * MS)
		cpu_relax();
}

/* --- Catching reports -------------------------------------------------------- */

#define PROBLEM_KINDS	(SPINLOCK_MCS_NODES_EXHAUSTED + 1)

static struct {
	unsigned int by_problem[PROBLEM_KINDS];
	unsigned int first_claimed;
	struct spinlock_report first;
} reports;

static void count_report(const struct spinlock_report *report)
{
	unsigned int unclaimed = 0;

	if ((size_t)report->problem < PROBLEM_KINDS)
		__atomic_fetch_add(&reports.by_problem[report->problem], 1, __ATOMIC_RELAXED);
	if (__atomic_compare_exchange_n(&reports.first_claimed, &unclaimed, 1, false,
					__ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		reports.first = *report;
}

static unsigned int misuse_reports(void)
{
	const unsigned int *by_problem = reports.by_problem;

	return by_problem[SPINLOCK_RECURSION] + by_problem[SPINLOCK_UNLOCK_NOT_OWNER] +
	       by_problem[SPINLOCK_UNLOCK_FREE] + by_problem[SPINLOCK_MCS_NODES_EXHAUSTED];
}

/* --- The torture ------------------------------------------------------------- */

struct torture_lock {
	spinlock_t lock;
	unsigned int inside;			/* the checker: CPU + 1 inside, 0 none */
	volatile unsigned long counter;		/* updated non-atomically, under the lock */
} __attribute__((aligned(64)));

struct torture_stats {
	unsigned long operations;
	unsigned long acquisitions[TORTURE_LOCKS];
	unsigned long trylock_failures;
	unsigned long rogue_unlocks;
	unsigned long overlaps;			/* the checker found another CPU inside */
	unsigned long irq_state_errors;		/* irqsave left the flag wrong */
	int witness_slot;			/* -1: its sections are not timed */
	bool took_part;
} __attribute__((aligned(64)));

static struct {
	struct torture_lock locks[TORTURE_LOCKS];
	bool rogue;				/* inject unlocks of locks not taken */
	bool stop_on_error;
	unsigned int stop;
	unsigned long max_operations;		/* per CPU: the rounds */
	uint64_t budget_cycles;			/* per CPU, from the common start */
	uint64_t hard_limit_cycles;		/* a rogue run's time bound, whatever happened */
	unsigned int rogue_total;		/* rogue unlocks so far, all CPUs */
	uint64_t seed;
	unsigned int expected, arrived;
	unsigned int witness_slots;		/* taken by the CPUs as they start */
	struct torture_stats stats[MAX_CPUS];
} torture;

/*
 * The witness: the TSC interval of each critical section on two of the
 * CPUs, read inside the checker's window (after the exchange that marks
 * the section entered, before the one that marks it left).  So two
 * intervals of different CPUs on one lock that overlap in time are an
 * overlap the checker must have counted, and two that overlap on any
 * locks show that both CPUs were in the torture at the same time.
 */
struct section_interval {
	uint64_t start, end;
};

static struct {
	unsigned int count[WITNESSED_CPUS][TORTURE_LOCKS];
	struct section_interval sections[WITNESSED_CPUS][TORTURE_LOCKS][WITNESSED_SECTIONS];
} witness;

/* The witness slot of this CPU in this run, or -1: not witnessed. */
static int witness_slot(void)
{
	unsigned int slot = __atomic_fetch_add(&torture.witness_slots, 1, __ATOMIC_RELAXED);

	return slot < WITNESSED_CPUS ? (int)slot : -1;
}

static void witness_section(int slot, unsigned int index, uint64_t start)
{
	unsigned int *count;

	if (slot < 0)
		return;
	count = &witness.count[slot][index];
	if (*count < WITNESSED_SECTIONS)
		witness.sections[slot][index][(*count)++] =
			(struct section_interval){ .start = start, .end = cycles() };
}

/* How many pairs of the two sorted lists overlap in time (strictly). */
static unsigned long overlapping_pairs(const struct section_interval *a, unsigned int a_count,
				       const struct section_interval *b, unsigned int b_count)
{
	unsigned long pairs = 0;
	unsigned int i = 0, j = 0;

	while (i < a_count && j < b_count) {
		if (a[i].start < b[j].end && b[j].start < a[i].end)
			pairs++;
		/* The one that ends first overlaps nothing later in the other list. */
		if (a[i].end < b[j].end)
			i++;
		else
			j++;
	}
	return pairs;
}

struct witnessed {
	unsigned long same_lock;	/* overlaps on one lock: real ones */
	unsigned long any_locks;	/* sections of both CPUs at the same time */
};

static void witness_count(struct witnessed *seen)
{
	for (unsigned int first = 0; first < TORTURE_LOCKS; first++) {
		for (unsigned int second = 0; second < TORTURE_LOCKS; second++) {
			unsigned long pairs = overlapping_pairs(
				witness.sections[0][first], witness.count[0][first],
				witness.sections[1][second], witness.count[1][second]);

			seen->any_locks += pairs;
			if (first == second)
				seen->same_lock += pairs;
		}
	}
}

static void found_overlap(struct torture_stats *stats)
{
	stats->overlaps++;
	if (torture.stop_on_error)
		__atomic_store_n(&torture.stop, 1, __ATOMIC_RELAXED);
}

static void section_enter(struct torture_lock *lock, unsigned int me, struct torture_stats *stats)
{
	if (__atomic_exchange_n(&lock->inside, me + 1, __ATOMIC_ACQ_REL) != 0)
		found_overlap(stats);
}

static void section_work(struct torture_lock *lock, struct random_state *random)
{
	unsigned long value = lock->counter;

	/* Let the others run between the read and the write. */
	for (uint64_t spins = random_below(random, 4); spins > 0; spins--)
		cpu_relax();
	lock->counter = value + 1;
}

static void section_exit(struct torture_lock *lock, unsigned int me, struct torture_stats *stats)
{
	unsigned int expected = me + 1;

	if (!__atomic_compare_exchange_n(&lock->inside, &expected, 0, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_RELAXED))
		found_overlap(stats);
}

/* One lock, one checked critical section. */
static void checked_section(unsigned int index, unsigned int me, struct torture_stats *stats,
			    struct random_state *random)
{
	struct torture_lock *lock = &torture.locks[index];
	uint64_t start;

	section_enter(lock, me, stats);
	start = cycles();
	section_work(lock, random);
	witness_section(stats->witness_slot, index, start);
	section_exit(lock, me, stats);
	stats->acquisitions[index]++;
}

/* Two or three locks, always taken in index order (no ABBA), released in either order. */
static void nested_operation(unsigned int me, struct torture_stats *stats,
			     struct random_state *random)
{
	unsigned int held[TORTURE_LOCKS], count = 0;
	uint64_t started[TORTURE_LOCKS];
	bool reverse = random_below(random, 2);

	for (unsigned int i = 0; i < TORTURE_LOCKS; i++) {
		/* Each lock with odds 2 in 3, but never fewer than two of them. */
		if (random_below(random, 3) != 0 || count + (TORTURE_LOCKS - i) <= 2)
			held[count++] = i;
	}
	for (unsigned int i = 0; i < count; i++) {
		spin_lock(&torture.locks[held[i]].lock);
		section_enter(&torture.locks[held[i]], me, stats);
		started[i] = cycles();
	}
	for (unsigned int i = 0; i < count; i++) {
		section_work(&torture.locks[held[i]], random);
		stats->acquisitions[held[i]]++;
	}
	for (unsigned int n = 0; n < count; n++) {
		unsigned int i = reverse ? count - 1 - n : n;

		witness_section(stats->witness_slot, held[i], started[i]);
		section_exit(&torture.locks[held[i]], me, stats);
		spin_unlock(&torture.locks[held[i]].lock);
	}
}

static void torture_operation(unsigned int me, struct torture_stats *stats,
			      struct random_state *random)
{
	unsigned int index = (unsigned int)random_below(random, TORTURE_LOCKS);
	spinlock_t *lock = &torture.locks[index].lock;
	uint64_t choice = random_below(random, 100);
	bool before, enabled;

	if (torture.rogue && choice < 25) {
		/* The bug: an error path that releases a lock its trylock did not get. */
		if (spin_trylock(lock)) {
			checked_section(index, me, stats, random);
			spin_unlock(lock);
		} else {
			stats->rogue_unlocks++;
			__atomic_fetch_add(&torture.rogue_total, 1, __ATOMIC_RELAXED);
			spin_unlock(lock);
		}
		return;
	}
	if (choice < 35) {
		spin_lock(lock);
		checked_section(index, me, stats, random);
		spin_unlock(lock);
	} else if (choice < 55) {
		if (spin_trylock(lock)) {
			checked_section(index, me, stats, random);
			spin_unlock(lock);
		} else {
			stats->trylock_failures++;
		}
	} else if (choice < 75) {
		before = irqs_enabled();
		enabled = spin_lock_irqsave(lock);
		if (irqs_enabled() || enabled != before)
			stats->irq_state_errors++;
		checked_section(index, me, stats, random);
		spin_unlock_irqrestore(lock, enabled);
		if (irqs_enabled() != before)
			stats->irq_state_errors++;
	} else {
		nested_operation(me, stats, random);
	}
}

/*
 * A random pause between operations, none one time in four.  Back-to-back
 * operations keep every CPU queued on a lock, and under overcommit a queued
 * vCPU the host has descheduled stalls every handover behind it; with pauses
 * most descheduled vCPUs are between operations, and the run gets through
 * many more of them (Linux's locktorture pauses between operations too).
 */
static void think(struct random_state *random)
{
	if (random_below(random, 4) == 0)
		return;
	for (uint64_t spins = random_below(random, 256); spins > 0; spins--)
		cpu_relax();
}

/*
 * Whether a CPU is done: its rounds or its time are up.  A rogue run also
 * needs a few rogue unlocks to have happened (they need a trylock to fail,
 * which a quiet run may rarely see), up to a hard limit a second later.
 */
static bool torture_done(const struct torture_stats *stats, uint64_t start)
{
	uint64_t elapsed = cycles() - start;

	if (__atomic_load_n(&torture.stop, __ATOMIC_RELAXED))
		return true;
	if (stats->operations < torture.max_operations && elapsed < torture.budget_cycles)
		return false;
	return !torture.rogue || elapsed >= torture.hard_limit_cycles ||
	       __atomic_load_n(&torture.rogue_total, __ATOMIC_RELAXED) >= MIN_ROGUE_UNLOCKS;
}

static void torture_worker(void *unused)
{
	unsigned int me = cpu_id();
	struct torture_stats *stats = &torture.stats[me];
	struct random_state random;
	uint64_t start;

	random_seed(&random, torture.seed + me);
	stats->witness_slot = witness_slot();
	stats->took_part = true;
	start_together(&torture.arrived, torture.expected);
	start = cycles();
	while (!torture_done(stats, start)) {
		torture_operation(me, stats, &random);
		stats->operations++;
		think(&random);
	}
}

struct torture_result {
	unsigned int cpus;
	unsigned long operations, acquisitions, overlaps, counter_errors, irq_state_errors;
	unsigned long rogue_unlocks, trylock_failures;
	unsigned int stuck;
	bool locks_left_held, nodes_leaked;
};

static void print_fairness(void)
{
	unsigned long most = 0, least = ~0ul;
	unsigned int busiest = 0, laziest = 0;

	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++) {
		const struct torture_stats *stats = &torture.stats[cpu];

		if (!stats->took_part)
			continue;
		if (stats->operations >= most) {
			most = stats->operations;
			busiest = cpu;
		}
		if (stats->operations < least) {
			least = stats->operations;
			laziest = cpu;
		}
	}
	test_diag("fairness: busiest cpu %u did %lu operations, least busy cpu %u did %lu (%lu%%)",
		  busiest, most, laziest, least, most ? least * 100 / most : 0);
}

static void run_torture(enum spinlock_kind kind, bool rogue, bool unchecked, uint64_t budget_ms,
			struct torture_result *result)
{
	uint64_t start;

	memset(&torture, 0, sizeof(torture));
	memset(&witness.count, 0, sizeof(witness.count));
	memset(&reports, 0, sizeof(reports));
	memset(result, 0, sizeof(*result));
	for (unsigned int i = 0; i < TORTURE_LOCKS; i++) {
		spin_lock_init(&torture.locks[i].lock, "torture", kind);
		if (unchecked)
			torture.locks[i].lock.flags |= SPINLOCK_FLAG_UNCHECKED;
	}
	torture.rogue = rogue;
	torture.stop_on_error = unchecked;
	torture.seed = test_random();
	torture.max_operations = kernel_options.torture_long ? 2000000 :
				 running_under_bochs() ? QUICK_OPERATIONS_BOCHS : QUICK_OPERATIONS;
	if (kernel_options.torture_long)
		budget_ms *= 20;
	torture.budget_cycles = ns_to_cycles(budget_ms * MS);
	torture.hard_limit_cycles = ns_to_cycles((budget_ms + 1000) * MS);
	torture.expected = cpus_online();
	test_diag("%s locks%s%s: seed %llu (from seed=%llu), up to %lu operations per CPU "
		  "or %llu ms", spin_lock_kind_name(kind), rogue ? ", rogue unlocks" : "",
		  unchecked ? ", owner check off" : "", (unsigned long long)torture.seed,
		  (unsigned long long)kernel_options.seed, torture.max_operations,
		  (unsigned long long)budget_ms);

	spinlock_set_report_hook(count_report);
	start = now_ns();
	result->cpus = run_on_cpus(cpus_online(), torture_worker, NULL, &result->stuck);
	spinlock_set_report_hook(NULL);

	for (unsigned int i = 0; i < TORTURE_LOCKS; i++) {
		unsigned long taken = 0;

		for (unsigned int cpu = 0; cpu < cpus_present(); cpu++)
			taken += torture.stats[cpu].acquisitions[i];
		if (torture.locks[i].counter != taken)
			result->counter_errors++;
		result->acquisitions += taken;
		result->locks_left_held |= spin_is_locked(&torture.locks[i].lock);
	}
	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++) {
		const struct torture_stats *stats = &torture.stats[cpu];

		result->operations += stats->operations;
		result->overlaps += stats->overlaps;
		result->irq_state_errors += stats->irq_state_errors;
		result->rogue_unlocks += stats->rogue_unlocks;
		result->trylock_failures += stats->trylock_failures;
		result->nodes_leaked |= spinlock_mcs_nodes_in_use(cpu) != 0;
	}
	test_diag("%u CPUs, %llu ms: %lu operations, %lu acquisitions, %lu failed trylocks, "
		  "%lu rogue unlocks; errors: %lu overlaps, %lu counters off, %lu irq flag",
		  result->cpus, (unsigned long long)((now_ns() - start) / MS), result->operations,
		  result->acquisitions, result->trylock_failures, result->rogue_unlocks,
		  result->overlaps, result->counter_errors, result->irq_state_errors);
	test_diag("lock reports: %u recursion, %u not owner, %u free, %u long spins, %u no node",
		  reports.by_problem[SPINLOCK_RECURSION],
		  reports.by_problem[SPINLOCK_UNLOCK_NOT_OWNER],
		  reports.by_problem[SPINLOCK_UNLOCK_FREE],
		  reports.by_problem[SPINLOCK_SPUN_TOO_LONG],
		  reports.by_problem[SPINLOCK_MCS_NODES_EXHAUSTED]);
	if (reports.first_claimed) {
		char line[320];

		test_diag("first report: %s", spinlock_report_format(&reports.first, line,
								      sizeof(line)));
	}
	print_fairness();
}

/* A clean run: no overlap, exact counters, no report but (maybe) long spins. */
static void torture_kind(enum spinlock_kind kind)
{
	struct torture_result result;

	run_torture(kind, false, false, 600, &result);
	ASSERT_EQ(result.stuck, 0u);
	EXPECT_EQ(result.cpus, cpus_online());
	EXPECT_GT(result.acquisitions, 0u);
	EXPECT_EQ(result.overlaps, 0u);
	EXPECT_EQ(result.counter_errors, 0u);
	EXPECT_EQ(result.irq_state_errors, 0u);
	EXPECT_EQ(misuse_reports(), 0u);
	EXPECT_FALSE(result.locks_left_held);
	EXPECT_FALSE(result.nodes_leaked);
}

static void ticket_lock_torture(void)
{
	torture_kind(SPINLOCK_TICKET);
}

static void mcs_lock_torture(void)
{
	torture_kind(SPINLOCK_MCS);
}

static void rogue_unlocks_are_caught_by_the_owner_check(void)
{
	static const enum spinlock_kind kinds[] = { SPINLOCK_TICKET, SPINLOCK_MCS };

	if (cpus_online() < 2)
		test_skip("one CPU: no other CPU holds the lock a rogue unlock would release");
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		struct torture_result result;

		/*
		 * A rogue unlock follows a failed trylock, and how often a
		 * trylock fails is the host's scheduling (MCS waiters asleep on
		 * triggers leave the lock free more often): up to three runs to
		 * get some.
		 */
		for (int attempt = 0; attempt < 3; attempt++) {
			run_torture(kinds[k], true, false, 300, &result);
			if (result.rogue_unlocks > 0 || result.stuck)
				break;
		}
		ASSERT_EQ(result.stuck, 0u);
		/* Every rogue unlock was reported and refused, so nothing broke. */
		EXPECT_GT(result.rogue_unlocks, 0u);
		EXPECT_EQ(reports.by_problem[SPINLOCK_UNLOCK_NOT_OWNER] +
			  reports.by_problem[SPINLOCK_UNLOCK_FREE], result.rogue_unlocks);
		EXPECT_EQ(result.overlaps, 0u);
		EXPECT_EQ(result.counter_errors, 0u);
		EXPECT_FALSE(result.locks_left_held);
		EXPECT_FALSE(result.nodes_leaked);
	}
}

static void broken_owner_check_is_caught_by_the_checker(void)
{
	static char reason[128];	/* as long as a skip reason may be */
	struct witnessed seen = { 0 };
	unsigned long caught = 0, rogue_unlocks = 0;
	uint64_t start = now_ns();
	unsigned int runs = 0;

	if (cpus_online() < 2)
		test_skip("one CPU: no other CPU holds the lock a rogue unlock would release");
	/*
	 * The same rogue unlocks, on ticket locks whose owner check is off.
	 * A rogue unlock lets a second CPU in only if one takes the lock
	 * before its holder leaves, which needs two CPUs in the torture at
	 * the same time: under host overload two vCPUs may hardly ever run
	 * together.  So runs go on until the checker catches an overlap, up
	 * to a bound, and the witness says whether one happened at all.
	 */
	while (caught == 0 && now_ns() - start < BROKEN_LOCK_BOUND_NS) {
		struct torture_result result;

		run_torture(SPINLOCK_TICKET, true, true, 1000, &result);
		runs++;
		ASSERT_EQ(result.stuck, 0u);
		EXPECT_EQ(misuse_reports(), 0u);
		/* The unchecked lock kept itself usable: all tickets were served. */
		EXPECT_FALSE(result.locks_left_held);
		caught += result.overlaps + result.counter_errors;
		rogue_unlocks += result.rogue_unlocks;
		witness_count(&seen);
	}
	test_diag("%u runs in %llu ms: %lu rogue unlocks, %lu caught; witness: %lu overlapping "
		  "sections on one lock, %lu on any locks", runs,
		  (unsigned long long)((now_ns() - start) / MS), rogue_unlocks, caught,
		  seen.same_lock, seen.any_locks);
	/* Two CPUs were in one critical section at once: the checker must have seen it. */
	if (seen.same_lock > 0)
		EXPECT_GT(caught, 0u);
	if (caught == 0) {
		/* A rogue unlock needs a failed trylock: another CPU in the lock meanwhile. */
		snprintf(reason, sizeof(reason), "%s in %llu ms (the host's scheduling)",
			 seen.any_locks ? "no rogue unlock let a second CPU into a lock"
					: "the two timed CPUs were never in sections at once",
			 (unsigned long long)(BROKEN_LOCK_BOUND_NS / MS));
		test_skip("%s", reason);
	}
	/* Only a rogue unlock lets a second CPU into the lock. */
	EXPECT_GT(rogue_unlocks, 0u);
}

static struct trigger_user_check mcs_waits;

/*
 * Every MCS hand-over a waiter slept for in the torture ended its wait by
 * the releaser's kick, never at the too-long deadline.
 */
static void mcs_handovers_ended_by_their_kicks(void)
{
	trigger_user_check_end(&mcs_waits);
}

static const struct test_case locktorture_cases[] = {
	TEST_CASE(ticket_lock_torture),
	TEST_CASE(mcs_lock_torture),
	TEST_CASE(rogue_unlocks_are_caught_by_the_owner_check),
	TEST_CASE(broken_owner_check_is_caught_by_the_checker),
	TEST_CASE(mcs_handovers_ended_by_their_kicks),
};

static int locktorture_init(void)
{
	trigger_user_check_begin(&mcs_waits, "mcs_handover");
	return 0;
}

static void restore_report_hook(void)
{
	spinlock_set_report_hook(NULL);
}

TEST_SUITE(locktorture, locktorture_cases, locktorture_init, restore_report_hook);

/* --- Benchmarks (test=bench_spinlock) ---------------------------------------- */

#define BENCH_SAMPLES		32768
#define BENCH_WARMUP		1000	/* uncontended iterations not recorded */
#define BENCH_CONTENDED_WARMUP	64	/* acquisitions per CPU not recorded */

static uint64_t samples[BENCH_SAMPLES];

/* Report @count samples of TSC cycles; the lock kind is the figure's "backend". */
static void report_samples(const char *name, enum spinlock_kind kind, unsigned int cpu_count,
			   unsigned int warmup, uint64_t *values, size_t count, const char *extra)
{
	const struct bench_figure figure = {
		.name = name, .backend = spin_lock_kind_name(kind), .unit = "cycles",
		.cpus = cpu_count, .warmup = warmup, .extra = extra,
	};

	bench_report_cycles(&figure, values, count);
}

static void uncontended_acquire_release(void)
{
	static const enum spinlock_kind kinds[] = { SPINLOCK_TICKET, SPINLOCK_MCS };
	size_t count = kernel_options.torture_long ? BENCH_SAMPLES : 10000;
	bool enabled;

	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		spinlock_t lock;

		spin_lock_init(&lock, "bench", kinds[k]);
		enabled = local_irq_save();
		for (size_t i = 0; i < BENCH_WARMUP + count; i++) {
			uint64_t start = cycles();

			spin_lock(&lock);
			spin_unlock(&lock);
			if (i >= BENCH_WARMUP)
				samples[i - BENCH_WARMUP] = cycles() - start;
		}
		local_irq_restore(enabled);
		report_samples("spin_lock_unlock_uncontended", kinds[k], 1, BENCH_WARMUP, samples,
			       count, "");
	}
}

static struct {
	spinlock_t lock;
	volatile unsigned long counter;
	unsigned int expected, arrived;
	uint64_t budget_cycles;
	size_t slice;				/* samples per CPU */
	unsigned int slots_taken;
	unsigned long acquired[MAX_CPUS];
	size_t recorded[MAX_CPUS];		/* by slot */
	uint64_t first[MAX_CPUS], last[MAX_CPUS];
	bool took_part[MAX_CPUS];
} contended;

static void contended_worker(void *unused)
{
	unsigned int me = cpu_id();
	unsigned int slot = __atomic_fetch_add(&contended.slots_taken, 1, __ATOMIC_RELAXED);
	uint64_t *mine = &samples[slot * contended.slice];
	unsigned long acquired = 0, stride = 1;
	size_t recorded = 0;
	uint64_t stop, now;
	bool enabled;

	contended.took_part[me] = true;
	start_together(&contended.arrived, contended.expected);
	enabled = local_irq_save();
	now = cycles();
	contended.first[me] = now;
	stop = now + contended.budget_cycles;
	while (now < stop) {
		uint64_t asked = cycles();

		spin_lock(&contended.lock);
		now = cycles();
		contended.counter++;
		spin_unlock(&contended.lock);
		if (++acquired <= BENCH_CONTENDED_WARMUP ||
		    ((acquired - BENCH_CONTENDED_WARMUP) & (stride - 1)) != 0)
			continue;
		/*
		 * Keep every stride-th acquisition; when the slice is full,
		 * keep every other one of those and double the stride.  So
		 * the samples spread evenly over the whole run, late waits
		 * counting as much as early ones, for a mask test each.
		 */
		if (recorded == contended.slice) {
			for (size_t i = 0; i < recorded / 2; i++)
				mine[i] = mine[2 * i + 1];
			recorded /= 2;
			stride *= 2;
			if (((acquired - BENCH_CONTENDED_WARMUP) & (stride - 1)) != 0)
				continue;
		}
		mine[recorded++] = now - asked;
	}
	contended.last[me] = cycles();
	local_irq_restore(enabled);
	contended.acquired[me] = acquired;
	contended.recorded[slot] = recorded;
}

static void contended_run(enum spinlock_kind kind, unsigned int cpu_count)
{
	unsigned long total = 0, most = 0, least = ~0ul, fairness;
	uint64_t first = UINT64_MAX, last = 0, elapsed_ns, per_second;
	unsigned int stuck, taking_part;
	size_t count = 0;
	char extra[96];

	memset(&contended, 0, sizeof(contended));
	spin_lock_init(&contended.lock, "bench", kind);
	contended.expected = cpu_count;
	contended.slice = BENCH_SAMPLES / cpu_count;
	contended.budget_cycles = ns_to_cycles((kernel_options.torture_long ? 2000 : 200) * MS);
	taking_part = run_on_cpus(cpu_count, contended_worker, NULL, &stuck);
	ASSERT_EQ(stuck, 0u);
	ASSERT_EQ(taking_part, cpu_count);

	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++) {
		if (!contended.took_part[cpu])
			continue;
		total += contended.acquired[cpu];
		most = contended.acquired[cpu] > most ? contended.acquired[cpu] : most;
		least = contended.acquired[cpu] < least ? contended.acquired[cpu] : least;
		first = contended.first[cpu] < first ? contended.first[cpu] : first;
		last = contended.last[cpu] > last ? contended.last[cpu] : last;
	}
	/* Close the gaps between the slices, in slot order so that none is overwritten. */
	for (unsigned int slot = 0; slot < taking_part; slot++) {
		memmove(&samples[count], &samples[slot * contended.slice],
			contended.recorded[slot] * sizeof(samples[0]));
		count += contended.recorded[slot];
	}
	EXPECT_EQ(contended.counter, total);
	elapsed_ns = cycles_to_ns(last - first);
	per_second = elapsed_ns ? total * 1000000000ull / elapsed_ns : 0;
	fairness = most ? least * 100 / most : 0;
	test_diag("%s, %u CPUs: %lu acquisitions in %llu ms, %llu per second; fairness: most %lu, "
		  "least %lu per CPU (%lu%%)", spin_lock_kind_name(kind), cpu_count, total,
		  (unsigned long long)(elapsed_ns / MS), (unsigned long long)per_second, most,
		  least, fairness);
	snprintf(extra, sizeof(extra), ",\"acquisitions_per_s\":%llu,\"fairness_pct\":%lu",
		 (unsigned long long)per_second, fairness);
	report_samples("spin_lock_contended_acquire", kind, cpu_count, BENCH_CONTENDED_WARMUP,
		       samples, count, extra);
}

static void contended_throughput_and_fairness(void)
{
	static const enum spinlock_kind kinds[] = { SPINLOCK_TICKET, SPINLOCK_MCS };
	unsigned int online = cpus_online();

	if (online < 2)
		test_skip("one CPU: nothing to contend with");
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		/* 2, 4, 8, ... CPUs, and all of them if that is not a power of two. */
		for (unsigned int cpu_count = 2; cpu_count <= online; cpu_count *= 2)
			contended_run(kinds[k], cpu_count);
		if (online & (online - 1))
			contended_run(kinds[k], online);
	}
}

static const struct test_case bench_spinlock_cases[] = {
	TEST_CASE(uncontended_acquire_release),
	TEST_CASE(contended_throughput_and_fairness),
};
TEST_SUITE(bench_spinlock, bench_spinlock_cases, NULL, NULL);
