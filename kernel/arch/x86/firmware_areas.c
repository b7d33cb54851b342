// SPDX-License-Identifier: MIT
/*
 * PC firmware areas.  The BIOS data area lives in page 0, which paging.c
 * leaves unmapped so that NULL faults, so its two fields of interest are read
 * once here, while the boot map still covers page 0, and kept:
 *  - 0x40E: the segment of the extended BIOS data area (EBDA), where the
 *    RSDP and the MP floating pointer may be (ACPI 5.2.5.1, MP spec 4);
 *  - 0x413: the size of base memory in KiB.
 * UEFI machines have no BDA: nothing is read there.
 *
 * Also the ranges the page allocator must never hand out, even where a
 * memory map calls them available: page 0 (IVT and BDA) and the EBDA.
 */
#include <arch/paging.h>
#include <mm/memory_setup.h>
#include <asm/bios.h>

#define BDA_EBDA_SEGMENT	0x40e
#define BDA_BASE_MEMORY_KIB	0x413
#define EBDA_LOWEST		0x80000
#define EBDA_END		0xa0000

static uint64_t ebda_address;
static uint64_t base_memory_end;

static uint16_t read_bda_field(uintptr_t offset)
{
	/* Through a variable: GCC rejects a small constant address as a pointer. */
	volatile uintptr_t address = offset;

	return *(const volatile uint16_t *)address;
}

size_t arch_firmware_reserved_ranges(const struct boot_info *info, struct physical_range *ranges,
				     size_t capacity)
{
	size_t count = 0;

	if (capacity < 2)
		return 0;
	ranges[count++] = (struct physical_range){ 0, PAGE_SIZE };
	if (info->efi_boot)
		return count;

	ebda_address = (uint64_t)read_bda_field(BDA_EBDA_SEGMENT) << 4;
	base_memory_end = (uint64_t)read_bda_field(BDA_BASE_MEMORY_KIB) * 1024;
	/* Trust the pointer only where an EBDA can be. */
	if (ebda_address < EBDA_LOWEST || ebda_address >= EBDA_END)
		ebda_address = 0;
	if (base_memory_end < EBDA_LOWEST || base_memory_end > EBDA_END)
		base_memory_end = 0;
	if (ebda_address)
		ranges[count++] = (struct physical_range){ ebda_address, EBDA_END };
	return count;
}

uint64_t bios_ebda_address(void)
{
	return ebda_address;
}

uint64_t bios_base_memory_end(void)
{
	return base_memory_end;
}
