/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_ASM_TRIGGER_H
#define TRIGOS_ASM_TRIGGER_H
/*
 * x86 triggers (kernel/arch/x86/trigger.c, trigger_backends.c).
 *
 * A trigger is a kick generation counter, alone in its cache line so that
 * MONITOR watches nothing else, plus two masks of the CPUs that are halting
 * on it and need an interrupt to wake: by IPI (they halt with interrupts
 * enabled) or by NMI (they halt with interrupts disabled).  A kick advances
 * the generation with a locked add (a full barrier), then wakes whoever the
 * masks name.  Each waiter keeps the generation it has seen in its own
 * per-CPU wait state, which is what makes stickiness and the implicit reset
 * per waiter.
 */

#include <stdbool.h>
#include <stdint.h>

#define ARCH_HAS_TRIGGER 1

struct trigger_user;

#define TRIGGER_CACHE_LINE	64
#define TRIGGER_MASK_WORDS	4	/* 256 CPUs */

struct trigger {
	/* Written by kicks, watched by MONITOR: nothing else in this line. */
	volatile uint64_t generation __attribute__((aligned(TRIGGER_CACHE_LINE)));
	uint8_t line_padding[TRIGGER_CACHE_LINE - sizeof(uint64_t)];
	uint64_t ipi_waiters[TRIGGER_MASK_WORDS];
	uint64_t nmi_waiters[TRIGGER_MASK_WORDS];
	/*
	 * The accounting of converted users (trigger_backend.h): who waits on
	 * this trigger, and the CPUs whose last sequence here ended before its
	 * kick was seen, for the kick to confirm.
	 */
	struct trigger_user *user;
	uint64_t unconfirmed[TRIGGER_MASK_WORDS];
} __attribute__((aligned(TRIGGER_CACHE_LINE)));

typedef struct trigger trigger_t;

#define DEFINE_TRIGGER(name) trigger_t name = { .generation = 0 }
#define DEFINE_TRIGGER_FOR(name, trigger_user) trigger_t name = { .user = (trigger_user) }

void x86_trigger_init(trigger_t *trigger, struct trigger_user *user);
void x86_trigger_reset(trigger_t *trigger, void *caller);
void x86_trigger_wait(trigger_t *trigger, void *caller);
bool x86_trigger_wait_timeout(trigger_t *trigger, uint64_t deadline_ns, void *caller);
void x86_trigger_kick(trigger_t *trigger);
void x86_trigger_finish(trigger_t *trigger, void *caller);

/*
 * The address of the call site, for misuse reports that name both calls:
 * a local label's address (a GCC extension), which after the inline wrapper
 * is inlined lies in the function that called trigger_reset() and friends.
 */
#define TRIGGER_CALL_SITE() ({ __label__ call_site; call_site: (void *)&&call_site; })

#define __raw_trigger_init(t, user)		x86_trigger_init(t, user)
#define __raw_trigger_reset(t)			x86_trigger_reset(t, TRIGGER_CALL_SITE())
#define __raw_trigger_wait(t)			x86_trigger_wait(t, TRIGGER_CALL_SITE())
#define __raw_trigger_wait_timeout(t, d)	x86_trigger_wait_timeout(t, d, TRIGGER_CALL_SITE())
#define __raw_trigger_kick(t)			x86_trigger_kick(t)
#define __raw_trigger_finish(t)			x86_trigger_finish(t, TRIGGER_CALL_SITE())

#endif
