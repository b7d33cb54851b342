// SPDX-License-Identifier: MIT
/*
 * I/O APICs: only looked at, never programmed (trigos routes no device
 * interrupt).  A MADT from another machine (tools/run --acpi-tables) lists
 * I/O APICs QEMU lacks; their MMIO is unassigned and reads 0 (all ones on
 * some real chipsets), so the version register tells a present one.
 *
 * Register access is indirect (82093AA I/O APIC datasheet, 3.1): the
 * register's index is written to IOREGSEL (base + 0x00), its value read
 * from IOWIN (base + 0x10).  Register 1 is IOAPICVER: version in bits 0-7,
 * the highest redirection entry in bits 16-23.
 */
#include <asm/apic.h>
#include <mm/memory.h>

#define IO_APIC_REGISTER_SELECT	0x00
#define IO_APIC_WINDOW		0x10
#define IO_APIC_VERSION		0x01

uint32_t io_apic_version(uint64_t base)
{
	volatile uint32_t *registers;

	if (base & 0xf)
		return 0;
	/* Identity-mapped: the register block is at its physical address. */
	if (!map_phys(base & ~(uint64_t)(PAGE_SIZE - 1), PAGE_SIZE, MAP_WRITE | MAP_UNCACHED))
		return 0;
	registers = (volatile uint32_t *)(uintptr_t)base;
	registers[IO_APIC_REGISTER_SELECT / 4] = IO_APIC_VERSION;
	return registers[IO_APIC_WINDOW / 4];
}
