/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_LIB_VERDICT_H
#define TRIGOS_LIB_VERDICT_H
/*
 * The verdict of a run: the one home of its words and codes.  The kernel
 * prints "# RESULT: <word>" as the last line of a run (docs/ktap.md) and,
 * under QEMU, writes the code to isa-debug-exit; the host runner of make
 * check prints the same line.  tools/trigos/verdict.py mirrors this file for
 * the host tools, and a tools test checks the two agree.
 */

#include <stdint.h>

enum verdict {
	VERDICT_PASS,
	VERDICT_FAIL,
	VERDICT_SKIP,	/* nothing failed, nothing passed: every case skipped */
	VERDICT_CRASH,
};

/*
 * What "# RESULT:" says.  A run whose every case skipped did not fail: it
 * says PASS, and its totals (and QEMU's exit code) tell it from a pass.
 */
#define VERDICT_RESULT_PASS	"PASS"
#define VERDICT_RESULT_FAIL	"FAIL"
#define VERDICT_RESULT_CRASH	"CRASH"
#define VERDICT_RESULT_PREFIX	"# RESULT: "

/*
 * The values written to QEMU's isa-debug-exit (port 0xf4); QEMU exits with
 * (value << 1) | 1: 33, 35, 37, 39.  tools/run maps them back to 0..3.
 */
#define VERDICT_QEMU_EXIT_PASS	0x10
#define VERDICT_QEMU_EXIT_FAIL	0x11
#define VERDICT_QEMU_EXIT_SKIP	0x12
#define VERDICT_QEMU_EXIT_CRASH	0x13

/**
 * verdict_of_run - the verdict of a run that ended (a crash is decided
 * elsewhere), for the kernel's runner and the host runner of make check
 * alike: FAIL if a case failed, if no suite ran (a selection that selects
 * nothing) or if @unmatched_patterns of the selection's globs matched no
 * case (a typo in a CI job's test= must not go green beside patterns that
 * did match) - the kernel adds there the requests it cannot honour, such as
 * a trigger= backend this machine lacks; else SKIP if no case passed (every
 * one skipped); else PASS
 */
enum verdict verdict_of_run(unsigned int passed, unsigned int failed, unsigned int suites_run,
			    unsigned int unmatched_patterns);

/** verdict_name - "PASS", "FAIL", "SKIP" or "CRASH" */
const char *verdict_name(enum verdict verdict);

/** verdict_result_word - what "# RESULT:" says for @verdict (SKIP says PASS) */
const char *verdict_result_word(enum verdict verdict);

/** verdict_qemu_exit_value - what to write to isa-debug-exit for @verdict */
uint32_t verdict_qemu_exit_value(enum verdict verdict);

#endif
