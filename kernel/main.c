// SPDX-License-Identifier: MIT
/*
 * kmain: the boot order, one step a line.  kernel/arch/x86/entry.S calls it in long
 * mode on the boot stack, with the low 4 GiB identity-mapped.
 */
#include <boot/acpi.h>
#include <boot/boot.h>
#include <console/console_setup.h>
#include <cpu/cpu.h>
#include <boot/firmware_dump.h>
#include <arch/hypervisor.h>
#include <arch/ipi.h>
#include <sync/irq.h>
#include <harness/ktap.h>
#include <harness/machine.h>
#include <log/panic.h>
#include <arch/memtype_check.h>
#include <mm/memory_setup.h>
#include <boot/options.h>
#include <arch/serial.h>
#include <smp/smp.h>
#include <smp/smp_call.h>
#include <harness/test_runner.h>
#include <time/time.h>
#include <time/timer.h>
#include <sync/trigger_backend.h>
#include <smp/tsc_sync.h>
#include <boot/version.h>
#include <harness/watchdog.h>

void kmain(uint32_t magic, uint32_t info_physical);

void kmain(uint32_t magic, uint32_t info_physical)
{
	struct test_run run;
	char detail[96];
	enum verdict verdict;
	unsigned int suites;
	struct acpi_console spcr_uart;
	bool spcr_named;

	panic_set_end_of_run(machine_end_crashed_run);	/* a panic ends the run as a crash */
	time_mark_boot();				/* TSC at kernel entry */
	cpu_early_init();				/* this_cpu() works from here */
	serial_console_init();				/* COM1, if a UART answers */
	cpu_init_bsp();					/* GDT, TSS + IST stacks, IDT */
	boot_info_init(magic, info_physical);		/* multiboot2 or PVH */
	hypervisor_detect();				/* QEMU? CPUID + fw_cfg */
	if (running_under_qemu())
		debugcon_console_init();		/* port 0xe9 too */
	boot_options_init();				/* loader + fw_cfg command line */
	test_choose_seed();				/* seed=, or one from the TSC */
	machine_identify();				/* QEMU by evidence, Bochs if told */
	console_setup();				/* console=: COM1-4, the screen */
	suites = test_select(kernel_options.test,	/* test=GLOB, bench=GLOB */
			     kernel_options.bench);
	ktap_header(suites);				/* KTAP version 1, 1..N, kept notes */
	ktap_hold_notes();				/* until the APs are up (below) */
	firmware_dump_boot_info();			/* dump=multiboot,pvh: raw, for fuzzing */
	memory_init();					/* page allocator, final page tables */
	acpi_init();					/* RSDP, root table, FADT, \_S5, SPCR */
	spcr_named = acpi_console_uart(&spcr_uart);		/* the SPCR's UART... */
	console_setup_auto(spcr_named ? &spcr_uart : NULL);	/* ...for console=auto */
	firmware_dump_tables();				/* dump=acpi,mptable: raw, for fuzzing */
	interrupt_controller_init();			/* local APIC, its vectors */
	smp_arch_init();				/* the wake IPI */
	ipi_init();					/* the IPI vector registry */
	smp_call_init();				/* cross-CPU call queues */
	local_irq_enable();				/* the BSP takes interrupts */
	smp_discover();					/* MADT (or MP table): which CPUs */
	smp_start_aps_early();				/* QEMU: INIT+SIPI now, APs start */
	tsc_calibrate();				/* CPUID, HPET, PM timer or PIT */
	timer_calibrate();				/* the LAPIC timer, against the TSC */
	smp_boot_aps();					/* else INIT/SIPI/SIPI (SDM); wait */
	ktap_release_notes();				/* all up: print the notes kept */
	tsc_sync_check();				/* do the CPUs' TSCs agree? */
	watchdog_init();				/* ends hung cases (watchdog=S) */
	memtype_check();				/* trigger memory write-back everywhere? */
	trigger_boot_init(watchdog_cpu());		/* the arch measures, sync/ chooses */
	boot_report();					/* what we found, as diagnostics */

	test_run_selected(kernel_options.repeat,	/* the suites, in KTAP */
			  kernel_options.seed, &run);
	verdict = test_run_verdict(&run, detail, sizeof(detail));
	machine_end_run(verdict, detail);		/* RESULT; emulator's exit, halt or reboot */
}
