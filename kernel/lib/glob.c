// SPDX-License-Identifier: MIT
/* Shell-style wildcard matching for test=GLOB and bench=GLOB. */
#include <lib/glob.h>

#include <stddef.h>

/*
 * Match pattern[0..pattern_length) against text.  Iterative with one
 * backtrack point: on a mismatch after a '*', the star swallows one more
 * character and matching resumes.  That is enough for '*' because a later
 * star can only ever need the text an earlier one left over.
 */
static bool match_one(const char *pattern, size_t pattern_length, const char *text)
{
	size_t p = 0, t = 0;
	size_t star_pattern = (size_t)-1, star_text = 0;

	while (text[t] != '\0') {
		if (p < pattern_length && (pattern[p] == '?' || pattern[p] == text[t])) {
			p++;
			t++;
		} else if (p < pattern_length && pattern[p] == '*') {
			star_pattern = p++;
			star_text = t;
		} else if (star_pattern != (size_t)-1) {
			p = star_pattern + 1;
			t = ++star_text;
		} else {
			return false;
		}
	}
	while (p < pattern_length && pattern[p] == '*')
		p++;
	return p == pattern_length;
}

bool glob_match(const char *pattern, const char *text)
{
	size_t length = 0;

	while (pattern[length] != '\0')
		length++;
	return match_one(pattern, length, text);
}

const char *glob_list_next(const char **cursor, size_t *length)
{
	const char *start = *cursor, *end;

	if (!start || *start == '\0')
		return NULL;
	for (end = start; *end != '\0' && *end != ','; end++)
		;
	*length = (size_t)(end - start);
	*cursor = *end == ',' ? end + 1 : end;
	return start;
}

bool glob_match_list(const char *patterns, const char *text)
{
	const char *cursor = patterns, *pattern;
	size_t length;

	while ((pattern = glob_list_next(&cursor, &length))) {
		if (length > 0 && match_one(pattern, length, text))
			return true;
	}
	return false;
}
