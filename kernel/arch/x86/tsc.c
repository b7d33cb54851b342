// SPDX-License-Identifier: MIT
/*
 * TSC frequency: from CPUID when the CPU states it, else measured against
 * a timer of known frequency, trying HPET, the ACPI PM timer, then the PIT
 * (legacy-free machines may lack the PIT; QEMU has all three).
 *
 * CPUID 0x15 gives TSC/crystal ratio and, on newer parts, the crystal
 * frequency; 0x16 the base frequency in MHz.  QEMU TCG's highest basic leaf
 * is 0xD and a higher leaf returns leaf 0xD's data (docs/emulators.md), so
 * CPUID.0:EAX is checked before either is read.
 *
 * Each source is found from ACPI (the HPET table; the FADT's PM_TMR_BLK or
 * X_PM_TMR_BLK, an I/O port or memory), the PIT is assumed nowhere: it is
 * tried last and only believed if its output pin behaves like one.  Why
 * each earlier source was passed over is printed with the choice.
 */
#include <acpi.h>
#include <ktap.h>
#include <lib/format.h>
#include <lib/statistics.h>
#include <memory.h>
#include <time.h>
#include <asm/instructions.h>

#define PM_TIMER_HZ		3579545ull
#define PIT_HZ			1193182ull
#define HPET_CAPABILITIES	0x000
#define HPET_CONFIGURATION	0x010
#define HPET_MAIN_COUNTER	0x0f0
#define HPET_ENABLE		(1ull << 0)
#define FEMTOSECONDS_PER_SECOND	1000000000000000ull

#define PIT_CHANNEL2_DATA	0x42
#define PIT_COMMAND		0x43
#define PIT_GATE_PORT		0x61	/* bit 0: channel 2 gate, bit 5: its output */

/* Why the last measurement returned 0, for the boot log. */
static const char *not_used_because;

static uint64_t unusable(const char *why)
{
	not_used_because = why;
	return 0;
}

static uint64_t hz_from_cpuid(void)
{
	uint32_t max_leaf = cpuid(0).eax;
	struct cpuid_result leaf;

	if (max_leaf >= 0x15) {
		leaf = cpuid(0x15);
		/* EAX denominator, EBX numerator, ECX crystal Hz (0: not enumerated). */
		if (leaf.eax && leaf.ebx && leaf.ecx)
			return (uint64_t)leaf.ecx * leaf.ebx / leaf.eax;
	}
	if (max_leaf >= 0x16) {
		leaf = cpuid(0x16);
		if (leaf.eax & 0xffff)
			return (uint64_t)(leaf.eax & 0xffff) * 1000000;
	}
	return unusable(max_leaf < 0x15 ? "leaves absent" : "frequencies not enumerated");
}

/* --- HPET (IA-PC HPET specification 1.0a, 2.3) ---------------------------- */

static volatile uint64_t *hpet_registers(void)
{
	static volatile uint64_t *registers;
	const struct acpi_tables *tables = acpi_tables_get();
	struct acpi_hpet hpet;
	const void *table;
	uint32_t length;

	if (registers)
		return registers;
	if (!tables || !(table = acpi_tables_find(tables, "HPET", 0, &length)) ||
	    acpi_hpet_parse(table, length, &hpet) != ACPI_OK ||
	    hpet.base.space_id != ACPI_GAS_SYSTEM_MEMORY || hpet.base.address == 0)
		return NULL;
	registers = map_phys(hpet.base.address, 1024, MAP_WRITE | MAP_UNCACHED);
	return registers;
}

/*
 * One measurement: the reference counter is read at its start and at its
 * end, each read bracketed by TSC reads.  A vCPU the host stops between a
 * reference read and its TSC read skews the ratio by as long as it was
 * stopped (seen: +26% over 20 ms under a host load of 35), so a bracket
 * that took too long rejects the measurement; a stop between the two
 * reference reads costs nothing, both clocks run on meanwhile.
 */
struct reference_window {
	uint64_t start_before, start_after;	/* TSC around the first reference read */
	uint64_t end_before, end_after;		/* TSC around the last */
	uint64_t ticks;				/* reference ticks between the two */
	uint64_t reference_hz;
};

/* A reference read that took longer (20 us at 10 GHz, 2 ms at 100 MHz) was interrupted. */
#define BRACKET_MAX_CYCLES	200000ull
/* A counter that has not moved for this many TSC cycles does not count. */
#define STUCK_CYCLES		10000000000ull

static bool window_with_hpet(unsigned int milliseconds, struct reference_window *w)
{
	volatile uint64_t *hpet = hpet_registers();
	uint64_t period_fs, ticks_wanted, start_counter, counter;

	if (!hpet)
		return unusable("no usable HPET table");
	period_fs = hpet[HPET_CAPABILITIES / 8] >> 32;
	if (period_fs == 0 || period_fs > 100000000)	/* the spec caps it at 100 ns */
		return unusable("implausible counter period");
	hpet[HPET_CONFIGURATION / 8] |= HPET_ENABLE;
	ticks_wanted = (uint64_t)milliseconds * 1000000000000ull / period_fs;
	w->reference_hz = FEMTOSECONDS_PER_SECOND / period_fs;
	w->start_before = rdtsc();
	start_counter = hpet[HPET_MAIN_COUNTER / 8];
	w->start_after = rdtsc();
	do {
		w->end_before = rdtsc();
		counter = hpet[HPET_MAIN_COUNTER / 8];
		w->end_after = rdtsc();
		if (counter == start_counter && w->end_after - w->start_after > STUCK_CYCLES)
			return unusable("the main counter does not count");
	} while (counter - start_counter < ticks_wanted);
	w->ticks = counter - start_counter;
	return true;
}

/* --- ACPI PM timer (ACPI 6.5, 4.8.3.3) ------------------------------------ */

static bool window_with_pm_timer(unsigned int milliseconds, struct reference_window *w)
{
	const struct acpi_fadt *fadt = acpi_fadt_get();
	uint64_t mask, ticks_wanted, elapsed = 0;
	struct acpi_gas_access access;
	const volatile uint32_t *mmio = NULL;
	uint32_t previous, current;
	uint16_t port = 0;

	if (!fadt)
		return unusable("no FADT");
	if (fadt->pm_timer.address == 0)
		return unusable("the FADT lists none");
	/* 4.8.3.3: a 32-bit register (24 counting bits unless TMR_VAL_EXT). */
	if (acpi_gas_decode(&fadt->pm_timer, 4, &access) != ACPI_OK || access.bytes != 4)
		return unusable("malformed timer register");
	if (access.space_id == ACPI_GAS_SYSTEM_IO)
		port = (uint16_t)access.address;
	else if (access.space_id == ACPI_GAS_SYSTEM_MEMORY)
		mmio = map_phys(access.address, 4, MAP_UNCACHED);
	if (!port && !mmio)
		return unusable("timer register neither I/O nor mappable memory");
	mask = fadt->pm_timer_32bit ? 0xffffffffull : 0xffffffull;
	ticks_wanted = PM_TIMER_HZ * milliseconds / 1000;
	w->reference_hz = PM_TIMER_HZ;
	w->start_before = rdtsc();
	previous = (mmio ? *mmio : inl(port)) & mask;
	w->start_after = rdtsc();
	/* Accumulate differences so that the 24-bit counter's wrap is harmless. */
	do {
		w->end_before = rdtsc();
		current = (mmio ? *mmio : inl(port)) & mask;
		w->end_after = rdtsc();
		elapsed += (current - previous) & mask;
		previous = current;
		/* A register that never moves is no timer (or a wrong address). */
		if (elapsed == 0 && w->end_after - w->start_after > STUCK_CYCLES)
			return unusable("the counter does not count");
	} while (elapsed < ticks_wanted);
	w->ticks = elapsed;
	return true;
}

/* --- PIT channel 2 (8254 data sheet: mode 0, gate through port 0x61) ------ */

static bool window_with_pit(unsigned int milliseconds, struct reference_window *w)
{
	uint64_t ticks = PIT_HZ * milliseconds / 1000;
	uint8_t gate;

	if (ticks > 0xffff)
		ticks = 0xffff;		/* about 55 ms, the most one count gives */
	gate = inb(PIT_GATE_PORT);
	outb(PIT_GATE_PORT, (gate & ~0x02) | 0x01);	/* gate on, speaker off */
	outb(PIT_COMMAND, 0xb0);	/* channel 2, lobyte/hibyte, mode 0, binary */
	outb(PIT_CHANNEL2_DATA, ticks & 0xff);
	/* Counting starts once the high byte is written: that write is the start. */
	w->start_before = rdtsc();
	outb(PIT_CHANNEL2_DATA, (uint8_t)(ticks >> 8));
	w->start_after = rdtsc();
	/*
	 * Mode 0 drives OUT2 low once the count is written: a pin that is
	 * already high is no PIT (where nothing decodes port 0x61 it reads 0xff).
	 */
	if (inb(PIT_GATE_PORT) & 0x20) {
		outb(PIT_GATE_PORT, gate);
		return unusable("no PIT answers (its output is high before counting)");
	}
	/*
	 * OUT2 goes high when the count reaches zero, between the last poll
	 * that saw it low and the first that sees it high: those two bracket
	 * the end.  Bounded in case there is no PIT.
	 */
	w->end_before = rdtsc();
	for (uint64_t spins = 0; !(inb(PIT_GATE_PORT) & 0x20); spins++) {
		if (spins > 100000000) {
			outb(PIT_GATE_PORT, gate);
			return unusable("its output never went high");
		}
		w->end_before = rdtsc();
	}
	w->end_after = rdtsc();
	outb(PIT_GATE_PORT, gate);
	w->ticks = ticks;
	w->reference_hz = PIT_HZ;
	return true;
}

static bool measure_window(enum clock_source source, unsigned int milliseconds,
			   struct reference_window *w)
{
	switch (source) {
	case CLOCK_SOURCE_HPET:
		return window_with_hpet(milliseconds, w);
	case CLOCK_SOURCE_PM_TIMER:
		return window_with_pm_timer(milliseconds, w);
	case CLOCK_SOURCE_PIT:
		return window_with_pit(milliseconds, w);
	case CLOCK_SOURCE_CPUID:
	case CLOCK_SOURCE_NONE:
		break;
	}
	return unusable("not a counter");
}

static uint64_t bracket_middle(uint64_t before, uint64_t after)
{
	return before + (after - before) / 2;
}

/*
 * The median of the accepted measurements: a measurement stretched by a
 * stop short enough to pass the bracket check cannot move a median of five.
 */
uint64_t measure_tsc_against(enum clock_source source, unsigned int milliseconds,
			     struct tsc_measurements *stats)
{
	uint64_t samples[TSC_MEASUREMENTS_WANTED];
	struct tsc_measurements ignored;
	struct reference_window w;

	if (!stats)
		stats = &ignored;
	*stats = (struct tsc_measurements){ 0 };
	if (source == CLOCK_SOURCE_CPUID)
		return hz_from_cpuid();
	while (stats->accepted < TSC_MEASUREMENTS_WANTED && stats->taken < TSC_MEASUREMENTS_MAX) {
		if (!measure_window(source, milliseconds, &w))
			return 0;
		stats->taken++;
		if (w.start_after - w.start_before > BRACKET_MAX_CYCLES ||
		    w.end_after - w.end_before > BRACKET_MAX_CYCLES || w.ticks == 0) {
			stats->rejected++;
			continue;
		}
		samples[stats->accepted++] =
			mul_div_u64(bracket_middle(w.end_before, w.end_after) -
				    bracket_middle(w.start_before, w.start_after),
				    w.reference_hz, w.ticks);
	}
	if (stats->accepted == 0)
		return unusable("every measurement was disturbed (a reference read took too long)");
	stats->hz = median_u64(samples, stats->accepted);
	stats->lowest_hz = samples[0];		/* median_u64() sorted them */
	stats->highest_hz = samples[stats->accepted - 1];
	return stats->hz;
}

#define CALIBRATION_MILLISECONDS 5

/* A measured frequency outside this range is a broken clock, not a CPU. */
#define PLAUSIBLE_MIN_HZ	100000000ull
#define PLAUSIBLE_MAX_HZ	20000000000ull

static void print_mhz(char *buffer, size_t size, uint64_t hz)
{
	scnprintf(buffer, size, "%llu.%03llu", (unsigned long long)(hz / 1000000),
		  (unsigned long long)(hz / 1000 % 1000));
}

void tsc_calibrate(void)
{
	static const enum clock_source order[] = {
		CLOCK_SOURCE_CPUID, CLOCK_SOURCE_HPET, CLOCK_SOURCE_PM_TIMER, CLOCK_SOURCE_PIT,
	};
	struct tsc_measurements stats = { 0 };
	char passed_over[200] = "", mhz[24], lowest[24], highest[24];
	size_t used = 0;
	uint64_t hz = 0;
	enum clock_source source = CLOCK_SOURCE_NONE;

	tsc_calibration.invariant = cpuid(0x80000000).eax >= 0x80000007 &&
				    (cpuid(0x80000007).edx & (1u << 8));
	for (size_t i = 0; hz == 0 && i < sizeof(order) / sizeof(order[0]); i++) {
		source = order[i];
		not_used_because = "no reason given";
		hz = measure_tsc_against(source, CALIBRATION_MILLISECONDS, &stats);
		if (hz && (hz < PLAUSIBLE_MIN_HZ || hz > PLAUSIBLE_MAX_HZ)) {
			hz = 0;
			not_used_because = "implausible frequency";
		}
		if (hz == 0)
			used += (size_t)scnprintf(&passed_over[used], sizeof(passed_over) - used,
						  "%s%s: %s", used ? "; " : "",
						  clock_source_name(source), not_used_because);
	}
	if (hz == 0) {
		ktap_note("time: no clock to calibrate the TSC against (%s); assuming 3 GHz",
			  passed_over);
		return;
	}
	tsc_calibration.hz = hz;
	tsc_calibration.source = source;
	print_mhz(mhz, sizeof(mhz), hz);
	ktap_note("time: TSC %s MHz from the %s%s", mhz, clock_source_name(source),
		  tsc_calibration.invariant ? ", invariant" : ", not marked invariant");
	if (stats.taken) {
		print_mhz(lowest, sizeof(lowest), stats.lowest_hz);
		print_mhz(highest, sizeof(highest), stats.highest_hz);
		ktap_note("time: the median of %u measurements of %u ms, spread %s-%s MHz "
			  "(%u taken, %u rejected: a reference read was interrupted)",
			  stats.accepted, CALIBRATION_MILLISECONDS, lowest, highest,
			  stats.taken, stats.rejected);
	}
	if (used)
		ktap_note("time: passed over %s", passed_over);
}
