// SPDX-License-Identifier: MIT
/*
 * The MCS lock's test-only switch behind its seam (sync/sync_test_seams.h).
 * Never for real runs.
 */
#include <sync/sync_test_seams.h>

static bool mcs_drop;		/* test_drop_kick=mcs */

bool spinlock_mcs_test_seam(void)
{
	return !__atomic_load_n(&mcs_drop, __ATOMIC_RELAXED);
}

void sync_test_drop_mcs_kicks(void)
{
	__atomic_store_n(&mcs_drop, true, __ATOMIC_RELAXED);
}
