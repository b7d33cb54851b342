// SPDX-License-Identifier: MIT
/*
 * The trigger's command-line options: the backend and its tuning (trigger=,
 * trigger_spin_ns=, mwait_hint=, read by trigger_boot_init() from kmain),
 * and the test-only switches that break a trigger property on purpose so
 * that the test of that property is seen to fail (test_break=;
 * tests/matrix.cfg has a section for each that expects the failure; the
 * converted users' switches are in kernel/smp/smp_test_seams.c).  Never
 * for real runs.
 */
#include <boot/options.h>
#include <sync/trigger_backend.h>

struct trigger_options trigger_options = { .backend = TRIGGER_BACKEND_AUTO };

static bool parse_trigger(const struct cmdline_word *word, const char **error)
{
	int backend = word->has_value ? trigger_backend_from_name(word->value, word->value_length) : -1;

	if (backend < 0)
		return false;
	trigger_options.backend = backend;
	return true;
}
KERNEL_OPTION(trigger, "auto, spin, mwait, hlt, adaptive, mwaitx or umwait", parse_trigger);

static bool parse_trigger_spin_ns(const struct cmdline_word *word, const char **error)
{
	unsigned int value;

	if (!option_parse_number(word, error, 0, 100000000, &value))
		return false;
	trigger_options.spin_ns = value;
	return true;
}
KERNEL_OPTION(trigger_spin_ns, "nanoseconds, 0..100000000 (0: measured)", parse_trigger_spin_ns);

static bool parse_mwait_hint(const struct cmdline_word *word, const char **error)
{
	return option_parse_number(word, error, 0, 0xff, &trigger_options.mwait_hint);
}
KERNEL_OPTION(mwait_hint, "MWAIT's EAX hint, 0..255 (0: C1)", parse_mwait_hint);

/* Every test_break= name, in TEST_BREAK_* bit order (options.h): their one home. */
static const char *const test_break_names[] = {
	"cr0_cd",
	"bochs_monitor_operand",
	"bochs_wake_ipi",
	"store_kick_elsewhere",
	"store_kicker_monitors",
	"halt_window",
	"kick",
	"kick_fence",
	"example_no_kick",
	"skip_halt",
	"nmi_fixup_iret",
	"umwait_no_limit",
	"probe_warm_late",
	"abandoned_slot",
	"unawaited_work",
	"lapic_window",
};

static bool parse_test_break(const struct cmdline_word *word, const char **error)
{
	int mode = cmdline_value_index(word, test_break_names,
				       sizeof(test_break_names) / sizeof(test_break_names[0]));

	if (mode < 0)
		return false;
	kernel_options.test_breaks |= 1u << mode;
	return true;
}
KERNEL_OPTION(test_break, "halt_window, kick, kick_fence, cr0_cd, bochs_monitor_operand, "
			  "bochs_wake_ipi, store_kick_elsewhere, store_kicker_monitors, example_no_kick, "
			  "skip_halt, nmi_fixup_iret, umwait_no_limit, probe_warm_late, abandoned_slot, "
			  "unawaited_work or lapic_window (tests that must then fail)",
	      parse_test_break);

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
