// SPDX-License-Identifier: MIT
/*
 * kmain: the boot order, one step a line.  boot/entry.S calls it in long
 * mode on the boot stack, with the low 4 GiB identity-mapped.
 */
#include <acpi.h>
#include <boot.h>
#include <cpu.h>
#include <hypervisor.h>
#include <ktap.h>
#include <machine.h>
#include <memory_setup.h>
#include <options.h>
#include <serial.h>
#include <test_runner.h>
#include <version.h>

void kmain(uint32_t magic, uint32_t info_physical);

void kmain(uint32_t magic, uint32_t info_physical)
{
	enum verdict verdict;
	unsigned int suites;

	cpu_early_init();				/* this_cpu() works from here */
	serial_console_init();				/* COM1, if a UART answers */
	cpu_init_bsp();					/* GDT, TSS + IST stacks, IDT */
	boot_info_init(magic, info_physical);		/* multiboot2 or PVH */
	hypervisor_detect();				/* QEMU? CPUID + fw_cfg */
	if (running_under_qemu())
		debugcon_console_init();		/* port 0xe9 too */
	boot_options_init();				/* loader + fw_cfg command line */
	memory_init();					/* page allocator, final page tables */
	acpi_init();					/* RSDP, root table, FADT, \_S5 */
	boot_report();					/* what we found, as diagnostics */

	suites = test_select(kernel_options.test);	/* test=GLOB */
	ktap_header(suites);				/* KTAP version 1, 1..N, notes */
	verdict = test_run_selected(kernel_options.repeat, kernel_options.seed);
	machine_exit(verdict);				/* QEMU exit code, halt or reboot */
}
