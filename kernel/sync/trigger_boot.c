// SPDX-License-Identifier: MIT
/*
 * The trigger's boot choice.  The arch probes and reports facts
 * (arch_trigger_boot_probe(): which wait instructions exist, whether every
 * CPU sees the trigger memory as write-back, whether MWAIT was seen to
 * sleep, what an IPI wake-up of a halted CPU costs); this file decides the
 * backend and the adaptive backend's spin budget from those facts and the
 * options (trigger=, trigger_spin_ns=, mwait_hint=: trigger_options.c), and
 * says what it chose and why.
 */
#include <log/log.h>
#include <sync/trigger_backend.h>
#include <sync/trigger_core.h>
#include <time/time.h>
#include <lib/format.h>

uint64_t trigger_spin_budget_cycles;
static uint64_t spin_budget_ns;

uint64_t trigger_spin_budget_ns(void)
{
	return spin_budget_ns;
}

/* What boot_select() chose; tests put it back after switching. */
static enum trigger_backend_id boot_choice = TRIGGER_BACKEND_SPIN;

enum trigger_backend_id trigger_backend_boot_choice(void)
{
	return boot_choice;
}

enum trigger_backend_id trigger_choose_auto(bool mwait_available, bool mwait_sleeps,
					    bool virtualized, bool memory_write_back,
					    const char **reason)
{
	if (virtualized) {
		*reason = "under a hypervisor only a halt gives the host CPU back: adaptive";
		return TRIGGER_BACKEND_ADAPTIVE;
	}
	if (mwait_available && !memory_write_back) {
		*reason = "some CPU does not see the trigger memory as write-back, and MONITOR "
			  "watches only that: adaptive";
		return TRIGGER_BACKEND_ADAPTIVE;
	}
	if (mwait_available && mwait_sleeps) {
		*reason = "bare metal, and MWAIT was seen to sleep: mwait";
		return TRIGGER_BACKEND_MWAIT;
	}
	*reason = mwait_available ? "MWAIT did not sleep when measured: adaptive"
				  : "no MONITOR/MWAIT: adaptive";
	return TRIGGER_BACKEND_ADAPTIVE;
}

/* Why the backend trigger= asked for cannot run ("" if it can): the run fails, as a typo does. */
static char request_refusal[200];

const char *trigger_backend_request_refusal(void)
{
	return request_refusal[0] ? request_refusal : NULL;
}

static void boot_select(enum trigger_backend_id requested, bool mwait_available,
			bool mwait_sleeps, bool virtualized, bool memory_write_back)
{
	const char *reason = NULL, *missing;
	enum trigger_backend_id chosen;

	if (requested != TRIGGER_BACKEND_AUTO && (missing = trigger_backend_unavailable(requested))) {
		/*
		 * A user who asked for this backend must not believe it was
		 * tested: the tests run on auto's choice, and the run fails.
		 */
		if (missing == trigger_backend_memory_refusal(requested))
			snprintf(request_refusal, sizeof(request_refusal),
				 "trigger=%s cannot run: %s, and MONITOR watches write-back memory "
				 "only", trigger_backend_name(requested), missing);
		else
			snprintf(request_refusal, sizeof(request_refusal),
				 "trigger=%s cannot run: this CPU lacks %s",
				 trigger_backend_name(requested), missing);
		ktap_note("trigger: %s; the tests use auto and the run fails (trigger=auto asks "
			  "for the best available)", request_refusal);
		requested = TRIGGER_BACKEND_AUTO;
	}
	if (requested == TRIGGER_BACKEND_AUTO)
		chosen = trigger_choose_auto(mwait_available, mwait_sleeps, virtualized,
					     memory_write_back, &reason);
	else
		chosen = requested;
	trigger_backend_set(chosen);
	boot_choice = chosen;
	ktap_note("trigger: backend %s (%s)", trigger_backend_name(chosen),
		  reason ? reason : "trigger= on the command line");
}

static void report_unavailable(void)
{
	for (int i = 0; i < TRIGGER_BACKEND_COUNT; i++) {
		const char *missing = trigger_backend_unavailable(i);

		if (missing && missing == trigger_backend_memory_refusal(i))
			ktap_note("trigger: %s refused for this run: %s (not exercised)",
				  trigger_backend_name(i), missing);
		else if (missing)
			ktap_note("trigger: %s unavailable: no %s (not exercised on this machine)",
				  trigger_backend_name(i), missing);
	}
}

#define DEFAULT_SPIN_BUDGET_NS	20000ull	/* without a second CPU to measure with */
#define MAX_SPIN_BUDGET_NS	2000000ull

void trigger_boot_init(int busy_cpu)
{
	struct trigger_arch_facts facts = { 0 };
	uint64_t budget_ns = trigger_options.spin_ns;

	arch_trigger_boot_probe(&facts, trigger_options.mwait_hint, busy_cpu);

	spin_budget_ns = budget_ns ? budget_ns :
				     (facts.ipi_wake_ns ? facts.ipi_wake_ns : DEFAULT_SPIN_BUDGET_NS);
	if (spin_budget_ns > MAX_SPIN_BUDGET_NS)
		spin_budget_ns = MAX_SPIN_BUDGET_NS;
	trigger_spin_budget_cycles = ns_to_cycles(spin_budget_ns);

	boot_select(trigger_options.backend, facts.mwait_available, facts.mwait_sleeps,
		    facts.virtualized, facts.memory_problem == NULL);
	ktap_note("trigger: spin budget %llu ns (%s); IPI wake-up of a halted CPU %llu ns",
		  (unsigned long long)spin_budget_ns,
		  budget_ns ? "trigger_spin_ns=" : facts.ipi_wake_ns ? "measured" : "default, one CPU",
		  (unsigned long long)facts.ipi_wake_ns);
	if (facts.mwait_available) {
		ktap_note("trigger: MWAIT %s (stayed %llu us for a 2 ms timer)",
			  facts.mwait_sleeps ? "sleeps" : "does not sleep here",
			  (unsigned long long)facts.mwait_longest_us);
		ktap_note("trigger: MWAIT probe: %u tries slept, %u returned at once, "
			  "%u retried (the vCPU was stopped or another interrupt came)",
			  facts.mwait_slept, facts.mwait_returned_at_once, facts.mwait_retried);
	}
	report_unavailable();
	if (facts.pv_kick)
		ktap_note("trigger: hlt kicks through KVM's PV_UNHALT hypercall");
}
