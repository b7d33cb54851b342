/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_LIB_GLOB_H
#define TRIGOS_LIB_GLOB_H

#include <stdbool.h>
#include <stddef.h>

/**
 * glob_match - match @text against a shell-style @pattern
 * @pattern: '*' matches any run of characters, '?' any one character,
 *           every other character itself
 * @text: the string to test
 */
bool glob_match(const char *pattern, const char *text);

/**
 * glob_match_list - match @text against a comma-separated list of patterns
 * @patterns: e.g. "lib_*,paging.write_to_text"; an empty list matches nothing
 * @text: the string to test
 */
bool glob_match_list(const char *patterns, const char *text);

/**
 * glob_list_next - the next pattern of a comma-separated list
 * @cursor: where the list goes on (start with the list itself); moved past
 *          the pattern returned and its comma
 * @length: set to the pattern's length: 0 for an empty one ("a,,b")
 *
 * Return: the pattern's first character (it ends at @length, not at a NUL),
 * or NULL once the list is used up (at once for NULL or "").
 */
const char *glob_list_next(const char **cursor, size_t *length);

#endif
