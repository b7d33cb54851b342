// SPDX-License-Identifier: MIT
#include <lib/case_selection.h>
#include <lib/format.h>
#include <lib/glob.h>
#include <lib/string.h>

#define BENCH_PREFIX "bench_"

/* Suites that run only when a pattern names their prefix (case_selection.h). */
static const char *const explicit_only_prefixes[] = { "selftest_", BENCH_PREFIX };

/* "suite.case" is longer than any name a test file declares. */
#define FULL_NAME_SIZE 160

/* The explicit-only prefix @suite_name has, or NULL. */
static const char *explicit_only_prefix(const char *suite_name)
{
	for (size_t i = 0; i < sizeof(explicit_only_prefixes) / sizeof(explicit_only_prefixes[0]); i++) {
		if (strncmp(suite_name, explicit_only_prefixes[i],
			    strlen(explicit_only_prefixes[i])) == 0)
			return explicit_only_prefixes[i];
	}
	return NULL;
}

/* Does an including pattern of @patterns spell out @prefix itself ("bench_*", not "*")? */
static bool patterns_name_prefix(const char *patterns, const char *prefix)
{
	size_t prefix_length = strlen(prefix), length;
	const char *cursor = patterns, *pattern;

	while ((pattern = glob_list_next(&cursor, &length))) {
		if (length >= prefix_length && strncmp(pattern, prefix, prefix_length) == 0)
			return true;
	}
	return false;
}

/*
 * Does a pattern of @patterns of one kind - excluding (marked with
 * CASE_SELECTION_EXCLUDE) or including - match "@suite_name" or
 * "@suite_name.@case_name"?  *@any_of_kind, when given, says whether the
 * list has a pattern of that kind at all.
 */
static bool patterns_match_case(const char *patterns, bool excluding, const char *suite_name,
				const char *case_name, bool *any_of_kind)
{
	char full_name[FULL_NAME_SIZE], glob[CASE_SELECTION_GLOB_MAX + 1];
	const char *cursor = patterns, *pattern;
	size_t length;

	snprintf(full_name, sizeof(full_name), "%s.%s", suite_name, case_name);
	if (any_of_kind)
		*any_of_kind = false;
	while ((pattern = glob_list_next(&cursor, &length))) {
		bool marked = length > 0 && pattern[0] == CASE_SELECTION_EXCLUDE;

		if (marked != excluding)
			continue;
		pattern += marked;
		length -= marked;
		if (length == 0 || length >= sizeof(glob))
			continue;	/* the command line refused a glob this long */
		if (any_of_kind)
			*any_of_kind = true;
		memcpy(glob, pattern, length);
		glob[length] = '\0';
		if (glob_match(glob, suite_name) || glob_match(glob, full_name))
			return true;
	}
	return false;
}

/*
 * One list's verdict over a suite known by @suite_name and, for a
 * benchmark, also by @other_name (without its "bench_"): no excluding
 * pattern matches, and an including one does - or the list has none, so
 * that "-lib_*" alone means "all but".
 */
static bool list_selects(const char *patterns, const char *suite_name, const char *other_name,
			 const char *case_name)
{
	bool any_including;

	if (patterns_match_case(patterns, true, suite_name, case_name, NULL) ||
	    (other_name && patterns_match_case(patterns, true, other_name, case_name, NULL)))
		return false;
	if (patterns_match_case(patterns, false, suite_name, case_name, &any_including))
		return true;
	return (other_name && patterns_match_case(patterns, false, other_name, case_name, NULL)) ||
	       !any_including;
}

bool case_selected(const char *tests, const char *benchmarks, const char *suite_name,
		   const char *case_name)
{
	const char *prefix = explicit_only_prefix(suite_name);
	bool tests_given = tests && tests[0] != '\0';
	bool benchmarks_given = benchmarks && benchmarks[0] != '\0';

	/* bench=: a benchmark named with or without its "bench_" prefix. */
	if (benchmarks_given && prefix && strcmp(prefix, BENCH_PREFIX) == 0 &&
	    list_selects(benchmarks, suite_name, suite_name + strlen(BENCH_PREFIX), case_name))
		return true;
	if (!tests_given)
		return !benchmarks_given && prefix == NULL;
	if (prefix && !patterns_name_prefix(tests, prefix))
		return false;
	return list_selects(tests, suite_name, NULL, case_name);
}

unsigned int case_selection_report_unmatched(const struct ktap_writer *writer, const char *key,
					     const char *patterns,
					     bool (*selects_any)(const char *pattern, void *context),
					     void *context)
{
	const char *cursor = patterns, *start;
	unsigned int unmatched = 0;
	size_t length;

	while ((start = glob_list_next(&cursor, &length))) {
		char pattern[CASE_SELECTION_GLOB_MAX + 1];

		if (length == 0 || length >= sizeof(pattern))
			continue;
		memcpy(pattern, start, length);
		pattern[length] = '\0';
		/* An excluding pattern that names nothing is a typo too: asked without its mark. */
		if (!selects_any(pattern + (pattern[0] == CASE_SELECTION_EXCLUDE), context)) {
			ktap_write_unmatched_pattern(writer, key, pattern, length);
			unmatched++;
		}
	}
	return unmatched;
}
