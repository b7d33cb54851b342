// SPDX-License-Identifier: MIT
#include <lib/expect_compare.h>
#include <lib/string.h>

int expect_string_compare(const char *left, const char *right)
{
	if (!left || !right)
		return left == right ? 0 : (left ? 1 : -1);
	return strcmp(left, right);
}

int expect_memory_compare(const void *left, const void *right, size_t size)
{
	return memcmp(left, right, size);
}
