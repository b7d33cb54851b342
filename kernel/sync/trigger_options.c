// SPDX-License-Identifier: MIT
/*
 * The trigger's command-line options: the backend and its tuning (trigger=,
 * trigger_spin_ns=, mwait_hint=, read by trigger_boot_init() from kmain),
 * and the test-only switches that break a trigger property on purpose so
 * that the test of that property is seen to fail (test_break=,
 * test_drop_kick=; tests/matrix.cfg has a section for each that expects
 * the failure).  Never for real runs.
 */
#include <trigos/options.h>
#include <trigos/smp.h>
#include <trigos/smp_call.h>
#include <trigos/spinlock.h>
#include <trigos/stop_machine.h>
#include <trigos/trigger_backend.h>

static bool parse_trigger(const struct cmdline_word *word, const char **error)
{
	int backend = word->has_value ? trigger_backend_from_name(word->value, word->value_length) : -1;

	if (backend < 0)
		return false;
	kernel_options.trigger_backend = backend;
	return true;
}
KERNEL_OPTION(trigger, "auto, spin, mwait, hlt, adaptive, mwaitx or umwait", parse_trigger);

static bool parse_trigger_spin_ns(const struct cmdline_word *word, const char **error)
{
	unsigned int value;

	if (!option_parse_number(word, error, 0, 100000000, &value))
		return false;
	kernel_options.trigger_spin_ns = value;
	return true;
}
KERNEL_OPTION(trigger_spin_ns, "nanoseconds, 0..100000000 (0: measured)", parse_trigger_spin_ns);

static bool parse_mwait_hint(const struct cmdline_word *word, const char **error)
{
	return option_parse_number(word, error, 0, 0xff, &kernel_options.mwait_hint);
}
KERNEL_OPTION(mwait_hint, "MWAIT's EAX hint, 0..255 (0: C1)", parse_mwait_hint);

/* The test_break= names outside the trigger core, in TEST_BREAK_* bit order (options.h). */
static const char *const test_break_names[] = {
	"cr0_cd",
	"bochs_monitor_operand",
	"bochs_wake_ipi",
	"store_kick_elsewhere",
	"store_kicker_monitors",
	"umwait_no_limit",
};

static bool parse_test_break(const struct cmdline_word *word, const char **error)
{
	int mode = word->has_value ? trigger_test_break_from_name(word->value, word->value_length)
				   : -1;

	if (mode >= 0) {
		kernel_options.test_break = mode;
		return true;
	}
	mode = cmdline_value_index(word, test_break_names,
				   sizeof(test_break_names) / sizeof(test_break_names[0]));
	if (mode < 0)
		return false;
	kernel_options.test_breaks |= 1u << mode;
	return true;
}
KERNEL_OPTION(test_break, "halt_window, kick, kick_fence, cr0_cd, bochs_monitor_operand, "
			  "bochs_wake_ipi, store_kick_elsewhere, store_kicker_monitors or "
			  "umwait_no_limit (tests that must then fail)", parse_test_break);

/*
 * test_late_waiter_us=N: not a break but the load a shared CI host puts on
 * the trigger suite - each waiter that another CPU must kick pauses N us
 * after saying it is about to wait, before its first wait, as a vCPU the
 * host deschedules there does.  The cases must still pass: the kicker waits
 * until the waiter has entered its wait (trigger_cpu_entered_wait()); a
 * fixed delay instead would kick a waiter still on its way, which finds
 * its condition set and never waits (matrix section trigger-late-waiters).
 */
static bool parse_test_late_waiter_us(const struct cmdline_word *word, const char **error)
{
	return option_parse_number(word, error, 0, 1000000, &kernel_options.test_late_waiter_us);
}
KERNEL_OPTION(test_late_waiter_us, "microseconds, 0..1000000 (0: none)",
	      parse_test_late_waiter_us);

/*
 * test_late_kicker_us=N: the other half of that load - a kicker that has
 * waited until its waiter is where the kick must find it (trigger_wake_paths'
 * NMI helper: the waiter about to re-check) pauses N us before its kick, as a
 * vCPU the host deschedules there does.  The cases must still pass: what
 * they judge may not depend on the kick coming within a fixed time (matrix
 * section trigger-late-kickers).
 */
static bool parse_test_late_kicker_us(const struct cmdline_word *word, const char **error)
{
	return option_parse_number(word, error, 0, 1000000, &kernel_options.test_late_kicker_us);
}
KERNEL_OPTION(test_late_kicker_us, "microseconds, 0..1000000 (0: none)",
	      parse_test_late_kicker_us);

/*
 * test_drop_kick=call|stop_machine|mcs|bringup: one converted user's kicks
 * are dropped (its setter lives beside its kick), so that the suite that
 * checks that user's waits is seen to fail.
 */
static bool parse_test_drop_kick(const struct cmdline_word *word, const char **error)
{
	static const struct {
		const char *user;
		void (*drop)(bool drop);
	} users[] = {
		{ "call", smp_call_test_drop_kicks },
		{ "stop_machine", stop_machine_test_drop_kicks },
		{ "mcs", spinlock_test_drop_mcs_kicks },
		{ "bringup", smp_test_drop_bringup_kicks },
	};

	for (size_t i = 0; i < sizeof(users) / sizeof(users[0]); i++) {
		if (cmdline_value_is(word, users[i].user)) {
			users[i].drop(true);
			return true;
		}
	}
	return false;
}
KERNEL_OPTION(test_drop_kick, "call, stop_machine, mcs or bringup (its suite must then fail)",
	      parse_test_drop_kick);

/*
 * test_late_target=call|stop_machine: once, the CPU that a converted user
 * waits for comes late, past the user's stuck deadline (it holds, interrupts
 * off, until the waiter has reported it), as a vCPU that a loaded host does
 * not run for over a second.  The suite that checks that user must still
 * pass: a deadline that found the work not yet done is a late kicker, not a
 * lost kick (matrix sections late-target-call, late-target-stop-machine).
 */
static bool parse_test_late_target(const struct cmdline_word *word, const char **error)
{
	if (cmdline_value_is(word, "call"))
		smp_call_test_late_target();
	else if (cmdline_value_is(word, "stop_machine"))
		stop_machine_test_late_target();
	else
		return false;
	return true;
}
KERNEL_OPTION(test_late_target, "call or stop_machine (its suite must still pass)",
	      parse_test_late_target);
