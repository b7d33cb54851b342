// SPDX-License-Identifier: MIT
/*
 * The kernel's log: the "# ..." diagnostic lines every subsystem writes with
 * ktap_note(), kept while they may not be printed yet (before the KTAP
 * header, while the APs start) and printed in order afterwards.  It sits at
 * the bottom with the console, so that any folder may note something; the
 * harness on top only tells it when the header is out (ktap_header()).
 */
#include <log/console.h>
#include <log/log.h>
#include <lib/format.h>
#include <lib/string.h>

/*
 * Notes kept before the header or while held: one after the other, each
 * with its NUL, as many as fit (a boot keeps about 20; a machine whose
 * CPUs fail to start adds one each).
 */
#define KEPT_BYTES		16384

static char kept_text[KEPT_BYTES];
static unsigned int kept_used, dropped_count;
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

/* While held, an AP may note something too: each reserves its own bytes. */
static bool keep(const char *line)
{
	unsigned int length = (unsigned int)strlen(line) + 1;
	unsigned int at = __atomic_load_n(&kept_used, __ATOMIC_RELAXED);

	do {
		if (at + length > KEPT_BYTES)
			return false;
	} while (!__atomic_compare_exchange_n(&kept_used, &at, at + length, false,
					      __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
	memcpy(&kept_text[at], line, length);
	return true;
}

/* @now: print even while held (ktap_note_now()); before the header every note is kept. */
static void note(bool now, const char *format, va_list args)
{
	char line[CONSOLE_LINE_MAX - 4];

	vsnprintf(line, sizeof(line), format, args);
	if (header_printed && (now || !__atomic_load_n(&holding, __ATOMIC_ACQUIRE))) {
		kprintf("%*s# %s\n", (int)(indent_level * 4), "", line);
		return;
	}
	if (keep(line))
		return;
	if (!header_printed) {
		__atomic_fetch_add(&dropped_count, 1, __ATOMIC_RELAXED);
		return;
	}
	/* Held, and no room left (dump=, many CPUs failing): better late than lost. */
	ktap_flush_notes();
	kprintf("# %s\n", line);
}

void ktap_note(const char *format, ...)
{
	va_list args;

	va_start(args, format);
	note(false, format, args);
	va_end(args);
}

void ktap_note_now(const char *format, ...)
{
	va_list args;

	va_start(args, format);
	note(true, format, args);
	va_end(args);
}

void ktap_flush_notes(void)
{
	unsigned int used = __atomic_exchange_n(&kept_used, 0, __ATOMIC_ACQ_REL);

	for (unsigned int at = 0; at < used; at += (unsigned int)strlen(&kept_text[at]) + 1)
		kprintf("# %s\n", &kept_text[at]);
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

void ktap_log_header_printed(void)
{
	header_printed = true;
	if (!__atomic_load_n(&holding, __ATOMIC_ACQUIRE))
		ktap_flush_notes();
}
