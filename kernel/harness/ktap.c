// SPDX-License-Identifier: MIT
#include <log/console.h>
#include <harness/ktap.h>

static void print_on_console(void *context, const char *text)
{
	kprintf("%s", text);
}

const struct ktap_writer ktap_console = { .print = print_on_console };

void ktap_header(unsigned int suite_count)
{
	/*
	 * Firmware (OVMF) may have left the cursor mid-line with escape
	 * sequences: start with a newline so "KTAP version 1" is at column 0
	 * of a line of its own.
	 */
	kprintf("\n");
	ktap_write_header(&ktap_console, suite_count);
	ktap_log_header_printed();
}
