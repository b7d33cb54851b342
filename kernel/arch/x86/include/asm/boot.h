/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_ASM_BOOT_H
#define TRIGOS_ASM_BOOT_H
/* Constants shared by the assembly entry code and C. */

/* What %eax holds on entry from a multiboot2 loader (Multiboot2 spec 3.2). */
#define MULTIBOOT2_BOOTLOADER_MAGIC	0x36d76289
/*
 * hvm_start_info.magic; pvh_entry hands it to kmain in place of the
 * multiboot2 magic so that kmain can tell the two boot paths apart.
 */
#define PVH_START_INFO_MAGIC		0x336ec578

/* GDT selectors, the same in the boot GDT and every CPU's own GDT. */
#define SELECTOR_KERNEL_CODE		0x08
#define SELECTOR_KERNEL_DATA		0x10
#define SELECTOR_TSS			0x18	/* a 16-byte descriptor */

#define BOOT_PAGE_SIZE			4096
#define BOOT_STACK_SIZE			(16 * 1024)

/* Control-register and EFER bits used on the way to long mode (SDM vol 3, 2.5 and 2.2.1). */
#define CR0_PE				(1u << 0)
#define CR0_WP				(1u << 16)
#define CR0_PG				(1u << 31)
#define CR4_PAE				(1u << 5)
#define CR4_PGE				(1u << 7)
#define MSR_EFER			0xc0000080
#define EFER_SCE			(1u << 0)
#define EFER_LME			(1u << 8)
#define EFER_NXE			(1u << 11)

#endif
