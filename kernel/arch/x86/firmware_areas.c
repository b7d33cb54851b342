// SPDX-License-Identifier: MIT
/*
 * PC firmware areas the page allocator must never hand out, even where a
 * memory map calls them available: the real-mode IVT and BIOS data area
 * (page 0), and on BIOS boots the extended BIOS data area, whose segment the
 * BDA holds at 0x40E.  UEFI machines have no BDA: nothing is read there.
 */
#include <memory.h>
#include <memory_setup.h>

#define BDA_EBDA_SEGMENT	0x40e
#define EBDA_LOWEST		0x80000
#define EBDA_END		0xa0000

size_t arch_firmware_reserved_ranges(const struct boot_info *info, struct physical_range *ranges,
				     size_t capacity)
{
	size_t count = 0;

	if (capacity < 2)
		return 0;
	ranges[count++] = (struct physical_range){ 0, PAGE_SIZE };
	if (!info->efi_boot) {
		/* Through a variable: GCC rejects a constant small address as a pointer. */
		volatile uintptr_t bda_field = BDA_EBDA_SEGMENT;
		uint64_t ebda = (uint64_t)*(const volatile uint16_t *)bda_field << 4;

		/* Trust the pointer only where an EBDA can be. */
		if (ebda >= EBDA_LOWEST && ebda < EBDA_END)
			ranges[count++] = (struct physical_range){ ebda, EBDA_END };
	}
	return count;
}
