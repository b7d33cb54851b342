// SPDX-License-Identifier: MIT
/*
 * Leaving the machine: QEMU's debug exit, Bochs's shutdown port, reset and halt.
 *
 * Reset tries, in order, each announced on the console before it is tried
 * (so that the last line on the screen names the way that worked):
 *  1. the FADT's reset register (ACPI 6.5, 4.8.3.6): RESET_VALUE written to
 *     RESET_REG, if the FADT is revision 2 or later and sets RESET_REG_SUP;
 *  2. the 8042 keyboard controller's pulse-reset command 0xFE, which most
 *     PCs still wire to the reset line;
 *  3. a triple fault: an interrupt with an empty IDT.
 * Halting stops the other CPUs with an NMI, whose handler halts with NMIs
 * blocked (SDM 3A, 6.7.1: until IRET), then the caller.
 */
#include <boot/acpi.h>
#include <arch/acpi_register.h>
#include <log/console.h>
#include <cpu/cpu.h>
#include <arch/ipi.h>
#include <arch/power.h>
#include <log/panic.h>
#include <arch/serial.h>
#include <smp/smp.h>
#include <time/time.h>
#include <asm/instructions.h>
#include <asm/interrupts.h>

#define QEMU_DEBUG_EXIT_PORT	0xf4
#define BOCHS_SHUTDOWN_PORT	0x8900
#define KEYBOARD_CONTROLLER	0x64
#define KEYBOARD_INPUT_FULL	0x02
#define KEYBOARD_PULSE_RESET	0xfe
#define RESET_WAIT_US		500000	/* how long each way gets to work */
/*
 * How long the other CPUs get to take the halting NMI.  Each halts within
 * microseconds of it on hardware, but under a loaded host a vCPU's thread
 * may not run for 100 ms and more, and that CPU would be reported as not
 * halted; the wait ends as soon as every CPU has halted.
 */
#define HALT_WAIT_US		2000000

void arch_qemu_debug_exit(uint32_t value)
{
	/* QEMU exits here if -device isa-debug-exit,iobase=0xf4 is present. */
	outl(QEMU_DEBUG_EXIT_PORT, value);
}

/*
 * Bochs's "unmapped" device ends the simulation when the bytes of "Shutdown"
 * reach port 0x8900 one by one, in order; any other byte starts the sequence
 * again (iodev/unmapped.cc, tag REL_2_7_FINAL).  Called only when
 * running_under_bochs(): elsewhere the port may belong to some device.
 */
void arch_bochs_shutdown(void)
{
	static const char sequence[] = "Shutdown";

	serial_drain();
	for (const char *byte = sequence; *byte; byte++)
		outb(BOCHS_SHUTDOWN_PORT, (uint8_t)*byte);
}

void arch_halt_forever(void)
{
	for (;;) {
		cli();
		hlt();
	}
}

/* --- Halting every CPU ------------------------------------------------------ */

static bool halt_requested;
static unsigned int halted_cpus;

static bool halt_on_nmi(struct interrupt_frame *frame)
{
	if (!__atomic_load_n(&halt_requested, __ATOMIC_ACQUIRE))
		return false;
	__atomic_fetch_add(&halted_cpus, 1, __ATOMIC_RELEASE);
	arch_halt_forever();
}

void arch_halt_other_cpus(void)
{
	unsigned int others = smp_summary.online > 0 ? smp_summary.online - 1 : 0;
	uint64_t deadline;
	bool sent = true;

	if (others == 0) {
		kprintf("# halt: no other CPU is online; halting cpu %u\n", cpu_id());
		return;
	}
	__atomic_store_n(&halt_requested, true, __ATOMIC_RELEASE);
	if (!nmi_register(halt_on_nmi)) {
		kprintf("# halt: no free NMI handler slot; the other CPUs keep running\n");
		return;
	}
	for (unsigned int cpu = 0; cpu < MAX_CPUS; cpu++) {
		if (cpu == cpu_id() || !cpus[cpu].online)
			continue;
		sent &= in_nmi() ? ipi_send_nmi_from_nmi(cpu) : ipi_send_nmi(cpu);
	}
	deadline = cycles() + ns_to_cycles(HALT_WAIT_US * 1000ull);
	while (__atomic_load_n(&halted_cpus, __ATOMIC_ACQUIRE) < others && cycles() < deadline)
		arch_cpu_relax();
	kprintf("# halt: %u of %u other CPUs halted by NMI%s; halting cpu %u\n",
		__atomic_load_n(&halted_cpus, __ATOMIC_ACQUIRE), others,
		sent ? "" : " (some NMIs could not be sent)", cpu_id());
}

/* --- Reset ------------------------------------------------------------------ */

static void reset_through_acpi(void)
{
	const struct acpi_fadt *fadt = acpi_fadt_get();
	const char *problem;
	char where[64];

	if (!fadt) {
		kprintf("# reboot: no FADT, so no ACPI reset register\n");
		return;
	}
	if (!fadt->reset_supported) {
		kprintf("# reboot: the FADT (revision %u) offers no reset register%s\n",
			fadt->revision, fadt->revision < 2 ? " (revision 1 has none)" :
			!(fadt->flags & ACPI_FADT_RESET_REG_SUP) ? " (RESET_REG_SUP clear)" : "");
		return;
	}
	acpi_register_describe(&fadt->reset_register, where, sizeof(where));
	kprintf("# reboot: writing 0x%x to the ACPI reset register (%s)\n", fadt->reset_value,
		where);
	/* 4.8.3.6: the register is 8 bits wide, whatever width the GAS states. */
	serial_drain();
	problem = acpi_register_write(fadt, ACPI_FADT_RESET, fadt->reset_value);
	if (problem) {
		kprintf("# reboot: the ACPI reset register is unusable: %s\n", problem);
		return;
	}
	udelay(RESET_WAIT_US);
	kprintf("# reboot: still running after the ACPI reset register\n");
}

static void reset_through_keyboard_controller(void)
{
	kprintf("# reboot: pulsing the reset line through the 8042 keyboard controller\n");
	/* Wait (bounded) until it can take a command; absent, it reads 0xff. */
	for (int wait = 0; wait < 100000 && (inb(KEYBOARD_CONTROLLER) & KEYBOARD_INPUT_FULL); wait++)
		arch_cpu_relax();
	serial_drain();
	outb(KEYBOARD_CONTROLLER, KEYBOARD_PULSE_RESET);
	udelay(RESET_WAIT_US);
	kprintf("# reboot: still running after the 8042 reset command\n");
}

void arch_reboot(void)
{
	struct descriptor_table_pointer no_idt = { 0, 0 };

	reset_through_acpi();
	reset_through_keyboard_controller();
	kprintf("# reboot: forcing a triple fault (an interrupt with an empty IDT)\n");
	serial_drain();
	cli();
	lidt(&no_idt);
	int3();
	arch_halt_forever();
}
