// SPDX-License-Identifier: MIT
/*
 * A store-woken wait, proven: the trigger patch's trigger is MONITOR/MWAIT, a wait
 * that sleeps until the kick's store.  Here a waiter resets with interrupts
 * off and waits once on the mwait (or mwaitx) backend with ECX=0: no
 * interrupt break, no MWAITX timer, no wake IPI (the backends' store-only
 * test mode), so only a store to the line, an NMI, SMI or INIT can end the
 * sleep.  The kicker, on another CPU, spins until the waiter is about to
 * wait, spins a little longer so that it is asleep, and kicks: a locked add
 * on the generation, nothing else (it never executes MONITOR, which under
 * Bochs 2.7 would disarm the waiter's monitor, docs/emulators.md).  The
 * case then asserts what the counters of that one sequence say: one wait,
 * one sleep (an MWAIT, not a spin), returned for the kick with no NMI.
 *
 * Should the store not end the sleep, the kicker rescues the waiter with an
 * NMI after RESCUE_NS, and the case fails saying so.  With
 * test_break=store_kick_elsewhere the kicker stores to another line
 * instead, with test_break=store_kicker_monitors it executes MONITOR
 * before its kick: the matrix sees both fail (bochs-store-wake-broken-*).
 *
 * Where MWAIT does not sleep (QEMU TCG with more than one vCPU, the boot
 * probe says so) there is nothing to prove: the cases skip; never under
 * Bochs, whose MWAIT sleeps.
 *
 * UMWAIT (WAITPKG; Bochs 3.0's sapphire_rapids) the same way, with the
 * IA32_UMWAIT_CONTROL limit lifted and no TSC deadline, so that only the
 * store (or an interrupt, which UMWAIT takes even with IF=0, or the rescue
 * NMI) can end it.  Bochs 3.0's UMONITOR and MONITOR wake every sleeper
 * (docs/emulators.md): no other CPU may execute one while the waiter sleeps,
 * or a store that never woke it would go unseen.  With 2 CPUs the kicker is
 * the only other one and it executes neither (nor INVLPG) unless told
 * test_break=store_kicker_monitors.  A second case shows the limit ending a
 * UMWAIT nothing else ends (test_break=umwait_no_limit: none is set, and
 * the rescue NMI ends it).
 */
#include <cpu/cpu.h>
#include <sync/irq.h>
#include <harness/machine.h>
#include <boot/options.h>
#include <smp/smp.h>
#include <harness/test.h>
#include <time/time.h>
#include <sync/trigger.h>
#include <sync/trigger_backend.h>
#include <harness/watchdog.h>
#include <lib/string.h>
#include <asm/apic.h>
#include <asm/instructions.h>
#include <asm/interrupts.h>
#include <asm/trigger_test.h>
#include <asm/paging.h>
#include <arch/paging.h>

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
	uint64_t warmed;		/* the probes' kicker: its mapping is in its TLB */
	unsigned int waiter_cpu;
	uint64_t kicked_at, returned_at;
} store;

static bool claim_rescue_nmi(struct interrupt_frame *frame)
{
	return cpu_id() == store.waiter_cpu && __atomic_load_n(&store.rescue_sent, __ATOMIC_ACQUIRE);
}

/* The waiter's rescue: an NMI if it has not returned RESCUE_NS from now. */
static void rescue_unless_returned(void)
{
	uint64_t start = cycles();

	while (!__atomic_load_n(&store.returned, __ATOMIC_ACQUIRE)) {
		if (cycles() - start > ns_to_cycles(RESCUE_NS)) {
			__atomic_store_n(&store.rescue_sent, 1, __ATOMIC_RELEASE);
			lapic_send_ipi(cpus[store.waiter_cpu].apic_id, APIC_DELIVERY_NMI);
			return;
		}
		cpu_relax();
	}
}

static void kicker(void *unused)
{
	while (!__atomic_load_n(&store.about_to_wait, __ATOMIC_ACQUIRE))
		cpu_relax();
	cpu_test_spin_ns(ASLEEP_DELAY_NS);
	if (test_break_given(TEST_BREAK_STORE_KICKER_MONITORS)) {
		invlpg(store.elsewhere);	/* arm on its own line (Bochs bug 1) */
		monitor(store.elsewhere, 0, 0);
	}
	store.kicked_at = rdtsc();
	if (test_break_given(TEST_BREAK_STORE_KICK_ELSEWHERE))
		__atomic_fetch_add(&store.elsewhere[0], 1, __ATOMIC_SEQ_CST);
	else
		trigger_kick(&store.trigger);
	rescue_unless_returned();
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
	/* The kicker: another CPU, not the watchdog's if there is a choice. */
	int kicker_on = (int)trigger_test_helper_cpu();
	const char *unavailable = trigger_backend_unavailable(backend);
	bool done = false;

	if (unavailable)
		test_skip("%s", unavailable);
	/*
	 * Under Bochs (told so) MWAIT sleeps: a probe that says otherwise is
	 * a regression for this case to show, not a reason to skip it.
	 */
	if (!trigger_mwait_sleeps() && !running_under_bochs())
		test_skip("MWAIT does not sleep here (the boot probe): no sleep for a store to end");
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

static void umwait_sleep_is_ended_by_the_store(void)
{
	trigger_umwait_set_limit(0);	/* no OS limit: the store alone ends it */
	store_ends_the_sleep(TRIGGER_BACKEND_UMWAIT);
	trigger_umwait_set_limit(trigger_umwait_boot_limit());
}

/* --- IA32_UMWAIT_CONTROL's limit ends a UMWAIT ------------------------------------- */

#define UMWAIT_LIMIT_NS		1000000ull	/* the limit the case sets: 1 ms */

static void umwait_rescuer(void *unused)
{
	while (!__atomic_load_n(&store.about_to_wait, __ATOMIC_ACQUIRE))
		cpu_relax();
	rescue_unless_returned();
}

/*
 * One wait on store.trigger with interrupts off and nobody kicking, timed
 * by the TSC: about_to_wait tells the rescuer it is on its way, returned
 * that it is back.
 */
static void one_unkicked_wait(uint64_t *began, uint64_t *ended)
{
	bool enabled = local_irq_save();

	trigger_reset(&store.trigger);
	__atomic_store_n(&store.about_to_wait, 1, __ATOMIC_RELEASE);
	*began = cycles();
	trigger_wait(&store.trigger);
	*ended = cycles();
	__atomic_store_n(&store.returned, 1, __ATOMIC_RELEASE);
	trigger_finish(&store.trigger);
	local_irq_restore(enabled);
}

/*
 * One UMWAIT with interrupts off, no deadline of its own (store-only mode),
 * on a trigger nobody kicks, the other CPU spinning without UMONITOR,
 * MONITOR or INVLPG: only the limit can end it before the rescue NMI.
 * Bochs 3.0 honours the limit but sets no CF (cpu/mwait.cc); the count of
 * CF returns is shown, not asserted.
 */
static void umwait_control_limit_ends_the_wait(void)
{
	uint32_t limit = (uint32_t)ns_to_cycles(UMWAIT_LIMIT_NS);
	int helper = (int)trigger_test_helper_cpu();
	struct trigger_sequence_record record;
	uint64_t began, ended, cf_before = trigger_umwait_os_limit_returns();
	const char *unavailable = trigger_backend_unavailable(TRIGGER_BACKEND_UMWAIT);

	if (unavailable)
		test_skip(unavailable);
	ASSERT_TRUE(helper >= 0);
	ASSERT_TRUE(trigger_backend_set(TRIGGER_BACKEND_UMWAIT));
	ASSERT_TRUE(nmi_register(claim_rescue_nmi));
	trigger_set_monitor_store_only(true);
	trigger_umwait_set_limit(test_break_given(TEST_BREAK_UMWAIT_NO_LIMIT) ? 0 : limit);
	store.about_to_wait = store.returned = store.rescue_sent = 0;
	store.waiter_cpu = cpu_id();
	trigger_init(&store.trigger);
	ASSERT_TRUE(smp_run_on_async((unsigned int)helper, umwait_rescuer, NULL));
	one_unkicked_wait(&began, &ended);
	trigger_umwait_set_limit(trigger_umwait_boot_limit());
	trigger_set_monitor_store_only(false);
	EXPECT_TRUE(smp_wait_for((unsigned int)helper, CPU_TEST_TIMEOUT_NS));
	nmi_unregister(claim_rescue_nmi);

	trigger_last_sequence(cpu_id(), &record);
	test_diag("umwait: limit %u TSC cycles%s; %u wait, %u sleep, returned for %s%s after %llu "
		  "TSC cycles; CF set by %llu UMWAIT%s", limit,
		  test_break_given(TEST_BREAK_UMWAIT_NO_LIMIT) ? " NOT SET (test_break)" : "",
		  record.waits, record.sleeps, trigger_wake_name(record.last_return),
		  store.rescue_sent ? " (the rescue NMI: the limit did not end it)" : "",
		  (unsigned long long)(ended - began),
		  (unsigned long long)(trigger_umwait_os_limit_returns() - cf_before),
		  trigger_umwait_os_limit_returns() - cf_before == 1 ? "" : "s");
	EXPECT_EQ(record.waits, 1u);
	EXPECT_EQ(record.sleeps, 1u);
	EXPECT_FALSE(trigger_wake_saw_kick(record.last_return));
	EXPECT_FALSE(store.rescue_sent);
	/* Nothing but the limit could end it: not before the limit. */
	EXPECT_GE(ended - began, (uint64_t)limit);
}

/*
 * IA32_UMWAIT_CONTROL is per logical processor (SDM vol 3, WAITPKG): each
 * CPU sets its own as it comes online (arch_trigger_cpu_online()).  Here an
 * AP UMWAITs the same way with the limit it booted with, the case writing
 * none on it: only that limit can end the wait before the boot CPU's rescue
 * NMI.  The AP is not the watchdog's (its heartbeat would end the wait).  test_break=umwait_no_limit leaves the APs without one (a reset
 * IA32_UMWAIT_CONTROL: no limit), and the rescue NMI ends it.
 */
static struct trigger_sequence_record ap_record;
static uint64_t ap_began, ap_ended;

static void umwait_on_this_ap(void *unused)
{
	one_unkicked_wait(&ap_began, &ap_ended);
	trigger_last_sequence(cpu_id(), &ap_record);
}

static void umwait_control_limit_ends_a_wait_on_an_ap(void)
{
	int ap = -1;
	uint32_t limit = trigger_umwait_boot_limit();
	const char *unavailable = trigger_backend_unavailable(TRIGGER_BACKEND_UMWAIT);
	bool enabled;

	if (unavailable)
		test_skip(unavailable);
	/* Not the watchdog's: its heartbeat ends a UMWAIT too (a return the limit would get credit for). */
	for (unsigned int cpu = 1; cpu < cpus_present() && ap < 0; cpu++) {
		if (cpu_test_online(cpu) && (int)cpu != watchdog_cpu())
			ap = (int)cpu;
	}
	if (ap < 0)
		test_skip("needs an AP that is not the watchdog's (watchdog=0, or more CPUs)");
	ASSERT_TRUE(trigger_backend_set(TRIGGER_BACKEND_UMWAIT));
	ASSERT_TRUE(nmi_register(claim_rescue_nmi));
	trigger_set_monitor_store_only(true);
	store.about_to_wait = store.returned = store.rescue_sent = 0;
	store.waiter_cpu = (unsigned int)ap;
	trigger_init(&store.trigger);
	memset(&ap_record, 0, sizeof(ap_record));
	ASSERT_TRUE(smp_run_on_async((unsigned int)ap, umwait_on_this_ap, NULL));
	/*
	 * The boot CPU rescues with interrupts off: no handler of its own may
	 * run a UMONITOR, MONITOR or INVLPG, whose broadcast wakes the AP
	 * under Bochs 3.0 (a spurious return the limit would get credit for).
	 */
	enabled = local_irq_save();
	while (!__atomic_load_n(&store.about_to_wait, __ATOMIC_ACQUIRE))
		cpu_relax();
	rescue_unless_returned();
	local_irq_restore(enabled);
	EXPECT_TRUE(smp_wait_for((unsigned int)ap, CPU_TEST_TIMEOUT_NS));
	trigger_set_monitor_store_only(false);
	nmi_unregister(claim_rescue_nmi);

	test_diag("umwait on cpu %d: its boot limit %u TSC cycles%s; %u wait, %u sleep, returned "
		  "for %s%s after %llu TSC cycles", ap, limit,
		  test_break_given(TEST_BREAK_UMWAIT_NO_LIMIT) ? " NOT SET on the APs (test_break)" : "",
		  ap_record.waits, ap_record.sleeps, trigger_wake_name(ap_record.last_return),
		  store.rescue_sent ? " (the rescue NMI: no limit ended it)" : "",
		  (unsigned long long)(ap_ended - ap_began));
	EXPECT_EQ(ap_record.waits, 1u);
	EXPECT_EQ(ap_record.sleeps, 1u);
	EXPECT_FALSE(trigger_wake_saw_kick(ap_record.last_return));
	EXPECT_FALSE(store.rescue_sent);
	EXPECT_GE(ap_ended - ap_began, (uint64_t)limit);
}


/* --- Probes: which one-byte stores end a sleep (Bochs 2.7's bugs 4 and 5) ---------- */

/*
 * Bochs 2.7 (docs/emulators.md) misses two kinds of store to a monitored
 * line: a one-byte store to its byte 63 (bug 5), and a store through a
 * second linear mapping of its page whose translation the writer's TLB holds
 * (bug 4).  The kernel's answers are the trigger's layout (the generation is
 * bytes 0-7) and identity-mapped trigger memory; these probes find out what
 * the emulator they run on does.  The kicker first stores to another line
 * of the page through the mapping it will use (its TLB then holds it); only
 * then does the waiter arm MONITOR (or UMONITOR) on a line of its own and
 * sleep once with interrupts off and no hint, timer or limit; once it
 * sleeps, the kicker stores one byte to the line.  The rescue NMI ends a
 * sleep the store did not.  What each store did is reported, not judged: a
 * probe describes the emulator.  What the kernel relies on is asserted: a
 * one-byte store to byte 0 through the identity mapping wakes
 * (test_break=store_kick_elsewhere stores to another line instead:
 * bochs-probe-stores-broken sees the case fail).  test_break=probe_warm_late
 * leaves bug 4's condition unreached (warm_the_mapping()):
 * bochs-probe-warm-late-broken sees the verdict flip.
 */
#define PROBE_ALIAS_VIRTUAL	0x00007f0000000000ull	/* far above the identity map */

static uint8_t probe_page[PAGE_SIZE] __attribute__((aligned(PAGE_SIZE)));

enum probe_outcome { PROBE_WOKEN, PROBE_RESCUED, PROBE_EARLY };

static volatile uint8_t *probe_target;

/*
 * A store to another line of the target's page, through the target's
 * mapping: the writer's TLB then holds that mapping, writable and dirty, so
 * the one-byte store that follows takes no slow path of its own.  It must
 * come before the waiter's MONITOR: Bochs gives a TLB entry filled for a
 * write the host pointer of its fast path only if no CPU monitors a line of
 * the page then (BX_MEM_C::getHostMemAddr(), memory/misc_mem.cc, 2.7 and
 * 3.0), and a store through an entry without it is checked against every
 * monitor.  Made after the MONITOR (as the kicker once did, 245 TSC cycles
 * after it on 2.7) it sends the kicker down that checked path, and bug 4's
 * condition is never reached.
 */
static void warm_the_mapping(void)
{
	volatile uint8_t *page = (volatile uint8_t *)((uintptr_t)probe_target & ~(PAGE_SIZE - 1));

	__atomic_fetch_add(&page[2 * 64], 1, __ATOMIC_RELAXED);
}

static void byte_kicker(void *unused)
{
	bool late = test_break_given(TEST_BREAK_PROBE_WARM_LATE);

	if (!late)
		warm_the_mapping();
	__atomic_store_n(&store.warmed, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&store.about_to_wait, __ATOMIC_ACQUIRE))
		cpu_relax();
	cpu_test_spin_ns(ASLEEP_DELAY_NS);
	/*
	 * Not again here: the waiter's MONITOR took the identity mapping out
	 * of this TLB (its INVLPG of the physical address, bug 4), and a fill
	 * now, the page monitored, gets no host pointer.  With
	 * test_break=probe_warm_late the kicker warms only now, as this probe
	 * once did: its store through the second mapping then wakes the
	 * sleeper even under Bochs.
	 */
	if (late)
		warm_the_mapping();
	store.kicked_at = rdtsc();
	if (test_break_given(TEST_BREAK_STORE_KICK_ELSEWHERE))	/* another line: no wake */
		__atomic_store_n(&probe_target[3 * 64], (uint8_t)1, __ATOMIC_RELEASE);
	else
		__atomic_store_n(probe_target, (uint8_t)(*probe_target + 1), __ATOMIC_RELEASE);
	rescue_unless_returned();
}

/* One sleep on probe_page's first line, ended (or not) by a one-byte store to @target. */
static enum probe_outcome probe_one_store(enum trigger_backend_id backend, volatile uint8_t *target,
					  int kicker_on)
{
	volatile uint8_t *line = probe_page;
	/* The target's byte read through the identity mapping, the waiter's own. */
	volatile uint8_t *own = &line[(uintptr_t)target & (PAGE_SIZE - 1)];
	uint8_t before;
	bool enabled;

	store.about_to_wait = store.returned = store.rescue_sent = 0;
	store.warmed = 0;
	store.waiter_cpu = cpu_id();
	probe_target = target;
	before = *own;
	if (!smp_run_on_async((unsigned int)kicker_on, byte_kicker, NULL))
		return PROBE_EARLY;
	/* No MONITOR until the kicker's mapping is warm (warm_the_mapping()). */
	if (!cpu_test_wait_at_least(&store.warmed, 1, CPU_TEST_TIMEOUT_NS)) {
		test_diag("%s: the kicker did not start", trigger_backend_name(backend));
		/* Should it start late: nothing to wait for, nobody to rescue. */
		__atomic_store_n(&store.returned, 1, __ATOMIC_RELEASE);
		__atomic_store_n(&store.about_to_wait, 1, __ATOMIC_RELEASE);
		smp_wait_for((unsigned int)kicker_on, CPU_TEST_TIMEOUT_NS);
		return PROBE_EARLY;
	}
	enabled = local_irq_save();
	__atomic_store_n(&store.about_to_wait, 1, __ATOMIC_RELEASE);
	invlpg(line);			/* MONITOR arms on its operand (Bochs 2.7 bug 1) */
	if (backend == TRIGGER_BACKEND_UMWAIT) {
		umonitor(line);
		if (*own == before)
			umwait(0, ~0ull);
	} else {
		monitor(line, 0, 0);
		if (*own == before)
			mwait(0, 0);
	}
	store.returned_at = rdtsc();
	__atomic_store_n(&store.returned, 1, __ATOMIC_RELEASE);
	local_irq_restore(enabled);
	if (!smp_wait_for((unsigned int)kicker_on, CPU_TEST_TIMEOUT_NS))
		return PROBE_EARLY;
	if (store.rescue_sent)
		return PROBE_RESCUED;
	/* Returned before the store (or it landed before the sleep): no verdict. */
	if (store.returned_at < store.kicked_at)
		return PROBE_EARLY;
	return PROBE_WOKEN;
}

/* @what's outcome, retried while the sleep ended before the store; reported. */
static enum probe_outcome probe_store(enum trigger_backend_id backend, const char *what,
				      volatile uint8_t *target, int kicker_on)
{
	enum probe_outcome outcome = PROBE_EARLY;

	for (int attempt = 0; attempt < 3 && outcome == PROBE_EARLY; attempt++)
		outcome = probe_one_store(backend, target, kicker_on);
	if (outcome == PROBE_WOKEN)
		test_diag("%s: a one-byte store %s woke it (%llu TSC cycles after the store)",
			  trigger_backend_name(backend), what,
			  (unsigned long long)(store.returned_at - store.kicked_at));
	else if (outcome == PROBE_RESCUED)
		test_diag("%s: a one-byte store %s did NOT wake it (the rescue NMI ended the sleep)",
			  trigger_backend_name(backend), what);
	else
		test_diag("%s: a one-byte store %s: no verdict (the sleep ended before the store, "
			  "3 times)", trigger_backend_name(backend), what);
	return outcome;
}

static void probe_one_byte_stores(enum trigger_backend_id backend)
{
	int kicker_on = (int)trigger_test_helper_cpu();
	const char *unavailable = trigger_backend_unavailable(backend);
	uint64_t physical;
	volatile uint8_t *alias;

	if (unavailable)
		test_skip("%s", unavailable);
	if (!trigger_mwait_sleeps() && !running_under_bochs())
		test_skip("MWAIT does not sleep here (the boot probe): no sleep for a store to end");
	ASSERT_TRUE(kicker_on >= 0);
	ASSERT_TRUE(paging_translate((uint64_t)probe_page, &physical));
	alias = map_page_alias(PROBE_ALIAS_VIRTUAL, physical, MAP_WRITE);
	ASSERT_TRUE(alias != NULL);
	ASSERT_TRUE(nmi_register(claim_rescue_nmi));
	if (backend == TRIGGER_BACKEND_UMWAIT)
		trigger_umwait_set_limit(0);	/* no OS limit: only the store ends it */

	/* What the kernel relies on: byte 0, through the identity mapping. */
	EXPECT_EQ(probe_store(backend, "to byte 0", &probe_page[0], kicker_on), PROBE_WOKEN);
	/* Bug 5: the line's last byte. */
	EXPECT_NE(probe_store(backend, "to byte 63", &probe_page[63], kicker_on), PROBE_EARLY);
	/* Bug 4: byte 0 again, through the second mapping. */
	EXPECT_NE(probe_store(backend, "to byte 0 through a second mapping of the page",
			      &alias[0], kicker_on), PROBE_EARLY);

	if (backend == TRIGGER_BACKEND_UMWAIT)
		trigger_umwait_set_limit(trigger_umwait_boot_limit());
	nmi_unregister(claim_rescue_nmi);
	unmap_range(PROBE_ALIAS_VIRTUAL, PAGE_SIZE);
}

static void mwait_probe_of_one_byte_stores(void)
{
	probe_one_byte_stores(TRIGGER_BACKEND_MWAIT);
}

static void umwait_probe_of_one_byte_stores(void)
{
	probe_one_byte_stores(TRIGGER_BACKEND_UMWAIT);
}

/* --- Two sleepers whose monitors overlap in time ------------------------------------ */

/*
 * The first sleeper arms its monitor and sleeps; the second arms its own
 * a little later, which under Bochs 2.7 disarms the first's (bug 3), and
 * under Bochs 3.0 wakes it (a spurious return: it waits again); then one
 * kick.  Each sleeper waits until it sees the kick, as a caller must.  Both must wake: on hardware both by the store, under Bochs
 * the first by the wake IPI the workaround publishes it for (with
 * test_break=bochs_wake_ipi it sleeps on, and the NMI rescue shows it).  These
 * waits are the backend's own (interrupt break, wake IPI), not store-only.
 */
static struct {
	trigger_t trigger;
	unsigned long first_asleep, second_asleep, kicked, returned[2], rescued[2];
	unsigned int cpu[2];
	struct trigger_sequence_record record[2];
} overlap;

static bool claim_overlap_nmi(struct interrupt_frame *frame)
{
	for (int i = 0; i < 2; i++) {
		if (cpu_id() == overlap.cpu[i] && __atomic_load_n(&overlap.rescued[i], __ATOMIC_ACQUIRE))
			return true;
	}
	return false;
}

/* One sleeper: interrupts off, one wait, its sequence recorded. */
static void overlap_sleep(int which, unsigned long *asleep)
{
	bool enabled = local_irq_save();

	trigger_reset(&overlap.trigger);
	__atomic_store_n(asleep, 1, __ATOMIC_RELEASE);
	/* Bug 3 fixed (Bochs 2.8 on): the other's re-arm wakes it again and again. */
	do
		trigger_wait(&overlap.trigger);
	while (trigger_bochs_bug_fixed(3) && !__atomic_load_n(&overlap.kicked, __ATOMIC_ACQUIRE));
	__atomic_store_n(&overlap.returned[which], 1, __ATOMIC_RELEASE);
	trigger_finish(&overlap.trigger);
	local_irq_restore(enabled);
	trigger_last_sequence(cpu_id(), &overlap.record[which]);
}

static void second_sleeper(void *unused)
{
	while (!__atomic_load_n(&overlap.first_asleep, __ATOMIC_ACQUIRE))
		cpu_relax();
	cpu_test_spin_ns(ASLEEP_DELAY_NS);
	overlap_sleep(1, &overlap.second_asleep);
}

static void overlap_kicker(void *unused)
{
	uint64_t start;

	while (!__atomic_load_n(&overlap.second_asleep, __ATOMIC_ACQUIRE))
		cpu_relax();
	cpu_test_spin_ns(ASLEEP_DELAY_NS);
	/*
	 * The condition before the kick, as the API requires: set after it,
	 * a sleeper woken by the kick could find it still clear, wait again
	 * and sleep past the one kick to its rescue (Bochs 3.0 did, once this
	 * path's timing moved).
	 */
	__atomic_store_n(&overlap.kicked, 1, __ATOMIC_RELEASE);
	trigger_kick(&overlap.trigger);
	start = cycles();
	while (cycles() - start < ns_to_cycles(RESCUE_NS) &&
	       !(__atomic_load_n(&overlap.returned[0], __ATOMIC_ACQUIRE) &&
		 __atomic_load_n(&overlap.returned[1], __ATOMIC_ACQUIRE)))
		cpu_relax();
	for (int i = 0; i < 2; i++) {
		if (!__atomic_load_n(&overlap.returned[i], __ATOMIC_ACQUIRE)) {
			__atomic_store_n(&overlap.rescued[i], 1, __ATOMIC_RELEASE);
			lapic_send_ipi(cpus[overlap.cpu[i]].apic_id, APIC_DELIVERY_NMI);
		}
	}
}

static void overlapping_monitors_still_wake_every_sleeper(enum trigger_backend_id backend)
{
	struct trigger_bochs_counts before, after;
	int second = -1, kicker_on = -1;
	const char *unavailable = trigger_backend_unavailable(backend);

	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++) {
		if (cpu == cpu_id() || !cpu_test_online(cpu))
			continue;
		if (second < 0 && (int)cpu != watchdog_cpu())
			second = (int)cpu;
		else if (kicker_on < 0)
			kicker_on = (int)cpu;
	}
	if (second < 0 || kicker_on < 0)
		test_skip("needs 3 CPUs: two sleepers (not the watchdog's) and a kicker");
	if (unavailable)
		test_skip("%s", unavailable);
	if (!trigger_mwait_sleeps() && !running_under_bochs())
		test_skip("MWAIT does not sleep here (the boot probe): no sleeps to overlap");
	ASSERT_TRUE(trigger_backend_set(backend));
	ASSERT_TRUE(nmi_register(claim_overlap_nmi));
	memset(&overlap, 0, sizeof(overlap));
	trigger_init(&overlap.trigger);
	overlap.cpu[0] = cpu_id();
	overlap.cpu[1] = (unsigned int)second;
	trigger_bochs_counts_read(&before);
	ASSERT_TRUE(smp_run_on_async((unsigned int)second, second_sleeper, NULL));
	ASSERT_TRUE(smp_run_on_async((unsigned int)kicker_on, overlap_kicker, NULL));
	overlap_sleep(0, &overlap.first_asleep);
	EXPECT_TRUE(smp_wait_for((unsigned int)second, CPU_TEST_TIMEOUT_NS));
	EXPECT_TRUE(smp_wait_for((unsigned int)kicker_on, CPU_TEST_TIMEOUT_NS));
	trigger_bochs_counts_read(&after);
	nmi_unregister(claim_overlap_nmi);

	for (int i = 0; i < 2; i++) {
		const struct trigger_sequence_record *record = &overlap.record[i];

		test_diag("%s sleeper %d (cpu %u): %u wait, %u sleep, returned for %s%s",
			  trigger_backend_name(backend), i + 1, overlap.cpu[i], record->waits,
			  record->sleeps, trigger_wake_name(record->last_return),
			  overlap.rescued[i] ? " after the rescue NMI (not woken by the kick)" : "");
		EXPECT_FALSE(overlap.rescued[i]);
		if (!trigger_bochs_bug_fixed(3))
			EXPECT_EQ(record->waits, 1u);
		/*
		 * Under Bochs 2.8 and later the two sleepers' re-arms wake each other
		 * back and forth until the kick: the last return may be one
		 * of those, after which the caller finds the kick.
		 */
		if (!trigger_bochs_bug_fixed(3))
			EXPECT_TRUE(trigger_wake_saw_kick(record->last_return));
	}
	if (trigger_bochs_bug_fixed(3)) {
		test_diag("Bochs %s: %llu of these sleeps had another CPU arm a monitor meanwhile "
			  "(which wakes the sleeper; the two woke each other until the kick: "
			  "sleeper 1 waited %u times)", bochs_release_name(),
			  (unsigned long long)(after.reset_sleeps - before.reset_sleeps),
			  overlap.record[0].waits);
		/* The second's (U)MONITOR woke the first: it had to wait again. */
		EXPECT_GE(after.reset_sleeps - before.reset_sleeps, 1u);
		EXPECT_GE(overlap.record[0].waits, 2u);
	} else if (running_under_bochs()) {
		test_diag("Bochs: %llu of these sleeps had their monitor reset by another CPU's "
			  "MONITOR, %llu of them then ended by the kick",
			  (unsigned long long)(after.reset_sleeps - before.reset_sleeps),
			  (unsigned long long)(after.reset_sleeps_kicked - before.reset_sleeps_kicked));
		/* The first sleep's monitor was reset by the second's MONITOR: bug 3 happened. */
		EXPECT_GE(after.reset_sleeps_kicked - before.reset_sleeps_kicked, 1u);
	}
}

static void overlapping_mwait_monitors_still_wake_every_sleeper(void)
{
	overlapping_monitors_still_wake_every_sleeper(TRIGGER_BACKEND_MWAIT);
}

static void overlapping_mwaitx_monitors_still_wake_every_sleeper(void)
{
	overlapping_monitors_still_wake_every_sleeper(TRIGGER_BACKEND_MWAITX);
}

static void overlapping_umwait_monitors_still_wake_every_sleeper(void)
{
	overlapping_monitors_still_wake_every_sleeper(TRIGGER_BACKEND_UMWAIT);
}

static void restore(void)
{
	if (!trigger_backend_unavailable(TRIGGER_BACKEND_UMWAIT))
		trigger_umwait_set_limit(trigger_umwait_boot_limit());
	trigger_set_monitor_store_only(false);
	nmi_unregister(claim_rescue_nmi);
	nmi_unregister(claim_overlap_nmi);
	trigger_test_restore_boot_backend();
}

static const struct test_case store_wake_cases[] = {
	TEST_CASE(mwait_sleep_is_ended_by_the_store),
	TEST_CASE(mwaitx_sleep_is_ended_by_the_store),
	TEST_CASE(overlapping_mwait_monitors_still_wake_every_sleeper),
	TEST_CASE(overlapping_mwaitx_monitors_still_wake_every_sleeper),
	TEST_CASE(umwait_sleep_is_ended_by_the_store),
	TEST_CASE(umwait_control_limit_ends_the_wait),
	TEST_CASE(umwait_control_limit_ends_a_wait_on_an_ap),
	TEST_CASE(overlapping_umwait_monitors_still_wake_every_sleeper),
	TEST_CASE(mwait_probe_of_one_byte_stores),
	TEST_CASE(umwait_probe_of_one_byte_stores),
};
TEST_SUITE(trigger_store_wake, store_wake_cases, NULL, restore);
