// SPDX-License-Identifier: MIT
/*
 * Cross-CPU function calls (smp_call.h): per-caller pools of call
 * descriptors, per-target lock-free queues, one IPI vector.
 *
 * A descriptor's life: its owner (the calling CPU) takes a free one from
 * its own pool, fills it in, marks it pending and pushes it onto the
 * target's queue; the target takes the whole queue at once, runs each call
 * and clears the pending flag, after which the owner may reuse it.  Only
 * the owner ever takes descriptors from its pool, so the pool needs no lock;
 * the owner does so with interrupts disabled, so an interrupt handler on the
 * same CPU cannot take one in the middle.
 */
#include <cpu/cpu.h>
#include <arch/ipi.h>
#include <arch/ipi_evidence.h>
#include <sync/irq.h>
#include <log/log.h>
#include <mm/memory.h>
#include <smp/smp.h>
#include <smp/smp_call.h>
#include <smp/smp_test_seams.h>
#include <sync/trigger.h>
#include <sync/trigger_backend.h>
#include <sync/poll_wait.h>
#include <log/symbols.h>
#include <time/time.h>

#define CSD_FLAG_PENDING	(1u << 0)	/* queued or running: not to be reused */
#define CSD_FLAG_WAIT		(1u << 1)	/* the caller waits for it (reports only) */

/* One queued call; a cache line each, so that CPUs running calls do not share lines. */
struct call_single_data {
	struct call_single_data *next;	/* in the target's queue */
	smp_call_func_t function;
	void *info;
	uint32_t flags;			/* CSD_FLAG_*; the target clears PENDING */
	uint16_t source;		/* the owner */
	uint16_t target;
	uint64_t request;		/* owner only: the call it belongs to */
	uint64_t queued_cycles;		/* TSC when queued: how long, in a stuck report */
	/*
	 * Per call, not per CPU: the calls queued in this descriptor (owner
	 * only) and the kicks their targets made for them (after the kick, by
	 * the target).  A kick lost for one call cannot be made up by another
	 * call's: only this descriptor's next call, whose kick comes once it
	 * was queued, can add here.
	 */
	uint64_t uses;
	uint64_t kicked;
} __attribute__((aligned(64)));

/*
 * A pool holds at least twice as many descriptors as there are CPUs, so
 * that one call to every other CPU never fills it alone.  That matters for
 * stop_machine, whose calls all finish only once every CPU has joined: had
 * its caller to wait for one of them to free a descriptor for the next, it
 * would wait forever.  (A full pool waits for its oldest call, which is
 * then one of an earlier request.)
 */
#define CALL_POOL_MIN		64u

#define CSDS_PER_PAGE		(PAGE_SIZE / sizeof(struct call_single_data))
_Static_assert(MAX_CPUS <= 65536, "source and target fit in 16 bits");

/* The calls waiting for one CPU: the newest first, pushed by anyone. */
struct call_queue {
	struct call_single_data *head;
} __attribute__((aligned(64)));

/* What one CPU owns as a caller and as a target. */
struct call_cpu {
	struct call_single_data *pool;	/* allocated on first use */
	unsigned int pool_size;
	unsigned int cursor;		/* where the search for a free one starts */
	unsigned int depth;		/* calls running here (an IPI may nest in a poll) */
	uint64_t next_request;
	struct smp_call_stats stats;
} __attribute__((aligned(64)));

static struct call_queue call_queues[MAX_CPUS];
static struct call_cpu call_cpus[MAX_CPUS];
static uint64_t stuck_deadline_ns = SMP_CALL_STUCK_DEADLINE_NS;
static bool drop_next_ipi;

enum { CALL_UNINITIALISED, CALL_INITIALISING, CALL_READY };
static int init_state;

static struct call_cpu *this_call_cpu(void)
{
	return &call_cpus[cpu_id()];
}

/* A locked add: the thread and an IPI handler on the same CPU both count. */
static void count(uint64_t *counter)
{
	__atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}

const char *smp_call_status_name(int status)
{
	switch (status) {
	case SMP_CALL_OK:
		return "done";
	case SMP_CALL_NO_SUCH_CPU:
		return "no such online CPU";
	case SMP_CALL_WOULD_DEADLOCK:
		return "refused: it could deadlock";
	case SMP_CALL_NO_MEMORY:
		return "no memory for the call descriptors";
	default:
		return "unknown status";
	}
}

/* --- The target's side ----------------------------------------------------- */

/*
 * Each CPU waits for its calls on a trigger of its own.  The trigger patch's
 * conversion kicks a trigger inside the call data after clearing the flag,
 * when the waiter may already have returned and reused that data; here the
 * target reads which CPU owns the call first, clears the flag, and kicks
 * the owner's per-CPU trigger, which outlives every call.
 */
DEFINE_TRIGGER_USER(trigger_user_call_completion, "call_completion");
static trigger_t call_wait_triggers[MAX_CPUS] = {
	[0 ... MAX_CPUS - 1] = { .user = &trigger_user_call_completion },
};

static void csd_complete(struct call_single_data *csd, bool kick)
{
	trigger_t *owner_trigger = &call_wait_triggers[csd->source];

	/*
	 * Release: fn's stores are visible to a waiter that sees the flag
	 * clear.  The owner may reuse @csd at once: after this only its kick
	 * count is touched, which the owner never writes (and the pool lives
	 * as long as the kernel).
	 */
	__atomic_store_n(&csd->flags, 0, __ATOMIC_RELEASE);
	if (!kick)
		return;
	trigger_kick(owner_trigger);
	__atomic_fetch_add(&csd->kicked, 1, __ATOMIC_RELEASE);
}

/* Run every call queued for this CPU; interrupts are disabled. */
static void call_queue_run(bool polled)
{
	unsigned int me = cpu_id();
	struct call_cpu *self = &call_cpus[me];
	struct call_single_data *list, *next, *oldest_first = NULL;

	/* Acquire: pairs with the pushers' release, so each call's fields are seen. */
	list = __atomic_exchange_n(&call_queues[me].head, NULL, __ATOMIC_ACQUIRE);
	if (!list)
		return;
	/* The stack holds the newest first: run them in the order they were queued. */
	for (; list; list = next) {
		next = list->next;
		list->next = oldest_first;
		oldest_first = list;
	}
	self->depth++;
	for (list = oldest_first; list; list = next) {
		smp_call_func_t function = list->function;
		void *info = list->info;
		bool kick;

		next = list->next;
		if (!(__atomic_load_n(&list->flags, __ATOMIC_RELAXED) & CSD_FLAG_PENDING) ||
		    list->target != me) {
			/* Run twice, or queued for another CPU: a bug; never run it again. */
			count(&self->stats.errors);
			continue;
		}
		/* The one test seam (smp/smp_test_seams.h): may hold, may drop the kick. */
		kick = smp_call_test_seam(list->source,
					  __atomic_load_n(&list->flags, __ATOMIC_RELAXED) & CSD_FLAG_WAIT,
					  function);
		function(info);
		count(&self->stats.run);
		if (polled)
			count(&self->stats.polled);
		csd_complete(list, kick);
	}
	self->depth--;
}

static void call_function_interrupt(void)
{
	/* Before the queue is taken: the calls of every send it covers are in it. */
	ipi_evidence_arrived(IPI_EVIDENCE_CALL);
	count(&this_call_cpu()->stats.ipis_taken);
	call_queue_run(false);
}

void smp_call_init(void)
{
	int expected = CALL_UNINITIALISED;

	if (__atomic_load_n(&init_state, __ATOMIC_ACQUIRE) == CALL_READY)
		return;
	if (!__atomic_compare_exchange_n(&init_state, &expected, CALL_INITIALISING, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		while (__atomic_load_n(&init_state, __ATOMIC_ACQUIRE) != CALL_READY)
			cpu_relax();
		return;
	}
	if (!ipi_register(IPI_VECTOR_CALL_FUNCTION, call_function_interrupt))
		ktap_note("smp_call: vector 0x%x is taken; cross-CPU calls will not run",
			  IPI_VECTOR_CALL_FUNCTION);
	__atomic_store_n(&init_state, CALL_READY, __ATOMIC_RELEASE);
}

bool smp_call_in_handler(void)
{
	return ipi_in_handler() || this_call_cpu()->depth != 0;
}

void smp_call_poll(void)
{
	bool enabled;

	if (smp_call_in_handler())
		return;
	enabled = local_irq_save();
	call_queue_run(true);
	local_irq_restore(enabled);
}

/* --- Waiting ---------------------------------------------------------------- */

struct call_watch {
	uint64_t deadline_cycles;
	bool reported;
	bool irqs_were_enabled;		/* before trigger_reset() disabled them */
};

static struct call_watch call_watch_start(void)
{
	return (struct call_watch){
		.deadline_cycles = ns_to_cycles(__atomic_load_n(&stuck_deadline_ns,
								__ATOMIC_RELAXED)),
		.irqs_were_enabled = irqs_enabled(),
	};
}

static bool csd_pending(struct call_single_data *csd)
{
	/* Acquire: once it reads clear, the target's last use of it is over. */
	return __atomic_load_n(&csd->flags, __ATOMIC_ACQUIRE) & CSD_FLAG_PENDING;
}

/*
 * The stuck-call deadline has passed: say so.  A call still @pending (as
 * its waiter found it at the deadline) gets its target probed: the probe's
 * handler judges whether the call IPI was lost or is only late
 * (ipi_evidence.h) - never sent again, which would hide a loss.  One that
 * has run (its flag clear) left a waiter its kick did not wake: the
 * evidence of the wait's return judged its wake-up already.
 */
static void report_stuck(struct call_single_data *csd, uint64_t waited, bool pending)
{
	char name[96];

	count(&this_call_cpu()->stats.stuck_reports);
	symbol_format((uint64_t)csd->function, name, sizeof(name));
	if (!pending) {
		ktap_note("smp_call: cpu %u: woke at the stuck-call deadline (%llu ms) for the call "
			  "of %s on cpu %u, which had run: its kick did not wake this CPU",
			  cpu_id(), (unsigned long long)(cycles_to_ns(waited) / 1000000), name,
			  csd->target);
		return;
	}
	ktap_note("smp_call: cpu %u: the call of %s on cpu %u is not done after %llu ms; "
		  "probing cpu %u", cpu_id(), name, csd->target,
		  (unsigned long long)(cycles_to_ns(waited) / 1000000), csd->target);
	ipi_evidence_probe(csd->target);
}

/* A waiter with interrupts disabled, between two looks at its call's flag. */
static void call_watch(struct call_watch *watch, struct call_single_data *csd)
{
	uint64_t waited;

	/*
	 * It cannot take the IPIs of CPUs that may be waiting for it in turn:
	 * it runs their calls itself.
	 */
	call_queue_run(true);
	if (watch->reported)
		return;
	waited = cycles() - csd->queued_cycles;
	if (waited < watch->deadline_cycles)
		return;
	watch->reported = true;
	report_stuck(csd, waited, csd_pending(csd));
}

/* The stuck-call deadline of @csd, as a now_ns() value. */
static uint64_t stuck_deadline_ns_of(const struct call_watch *watch,
				      const struct call_single_data *csd)
{
	uint64_t due = csd->queued_cycles + watch->deadline_cycles, now = cycles();

	return now_ns() + (due > now ? cycles_to_ns(due - now) : 0);
}

/*
 * Wait until @csd's call has run: the one place a caller waits for a call
 * (the trigger patch converts its csd_flag_wait() the same way).  The caller
 * sleeps until the target's kick (csd_complete), with one bound, the
 * stuck-call deadline counted from when the call was queued: reaching it
 * is reported (report_stuck), then the caller waits on, untimed.  The
 * deadline is no verdict: whether the call's IPI or the kick's wake-up was
 * lost or is late is the evidence's to judge (ipi_evidence.h), from the
 * probe report_stuck() sends and from this wait's returns.
 *
 * A caller with interrupts disabled (a no-wait caller whose pool is full)
 * cannot sleep: CPUs waiting for it in turn would wait for ever for it to
 * take their IPIs.  It looks at its flag and runs its own queue in turn,
 * outside the trigger (call_watch).
 */
static void csd_flag_wait(struct call_single_data *csd)
{
	struct call_watch watch = call_watch_start();
	trigger_t *trigger = &call_wait_triggers[cpu_id()];

	if (!watch.irqs_were_enabled) {
		struct poll_pace pace;

		poll_pace_begin(&pace);
		while (csd_pending(csd)) {
			call_watch(&watch, csd);
			poll_pace_relax(&pace);
		}
		return;
	}
	trigger_reset(trigger);
	/* Acquire: pairs with csd_complete(), so fn's stores are seen. */
	while (csd_pending(csd)) {
		if (watch.reported) {
			trigger_wait(trigger);
		} else if (!trigger_wait_timeout(trigger, stuck_deadline_ns_of(&watch, csd))) {
			watch.reported = true;
			report_stuck(csd, cycles() - csd->queued_cycles, csd_pending(csd));
		}
	}
	trigger_finish(trigger);
}

/* --- The caller's side ------------------------------------------------------ */

static bool call_refused(const char *api, smp_call_func_t function, bool wait)
{
	const char *reason;
	char name[96];

	if (smp_call_in_handler())
		reason = "called from an IPI handler or a call: interrupts are disabled there, "
			 "so CPUs calling this one meanwhile are not served";
	else if (wait && !irqs_enabled())
		reason = "interrupts are disabled and wait is set: a CPU calling this one "
			 "meanwhile would wait forever for it to take its IPI";
	else
		return false;
	count(&this_call_cpu()->stats.refused);
	ktap_note("smp_call: cpu %u: %s(%s) refused, %s", cpu_id(), api,
		  symbol_format((uint64_t)function, name, sizeof(name)), reason);
	return true;
}

/* cpu_is_online() comes from smp.h. */

static void call_run_local(smp_call_func_t function, void *info)
{
	struct call_cpu *self = this_call_cpu();
	bool enabled = local_irq_save();

	/* As on a target: interrupts disabled, and calls from fn refused. */
	self->depth++;
	function(info);
	self->depth--;
	count(&self->stats.local);
	local_irq_restore(enabled);
}

static bool call_pool_ready(struct call_cpu *self)
{
	unsigned int wanted = 2 * cpus_present(), pages;

	if (self->pool)
		return true;
	if (wanted < CALL_POOL_MIN)
		wanted = CALL_POOL_MIN;
	pages = (wanted + CSDS_PER_PAGE - 1) / CSDS_PER_PAGE;
	self->pool = pages_alloc(pages);
	if (!self->pool)
		return false;
	self->pool_size = (unsigned int)(pages * CSDS_PER_PAGE);
	return true;
}

/* Send the call IPI to every CPU of @kick, and empty it. */
static void call_kick(struct call_cpu *self, struct cpumask *kick)
{
	unsigned int weight = cpumask_weight(kick), cpu;
	struct cpumask sent = *kick;

	if (weight == 0)
		return;
	for_each_cpu(cpu, &sent) {
		ipi_evidence_send_begin(IPI_EVIDENCE_CALL, cpu);
		if (ipi_evidence_should_lose(IPI_EVIDENCE_CALL, cpu)) {
			/* test_lose_call_ipi=N: it vanishes, but its sender counts it sent. */
			cpumask_clear_cpu(kick, cpu);
			weight--;
		}
	}
	if (weight && __atomic_exchange_n(&drop_next_ipi, false, __ATOMIC_ACQ_REL)) {
		/* A test's lost IPI: the first CPU's never goes out. */
		cpumask_clear_cpu(kick, cpumask_first(kick));
		count(&self->stats.dropped_ipis);
		weight--;
	}
	/*
	 * The all-excluding-self shorthand is one ICR write for any number of
	 * CPUs; for one CPU a unicast is as cheap (and measured three times
	 * faster under QEMU TCG, whose shorthand path is slow: bench_ipi).
	 */
	if (weight >= 2 && weight + 1 == cpus_online() && !cpumask_test_cpu(kick, cpu_id()) &&
	    ipi_shorthand_usable()) {
		ipi_send_allbutself(IPI_VECTOR_CALL_FUNCTION);
		count(&self->stats.ipis_sent);
	} else if (weight) {
		ipi_send_mask(kick, IPI_VECTOR_CALL_FUNCTION);
		for (unsigned int i = 0; i < weight; i++)
			count(&self->stats.ipis_sent);
	}
	/* After the ICR writes completed: each target's send count and post-ICR stamp. */
	for_each_cpu(cpu, &sent)
		ipi_evidence_sent(IPI_EVIDENCE_CALL, cpu);
	cpumask_clear(kick);
}

/*
 * A free descriptor of the caller's pool.  When every one is still in
 * flight, wait for the oldest: it belongs to an earlier request (see
 * CALL_POOL_MIN).  The IPIs of calls queued so far (still in @kick) go out
 * first, or that wait could be for a call whose target was never told.
 */
static struct call_single_data *csd_get(struct call_cpu *self, struct cpumask *kick)
{
	struct call_single_data *csd, *oldest;

	for (unsigned int tries = 0; tries < self->pool_size; tries++) {
		csd = &self->pool[self->cursor];
		self->cursor = (self->cursor + 1) % self->pool_size;
		if (!csd_pending(csd))
			return csd;
	}
	if (kick)
		call_kick(self, kick);
	oldest = &self->pool[0];
	for (unsigned int i = 1; i < self->pool_size; i++) {
		if (self->pool[i].queued_cycles < oldest->queued_cycles)
			oldest = &self->pool[i];
	}
	csd_flag_wait(oldest);
	return oldest;
}

/* Fill @csd in and queue it for @target; true if the queue was empty (it needs an IPI). */
static bool call_queue(struct call_cpu *self, struct call_single_data *csd, unsigned int target,
		       smp_call_func_t function, void *info, uint64_t request, bool wait)
{
	struct call_queue *queue = &call_queues[target];
	struct call_single_data *head;

	csd->function = function;
	csd->info = info;
	csd->source = (uint16_t)cpu_id();
	csd->target = (uint16_t)target;
	__atomic_store_n(&csd->request, request, __ATOMIC_RELAXED);
	csd->queued_cycles = cycles();
	__atomic_store_n(&csd->uses, csd->uses + 1, __ATOMIC_RELAXED);
	__atomic_store_n(&csd->flags, CSD_FLAG_PENDING | (wait ? CSD_FLAG_WAIT : 0),
			 __ATOMIC_RELAXED);
	count(&self->stats.queued);

	head = __atomic_load_n(&queue->head, __ATOMIC_RELAXED);
	do {
		csd->next = head;
		/*
		 * Release: the target, which takes the queue with acquire,
		 * sees the fields above and every store the caller made
		 * before the call.  Only pushes and take-alls touch the head,
		 * never a pop of one element, so there is no ABA problem.
		 */
	} while (!__atomic_compare_exchange_n(&queue->head, &head, csd, true, __ATOMIC_RELEASE,
					      __ATOMIC_RELAXED));
	return head == NULL;
}

int smp_call_function_single(unsigned int cpu, smp_call_func_t function, void *info, bool wait)
{
	struct call_cpu *self;
	struct call_single_data *csd;
	struct cpumask kick;
	bool enabled;

	smp_call_init();
	if (call_refused("smp_call_function_single", function, wait))
		return SMP_CALL_WOULD_DEADLOCK;
	if (!cpu_is_online(cpu))
		return SMP_CALL_NO_SUCH_CPU;
	if (cpu == cpu_id()) {
		call_run_local(function, info);
		return SMP_CALL_OK;
	}
	self = this_call_cpu();
	enabled = local_irq_save();
	if (!call_pool_ready(self)) {
		local_irq_restore(enabled);
		return SMP_CALL_NO_MEMORY;
	}
	csd = csd_get(self, NULL);
	cpumask_clear(&kick);
	if (call_queue(self, csd, cpu, function, info, ++self->next_request, wait))
		cpumask_set_cpu(&kick, cpu);
	call_kick(self, &kick);
	local_irq_restore(enabled);
	if (wait)
		csd_flag_wait(csd);
	return SMP_CALL_OK;
}

/* Queue @function for every CPU of @mask but the caller; the IPIs go out together. */
static int call_many_queue(const struct cpumask *mask, smp_call_func_t function, void *info,
			   bool wait, uint64_t *request)
{
	struct call_cpu *self = this_call_cpu();
	unsigned int me = cpu_id(), cpu;
	struct cpumask kick;
	bool enabled;

	for_each_cpu(cpu, mask) {
		if (!cpu_is_online(cpu))
			return SMP_CALL_NO_SUCH_CPU;
	}
	enabled = local_irq_save();
	if (!call_pool_ready(self)) {
		local_irq_restore(enabled);
		return SMP_CALL_NO_MEMORY;
	}
	*request = ++self->next_request;
	cpumask_clear(&kick);
	for_each_cpu(cpu, mask) {
		struct call_single_data *csd;

		if (cpu == me)
			continue;
		csd = csd_get(self, &kick);
		if (call_queue(self, csd, cpu, function, info, *request, wait))
			cpumask_set_cpu(&kick, cpu);
	}
	call_kick(self, &kick);
	local_irq_restore(enabled);
	return SMP_CALL_OK;
}

/* Wait for every call of @request (their descriptors carry its number). */
static void call_many_wait(uint64_t request)
{
	struct call_cpu *self = this_call_cpu();

	for (unsigned int i = 0; i < self->pool_size; i++) {
		struct call_single_data *csd = &self->pool[i];

		if (__atomic_load_n(&csd->request, __ATOMIC_RELAXED) == request)
			csd_flag_wait(csd);
	}
}

int smp_call_function_many(const struct cpumask *mask, smp_call_func_t function, void *info,
			   bool wait)
{
	uint64_t request;
	int status;

	smp_call_init();
	if (call_refused("smp_call_function_many", function, wait))
		return SMP_CALL_WOULD_DEADLOCK;
	status = call_many_queue(mask, function, info, wait, &request);
	if (status == SMP_CALL_OK && wait)
		call_many_wait(request);
	return status;
}

int smp_call_function(smp_call_func_t function, void *info, bool wait)
{
	struct cpumask others;
	uint64_t request;
	int status;

	smp_call_init();
	if (call_refused("smp_call_function", function, wait))
		return SMP_CALL_WOULD_DEADLOCK;
	cpumask_set_online(&others);
	cpumask_clear_cpu(&others, cpu_id());
	status = call_many_queue(&others, function, info, wait, &request);
	if (status == SMP_CALL_OK && wait)
		call_many_wait(request);
	return status;
}

int on_each_cpu(smp_call_func_t function, void *info, bool wait)
{
	struct cpumask others;
	uint64_t request;
	int status;

	smp_call_init();
	if (call_refused("on_each_cpu", function, wait))
		return SMP_CALL_WOULD_DEADLOCK;
	cpumask_set_online(&others);
	cpumask_clear_cpu(&others, cpu_id());
	status = call_many_queue(&others, function, info, wait, &request);
	if (status != SMP_CALL_OK)
		return status;
	/* The others are already at it while the caller runs its own part. */
	call_run_local(function, info);
	if (wait)
		call_many_wait(request);
	return SMP_CALL_OK;
}

/* --- Statistics and test hooks ---------------------------------------------- */

/* @owner's calls that ran (their descriptors are free) without their kick yet. */
static uint64_t calls_without_kick(const struct call_cpu *owner)
{
	uint64_t missing = 0;

	for (unsigned int i = 0; owner->pool && i < owner->pool_size; i++) {
		struct call_single_data *csd = &owner->pool[i];
		uint64_t kicked = __atomic_load_n(&csd->kicked, __ATOMIC_ACQUIRE);
		uint64_t uses = __atomic_load_n(&csd->uses, __ATOMIC_RELAXED);

		if (csd_pending(csd))
			uses--;		/* its call has not run: no kick due yet */
		if (uses > kicked)
			missing += uses - kicked;
	}
	return missing;
}

void smp_call_stats_read(struct smp_call_stats *stats)
{
	*stats = (struct smp_call_stats){ 0 };
	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++) {
		const struct smp_call_stats *c = &call_cpus[cpu].stats;

		stats->queued += __atomic_load_n(&c->queued, __ATOMIC_RELAXED);
		stats->ipis_sent += __atomic_load_n(&c->ipis_sent, __ATOMIC_RELAXED);
		stats->ipis_taken += __atomic_load_n(&c->ipis_taken, __ATOMIC_RELAXED);
		stats->run += __atomic_load_n(&c->run, __ATOMIC_RELAXED);
		stats->polled += __atomic_load_n(&c->polled, __ATOMIC_RELAXED);
		stats->local += __atomic_load_n(&c->local, __ATOMIC_RELAXED);
		stats->stuck_reports += __atomic_load_n(&c->stuck_reports, __ATOMIC_RELAXED);
		stats->refused += __atomic_load_n(&c->refused, __ATOMIC_RELAXED);
		stats->errors += __atomic_load_n(&c->errors, __ATOMIC_RELAXED);
		stats->dropped_ipis += __atomic_load_n(&c->dropped_ipis, __ATOMIC_RELAXED);
		stats->without_kick += calls_without_kick(&call_cpus[cpu]);
	}
}

uint64_t smp_call_set_stuck_deadline(uint64_t nanoseconds)
{
	return __atomic_exchange_n(&stuck_deadline_ns, nanoseconds, __ATOMIC_ACQ_REL);
}

void smp_call_test_drop_next_ipi(void)
{
	__atomic_store_n(&drop_next_ipi, true, __ATOMIC_RELEASE);
}
