// SPDX-License-Identifier: MIT
/*
 * Fuzz target: the PVH start_info (lib/pvh.c).  The input is a memory
 * image (lib/memory_image.h) whose first chunk is the start_info and whose
 * other chunks are what it points at, the command line, module list and
 * memory map, where QEMU put them (tools/fuzz-corpus dumps real boots).
 */
#include <lib/pvh.h>

#include "fuzz.h"

static struct boot_info info;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct memory_image_chunk start_info;
	struct physical_memory_access memory;
	int result;

	if (!fuzz_memory_open(data, size, &memory, &start_info))
		return 0;
	result = pvh_parse(start_info.bytes, start_info.length, start_info.physical, &memory,
			   &info);
	fuzz_memory_close();
	FUZZ_CHECK(result == 0 || result == PVH_ERROR_TOO_SHORT || result == PVH_ERROR_BAD_MAGIC);
	fuzz_check_boot_info(&info);
	return 0;
}
