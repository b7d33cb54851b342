// SPDX-License-Identifier: MIT
/*
 * The trigger patch's trigger rules, one test each, for every backend this CPU
 * offers, or the one trigger= names (trigger_test_backends(); each test
 * switches backends at run time and puts the boot choice back).  Where a backend cannot show a rule directly it is checked in the
 * backend's counters instead:
 *  - mwait under QEMU TCG with more than one vCPU returns at once, so it
 *    behaves like spin (docs/emulators.md), and a store never wakes it;
 *  - mwaitx and umwait cannot run under TCG at all: only their selection
 *    is tested (trigger_selection suite).
 * Stickiness is always visible as a "sticky" return in the counters.
 */
#include <arch/hypervisor.h>
#include <sync/irq.h>
#include <boot/options.h>
#include <smp/smp.h>
#include <harness/test.h>
#include <time/time.h>
#include <time/timer.h>
#include <sync/trigger.h>
#include <sync/trigger_backend.h>
#include "trigger_test.h"
#include <harness/watchdog.h>
#include <lib/string.h>
#include <asm/apic.h>
#include <asm/interrupts.h>
#include <asm/trigger_test.h>

#define MILLISECOND		TRIGGER_TEST_MS

static bool kick_from_nmi(struct interrupt_frame *frame);

static void restore_backend(void)
{
	nmi_unregister(kick_from_nmi);
	trigger_test_set_kick_break(TRIGGER_BREAK_NONE);
	trigger_test_restore_boot_backend();
	trigger_set_misuse_hook(NULL);
	trigger_set_broken_hlt(false);
	trigger_set_halt_window_delay(0);
	timer_set_tick_hook(NULL);
}

/* --- Sticky, implicit reset ------------------------------------------------------ */

static DEFINE_TRIGGER(local_trigger);

/*
 * "At once" is judged by what the wait did, not by a clock (a loaded host
 * may deschedule this vCPU for any time): one wait, returned sticky, no
 * sleep.  The per-CPU record is exact; the backend's counters are shared
 * with the other CPUs' waits.
 */
static void kick_before_wait_returns_at_once(const void *param)
{
	WITH_PARAM_BACKEND(backend, param) {
		struct trigger_sequence_record record;

		trigger_reset(&local_trigger);
		trigger_kick(&local_trigger);
		trigger_wait(&local_trigger);
		trigger_finish(&local_trigger);
		trigger_last_sequence(cpu_id(), &record);
		EXPECT_EQ(record.backend, backend);
		EXPECT_EQ(record.waits, 1u);
		EXPECT_EQ(record.returns[TRIGGER_WAKE_STICKY], 1u);
		EXPECT_EQ(record.sleeps, 0u);
	}
}

static void a_kick_counts_once_per_waiter(const void *param)
{
	WITH_PARAM_BACKEND(backend, param) {
		struct trigger_counters before, after;
		uint64_t deadline;
		bool timed_out = false;

		trigger_reset(&local_trigger);
		trigger_kick(&local_trigger);
		trigger_wait(&local_trigger);		/* returns for that kick */
		trigger_counters_read(backend, &before);
		/* No new kick: every further return is spurious or the deadline. */
		deadline = now_ns() + 20 * MILLISECOND;
		while (!timed_out)
			timed_out = !trigger_wait_timeout(&local_trigger, deadline);
		trigger_finish(&local_trigger);
		trigger_counters_read(backend, &after);
		EXPECT_EQ(after.returns[TRIGGER_WAKE_STICKY], before.returns[TRIGGER_WAKE_STICKY]);
		EXPECT_GE(now_ns(), deadline);
		EXPECT_GE(after.returns[TRIGGER_WAKE_DEADLINE], before.returns[TRIGGER_WAKE_DEADLINE] + 1);
	}
}

/* --- Interrupt state ------------------------------------------------------------- */

static void interrupt_state_follows_the_seed(const void *param)
{
	bool was_enabled = local_irq_save();

	WITH_PARAM_BACKEND(backend, param) {
		local_irq_enable();
		trigger_reset(&local_trigger);
		EXPECT_FALSE(irqs_enabled());	/* "may disable interrupts" - ours does */
		trigger_kick(&local_trigger);
		trigger_wait(&local_trigger);
		EXPECT_FALSE(irqs_enabled());	/* disabled again when wait returns */
		trigger_finish(&local_trigger);
		EXPECT_TRUE(irqs_enabled());	/* finish restores the reset's state */

		local_irq_disable();
		trigger_reset(&local_trigger);
		trigger_kick(&local_trigger);
		trigger_wait(&local_trigger);
		trigger_finish(&local_trigger);
		EXPECT_FALSE(irqs_enabled());
	}
	local_irq_restore(was_enabled);
}

static void timer_interrupt_taken_during_a_wait_with_interrupts_on(const void *param)
{
	bool was_enabled = local_irq_save();

	if ((int)cpu_id() == watchdog_cpu())
		test_skip("the runner's CPU keeps the watchdog's tick");
	WITH_PARAM_BACKEND(backend, param) {
		unsigned long ticks = this_cpu()->timer_ticks;
		uint64_t deadline = now_ns() + 500 * MILLISECOND;

		local_irq_enable();
		trigger_reset(&local_trigger);
		timer_oneshot(MILLISECOND);
		while (this_cpu()->timer_ticks == ticks && now_ns() < deadline)
			trigger_wait_timeout(&local_trigger, deadline);
		trigger_finish(&local_trigger);
		EXPECT_NE(this_cpu()->timer_ticks, ticks);
	}
	local_irq_restore(was_enabled);
}

static void no_interrupt_during_a_wait_with_interrupts_off(const void *param)
{
	bool was_enabled = local_irq_save();

	if ((int)cpu_id() == watchdog_cpu())
		test_skip("the runner's CPU keeps the watchdog's tick");
	WITH_PARAM_BACKEND(backend, param) {
		unsigned long ticks = this_cpu()->timer_ticks;
		uint64_t deadline = now_ns() + 5 * MILLISECOND;
		struct cpu_test_budget budget;

		local_irq_disable();
		timer_oneshot(MILLISECOND);
		trigger_reset(&local_trigger);
		while (trigger_wait_timeout(&local_trigger, deadline))
			;
		trigger_finish(&local_trigger);
		EXPECT_EQ(this_cpu()->timer_ticks, ticks);	/* it stayed pending */
		local_irq_enable();
		/*
		 * 100 ms of run time: a host that stops the vCPU between the
		 * enable and the look must not end the wait before the pending
		 * interrupt could be taken (seen once in make test, 1 CPU).
		 */
		cpu_test_budget_start(&budget, 100 * MILLISECOND);
		while (this_cpu()->timer_ticks == ticks && !cpu_test_budget_spent(&budget))
			cpu_relax();
		EXPECT_NE(this_cpu()->timer_ticks, ticks);	/* taken once enabled */
		local_irq_disable();
	}
	local_irq_restore(was_enabled);
}

/* --- Kicks from an interrupt handler and from an NMI handler ------------------------ */

/*
 * A kick from a handler must end the wait by itself.  An interrupt ends a
 * halt anyway, so "the wait returned" proves nothing: each case checks, in
 * the waiter's sequence record, that its last return saw the kick (the
 * generation had moved: sticky, kick, ipi or nmi) - a return for the
 * interrupt alone is "interrupt" - and that no wait reached its deadline.
 * A wait that returned for nothing (mwait under TCG returns at once) may
 * find the condition just before the kick: then the kick must have come
 * (the generation moved since the reset).  The waiters never keep the
 * watchdog's tick (paused where the waiter must be its CPU).
 * test_break=kick makes these cases' kicks do nothing: each must then fail.
 */
static DEFINE_TRIGGER(handler_trigger);

static bool ended_by_the_kick(const char *what, const struct trigger_sequence_record *record,
			      bool kick_came)
{
	bool by_kick = record->waits > 0 && record->returns[TRIGGER_WAKE_DEADLINE] == 0 &&
		       (trigger_wake_saw_kick(record->last_return) ||
			(kick_came && record->last_return == TRIGGER_WAKE_SPURIOUS));

	if (record->waits == 0)
		test_diag("%s, %s: never waited: its condition was already true at its first look "
			  "(the kick came before its first wait)", trigger_backend_name(record->backend),
			  what);
	else if (!by_kick)
		test_diag("%s, %s: not ended by the kick: waits %u sleeps %u, last return %s, "
			  "deadlines %u, the kick %s", trigger_backend_name(record->backend), what,
			  record->waits, record->sleeps, trigger_wake_name(record->last_return),
			  record->returns[TRIGGER_WAKE_DEADLINE], kick_came ? "came" : "never came");
	return by_kick;
}

/* Whether @trigger was kicked since its generation was @before. */
static bool kicked_since(const trigger_t *trigger, uint64_t before)
{
	return __atomic_load_n(&trigger->generation, __ATOMIC_ACQUIRE) != before;
}

static struct {
	unsigned int kicker;		/* the CPU whose timer interrupt kicks */
	volatile bool condition;
	volatile bool about_to_wait;
	struct trigger_sequence_record record;
} timer_kick;

static void kick_from_timer_interrupt(void)
{
	if (cpu_id() != timer_kick.kicker || __atomic_load_n(&timer_kick.condition, __ATOMIC_RELAXED))
		return;
	__atomic_store_n(&timer_kick.condition, true, __ATOMIC_RELAXED);
	trigger_kick(&handler_trigger);
}

/*
 * Wait, interrupts on, for the timer handler's condition, bounded (a kick
 * that does nothing leaves the spin backend looking until the deadline).
 * @own_timer: the kick comes from this CPU's own timer, armed here.
 */
static void wait_for_the_timer_handler(void *own_timer)
{
	uint64_t deadline = now_ns() + trigger_test_patience_ns();
	bool was_enabled = local_irq_save();

	local_irq_enable();
	trigger_reset(&handler_trigger);
	if (own_timer)
		timer_oneshot(MILLISECOND);	/* taken inside the wait: the reset disabled interrupts */
	__atomic_store_n(&timer_kick.about_to_wait, true, __ATOMIC_RELEASE);
	if (!own_timer)
		trigger_test_late_waiter();
	while (!__atomic_load_n(&timer_kick.condition, __ATOMIC_ACQUIRE) &&
	       trigger_wait_timeout(&handler_trigger, deadline))
		;
	trigger_finish(&handler_trigger);
	local_irq_restore(was_enabled);
	trigger_last_sequence(cpu_id(), &timer_kick.record);
}

/*
 * Two waiters: this CPU, whose own timer interrupt kicks (the interrupt ends
 * its halt too: only the record tells the kick's return from the
 * interrupt's), and another CPU kicked from this CPU's timer interrupt
 * (nothing but the kick's wake-up can end its wait).
 */
static void kick_from_an_interrupt_handler_wakes_the_wait(const void *param)
{
	int other = cpu_test_other_cpu();
	bool was_enabled, paused;

	if ((int)cpu_id() == watchdog_cpu())
		test_skip("the runner's CPU keeps the watchdog's tick");
	paused = trigger_test_quiet_cpu(other);
	was_enabled = local_irq_save();
	timer_set_tick_hook(kick_from_timer_interrupt);
	WITH_PARAM_BACKEND(backend, param) {
		uint64_t generation = handler_trigger.generation;

		timer_kick = (typeof(timer_kick)){ .kicker = cpu_id() };
		trigger_test_break_kicks(true);
		wait_for_the_timer_handler((void *)1);
		trigger_test_break_kicks(false);
		EXPECT_TRUE(timer_kick.condition);
		EXPECT_TRUE(ended_by_the_kick("its own timer interrupt", &timer_kick.record,
					      kicked_since(&handler_trigger, generation)));
		if (other < 0)
			continue;
		generation = handler_trigger.generation;
		timer_kick = (typeof(timer_kick)){ .kicker = cpu_id() };
		trigger_test_break_kicks(true);
		ASSERT_TRUE(smp_run_on_async((unsigned int)other, wait_for_the_timer_handler, NULL));
		trigger_test_let_it_wait(&handler_trigger, (unsigned int)other,
					 &timer_kick.about_to_wait);
		local_irq_enable();
		timer_oneshot(MILLISECOND);
		EXPECT_TRUE(smp_wait_for((unsigned int)other, 2 * trigger_test_patience_ns()));
		local_irq_disable();
		trigger_test_break_kicks(false);
		EXPECT_TRUE(ended_by_the_kick("another CPU's timer interrupt", &timer_kick.record,
					      kicked_since(&handler_trigger, generation)));
	}
	timer_set_tick_hook(NULL);
	trigger_test_unquiet_cpu(paused);
	local_irq_restore(was_enabled);
}

/*
 * The kick from an NMI handler on another CPU (the helper sends itself the
 * NMI once this CPU waits): its wake IPI or NMI leaves from NMI context.
 * This CPU waits unbounded, interrupts on and off; a wake-up the helper
 * finds lost after a second it frees with real kicks, and counts.
 */
static struct {
	unsigned int waiter;
	volatile bool armed, condition, about_to_wait, done;
	bool lost;
} nmi_kick;

static bool kick_from_nmi(struct interrupt_frame *frame)
{
	if (!__atomic_exchange_n(&nmi_kick.armed, false, __ATOMIC_ACQ_REL))
		return false;
	__atomic_store_n(&nmi_kick.condition, true, __ATOMIC_RELAXED);
	trigger_kick(&handler_trigger);
	return true;
}

static void kick_from_an_nmi_here(void *unused)
{
	trigger_test_let_it_wait(&handler_trigger, nmi_kick.waiter, &nmi_kick.about_to_wait);
	__atomic_store_n(&nmi_kick.armed, true, __ATOMIC_RELEASE);
	lapic_send_ipi(cpus[cpu_id()].apic_id, APIC_DELIVERY_NMI);
	nmi_kick.lost = trigger_test_rescue_if_lost(&handler_trigger, &nmi_kick.done);
}

static void kick_from_an_nmi_handler_wakes_the_wait(const void *param)
{
	unsigned int kicker = trigger_test_helper_cpu();

	ASSERT_TRUE(nmi_register(kick_from_nmi));
	WITH_PARAM_BACKEND(backend, param) {
		for (int interrupts_on = 0; interrupts_on < 2; interrupts_on++) {
			bool was_enabled = local_irq_save();
			struct trigger_sequence_record record;
			uint64_t generation = handler_trigger.generation;

			nmi_kick = (typeof(nmi_kick)){ .waiter = cpu_id() };
			trigger_test_break_kicks(true);
			ASSERT_TRUE(smp_run_on_async(kicker, kick_from_an_nmi_here, NULL));
			if (interrupts_on)
				local_irq_enable();
			trigger_reset(&handler_trigger);
			__atomic_store_n(&nmi_kick.about_to_wait, true, __ATOMIC_RELEASE);
			trigger_test_late_waiter();
			while (!__atomic_load_n(&nmi_kick.condition, __ATOMIC_ACQUIRE))
				trigger_wait(&handler_trigger);
			trigger_finish(&handler_trigger);
			local_irq_restore(was_enabled);
			trigger_last_sequence(cpu_id(), &record);
			__atomic_store_n(&nmi_kick.done, true, __ATOMIC_RELEASE);
			EXPECT_TRUE(smp_wait_for(kicker, 2 * trigger_test_patience_ns()));
			trigger_test_break_kicks(false);
			if (nmi_kick.lost)
				test_diag("%s, interrupts %s: the NMI handler's kick was lost",
					  trigger_backend_name(backend), interrupts_on ? "on" : "off");
			EXPECT_FALSE(nmi_kick.lost);
			EXPECT_TRUE(ended_by_the_kick(interrupts_on ? "interrupts on" : "interrupts off",
						      &record, kicked_since(&handler_trigger, generation)));
		}
	}
	nmi_unregister(kick_from_nmi);
}

/* --- Several waiters, message passing ------------------------------------------------ */

/*
 * Every other CPU waits on one trigger (the watchdog's with its tick
 * paused, so that nothing but the kick can end a halt); one kick must end
 * every wait, each by the kick.  A waiter not done a second later has lost
 * its wake-up (the runner then frees it with real kicks).  test_break=kick
 * must make this fail.
 */
static DEFINE_TRIGGER(shared_trigger);
static volatile unsigned long shared_flag;

static struct {
	volatile bool about_to_wait, done;
	struct trigger_sequence_record record;
} shared_waiters[MAX_CPUS];

static void wait_for_shared_flag(void *expected)
{
	unsigned long target = (unsigned long)expected;
	unsigned int me = cpu_id();

	trigger_reset(&shared_trigger);
	__atomic_store_n(&shared_waiters[me].about_to_wait, true, __ATOMIC_RELEASE);
	trigger_test_late_waiter();
	while (__atomic_load_n(&shared_flag, __ATOMIC_ACQUIRE) != target)
		trigger_wait(&shared_trigger);
	trigger_finish(&shared_trigger);
	trigger_last_sequence(me, &shared_waiters[me].record);
	__atomic_store_n(&shared_waiters[me].done, true, __ATOMIC_RELEASE);
}

static void one_kick_wakes_every_waiter(const void *param)
{
	bool paused;

	if (cpus_online() < 2)
		test_skip("one CPU: no other waiter");
	paused = trigger_test_quiet_cpu(watchdog_cpu());
	WITH_PARAM_BACKEND(backend, param) {
		unsigned long target = shared_flag + 1;
		unsigned int waiters = 0, by_kick = 0, lost = 0;
		uint64_t generation = shared_trigger.generation;
		bool kick_came;

		for (unsigned int i = 0; i < cpus_present(); i++)
			shared_waiters[i] = (typeof(shared_waiters[i])){ 0 };
		for (unsigned int i = 0; i < cpus_present(); i++) {
			if (i != cpu_id() && cpu_is_online(i))
				ASSERT_TRUE(smp_run_on_async(i, wait_for_shared_flag, (void *)target));
		}
		for (unsigned int i = 0; i < cpus_present(); i++) {
			if (i != cpu_id() && cpu_is_online(i))
				trigger_test_let_it_wait(&shared_trigger, i,
							 &shared_waiters[i].about_to_wait);
		}
		trigger_test_break_kicks(true);
		__atomic_store_n(&shared_flag, target, __ATOMIC_RELEASE);
		trigger_kick(&shared_trigger);	/* exactly one kick */
		kick_came = kicked_since(&shared_trigger, generation);
		for (unsigned int i = 0; i < cpus_present(); i++) {
			if (i == cpu_id() || !cpu_is_online(i))
				continue;
			waiters++;
			lost += trigger_test_rescue_if_lost(&shared_trigger, &shared_waiters[i].done);
			EXPECT_TRUE(smp_wait_for(i, trigger_test_patience_ns()));
			by_kick += ended_by_the_kick("a waiter", &shared_waiters[i].record, kick_came);
		}
		trigger_test_break_kicks(false);
		test_diag("%s: %u waiters, %u ended by the one kick, %u wake-ups lost",
			  trigger_backend_name(backend), waiters, by_kick, lost);
		EXPECT_EQ(lost, 0u);
		EXPECT_EQ(by_kick, waiters);
	}
	trigger_test_unquiet_cpu(paused);
}

/*
 * The kick's generation is the message: the sender writes the payload
 * with plain stores right before trigger_kick(), nothing else in between,
 * and the receiver, once the generation has moved, reads it with plain
 * loads.  So the only ordering between the payload and the generation is
 * the kick's own (its write barrier), and between the generation and the
 * payload loads the wait's (its read barrier: the receiver's look at the
 * generation is relaxed).  The receiver is a CPU without the watchdog's
 * tick; a round whose kick is lost is counted after a second.
 * test_break=kick_fence makes the generation update a plain store: on x86
 * this still passes, as it must - stores are not reordered with older
 * stores (SDM vol 3, 9.2.2), QEMU TCG keeps that order for an x86 guest on
 * an x86 host, and the kick is a call the compiler cannot move stores
 * across - so only on a weaker ordering could it fail (the model covers the
 * fence's other half, the store-load order of publish and re-check).
 */
#define MESSAGE_ROUNDS 300

struct message {
	trigger_t trigger;
	unsigned long payload[4];	/* plain stores and loads only */
	volatile unsigned long ready;	/* the receiver's round: reset and looking */
	volatile bool done;		/* the receiver is through its rounds */
	unsigned long errors, lost;
};

static struct message message;

static void receive_messages(void *unused)
{
	for (unsigned long round = 1; round <= MESSAGE_ROUNDS; round++) {
		uint64_t seen;

		trigger_reset(&message.trigger);
		seen = __atomic_load_n(&message.trigger.generation, __ATOMIC_RELAXED);
		__atomic_store_n(&message.ready, round, __ATOMIC_RELEASE);
		while (__atomic_load_n(&message.trigger.generation, __ATOMIC_RELAXED) == seen)
			trigger_wait(&message.trigger);
		trigger_finish(&message.trigger);
		for (int i = 0; i < 4; i++) {
			if (message.payload[i] != round * 4 + (unsigned long)i)
				message.errors++;
		}
	}
	__atomic_store_n(&message.done, true, __ATOMIC_RELEASE);
}

static void data_written_before_a_kick_is_seen_after_the_wait(const void *param)
{
	int receiver = cpu_test_other_cpu();
	bool paused;

	if (receiver < 0)
		test_skip("one CPU: nobody to send to");
	paused = trigger_test_quiet_cpu(receiver);
	WITH_PARAM_BACKEND(backend, param) {
		trigger_init(&message.trigger);
		message.ready = 0;
		message.done = false;
		message.errors = 0;
		message.lost = 0;
		trigger_test_break_kicks(true);
		ASSERT_TRUE(smp_run_on_async((unsigned int)receiver, receive_messages, NULL));
		for (unsigned long round = 1; round <= MESSAGE_ROUNDS; round++) {
			uint64_t start = now_ns();

			/* The receiver has read the last round and looks for this one. */
			while (__atomic_load_n(&message.ready, __ATOMIC_ACQUIRE) != round &&
			       now_ns() - start < trigger_test_lost_after_ns())
				cpu_relax();
			if (message.ready != round) {
				/* The last round's kick was lost: real kicks until it reads it. */
				message.lost++;
				trigger_test_set_kick_break(TRIGGER_BREAK_NONE);
				while (__atomic_load_n(&message.ready, __ATOMIC_ACQUIRE) != round &&
				       now_ns() - start < trigger_test_lost_after_ns() +
							  trigger_test_patience_ns()) {
					trigger_kick(&message.trigger);
					udelay(1000);
				}
			}
			for (int i = 0; i < 4; i++)
				message.payload[i] = round * 4 + (unsigned long)i;
			trigger_kick(&message.trigger);
		}
		message.lost += trigger_test_rescue_if_lost(&message.trigger, &message.done);
		EXPECT_TRUE(smp_wait_for((unsigned int)receiver, trigger_test_patience_ns()));
		trigger_test_break_kicks(false);
		test_diag("%s: %u rounds, %lu with a stale payload, %lu kicks lost%s",
			  trigger_backend_name(backend), MESSAGE_ROUNDS, message.errors, message.lost,
			  test_break_given(TEST_BREAK_KICK_FENCE) ?
			  " (test_break=kick_fence: the generation a plain store)" : "");
		EXPECT_EQ(message.errors, 0ul);
		EXPECT_EQ(message.lost, 0ul);
	}
	trigger_test_unquiet_cpu(paused);
}

/* --- Misuse ------------------------------------------------------------------------- */

static unsigned int misuse_reports;
static char last_misuse[160];

static void catch_misuse(const char *report)
{
	misuse_reports++;
	for (size_t i = 0; i < sizeof(last_misuse) - 1 && report[i]; i++)
		last_misuse[i] = report[i], last_misuse[i + 1] = '\0';
}

static void misuse_is_reported(void)
{
	static DEFINE_TRIGGER(misused);

	trigger_set_misuse_hook(catch_misuse);
	misuse_reports = 0;
	trigger_wait(&misused);
	EXPECT_EQ(misuse_reports, 1u);
	test_diag("%s", last_misuse);
	trigger_finish(&misused);
	EXPECT_EQ(misuse_reports, 2u);
	trigger_reset(&misused);
	trigger_reset(&misused);
	EXPECT_EQ(misuse_reports, 3u);
	test_diag("%s", last_misuse);
	trigger_finish(&misused);
	EXPECT_EQ(misuse_reports, 3u);
	trigger_set_misuse_hook(NULL);
}

static void backend_stays_bound_for_the_whole_sequence(void)
{
	struct trigger_counters spin_before, spin_after;

	ASSERT_TRUE(trigger_backend_set(TRIGGER_BACKEND_SPIN));
	trigger_reset(&local_trigger);
	ASSERT_TRUE(trigger_backend_set(TRIGGER_BACKEND_HLT));	/* switched mid-sequence */
	trigger_counters_read(TRIGGER_BACKEND_SPIN, &spin_before);
	trigger_wait_timeout(&local_trigger, now_ns() + MILLISECOND);
	trigger_counters_read(TRIGGER_BACKEND_SPIN, &spin_after);
	trigger_finish(&local_trigger);
	/* The wait was the spin backend's: the switch applies to the next sequence. */
	EXPECT_EQ(spin_after.waits, spin_before.waits + 1);
	EXPECT_EQ(trigger_backend_current(), TRIGGER_BACKEND_HLT);
}

static const struct test_case trigger_cases[] = {
	TEST_CASE_PARAM(kick_before_wait_returns_at_once, trigger_test_backend_params),
	TEST_CASE_PARAM(a_kick_counts_once_per_waiter, trigger_test_backend_params),
	TEST_CASE_PARAM(interrupt_state_follows_the_seed, trigger_test_backend_params),
	TEST_CASE_PARAM(timer_interrupt_taken_during_a_wait_with_interrupts_on, trigger_test_backend_params),
	TEST_CASE_PARAM(no_interrupt_during_a_wait_with_interrupts_off, trigger_test_backend_params),
	TEST_CASE_PARAM(kick_from_an_interrupt_handler_wakes_the_wait, trigger_test_backend_params),
	TEST_CASE_PARAM(kick_from_an_nmi_handler_wakes_the_wait, trigger_test_backend_params),
	TEST_CASE_PARAM(one_kick_wakes_every_waiter, trigger_test_backend_params),
	TEST_CASE_PARAM(data_written_before_a_kick_is_seen_after_the_wait, trigger_test_backend_params),
	TEST_CASE(misuse_is_reported),
	TEST_CASE(backend_stays_bound_for_the_whole_sequence),
};
TEST_SUITE(trigger, trigger_cases, NULL, restore_backend);

/* --- Selection ---------------------------------------------------------------------- */

static void auto_choice_follows_cpuid_and_the_measurement(void)
{
	const char *reason;
	bool mwait = (cpuid(1).ecx & (1u << 3)) != 0;
	bool virtualized = hypervisor_info()->cpuid_hypervisor_bit;

	EXPECT_EQ(trigger_choose_auto(true, true, false, true, &reason), TRIGGER_BACKEND_MWAIT);
	EXPECT_EQ(trigger_choose_auto(true, false, false, true, &reason), TRIGGER_BACKEND_ADAPTIVE);
	EXPECT_EQ(trigger_choose_auto(false, false, false, true, &reason), TRIGGER_BACKEND_ADAPTIVE);
	EXPECT_EQ(trigger_choose_auto(true, true, true, true, &reason), TRIGGER_BACKEND_ADAPTIVE);
	EXPECT_EQ(trigger_choose_auto(true, true, false, false, &reason), TRIGGER_BACKEND_ADAPTIVE);
	if (trigger_options.backend == TRIGGER_BACKEND_AUTO) {
		enum trigger_backend_id expected = trigger_choose_auto(
			mwait, trigger_mwait_sleeps(), virtualized,
			trigger_backend_memory_refusal(TRIGGER_BACKEND_MWAIT) == NULL, &reason);

		EXPECT_EQ(trigger_backend_boot_choice(), expected);
	}
	test_diag("boot choice %s; MONITOR/MWAIT %s, MWAIT %s, %s",
		  trigger_backend_name(trigger_backend_boot_choice()), mwait ? "offered" : "absent",
		  trigger_mwait_sleeps() ? "sleeps" : "does not sleep",
		  virtualized ? "virtualized" : "bare metal");
	/* Under TCG with more than one vCPU MWAIT returns at once (docs/emulators.md). */
	if (hypervisor_info()->tcg && cpus_online() > 1 && mwait)
		EXPECT_FALSE(trigger_mwait_sleeps());
}

static void backends_the_cpu_lacks_are_refused_naming_the_bit(void)
{
	static const struct {
		enum trigger_backend_id backend;
		uint32_t leaf, subleaf;
		char reg;	/* 'c': ECX */
		unsigned int bit;
		const char *cpuid_text;
	} gated[] = {
		{ TRIGGER_BACKEND_MWAIT, 1, 0, 'c', 3, "CPUID.01H:ECX[3]" },
		{ TRIGGER_BACKEND_MWAITX, 0x80000001, 0, 'c', 29, "CPUID.80000001H:ECX[29]" },
		{ TRIGGER_BACKEND_UMWAIT, 7, 0, 'c', 5, "CPUID.(EAX=07H,ECX=0):ECX[5]" },
	};

	for (size_t i = 0; i < sizeof(gated) / sizeof(gated[0]); i++) {
		bool offered = (cpuid_count(gated[i].leaf, gated[i].subleaf).ecx >> gated[i].bit) & 1;
		const char *missing = trigger_backend_unavailable(gated[i].backend);
		const char *refused = trigger_backend_memory_refusal(gated[i].backend);

		if (gated[i].leaf >= 0x80000000 && cpuid(0x80000000).eax < gated[i].leaf)
			offered = false;
		if (gated[i].leaf < 0x80000000 && cpuid(0).eax < gated[i].leaf)
			offered = false;
		EXPECT_EQ(missing == NULL, offered && !refused);
		if (missing && refused && missing == refused) {
			EXPECT_FALSE(trigger_backend_set(gated[i].backend));
			test_diag("%s refused: %s", trigger_backend_name(gated[i].backend), missing);
		} else if (missing) {
			EXPECT_FALSE(trigger_backend_set(gated[i].backend));
			EXPECT_EQ(strncmp(missing, gated[i].cpuid_text, strlen(gated[i].cpuid_text)), 0);
			test_diag("%s refused: %s (not exercised here)",
				  trigger_backend_name(gated[i].backend), missing);
		}
	}
	EXPECT_TRUE(trigger_backend_set(trigger_backend_boot_choice()));
}

static void names_round_trip(void)
{
	for (int i = 0; i < TRIGGER_BACKEND_COUNT; i++) {
		const char *name = trigger_backend_name(i);

		EXPECT_EQ(trigger_backend_from_name(name, strlen(name)), i);
	}
	EXPECT_EQ(trigger_backend_from_name("auto", 4), TRIGGER_BACKEND_AUTO);
	EXPECT_EQ(trigger_backend_from_name("hltx", 4), -1);
	EXPECT_EQ(trigger_backend_from_name("hl", 2), -1);
}

static const struct test_case selection_cases[] = {
	TEST_CASE(auto_choice_follows_cpuid_and_the_measurement),
	TEST_CASE(backends_the_cpu_lacks_are_refused_naming_the_bit),
	TEST_CASE(names_round_trip),
};
TEST_SUITE(trigger_selection, selection_cases, NULL, restore_backend);
