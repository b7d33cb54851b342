// SPDX-License-Identifier: MIT
/*
 * QEMU's debug console, port 0xe9 (-debugcon file:LOG).  Only registered
 * once hypervisor.c has confirmed QEMU: on real hardware port 0xe9 may belong
 * to something else, and writing it blindly is not harmless.
 */
#include <log/console.h>
#include <arch/serial.h>
#include <asm/instructions.h>

#define DEBUGCON_PORT 0xe9

static void debugcon_write(const char *text, size_t length)
{
	outsb(DEBUGCON_PORT, text, length);
}

static struct console_backend debugcon_backend = {
	.name = "debugcon",
	.write = debugcon_write,
};

void debugcon_console_init(void)
{
	console_register(&debugcon_backend);
}
