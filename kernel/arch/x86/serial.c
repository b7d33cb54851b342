// SPDX-License-Identifier: MIT
/*
 * 16550 UART console backends: COM1-COM4 (ttyS0-ttyS3) at their legacy ISA
 * ports (what firmware and Linux assume), and the UART an SPCR names when it
 * is none of them (I/O or memory space).
 *
 * The UART is probed before use: a machine may have none (many laptops, QEMU
 * with -serial none), and reading a missing port returns 0xff, so a plain
 * "wait until the transmitter is empty" loop would spin forever.  Probing
 * writes the scratch register and uses the loopback mode (register layout
 * from the PC16550D data sheet), and every wait is bounded.
 */
#include <log/console.h>
#include <arch/paging.h>
#include <arch/serial.h>
#include <asm/instructions.h>

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

/*
 * Where one UART's registers are: I/O ports (COM1-COM4, or any port an SPCR
 * names) or memory, where @width is both the access width and the distance
 * between two registers, as Linux's 8250 driver takes an SPCR's "mmio",
 * "mmio16" and "mmio32" UARTs (drivers/acpi/spcr.c, regshift = log2 width).
 */
struct uart {
	uint16_t port;			/* I/O: the base port */
	volatile uint8_t *mmio;		/* memory: the mapped base, else NULL */
	unsigned int width;		/* memory: 1, 2 or 4 bytes */
};

static uint8_t uart_in(const struct uart *uart, unsigned int reg)
{
	if (!uart->mmio)
		return inb((uint16_t)(uart->port + reg));
	switch (uart->width) {
	case 4:
		return (uint8_t)*(volatile uint32_t *)(uart->mmio + reg * 4);
	case 2:
		return (uint8_t)*(volatile uint16_t *)(uart->mmio + reg * 2);
	default:
		return uart->mmio[reg];
	}
}

static void uart_out(const struct uart *uart, unsigned int reg, uint8_t value)
{
	if (!uart->mmio) {
		outb((uint16_t)(uart->port + reg), value);
		return;
	}
	switch (uart->width) {
	case 4:
		*(volatile uint32_t *)(uart->mmio + reg * 4) = value;
		break;
	case 2:
		*(volatile uint16_t *)(uart->mmio + reg * 2) = value;
		break;
	default:
		uart->mmio[reg] = value;
		break;
	}
}

static bool uart_present(const struct uart *uart)
{
	/* The scratch register keeps what is written (absent on an 8250 only). */
	uart_out(uart, REGISTER_SCRATCH, 0x5a);
	if (uart_in(uart, REGISTER_SCRATCH) != 0x5a)
		return false;
	uart_out(uart, REGISTER_SCRATCH, 0xa5);
	if (uart_in(uart, REGISTER_SCRATCH) != 0xa5)
		return false;

	/* In loopback mode a byte sent comes back as a byte received. */
	uart_out(uart, REGISTER_MODEM_CONTROL, MODEM_CONTROL_LOOPBACK | MODEM_CONTROL_DTR_RTS_OUT2);
	uart_out(uart, REGISTER_DATA, 0xae);
	for (int tries = 0; tries < 1000; tries++) {
		if (uart_in(uart, REGISTER_LINE_STATUS) & 0x01)
			break;
	}
	if (uart_in(uart, REGISTER_DATA) != 0xae)
		return false;
	uart_out(uart, REGISTER_MODEM_CONTROL, MODEM_CONTROL_DTR_RTS_OUT2);
	return true;
}

static void uart_setup(const struct uart *uart, unsigned int baud)
{
	unsigned int divisor = UART_CLOCK_DIVISOR_BASE / baud;

	uart_out(uart, REGISTER_INTERRUPT_ENABLE, 0);	/* polled: no UART interrupts */
	uart_out(uart, REGISTER_LINE_CONTROL, LINE_CONTROL_DLAB);
	uart_out(uart, REGISTER_DATA, divisor & 0xff);
	uart_out(uart, REGISTER_INTERRUPT_ENABLE, (uint8_t)(divisor >> 8));
	uart_out(uart, REGISTER_LINE_CONTROL, LINE_CONTROL_8N1);
	uart_out(uart, REGISTER_FIFO_CONTROL, FIFO_ENABLE_AND_CLEAR);
	uart_out(uart, REGISTER_MODEM_CONTROL, MODEM_CONTROL_DTR_RTS_OUT2);
}

static void uart_put(const struct uart *uart, char character)
{
	for (int wait = 0; wait < TRANSMIT_WAIT_LIMIT; wait++) {
		if (uart_in(uart, REGISTER_LINE_STATUS) & LINE_STATUS_TRANSMIT_EMPTY)
			break;
		arch_cpu_relax();
	}
	uart_out(uart, REGISTER_DATA, (uint8_t)character);
}

/*
 * Lines end in a bare LF, as KTAP logs do, so that a captured log's last
 * line is exactly "# RESULT: ..." for tools that compare it whole; a
 * terminal shows it with LF mapped to CR LF (picocom --imap lfcrlf,
 * minicom's "add carriage return").
 */
static void uart_write(const struct uart *uart, const char *text, size_t length)
{
	for (size_t i = 0; i < length; i++)
		uart_put(uart, text[i]);
}

/* COM1-COM4, then the SPCR's UART when it is none of them. */
#define SERIAL_SLOTS		(SERIAL_PORT_COUNT + 1)
#define SPCR_SLOT		SERIAL_PORT_COUNT

static struct uart uarts[SERIAL_SLOTS] = {
	{ .port = 0x3f8 }, { .port = 0x2f8 }, { .port = 0x3e8 }, { .port = 0x2e8 },
};

#define DEFINE_SERIAL_WRITER(index)					\
	static void serial_write_##index(const char *text, size_t length)	\
	{									\
		uart_write(&uarts[index], text, length);			\
	}

DEFINE_SERIAL_WRITER(0)
DEFINE_SERIAL_WRITER(1)
DEFINE_SERIAL_WRITER(2)
DEFINE_SERIAL_WRITER(3)
DEFINE_SERIAL_WRITER(4)

static struct console_backend serial_backends[SERIAL_SLOTS] = {
	{ .name = "com1", .write = serial_write_0 },
	{ .name = "com2", .write = serial_write_1 },
	{ .name = "com3", .write = serial_write_2 },
	{ .name = "com4", .write = serial_write_3 },
	{ .name = "spcr", .write = serial_write_4 },
};
static bool serial_registered[SERIAL_SLOTS];

uint16_t serial_port_address(unsigned int index)
{
	return index < SERIAL_PORT_COUNT ? uarts[index].port : 0;
}

static bool serial_slot_add(unsigned int slot, unsigned int baud)
{
	if (baud == 0 || UART_CLOCK_DIVISOR_BASE % baud != 0)
		return false;
	if (!serial_registered[slot] && !uart_present(&uarts[slot]))
		return false;
	uart_setup(&uarts[slot], baud);
	if (!serial_registered[slot]) {
		console_register(&serial_backends[slot]);
		serial_registered[slot] = true;
	}
	return true;
}

bool serial_console_add(unsigned int index, unsigned int baud)
{
	return index < SERIAL_PORT_COUNT && serial_slot_add(index, baud);
}

void serial_console_remove(unsigned int index)
{
	if (index < SERIAL_SLOTS && serial_registered[index]) {
		console_unregister(&serial_backends[index]);
		serial_registered[index] = false;
	}
}

bool serial_console_add_other(const struct serial_uart_address *where, unsigned int baud,
			      const char **why)
{
	struct uart uart = { 0 };

	*why = NULL;
	if (serial_registered[SPCR_SLOT]) {
		*why = "a UART is already in use there";
		return false;
	}
	if (!where->memory) {
		if (where->address > 0xfff8) {
			*why = "its I/O port is out of range";
			return false;
		}
		uart.port = (uint16_t)where->address;
	} else {
		if (where->width != 1 && where->width != 2 && where->width != 4) {
			*why = "its register width is not 1, 2 or 4 bytes";
			return false;
		}
		uart.width = where->width;
		uart.mmio = map_phys(where->address, 8 * where->width, MAP_WRITE | MAP_UNCACHED);
		if (!uart.mmio) {
			*why = "its registers cannot be mapped";
			return false;
		}
	}
	uarts[SPCR_SLOT] = uart;
	if (!serial_slot_add(SPCR_SLOT, baud)) {
		*why = "no UART answers there";
		return false;
	}
	return true;
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
	for (unsigned int index = 0; index < SERIAL_SLOTS; index++) {
		if (!serial_registered[index])
			continue;
		for (int wait = 0; wait < TRANSMIT_WAIT_LIMIT; wait++) {
			if (uart_in(&uarts[index], REGISTER_LINE_STATUS) &
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
