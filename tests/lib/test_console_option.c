// SPDX-License-Identifier: MIT
/* Tests for kernel/lib/console_option.c. */
#include <harness/test.h>
#include <lib/console_option.h>
#include <lib/string.h>

static const char *parse(const char *text, struct console_spec *spec)
{
	return console_spec_parse(text, strlen(text), spec);
}

static void serial_ports_and_baud_rates(void)
{
	struct console_spec spec;

	EXPECT_NULL(parse("ttyS1,115200", &spec));
	EXPECT_EQ(spec.kind, CONSOLE_KIND_SERIAL);
	EXPECT_EQ(spec.port, 1u);
	EXPECT_EQ(spec.baud, 115200u);
	EXPECT_NULL(parse("ttyS3", &spec));
	EXPECT_EQ(spec.port, 3u);
	EXPECT_EQ(spec.baud, CONSOLE_DEFAULT_BAUD);
	EXPECT_NULL(parse("ttyS0,9600n8", &spec));
	EXPECT_EQ(spec.port, 0u);
	EXPECT_EQ(spec.baud, 9600u);
}

static void screen_names(void)
{
	struct console_spec spec = { CONSOLE_KIND_SERIAL, 2, 9600 };

	EXPECT_NULL(parse("fb", &spec));
	EXPECT_EQ(spec.kind, CONSOLE_KIND_SCREEN);
	spec.kind = CONSOLE_KIND_SERIAL;
	EXPECT_NULL(parse("tty0", &spec));
	EXPECT_EQ(spec.kind, CONSOLE_KIND_SCREEN);
	EXPECT_NULL(parse("auto", &spec));
	EXPECT_EQ(spec.kind, CONSOLE_KIND_AUTO);
	EXPECT_NULL(parse("lp0", &spec));
	EXPECT_EQ(spec.kind, CONSOLE_KIND_PARALLEL);
}

static void bad_values_say_why(void)
{
	static const char *const bad[] = {
		"", "ttyS", "ttyS4", "ttyS12", "ttyS1x", "ttyS1,", "ttyS1,fast",
		"ttyS1,115201", "ttyS1,230400", "ttyS1,7", "ttyS1,9600e7", "tty1", "fbx", "vga", "autox",
		"lp1", "lp", "lp0,9600",
	};
	struct console_spec spec;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (!parse(bad[i], &spec))
			test_report_failure(__FILE__, __LINE__, "console=%s was accepted", bad[i]);
	}
	EXPECT_STREQ(parse("ttyS7", &spec), "only ttyS0..ttyS3 (COM1-COM4) exist");
}

static const struct test_case lib_console_option_cases[] = {
	TEST_CASE(serial_ports_and_baud_rates),
	TEST_CASE(screen_names),
	TEST_CASE(bad_values_say_why),
};
TEST_SUITE(lib_console_option, lib_console_option_cases, NULL, NULL);
