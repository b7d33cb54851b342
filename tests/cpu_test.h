/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_TESTS_CPU_TEST_H
#define TRIGOS_TESTS_CPU_TEST_H
/*
 * Helpers for the suites that drive several CPUs at once (ipi, call_function,
 * stop_machine, scftorture and their benchmarks).
 *
 * Code that runs on a helper CPU through smp_run_on(), smp_run_on_async() or
 * cpu_test_run_everywhere() may EXPECT, ASSERT and test_skip(): an ASSERT or
 * skip ends that CPU's part only (its work slot completes) and marks the
 * case (harness/test.h).  In an IPI handler there is no such context: count
 * what went wrong in shared variables and check them in the case.
 */

#include <stdbool.h>
#include <stdint.h>
#include <cpu/cpu.h>
#include <sync/irq.h>
#include <smp/smp.h>
#include <harness/test.h>
#include <harness/watchdog.h>
#include <time/time.h>
#include <sync/poll_wait.h>
#include <asm/instructions.h>

#define CPU_TEST_TIMEOUT_NS	(5ull * 1000 * 1000 * 1000)

/*
 * How long a test waits for another CPU's answer to an IPI or an NMI before
 * it counts the answer as missing: longer than a host may keep a vCPU (or,
 * holding QEMU's global lock, the whole machine) from running - the
 * host-stall matrix sections stop one for 1.5-3 s - so that only a lost
 * interrupt reaches it.  An answer within it is never judged by its time.
 */
#define CPU_TEST_ANSWER_PATIENCE_NS	(10ull * 1000 * 1000 * 1000)

/*
 * A torture's time budget, counted only while this CPU is run.  A step of
 * more than CPU_TEST_NOT_RUN_NS between two looks at the clock is a host
 * that did not run this vCPU (or, holding QEMU's global lock, any), and is
 * left out: a 2 s host stall must not eat a 2 s budget and leave the
 * torture with nothing done.  The torture's own watchdog bound still holds.
 */
#define CPU_TEST_NOT_RUN_NS	(100ull * 1000 * 1000)

struct cpu_test_budget {
	uint64_t last, used, limit;
};

/** cpu_test_budget_start - a budget of @limit_ns of run time, from now */
static inline void cpu_test_budget_start(struct cpu_test_budget *budget, uint64_t limit_ns)
{
	*budget = (struct cpu_test_budget){ .last = now_ns(), .limit = limit_ns };
}

/** cpu_test_budget_spent - whether the run time since the start reached the limit */
static inline bool cpu_test_budget_spent(struct cpu_test_budget *budget)
{
	uint64_t now = now_ns(), step = now - budget->last;

	budget->last = now;
	if (step <= CPU_TEST_NOT_RUN_NS)
		budget->used += step;
	return budget->used >= budget->limit;
}

static inline bool cpu_test_online(unsigned int cpu)
{
	return cpu < cpus_present() && __atomic_load_n(&cpus[cpu].online, __ATOMIC_ACQUIRE);
}

/* A CPU other than this one, one without the watchdog's tick if there is one; -1: none. */
static inline int cpu_test_other_cpu(void)
{
	int found = -1;

	for (unsigned int i = 0; i < cpus_present(); i++) {
		if (i == cpu_id() || !cpu_is_online(i))
			continue;
		if ((int)i != watchdog_cpu())
			return (int)i;
		found = (int)i;
	}
	return found;
}

/**
 * cpu_test_wait_at_least - wait until *@counter >= @value; false after
 * @timeout_ns: the kernel's own poll (sync/poll_wait.h), PAUSE paced as there
 */
static inline bool cpu_test_wait_at_least(const uint64_t *counter, uint64_t value,
					  uint64_t timeout_ns)
{
	return poll_wait_at_least(counter, value, timeout_ns);
}

/** cpu_test_spin_ns - busy-wait about @nanoseconds, interrupts as they are */
static inline void cpu_test_spin_ns(uint64_t nanoseconds)
{
	uint64_t start = cycles(), limit = ns_to_cycles(nanoseconds);

	while (cycles() - start < limit)
		cpu_relax();
}

/* One cpu_test_run_everywhere() at a time (cases run one after another). */
struct cpu_test_everywhere {
	void (*function)(void *);
	void *argument;
	unsigned int expected;		/* CPUs taking part, less those that could not start */
	unsigned int arrived;
	uint64_t last_arrival;		/* cycles() of the last CPU to reach the start */
	uint64_t first_start;		/* cycles() when the first left it (0: none yet) */
	uint64_t timeout_cycles;
};

/*
 * Each CPU's part: wait at the start line until every taking part has
 * arrived (or the time-out), then run.  Starting the helpers one after the
 * other gave each a head start of one wake-up (under TCG, a whole time slice
 * of the host); the start line makes the parts overlap.
 */
static inline void cpu_test_everywhere_part(void *argument)
{
	struct cpu_test_everywhere *run = argument;
	uint64_t start = cycles(), now = start;
	unsigned int arrived = __atomic_add_fetch(&run->arrived, 1, __ATOMIC_ACQ_REL);

	if (arrived >= __atomic_load_n(&run->expected, __ATOMIC_ACQUIRE))
		__atomic_store_n(&run->last_arrival, start, __ATOMIC_RELEASE);
	while (__atomic_load_n(&run->arrived, __ATOMIC_ACQUIRE) <
	       __atomic_load_n(&run->expected, __ATOMIC_ACQUIRE)) {
		now = cycles();
		if (now - start > run->timeout_cycles)
			break;
		cpu_relax();
	}
	now = cycles();
	__atomic_compare_exchange_n(&run->first_start, &(uint64_t){ 0 }, now, false,
				    __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
	run->function(run->argument);
}

/* The last (and only running) cpu_test_run_everywhere(). */
static struct cpu_test_everywhere cpu_test_everywhere_run __attribute__((unused));

/**
 * cpu_test_run_everywhere - run @function(@argument) on every online CPU at
 * once, the caller included (inline, after starting the others); false if
 * some helper CPU could not be started or did not finish within @timeout_ns
 *
 * At once means overlapping: every CPU waits at a start line until all
 * have arrived, then runs @function, so none has finished before the last
 * starts (cpu_test_everywhere_overlapped() says whether they did; a CPU the
 * host does not run for @timeout_ns lets the others go).  A failed ASSERT
 * on a helper ends that CPU's part only (harness/test.h).
 */
static inline bool cpu_test_run_everywhere(void (*function)(void *), void *argument,
					   uint64_t timeout_ns)
{
	struct cpu_test_everywhere *run = &cpu_test_everywhere_run;
	bool started[MAX_CPUS] = { false };
	bool all = true;
	unsigned int me = cpu_id();

	*run = (struct cpu_test_everywhere){
		.function = function,
		.argument = argument,
		.expected = cpus_online(),
		.timeout_cycles = ns_to_cycles(timeout_ns),
	};
	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++) {
		if (cpu == me || !cpu_test_online(cpu))
			continue;
		started[cpu] = smp_run_on_async(cpu, cpu_test_everywhere_part, run);
		if (!started[cpu])
			__atomic_fetch_sub(&run->expected, 1, __ATOMIC_ACQ_REL);
		all &= started[cpu];
	}
	cpu_test_everywhere_part(run);
	for (unsigned int cpu = 0; cpu < cpus_present(); cpu++) {
		if (started[cpu] && !smp_wait_for(cpu, timeout_ns)) {
			test_diag("cpu %u did not finish its part in time", cpu);
			all = false;
		}
	}
	return all;
}

/**
 * cpu_test_everywhere_overlapped - whether the last cpu_test_run_everywhere()
 * really started every part together: the last CPU reached the start line
 * before the first left it (false if one was too late and the others went)
 */
static inline bool cpu_test_everywhere_overlapped(void)
{
	const struct cpu_test_everywhere *run = &cpu_test_everywhere_run;
	uint64_t last = __atomic_load_n(&run->last_arrival, __ATOMIC_ACQUIRE);

	/* TSCs are synchronised (checked at boot), so one CPU's reading compares with another's. */
	return last != 0 && last <= __atomic_load_n(&run->first_start, __ATOMIC_ACQUIRE);
}

/**
 * struct cpu_test_barrier - all @expected CPUs wait until each has arrived
 *
 * For one use: zero it (and set @expected) before the CPUs start.
 */
struct cpu_test_barrier {
	unsigned int expected;
	unsigned int arrived;
};

/** cpu_test_barrier_wait - false if the others did not all arrive within @timeout_ns */
static inline bool cpu_test_barrier_wait(struct cpu_test_barrier *barrier, uint64_t timeout_ns)
{
	uint64_t start = cycles(), limit = ns_to_cycles(timeout_ns);

	__atomic_fetch_add(&barrier->arrived, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(&barrier->arrived, __ATOMIC_ACQUIRE) < barrier->expected) {
		if (cycles() - start > limit)
			return false;
		cpu_relax();
	}
	return true;
}

/** cpu_test_random_cpu - an online CPU picked with @random (a test_random() value) */
static inline unsigned int cpu_test_random_cpu(uint64_t random)
{
	return (unsigned int)(random % cpus_present());
}

/**
 * struct cpu_test_park - a CPU parked with interrupts disabled
 * @limit_ns:	how long it stays at most (0: CPU_TEST_TIMEOUT_NS)
 * @until:	if set, the park also ends once it returns true: a park that
 *		must outlast an event waits for the event, not for a time that
 *		host scheduling can make too short
 * @parked:	set by the parked CPU once its interrupts are off
 * @release:	set by the test to let it go
 */
struct cpu_test_park {
	uint64_t limit_ns;
	bool (*until)(void);
	bool parked;
	bool release;
};

/** cpu_test_park - for smp_run_on_async: spin with interrupts off until released */
static inline void cpu_test_park(void *argument)
{
	struct cpu_test_park *park = argument;
	bool enabled = local_irq_save();
	uint64_t start = cycles();
	uint64_t limit = ns_to_cycles(park->limit_ns ? park->limit_ns : CPU_TEST_TIMEOUT_NS);

	__atomic_store_n(&park->parked, true, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&park->release, __ATOMIC_ACQUIRE) && cycles() - start < limit &&
	       !(park->until && park->until()))
		cpu_relax();
	local_irq_restore(enabled);
}

/** cpu_test_park_on - park @cpu; false if it could not be given the work */
static inline bool cpu_test_park_on(unsigned int cpu, struct cpu_test_park *park)
{
	park->parked = park->release = false;
	if (!smp_run_on_async(cpu, cpu_test_park, park))
		return false;
	while (!__atomic_load_n(&park->parked, __ATOMIC_ACQUIRE))
		cpu_relax();
	return true;
}

/** cpu_test_unpark - release @cpu and wait until it is back in its idle loop */
static inline bool cpu_test_unpark(unsigned int cpu, struct cpu_test_park *park)
{
	__atomic_store_n(&park->release, true, __ATOMIC_RELEASE);
	return smp_wait_for(cpu, CPU_TEST_TIMEOUT_NS);
}

#endif /* TRIGOS_TESTS_CPU_TEST_H */
