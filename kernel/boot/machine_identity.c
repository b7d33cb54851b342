// SPDX-License-Identifier: MIT
/* Which machine this is: QEMU from evidence, Bochs only when told (machine=). */
#include <arch/hypervisor.h>
#include <boot/machine_identity.h>
#include <boot/options.h>
#include <log/log.h>

static enum machine_told machine_told = MACHINE_TOLD_NOTHING;

void machine_set_told(enum machine_told told)
{
	machine_told = told;
}

enum machine_told machine_told_by_option(void)
{
	return machine_told;
}

static bool parse_machine(const struct cmdline_word *word, const char **error)
{
	static const char *const machines[] = {
		[MACHINE_TOLD_NOTHING] = "auto",
		[MACHINE_TOLD_BOCHS] = "bochs",
		[MACHINE_TOLD_BOCHS_2_8] = "bochs-2.8",
		[MACHINE_TOLD_BOCHS_3_0] = "bochs-3.0",
	};
	int told = cmdline_value_index(word, machines, sizeof(machines) / sizeof(machines[0]));

	if (told < 0)
		return false;
	machine_told = (enum machine_told)told;
	return true;
}
KERNEL_OPTION(machine, "auto, bochs (2.7), bochs-2.8 or bochs-3.0", parse_machine);

bool running_under_bochs(void)
{
	return machine_told != MACHINE_TOLD_NOTHING && !running_under_qemu();
}

/* Each Bochs machine= names: its release, as a number and as written. */
static const struct {
	unsigned int number;
	const char *name;
} bochs_releases[] = {
	[MACHINE_TOLD_BOCHS] = { 27, "2.7" },
	[MACHINE_TOLD_BOCHS_2_8] = { 28, "2.8" },
	[MACHINE_TOLD_BOCHS_3_0] = { 30, "3.0" },
};

unsigned int bochs_release(void)
{
	return running_under_bochs() ? bochs_releases[machine_told].number : 0;
}

const char *bochs_release_name(void)
{
	return running_under_bochs() ? bochs_releases[machine_told].name : "";
}

const char *machine_name(void)
{
	if (running_under_bochs())
		return "bochs";
	return running_under_qemu() ? "qemu" : "unidentified";
}

void machine_identify(void)
{
	const struct hypervisor_info *info = hypervisor_info();

	if (bochs_release() > 27) {
		ktap_note("machine: bochs %s (told by machine=bochs-%s)", bochs_release_name(),
			  bochs_release_name());
	} else if (running_under_bochs()) {
		ktap_note("machine: bochs (told by machine=bochs)");
	} else if (running_under_qemu()) {
		ktap_note("machine: QEMU %s (CPUID signature '%s' and fw_cfg)%s",
			  info->tcg ? "TCG" : "with KVM", info->signature,
			  machine_told != MACHINE_TOLD_NOTHING ?
			  "; machine=bochs ignored: Bochs has no fw_cfg" : "");
	} else {
		ktap_note("machine: no emulator identified (hardware, or a hypervisor trigos does "
			  "not know; machine=bochs tells it Bochs)");
	}
}
