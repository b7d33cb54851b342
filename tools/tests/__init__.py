# SPDX-License-Identifier: MIT
"""Tests of the tools package, run from the tree's root as the Makefile does
(python3 -m unittest tools.tests.test_NAME): importing this package puts
tools/ on sys.path, so that each test imports the modules it checks as
`from trigos import NAME`, the way the entry scripts do."""
import os
import sys

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
if TOOLS not in sys.path:
    sys.path.insert(0, TOOLS)


def read_data(name):
    """The text of tools/tests/data/@name as stored (CR LF line ends kept)."""
    with open(os.path.join(DATA, name), encoding="utf-8", newline="") as file:
        return file.read()


def read_data_bytes(name):
    """The bytes of tools/tests/data/@name."""
    with open(os.path.join(DATA, name), "rb") as file:
        return file.read()
