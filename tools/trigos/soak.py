#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Soak: many boots of configurations drawn from the matrix, each with a random seed=.

    tools/soak [--boots N] [--jobs J] [--seed S] [--out DIR] [--all] [--only GLOB]
               [--group NAME] [--iso PATH] [--kernel PATH] [--keep-logs] CONFIG

The plan is drawn before the first boot from --seed (printed; chosen from the
clock when not given), so `tools/soak --seed S --boots N CONFIG` boots the same
configurations with the same kernel seeds again.  Each boot is one
configuration of CONFIG (tests/matrix.cfg) run and judged exactly as
tools/matrix does (tools/run, tools/ktap, expect_line/forbid_line), with
seed=K put on its kernel command line in place of any seed it had.

Only the ordinary configurations (expect = pass) are drawn unless --all is
given; with --all the harness self-tests come too and their expect= is
honoured.  A boot is a pass, a failure or a hang (tools/run's timeout, or
tools/run itself killed, in a configuration that expects to pass).  Every
failure and hang prints its configuration, its seed and the exact tools/run
command that repeats it; its log stays in DIR/logs/ (passing logs are deleted
unless --keep-logs).  DIR/soak.json holds the plan, every outcome and the
summary; DIR/summary.txt the summary printed at the end.

Exit status: 0 every boot passed, 1 some boot failed or hung, 2 usage error.
"""

import argparse
import dataclasses
import json
import os
import random
import re
import shlex
import signal
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed

from . import matrix, verdict
from .cli import TOOLS

# The kernel picks seeds below this itself (kernel/boot/options.c); the soak does too.
SEED_LIMIT = 1000000
EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
_SEED_WORD = re.compile(r"seed=\S*")



def candidates(entries, include_expectations=False):
    """The configurations a soak draws from: expect = pass ones, or all with --all; never one
    whose emulator is not built here (matrix.skip_reason())."""
    return [entry for entry in entries if (include_expectations or entry.expect == "pass")
            and not matrix.skip_reason(entry)]


def split_cmdline(run_args):
    """Return (run_args without --cmdline, the --cmdline value or None).

    A configuration may give its command line in run = (--cmdline "...")
    instead of cmdline =; the last one given wins, as in tools/run.
    """
    rest, cmdline = [], None
    index = 0
    while index < len(run_args):
        word = run_args[index]
        if word == "--cmdline" and index + 1 < len(run_args):
            cmdline = run_args[index + 1]
            index += 2
            continue
        if word.startswith("--cmdline="):
            cmdline = word[len("--cmdline="):]
        else:
            rest.append(word)
        index += 1
    return rest, cmdline


def with_seed(entry, seed, name):
    """A copy of matrix @entry named @name whose command line ends in seed=@seed."""
    run_args, run_cmdline = split_cmdline(entry.run_args)
    cmdline = entry.cmdline if entry.cmdline is not None else run_cmdline
    words = [word for word in (cmdline or "").split() if not _SEED_WORD.fullmatch(word)]
    words.append(f"seed={seed}")
    return dataclasses.replace(entry, name=name, run_args=run_args, cmdline=" ".join(words))


def make_plan(entries, boots, soak_seed):
    """[(boot number, configuration name, kernel seed)], drawn from @soak_seed alone."""
    rng = random.Random(soak_seed)
    names = [entry.name for entry in entries]
    return [(number, rng.choice(names), rng.randrange(1, SEED_LIMIT))
            for number in range(1, boots + 1)]


def classify(outcome, expect="pass"):
    """"pass", "hang" or "fail" for a tools/matrix Outcome."""
    if outcome.ok:
        return "pass"
    if expect == "pass" and outcome.verdict == verdict.RUN_STATUS_WORDS[verdict.RUN_TIMEOUT]:
        return "hang"
    return "fail"


def summarize(records, soak_seed, wall_seconds):
    """The summary dictionary of a list of boot records (dicts with "config", "kind")."""
    counts = {"pass": 0, "fail": 0, "hang": 0}
    per_config = {}
    for record in records:
        counts[record["kind"]] += 1
        config = per_config.setdefault(record["config"], {"pass": 0, "fail": 0, "hang": 0})
        config[record["kind"]] += 1
    bad = [record for record in records if record["kind"] != "pass"]
    return {
        "soak_seed": soak_seed,
        "boots": len(records),
        "passes": counts["pass"],
        "failures": counts["fail"],
        "hangs": counts["hang"],
        "wall_seconds": round(wall_seconds, 1),
        "boot_seconds_total": round(sum(r.get("seconds", 0.0) for r in records), 1),
        "per_config": dict(sorted(per_config.items())),
        "bad": [{key: record[key] for key in ("boot", "config", "seed", "kind", "verdict",
                                               "command", "log")} for record in bad],
    }


def format_summary(summary, planned):
    lines = [f"soak: {summary['boots']} of {planned} boots: {summary['passes']} passed, "
             f"{summary['failures']} failed, {summary['hangs']} hung, in "
             f"{summary['wall_seconds']:.0f} s (boots themselves {summary['boot_seconds_total']:.0f} s)"]
    for name, counts in summary["per_config"].items():
        lines.append(f"soak:   {name:<24} pass {counts['pass']:>3}  fail {counts['fail']:>3}  "
                     f"hang {counts['hang']:>3}")
    for record in summary["bad"]:
        lines.append(f"soak: boot {record['boot']} {record['kind'].upper()} {record['config']} "
                     f"seed={record['seed']} ({record['verdict']}); log {record['log']}")
        lines.append(f"soak:   repeat: {record['command']}")
    lines.append(f"soak: the same plan again: tools/soak --seed {summary['soak_seed']} "
                 f"--boots {planned} ...")
    return lines


def display_command(command):
    """The tools/run command as a user types it: tools/run relative, no interpreter."""
    words = list(command)
    if len(words) > 1 and os.path.basename(words[1]) == "run" and words[1].startswith(TOOLS):
        words = [os.path.relpath(words[1])] + words[2:]
    return shlex.join(words)


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        prog="soak", description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 2)[2], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("config", help="matrix config file (tests/matrix.cfg)")
    parser.add_argument("--boots", "-n", type=int, default=200, help="number of boots (200)")
    parser.add_argument("--jobs", "-j", type=int, default=2, help="boots at a time (2)")
    parser.add_argument("--seed", type=int, default=None,
                        help="seed of the soak's own choices (default: from the clock)")
    parser.add_argument("--out", default=os.path.join("build", "soak"),
                        help="directory for logs/, soak.json and summary.txt")
    parser.add_argument("--all", action="store_true",
                        help="also draw the expect= self-tests (their expectation honoured)")
    parser.add_argument("--only", action="append", metavar="GLOB",
                        help="draw only configurations matching GLOB (repeatable)")
    parser.add_argument("--group", action="append", metavar="NAME",
                        help="draw only configurations in group NAME (repeatable)")
    parser.add_argument("--iso", default=None)
    parser.add_argument("--kernel", default=None)
    parser.add_argument("--keep-logs", action="store_true", help="keep the logs of passing boots")
    args = parser.parse_args(argv)
    if args.boots < 1 or args.jobs < 1:
        parser.error("--boots and --jobs must be at least 1")
    return args


def main(argv=None):
    args = parse_args(argv)
    try:
        entries = matrix.load_config(args.config)
    except matrix.ConfigError as error:
        print(f"soak: {error}", file=sys.stderr)
        return EXIT_USAGE
    pool_entries = candidates(matrix.select(entries, args.only, args.group), args.all)
    if not pool_entries:
        print(f"soak: no configuration of {args.config} to draw from", file=sys.stderr)
        return EXIT_USAGE
    soak_seed = args.seed if args.seed is not None else time.time_ns() % SEED_LIMIT
    plan = make_plan(pool_entries, args.boots, soak_seed)
    by_name = {entry.name: entry for entry in pool_entries}
    log_dir = os.path.join(args.out, "logs")
    os.makedirs(log_dir, exist_ok=True)
    print(f"soak: {args.boots} boots, {args.jobs} at a time, drawn from "
          f"{len(pool_entries)} configurations of {args.config} with --seed {soak_seed}",
          flush=True)

    runner = matrix.Runner(args.iso, args.kernel, log_dir)
    records = []
    lock = threading.Lock()
    started = time.monotonic()

    def boot(step):
        number, name, seed = step
        entry = with_seed(by_name[name], seed, f"{number:04d}-{name}")
        log_path = os.path.join(log_dir, f"{entry.name}.log")
        command = matrix.run_command(entry, log_path, args.iso, args.kernel)
        outcome = runner.run(entry)
        kind = classify(outcome, entry.expect)
        record = {"boot": number, "config": name, "seed": seed, "kind": kind,
                  "verdict": outcome.verdict, "seconds": round(outcome.seconds, 2),
                  "command": display_command(command), "log": log_path,
                  "reasons": outcome.reasons[:6]}
        if kind == "pass" and not args.keep_logs:
            try:
                os.unlink(log_path)
            except OSError:
                pass
            record["log"] = ""
        with lock:
            records.append(record)
            done = len(records)
        line = (f"soak: [{done:>{len(str(args.boots))}}/{args.boots}] boot {number} {name} "
                f"seed={seed}: {kind.upper()} ({outcome.verdict}, {outcome.seconds:.1f} s)")
        if kind != "pass":
            line += "".join(f"\nsoak:   {reason}" for reason in outcome.reasons[:6])
            line += f"\nsoak:   repeat: {record['command']}"
        print(line, flush=True)

    interrupted = False
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, matrix._on_sigterm)
    pool = ThreadPoolExecutor(max_workers=args.jobs)
    try:
        for future in as_completed([pool.submit(boot, step) for step in plan]):
            future.result()
    except KeyboardInterrupt:
        interrupted = True
        runner.stop_all()
        print("soak: interrupted; stopping the running boots", flush=True)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)

    records.sort(key=lambda record: record["boot"])
    summary = summarize([r for r in records if r["verdict"] != "STOPPED"], soak_seed,
                        time.monotonic() - started)
    summary["interrupted"] = interrupted
    lines = format_summary(summary, args.boots)
    print("\n".join(lines), flush=True)
    with open(os.path.join(args.out, "soak.json"), "w", encoding="utf-8") as stream:
        json.dump({"config": args.config, "plan": plan, "summary": summary, "boots": records},
                  stream, indent=1)
        stream.write("\n")
    with open(os.path.join(args.out, "summary.txt"), "w", encoding="utf-8") as stream:
        stream.write("\n".join(lines) + "\n")
    bad = summary["failures"] or summary["hangs"] or interrupted
    return EXIT_FAILED if bad else EXIT_OK
