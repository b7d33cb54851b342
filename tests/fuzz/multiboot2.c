// SPDX-License-Identifier: MIT
/*
 * Fuzz target: the Multiboot2 boot information (lib/multiboot2.c and
 * lib/boot_info_fill.c).  The input is the information block as GRUB
 * leaves it (tools/fuzz-corpus dumps real ones); it is parsed at two
 * addresses, one of them near the top of the address space, where
 * info_start + total_size must not wrap.
 */
#include <lib/multiboot2.h>

#include "fuzz.h"

static struct boot_info info;	/* over 10 KiB: off the stack */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t addresses[] = { 0x10000, UINT64_MAX - 64 };

	for (size_t i = 0; i < sizeof(addresses) / sizeof(addresses[0]); i++) {
		int result = multiboot2_parse(data, size, addresses[i], &info);

		FUZZ_CHECK(result == 0 || result == MULTIBOOT2_ERROR_TOO_SHORT ||
			   result == MULTIBOOT2_ERROR_TRUNCATED);
		FUZZ_CHECK(info.protocol == BOOT_PROTOCOL_MULTIBOOT2 || result != 0);
		fuzz_check_boot_info(&info);
	}
	return 0;
}
