/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_PANIC_H
#define TRIGOS_PANIC_H

#include <stdint.h>

/**
 * panic - report a fatal error and end the run as a crash
 *
 * Prints the message and a stack trace as KTAP diagnostics, then the final
 * line "# RESULT: CRASH", then leaves the machine (QEMU exit code for a crash,
 * or halt/reboot on real hardware, see machine.h).  Works with the console
 * lock held and from exception context.
 */
void panic(const char *format, ...) __attribute__((noreturn, format(printf, 1, 2)));

/**
 * panic_begin - the first half of panic(), for callers that print their
 * own report (the exception handler's register dump) before panic_end().
 * Only one CPU panics: any other that gets here stops.
 */
void panic_begin(void);
void panic_end(void) __attribute__((noreturn));

/**
 * panic_set_end_of_run - what panic_end() calls last: how the run ends as a
 * crash (the harness's machine_end_crashed_run(), which kmain() registers
 * first of all, so that this folder needs nothing above it).  A panic
 * before that halts this CPU.
 */
void panic_set_end_of_run(void (*end_of_run)(void) __attribute__((noreturn)));

/** stack_trace_print - walk the frame-pointer chain from @frame_pointer (arch) */
void stack_trace_print(const char *prefix, uint64_t frame_pointer);

/** current_frame_pointer - the caller's frame pointer (arch) */
uint64_t current_frame_pointer(void);

/** arch_halt_forever - stop this CPU for good, interrupts off (arch) */
void arch_halt_forever(void) __attribute__((noreturn));

#endif
