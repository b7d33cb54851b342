/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_TESTS_TRIGGER_TEST_H
#define TRIGOS_TESTS_TRIGGER_TEST_H
/* For suites that switch trigger backends: put the boot's choice back. */

#include <trigger_backend.h>

static inline void trigger_test_restore_boot_backend(void)
{
	trigger_backend_set(trigger_backend_boot_choice());
}

#endif
