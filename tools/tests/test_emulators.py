# SPDX-License-Identifier: MIT
"""Tests of tools/trigos/emulators.py (where the built emulators live, when one counts as
built, why a section skips) and of what uses it: tools/matrix skipping a section whose
emulator is not built, tools/run's --emulator-version, Bochs 3.0's command line."""

import json
import os
import tempfile
import unittest
from unittest import mock

from trigos import bochs, emulators, matrix, run, run_bochs


def fake_build(root, name, record=True, revision=None):
    """Make @name look built under @root (its executable, and its BUILT record if @record,
    of recipe @revision: the current one by default)."""
    path = os.path.join(root, name, emulators.EMULATORS[name].binary)
    os.makedirs(os.path.dirname(path))
    with open(path, "w", encoding="utf-8") as executable:
        executable.write("#!/bin/sh\n")
    os.chmod(path, 0o755)
    if record:
        with open(emulators.stamp_path(name, root), "w", encoding="utf-8") as stamp:
            json.dump({"name": name, "wall_seconds": 1,
                       "revision": revision or emulators.EMULATORS[name].revision}, stamp)
    return path


class CacheTest(unittest.TestCase):
    def test_cache_follows_the_variable_then_xdg(self):
        with mock.patch.dict(os.environ, {"TRIGOS_EMULATORS": "/x/emu"}):
            self.assertEqual(emulators.cache_root(), "/x/emu")
        with mock.patch.dict(os.environ, {"TRIGOS_EMULATORS": "", "XDG_CACHE_HOME": "/c"}):
            self.assertEqual(emulators.cache_root(), "/c/trigos/emulators")

    def test_built_only_with_executable_and_record(self):
        with tempfile.TemporaryDirectory() as root:
            self.assertIsNone(emulators.binary("qemu-10.0", root))
            self.assertIn("is not built", emulators.missing_reason("qemu-10.0", root))
            path = fake_build(root, "bochs-3.0", record=False)
            self.assertIsNone(emulators.binary("bochs-3.0", root))     # a build cut short
            fake_build(root, "qemu-10.0")
            self.assertTrue(emulators.binary("qemu-10.0", root).endswith(
                "qemu-10.0/bin/qemu-system-x86_64"))
            self.assertIsNone(emulators.missing_reason("qemu-10.0", root))
            self.assertEqual(emulators.build_record("qemu-10.0", root)["wall_seconds"], 1)
            self.assertTrue(path.endswith("bochs-3.0/bin/bochs"))

    def test_a_build_of_an_older_recipe_is_not_built(self):
        """Bochs 3.0 built before --disable-show-ips (a record without a revision)."""
        with tempfile.TemporaryDirectory() as root:
            fake_build(root, "bochs-3.0")
            with open(emulators.stamp_path("bochs-3.0", root), "w", encoding="utf-8") as stamp:
                json.dump({"name": "bochs-3.0", "wall_seconds": 1}, stamp)
            self.assertIsNone(emulators.binary("bochs-3.0", root))
            self.assertIn("was built by recipe revision 1, not the current 2",
                          emulators.missing_reason("bochs-3.0", root))
        self.assertIn("--disable-show-ips", emulators.BOCHS_CONFIGURE)

    def test_unknown_name_is_named(self):
        self.assertIn("unknown emulator 'bochs-9'", emulators.missing_reason("bochs-9"))


class MatrixTest(unittest.TestCase):
    def entries(self):
        return matrix.parse_config(
            "[a]\nrun = --cpus 2\n"
            "[b]\nrun = --emulator bochs --emulator-version 3.0 --bochs-cpu sapphire_rapids\n"
            "[c]\nrun = --emulator-version=10.0 --machine q35\n")

    def test_which_build_a_section_needs(self):
        a, b, c = self.entries()
        self.assertIsNone(matrix.built_emulator(a))
        self.assertEqual(matrix.built_emulator(b), "bochs-3.0")
        self.assertEqual(matrix.built_emulator(c), "qemu-10.0")

    def test_section_skips_with_the_reason_where_not_built(self):
        _, b, _ = self.entries()
        with tempfile.TemporaryDirectory() as root, \
                mock.patch.dict(os.environ, {"TRIGOS_EMULATORS": root}):
            outcome = matrix.Runner(None, None, root).run(b)
            self.assertTrue(outcome.ok)
            self.assertEqual(outcome.verdict, "SKIP")
            self.assertIn("not run: Bochs 3.0 is not built in", outcome.reasons[0])
            self.assertIn("make deps-emulators", matrix.format_outcome(outcome, 4))


class RunTest(unittest.TestCase):
    def test_qemu_version_picks_the_built_binary(self):
        with tempfile.TemporaryDirectory() as root, \
                mock.patch.dict(os.environ, {"TRIGOS_EMULATORS": root}):
            args = run.parse_args(["--emulator-version", "10.0"])
            self.assertEqual(run.built_qemu(args, dry_run=True), "qemu-10.0")
            with self.assertRaises(run.UsageError):
                run.built_qemu(args)
            path = fake_build(root, "qemu-10.0")
            self.assertEqual(run.built_qemu(args), path)
            self.assertEqual(run.built_qemu(run.parse_args([])), run.QEMU)

    def test_version_of_the_other_emulator_is_refused(self):
        with self.assertRaisesRegex(run.UsageError, "is a bochs version"):
            run.refuse_other_emulators_options(run.parse_args(["--emulator-version", "3.0"]))
        with self.assertRaisesRegex(run.UsageError, "is a qemu version"):
            run.refuse_other_emulators_options(
                run.parse_args(["--emulator", "bochs", "--emulator-version", "10.0"]))


class Bochs30Test(unittest.TestCase):
    def test_no_rc_without_a_debugger(self):
        self.assertEqual(bochs.command("RC", "DBG", "/b/bochs", debugger=False),
                         ["/b/bochs", "-q", "-f", "RC"])
        self.assertEqual(bochs.command("RC", "DBG")[-2:], ["-rc", "DBG"])
        config = bochs.BochsConfig(iso="/i", serial_log="/l", release="3.0",
                                   model="sapphire_rapids")
        self.assertNotIn("-rc", run_bochs.bochs_command(config, "RC", "DBG"))

    def test_the_kernel_is_told_which_bochs(self):
        self.assertEqual(bochs.kernel_words("x=1", "3.0", "com1"), ["machine=bochs-3.0", "x=1"])
        self.assertEqual(bochs.kernel_words(None, port="com1"), ["machine=bochs"])

    def test_models_of_each_release(self):
        bochs.bochsrc(bochs.BochsConfig(iso="/i", serial_log="/l", release="3.0",
                                        model="sapphire_rapids"))
        with self.assertRaisesRegex(bochs.BochsError, "not a Bochs 2.7 CPU model"):
            bochs.bochsrc(bochs.BochsConfig(iso="/i", serial_log="/l",
                                            model="sapphire_rapids"))


if __name__ == "__main__":
    unittest.main()
