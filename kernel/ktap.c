// SPDX-License-Identifier: MIT
#include <console.h>
#include <ktap.h>
#include <lib/format.h>

#define KEPT_NOTES_MAX		48
#define KEPT_NOTE_SIZE		160

static char kept_notes[KEPT_NOTES_MAX][KEPT_NOTE_SIZE];
static unsigned int kept_count, dropped_count;
static bool header_printed;
static unsigned int indent_level;

void ktap_set_indent(unsigned int level)
{
	indent_level = level;
}

bool ktap_header_printed(void)
{
	return header_printed;
}

void ktap_note(const char *format, ...)
{
	char line[CONSOLE_LINE_MAX - 4];
	va_list args;

	va_start(args, format);
	vsnprintf(line, sizeof(line), format, args);
	va_end(args);
	if (header_printed) {
		kprintf("%*s# %s\n", (int)(indent_level * 4), "", line);
		return;
	}
	if (kept_count == KEPT_NOTES_MAX) {
		dropped_count++;
		return;
	}
	snprintf(kept_notes[kept_count++], KEPT_NOTE_SIZE, "%s", line);
}

void ktap_header(unsigned int suite_count)
{
	/*
	 * Firmware (OVMF) may have left the cursor mid-line with escape
	 * sequences: start with a newline so "KTAP version 1" is at column 0
	 * of a line of its own.
	 */
	kprintf("\nKTAP version 1\n1..%u\n", suite_count);
	header_printed = true;
	for (unsigned int i = 0; i < kept_count; i++)
		kprintf("# %s\n", kept_notes[i]);
	if (dropped_count)
		kprintf("# (%u more boot notes were dropped)\n", dropped_count);
}
