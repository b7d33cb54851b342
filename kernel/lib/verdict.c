// SPDX-License-Identifier: MIT
#include <lib/verdict.h>

enum verdict verdict_of_run(unsigned int passed, unsigned int failed, unsigned int suites_run,
			    unsigned int unmatched_patterns)
{
	if (failed || suites_run == 0 || unmatched_patterns)
		return VERDICT_FAIL;
	return passed ? VERDICT_PASS : VERDICT_SKIP;
}

const char *verdict_name(enum verdict verdict)
{
	switch (verdict) {
	case VERDICT_PASS:
		return "PASS";
	case VERDICT_FAIL:
		return "FAIL";
	case VERDICT_SKIP:
		return "SKIP";
	case VERDICT_CRASH:
		break;
	}
	return "CRASH";
}

const char *verdict_result_word(enum verdict verdict)
{
	switch (verdict) {
	case VERDICT_PASS:
	case VERDICT_SKIP:
		return VERDICT_RESULT_PASS;
	case VERDICT_FAIL:
		return VERDICT_RESULT_FAIL;
	case VERDICT_CRASH:
		break;
	}
	return VERDICT_RESULT_CRASH;
}

uint32_t verdict_qemu_exit_value(enum verdict verdict)
{
	switch (verdict) {
	case VERDICT_PASS:
		return VERDICT_QEMU_EXIT_PASS;
	case VERDICT_FAIL:
		return VERDICT_QEMU_EXIT_FAIL;
	case VERDICT_SKIP:
		return VERDICT_QEMU_EXIT_SKIP;
	case VERDICT_CRASH:
		break;
	}
	return VERDICT_QEMU_EXIT_CRASH;
}
