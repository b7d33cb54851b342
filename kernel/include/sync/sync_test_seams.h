/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_SYNC_TEST_SEAMS_H
#define TRIGOS_SYNC_TEST_SEAMS_H
/*
 * The MCS lock's test-only switch behind one named hook that its hand-over
 * calls, implemented in kernel/sync/sync_test_seams.c: the switch and its
 * state live there, not in the lock.  Its option, test_drop_kick=mcs, is
 * parsed with the other converted users' in kernel/smp/smp_test_seams.c,
 * which sets it through sync_test_drop_mcs_kicks().  The trigger's own
 * breaks (test_break=) are in kernel/sync/trigger_options.c.  Never for
 * real runs; tests/matrix.cfg's drop-kick-mcs section expects the failure.
 */

#include <stdbool.h>

/**
 * spinlock_mcs_test_seam - the MCS lock's one seam: a releaser is about to
 * kick its successor's trigger; returns false if that kick is to be
 * dropped (test_drop_kick=mcs), so that the suites that check the
 * hand-over waits are seen to fail
 */
bool spinlock_mcs_test_seam(void);

/** sync_test_drop_mcs_kicks - test_drop_kick=mcs: from now on, every MCS hand-over's kick is dropped */
void sync_test_drop_mcs_kicks(void);

#endif /* TRIGOS_SYNC_TEST_SEAMS_H */
