// SPDX-License-Identifier: MIT
/*
 * Hypervisor identification and QEMU's fw_cfg interface.
 *
 * fw_cfg (QEMU docs/specs/fw_cfg.rst): write a 16-bit selector to port 0x510,
 * read bytes from port 0x511.  Selector 0 returns "QEMU"; selector 0x19 the
 * file directory: a big-endian 32-bit count, then 64-byte entries of
 * big-endian size (32 bits), selector (16 bits), 16 reserved bits and a
 * 56-byte name.  Selector 5 holds the number of vCPUs started, 16 bits
 * little-endian (QEMU hw/i386/fw_cfg.c, fw_cfg_arch_create(): boot_cpus, at
 * v7.2.0).  Ports are touched only after CPUID reports a hypervisor:
 * on bare metal 0x510 may belong to an unrelated device.
 */
#include <arch/hypervisor.h>
#include <log/log.h>
#include <boot/options.h>
#include <lib/string.h>
#include <asm/instructions.h>

#define CPUID_HYPERVISOR_BIT		(1u << 31)	/* CPUID.1:ECX */
#define CPUID_HYPERVISOR_LEAF		0x40000000

#define FW_CFG_SELECTOR_PORT		0x510
#define FW_CFG_DATA_PORT		0x511
#define FW_CFG_SIGNATURE		0x0000
#define FW_CFG_NB_CPUS			0x0005
#define FW_CFG_FILE_DIRECTORY		0x0019
#define FW_CFG_FILE_NAME_SIZE		56

static struct hypervisor_info info;
static bool pause_option_given;		/* pause= was given: TCG does not choose */

static void pace_pauses(bool paced);

static void fw_cfg_select(uint16_t selector)
{
	outw(FW_CFG_SELECTOR_PORT, selector);
}

static void fw_cfg_read(void *buffer, size_t size)
{
	uint8_t *bytes = buffer;

	for (size_t i = 0; i < size; i++)
		bytes[i] = inb(FW_CFG_DATA_PORT);
}

static uint32_t big_endian_32(const uint8_t *bytes)
{
	return ((uint32_t)bytes[0] << 24) | ((uint32_t)bytes[1] << 16) |
	       ((uint32_t)bytes[2] << 8) | bytes[3];
}

void hypervisor_detect(void)
{
	struct cpuid_result result = cpuid(1);
	char signature[4];

	info.cpuid_hypervisor_bit = (result.ecx & CPUID_HYPERVISOR_BIT) != 0;
	if (!info.cpuid_hypervisor_bit)
		return;

	result = cpuid(CPUID_HYPERVISOR_LEAF);
	memcpy(&info.signature[0], &result.ebx, 4);
	memcpy(&info.signature[4], &result.ecx, 4);
	memcpy(&info.signature[8], &result.edx, 4);
	info.signature[12] = '\0';
	info.tcg = strcmp(info.signature, "TCGTCGTCGTCG") == 0;
	if (info.tcg && !pause_option_given)
		pace_pauses(true);

	fw_cfg_select(FW_CFG_SIGNATURE);
	fw_cfg_read(signature, sizeof(signature));
	info.fw_cfg_present = memcmp(signature, "QEMU", 4) == 0;
	info.qemu = info.fw_cfg_present &&
		    (info.tcg || strncmp(info.signature, "KVMKVMKVM", 9) == 0);
}

/* --- PAUSE in spin loops (asm/instructions.h, arch_cpu_relax()) ------------ */

/*
 * pause=off leaves PAUSE out of spin loops, to measure what it costs under
 * an emulator.  Under QEMU TCG (measured there, docs/emulators.md) a vCPU
 * spinning with PAUSE makes a halted vCPU's wake-up about three times
 * slower, and one without it makes spin-based waits slower and, with more
 * vCPUs than host CPUs, lets a spinner hold its host CPU for whole
 * scheduler slices; so PAUSE stays on everywhere.
 *
 * pause=paced, the default under TCG: the poll loops of sync/poll_wait.h
 * (the kernel's polls for a word, and the trigger's spin phases with
 * interrupts on; not those with interrupts off) PAUSE at most
 * once every PACE_CYCLES for the first PACED_FOR_CYCLES of a wait, then on
 * every poll.  Why under TCG: there PAUSE is no hint but an exit from the
 * vCPU's translated code (QEMU target/i386/tcg/misc_helper.c, do_pause():
 * EXCP_INTERRUPT), after which its thread takes QEMU's global lock
 * (accel/tcg/tcg-accel-ops-mttcg.c, v7.2.0) - the lock a halted vCPU needs
 * to wake, to take its interrupt and to write its EOI.  A wait of the cost
 * of a wake-up so leaves that lock alone, and a longer one still goes
 * through it (where a waiter overcommitted on the host can lose its host
 * CPU) as often as before.  pause=on PAUSEs on every poll, as on hardware.
 */
#define PACE_CYCLES		4096		/* ~1.5 us at this host's TSC rate */
#define PACED_FOR_CYCLES	(1ull << 16)	/* ~25 us: about one wake-up of a halted vCPU */

bool cpu_relax_pauses = true;
uint64_t cpu_relax_pace_cycles;
uint64_t cpu_relax_paced_for_cycles;

static void pace_pauses(bool paced)
{
	cpu_relax_pace_cycles = paced ? PACE_CYCLES : 0;
	cpu_relax_paced_for_cycles = paced ? PACED_FOR_CYCLES : 0;
}

static bool parse_pause(const struct cmdline_word *word, const char **error)
{
	static const char *const values[] = { "off", "on", "paced" };
	int value = cmdline_value_index(word, values, sizeof(values) / sizeof(values[0]));

	if (value < 0)
		return false;
	pause_option_given = true;
	cpu_relax_pauses = value != 0;
	pace_pauses(value == 2);
	if (!cpu_relax_pauses)
		ktap_note("spin loops: no PAUSE (pause=off: a measurement, not a fix)");
	return true;
}
KERNEL_OPTION(pause, "on, paced or off (PAUSE in poll loops; paced is TCG's default)",
	      parse_pause);

const struct hypervisor_info *hypervisor_info(void)
{
	return &info;
}

bool running_under_qemu(void)
{
	return info.qemu;
}

long fw_cfg_read_file(const char *name, void *buffer, size_t size)
{
	uint8_t count_bytes[4];
	uint32_t count;

	if (!info.fw_cfg_present)
		return -1;
	fw_cfg_select(FW_CFG_FILE_DIRECTORY);
	fw_cfg_read(count_bytes, sizeof(count_bytes));
	count = big_endian_32(count_bytes);
	for (uint32_t i = 0; i < count; i++) {
		uint8_t entry[4 + 2 + 2 + FW_CFG_FILE_NAME_SIZE];
		uint32_t file_size;
		uint16_t selector;

		fw_cfg_read(entry, sizeof(entry));
		entry[sizeof(entry) - 1] = '\0';
		if (strcmp((const char *)&entry[8], name) != 0)
			continue;
		file_size = big_endian_32(entry);
		selector = (uint16_t)((entry[4] << 8) | entry[5]);
		fw_cfg_select(selector);
		fw_cfg_read(buffer, file_size < size ? file_size : size);
		return file_size;
	}
	return -1;
}

unsigned int fw_cfg_cpu_count(void)
{
	uint8_t count[2];

	if (!info.fw_cfg_present)
		return 0;
	fw_cfg_select(FW_CFG_NB_CPUS);
	fw_cfg_read(count, sizeof(count));
	return (unsigned int)count[0] | ((unsigned int)count[1] << 8);
}

void arch_cpu_model(char *buffer, size_t size)
{
	char brand[49] = "";
	size_t start = 0, length;

	if (cpuid(0x80000000).eax >= 0x80000004) {
		for (uint32_t leaf = 0; leaf < 3; leaf++) {
			struct cpuid_result part = cpuid(0x80000002 + leaf);

			memcpy(&brand[leaf * 16], &part, 16);
		}
		brand[48] = '\0';
	}
	/* Brand strings are padded with spaces; a quote would break the JSON. */
	while (brand[start] == ' ')
		start++;
	length = strlcpy(buffer, &brand[start], size);
	for (size_t i = 0; i < length && i < size; i++) {
		if (buffer[i] == '"' || buffer[i] == '\\')
			buffer[i] = '\'';
	}
}
