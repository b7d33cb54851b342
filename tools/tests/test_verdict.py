# SPDX-License-Identifier: MIT
"""tools/trigos/verdict.py must say what kernel/lib/verdict.h and verdict.c say.

The C files are parsed (the enum's order, the #defines, and what each of
verdict_name(), verdict_result_word() and verdict_qemu_exit_value() returns
for each enumerator) and compared with the Python mirror.  The LAVA job files,
which cannot import Python, are checked to spell the same RESULT line.

TRIGOS_VERDICT_SOURCES=DIR reads DIR/verdict.h and DIR/verdict.c instead of
kernel/lib's: the way to see this test fail on a changed copy.
"""
import os
import re
import unittest

from tools.tests import TOOLS
from trigos import verdict

ROOT = os.path.dirname(TOOLS)
KERNEL_LIB = os.path.join(ROOT, "kernel", "lib")
SOURCES = os.environ.get("TRIGOS_VERDICT_SOURCES") or KERNEL_LIB
LAVA_JOBS = [os.path.join(ROOT, "ci", "lava", name)
             for name in ("qemu-job.yaml", "x86-board-job.yaml")]

_ENUM = re.compile(r"enum\s+verdict\s*\{([^}]*)\}")
_DEFINE = re.compile(r"^#define\s+(VERDICT_\w+)\s+(\"[^\"]*\"|0x[0-9a-fA-F]+|[0-9]+)\s*$", re.M)
_FUNCTION = r"^\S[^\n]*\b{name}\s*\(enum verdict \w+\)\s*\n\{{\n(.*?)\n\}}"
_CASE = re.compile(r"^\s*case\s+(VERDICT_\w+):\s*$")
_RETURN = re.compile(r"^\s*return\s+([^;]+);\s*$")
_BREAK = re.compile(r"^\s*break;\s*$")


class ParseError(Exception):
    """The C file no longer has the shape this parser knows."""


def _value(token, defines):
    """A C expression of these files: a string literal, a number or a #define."""
    token = token.strip()
    if token in defines:
        return defines[token]
    if token.startswith('"') and token.endswith('"'):
        return token[1:-1]
    if re.fullmatch(r"0x[0-9a-fA-F]+|[0-9]+", token):
        return int(token, 0)
    raise ParseError(f"cannot read the value '{token}'")


def _switch_results(source, name, defines):
    """{enumerator: value} of a function that switches on its enum verdict.

    A case returns its value, or breaks (or falls off the switch) to the
    return after the switch.
    """
    match = re.search(_FUNCTION.format(name=re.escape(name)), source, re.S | re.M)
    if not match:
        raise ParseError(f"no function {name}(enum verdict) in verdict.c")
    results, pending, broken, after = {}, [], [], False
    for line in match.group(1).split("\n"):
        if line.strip() == "}":                 # the switch's end
            broken += pending
            pending, after = [], True
            continue
        case = _CASE.match(line)
        if case:
            pending.append(case.group(1))
            continue
        if _BREAK.match(line):
            broken += pending
            pending = []
            continue
        returned = _RETURN.match(line)
        if returned:
            value = _value(returned.group(1), defines)
            for label in (broken if after else pending):
                results[label] = value
            if after:
                broken = []
            pending = []
    if pending or broken:
        raise ParseError(f"{name}(): cases without a value: {pending + broken}")
    return results


def read_kernel(header, source):
    """What the C verdict says, from the texts of verdict.h and verdict.c."""
    enum = _ENUM.search(header)
    if not enum:
        raise ParseError("no 'enum verdict { ... }' in verdict.h")
    body = re.sub(r"/\*.*?\*/", "", enum.group(1), flags=re.S)
    order = [word.strip() for word in body.split(",") if word.strip()]
    defines = {name: _value(value, {}) for name, value in _DEFINE.findall(header)}
    return {
        "order": order,
        "defines": defines,
        "names": _switch_results(source, "verdict_name", defines),
        "result_words": _switch_results(source, "verdict_result_word", defines),
        "qemu_exit_values": _switch_results(source, "verdict_qemu_exit_value", defines),
    }


def differences(kernel):
    """Where trigos.verdict disagrees with @kernel (read_kernel()), one line each."""
    found = []
    enumerators = ["VERDICT_" + word for word in verdict.VERDICTS]
    if kernel["order"] != enumerators:
        found.append(f"enum verdict is {kernel['order']}, verdict.VERDICTS says {enumerators}")
    prefix = kernel["defines"].get("VERDICT_RESULT_PREFIX")
    if prefix != verdict.RESULT_PREFIX:
        found.append(f"VERDICT_RESULT_PREFIX is {prefix!r}, "
                     f"verdict.RESULT_PREFIX {verdict.RESULT_PREFIX!r}")
    for what, python in (("names", {word: word for word in verdict.VERDICTS}),
                         ("result_words", verdict.RESULT_WORDS),
                         ("qemu_exit_values", verdict.QEMU_EXIT_VALUES)):
        c_side = {label[len("VERDICT_"):]: value for label, value in kernel[what].items()}
        for word in sorted(set(c_side) | set(python)):
            if c_side.get(word) != python.get(word):
                found.append(f"{what}[{word}]: verdict.c says {c_side.get(word)!r}, "
                             f"verdict.py {python.get(word)!r}")
    return found


def read_sources(directory=SOURCES):
    with open(os.path.join(directory, "verdict.h"), encoding="utf-8") as file:
        header = file.read()
    with open(os.path.join(directory, "verdict.c"), encoding="utf-8") as file:
        source = file.read()
    return header, source


class VerdictMirrorTest(unittest.TestCase):
    def test_verdict_py_says_what_kernel_lib_verdict_says(self):
        kernel = read_kernel(*read_sources())
        self.assertEqual(len(kernel["order"]), 4, kernel["order"])
        self.assertEqual(differences(kernel), [], f"{SOURCES}/verdict.[hc] vs tools/trigos/verdict.py")

    def test_a_changed_word_or_value_is_caught(self):
        # The check itself must see each kind of drift (on copies in memory
        # of kernel/lib's files, whatever TRIGOS_VERDICT_SOURCES says).
        header, source = read_sources(KERNEL_LIB)
        mutants = {
            "a RESULT word": (header.replace('"CRASH"', '"CRASHED"'), source),
            "the prefix": (header.replace('"# RESULT: "', '"# RESULT:"'), source),
            "an exit value": (header.replace("0x13", "0x14"), source),
            "the enum's order": (header.replace("VERDICT_FAIL,\n\tVERDICT_SKIP",
                                                "VERDICT_SKIP,\n\tVERDICT_FAIL"), source),
            "a name": (header, source.replace('return "SKIP";', 'return "SKIPPED";')),
            "a result mapping": (header, source.replace(
                "\tcase VERDICT_SKIP:\n\t\treturn VERDICT_RESULT_PASS;",
                "\t\treturn VERDICT_RESULT_PASS;\n\tcase VERDICT_SKIP:")),
        }
        for what, (mutant_header, mutant_source) in mutants.items():
            with self.subTest(what):
                self.assertTrue((mutant_header, mutant_source) != (header, source),
                                f"the mutation of {what} no longer applies")
                self.assertNotEqual(differences(read_kernel(mutant_header, mutant_source)), [])

    def test_qemu_exit_statuses(self):
        self.assertEqual([verdict.qemu_exit_status(word) for word in verdict.VERDICTS],
                         [33, 35, 37, 39])

    def test_lava_jobs_spell_the_result_line(self):
        # LAVA's monitors are regular expressions in YAML: they cannot import
        # verdict.py, so they are read here.
        words = "|".join(dict.fromkeys(verdict.RESULT_WORDS.values()))
        for path in LAVA_JOBS:
            with self.subTest(os.path.basename(path)):
                with open(path, encoding="utf-8") as file:
                    text = file.read()
                self.assertIn(f"'(?=\\n{verdict.RESULT_PREFIX})'", text)
                self.assertIn(f"end: {words}\n", text)
                pattern = text.replace("(?P<test_case_id>RESULT)", "RESULT")
                self.assertIn(f"'\\n{verdict.RESULT_PREFIX}(?=(?P<result>{words}))'", pattern)


if __name__ == "__main__":
    unittest.main()
