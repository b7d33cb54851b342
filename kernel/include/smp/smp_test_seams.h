/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_SMP_TEST_SEAMS_H
#define TRIGOS_SMP_TEST_SEAMS_H
/*
 * The test-only switches of smp_call, stop_machine, AP bring-up and the idle
 * loop's work slot, each subsystem's behind one named hook that its
 * production code calls and that kernel/smp/smp_test_seams.c implements
 * with the switches' options (test_drop_kick=call|call_once|stop_machine|
 * bringup|tsc_warp, test_late_target=, smp_ap_delay_us=, test_break=abandoned_slot)
 * and the work wake's one-shot loss that the smp suite asks for:
 * the switches, their state and their holds live there, not in the call
 * loop, on the AP's way online or in the idle loop.
 * With no switch given each hook returns at once, kicking.  Never for real
 * runs; tests/matrix.cfg has a section for each switch.
 */

#include <stdbool.h>
#include <smp/smp_call.h>

/**
 * smp_call_test_seam - smp_call's one seam: a target is about to run a
 * call of @function from @source (@waited: its caller waits for it); may
 * hold first (test_late_target=call), and returns false if the call's
 * kick is to be dropped (test_drop_kick=call, call_once)
 */
bool smp_call_test_seam(unsigned int source, bool waited, smp_call_func_t function);

enum stop_machine_test_point {
	STOP_MACHINE_TEST_JOIN,		/* a CPU other than the caller joins */
	STOP_MACHINE_TEST_KICK,		/* a state change is about to be kicked */
};

/**
 * stop_machine_test_seam - stop_machine's one seam, at @point: a joining
 * CPU may hold first (test_late_target=stop_machine); returns false if the
 * state change's kick is to be dropped (test_drop_kick=stop_machine)
 */
bool stop_machine_test_seam(enum stop_machine_test_point point);

/**
 * smp_bringup_test_seam - AP bring-up's one seam: an AP is about to come
 * online; it may wait first (smp_ap_delay_us=, so that the BSP's bring-up
 * wait really waits), and returns false if its kick of the BSP's trigger is
 * to be dropped (test_drop_kick=bringup)
 */
bool smp_bringup_test_seam(void);

/**
 * smp_tsc_warp_test_seam - the TSC warp test's seam: the last CPU to arrive
 * is about to kick the others; false if that kick is to be dropped
 * (test_drop_kick=tsc_warp)
 */
bool smp_tsc_warp_test_seam(void);

/**
 * smp_work_slot_test_seam - the work slot's one seam: whether a slot whose
 * requester timed out is freed when its work completes (false:
 * test_break=abandoned_slot keeps it taken, as a stuck CPU's is)
 */
bool smp_work_slot_test_seam(void);

/**
 * smp_work_wake_test_seam - the work wake's seam: false once after
 * smp_test_lose_next_work_wake(), and that wake IPI is not sent (its
 * sender still counts it sent, as a chipset or hypervisor that dropped it)
 */
bool smp_work_wake_test_seam(void);

/** smp_test_lose_next_work_wake - test only: the next work wake IPI any CPU sends vanishes */
void smp_test_lose_next_work_wake(void);

/** smp_test_ap_delay_us - smp_ap_delay_us=N's N: how long each AP waited before it came online */
unsigned int smp_test_ap_delay_us(void);

#endif /* TRIGOS_SMP_TEST_SEAMS_H */
