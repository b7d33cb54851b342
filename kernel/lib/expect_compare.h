/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_LIB_EXPECT_COMPARE_H
#define TRIGOS_LIB_EXPECT_COMPARE_H
/*
 * The comparisons behind EXPECT_STR*() and EXPECT_MEMEQ() (harness/test.h),
 * shared by the kernel's runner and the host runner of make check, so that a
 * string expectation means the same in both.
 */

#include <stddef.h>

/**
 * expect_string_compare - strcmp() that also takes NULL
 * @left: a string, or NULL
 * @right: a string, or NULL
 *
 * NULL equals NULL and sorts before any string, so EXPECT_STREQ(p, NULL)
 * checks that p is NULL and a NULL where a string is expected fails instead
 * of faulting.  Return: <0, 0 or >0 as strcmp().
 */
int expect_string_compare(const char *left, const char *right);

/** expect_memory_compare - memcmp() of @size bytes at @left and @right */
int expect_memory_compare(const void *left, const void *right, size_t size);

#endif
