/*
 * The multiboot2 header GRUB looks for (Multiboot2 spec 3.1).  It must sit in
 * the first 32 KiB of the image, 8-byte aligned; linker.ld puts it first.
 *
 * We ask for information, and for a linear framebuffer for the screen
 * console (kernel/console/screen_console.c); every tag is marked optional so that a
 * loader or firmware lacking one (no ACPI 2.0 RSDP on an old BIOS, no
 * graphics mode) still boots us.
 */
#define MULTIBOOT2_HEADER_MAGIC		0xe85250d6
#define MULTIBOOT2_ARCHITECTURE_I386	0	/* 32-bit protected mode entry */

#define HEADER_TAG_END			0
#define HEADER_TAG_INFORMATION_REQUEST	1
#define HEADER_TAG_FRAMEBUFFER		5
#define HEADER_TAG_FLAG_OPTIONAL	1

/* Information tag types (Multiboot2 spec 3.6). */
#define INFO_COMMAND_LINE		1
#define INFO_LOADER_NAME		2
#define INFO_MODULES			3
#define INFO_MEMORY_MAP			6
#define INFO_FRAMEBUFFER		8
#define INFO_ACPI_OLD_RSDP		14
#define INFO_ACPI_NEW_RSDP		15

	.section .multiboot2_header, "a"
	.balign 8
multiboot2_header:
	.long	MULTIBOOT2_HEADER_MAGIC
	.long	MULTIBOOT2_ARCHITECTURE_I386
	.long	multiboot2_header_end - multiboot2_header
	.long	-(MULTIBOOT2_HEADER_MAGIC + MULTIBOOT2_ARCHITECTURE_I386 + \
		  (multiboot2_header_end - multiboot2_header))

	.balign 8
information_request:
	.short	HEADER_TAG_INFORMATION_REQUEST
	.short	HEADER_TAG_FLAG_OPTIONAL
	.long	information_request_end - information_request
	.long	INFO_COMMAND_LINE
	.long	INFO_LOADER_NAME
	.long	INFO_MODULES
	.long	INFO_MEMORY_MAP
	.long	INFO_FRAMEBUFFER
	.long	INFO_ACPI_OLD_RSDP
	.long	INFO_ACPI_NEW_RSDP
information_request_end:

	/*
	 * Spec 3.1.10: the preferred mode.  1024x768 at 32 bits is offered by
	 * nearly every VBE BIOS and GOP, and small enough to redraw quickly;
	 * the loader picks another mode when that one is missing.
	 */
	.balign 8
	.short	HEADER_TAG_FRAMEBUFFER
	.short	HEADER_TAG_FLAG_OPTIONAL
	.long	20
	.long	1024			/* width */
	.long	768			/* height */
	.long	32			/* depth */

	.balign 8
	.short	HEADER_TAG_END
	.short	0
	.long	8
multiboot2_header_end:

/*
 * The PVH entry note (Xen's XEN_ELFNOTE_PHYS32_ENTRY, type 18): QEMU's -kernel
 * loader finds it through the PT_NOTE segment and enters pvh_entry in 32-bit
 * protected mode with %ebx pointing at an hvm_start_info structure.  A
 * multiboot1 header would not do: QEMU rejects it on an ELF64 image.
 */
#define XEN_ELFNOTE_PHYS32_ENTRY	18

	.section .note.pvh, "a", @note
	.balign 4
	.long	4			/* name size: "Xen\0" */
	.long	4			/* descriptor size: a 32-bit address */
	.long	XEN_ELFNOTE_PHYS32_ENTRY
	.asciz	"Xen"
	.balign 4
	.long	pvh_entry
