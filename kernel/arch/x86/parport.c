// SPDX-License-Identifier: MIT
/*
 * The parallel port console, lp0: the PC's first printer port, LPT1, at I/O
 * port 0x378 (Linux's console=lp0 does the same on a printer port).
 *
 * Its point here is Bochs.  Bochs's 16550 sends one byte every 87 simulated
 * microseconds at 115200 baud (iodev/serial.cc, databyte_usec), and the CPU
 * waiting for it runs about 8700 instructions a byte at tools/run's ips: a
 * 50 KB log is over 4 simulated seconds of a run.  Bochs's printer port
 * writes each byte to its file the moment the strobe rises
 * (iodev/parallel.cc, virtual_printer()), so tools/run --emulator bochs
 * passes console=lp0 and takes the log from there.
 *
 * The protocol is the IBM PC's (Centronics through the port's three
 * registers): wait until the printer is not busy (status bit 7, which reads
 * 1 when it is ready), put the byte on the data register, then pulse the
 * strobe (control bit 0, which asserts the inverted -STROBE line).  Every
 * wait is bounded, and the port is probed first: a missing one reads 0xff.
 */
#include <log/console.h>
#include <arch/parport.h>
#include <asm/instructions.h>

#define LP0_PORT			PARALLEL_PORT_LP0
#define REGISTER_DATA			0
#define REGISTER_STATUS			1
#define REGISTER_CONTROL		2

#define STATUS_NOT_BUSY			0x80
#define CONTROL_STROBE			0x01
#define CONTROL_NOT_INIT		0x04	/* 0 resets the printer */
#define CONTROL_SELECT_IN		0x08
#define CONTROL_IDLE			(CONTROL_NOT_INIT | CONTROL_SELECT_IN)
#define READY_WAIT_LIMIT		100000

static bool registered;

/* The data register reads back what was written while the port drives it. */
static bool lp0_present(void)
{
	outb(LP0_PORT + REGISTER_CONTROL, CONTROL_IDLE);	/* output mode, not in reset */
	outb(LP0_PORT + REGISTER_DATA, 0x5a);
	if (inb(LP0_PORT + REGISTER_DATA) != 0x5a)
		return false;
	outb(LP0_PORT + REGISTER_DATA, 0xa5);
	return inb(LP0_PORT + REGISTER_DATA) == 0xa5;
}

/*
 * A port with no printer on it may read busy for ever (the line floats): after
 * one wait that ran out, bytes go out without waiting, so that naming lp0
 * there costs one bounded wait, not one per byte.
 */
static bool never_ready;

static void lp0_wait_until_ready(void)
{
	if (never_ready)
		return;
	for (int wait = 0; wait < READY_WAIT_LIMIT; wait++) {
		if (inb(LP0_PORT + REGISTER_STATUS) & STATUS_NOT_BUSY)
			return;
		arch_cpu_relax();
	}
	never_ready = true;
}

static void lp0_put(char character)
{
	lp0_wait_until_ready();
	outb(LP0_PORT + REGISTER_DATA, (uint8_t)character);
	/* A status read (about 1 us on ISA) holds data, then strobe, long enough. */
	(void)inb(LP0_PORT + REGISTER_STATUS);
	outb(LP0_PORT + REGISTER_CONTROL, CONTROL_IDLE | CONTROL_STROBE);
	(void)inb(LP0_PORT + REGISTER_STATUS);
	outb(LP0_PORT + REGISTER_CONTROL, CONTROL_IDLE);
}

/* Lines end in a bare LF, as on the UARTs (serial.c says why). */
static void lp0_write(const char *text, size_t length)
{
	for (size_t i = 0; i < length; i++)
		lp0_put(text[i]);
}

static struct console_backend lp0_backend = {
	.name = "lp0",
	.write = lp0_write,
};

bool parallel_console_add(void)
{
	if (registered)
		return true;
	if (!lp0_present())
		return false;
	console_register(&lp0_backend);
	registered = true;
	return true;
}

void parallel_console_remove(void)
{
	if (registered) {
		console_unregister(&lp0_backend);
		registered = false;
	}
}
