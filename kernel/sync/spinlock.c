// SPDX-License-Identifier: MIT
/*
 * Ticket and MCS spinlocks with debug state (spinlock.h).
 *
 * The lock functions are out of line so that __builtin_return_address(0)
 * is the caller's call site: that is the address a report names.
 */
#include <cpu/cpu.h>
#include <log/log.h>
#include <boot/options.h>
#include <log/panic.h>
#include <sync/spinlock.h>
#include <sync/sync_test_seams.h>
#include <sync/trigger.h>
#include <sync/trigger_backend.h>
#include <log/symbols.h>
#include <time/time.h>
#include <lib/format.h>

#define caller_address() ((uint64_t)__builtin_return_address(0))

/* How many spins between two looks at the clock: TSC reads are not free. */
#define SPINS_PER_CLOCK_CHECK	128

static uint64_t deadline_ns = SPINLOCK_DEFAULT_DEADLINE_NS;
static spinlock_report_hook_t report_hook = spinlock_report_default;

/* --- Reports -------------------------------------------------------------- */

static const char *const problem_names[] = {
	[SPINLOCK_RECURSION] = "recursive acquire",
	[SPINLOCK_UNLOCK_NOT_OWNER] = "unlock by a CPU that does not hold it",
	[SPINLOCK_UNLOCK_FREE] = "unlock of a free lock",
	[SPINLOCK_SPUN_TOO_LONG] = "spun on for too long",
	[SPINLOCK_MCS_NODES_EXHAUSTED] = "out of MCS queue nodes",
};

const char *spinlock_problem_name(enum spinlock_problem problem)
{
	if ((unsigned int)problem >= sizeof(problem_names) / sizeof(problem_names[0]))
		return "unknown problem";
	return problem_names[problem];
}

const char *spin_lock_kind_name(enum spinlock_kind kind)
{
	return kind == SPINLOCK_MCS ? "mcs" : "ticket";
}

char *spinlock_report_format(const struct spinlock_report *report, char *buffer, size_t size)
{
	const char *name = report->lock->name ? report->lock->name : "(unnamed)";
	const char *kind = spin_lock_kind_name(report->lock->kind);
	char here[96], there[96] = "an unknown place";

	symbol_format_return_address(report->caller, here, sizeof(here));
	if (report->other_caller)
		symbol_format_return_address(report->other_caller, there, sizeof(there));

	switch (report->problem) {
	case SPINLOCK_RECURSION:
		snprintf(buffer, size, "spinlock %s (%s): recursive acquire on cpu %u at %s; "
			 "it took the lock at %s", name, kind, report->cpu, here, there);
		break;
	case SPINLOCK_UNLOCK_NOT_OWNER:
		snprintf(buffer, size, "spinlock %s (%s): unlock on cpu %u at %s, but cpu %d "
			 "holds it, taken at %s", name, kind, report->cpu, here,
			 report->other_cpu, there);
		break;
	case SPINLOCK_UNLOCK_FREE:
		snprintf(buffer, size, "spinlock %s (%s): unlock of a free lock on cpu %u at %s; "
			 "last released by cpu %d at %s", name, kind, report->cpu, here,
			 report->other_cpu, there);
		break;
	case SPINLOCK_SPUN_TOO_LONG:
		snprintf(buffer, size, "spinlock %s (%s): cpu %u has spun %llu ms at %s; held by "
			 "cpu %d, taken at %s: deadlock?", name, kind, report->cpu,
			 (unsigned long long)(report->waited_ns / 1000000), here,
			 report->other_cpu, there);
		break;
	case SPINLOCK_MCS_NODES_EXHAUSTED:
		snprintf(buffer, size, "spinlock %s (%s): cpu %u at %s holds or awaits %u MCS "
			 "locks already, all its queue nodes", name, kind, report->cpu, here,
			 SPINLOCK_MCS_NODES_PER_CPU);
		break;
	default:
		snprintf(buffer, size, "spinlock %s (%s): problem %d on cpu %u at %s", name, kind,
			 (int)report->problem, report->cpu, here);
		break;
	}
	return buffer;
}

void spinlock_report_default(const struct spinlock_report *report)
{
	char message[320];

	spinlock_report_format(report, message, sizeof(message));
	if (report->problem == SPINLOCK_SPUN_TOO_LONG)
		ktap_note("%s", message);
	else
		panic("%s", message);
}

spinlock_report_hook_t spinlock_set_report_hook(spinlock_report_hook_t hook)
{
	return __atomic_exchange_n(&report_hook, hook ? hook : spinlock_report_default,
				   __ATOMIC_ACQ_REL);
}

uint64_t spinlock_set_deadline_ns(uint64_t nanoseconds)
{
	return __atomic_exchange_n(&deadline_ns, nanoseconds, __ATOMIC_RELAXED);
}

static void report(enum spinlock_problem problem, const spinlock_t *lock, uint64_t caller,
		   uint32_t other_cpu_plus_one, uint64_t other_caller, uint64_t waited_ns)
{
	struct spinlock_report details = {
		.problem = problem,
		.lock = lock,
		.cpu = cpu_id(),
		.caller = caller,
		.other_cpu = (int)other_cpu_plus_one - 1,
		.other_caller = other_caller,
		.waited_ns = waited_ns,
	};

	__atomic_load_n(&report_hook, __ATOMIC_ACQUIRE)(&details);
}

static bool owner_checks_on(const spinlock_t *lock)
{
	return !(lock->flags & SPINLOCK_FLAG_UNCHECKED) || lock->kind != SPINLOCK_TICKET;
}

/* --- Waiting -------------------------------------------------------------- */

/* One CPU's wait for one lock, for the deadline and its report. */
struct spin_wait {
	const spinlock_t *lock;
	uint64_t caller;
	uint64_t start;			/* TSC at the first spin */
	uint64_t limit;			/* the deadline, in TSC cycles */
	unsigned int spins;
	bool reported;
};

static void spin_wait_init(struct spin_wait *wait, const spinlock_t *lock, uint64_t caller)
{
	wait->lock = lock;
	wait->caller = caller;
	wait->spins = 0;
	wait->reported = false;
}

/*
 * One spin of a wait.  The clock is read only on the slow path, and only
 * every SPINS_PER_CLOCK_CHECK spins; past the deadline the holder is
 * reported once and the wait goes on.
 */
static void spin_wait_check_clock(struct spin_wait *wait);

static void spin_wait_once(struct spin_wait *wait)
{
	__raw_spin_relax();
	if (wait->spins++ % SPINS_PER_CLOCK_CHECK != 0)
		return;
	spin_wait_check_clock(wait);
}

/* The deadline has passed: report the holder, once. */
static void spin_wait_report(struct spin_wait *wait, uint64_t now)
{
	wait->reported = true;
	/* The owner fields are a snapshot: the holder may change as we read. */
	report(SPINLOCK_SPUN_TOO_LONG, wait->lock, wait->caller,
	       __atomic_load_n(&wait->lock->owner, __ATOMIC_RELAXED),
	       __atomic_load_n(&wait->lock->owner_caller, __ATOMIC_RELAXED),
	       cycles_to_ns(now - wait->start));
}

/* Start the clock on the first call, report a too-long wait once after. */
static void spin_wait_check_clock(struct spin_wait *wait)
{
	uint64_t now;

	now = cycles();
	if (wait->spins == 1) {
		wait->start = now;
		wait->limit = ns_to_cycles(__atomic_load_n(&deadline_ns, __ATOMIC_RELAXED));
		return;
	}
	if (wait->reported || now - wait->start < wait->limit)
		return;
	spin_wait_report(wait, now);
}

/* --- Ticket lock ---------------------------------------------------------- */

static void ticket_acquire(spinlock_t *lock, struct spin_wait *wait)
{
	uint32_t ticket = __raw_fetch_add_u32(&lock->next_ticket, 1);

	/*
	 * "Until served", not "until equal": a correct lock never serves past
	 * a waiting ticket, so the two are the same; but an unchecked test
	 * lock (SPINLOCK_FLAG_UNCHECKED) released twice may, and then this
	 * waiter must still get in rather than spin forever.
	 */
	while ((int32_t)(ticket - __atomic_load_n(&lock->now_serving, __ATOMIC_ACQUIRE)) > 0)
		spin_wait_once(wait);
}

static bool ticket_trylock(spinlock_t *lock)
{
	uint32_t serving = __atomic_load_n(&lock->now_serving, __ATOMIC_RELAXED);

	/* Free exactly when the next ticket is the one being served. */
	return __raw_cmpxchg_u32(&lock->next_ticket, serving, serving + 1);
}

static void ticket_release(spinlock_t *lock)
{
	uint32_t serving;

	if (lock->flags & SPINLOCK_FLAG_UNCHECKED) {
		/*
		 * Unchecked test lock: a release by a CPU that does not hold
		 * it gets here.  Never serve a ticket nobody has taken, so
		 * that the lock stays usable and the torture run goes on.
		 */
		do {
			serving = __atomic_load_n(&lock->now_serving, __ATOMIC_RELAXED);
			if (serving == __atomic_load_n(&lock->next_ticket, __ATOMIC_RELAXED))
				return;
		} while (!__raw_cmpxchg_u32(&lock->now_serving, serving, serving + 1));
		return;
	}
	/* Only the holder writes now_serving, so a plain increment is enough. */
	__atomic_store_n(&lock->now_serving, lock->now_serving + 1, __ATOMIC_RELEASE);
}

/* --- MCS lock ------------------------------------------------------------- */

/*
 * A queue node.  A waiter spins on its own node's @waiting until its
 * predecessor clears it; @next is written once by the successor.  Nodes
 * are named by number, CPU * SPINLOCK_MCS_NODES_PER_CPU + slot + 1, so that
 * the queue tail fits in 32 bits and 0 can mean "none".
 */
struct mcs_node {
	uint32_t next;
	uint32_t waiting;
};

/* One cache line per CPU: its nodes, and which of them are in use. */
struct mcs_cpu_nodes {
	struct mcs_node node[SPINLOCK_MCS_NODES_PER_CPU];
	uint32_t in_use;		/* a bit per node; only this CPU writes it */
} __attribute__((aligned(64)));

static struct mcs_cpu_nodes mcs_nodes[MAX_CPUS];

static struct mcs_node *mcs_node(uint32_t number)
{
	number--;
	return &mcs_nodes[number / SPINLOCK_MCS_NODES_PER_CPU]
		.node[number % SPINLOCK_MCS_NODES_PER_CPU];
}

/*
 * Take a free node of @cpu (the caller's), 0 if all are in use.  A slot
 * map rather than a stack, so that locks may be released in any order.
 * Not atomic, and needs not be: an interrupt between the load and the
 * store gives back every node it takes before it returns, so the map is
 * as it was when the store lands.
 */
static uint32_t mcs_node_get(unsigned int cpu)
{
	struct mcs_cpu_nodes *mine = &mcs_nodes[cpu];
	uint32_t used = __atomic_load_n(&mine->in_use, __ATOMIC_RELAXED);

	for (unsigned int slot = 0; slot < SPINLOCK_MCS_NODES_PER_CPU; slot++) {
		if (!(used & (1u << slot))) {
			__atomic_store_n(&mine->in_use, used | (1u << slot), __ATOMIC_RELAXED);
			return cpu * SPINLOCK_MCS_NODES_PER_CPU + slot + 1;
		}
	}
	return 0;
}

static void mcs_node_put(uint32_t number)
{
	struct mcs_cpu_nodes *mine = &mcs_nodes[(number - 1) / SPINLOCK_MCS_NODES_PER_CPU];
	uint32_t bit = 1u << ((number - 1) % SPINLOCK_MCS_NODES_PER_CPU);

	__atomic_store_n(&mine->in_use, __atomic_load_n(&mine->in_use, __ATOMIC_RELAXED) & ~bit,
			 __ATOMIC_RELAXED);
}

unsigned int spinlock_mcs_nodes_in_use(unsigned int cpu)
{
	uint32_t used = __atomic_load_n(&mcs_nodes[cpu].in_use, __ATOMIC_RELAXED);
	unsigned int count = 0;

	for (; used; used &= used - 1)
		count++;
	return count;
}

/*
 * mcs_node_wait - wait until the predecessor hands the lock to @node, and
 * mcs_node_kick - hand it over.  The one place an MCS waiter waits and the
 * one place it is woken: the trigger issue makes the wait sleep on the
 * node's own trigger and the kick kick it.
 */
/*
 * With mcs_wait=trigger (the default) each node waits on a trigger of its
 * own and its predecessor kicks exactly that one - the idea Linux later
 * kept as pv_wait()/pv_kick() in its paravirt queued spinlock: a waiter deep
 * in the queue can sleep (hlt, mwait) instead of spinning, and the kick
 * wakes only the next CPU.  The triggers are static, one per node, so a
 * kick never touches memory that its waiter might already have given back.
 */
DEFINE_TRIGGER_USER(trigger_user_mcs_handover, "mcs_handover");
static trigger_t mcs_node_triggers[MAX_CPUS][SPINLOCK_MCS_NODES_PER_CPU] = {
	[0 ... MAX_CPUS - 1] = { [0 ... SPINLOCK_MCS_NODES_PER_CPU - 1] = {
		.user = &trigger_user_mcs_handover } },
};

static enum mcs_wait_mode mcs_wait_mode = MCS_WAIT_TRIGGER;

void spinlock_set_mcs_wait_mode(enum mcs_wait_mode mode)
{
	__atomic_store_n(&mcs_wait_mode, mode, __ATOMIC_RELEASE);
}

enum mcs_wait_mode spinlock_mcs_wait_mode(void)
{
	return __atomic_load_n(&mcs_wait_mode, __ATOMIC_ACQUIRE);
}

static trigger_t *mcs_node_trigger(const struct mcs_node *node)
{
	size_t cpu = ((uintptr_t)node - (uintptr_t)mcs_nodes) / sizeof(struct mcs_cpu_nodes);
	size_t slot = (size_t)(node - &mcs_nodes[cpu].node[0]);

	return &mcs_node_triggers[cpu][slot];
}

/*
 * The waiter sleeps until its predecessor's kick, with one bound: the
 * spun-too-long deadline.  Reaching it, the holder is reported (a deadlock
 * is a message) - a deadline return of the mcs_handover user, which the
 * spinlock and locktorture suites count as a failure - and the waiter
 * waits on, untimed.
 */
static void mcs_node_wait(struct mcs_node *node, struct spin_wait *wait)
{
	trigger_t *trigger;
	uint64_t deadline;

	if (spinlock_mcs_wait_mode() == MCS_WAIT_SPIN) {
		while (__atomic_load_n(&node->waiting, __ATOMIC_ACQUIRE))
			spin_wait_once(wait);
		return;
	}
	trigger = mcs_node_trigger(node);
	wait->spins = 1;
	spin_wait_check_clock(wait);	/* starts the too-long clock */
	deadline = now_ns() + cycles_to_ns(wait->limit);	/* the clock's start is now */
	trigger_reset(trigger);
	while (__atomic_load_n(&node->waiting, __ATOMIC_ACQUIRE)) {
		if (wait->reported) {
			trigger_wait(trigger);
		} else if (!trigger_wait_timeout(trigger, deadline)) {
			spin_wait_report(wait, cycles());
		}
	}
	trigger_finish(trigger);
}

static void mcs_node_kick(struct mcs_node *node)
{
	/* Release: the critical section's stores are visible to the new holder. */
	__atomic_store_n(&node->waiting, 0, __ATOMIC_RELEASE);
	/* Always kick: the waiter may have read mcs_wait_mode before a switch. */
	if (spinlock_mcs_test_seam())	/* the one test seam: may drop the kick */
		trigger_kick(mcs_node_trigger(node));
}

static bool mcs_acquire(spinlock_t *lock, struct spin_wait *wait)
{
	uint32_t mine = mcs_node_get(cpu_id()), previous;
	struct mcs_node *node;

	if (!mine) {
		report(SPINLOCK_MCS_NODES_EXHAUSTED, lock, wait->caller, 0, 0, 0);
		return false;
	}
	node = mcs_node(mine);
	__atomic_store_n(&node->next, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&node->waiting, 1, __ATOMIC_RELAXED);
	/* Locked, so a full barrier: the node is ready before anyone can see it. */
	previous = __raw_xchg_u32(&lock->queue_tail, mine);
	if (previous) {
		/* Release: our node's fields are visible before the link to it. */
		__atomic_store_n(&mcs_node(previous)->next, mine, __ATOMIC_RELEASE);
		mcs_node_wait(node, wait);
	}
	lock->holder_node = mine;
	return true;
}

static bool mcs_trylock(spinlock_t *lock)
{
	uint32_t mine;

	if (__atomic_load_n(&lock->queue_tail, __ATOMIC_RELAXED))
		return false;	/* held or queued for: do not touch the line */
	mine = mcs_node_get(cpu_id());
	if (!mine)
		return false;
	__atomic_store_n(&mcs_node(mine)->next, 0, __ATOMIC_RELAXED);
	if (!__raw_cmpxchg_u32(&lock->queue_tail, 0, mine)) {
		mcs_node_put(mine);
		return false;
	}
	lock->holder_node = mine;
	return true;
}

static void mcs_release(spinlock_t *lock)
{
	/* Read before the handover: the next holder overwrites it. */
	uint32_t mine = lock->holder_node;
	struct mcs_node *node = mcs_node(mine);
	uint32_t next = __atomic_load_n(&node->next, __ATOMIC_ACQUIRE);

	if (!next) {
		/* No successor yet: if we are still the tail, the lock is free. */
		if (__raw_cmpxchg_u32(&lock->queue_tail, mine, 0)) {
			mcs_node_put(mine);
			return;
		}
		/* One has swapped itself in as the tail but not linked to us yet. */
		while (!(next = __atomic_load_n(&node->next, __ATOMIC_ACQUIRE)))
			__raw_spin_relax();
	}
	mcs_node_kick(mcs_node(next));
	mcs_node_put(mine);
}

/* --- The API -------------------------------------------------------------- */

void spin_lock_init(spinlock_t *lock, const char *name, enum spinlock_kind kind)
{
	*lock = (spinlock_t){ .kind = (uint8_t)kind, .name = name };
}

static void note_taken(spinlock_t *lock, unsigned int cpu, uint64_t caller)
{
	__atomic_store_n(&lock->owner_caller, caller, __ATOMIC_RELAXED);
	__atomic_store_n(&lock->owner, cpu + 1, __ATOMIC_RELAXED);
}

static void acquire(spinlock_t *lock, uint64_t caller)
{
	unsigned int cpu = cpu_id();
	struct spin_wait wait;

	/* Only this CPU can have written its own number here, so this is no race. */
	if (owner_checks_on(lock) && __atomic_load_n(&lock->owner, __ATOMIC_RELAXED) == cpu + 1) {
		report(SPINLOCK_RECURSION, lock, caller, cpu + 1,
		       __atomic_load_n(&lock->owner_caller, __ATOMIC_RELAXED), 0);
		return;
	}
	spin_wait_init(&wait, lock, caller);
	if (lock->kind == SPINLOCK_MCS) {
		if (!mcs_acquire(lock, &wait))
			return;
	} else {
		ticket_acquire(lock, &wait);
	}
	note_taken(lock, cpu, caller);
}

static void release(spinlock_t *lock, uint64_t caller)
{
	unsigned int cpu = cpu_id();
	uint32_t owner = __atomic_load_n(&lock->owner, __ATOMIC_RELAXED);

	if (owner_checks_on(lock) && owner != cpu + 1) {
		if (owner == 0)
			report(SPINLOCK_UNLOCK_FREE, lock, caller,
			       __atomic_load_n(&lock->released_cpu, __ATOMIC_RELAXED),
			       __atomic_load_n(&lock->released_caller, __ATOMIC_RELAXED), 0);
		else
			report(SPINLOCK_UNLOCK_NOT_OWNER, lock, caller, owner,
			       __atomic_load_n(&lock->owner_caller, __ATOMIC_RELAXED), 0);
		return;
	}
	/* Debug state first: once released, the next holder writes it. */
	__atomic_store_n(&lock->released_caller, caller, __ATOMIC_RELAXED);
	__atomic_store_n(&lock->released_cpu, cpu + 1, __ATOMIC_RELAXED);
	__atomic_store_n(&lock->owner, 0, __ATOMIC_RELAXED);
	if (lock->kind == SPINLOCK_MCS)
		mcs_release(lock);
	else
		ticket_release(lock);
}

void spin_lock(spinlock_t *lock)
{
	acquire(lock, caller_address());
}

void spin_unlock(spinlock_t *lock)
{
	release(lock, caller_address());
}

bool spin_trylock(spinlock_t *lock)
{
	bool taken = lock->kind == SPINLOCK_MCS ? mcs_trylock(lock) : ticket_trylock(lock);

	if (taken)
		note_taken(lock, cpu_id(), caller_address());
	return taken;
}

bool spin_lock_irqsave(spinlock_t *lock)
{
	bool enabled = local_irq_save();

	acquire(lock, caller_address());
	return enabled;
}

void spin_unlock_irqrestore(spinlock_t *lock, bool enabled)
{
	release(lock, caller_address());
	local_irq_restore(enabled);
}

/* mcs_wait=spin|trigger: how a queued MCS waiter waits for its turn. */
static bool parse_mcs_wait(const struct cmdline_word *word, const char **error)
{
	static const char *const modes[] = {
		[MCS_WAIT_SPIN] = "spin",
		[MCS_WAIT_TRIGGER] = "trigger",
	};
	int mode = cmdline_value_index(word, modes, sizeof(modes) / sizeof(modes[0]));

	if (mode < 0)
		return false;
	spinlock_set_mcs_wait_mode((enum mcs_wait_mode)mode);
	return true;
}
KERNEL_OPTION(mcs_wait, "spin or trigger", parse_mcs_wait);
