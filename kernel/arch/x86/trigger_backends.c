// SPDX-License-Identifier: MIT
/*
 * The ways a trigger wait can wait.  Each wait() is called, and returns,
 * with interrupts disabled (trigger_reset() disabled them); it enables them
 * only while it sleeps, and only if they were enabled at the reset.
 */
#include <cpu/cpu.h>
#include <arch/hypervisor.h>
#include <sync/irq.h>
#include <log/log.h>
#include <arch/memtype_check.h>
#include <boot/options.h>
#include <smp/smp.h>
#include <time/time.h>
#include <time/timer.h>
#include <lib/string.h>
#include <sync/poll_wait.h>
#include <asm/apic.h>
#include <asm/extable.h>
#include <asm/instructions.h>

#include "trigger_internal.h"

uint32_t trigger_mwait_hint;		/* EAX of MWAIT: 0 is C1 */
bool trigger_hlt_broken;
uint64_t trigger_halt_window_delay_cycles;
void (*trigger_before_recheck_hook)(void);
bool trigger_irqs_on_window_unmarked;

#define CPUID_MONITOR		(1u << 3)	/* CPUID.01H:ECX */
#define CPUID_MONITORX		(1u << 29)	/* CPUID.80000001H:ECX */
#define CPUID_WAITPKG		(1u << 5)	/* CPUID.(EAX=07H,ECX=0):ECX */
#define CPUID5_EXTENSIONS	(1u << 0)	/* CPUID.05H:ECX: MWAIT extensions enumerated */
#define CPUID5_INTERRUPT_BREAK	(1u << 1)	/* CPUID.05H:ECX: ECX[0] of MWAIT honoured */
#define MWAIT_INTERRUPT_BREAK	(1u << 0)
#define MWAITX_TIMER_ENABLE	(1u << 1)
#define MSR_UMWAIT_CONTROL	0xe1
#define UMWAIT_C0_2		0	/* UMWAIT control: the deeper C0.2 */
#define UMWAIT_SLICE_CYCLES	(1u << 20)	/* bounds each UMWAIT/MWAITX, ~0.3 ms */

/*
 * One poll of a spin phase.  With interrupts off at the reset (stop_machine's
 * states), PAUSE on every poll, also under QEMU TCG, where pacing it
 * (sync/poll_wait.h) made stop_machine with the others spinning at 8 vCPUs
 * on 2 host cores 1.4-3.5 times slower (interleaved boots): a waiter that
 * does not go through QEMU's global lock keeps the host CPU that the
 * spinners' vCPUs need.
 *
 * With interrupts on, an interrupt window on every poll, and the PAUSE
 * after it paced as the kernel's polls pace theirs: under TCG at most one
 * every cpu_relax_pace_cycles for the wait's first cpu_relax_paced_for_cycles
 * (about one wake-up of a halted vCPU), then on every poll; on every poll
 * elsewhere.  A PAUSE inside every window (sti_relax_cli()) took QEMU's
 * global lock on every poll, the lock the halted CPU this waits for needs
 * to wake and answer: the halted IPI round trip's mean was 63.7 k cycles
 * with it, 56.7 k without, beside 53.6 k for a plain load loop (10
 * interleaved boots, 2 vCPUs, load 1.3).
 */
static void spin_step(const struct trigger_wait_state *state, struct poll_pace *pace)
{
	if (!state->irqs_were_enabled) {
		arch_cpu_relax();
		return;
	}
	sti_window_cli();
	poll_pace_relax(pace);
}

static bool past(uint64_t deadline_cycles)
{
	return deadline_cycles && cycles() >= deadline_cycles;
}

/*
 * --- spin: the trigger patch's generic behaviour, PAUSE until the kick ------------------
 *
 * The trigger patch's generic trigger_wait() is one cpu_relax(), which returns
 * spuriously every time.  Here the loop looks at the generation itself, so
 * that a spin wait, like every other, returns for its kick (or its
 * deadline): the counters then tell a sequence ended by its kick from one
 * that found its condition by polling.
 */
static void spin_wait(trigger_t *trigger, struct trigger_wait_state *state, uint64_t deadline)
{
	struct poll_pace pace;

	poll_pace_begin(&pace);
	while (!trigger_moved(trigger, state) && !past(deadline))
		spin_step(state, &pace);
}

/* --- mwait ------------------------------------------------------------------- */

static const char *mwait_unavailable(void)
{
	return (cpuid(1).ecx & CPUID_MONITOR) ? NULL : "CPUID.01H:ECX[3] (MONITOR/MWAIT)";
}

/*
 * With interrupts disabled a wait may only sleep if something other than
 * an interrupt can end it: a store to the monitored line does on real
 * CPUs, but under QEMU TCG a store never wakes MWAIT and with one vCPU MWAIT
 * with IF=0 sleeps forever (docs/emulators.md), and ECX[0] there is a #GP.
 */
static bool mwait_may_sleep_with_interrupts_off(void)
{
	return !hypervisor_info()->tcg;
}

/* ECX[0] of MWAIT and MWAITX: a masked interrupt ends the sleep; 0 where not offered. */
uint32_t trigger_interrupt_break(void)
{
	struct cpuid_result leaf = cpuid(5);

	if ((leaf.ecx & CPUID5_EXTENSIONS) && (leaf.ecx & CPUID5_INTERRUPT_BREAK))
		return MWAIT_INTERRUPT_BREAK;
	return 0;
}

static void arm_deadline(uint64_t deadline);

static void mwait_wait(trigger_t *trigger, struct trigger_wait_state *state, uint64_t deadline)
{
	bool published = false, slept = true;
	/* Armed, then checked, then slept on: a kick in between changes the line. */
	uint64_t monitors = trigger_monitor(&trigger->generation);

	if (trigger_moved(trigger, state) ||
	    ((published = trigger_bochs_sleep_begin(trigger, state)) &&
	     trigger_moved(trigger, state))) {
		slept = false;
	} else if (state->irqs_were_enabled) {
		/* Where MWAIT really sleeps only an interrupt may end it: the timer, at the deadline. */
		arm_deadline(deadline);
		slept = trigger_mwait_irqs_on(&trigger->generation, state->seen, trigger_mwait_hint,
					      0) == TRIGGER_HALT_HALTED;
		if (slept)
			trigger_count_sleep(state);
		/*
		 * Where MWAIT returns at once (QEMU TCG, more than one vCPU)
		 * it returns inside the STI shadow, and TCG checks for
		 * interrupts only then: without a window after it no
		 * interrupt would ever be taken while waiting.
		 */
		sti_relax_cli();
	} else if (mwait_may_sleep_with_interrupts_off() && !deadline &&
		   trigger_bochs_may_sleep_interrupts_off()) {
		trigger_count_sleep(state);
		mwait(trigger_mwait_hint, trigger_monitor_store_only ? 0 : trigger_interrupt_break());
	} else {
		cpu_local_add(&trigger_counters_here(state->backend->id)->spin_fallbacks, 1);
		arch_cpu_relax();
		slept = false;
	}
	trigger_bochs_sleep_end(trigger, state, published, slept, monitors);
}

/* --- hlt ----------------------------------------------------------------------- */

/*
 * Let the timer end a halt at the deadline: a one-shot no later than it,
 * which leaves an earlier one-shot (or a periodic tick) alone.  It is not
 * cancelled after the wait: a late interrupt is only a spurious return.
 */
static void arm_deadline(uint64_t deadline)
{
	uint64_t now = cycles();

	if (deadline)
		timer_oneshot_no_later_than(deadline > now ? cycles_to_ns(deadline - now) : 1000);
}

static void delay_inside_window(void)
{
	uint64_t start;

	if (!trigger_halt_window_delay_cycles)
		return;
	start = cycles();
	while (cycles() - start < trigger_halt_window_delay_cycles)
		arch_cpu_relax();
}

static void (*halt_window_hook)(void);

void trigger_set_halt_window_hook(void (*hook)(void))
{
	__atomic_store_n(&halt_window_hook, hook, __ATOMIC_RELEASE);
}

enum halt_test_mode {
	HALT_AS_BUILT,		/* no switch: publish, re-check, halt */
	HALT_BROKEN,		/* trigger_set_broken_hlt(): halt without the re-check */
	HALT_SKIPPED,		/* test_break=skip_halt: poll, as if every re-check saw a kick */
};

/*
 * The halt's one test seam, at the top of every halt wait: the torture's
 * delay and its hook (a kick exactly before the publish), then which halt
 * the switches ask for.  The delay lands before the publish: there a kick
 * is caught only by the re-check, which the broken variant lacks.  With no
 * switch set it is three loads and HALT_AS_BUILT.
 */
static inline enum halt_test_mode halt_test_seam(void)
{
	void (*hook)(void) = __atomic_load_n(&halt_window_hook, __ATOMIC_ACQUIRE);

	delay_inside_window();
	if (hook)
		hook();
	if (trigger_hlt_broken)
		return HALT_BROKEN;
	return test_break_given(TEST_BREAK_SKIP_HALT) ? HALT_SKIPPED : HALT_AS_BUILT;
}

static void halt_wait(trigger_t *trigger, struct trigger_wait_state *state, uint64_t deadline)
{
	enum halt_test_mode mode = halt_test_seam();	/* the one test seam */
	unsigned int me = cpu_id(), outcome = TRIGGER_HALT_MOVED;

	if (state->irqs_were_enabled) {
		trigger_publish(trigger->ipi_waiters, me);
		/*
		 * The re-check after publishing is what closes the race with a
		 * kick from another CPU (kernel/sync/trigger.c); the window it
		 * opens is closed against an NMI handler's kick on this CPU by
		 * the marked halt (trigger_halt.S).  trigger_set_broken_hlt()
		 * removes the re-check so the torture can show that it finds
		 * the lost wake-up.  The check here only spares arming a timer
		 * for a wait that is over; the one in the window decides.
		 */
		if (mode == HALT_BROKEN) {
			sti_hlt();
			outcome = TRIGGER_HALT_HALTED;
		} else if (mode == HALT_SKIPPED) {
			/* poll, as if every re-check saw a kick */
		} else if (!trigger_moved_after_publish(trigger, state)) {
			arm_deadline(deadline);
			outcome = trigger_halt_irqs_on(&trigger->generation, state->seen);
		}
		cli();
		trigger_unpublish(trigger->ipi_waiters, me);
		if (outcome == TRIGGER_HALT_HALTED)
			trigger_count_sleep(state);
		return;
	}
	/*
	 * Interrupts off (stop_machine's DISABLE_IRQ and RUN states): only an
	 * NMI can wake a halt.  Not inside an NMI handler (NMIs are blocked
	 * until IRET), and not for a timed wait (the LAPIC timer cannot raise
	 * an NMI): spin there.
	 */
	if (in_nmi() || deadline) {
		cpu_local_add(&trigger_counters_here(state->backend->id)->spin_fallbacks, 1);
		arch_cpu_relax();
		return;
	}
	trigger_publish(trigger->nmi_waiters, me);
	if (mode == HALT_BROKEN) {
		hlt();
		outcome = TRIGGER_HALT_HALTED;
	} else if (mode == HALT_SKIPPED) {
		arch_cpu_relax();
	} else {
		outcome = trigger_halt_irqs_off(&trigger->generation, state->seen);
	}
	trigger_unpublish(trigger->nmi_waiters, me);
	if (outcome == TRIGGER_HALT_HALTED)
		trigger_count_sleep(state);
}

static void hlt_wait(trigger_t *trigger, struct trigger_wait_state *state, uint64_t deadline)
{
	halt_wait(trigger, state, deadline);
}

/* --- adaptive: spin for a budget, then halt ------------------------------------- */

static void adaptive_wait(trigger_t *trigger, struct trigger_wait_state *state, uint64_t deadline)
{
	uint64_t start = cycles();
	struct poll_pace pace;

	poll_pace_begin(&pace);
	while (cycles() - start < trigger_spin_budget_cycles) {
		if (trigger_moved(trigger, state) || past(deadline))
			return;
		spin_step(state, &pace);
	}
	halt_wait(trigger, state, deadline);
}

/* --- mwaitx (AMD APM vol 3: MONITORX, MWAITX) ----------------------------------- */

static const char *mwaitx_unavailable(void)
{
	if (cpuid(0x80000000).eax < 0x80000001 || !(cpuid(0x80000001).ecx & CPUID_MONITORX))
		return "CPUID.80000001H:ECX[29] (MONITORX/MWAITX)";
	return NULL;
}

static void mwaitx_wait(trigger_t *trigger, struct trigger_wait_state *state, uint64_t deadline)
{
	uint64_t now = cycles(), slice = UMWAIT_SLICE_CYCLES, monitors;
	bool published = false, slept = true;
	/* Its own timer, except under Bochs 2.7 (bug 6) and in a store-only test wait. */
	bool own_timer = !trigger_bochs_no_mwaitx_timer &&
			 (state->irqs_were_enabled || !trigger_monitor_store_only);

	if (deadline && deadline > now && deadline - now < slice)
		slice = deadline - now;
	monitors = trigger_monitorx(&trigger->generation);
	if (trigger_moved(trigger, state) ||
	    ((published = trigger_bochs_sleep_begin(trigger, state)) &&
	     trigger_moved(trigger, state))) {
		slept = false;
	} else if (own_timer) {
		/*
		 * MWAITX's own timer bounds the wait, so it is safe with
		 * interrupts off too; with them on, "sti; mwaitx" as for MWAIT.
		 */
		if (state->irqs_were_enabled) {
			slept = trigger_mwaitx_irqs_on(&trigger->generation, state->seen,
						       trigger_mwait_hint, MWAITX_TIMER_ENABLE,
						       (uint32_t)slice) == TRIGGER_HALT_HALTED;
			if (slept)
				trigger_count_sleep(state);
			sti_relax_cli();	/* as for MWAIT */
		} else {
			trigger_count_sleep(state);
			mwaitx(trigger_mwait_hint, MWAITX_TIMER_ENABLE, (uint32_t)slice);
		}
	} else if (state->irqs_were_enabled) {
		/* Under Bochs 2.7, no MWAITX timer (trigger_bochs.c, bug 6): as for MWAIT. */
		arm_deadline(deadline);
		slept = trigger_mwaitx_irqs_on(&trigger->generation, state->seen,
					       trigger_mwait_hint, 0, 0) == TRIGGER_HALT_HALTED;
		if (slept)
			trigger_count_sleep(state);
		sti_relax_cli();
	} else if (trigger_monitor_store_only) {
		trigger_count_sleep(state);
		mwaitx(trigger_mwait_hint, 0, 0);
	} else if (trigger_interrupt_break()) {
		trigger_bochs_bound_mwaitx(slice);
		trigger_count_sleep(state);
		mwaitx(trigger_mwait_hint, trigger_interrupt_break(), 0);
	} else {
		cpu_local_add(&trigger_counters_here(state->backend->id)->spin_fallbacks, 1);
		arch_cpu_relax();
		slept = false;
	}
	trigger_bochs_sleep_end(trigger, state, published, slept, monitors);
}

/* --- umwait (SDM vol 2: UMONITOR, UMWAIT) --------------------------------------- */

static const char *umwait_unavailable(void)
{
	if (cpuid(0).eax < 7 || !(cpuid_count(7, 0).ecx & CPUID_WAITPKG))
		return "CPUID.(EAX=07H,ECX=0):ECX[5] (WAITPKG)";
	return NULL;
}

/*
 * IA32_UMWAIT_CONTROL (SDM vol 2B, UMWAIT; vol 4, MSR 0xE1): bits 31:2 the
 * longest UMWAIT in TSC cycles (0: no limit), bit 0 set forbids C0.2.  The
 * limit bounds every UMWAIT at UMWAIT_SLICE_CYCLES whatever deadline it asks
 * for; a UMWAIT it ends sets CF on hardware (Bochs 3.0 sets none,
 * cpu/mwait.cc: its assert_CF() is commented out).  Per CPU: written on the
 * CPU that calls, on each as it comes online (arch_trigger_cpu_online()).
 * The store-only test wait lifts it (0) so that only the store can end that
 * wait; the limit test sets a short one.
 */
static uint64_t umwait_os_limit_returns;

void trigger_umwait_set_limit(uint32_t limit_cycles)
{
	wrmsr_safe(MSR_UMWAIT_CONTROL, limit_cycles & ~3u);
}

void arch_trigger_cpu_online(void)
{
	/* test_break=umwait_no_limit: the APs keep their reset value, no limit. */
	if (cpu_id() != 0 && test_break_given(TEST_BREAK_UMWAIT_NO_LIMIT))
		return;
	if (umwait_unavailable() == NULL)
		trigger_umwait_set_limit(UMWAIT_SLICE_CYCLES);	/* bit 0 clear: C0.2 allowed */
}

uint32_t trigger_umwait_boot_limit(void)
{
	return UMWAIT_SLICE_CYCLES & ~3u;
}

uint64_t trigger_umwait_os_limit_returns(void)
{
	return __atomic_load_n(&umwait_os_limit_returns, __ATOMIC_RELAXED);
}

static void umwait_wait(trigger_t *trigger, struct trigger_wait_state *state, uint64_t deadline)
{
	uint64_t now = cycles(), until = now + UMWAIT_SLICE_CYCLES, monitors;
	bool published = false;

	if (deadline && deadline < until)
		until = deadline;
	/* Store-only (a test): no deadline of its own; the test lifts the OS limit (above). */
	if (trigger_monitor_store_only && !deadline)
		until = UINT64_MAX;
	monitors = trigger_umonitor(&trigger->generation);
	if (trigger_moved(trigger, state) ||
	    ((published = trigger_bochs_sleep_begin(trigger, state)) &&
	     trigger_moved(trigger, state))) {
		trigger_bochs_sleep_end(trigger, state, published, false, monitors);
		return;
	}
	/*
	 * UMWAIT ends at the TSC deadline (and at IA32_UMWAIT_CONTROL's
	 * limit), on a store to the line, or on an interrupt; it needs no IF,
	 * so with interrupts off the slice bounds it.
	 */
	trigger_count_sleep(state);
	if (state->irqs_were_enabled)
		sti();
	if (umwait(UMWAIT_C0_2, until))
		__atomic_fetch_add(&umwait_os_limit_returns, 1, __ATOMIC_RELAXED);
	if (state->irqs_were_enabled)
		sti_relax_cli();	/* as for MWAIT */
	cli();
	trigger_bochs_sleep_end(trigger, state, published, true, monitors);
}

/* --- Write-back memory only ------------------------------------------------------ */

/*
 * MONITOR, MONITORX and UMONITOR arm only on write-back memory (SDM vol 2,
 * MONITOR and UMONITOR; AMD APM vol 3, MONITORX): elsewhere a store need
 * not end the wait.  Bochs 2.7 shows it: with CR0.CD set its MONITOR does
 * nothing (cpu/mwait.cc at REL_2_7_FINAL: the memtype1 check).
 */
const char *trigger_backend_memory_refusal(enum trigger_backend_id backend)
{
	if (backend != TRIGGER_BACKEND_MWAIT && backend != TRIGGER_BACKEND_MWAITX &&
	    backend != TRIGGER_BACKEND_UMWAIT)
		return NULL;
	return memtype_trigger_memory_problem();
}

/* --- The table -------------------------------------------------------------------- */

struct trigger_backend trigger_backends[TRIGGER_BACKEND_COUNT] = {
	[TRIGGER_BACKEND_SPIN] = { TRIGGER_BACKEND_SPIN, "spin", NULL, spin_wait, true },
	[TRIGGER_BACKEND_MWAIT] = { TRIGGER_BACKEND_MWAIT, "mwait", mwait_unavailable, mwait_wait,
				    true },
	[TRIGGER_BACKEND_HLT] = { TRIGGER_BACKEND_HLT, "hlt", NULL, hlt_wait, false },
	[TRIGGER_BACKEND_ADAPTIVE] = { TRIGGER_BACKEND_ADAPTIVE, "adaptive", NULL, adaptive_wait,
				       false },
	[TRIGGER_BACKEND_MWAITX] = { TRIGGER_BACKEND_MWAITX, "mwaitx", mwaitx_unavailable,
				     mwaitx_wait, true },
	[TRIGGER_BACKEND_UMWAIT] = { TRIGGER_BACKEND_UMWAIT, "umwait", umwait_unavailable,
				     umwait_wait, true },
};

/* --- Boot: measure, then choose ------------------------------------------------------ */

static volatile uint64_t mwait_probe_line[TRIGGER_CACHE_LINE / 8]
	__attribute__((aligned(TRIGGER_CACHE_LINE)));
static bool mwait_sleeps;

bool trigger_mwait_sleeps(void)
{
	return mwait_sleeps;
}

/*
 * Does MWAIT really sleep here?  Arm a 2 ms one-shot timer, MONITOR a line
 * nobody writes and MWAIT with interrupts enabled: a CPU that sleeps is
 * woken by the timer; under QEMU TCG with more than one vCPU MWAIT returns
 * at once (docs/emulators.md).
 *
 * Host scheduling can stop the vCPU anywhere, which makes single tries
 * misleading: stopped between arming the timer and the MWAIT, the timer is
 * already due when the wait begins, so even a sleeping MWAIT returns at
 * once; stopped just after a MWAIT that returned at once, the timer's
 * interrupt is taken late and the stay looks like a sleep.  So a try only
 * counts if the wait began within the first half of the timer (else it is
 * retried); it slept if the timer's interrupt ended it at least half the
 * timer after arming, it returned at once if it ended before that with no
 * interrupt; anything else (an early interrupt left pending from before,
 * another interrupt) is retried too.  The majority of three counted tries
 * decides; the longest stay of a counted try is kept for the log.
 */
#define MWAIT_PROBE_TIMER_NS	2000000ull
#define MWAIT_PROBE_COUNTED	3
#define MWAIT_PROBE_TRIES	12

struct mwait_probe {
	unsigned int slept, returned_at_once, retried;
	uint64_t longest_us;
};

static struct mwait_probe mwait_probe;

enum mwait_try_result { MWAIT_TRY_SLEPT, MWAIT_TRY_RETURNED_AT_ONCE, MWAIT_TRY_UNCLEAR };

static enum mwait_try_result mwait_try(uint64_t *stayed_us)
{
	uint64_t half_timer = ns_to_cycles(MWAIT_PROBE_TIMER_NS / 2);
	unsigned long ticks = this_cpu()->timer_ticks;
	bool enabled = local_irq_save(), ticked;
	uint64_t armed, began, ended;

	armed = cycles();
	timer_oneshot(MWAIT_PROBE_TIMER_NS);
	trigger_monitor(mwait_probe_line);
	began = cycles();
	sti_mwait(0, 0);
	cli();
	ended = cycles();
	ticked = this_cpu()->timer_ticks != ticks;
	timer_stop();
	local_irq_restore(enabled);
	*stayed_us = cycles_to_ns(ended - began) / 1000;
	if (began - armed >= half_timer)
		return MWAIT_TRY_UNCLEAR;
	if (ticked && ended - armed >= half_timer)
		return MWAIT_TRY_SLEPT;
	if (!ticked && ended - armed < half_timer)
		return MWAIT_TRY_RETURNED_AT_ONCE;
	return MWAIT_TRY_UNCLEAR;
}

static void measure_mwait_sleeps(void)
{
	struct mwait_probe *probe = &mwait_probe;

	for (int i = 0; i < MWAIT_PROBE_TRIES &&
	     probe->slept + probe->returned_at_once < MWAIT_PROBE_COUNTED; i++) {
		uint64_t stayed_us;

		switch (mwait_try(&stayed_us)) {
		case MWAIT_TRY_SLEPT:
			probe->slept++;
			break;
		case MWAIT_TRY_RETURNED_AT_ONCE:
			probe->returned_at_once++;
			break;
		case MWAIT_TRY_UNCLEAR:
			probe->retried++;
			continue;
		}
		if (stayed_us > probe->longest_us)
			probe->longest_us = stayed_us;
	}
	/* Too few counted tries to tell: believe it does not sleep (never chosen blind). */
	mwait_sleeps = probe->slept > probe->returned_at_once &&
		       probe->slept + probe->returned_at_once == MWAIT_PROBE_COUNTED;
}

static void nothing(void *unused)
{
}

/*
 * The cost of waking a halted CPU with an IPI, as a cross-CPU call to an
 * idle AP sees it: the adaptive backend spins for about that long before
 * it halts, since a shorter wait would cost more asleep than awake.  The
 * fastest of a few calls, not their median: what the host adds (a vCPU
 * thread waiting for a host CPU) is no cost of the wake-up, and spinning
 * longer only takes the host CPU from the CPU that would kick.  With the
 * median, 10 of 439 boots on this project's 2-core machine under other
 * work measured 2.8-4.7 ms and spun for the 2 ms cap (the 90th percentile
 * was 87 us, the median 6.4 us).
 */
static uint64_t measure_ipi_wake_ns(int busy_cpu)
{
	uint64_t fastest = UINT64_MAX;
	unsigned int target = 0;

	/* Any idle AP; the busy one (the watchdog's) only if it is the only one. */
	for (unsigned int i = 1; i < cpus_present(); i++) {
		if (cpu_is_online(i) && (!target || (int)target == busy_cpu))
			target = i;
	}
	if (!target)
		return 0;
	for (unsigned int round = 0; round < 7; round++) {
		uint64_t start, nanoseconds;

		udelay(200);	/* let it go back to sleep */
		start = cycles();
		if (!smp_run_on(target, nothing, NULL, 1000000000ull))
			return 0;
		nanoseconds = cycles_to_ns(cycles() - start);
		if (nanoseconds < fastest)
			fastest = nanoseconds;
	}
	return fastest;
}

void arch_trigger_boot_probe(struct trigger_arch_facts *facts, uint32_t mwait_hint,
			     int busy_cpu)
{
	facts->memory_problem = memtype_trigger_memory_problem();
	facts->ipi_wake_ns = measure_ipi_wake_ns(busy_cpu);
	facts->mwait_available = mwait_unavailable() == NULL;

	trigger_nmi_init();
	trigger_bochs_init();				/* before the probe arms a monitor */
	trigger_mwait_hint = mwait_hint;
	if (facts->mwait_available)
		measure_mwait_sleeps();
	arch_trigger_cpu_online();			/* the BSP's; each AP's in ap_entry() */
	facts->mwait_sleeps = mwait_sleeps;
	facts->mwait_slept = mwait_probe.slept;
	facts->mwait_returned_at_once = mwait_probe.returned_at_once;
	facts->mwait_retried = mwait_probe.retried;
	facts->mwait_longest_us = mwait_probe.longest_us;
	facts->virtualized = hypervisor_info()->cpuid_hypervisor_bit;
	facts->pv_kick = trigger_pv_kick_available();
}

/* --- Test hooks ---------------------------------------------------------------------- */

void trigger_set_broken_hlt(bool broken)
{
	trigger_hlt_broken = broken;
}

void trigger_set_halt_window_delay(uint64_t nanoseconds)
{
	trigger_halt_window_delay_cycles = ns_to_cycles(nanoseconds);
}

bool trigger_halt_window_widened(void)
{
	return __atomic_load_n(&trigger_halt_window_delay_cycles, __ATOMIC_RELAXED) != 0;
}

void trigger_set_before_recheck_hook(void (*hook)(void))
{
	__atomic_store_n(&trigger_before_recheck_hook, hook, __ATOMIC_RELEASE);
}

void trigger_set_irqs_on_window_unmarked(bool unmarked)
{
	__atomic_store_n(&trigger_irqs_on_window_unmarked, unmarked, __ATOMIC_RELEASE);
}
