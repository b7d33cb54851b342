// SPDX-License-Identifier: MIT
/*
 * The legacy 8259A pair.  trigos uses only the local APIC, but after a BIOS
 * boot the PICs are live and deliver IRQ 0-7 on vectors 8-15 (the BIOS's
 * real-mode layout), which in protected mode are exception vectors: the PIT
 * tick would arrive as a "#DF".  So they are reprogrammed to vectors
 * 0x20-0x2f (ICW1-ICW4, 8259A data sheet) and then fully masked.  On
 * legacy-free machines the ports decode to nothing and this is harmless,
 * but after a UEFI boot nothing legacy is assumed: the MADT's PCAT_COMPAT
 * flag (ACPI 6.5, 5.2.12) says whether the pair exists.
 */
#include <boot/acpi.h>
#include <boot/boot.h>
#include <log/log.h>
#include <lib/bytes.h>
#include <asm/instructions.h>
#include <asm/pic.h>

#define MADT_FLAGS	40	/* after the header and the local APIC address */

#define PIC1_COMMAND	0x20
#define PIC1_DATA	0x21
#define PIC2_COMMAND	0xa0
#define PIC2_DATA	0xa1

#define ICW1_INIT_WITH_ICW4	0x11
#define ICW4_8086_MODE		0x01
#define PIC1_VECTOR_BASE	0x20
#define PIC2_VECTOR_BASE	0x28

/* Port 0x80 is unused: a write to it gives the slow PIC time between commands. */
static void io_wait(void)
{
	outb(0x80, 0);
}

/* Whether the MADT denies dual 8259s; false when there is no MADT to ask. */
static bool madt_says_no_pic(void)
{
	const struct acpi_tables *tables = acpi_tables_get();
	const uint8_t *madt;
	uint32_t length;

	if (!tables || !(madt = acpi_tables_find(tables, "APIC", 0, &length)) ||
	    length < MADT_FLAGS + 4)
		return false;
	return !(get_le32(madt + MADT_FLAGS) & ACPI_MADT_PCAT_COMPAT);
}

void pic_disable(void)
{
	if (boot_info.efi_boot && madt_says_no_pic()) {
		ktap_note("pic: UEFI boot and the MADT has no PCAT_COMPAT: no 8259s to mask");
		return;
	}
	outb(PIC1_COMMAND, ICW1_INIT_WITH_ICW4);
	io_wait();
	outb(PIC2_COMMAND, ICW1_INIT_WITH_ICW4);
	io_wait();
	outb(PIC1_DATA, PIC1_VECTOR_BASE);
	io_wait();
	outb(PIC2_DATA, PIC2_VECTOR_BASE);
	io_wait();
	outb(PIC1_DATA, 1u << 2);	/* ICW3: the slave is on IRQ 2 */
	io_wait();
	outb(PIC2_DATA, 2);		/* ICW3: the slave's cascade identity */
	io_wait();
	outb(PIC1_DATA, ICW4_8086_MODE);
	io_wait();
	outb(PIC2_DATA, ICW4_8086_MODE);
	io_wait();
	outb(PIC1_DATA, 0xff);		/* mask every line */
	outb(PIC2_DATA, 0xff);
}
