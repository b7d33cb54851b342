// SPDX-License-Identifier: MIT
/*
 * The wake paths of the halting backends where a wake-up could be lost
 * outside the kicker/waiter race that trigger_torture covers: a kick from an
 * NMI handler on the waiting CPU itself, between its re-check and its HLT
 * (trigger_halt.S), and a wake IPI whose send fails.
 */
#include <cpu/cpu.h>
#include <sync/irq.h>
#include <boot/options.h>
#include <smp/smp.h>
#include <harness/test.h>
#include <time/time.h>
#include <sync/trigger.h>
#include <sync/trigger_backend.h>
#include "trigger_test.h"
#include <harness/watchdog.h>
#include <asm/apic.h>
#include <asm/interrupts.h>
#include <asm/trigger_test.h>

static DEFINE_TRIGGER(wake_trigger);

/* --- A kick from an NMI handler on the waiting CPU, inside its halt window ----------- */

/*
 * The kick sends the CPU it runs on nothing (it is running), so only the
 * NMI handler's move past the HLT saves the wake-up.  The waiter (this CPU,
 * never the watchdog's: nothing else interrupts it) says, through a hook
 * just before its window, that it is about to re-check; the window is
 * widened after the re-check so that the helper CPU's NMI lands there,
 * which the trigger core's NMI handler confirms (nmis_after_recheck; an NMI
 * that came before the re-check is seen by it, no test of the window, and
 * the round is tried again).  The NMI itself ends the widened window (the
 * handler moves the waiter past its HLT), so the widening is only a bound
 * for an NMI that never comes: a fixed 50 ms failed every try when the
 * host ran the helper late (test_late_kicker_us=100000: "0 after the
 * re-check", the NMIs landed in the HLT).  The widening is set by the
 * waiter's hook, for its own window alone: the backends' delay also lands
 * before the publish (for the torture), where no NMI ends it and the
 * helper would wait that long for the hook.  A waiter not done a
 * second after its kick has lost it: the helper frees it with kicks from its
 * own CPU, which send a wake IPI or NMI.  test_break=halt_window unmarks the
 * interrupts-on window (the halt as it was before the fix): that half must
 * then lose its wake-ups.
 */
#define SELF_KICK_WINDOW_NS	TRIGGER_TEST_BROKEN_REMOTE_NS	/* the widening: ended by the NMI */
#define SELF_KICK_TRIES		4

static struct {
	unsigned int waiter;
	volatile bool inside;		/* the waiter is about to re-check */
	volatile bool armed;		/* the next NMI on the waiter kicks */
	volatile bool kicked;		/* the condition, set by the NMI handler */
	volatile bool waiter_done;
	bool landed_after_recheck;	/* the NMI hit the window, not the hook */
	bool judged_while_widened;	/* not done in time, but its window still widened */
	bool lost;
	bool never_inside;
} self_kick;

static void note_about_to_recheck(void)
{
	if (cpu_id() != self_kick.waiter)
		return;
	trigger_set_halt_window_delay(SELF_KICK_WINDOW_NS);	/* taken off after the wait */
	__atomic_store_n(&self_kick.inside, true, __ATOMIC_RELEASE);
}

static bool kick_own_trigger_from_nmi(struct interrupt_frame *frame)
{
	if (cpu_id() != self_kick.waiter ||
	    !__atomic_exchange_n(&self_kick.armed, false, __ATOMIC_ACQ_REL))
		return false;
	__atomic_store_n(&self_kick.kicked, true, __ATOMIC_RELAXED);
	trigger_kick(&wake_trigger);
	/*
	 * The widening did its job: the NMI landed.  End it now, so that the
	 * waiter goes on to its HLT at once (or, its window marked, past it):
	 * a waiter not done trigger_test_lost_after_ns() after the kick then slept in
	 * the HLT.  Left to run out, the 2 s widening alone outlasted the 1 s
	 * bound, and the unmarked half was "lost" whatever its HLT did.
	 */
	trigger_set_halt_window_delay(0);
	return true;
}

/* The helper CPU: one NMI into the waiter's window, then watch for a lost wake-up. */
static void send_nmi_into_the_window(void *unused)
{
	struct trigger_halt_window_stats before, after;

	if (!trigger_test_wait_until(&self_kick.inside, trigger_test_patience_ns())) {
		self_kick.never_inside = true;
		__atomic_store_n(&self_kick.kicked, true, __ATOMIC_RELEASE);
		trigger_kick(&wake_trigger);
		return;
	}
	trigger_test_late_kicker();
	trigger_halt_window_stats_read(self_kick.waiter, &before);
	__atomic_store_n(&self_kick.armed, true, __ATOMIC_RELEASE);
	lapic_send_ipi(cpus[self_kick.waiter].apic_id, APIC_DELIVERY_NMI);
	trigger_test_wait_until(&self_kick.kicked, trigger_test_patience_ns());
	trigger_halt_window_stats_read(self_kick.waiter, &after);
	self_kick.landed_after_recheck = after.nmis_after_recheck != before.nmis_after_recheck;
	/*
	 * A waiter not done trigger_test_lost_after_ns() after its kick lost the
	 * wake-up only if it got to its HLT: one still in its widened window
	 * would be "lost" whatever the HLT did (the 2 s widening outlasted the
	 * 1 s bound until the NMI ended it).
	 */
	if (!trigger_test_wait_until(&self_kick.waiter_done, trigger_test_lost_after_ns()))
		self_kick.judged_while_widened = trigger_halt_window_widened();
	self_kick.lost = trigger_test_rescue_if_lost(&wake_trigger, &self_kick.waiter_done);
}

/* One round; false if the NMI missed the window (came before the re-check). */
static bool self_kick_round(unsigned int helper, bool interrupts_on)
{
	bool was_enabled = local_irq_save();

	self_kick = (typeof(self_kick)){ .waiter = cpu_id() };
	ASSERT_TRUE(smp_run_on_async(helper, send_nmi_into_the_window, NULL));
	if (interrupts_on)
		local_irq_enable();
	trigger_reset(&wake_trigger);
	while (!__atomic_load_n(&self_kick.kicked, __ATOMIC_ACQUIRE))
		trigger_wait(&wake_trigger);
	trigger_finish(&wake_trigger);
	trigger_set_halt_window_delay(0);
	local_irq_restore(was_enabled);
	__atomic_store_n(&self_kick.waiter_done, true, __ATOMIC_RELEASE);
	EXPECT_TRUE(smp_wait_for(helper, 3 * trigger_test_patience_ns()));
	EXPECT_FALSE(self_kick.never_inside);
	return self_kick.landed_after_recheck;
}

static void undo_self_kick_setup(void)
{
	nmi_unregister(kick_own_trigger_from_nmi);
	trigger_set_irqs_on_window_unmarked(false);
	trigger_set_halt_window_delay(0);
	trigger_set_before_recheck_hook(NULL);
}

static void kick_from_an_nmi_handler_on_the_waiting_cpu_inside_the_halt_window(void)
{
	static const enum trigger_backend_id halting[] = { TRIGGER_BACKEND_HLT,
							   TRIGGER_BACKEND_ADAPTIVE };
	bool unmarked = test_break_given(TEST_BREAK_HALT_WINDOW);
	unsigned int helper = trigger_test_helper_cpu();

	ASSERT_TRUE(nmi_register(kick_own_trigger_from_nmi));
	trigger_set_before_recheck_hook(note_about_to_recheck);
	trigger_set_irqs_on_window_unmarked(unmarked);
	for (size_t i = 0; i < sizeof(halting) / sizeof(halting[0]); i++) {
		ASSERT_TRUE(trigger_backend_set(halting[i]));
		for (int interrupts_on = 0; interrupts_on < 2; interrupts_on++) {
			unsigned int tries = 0, inside = 0, lost = 0, widened = 0;

			for (; tries < SELF_KICK_TRIES && !inside; tries++) {
				if (self_kick_round(helper, interrupts_on))
					inside++;
				lost += self_kick.lost;
				widened += self_kick.judged_while_widened;
			}
			test_diag("%s, interrupts %s%s: %u NMIs, %u after the re-check and before the "
				  "HLT, %u wake-ups lost", trigger_backend_name(halting[i]),
				  interrupts_on ? "on" : "off", unmarked && interrupts_on ?
				  " (window unmarked: test_break=halt_window)" : "", tries, inside, lost);
			if (widened)
				test_diag("%u judged lost while the window was still widened: the "
					  "widening, not the HLT, kept them", widened);
			EXPECT_EQ(inside, 1u);
			EXPECT_EQ(lost, 0u);
			EXPECT_EQ(widened, 0u);
		}
	}
	undo_self_kick_setup();
}

/* --- A wake IPI that cannot be sent ------------------------------------------------------ */

/*
 * Sent again, and if it fails twice counted and reported, never dropped
 * silently.  The waiter is this CPU (no tick of its own), halting with the
 * hlt backend; the helper kicks it once it has published itself, with one or
 * two failures injected into the wake sends.  After a dropped wake-up the
 * helper frees the waiter with a second kick.
 */
static struct {
	unsigned int waiter, failures;
	volatile bool condition;
	struct trigger_wake_send_stats before, after;
	bool never_published, freed_by_second_kick;
} wake_send;

static void kick_with_failing_sends(void *unused)
{
	uint64_t start = now_ns();

	while (!trigger_test_published(&wake_trigger, wake_send.waiter)) {
		if (now_ns() - start > trigger_test_patience_ns()) {
			wake_send.never_published = true;
			break;
		}
		cpu_relax();
	}
	trigger_wake_send_stats_read(&wake_send.before);
	trigger_test_fail_wake_sends(wake_send.failures);
	__atomic_store_n(&wake_send.condition, true, __ATOMIC_RELAXED);
	trigger_kick(&wake_trigger);
	trigger_test_fail_wake_sends(0);
	trigger_wake_send_stats_read(&wake_send.after);
	if (wake_send.after.dropped != wake_send.before.dropped) {
		udelay(20000);
		wake_send.freed_by_second_kick = true;
		trigger_kick(&wake_trigger);
	}
}

static void a_wake_that_cannot_be_sent_is_retried_then_reported(void)
{
	unsigned int helper = trigger_test_helper_cpu();

	ASSERT_TRUE(trigger_backend_set(TRIGGER_BACKEND_HLT));
	for (unsigned int failures = 1; failures <= 2; failures++) {
		bool was_enabled = local_irq_save();

		wake_send = (typeof(wake_send)){ .waiter = cpu_id(), .failures = failures };
		ASSERT_TRUE(smp_run_on_async(helper, kick_with_failing_sends, NULL));
		local_irq_enable();
		trigger_reset(&wake_trigger);
		while (!__atomic_load_n(&wake_send.condition, __ATOMIC_ACQUIRE))
			trigger_wait(&wake_trigger);
		trigger_finish(&wake_trigger);
		local_irq_restore(was_enabled);
		EXPECT_TRUE(smp_wait_for(helper, 2 * trigger_test_patience_ns()));
		EXPECT_FALSE(wake_send.never_published);
		test_diag("%u failed send%s injected: %lu failed ICR writes, %lu sent on the retry, "
			  "%lu dropped and reported", failures, failures > 1 ? "s" : "",
			  wake_send.after.failed_attempts - wake_send.before.failed_attempts,
			  wake_send.after.retried - wake_send.before.retried,
			  wake_send.after.dropped - wake_send.before.dropped);
		EXPECT_EQ(wake_send.after.failed_attempts - wake_send.before.failed_attempts,
			  (unsigned long)failures);
		EXPECT_EQ(wake_send.after.retried - wake_send.before.retried,
			  failures == 1 ? 1ul : 0ul);
		EXPECT_EQ(wake_send.after.dropped - wake_send.before.dropped,
			  failures == 2 ? 1ul : 0ul);
		if (failures == 2)
			EXPECT_EQ(wake_send.after.last_dropped_cpu, cpu_id());
		EXPECT_EQ(wake_send.freed_by_second_kick, failures == 2);
	}
}

static void wake_paths_exit(void)
{
	undo_self_kick_setup();
	trigger_test_fail_wake_sends(0);
	trigger_test_set_kick_break(TRIGGER_BREAK_NONE);
	trigger_test_restore_boot_backend();
}

static const struct test_case wake_path_cases[] = {
	TEST_CASE(kick_from_an_nmi_handler_on_the_waiting_cpu_inside_the_halt_window),
	TEST_CASE(a_wake_that_cannot_be_sent_is_retried_then_reported),
};
TEST_SUITE(trigger_wake_paths, wake_path_cases, NULL, wake_paths_exit);
