"""Tests of tools/commit-subjects on a throw-away git repository."""
import io
import os
import subprocess
import tempfile
import unittest
from contextlib import redirect_stdout

from trigos import cli, commit_subjects


def commit(root, message):
    with open(os.path.join(root, "file"), "a", encoding="utf-8") as file:
        file.write("x")
    subprocess.run(["git", "-C", root, "add", "file"], check=True)
    subprocess.run(["git", "-C", root, "-c", "user.name=t", "-c", "user.email=t@t",
                    "commit", "-q", "-m", message], check=True)
    return subprocess.run(["git", "-C", root, "rev-parse", "HEAD"], check=True,
                          capture_output=True, text=True).stdout.strip()


class CommitSubjects(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.root = self.directory.name
        subprocess.run(["git", "init", "-q", self.root], check=True)
        self.base = commit(self.root, "x" * 200 + " (before the rule: not checked)")

    def tearDown(self):
        self.directory.cleanup()

    def run_tool(self):
        out = io.StringIO()
        with redirect_stdout(out):
            status = commit_subjects.main(["--root", self.root, "--base", self.base])
        return status, out.getvalue()

    def test_short_subjects_pass(self):
        commit(self.root, "a" * 72 + "\n\nThe body may be as long as it needs " + "y" * 300)
        status, out = self.run_tool()
        self.assertEqual(status, 0, out)
        self.assertIn("1 commits after", out)

    def test_a_long_subject_fails_naming_the_commit(self):
        good = commit(self.root, "fine")
        bad = commit(self.root, "b" * 73)
        status, out = self.run_tool()
        self.assertEqual(status, 1)
        self.assertIn(f"{bad[:12]}: subject of 73 characters (at most 72)", out)
        self.assertNotIn(good[:12], out)

    def test_a_body_glued_to_the_subject_fails(self):
        commit(self.root, "subject\nbody right below")
        status, out = self.run_tool()
        self.assertEqual(status, 1)
        self.assertIn("no blank line after the subject: subject", out)

    def test_an_unknown_base_checks_nothing(self):
        out = io.StringIO()
        with redirect_stdout(out):
            status = commit_subjects.main(["--root", self.root, "--base", "0" * 40])
        self.assertEqual(status, 0)
        self.assertIn("nothing checked", out.getvalue())

    def test_this_tree_keeps_the_rule(self):
        status, out = 0, io.StringIO()
        with redirect_stdout(out):
            status = commit_subjects.main(["--root", cli.ROOT])
        self.assertEqual(status, 0, out.getvalue())


if __name__ == "__main__":
    unittest.main()
