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
 *
 * This file measures; how many measurements to take and which rate to
 * believe is decided in kernel/lib/clock_calibration.c (host-tested).  A
 * source whose measurements never agree is passed over; if none agrees,
 * the run says so in a WARNING and is marked unreliable (time.h), and its
 * benchmarks refuse their time figures (kernel/harness/bench.c).
 */
#include <boot/acpi.h>
#include <arch/hypervisor.h>
#include <sync/irq.h>
#include <log/log.h>
#include <lib/format.h>
#include <lib/clock_calibration.h>
#include <lib/random.h>
#include <arch/paging.h>
#include <boot/options.h>
#include <smp/smp.h>
#include <time/time.h>
#include <asm/apic.h>
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
 * One measurement (a window, kernel/lib/clock_calibration.h): the reference
 * counter is read at its start and at its end, each read bracketed by TSC
 * reads.  Between the two reads only the TSC is watched: each read of an
 * emulated counter is an exit that takes the emulator's device lock, which
 * the APs starting meanwhile need too (main.c).  A vCPU the host stops
 * between a reference read and its TSC read widens that bracket, and the
 * decision rejects a window whose brackets leave too much doubt; a stop
 * between the two reads costs nothing, both clocks run on meanwhile.
 *
 * Each bracketed read follows a read whose value is dropped: under QEMU TCG
 * the first counter read after the wait took 1400-18000 TSC cycles, the
 * second 600-1600 (measured here, 2 ms windows against the HPET), and the
 * narrower bracket makes a window's rate 5-10 times more precise.
 *
 * The HPET and PM-timer windows each write their two bracketed reads out in
 * line rather than through one helper taking a read function: under TCG a
 * call between the TSC reads puts the first translation of its return site
 * inside the first bracket, and with such a helper (tried) every calibration
 * rejected its first window (tsc_noise=100: "1 more rejected" in 5 boots of 5,
 * against 0 of 5 written in line).
 */

/* A counter that has not moved in this many TSC cycles does not count. */
#define STUCK_CYCLES		10000000000ull

/*
 * Under QEMU the boot CPU sleeps between a window's reads instead of
 * spinning while APs are starting (main.c starts them before this): a
 * spinning vCPU takes a host CPU from them (AP bring-up at 8 vCPUs on this
 * project's 2-core machine, 30 interleaved boots at host load 5: median
 * 1.61 ms with the boot CPU sleeping here, 1.93 ms with it spinning).  The
 * LAPIC timer that wakes it is not calibrated yet; QEMU's counts
 * nanoseconds of its virtual clock (hw/intc/apic_common.c), 62500 kHz after
 * dividing by 16 as every boot here measures it, so 62500 counts are about
 * 1 ms; any rate would do: the TSC says when the window is over.
 */
#define WAKE_COUNT		62500

static bool sleep_in_windows;

/*
 * During the boot's calibration, once the boot CPU spins (not under QEMU,
 * or every AP online), the LAPIC timer counts freely through the rest of
 * the windows (lapic_timer_count_begin()): its 10 ms measurement against
 * the TSC overlaps these windows instead of following them.  And a spin
 * ends a window on time, where the 1 ms sleeps overshot each of the four
 * by about 1 ms (one 2-vCPU boot's windows of 2, 3, 4 and 2 ms by the
 * 3 GHz guess: 3.6, 4.5, 5.5 and 3.5 ms at 2.69 GHz).
 */
static bool count_lapic_in_windows;

static bool someone_needs_this_host_cpu(void)
{
	return sleep_in_windows && cpus_online() < cpus_present();
}

/*
 * Before calibration the TSC rate is unknown, so a window lasts "about"
 * @milliseconds by the uncalibrated guess of time.c (3 GHz): 0.15x to 30x
 * of that across every plausible TSC, all of it measured, none assumed.
 */
static void wait_cycles_from(uint64_t start, uint64_t cycles_wanted)
{
	while (rdtsc() - start < cycles_wanted) {
		bool enabled;

		if (!someone_needs_this_host_cpu()) {
			if (count_lapic_in_windows)
				lapic_timer_count_begin();
			arch_cpu_relax();
			continue;
		}
		enabled = local_irq_save();
		lapic_timer_oneshot_count(WAKE_COUNT);
		enable_interrupts_and_wait();
		local_irq_disable();
		lapic_timer_stop();
		local_irq_restore(enabled);
	}
}

#define HPET_COUNTER_64BIT	(1ull << 13)	/* COUNT_SIZE_CAP (HPET 1.0a, 2.3.4) */

static bool window_with_hpet(unsigned int milliseconds, struct calibration_window *w)
{
	volatile uint64_t *hpet = hpet_registers();
	uint64_t capabilities, period_fs, start_counter, counter, mask;
	bool enabled;

	if (!hpet)
		return unusable("no usable HPET table");
	capabilities = hpet[HPET_CAPABILITIES / 8];
	period_fs = capabilities >> 32;
	if (period_fs == 0 || period_fs > 100000000)	/* the spec caps it at 100 ns */
		return unusable("implausible counter period");
	mask = (capabilities & HPET_COUNTER_64BIT) ? UINT64_MAX : 0xffffffffull;
	hpet[HPET_CONFIGURATION / 8] |= HPET_ENABLE;
	w->reference_hz = FEMTOSECONDS_PER_SECOND / period_fs;
	enabled = local_irq_save();
	(void)hpet[HPET_MAIN_COUNTER / 8];	/* warms the path: see the window comment */
	w->start_before = rdtsc();
	start_counter = hpet[HPET_MAIN_COUNTER / 8];
	w->start_after = rdtsc();
	local_irq_restore(enabled);
	wait_cycles_from(w->start_after, ns_to_cycles(milliseconds * 1000000ull));
	enabled = local_irq_save();
	(void)hpet[HPET_MAIN_COUNTER / 8];
	w->end_before = rdtsc();
	counter = hpet[HPET_MAIN_COUNTER / 8];
	w->end_after = rdtsc();
	local_irq_restore(enabled);
	w->reference_ticks = (counter - start_counter) & mask;
	if (w->reference_ticks == 0) {
		/* Give it the longest plausible time to move once before giving up. */
		wait_cycles_from(w->end_after, STUCK_CYCLES / 1000);
		if (((hpet[HPET_MAIN_COUNTER / 8] - start_counter) & mask) == 0)
			return unusable("the main counter does not count");
	}
	return true;
}

/* --- ACPI PM timer (ACPI 6.5, 4.8.3.3) ------------------------------------ */

static bool window_with_pm_timer(unsigned int milliseconds, struct calibration_window *w)
{
	const struct acpi_fadt *fadt = acpi_fadt_get();
	struct acpi_gas_access access;
	const volatile uint32_t *mmio = NULL;
	uint32_t mask, first, last;
	uint16_t port = 0;
	bool enabled;

	if (!fadt)
		return unusable("no FADT");
	if (fadt->pm_timer.address == 0)
		return unusable("the FADT lists none");
	/* 4.8.3.3: a 32-bit register (24 counting bits unless TMR_VAL_EXT). */
	if (acpi_fadt_register_access(fadt, ACPI_FADT_PM_TIMER, &access) != ACPI_OK ||
	    access.bytes != 4)
		return unusable("malformed timer register");
	if (access.space_id == ACPI_GAS_SYSTEM_IO)
		port = (uint16_t)access.address;
	else if (access.space_id == ACPI_GAS_SYSTEM_MEMORY)
		mmio = map_phys(access.address, 4, MAP_UNCACHED);
	if (!port && !mmio)
		return unusable("timer register neither I/O nor mappable memory");
	/* 24 bits wrap after 4.7 s, far beyond any window: one difference suffices. */
	mask = fadt->pm_timer_32bit ? 0xffffffffu : 0xffffffu;
	w->reference_hz = PM_TIMER_HZ;
	enabled = local_irq_save();
	(void)(mmio ? *mmio : inl(port));	/* warms the path: see the window comment */
	w->start_before = rdtsc();
	first = (mmio ? *mmio : inl(port)) & mask;
	w->start_after = rdtsc();
	local_irq_restore(enabled);
	wait_cycles_from(w->start_after, ns_to_cycles(milliseconds * 1000000ull));
	enabled = local_irq_save();
	(void)(mmio ? *mmio : inl(port));
	w->end_before = rdtsc();
	last = (mmio ? *mmio : inl(port)) & mask;
	w->end_after = rdtsc();
	local_irq_restore(enabled);
	w->reference_ticks = (last - first) & mask;
	/* A register that never moves is no timer (or a wrong address). */
	if (w->reference_ticks == 0)
		return unusable("the counter does not count");
	return true;
}

/* --- PIT channel 2 (8254 data sheet: mode 0, gate through port 0x61) ------ */

static bool window_with_pit(unsigned int milliseconds, struct calibration_window *w)
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
	w->reference_ticks = ticks;
	w->reference_hz = PIT_HZ;
	return true;
}

static bool measure_window(enum clock_source source, unsigned int milliseconds,
			   struct calibration_window *w)
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

/*
 * tsc_noise=N (test only): N % of the windows lie the way QEMU's PIT did
 * under host load, their reference ending late so that the TSC seems
 * 1.05x-4x faster, to show that a noisy clock is reported, not trusted.
 */
static unsigned int tsc_noise_percent;

static bool parse_tsc_noise(const struct cmdline_word *word, const char **error)
{
	return option_parse_number(word, error, 0, 100, &tsc_noise_percent);
}
KERNEL_OPTION(tsc_noise, "a percentage, 0..100", parse_tsc_noise);

static void lie_if_asked(struct calibration_window *w)
{
	static struct random_state random;
	static bool seeded;

	if (tsc_noise_percent == 0)
		return;
	if (!seeded) {
		random_seed(&random, kernel_options.seed);
		seeded = true;
	}
	if (random_below(&random, 100) < tsc_noise_percent)
		w->reference_ticks = w->reference_ticks * (25 + random_below(&random, 71)) / 100;
}

/* One window long enough to dilute a stop of a few milliseconds (the PIT's limit is 55 ms). */
#define LONG_WINDOW_MILLISECONDS	50

uint64_t measure_tsc_against(enum clock_source source, unsigned int milliseconds,
			     struct calibration *calibration)
{
	struct calibration ignored, *c = calibration ? calibration : &ignored;
	struct calibration_window w;

	calibration_begin(c, &calibration_limits_default);
	if (source == CLOCK_SOURCE_CPUID) {
		c->hz = hz_from_cpuid();
		c->state = c->hz ? CALIBRATION_AGREED : CALIBRATION_FAILED;
		return c->hz;
	}
	while (c->state == CALIBRATION_MEASURING) {
		/*
		 * Three lengths in turn: a stop that lengthens windows by a
		 * fixed time skews each length differently, so stops do not
		 * agree with each other by accident.
		 */
		if (!measure_window(source, milliseconds + c->taken % 3, &w))
			return 0;
		lie_if_asked(&w);
		calibration_add(c, &w);
	}
	if (c->state == CALIBRATION_DISAGREED &&
	    measure_window(source, LONG_WINDOW_MILLISECONDS, &w)) {
		lie_if_asked(&w);
		calibration_settle(c, &w);
	}
	if (c->state == CALIBRATION_FAILED)
		return unusable("every measurement was disturbed (a reference read took too long)");
	return c->hz;
}

/* Windows of 2, 3, 4 and 2 ms: 11 ms when the first four agree. */
#define CALIBRATION_MILLISECONDS 2

/*
 * A measured frequency outside this range is a broken clock, not a CPU.  The
 * slowest TSC met is Bochs's at tools/run's cheapest setting, ips=100000000,
 * where the TSC counts 100 MHz exactly and a measurement lands a little
 * above or below it: the bound keeps a margin under that (at exactly 100 MHz
 * it rejected the HPET in some builds and not in others).
 */
#define PLAUSIBLE_MIN_HZ	50000000ull
#define PLAUSIBLE_MAX_HZ	20000000000ull

static void print_mhz(char *buffer, size_t size, uint64_t hz)
{
	scnprintf(buffer, size, "%llu.%03llu", (unsigned long long)(hz / 1000000),
		  (unsigned long long)(hz / 1000 % 1000));
}

static void report(enum clock_source source, const struct calibration *c)
{
	char mhz[24], lowest[24], highest[24];

	print_mhz(mhz, sizeof(mhz), c->hz);
	print_mhz(lowest, sizeof(lowest), c->lowest_hz);
	print_mhz(highest, sizeof(highest), c->highest_hz);
	if (c->state == CALIBRATION_UNRELIABLE) {
		ktap_note("WARNING: time: the TSC calibration is unreliable: at most %u of %u "
			  "windows against the %s agreed (spread %s-%s MHz, %u more rejected); "
			  "%s MHz is one %u ms window's. Time-outs may be off by as much, and "
			  "benchmarks report no time figures in this run", c->agreeing, c->kept,
			  clock_source_name(source), lowest, highest, c->rejected, mhz,
			  LONG_WINDOW_MILLISECONDS);
		return;
	}
	ktap_note("time: TSC %s MHz from the %s%s", mhz, clock_source_name(source),
		  tsc_calibration.invariant ? ", invariant" : ", not marked invariant");
	if (c->taken)
		ktap_note("time: %u of %u windows of %u-%u ms agreed, spread %s-%s MHz (%u more "
			  "rejected: a reference read was interrupted)", c->agreeing, c->kept,
			  CALIBRATION_MILLISECONDS, CALIBRATION_MILLISECONDS + 2, lowest, highest,
			  c->rejected);
}

void tsc_calibrate(void)
{
	static const enum clock_source order[] = {
		CLOCK_SOURCE_CPUID, CLOCK_SOURCE_HPET, CLOCK_SOURCE_PM_TIMER, CLOCK_SOURCE_PIT,
	};
	static struct calibration c, guess;	/* 300 bytes each: off the stack */
	enum clock_source source = CLOCK_SOURCE_NONE, guess_source = CLOCK_SOURCE_NONE;
	char passed_over[200] = "";
	size_t used = 0;
	uint64_t hz = 0;

	tsc_calibration.invariant = cpuid(0x80000000).eax >= 0x80000007 &&
				    (cpuid(0x80000007).edx & (1u << 8));
	sleep_in_windows = running_under_qemu();
	count_lapic_in_windows = true;
	for (size_t i = 0; hz == 0 && i < sizeof(order) / sizeof(order[0]); i++) {
		source = order[i];
		not_used_because = "no reason given";
		hz = measure_tsc_against(source, CALIBRATION_MILLISECONDS, &c);
		if (hz && (hz < PLAUSIBLE_MIN_HZ || hz > PLAUSIBLE_MAX_HZ)) {
			hz = 0;
			not_used_because = "implausible frequency";
		} else if (hz && c.state == CALIBRATION_UNRELIABLE) {
			/* Kept as the guess unless a later source agrees with itself. */
			if (guess_source == CLOCK_SOURCE_NONE) {
				guess = c;
				guess_source = source;
			}
			hz = 0;
			not_used_because = "its windows disagreed";
		}
		if (hz == 0)
			used += (size_t)scnprintf(&passed_over[used], sizeof(passed_over) - used,
						  "%s%s: %s", used ? "; " : "",
						  clock_source_name(source), not_used_because);
	}
	sleep_in_windows = false;
	count_lapic_in_windows = false;
	if (hz == 0 && guess_source != CLOCK_SOURCE_NONE) {
		c = guess;
		source = guess_source;
		hz = c.hz;
	}
	if (hz == 0) {
		ktap_note("WARNING: time: no clock to calibrate the TSC against (%s); assuming "
			  "3 GHz: time-outs may be off by any factor, and benchmarks report no time "
			  "figures in this run", passed_over);
		return;
	}
	tsc_calibration.hz = hz;
	tsc_calibration.source = source;
	tsc_calibration.reliable = c.state == CALIBRATION_AGREED;
	report(source, &c);
	if (used)
		ktap_note("time: passed over %s", passed_over);
}
