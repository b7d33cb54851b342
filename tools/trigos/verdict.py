# SPDX-License-Identifier: MIT
"""The verdict of a run: the one Python mirror of kernel/lib/verdict.h.

The kernel ends a run with the line "# RESULT: <word>" and, under QEMU, by
writing a value to isa-debug-exit (port 0xf4), which makes QEMU exit with
(value << 1) | 1.  Every tool that reads a verdict (run, matrix, ktap,
screencheck, lava and the labgrid strategy in ci/labgrid) takes the words,
the prefix and the values from here; tools/tests/test_verdict.py parses
kernel/lib/verdict.h and verdict.c and fails when the two disagree.

This module also holds tools/run's exit statuses and the word tools/matrix
shows for each: what a run ended as, as seen from the host.
"""

# enum verdict, in its order; verdict_name() spells each so.
PASS = "PASS"
FAIL = "FAIL"
SKIP = "SKIP"           # nothing failed, nothing passed: every case skipped
CRASH = "CRASH"
VERDICTS = (PASS, FAIL, SKIP, CRASH)

# "# RESULT: <word>": verdict_result_word().  A run whose every case skipped
# says PASS; its totals (and QEMU's exit value) tell it from a pass.
RESULT_PREFIX = "# RESULT: "
RESULT_WORDS = {PASS: PASS, FAIL: FAIL, SKIP: PASS, CRASH: CRASH}
# What the tools accept on the RESULT line of an all-skipped run: the word
# above, and SKIP itself (a kernel that says so is not wrong about its run).
SKIP_RESULT_WORDS = (RESULT_WORDS[SKIP], SKIP)

# The values written to isa-debug-exit: verdict_qemu_exit_value().
QEMU_EXIT_VALUES = {PASS: 0x10, FAIL: 0x11, SKIP: 0x12, CRASH: 0x13}


def qemu_exit_status(verdict):
    """QEMU's exit status after the kernel wrote @verdict's value to isa-debug-exit."""
    return QEMU_EXIT_VALUES[verdict] << 1 | 1


# tools/run's exit statuses (its --help and README list them).
RUN_PASS = 0
RUN_FAIL = 1
RUN_SKIP = 2            # every case skipped
RUN_CRASH = 3
RUN_TIMEOUT = 4
RUN_NO_VERDICT = 5      # the emulator ended without a verdict, or verdict and log disagree
RUN_SETUP = 6           # bad arguments or missing files: no emulator was started
RUN_RESET = 7           # the guest reset the machine
RUN_POWEROFF = 8        # the guest powered the machine off
RUN_HALTED = 9          # every CPU halted with interrupts off; the emulator was killed

# tools/run's status -> the word tools/matrix shows for it.
RUN_STATUS_WORDS = {RUN_PASS: PASS, RUN_FAIL: FAIL, RUN_SKIP: SKIP, RUN_CRASH: CRASH,
                    RUN_TIMEOUT: "TIMEOUT", RUN_NO_VERDICT: "NO-VERDICT",
                    RUN_SETUP: "SETUP-ERROR", RUN_RESET: "RESET", RUN_POWEROFF: "POWEROFF",
                    RUN_HALTED: "HALT"}

# The kernel's verdict -> tools/run's status.
RUN_STATUS_OF = {PASS: RUN_PASS, FAIL: RUN_FAIL, SKIP: RUN_SKIP, CRASH: RUN_CRASH}
