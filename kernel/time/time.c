// SPDX-License-Identifier: MIT
#include <time/time.h>
#include <cpu/cpu.h>
#include <arch/math64.h>

#define UNCALIBRATED_HZ 3000000000ull

struct tsc_calibration tsc_calibration;

static uint64_t boot_cycles;

const char *clock_source_name(enum clock_source source)
{
	switch (source) {
	case CLOCK_SOURCE_CPUID:
		return "CPUID leaf 0x15/0x16";
	case CLOCK_SOURCE_HPET:
		return "HPET";
	case CLOCK_SOURCE_PM_TIMER:
		return "ACPI PM timer";
	case CLOCK_SOURCE_PIT:
		return "PIT";
	case CLOCK_SOURCE_NONE:
		break;
	}
	return "none (uncalibrated)";
}

static uint64_t hz(void)
{
	return tsc_calibration.hz ? tsc_calibration.hz : UNCALIBRATED_HZ;
}

/* 128-bit intermediates: cycles * 1e9 overflows 64 bits after ~6 s at 3 GHz. */
uint64_t cycles_to_ns(uint64_t delta)
{
	return mul_div_u64(delta, 1000000000u, hz());
}

uint64_t ns_to_cycles(uint64_t nanoseconds)
{
	return mul_div_u64(nanoseconds, hz(), 1000000000u);
}

void time_mark_boot(void)
{
	boot_cycles = cycles();
}

uint64_t boot_timestamp(void)
{
	return boot_cycles;
}

uint64_t now_ns(void)
{
	return cycles_to_ns(cycles() - boot_cycles);
}

void ndelay(uint64_t nanoseconds)
{
	uint64_t start = cycles(), wait = ns_to_cycles(nanoseconds);

	while (cycles() - start < wait)
		cpu_relax();
}

void udelay(uint64_t microseconds)
{
	ndelay(microseconds * 1000);
}

bool spin_while_unchanged(uint64_t (*read)(void), uint64_t timeout_ns)
{
	uint64_t start = cycles(), wait = ns_to_cycles(timeout_ns), old = read();

	while (read() == old) {
		if (cycles() - start >= wait)
			return false;
		cpu_relax();
	}
	return true;
}
