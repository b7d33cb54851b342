// SPDX-License-Identifier: MIT
#include <console.h>
#include <ktap.h>
#include <lib/format.h>

#define KEPT_NOTES_MAX		48
#define KEPT_NOTE_SIZE		CONSOLE_LINE_MAX

static char kept_notes[KEPT_NOTES_MAX][KEPT_NOTE_SIZE];
static unsigned int kept_count, dropped_count;
static bool header_printed, holding;
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
	unsigned int slot;
	va_list args;

	va_start(args, format);
	vsnprintf(line, sizeof(line), format, args);
	va_end(args);
	if (header_printed && !__atomic_load_n(&holding, __ATOMIC_ACQUIRE)) {
		kprintf("%*s# %s\n", (int)(indent_level * 4), "", line);
		return;
	}
	/* While held, an AP may note something too: each takes its own slot. */
	slot = __atomic_fetch_add(&kept_count, 1, __ATOMIC_ACQ_REL);
	if (slot >= KEPT_NOTES_MAX) {
		__atomic_fetch_add(&dropped_count, 1, __ATOMIC_RELAXED);
		return;
	}
	snprintf(kept_notes[slot], KEPT_NOTE_SIZE, "%s", line);
}

void ktap_flush_notes(void)
{
	unsigned int count = __atomic_exchange_n(&kept_count, 0, __ATOMIC_ACQ_REL);

	for (unsigned int i = 0; i < count && i < KEPT_NOTES_MAX; i++)
		kprintf("# %s\n", kept_notes[i]);
	if (dropped_count)
		kprintf("# (%u more boot notes were dropped)\n", dropped_count);
	dropped_count = 0;
}

void ktap_hold_notes(void)
{
	__atomic_store_n(&holding, true, __ATOMIC_RELEASE);
}

void ktap_release_notes(void)
{
	__atomic_store_n(&holding, false, __ATOMIC_RELEASE);
	if (header_printed)
		ktap_flush_notes();
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
	if (!__atomic_load_n(&holding, __ATOMIC_ACQUIRE))
		ktap_flush_notes();
}
