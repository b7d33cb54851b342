# SPDX-License-Identifier: MIT
"""What every tool shares: where the tree is, and how an entry script runs a tool.

tools/NAME is a thin entry script: it puts tools/ on sys.path, imports
trigos.NAME (its main(argv=None) returns the exit status) and hands that
main to start().  Modules import each other as trigos.* modules, so each is
loaded once however many tools use it.
"""
import argparse
import os
import sys

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(TOOLS)


def entry_script(name):
    """The path of tools/@name, for running a tool as its own process."""
    return os.path.join(TOOLS, name)


class UsageError(Exception):
    """A problem with the arguments or the files they name; nothing is started."""


class ArgumentParser(argparse.ArgumentParser):
    """argparse whose usage errors exit with @usage_status instead of 2.

    tools/run's 2 means 'every case skipped', so its usage errors say 6.
    """

    def __init__(self, *args, usage_status=2, **kwargs):
        super().__init__(*args, **kwargs)
        self.usage_status = usage_status

    def error(self, message):
        self.print_usage(sys.stderr)
        self.exit(self.usage_status, f"{self.prog}: error: {message}\n")


def tolerant_output():
    """Never die on a console encoding that cannot show a replaced byte."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="replace")


def start(main, *, tolerant=False, interrupted=None, broken_pipe=False):
    """Run a tool's @main with the command line's arguments and exit with its status.

    @tolerant: replace what the console encoding cannot show (tools that
    echo a guest's bytes).  @interrupted: exit 130 on Ctrl-C, first printing
    this text if it is not empty (None lets Python report the interrupt).
    @broken_pipe: exit 1, quietly, when the reader of stdout went away.
    """
    if tolerant:
        tolerant_output()
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        if interrupted is None:
            raise
        if interrupted:
            print(interrupted, file=sys.stderr)
        sys.exit(130)
    except BrokenPipeError:
        if not broken_pipe:
            raise
        sys.exit(1)
