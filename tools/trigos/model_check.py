#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Model-check the trigger's halting protocol with Spin, and see every mutant fail.

    tools/model-check [--build DIR] [--jobs N] [--only NAME[,NAME...]] [--list]
    tools/model-check --trail NAME[:CHECK] [--shortest] [--build DIR]

The model is tests/model/trigger_halt.pml (tests/model/README.md says what
it models).  Each variant (the model as implemented, and mutants that are
compile-time switches of the same file) goes through two checks:

  safety    pan compiled with -DSAFETY -DNOCLAIM, a search for invalid end
            states (a waiter halted for good);
  liveness  pan compiled with -DNFAIR=3, run with -a -f: a search for
            acceptance cycles of the LTL formula no_lost_wakeup under weak
            fairness.

Both searches are exhaustive: every state stored in full (no bitstate
hashing) and no partial-order reduction (-DNOREDUCE: every step of the
model touches shared state, so it would save nothing).  The model must pass
both, and in its safety check every statement of its processes must be
reached (-DCOVERAGE: a guard against a model that passes because it does
nothing); each mutant must fail both (two take the processes and their
steps in a shuffled order, which finds their errors sooner:
SHUFFLED_SEARCH_ORDER).
One line per check gives the outcome, the states stored and the seconds the
search took; a failure gives the counterexample's length in steps.  Exit
status 0 when every check came out as expected, 1 otherwise, 2 on a usage
error or a missing tool.

--trail NAME[:CHECK] runs that one check (safety unless CHECK says
liveness) and replays its counterexample as the model's narration (one line
per step that says something).  --shortest makes the safety search
breadth-first (-DBFS), so the trail is a shortest one; it is slower, so
`make check` does not use it.
"""

import argparse
import concurrent.futures
import dataclasses
import os
import re
import shutil
import subprocess
import sys
import time

from .cli import ROOT
MODEL = os.path.join(ROOT, "tests", "model", "trigger_halt.pml")
SEARCH_TIMEOUT = 600	# seconds: far above any search here; a hang is an error
MAX_DEPTH = "-m20000"	# far above the deepest path (about 160 steps)


@dataclasses.dataclass(frozen=True)
class Variant:
    name: str
    defines: tuple
    must_fail: bool
    what: str
    shuffled: bool = False	# searched in SHUFFLED_SEARCH_ORDER


@dataclasses.dataclass(frozen=True)
class Check:
    name: str
    cflags: tuple
    pan_args: tuple
    error: str		# how pan names the error this check finds
    claim: bool		# the never claim runs, as process 0 of the trail
    coverage: bool	# for the model: every statement must be reached (-DCOVERAGE)


VARIANTS = (
    Variant("model", (), False, "the protocol as implemented"),
    Variant("no-recheck", ("MUTANT_NO_RECHECK",), True,
            "no look at the generation after publishing"),
    Variant("publish-no-fence", ("MUTANT_PUBLISH_NO_FENCE",), True,
            "the publish a plain store through the store buffer"),
    Variant("kick-no-fence", ("MUTANT_KICK_NO_FENCE",), True,
            "the kick's generation a plain load and store, not a locked add"),
    Variant("no-rip-fixup", ("MUTANT_NO_RIP_FIXUP",), True,
            "the NMI handler moves no RIP past a HLT"),
    Variant("unfixed-self-kick", ("MUTANT_UNFIXED_SELF_KICK",), True,
            "the interrupts-on sti; hlt in no window (before the NMI self-kick fix)",
            shuffled=True),
    Variant("unfixed-stray-nmi", ("MUTANT_UNFIXED_SELF_KICK", "NO_SELF_KICK"), True,
            "the same, with no kick from an NMI on a waiting CPU at all", shuffled=True),
    Variant("no-sti-shadow", ("MUTANT_NO_STI_SHADOW",), True,
            "STI enables interrupts at once"),
    Variant("unmarked-mwait", ("MUTANT_UNMARKED_MWAIT",), True,
            "the interrupts-on sti; mwait in no window (before the mwait windows)"),
)

CHECKS = (
    Check("safety", ("-DSAFETY", "-DNOCLAIM", "-DNOREDUCE"), (MAX_DEPTH,),
          "invalid end state", False, True),
    Check("liveness", ("-DNFAIR=3", "-DNOREDUCE"), ("-a", "-f", MAX_DEPTH),
          "acceptance cycle", True, False),
)

# A mutant's search stops at its first error, and where that is depends on
# the order the depth-first search takes the processes and their steps.  In
# pan's own order unfixed-self-kick and unfixed-stray-nmi stored 1.2-1.7
# million states before their errors (5-9 s each, half of make check's model
# time); in an order shuffled by pan's fixed seed (Spin's manual, pan's
# compile-time directives: T_RAND shuffles a process's transitions, P_RAND
# the processes), 45 to 670 thousand.  Not every mutant gains: unmarked-mwait
# found its errors within 3800 states in pan's order and after 1.1 million
# shuffled, so the order is the variant's (Variant.shuffled).  Either order
# is still an exhaustive search, so a mutant with an error always fails; only
# its trail differs.  The model's own searches cover every state anyway.
SHUFFLED_SEARCH_ORDER = ("-DT_RAND", "-DP_RAND")

# pan's words for a search that did not cover the state space.
INCOMPLETE = ("max search depth too small", "out of memory", "too many processes",
              "Search not completed", "pan: error")


@dataclasses.dataclass
class PanResult:
    errors: int = -1
    error_kind: str = ""
    states: int = -1
    unreached: list = dataclasses.field(default_factory=list)
    incomplete: str = ""


def parse_pan(output):
    """What a pan run printed: errors, the first error's kind, states, unreached statements."""
    result = PanResult()
    match = re.search(r"errors: (\d+)", output)
    if match:
        result.errors = int(match.group(1))
    match = re.search(r"^pan:\d+: (.+?)(?: \(at depth \d+\))?$", output, re.MULTILINE)
    if match:
        result.error_kind = match.group(1)
    match = re.search(r"^\s*(\d+) states, stored", output, re.MULTILINE)
    if match:
        result.states = int(match.group(1))
    for phrase in INCOMPLETE:
        if phrase in output:
            result.incomplete = phrase
            break
    section = None
    for line in output.splitlines():
        if line.startswith("unreached in "):
            section = line[len("unreached in "):]
            continue
        if section is None:
            continue
        if not line.startswith("\t"):
            section = None
            continue
        statement = line.strip()
        # The model's own processes only (not the never claim), and not their "-end-".
        if section.startswith(("proctype", "init")) and not statement.startswith("(") \
                and not statement.endswith('"-end-"'):
            result.unreached.append(f"{section}: {statement}")
    return result


def trail_steps(trail_text, claim):
    """The model's steps in a Spin trail file (not the never claim's, which is
    process 0 when there is one), and the step its cycle starts after (0: none)."""
    steps = cycle = 0
    for line in trail_text.splitlines():
        fields = line.split(":")
        if len(fields) < 2 or not fields[0].lstrip("-").isdigit():
            continue
        if int(fields[0]) == -1:
            cycle = steps
        elif int(fields[0]) > 0 and not (claim and fields[1] == "0"):
            steps += 1
    return steps, cycle


def judge(variant, check, result, steps, cycle):
    """(as expected?, the words for the line)."""
    if result.errors < 0 or result.states < 0:
        return False, "ERROR: pan's output was not understood"
    # A search stops at its first error; one that found none must have covered everything.
    if result.incomplete and not result.errors:
        return False, f"ERROR: the search did not complete ({result.incomplete})"
    if not variant.must_fail:
        if result.errors:
            return False, f"FAILED: {result.error_kind}, trail {steps} steps"
        if result.unreached:
            return False, "FAILED: statements never reached: " + "; ".join(result.unreached)
        if check.coverage:
            return True, f"holds: no {check.error}; every statement reached"
        return True, f"holds: no {check.error}"
    if not result.errors:
        return False, f"FAILED: the mutant passed (no {check.error} found)"
    if not result.error_kind.startswith(check.error):
        return False, f"FAILED: {result.error_kind}, not an {check.error}"
    cycle_words = ""
    if cycle == steps:
        cycle_words = " ending in a state that repeats forever"
    elif cycle:
        cycle_words = f", a cycle after step {cycle}"
    return True, f"fails as it must: {result.error_kind}, trail {steps} steps{cycle_words}"


def run(command, cwd, timeout=None):
    return subprocess.run(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=timeout)


def spin_defines(variant, check):
    """The model's switches for this check.  The model's coverage check opens
    its steps to atomic sequences (COVERAGE), which Spin reports statement by
    statement; everything else keeps them d_steps, one trail step each."""
    defines = list(variant.defines)
    if check.coverage and not variant.must_fail:
        defines.append("COVERAGE")
    return [f"-D{name}" for name in defines]


def run_check(variant, check, build, shortest=False):
    """Generate, compile and run one check in its own directory:
    (as expected?, the words for its line, seconds searched, states stored)."""
    directory = os.path.join(build, variant.name, check.name)
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    model = os.path.basename(MODEL)
    shutil.copyfile(MODEL, os.path.join(directory, model))
    generated = run(["spin", *spin_defines(variant, check), "-a", model], directory)
    if generated.returncode:
        return False, f"ERROR: spin -a failed:\n{generated.stdout}", 0.0, -1
    cflags = list(check.cflags) + (["-DBFS"] if shortest else [])
    if variant.shuffled and not shortest:
        cflags += SHUFFLED_SEARCH_ORDER
    # A mutant's search stops within a few thousand states: compiling pan
    # fast saves more than optimizing it would.
    optimize = "-O2" if shortest or not variant.must_fail else "-O0"
    compiled = run(["gcc", optimize, "-w", *cflags, "-o", "pan", "pan.c"], directory)
    if compiled.returncode:
        return False, f"ERROR: compiling pan failed:\n{compiled.stdout}", 0.0, -1
    searched_at = time.monotonic()
    try:
        searched = run(["./pan", *check.pan_args], directory, SEARCH_TIMEOUT)
    except subprocess.TimeoutExpired:
        return False, f"ERROR: the search ran over {SEARCH_TIMEOUT} s", SEARCH_TIMEOUT, -1
    seconds = time.monotonic() - searched_at
    with open(os.path.join(directory, "pan.out"), "w") as log:
        log.write(searched.stdout)
    result = parse_pan(searched.stdout)
    steps = cycle = 0
    trail = os.path.join(directory, model + ".trail")
    if os.path.exists(trail):
        with open(trail) as handle:
            steps, cycle = trail_steps(handle.read(), check.claim)
    ok, words = judge(variant, check, result, steps, cycle)
    return ok, words, seconds, result.states


def replay(variant, check, build):
    """The narration of the counterexample the check wrote (spin -t)."""
    directory = os.path.join(build, variant.name, check.name)
    replayed = run(["spin", *spin_defines(variant, check), "-T", "-t", os.path.basename(MODEL)],
                   directory)
    lines = []
    for line in replayed.stdout.splitlines():
        if line.startswith("ltl "):
            continue
        lines.append(line)
        if line.startswith("spin: trail ends") or line.startswith("spin: cycle"):
            break
    return "\n".join(lines)


def find(name, table, what):
    for item in table:
        if item.name == name:
            return item
    print(f"model-check: no {what} '{name}' (--list shows them)", file=sys.stderr)
    raise SystemExit(2)


def line_for(variant, check, ok, words, seconds, states):
    mark = "ok  " if ok else "FAIL"
    states_words = f"{states} states" if states >= 0 else "-"
    return (f"model-check: {mark} {variant.name:<18} {check.name:<8} {states_words:>15} "
            f"{seconds:6.1f} s  {words}")


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="model-check", description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n\n", 2)[2])
    parser.add_argument("--build", default=os.path.join(ROOT, "build", "model"),
                        help="where the generated verifiers go (default build/model)")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1),
                        help="checks run at once (default 2: the memory of two searches)")
    parser.add_argument("--only", help="the variants to check, comma-separated")
    parser.add_argument("--list", action="store_true", help="list the variants and exit")
    parser.add_argument("--trail", metavar="NAME[:CHECK]",
                        help="run one check and replay its counterexample")
    parser.add_argument("--shortest", action="store_true",
                        help="with --trail: a breadth-first safety search, for a shortest trail")
    args = parser.parse_args(argv)

    if args.list:
        for variant in VARIANTS:
            expect = "must fail" if variant.must_fail else "must hold"
            print(f"{variant.name:<18} {expect:<9}  {variant.what}")
        return 0
    if args.shortest and not args.trail:
        parser.error("--shortest goes with --trail")
    for tool, package in (("spin", "spin"), ("gcc", "gcc")):
        if not shutil.which(tool):
            print(f"model-check: {tool} not found: install the Debian package {package} "
                  "(make deps)", file=sys.stderr)
            return 2
    build = os.path.abspath(args.build)

    if args.trail:
        name, _, check_name = args.trail.partition(":")
        variant = find(name, VARIANTS, "variant")
        check = find(check_name or "safety", CHECKS, "check")
        if args.shortest and check.name != "safety":
            parser.error("--shortest is for the safety check (breadth-first search)")
        ok, words, seconds, states = run_check(variant, check, build, args.shortest)
        print(line_for(variant, check, ok, words, seconds, states))
        if os.path.exists(os.path.join(build, variant.name, check.name,
                                       os.path.basename(MODEL) + ".trail")):
            print(replay(variant, check, build))
        return 0 if ok else 1

    variants = VARIANTS
    if args.only:
        variants = tuple(find(name, VARIANTS, "variant") for name in args.only.split(","))
    started = time.monotonic()
    jobs = [(variant, check) for variant in variants for check in CHECKS]
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(run_check, variant, check, build) for variant, check in jobs]
        outcomes = []
        for (variant, check), future in zip(jobs, futures):
            ok, words, seconds, states = future.result()
            print(line_for(variant, check, ok, words, seconds, states), flush=True)
            outcomes.append(ok)
    failed = outcomes.count(False)
    total = time.monotonic() - started
    if failed:
        print(f"model-check: {failed} of {len(outcomes)} checks not as expected "
              f"({total:.1f} s)")
        return 1
    print(f"model-check: all {len(outcomes)} checks as expected ({total:.1f} s, "
          f"{args.jobs} at a time)")
    return 0
