// SPDX-License-Identifier: MIT
/*
 * The seed's trigger rules, one test each, for every backend this CPU
 * offers (each test switches backends at run time and puts the boot choice
 * back).  Where a backend cannot show a rule directly it is checked in the
 * backend's counters instead:
 *  - mwait under QEMU TCG with more than one vCPU returns at once, so it
 *    behaves like spin (docs/emulators.md), and a store never wakes it;
 *  - mwaitx and umwait cannot run under TCG at all: only their selection
 *    is tested (trigger_selection suite).
 * Stickiness is always visible as a "sticky" return in the counters.
 */
#include <hypervisor.h>
#include <irq.h>
#include <options.h>
#include <smp.h>
#include <test.h>
#include <time.h>
#include <timer.h>
#include <trigger.h>
#include <trigger_backend.h>
#include "trigger_test.h"
#include <watchdog.h>
#include <lib/string.h>
#include <asm/apic.h>
#include <asm/interrupts.h>

#define REMOTE_TIMEOUT_NS	(2ull * 1000 * 1000 * 1000)
#define MILLISECOND		1000000ull

static void restore_backend(void)
{
	trigger_test_restore_boot_backend();
	trigger_set_misuse_hook(NULL);
	trigger_set_broken_hlt(false);
	trigger_set_halt_window_delay(0);
	timer_set_tick_hook(NULL);
}

/* The backends this CPU can run, in order; returns the count. */
static unsigned int available_backends(enum trigger_backend_id *list)
{
	unsigned int count = 0;

	for (int i = 0; i < TRIGGER_BACKEND_COUNT; i++) {
		if (!trigger_backend_unavailable(i))
			list[count++] = i;
	}
	return count;
}

#define FOR_EACH_BACKEND(backend)                                                        \
	for (enum trigger_backend_id backend_list_[TRIGGER_BACKEND_COUNT],              \
	     *backend_end_ = backend_list_ + available_backends(backend_list_),          \
	     *backend_at_ = backend_list_, backend;                                      \
	     backend_at_ < backend_end_ && ((backend = *backend_at_), trigger_backend_set(backend)); \
	     backend_at_++)

/* A CPU other than this one that may wait (no periodic watchdog tick), or -1. */
static int other_cpu(bool must_be_tickless)
{
	for (unsigned int i = 0; i < cpus_present(); i++) {
		if (i == cpu_id() || !cpu_is_online(i))
			continue;
		if (must_be_tickless && (int)i == watchdog_cpu())
			continue;
		return (int)i;
	}
	return -1;
}

/* --- Sticky, implicit reset ------------------------------------------------------ */

static DEFINE_TRIGGER(local_trigger);

static void kick_before_wait_returns_at_once(void)
{
	FOR_EACH_BACKEND(backend) {
		struct trigger_counters before, after;
		uint64_t start;

		trigger_counters_read(backend, &before);
		trigger_reset(&local_trigger);
		trigger_kick(&local_trigger);
		start = now_ns();
		trigger_wait(&local_trigger);
		trigger_finish(&local_trigger);
		trigger_counters_read(backend, &after);
		EXPECT_EQ(after.returns[TRIGGER_WAKE_STICKY], before.returns[TRIGGER_WAKE_STICKY] + 1);
		EXPECT_LT(now_ns() - start, 100 * MILLISECOND);
	}
}

static void a_kick_counts_once_per_waiter(void)
{
	FOR_EACH_BACKEND(backend) {
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

static void interrupt_state_follows_the_seed(void)
{
	bool was_enabled = local_irq_save();

	FOR_EACH_BACKEND(backend) {
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

static void timer_interrupt_taken_during_a_wait_with_interrupts_on(void)
{
	bool was_enabled = local_irq_save();

	if ((int)cpu_id() == watchdog_cpu())
		test_skip("the runner's CPU keeps the watchdog's tick");
	FOR_EACH_BACKEND(backend) {
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

static void no_interrupt_during_a_wait_with_interrupts_off(void)
{
	bool was_enabled = local_irq_save();

	if ((int)cpu_id() == watchdog_cpu())
		test_skip("the runner's CPU keeps the watchdog's tick");
	FOR_EACH_BACKEND(backend) {
		unsigned long ticks = this_cpu()->timer_ticks;
		uint64_t deadline = now_ns() + 5 * MILLISECOND, start;

		local_irq_disable();
		timer_oneshot(MILLISECOND);
		trigger_reset(&local_trigger);
		while (trigger_wait_timeout(&local_trigger, deadline))
			;
		trigger_finish(&local_trigger);
		EXPECT_EQ(this_cpu()->timer_ticks, ticks);	/* it stayed pending */
		local_irq_enable();
		start = now_ns();
		while (this_cpu()->timer_ticks == ticks && now_ns() - start < 100 * MILLISECOND)
			cpu_relax();
		EXPECT_NE(this_cpu()->timer_ticks, ticks);	/* taken once enabled */
		local_irq_disable();
	}
	local_irq_restore(was_enabled);
}

/* --- Kicks from an interrupt handler and from an NMI handler ------------------------ */

static DEFINE_TRIGGER(handler_trigger);
static volatile bool handler_kicked;

static void kick_from_timer_interrupt(void)
{
	handler_kicked = true;
	trigger_kick(&handler_trigger);
}

static void kick_from_an_interrupt_handler_wakes_the_wait(void)
{
	bool was_enabled = local_irq_save();

	if ((int)cpu_id() == watchdog_cpu())
		test_skip("the runner's CPU keeps the watchdog's tick");
	FOR_EACH_BACKEND(backend) {
		uint64_t deadline = now_ns() + REMOTE_TIMEOUT_NS;

		handler_kicked = false;
		timer_set_tick_hook(kick_from_timer_interrupt);
		local_irq_enable();
		trigger_reset(&handler_trigger);
		timer_oneshot(MILLISECOND);
		while (!handler_kicked && now_ns() < deadline)
			trigger_wait(&handler_trigger);
		trigger_finish(&handler_trigger);
		timer_set_tick_hook(NULL);
		EXPECT_TRUE(handler_kicked);
	}
	local_irq_restore(was_enabled);
}

static volatile bool nmi_kick_armed;
static volatile unsigned int nmi_kicks;

static bool kick_from_nmi(struct interrupt_frame *frame)
{
	if (!__atomic_exchange_n(&nmi_kick_armed, false, __ATOMIC_ACQ_REL))
		return false;
	__atomic_fetch_add(&nmi_kicks, 1, __ATOMIC_RELEASE);
	trigger_kick(&handler_trigger);
	return true;
}

static void kick_from_an_nmi_handler_wakes_the_wait(void)
{
	int kicker = other_cpu(false);

	if (kicker < 0)
		test_skip("one CPU: no other CPU to take the NMI");
	ASSERT_TRUE(nmi_register(kick_from_nmi));
	FOR_EACH_BACKEND(backend) {
		for (int interrupts_on = 0; interrupts_on < 2; interrupts_on++) {
			bool was_enabled = local_irq_save();
			unsigned int before = nmi_kicks;
			uint64_t deadline = now_ns() + REMOTE_TIMEOUT_NS;

			if (interrupts_on)
				local_irq_enable();
			trigger_reset(&handler_trigger);
			__atomic_store_n(&nmi_kick_armed, true, __ATOMIC_RELEASE);
			/* The other CPU's NMI handler kicks, sending its IPI from NMI context. */
			lapic_send_ipi(cpus[kicker].apic_id, APIC_DELIVERY_NMI);
			while (__atomic_load_n(&nmi_kicks, __ATOMIC_ACQUIRE) == before &&
			       now_ns() < deadline)
				trigger_wait(&handler_trigger);
			trigger_finish(&handler_trigger);
			local_irq_restore(was_enabled);
			EXPECT_NE(nmi_kicks, before);
		}
	}
	nmi_unregister(kick_from_nmi);
}

/* --- Several waiters, message passing ------------------------------------------------ */

static DEFINE_TRIGGER(shared_trigger);
static volatile unsigned long shared_flag;
static volatile unsigned int waiters_done;

static void wait_for_shared_flag(void *expected)
{
	unsigned long target = (unsigned long)expected;

	trigger_reset(&shared_trigger);
	while (__atomic_load_n(&shared_flag, __ATOMIC_ACQUIRE) != target)
		trigger_wait(&shared_trigger);
	trigger_finish(&shared_trigger);
	__atomic_fetch_add(&waiters_done, 1, __ATOMIC_RELEASE);
}

static void one_kick_wakes_every_waiter(void)
{
	if (cpus_online() < 2)
		test_skip("one CPU: no other waiter");
	FOR_EACH_BACKEND(backend) {
		unsigned long target = shared_flag + 1;
		unsigned int started = 0;

		waiters_done = 0;
		for (unsigned int i = 1; i < cpus_present(); i++) {
			if (cpu_is_online(i) && smp_run_on_async(i, wait_for_shared_flag, (void *)target))
				started++;
		}
		udelay(2000);	/* let them reach their waits */
		__atomic_store_n(&shared_flag, target, __ATOMIC_RELEASE);
		trigger_kick(&shared_trigger);	/* exactly one kick */
		for (unsigned int i = 1; i < cpus_present(); i++) {
			if (cpu_is_online(i))
				EXPECT_TRUE(smp_wait_for(i, REMOTE_TIMEOUT_NS));
		}
		EXPECT_EQ(waiters_done, started);
	}
}

struct message {
	trigger_t trigger;
	volatile unsigned long sequence;
	volatile unsigned long payload[4];
	volatile unsigned long errors;
	unsigned long rounds;
};

static struct message message;

static void receive_messages(void *unused)
{
	for (unsigned long round = 1; round <= message.rounds; round++) {
		trigger_reset(&message.trigger);
		while (__atomic_load_n(&message.sequence, __ATOMIC_RELAXED) < round)
			trigger_wait(&message.trigger);
		trigger_finish(&message.trigger);
		/* trigger_wait() is the read barrier: the payload is the round's. */
		for (int i = 0; i < 4; i++) {
			if (message.payload[i] != round * 4 + (unsigned long)i)
				message.errors++;
		}
		__atomic_store_n(&message.payload[0], 0, __ATOMIC_RELAXED);
	}
}

static void data_written_before_a_kick_is_seen_after_the_wait(void)
{
	if (cpus_online() < 2)
		test_skip("one CPU: nobody to send to");
	FOR_EACH_BACKEND(backend) {
		for (unsigned int receiver = 1; receiver < cpus_present(); receiver++) {
			if (!cpu_is_online(receiver))
				continue;
			trigger_init(&message.trigger);
			message.sequence = 0;
			message.errors = 0;
			message.rounds = 30;
			ASSERT_TRUE(smp_run_on_async(receiver, receive_messages, NULL));
			for (unsigned long round = 1; round <= message.rounds; round++) {
				uint64_t start = now_ns();

				/* Wait until the receiver consumed the last round. */
				while (round > 1 && message.payload[0] != 0 &&
				       now_ns() - start < REMOTE_TIMEOUT_NS)
					cpu_relax();
				for (int i = 0; i < 4; i++)
					message.payload[i] = round * 4 + (unsigned long)i;
				/* No barrier here on purpose: trigger_kick() is the write barrier. */
				message.sequence = round;
				trigger_kick(&message.trigger);
			}
			EXPECT_TRUE(smp_wait_for(receiver, REMOTE_TIMEOUT_NS));
			EXPECT_EQ(message.errors, 0u);
		}
	}
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
	TEST_CASE(kick_before_wait_returns_at_once),
	TEST_CASE(a_kick_counts_once_per_waiter),
	TEST_CASE(interrupt_state_follows_the_seed),
	TEST_CASE(timer_interrupt_taken_during_a_wait_with_interrupts_on),
	TEST_CASE(no_interrupt_during_a_wait_with_interrupts_off),
	TEST_CASE(kick_from_an_interrupt_handler_wakes_the_wait),
	TEST_CASE(kick_from_an_nmi_handler_wakes_the_wait),
	TEST_CASE(one_kick_wakes_every_waiter),
	TEST_CASE(data_written_before_a_kick_is_seen_after_the_wait),
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
	if (kernel_options.trigger_backend == TRIGGER_BACKEND_AUTO) {
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
