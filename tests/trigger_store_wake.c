// SPDX-License-Identifier: MIT
/*
 * A store-woken wait, proven: the seed's trigger is MONITOR/MWAIT, a wait
 * that sleeps until the kick's store.  Here a waiter resets with interrupts
 * off and waits once on the mwait (or mwaitx) backend with ECX=0: no
 * interrupt break, no MWAITX timer, no wake IPI (trigger_set_monitor_store_
 * only()), so only a store to the line, an NMI, SMI or INIT can end the
 * sleep.  The kicker, on another CPU, spins until the waiter is about to
 * wait, spins a little longer so that it is asleep, and kicks: a locked add
 * on the generation, nothing else (it never executes MONITOR, which under
 * Bochs 2.7 would disarm the waiter's monitor, docs/emulators.md).  The
 * case then asserts what the counters of that one sequence say: one wait,
 * one sleep (an MWAIT, not a spin), returned for the kick with no NMI.
 *
 * Should the store not end the sleep, the kicker rescues the waiter with an
 * NMI after RESCUE_NS, and the case fails saying so.  break=store_kick_
 * elsewhere makes the kicker store to another line instead, and break=
 * store_kicker_monitors makes it execute MONITOR before its kick: both are
 * seen failing in the matrix (trigger-store-wake-broken-*).
 *
 * Where MWAIT does not sleep (QEMU TCG with more than one vCPU, the boot
 * probe says so) there is nothing to prove: the cases skip; never under
 * Bochs, whose MWAIT sleeps.
 */
#include <cpu.h>
#include <irq.h>
#include <machine.h>
#include <options.h>
#include <smp.h>
#include <test.h>
#include <time.h>
#include <trigger.h>
#include <trigger_backend.h>
#include <watchdog.h>
#include <asm/apic.h>
#include <asm/instructions.h>
#include <asm/interrupts.h>

#include "cpu_test.h"
#include "trigger_test.h"

#define ASLEEP_DELAY_NS		200000ull	/* from "about to wait" to the kick */
#define RESCUE_NS		50000000ull	/* no return by then: the store did not wake it */

static struct {
	trigger_t trigger;
	uint64_t elsewhere[8] __attribute__((aligned(64)));	/* another line */
	unsigned long about_to_wait;
	unsigned long returned;
	unsigned long rescue_sent;
	unsigned int waiter_cpu;
	uint64_t kicked_at, returned_at;
} store;

static bool claim_rescue_nmi(struct interrupt_frame *frame)
{
	return cpu_id() == store.waiter_cpu && __atomic_load_n(&store.rescue_sent, __ATOMIC_ACQUIRE);
}

static void kicker(void *unused)
{
	uint64_t start;

	while (!__atomic_load_n(&store.about_to_wait, __ATOMIC_ACQUIRE))
		cpu_relax();
	cpu_test_spin_ns(ASLEEP_DELAY_NS);
	if (option_break(BREAK_STORE_KICKER_MONITORS)) {
		invlpg(store.elsewhere);	/* arm on its own line (Bochs bug 1) */
		monitor(store.elsewhere, 0, 0);
	}
	store.kicked_at = rdtsc();
	if (option_break(BREAK_STORE_KICK_ELSEWHERE))
		__atomic_fetch_add(&store.elsewhere[0], 1, __ATOMIC_SEQ_CST);
	else
		trigger_kick(&store.trigger);
	start = cycles();
	while (!__atomic_load_n(&store.returned, __ATOMIC_ACQUIRE)) {
		if (cycles() - start > ns_to_cycles(RESCUE_NS)) {
			__atomic_store_n(&store.rescue_sent, 1, __ATOMIC_RELEASE);
			lapic_send_ipi(cpus[store.waiter_cpu].apic_id, APIC_DELIVERY_NMI);
			return;
		}
		cpu_relax();
	}
}

/* Another online CPU to kick from: not the watchdog's if there is a choice. */
static int kicker_cpu(void)
{
	int fallback = -1;

	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++) {
		if (cpu == cpu_id() || !cpu_test_online(cpu))
			continue;
		if ((int)cpu != watchdog_cpu())
			return (int)cpu;
		fallback = (int)cpu;
	}
	return fallback;
}

/* One store-woken wait on @backend; false if the kick came before the sleep. */
static bool wait_once(enum trigger_backend_id backend, int kicker_on)
{
	struct trigger_sequence_record record;
	unsigned long nmis_before, nmis_after;
	bool enabled;

	store.about_to_wait = store.returned = store.rescue_sent = 0;
	store.waiter_cpu = cpu_id();
	trigger_init(&store.trigger);
	ASSERT_TRUE(smp_run_on_async((unsigned int)kicker_on, kicker, NULL));

	enabled = local_irq_save();
	nmis_before = this_cpu()->nmis;
	trigger_reset(&store.trigger);
	__atomic_store_n(&store.about_to_wait, 1, __ATOMIC_RELEASE);
	trigger_wait(&store.trigger);
	store.returned_at = rdtsc();
	__atomic_store_n(&store.returned, 1, __ATOMIC_RELEASE);
	trigger_finish(&store.trigger);
	nmis_after = this_cpu()->nmis;
	local_irq_restore(enabled);
	ASSERT_TRUE(smp_wait_for((unsigned int)kicker_on, CPU_TEST_TIMEOUT_NS));

	trigger_last_sequence(cpu_id(), &record);
	if (record.sleeps == 0 && record.last_return == TRIGGER_WAKE_STICKY) {
		test_diag("%s: the kick came before the sleep; again", trigger_backend_name(backend));
		return false;
	}
	test_diag("%s: %u wait, %u sleep, returned for %s%s; woken %llu TSC cycles after the "
		  "kick's store, %llu NMI%s taken", trigger_backend_name(backend), record.waits,
		  record.sleeps, trigger_wake_name(record.last_return),
		  store.rescue_sent ? " after the rescue NMI (the store did not wake it)" : "",
		  (unsigned long long)(store.returned_at - store.kicked_at),
		  (unsigned long long)(nmis_after - nmis_before),
		  nmis_after - nmis_before == 1 ? "" : "s");
	EXPECT_EQ(record.backend, backend);
	EXPECT_EQ(record.waits, 1u);
	EXPECT_EQ(record.sleeps, 1u);
	EXPECT_EQ(record.last_return, TRIGGER_WAKE_KICK);
	EXPECT_EQ(nmis_after - nmis_before, 0u);
	EXPECT_FALSE(store.rescue_sent);
	return true;
}

static void store_ends_the_sleep(enum trigger_backend_id backend)
{
	int kicker_on = kicker_cpu();
	const char *unavailable = trigger_backend_unavailable(backend);
	bool done = false;

	if (kicker_on < 0)
		test_skip("one CPU: no kicker besides the waiter");
	if (unavailable)
		test_skip(unavailable);
	/*
	 * Under Bochs (told so) MWAIT sleeps: a probe that says otherwise is
	 * a regression for this case to show, not a reason to skip it.
	 */
	if (!trigger_mwait_sleeps() && !running_under_bochs())
		test_skip("MWAIT does not sleep here (the boot probe): no sleep for a store to end");
	if ((int)cpu_id() == watchdog_cpu())
		test_skip("the test runs on the watchdog's CPU");
	ASSERT_TRUE(trigger_backend_set(backend));
	ASSERT_TRUE(nmi_register(claim_rescue_nmi));
	trigger_set_monitor_store_only(true);
	for (int attempt = 0; attempt < 3 && !done; attempt++)
		done = wait_once(backend, kicker_on);
	trigger_set_monitor_store_only(false);
	nmi_unregister(claim_rescue_nmi);
	EXPECT_TRUE(done);
}

static void mwait_sleep_is_ended_by_the_store(void)
{
	store_ends_the_sleep(TRIGGER_BACKEND_MWAIT);
}

static void mwaitx_sleep_is_ended_by_the_store(void)
{
	store_ends_the_sleep(TRIGGER_BACKEND_MWAITX);
}

static void restore(void)
{
	trigger_set_monitor_store_only(false);
	nmi_unregister(claim_rescue_nmi);
	trigger_test_restore_boot_backend();
}

static const struct test_case store_wake_cases[] = {
	TEST_CASE(mwait_sleep_is_ended_by_the_store),
	TEST_CASE(mwaitx_sleep_is_ended_by_the_store),
};
TEST_SUITE(trigger_store_wake, store_wake_cases, NULL, restore);
