// SPDX-License-Identifier: MIT
/* From the memory map to the page allocator and the final page tables. */
#include <boot/boot.h>
#include <log/log.h>
#include <mm/memory.h>
#include <mm/memory_setup.h>

extern char __kernel_start[], __kernel_end[];

#define RESERVED_MAX (BOOT_INFO_MAX_MODULES + 8)

static void (*when_mapped)(void);

void memory_when_mapped(void (*hook)(void))
{
	when_mapped = hook;
}

void memory_init(void)
{
	struct physical_range reserved[RESERVED_MAX];
	struct page_allocator_stats stats;
	size_t count = 0;

	reserved[count++] = (struct physical_range){ (uint64_t)__kernel_start, (uint64_t)__kernel_end };
	if (boot_info.info_end > boot_info.info_start)
		reserved[count++] = (struct physical_range){ boot_info.info_start, boot_info.info_end };
	for (size_t i = 0; i < boot_info.module_count; i++)
		reserved[count++] = (struct physical_range){ boot_info.modules[i].start,
							     boot_info.modules[i].end };
	/* Some firmware (SeaBIOS with ramfb) puts the framebuffer in RAM. */
	if (boot_info.has_framebuffer)
		reserved[count++] = (struct physical_range){
			boot_info.framebuffer.address,
			boot_info.framebuffer.address +
				(uint64_t)boot_info.framebuffer.pitch * boot_info.framebuffer.height };
	count += arch_firmware_reserved_ranges(&boot_info, &reserved[count], RESERVED_MAX - count);

	if (boot_info.memory_count == 0)
		ktap_note("memory: the boot loader gave no memory map; only the kernel image is usable");
	page_allocator_init(&boot_info, reserved, count);
	page_allocator_stats(&stats);
	paging_init(&boot_info);
	if (when_mapped)
		when_mapped();	/* a framebuffer above 4 GiB is reachable now */
	ktap_note("memory: %llu MiB in %zu free ranges, %llu KiB reserved for the kernel and boot data",
		  (unsigned long long)(stats.total_pages * PAGE_SIZE >> 20), stats.range_count,
		  (unsigned long long)(stats.reserved_bytes >> 10));
}
