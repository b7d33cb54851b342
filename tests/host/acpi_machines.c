// SPDX-License-Identifier: MIT
/*
 * Real machines' ACPI tables through trigos's parser (`make check`, with ASan
 * and UBSan), each checked against the facts iasl decoded from the same
 * tables.
 *
 * The input is the unpacked tests/machines/acpi-machines.xz (tools/acpi-machines
 * writes and unpacks it), a sequence of records:
 *
 *	machine NAME\n
 *	expect LENGTH\n	then LENGTH bytes: the facts iasl's decode gives, one a line
 *	image LENGTH\n	then LENGTH bytes: a memory image (lib/memory_image.h),
 *			the RSDP first, of the tables trigos reads
 *
 * For each machine the tables are walked as the kernel walks them
 * (tests/acpi_image_walk.h) and the same facts written from what the
 * parsers return (write_facts()); the machine passes when the two texts are
 * equal.  The facts: enabled CPUs in table order (then online-capable
 * ones), I/O APICs, interrupt overrides, the PM1a/PM1b control and PM timer
 * registers and the reset register with the access width the kernel will
 * use, the HPET, the MCFG windows and \_S5.  Who is right when they differ
 * is decided by the rule tools/trigos/acpi_dump.py cites for each fact
 * (ACPICA's for the FADT registers), not by this program.
 *
 * Usage: acpi-machines FILE [--describe NAME]
 *	--describe: print one machine's reports and facts, nothing else
 *	(tools/acpi-check uses it to speak in the kernel's words).
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lib/acpi_tables.h>
#include <lib/memory_image.h>

#include "../acpi_image_walk.h"

#define FACTS_SIZE	(64 * 1024)
#define MAX_REPORTS	64

struct machine {
	char name[512];
	const char *expect;
	size_t expect_length;
	const uint8_t *image;
	size_t image_length;
};

struct reports {
	char lines[MAX_REPORTS][ACPI_MESSAGE_SIZE];
	size_t count;
};

static struct acpi_image_walk walk;	/* large: not on the stack */
static char facts[FACTS_SIZE];
static size_t facts_used;

static void collect(void *context, const char *message)
{
	struct reports *reports = context;

	if (reports->count < MAX_REPORTS)
		snprintf(reports->lines[reports->count], ACPI_MESSAGE_SIZE, "%s", message);
	reports->count++;
}

static void fact(const char *format, ...) __attribute__((format(printf, 1, 2)));

static void fact(const char *format, ...)
{
	va_list args;
	int written;

	va_start(args, format);
	written = vsnprintf(facts + facts_used, sizeof(facts) - facts_used, format, args);
	va_end(args);
	if (written > 0 && (size_t)written < sizeof(facts) - facts_used - 1) {
		facts_used += (size_t)written;
		facts[facts_used++] = '\n';
		facts[facts_used] = '\0';
	}
}

static const char *space_name(uint8_t space, char *buffer, size_t size)
{
	switch (space) {
	case ACPI_GAS_SYSTEM_MEMORY:
		return "memory";
	case ACPI_GAS_SYSTEM_IO:
		return "io";
	case ACPI_GAS_PCI_CONFIG:
		return "pci";
	}
	snprintf(buffer, size, "%u", space);
	return buffer;
}

/* A FADT register as the kernel will access it; a malformed one says so. */
static void register_fact(const char *name, enum acpi_fadt_register which, const char *suffix)
{
	const struct acpi_generic_address *gas;
	struct acpi_gas_access access;
	char space[8];
	int result = acpi_fadt_register_access(&walk.fadt, which, &access);

	gas = which == ACPI_FADT_PM1A_CONTROL ? &walk.fadt.pm1a_control :
	      which == ACPI_FADT_PM1B_CONTROL ? &walk.fadt.pm1b_control :
	      which == ACPI_FADT_PM_TIMER ? &walk.fadt.pm_timer : &walk.fadt.reset_register;
	if (result == ACPI_ERROR_NOT_FOUND)
		return;
	if (result != ACPI_OK) {
		fact("%s %s 0x%llx %s", name, space_name(gas->space_id, space, sizeof(space)),
		     (unsigned long long)gas->address, acpi_error_name(result));
		return;
	}
	fact("%s %s 0x%llx %u bytes%s", name, space_name(gas->space_id, space, sizeof(space)),
	     (unsigned long long)gas->address, access.bytes, suffix);
}

static const struct acpi_tables *walked_tables;
static const struct acpi_reporter *walk_reporter;	/* --describe's reports */

/* The SPCR's UART when the console could use it (lib: acpi_spcr_uart()). */
static void spcr_fact(void)
{
	struct acpi_gas_access access;
	struct acpi_spcr spcr;
	const char *problem;
	const void *table;
	unsigned int baud;
	uint32_t length;
	char space[8];

	table = acpi_tables_find(walked_tables, "SPCR", 0, &length);
	if (!table || acpi_spcr_parse(table, length, &spcr) != ACPI_OK)
		return;
	problem = acpi_spcr_uart(&spcr, &access, &baud);
	if (problem) {
		acpi_spcr_report_unusable(&spcr, problem, walk_reporter);
		fact("spcr unusable");
		return;
	}
	if (baud)
		fact("spcr %s 0x%llx %u bytes, %u baud",
		     space_name(access.space_id, space, sizeof(space)),
		     (unsigned long long)access.address, access.bytes, baud);
	else
		fact("spcr %s 0x%llx %u bytes, baud as left",
		     space_name(access.space_id, space, sizeof(space)),
		     (unsigned long long)access.address, access.bytes);
}

static void write_facts(void)
{
	char suffix[64];

	facts_used = 0;
	facts[0] = '\0';
	if (walk.madt_result == ACPI_OK) {
		for (size_t i = 0; i < walk.madt.cpu_count; i++) {
			const struct acpi_madt_cpu *cpu = &walk.madt.cpus[i];

			if (cpu->enabled || cpu->online_capable)
				fact("%s 0x%x%s", cpu->enabled ? "cpu" : "online-capable",
				     cpu->apic_id, cpu->from_x2apic_entry ? " x2apic" : "");
		}
		for (size_t i = 0; i < walk.madt.io_apic_count; i++)
			fact("io-apic %u 0x%x gsi %u", walk.madt.io_apics[i].id,
			     walk.madt.io_apics[i].address, walk.madt.io_apics[i].gsi_base);
		for (size_t i = 0; i < walk.madt.override_count; i++)
			fact("override bus %u irq %u gsi %u flags 0x%x", walk.madt.overrides[i].bus,
			     walk.madt.overrides[i].source, walk.madt.overrides[i].gsi,
			     walk.madt.overrides[i].flags);
	}
	if (walk.fadt_result == ACPI_OK) {
		register_fact("pm1a-control", ACPI_FADT_PM1A_CONTROL, "");
		register_fact("pm1b-control", ACPI_FADT_PM1B_CONTROL, "");
		register_fact("pm-timer", ACPI_FADT_PM_TIMER,
			      walk.fadt.pm_timer_32bit ? ", 32 bits" : ", 24 bits");
		snprintf(suffix, sizeof(suffix), ", value 0x%x", walk.fadt.reset_value);
		if (walk.fadt.reset_supported)
			register_fact("reset", ACPI_FADT_RESET, suffix);
	}
	if (walk.hpet_result == ACPI_OK)
		fact("hpet 0x%llx", (unsigned long long)walk.hpet.base.address);
	if (walk.mcfg_result == ACPI_OK) {
		for (size_t i = 0; i < walk.mcfg.allocation_count; i++)
			fact("mcfg 0x%llx segment %u buses %u-%u",
			     (unsigned long long)walk.mcfg.allocations[i].base_address,
			     walk.mcfg.allocations[i].segment_group,
			     walk.mcfg.allocations[i].start_bus, walk.mcfg.allocations[i].end_bus);
	}
	spcr_fact();
	if (walk.s5_result == ACPI_OK)
		fact("s5 %u %u", walk.s5.slp_typ_a, walk.s5.slp_typ_b);
}

/* Walk one machine's image; false if it has no RSDP chunk. */
static bool walk_machine(const struct machine *machine, struct reports *reports)
{
	struct acpi_reporter reporter = { .report = collect, .context = reports };
	struct memory_image image;
	struct memory_image_chunk rsdp;
	struct physical_memory_access memory;
	struct acpi_tables tables;

	memory_image_init(&image, machine->image, machine->image_length);
	memory = memory_image_access(&image);
	if (!memory_image_chunk(&image, 0, &rsdp))
		return false;
	memset(&walk, 0, sizeof(walk));
	walk.root_result = acpi_tables_init(&tables, rsdp.bytes, rsdp.length, &memory, &reporter);
	if (walk.root_result == ACPI_OK)
		acpi_image_walk_tables(&tables, &walk);
	/* What the kernel's boot notes add to the parser's own reports. */
	if (walk.root_result == ACPI_OK && walk.fadt_result == ACPI_OK)
		acpi_fadt_report_register_widths(&walk.fadt, &reporter);
	walked_tables = walk.root_result == ACPI_OK ? &tables : NULL;
	walk_reporter = &reporter;
	write_facts();
	return true;
}

/* Read "KEY VALUE\n" at *cursor; the value is copied to @value. */
static bool read_line(const char **cursor, const char *end, const char *key, char *value,
		      size_t size)
{
	const char *line = *cursor, *newline = memchr(line, '\n', (size_t)(end - line));
	size_t key_length = strlen(key), length;

	if (!newline || (size_t)(newline - line) <= key_length ||
	    strncmp(line, key, key_length) != 0 || line[key_length] != ' ')
		return false;
	length = (size_t)(newline - line) - key_length - 1;
	if (length >= size)
		return false;
	memcpy(value, line + key_length + 1, length);
	value[length] = '\0';
	*cursor = newline + 1;
	return true;
}

static bool read_blob(const char **cursor, const char *end, const char *key, const char **blob,
		      size_t *length)
{
	char number[32];
	char *stop;
	unsigned long long value;

	if (!read_line(cursor, end, key, number, sizeof(number)))
		return false;
	value = strtoull(number, &stop, 10);
	if (*stop || value > (unsigned long long)(end - *cursor))
		return false;
	*blob = *cursor;
	*length = (size_t)value;
	*cursor += value;
	return true;
}

static bool next_machine(const char **cursor, const char *end, struct machine *machine)
{
	const char *image;

	if (*cursor >= end)
		return false;
	if (!read_line(cursor, end, "machine", machine->name, sizeof(machine->name)) ||
	    !read_blob(cursor, end, "expect", &machine->expect, &machine->expect_length) ||
	    !read_blob(cursor, end, "image", &image, &machine->image_length)) {
		fprintf(stderr, "acpi-machines: malformed record after '%s'\n", machine->name);
		exit(3);
	}
	machine->image = (const uint8_t *)image;
	return true;
}

/* Whether @text (@length bytes) has the line @line (@line_length bytes, no newline). */
static bool has_line(const char *text, size_t length, const char *line, size_t line_length)
{
	const char *end = text + length;

	while (text < end) {
		const char *newline = memchr(text, '\n', (size_t)(end - text));
		size_t here = newline ? (size_t)(newline - text) : (size_t)(end - text);

		if (here == line_length && memcmp(text, line, here) == 0)
			return true;
		text += here + 1;
	}
	return false;
}

/* Print the lines only one side has, each side's in its order. */
static void show_lines_missing(const char *from, size_t from_length, const char *in,
			       size_t in_length, char sign)
{
	const char *line = from, *end = from + from_length;

	while (line < end) {
		const char *newline = memchr(line, '\n', (size_t)(end - line));
		size_t length = newline ? (size_t)(newline - line) : (size_t)(end - line);

		if (!has_line(in, in_length, line, length))
			printf("    # %c %.*s\n", sign, (int)length, line);
		line += length + 1;
	}
}

static void show_difference(const char *expected, size_t expected_length)
{
	printf("    # facts differ (- iasl's decode, + trigos; nothing listed: another order)\n");
	show_lines_missing(expected, expected_length, facts, facts_used, '-');
	show_lines_missing(facts, facts_used, expected, expected_length, '+');
}

static char *read_file(const char *path, size_t *size)
{
	FILE *file = fopen(path, "rb");
	char *data;
	long length;

	if (!file || fseek(file, 0, SEEK_END) != 0 || (length = ftell(file)) < 0 ||
	    fseek(file, 0, SEEK_SET) != 0) {
		perror(path);
		exit(3);
	}
	data = malloc((size_t)length + 1);
	if (!data || fread(data, 1, (size_t)length, file) != (size_t)length) {
		perror(path);
		exit(3);
	}
	fclose(file);
	*size = (size_t)length;
	return data;
}

/* What --describe adds to the facts: counts and results the facts leave out. */
static void describe_more(void)
{
	size_t enabled = 0, disabled = 0, online_capable = 0, x2apic = 0;

	printf("info root %s %s, %zu entries, %zu valid\n", walk.is_xsdt ? "XSDT" : "RSDT",
	       acpi_error_name(walk.root_result), walk.entries, walk.valid_tables);
	printf("info madt %s\n", acpi_error_name(walk.madt_result));
	for (size_t i = 0; i < walk.madt.cpu_count; i++) {
		enabled += walk.madt.cpus[i].enabled;
		online_capable += !walk.madt.cpus[i].enabled && walk.madt.cpus[i].online_capable;
		disabled += !walk.madt.cpus[i].enabled && !walk.madt.cpus[i].online_capable;
		x2apic += walk.madt.cpus[i].from_x2apic_entry;
	}
	printf("info cpus %zu listed, %zu enabled, %zu online-capable, %zu disabled, "
	       "%zu x2apic entries, %zu beyond capacity\n",
	       walk.madt.cpu_count + walk.madt.cpus_beyond_capacity, enabled, online_capable,
	       disabled, x2apic, walk.madt.cpus_beyond_capacity);
	printf("info fadt %s revision %u%s\n", acpi_error_name(walk.fadt_result),
	       walk.fadt.revision, walk.fadt.hardware_reduced ? " hardware-reduced" : "");
	printf("info hpet %s\n", acpi_error_name(walk.hpet_result));
	printf("info s5 %s\n", acpi_error_name(walk.s5_result));
}

static int describe(const char *data, size_t size, const char *name)
{
	const char *cursor = data, *end = data + size;
	struct machine machine;
	static struct reports reports;

	while (next_machine(&cursor, end, &machine)) {
		if (strcmp(machine.name, name) != 0)
			continue;
		walk_machine(&machine, &reports);
		for (size_t i = 0; i < reports.count && i < MAX_REPORTS; i++)
			printf("report %s\n", reports.lines[i]);
		if (reports.count > MAX_REPORTS)
			printf("report (%zu more)\n", reports.count - MAX_REPORTS);
		printf("%s", facts);
		describe_more();
		return 0;
	}
	fprintf(stderr, "acpi-machines: no machine '%s'\n", name);
	return 3;
}

int main(int argc, char **argv)
{
	size_t size, count = 0, failed = 0, number = 0;
	const char *cursor, *end;
	struct machine machine;
	static struct reports reports;
	char *data;

	if (argc != 2 && !(argc == 4 && strcmp(argv[2], "--describe") == 0)) {
		fprintf(stderr, "usage: %s FILE [--describe NAME]\n", argv[0]);
		return 3;
	}
	data = read_file(argv[1], &size);
	if (argc == 4) {
		int status = describe(data, size, argv[3]);

		free(data);
		return status;
	}
	for (cursor = data, end = data + size; next_machine(&cursor, end, &machine);)
		count++;
	printf("KTAP version 1\n1..1\n    KTAP version 1\n    # Subtest: acpi_machines\n");
	printf("    1..%zu\n", count);
	for (cursor = data; next_machine(&cursor, end, &machine);) {
		bool same;

		memset(&reports, 0, sizeof(reports));
		number++;
		if (!walk_machine(&machine, &reports)) {
			printf("    # %s: no RSDP chunk in the image\n", machine.name);
			same = false;
		} else {
			same = facts_used == machine.expect_length &&
			       memcmp(facts, machine.expect, facts_used) == 0;
			if (!same)
				show_difference(machine.expect, machine.expect_length);
		}
		failed += !same;
		printf("    %sok %zu %s\n", same ? "" : "not ", number, machine.name);
	}
	printf("    # acpi_machines: %zu machines, %zu agree with iasl's decode, %zu differ\n",
	       count, count - failed, failed);
	printf("%sok 1 acpi_machines\n", failed ? "not " : "");
	printf("# RESULT: %s\n", failed ? "FAIL" : "PASS");
	free(data);
	return failed ? 1 : 0;
}
