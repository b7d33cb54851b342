// SPDX-License-Identifier: MIT
/*
 * The trigger core: wait sequences, kicks, misuse checks, counters and the
 * choice of backend - everything about a trigger that does not depend on
 * the hardware.  The architecture supplies the layout of a trigger, its ways
 * of waiting (the backend table), the wake-ups a kick sends and what its NMI
 * handler claims (asm/trigger.h; x86: kernel/arch/x86/trigger_backends.c,
 * trigger_halt.S, trigger_wake.c).
 *
 * Why no wake-up is lost.  A waiter that is going to halt first publishes
 * itself in the trigger's waiter mask with a sequentially consistent RMW
 * (trigger_publish()), then reads the generation the same way; a kicker
 * advances the generation with a sequentially consistent RMW, then reads
 * the mask.  Of the two, at least one sees the other's write: either the
 * waiter sees the new generation and does not halt, or the kicker sees the
 * waiter and wakes it (arch_trigger_wake_ipi(), arch_trigger_wake_nmi()).
 * That the wake-up itself cannot be lost on its way to the halt is the
 * architecture's part (x86: trigger_wake.c, trigger_halt.S).
 */
#include <log/console.h>
#include <cpu/cpu.h>
#include <cpu/cpumask.h>
#include <arch/ipi_evidence.h>
#include <sync/irq.h>
#include <log/log.h>
#include <log/panic.h>
#include <log/symbols.h>
#include <time/time.h>
#include <sync/trigger_core.h>
#include <lib/format.h>
#include <lib/string.h>

#define WAIT_DEPTH_MAX 4	/* nested sequences: a handler may wait inside a wait */

struct trigger_cpu {
	struct trigger_wait_state stack[WAIT_DEPTH_MAX];
	unsigned int depth;
	struct trigger_sequence_record last;	/* the last sequence finished */
	/*
	 * The trigger of the last wait this CPU entered since its last reset,
	 * NULL before the first: what another CPU watches to know a waiter is
	 * in its wait, not merely about to test its condition
	 * (trigger_cpu_entered_wait()).
	 */
	const trigger_t *entered;
	/* The counters (trigger_backend.h), this CPU's share: summed when read. */
	struct trigger_counters backend[TRIGGER_BACKEND_COUNT];
	struct trigger_user_counters user[TRIGGER_USERS_MAX];
} __attribute__((aligned(64)));	/* written by its CPU only: no line shared with another */

static struct trigger_cpu trigger_cpus[MAX_CPUS];
static enum trigger_backend_id current_backend = TRIGGER_BACKEND_SPIN;
static void (*misuse_hook)(const char *message);

/* --- Counters, per CPU ---------------------------------------------------------- */

extern struct trigger_user *const __start_trigger_users[];
extern struct trigger_user *const __stop_trigger_users[];

#define for_each_trigger_user(user_pointer) \
	for (struct trigger_user *const *user_pointer = __start_trigger_users; \
	     user_pointer < __stop_trigger_users; user_pointer++)

struct trigger_counters *trigger_counters_here(enum trigger_backend_id backend)
{
	return &trigger_cpus[cpu_id()].backend[backend];
}

/*
 * This CPU's counters of @user, or NULL for none (no user, or more users
 * than TRIGGER_USERS_MAX).  Its slot is its place in the linker's list,
 * found once; CPUs that find it at once store the same value.
 */
static struct trigger_user_counters *user_counters_here(struct trigger_user *user)
{
	unsigned int slot;

	if (!user)
		return NULL;
	slot = __atomic_load_n(&user->slot, __ATOMIC_RELAXED);
	if (!slot) {
		for_each_trigger_user(listed) {
			if (*listed == user)
				slot = (unsigned int)(listed - __start_trigger_users) + 1;
		}
		if (!slot || slot > TRIGGER_USERS_MAX)
			return NULL;
		__atomic_store_n(&user->slot, slot, __ATOMIC_RELAXED);
	}
	return &trigger_cpus[cpu_id()].user[slot - 1];
}

/* --- Misuse ---------------------------------------------------------------- */

static void report_misuse(const char *what, trigger_t *trigger, void *site, void *other_site)
{
	char here[96], there[96], message[CONSOLE_LINE_MAX - 32];

	symbol_format((uint64_t)site, here, sizeof(here));
	if (other_site)
		symbol_format((uint64_t)other_site, there, sizeof(there));
	snprintf(message, sizeof(message), "trigger misuse on cpu %u: %s (trigger %p) at %s%s%s",
		 cpu_id(), what, (void *)trigger, here, other_site ? "; reset at " : "",
		 other_site ? there : "");
	if (misuse_hook) {
		misuse_hook(message);
		return;
	}
	panic("%s", message);
}

void trigger_set_misuse_hook(void (*hook)(const char *message))
{
	misuse_hook = hook;
}

static struct trigger_wait_state *find_state(trigger_t *trigger)
{
	struct trigger_cpu *cpu = &trigger_cpus[cpu_id()];

	for (unsigned int i = cpu->depth; i-- > 0;) {
		if (cpu->stack[i].trigger == trigger)
			return &cpu->stack[i];
	}
	return NULL;
}

/* --- The sequence ------------------------------------------------------------ */

void trigger_core_init(trigger_t *trigger, struct trigger_user *user)
{
	memset(trigger, 0, sizeof(*trigger));
	trigger->user = user;
}

void trigger_core_reset(trigger_t *trigger, void *site)
{
	struct trigger_cpu *cpu = &trigger_cpus[cpu_id()];
	struct trigger_wait_state *existing = find_state(trigger);
	struct trigger_wait_state *state;
	bool enabled = local_irq_save();

	if (existing) {
		report_misuse("reset twice without a finish", trigger, site, existing->reset_site);
		existing->seen = trigger_generation(trigger);
		local_irq_restore(enabled);
		return;
	}
	if (cpu->depth == WAIT_DEPTH_MAX) {
		local_irq_restore(enabled);
		report_misuse("too many nested wait sequences", trigger, site, NULL);
		return;
	}
	/*
	 * Interrupts are off, but an NMI handler may run its own sequence
	 * here: the slot is filled before the depth makes it visible (a
	 * compiler barrier is enough, the NMI runs on this CPU: a signal
	 * fence), so such a handler never finds a half-written slot or a
	 * stale one's trigger.
	 */
	state = &cpu->stack[cpu->depth];
	*state = (struct trigger_wait_state){
		.trigger = trigger,
		.backend = &trigger_backends[__atomic_load_n(&current_backend, __ATOMIC_RELAXED)],
		.seen = trigger_generation(trigger),
		.irqs_were_enabled = enabled,
		.reset_site = site,
	};
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	cpu->depth++;
	__atomic_store_n(&cpu->entered, NULL, __ATOMIC_RELAXED);
}

/* A wait with no sequence still waits, the trigger patch's way, after the report. */
static void relax_once(void)
{
	arch_trigger_relax();
}

/* --- Why a wait returned --------------------------------------------------------- */

const char *trigger_wake_name(enum trigger_wake wake)
{
	static const char *const names[TRIGGER_WAKE_COUNT] = {
		[TRIGGER_WAKE_STICKY] = "sticky",
		[TRIGGER_WAKE_KICK] = "kick",
		[TRIGGER_WAKE_IPI] = "ipi",
		[TRIGGER_WAKE_NMI] = "nmi",
		[TRIGGER_WAKE_INTERRUPT] = "interrupt",
		[TRIGGER_WAKE_DEADLINE] = "deadline",
		[TRIGGER_WAKE_SPURIOUS] = "spurious",
	};

	return wake < TRIGGER_WAKE_COUNT ? names[wake] : "?";
}

/*
 * What this CPU took while it waited.  A backend's wait() is called and
 * returns with interrupts off and opens them only while it sleeps or spins,
 * so whatever these counts gained across the call came during the wait.
 */
struct wake_sources {
	unsigned long interrupts, nmis, wake_ipis, wake_nmis;
	uint64_t own_kicks;
};

/*
 * Kicks @cpu made, on every backend: one made by a handler that interrupted
 * that CPU's own wait is what ended the wait (no wake IPI goes to oneself).
 */
static uint64_t kicks_made_by(unsigned int cpu)
{
	uint64_t kicks = 0;

	for (int backend = 0; backend < TRIGGER_BACKEND_COUNT; backend++)
		kicks += __atomic_load_n(&trigger_cpus[cpu].backend[backend].kicks, __ATOMIC_RELAXED);
	return kicks;
}

static void wake_sources_now(struct wake_sources *sources)
{
	struct cpu *cpu = this_cpu();

	sources->interrupts = __atomic_load_n(&cpu->interrupts, __ATOMIC_RELAXED);
	sources->nmis = __atomic_load_n(&cpu->nmis, __ATOMIC_RELAXED);
	sources->wake_ipis = __atomic_load_n(&cpu->wake_interrupts, __ATOMIC_RELAXED);
	sources->wake_nmis = arch_trigger_wake_nmis_taken(cpu->id);
	sources->own_kicks = kicks_made_by(cpu->id);
}

/*
 * By what ended the sleep, never by the generation alone: a kicked waiter
 * that its timer or another interrupt woke was not woken by its kick, and
 * whether that kick's wake-up was then lost or late is for the evidence to
 * say (ipi_evidence_judge(), arch/ipi_evidence.h).  Only where the
 * kick's store itself ends the wait (a spin or a look before any sleep,
 * MONITOR's line: @store_wakes) does a moved generation with no wake
 * interrupt mean the kick ended it - and where a handler on this CPU,
 * interrupting the wait, kicked (the interrupt that ended it was the kick's).
 */
static enum trigger_wake classify_return(bool moved, bool deadline_passed, bool store_wakes,
					 const struct wake_sources *before,
					 const struct wake_sources *after)
{
	bool interrupted = after->interrupts != before->interrupts || after->nmis != before->nmis;

	if (moved && after->wake_nmis != before->wake_nmis)
		return TRIGGER_WAKE_NMI;
	if (moved && after->wake_ipis != before->wake_ipis)
		return TRIGGER_WAKE_IPI;
	if (moved && (store_wakes || !interrupted || after->own_kicks != before->own_kicks))
		return TRIGGER_WAKE_KICK;
	if (deadline_passed)
		return TRIGGER_WAKE_DEADLINE;
	if (interrupted)
		return TRIGGER_WAKE_INTERRUPT;
	return TRIGGER_WAKE_SPURIOUS;
}

/* One wait of @state returned for @wake: count it for the backend, the user, the sequence. */
static void count_return(struct trigger_wait_state *state, enum trigger_wake wake)
{
	struct trigger_user_counters *user = user_counters_here(state->trigger->user);
	struct trigger_counters *backend = trigger_counters_here(state->backend->id);

	state->waits++;
	state->returns[wake]++;
	state->last_return = wake;
	if (wake == TRIGGER_WAKE_DEADLINE)
		state->deadlines++;
	cpu_local_add(&backend->waits, 1);
	cpu_local_add(&backend->returns[wake], 1);
	if (user) {
		cpu_local_add(&user->waits, 1);
		cpu_local_add(&user->returns[wake], 1);
	}
}

/* The stamps of the wake-up that ended a wait, when a wake IPI or NMI did (else none). */
static void stamp_wake(struct trigger_wait_state *state, enum trigger_wake wake)
{
	struct ipi_evidence_wake_stamps stamps = { 0 };

	if (wake == TRIGGER_WAKE_IPI || wake == TRIGGER_WAKE_NMI)
		ipi_evidence_last_wake(wake == TRIGGER_WAKE_IPI ? IPI_EVIDENCE_WAKE
								: IPI_EVIDENCE_NMI, &stamps);
	state->kick_tsc = stamps.kick_tsc;
	state->wake_sent_tsc = stamps.sent_tsc;
	state->wake_arrived_tsc = stamps.arrived_tsc;
}

static bool wait_common(trigger_t *trigger, uint64_t deadline_cycles, void *site)
{
	struct trigger_wait_state *state = find_state(trigger);
	struct wake_sources before, after;
	enum trigger_wake wake;
	uint64_t start, generation;
	uint32_t sleeps;
	bool moved, lost;

	if (!state) {
		report_misuse("wait without a reset", trigger, site, NULL);
		relax_once();
		return true;
	}
	__atomic_store_n(&trigger_cpus[cpu_id()].entered, trigger, __ATOMIC_RELEASE);
	if (trigger_moved(trigger, state)) {
		/* Sticky: kicked since the reset (or the last return). */
		state->seen = trigger_generation(trigger);
		state->last_saw_kick = true;
		count_return(state, TRIGGER_WAKE_STICKY);
		stamp_wake(state, TRIGGER_WAKE_STICKY);
		state->return_tsc = 0;	/* no wait: no return to stamp */
		return true;
	}
	wake_sources_now(&before);
	sleeps = state->sleeps;
	start = cycles();
	state->backend->wait(trigger, state, deadline_cycles);
	generation = trigger_generation(trigger);	/* acquire: the read barrier */
	state->return_tsc = cycles();
	cpu_local_add(&trigger_counters_here(state->backend->id)->wait_cycles,
		      state->return_tsc - start);
	wake_sources_now(&after);
	/* Back from interrupts-on code: what its handlers read of the sends to here is due. */
	lost = ipi_evidence_judge();
	moved = generation != state->seen;
	wake = classify_return(moved, deadline_cycles && cycles() >= deadline_cycles,
			       state->backend->store_wakes || state->sleeps == sleeps, &before,
			       &after);
	count_return(state, wake);
	stamp_wake(state, wake);
	if (moved && (wake == TRIGGER_WAKE_INTERRUPT || wake == TRIGGER_WAKE_DEADLINE)) {
		/* Kicked, not woken by it: not a deadline with the work undone. */
		if (wake == TRIGGER_WAKE_DEADLINE)
			state->deadlines--;
		/* Its wake-up not judged lost: it left after that interrupt, the kicker late. */
		if (!lost)
			state->kicked_late++;
	}
	/* Its kick came, unless its wake-up was lost: that one stays "still without a kick". */
	state->last_saw_kick = moved && (trigger_wake_saw_kick(wake) || !lost);
	state->seen = generation;	/* the implicit reset */
	/* Kicked: not the deadline's return, whatever woke it. */
	return wake != TRIGGER_WAKE_DEADLINE || moved;
}

void trigger_core_wait(trigger_t *trigger, void *site)
{
	wait_common(trigger, 0, site);
}

bool trigger_core_wait_timeout(trigger_t *trigger, uint64_t deadline_ns, void *site)
{
	uint64_t now = now_ns();
	uint64_t deadline_cycles = cycles() + (deadline_ns > now ? ns_to_cycles(deadline_ns - now) : 0);

	if (deadline_ns <= now) {
		struct trigger_wait_state *state = find_state(trigger);

		if (!state)
			return wait_common(trigger, 1, site);	/* reports the misuse */
		if (trigger_moved(trigger, state)) {
			state->seen = trigger_generation(trigger);
			count_return(state, TRIGGER_WAKE_STICKY);
			return true;
		}
		count_return(state, TRIGGER_WAKE_DEADLINE);
		return false;
	}
	return wait_common(trigger, deadline_cycles ? deadline_cycles : 1, site);
}

void trigger_core_note_late_kicker(trigger_t *trigger, void *site)
{
	struct trigger_wait_state *state = find_state(trigger);

	if (!state) {
		report_misuse("late kicker noted without a reset", trigger, site, NULL);
		return;
	}
	if (state->waits == 0 || state->last_return != TRIGGER_WAKE_DEADLINE ||
	    state->late_kickers == state->deadlines) {
		report_misuse("late kicker noted where no wait returned at its deadline", trigger,
			      site, state->reset_site);
		return;
	}
	state->late_kickers++;
}

/* --- How a sequence ended, per user ------------------------------------------------ */

/* Add @amount to @field of this CPU's counters of a user (@user NULL: none). */
#define add_to_user(user, field, amount)                                              \
	do {                                                                           \
		struct trigger_user_counters *counters_ = (user);                      \
		if (counters_ && (amount))                                             \
			cpu_local_add(&counters_->field, (amount));                    \
	} while (0)

/* Take one early finish back from the kick's count; false if a kick took them all. */
static bool take_unconfirmed(trigger_t *trigger)
{
	uint64_t left = __atomic_load_n(&trigger->unconfirmed, __ATOMIC_SEQ_CST);

	while (left && !__atomic_compare_exchange_n(&trigger->unconfirmed, &left, left - 1, false,
						    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		;
	return left != 0;
}

/*
 * The sequence's last return did not see a kick, yet the caller found its
 * condition true and finished.  If the generation has moved since, the kick
 * came after all: the waiter was only early.  Otherwise the sequence is added
 * to the trigger's count of unconfirmed finishes for the kick to confirm
 * (trigger_core_kick) - a count, not a bit per CPU: two early finishes of
 * one CPU before one kick are two.  The add and the kick's generation update
 * are both sequentially consistent RMWs, and each side looks at the other's
 * after its own (the protocol of a halting waiter): either the kick sees the
 * add, or this CPU sees the kick and takes one back.
 */
static void confirm_later(struct trigger_wait_state *state)
{
	trigger_t *trigger = state->trigger;
	struct trigger_user_counters *user = user_counters_here(trigger->user);

	if (trigger_moved(trigger, state)) {
		add_to_user(user, before_its_kick, 1);
		return;
	}
	add_to_user(user, awaiting_kick, 1);
	__atomic_fetch_add(&trigger->unconfirmed, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&trigger->generation, __ATOMIC_SEQ_CST) != state->seen &&
	    take_unconfirmed(trigger)) {
		add_to_user(user, awaiting_kick, -1ull);	/* wraps: the sum is right */
		add_to_user(user, before_its_kick, 1);
	}
}

/* The kick: every CPU marked unconfirmed on @trigger was only early. */
static void confirm_early_finishers(trigger_t *trigger)
{
	uint64_t confirmed = 0;

	if (__atomic_load_n(&trigger->unconfirmed, __ATOMIC_SEQ_CST))
		confirmed = __atomic_exchange_n(&trigger->unconfirmed, 0, __ATOMIC_SEQ_CST);
	if (confirmed) {
		/* In the kicker's counters: the sums are what is read. */
		struct trigger_user_counters *user = user_counters_here(trigger->user);

		add_to_user(user, awaiting_kick, -confirmed);
		add_to_user(user, before_its_kick, confirmed);
	}
}

static void account_sequence(struct trigger_wait_state *state)
{
	struct trigger_cpu *cpu = &trigger_cpus[cpu_id()];
	struct trigger_user_counters *user = user_counters_here(state->trigger->user);

	cpu->last = (struct trigger_sequence_record){
		.backend = state->backend->id,
		.waits = state->waits,
		.sleeps = state->sleeps,
		.last_return = state->last_return,
		.kick_tsc = state->kick_tsc,
		.wake_sent_tsc = state->wake_sent_tsc,
		.wake_arrived_tsc = state->wake_arrived_tsc,
		.return_tsc = state->return_tsc,
	};
	memcpy(cpu->last.returns, state->returns, sizeof(cpu->last.returns));
	if (!user)
		return;
	add_to_user(user, sequences, 1);
	add_to_user(user, sleeps, state->sleeps);
	/* A sequence with a deadline its waiter did not note late reached a deadline. */
	if (state->deadlines > state->late_kickers)
		add_to_user(user, reached_deadline, 1);
	else if (state->late_kickers || state->kicked_late)
		add_to_user(user, late_kicker, 1);
	/*
	 * Its kick came during its last wait when that wait found the
	 * generation moved, even if another interrupt woke it first (a late
	 * kicker, its wake-up not judged lost): the implicit reset took that
	 * kick's generation, so confirm_later() would wait for a kick that
	 * has already come.
	 */
	if (state->waits == 0)
		add_to_user(user, before_waiting, 1);
	else if (state->last_saw_kick)
		add_to_user(user, by_kick, 1);
	else
		confirm_later(state);
}

void trigger_last_sequence(unsigned int cpu, struct trigger_sequence_record *record)
{
	*record = trigger_cpus[cpu].last;
}

bool trigger_cpu_entered_wait(unsigned int cpu, const trigger_t *trigger)
{
	return __atomic_load_n(&trigger_cpus[cpu].entered, __ATOMIC_ACQUIRE) == trigger;
}

void trigger_core_finish(trigger_t *trigger, void *site)
{
	struct trigger_cpu *cpu = &trigger_cpus[cpu_id()];
	struct trigger_wait_state *state = find_state(trigger);
	bool enabled;

	if (!state) {
		report_misuse("finish without a reset", trigger, site, NULL);
		return;
	}
	enabled = state->irqs_were_enabled;
	account_sequence(state);
	/*
	 * Remove it, keeping the order of any sequences below or above it:
	 * those above move down first (an NMI handler in between sees the top
	 * one twice, the same state, harmless), then the depth drops.
	 */
	if (state != &cpu->stack[cpu->depth - 1])
		memmove(state, state + 1,
			(size_t)(&cpu->stack[cpu->depth] - (state + 1)) * sizeof(*state));
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	cpu->depth--;
	local_irq_restore(enabled);
}

unsigned int trigger_sequence_depth(void)
{
	return trigger_cpus[cpu_id()].depth;
}

void trigger_abandon_sequences(unsigned int depth)
{
	struct trigger_cpu *cpu = &trigger_cpus[cpu_id()];

	for (unsigned int i = depth; i < cpu->depth; i++) {
		trigger_unpublish(cpu->stack[i].trigger->ipi_waiters, cpu_id());
		trigger_unpublish(cpu->stack[i].trigger->nmi_waiters, cpu_id());
	}
	if (depth < cpu->depth)
		cpu->depth = depth;
}

/* --- Kicks ------------------------------------------------------------------- */

void trigger_publish(uint64_t *mask, unsigned int cpu)
{
	__atomic_fetch_or(&mask[cpu / 64], 1ull << (cpu % 64), __ATOMIC_SEQ_CST);
}

void trigger_unpublish(uint64_t *mask, unsigned int cpu)
{
	__atomic_fetch_and(&mask[cpu / 64], ~(1ull << (cpu % 64)), __ATOMIC_RELEASE);
}

static enum trigger_test_break kick_break;

/*
 * Send the wake-ups @mask asks for.  The first one sent stamps the kick for
 * the evidence (arch/ipi_evidence.h): after the generation add and the
 * mask's load, before any ICR write; a kick nobody waits for reads no TSC.
 *
 * Always inlined into the kick, which is what the 2008 patch's kick was:
 * one function.  Under QEMU's TCG every return leaves the translated block
 * and looks the next one up, so the two calls of an out-of-line copy made
 * the kick nobody waits for 1.2-2 times 67b368c's (tools/bench --against).
 */
static inline __attribute__((always_inline)) void wake_published(trigger_t *trigger, uint64_t *mask,
			   void (*wake)(unsigned int, struct trigger_counters *),
			   struct trigger_counters *counters, int memory_order, bool *stamped)
{
	for (unsigned int word = 0; word < TRIGGER_MASK_WORDS; word++) {
		uint64_t bits = __atomic_load_n(&mask[word], memory_order);

		while (bits) {
			unsigned int bit = (unsigned int)__builtin_ctzll(bits);

			bits &= bits - 1;
			if (!*stamped) {
				ipi_evidence_kick(trigger->user ? trigger->user->name : NULL);
				*stamped = true;
			}
			wake(word * 64 + bit, counters);
		}
	}
}

void trigger_core_kick(trigger_t *trigger)
{
	struct trigger_counters *counters =
		trigger_counters_here(__atomic_load_n(&current_backend, __ATOMIC_RELAXED));
	enum trigger_test_break broken = __atomic_load_n(&kick_break, __ATOMIC_RELAXED);
	int mask_order = __ATOMIC_SEQ_CST;
	bool stamped = false;

	if (broken == TRIGGER_BREAK_KICK)
		return;		/* test_break=kick: the kick is lost */
	/* This CPU's count: an unlocked add, which orders nothing; the generation's add does. */
	cpu_local_add(&counters->kicks, 1);
	switch (broken) {
	case TRIGGER_BREAK_KICK_FENCE:
		/*
		 * test_break=kick_fence: a plain load and store, which a
		 * store buffer lets pass the mask loads below (x86: SDM vol 3,
		 * 9.2.3.4): nothing between them orders them.
		 */
		__atomic_store_n(&trigger->generation,
				 __atomic_load_n(&trigger->generation, __ATOMIC_RELAXED) + 1,
				 __ATOMIC_RELAXED);
		mask_order = __ATOMIC_RELAXED;
		break;
	default:
		/*
		 * The write barrier: a sequentially consistent add makes
		 * every earlier store visible before the new generation, and
		 * it is also the full barrier between the generation and the
		 * reads of the masks (x86: a locked add).  The store itself
		 * ends the waits that watch the line (x86: MONITOR/MWAIT,
		 * UMWAIT).
		 */
		__atomic_fetch_add(&trigger->generation, 1, __ATOMIC_SEQ_CST);
		break;
	}
	wake_published(trigger, trigger->ipi_waiters, arch_trigger_wake_ipi, counters, mask_order,
		       &stamped);
	wake_published(trigger, trigger->nmi_waiters, arch_trigger_wake_nmi, counters, mask_order,
		       &stamped);
	if (trigger->user)
		confirm_early_finishers(trigger);
}

/* --- Choosing a backend --------------------------------------------------------- */

const char *trigger_backend_name(enum trigger_backend_id backend)
{
	if (backend >= TRIGGER_BACKEND_COUNT)
		return "auto";
	return trigger_backends[backend].name;
}

int trigger_backend_from_name(const char *name, size_t length)
{
	if (length == 4 && memcmp(name, "auto", 4) == 0)
		return TRIGGER_BACKEND_AUTO;
	for (int i = 0; i < TRIGGER_BACKEND_COUNT; i++) {
		if (strlen(trigger_backends[i].name) == length &&
		    memcmp(trigger_backends[i].name, name, length) == 0)
			return i;
	}
	return -1;
}

const char *trigger_backend_unavailable(enum trigger_backend_id backend)
{
	const char *missing;

	if (backend >= TRIGGER_BACKEND_COUNT)
		return "no such backend";
	missing = trigger_backends[backend].unavailable ? trigger_backends[backend].unavailable()
							: NULL;
	return missing ? missing : trigger_backend_memory_refusal(backend);
}

bool trigger_backend_set(enum trigger_backend_id backend)
{
	if (trigger_backend_unavailable(backend))
		return false;
	__atomic_store_n(&current_backend, backend, __ATOMIC_RELEASE);
	return true;
}

enum trigger_backend_id trigger_backend_current(void)
{
	return __atomic_load_n(&current_backend, __ATOMIC_ACQUIRE);
}

/* @count u64 fields at @from, summed into @into, of every CPU's share at @offset. */
static void sum_per_cpu(uint64_t *into, size_t offset, size_t count)
{
	for (size_t i = 0; i < count; i++)
		into[i] = 0;
	for (unsigned int cpu = 0; cpu < MAX_CPUS; cpu++) {
		const uint64_t *from = (const uint64_t *)((const char *)&trigger_cpus[cpu] + offset);

		for (size_t i = 0; i < count; i++)
			into[i] += __atomic_load_n(&from[i], __ATOMIC_RELAXED);
	}
}

void trigger_counters_read(enum trigger_backend_id backend, struct trigger_counters *counters)
{
	_Static_assert(sizeof(*counters) % sizeof(uint64_t) == 0, "counters are u64 fields");
	sum_per_cpu((uint64_t *)counters, offsetof(struct trigger_cpu, backend[backend]),
		    sizeof(*counters) / sizeof(uint64_t));
}

/* "sticky 3 kick 10 ipi 2 ..." for the returns that happened */
static void format_returns(char *buffer, size_t size, const uint64_t *now, const uint64_t *before)
{
	size_t used = 0;

	buffer[0] = '\0';
	for (int wake = 0; wake < TRIGGER_WAKE_COUNT && used < size; wake++) {
		uint64_t count = now[wake] - before[wake];

		if (count)
			used += (size_t)snprintf(buffer + used, size - used, " %s %llu",
						 trigger_wake_name(wake), (unsigned long long)count);
	}
}

static void report_backends(const char *prefix)
{
	static struct trigger_counters reported[TRIGGER_BACKEND_COUNT];

	for (int i = 0; i < TRIGGER_BACKEND_COUNT; i++) {
		struct trigger_counters now, *before = &reported[i];
		char returns[160];

		trigger_counters_read(i, &now);
		if (now.waits == before->waits && now.kicks == before->kicks)
			continue;
		format_returns(returns, sizeof(returns), now.returns, before->returns);
		kprintf("%strigger %s: waits %llu (returns:%s) sleeps %llu kicks %llu ipis %llu "
			"nmis %llu pv_kicks %llu spin_fallbacks %llu waited %llu us\n",
			prefix, trigger_backends[i].name,
			(unsigned long long)(now.waits - before->waits), returns,
			(unsigned long long)(now.sleeps - before->sleeps),
			(unsigned long long)(now.kicks - before->kicks),
			(unsigned long long)(now.ipis - before->ipis),
			(unsigned long long)(now.nmis - before->nmis),
			(unsigned long long)(now.pv_kicks - before->pv_kicks),
			(unsigned long long)(now.spin_fallbacks - before->spin_fallbacks),
			(unsigned long long)(cycles_to_ns(now.wait_cycles - before->wait_cycles) / 1000));
		*before = now;
	}
}


struct trigger_user *trigger_user_find(const char *name)
{
	for_each_trigger_user(user) {
		if (strcmp((*user)->name, name) == 0)
			return *user;
	}
	return NULL;
}

void trigger_user_counters_read(struct trigger_user *user, struct trigger_user_counters *counters)
{
	unsigned int slot = 0;

	_Static_assert(sizeof(*counters) % sizeof(uint64_t) == 0, "counters are u64 fields");
	for_each_trigger_user(listed) {
		if (*listed == user)
			slot = (unsigned int)(listed - __start_trigger_users) + 1;
	}
	if (!slot || slot > TRIGGER_USERS_MAX) {
		*counters = (struct trigger_user_counters){ 0 };
		return;
	}
	sum_per_cpu((uint64_t *)counters, offsetof(struct trigger_user_counters, sequences) +
		    offsetof(struct trigger_cpu, user[slot - 1]),
		    sizeof(*counters) / sizeof(uint64_t));
}

/*
 * The counters are cumulative, so each report prints what moved since the
 * last one; "still without a kick" is a level, not a flow: the sequences
 * since boot that ended before a kick that has not come.
 */
static void report_users(const char *prefix)
{
	static struct trigger_user_counters reported[TRIGGER_USERS_MAX];
	unsigned int index = 0;

	for_each_trigger_user(user) {
		struct trigger_user_counters now, *before;
		char returns[160];

		if (index++ >= TRIGGER_USERS_MAX) {
			kprintf("%strigger user %s: not counted (more than %u users)\n", prefix,
				(*user)->name, TRIGGER_USERS_MAX);
			continue;
		}
		before = &reported[index - 1];
		trigger_user_counters_read(*user, &now);
		if (now.sequences == before->sequences && now.waits == before->waits &&
		    now.awaiting_kick == before->awaiting_kick)
			continue;
		format_returns(returns, sizeof(returns), now.returns, before->returns);
		kprintf("%strigger user %s: sequences %llu: by its kick %llu, before waiting %llu, "
			"before its kick %llu, reached a deadline %llu, late kicker %llu, still "
			"without a kick %llu; waits %llu (returns:%s) sleeps %llu\n",
			prefix, (*user)->name,
			(unsigned long long)(now.sequences - before->sequences),
			(unsigned long long)(now.by_kick - before->by_kick),
			(unsigned long long)(now.before_waiting - before->before_waiting),
			(unsigned long long)(now.before_its_kick - before->before_its_kick),
			(unsigned long long)(now.reached_deadline - before->reached_deadline),
			(unsigned long long)(now.late_kicker - before->late_kicker),
			(unsigned long long)now.awaiting_kick,
			(unsigned long long)(now.waits - before->waits), returns,
			(unsigned long long)(now.sleeps - before->sleeps));
		*before = now;
	}
}

void trigger_report_usage(const char *prefix)
{
	report_backends(prefix);
	report_users(prefix);
	arch_trigger_report(prefix);
}

/* --- Test hooks ---------------------------------------------------------------- */

bool trigger_test_publish_and_recheck(trigger_t *trigger, uint64_t seen, unsigned int as_cpu)
{
	struct trigger_wait_state state = { .trigger = trigger, .seen = seen };

	trigger_publish(trigger->ipi_waiters, as_cpu);
	return trigger_moved_after_publish(trigger, &state);
}

void trigger_test_unpublish(trigger_t *trigger, unsigned int as_cpu)
{
	trigger_unpublish(trigger->ipi_waiters, as_cpu);
}

void trigger_test_set_kick_break(enum trigger_test_break mode)
{
	__atomic_store_n(&kick_break, mode, __ATOMIC_RELEASE);
}
