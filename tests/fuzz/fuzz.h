/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_TESTS_FUZZ_FUZZ_H
#define TRIGOS_TESTS_FUZZ_FUZZ_H
/*
 * What the fuzz targets of tests/fuzz/ share.  Each target is one file
 * defining LLVMFuzzerTestOneInput(); `make fuzz` links it with libFuzzer
 * (clang), `make check` with tests/fuzz/replay.c (gcc), which feeds it
 * every file of tests/fuzz/corpus/<target>/ and tests/fuzz/regressions/<target>/.
 *
 * The targets check what the parsers promise beyond "no fault": messages
 * are NUL-terminated and short, counts stay within capacities.  A broken
 * promise calls fuzz_fail(), which aborts, so that libFuzzer keeps the
 * input as a crash and the replay fails.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <lib/acpi_tables.h>
#include <lib/memory_image.h>
#include <lib/boot_info.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/**
 * fuzz_fail - report a broken promise and abort
 * @what: which one (printed with the source location)
 */
#define fuzz_fail(what) fuzz_fail_at(__FILE__, __LINE__, (what))
#define FUZZ_CHECK(condition)						\
	do {								\
		if (!(condition))					\
			fuzz_fail(#condition);				\
	} while (0)

void fuzz_fail_at(const char *file, int line, const char *what) __attribute__((noreturn));

/*
 * An ACPI/MP reporter that checks each message: NUL-terminated within
 * ACPI_MESSAGE_SIZE and not empty.  It counts them in *(size_t *)context
 * (if not NULL), and prints them when the environment has FUZZ_VERBOSE.
 */
extern const struct acpi_reporter fuzz_acpi_reporter;

/* Check what a boot information parser left in @info (strings, counts). */
void fuzz_check_boot_info(const struct boot_info *info);

/*
 * Set the checksum byte at @checksum_offset of @bytes so that the first
 * @covered bytes sum to zero; does nothing if they do not hold the byte.
 * Mutated tables almost never keep a valid checksum; the targets parse
 * each input as given and once more with its checksums made right, so
 * that the fuzzer reaches what lies behind the check.
 */
void fuzz_fix_checksum(uint8_t *bytes, size_t covered, size_t checksum_offset);

/*
 * Make right, in place, the checksums of the RSDP (both) or ACPI table
 * that @bytes starts with, over as much of it as @size bytes hold.
 */
void fuzz_fix_acpi_checksums(uint8_t *bytes, size_t size);

/* A heap copy of exactly @size bytes (so that AddressSanitizer bounds it). */
uint8_t *fuzz_copy(const uint8_t *data, size_t size);

/*
 * Call @run on a memory image (lib/memory_image.h), then on a copy of it
 * in which @fix has made each chunk's checksums right.
 */
void fuzz_image_as_given_and_fixed(const uint8_t *data, size_t size,
				   void (*run)(const uint8_t *data, size_t size),
				   void (*fix)(uint8_t *bytes, size_t length));

/**
 * fuzz_memory_open - the physical memory a memory image input describes
 * @data: the input, a memory image (lib/memory_image.h)
 * @size: its size
 * @memory: set to an accessor mapping the image's chunks by address, as
 *          memory_image_access() would, but from a heap copy of each
 *          chunk, so that reading past a chunk is caught
 * @first: set to the first chunk (in its copy)
 *
 * The copies last until fuzz_memory_close() or the next open; at most 64
 * chunks are kept.
 *
 * Return: false if the image has no chunk (@memory maps nothing then).
 */
bool fuzz_memory_open(const uint8_t *data, size_t size, struct physical_memory_access *memory,
		      struct memory_image_chunk *first);

/* fuzz_memory_close - free what fuzz_memory_open() copied */
void fuzz_memory_close(void);

#endif /* TRIGOS_TESTS_FUZZ_FUZZ_H */
