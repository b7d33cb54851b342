// SPDX-License-Identifier: MIT
/*
 * Lost-wakeup torture for every backend (the one trigger= names, if it names
 * one: trigger_test_backends()).
 *
 * Each round picks a waiter CPU and a kicker CPU at random.  The waiter
 * resets a trigger and waits until the round's flag is set; the kicker waits
 * a random time (so that its kick lands before, during or after the waiter's
 * halt window, which is widened on purpose by an injected delay), sets the
 * flag and kicks once.  Then the kicker watches: if the waiter has not
 * finished within a deadline, and not within a second more without another
 * kick, a wake-up was lost; it is counted and the waiter is rescued with
 * more kicks.  (A waiter that finishes in that second was late, not lost: a
 * host with more runnable threads than cores can leave a vCPU unscheduled
 * for hundreds of milliseconds, while a lost wake-up sleeps until kicked.)
 * Every round, a late one too, must have been ended by its kick: the
 * waiter's sequence record says what ended its wait.  Waiters never run on
 * the watchdog's CPU: its periodic tick would end a lost-wakeup halt and
 * hide the bug.
 *
 * A quarter of the rounds of the halting backends kick from inside the
 * window itself, through a test hook, after the waiter's last look and
 * before it publishes itself: the one case only the re-check catches, made
 * certain rather than left to timing, which host scheduling decides under
 * emulation.  The same torture with the hlt backend deliberately broken (the
 * re-check after publishing removed, trigger_set_broken_hlt) must find lost
 * wake-ups: that shows the torture can fail.
 *
 * Random timing rarely lands a kick within the few cycles where a kicker
 * without its fence goes wrong; the last case runs the kick and the
 * waiter's publish in lockstep for that.
 */
#include <sync/irq.h>
#include <harness/machine.h>
#include <boot/options.h>
#include <smp/smp.h>
#include <harness/test.h>
#include <time/time.h>
#include <sync/trigger.h>
#include <sync/trigger_backend.h>
#include <harness/watchdog.h>
#include <asm/trigger_test.h>
#include "cpu_test.h"
#include "trigger_test.h"

#define LOST_DEADLINE_NS	(200ull * 1000 * 1000)
#define PATIENCE_NS		(1000ull * 1000 * 1000)	/* late or lost? */
#define RESCUE_DEADLINE_NS	(2ull * 1000 * 1000 * 1000)
#define WINDOW_DELAY_NS		20000ull

struct torture_round {
	trigger_t trigger;
	volatile unsigned long flag;
	volatile bool waiter_done;
	volatile unsigned int ready;	/* both roles arrive before either goes on */
	volatile bool began[2];		/* the waiter's (0) and the kicker's (1) role began */
	bool interrupts_off;		/* the waiter waits with interrupts disabled */
	bool kick_in_window;		/* the kick comes from inside the halt window */
	volatile bool window_kick_armed;
	unsigned long window_target;
	unsigned int kick_delay_ns;
	struct trigger_sequence_record record;	/* the waiter's sequence, when done */
	unsigned long late;		/* rounds whose waiter ended after the deadline, unkicked */
	unsigned long late_not_by_kick;	/* ... and not woken by the round's kick */
	unsigned long not_by_kick;	/* rounds in time whose waiter the kick did not wake */
	unsigned long slept;		/* rounds in time whose waiter slept (one wait) */
	unsigned long absent;		/* rounds whose waiter had not begun when it was due */
	unsigned long lost;		/* rounds whose wake-up was lost */
	unsigned long unrescued;	/* ... and whose waiter could not be freed */
};

static struct torture_round round_state;

/*
 * Both roles start together, so that the kicker's random delay, not the
 * time it took to wake the kicker's CPU, decides where the kick lands.
 */
static void start_together(unsigned int role)
{
	uint64_t start = now_ns();

	__atomic_store_n(&round_state.began[role], true, __ATOMIC_RELEASE);
	__atomic_fetch_add(&round_state.ready, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(&round_state.ready, __ATOMIC_ACQUIRE) < 2 &&
	       now_ns() - start < RESCUE_DEADLINE_NS)
		cpu_relax();
}

static void torture_waiter(void *argument)
{
	unsigned long target = (unsigned long)argument;
	bool was_enabled = local_irq_save();

	start_together(0);
	if (!round_state.interrupts_off)
		local_irq_enable();
	trigger_reset(&round_state.trigger);
	while (__atomic_load_n(&round_state.flag, __ATOMIC_RELAXED) != target)
		trigger_wait(&round_state.trigger);
	trigger_finish(&round_state.trigger);
	local_irq_restore(was_enabled);
	trigger_last_sequence(cpu_id(), &round_state.record);
	__atomic_store_n(&round_state.waiter_done, true, __ATOMIC_RELEASE);
}

/*
 * Called by the hlt backend inside its window (after the waiter's last look,
 * before it publishes itself): the round's one kick lands exactly there, the
 * case that only the re-check after publishing catches.
 */
static void kick_from_inside_the_window(void)
{
	if (!__atomic_exchange_n(&round_state.window_kick_armed, false, __ATOMIC_ACQ_REL))
		return;
	__atomic_store_n(&round_state.flag, round_state.window_target, __ATOMIC_RELAXED);
	trigger_kick(&round_state.trigger);
}

/*
 * Whether the round ended as it should: no wait reached a deadline, and a
 * wait that slept was ended by the round's kick - a halt (hlt, adaptive) by
 * the kick's own wake IPI or NMI, any other sleep by the kick's store - for
 * a sleep that ended otherwise after the kick (an unrelated interrupt) was
 * a lost wake-up that something else rescued.  A waiter that never slept,
 * or whose MWAIT returned for nothing (at once, under TCG), may have found
 * the flag the kicker sets just before its kick: it had nothing to be
 * woken from.  The record is the sequence's; only a lone wait's sleep is
 * known to be the last one's.  A late round that passes this was late only
 * because the host ran it late.
 */
static bool woken_by_the_kick(const struct trigger_sequence_record *record)
{
	bool halting = record->backend == TRIGGER_BACKEND_HLT ||
		       record->backend == TRIGGER_BACKEND_ADAPTIVE;

	if (record->waits == 0)
		return true;
	if (record->returns[TRIGGER_WAKE_DEADLINE])
		return false;
	if (record->sleeps == 0 || record->waits > 1)
		return true;
	if (halting)
		return record->last_return == TRIGGER_WAKE_IPI ||
		       record->last_return == TRIGGER_WAKE_NMI;
	/* An MWAIT that returned at once, the flag already set, is "spurious". */
	return trigger_wake_saw_kick(record->last_return) ||
	       record->last_return == TRIGGER_WAKE_SPURIOUS;
}

static void torture_kicker(void *argument)
{
	unsigned long target = (unsigned long)argument;
	uint64_t start;

	start_together(1);
	if (!round_state.kick_in_window) {
		ndelay(round_state.kick_delay_ns);
		__atomic_store_n(&round_state.flag, target, __ATOMIC_RELAXED);
		trigger_kick(&round_state.trigger);	/* exactly one kick */
	}
	if (trigger_test_wait_until(&round_state.waiter_done, LOST_DEADLINE_NS)) {
		round_state.not_by_kick += !woken_by_the_kick(&round_state.record);
		round_state.slept += round_state.record.sleeps && round_state.record.waits == 1;
		return;
	}
	if (trigger_test_wait_until(&round_state.waiter_done, PATIENCE_NS)) {
		round_state.late++;
		round_state.late_not_by_kick += !woken_by_the_kick(&round_state.record);
		return;
	}
	/*
	 * A waiter that never began its role was never asleep: no wake-up of
	 * its was lost.  Its CPU did not take its work - the work wake lost,
	 * which the IPI evidence judges and its probe rescues, interrupts
	 * off, or a vCPU the host did not run - and the stuck-role check in
	 * torture_backend() waits for it.
	 */
	if (!__atomic_load_n(&round_state.began[0], __ATOMIC_ACQUIRE)) {
		round_state.absent++;
		return;
	}
	round_state.lost++;
	start = now_ns();
	while (!__atomic_load_n(&round_state.waiter_done, __ATOMIC_ACQUIRE) &&
	       now_ns() - start < RESCUE_DEADLINE_NS) {
		trigger_kick(&round_state.trigger);
		udelay(100);
	}
	if (!__atomic_load_n(&round_state.waiter_done, __ATOMIC_ACQUIRE))
		round_state.unrescued++;
}

/* Pick a CPU at random among the online ones that @allowed accepts. */
static int random_cpu(bool (*allowed)(unsigned int cpu, unsigned int other), unsigned int other)
{
	unsigned int candidates[MAX_CPUS], count = 0;

	for (unsigned int i = 0; i < cpus_present(); i++) {
		if (cpu_is_online(i) && allowed(i, other))
			candidates[count++] = i;
	}
	return count ? (int)candidates[test_random() % count] : -1;
}

static bool may_wait(unsigned int cpu, unsigned int unused)
{
	return (int)cpu != watchdog_cpu();
}

static bool may_kick(unsigned int cpu, unsigned int waiter)
{
	return cpu != waiter;
}

static bool run_role(unsigned int cpu, void (*role)(void *), void *argument)
{
	if (cpu == cpu_id())
		return true;	/* the caller plays this role itself, below */
	return smp_run_on_async(cpu, role, argument);
}

struct torture_totals {
	unsigned long rounds, late, late_not_by_kick, not_by_kick, slept, absent, lost, unrescued;
	unsigned long stuck_roles;
};

/*
 * @window_share: 1 in how many rounds kicks from inside the halt window
 * (0: none); the rest kick at a random time.
 * @enough_lost: stop once this many wake-ups were lost (0: never), for a
 * run that only has to show that it finds them: each lost one costs the
 * kicker's deadline and patience, over a second.
 */
static void torture_backend(enum trigger_backend_id backend, unsigned long rounds,
			    uint64_t budget_ns, unsigned int window_share,
			    unsigned long enough_lost, struct torture_totals *totals)
{
	uint64_t kick_delay_span_ns;
	struct cpu_test_budget budget;	/* run time: a host stall does not count */

	ASSERT_TRUE(trigger_backend_set(backend));
	kick_delay_span_ns = 3 * trigger_spin_budget_ns();
	if (kick_delay_span_ns < 60000)
		kick_delay_span_ns = 60000;
	cpu_test_budget_start(&budget, budget_ns);
	for (unsigned long round = 1; round <= rounds && !cpu_test_budget_spent(&budget) &&
	     !(enough_lost && round_state.lost >= enough_lost); round++) {
		int waiter = random_cpu(may_wait, 0), kicker;
		unsigned long target = round_state.flag + 1;

		ASSERT_GE(waiter, 0);
		kicker = random_cpu(may_kick, (unsigned int)waiter);
		ASSERT_GE(kicker, 0);
		round_state.waiter_done = false;
		round_state.ready = 0;
		round_state.began[0] = round_state.began[1] = false;
		round_state.interrupts_off = test_random() % 2;
		/*
		 * Before, inside and after the 20 us window and the adaptive
		 * backend's spin phase (measured at boot: 20-60 us under TCG):
		 * 0 to three spin budgets, at least 60 us, so that adaptive's
		 * waiters also reach their halt in most rounds.
		 */
		round_state.kick_delay_ns = (unsigned int)(test_random() % kick_delay_span_ns);
		/* Only halting backends have the window; elsewhere the kicker kicks. */
		round_state.kick_in_window = window_share && test_random() % window_share == 0 &&
					     (backend == TRIGGER_BACKEND_HLT ||
					      backend == TRIGGER_BACKEND_ADAPTIVE);
		round_state.window_target = target;
		round_state.window_kick_armed = round_state.kick_in_window;
		ASSERT_TRUE(run_role((unsigned int)waiter, torture_waiter, (void *)target));
		ASSERT_TRUE(run_role((unsigned int)kicker, torture_kicker, (void *)target));
		if ((unsigned int)waiter == cpu_id())
			torture_waiter((void *)target);
		else if ((unsigned int)kicker == cpu_id())
			torture_kicker((void *)target);
		for (unsigned int cpu = 0; cpu < cpus_present(); cpu++) {
			unsigned int role = cpu == (unsigned int)waiter ? 0 : 1;

			if (cpu == cpu_id() || (cpu != (unsigned int)waiter && cpu != (unsigned int)kicker) ||
			    smp_wait_for(cpu, RESCUE_DEADLINE_NS * 5))
				continue;
			totals->stuck_roles++;
			test_diag("%s: round %lu: cpu %u, the %s, did not end its role %llu s after "
				  "the round's own waits; it %s", trigger_backend_name(backend), round,
				  cpu, role ? "kicker" : "waiter",
				  (unsigned long long)(RESCUE_DEADLINE_NS * 5 / 1000000000ull),
				  __atomic_load_n(&round_state.began[role], __ATOMIC_ACQUIRE)
				  ? "began it" : "never began it: it did not take the work - its work "
				  "wake lost (a LOST line of the IPI evidence says so), its interrupts "
				  "off, or its vCPU not run by the host");
		}
		if (totals->stuck_roles)
			break;	/* a CPU is wedged: stop before it poisons later rounds */
		totals->rounds++;
	}
	totals->late += round_state.late;
	totals->late_not_by_kick += round_state.late_not_by_kick;
	totals->not_by_kick += round_state.not_by_kick;
	totals->slept += round_state.slept;
	totals->absent += round_state.absent;
	totals->lost += round_state.lost;
	totals->unrescued += round_state.unrescued;
	round_state.late = 0;
	round_state.late_not_by_kick = 0;
	round_state.not_by_kick = 0;
	round_state.slept = 0;
	round_state.absent = 0;
	round_state.lost = 0;
	round_state.unrescued = 0;
}

static int torture_init(void)
{
	trigger_init(&round_state.trigger);
	round_state.flag = 0;
	if (cpus_online() < 2)
		return 0;
	trigger_set_halt_window_delay(WINDOW_DELAY_NS);
	trigger_set_halt_window_hook(kick_from_inside_the_window);
	return 0;
}

static void torture_exit(void)
{
	trigger_set_halt_window_delay(0);
	trigger_set_halt_window_hook(NULL);
	trigger_set_broken_hlt(false);
	trigger_test_restore_boot_backend();
}

static void every_wait_ends_for_every_backend(const void *param)
{
	unsigned long rounds = kernel_options.torture_long ? 5000 : 150;
	uint64_t budget = (kernel_options.torture_long ? 60ull : 3ull) * 1000000000ull;

	if (cpus_online() < 2)
		test_skip("one CPU: no kicker besides the waiter");
	WITH_PARAM_BACKEND(backend, param) {
		struct torture_totals totals = { 0 };

		trigger_test_break_kicks(true);
		torture_backend(backend, rounds, budget, 4, 0, &totals);
		trigger_test_break_kicks(false);
		test_diag("%s: %lu rounds, %lu lost wake-ups, %lu unrescued, %lu stuck CPUs, %lu "
			  "in time but not woken by the kick, %lu with one wait that slept; %lu late "
			  "(the host ran the waiter late), %lu of them not woken by the kick; %lu "
			  "whose waiter had not begun its role when due%s",
			  trigger_backend_name(backend), totals.rounds, totals.lost,
			  totals.unrescued, totals.stuck_roles, totals.not_by_kick, totals.slept,
			  totals.late, totals.late_not_by_kick, totals.absent,
			  test_break_given(TEST_BREAK_KICK_FENCE) ?
			  " (test_break=kick_fence)" : "");
		EXPECT_EQ(totals.lost, 0u);
		EXPECT_EQ(totals.not_by_kick, 0u);
		EXPECT_EQ(totals.late_not_by_kick, 0u);
		EXPECT_EQ(totals.unrescued, 0u);
		EXPECT_EQ(totals.stuck_roles, 0u);
		EXPECT_GT(totals.rounds, 0u);
		/*
		 * A halting backend is tested only by rounds whose waiter
		 * halted and was judged by what woke it (woken_by_the_kick):
		 * rounds that never slept prove nothing about the halt.
		 */
		if (backend == TRIGGER_BACKEND_HLT || backend == TRIGGER_BACKEND_ADAPTIVE)
			EXPECT_GT(totals.slept, 0u);
	}
}

/*
 * The quick run stops at the first lost wake-up: one shows the torture
 * fails a broken hlt, and each costs over a second of waiting (the deadline
 * and the patience that tells lost from late), in every full run of the
 * matrix, and more under Bochs.  torture=long runs every round, for the
 * rate.
 */
#define BROKEN_HLT_ENOUGH_LOST	1ul

static void the_torture_catches_a_broken_hlt(void)
{
	struct torture_totals totals = { 0 };
	unsigned long enough = kernel_options.torture_long ? 0 : BROKEN_HLT_ENOUGH_LOST;

	if (cpus_online() < 2)
		test_skip("one CPU: no kicker besides the waiter");
	trigger_set_broken_hlt(true);
	torture_backend(TRIGGER_BACKEND_HLT, kernel_options.torture_long ? 2000 : 120,
			6ull * 1000000000ull, 4, enough, &totals);
	trigger_set_broken_hlt(false);
	test_diag("broken hlt: %lu rounds, %lu lost wake-ups (%lu unrescued)%s", totals.rounds,
		  totals.lost, totals.unrescued,
		  enough && totals.lost >= enough ? "; stopped there: enough to show it" : "");
	EXPECT_GT(totals.lost, 0u);
	EXPECT_EQ(totals.stuck_roles, 0u);
}

/*
 * The protocol's two halves at the same moment, many times: the kicker's
 * kick (generation update, then the read of the waiter mask) against the
 * waiter's publish and re-check (trigger_test_publish_and_recheck: the
 * halting waiter's steps without the halt; it stays published until the
 * kicker is through, as a halted waiter would).  Both leave a shared start
 * line together, each after a random few loop turns, the waiter after an
 * offset that follows which half came first, so that the two overlap in
 * many trials, as in a store-buffering litmus test - which under QEMU TCG
 * does show stores passing later loads.  In every trial one of the
 * two must see the other: the waiter the new generation, or the kicker the
 * waiter.  The waiter publishes the kicker's CPU number, so that a kick that
 * sees it sends nothing and only counts it (trigger_own_cpu_published).  A
 * kick whose generation update is not a fence (test_break=kick_fence) lets
 * both miss - a lost wake-up, had the waiter halted - and must fail here.
 */
#define LOCKSTEP_TRIALS		1000000ul
/*
 * Under QEMU a second is about 40 thousand trials with 2 vCPUs at host load
 * 1, 26 thousand at load 6 (torture=long's unfenced kicks were caught 15-129
 * times in 31-79 thousand); the quick run's second is the mechanics and a
 * chance, in every full run of the matrix, torture=long's thirty the hunt.
 */
#define LOCKSTEP_BUDGET_NS	(1ull * 1000000000ull)
#define LOCKSTEP_LONG_BUDGET_NS	(30ull * 1000000000ull)
/*
 * Bochs executes each CPU's instructions in order and has no store buffer
 * (its CPUs take turns, a quantum of instructions each), so the outcome
 * this case hunts for cannot occur there; its million trials took ~10 s of
 * every Bochs full run.  A few thousand check the mechanics.
 */
#define LOCKSTEP_TRIALS_BOCHS	5000ul
#define LOCKSTEP_JITTER		64u	/* loop turns before each half, at random below this */

static DEFINE_TRIGGER(lockstep_trigger);

static struct {
	unsigned long trials;
	volatile unsigned long start_line;	/* the trial both leave from */
	volatile unsigned long kicked;		/* the last trial the kicker is through */
	volatile bool kicker_saw_waiter;
	volatile bool stop;
	uint8_t jitter[2][256];			/* the loop turns of each side, per trial */
} lockstep;

/*
 * A few loop turns, not PAUSEs: QEMU TCG ends the translated block at a
 * PAUSE and goes back to its CPU loop, which takes far longer than the
 * store-buffer window the jitter is there to hit.
 */
static void turn_for(unsigned int count)
{
	for (unsigned int i = 0; i < count; i++)
		compiler_barrier();
}

static void kick_in_lockstep(void *unused)
{
	unsigned int me = cpu_id();

	for (unsigned long trial = 1; trial <= lockstep.trials; trial++) {
		unsigned long before;

		while (__atomic_load_n(&lockstep.start_line, __ATOMIC_ACQUIRE) != trial)
			if (__atomic_load_n(&lockstep.stop, __ATOMIC_RELAXED))
				return;
		/* Not PAUSE in these loops either: the halves must leave together. */
		before = trigger_own_cpu_published(me);
		turn_for(lockstep.jitter[1][trial % 256]);
		trigger_kick(&lockstep_trigger);
		lockstep.kicker_saw_waiter = trigger_own_cpu_published(me) != before;
		__atomic_store_n(&lockstep.kicked, trial, __ATOMIC_RELEASE);
	}
}

static void a_kick_and_a_publish_at_the_same_moment_see_each_other(void)
{
	int kicker = cpu_test_other_cpu();
	unsigned long trials = 0, both_missed = 0, waiter_saw = 0, kicker_saw = 0;
	unsigned int offset = 0;	/* the waiter's extra loop turns: where the halves meet */
	uint64_t start = now_ns();

	if (kicker < 0)
		test_skip("one CPU: no kicker besides the waiter");
	trigger_init(&lockstep_trigger);
	lockstep.trials = running_under_bochs() && !kernel_options.torture_long ?
			  LOCKSTEP_TRIALS_BOCHS : LOCKSTEP_TRIALS;
	lockstep.start_line = lockstep.kicked = 0;
	lockstep.stop = false;
	for (unsigned int i = 0; i < 256; i++) {
		lockstep.jitter[0][i] = (uint8_t)(test_random() % LOCKSTEP_JITTER);
		lockstep.jitter[1][i] = (uint8_t)(test_random() % LOCKSTEP_JITTER);
	}
	trigger_test_break_kicks(true);
	ASSERT_TRUE(smp_run_on_async((unsigned int)kicker, kick_in_lockstep, NULL));
	for (unsigned long trial = 1; trial <= lockstep.trials; trial++) {
		uint64_t seen = __atomic_load_n(&lockstep_trigger.generation, __ATOMIC_RELAXED);
		bool saw, seen_by_kicker;

		if (now_ns() - start > (kernel_options.torture_long ? LOCKSTEP_LONG_BUDGET_NS :
								  LOCKSTEP_BUDGET_NS))
			break;
		__atomic_store_n(&lockstep.start_line, trial, __ATOMIC_RELEASE);
		turn_for(offset + lockstep.jitter[0][trial % 256]);
		saw = trigger_test_publish_and_recheck(&lockstep_trigger, seen, (unsigned int)kicker);
		while (__atomic_load_n(&lockstep.kicked, __ATOMIC_ACQUIRE) != trial)
			compiler_barrier();
		trigger_test_unpublish(&lockstep_trigger, (unsigned int)kicker);
		seen_by_kicker = lockstep.kicker_saw_waiter;
		trials++;
		waiter_saw += saw;
		kicker_saw += seen_by_kicker;
		both_missed += !saw && !seen_by_kicker;
		/* Keep the halves overlapping: start later when early, sooner when late. */
		if (seen_by_kicker && !saw)
			offset += 4;
		else if (saw && !seen_by_kicker)
			offset = offset > 4 ? offset - 4 : 0;
	}
	__atomic_store_n(&lockstep.stop, true, __ATOMIC_RELEASE);
	EXPECT_TRUE(smp_wait_for((unsigned int)kicker, trigger_test_patience_ns()));
	trigger_test_break_kicks(false);
	test_diag("%lu trials: the waiter saw the kick in %lu, the kicker saw the waiter in %lu, "
		  "both missed in %lu (the waiter started %u loop turns late at the end)%s", trials,
		  waiter_saw, kicker_saw, both_missed, offset,
		  test_break_given(TEST_BREAK_KICK_FENCE) ?
		  " (test_break=kick_fence: the kick's generation update unfenced)" : "");
	EXPECT_EQ(both_missed, 0ul);
	EXPECT_GT(trials, 0ul);
}

static const struct test_case torture_cases[] = {
	TEST_CASE_PARAM(every_wait_ends_for_every_backend, trigger_test_backend_params),
	TEST_CASE(the_torture_catches_a_broken_hlt),
	TEST_CASE(a_kick_and_a_publish_at_the_same_moment_see_each_other),
};
TEST_SUITE(trigger_torture, torture_cases, torture_init, torture_exit);
