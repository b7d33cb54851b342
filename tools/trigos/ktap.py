#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check KTAP v1 logs: the trigos kernel's serial console and `make check`.

A log passes only when it holds a complete, well-formed KTAP document in which
nothing failed and its last non-empty line is "# RESULT: PASS".  Anything that
is missing (a plan, a result, the RESULT line) is a failure: a kernel that
died half-way must never look green.  So is a run that ran no case at all, or
whose kernel named a test=/bench= pattern that selects nothing: a typo in a CI
job's selection must not look green either.

The checker is also a module (trigos.ktap): matrix, lava, run and the
tests import it and use parse(), check() and junit_element().

KTAP v1 as parsed here (docs/ktap.md):

    KTAP version 1                  the document starts at the first line that is
    1..S                            exactly this, at column 0; anything before is noise
        KTAP version 1              a subtest: 4 more spaces of indentation per level
        # Subtest: <suite>
        1..C
        # <case>: <diagnostic>      diagnostics precede the result they explain
        ok 1 <case>
        not ok 2 <case> # ERROR #PF page fault
        ok 3 <case> # SKIP <reason>
            KTAP version 1          a parameterized case, as KUnit prints one
            # Subtest: <case>
            1..P
            ok 1 <parameter description>
        # <case>: pass:P fail:F skip:K total:T
        ok 4 <case>
        # <suite>: pass:1 fail:1 skip:1 total:3   (parameters counted one by one)
    not ok 1 <suite>
    # Totals: pass:P fail:F skip:K total:T
    # RESULT: PASS | FAIL | CRASH
"""

import argparse
import difflib
import os
import re
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

from . import verdict
from .verdict import RESULT_PREFIX

KTAP_HEADER = "KTAP version 1"
INDENT_WIDTH = 4
# Deeper nesting than this is garbage, not KTAP (trigos nests 3 levels: suites,
# cases, the parameters of a parameterized case): it
# fails the log instead of being built into a tree whose recursive checks
# would exceed Python's recursion limit.
MAX_NESTING = 64

# How an all-skipped run (no case passed, none failed) is judged.
SKIP_ONLY_MODES = ("warn", "pass", "fail")

_PLAN = re.compile(r"1\.\.([0-9]+)(?:\s*#.*)?")
_RESULT = re.compile(r"(ok|not ok) ([0-9]+)(?: (.*))?")
# A result description holding another result or a KTAP line: interleaved output.
_GARBLED = re.compile(r"(?:^|\s)(?:not )?ok [0-9]+(?:\s|$)|KTAP version|# Subtest:")
_COUNTS = re.compile(r"(\S+): pass:([0-9]+) fail:([0-9]+) skip:([0-9]+) total:([0-9]+)\s*")
# The kernel's word on a test= or bench= pattern that selects no case
# (docs/ktap.md): such a run fails, and the check names the pattern.
_UNMATCHED_PATTERN = re.compile(r"# ((?:test|bench)=.*): no suite or case matches this pattern")
# The kernel's word on a trigger= backend the machine cannot run: such a run
# fails too (the tests ran on another backend).
_REFUSED_REQUEST = re.compile(r"# ((?:trigger)=\S+ cannot run: .*): the run fails.*")


# Text longer than this is cut in messages and reports: a runaway line of
# garbage must not turn a report into megabytes.
_SHOW_MAX = 200


def _shorten(text, limit=_SHOW_MAX):
    """Return @text cut to @limit characters, marking the cut."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"... ({len(text) - limit} more characters)"


@dataclass
class Test:
    """One test of the tree: the document root, a suite or a case.

    A test has a *body* (the more indented lines before its result line:
    header, plan, the results of its own subtests) when it is a suite; a case
    has none.  The root's body is the whole document at column 0.
    """
    name: str = ""
    number: int = None
    # "pass", "fail", "error", "skip"; "missing" for a body that never got a
    # result line (the root, or a subtest whose parent line never came).
    status: str = "missing"
    directive: str = ""
    line: int = None                # line number of the result line (1-based)
    level: int = 0                  # indentation level of the body
    has_body: bool = False
    body_line: int = None           # first line of the body
    subtest_name: str = None        # from "# Subtest: NAME"
    plan: int = None
    plan_line: int = None
    children: list = field(default_factory=list)
    # Diagnostics that preceded this test's result line at its own level.
    diagnostics: list = field(default_factory=list)
    # Diagnostics inside the body not yet claimed by a child's result line.
    pending: list = field(default_factory=list)
    # "# NAME: pass:P fail:F skip:K total:T" lines inside the body.
    counts_lines: list = field(default_factory=list)

    def leaves(self):
        """Yield the cases (tests without a body) below this test."""
        for child in self.children:
            if child.has_body:
                yield from child.leaves()
            else:
                yield child

    def display_name(self):
        return self.subtest_name or self.name or "?"


@dataclass
class Document:
    """What parse() found in one log."""
    label: str
    root: Test
    line_count: int = 0
    ktap_line: int = None           # line of "KTAP version 1", None if absent
    last_line: str = ""             # last non-empty line of the whole log
    last_line_number: int = 0
    result_lines: list = field(default_factory=list)    # (line, value) of "# RESULT: X"
    totals: tuple = None            # (line, pass, fail, skip, total)
    structure_problems: list = field(default_factory=list)
    warnings: list = field(default_factory=list)
    unknown_lines: int = 0
    # Where the last result was printed: (case, suite path) for messages.
    open_path: list = field(default_factory=list)
    last_result: Test = None
    # Diagnostics printed after the last result (a panic dump, say).
    trailing_diagnostics: list = field(default_factory=list)
    too_deep_lines: int = 0         # lines nested deeper than MAX_NESTING
    unmatched_patterns: list = field(default_factory=list)  # (line, "test=GLOB")
    refused_requests: list = field(default_factory=list)    # (line, "trigger=X cannot run: ...")


def _blank(line):
    """Only spaces and tabs: an empty line (other control characters are not)."""
    return not line.strip(" \t\r")


def _decode(data):
    if isinstance(data, bytes):
        return data.decode("utf-8", errors="replace")
    return data


def last_line(data):
    """(line number, text) of the last non-blank line of a log (bytes or str).

    The one rule for a log's last line, which must be the '# RESULT:' line
    (tools/run's verdict uses it too): lines end at LF, a trailing CR is
    removed, a line of nothing but spaces, tabs and CRs is blank.  (0, "")
    when every line is blank.
    """
    lines = _decode(data).split("\n")
    for number in range(len(lines) - 1, -1, -1):
        stripped = lines[number].rstrip("\r")
        if not _blank(stripped):
            return number + 1, stripped
    return 0, ""


def _classify(content):
    """Return (kind, match-or-text) for a line with its indentation removed."""
    if content == KTAP_HEADER:
        return "version", None
    if content.startswith("KTAP version ") or content.startswith("TAP version "):
        return "other-version", content
    if content.startswith("# Subtest:"):
        return "subtest", content[len("# Subtest:"):].strip()
    if content.startswith("1.."):
        match = _PLAN.fullmatch(content)
        if match:
            return "plan", int(match.group(1))
    if content.startswith("ok") or content.startswith("not ok"):
        match = _RESULT.fullmatch(content)
        if match:
            return "result", match
    if content.startswith("#"):
        return "diagnostic", content[1:].strip()
    return "unknown", content


def _split_description(rest):
    """Split "name # DIRECTIVE text" into (name, directive text)."""
    if rest is None:
        return "", ""
    if rest.startswith("#"):
        return "", rest[1:].strip()
    cut = rest.find(" #")
    if cut < 0:
        return rest.strip(), ""
    return rest[:cut].strip(), rest[cut + 2:].strip()


def _status_of(ok, directive):
    word = directive.split(None, 1)[0].upper() if directive else ""
    if word in ("SKIP", "TODO"):
        return "skip"
    if ok:
        return "pass"
    if word in ("ERROR", "TIMEOUT"):
        return "error"
    return "fail"


class _Parser:
    """Line-by-line builder of the test tree.

    stack[i] is the open body at indentation level i; stack[0] is the root.
    A result line at level L closes the body at level L+1 (that body becomes
    the result's subtest) and is appended to the body at level L.
    """

    def __init__(self, doc):
        self.doc = doc
        self.stack = [doc.root]

    def problem(self, line, text):
        self.doc.structure_problems.append(f"line {line}: {text}")

    def _orphan(self, body, reason_line):
        """Close @body, which never received its result line."""
        self.problem(body.body_line or reason_line,
                     f"subtest '{body.display_name()}' has no result line "
                     f"at indentation {(body.level - 1) * INDENT_WIDTH}")
        body.status = "missing"
        parent = self.stack[-1]
        parent.children.append(body)

    def close_deeper_than(self, level, line):
        while len(self.stack) - 1 > level:
            body = self.stack.pop()
            self._orphan(body, line)

    def open_to(self, level, line):
        while len(self.stack) - 1 < level:
            self.stack.append(Test(level=len(self.stack), has_body=True, body_line=line))

    def header(self, level, line, kind, value):
        """A body-opening line at @level >= 1: version, subtest name or plan."""
        self.close_deeper_than(level, line)
        if len(self.stack) - 1 == level and kind in ("version", "subtest"):
            body = self.stack[-1]
            if body.plan is not None or body.children or body.subtest_name is not None:
                # The previous subtest at this level is over, but its parent
                # never printed the result line that closes it.
                self.stack.pop()
                self._orphan(body, line)
        self.open_to(level, line)
        body = self.stack[-1]
        if kind == "subtest":
            body.subtest_name = value
        elif kind == "plan":
            self.plan(body, line, value)

    def plan(self, body, line, value):
        if body.plan is not None:
            self.problem(line, f"a second plan 1..{value} (the first, 1..{body.plan}, "
                               f"is at line {body.plan_line})")
            return
        body.plan = value
        body.plan_line = line

    def result(self, level, line, match):
        self.close_deeper_than(level + 1, line)
        if len(self.stack) - 1 == level + 1:
            test = self.stack.pop()
        else:
            test = Test(level=level + 1)
        self.open_to(level, line)
        ok = match.group(1) == "ok"
        test.number = int(match.group(2))
        test.name, test.directive = _split_description(match.group(3))
        test.status = _status_of(ok, test.directive)
        test.line = line
        parent = self.stack[-1]
        test.diagnostics = parent.pending
        parent.pending = []
        parent.children.append(test)
        self.doc.last_result = test
        self.doc.trailing_diagnostics = []
        if _GARBLED.search(test.name) or "    " in test.name:
            self.problem(line, f"garbled result line '{_shorten(match.group(0))}' "
                               f"(two CPUs' output interleaved?)")
        word = test.directive.split(None, 1)[0].upper() if test.directive else ""
        if word and word not in ("SKIP", "TODO", "ERROR", "TIMEOUT"):
            self.doc.warnings.append(f"line {line}: unknown directive "
                                     f"'# {_shorten(test.directive)}' after "
                                     f"'{_shorten(test.name)}'")

    def diagnostic(self, level, line, text):
        level = min(level, len(self.stack) - 1)
        body = self.stack[level]
        counts = _COUNTS.fullmatch(text)
        if counts:
            name = counts.group(1)
            numbers = tuple(int(counts.group(i)) for i in range(2, 6))
            if level == 0 and name == "Totals":
                if self.doc.totals is not None:
                    self.problem(line, "a second '# Totals:' line")
                self.doc.totals = (line,) + numbers
                return
            body.counts_lines.append((line, name) + numbers)
            return
        self.doc.trailing_diagnostics.append((line, text))
        body.pending.append((line, text))

    def finish(self):
        """At the end of the log: close what is still open, for the counts."""
        self.doc.open_path = list(self.stack)
        self.close_deeper_than(0, self.doc.line_count)


def parse(data, label="log"):
    """Parse a log (bytes or str) into a Document holding the test tree.

    Never raises on malformed input: what does not fit the grammar is either
    ignored as noise (before the KTAP header, or unknown lines) or recorded
    as a structure problem.
    """
    text = _decode(data)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    doc = Document(label=label, root=Test(name=label, level=0, has_body=True))
    doc.line_count = len(lines)
    doc.last_line_number, doc.last_line = last_line(text)

    parser = _Parser(doc)
    for index, raw in enumerate(lines):
        line_number = index + 1
        line = raw.rstrip("\r")
        if doc.ktap_line is None:
            if line == KTAP_HEADER:
                doc.ktap_line = line_number
                doc.root.body_line = line_number
            continue
        if _blank(line):
            continue
        content = line.lstrip(" ")
        indent = len(line) - len(content)
        if indent % INDENT_WIDTH or content[:1].isspace():
            doc.unknown_lines += 1
            continue
        level = indent // INDENT_WIDTH
        if level > MAX_NESTING:
            if not doc.too_deep_lines:
                parser.problem(line_number, f"nested {level} levels deep (more than "
                                            f"{MAX_NESTING}): not KTAP; ignored")
            doc.too_deep_lines += 1
            continue
        if line.startswith(RESULT_PREFIX):
            # The verdict counts only at column 0, spelt exactly.
            doc.result_lines.append((line_number, line[len(RESULT_PREFIX):].rstrip(" \t")))
            continue
        unmatched = _UNMATCHED_PATTERN.fullmatch(line.rstrip(" \t"))
        if unmatched:
            doc.unmatched_patterns.append((line_number, unmatched.group(1)))
        refused = _REFUSED_REQUEST.fullmatch(line.rstrip(" \t"))
        if refused:
            doc.refused_requests.append((line_number, refused.group(1)))
        kind, value = _classify(content)
        if kind == "version":
            if level == 0:
                # A second document at column 0: the machine rebooted, or two
                # runs were written to one log.  Keep the latest.
                parser.problem(line_number, "'KTAP version 1' again at column 0 (a reboot? "
                                            "two runs in one log?); checking the last one")
                doc.root = Test(name=label, level=0, has_body=True, body_line=line_number)
                doc.totals = None
                doc.result_lines = []
                doc.last_result = None
                doc.trailing_diagnostics = []
                doc.unmatched_patterns = []
                doc.refused_requests = []
                parser.stack = [doc.root]
                doc.ktap_line = line_number
            else:
                parser.header(level, line_number, "version", None)
        elif kind == "subtest":
            if level == 0:
                parser.diagnostic(level, line_number, content[1:].strip())
            else:
                parser.header(level, line_number, "subtest", value)
        elif kind == "plan":
            if level == 0:
                parser.close_deeper_than(0, line_number)
                parser.plan(doc.root, line_number, value)
            else:
                parser.header(level, line_number, "plan", value)
        elif kind == "result":
            parser.result(level, line_number, value)
        elif kind == "diagnostic":
            parser.diagnostic(level, line_number, value)
        elif kind == "other-version":
            parser.problem(line_number, f"unsupported '{_shorten(value)}' (only KTAP version 1)")
        else:
            doc.unknown_lines += 1
    parser.finish()
    return doc


# What an outline masks in a directive's text (a SKIP's reason, an ERROR's
# fault): addresses first, then any other number - timings, cycles, counts.
_MASKED = re.compile(r"(0x[0-9a-fA-F]+)|[0-9]+(?:\.[0-9]+)?")


def mask_numbers(text):
    """@text with every address as 0x? and every other number as N."""
    return _MASKED.sub(lambda match: "0x?" if match.group(1) else "N", text)


def outline(doc):
    """The KTAP skeleton of a parsed log, a list of lines to compare two runs by.

    It keeps what the grammar says a run did - every suite's name and plan,
    every result line's status, number and name, the directive with its
    numbers masked, the totals and the verdict - and drops the diagnostics,
    whose timings, cycles and counts differ from one boot of the same build
    to the next.  Two runs with the same outline ran the same cases with the
    same verdicts.
    """
    lines = []

    def walk(test, level):      # @level: the indentation of @test's result line
        root = test is doc.root
        if test.has_body:
            body = "" if root else "    " * (level + 1)
            if not root:
                lines.append(f"{body}# Subtest: {test.display_name()}")
            lines.append(f"{body}1..{test.plan if test.plan is not None else '?'}")
            for child in test.children:
                walk(child, 0 if root else level + 1)
        if not root:
            directive = f" # {mask_numbers(test.directive)}" if test.directive else ""
            lines.append(f"{'    ' * level}{test.status} {test.number} {test.name}{directive}")

    walk(doc.root, 0)
    if doc.totals:
        lines.append("# Totals: pass:%d fail:%d skip:%d total:%d" % tuple(doc.totals[1:]))
    lines.append(f"{RESULT_PREFIX}{doc.result_lines[-1][1] if doc.result_lines else '(none)'}")
    return lines


def _outline_file(path):
    with open(path, "rb") as handle:
        return outline(parse(handle.read(), label=path))


def compare(old, new, out=sys.stdout, context=3, limit=40):
    """Compare the outlines of two logs, or of the same-named logs of two directories.

    Prints each log whose outline differs (a unified diff of at most @limit
    lines), each log found on one side only, and a closing line; returns the
    exit status: 0 every log in both has the same outline, 1 otherwise.
    """
    if os.path.isdir(old) and os.path.isdir(new):
        old_names = {n for n in os.listdir(old) if n.endswith(".log")}
        new_names = {n for n in os.listdir(new) if n.endswith(".log")}
        pairs = [(os.path.join(old, n), os.path.join(new, n), n)
                 for n in sorted(old_names & new_names)]
        only_old, only_new = sorted(old_names - new_names), sorted(new_names - old_names)
    elif os.path.isfile(old) and os.path.isfile(new):
        pairs, only_old, only_new = [(old, new, os.path.basename(new))], [], []
    else:
        print(f"ktap: --compare takes two logs or two directories of logs: {old}, {new}",
              file=out)
        return 2
    differ = 0
    for old_path, new_path, name in pairs:
        diff = list(difflib.unified_diff(_outline_file(old_path), _outline_file(new_path),
                                         old_path, new_path, n=context, lineterm=""))
        if diff:
            differ += 1
            print(f"{name}: the outlines differ", file=out)
            for line in diff[:limit]:
                print(f"    {line}", file=out)
            if len(diff) > limit:
                print(f"    ... {len(diff) - limit} more lines", file=out)
    for name in only_old:
        print(f"{name}: only in {old}", file=out)
    for name in only_new:
        print(f"{name}: only in {new}", file=out)
    print(f"{len(pairs) - differ} identical, {differ} differ, {len(only_old)} only in the old, "
          f"{len(only_new)} only in the new", file=out)
    return 0 if differ == 0 and not only_old and not only_new else 1


@dataclass
class SuiteSummary:
    name: str
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    errors: int = 0
    status: str = ""


@dataclass
class Check:
    """The verdict on one log."""
    label: str
    ok: bool = False
    problems: list = field(default_factory=list)
    warnings: list = field(default_factory=list)
    passed: int = 0
    failed: int = 0                 # failed cases, errors included
    skipped: int = 0
    errors: int = 0
    suites: list = field(default_factory=list)
    failures: list = field(default_factory=list)    # (path, Test) of failed cases
    document: Document = None
    result: str = None              # value of the final "# RESULT:" line, if last
    where: str = ""                 # where the output stopped, for messages
    dump: list = field(default_factory=list)        # panic dump lines

    @property
    def counted_failed(self):
        """Failures for the closing line: a bad log counts at least one."""
        if not self.ok and self.failed == 0:
            return 1
        return self.failed


def _count(test, summary):
    for leaf in test.leaves():
        if leaf.status == "pass":
            summary.passed += 1
        elif leaf.status == "skip":
            summary.skipped += 1
        elif leaf.status == "error":
            summary.errors += 1
        else:
            summary.failed += 1


def _check_body(body, path, problems):
    """Check plan, numbering and names of @body and of every body below it."""
    where = f"suite '{'/'.join(path)}'" if path else "the top level"
    results = [child for child in body.children if child.number is not None]
    if body.plan is None:
        if body.level == 0:
            problems.append(f"no plan '1..N' at the top level (line {body.body_line})")
        else:
            problems.append(f"{where} (line {body.body_line}) has no plan '1..N'")
    elif len(results) != body.plan:
        missing = body.plan - len(results)
        if missing > 0:
            problems.append(f"{where} planned {body.plan} results (line {body.plan_line}) but "
                            f"{len(results)} arrived: {missing} missing")
        else:
            problems.append(f"{where} planned {body.plan} results (line {body.plan_line}) but "
                            f"{len(results)} arrived: {-missing} too many")
    for expected, child in enumerate(results, start=1):
        if child.number != expected:
            problems.append(f"line {child.line}: result number {child.number} where {expected} "
                            f"was expected in {where}")
            break
    for child in body.children:
        child_path = path + [child.display_name()]
        if child.has_body:
            if (child.subtest_name is not None and child.number is not None and
                    child.name != child.subtest_name):
                problems.append(f"line {child.line}: result name '{_shorten(child.name)}' differs "
                                f"from '# Subtest: {_shorten(child.subtest_name)}' "
                                f"(line {child.body_line})")
            _check_body(child, child_path, problems)
            summary = SuiteSummary(child.display_name())
            _count(child, summary)
            # A parameterized case's "# CASE: pass:..." line is in its suite's body.
            counted = {grandchild.display_name(): grandchild for grandchild in child.children
                       if grandchild.has_body}
            counted[child.display_name()] = child
            for line, name, passed, failed, skipped, total in child.counts_lines:
                if name not in counted:
                    continue
                summary = SuiteSummary(name)
                _count(counted[name], summary)
                if (passed, failed, skipped, total) != (summary.passed,
                                                       summary.failed + summary.errors,
                                                       summary.skipped,
                                                       summary.passed + summary.failed +
                                                       summary.errors + summary.skipped):
                    problems.append(
                        f"line {line}: '# {name}: pass:{passed} fail:{failed} skip:{skipped} "
                        f"total:{total}' disagrees with the results counted: "
                        f"pass:{summary.passed} fail:{summary.failed + summary.errors} "
                        f"skip:{summary.skipped}")
        # After the cases of a suite, so that the failed case is named first.
        if child.status in ("fail", "error"):
            directive = f" # {_shorten(child.directive)}" if child.directive else ""
            problems.append(f"line {child.line}: not ok {child.number} "
                            f"{_shorten('/'.join(child_path))}{directive}")


def _stop_location(doc):
    """Describe where the output stopped, as 'after case X of suite Y'."""
    stack = doc.open_path
    if len(stack) > 1:
        body = stack[-1]
        names = [b.display_name() for b in stack[1:]]
        suite = "/".join(names)
        if body.children:
            return f"after case {body.children[-1].display_name()} of suite {suite}"
        return f"before the first case of suite {suite}"
    root = stack[0] if stack else doc.root
    if root.children:
        count = f" of {root.plan}" if root.plan is not None else ""
        return (f"after suite {root.children[-1].display_name()} "
                f"({len(root.children)}{count})")
    return "before the first suite"


def check(doc, skip_only="warn"):
    """Judge a parsed Document; returns a Check.

    @skip_only says what a run in which cases ran, none passed and none
    failed (all skipped) means: "warn" passes with a warning, "pass" passes
    quietly, "fail" fails.  A run without any case fails whatever @skip_only
    says, as does one whose kernel named a test=/bench= pattern that selects
    nothing.
    """
    result = Check(label=doc.label, document=doc)
    problems = result.problems
    result.warnings.extend(doc.warnings)
    if doc.ktap_line is None:
        if doc.line_count == 0:
            problems.append("the log is empty (QEMU or the firmware printed nothing)")
        else:
            problems.append(f"no KTAP found: no line is exactly '{KTAP_HEADER}' "
                            f"({doc.line_count} lines; the kernel did not start or did not "
                            f"reach its tests)")
        return result

    root = doc.root
    problems.extend(doc.structure_problems)
    _check_body(root, [], problems)

    for child in root.children:
        summary = SuiteSummary(child.display_name(), status=child.status)
        if child.has_body:
            _count(child, summary)
        else:
            _count(Test(children=[child]), summary)
        result.suites.append(summary)
        result.passed += summary.passed
        result.failed += summary.failed + summary.errors
        result.errors += summary.errors
        result.skipped += summary.skipped
    for leaf_path, leaf in _walk_leaves(root, []):
        if leaf.status in ("fail", "error", "missing"):
            result.failures.append((leaf_path, leaf))

    if doc.totals is not None:
        line, passed, failed, skipped, total = doc.totals
        counted = (result.passed, result.failed, result.skipped,
                   result.passed + result.failed + result.skipped)
        if (passed, failed, skipped, total) != counted:
            problems.append(f"line {line}: '# Totals: pass:{passed} fail:{failed} "
                            f"skip:{skipped} total:{total}' disagrees with the results "
                            f"counted: pass:{counted[0]} fail:{counted[1]} skip:{counted[2]} "
                            f"total:{counted[3]}")

    result.where = _stop_location(doc)
    result.dump = [text for _, text in doc.trailing_diagnostics]
    findings = []
    last = doc.last_line
    if doc.result_lines and doc.result_lines[-1][0] == doc.last_line_number:
        value = doc.result_lines[-1][1]
        result.result = value
        if value == verdict.PASS:
            pass
        elif value == verdict.FAIL:
            findings.append(f"the kernel reported '{RESULT_PREFIX}{value}' "
                            f"(line {doc.last_line_number})")
        elif value == verdict.CRASH:
            findings.append(f"the kernel crashed ('{RESULT_PREFIX}{value}', line "
                            f"{doc.last_line_number}) {result.where}")
        elif value == verdict.SKIP and result.passed == 0 and result.failed == 0:
            pass
        else:
            findings.append(f"unknown verdict '{RESULT_PREFIX}{_shorten(value)}' "
                            f"(line {doc.last_line_number}; expected PASS, FAIL or CRASH)")
    elif doc.result_lines:
        line, value = doc.result_lines[-1]
        findings.append(f"the log goes on after '{RESULT_PREFIX}{_shorten(value)}' (line {line}): "
                        f"its last line ({doc.last_line_number}) is '{_shorten(last)}'")
    else:
        findings.append(f"no RESULT line: the kernel crashed or hung {result.where} "
                        f"(last line {doc.last_line_number}: '{_shorten(last)}')")
    # A selection that runs nothing, or names what does not exist, is no
    # pass whatever the kernel said: a typo in test= must not go green.
    findings += [f"line {line}: {_shorten(pattern)} selects no test case"
                 for line, pattern in doc.unmatched_patterns]
    findings += [f"line {line}: {_shorten(request)}: what was asked for was not tested"
                 for line, request in doc.refused_requests]
    if result.passed + result.failed + result.skipped == 0 and not doc.structure_problems and \
            result.result in (verdict.PASS, verdict.FAIL, verdict.SKIP):
        findings.append("no test case ran: a run that selects nothing fails")
    problems[:0] = findings

    if not problems and result.passed == 0:
        if skip_only == "fail":
            problems.append("all cases were skipped (--skip-only fail)")
        elif skip_only == "warn":
            result.warnings.append("all cases were skipped: nothing was tested")
    result.ok = not problems
    return result


def _walk_leaves(body, path):
    for child in body.children:
        child_path = path + [child.display_name()]
        if child.has_body:
            if child.status == "missing" and not child.children:
                yield child_path, child
            yield from _walk_leaves(child, child_path)
        else:
            yield child_path, child


def check_file(path, label=None, skip_only="warn"):
    """Read and check the log at @path; an unreadable file is a failed check."""
    label = label or path
    try:
        with open(path, "rb") as log:
            data = log.read()
    except OSError as error:
        result = Check(label=label)
        result.problems.append(f"cannot read the log: {error.strerror or error}")
        return result
    return check(parse(data, label), skip_only)


# --- JUnit XML ----------------------------------------------------------------

_XML_INVALID = re.compile("[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml_text(text):
    """Make @text safe for XML 1.0: drop the characters it cannot hold."""
    return _XML_INVALID.sub("\ufffd", text)


def _junit_case(parent, classname, name, test=None, failure=None, error=None, time=None):
    case = ET.SubElement(parent, "testcase", classname=_xml_text(classname),
                         name=_xml_text(name))
    if time is not None:
        case.set("time", f"{time:.3f}")
    diagnostics = "\n".join(_shorten(text, 2000) for _, text in (test.diagnostics if test else []))
    if failure is not None:
        element = ET.SubElement(case, "failure", message=_xml_text(_shorten(failure)))
        element.text = _xml_text(diagnostics or failure)
    elif error is not None:
        element = ET.SubElement(case, "error", message=_xml_text(_shorten(error)))
        element.text = _xml_text(diagnostics or error)
    elif test is not None and test.status == "skip":
        reason = test.directive.split(None, 1)[1] if " " in test.directive else ""
        ET.SubElement(case, "skipped", message=_xml_text(_shorten(reason)))
    return case


def junit_element(checks, extra_problems=None, prefix_labels=None):
    """Build a <testsuites> element: one <testsuite> per KTAP suite.

    Each KTAP result without subtests is a <testcase> (a parameter of a
    parameterized case is one, named "case/parameter"), so the counts are
    the KTAP's.  Log-level problems (a crash, a missing plan, no RESULT line)
    are reported in a "<label>/log" <testsuite> of no test case, as its
    <system-err> and a "verdict" property.  @extra_problems maps a label to more such messages (e.g. a timeout
    that tools/matrix saw).  Suite names get "<label>/" in front when
    @prefix_labels is true (by default, when there are several logs).
    """
    extra_problems = extra_problems or {}
    if prefix_labels is None:
        prefix_labels = len(checks) > 1
    top = ET.Element("testsuites")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for result in checks:
        prefix = f"{result.label}/" if prefix_labels else ""
        root = result.document.root if result.document else None
        groups = []
        loose = []
        if root is not None:
            for child in root.children:
                if child.has_body:
                    groups.append((child.display_name(), child))
                else:
                    loose.append(child)
        if loose:
            groups.insert(0, ("top-level", Test(children=loose, has_body=True)))
        for suite_name, suite in groups:
            element = ET.SubElement(top, "testsuite", name=_xml_text(prefix + suite_name))
            counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
            for path, leaf in _walk_leaves(suite, []):
                classname = prefix + suite_name
                name = "/".join(path)
                counts["tests"] += 1
                if leaf.status == "fail":
                    counts["failures"] += 1
                    _junit_case(element, classname, name, leaf,
                                failure=f"not ok {leaf.number} {leaf.name}" +
                                (f" # {leaf.directive}" if leaf.directive else ""))
                elif leaf.status in ("error", "missing"):
                    counts["errors"] += 1
                    message = (f"not ok {leaf.number} {leaf.name} # {leaf.directive}"
                               if leaf.status == "error" else "no result line")
                    _junit_case(element, classname, name, leaf, error=message)
                else:
                    if leaf.status == "skip":
                        counts["skipped"] += 1
                    _junit_case(element, classname, name, leaf)
            for key, value in counts.items():
                element.set(key, str(value))
                totals[key] += value
        problems = list(result.problems) + list(extra_problems.get(result.label, []))
        if problems:
            # The log's own problems (a crash, a cut log, a timeout) are no
            # test case: the counts stay those of the KTAP's results.
            element = ET.SubElement(top, "testsuite", name=_xml_text(prefix + "log"))
            for key in totals:
                element.set(key, "0")
            properties = ET.SubElement(element, "properties")
            ET.SubElement(properties, "property", name="verdict",
                          value=verdict.PASS if result.ok else verdict.FAIL)
            ET.SubElement(properties, "property", name="problem",
                          value=_xml_text(_shorten(problems[0])))
            error = ET.SubElement(element, "system-err")
            error.text = _xml_text("\n".join(problems + [f"# {line}" for line in result.dump]))
    for key, value in totals.items():
        top.set(key, str(value))
    return top


def write_junit(path, checks, extra_problems=None, prefix_labels=None):
    """Write junit_element() to the file @path (its directory is created)."""
    tree = ET.ElementTree(junit_element(checks, extra_problems, prefix_labels))
    ET.indent(tree)
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    tree.write(path, encoding="utf-8", xml_declaration=True)


# --- Reporting ----------------------------------------------------------------

def closing_line(passed, failed, skipped):
    """The plain closing line CI reads: exactly 'N passed, N failed, N skipped'."""
    return f"{passed} passed, {failed} failed, {skipped} skipped"


def report(result, quiet=False, out=sys.stdout):
    """Print the per-suite table and the problems of one Check."""
    if not quiet:
        print(f"{result.label}:", file=out)
        if result.suites:
            width = max([len("suite")] + [len(_shorten(s.name, 60)) for s in result.suites])
            print(f"  {'suite':<{width}}  {'pass':>5} {'fail':>5} {'skip':>5} {'error':>5}",
                  file=out)
            for suite in result.suites:
                print(f"  {_shorten(suite.name, 60):<{width}}  {suite.passed:>5} "
                      f"{suite.failed:>5} {suite.skipped:>5} {suite.errors:>5}", file=out)
        if result.document and result.document.unknown_lines:
            print(f"  ({result.document.unknown_lines} unrecognised lines inside the KTAP "
                  f"were ignored)", file=out)
    for warning in result.warnings:
        print(f"{result.label}: warning: {warning}", file=out)
    for problem in result.problems:
        print(f"{result.label}: {problem}", file=out)
    if result.dump and not result.ok:
        print(f"{result.label}: the last diagnostics before the end:", file=out)
        for line in result.dump[-20:]:
            print(f"    # {_shorten(line)}", file=out)
    if not quiet:
        word = verdict.PASS if result.ok else verdict.FAIL
        print(f"{result.label}: {word} (pass:{result.passed} fail:{result.failed} "
              f"skip:{result.skipped} error:{result.errors})", file=out)


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="ktap",
        description="Check KTAP v1 logs (trigos serial consoles, `make check`). A log passes "
                    "only if its KTAP is complete and well-formed (every plan met, results "
                    "numbered 1,2,3..., suite names matching their '# Subtest:' line, "
                    "totals agreeing), no result is 'not ok', and its last non-empty line is "
                    "'# RESULT: PASS'.",
        epilog="The last line printed is 'N passed, N failed, N skipped', summed over all logs "
               "(a log that fails for a reason other than a failed case counts one failure). "
               "Exit status: 0 every log passed, 1 some log failed, 2 usage error.")
    parser.add_argument("logs", nargs="+", metavar="LOG", help="serial log(s) to check; "
                        "several are checked independently and summed")
    parser.add_argument("--junit", metavar="FILE", help="also write the results as JUnit XML")
    parser.add_argument("--quiet", "-q", action="store_true",
                        help="print only problems, warnings and the closing line")
    parser.add_argument("--skip-only", choices=SKIP_ONLY_MODES, default="warn",
                        help="what a log in which every case skipped means: warn = pass "
                             "with a warning (default), pass = pass silently, fail = failure "
                             "(a log without any case, or naming a test=/bench= pattern "
                             "that selects nothing, always fails)")
    parser.add_argument("--name", metavar="LABEL",
                        help="label for the log in messages and JUnit (default: its path; "
                             "with several logs, LABEL:PATH)")
    parser.add_argument("--compare", action="store_true",
                        help="compare instead of check: OLD NEW, two logs or two directories "
                             "of logs (same names); each log's outline (suites, plans, result "
                             "lines, directives with numbers masked, totals, verdict; no "
                             "diagnostics) must be the same. Exit 0 all the same, 1 not")
    args = parser.parse_args(argv)

    if args.compare:
        if len(args.logs) != 2:
            parser.error("--compare takes two paths: OLD NEW")
        return compare(*args.logs)
    checks = []
    for path in args.logs:
        if args.name:
            label = args.name if len(args.logs) == 1 else f"{args.name}:{path}"
        else:
            label = path
        result = check_file(path, label, args.skip_only)
        checks.append(result)
        report(result, args.quiet)
    if args.junit:
        try:
            write_junit(args.junit, checks, prefix_labels=bool(args.name) or len(checks) > 1)
        except OSError as error:
            print(f"ktap: cannot write {args.junit}: {error.strerror or error}")
            checks.append(Check(label=args.junit, problems=["cannot write the JUnit file"]))
    passed = sum(c.passed for c in checks)
    failed = sum(c.counted_failed for c in checks)
    skipped = sum(c.skipped for c in checks)
    sys.stdout.flush()
    print(closing_line(passed, failed, skipped))
    return 0 if all(c.ok for c in checks) else 1
