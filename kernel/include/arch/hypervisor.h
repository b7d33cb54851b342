/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_HYPERVISOR_H
#define TRIGOS_HYPERVISOR_H
/*
 * Are we under QEMU?  Decided from evidence, never assumed: the CPUID
 * hypervisor bit and signature (leaf 0x40000000: "TCGTCGTCGTCG" under TCG,
 * "KVMKVMKVM" under KVM), and then QEMU's fw_cfg device answering its
 * "QEMU" signature.  Only then does trigos touch QEMU-only devices
 * (isa-debug-exit, debugcon, fw_cfg files).
 */

#include <stdbool.h>
#include <stddef.h>

struct hypervisor_info {
	bool cpuid_hypervisor_bit;
	char signature[13];		/* CPUID 0x40000000 EBX:ECX:EDX, "" if none */
	bool fw_cfg_present;
	bool qemu;			/* both tests above agree */
	bool tcg;			/* the signature says TCG (emulated, not KVM) */
};

/** hypervisor_detect - gather the evidence (once, on the BSP) */
void hypervisor_detect(void);

const struct hypervisor_info *hypervisor_info(void);

/** running_under_qemu - true only when QEMU was positively identified */
bool running_under_qemu(void);

/**
 * fw_cfg_read_file - read QEMU fw_cfg file @name (e.g. "opt/trigos/cmdline")
 * into @buffer; returns the file's full size, or -1 if there is no such file
 * or no fw_cfg.  At most @size bytes are stored.
 */
long fw_cfg_read_file(const char *name, void *buffer, size_t size);

/**
 * fw_cfg_cpu_count - how many vCPUs QEMU started (-smp N, not maxcpus), from
 * fw_cfg; 0 without fw_cfg.  A count only: which APIC IDs they have is the
 * firmware tables' to say.
 */
unsigned int fw_cfg_cpu_count(void);

/** arch_cpu_model - the CPU's brand string (CPUID 0x80000002-4), "" if none */
void arch_cpu_model(char *buffer, size_t size);

#endif
