/*
 * SPDX-License-Identifier: MIT
 *
 * A Promela model of the x86 trigger's halting protocol (the hlt backend
 * and the halting phase of the adaptive one, and the interrupts-on
 * "sti; mwait" of the mwait backend for waiter 0), checked with Spin by
 * tools/model-check (`make check-model`).  README.md beside this file says
 * what is modelled and what is not, and maps every step to the C code.
 *
 *   CPU 0, CPU 1   the waiters: trigger_reset(); while (!(done[0] &&
 *                  done[1])) trigger_wait(); trigger_finish(); each with
 *                  interrupts on or off at the reset (init tries all four).
 *   CPU 2          kicker 0, in thread context: done[0] = 1; trigger_kick().
 *   kicker 1       an NMI handler: done[1] = 1; trigger_kick(), on a waiting
 *                  CPU (0), on kicker 0's CPU (2) or on an idle CPU (3),
 *                  chosen by init; its NMI is sent at any moment.
 *   a stray NMI    one more NMI, to CPU 0, at any moment, with no kick: a
 *                  late wake NMI of an earlier wait, the watchdog's, a test's.
 *   MWAIT          waiter 0, interrupts on, may wait with the mwait backend
 *                  as it does under Bochs (init chooses): MONITOR on the
 *                  generation, publish in ipi_waiters (the wake IPI, which
 *                  Bochs needs), re-check, sti, mwait.  A store to the
 *                  generation after the MONITOR triggers it and ends or
 *                  prevents the sleep - or, as Bochs's monitor does
 *                  (kernel/arch/x86/trigger_bochs.c), misses it (init
 *                  chooses that too).
 *
 * Memory is x86-TSO (SDM vol 3, 9.2): every CPU has a FIFO store buffer; a
 * plain store enters it, a load reads the CPU's own newest buffered store to
 * its address (store forwarding) or else memory, the CPU's memory process
 * commits its oldest buffered store at any moment, and a locked
 * instruction runs only once its CPU's buffer is empty (SDM vol 3, 9.2.3.9:
 * loads and stores are not reordered with locked instructions; 9.2.3.5:
 * forwarding).
 *
 * Each transition of a CPU is one instruction (or one C statement whose
 * instructions nobody else can tell apart).  Between two of them the CPU
 * may take a pending NMI, or the pending wake IPI if IF is set and no STI
 * shadow holds it off.  A sent interrupt is a pending flag, delivered at any
 * later instruction boundary; flags coalesce (one IRR bit for the wake
 * vector; one NMI latched while another is handled, SDM vol 3, 6.7.1).
 *
 * The property: no waiter halts forever after a kick it has not seen.
 *   - safety: a CPU halted with nothing left to wake it blocks in
 *     "sleeping", which is not an end state, so Spin reports an invalid end
 *     state; every process that is done blocks at an end label;
 *   - liveness: the LTL formula no_lost_wakeup, under weak fairness.
 *
 * Compile-time switches (spin -DNAME), each a mutant that must fail:
 *   MUTANT_NO_RECHECK         no look at the generation after publishing
 *   MUTANT_PUBLISH_NO_FENCE   the publish is a plain store through the store
 *                             buffer, not a locked OR
 *   MUTANT_KICK_NO_FENCE      the kick's generation update is a plain load
 *                             and store, not a locked add (test_break=kick_fence)
 *   MUTANT_NO_RIP_FIXUP       the trigger NMI handler moves no RIP
 *   MUTANT_UNFIXED_SELF_KICK  the code before the NMI self-kick fix: the
 *                             interrupts-on "sti; hlt" in no window
 *   MUTANT_NO_STI_SHADOW      STI enables interrupts at once (the hardware's
 *                             guarantee removed, to show the model needs it)
 *   MUTANT_UNMARKED_MWAIT     the interrupts-on "sti; mwait" in no window (as
 *                             before the mwait windows of trigger_halt.S)
 * and one switch of the environment:
 *   NO_SELF_KICK              kicker 1 never runs on a waiting CPU
 *
 * A replayed trail tells what happens (printf), naming the steps below;
 * its mem[] addresses are 0 the generation, 1-2 ipi_waiters of CPU 0-1,
 * 3-4 nmi_waiters, 5-6 done[0-1].
 */

#define NCPU	4
#define SB	2		/* store buffer entries per CPU: the most used here */

/* Addresses in mem[]. */
#define GEN	0		/* trigger->generation */
#define IPIW	1		/* trigger->ipi_waiters, a flag per waiter: IPIW + cpu */
#define NMIW	3		/* trigger->nmi_waiters: NMIW + cpu */
#define DONE	5		/* the waiters' condition, a flag per kicker: DONE + k */
#define NADDR	7

/*
 * Program counters: the RIP an NMI handler sees and may move.  An mtype, so
 * that a trail names them (printm); 0, no name, is "in no NMI handler".
 */
mtype = {
	T_IDLE,		/* nothing left to run */
	W_RESET,	/* trigger_reset(): cli; seen = generation */
	W_COND0,	/* the caller's condition: load done[0] */
	W_COND1,	/* ... load done[1] */
	W_STICKY,	/* wait_common(): moved since seen? */
	W_STICKY_SEEN,	/* ... then seen = generation; return */
	W_PUBLISH,	/* halt_wait(): trigger_publish() */
	W_ON_PRECHECK,	/* interrupts on: trigger_moved_after_publish() */
	W_ON_CHECK,	/* trigger_halt_irqs_on: the re-check (window start) */
	W_ON_STI,	/* sti */
	W_ON_HLT,	/* hlt, in the STI shadow */
	W_ON_CLI,	/* past the HLT (window end): ret; cli() */
	W_ON_UNPUB,	/* trigger_unpublish(ipi_waiters) */
	W_OFF_CHECK,	/* interrupts off: trigger_halt_irqs_off: the re-check (window start) */
	W_OFF_HLT,	/* hlt */
	W_OFF_UNPUB,	/* past the HLT (window end): trigger_unpublish(nmi_waiters) */
	W_RELOAD,	/* wait_common() after the backend: seen = generation */
	W_FINISH,	/* trigger_finish(): IF as at the reset */
	K_STORE,	/* a kicker: done[k] = 1, a plain store */
	K_ADD,		/* trigger_core_kick(): lock add generation */
	K_LOAD_IPIW,	/* wake_published(ipi_waiters): load the mask word */
	K_SEND_IPI,	/* arch_trigger_wake_ipi() for the lowest bit left */
	K_LOAD_NMIW,	/* wake_published(nmi_waiters) */
	K_SEND_NMI,	/* arch_trigger_wake_nmi() */
	W_M_MONITOR,	/* mwait_wait(): trigger_monitor(&generation) */
	W_M_CHECK,	/* trigger_mwait_irqs_on: the re-check (window start) */
	W_M_STI,	/* sti */
	W_M_MWAIT	/* mwait, in the STI shadow; past it: W_ON_CLI (sti_relax_cli() ends in cli) */
};

#ifdef MUTANT_PUBLISH_NO_FENCE
#define PUBLISH_LOCKED	0
#else
#define PUBLISH_LOCKED	1
#endif
#ifdef MUTANT_KICK_NO_FENCE
#define KICK_LOCKED	0
#else
#define KICK_LOCKED	1
#endif
/* Locked instructions wait for an empty store buffer, plain stores for room. */
#define LOCKED_STEP(p)	(((p) == K_ADD && KICK_LOCKED) || ((p) == W_PUBLISH && PUBLISH_LOCKED) || \
			 (p) == W_ON_UNPUB || (p) == W_OFF_UNPUB)
#define STORE_STEP(p)	((p) == K_STORE || ((p) == K_ADD && !KICK_LOCKED) || \
			 ((p) == W_PUBLISH && !PUBLISH_LOCKED))
#define READY(c, p)	((!LOCKED_STEP(p) || sb_len[c] == 0) && (!STORE_STEP(p) || sb_len[c] < SB))
#define IS_HLT(p)	((p) == W_ON_HLT || (p) == W_OFF_HLT)
#define IS_SLEEP(p)	(IS_HLT(p) || (p) == W_M_MWAIT)

/*
 * One step: a transition nothing can interleave with.  As a d_step it is one
 * step of a trail too.  Nothing inside a step chooses or blocks (its guard
 * comes first), so an atomic sequence means the same; tools/model-check
 * compiles the model's safety check with -DCOVERAGE, which makes the steps
 * atomic sequences, so that Spin can name any statement never reached.  The
 * steps that halt or wake stay atomic: they jump between loops.
 */
#ifdef COVERAGE
#define STEP	atomic
#else
#define STEP	d_step
#endif

byte mem[NADDR];
byte sb_addr[NCPU * SB];
byte sb_val[NCPU * SB];
byte sb_len[NCPU];

mtype pc[NCPU];			/* the thread's next step */
mtype hpc[NCPU];		/* the NMI handler's next kick step; 0: in no handler */
byte snap[NCPU];		/* the mask word the thread's kick loaded: bits left to wake */
byte hsnap[NCPU];		/* ... the NMI handler's kick */
bit IF[NCPU];
bit shadow[NCPU];		/* the STI shadow: the wake IPI held off one instruction */
bit halted[NCPU];
bit ipi_pending[NCPU];		/* the wake vector's IRR bit */
bit nmi_pending[NCPU];		/* a latched NMI */
bit nmi_kick_armed[NCPU];	/* the test's NMI handler kicks at the next NMI */
bit irqs_were_enabled[2];	/* each waiter's IF at its reset (state->irqs_were_enabled) */
byte seen[2];			/* each waiter's state->seen */
bit mwaiter[2];			/* the waiter sleeps with "sti; mwait" (waiter 0 only) */
bit monitor_misses;		/* its monitor misses stores, as Bochs's does */
bit armed[2];			/* the waiter's MONITOR is armed ... */
bit triggered[2];		/* ... and a store to the generation has triggered it */
bit in_mwait[2];		/* halted in MWAIT: a triggered monitor also ends the sleep */

/*
 * A store to the generation reaches memory: it triggers waiter 0's monitor
 * if armed, unless that monitor misses stores (only waiter 0 uses MWAIT).
 */
inline monitor_sees_store()
{
	if
	:: armed[0] && !monitor_misses -> triggered[0] = 1
	:: else -> skip
	fi
}

/* A load: the CPU's own newest buffered store to @a, else memory. */
inline load(c, a, v)
{
	if
	:: sb_len[c] > 1 && sb_addr[c * SB + 1] == a -> v = sb_val[c * SB + 1]
	:: else ->
		if
		:: sb_len[c] > 0 && sb_addr[c * SB] == a -> v = sb_val[c * SB]
		:: else -> v = mem[a]
		fi
	fi
}

/* A plain store enters the store buffer (READY() kept the CPU back while it was full). */
inline store(c, a, v)
{
	sb_addr[c * SB + sb_len[c]] = a;
	sb_val[c * SB + sb_len[c]] = v;
	sb_len[c]++
}

/* The oldest buffered store of CPU @c reaches memory. */
inline commit(c)
{
	printf("memory: cpu%d's store to mem[%d] reaches memory\n", c, sb_addr[c * SB]);
	mem[sb_addr[c * SB]] = sb_val[c * SB];
#ifdef MUTANT_KICK_NO_FENCE
	/* Only that mutant's kick stores the generation through the store buffer. */
	if
	:: sb_addr[c * SB] == GEN -> monitor_sees_store()
	:: else -> skip
	fi;
#endif
	sb_addr[c * SB] = sb_addr[c * SB + 1];
	sb_val[c * SB] = sb_val[c * SB + 1];
	sb_addr[c * SB + 1] = 0;
	sb_val[c * SB + 1] = 0;
	sb_len[c]--
}

/*
 * One step of kicker @k's kick on CPU @c; @p and @s are the kick's program
 * counter and loaded mask word, @after what @p becomes when it is done.
 * wake_published() loads a mask word once, then wakes each of its bits;
 * arch_trigger_wake_ipi() and arch_trigger_wake_nmi() skip the kicker's own CPU ("we
 * are running, so not halted"), so its bit is dropped at the load.  The
 * count of wake NMIs (nmi_kicks_pending) only decides whether the handler
 * claims an NMI, never what a CPU does, so it is left out.
 */
inline kick_step(c, k, p, s, after)
{
	if
	:: p == K_STORE ->
		printf("cpu%d: kicker %d: done[%d] = 1 (a plain store)\n", c, k, k);
		store(c, DONE + k, 1);
		p = K_ADD
	:: p == K_ADD ->
#ifndef MUTANT_KICK_NO_FENCE
		mem[GEN]++;
		monitor_sees_store();
		printf("cpu%d: kicker %d: lock add: generation %d\n", c, k, mem[GEN]);
#else
		load(c, GEN, v0);
		store(c, GEN, v0 + 1);
		printf("cpu%d: kicker %d: generation %d (a plain store)\n", c, k, v0 + 1);
		v0 = 0;
#endif
		p = K_LOAD_IPIW
	:: p == K_LOAD_IPIW ->
		load(c, IPIW, v0);
		load(c, IPIW + 1, v1);
		printf("cpu%d: kicker %d: ipi_waiters cpu0 %d cpu1 %d\n", c, k, v0, v1);
		s = (v0 && c != 0) + 2 * (v1 && c != 1);
		v0 = 0;
		v1 = 0;
		p = (s -> K_SEND_IPI : K_LOAD_NMIW)
	:: p == K_SEND_IPI ->
		if
		:: s & 1 -> ipi_pending[0] = 1; s = s & 2; printf("cpu%d: kicker %d: wake IPI to cpu0\n", c, k)
		:: else -> ipi_pending[1] = 1; s = 0; printf("cpu%d: kicker %d: wake IPI to cpu1\n", c, k)
		fi;
		p = (s -> K_SEND_IPI : K_LOAD_NMIW)
	:: p == K_LOAD_NMIW ->
		load(c, NMIW, v0);
		load(c, NMIW + 1, v1);
		printf("cpu%d: kicker %d: nmi_waiters cpu0 %d cpu1 %d\n", c, k, v0, v1);
		s = (v0 && c != 0) + 2 * (v1 && c != 1);
		v0 = 0;
		v1 = 0;
		p = (s -> K_SEND_NMI : after)
	:: p == K_SEND_NMI ->
		if
		:: s & 1 -> nmi_pending[0] = 1; s = s & 2; printf("cpu%d: kicker %d: NMI to cpu0\n", c, k)
		:: else -> nmi_pending[1] = 1; s = 0; printf("cpu%d: kicker %d: NMI to cpu1\n", c, k)
		fi;
		p = (s -> K_SEND_NMI : after)
	fi
}

/*
 * trigger_nmi(): a CPU interrupted inside a halt window resumes at the
 * window's end, past its HLT.  The windows: trigger_halt.S for the
 * interrupts-off halt and, since the NMI self-kick fix, the interrupts-on
 * one from its re-check to its HLT.  A CPU halted on the HLT was
 * interrupted at the window's end, outside it.
 */
inline rip_fixup(c)
{
#ifndef MUTANT_NO_RIP_FIXUP
	if
	:: pc[c] == W_OFF_CHECK || pc[c] == W_OFF_HLT ->
		printf("cpu%d: the NMI handler moves RIP past the HLT\n", c);
		pc[c] = W_OFF_UNPUB
#ifndef MUTANT_UNFIXED_SELF_KICK
	:: pc[c] == W_ON_CHECK || pc[c] == W_ON_STI || pc[c] == W_ON_HLT ->
		printf("cpu%d: the NMI handler moves RIP past the HLT\n", c);
		pc[c] = W_ON_CLI
#endif
#ifndef MUTANT_UNMARKED_MWAIT
	:: pc[c] == W_M_CHECK || pc[c] == W_M_STI || pc[c] == W_M_MWAIT ->
		printf("cpu%d: the NMI handler moves RIP past the MWAIT\n", c);
		pc[c] = W_ON_CLI
#endif
	:: else -> skip
	fi
#else
	skip
#endif
}

/*
 * What every NMI runs after the fix-up (nmi_dispatch runs all registered
 * handlers): the test's handler, which kicks if it was armed.  A handler
 * with no kick returns at once.
 */
inline nmi_handlers(c)
{
	if
	:: nmi_kick_armed[c] -> nmi_kick_armed[c] = 0; hpc[c] = K_STORE
	:: else -> skip
	fi
}

/*
 * Taking an NMI while running.  Its delivery ends an STI shadow (SDM vol 3,
 * 6.8.1: the inhibition ends after delivery of another event); whether a CPU
 * delivers an NMI inside the shadow at all the SDM leaves open (STI: NMIs
 * "may" be inhibited), so the model lets it.
 */
inline take_nmi(c)
{
	printf("cpu%d: takes an NMI at ", c);
	printm(pc[c]);
	printf("\n");
	nmi_pending[c] = 0;
	shadow[c] = 0;
	rip_fixup(c);
	nmi_handlers(c)
}

/* One step of a waiter's thread (CPU 0 or 1). */
inline waiter_step(c)
{
	if
	:: pc[c] == W_RESET ->
		IF[c] = 0;
		load(c, GEN, seen[c]);
		printf("cpu%d: trigger_reset, interrupts %d at the reset: seen %d\n",
		       c, irqs_were_enabled[c], seen[c]);
		pc[c] = W_COND0
	:: pc[c] == W_COND0 ->
		load(c, DONE, v);
		pc[c] = (v -> W_COND1 : W_STICKY);
		v = 0
	:: pc[c] == W_COND1 ->
		load(c, DONE + 1, v);
		pc[c] = (v -> W_FINISH : W_STICKY);
		v = 0
	:: pc[c] == W_STICKY ->
		load(c, GEN, v);
		pc[c] = (v != seen[c] -> W_STICKY_SEEN : (mwaiter[c] -> W_M_MONITOR : W_PUBLISH));
		v = 0
	/*
	 * mwait_wait(): MONITOR, then (a look, Bochs's publish, a look: the
	 * looks only return early, the window's re-check decides) the window.
	 */
	:: pc[c] == W_M_MONITOR ->
		armed[c] = 1;
		triggered[c] = 0;
		printf("cpu%d: monitor on the generation\n", c);
		pc[c] = W_PUBLISH
	:: pc[c] == W_M_CHECK ->
		load(c, GEN, v);
		printf("cpu%d: re-check in the MWAIT window: generation %d, seen %d\n", c, v, seen[c]);
		pc[c] = (v != seen[c] -> W_ON_UNPUB : W_M_STI);
		v = 0
	:: pc[c] == W_M_STI ->
		IF[c] = 1;
		shadow[c] = 1;
		printf("cpu%d: sti\n", c);
		pc[c] = W_M_MWAIT
	:: pc[c] == W_STICKY_SEEN ->
		load(c, GEN, seen[c]);
		printf("cpu%d: trigger_wait returns at once (sticky): seen %d\n", c, seen[c]);
		pc[c] = W_COND0
	:: pc[c] == W_PUBLISH ->
#ifndef MUTANT_PUBLISH_NO_FENCE
		if
		:: irqs_were_enabled[c] ->
			mem[IPIW + c] = 1;
			printf("cpu%d: publishes itself in ipi_waiters (lock or)\n", c)
		:: else ->
			mem[NMIW + c] = 1;
			printf("cpu%d: publishes itself in nmi_waiters (lock or)\n", c)
		fi;
#else
		if
		:: irqs_were_enabled[c] ->
			store(c, IPIW + c, 1);
			printf("cpu%d: publishes itself in ipi_waiters (a plain store)\n", c)
		:: else ->
			store(c, NMIW + c, 1);
			printf("cpu%d: publishes itself in nmi_waiters (a plain store)\n", c)
		fi;
#endif
		pc[c] = (mwaiter[c] -> W_M_CHECK : (irqs_were_enabled[c] -> W_ON_PRECHECK : W_OFF_CHECK))
	/*
	 * A look that is over (the generation moved) leaves through "ret;
	 * cli()" with interrupts already off: nothing anyone can tell from
	 * going straight to the unpublish.
	 */
	:: pc[c] == W_ON_PRECHECK ->
#ifdef MUTANT_NO_RECHECK
		pc[c] = W_ON_CHECK
#else
		load(c, GEN, v);
		printf("cpu%d: check after publishing: generation %d, seen %d\n", c, v, seen[c]);
		pc[c] = (v != seen[c] -> W_ON_UNPUB : W_ON_CHECK);
		v = 0
#endif
	:: pc[c] == W_ON_CHECK ->
#ifdef MUTANT_NO_RECHECK
		pc[c] = W_ON_STI
#else
		load(c, GEN, v);
		printf("cpu%d: re-check in the window: generation %d, seen %d\n", c, v, seen[c]);
		pc[c] = (v != seen[c] -> W_ON_UNPUB : W_ON_STI);
		v = 0
#endif
	:: pc[c] == W_ON_STI ->
		IF[c] = 1;
#ifndef MUTANT_NO_STI_SHADOW
		shadow[c] = 1;
#endif
		printf("cpu%d: sti\n", c);
		pc[c] = W_ON_HLT
	:: pc[c] == W_ON_CLI ->
		IF[c] = 0;
		pc[c] = W_ON_UNPUB
	:: pc[c] == W_ON_UNPUB ->
		mem[IPIW + c] = 0;
		armed[c] = 0;
		triggered[c] = 0;
		pc[c] = W_RELOAD
	:: pc[c] == W_OFF_CHECK ->
#ifdef MUTANT_NO_RECHECK
		pc[c] = W_OFF_HLT
#else
		load(c, GEN, v);
		printf("cpu%d: re-check in the window: generation %d, seen %d\n", c, v, seen[c]);
		pc[c] = (v != seen[c] -> W_OFF_UNPUB : W_OFF_HLT);
		v = 0
#endif
	:: pc[c] == W_OFF_UNPUB ->
		mem[NMIW + c] = 0;
		pc[c] = W_RELOAD
	:: pc[c] == W_RELOAD ->
		load(c, GEN, seen[c]);
		printf("cpu%d: trigger_wait returns: seen %d\n", c, seen[c]);
		pc[c] = W_COND0
	:: pc[c] == W_FINISH ->
		IF[c] = irqs_were_enabled[c];
		printf("cpu%d: condition true: trigger_finish\n", c);
		pc[c] = T_IDLE
	fi
}

proctype cpu(byte c)
{
	byte v, v0, v1;		/* loaded values, kept at zero between steps */

	/*
	 * A CPU blocked here has nothing left to run and no interrupt it can
	 * take: a valid end.  A CPU blocked in "sleeping" is not.
	 */
end_running:
	do
	:: STEP { hpc[c] == 0 && nmi_pending[c] -> take_nmi(c) }
	:: STEP { hpc[c] == 0 && ipi_pending[c] && IF[c] && !shadow[c] ->
		ipi_pending[c] = 0;
		printf("cpu%d: takes the wake IPI (not halted)\n", c) }
	:: STEP { hpc[c] != 0 && READY(c, hpc[c]) -> kick_step(c, 1, hpc[c], hsnap[c], 0) }
	:: STEP { hpc[c] == 0 && pc[c] != T_IDLE && !IS_SLEEP(pc[c]) && READY(c, pc[c]) ->
		shadow[c] = 0;
		if
		:: c == 2 -> kick_step(c, 0, pc[c], snap[c], T_IDLE)
		:: else -> waiter_step(c)
		fi }
	:: atomic { hpc[c] == 0 && IS_HLT(pc[c]) ->
		/* HLT: RIP moves past it; the CPU sleeps until it can take an interrupt. */
		printf("cpu%d: hlt with IF %d\n", c, IF[c]);
		shadow[c] = 0;
		halted[c] = 1;
		pc[c] = (pc[c] == W_ON_HLT -> W_ON_CLI : W_OFF_UNPUB);
		goto sleeping }
	/* MWAIT: no sleep once the monitor has triggered (SDM vol 2B, MWAIT). */
	:: STEP { hpc[c] == 0 && pc[c] == W_M_MWAIT && triggered[c] ->
		printf("cpu%d: mwait returns at once: the monitor has triggered\n", c);
		shadow[c] = 0;
		pc[c] = W_ON_CLI }
	:: atomic { hpc[c] == 0 && pc[c] == W_M_MWAIT && !triggered[c] ->
		printf("cpu%d: mwait sleeps, IF %d\n", c, IF[c]);
		shadow[c] = 0;
		halted[c] = 1;
		in_mwait[c] = 1;
		pc[c] = W_ON_CLI;
		goto sleeping }
	od;
sleeping:
	do
	/* Woken by an NMI: RIP is past the HLT, outside every window, so the fix-up moves nothing. */
	:: atomic { nmi_pending[c] ->
		halted[c] = 0;
		in_mwait[c] = 0;
		nmi_pending[c] = 0;
		printf("cpu%d: woken by an NMI\n", c);
		nmi_handlers(c);
		goto end_running }
	:: atomic { ipi_pending[c] && IF[c] ->
		halted[c] = 0;
		in_mwait[c] = 0;
		ipi_pending[c] = 0;
		printf("cpu%d: woken by the wake IPI\n", c);
		goto end_running }
	:: atomic { in_mwait[c] && triggered[c] ->
		halted[c] = 0;
		in_mwait[c] = 0;
		printf("cpu%d: woken from mwait by the monitored store\n", c);
		goto end_running }
	od
}

/* The memory side of TSO: CPU @c's buffered stores reach memory in order, at any moment. */
proctype memory(byte c)
{
end_memory:
	do
	:: STEP { sb_len[c] > 0 -> commit(c) }
	od
}

#define STUCK(w)	(halted[w] && mem[GEN] != seen[w])

/* No waiter halts forever after a kick it has not seen. */
ltl no_lost_wakeup { [] ((STUCK(0) -> <> !STUCK(0)) && (STUCK(1) -> <> !STUCK(1))) }

init {
	byte host;

	atomic {
		if
		:: irqs_were_enabled[0] = 1
		:: irqs_were_enabled[0] = 0
		fi;
		if
		:: irqs_were_enabled[1] = 1
		:: irqs_were_enabled[1] = 0
		fi;
		if
		:: irqs_were_enabled[0] ->
			if
			:: mwaiter[0] = 1;
				if
				:: monitor_misses = 1
				:: monitor_misses = 0
				fi
			:: mwaiter[0] = 0
			fi
		:: else -> skip
		fi;
		if
#ifndef NO_SELF_KICK
		:: host = 0
#endif
		:: host = 2
		:: host = 3
		fi;
		IF[0] = irqs_were_enabled[0];
		IF[1] = irqs_were_enabled[1];
		IF[2] = 1;
		IF[3] = 1;
		pc[0] = W_RESET;
		pc[1] = W_RESET;
		pc[2] = K_STORE;
		pc[3] = T_IDLE;
		run memory(0);
		run memory(1);
		run memory(2);
		run memory(3);
		run cpu(0);
		run cpu(1);
		run cpu(2);
		run cpu(3)
	}
	/* Kicker 1's NMI and the stray NMI, in either order, each at any moment. */
	if
	:: atomic {
		printf("kicker 1's NMI sent to cpu%d\n", host);
		nmi_kick_armed[host] = 1;
		nmi_pending[host] = 1 };
		atomic { printf("stray NMI sent to cpu0\n"); nmi_pending[0] = 1 }
	:: atomic { printf("stray NMI sent to cpu0\n"); nmi_pending[0] = 1 };
		atomic {
		printf("kicker 1's NMI sent to cpu%d\n", host);
		nmi_kick_armed[host] = 1;
		nmi_pending[host] = 1 }
	fi;
	host = 0
}
