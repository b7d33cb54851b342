// SPDX-License-Identifier: MIT
/*
 * The boot information, whichever way we came: multiboot2 from GRUB, or PVH
 * from QEMU's -kernel.  Both parsers (kernel/lib) fill one struct boot_info;
 * everything later reads only that.
 */
#include <boot/boot.h>
#include <log/console.h>
#include <arch/hypervisor.h>
#include <log/log.h>
#include <boot/version.h>
#include <arch/paging.h>
#include <lib/format.h>
#include <lib/memory_map.h>
#include <lib/multiboot2.h>
#include <lib/pvh.h>

struct boot_info boot_info;

/* Sanity bound for the multiboot2 total_size field, read before validation. */
#define MULTIBOOT2_INFO_MAX_SIZE	(1024 * 1024)

/*
 * Physical memory for the parsers: during boot the low 4 GiB are mapped
 * (entry.S), afterwards map_phys() maps what is asked for.
 */
static const void *map_for_parser(uint64_t physical, size_t length, void *context)
{
	uint64_t end = physical + length;
	unsigned int attributes;

	/*
	 * Map only what is not mapped yet, read-only: RAM that is mapped
	 * already keeps its permissions (remapping it read-only would break
	 * whoever owns that page), and page 0 stays unmapped so NULL faults
	 * once paging_init() has unmapped it.  (QEMU's PVH start_info and
	 * memory map live in page 0: they are parsed before that.)
	 */
	for (uint64_t page = page_align_down(physical); page < end; page += PAGE_SIZE) {
		if (paging_query(page, &attributes))
			continue;
		if (page == 0 || !map_phys(page, PAGE_SIZE, 0))
			return NULL;
	}
	return (const void *)physical;
}

const struct physical_memory_access kernel_physical_memory = {
	.map = map_for_parser,
	.context = NULL,
};

void boot_info_init(uint32_t magic, uint32_t info_physical)
{
	const void *info = (const void *)(uintptr_t)info_physical;
	size_t overlap;
	int result;

	if (magic == MULTIBOOT2_BOOTLOADER_MAGIC) {
		uint32_t total_size = *(const uint32_t *)info;

		if (total_size > MULTIBOOT2_INFO_MAX_SIZE) {
			ktap_note("boot: multiboot2 information claims %u bytes; reading at most %u",
				  total_size, MULTIBOOT2_INFO_MAX_SIZE);
			total_size = MULTIBOOT2_INFO_MAX_SIZE;
		}
		result = multiboot2_parse(info, total_size, info_physical, &boot_info);
	} else {
		result = pvh_parse(info, PVH_START_INFO_V1_SIZE, info_physical,
				   &kernel_physical_memory, &boot_info);
	}
	if (result < 0)
		ktap_note("boot: the boot information is unusable (error %d)", result);
	memory_map_sort(boot_info.memory, boot_info.memory_count);
	overlap = memory_map_find_overlap(boot_info.memory, boot_info.memory_count);
	if (overlap < boot_info.memory_count)
		ktap_note("boot: memory map regions overlap at 0x%llx; the stricter type wins "
			  "for allocation", (unsigned long long)boot_info.memory[overlap].base);
	for (size_t i = 0; i < boot_info.message_count; i++)
		ktap_note("boot: %s", boot_info.messages[i]);
	if (boot_info.messages_dropped)
		ktap_note("boot: %zu more boot-information messages were dropped",
			  boot_info.messages_dropped);
}

static const char *protocol_name(enum boot_protocol protocol)
{
	switch (protocol) {
	case BOOT_PROTOCOL_MULTIBOOT2:
		return "multiboot2";
	case BOOT_PROTOCOL_PVH:
		return "PVH (direct kernel boot)";
	case BOOT_PROTOCOL_NONE:
		break;
	}
	return "unknown";
}

static const char *const efi_tag_names[] = {
	[MULTIBOOT2_TAG_EFI32] = "11 EFI32 system table",
	[MULTIBOOT2_TAG_EFI64] = "12 EFI64 system table",
	[MULTIBOOT2_TAG_EFI_MMAP] = "17 EFI memory map",
	[MULTIBOOT2_TAG_EFI_BS] = "18 boot services not ended",
	[MULTIBOOT2_TAG_EFI32_IH] = "19 EFI32 image handle",
	[MULTIBOOT2_TAG_EFI64_IH] = "20 EFI64 image handle",
};

/*
 * On UEFI the kernel trusts only the multiboot2 tags (memory map, RSDP,
 * framebuffer) and never looks into BIOS areas: say so, with the tags that
 * made it decide.
 */
static void report_firmware(void)
{
	char tags[160] = "";
	size_t used = 0;

	if (!boot_info.efi_boot) {
		ktap_note("firmware: BIOS: EBDA, BIOS-area RSDP and MP table scans allowed");
		return;
	}
	for (size_t tag = 0; tag < sizeof(efi_tag_names) / sizeof(efi_tag_names[0]); tag++) {
		if (efi_tag_names[tag] && (boot_info.efi_tags & (1u << tag)))
			used += (size_t)scnprintf(&tags[used], sizeof(tags) - used, "%s%s",
					  used ? ", " : "", efi_tag_names[tag]);
	}
	ktap_note("firmware: UEFI (multiboot2 tags %s): memory map, RSDP and framebuffer "
		  "from tags only; no BIOS-area scans", tags);
}

void boot_report(void)
{
	const struct hypervisor_info *hypervisor = hypervisor_info();
	char consoles[64];

	console_backend_names(consoles, sizeof(consoles));
	ktap_note("trigos %s booted by %s%s%s%s, %s firmware", TRIGOS_VERSION,
		  protocol_name(boot_info.protocol), boot_info.loader_name[0] ? " (" : "",
		  boot_info.loader_name, boot_info.loader_name[0] ? ")" : "",
		  boot_info.efi_boot ? "UEFI" : "BIOS");
	report_firmware();
	ktap_note("command line: %s", boot_info.cmdline[0] ? boot_info.cmdline : "(empty)");
	if (hypervisor->cpuid_hypervisor_bit)
		ktap_note("hypervisor: CPUID signature '%s', fw_cfg %s: %s", hypervisor->signature,
			  hypervisor->fw_cfg_present ? "present" : "absent",
			  hypervisor->qemu ? (hypervisor->tcg ? "QEMU TCG" : "QEMU with KVM") :
					     "not QEMU");
	else
		ktap_note("hypervisor: none reported by CPUID (bare metal)");
	ktap_note("consoles: %s", consoles);
}
