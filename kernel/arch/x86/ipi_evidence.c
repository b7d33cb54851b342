// SPDX-License-Identifier: MIT
/*
 * Lost or late, decided by evidence (arch/ipi_evidence.h says the rule).
 *
 * Two records.  A target's inbox, one cache line pair per CPU, is what its
 * senders write: per kind the count of sends begun (bumped before the ICR
 * write) and of sends done (after it completed, so a count read anywhere
 * proves only IPIs that left), the stamp of the oldest send no arrival
 * covers yet, the post-ICR stamp of the latest, the sender, and the
 * trigger user and kick stamp of the latest wake.  A CPU's
 * own record is written by that CPU alone: per kind the count of sends
 * begun that its latest arrival covers (read in the handler: an IPI can
 * arrive before its sender counted it done, never before it began) and
 * its stamp; the "witness",
 * the send counts that the latest handler of another vector read on entry
 * from interrupts-on code; and the losses it judged, for the runner.
 *
 * Why a witness proves a loss.  The timer (0xe0), wake (0xe1) and call
 * (0xe2) vectors share priority class 0xe, wake and call above the timer
 * (asserted below).  The local APIC delivers the highest pending vector
 * first (SDM vol 3, 12.8.3), so once a wake IPI sits in IRR, no handler of a
 * lower vector is entered before it.  Any handler may have been accepted
 * just before the IPI reached IRR and read the send count just after; but
 * then it returns (IRET, its EOI sent) to interrupts-on code with nothing in
 * service, and the pending IPI is taken there, before anything else runs.  So when a CPU,
 * back in its own code with interrupts off (a trigger wait's return),
 * finds that its last such handler read a send count its arrivals do not
 * cover, that IPI is lost.  The probe vector (class 0xf) is for a CPU that
 * takes no other interrupt: its handler reads the send counts, then IRR and
 * ISR; a send no arrival covers whose vector is in neither is lost.
 *
 * NMIs latch one and merge: an NMI arrival covers every wake NMI that left
 * before it.  A wake NMI is only sent to a CPU halted with interrupts off,
 * which runs nothing until an NMI comes, so no point of its own can show
 * that a missing one was lost rather than delayed by a host that did not
 * run it: wake NMIs are only ever "late" here (the sweep's probe NMI ends
 * such a halt; README.md lists it among what cannot be judged).
 */
#include <log/console.h>
#include <cpu/cpu.h>
#include <arch/ipi.h>
#include <arch/ipi_evidence.h>
#include <sync/irq.h>
#include <log/log.h>
#include <boot/options.h>
#include <smp/smp.h>
#include <time/time.h>
#include <lib/format.h>
#include <asm/apic.h>
#include <asm/instructions.h>
#include <asm/interrupts.h>

#define VECTOR_PROBE		0xf1	/* class 0xf: above the wake and call vectors' */
#define PRIORITY_CLASS(vector)	((vector) >> 4)

_Static_assert(PRIORITY_CLASS(VECTOR_WAKE) == PRIORITY_CLASS(VECTOR_LAPIC_TIMER) &&
	       VECTOR_WAKE > VECTOR_LAPIC_TIMER,
	       "a wake IPI pending in IRR must be delivered before the timer's interrupt");
_Static_assert(PRIORITY_CLASS(IPI_VECTOR_CALL_FUNCTION) == PRIORITY_CLASS(VECTOR_LAPIC_TIMER) &&
	       IPI_VECTOR_CALL_FUNCTION > VECTOR_LAPIC_TIMER,
	       "a call IPI pending in IRR must be delivered before the timer's interrupt");
_Static_assert(PRIORITY_CLASS(VECTOR_PROBE) > PRIORITY_CLASS(IPI_VECTOR_CALL_FUNCTION) &&
	       VECTOR_PROBE < VECTOR_LAPIC_ERROR,
	       "the probe interrupts a CPU whatever of class 0xe is pending");

/* A gap between a send and its arrival worth a line of its own at the case's end. */
#define LATE_NOTE_NS		(50ull * 1000 * 1000)
/* The sweep probes a CPU whose oldest uncovered send is older than this. */
#define SWEEP_AGE_NS		(200ull * 1000 * 1000)
#define LOSSES_KEPT		8

struct evidence_inbox {
	uint64_t started[IPI_EVIDENCE_KINDS];		/* sends begun: bumped before the ICR write */
	uint64_t sent[IPI_EVIDENCE_KINDS];		/* sends done: bumped after it */
	uint64_t oldest_tsc[IPI_EVIDENCE_KINDS];	/* begun, oldest uncovered; 0: none */
	uint64_t latest_tsc[IPI_EVIDENCE_KINDS];	/* post-ICR, latest */
	uint64_t kick_tsc;				/* the latest wake's kick (before its ICR write) */
	const char *user;				/* the latest wake's trigger user */
	uint64_t probe_tsc;				/* the sweep's latest probe */
	uint16_t sender[IPI_EVIDENCE_KINDS];
} __attribute__((aligned(64)));

struct evidence_loss {
	enum ipi_evidence_kind kind;
	unsigned int sender;
	const char *user;
	uint64_t sent, covered;		/* the send count due, and what the arrivals covered */
	uint64_t sent_tsc, kick_tsc, arrived_tsc, witness_tsc;
	unsigned int witness_vector;
	bool by_probe;
	bool printed;			/* by the runner, or taken by the case that planted it */
};

struct evidence_cpu {
	uint64_t arrived[IPI_EVIDENCE_KINDS];	/* send counts the arrivals covered */
	uint64_t arrived_tsc[IPI_EVIDENCE_KINDS];
	uint64_t judged[IPI_EVIDENCE_KINDS];	/* sends already judged lost */
	/* The latest handler entered from interrupts-on code, published once it returned. */
	uint64_t witness_sent[IPI_EVIDENCE_KINDS];
	uint64_t witness_tsc;
	unsigned int witness_vector;
	unsigned int handler_depth;
	/* The kick this CPU is sending the wake-ups of. */
	uint64_t kick_tsc;
	const char *kick_user;
	/* test_lose_*=N: this CPU's sends of each kind, to lose every Nth. */
	uint64_t sends[IPI_EVIDENCE_KINDS];
	/* Judged here, printed by the runner (ipi_evidence_report_losses()). */
	unsigned long losses;
	struct evidence_loss loss[LOSSES_KEPT];
	/* The largest gap between a send and the arrival that covered it. */
	uint64_t late_max_cycles, late_reported_cycles;
	enum ipi_evidence_kind late_kind;
	unsigned int late_sender;
	unsigned long late_count;		/* arrivals later than LATE_NOTE_NS */
	unsigned long probes_taken;
} __attribute__((aligned(64)));

static struct evidence_inbox inboxes[MAX_CPUS];
static struct evidence_cpu evidence_cpus[MAX_CPUS];
static unsigned int lose_every[IPI_EVIDENCE_KINDS];	/* test_lose_*=N; 0: none */

const char *ipi_evidence_kind_name(enum ipi_evidence_kind kind)
{
	static const char *const names[IPI_EVIDENCE_KINDS] = {
		[IPI_EVIDENCE_WAKE] = "wake IPI",
		[IPI_EVIDENCE_CALL] = "call IPI",
		[IPI_EVIDENCE_NMI] = "wake NMI",
	};

	return kind < IPI_EVIDENCE_KINDS ? names[kind] : "?";
}

static unsigned int kind_vector(enum ipi_evidence_kind kind)
{
	return kind == IPI_EVIDENCE_WAKE ? VECTOR_WAKE : IPI_VECTOR_CALL_FUNCTION;
}

/* --- Senders -------------------------------------------------------------------------- */

void ipi_evidence_kick(const char *user)
{
	struct evidence_cpu *self = &evidence_cpus[cpu_id()];

	self->kick_tsc = cycles();
	self->kick_user = user;
}

bool ipi_evidence_should_lose(enum ipi_evidence_kind kind, unsigned int cpu)
{
	unsigned int every = __atomic_load_n(&lose_every[kind], __ATOMIC_RELAXED);
	struct evidence_cpu *self = &evidence_cpus[cpu_id()];

	(void)cpu;
	if (!every)
		return false;
	/* Per sender, so that losing costs no shared line; a locked add: an NMI may send too. */
	return __atomic_add_fetch(&self->sends[kind], 1, __ATOMIC_RELAXED) % every == 0;
}

void ipi_evidence_send_begin(enum ipi_evidence_kind kind, unsigned int cpu)
{
	struct evidence_inbox *inbox = &inboxes[cpu];
	struct evidence_cpu *self = &evidence_cpus[cpu_id()];
	uint64_t none = 0;

	/*
	 * Before the ICR write: the kick a wake-up carries (its target may
	 * take it, return from its wait and look before the send is stamped
	 * done), the oldest uncovered stamp, then the count: an arrival that
	 * covers this send finds the stamp to measure its gap from.
	 */
	if (kind != IPI_EVIDENCE_CALL) {
		__atomic_store_n(&inbox->kick_tsc, self->kick_tsc, __ATOMIC_RELAXED);
		__atomic_store_n(&inbox->user, self->kick_user, __ATOMIC_RELAXED);
	}
	__atomic_compare_exchange_n(&inbox->oldest_tsc[kind], &none, cycles(), false,
				    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	__atomic_fetch_add(&inbox->started[kind], 1, __ATOMIC_SEQ_CST);
}

void ipi_evidence_sent(enum ipi_evidence_kind kind, unsigned int cpu)
{
	struct evidence_inbox *inbox = &inboxes[cpu];
	uint64_t now = cycles();

	__atomic_store_n(&inbox->latest_tsc[kind], now, __ATOMIC_RELAXED);
	__atomic_store_n(&inbox->sender[kind], (uint16_t)cpu_id(), __ATOMIC_RELAXED);
	/* Release: whoever reads the count sees the stamps (and the call queued before it). */
	__atomic_fetch_add(&inbox->sent[kind], 1, __ATOMIC_RELEASE);
}

/* --- Arrivals --------------------------------------------------------------------------- */

void ipi_evidence_arrived(enum ipi_evidence_kind kind)
{
	unsigned int me = cpu_id();
	struct evidence_inbox *inbox = &inboxes[me];
	struct evidence_cpu *self = &evidence_cpus[me];
	uint64_t sent = __atomic_load_n(&inbox->started[kind], __ATOMIC_ACQUIRE);
	uint64_t oldest = __atomic_exchange_n(&inbox->oldest_tsc[kind], 0, __ATOMIC_RELAXED);
	uint64_t now = cycles();

	if (sent > self->arrived[kind])
		self->arrived[kind] = sent;
	self->arrived_tsc[kind] = now;
	if (!oldest || oldest > now)
		return;
	if (now - oldest > self->late_max_cycles) {
		self->late_max_cycles = now - oldest;
		self->late_kind = kind;
		self->late_sender = __atomic_load_n(&inbox->sender[kind], __ATOMIC_RELAXED);
	}
	if (cycles_to_ns(now - oldest) >= LATE_NOTE_NS)
		self->late_count++;
}

void ipi_evidence_last_wake(enum ipi_evidence_kind kind, struct ipi_evidence_wake_stamps *stamps)
{
	unsigned int me = cpu_id();
	struct evidence_inbox *inbox = &inboxes[me];
	uint64_t done = __atomic_load_n(&inbox->sent[kind], __ATOMIC_ACQUIRE);

	stamps->kick_tsc = __atomic_load_n(&inbox->kick_tsc, __ATOMIC_RELAXED);
	/* A send begun and not yet stamped done (it arrived first): its stamp is not there yet. */
	stamps->sent_tsc = done == __atomic_load_n(&inbox->started[kind], __ATOMIC_RELAXED)
			   ? __atomic_load_n(&inbox->latest_tsc[kind], __ATOMIC_RELAXED) : 0;
	stamps->arrived_tsc = evidence_cpus[me].arrived_tsc[kind];
}

/* --- Judging ------------------------------------------------------------------------------- */

/* @due sends of @kind to this CPU are proven due; record those no arrival covered. */
static bool judge(enum ipi_evidence_kind kind, uint64_t due, uint64_t witness_tsc,
		  unsigned int witness_vector, bool by_probe)
{
	unsigned int me = cpu_id();
	struct evidence_cpu *self = &evidence_cpus[me];
	struct evidence_inbox *inbox = &inboxes[me];
	struct evidence_loss *loss;

	if (due <= self->arrived[kind] || due <= self->judged[kind])
		return false;
	loss = &self->loss[self->losses % LOSSES_KEPT];
	*loss = (struct evidence_loss){
		.kind = kind,
		.sender = __atomic_load_n(&inbox->sender[kind], __ATOMIC_RELAXED),
		.user = kind == IPI_EVIDENCE_CALL ? "call_function"
						  : __atomic_load_n(&inbox->user, __ATOMIC_RELAXED),
		.sent = due,
		.covered = self->arrived[kind],
		.sent_tsc = __atomic_load_n(&inbox->latest_tsc[kind], __ATOMIC_RELAXED),
		.kick_tsc = kind == IPI_EVIDENCE_CALL ? 0
						      : __atomic_load_n(&inbox->kick_tsc,
									__ATOMIC_RELAXED),
		.arrived_tsc = self->arrived_tsc[kind],
		.witness_tsc = witness_tsc,
		.witness_vector = witness_vector,
		.by_probe = by_probe,
	};
	self->judged[kind] = due;
	/* Published last: the runner reads the record once it sees the count. */
	__atomic_store_n(&self->losses, self->losses + 1, __ATOMIC_RELEASE);
	return true;
}

/*
 * A lost call IPI leaves its calls queued: run them, as the IPI would have,
 * so that the run goes on to report the loss instead of hanging on it.
 */
static void repair(enum ipi_evidence_kind kind)
{
	/* Its arrival is no late one: the gap it would measure is the loss's. */
	__atomic_store_n(&inboxes[cpu_id()].oldest_tsc[kind], 0, __ATOMIC_RELAXED);
	if (kind == IPI_EVIDENCE_CALL)
		ipi_run_handler(IPI_VECTOR_CALL_FUNCTION);
}

bool ipi_evidence_judge(void)
{
	struct evidence_cpu *self = &evidence_cpus[cpu_id()];
	bool lost = false;

	if (self->handler_depth || in_nmi() || !self->witness_tsc)
		return false;
	for (int kind = IPI_EVIDENCE_WAKE; kind <= IPI_EVIDENCE_CALL; kind++) {
		if (judge(kind, self->witness_sent[kind], self->witness_tsc, self->witness_vector,
			  false)) {
			repair(kind);
			lost = true;
		}
	}
	return lost;
}

/*
 * The dispatcher's part (interrupts.c): any handler entered from
 * interrupts-on code outside any other handler reads the send counts on
 * entry; once it has returned, what it read is due (the file comment says
 * why: a send counted there was in IRR by then, and is taken at the return
 * to interrupts-on code with nothing in service, whatever the vector).
 */
void ipi_evidence_handler_enter(unsigned int vector, bool from_irqs_on,
				struct ipi_evidence_witness *witness)
{
	struct evidence_cpu *self = &evidence_cpus[cpu_id()];
	struct evidence_inbox *inbox = &inboxes[cpu_id()];

	witness->valid = from_irqs_on && self->handler_depth == 0;
	self->handler_depth++;
	if (!witness->valid)
		return;
	witness->tsc = cycles();
	for (int kind = IPI_EVIDENCE_WAKE; kind <= IPI_EVIDENCE_CALL; kind++)
		witness->sent[kind] = __atomic_load_n(&inbox->sent[kind], __ATOMIC_ACQUIRE);
}

void ipi_evidence_handler_exit(unsigned int vector, const struct ipi_evidence_witness *witness)
{
	struct evidence_cpu *self = &evidence_cpus[cpu_id()];

	self->handler_depth--;
	if (!witness->valid)
		return;
	for (int kind = IPI_EVIDENCE_WAKE; kind <= IPI_EVIDENCE_CALL; kind++)
		self->witness_sent[kind] = witness->sent[kind];
	self->witness_vector = vector;
	self->witness_tsc = witness->tsc;
}

/* --- The probe ---------------------------------------------------------------------------- */

static void probe_interrupt(struct interrupt_frame *frame)
{
	struct evidence_inbox *inbox = &inboxes[cpu_id()];
	uint64_t now = cycles(), sent[2];

	(void)frame;
	/* The counts first, then IRR and ISR: a send counted here already reached IRR. */
	for (int kind = IPI_EVIDENCE_WAKE; kind <= IPI_EVIDENCE_CALL; kind++)
		sent[kind] = __atomic_load_n(&inbox->sent[kind], __ATOMIC_ACQUIRE);
	for (int kind = IPI_EVIDENCE_WAKE; kind <= IPI_EVIDENCE_CALL; kind++) {
		if (lapic_vector_requested_or_in_service(kind_vector(kind)))
			continue;	/* pending or running: late at most */
		if (judge(kind, sent[kind], now, VECTOR_PROBE, true))
			repair(kind);
	}
	__atomic_store_n(&evidence_cpus[cpu_id()].probes_taken,
			 evidence_cpus[cpu_id()].probes_taken + 1, __ATOMIC_RELEASE);
	lapic_eoi();
}

static unsigned long nmi_probes;	/* wake NMIs found unclaimed, their targets sent an NMI */

bool ipi_evidence_probe(unsigned int cpu)
{
	struct evidence_inbox *inbox = &inboxes[cpu];

	lapic_send_ipi(cpus[cpu].apic_id, APIC_DELIVERY_FIXED | VECTOR_PROBE);
	/*
	 * A wake NMI still unclaimed: its target may be halted with interrupts
	 * off, which only an NMI ends; the trigger's NMI handler claims this
	 * one for it.  Lost or late, no one can tell (the file comment).
	 */
	if (__atomic_load_n(&inbox->sent[IPI_EVIDENCE_NMI], __ATOMIC_ACQUIRE) >
	    __atomic_load_n(&evidence_cpus[cpu].arrived[IPI_EVIDENCE_NMI], __ATOMIC_RELAXED)) {
		__atomic_fetch_add(&nmi_probes, 1, __ATOMIC_RELAXED);
		ipi_send_nmi(cpu);
		return true;
	}
	return false;
}

void ipi_evidence_sweep(void)
{
	uint64_t now = cycles(), age = ns_to_cycles(SWEEP_AGE_NS);

	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++) {
		struct evidence_inbox *inbox = &inboxes[cpu];
		const struct evidence_cpu *target = &evidence_cpus[cpu];
		bool probe = false;

		if (cpu == cpu_id() || !cpu_is_online(cpu) ||
		    now - __atomic_load_n(&inbox->probe_tsc, __ATOMIC_RELAXED) < age)
			continue;
		for (int kind = 0; kind < IPI_EVIDENCE_KINDS; kind++) {
			uint64_t sent = __atomic_load_n(&inbox->sent[kind], __ATOMIC_ACQUIRE);
			uint64_t latest = __atomic_load_n(&inbox->latest_tsc[kind], __ATOMIC_RELAXED);

			if (!latest || latest > now || now - latest < age ||
			    sent <= __atomic_load_n(&target->arrived[kind], __ATOMIC_RELAXED) ||
			    sent <= __atomic_load_n(&target->judged[kind], __ATOMIC_RELAXED))
				continue;
			probe = true;
		}
		if (!probe)
			continue;
		__atomic_store_n(&inbox->probe_tsc, now, __ATOMIC_RELAXED);
		ipi_evidence_probe(cpu);
	}
}

/* --- Reports -------------------------------------------------------------------------------- */

unsigned long ipi_evidence_losses(void)
{
	unsigned long losses = 0;

	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++)
		losses += __atomic_load_n(&evidence_cpus[cpu].losses, __ATOMIC_ACQUIRE);
	return losses;
}

static uint64_t us_between(uint64_t from, uint64_t to)
{
	return to >= from ? cycles_to_ns(to - from) / 1000 : 0;
}

static void print_loss(const char *prefix, unsigned int cpu, const struct evidence_loss *loss)
{
	char witness[96], kick[64];

	if (loss->by_probe)
		snprintf(witness, sizeof(witness), "a probe found vector 0x%x in neither IRR nor ISR",
			 kind_vector(loss->kind));
	else
		snprintf(witness, sizeof(witness), "vector 0x%x's handler, entered after it, returned "
			 "to interrupts-on code", loss->witness_vector);
	kick[0] = '\0';
	if (loss->kick_tsc)
		snprintf(kick, sizeof(kick), ", kick's generation add at TSC %llu",
			 (unsigned long long)loss->kick_tsc);
	kprintf("%sLOST %s: cpu %u -> cpu %u, user %s, vector 0x%x: send %llu (post-ICR TSC %llu%s) "
		"not covered by any arrival (last covered send %llu, TSC %llu); %s %llu us after the "
		"send (TSC %llu)\n",
		prefix, ipi_evidence_kind_name(loss->kind), loss->sender, cpu,
		loss->user ? loss->user : "-", kind_vector(loss->kind),
		(unsigned long long)loss->sent, (unsigned long long)loss->sent_tsc, kick,
		(unsigned long long)loss->covered, (unsigned long long)loss->arrived_tsc, witness,
		(unsigned long long)us_between(loss->sent_tsc, loss->witness_tsc),
		(unsigned long long)loss->witness_tsc);
}

/* A wake or call IPI to @cpu that no arrival covers and no judgement took yet. */
static bool uncovered(unsigned int cpu)
{
	for (int kind = IPI_EVIDENCE_WAKE; kind <= IPI_EVIDENCE_CALL; kind++) {
		uint64_t sent = __atomic_load_n(&inboxes[cpu].sent[kind], __ATOMIC_ACQUIRE);

		if (sent > __atomic_load_n(&evidence_cpus[cpu].arrived[kind], __ATOMIC_RELAXED) &&
		    sent > __atomic_load_n(&evidence_cpus[cpu].judged[kind], __ATOMIC_RELAXED))
			return true;
	}
	return false;
}

/*
 * The case's end barrier: a CPU with a send still uncovered is probed, and
 * given END_PROBE_NS to take the probe, so that a loss is named in the
 * case that made it.  One that does not take it (interrupts off, not run)
 * is left to the sweep: late, so far.
 */
#define END_PROBE_NS	(20ull * 1000 * 1000)

static void probe_uncovered_at_the_end(void)
{
	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++) {
		const unsigned long *taken = &evidence_cpus[cpu].probes_taken;
		unsigned long before = __atomic_load_n(taken, __ATOMIC_ACQUIRE);
		uint64_t start = cycles(), wait = ns_to_cycles(END_PROBE_NS);

		if (cpu == cpu_id() || !cpu_is_online(cpu) || !uncovered(cpu))
			continue;
		ipi_evidence_probe(cpu);
		while (__atomic_load_n(taken, __ATOMIC_ACQUIRE) == before && cycles() - start < wait)
			arch_cpu_relax();
	}
}

/*
 * Print, once each, the losses judged so far of @kind (IPI_EVIDENCE_KINDS:
 * every kind), oldest first; @examined[cpu] is how far every record of
 * that CPU has been printed.
 */
static unsigned int print_losses(const char *prefix, enum ipi_evidence_kind kind)
{
	static unsigned long examined[MAX_CPUS];
	unsigned int printed = 0;

	probe_uncovered_at_the_end();
	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++) {
		struct evidence_cpu *target = &evidence_cpus[cpu];
		unsigned long losses = __atomic_load_n(&target->losses, __ATOMIC_ACQUIRE);

		if (losses - examined[cpu] > LOSSES_KEPT) {
			kprintf("%sLOST: %lu more on cpu %u, not kept\n", prefix,
				losses - examined[cpu] - LOSSES_KEPT, cpu);
			printed += losses - examined[cpu] - LOSSES_KEPT;
			examined[cpu] = losses - LOSSES_KEPT;
		}
		for (unsigned long i = examined[cpu]; i < losses; i++) {
			struct evidence_loss *loss = &target->loss[i % LOSSES_KEPT];

			if (loss->printed || (kind != IPI_EVIDENCE_KINDS && loss->kind != kind))
				continue;
			print_loss(prefix, cpu, loss);
			loss->printed = true;
			printed++;
		}
		while (examined[cpu] < losses && target->loss[examined[cpu] % LOSSES_KEPT].printed)
			examined[cpu]++;
	}
	return printed;
}

unsigned int ipi_evidence_take_losses(enum ipi_evidence_kind kind, const char *prefix)
{
	return print_losses(prefix, kind);
}

unsigned int ipi_evidence_report_losses(const char *prefix)
{
	unsigned int printed = print_losses(prefix, IPI_EVIDENCE_KINDS);

	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++) {
		struct evidence_cpu *target = &evidence_cpus[cpu];
		uint64_t late = __atomic_load_n(&target->late_max_cycles, __ATOMIC_RELAXED);

		if (cycles_to_ns(late) >= LATE_NOTE_NS && late != target->late_reported_cycles) {
			kprintf("%slate: cpu %u took a %s from cpu %u %llu ms after its send (a vCPU "
				"not run, or interrupts off; not a failure)\n", prefix, cpu,
				ipi_evidence_kind_name(target->late_kind), target->late_sender,
				(unsigned long long)(cycles_to_ns(late) / 1000000));
			target->late_reported_cycles = late;
		}
	}
	return printed;
}

void ipi_evidence_report(const char *prefix)
{
	static unsigned long reported_losses, reported_nmi_probes;
	unsigned long probes = __atomic_load_n(&nmi_probes, __ATOMIC_RELAXED);
	uint64_t largest = 0;
	unsigned int largest_cpu = 0;
	unsigned long losses = ipi_evidence_losses(), lates = 0;

	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++) {
		struct evidence_cpu *target = &evidence_cpus[cpu];
		uint64_t late = __atomic_load_n(&target->late_max_cycles, __ATOMIC_RELAXED);

		lates += __atomic_load_n(&target->late_count, __ATOMIC_RELAXED);
		if (late > largest) {
			largest = late;
			largest_cpu = cpu;
		}
		/* Each suite's summary gives its own largest gap. */
		__atomic_store_n(&target->late_max_cycles, 0, __ATOMIC_RELAXED);
		target->late_reported_cycles = 0;
		__atomic_store_n(&target->late_count, 0, __ATOMIC_RELAXED);
	}
	kprintf("%sipi evidence: lost %lu; largest gap from a send to its arrival %llu.%03llu ms "
		"(%s to cpu %u from cpu %u); %lu arrivals later than %llu ms\n", prefix,
		losses - reported_losses, (unsigned long long)(cycles_to_ns(largest) / 1000000),
		(unsigned long long)(cycles_to_ns(largest) / 1000 % 1000),
		ipi_evidence_kind_name(evidence_cpus[largest_cpu].late_kind), largest_cpu,
		evidence_cpus[largest_cpu].late_sender, lates,
		(unsigned long long)(LATE_NOTE_NS / 1000000));
	reported_losses = losses;
	if (probes != reported_nmi_probes)
		kprintf("%sipi evidence: %lu wake NMIs found unclaimed, their targets sent an NMI: "
			"lost or late cannot be told for an interrupts-off halt (not judged)\n",
			prefix, probes - reported_nmi_probes);
	reported_nmi_probes = probes;
}

void ipi_evidence_init(void)
{
	if (!interrupt_register(VECTOR_PROBE, probe_interrupt))
		ktap_note("ipi evidence: vector 0x%x is taken: no probes, untimed waits unjudged",
			  VECTOR_PROBE);
}

/* --- Test-only losses (the one seam: ipi_evidence_should_lose()) ---------------------------- */

/*
 * test_lose_wake_ipi=N, test_lose_wake_nmi=N, test_lose_call_ipi=N: every
 * Nth send of that kind, per sender, vanishes after its ICR write would
 * have completed, as on a chipset or hypervisor that drops IPIs: the
 * sender stamps and counts it as sent.  The run must fail naming the loss
 * (tests/matrix.cfg, lose-*).  Never for real runs.
 */
static bool parse_lose(const struct cmdline_word *word, const char **error,
		       enum ipi_evidence_kind kind)
{
	return option_parse_number(word, error, 2, 1000000, &lose_every[kind]);
}

static bool parse_lose_wake_ipi(const struct cmdline_word *word, const char **error)
{
	return parse_lose(word, error, IPI_EVIDENCE_WAKE);
}
KERNEL_OPTION(test_lose_wake_ipi, "N, 2..1000000: lose every Nth wake IPI (the run must fail)",
	      parse_lose_wake_ipi);

static bool parse_lose_wake_nmi(const struct cmdline_word *word, const char **error)
{
	return parse_lose(word, error, IPI_EVIDENCE_NMI);
}
KERNEL_OPTION(test_lose_wake_nmi, "N, 2..1000000: lose every Nth wake NMI (test only)",
	      parse_lose_wake_nmi);

static bool parse_lose_call_ipi(const struct cmdline_word *word, const char **error)
{
	return parse_lose(word, error, IPI_EVIDENCE_CALL);
}
KERNEL_OPTION(test_lose_call_ipi, "N, 2..1000000: lose every Nth call IPI (the run must fail)",
	      parse_lose_call_ipi);
