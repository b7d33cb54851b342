// SPDX-License-Identifier: MIT
/*
 * Harness self-tests: suites that fail, fault, skip, panic or hang on
 * purpose, so that `make test` can prove that each of those is reported as
 * what it is and never turns a run green (tests/matrix.cfg boots them with
 * test=selftest_... and checks the verdict and the lines).  The runner
 * leaves selftest_* suites out unless test= names them.
 */
#include <boot/boot.h>
#include <log/console.h>
#include <sync/irq.h>
#include <mm/memory.h>
#include <log/panic.h>
#include <smp/smp.h>
#include <harness/test.h>
#include <lib/string.h>

static void passes(void)
{
	EXPECT_EQ(1 + 1, 2);
}

static void expectation_fails_and_case_goes_on(void)
{
	static volatile int reached;

	EXPECT_EQ(1 + 1, 3);
	reached = 1;
	/* Reached despite the failed EXPECT: this one fails too, visibly. */
	EXPECT_EQ(reached, 2);
}

static void assertion_ends_the_case(void)
{
	ASSERT_TRUE(false);
	test_diag("this line must never be printed");
}

static void fault_is_reported_as_error(void)
{
	volatile uint8_t *volatile nowhere = (volatile uint8_t *)0x10;

	(void)*nowhere;
}

static void skip_is_reported_as_skip(void)
{
	test_skip("deliberately skipped");
}

static const struct test_case outcome_cases[] = {
	TEST_CASE(passes),
	TEST_CASE(expectation_fails_and_case_goes_on),
	TEST_CASE(assertion_ends_the_case),
	TEST_CASE(fault_is_reported_as_error),
	TEST_CASE(skip_is_reported_as_skip),
};
TEST_SUITE(selftest_outcomes, outcome_cases, NULL, NULL);

static void panics(void)
{
	panic("deliberate panic from a self-test");
}

static const struct test_case panic_cases[] = {
	TEST_CASE(panics),
};
TEST_SUITE(selftest_panic, panic_cases, NULL, NULL);

/*
 * A console backend that panics while it prints: the panic comes while this
 * CPU holds the console lock, in the middle of a line.  Its report must
 * still reach every console, the screen included (the matrix checks the
 * CRASH banner in a screendump).  It panics only once: the report's own
 * lines pass through it too.
 */
static bool console_panic_armed;

static void panicking_write(const char *text, size_t length)
{
	if (console_panic_armed) {
		console_panic_armed = false;
		panic("deliberate panic inside a console write (console lock held)");
	}
}

static struct console_backend panicking_backend = {
	.name = "selftest-panicking",
	.write = panicking_write,
};

static void panics_holding_the_console_lock(void)
{
	console_register(&panicking_backend);
	console_panic_armed = true;
	kprintf("    # this line's write panics in the self-test backend\n");
	console_unregister(&panicking_backend);	/* not reached */
}

static const struct test_case console_panic_cases[] = {
	TEST_CASE(panics_holding_the_console_lock),
};
TEST_SUITE(selftest_console_panic, console_panic_cases, NULL, NULL);

/*
 * The screen console's own drawing faults, with the console lock held: the
 * framebuffer is unmapped under it.  The fault report re-enters the screen
 * console on this CPU, faults again, and the screen console must then give
 * up (not recurse, not deadlock) so that the report reaches the serial log.
 * A fault inside a fault report is fatal: the run ends as a CRASH.
 */
static void screen_drawing_faults(void)
{
	const struct boot_framebuffer *framebuffer = &boot_info.framebuffer;
	char names[64];

	console_backend_names(names, sizeof(names));
	if (!strstr(names, "screen"))
		test_skip("no screen console");
	unmap_range(framebuffer->address, (uint64_t)framebuffer->pitch * framebuffer->height);
	kprintf("    # this line faults in the screen console\n");	/* the run ends here */
}

static const struct test_case screen_fault_cases[] = {
	TEST_CASE(screen_drawing_faults),
};
TEST_SUITE(selftest_screen_fault, screen_fault_cases, NULL, NULL);

static void hangs(void)
{
	/*
	 * A hang the runner cannot see, with interrupts off so that no tick
	 * gets in: only the watchdog's NMI or the host's timeout ends it.
	 */
	local_irq_disable();
	for (;;)
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

static const struct test_case hang_cases[] = {
	TEST_CASE(hangs),
};
TEST_SUITE(selftest_hang, hang_cases, NULL, NULL);

static void only_skips(void)
{
	test_skip("nothing to run here");
}

static const struct test_case skip_cases[] = {
	TEST_CASE(only_skips),
};
TEST_SUITE(selftest_all_skipped, skip_cases, NULL, NULL);

/*
 * On a helper CPU: an ASSERT or test_skip() ends that CPU's part only; its
 * work slot completes (smp_wait_for() returns), the case is failed or
 * skipped - a failure winning - and the run goes on (selftest-helper-cpu).
 * Each case also shows its round under repeat=2.
 */
static unsigned long helper_reached;

static void helper_asserts(void *unused)
{
	ASSERT_EQ_MSG(cpu_id(), 0u, "a deliberate failure on the helper");
	helper_reached = 1;	/* never: the ASSERT ended this part */
}

static void helper_skips(void *unused)
{
	test_skip("cpu %u skips its part", cpu_id());
}

static void helper_expects_and_skips(void *unused)
{
	EXPECT_NE(cpu_id(), cpu_id());
	test_skip("a skip after a failure");
}

/* The helper: any online CPU but this one. */
static unsigned int a_helper(void)
{
	for (unsigned int i = 0; i < cpus_present(); i++) {
		if (i != cpu_id() && cpu_is_online(i))
			return i;
	}
	test_skip("one CPU: no helper");
}

static void assert_on_a_helper_fails_the_case(void)
{
	unsigned int helper = a_helper();

	helper_reached = 0;
	ASSERT_TRUE(smp_run_on(helper, helper_asserts, NULL, 2000000000ull));
	EXPECT_EQ(helper_reached, 0u);
	test_diag("the helper's work slot completed; the case went on");
}

static void skip_on_a_helper_skips_the_case(void)
{
	ASSERT_TRUE(smp_run_on(a_helper(), helper_skips, NULL, 2000000000ull));
}

static void failure_on_a_helper_wins_over_its_skip(void)
{
	ASSERT_TRUE(smp_run_on(a_helper(), helper_expects_and_skips, NULL, 2000000000ull));
}

static const struct test_case helper_cpu_cases[] = {
	TEST_CASE(assert_on_a_helper_fails_the_case),
	TEST_CASE(skip_on_a_helper_skips_the_case),
	TEST_CASE(failure_on_a_helper_wins_over_its_skip),
};
TEST_SUITE(selftest_helper_cpu, helper_cpu_cases, NULL, NULL);
