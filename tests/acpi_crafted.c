// SPDX-License-Identifier: MIT
/*
 * Crafted, malformed ACPI tables, handed over by QEMU's fw_cfg and parsed by
 * the kernel's own code (tests/acpi_image_walk.h, the walk the acpi_walk
 * fuzz target uses), so that each malformation the fuzzers or the classic
 * list (bad checksum, short length, MADT entry of length 0, RSDT pointing
 * at garbage...) is shown to be reported, by name, with the boot going on.
 *
 *	opt/trigos/acpi_crafted		a memory image (lib/memory_image.h),
 *					the RSDP first (tools/acpi-crafted)
 *	opt/trigos/acpi_crafted_expect	text one of the reports must contain
 *
 * tests/matrix.cfg boots one configuration per crafted image.  Without the
 * files (every other boot) the case is skipped.
 */
#include <arch/hypervisor.h>
#include <harness/test.h>
#include <lib/format.h>
#include <lib/string.h>

#include "acpi_image_walk.h"

#define CRAFTED_FILE		"opt/trigos/acpi_crafted"
#define CRAFTED_EXPECT_FILE	"opt/trigos/acpi_crafted_expect"
#define CRAFTED_MAX_SIZE	(64 * 1024)

static uint8_t crafted[CRAFTED_MAX_SIZE];
static char expected[ACPI_MESSAGE_SIZE];
static bool expected_seen;
static size_t reports;
static struct acpi_image_walk walk;	/* about 9 KiB: off the stack */

static void report(void *context, const char *message)
{
	test_diag("%s", message);
	reports++;
	if (strstr(message, expected))
		expected_seen = true;
}

static const struct acpi_reporter crafted_reporter = { .report = report };

static void crafted_tables_are_reported_and_the_run_goes_on(void)
{
	long size = fw_cfg_read_file(CRAFTED_FILE, crafted, sizeof(crafted));
	long expect_size;
	char summary[ACPI_MESSAGE_SIZE];
	struct memory_image image;
	struct memory_image_chunk rsdp;
	struct physical_memory_access memory;

	if (size < 0)
		test_skip("no fw_cfg file " CRAFTED_FILE " (tests/matrix.cfg acpi-crafted-*)");
	ASSERT_LE(size, (long)sizeof(crafted));
	expect_size = fw_cfg_read_file(CRAFTED_EXPECT_FILE, expected, sizeof(expected) - 1);
	ASSERT_GT(expect_size, 0);
	ASSERT_LT(expect_size, (long)sizeof(expected));
	expected[expect_size] = '\0';

	memory_image_init(&image, crafted, (size_t)size);
	memory = memory_image_access(&image);
	ASSERT_TRUE(memory_image_chunk(&image, 0, &rsdp));
	acpi_image_walk(&rsdp, &memory, &crafted_reporter, &walk);
	snprintf(summary, sizeof(summary),
		 "root %s (%s by copy, %s by address), %zu entries, %zu valid; MADT %s, %zu CPUs",
		 walk.is_xsdt ? "XSDT" : "RSDT", acpi_error_name(walk.root_result),
		 acpi_error_name(walk.root_at_result), walk.entries, walk.valid_tables,
		 acpi_error_name(walk.madt_result), walk.madt.cpu_count);
	test_diag("%zu bytes, %zu reports; %s", (size_t)size, reports, summary);
	if (strstr(summary, expected))
		expected_seen = true;
	EXPECT_TRUE(expected_seen);
	if (!expected_seen)
		test_diag("no report contains '%s'", expected);
}

static const struct test_case acpi_crafted_cases[] = {
	TEST_CASE(crafted_tables_are_reported_and_the_run_goes_on),
};
TEST_SUITE(acpi_crafted, acpi_crafted_cases, NULL, NULL);
