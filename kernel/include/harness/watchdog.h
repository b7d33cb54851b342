/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_WATCHDOG_H
#define TRIGOS_WATCHDOG_H
/*
 * The test watchdog.  One CPU (the highest-numbered AP online) keeps a
 * periodic timer; on each tick it checks whether the running test case has
 * been running longer than the deadline (watchdog=SECONDS, default 30).  If
 * so it reports the case and sends an NMI to the CPU running it; that CPU's
 * NMI handler prints where it was (RIP and stack trace) and, if the case is
 * inside its recovery context, ends the case as "not ok ... # TIMEOUT" so
 * the run goes on.  An NMI gets through even with interrupts disabled.
 * With one CPU there is no watchdog: the host's timeout (tools/run) ends a
 * hung run instead, and the kernel says so at boot.
 */

#include <stdbool.h>
#include <stdint.h>

#define WATCHDOG_DEFAULT_SECONDS 30

/**
 * watchdog_init - pick the watchdog CPU and start its timer (after AP
 * bring-up), unless watchdog=0
 */
void watchdog_init(void);

/** watchdog_case_begin / end - the runner brackets every case with these */
void watchdog_case_begin(const char *case_name);
void watchdog_case_end(void);

/** watchdog_tick - from the timer interrupt of every CPU */
void watchdog_tick(void);

/**
 * watchdog_nmi_is_ours - called by the NMI handler of any CPU: true (once)
 * if the watchdog sent this CPU an NMI for a stuck case
 */
bool watchdog_nmi_is_ours(void);

/**
 * watchdog_pause_tick - stop (@paused) or restart the watchdog CPU's tick,
 * for a test that needs that CPU free of interrupts (a halted waiter the
 * tick would wake hides a lost wake-up); the watchdog does not watch
 * meanwhile, so such a test bounds its own waits.  False if there is no
 * watchdog CPU or it did not answer.
 */
bool watchdog_pause_tick(bool paused);

/** watchdog_cpu - the CPU watching, or -1 when there is none */
int watchdog_cpu(void);

#include <arch/watchdog_nmi.h>

#endif
