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

/* Does some pattern of @patterns spell out @prefix itself ("bench_*", not "*")? */
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

/* Does a pattern of @patterns match "@suite_name" or "@suite_name.@case_name"? */
static bool patterns_match_case(const char *patterns, const char *suite_name,
				const char *case_name)
{
	char full_name[FULL_NAME_SIZE];

	snprintf(full_name, sizeof(full_name), "%s.%s", suite_name, case_name);
	return glob_match_list(patterns, suite_name) || glob_match_list(patterns, full_name);
}

bool case_selected(const char *tests, const char *benchmarks, const char *suite_name,
		   const char *case_name)
{
	const char *prefix = explicit_only_prefix(suite_name);
	bool tests_given = tests && tests[0] != '\0';
	bool benchmarks_given = benchmarks && benchmarks[0] != '\0';

	/* bench=: a benchmark named with or without its "bench_" prefix. */
	if (benchmarks_given && prefix && strcmp(prefix, BENCH_PREFIX) == 0 &&
	    (patterns_match_case(benchmarks, suite_name, case_name) ||
	     patterns_match_case(benchmarks, suite_name + strlen(BENCH_PREFIX), case_name)))
		return true;
	if (!tests_given)
		return !benchmarks_given && prefix == NULL;
	if (prefix && !patterns_name_prefix(tests, prefix))
		return false;
	return patterns_match_case(tests, suite_name, case_name);
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
		if (!selects_any(pattern, context)) {
			ktap_write_unmatched_pattern(writer, key, pattern, length);
			unmatched++;
		}
	}
	return unmatched;
}
