// SPDX-License-Identifier: MIT
/*
 * Multiboot2 boot information parser (Multiboot2 specification 2.0, 3.6).
 *
 * Layout (3.6.2): u32 total_size, u32 reserved, then tags, each starting at
 * an 8-byte aligned offset with u32 type, u32 size (size counts the 8-byte
 * header but not the padding to the next tag), ending with a tag of type 0
 * and size 8.  total_size counts everything, end tag included.
 *
 * The information comes from the boot loader and is treated as untrusted:
 * every offset is checked against total_size (itself checked against what
 * the caller can read) before the bytes there are touched, and sizes are
 * compared by subtraction so that nothing can wrap.  Fields are read a byte
 * at a time, little-endian, since nothing but the start of a tag is
 * promised to be aligned and a fuzzer promises nothing at all.
 */
#include <lib/multiboot2.h>

#include <lib/boot_info_fill.h>
#include <lib/bytes.h>
#include <lib/string.h>

#define TAG_HEADER_SIZE		8
#define INFO_HEADER_SIZE	8
#define END_TAG_SIZE		8

/* Tag layouts: offsets from the start of the tag, and the size a tag must
 * have for the fields we read to lie inside it. */
#define MODULE_START		8	/* 3.6.6: u32 mod_start, u32 mod_end, string */
#define MODULE_END		12
#define MODULE_MIN_SIZE		16
#define MMAP_ENTRY_SIZE		8	/* 3.6.8: u32 entry_size, u32 entry_version */
#define MMAP_ENTRY_VERSION	12
#define MMAP_ENTRIES		16
#define MMAP_MIN_ENTRY_SIZE	24	/* u64 base_addr, u64 length, u32 type, u32 reserved */
#define FB_ADDRESS		8	/* 3.6.12 */
#define FB_PITCH		16
#define FB_WIDTH		20
#define FB_HEIGHT		24
#define FB_BPP			28
#define FB_TYPE			29
#define FB_COMMON_MIN_SIZE	30	/* through framebuffer_type */
/*
 * The spec's text shows a u8 reserved after framebuffer_type, but GRUB,
 * the reference implementation, declares a u16 there and puts the colour
 * information at offset 32; every loader follows GRUB.
 */
#define FB_COLOR_INFO		32
#define FB_RGB_MIN_SIZE		(FB_COLOR_INFO + 6)
#define FB_TYPE_RGB		1
#define RSDP_V1_SIZE		20	/* ACPI 5.2.5.3: through RsdtAddress */
#define RSDP_V2_SIZE		36

struct parse_state {
	const uint8_t *info;
	uint32_t total_size;
	struct boot_info *out;
	size_t modules_dropped;
	size_t regions_dropped;
	bool have_cmdline;
	bool have_loader_name;
	bool have_memory_map;
	bool have_framebuffer;
	bool have_old_rsdp;
	bool have_new_rsdp;
};

/* Every message this parser leaves in struct boot_info starts "multiboot2: ". */
#define report(out, ...) boot_info_report(out, "multiboot2", __VA_ARGS__)

/*
 * Copy the string that fills a tag's body (3.6.5 command line, 3.6.9 boot
 * loader name: "a normal C-style zero-terminated UTF-8 string").  A string
 * without its NUL is kept up to the end of the tag, since the bytes are
 * there and the loader probably only miscounted; both that and truncation
 * to @destination_size are reported.
 */
static void copy_tag_string(struct parse_state *state, const char *what, const uint8_t *body,
			    size_t body_size, char *destination, size_t destination_size)
{
	size_t length = 0;

	while (length < body_size && body[length] != '\0')
		length++;
	if (length == body_size)
		report(state->out, "%s tag has no terminating NUL", what);
	if (length >= destination_size) {
		report(state->out, "%s of %zu bytes truncated to %zu", what, length,
		       destination_size - 1);
		length = destination_size - 1;
	}
	memcpy(destination, body, length);
	destination[length] = '\0';
}

static void parse_module(struct parse_state *state, const uint8_t *tag, uint32_t size)
{
	struct boot_info *out = state->out;
	uint32_t start, end;

	if (size < MODULE_MIN_SIZE) {
		report(out, "module tag of %u bytes is too short; ignored", size);
		return;
	}
	start = get_le32(tag + MODULE_START);
	end = get_le32(tag + MODULE_END);
	if (end < start) {
		report(out, "module 0x%x-0x%x ends before it starts; ignored", start, end);
		return;
	}
	if (!boot_info_add_module(out, start, end))
		state->modules_dropped++;
}

/*
 * 3.6.8: entry_size is a multiple of 8 and at least the 24 bytes of the
 * version 0 entry; later versions only append fields ("guaranteed to be
 * backward compatible"), so an unknown entry_version is read as version 0.
 */
static void parse_memory_map(struct parse_state *state, const uint8_t *tag, uint32_t size)
{
	struct boot_info *out = state->out;
	uint32_t entry_size, entry_version, entries_bytes, count;

	if (state->have_memory_map) {
		report(out, "second memory map tag ignored");
		return;
	}
	if (size < MMAP_ENTRIES) {
		report(out, "memory map tag of %u bytes is too short; ignored", size);
		return;
	}
	entry_size = get_le32(tag + MMAP_ENTRY_SIZE);
	entry_version = get_le32(tag + MMAP_ENTRY_VERSION);
	if (entry_size < MMAP_MIN_ENTRY_SIZE || entry_size % 8 != 0) {
		report(out, "memory map entry_size %u is not a multiple of 8 >= 24; ignored",
		       entry_size);
		return;
	}
	state->have_memory_map = true;
	if (entry_version != 0)
		report(out, "memory map entry_version %u read as version 0", entry_version);

	entries_bytes = size - MMAP_ENTRIES;
	count = entries_bytes / entry_size;
	if (entries_bytes % entry_size != 0)
		report(out, "memory map tag ends inside entry %u; its %u bytes ignored", count,
		       entries_bytes % entry_size);

	for (uint32_t i = 0; i < count; i++) {
		/* i < count, so the entry lies wholly inside the tag. */
		const uint8_t *entry = tag + MMAP_ENTRIES + (size_t)i * entry_size;
		uint64_t base = get_le64(entry);
		uint64_t length = get_le64(entry + 8);
		uint32_t type = get_le32(entry + 16);

		if (length != 0 && length - 1 > UINT64_MAX - base) {
			report(out, "memory map entry %u (0x%llx+0x%llx) wraps; ignored", i,
			       (unsigned long long)base, (unsigned long long)length);
			continue;
		}
		if (!boot_info_add_memory_region(out, base, length, type))
			state->regions_dropped++;
	}
}

static void parse_framebuffer(struct parse_state *state, const uint8_t *tag, uint32_t size)
{
	struct boot_info *out = state->out;
	struct boot_framebuffer *framebuffer = &out->framebuffer;

	if (state->have_framebuffer) {
		report(out, "second framebuffer tag ignored");
		return;
	}
	if (size < FB_COMMON_MIN_SIZE) {
		report(out, "framebuffer tag of %u bytes is too short; ignored", size);
		return;
	}
	state->have_framebuffer = true;
	out->has_framebuffer = true;
	framebuffer->address = get_le64(tag + FB_ADDRESS);
	framebuffer->pitch = get_le32(tag + FB_PITCH);
	framebuffer->width = get_le32(tag + FB_WIDTH);
	framebuffer->height = get_le32(tag + FB_HEIGHT);
	framebuffer->bits_per_pixel = tag[FB_BPP];
	framebuffer->type = tag[FB_TYPE];
	if (framebuffer->type != FB_TYPE_RGB)
		return;
	if (size < FB_RGB_MIN_SIZE) {
		report(out, "RGB framebuffer tag of %u bytes has no colour layout", size);
		return;
	}
	framebuffer->red_position = tag[FB_COLOR_INFO + 0];
	framebuffer->red_size = tag[FB_COLOR_INFO + 1];
	framebuffer->green_position = tag[FB_COLOR_INFO + 2];
	framebuffer->green_size = tag[FB_COLOR_INFO + 3];
	framebuffer->blue_position = tag[FB_COLOR_INFO + 4];
	framebuffer->blue_size = tag[FB_COLOR_INFO + 5];
}

/*
 * 3.6.16/3.6.17: the tags hold a copy of the RSDP itself.  Keep the ACPI
 * 2.0 copy whenever there is one, since only it leads to the XSDT.
 */
static void parse_rsdp(struct parse_state *state, const uint8_t *tag, uint32_t size, bool is_new)
{
	struct boot_info *out = state->out;
	size_t body_size = size - TAG_HEADER_SIZE;
	size_t needed = is_new ? RSDP_V2_SIZE : RSDP_V1_SIZE;
	bool *seen = is_new ? &state->have_new_rsdp : &state->have_old_rsdp;

	if (body_size < needed) {
		report(out, "%s RSDP tag holds %zu bytes, needs %zu; ignored",
		       is_new ? "new" : "old", body_size, needed);
		return;
	}
	if (*seen) {
		report(out, "second %s RSDP tag ignored", is_new ? "new" : "old");
		return;
	}
	*seen = true;
	if (!is_new && state->have_new_rsdp)
		return;
	memcpy(out->rsdp_copy, tag + TAG_HEADER_SIZE, needed);
	out->rsdp_copy_length = needed;
	out->has_rsdp_copy = true;
}

static void parse_tag(struct parse_state *state, uint32_t type, const uint8_t *tag, uint32_t size)
{
	struct boot_info *out = state->out;

	switch (type) {
	case MULTIBOOT2_TAG_CMDLINE:
		if (state->have_cmdline) {
			report(out, "second command line tag ignored");
			break;
		}
		state->have_cmdline = true;
		copy_tag_string(state, "command line", tag + TAG_HEADER_SIZE,
				size - TAG_HEADER_SIZE, out->cmdline, sizeof(out->cmdline));
		break;
	case MULTIBOOT2_TAG_BOOT_LOADER_NAME:
		if (state->have_loader_name) {
			report(out, "second boot loader name tag ignored");
			break;
		}
		state->have_loader_name = true;
		copy_tag_string(state, "boot loader name", tag + TAG_HEADER_SIZE,
				size - TAG_HEADER_SIZE, out->loader_name,
				sizeof(out->loader_name));
		break;
	case MULTIBOOT2_TAG_MODULE:
		parse_module(state, tag, size);
		break;
	case MULTIBOOT2_TAG_MMAP:
		parse_memory_map(state, tag, size);
		break;
	case MULTIBOOT2_TAG_FRAMEBUFFER:
		parse_framebuffer(state, tag, size);
		break;
	case MULTIBOOT2_TAG_ACPI_OLD:
	case MULTIBOOT2_TAG_ACPI_NEW:
		parse_rsdp(state, tag, size, type == MULTIBOOT2_TAG_ACPI_NEW);
		break;
	case MULTIBOOT2_TAG_EFI32:
	case MULTIBOOT2_TAG_EFI64:
	case MULTIBOOT2_TAG_EFI_MMAP:
	case MULTIBOOT2_TAG_EFI_BS:
	case MULTIBOOT2_TAG_EFI32_IH:
	case MULTIBOOT2_TAG_EFI64_IH:
		/*
		 * Only UEFI firmware produces these (3.6.13, 3.6.14, 3.6.19-3.6.22):
		 * the machine may have no BIOS data area, EBDA or legacy devices.
		 */
		out->efi_boot = true;
		out->efi_tags |= 1u << type;
		break;
	default:
		/* Tags we do not use, and future ones, are skipped by their size. */
		break;
	}
}

/*
 * Walk the tags from offset 8.  Invariants: offset <= total_size, and a tag
 * is only read once its 8-byte header and then its whole size are known
 * to lie below total_size.
 */
static void walk_tags(struct parse_state *state)
{
	struct boot_info *out = state->out;
	size_t offset = INFO_HEADER_SIZE;

	for (;;) {
		const uint8_t *tag = state->info + offset;
		uint32_t type, size;
		size_t padded;

		if (state->total_size - offset < TAG_HEADER_SIZE) {
			report(out, "no end tag before total_size %u", state->total_size);
			return;
		}
		type = get_le32(tag);
		size = get_le32(tag + 4);
		if (size < TAG_HEADER_SIZE) {
			report(out, "tag type %u at offset %zu has size %u < 8; stopped", type,
			       offset, size);
			return;
		}
		if (size > state->total_size - offset) {
			report(out, "tag %u at offset %zu, size %u, runs past total_size %u",
			       type, offset, size, state->total_size);
			return;
		}
		if (type == MULTIBOOT2_TAG_END) {
			if (size != END_TAG_SIZE)
				report(out, "end tag has size %u, not 8", size);
			return;
		}
		parse_tag(state, type, tag, size);

		/* size fits in 32 bits, so rounding it up in size_t cannot wrap. */
		padded = ((size_t)size + 7) & ~(size_t)7;
		if (padded > state->total_size - offset) {
			report(out, "no end tag before total_size %u", state->total_size);
			return;
		}
		offset += padded;
	}
}

bool multiboot2_magic_valid(uint32_t eax)
{
	return eax == MULTIBOOT2_BOOTLOADER_MAGIC;
}

int multiboot2_parse(const void *info, size_t available, uint64_t info_physical,
		     struct boot_info *out)
{
	struct parse_state state;
	uint32_t total_size;

	if (!out)
		return MULTIBOOT2_ERROR_INVALID_ARGUMENT;
	memset(out, 0, sizeof(*out));
	out->protocol = BOOT_PROTOCOL_MULTIBOOT2;
	if (!info) {
		report(out, "no boot information");
		return MULTIBOOT2_ERROR_INVALID_ARGUMENT;
	}
	if (available < INFO_HEADER_SIZE) {
		report(out, "only %zu bytes readable, fewer than the 8-byte header", available);
		return MULTIBOOT2_ERROR_TOO_SHORT;
	}
	total_size = get_le32(info);
	if (total_size < INFO_HEADER_SIZE + END_TAG_SIZE) {
		report(out, "total_size %u cannot hold the header and end tag", total_size);
		return MULTIBOOT2_ERROR_TOO_SHORT;
	}
	if (total_size > available) {
		report(out, "total_size %u exceeds the %zu readable bytes", total_size, available);
		return MULTIBOOT2_ERROR_TRUNCATED;
	}

	out->info_start = info_physical;
	if (total_size > UINT64_MAX - info_physical) {
		report(out, "information at 0x%llx wraps the address space",
		       (unsigned long long)info_physical);
		out->info_end = UINT64_MAX;
	} else {
		out->info_end = info_physical + total_size;
	}
	/* 3.6.2: "Its start is 8-bytes aligned"; tags are aligned relative to it. */
	if (info_physical % 8 != 0)
		report(out, "information at 0x%llx is not 8-byte aligned",
		       (unsigned long long)info_physical);

	memset(&state, 0, sizeof(state));
	state.info = info;
	state.total_size = total_size;
	state.out = out;
	walk_tags(&state);

	if (state.modules_dropped)
		report(out, "%zu modules beyond the %d supported ignored", state.modules_dropped,
		       BOOT_INFO_MAX_MODULES);
	if (state.regions_dropped)
		report(out, "%zu memory regions beyond the %d supported ignored",
		       state.regions_dropped, BOOT_INFO_MAX_MEMORY_REGIONS);
	return 0;
}
