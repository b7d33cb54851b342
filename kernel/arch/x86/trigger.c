// SPDX-License-Identifier: MIT
/*
 * The x86 trigger core: wait sequences, kicks, misuse checks, counters and
 * the choice of backend.  The backends themselves are in trigger_backends.c.
 *
 * Why no wake-up is lost.  A waiter that is going to halt first publishes
 * itself in the trigger's waiter mask with a locked OR, then reads the
 * generation; a kicker advances the generation with a locked add, then reads
 * the mask.  Locked instructions are full barriers (SDM vol 3, 9.2.3.8), so
 * of the two, at least one sees the other's write: either the waiter sees
 * the new generation and does not halt, or the kicker sees the waiter and
 * sends it an interrupt.  The interrupt cannot be lost either: a waiter with
 * interrupts enabled at the reset holds them off until "sti; hlt", whose STI
 * shadow makes a pending IPI end the HLT; a waiter with interrupts disabled
 * is woken by an NMI, and the NMI handler moves a CPU caught between its last
 * look and its HLT past the HLT (trigger_halt.S).
 */
#include <console.h>
#include <cpu.h>
#include <irq.h>
#include <ktap.h>
#include <panic.h>
#include <smp.h>
#include <symbols.h>
#include <time.h>
#include <lib/format.h>
#include <lib/string.h>
#include <asm/apic.h>
#include <asm/instructions.h>
#include <asm/interrupts.h>

#include "trigger_internal.h"

#define WAIT_DEPTH_MAX 4	/* nested sequences: a handler may wait inside a wait */

struct trigger_cpu {
	struct trigger_wait_state stack[WAIT_DEPTH_MAX];
	unsigned int depth;
	unsigned int nmi_kicks_pending;	/* wake NMIs sent to this CPU, not yet seen */
};

static struct trigger_cpu trigger_cpus[MAX_CPUS];
static enum trigger_backend_id current_backend = TRIGGER_BACKEND_SPIN;
static void (*misuse_hook)(const char *message);

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

void x86_trigger_init(trigger_t *trigger)
{
	memset(trigger, 0, sizeof(*trigger));
}

void x86_trigger_reset(trigger_t *trigger, void *site)
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
	state = &cpu->stack[cpu->depth++];
	*state = (struct trigger_wait_state){
		.trigger = trigger,
		.backend = &trigger_backends[__atomic_load_n(&current_backend, __ATOMIC_RELAXED)],
		.seen = trigger_generation(trigger),
		.irqs_were_enabled = enabled,
		.reset_site = site,
	};
}

/* A wait with no sequence still waits, the seed's way, after the report. */
static void relax_once(void)
{
	cpu_relax();
}

static bool wait_common(trigger_t *trigger, uint64_t deadline_cycles, void *site)
{
	struct trigger_wait_state *state = find_state(trigger);
	struct trigger_counters *counters;
	uint64_t start, generation;
	bool timed_out = false;

	if (!state) {
		report_misuse("wait without a reset", trigger, site, NULL);
		relax_once();
		return true;
	}
	counters = &state->backend->counters;
	__atomic_fetch_add(&counters->waits, 1, __ATOMIC_RELAXED);
	if (trigger_moved(trigger, state)) {
		/* Sticky: kicked since the reset (or the last return). */
		__atomic_fetch_add(&counters->immediate, 1, __ATOMIC_RELAXED);
		state->seen = trigger_generation(trigger);
		return true;
	}
	start = cycles();
	state->backend->wait(trigger, state, deadline_cycles);
	generation = trigger_generation(trigger);	/* acquire: the read barrier */
	__atomic_fetch_add(&counters->wait_cycles, cycles() - start, __ATOMIC_RELAXED);
	if (generation == state->seen) {
		if (deadline_cycles && cycles() >= deadline_cycles) {
			timed_out = true;
			__atomic_fetch_add(&counters->timeouts, 1, __ATOMIC_RELAXED);
		} else {
			__atomic_fetch_add(&counters->spurious, 1, __ATOMIC_RELAXED);
		}
	}
	state->seen = generation;	/* the implicit reset */
	return !timed_out;
}

void x86_trigger_wait(trigger_t *trigger, void *site)
{
	wait_common(trigger, 0, site);
}

bool x86_trigger_wait_timeout(trigger_t *trigger, uint64_t deadline_ns, void *site)
{
	uint64_t now = now_ns();
	uint64_t deadline_cycles = cycles() + (deadline_ns > now ? ns_to_cycles(deadline_ns - now) : 0);

	if (deadline_ns <= now) {
		struct trigger_wait_state *state = find_state(trigger);

		if (state && trigger_moved(trigger, state)) {
			state->seen = trigger_generation(trigger);
			return true;
		}
		if (state)
			__atomic_fetch_add(&state->backend->counters.timeouts, 1, __ATOMIC_RELAXED);
		return false;
	}
	return wait_common(trigger, deadline_cycles ? deadline_cycles : 1, site);
}

void x86_trigger_finish(trigger_t *trigger, void *site)
{
	struct trigger_cpu *cpu = &trigger_cpus[cpu_id()];
	struct trigger_wait_state *state = find_state(trigger);
	bool enabled;

	if (!state) {
		report_misuse("finish without a reset", trigger, site, NULL);
		return;
	}
	enabled = state->irqs_were_enabled;
	/* Remove it, keeping the order of any sequences below or above it. */
	memmove(state, state + 1, (size_t)(&cpu->stack[cpu->depth] - (state + 1)) * sizeof(*state));
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

static void wake_published(uint64_t *mask, void (*wake)(unsigned int, struct trigger_counters *),
			   struct trigger_counters *counters)
{
	for (unsigned int word = 0; word < TRIGGER_MASK_WORDS; word++) {
		uint64_t bits = __atomic_load_n(&mask[word], __ATOMIC_SEQ_CST);

		while (bits) {
			unsigned int bit = (unsigned int)__builtin_ctzll(bits);

			bits &= bits - 1;
			wake(word * 64 + bit, counters);
		}
	}
}

void x86_trigger_kick(trigger_t *trigger)
{
	struct trigger_counters *counters =
		&trigger_backends[__atomic_load_n(&current_backend, __ATOMIC_RELAXED)].counters;

	/*
	 * The write barrier: a release add makes every earlier store visible
	 * before the new generation, and as a locked instruction it is also the
	 * full barrier between the generation and the reads of the masks.
	 * The store itself wakes MONITOR/MWAIT and UMWAIT waiters.
	 */
	__atomic_fetch_add(&trigger->generation, 1, __ATOMIC_SEQ_CST);
	__atomic_fetch_add(&counters->kicks, 1, __ATOMIC_RELAXED);
	wake_published(trigger->ipi_waiters, trigger_wake_ipi, counters);
	wake_published(trigger->nmi_waiters, trigger_wake_nmi, counters);
}

void trigger_wake_nmi(unsigned int cpu, struct trigger_counters *counters)
{
	if (cpu == cpu_id())
		return;		/* we are running, so not halted */
	__atomic_fetch_add(&trigger_cpus[cpu].nmi_kicks_pending, 1, __ATOMIC_SEQ_CST);
	lapic_send_ipi(cpus[cpu].apic_id, APIC_DELIVERY_NMI);
	__atomic_fetch_add(&counters->nmis, 1, __ATOMIC_RELAXED);
}

bool trigger_in_nmi(void)
{
	return in_nmi();
}

static bool trigger_nmi(struct interrupt_frame *frame)
{
	struct trigger_cpu *cpu = &trigger_cpus[cpu_id()];
	unsigned int pending = __atomic_load_n(&cpu->nmi_kicks_pending, __ATOMIC_ACQUIRE);
	bool ours = false;

	/*
	 * One of ours if a kick sent it.  A wake NMI can come late (the waiter
	 * woke another way first) or merge with another NMI (one can be pending
	 * behind the one being handled), so this counts them down one by one;
	 * every NMI handler runs anyway (nmi_dispatch), so claiming one that
	 * was not ours starves nobody.
	 */
	while (pending && !__atomic_compare_exchange_n(&cpu->nmi_kicks_pending, &pending,
							  pending - 1, false, __ATOMIC_ACQ_REL,
							  __ATOMIC_ACQUIRE))
		;
	if (pending)
		ours = true;
	/* Caught between the last look and the HLT: resume past the HLT. */
	if (frame->rip >= (uint64_t)trigger_halt_window_start &&
	    frame->rip < (uint64_t)trigger_halt_window_end) {
		frame->rip = (uint64_t)trigger_halt_window_end;
		ours = true;
	}
	return ours;
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

enum trigger_backend_id trigger_choose_auto(bool mwait_available, bool mwait_sleeps,
					    bool virtualized, bool memory_write_back,
					    const char **reason)
{
	if (virtualized) {
		*reason = "under a hypervisor only a halt gives the host CPU back: adaptive";
		return TRIGGER_BACKEND_ADAPTIVE;
	}
	if (mwait_available && !memory_write_back) {
		*reason = "some CPU does not see the trigger memory as write-back, and MONITOR "
			  "watches only that: adaptive";
		return TRIGGER_BACKEND_ADAPTIVE;
	}
	if (mwait_available && mwait_sleeps) {
		*reason = "bare metal, and MWAIT was seen to sleep: mwait";
		return TRIGGER_BACKEND_MWAIT;
	}
	*reason = mwait_available ? "MWAIT did not sleep when measured: adaptive"
				  : "no MONITOR/MWAIT: adaptive";
	return TRIGGER_BACKEND_ADAPTIVE;
}

void trigger_counters_read(enum trigger_backend_id backend, struct trigger_counters *counters)
{
	*counters = trigger_backends[backend].counters;
}

void trigger_report_usage(const char *prefix)
{
	static struct trigger_counters reported[TRIGGER_BACKEND_COUNT];

	for (int i = 0; i < TRIGGER_BACKEND_COUNT; i++) {
		struct trigger_counters now = trigger_backends[i].counters;
		struct trigger_counters *before = &reported[i];

		if (now.waits == before->waits && now.kicks == before->kicks)
			continue;
		kprintf("%strigger %s: waits %llu kicks %llu immediate %llu spurious %llu ipis %llu "
			"nmis %llu pv_kicks %llu timeouts %llu spin_fallbacks %llu waited %llu us\n",
			prefix, trigger_backends[i].name,
			(unsigned long long)(now.waits - before->waits),
			(unsigned long long)(now.kicks - before->kicks),
			(unsigned long long)(now.immediate - before->immediate),
			(unsigned long long)(now.spurious - before->spurious),
			(unsigned long long)(now.ipis - before->ipis),
			(unsigned long long)(now.nmis - before->nmis),
			(unsigned long long)(now.pv_kicks - before->pv_kicks),
			(unsigned long long)(now.timeouts - before->timeouts),
			(unsigned long long)(now.spin_fallbacks - before->spin_fallbacks),
			(unsigned long long)(cycles_to_ns(now.wait_cycles - before->wait_cycles) / 1000));
		*before = now;
	}
}

void trigger_nmi_init(void)
{
	nmi_register(trigger_nmi);
}
