// SPDX-License-Identifier: MIT
/*
 * Bochs 2.7's MONITOR/MWAIT and MONITORX/MWAITX, and what the mwait and
 * mwaitx backends do about them.  Applied only when the command line says
 * machine=bochs (running_under_bochs()): the kernel never guesses, and on
 * any other machine none of this runs.  docs/emulators.md (Bochs) tells
 * each bug and its workaround; the Bochs source cited is the tag
 * REL_2_7_FINAL of the Bochs repository (Debian 12 ships 2.7).
 *
 * machine=bochs-3.0 names Bochs 3.0 (Debian 13's source package, built by
 * tools/emulators) and machine=bochs-2.8 Bochs 2.8, which fixed bugs 1, 3
 * and 6: their workarounds are left out there (bochs_fixed_in[]), as the
 * bochs3-* matrix sections' probes showed they can be, on 3.0 and on a 2.8
 * built from the Bochs repository's REL_2_8_FINAL (docs/emulators.md).
 * Since 2.8 MONITOR and UMONITOR wake every sleeping CPU instead
 * (bx_pc_system.invlpg() -> TLB_invlpg() -> wakeup_monitor(),
 * cpu/paging.cc): a spurious return, never a lost one.
 *
 *  1. MONITOR arms on the last slow-path access, not its operand: INVLPG
 *     of the operand's page first (monitor-operand).
 *  2. Every reset, INIT included, sets CR0.CD and NW: not a workaround,
 *     every CPU loads a defined CR0 on any machine (asm/boot.h).
 *  3. Any CPU's MONITOR disarms every other CPU's monitor: sleepers are
 *     also woken by the kick's wake IPI (wake-ipi).
 *  4. A store through a second mapping of the line is not seen: checked
 *     that the trigger memory is identity-mapped (alias-stores).
 *  5. A one-byte store to byte 63 of the line does not wake: the
 *     generation is the line's first eight bytes (byte-63).
 *  6. MWAITX's timer never fires, and arming it restarts another timer: a
 *     LAPIC one-shot with the interrupt break bounds an interrupts-off
 *     MWAITX instead (mwaitx-timer).
 */
#include <log/console.h>
#include <cpu/cpu.h>
#include <log/log.h>
#include <boot/machine_identity.h>
#include <arch/paging.h>
#include <boot/options.h>
#include <stddef.h>
#include <time/time.h>
#include <time/timer.h>
#include <asm/instructions.h>
#include <asm/paging.h>

#include "trigger_internal.h"

/*
 * Bug 5: Bochs's is_monitor() (cpu/mwait.cc) takes the line to end at its
 * byte 63 and treats a write that begins there as outside it.  Kicks write
 * the generation, eight bytes at offset 0 of the line, never byte 63.
 */
_Static_assert(offsetof(struct trigger, generation) == 0,
	       "the generation must open the monitored line (Bochs bug 5)");

bool trigger_bochs;
bool trigger_monitor_store_only;

/*
 * The Bochs release (bochs_release()) that fixed each bug; 0: none here.
 * Bug 1: 2.8's tickle_read_linear() (cpu/access2.cc) sets paddress1 and
 * memtype1 on a TLB hit too.  Bug 3: 2.8's TLB_invlpg() wakes the sleeper
 * whose monitor it resets.  Bug 6: 2.8's set_mwaitx_timer() (cpu/apic.cc)
 * arms its own timer; 2.7's passed its active flag where the timer's
 * handle belongs.  Each is so in 3.0 too.  Bugs 4 and 5 remain in 3.0: its
 * MONITOR still drops only the TLB entries whose linear address equals the
 * physical one, and getHostMemAddr() (memory/misc_mem.cc) still refuses a
 * fast path only to an entry filled while the page is monitored (bug 4);
 * is_monitor() (cpu/mwait.cc) still misses a write that begins at byte 63
 * (bug 5).  trigger_store_wake's *_probe_of_one_byte_stores see both on 2.7,
 * 2.8 and 3.0; their "workarounds" are a check and the trigger's layout, on
 * every release.
 */
static const unsigned int bochs_fixed_in[] = { [1] = 28, [3] = 28, [6] = 28 };

/* Workarounds in force: bugs this Bochs release still has. */
static bool work_around_monitor_operand, work_around_wake_ipi;
bool trigger_bochs_no_mwaitx_timer;

static bool bochs_has_bug(unsigned int bug)
{
	return running_under_bochs() &&
	       (!bochs_fixed_in[bug] || bochs_release() < bochs_fixed_in[bug]);
}

bool trigger_bochs_bug_fixed(unsigned int bug)
{
	return running_under_bochs() && !bochs_has_bug(bug);
}

/* How often each workaround acted; reported with the trigger counters. */
static struct trigger_bochs_counts bochs_counts, bochs_reported;

/* Every MONITOR/MONITORX armed under Bochs, for telling which sleeps bug 3 reset. */
static uint64_t monitors_armed;

static void count(uint64_t *counter)
{
	__atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}

/* --- Bug 1: arm on the operand ---------------------------------------------------- */

/*
 * Bochs's MONITOR (cpu/mwait.cc) finds the physical address to watch by
 * tickle_read_virtual() (cpu/access.h), whose tickle_read_linear()
 * (cpu/access2.cc) returns at once when the operand's page is in the TLB,
 * leaving address_xlation.paddress1 and memtype1 as the last slow-path
 * access set them: MONITOR then arms on that access's line, or not at all
 * if it was MMIO.  INVLPG of the operand's page first sends the lookup down
 * the slow path, which sets both for the operand.  (INVLPG also resets this
 * CPU's own monitor, cpu/paging.cc TLB_invlpg: harmless, it is not armed.)
 */
static uint64_t arm(const volatile void *line)
{
	if (!trigger_bochs)
		return 0;
	if (work_around_monitor_operand) {
		invlpg(line);
		count(&bochs_counts.monitors);
	}
	return __atomic_load_n(&monitors_armed, __ATOMIC_SEQ_CST);
}

static void armed(void)
{
	if (trigger_bochs)
		__atomic_fetch_add(&monitors_armed, 1, __ATOMIC_SEQ_CST);
}

uint64_t trigger_monitor(const volatile void *line)
{
	uint64_t before = arm(line);

	monitor(line, 0, 0);
	armed();
	return before;
}

uint64_t trigger_monitorx(const volatile void *line)
{
	uint64_t before = arm(line);

	monitorx(line, 0, 0);
	armed();
	return before;
}

/* No Bochs with WAITPKG has bug 1, but UMONITOR is counted as MONITOR is (bug 3's count). */
uint64_t trigger_umonitor(const volatile void *line)
{
	uint64_t before = arm(line);

	umonitor(line);
	armed();
	return before;
}

/* --- Bug 3: wake sleepers with an interrupt too -------------------------------------- */

/*
 * Bochs's MONITOR ends with bx_pc_system.invlpg() (cpu/mwait.cc), which
 * runs TLB_invlpg() on every CPU (pc_system.cc), and TLB_invlpg() resets
 * that CPU's monitor (cpu/paging.cc) without waking it: a sleeper whose
 * monitor another CPU's MONITOR reset no longer sees the kick's store and
 * sleeps on until an interrupt.  When several CPUs wait at once (the
 * torture, stop_machine, the MCS queue) a correct kernel would lose
 * wake-ups.  So under Bochs a sleeper also publishes itself in the
 * trigger's IPI mask, as a halting waiter does, and the kick sends it the
 * wake IPI: "sti; mwait" takes it, and with interrupts off MWAIT's interrupt
 * break (ECX[0], CPUID.05H:ECX[1]) lets it end the sleep.  Published after
 * the MONITOR and its look at the generation, only when about to sleep,
 * and followed by a second look: either the kick sees the mask or the
 * waiter sees the kick (kernel/sync/trigger.c).  The wake IPIs are counted as the
 * kick's (counters.ipis).
 */
bool trigger_bochs_sleep_begin(trigger_t *trigger, const struct trigger_wait_state *state)
{
	if (!work_around_wake_ipi || trigger_monitor_store_only)
		return false;
	if (!state->irqs_were_enabled && !trigger_interrupt_break())
		return false;
	trigger_publish(trigger->ipi_waiters, cpu_id());
	return true;
}

void trigger_bochs_sleep_end(trigger_t *trigger, const struct trigger_wait_state *state,
			     bool published, bool slept, uint64_t monitors_before)
{
	if (published)
		trigger_unpublish(trigger->ipi_waiters, cpu_id());
	if (!trigger_bochs || !slept)
		return;
	count(&bochs_counts.sleeps);
	if (published)
		count(&bochs_counts.published_sleeps);
	/*
	 * More MONITORs than this sleep's own since just before it: another
	 * CPU armed one while this one slept.  It can count one that came
	 * just before this CPU armed, but never misses one that came before
	 * the wake: that one's count was taken long before this read.
	 */
	if (__atomic_load_n(&monitors_armed, __ATOMIC_SEQ_CST) - monitors_before > 1) {
		count(&bochs_counts.reset_sleeps);
		if (trigger_moved(trigger, state))
			count(&bochs_counts.reset_sleeps_kicked);
	}
}

bool trigger_bochs_may_sleep_interrupts_off(void)
{
	return !work_around_wake_ipi || trigger_monitor_store_only || trigger_interrupt_break();
}

/* --- Bug 6: no MWAITX timer ------------------------------------------------------------- */

/*
 * Bochs's MWAITX with ECX[1] calls set_mwaitx_timer() (cpu/apic.cc), which
 * passes the flag mwaitx_timer_active where the timer's handle belongs to
 * activate_timer_ticks(): the MWAITX timer never fires, and the timer that
 * does get restarted is whichever has that index.  So under Bochs no MWAITX
 * sets ECX[1]; an interrupts-off MWAITX is bounded by a LAPIC one-shot
 * instead, which the interrupt break lets end it (the interrupt itself is
 * taken once interrupts are enabled again: a spurious tick).
 */
void trigger_bochs_bound_mwaitx(uint64_t slice_cycles)
{
	timer_oneshot_no_later_than(cycles_to_ns(slice_cycles));
	count(&bochs_counts.mwaitx_oneshots);
}

/* --- Boot: name each workaround once ------------------------------------------------- */

/*
 * Bug 4: a store wakes a sleeper only on Bochs's slow path (memory.cc
 * writePhysicalPage's check_monitor); misc_mem.cc getHostMemAddr() refuses
 * a fast path to a monitored page, but a TLB entry made before the MONITOR
 * keeps one.  MONITOR's INVLPG on every CPU drops the entries of the
 * linear address equal to the physical one, so kicks are seen when they
 * store through the identity mapping, as every mapping of this kernel is
 * (memory.h).  Checked here on the memory triggers live in.
 */
static bool identity_mapped(uint64_t address)
{
	uint64_t physical;

	return paging_translate(address, &physical) && physical == address;
}

void trigger_bochs_init(void)
{
	extern char __data_start[], __bss_end[];
	uint8_t on_the_stack;
	bool identity;

	trigger_bochs = running_under_bochs();
	if (!trigger_bochs)
		return;
	work_around_monitor_operand = bochs_has_bug(1) &&
				      !test_break_given(TEST_BREAK_BOCHS_MONITOR_OPERAND);
	work_around_wake_ipi = bochs_has_bug(3) && !test_break_given(TEST_BREAK_BOCHS_WAKE_IPI);
	trigger_bochs_no_mwaitx_timer = bochs_has_bug(6);
	identity = identity_mapped((uint64_t)__data_start) &&
		   identity_mapped((uint64_t)__bss_end - 1) &&
		   identity_mapped((uint64_t)&on_the_stack) &&
		   identity_mapped((uint64_t)&bochs_counts);
	if (test_break_given(TEST_BREAK_BOCHS_MONITOR_OPERAND))
		ktap_note("bochs: test_break=bochs_monitor_operand: no INVLPG before MONITOR (test only)");
	if (test_break_given(TEST_BREAK_BOCHS_WAKE_IPI))
		ktap_note("bochs: test_break=bochs_wake_ipi: no wake IPI for MWAIT sleepers (test only)");
	if (!bochs_has_bug(1))
		ktap_note("bochs: workaround monitor-operand: not applied: Bochs %s arms MONITOR "
			  "on its operand (bug 1 fixed in 2.8)", bochs_release_name());
	else if (work_around_monitor_operand)
		ktap_note("bochs: workaround monitor-operand: INVLPG of the trigger's page before "
			  "each MONITOR/MONITORX, which else arms on the last slow-path access (bug 1)");
	ktap_note("bochs: workaround cr0: none needed: every CPU loads CR0 with CD and NW clear, "
		  "which Bochs sets on every INIT (bug 2)");
	if (!bochs_has_bug(3))
		ktap_note("bochs: workaround wake-ipi: not applied: Bochs %s's MONITOR/UMONITOR "
			  "wakes the sleepers whose monitor it resets (bug 3 fixed in 2.8; spurious "
			  "returns)", bochs_release_name());
	else if (work_around_wake_ipi)
		ktap_note("bochs: workaround wake-ipi: MWAIT/MWAITX sleepers are published for the "
			  "kick's wake IPI (interrupt break %s), as any CPU's MONITOR disarms the "
			  "others' (bug 3)", trigger_interrupt_break()
			  ? "offered: interrupts-off sleeps too" : "absent: interrupts-off waits spin");
	ktap_note("bochs: workaround alias-stores: the trigger memory is %s (bug 4)",
		  identity ? "identity-mapped, so kicks store through the mapping MONITOR invalidates"
			   : "NOT identity-mapped: kicks may go unseen");
	ktap_note("bochs: workaround byte-63: none needed: the generation is bytes 0-7 of its "
		  "line, never byte 63 (bug 5)");
	if (trigger_bochs_no_mwaitx_timer)
		ktap_note("bochs: workaround mwaitx-timer: MWAITX without its timer; a LAPIC one-shot "
			  "with the interrupt break bounds an interrupts-off MWAITX (bug 6)");
	else
		ktap_note("bochs: workaround mwaitx-timer: not applied: Bochs %s's MWAITX timer "
			  "ends the wait (bug 6 fixed in 2.8)", bochs_release_name());
}

void trigger_bochs_report(const char *prefix)
{
	struct trigger_bochs_counts now = bochs_counts, *before = &bochs_reported;

	if (!trigger_bochs || (now.monitors == before->monitors && now.sleeps == before->sleeps))
		return;
	kprintf("%sbochs workarounds: %llu MONITORs after an INVLPG; %llu MWAIT/MWAITX sleeps, %llu "
		"published for the wake IPI; %llu reset by another CPU's MONITOR, %llu of those "
		"ended by their kick (the store alone could have been missed); %llu interrupts-off "
		"MWAITX bounded by the LAPIC timer\n", prefix,
		(unsigned long long)(now.monitors - before->monitors),
		(unsigned long long)(now.sleeps - before->sleeps),
		(unsigned long long)(now.published_sleeps - before->published_sleeps),
		(unsigned long long)(now.reset_sleeps - before->reset_sleeps),
		(unsigned long long)(now.reset_sleeps_kicked - before->reset_sleeps_kicked),
		(unsigned long long)(now.mwaitx_oneshots - before->mwaitx_oneshots));
	*before = now;
}

void trigger_bochs_counts_read(struct trigger_bochs_counts *counts)
{
	counts->monitors = __atomic_load_n(&bochs_counts.monitors, __ATOMIC_RELAXED);
	counts->sleeps = __atomic_load_n(&bochs_counts.sleeps, __ATOMIC_RELAXED);
	counts->published_sleeps = __atomic_load_n(&bochs_counts.published_sleeps, __ATOMIC_RELAXED);
	counts->reset_sleeps = __atomic_load_n(&bochs_counts.reset_sleeps, __ATOMIC_RELAXED);
	counts->reset_sleeps_kicked = __atomic_load_n(&bochs_counts.reset_sleeps_kicked,
						      __ATOMIC_RELAXED);
	counts->mwaitx_oneshots = __atomic_load_n(&bochs_counts.mwaitx_oneshots, __ATOMIC_RELAXED);
}

void trigger_set_monitor_store_only(bool store_only)
{
	__atomic_store_n(&trigger_monitor_store_only, store_only, __ATOMIC_RELEASE);
}
