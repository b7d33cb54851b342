// SPDX-License-Identifier: MIT
#include <console/console_setup.h>
#include <boot/acpi.h>
#include <lib/format.h>
#include <log/log.h>
#include <boot/options.h>
#include <console/screen_console.h>
#include <arch/parport.h>
#include <arch/serial.h>
#include <lib/console_option.h>

#define CONSOLE_CHOICES_MAX	8

/* The console= words, in order. */
static struct {
	struct console_spec specs[CONSOLE_CHOICES_MAX];
	unsigned int count;
} choice;

static bool parse_console(const struct cmdline_word *word, const char **error)
{
	if (!word->has_value)
		return false;
	if (choice.count == CONSOLE_CHOICES_MAX) {
		*error = "too many console= words";
		return false;
	}
	*error = console_spec_parse(word->value, word->value_length, &choice.specs[choice.count]);
	if (*error)
		return false;
	choice.count++;
	return true;
}
KERNEL_OPTION(console, "ttyS0..ttyS3[,BAUD], fb, auto (the SPCR's UART) or lp0 (LPT1), one or "
	      "more words",
	      parse_console);

struct wanted_consoles {
	bool serial[SERIAL_PORT_COUNT];
	unsigned int baud[SERIAL_PORT_COUNT];
	bool screen;
	bool parallel;		/* lp0: only when named, never by default */
	bool explicit;		/* from console= words, so a missing one is worth a note */
};

static void want_everything(struct wanted_consoles *wanted)
{
	for (unsigned int port = 0; port < SERIAL_PORT_COUNT; port++) {
		wanted->serial[port] = true;
		wanted->baud[port] = CONSOLE_DEFAULT_BAUD;
	}
	wanted->screen = true;
	wanted->parallel = false;	/* never probed unless named */
	wanted->explicit = false;
}

/* Returns how many consoles now print. */
static unsigned int apply(const struct wanted_consoles *wanted)
{
	unsigned int working = 0;

	for (unsigned int port = 0; port < SERIAL_PORT_COUNT; port++) {
		if (!wanted->serial[port]) {
			serial_console_remove(port);
		} else if (serial_console_add(port, wanted->baud[port])) {
			working++;
		} else if (wanted->explicit) {
			ktap_note("console: ttyS%u (COM%u, port 0x%x): no UART answers; not used",
				  port, port + 1, serial_port_address(port));
		}
	}
	if (wanted->screen && screen_console_init())
		working++;
	if (!wanted->parallel)
		parallel_console_remove();
	else if (parallel_console_add())
		working++;
	else
		ktap_note("console: lp0 (LPT1, port 0x%x): no parallel port answers; not used",
			  PARALLEL_PORT_LP0);
	return working;
}

/* The console= words but "auto"; returns whether "auto" was among them. */
static bool want_chosen(struct wanted_consoles *wanted)
{
	bool automatic = false;

	for (unsigned int i = 0; i < choice.count; i++) {
		const struct console_spec *spec = &choice.specs[i];

		if (spec->kind == CONSOLE_KIND_AUTO) {
			automatic = true;
		} else if (spec->kind == CONSOLE_KIND_SCREEN) {
			wanted->screen = true;
		} else if (spec->kind == CONSOLE_KIND_PARALLEL) {
			wanted->parallel = true;
		} else {
			wanted->serial[spec->port] = true;
			wanted->baud[spec->port] = spec->baud;
		}
	}
	return automatic;
}

void console_setup(void)
{
	struct wanted_consoles wanted = { .explicit = true };

	/* console=auto: every console until the SPCR is read (console_setup_auto()). */
	if (choice.count == 0 || want_chosen(&wanted)) {
		want_everything(&wanted);
		apply(&wanted);
		return;
	}
	if (apply(&wanted) == 0) {
		/* Silence would look like a hang: better every console there is. */
		want_everything(&wanted);
		apply(&wanted);
		ktap_note("console: none of the console= choices works; using every console found");
	}
}

/* "As the firmware left it" cannot be kept: the UART is set up anew. */
static unsigned int auto_baud(unsigned int baud)
{
	if (baud == 0 || CONSOLE_DEFAULT_BAUD % baud != 0)
		return CONSOLE_DEFAULT_BAUD;
	return baud;
}

/* console=auto on a UART that is none of COM1-COM4: only it, if it answers. */
static void setup_auto_other(const struct acpi_console *uart)
{
	struct wanted_consoles nothing = { .explicit = true };
	unsigned int baud = auto_baud(uart->baud);
	const char *why;
	char where[64];

	scnprintf(where, sizeof(where), uart->other.memory ? "the 16550 in memory at 0x%llx" :
		  "the 16550 at I/O port 0x%llx", (unsigned long long)uart->other.address);
	if (!serial_console_add_other(&uart->other, baud, &why)) {
		ktap_note("console: console=auto: %s, which the SPCR names, is not used: %s; "
			  "every console found prints", where, why);
		return;
	}
	ktap_note("console: console=auto: %s (console spcr) at %u baud, as the SPCR names it",
		  where, baud);
	apply(&nothing);	/* the others stop: only the SPCR's prints */
}

void console_setup_auto(const struct acpi_console *uart)
{
	struct wanted_consoles wanted = { .explicit = true };
	unsigned int port;

	if (!want_chosen(&wanted))
		return;
	if (!uart) {
		ktap_note("console: console=auto: the SPCR names no UART the serial driver can use; "
			  "every console found prints");
		return;
	}
	if (uart->com < 0) {
		setup_auto_other(uart);
		return;
	}
	port = (unsigned int)uart->com;
	wanted.serial[port] = true;
	wanted.baud[port] = auto_baud(uart->baud);
	if (apply(&wanted) == 0) {
		want_everything(&wanted);
		apply(&wanted);
		ktap_note("console: console=auto: ttyS%u (COM%u), which the SPCR names, does not "
			  "answer; every console found prints", port, port + 1);
		return;
	}
	ktap_note("console: console=auto: ttyS%u (COM%u) at %u baud, as the SPCR names it", port,
		  port + 1, wanted.baud[port]);
}
