/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_LIB_GLOB_H
#define TRIGOS_LIB_GLOB_H

#include <stdbool.h>

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

#endif
