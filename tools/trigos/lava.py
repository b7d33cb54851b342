#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Run the trigos LAVA job with the local dispatcher and check what LAVA reported.

`tools/lava run` renders ci/lava/qemu-job.yaml (the ISO's path for @ISO@) and
ci/lava/device-qemu.yaml (plus, with --cmdline, the fw_cfg file the kernel
reads its command line from) into OUT/, runs

    lava-run --device OUT/device.yaml --job-id N --output-dir OUT/out OUT/job.yaml

with its log (one YAML record a line) in OUT/lava.log, and then checks it like
`tools/lava check OUT/lava.log`:

  * the serial console, as LAVA recorded it (the "target" records), is
    written to OUT/serial.log and parsed by tools/ktap;
  * the results of the "trigos" monitor must be exactly the cases of that log
    as tools/ktap parses it (a parameterized case: its parameters, then the
    case itself), in order, with the same result (KTAP pass -> pass, fail and
    error -> fail, skip -> skip), named as LAVA names them (lower case, each
    run of non-word characters one '_', as lava_dispatcher's monitor does);
  * the "trigos-verdict" monitor must report one case, "result", pass when the
    log's '# RESULT:' is PASS and fail otherwise;
  * LAVA's own "job" result must be pass (the job itself worked);
  * tools/ktap's verdict on the log must be --expect (pass by default).

`tools/lava validate [--device FILE]... JOB...` checks job definitions and
device dictionaries against lava_common's own schemas (what a LAVA server
checks on submission).

`run`, `check` and `validate` need PyYAML (python3-yaml, which lava-dispatcher
pulls in) and `validate` lava_common: run them with the Python those Debian
packages are installed for (/usr/bin/python3).  The comparison itself needs
neither, which lets tools/tests/test_lava.py run anywhere.

Exit status: 0 everything agreed, 1 something did not (each difference is
printed), 2 usage error or lava-run missing.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys

from . import ktap, verdict
from .cli import ROOT

JOB_TEMPLATE = os.path.join(ROOT, "ci", "lava", "qemu-job.yaml")
DEVICE_DICTIONARY = os.path.join(ROOT, "ci", "lava", "device-qemu.yaml")
ISO_PLACEHOLDER = "@ISO@"
# The monitor names of ci/lava/qemu-job.yaml (LAVA's "definition" of a result).
CASES_DEFINITION = "trigos"
VERDICT_DEFINITION = "trigos-verdict"
VERDICT_CASE = "result"
# tools/ktap's status of a case -> the LAVA result the job's fixupdict gives it.
LAVA_RESULT_OF = {"pass": "pass", "fail": "fail", "error": "fail", "skip": "skip"}
# At most this many differences are listed one by one.
SHOW_DIFFERENCES = 10
EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2



def lava_case_id(name):
    """The test case id LAVA's monitor makes of a matched name.

    lava_dispatcher/actions/test/monitor.py: strip, lower case, then every run
    of non-word characters becomes one underscore.
    """
    return re.sub(r"\W+", "_", name.strip().lower())


def decode_records(lines):
    """Return (records, problems) for the lines of a lava-run log.

    Each line is one YAML flow mapping {dt, lvl, msg}.  PyYAML comes with
    lava-dispatcher (python3-yaml), so it is imported only here.
    """
    import yaml

    records, problems = [], []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = yaml.safe_load(line)
        except yaml.YAMLError as error:
            problems.append(f"lava log line {number}: not YAML ({str(error).splitlines()[0]})")
            continue
        if not isinstance(record, dict) or "lvl" not in record:
            problems.append(f"lava log line {number}: not a LAVA log record")
            continue
        records.append(record)
    return records, problems


def serial_text(records):
    """The serial console as LAVA saw it: its "target" records, a line each.

    A monitors job never writes to the board; the first "input" record is the
    dispatcher's finalize step sending "poweroff", whose echo by the pty that
    QEMU's stdio is on comes back as "target" output.  It is not the kernel's,
    so the console ends there.
    """
    lines = []
    for record in records:
        if record.get("lvl") == "input":
            break
        if record.get("lvl") == "target":
            lines.append(str(record.get("msg", "")))
    return "".join(line + "\n" for line in lines)


def reported_results(records, definition):
    """[(case, result)] of the results LAVA logged for @definition, in order."""
    found = []
    for record in records:
        msg = record.get("msg")
        if record.get("lvl") == "results" and isinstance(msg, dict) \
                and msg.get("definition") == definition:
            found.append((str(msg.get("case")), str(msg.get("result"))))
    return found


def expected_results(doc):
    """[(case, result)] that LAVA must report for tools/ktap's parse @doc.

    Every indented result line, in log order: each case, and each parameter
    of a parameterized case followed by that case's own line.
    """
    def results(body, depth):
        for child in body.children:
            if child.has_body:
                yield from results(child, depth + 1)
            if depth >= 1 and child.number is not None:
                yield child

    return [(lava_case_id(case.name), LAVA_RESULT_OF.get(case.status, case.status))
            for case in results(doc.root, 0)]


def expected_verdict(doc):
    """The "result" case LAVA must report: from the last '# RESULT:' line, or None."""
    if not doc.result_lines:
        return None
    return "pass" if doc.result_lines[-1][1] == verdict.PASS else "fail"


def compare_results(expected, reported, what):
    """Problems (strings) where LAVA's @reported list differs from @expected."""
    problems = []
    if len(expected) != len(reported):
        problems.append(f"{what}: LAVA reported {len(reported)} cases, the serial log has "
                        f"{len(expected)}")
    differences = [(index, want, got) for index, (want, got)
                   in enumerate(zip(expected, reported), 1) if want != got]
    for index, want, got in differences[:SHOW_DIFFERENCES]:
        problems.append(f"{what}: case {index}: the serial log says {want[0]} {want[1]}, "
                        f"LAVA says {got[0]} {got[1]}")
    if len(differences) > SHOW_DIFFERENCES:
        problems.append(f"{what}: {len(differences) - SHOW_DIFFERENCES} more differences")
    if len(reported) > len(expected):
        for case, result in reported[len(expected):][:SHOW_DIFFERENCES]:
            problems.append(f"{what}: LAVA reported {case} {result}, not in the serial log")
    elif len(expected) > len(reported):
        for case, result in expected[len(reported):][:SHOW_DIFFERENCES]:
            problems.append(f"{what}: the serial log's {case} {result} is missing in LAVA's "
                            f"results")
    return problems


def job_problems(records):
    """Problems with LAVA's own result for the job (an infrastructure failure)."""
    jobs = [r["msg"] for r in records if r.get("lvl") == "results"
            and isinstance(r.get("msg"), dict) and r["msg"].get("definition") == "lava"
            and r["msg"].get("case") == "job"]
    if not jobs:
        return ["LAVA logged no result for the job (lava-run died?)"]
    job = jobs[-1]
    if job.get("result") != "pass":
        return [f"the LAVA job failed: {job.get('error_type', '?')}: "
                f"{job.get('error_msg', '?')}"]
    return []


def check_records(records, ktap, expect="pass", label="serial log"):
    """Return (problems, summary) comparing LAVA's results with tools/ktap's parse."""
    text = serial_text(records)
    doc = ktap.parse(text, label=label)
    checked = ktap.check(doc)
    problems = job_problems(records)
    expected = expected_results(doc)
    reported = reported_results(records, CASES_DEFINITION)
    problems += compare_results(expected, reported, CASES_DEFINITION)
    expected_result = expected_verdict(doc)
    verdicts = reported_results(records, VERDICT_DEFINITION)
    want = [(VERDICT_CASE, expected_result)] if expected_result else []
    problems += compare_results(want, verdicts, VERDICT_DEFINITION)
    got = "pass" if checked.ok else "fail"
    if got != expect:
        problems.append(f"tools/ktap judges the serial log {got}, expected {expect}")
    counts = {}
    for _, result in reported:
        counts[result] = counts.get(result, 0) + 1
    summary = (f"LAVA reported {len(reported)} cases ("
               + ", ".join(f"{counts[k]} {k}" for k in sorted(counts))
               + f") and verdict {verdicts[-1][1] if verdicts else 'none'}; "
               f"tools/ktap found {len(expected)} cases and judges the log {got}")
    return problems, summary


def check_log(path, expect, serial_out=None):
    with open(path, encoding="utf-8", errors="replace") as stream:
        records, problems = decode_records(stream.read().split("\n"))
    if serial_out:
        with open(serial_out, "w", encoding="utf-8") as stream:
            stream.write(serial_text(records))
    more, summary = check_records(records, ktap, expect, label=serial_out or path)
    problems += more
    for problem in problems:
        print(f"lava: {problem}")
    print(f"lava: {summary}")
    print(f"lava: {'FAIL' if problems else 'PASS'} ({path})")
    return EXIT_FAILED if problems else EXIT_OK


def validate_files(jobs, devices):
    """Problems lava_common's own schemas find in job and device files."""
    import yaml
    from lava_common.schemas import validate as validate_job
    from lava_common.schemas.device import validate as validate_device

    problems = []
    for path, check in [(p, validate_job) for p in jobs] + [(p, validate_device) for p in devices]:
        with open(path, encoding="utf-8") as stream:
            text = stream.read()
        try:
            check(yaml.safe_load(text.replace(ISO_PLACEHOLDER, "/dev/null")))
        except Exception as error:      # voluptuous.Invalid and friends
            problems.append(f"{path}: {error}")
        else:
            print(f"lava: {path}: valid for lava-dispatcher's schema")
    return problems


def render_job(template, iso):
    if ISO_PLACEHOLDER not in template:
        raise ValueError(f"the job template has no {ISO_PLACEHOLDER}")
    return template.replace(ISO_PLACEHOLDER, os.path.abspath(iso))


def render_device(device_text, cmdline):
    """The device dictionary, plus the fw_cfg command line file when @cmdline is set.

    On a LAVA server the job's context: extra_options reaches the device
    template's "extra"; the local dispatcher has no template, so it is added
    here.  QEMU's -fw_cfg string= value escapes a comma by doubling it, and
    LAVA splits the QEMU command at spaces, so a command line with white space
    is refused.
    """
    import yaml

    device = yaml.safe_load(device_text)
    if cmdline:
        if re.search(r"\s", cmdline):
            raise ValueError("--cmdline with white space cannot pass through LAVA's command")
        qemu = device["actions"]["boot"]["methods"]["qemu"]["parameters"]
        qemu.setdefault("extra", []).append(
            "-fw_cfg name=opt/trigos/cmdline,string=" + cmdline.replace(",", ",,"))
    return yaml.safe_dump(device, default_flow_style=False, sort_keys=False)


def run(args):
    lava_run = shutil.which(args.lava_run)
    if not lava_run:
        print(f"lava: {args.lava_run} not found: install lava-dispatcher "
              f"(tools/deps --with lava)", file=sys.stderr)
        return EXIT_USAGE
    if not os.path.isfile(args.iso):
        print(f"lava: no ISO at {args.iso} (make iso)", file=sys.stderr)
        return EXIT_USAGE
    os.makedirs(args.out, exist_ok=True)
    with open(JOB_TEMPLATE, encoding="utf-8") as stream:
        job = render_job(stream.read(), args.iso)
    with open(DEVICE_DICTIONARY, encoding="utf-8") as stream:
        try:
            device = render_device(stream.read(), args.cmdline)
        except ValueError as error:
            print(f"lava: {error}", file=sys.stderr)
            return EXIT_USAGE
    job_path = os.path.join(args.out, "job.yaml")
    device_path = os.path.join(args.out, "device.yaml")
    log_path = os.path.join(args.out, "lava.log")
    for path, text in ((job_path, job), (device_path, device)):
        with open(path, "w", encoding="utf-8") as stream:
            stream.write(text)
    # The job id names LAVA's scratch directory (/var/lib/lava/dispatcher/tmp/ID):
    # the process id keeps two runs apart.
    job_id = str(args.job_id or os.getpid())
    command = [lava_run, "--device", device_path, "--job-id", job_id,
               "--output-dir", os.path.join(args.out, "out"), job_path]
    print("lava: " + " ".join(command) + f" > {log_path}")
    with open(log_path, "w", encoding="utf-8") as log:
        status = subprocess.call(command, stdout=log, stderr=subprocess.STDOUT)
    print(f"lava: lava-run exited {status}")
    return check_log(log_path, args.expect, os.path.join(args.out, "serial.log"))


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="lava", description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    run_parser = sub.add_parser("run", help="run the qemu job with lava-run, then check it")
    run_parser.add_argument("--iso", default=os.path.join("build", "trigos.iso"))
    run_parser.add_argument("--out", default=os.path.join("build", "lava", "qemu"),
                            help="directory for the job, device, LAVA log and serial log")
    run_parser.add_argument("--cmdline", default="",
                            help="kernel command line (fw_cfg opt/trigos/cmdline)")
    run_parser.add_argument("--job-id", type=int, default=0)
    run_parser.add_argument("--lava-run", default="lava-run")
    check_parser = sub.add_parser("check", help="check the log of a lava-run")
    check_parser.add_argument("log")
    check_parser.add_argument("--serial-out", help="also write the serial console here")
    for sub_parser in (run_parser, check_parser):
        sub_parser.add_argument("--expect", choices=("pass", "fail"), default="pass",
                                help="tools/ktap's verdict the serial log must have")
    validate_parser = sub.add_parser("validate", help="check job and device files against "
                                     "lava_common's schemas")
    validate_parser.add_argument("--device", action="append", default=[],
                                 help="a device dictionary (repeatable)")
    validate_parser.add_argument("jobs", nargs="*", help="job definitions")
    args = parser.parse_args(argv)
    if args.command == "run":
        return run(args)
    if args.command == "validate":
        problems = validate_files(args.jobs, args.device)
        for problem in problems:
            print(f"lava: {problem}")
        return EXIT_FAILED if problems else EXIT_OK
    return check_log(args.log, args.expect, args.serial_out)
