# SPDX-License-Identifier: MIT
"""Tests of tools/run --emulator bochs and tools/trigos/bochs.py: the pure bochsrc and
grub.cfg builders, the reading of Bochs's own log, the verdict, the refused
options, and whole runs (tools/run and tools/matrix) against a fake `bochs`
(a small Python script put first on PATH) that reads the bochsrc and the
grub.cfg of the ISO it is given, writes a serial log and a Bochs-like log."""

import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest

from tools.tests import TOOLS, read_data
from trigos import bochs, run, run_bochs

RUN = os.path.join(TOOLS, "run")
MATRIX = os.path.join(TOOLS, "matrix")
REPOSITORY = os.path.dirname(TOOLS)


PASS_LOG = read_data("bochs/pass.log")
BOCHS_START = read_data("bochs/bochs-start.txt")


def config(**changes):
    values = dict(iso="/b/derived.iso", serial_log="/b/logs/x.log")
    values.update(changes)
    return bochs.BochsConfig(**values)


class BochsrcTest(unittest.TestCase):
    def test_defaults(self):
        text = bochs.bochsrc(config())
        lines = text.splitlines()
        self.assertIn("cpu: count=2, ips=100000000, model=corei7_haswell_4770, "
                      "reset_on_triple_fault=1", lines)
        self.assertIn("megs: 256", lines)
        self.assertIn('romimage: file="/usr/share/bochs/BIOS-bochs-latest", options=fastboot',
                      lines)
        self.assertIn('vgaromimage: file="/usr/share/vgabios/vgabios.cirrus.bin"', lines)
        self.assertIn("vga: extension=cirrus", lines)
        self.assertIn("panic: action=fatal", lines)
        self.assertIn("display_library: term", lines)     # no X, no VNC port
        self.assertIn("boot: cdrom", lines)
        self.assertIn('ata0-master: type=cdrom, path="/b/derived.iso", status=inserted', lines)
        self.assertIn('com1: enabled=1, mode=file, dev="/b/logs/x.log"', lines)
        self.assertIn("log: -", lines)                    # Bochs's own log: its stderr
        self.assertIn(f"clock: sync=none, time0={bochs.RTC_START}", lines)
        self.assertNotIn("rfb", text)
        self.assertNotIn("parport", text)                 # the log from COM1

    def test_a_parallel_log_enables_the_first_printer_port(self):
        text = bochs.bochsrc(config(serial_log="/b/logs/x.com1.log",
                                    parallel_log="/b/logs/x.log"))
        self.assertIn('com1: enabled=1, mode=file, dev="/b/logs/x.com1.log"\n', text)
        self.assertIn('parport1: enabled=1, file="/b/logs/x.log"\n', text)
        with self.assertRaisesRegex(bochs.BochsError, "cannot be written"):
            bochs.bochsrc(config(parallel_log="/b/$X.log"))

    def test_options_reach_the_cpu_line(self):
        text = bochs.bochsrc(config(cpus=4, memory=512, model="ryzen", ips=200000000))
        self.assertIn("cpu: count=4, ips=200000000, model=ryzen, reset_on_triple_fault=1\n",
                      text)
        self.assertIn("megs: 512\n", text)

    def test_invalid_configs(self):
        for changes, words in (({"model": "haswell"}, "not a Bochs 2.7 CPU model"),
                               ({"cpus": 0}, "at least 1"),
                               ({"memory": 8}, "too little"),
                               ({"ips": 50000000}, "100 MHz"),
                               ({"iso": "/a,b.iso"}, "cannot be written in a bochsrc"),
                               ({"serial_log": "/$HOME/x.log"}, "cannot be written"),
                               ({"serial_log": '/a"b.log'}, "cannot be written")):
            with self.subTest(changes=changes):
                with self.assertRaisesRegex(bochs.BochsError, words):
                    bochs.bochsrc(config(**changes))

    def test_pure(self):
        self.assertEqual(bochs.bochsrc(config()), bochs.bochsrc(config()))
        self.assertFalse(os.path.exists("/b/derived.iso"))


ISO_CFG = read_data("bochs/iso-grub.cfg")


class GrubCfgTest(unittest.TestCase):
    def test_keeps_the_settings_and_boots_one_entry_with_the_command_line(self):
        text = bochs.grub_cfg(ISO_CFG, "test=trigger*,smp  seed=7\tcpus=2")
        self.assertTrue(text.startswith("# the ISO's own grub.cfg\nserial --unit=0"))
        self.assertIn("insmod multiboot2\n", text)
        self.assertEqual(text.count("menuentry"), 1)
        self.assertIn("\tmultiboot2 /boot/trigos.elf 'machine=bochs' 'console=lp0' "
                      "'test=trigger*,smp' 'seed=7' 'cpus=2'\n", text)
        self.assertNotIn("exit=halt", text)

    def test_no_video_modules_are_loaded(self):
        self.assertIn("insmod all_video\n", ISO_CFG)
        text = bochs.grub_cfg(ISO_CFG, "cpus=2")
        self.assertNotIn("all_video", text)
        self.assertIn("terminal_output serial console\n", text)

    def test_machine_bochs_comes_first_so_the_command_line_may_override_it(self):
        self.assertEqual(bochs.kernel_words("machine=auto", port="com1"),
                         ["machine=bochs", "machine=auto"])
        self.assertEqual(bochs.kernel_words(None, port="com1"), ["machine=bochs"])

    def test_the_log_port_adds_console_lp0_unless_the_command_line_names_consoles(self):
        self.assertEqual(bochs.kernel_words("seed=1"), ["machine=bochs", "console=lp0", "seed=1"])
        self.assertEqual(bochs.kernel_words("seed=1", port="com1"), ["machine=bochs", "seed=1"])
        self.assertEqual(bochs.kernel_words("console=ttyS0"), ["machine=bochs", "console=ttyS0"])
        self.assertEqual(bochs.kernel_words("console=lp0 console=ttyS0"),
                         ["machine=bochs", "console=lp0", "console=ttyS0"])

    def test_the_command_lines_consoles_choose_the_log_port(self):
        self.assertEqual(bochs.log_port(None), "lp0")
        self.assertEqual(bochs.log_port("seed=1", "com1"), "com1")
        self.assertEqual(bochs.log_port("console=ttyS0"), "com1")
        self.assertEqual(bochs.log_port("console=ttyS0 console=lp0", "com1"), "lp0")
        with self.assertRaisesRegex(bochs.BochsError, "not one of lp0, com1"):
            bochs.log_port("", "lp1")

    def test_grub_metacharacters_stay_literal(self):
        text = bochs.grub_cfg(ISO_CFG, "a=$x;b b=c|d test=?x*")
        self.assertIn("'machine=bochs' 'console=lp0' 'a=$x;b' 'b=c|d' 'test=?x*'", text)

    def test_words_grub_would_escape_are_refused(self):
        for word in ('label="two words"', "it's", "a\\b"):
            with self.subTest(word=word):
                with self.assertRaisesRegex(bochs.BochsError, "escapes it"):
                    bochs.grub_cfg(ISO_CFG, "seed=1 " + word)

    def test_not_the_projects_iso(self):
        with self.assertRaisesRegex(bochs.BochsError, "no menuentry"):
            bochs.grub_cfg("set timeout=0\n", "")

    def test_cache_key_follows_the_iso_and_the_command_line(self):
        class Stat:
            def __init__(self, size, mtime):
                self.st_size, self.st_mtime_ns = size, mtime
        one = bochs.cache_key(Stat(100, 5), bochs.grub_cfg(ISO_CFG, "seed=1"))
        self.assertEqual(one, bochs.cache_key(Stat(100, 5), bochs.grub_cfg(ISO_CFG, "seed=1")))
        self.assertNotEqual(one, bochs.cache_key(Stat(100, 5),
                                                 bochs.grub_cfg(ISO_CFG, "seed=2")))
        self.assertNotEqual(one, bochs.cache_key(Stat(100, 6),
                                                 bochs.grub_cfg(ISO_CFG, "seed=1")))

    def test_cache_pruning_keeps_the_recent_and_the_new(self):
        with tempfile.TemporaryDirectory() as directory:
            now = time.time()
            paths = []
            for index in range(bochs.CACHE_KEEP + 3):
                path = os.path.join(directory, f"{index:02d}.iso")
                open(path, "w").close()
                age = 3600 + index if index else 10     # 00 was used 10 s ago
                os.utime(path, (now - age, now - age))
                paths.append(path)
            bochs.prune_cache(directory, keep=paths[-1], now=now)
            left = sorted(os.listdir(directory))
        self.assertEqual(len(left), bochs.CACHE_KEEP + 1)
        self.assertIn("00.iso", left)                   # recently used
        self.assertIn(f"{bochs.CACHE_KEEP + 2:02d}.iso", left)  # the one just made
        self.assertNotIn(f"{bochs.CACHE_KEEP + 1:02d}.iso", left)


def feed(log, text):
    for line in text.splitlines():
        log.feed(line)
    return log


class BochsLogTest(unittest.TestCase):
    def test_the_power_on_reset_is_not_an_end(self):
        log = feed(bochs.BochsLog(2), BOCHS_START)
        self.assertIsNone(log.ended)
        self.assertEqual(log.resets, 1)

    def test_shutdown_port_and_soft_off(self):
        log = feed(bochs.BochsLog(), BOCHS_START +
                   "00201956465p[UNMAP ] >>PANIC<< Shutdown port: shutdown requested\n")
        self.assertEqual(log.ended, bochs.ENDED_SHUTDOWN_PORT)
        log = feed(bochs.BochsLog(), BOCHS_START +
                   "00301956465p[ACPI  ] >>PANIC<< ACPI control: soft power off\n")
        self.assertEqual(log.ended, bochs.ENDED_POWEROFF)

    def test_a_later_reset_is_the_guests(self):
        log = feed(bochs.BochsLog(), BOCHS_START +
                   "00201956465i[KBD   ] io write 0x64: command 0xfe: reset cpu\n"
                   "00201956465i[SYS   ] bx_pc_system_c::Reset(SOFTWARE) called\n")
        self.assertEqual(log.ended, bochs.ENDED_RESET)
        self.assertIn("Reset(SOFTWARE)", log.detail)

    def test_a_triple_fault_is_named(self):
        log = feed(bochs.BochsLog(), BOCHS_START +
                   "00201956465e[CPU0  ] exception(): 3rd (13) exception with no resolution, "
                   "shutdown status is 00h, resetting\n"
                   "00201956465i[SYS   ] bx_pc_system_c::Reset(HARDWARE) called\n")
        self.assertEqual(log.ended, bochs.ENDED_RESET)
        self.assertIn("(a triple fault)", log.detail)

    def test_another_panic(self):
        log = feed(bochs.BochsLog(), BOCHS_START +
                   "00000000000p[      ] >>PANIC<< bochsrc:3: unknown directive\n")
        self.assertEqual(log.ended, bochs.ENDED_PANIC)
        self.assertIn("unknown directive", log.detail)
        self.assertIn("unknown directive", log.errors[-1])

    def test_every_cpu_halted_with_interrupts_off(self):
        halt = "0000000100{n}i[CPU{cpu} ] WARNING: HLT instruction with IF=0!\n"
        nmi = "0000000100{n}i[APIC{cpu}] Deliver NMI\n"
        log = feed(bochs.BochsLog(3), BOCHS_START + halt.format(n=1, cpu=0) +
                   halt.format(n=2, cpu=1))
        self.assertFalse(log.all_halted())              # cpu 2 still runs
        feed(log, halt.format(n=3, cpu=2))
        self.assertTrue(log.all_halted())
        feed(log, nmi.format(n=4, cpu=1))               # an NMI ends cpu 1's halt
        self.assertFalse(log.all_halted())
        feed(log, halt.format(n=5, cpu=1))
        self.assertTrue(log.all_halted())
        log.halted()
        self.assertEqual(log.ended, bochs.ENDED_HALT)
        self.assertIn("all 3 CPUs", log.detail)

    def test_cpu_numbers_are_hex(self):
        log = bochs.BochsLog(11)
        for cpu in range(11):
            log.feed(f"00000001000i[CPU{cpu:x}  ] WARNING: HLT instruction with IF=0!")
        self.assertTrue(log.all_halted())

    def test_a_reset_ends_every_halt(self):
        log = feed(bochs.BochsLog(1), BOCHS_START +
                   "00000001000i[CPU0  ] WARNING: HLT instruction with IF=0!\n")
        self.assertTrue(log.all_halted())
        feed(log, "00000002000i[CPU0  ] Deliver INIT IPI\n"
                  "00000002000i[APIC0 ] Deliver INIT IPI\n")
        self.assertFalse(log.all_halted())


class JudgeTest(unittest.TestCase):
    def judge(self, ended, data, finished=True, detail="Bochs's words", status=1):
        return run_bochs.judge_bochs(ended, detail, data.encode(), finished, status)

    def test_the_log_gives_the_verdict_after_the_shutdown_port(self):
        port = bochs.ENDED_SHUTDOWN_PORT
        self.assertEqual(self.judge(port, PASS_LOG), (0, "PASS", None))
        self.assertEqual(self.judge(port, PASS_LOG.replace("RESULT: PASS", "RESULT: FAIL"))[:2],
                         (1, "FAIL"))
        skipped = "# Totals: pass:0 fail:0 skip:3 total:3\n# RESULT: PASS\n"
        self.assertEqual(self.judge(port, skipped)[:2], (2, "SKIP"))
        self.assertEqual(self.judge(port, "# PANIC\n# RESULT: CRASH\n")[:2], (3, "CRASH"))
        code, word, message = self.judge(port, "KTAP version 1\n1..1\n")
        self.assertEqual((code, word), (5, None))
        self.assertIn("not a '# RESULT:' line", message)

    def test_the_machines_end(self):
        self.assertEqual(self.judge(bochs.ENDED_RESET, PASS_LOG)[:2], (7, "RESET"))
        self.assertEqual(self.judge(bochs.ENDED_POWEROFF, PASS_LOG)[:2], (8, "POWEROFF"))
        self.assertEqual(self.judge(bochs.ENDED_HALT, PASS_LOG)[:2], (9, "HALT"))
        code, _, message = self.judge(bochs.ENDED_PANIC, PASS_LOG, detail="[CPU0] bad")
        self.assertEqual(code, 5)
        self.assertIn("Bochs panicked: [CPU0] bad", message)
        code, _, message = self.judge(None, PASS_LOG, status=1)
        self.assertEqual(code, 5)
        self.assertIn("without a shutdown request", message)

    def test_a_timeout_says_when_the_verdict_came_but_nothing_ended_bochs(self):
        code, _, message = self.judge(None, PASS_LOG, finished=False)
        self.assertEqual(code, 4)
        self.assertIn("ends with its verdict ('# RESULT: PASS')", message)
        self.assertEqual(self.judge(None, "KTAP version 1\n", finished=False), (4, None, None))

    def test_the_bochs_log_lives_beside_the_serial_log(self):
        self.assertEqual(run_bochs.bochs_log_path("build/logs/x.log"), "build/logs/x.bochs.log")
        self.assertEqual(run_bochs.bochs_log_path("out.txt"), "out.txt.bochs.log")
        self.assertEqual(run_bochs.com1_log_path("build/logs/x.log"), "build/logs/x.com1.log")


class RefusedOptionsTest(unittest.TestCase):
    def refused(self, *argv):
        result = subprocess.run([sys.executable, RUN, *argv, "--dry-run"], capture_output=True,
                                stdin=subprocess.DEVNULL, timeout=30)
        return result.returncode, result.stderr.decode()

    def test_qemu_only_options_are_refused_under_bochs(self):
        cases = (("--firmware", "uefi"), ("--boot", "kernel"), ("--boot", "usb"),
                 ("--accel", "kvm"), ("--screendump", "x.ppm"), ("--qemu-arg=-S",),
                 ("--smp", "4"), ("--machine", "q35"), ("--cpu", "qemu64"),
                 ("--serial", "none"))
        for arguments in cases:
            with self.subTest(arguments=arguments):
                code, stderr = self.refused("--emulator", "bochs", *arguments)
                self.assertEqual(code, 6, stderr)
                self.assertIn("cannot be used with --emulator bochs", stderr)
        code, stderr = self.refused("--emulator", "bochs", "--firmware", "uefi")
        self.assertIn("run: --firmware uefi cannot be used with --emulator bochs: Bochs boots "
                      "its own BIOS only", stderr)

    def test_defaults_given_again_are_not_refused(self):
        parsed = run.parse_args(["--emulator", "bochs", "--accel", "tcg", "--boot", "cdrom",
                                 "--firmware", "bios"])
        run.refuse_other_emulators_options(parsed)      # raises nothing

    def test_bochs_options_need_bochs(self):
        for arguments in (("--bochs-cpu", "ryzen"), ("--bochs-ips", "200000000")):
            with self.subTest(arguments=arguments):
                code, stderr = self.refused(*arguments)
                self.assertEqual(code, 6, stderr)
                self.assertIn("needs --emulator bochs", stderr)

    def test_help_names_the_refused_options_and_the_statuses(self):
        result = subprocess.run([sys.executable, RUN, "--help"], capture_output=True, timeout=30)
        text = result.stdout.decode()
        self.assertIn("--emulator {qemu,bochs}", text)
        self.assertIn("refused with status 6 under Bochs", text)
        self.assertIn("9 every CPU halted with IF=0", text)


# The fake Bochs.  It reads its bochsrc (-f) for the CPU count, the serial log
# and the ISO, and the ISO's grub.cfg (with xorriso) for the command line, whose
# "fake=MODE" word picks what it does.
FAKE_BOCHS = textwrap.dedent(r'''
    #!PYTHON
    import os, re, signal, subprocess, sys, tempfile, time

    rc = open(sys.argv[sys.argv.index("-f") + 1]).read()
    cpus = int(re.search(r"cpu: count=(\d+)", rc).group(1))
    serial = re.search(r'com1: .*dev="([^"]*)"', rc).group(1)
    parallel = re.search(r'parport1: .*file="([^"]*)"', rc)
    kernel_log = parallel.group(1) if parallel else serial
    iso = re.search(r'ata0-master: .*path="([^"]*)"', rc).group(1)
    with tempfile.TemporaryDirectory() as scratch:
        subprocess.run(["xorriso", "-osirrox", "on", "-indev", iso, "-extract",
                        "/boot/grub/grub.cfg", scratch + "/cfg"], capture_output=True)
        cfg = open(scratch + "/cfg").read()
    words = re.search(r"^\s*multiboot2 \S+ (.*)$", cfg, re.M).group(1).replace("'", "").split()
    mode = ([word[5:] for word in words if word.startswith("fake=")] or ["pass"])[-1]
    if os.environ.get("FAKE_BOCHS_RECORD"):
        with open(os.environ["FAKE_BOCHS_RECORD"], "a") as out:
            out.write(" ".join(words) + "\n")

    def log(text):
        sys.stderr.write(text)
        sys.stderr.flush()

    def say(text, where=None):
        with open(where or kernel_log, "a") as out:
            out.write(text)

    log("00000000000i[SYS   ] bx_pc_system_c::Reset(HARDWARE) called\n")
    head = "KTAP version 1\n1..1\n    KTAP version 1\n    # Subtest: alpha\n    1..1\n"
    say("  Booting `trigos under Bochs'\n\n", serial)
    say(head + "    # machine: bochs\n")
    if mode in ("pass", "fail"):
        word = mode.upper()
        say("    %sok 1 one\n%sok 1 alpha\n# Totals: pass:%d fail:%d skip:0 total:1\n"
            "# RESULT: %s\n" % ("not " if mode == "fail" else "", "not " if mode == "fail" else "",
                                mode == "pass", mode == "fail", word))
        log("00201956465p[UNMAP ] >>PANIC<< Shutdown port: shutdown requested\n")
        sys.exit(1)
    if mode in ("halt", "busy", "reset", "poweroff"):
        say("    ok 1 one\nok 1 alpha\n# Totals: pass:1 fail:0 skip:0 total:1\n"
            "# RESULT: PASS\n")
        if mode == "reset":
            # Bochs (its term display) was seen to outlive SIGTERM by 2 s.
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            log("00000000002i[SYS   ] bx_pc_system_c::Reset(SOFTWARE) called\n")
            time.sleep(1)
            say("SECOND BOOT\n")    # the BIOS boots again: never in the log
        if mode == "poweroff":
            log("00000000002p[ACPI  ] >>PANIC<< ACPI control: soft power off\n")
            sys.exit(1)
        if mode == "halt":
            for cpu in range(cpus):
                log("00000000003i[CPU%x  ] WARNING: HLT instruction with IF=0!\n" % cpu)
        time.sleep(600)
    if mode == "panic":
        log("00000000003p[CPU0  ] >>PANIC<< exception(): 3rd (13) exception\n")
        sys.exit(1)
    if mode == "quit":
        sys.exit(1)
    log("fake bochs: unknown mode " + mode + "\n")
    sys.exit(1)
''').lstrip().replace("PYTHON", sys.executable)


def make_iso(path, tree):
    """A small ISO with the project's grub.cfg, a stand-in kernel and El Torito image."""
    grub = os.path.join(tree, "boot", "grub")
    os.makedirs(os.path.join(grub, "i386-pc"))
    shutil.copyfile(os.path.join(REPOSITORY, "iso", "grub.cfg"), os.path.join(grub, "grub.cfg"))
    with open(os.path.join(grub, "i386-pc", "eltorito.img"), "wb") as image:
        image.write(b"\0" * 4096)
    with open(os.path.join(tree, "boot", "trigos.elf"), "wb") as kernel:
        kernel.write(b"\x7fELF" + b"\0" * 60)
    subprocess.run(["xorriso", "-as", "mkisofs", "-quiet", "-R", "-o", path, tree], check=True,
                   capture_output=True)


@unittest.skipUnless(shutil.which("xorriso"), "xorriso is not installed")
@unittest.skipUnless(all(os.path.exists(path) for path in bochs.PREREQUISITES
                         if os.path.isabs(path)), "Bochs's BIOS files are not installed")
class FakeBochsRunTest(unittest.TestCase):
    """Whole runs of tools/run --emulator bochs with the fake Bochs first on PATH."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="trigos-test-")
        cls.dir = cls.tmp.name
        cls.bin = os.path.join(cls.dir, "bin")
        os.mkdir(cls.bin)
        fake = os.path.join(cls.bin, "bochs")
        with open(fake, "w") as script:
            script.write(FAKE_BOCHS)
        os.chmod(fake, 0o755)
        cls.iso = os.path.join(cls.dir, "build", "trigos.iso")
        os.makedirs(os.path.dirname(cls.iso))
        make_iso(cls.iso, os.path.join(cls.dir, "tree"))
        cls.record = os.path.join(cls.dir, "record")
        cls.env = dict(os.environ, PATH=cls.bin + os.pathsep + os.environ.get("PATH", ""),
                       FAKE_BOCHS_RECORD=cls.record)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def run_tool(self, mode, *args, name=None, words="", timeout=60):
        log = os.path.join(self.dir, "logs", (name or mode) + ".log")
        result = subprocess.run([sys.executable, RUN, "--emulator", "bochs", "--iso", self.iso,
                                 "--cmdline", f"fake={mode} {words}", "--log", log, *args],
                                env=self.env, capture_output=True, timeout=timeout,
                                stdin=subprocess.DEVNULL)
        with open(log) as serial:
            return result, serial.read()

    def test_pass_streams_the_log_and_reports(self):
        result, log = self.run_tool("pass", "--cpus", "3")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn(b"# RESULT: PASS\n", result.stdout)
        self.assertTrue(log.endswith("# RESULT: PASS\n"))
        stderr = result.stderr.decode()
        self.assertIn("run: bochs -q -f ", stderr)
        self.assertIn("command line: machine=bochs console=lp0 fake=pass", stderr)
        self.assertIn("the log from lp0, COM1's (GRUB's) in ", stderr)
        with open(os.path.join(self.dir, "logs", "pass.com1.log")) as com1:
            self.assertEqual(com1.read(), "  Booting `trigos under Bochs'\n\n")
        self.assertTrue(log.startswith("KTAP version 1\n"))
        self.assertRegex(stderr, r"run: PASS \(Bochs: shutdown-port\) in [0-9.]+ s")
        with open(os.path.join(self.dir, "logs", "pass.bochs.log")) as own:
            self.assertIn("Shutdown port: shutdown requested", own.read())

    def test_the_log_from_com1_when_asked(self):
        result, log = self.run_tool("pass", "--bochs-log-port", "com1", name="com1")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertTrue(log.startswith("  Booting `trigos under Bochs'\n\nKTAP version 1\n"))
        self.assertTrue(log.endswith("# RESULT: PASS\n"))
        self.assertIn(b"command line: machine=bochs fake=pass", result.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "logs", "com1.com1.log")))

    def test_every_end(self):
        expected = {"fail": 1, "reset": 7, "poweroff": 8, "halt": 9, "panic": 5, "quit": 5}
        processes = {}
        for mode in expected:       # in parallel: each is mostly interpreter start-up
            processes[mode] = subprocess.Popen(
                [sys.executable, RUN, "--emulator", "bochs", "--iso", self.iso, "--cmdline",
                 f"fake={mode}", "--quiet", "--timeout", "30", "--log",
                 os.path.join(self.dir, "logs", mode + ".log")], env=self.env,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
        results = {mode: (process.communicate(timeout=60), process.returncode)
                   for mode, process in processes.items()}
        for mode, code in expected.items():
            with self.subTest(mode=mode):
                (stdout, stderr), returncode = results[mode]
                self.assertEqual(returncode, code, stderr)
                self.assertEqual(stdout, b"")
        with open(os.path.join(self.dir, "logs", "reset.log")) as log:
            self.assertNotIn("SECOND BOOT", log.read())       # killed at the reset
        self.assertIn(b"machine reset (Bochs: bx_pc_system_c::Reset(SOFTWARE)",
                      results["reset"][0][1])
        self.assertIn(b"all 2 CPUs halted with interrupts off", results["halt"][0][1])
        self.assertIn(b"Bochs panicked: [CPU0] exception(): 3rd", results["panic"][0][1])
        self.assertIn(b"without a shutdown request", results["quit"][0][1])

    def test_a_machine_that_runs_on_after_its_verdict_times_out(self):
        result, _ = self.run_tool("busy", "--quiet", "--timeout", "5")
        self.assertEqual(result.returncode, 4, result.stderr)
        self.assertIn(b"ends with its verdict ('# RESULT: PASS') but nothing ended Bochs",
                      result.stderr)

    def test_one_command_line_one_derived_iso(self):
        cache = os.path.join(os.path.dirname(self.iso), bochs.CACHE_DIRECTORY)
        before = set(os.listdir(cache)) if os.path.isdir(cache) else set()
        self.run_tool("pass", "--quiet", name="first", words="seed=41")
        self.run_tool("pass", "--quiet", name="second", words="seed=41")
        self.run_tool("pass", "--quiet", name="third", words="seed=42")
        made = set(os.listdir(cache)) - before
        self.assertEqual(len(made), 2, made)
        self.assertTrue(all(name.endswith(".iso") for name in made), made)
        for name in made:       # the sparse tail that keeps Bochs's simulated seeks short
            status = os.stat(os.path.join(cache, name))
            self.assertEqual(status.st_size, bochs.CD_IMAGE_PADDED_BYTES)
            self.assertLess(status.st_blocks * 512, 16 << 20)

    def test_dry_run_prints_the_bochsrc_the_grub_cfg_and_the_command(self):
        result = subprocess.run([sys.executable, RUN, "--emulator", "bochs", "--iso", self.iso,
                                 "--bochs-cpu", "ryzen", "--cpus", "4", "--cmdline", "seed=3",
                                 "--dry-run"], env=self.env, capture_output=True, timeout=30)
        self.assertEqual(result.returncode, 0, result.stderr)
        text = result.stdout.decode()
        self.assertIn("cpu: count=4, ips=100000000, model=ryzen, reset_on_triple_fault=1\n", text)
        self.assertIn("\tmultiboot2 /boot/trigos.elf 'machine=bochs' 'console=lp0' 'seed=3'\n",
                      text)
        self.assertIn("parport1: enabled=1, file=", text)
        self.assertIn("serial --unit=0 --speed=115200", text)   # the ISO's own settings
        self.assertIn("bochs -q -f BOCHSRC -rc DEBUGGER-COMMANDS", text)

    def test_the_matrix_pins_lines_of_bochs_sections(self):
        config = os.path.join(self.dir, "matrix.cfg")
        with open(config, "w") as matrix:
            matrix.write("[bochs-ok]\nrun = --emulator bochs --cpus 2\ncmdline = fake=pass\n"
                         "expect_line = # machine: bochs\n"
                         "[bochs-missing-line]\nrun = --emulator bochs --cpus 2\n"
                         "cmdline = fake=pass\nexpect_line = # trigger: backend mwait (*)\n"
                         "[bochs-halt]\nrun = --emulator bochs\ncmdline = fake=halt\ntimeout = 10\n"
                         "expect = halt\nexpect_line = # RESULT: PASS\n")
        result = subprocess.run([sys.executable, MATRIX, "--iso", self.iso, "--jobs", "3",
                                 "--log-dir", os.path.join(self.dir, "matrix-logs"), config],
                                env=self.env, capture_output=True, timeout=120)
        text = result.stdout.decode()
        self.assertEqual(result.returncode, 1, text)
        self.assertRegex(text, r"PASS +bochs-ok ")
        self.assertRegex(text, r"PASS +bochs-halt .*\(expected halt, got halt")
        self.assertRegex(text, r"FAIL +bochs-missing-line ")
        self.assertIn("expect_line '# trigger: backend mwait (*)'", text)
        self.assertNotIn("tools/run: bochs -q", text)     # the command echo is not a reason
        self.assertIn("matrix: failed: bochs-missing-line", text)


if __name__ == "__main__":
    unittest.main()
