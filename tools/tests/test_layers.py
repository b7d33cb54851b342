"""Tests of tools/layers, the layer rules' check, on small trees built here and on this tree."""
import io
import os
import tempfile
import unittest

from trigos import cli, layers

RULES = {
    "kernel/lib/README.md": "nothing",
    "kernel/arch/x86/README.md": "lib, log",
    "kernel/cpu/README.md": "lib, arch",
    "kernel/log/README.md": "lib, arch",
    "kernel/boot/README.md": "lib, arch, log",
    "kernel/time/README.md": "lib, arch, log",
    "kernel/sync/README.md": "lib, arch, log",
    "kernel/mm/README.md": "lib, arch, log, sync",
    "kernel/console/README.md": "lib, arch, log",
    "kernel/smp/README.md": "lib, arch, log, sync, time",
    "kernel/harness/README.md": "lib, arch, cpu, log, boot, time, sync, mm, console, smp",
    "kernel/README.md": "any",
    "tests/README.md": "any",
}


def write(root, path, text):
    path = os.path.join(root, path)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as file:
        file.write(text)


def tree(root, rules=None):
    """A tiny kernel: a log in log/, a lock in sync/ that logs, mm that takes the lock."""
    for readme, rule in (rules or RULES).items():
        write(root, readme, f"# {readme}\n\nMay include: {rule}\n")
    write(root, "kernel/include/log/log.h", "void log_note(const char *text);\n")
    write(root, "kernel/log/log.c",
          "#include <log/log.h>\n\nvoid log_note(const char *text)\n{\n}\n")
    write(root, "kernel/include/sync/lock.h", "void lock_take(void);\n")
    write(root, "kernel/sync/lock.c",
          "#include <log/log.h>\n#include <sync/lock.h>\n\n"
          "void lock_take(void)\n{\n\tlog_note(\"taken\");\n}\n")
    write(root, "kernel/mm/pages.c",
          "#include <sync/lock.h>\n\nvoid pages_alloc(void)\n{\n\tlock_take();\n}\n")
    write(root, "kernel/main.c", "#include <sync/lock.h>\n")


def check(root):
    out = io.StringIO()
    status = layers.check(root, out=out)
    return status, out.getvalue()


class Layers(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.root = self.directory.name
        tree(self.root)

    def tearDown(self):
        self.directory.cleanup()

    def test_a_tree_that_keeps_its_rules_passes(self):
        status, out = check(self.root)
        self.assertEqual(status, 0, out)
        self.assertIn("0 against the rules", out)
        self.assertIn("cycles: 0, 0 without the arch", out)

    def test_an_upward_include_fails_naming_file_line_and_rule(self):
        write(self.root, "kernel/log/log.c",
              "#include <log/log.h>\n#include <sync/lock.h>\n\n"
              "void log_note(const char *text)\n{\n}\n")
        status, out = check(self.root)
        self.assertEqual(status, 1)
        self.assertIn("kernel/log/log.c:2: #include <sync/lock.h> uses sync/, which the "
                      "rule of log/ does not allow (kernel/log/README.md: "
                      "May include: arch, lib)", out)
        self.assertIn("cycle between folders: log sync", out)

    def test_a_call_of_a_name_only_another_folder_defines_is_an_edge(self):
        write(self.root, "kernel/log/log.c",
              "#include <log/log.h>\n\nvoid log_note(const char *text)\n{\n"
              "\t/* lock_take() in a comment is no call */\n\tlock_take();\n}\n")
        status, out = check(self.root)
        self.assertEqual(status, 1)
        self.assertIn("kernel/log/log.c:6: calls lock_take() uses sync/", out)
        self.assertNotIn("log.c:5", out)

    def test_a_folder_without_a_rule_fails(self):
        os.remove(os.path.join(self.root, "kernel/time/README.md"))
        status, out = check(self.root)
        self.assertEqual(status, 1)
        self.assertIn("kernel/time/README.md: missing: folder time has no rule", out)

    def test_a_rule_naming_an_unknown_folder_fails(self):
        write(self.root, "kernel/mm/README.md", "May include: lib, sinc\n")
        status, out = check(self.root)
        self.assertEqual(status, 1)
        self.assertIn("names unknown folders: sinc", out)

    def test_upward_arrows_are_counted_even_when_allowed(self):
        rules = dict(RULES)
        rules["kernel/log/README.md"] = "lib, arch, sync"
        tree(self.root, rules)
        write(self.root, "kernel/log/log.c",
              "#include <log/log.h>\n#include <sync/lock.h>\n")
        status, out = check(self.root)
        self.assertEqual(status, 0, out)
        self.assertIn("1 upward in the order, 0 against the rules", out)

    def test_an_arch_header_in_a_generic_source_file_fails(self):
        write(self.root, "kernel/arch/x86/include/asm/relax.h", "void arch_relax(void);\n")
        write(self.root, "kernel/sync/lock.c",
              "#include <log/log.h>\n#include <sync/lock.h>\n/*\n#include <asm/relax.h>\n*/\n"
              "#include <asm/relax.h>\n\nvoid lock_take(void)\n{\n\tlog_note(\"taken\");\n}\n")
        status, out = check(self.root)
        self.assertEqual(status, 1, out)
        self.assertIn("kernel/sync/lock.c:6: #include <asm/relax.h>: a generic source file "
                      "includes an arch header; reach it through a generic header in "
                      "kernel/include/ that wraps it (docs/CONVENTIONS.md: Rules of the "
                      "layering)", out)
        self.assertNotIn("lock.c:4", out)
        self.assertIn("; 1 arch headers in generic source files", out)

    def test_generic_headers_the_arch_and_the_tests_may_include_arch_headers(self):
        write(self.root, "kernel/arch/x86/include/asm/relax.h", "void arch_relax(void);\n")
        write(self.root, "kernel/arch/x86/relax.c", "#include <asm/relax.h>\n")
        write(self.root, "tests/relax.c", "#include <asm/relax.h>\n")
        write(self.root, "kernel/include/sync/relax.h",
              "#include <asm/relax.h>\nstatic inline void relax(void)\n{\n\tarch_relax();\n}\n")
        write(self.root, "kernel/sync/relax.c", "#include <sync/relax.h>\n")
        status, out = check(self.root)
        self.assertEqual(status, 0, out)
        self.assertNotIn("arch header", out)

    def test_this_tree_keeps_its_rules(self):
        status, out = check(cli.ROOT)
        self.assertEqual(status, 0, out)


if __name__ == "__main__":
    unittest.main()
