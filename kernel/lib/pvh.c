// SPDX-License-Identifier: MIT
/*
 * PVH start_info parser (Xen public header arch-x86/hvm/start_info.h, the
 * x86 PVH boot ABI; QEMU's -kernel with an ELF PHYS32_ENTRY note builds
 * one in guest memory and passes its physical address in EBX).
 *
 *	offset	field (all little-endian)
 *	 0	u32 magic		0x336ec578
 *	 4	u32 version		0 ends at 40; 1 and later end at 56
 *	 8	u32 flags
 *	12	u32 nr_modules
 *	16	u64 modlist_paddr	-> nr_modules x {u64 paddr, size, cmdline_paddr, reserved}
 *	24	u64 cmdline_paddr	-> NUL-terminated string
 *	32	u64 rsdp_paddr
 *	40	u64 memmap_paddr	-> memmap_entries x {u64 addr, size; u32 type, reserved}
 *	48	u32 memmap_entries
 *	52	u32 reserved		(version 2: offset of VGA console information)
 *
 * "A 0 value in any address field means not present."  Later versions only
 * add fields, so an unknown version >= 1 is read as version 1.
 *
 * Everything reached by physical address goes through the caller's
 * accessor, a bounded piece at a time; every address computation is
 * checked for wrap-around first.
 */
#include <lib/pvh.h>

#include <stdbool.h>

#include <lib/boot_info_fill.h>
#include <lib/bytes.h>
#include <lib/string.h>

#define START_MAGIC		0
#define START_VERSION		4
#define START_NR_MODULES	12
#define START_MODLIST_PADDR	16
#define START_CMDLINE_PADDR	24
#define START_RSDP_PADDR	32
#define START_MEMMAP_PADDR	40
#define START_MEMMAP_ENTRIES	48

/* The command line is read in pieces that never cross one of these. */
#define CMDLINE_PAGE_SIZE	4096u

/* Every message this parser leaves in struct boot_info starts "pvh: ". */
#define report(out, ...) boot_info_report(out, "pvh", __VA_ARGS__)

/*
 * Map @length bytes at @base + @offset, refusing an address that wraps.
 * Used for list entries, so that no entry count is ever multiplied into
 * one big mapping.
 */
static const uint8_t *map_at(const struct physical_memory_access *memory, uint64_t base,
			     uint64_t offset, size_t length)
{
	if (offset > UINT64_MAX - base)
		return NULL;
	return physical_memory_map(memory, base + offset, length);
}

/*
 * The command line's length is unknown until its NUL, so read at most up
 * to the end of the current page each time: a string that ends near the
 * end of mapped memory is still read, and no more than
 * BOOT_INFO_CMDLINE_SIZE bytes in all are ever asked for.
 */
static void read_cmdline(uint64_t physical, const struct physical_memory_access *memory,
			 struct boot_info *out)
{
	const size_t capacity = sizeof(out->cmdline);
	size_t length = 0;

	for (;;) {
		const uint8_t *bytes;
		uint64_t address;
		size_t chunk;

		if (length > UINT64_MAX - physical) {
			report(out, "command line at 0x%llx wraps the address space",
			       (unsigned long long)physical);
			break;
		}
		address = physical + length;
		chunk = CMDLINE_PAGE_SIZE - (size_t)(address % CMDLINE_PAGE_SIZE);
		/* length < capacity here, so at least one byte is asked for. */
		if (chunk > capacity - length)
			chunk = capacity - length;
		bytes = physical_memory_map(memory, address, chunk);
		if (!bytes) {
			report(out, "command line at 0x%llx unreadable at 0x%llx",
			       (unsigned long long)physical, (unsigned long long)address);
			break;
		}
		for (size_t i = 0; i < chunk; i++) {
			if (bytes[i] == '\0')
				goto terminate;
			if (length == capacity - 1) {
				report(out, "command line longer than %zu bytes truncated",
				       capacity - 1);
				goto terminate;
			}
			out->cmdline[length++] = (char)bytes[i];
		}
	}
terminate:
	out->cmdline[length] = '\0';
}

static void read_modules(uint32_t count, uint64_t list, const struct physical_memory_access *memory,
			 struct boot_info *out)
{
	if (count == 0)
		return;
	if (list == 0) {
		report(out, "%u modules but no module list", count);
		return;
	}
	for (uint32_t i = 0; i < count && i < BOOT_INFO_MAX_MODULES; i++) {
		const uint8_t *entry = map_at(memory, list, (uint64_t)i * PVH_MODULE_ENTRY_SIZE,
					      PVH_MODULE_ENTRY_SIZE);
		uint64_t start, size;

		if (!entry) {
			report(out, "module list entry %u (list at 0x%llx) unreadable", i,
			       (unsigned long long)list);
			return;
		}
		start = get_le64(entry);
		size = get_le64(entry + 8);
		if (size > UINT64_MAX - start) {
			report(out, "module %u (0x%llx+0x%llx) wraps; ignored", i,
			       (unsigned long long)start, (unsigned long long)size);
			continue;
		}
		/* The loop stops at BOOT_INFO_MAX_MODULES, so there is room. */
		boot_info_add_module(out, start, start + size);
	}
	if (count > BOOT_INFO_MAX_MODULES)
		report(out, "%u modules, only the first %d kept", count, BOOT_INFO_MAX_MODULES);
}

static void read_memory_map(uint32_t count, uint64_t map,
			    const struct physical_memory_access *memory, struct boot_info *out)
{
	if (count == 0 || map == 0) {
		report(out, "no memory map (address 0x%llx, %u entries)", (unsigned long long)map,
		       count);
		return;
	}
	for (uint32_t i = 0; i < count && i < BOOT_INFO_MAX_MEMORY_REGIONS; i++) {
		const uint8_t *entry = map_at(memory, map, (uint64_t)i * PVH_MEMMAP_ENTRY_SIZE,
					      PVH_MEMMAP_ENTRY_SIZE);
		uint64_t base, length;

		if (!entry) {
			report(out, "memory map entry %u (map at 0x%llx) unreadable", i,
			       (unsigned long long)map);
			return;
		}
		base = get_le64(entry);
		length = get_le64(entry + 8);
		if (length != 0 && length - 1 > UINT64_MAX - base) {
			report(out, "memory map entry %u (0x%llx+0x%llx) wraps; ignored", i,
			       (unsigned long long)base, (unsigned long long)length);
			continue;
		}
		/* The loop stops at BOOT_INFO_MAX_MEMORY_REGIONS, so there is room. */
		boot_info_add_memory_region(out, base, length, get_le32(entry + 16));
	}
	if (count > BOOT_INFO_MAX_MEMORY_REGIONS)
		report(out, "%u memory map entries, only the first %d kept", count,
		       BOOT_INFO_MAX_MEMORY_REGIONS);
}

int pvh_parse(const void *start_info, size_t available, uint64_t start_info_physical,
	      const struct physical_memory_access *memory, struct boot_info *out)
{
	const uint8_t *info = start_info;
	uint32_t magic, version;
	uint64_t cmdline, size;

	if (!out)
		return PVH_ERROR_INVALID_ARGUMENT;
	memset(out, 0, sizeof(*out));
	out->protocol = BOOT_PROTOCOL_PVH;
	if (!info) {
		report(out, "no start_info");
		return PVH_ERROR_INVALID_ARGUMENT;
	}
	if (available < sizeof(uint32_t)) {
		report(out, "only %zu bytes of start_info readable", available);
		return PVH_ERROR_TOO_SHORT;
	}
	magic = get_le32(info + START_MAGIC);
	if (magic != PVH_START_INFO_MAGIC) {
		report(out, "bad start_info magic 0x%x", magic);
		return PVH_ERROR_BAD_MAGIC;
	}
	if (available < PVH_START_INFO_V0_SIZE) {
		report(out, "only %zu bytes of start_info readable, need %d", available,
		       PVH_START_INFO_V0_SIZE);
		return PVH_ERROR_TOO_SHORT;
	}
	version = get_le32(info + START_VERSION);
	size = PVH_START_INFO_V0_SIZE;
	if (version >= 1 && available < PVH_START_INFO_V1_SIZE)
		report(out, "version %u start_info cut to %zu readable bytes; no memory map",
		       version, available);
	else if (version >= 1)
		size = PVH_START_INFO_V1_SIZE;

	out->info_start = start_info_physical;
	if (size > UINT64_MAX - start_info_physical) {
		report(out, "start_info at 0x%llx wraps the address space",
		       (unsigned long long)start_info_physical);
		out->info_end = UINT64_MAX;
	} else {
		out->info_end = start_info_physical + size;
	}

	out->rsdp_address = get_le64(info + START_RSDP_PADDR);

	cmdline = get_le64(info + START_CMDLINE_PADDR);
	if (cmdline != 0)
		read_cmdline(cmdline, memory, out);

	read_modules(get_le32(info + START_NR_MODULES), get_le64(info + START_MODLIST_PADDR),
		     memory, out);

	if (version == 0)
		report(out, "version 0 start_info has no memory map");
	else if (size == PVH_START_INFO_V1_SIZE)
		read_memory_map(get_le32(info + START_MEMMAP_ENTRIES),
				get_le64(info + START_MEMMAP_PADDR), memory, out);
	return 0;
}
