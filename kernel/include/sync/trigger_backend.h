/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_TRIGGER_BACKEND_H
#define TRIGOS_TRIGGER_BACKEND_H
/*
 * Choosing and watching the way triggers wait (trigger.h is the API itself).
 *
 *	spin      PAUSE loop, the trigger patch's generic behaviour
 *	mwait     MONITOR/MWAIT on the trigger's line      CPUID.01H:ECX[3]
 *	hlt       HLT, woken by an IPI (or, with interrupts off, an NMI)
 *	adaptive  spin for a budget, then as hlt (the default)
 *	mwaitx    AMD MONITORX/MWAITX with its timer      CPUID.80000001H:ECX[29]
 *	umwait    WAITPKG UMONITOR/UMWAIT, TSC deadline   CPUID.(EAX=07H,ECX=0):ECX[5]
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum trigger_backend_id {
	TRIGGER_BACKEND_SPIN,
	TRIGGER_BACKEND_MWAIT,
	TRIGGER_BACKEND_HLT,
	TRIGGER_BACKEND_ADAPTIVE,
	TRIGGER_BACKEND_MWAITX,
	TRIGGER_BACKEND_UMWAIT,
	TRIGGER_BACKEND_COUNT,
	TRIGGER_BACKEND_AUTO = TRIGGER_BACKEND_COUNT,
};

/*
 * Why one trigger_wait() returned.  The first four saw the kick: the
 * generation had moved when the wait returned.  How the wait learnt of it
 * is told apart by what the CPU took while waiting: the kick's wake IPI
 * (hlt, adaptive; and mwait where an emulator's bug needs one), the kick's
 * wake NMI (a halt with interrupts off), or nothing (the kick's store woke
 * MWAIT, or a spinning look saw it).
 */
enum trigger_wake {
	TRIGGER_WAKE_STICKY,	/* kicked before this wait began: returned at once */
	TRIGGER_WAKE_KICK,	/* the generation moved while waiting; no wake interrupt taken */
	TRIGGER_WAKE_IPI,	/* the generation moved, and a wake IPI was taken while waiting */
	TRIGGER_WAKE_NMI,	/* the generation moved, and a kick's wake NMI was taken */
	TRIGGER_WAKE_INTERRUPT,	/* no kick: another interrupt (or NMI) ended the wait */
	TRIGGER_WAKE_DEADLINE,	/* no kick: trigger_wait_timeout()'s deadline passed */
	TRIGGER_WAKE_SPURIOUS,	/* no kick, no interrupt, no deadline */
	TRIGGER_WAKE_COUNT
};

/** trigger_wake_saw_kick - whether a wait that returned for @wake had seen the kick */
static inline bool trigger_wake_saw_kick(enum trigger_wake wake)
{
	return wake <= TRIGGER_WAKE_NMI;
}

/** trigger_wake_name - "sticky", "kick", "ipi", "nmi", "interrupt", "deadline", "spurious" */
const char *trigger_wake_name(enum trigger_wake wake);

struct trigger_counters {
	uint64_t waits;		/* trigger_wait() calls */
	uint64_t returns[TRIGGER_WAKE_COUNT];	/* why each of them returned */
	uint64_t sleeps;	/* sleeps begun: MWAIT, HLT, MWAITX or UMWAIT executed */
	uint64_t kicks;		/* trigger_kick() calls (counted by the current backend) */
	uint64_t ipis;		/* wake IPIs sent by kicks */
	uint64_t nmis;		/* wake NMIs sent by kicks */
	uint64_t pv_kicks;	/* hypervisor kick hypercalls instead of IPIs */
	uint64_t spin_fallbacks; /* waits that had to spin (NMI context, IF=0 with no wake source) */
	uint64_t wait_cycles;	/* TSC cycles spent inside trigger_wait() */
};

/*
 * Who waits: a converted user of triggers (call completion, stop_machine,
 * the MCS hand-over, AP bring-up) tags its triggers with a trigger_user, and
 * every wait sequence on them is accounted to it, so that its suite can
 * check that each sequence was ended by its kick and none by a deadline.
 *
 * How a sequence (reset ... finish) ended:
 *  - before_waiting: the condition already held; no trigger_wait() at all;
 *  - by_kick: the last wait found the kick's generation at its return,
 *    whatever ended it (a trigger_wake_saw_kick(), or a late kicker's
 *    interrupt or deadline: the kick had come; not when the evidence
 *    judged its wake-up lost);
 *  - before_its_kick: the last return did not see a kick (an unrelated
 *    interrupt, or a spurious return) but the caller found its condition
 *    true, and the kick did come afterwards: the kicker had set the
 *    condition and was about to kick.  The kick confirms it (kernel/sync/trigger.c);
 *  - awaiting_kick: like before_its_kick, but no kick has come since.  At
 *    the end of a suite, when every kicker is done, each of these is a
 *    sequence that ended without its kick: one rescued by something else.
 * reached_deadline counts the sequences in which some wait returned at its
 * deadline with no kick yet (not noted by trigger_note_late_kicker()).
 * late_kicker counts the sequences in which a wait was kicked but ended by
 * its timer or another interrupt, its wake-up not judged lost by the
 * evidence (arch/ipi_evidence.h: the kicker was not run between its
 * generation add and its ICR write), or whose deadline its waiter noted as
 * before the work (trigger_note_late_kicker()).  Neither is a verdict: a
 * wake-up that did not come is judged lost or late by the evidence alone.
 */
struct trigger_user_counters {
	uint64_t sequences;
	uint64_t before_waiting;
	uint64_t by_kick;
	uint64_t before_its_kick;
	uint64_t awaiting_kick;
	uint64_t reached_deadline;
	uint64_t late_kicker;
	uint64_t waits;
	uint64_t returns[TRIGGER_WAKE_COUNT];
	uint64_t sleeps;
};

struct trigger_user {
	const char *name;
	/*
	 * Its slot, plus one, in every CPU's counters (kernel/sync/trigger.c):
	 * counted per CPU, summed when read; 0 until its first use.
	 */
	unsigned int slot;
};

/* Users a CPU keeps counters for; beyond them a user's waits are not counted (said at boot). */
#define TRIGGER_USERS_MAX	16

/*
 * DEFINE_TRIGGER_USER(var, "name") defines a user and lists it (a pointer
 * in the .trigger_users linker section) for trigger_report_usage() and
 * trigger_user_find().  Tag triggers with trigger_init_user() or
 * DEFINE_TRIGGER_FOR() (trigger.h).
 */
#define DEFINE_TRIGGER_USER(var, user_name)                                           \
	struct trigger_user var = { .name = user_name };                               \
	static struct trigger_user *const var##_listed                                 \
		__attribute__((used, section(".trigger_users"))) = &var

/** trigger_user_find - the user named @name, or NULL */
struct trigger_user *trigger_user_find(const char *name);

/**
 * trigger_user_counters_read - @user's counters so far (awaiting_kick: the
 * sequences since boot whose kick has still not come)
 */
void trigger_user_counters_read(struct trigger_user *user, struct trigger_user_counters *counters);

/* The last sequence a CPU finished, for tests that look at one wait closely. */
struct trigger_sequence_record {
	enum trigger_backend_id backend;
	uint32_t waits;
	uint32_t sleeps;
	uint32_t returns[TRIGGER_WAKE_COUNT];
	enum trigger_wake last_return;		/* meaningful when waits > 0 */
	/*
	 * The last wait's stamps (TSC; 0: unknown): its return, and when its
	 * wake IPI or NMI ended it, the kick's (after its generation add), the
	 * wake's send (after its ICR write) and its arrival in this CPU's
	 * handler, as the evidence recorded them (arch/ipi_evidence.h).  The
	 * send's is 0 when the wake-up arrived, and the waiter returned and
	 * finished, before its sender stamped it (it leaves with the ICR write).
	 */
	uint64_t kick_tsc, wake_sent_tsc, wake_arrived_tsc, return_tsc;
};

/** trigger_last_sequence - what CPU @cpu's last finished wait sequence did */
void trigger_last_sequence(unsigned int cpu, struct trigger_sequence_record *record);

/**
 * trigger_cpu_entered_wait - whether CPU @cpu has entered a trigger_wait()
 * (or trigger_wait_timeout()) on @trigger since its last trigger_reset():
 * for a test that must kick a waiter in its wait, not one still on its way
 * to the first (which would find its condition and never wait)
 */
struct trigger;
bool trigger_cpu_entered_wait(unsigned int cpu, const struct trigger *trigger);

/** trigger_backend_name - "spin", "mwait", ... ("auto" for TRIGGER_BACKEND_AUTO) */
const char *trigger_backend_name(enum trigger_backend_id backend);

/** trigger_backend_from_name - the id of @name (@length bytes), or -1 */
int trigger_backend_from_name(const char *name, size_t length);

/**
 * trigger_backend_unavailable - why @backend cannot run here, naming the
 * missing CPUID bit (or, for a backend the CPU has, the memory-type refusal
 * below), or NULL when it can
 */
const char *trigger_backend_unavailable(enum trigger_backend_id backend);

/**
 * trigger_backend_memory_refusal - for a backend whose wait ends on a store
 * to a monitored line (mwait, mwaitx, umwait): the sentence naming a CPU
 * that does not see the trigger memory as write-back, which only MONITOR
 * watches (memtype_check.h); NULL when every CPU does, or for the others
 */
const char *trigger_backend_memory_refusal(enum trigger_backend_id backend);

/**
 * trigger_backend_set - use @backend for wait sequences that start from now
 * on (sequences already under way keep theirs); false if unavailable
 */
bool trigger_backend_set(enum trigger_backend_id backend);

enum trigger_backend_id trigger_backend_current(void);

/** trigger_backend_boot_choice - what trigger_boot_init() selected (tests put it back) */
enum trigger_backend_id trigger_backend_boot_choice(void);

/**
 * trigger_choose_auto - what "auto" picks given what the CPU offers, whether
 * MWAIT was seen to sleep, and whether every CPU sees the trigger memory as
 * write-back; pure, so its logic is testable anywhere
 * @reason: set to a sentence saying why
 */
enum trigger_backend_id trigger_choose_auto(bool mwait_available, bool mwait_sleeps,
					    bool virtualized, bool memory_write_back,
					    const char **reason);

/* The trigger's options, parsed by kernel/sync/trigger_options.c. */
struct trigger_options {
	enum trigger_backend_id backend;	/* trigger=auto|spin|mwait|hlt|adaptive|mwaitx|umwait */
	uint64_t spin_ns;		/* trigger_spin_ns=N: adaptive's spin budget, 0 measured */
	unsigned int mwait_hint;	/* mwait_hint=N: MWAIT's EAX (C-state), default 0 (C1) */
};
extern struct trigger_options trigger_options;

/**
 * trigger_boot_init - have the arch measure (does MWAIT sleep? what does an
 * IPI wake-up cost?), then select trigger= (or auto) and print the choice
 * and its reason.  After SMP bring-up.
 * @busy_cpu: a CPU to measure against only if no other is online (the
 * watchdog's, which ticks every 100 ms), or -1
 */
void trigger_boot_init(int busy_cpu);

/** trigger_counters_read - the counters of @backend so far */
void trigger_counters_read(enum trigger_backend_id backend, struct trigger_counters *counters);

/**
 * trigger_report_usage - print, as diagnostics, the backend and user counters
 * that moved since the last call
 */
void trigger_report_usage(const char *prefix);

/** trigger_spin_budget_ns - the adaptive backend's spin phase */
uint64_t trigger_spin_budget_ns(void);

/** trigger_mwait_sleeps - whether the boot measurement saw MWAIT really sleep */
bool trigger_mwait_sleeps(void);

/** trigger_sequence_depth - how many wait sequences this CPU has open */
unsigned int trigger_sequence_depth(void);

/** trigger_abandon_sequences - forget this CPU's sequences above @depth (fault recovery) */
void trigger_abandon_sequences(unsigned int depth);

/* --- Test hooks ------------------------------------------------------------ */

/*
 * What the trigger core's kicks do under a test that breaks them on purpose
 * (test_break=kick, kick_fence: options.h), so that the tests of that
 * property are seen to fail (matrix sections expect it).  The tests apply
 * it only around their own waits.
 */
enum trigger_test_break {
	TRIGGER_BREAK_NONE,
	TRIGGER_BREAK_KICK,		/* trigger_kick() does nothing */
	TRIGGER_BREAK_KICK_FENCE,	/* the kick's generation update is a plain store, unfenced */
};

/**
 * trigger_own_cpu_published - how many kicks on @cpu found @cpu itself among
 * a trigger's waiters (a handler kicking what its CPU waits on): they send
 * nothing, the CPU being awake
 */
unsigned long trigger_own_cpu_published(unsigned int cpu);

/**
 * trigger_test_publish_and_recheck - test only: the halting waiter's half of
 * the protocol without the halt: publish CPU @as_cpu in @trigger's IPI mask
 * (a kick from @as_cpu then sends nothing, only counts it) and return
 * whether the generation has moved from @seen; it stays published, as a
 * halted waiter would, until trigger_test_unpublish()
 */
struct trigger;
bool trigger_test_publish_and_recheck(struct trigger *trigger, uint64_t seen, unsigned int as_cpu);
void trigger_test_unpublish(struct trigger *trigger, unsigned int as_cpu);

/**
 * trigger_test_set_kick_break - test only: make every kick from now on
 * follow @mode (TRIGGER_BREAK_KICK, _KICK_FENCE; TRIGGER_BREAK_NONE: a real
 * kick again)
 */
void trigger_test_set_kick_break(enum trigger_test_break mode);

/** trigger_set_misuse_hook - catch misuse reports instead of panicking (NULL: panic) */
void trigger_set_misuse_hook(void (*hook)(const char *message));

/**
 * trigger_backend_request_refusal - why the backend trigger= named cannot
 * run on this machine ("trigger=mwaitx cannot run: this CPU lacks
 * CPUID.80000001H:ECX[29] (MONITORX/MWAITX)", or the refusing CPU's memory
 * type), or NULL if it can or none was named.  The test runner fails such a
 * run, as it does a test= pattern that selects nothing.
 */
const char *trigger_backend_request_refusal(void);

#endif
