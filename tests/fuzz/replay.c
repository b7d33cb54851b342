// SPDX-License-Identifier: MIT
/*
 * Replay driver for the fuzz targets, for `make check`: built with gcc and
 * the sanitizers (no libFuzzer needed), it calls the target's
 * LLVMFuzzerTestOneInput() once on every file of the directories given,
 * so that a parser change that breaks on a seed or on a crash once found
 * (tests/fuzz/regressions/) fails the tests.  A target that finds a
 * problem aborts; the sanitizers abort on theirs.
 *
 * Usage: replay-TARGET NAME DIRECTORY...   (a missing directory is empty)
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

#include <lib/string.h>

#include "fuzz.h"

#define MAX_INPUT_SIZE	(1u << 20)

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Run the target on @path; the input is a heap block of exactly its size. */
static void replay_file(const char *path)
{
	static uint8_t buffer[MAX_INPUT_SIZE + 1];
	FILE *file = fopen(path, "rb");
	size_t size;
	uint8_t *input;

	if (!file) {
		perror(path);
		exit(1);
	}
	size = fread(buffer, 1, sizeof(buffer), file);
	fclose(file);
	if (size > MAX_INPUT_SIZE) {
		fprintf(stderr, "replay: %s is larger than %u bytes\n", path, MAX_INPUT_SIZE);
		exit(1);
	}
	input = fuzz_copy(buffer, size);
	LLVMFuzzerTestOneInput(input, size);
	free(input);
}

/* Replay every regular file of @directory in name order; return how many. */
static size_t replay_directory(const char *directory)
{
	char *names[4096], path[4096];
	size_t count = 0;
	struct dirent *entry;
	DIR *dir = opendir(directory);

	if (!dir)
		return 0;
	while ((entry = readdir(dir)) != NULL) {
		if (entry->d_name[0] == '.' || entry->d_type == DT_DIR)
			continue;
		if (count == sizeof(names) / sizeof(names[0])) {
			fprintf(stderr, "replay: more than %zu files in %s\n", count, directory);
			exit(1);
		}
		names[count] = malloc(strlen(entry->d_name) + 1);
		if (!names[count])
			fuzz_fail("out of memory");
		memcpy(names[count], entry->d_name, strlen(entry->d_name) + 1);
		count++;
	}
	closedir(dir);
	qsort(names, count, sizeof(names[0]), by_name);
	for (size_t i = 0; i < count; i++) {
		snprintf(path, sizeof(path), "%s/%s", directory, names[i]);
		replay_file(path);
		free(names[i]);
	}
	return count;
}

int main(int argc, char **argv)
{
	size_t total = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s NAME DIRECTORY...\n", argv[0]);
		return 2;
	}
	for (int i = 2; i < argc; i++)
		total += replay_directory(argv[i]);
	printf("replay: %-11s %3zu inputs, no problem found\n", argv[1], total);
	return 0;
}
