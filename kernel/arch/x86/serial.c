// SPDX-License-Identifier: MIT
/*
 * 16550 UART console backends (COM1-COM4, ttyS0-ttyS3).
 *
 * The UART is probed before use: a machine may have none (many laptops, QEMU
 * with -serial none), and reading a missing port returns 0xff, so a plain
 * "wait until the transmitter is empty" loop would spin forever.  Probing
 * writes the scratch register and uses the loopback mode (register layout
 * from the PC16550D data sheet), and every wait is bounded.
 */
#include <log/console.h>
#include <arch/serial.h>
#include <asm/instructions.h>

/* The legacy ISA addresses of COM1-COM4 (what firmware and Linux assume). */
static const uint16_t serial_ports[SERIAL_PORT_COUNT] = { 0x3f8, 0x2f8, 0x3e8, 0x2e8 };

#define REGISTER_DATA			0	/* with DLAB=1: divisor low */
#define REGISTER_INTERRUPT_ENABLE	1	/* with DLAB=1: divisor high */
#define REGISTER_FIFO_CONTROL		2
#define REGISTER_LINE_CONTROL		3
#define REGISTER_MODEM_CONTROL		4
#define REGISTER_LINE_STATUS		5
#define REGISTER_SCRATCH		7

#define LINE_CONTROL_8N1		0x03
#define LINE_CONTROL_DLAB		0x80
#define FIFO_ENABLE_AND_CLEAR		0x07
#define MODEM_CONTROL_DTR_RTS_OUT2	0x0b
#define MODEM_CONTROL_LOOPBACK		0x10
#define LINE_STATUS_TRANSMIT_EMPTY	0x20	/* THRE: room for the next byte */
#define LINE_STATUS_TRANSMITTER_IDLE	0x40	/* TEMT: FIFO and shift register empty */

#define UART_CLOCK_DIVISOR_BASE		115200
#define TRANSMIT_WAIT_LIMIT		100000

static bool uart_present(uint16_t port)
{
	/* The scratch register keeps what is written (absent on an 8250 only). */
	outb(port + REGISTER_SCRATCH, 0x5a);
	if (inb(port + REGISTER_SCRATCH) != 0x5a)
		return false;
	outb(port + REGISTER_SCRATCH, 0xa5);
	if (inb(port + REGISTER_SCRATCH) != 0xa5)
		return false;

	/* In loopback mode a byte sent comes back as a byte received. */
	outb(port + REGISTER_MODEM_CONTROL, MODEM_CONTROL_LOOPBACK | MODEM_CONTROL_DTR_RTS_OUT2);
	outb(port + REGISTER_DATA, 0xae);
	for (int tries = 0; tries < 1000; tries++) {
		if (inb(port + REGISTER_LINE_STATUS) & 0x01)
			break;
	}
	if (inb(port + REGISTER_DATA) != 0xae)
		return false;
	outb(port + REGISTER_MODEM_CONTROL, MODEM_CONTROL_DTR_RTS_OUT2);
	return true;
}

static void uart_setup(uint16_t port, unsigned int baud)
{
	unsigned int divisor = UART_CLOCK_DIVISOR_BASE / baud;

	outb(port + REGISTER_INTERRUPT_ENABLE, 0);	/* polled: no UART interrupts */
	outb(port + REGISTER_LINE_CONTROL, LINE_CONTROL_DLAB);
	outb(port + REGISTER_DATA, divisor & 0xff);
	outb(port + REGISTER_INTERRUPT_ENABLE, divisor >> 8);
	outb(port + REGISTER_LINE_CONTROL, LINE_CONTROL_8N1);
	outb(port + REGISTER_FIFO_CONTROL, FIFO_ENABLE_AND_CLEAR);
	outb(port + REGISTER_MODEM_CONTROL, MODEM_CONTROL_DTR_RTS_OUT2);
}

static void uart_put(uint16_t port, char character)
{
	for (int wait = 0; wait < TRANSMIT_WAIT_LIMIT; wait++) {
		if (inb(port + REGISTER_LINE_STATUS) & LINE_STATUS_TRANSMIT_EMPTY)
			break;
		arch_cpu_relax();
	}
	outb(port + REGISTER_DATA, (uint8_t)character);
}

/*
 * Lines end in a bare LF, as KTAP logs do, so that a captured log's last
 * line is exactly "# RESULT: ..." for tools that compare it whole; a
 * terminal shows it with LF mapped to CR LF (picocom --imap lfcrlf,
 * minicom's "add carriage return").
 */
static void uart_write(uint16_t port, const char *text, size_t length)
{
	for (size_t i = 0; i < length; i++)
		uart_put(port, text[i]);
}

#define DEFINE_SERIAL_WRITER(index)					\
	static void serial_write_##index(const char *text, size_t length)	\
	{									\
		uart_write(serial_ports[index], text, length);			\
	}

DEFINE_SERIAL_WRITER(0)
DEFINE_SERIAL_WRITER(1)
DEFINE_SERIAL_WRITER(2)
DEFINE_SERIAL_WRITER(3)

static struct console_backend serial_backends[SERIAL_PORT_COUNT] = {
	{ .name = "com1", .write = serial_write_0 },
	{ .name = "com2", .write = serial_write_1 },
	{ .name = "com3", .write = serial_write_2 },
	{ .name = "com4", .write = serial_write_3 },
};
static bool serial_registered[SERIAL_PORT_COUNT];

uint16_t serial_port_address(unsigned int index)
{
	return index < SERIAL_PORT_COUNT ? serial_ports[index] : 0;
}

bool serial_console_add(unsigned int index, unsigned int baud)
{
	if (index >= SERIAL_PORT_COUNT || baud == 0 || UART_CLOCK_DIVISOR_BASE % baud != 0)
		return false;
	if (!serial_registered[index] && !uart_present(serial_ports[index]))
		return false;
	uart_setup(serial_ports[index], baud);
	if (!serial_registered[index]) {
		console_register(&serial_backends[index]);
		serial_registered[index] = true;
	}
	return true;
}

void serial_console_remove(unsigned int index)
{
	if (index < SERIAL_PORT_COUNT && serial_registered[index]) {
		console_unregister(&serial_backends[index]);
		serial_registered[index] = false;
	}
}

/*
 * An emulator that ends at the next port write (Bochs's shutdown port, ACPI
 * S5) or resets the machine drops what is still in the UART: Bochs hands a
 * byte to its output file only once the byte's transmission time has passed
 * (iodev/serial.cc, tx_timer(), tag REL_2_7_FINAL), and a run ended right
 * after "# RESULT: PASS" lost its last characters there.
 */
void serial_drain(void)
{
	for (unsigned int index = 0; index < SERIAL_PORT_COUNT; index++) {
		if (!serial_registered[index])
			continue;
		for (int wait = 0; wait < TRANSMIT_WAIT_LIMIT; wait++) {
			if (inb(serial_ports[index] + REGISTER_LINE_STATUS) &
			    LINE_STATUS_TRANSMITTER_IDLE)
				break;
			arch_cpu_relax();
		}
	}
}

bool serial_console_init(void)
{
	return serial_console_add(0, UART_CLOCK_DIVISOR_BASE);
}
