// SPDX-License-Identifier: MIT
#include <console/console_setup.h>
#include <log/log.h>
#include <boot/options.h>
#include <console/screen_console.h>
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
KERNEL_OPTION(console, "ttyS0..ttyS3[,BAUD], fb or auto (the SPCR's UART), one or more words",
	      parse_console);

struct wanted_consoles {
	bool serial[SERIAL_PORT_COUNT];
	unsigned int baud[SERIAL_PORT_COUNT];
	bool screen;
	bool explicit;		/* from console= words, so a missing one is worth a note */
};

static void want_everything(struct wanted_consoles *wanted)
{
	for (unsigned int port = 0; port < SERIAL_PORT_COUNT; port++) {
		wanted->serial[port] = true;
		wanted->baud[port] = CONSOLE_DEFAULT_BAUD;
	}
	wanted->screen = true;
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

void console_setup_auto(bool named, unsigned int port, unsigned int baud)
{
	struct wanted_consoles wanted = { .explicit = true };

	if (!want_chosen(&wanted))
		return;
	if (!named) {
		ktap_note("console: console=auto: the SPCR names no UART the serial driver can use; "
			  "every console found prints");
		return;
	}
	wanted.serial[port] = true;
	/* "As the firmware left it" cannot be kept: the UART is set up anew. */
	wanted.baud[port] = baud ? baud : CONSOLE_DEFAULT_BAUD;
	if (CONSOLE_DEFAULT_BAUD % wanted.baud[port] != 0)
		wanted.baud[port] = CONSOLE_DEFAULT_BAUD;
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
