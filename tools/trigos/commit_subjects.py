#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check commit subjects (tools/commit-subjects; `make check`).

Every commit after BASE must have a subject of at most 72 characters, then
a blank line before its body (git-commit(1): "a single short (less than 50
character) line summarizing the change, followed by a blank line and then a
more thorough description"; this project allows 72), so that
`git log --oneline` stays readable.  The history before BASE stays as it
was written.  Prints each offending commit as HASH: the rule it breaks;
the exit status is 1 if there is one, 0 otherwise (and 0, with a note,
outside a git checkout, or when BASE is not in this clone).
"""

import argparse
import subprocess

SUBJECT_MAX = 72
# The commit before the rule was adopted (issue 28): only what follows is checked.
DEFAULT_BASE = "67b368c"


def git(root, *args):
    """The output of `git @args` in @root, or None if git fails."""
    try:
        return subprocess.run(["git", "-C", root, *args], check=True, capture_output=True,
                              text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None


def problems(root, base, head="HEAD"):
    """[(hash, message)] for each commit in base..head that breaks the rule, oldest first;
    None when @base or @head is unknown here."""
    if git(root, "rev-parse", "--verify", "--quiet", f"{base}^{{commit}}") is None:
        return None
    log = git(root, "log", "--reverse", "--format=%H%x00%B%x01", f"{base}..{head}")
    if log is None:
        return None
    found = []
    for record in log.split("\x01"):
        record = record.strip("\n")
        if not record:
            continue
        commit, _, message = record.partition("\x00")
        lines = message.split("\n")
        subject = lines[0]
        if len(subject) > SUBJECT_MAX:
            found.append((commit, f"subject of {len(subject)} characters (at most "
                                  f"{SUBJECT_MAX}): {subject[:SUBJECT_MAX]}..."))
        elif not subject.strip():
            found.append((commit, "empty subject"))
        elif len(lines) > 1 and lines[1].strip():
            found.append((commit, f"no blank line after the subject: {subject}"))
    return found


def main(argv=None):
    parser = argparse.ArgumentParser(prog="commit-subjects",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=".", help="the git checkout (default: .)")
    parser.add_argument("--base", default=DEFAULT_BASE,
                        help=f"check the commits after this one (default {DEFAULT_BASE})")
    parser.add_argument("--head", default="HEAD", help="up to this one (default HEAD)")
    args = parser.parse_args(argv)
    found = problems(args.root, args.base, args.head)
    if found is None:
        print(f"commit-subjects: {args.base}..{args.head} is not in this checkout; nothing checked")
        return 0
    for commit, message in found:
        print(f"{commit[:12]}: {message}")
    count = int(git(args.root, "rev-list", "--count", f"{args.base}..{args.head}") or 0)
    print(f"commit-subjects: {count} commits after {args.base}, {len(found)} break the rule")
    return 1 if found else 0
