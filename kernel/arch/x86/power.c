// SPDX-License-Identifier: MIT
/* Leaving the machine: QEMU's debug exit, reset and halt. */
#include <machine.h>
#include <asm/instructions.h>

#define QEMU_DEBUG_EXIT_PORT	0xf4
#define KEYBOARD_CONTROLLER	0x64
#define KEYBOARD_PULSE_RESET	0xfe

void arch_qemu_debug_exit(uint32_t value)
{
	/* QEMU exits here if -device isa-debug-exit,iobase=0xf4 is present. */
	outl(QEMU_DEBUG_EXIT_PORT, value);
}

void arch_halt_forever(void)
{
	for (;;) {
		cli();
		hlt();
	}
}

void arch_reboot(void)
{
	struct descriptor_table_pointer no_idt = { 0, 0 };

	/* The 8042's reset line (its command 0xFE), then a triple fault. */
	for (int wait = 0; wait < 100000 && (inb(KEYBOARD_CONTROLLER) & 0x02); wait++)
		cpu_relax();
	outb(KEYBOARD_CONTROLLER, KEYBOARD_PULSE_RESET);
	for (int wait = 0; wait < 1000000; wait++)
		cpu_relax();
	cli();
	lidt(&no_idt);
	int3();
	arch_halt_forever();
}
