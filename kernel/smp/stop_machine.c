// SPDX-License-Identifier: MIT
/*
 * stop_machine (stop_machine.h): the state machine every online CPU steps
 * through, driven by an acknowledgement counter.
 */
#include <cpu/cpu.h>
#include <sync/irq.h>
#include <log/log.h>
#include <smp/smp.h>
#include <smp/smp_call.h>
#include <sync/spinlock.h>
#include <smp/stop_machine.h>
#include <smp/smp_test_seams.h>
#include <sync/trigger.h>
#include <sync/trigger_backend.h>
#include <arch/ipi_evidence.h>
#include <time/time.h>
#include <lib/format.h>

enum stop_machine_state {
	STOPMACHINE_NONE,	/* where each CPU starts */
	STOPMACHINE_PREPARE,	/* arrive */
	STOPMACHINE_DISABLE_IRQ,
	STOPMACHINE_RUN,
	STOPMACHINE_EXIT,
	STOPMACHINE_DONE,	/* the last EXIT ack: nobody touches the data again */
};

static const char *const state_names[] = {
	[STOPMACHINE_NONE] = "NONE",
	[STOPMACHINE_PREPARE] = "PREPARE",
	[STOPMACHINE_DISABLE_IRQ] = "DISABLE_IRQ",
	[STOPMACHINE_RUN] = "RUN",
	[STOPMACHINE_EXIT] = "EXIT",
	[STOPMACHINE_DONE] = "DONE",
};

/* One stop_machine, on its caller's stack: the others reach it through their call. */
struct stop_machine_data {
	stop_machine_fn_t fn;
	void *data;
	struct cpumask run_on;		/* where fn runs */
	struct cpumask taking_part;	/* every CPU in the machine, the caller too */
	unsigned int threads;		/* how many that is */
	int ack;			/* CPUs yet to acknowledge the current state */
	int state;			/* enum stop_machine_state */
	int result;			/* OR of fn's return values */
	bool reported;			/* a stuck report is out */
	unsigned int caller;		/* the CPU that called stop_machine() */
	uint8_t acked[MAX_CPUS];	/* the last state each CPU acknowledged */
};

static DEFINE_SPINLOCK(stop_machine_lock);
static uint64_t stuck_deadline_ns = STOP_MACHINE_STUCK_DEADLINE_NS;
static struct stop_machine_stats stats;

/*
 * All CPUs wait for a state change on one trigger, as in the trigger patch (one
 * stop_machine runs at a time).  It is static, not in @smd: the kick after
 * the last state change may come after the caller has returned.
 */
DEFINE_TRIGGER_USER(trigger_user_stop_machine, "stop_machine");
static DEFINE_TRIGGER_FOR(stop_machine_trigger, &trigger_user_stop_machine);

static void set_state(struct stop_machine_data *smd, int new_state)
{
	/* Reset the ack first: CPUs may ack the new state as soon as they see it. */
	__atomic_store_n(&smd->ack, (int)smd->threads, __ATOMIC_RELAXED);
	__atomic_store_n(&smd->state, new_state, __ATOMIC_RELEASE);
	if (stop_machine_test_seam(STOP_MACHINE_TEST_KICK))	/* the one test seam */
		trigger_kick(&stop_machine_trigger);
}

/* Last one to ack a state moves to the next state. */
static void ack_state(struct stop_machine_data *smd)
{
	/*
	 * Acquire and release: the last acker has seen every CPU's work for
	 * this state (fn's results included) before it publishes the next.
	 */
	if (__atomic_sub_fetch(&smd->ack, 1, __ATOMIC_ACQ_REL) == 0)
		set_state(smd, __atomic_load_n(&smd->state, __ATOMIC_RELAXED) + 1);
}

static void report_stuck(struct stop_machine_data *smd, int state, uint64_t waited)
{
	char late[128];
	size_t used = 0;
	unsigned int cpu;

	late[0] = '\0';
	cpumask_clear(&stats.last_late);	/* complete before the report is counted */
	for_each_cpu(cpu, &smd->taking_part) {
		if (__atomic_load_n(&smd->acked[cpu], __ATOMIC_RELAXED) >= state)
			continue;
		cpumask_set_cpu(&stats.last_late, cpu);
		if (used + 8 >= sizeof(late)) {
			snprintf(late + used, sizeof(late) - used, "...");
			break;
		}
		used += (size_t)snprintf(late + used, sizeof(late) - used, "%s%u", used ? "," : "",
					 cpu);
	}
	__atomic_fetch_add(&stats.stuck_reports, 1, __ATOMIC_RELEASE);
	ktap_note("stop_machine: cpu %u has waited %llu ms after %s for cpus %s (interrupts "
		  "disabled elsewhere?)", cpu_id(),
		  (unsigned long long)(cycles_to_ns(waited) / 1000000), state_names[state],
		  late[0] ? late : "(none: about to move on, or its kick did not wake this CPU)");
}

/*
 * Probe the CPUs that have not acknowledged @state (ipi_evidence.h): one
 * halted on a wake NMI that never came is sent an NMI, which ends its halt.
 */
static void probe_late_cpus(struct stop_machine_data *smd, int state)
{
	unsigned int cpu;

	for_each_cpu(cpu, &smd->taking_part) {
		if (cpu != cpu_id() && __atomic_load_n(&smd->acked[cpu], __ATOMIC_RELAXED) < state)
			ipi_evidence_probe(cpu);
	}
}

/*
 * Wait until the state is no longer @state and return the new one: the one
 * place a CPU waits in stop_machine, converted as the trigger patch converts
 * its stop_machine loop.  Every CPU sleeps until the kick of the state
 * change (set_state), interrupts off or not (the hlt backend halts for an
 * NMI then).  The caller alone has a bound, the stuck deadline, in every
 * state to the end: reaching it the first time, it names the CPUs that
 * have not acknowledged (one report per stop_machine); each time, it
 * probes them (ipi_evidence_probe()).  The deadline decides nothing:
 * whether a wake-up that did not come in time was lost or late is the
 * evidence's to judge (ipi_evidence.h); the probe gives that evidence, and
 * ends a halt whose wake NMI never came.  Nobody else can: every other CPU,
 * the watchdog's (whose tick sweeps) among them, waits here with
 * interrupts off, so a caller that stopped watching after a report would
 * leave a wake NMI lost in a later state - or its own - to halt the
 * machine for good.  With interrupts off a timed wait cannot halt (the
 * timer cannot raise an NMI), so the caller looks rather than sleeps: a
 * wake NMI to it that never came costs nothing.
 */
static int stop_machine_wait_for_change(struct stop_machine_data *smd, int state)
{
	uint64_t since = cycles();
	uint64_t deadline = now_ns() + __atomic_load_n(&stuck_deadline_ns, __ATOMIC_RELAXED);
	bool watching = cpu_id() == smd->caller;
	int now;

	trigger_reset(&stop_machine_trigger);
	/* Re-read the state each time (acquire: the last acker's stores). */
	while ((now = __atomic_load_n(&smd->state, __ATOMIC_ACQUIRE)) == state) {
		if (!watching) {
			trigger_wait(&stop_machine_trigger);
		} else if (!trigger_wait_timeout(&stop_machine_trigger, deadline)) {
			if (!__atomic_exchange_n(&smd->reported, true, __ATOMIC_ACQ_REL))
				report_stuck(smd, state, cycles() - since);
			probe_late_cpus(smd, state);
			deadline = now_ns() + __atomic_load_n(&stuck_deadline_ns, __ATOMIC_RELAXED);
		}
	}
	trigger_finish(&stop_machine_trigger);
	return now;
}

/* Every CPU's part: the caller's directly, the others' from their call IPI. */
static void stop_machine_cpu(struct stop_machine_data *smd)
{
	unsigned int me = cpu_id();
	bool enabled = irqs_enabled();
	int state = STOPMACHINE_NONE;

	if (me != smd->caller)
		stop_machine_test_seam(STOP_MACHINE_TEST_JOIN);	/* its other point */
	/* Simple state machine */
	do {
		state = stop_machine_wait_for_change(smd, state);
		switch (state) {
		case STOPMACHINE_DISABLE_IRQ:
			enabled = local_irq_save();
			break;
		case STOPMACHINE_RUN:
			/* OR: several CPUs may run fn, and any error must survive. */
			if (cpumask_test_cpu(&smd->run_on, me))
				__atomic_fetch_or(&smd->result, smd->fn(smd->data),
						  __ATOMIC_RELAXED);
			break;
		default:
			break;
		}
		__atomic_store_n(&smd->acked[me], (uint8_t)state, __ATOMIC_RELAXED);
		ack_state(smd);
	} while (state != STOPMACHINE_EXIT);
	/* Nothing of @smd may be touched from here: the caller may be gone. */
	local_irq_restore(enabled);
}

static void stop_machine_call(void *info)
{
	stop_machine_cpu(info);
}

/*
 * One stop_machine at a time.  A CPU waiting here must still join the one
 * that runs (it needs every CPU): with interrupts enabled its call IPI gets
 * in; with them disabled, this CPU runs its queued calls itself.
 */
static void stop_machine_lock_acquire(void)
{
	while (!spin_trylock(&stop_machine_lock)) {
		if (!irqs_enabled())
			smp_call_poll();
		cpu_relax();
	}
}

static int refuse(int status, const char *reason)
{
	__atomic_fetch_add(&stats.refused, 1, __ATOMIC_RELAXED);
	ktap_note("stop_machine: cpu %u: refused: %s", cpu_id(), reason);
	return status;
}

int stop_machine(stop_machine_fn_t fn, void *data, const struct cpumask *run_on)
{
	struct stop_machine_data smd = { .fn = fn, .data = data };
	struct cpumask online, others;
	unsigned int me;
	int status;

	if (smp_call_in_handler())
		return refuse(SMP_CALL_WOULD_DEADLOCK,
			      "called from an IPI handler or a call, with interrupts disabled "
			      "while other CPUs may be waiting for this one");
	stop_machine_lock_acquire();
	me = cpu_id();
	smd.caller = me;
	cpumask_set_online(&online);
	if (run_on && !cpumask_subset(run_on, &online)) {
		spin_unlock(&stop_machine_lock);
		return refuse(SMP_CALL_NO_SUCH_CPU, "the CPU set names a CPU that is not online");
	}
	smd.run_on = run_on ? *run_on : online;
	smd.taking_part = online;
	smd.threads = cpumask_weight(&online);
	others = online;
	cpumask_clear_cpu(&others, me);

	set_state(&smd, STOPMACHINE_PREPARE);
	status = smp_call_function_many(&others, stop_machine_call, &smd, false);
	if (status != SMP_CALL_OK) {
		/* Nothing was queued (the checks come first): nobody else is in. */
		spin_unlock(&stop_machine_lock);
		return refuse(status, smp_call_status_name(status));
	}
	/*
	 * The caller's own part as a call to itself: it runs at once, with
	 * interrupts disabled and as a call, like everyone else's, so that fn
	 * sees the same context on every CPU (calls from it are refused).
	 */
	smp_call_function_single(me, stop_machine_call, &smd, false);
	/* The others may still be acking EXIT: the data lives until DONE. */
	stop_machine_wait_for_change(&smd, STOPMACHINE_EXIT);
	__atomic_fetch_add(&stats.rounds, 1, __ATOMIC_RELAXED);
	spin_unlock(&stop_machine_lock);
	return __atomic_load_n(&smd.result, __ATOMIC_RELAXED);
}

void stop_machine_stats_read(struct stop_machine_stats *out)
{
	out->rounds = __atomic_load_n(&stats.rounds, __ATOMIC_RELAXED);
	out->stuck_reports = __atomic_load_n(&stats.stuck_reports, __ATOMIC_RELAXED);
	out->refused = __atomic_load_n(&stats.refused, __ATOMIC_RELAXED);
	/* After a report is counted, its set is complete (acquire pairs with the count). */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	out->last_late = stats.last_late;
}

uint64_t stop_machine_set_stuck_deadline(uint64_t nanoseconds)
{
	return __atomic_exchange_n(&stuck_deadline_ns, nanoseconds, __ATOMIC_ACQ_REL);
}
