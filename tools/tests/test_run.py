# SPDX-License-Identifier: MIT
"""Tests of tools/run: the pure command builder, the exit mapping, and whole
runs against a fake qemu-system-x86_64 (a small Python script put first on
PATH) that prints a KTAP log and exits like QEMU's isa-debug-exit would."""

import json
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest

from tools.tests import DATA, TOOLS
from trigos import cli, ktap, qemu, qmp, run, run_common

RUN = os.path.join(TOOLS, "run")

# The fake QEMU.  Its behaviour comes from "fake=MODE" on the kernel command
# line (fw_cfg or -append) or from $FAKE_QEMU_MODE; it appends its argv (and
# what it saw of the OVMF variable store) to $FAKE_QEMU_RECORD as JSON lines.
FAKE_QEMU = textwrap.dedent(r'''
    #!PYTHON
    import json, os, subprocess, sys, time

    DATA = DATA_DIRECTORY

    argv = sys.argv[1:]
    cmdline = ""
    for index, arg in enumerate(argv[:-1]):
        value = argv[index + 1]
        if arg == "-append":
            cmdline = value
        if arg == "-fw_cfg" and value.startswith("name=opt/trigos/cmdline,string="):
            cmdline = value[len("name=opt/trigos/cmdline,string="):].replace(",,", ",")
    mode = os.environ.get("FAKE_QEMU_MODE", "pass")
    for word in cmdline.split():
        if word.startswith("fake="):
            mode = word[len("fake="):]
    record = {"argv": argv, "cmdline": cmdline, "mode": mode, "pid": os.getpid()}
    for arg in argv:
        if arg.startswith("if=pflash") and "unit=1" in arg:
            path = arg.split("file=", 1)[1].replace(",,", ",")
            record["vars"] = path
            record["vars_writable"] = os.access(path, os.W_OK)
    if os.environ.get("FAKE_QEMU_RECORD"):
        with open(os.environ["FAKE_QEMU_RECORD"], "a") as out:
            out.write(json.dumps(record) + "\n")

    def say(text):
        sys.stdout.buffer.write(text.encode() if isinstance(text, str) else text)
        sys.stdout.flush()

    def qmp_server():
        """QEMU's QMP server on -qmp's socket: greeting, capabilities; then
        (connection, its reader, send(message))."""
        import socket
        path = argv[argv.index("-qmp") + 1].split(",")[0][len("unix:"):]
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(path)
        server.listen(1)
        connection, _ = server.accept()
        replies = connection.makefile("rb")
        def send(message):
            connection.sendall(json.dumps(message).encode() + b"\r\n")
        send({"QMP": {"version": {}, "capabilities": []}})
        json.loads(replies.readline())
        send({"return": {}})
        return connection, replies, send

    HEAD = ("\x1b[2J\x1b[01;01HBdsDxe: loading Boot0001\r\n"
            "KTAP version 1\n1..2\n"
            "    KTAP version 1\n    # Subtest: alpha\n    1..2\n"
            "    # one: a diagnostic\n    ok 1 one\n")
    def suite_end(second):
        return (second + "    # alpha: pass:%d fail:%d skip:%d total:2\n")
    if mode in ("pass", "fail", "skip", "crash"):
        # The logs are tools/tests/data/fake-qemu/MODE.log; the status is
        # isa-debug-exit's (value << 1) | 1.
        with open(os.path.join(DATA, "fake-qemu", mode + ".log"), "rb") as log:
            say(log.read())
        sys.exit({"pass": 33, "fail": 35, "skip": 37, "crash": 39}[mode])
    if mode == "lie":
        say(HEAD + "# RESULT: FAIL\n")
        sys.exit(33)
    if mode == "exit0":
        say("SeaBIOS\r\nBooting from DVD/CD...\r\n")
        sys.exit(0)
    if mode == "exit1":
        sys.stderr.write("qemu-system-x86_64: -cdrom x.iso: Could not open 'x.iso'\n")
        sys.exit(1)
    if mode == "hang":
        say(HEAD)
        # A child that keeps the serial pipe open: the timeout must kill the
        # whole process group, not only QEMU.
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        if os.environ.get("FAKE_QEMU_CHILD"):
            with open(os.environ["FAKE_QEMU_CHILD"], "w") as out:
                out.write(str(child.pid))
        time.sleep(600)
    if mode == "wait":
        # Prints one line, then the rest once the file $FAKE_QEMU_GO exists:
        # lets a test see that output is streamed before QEMU exits.
        say("KTAP version 1\n")
        deadline = time.time() + 20
        while not os.path.exists(os.environ["FAKE_QEMU_GO"]) and time.time() < deadline:
            time.sleep(0.02)
        say("1..0\n# Totals: pass:0 fail:0 skip:0 total:0\n# RESULT: PASS\n")
        sys.exit(37)
    if mode in ("reset", "poweroff", "halt", "running"):
        # QEMU's QMP server: greeting, capabilities, then a SHUTDOWN event
        # (reset, poweroff) or "info registers -a" answers (halt, running).
        connection, replies, send = qmp_server()
        say(HEAD + "    ok 2 two\n    # alpha: pass:2 fail:0 skip:0 total:2\nok 1 alpha\n"
            "# RESULT: PASS\n")
        if mode in ("reset", "poweroff"):
            reason = {"reset": "guest-reset", "poweroff": "guest-shutdown"}[mode]
            send({"event": "SHUTDOWN", "data": {"guest": True, "reason": reason}})
            sys.exit(0)
        halted = "RFL=00000002 [-------] CPL=0 II=0 A20=1 SMM=0 HLT=1"
        busy = "RFL=00000202 [-------] CPL=0 II=0 A20=1 SMM=0 HLT=1"
        while True:
            line = replies.readline()
            if not line:
                time.sleep(600)
            request = json.loads(line)
            if request["execute"] in ("stop", "cont"):
                send({"return": {}})
                continue
            second = halted if mode == "halt" else busy
            send({"return": "\r\nCPU#0\r\nRAX=0\r\nRIP=1 " + halted + "\r\n"
                            "CPU#1\r\nRIP=2 " + second + "\r\n"})
    if mode in ("debugged", "undebugged"):
        # -S -gdb: QMP's query-chardev shows gdb connected for $FAKE_QEMU_DEBUG_SECONDS
        # (debugged) or never (undebugged); then the run passes, or never ends.
        port = argv[argv.index("-gdb") + 1]
        connection, replies, send = qmp_server()
        attached_until = time.monotonic() + float(os.environ.get("FAKE_QEMU_DEBUG_SECONDS", "0"))
        import select
        while mode == "undebugged" or time.monotonic() < attached_until:
            # tools/run asks one question at a time: nothing waits in the buffer.
            if not select.select([connection], [], [], 0.1)[0]:
                continue
            line = replies.readline()
            if not line:
                time.sleep(600)
            request = json.loads(line)
            if request["execute"] == "query-chardev":
                peer = " <-> 127.0.0.1:40000" if mode == "debugged" else ""
                prefix = "" if mode == "debugged" else "disconnected:"
                send({"return": [{"label": "serial0", "filename": "stdio"},
                                 {"label": "gdb", "filename": prefix + port + ",server=on" +
                                  peer}]})
            else:
                send({"return": ""})
        say(HEAD + "    ok 2 two\n    # alpha: pass:2 fail:0 skip:0 total:2\nok 1 alpha\n"
            "# Totals: pass:2 fail:0 skip:0 total:2\n# RESULT: PASS\n")
        sys.exit(33)
    sys.stderr.write("fake qemu: unknown mode " + mode + "\n")
    sys.exit(1)
''').lstrip().replace("PYTHON", sys.executable).replace("DATA_DIRECTORY", repr(DATA))


def make_fake_qemu(directory):
    """Write the fake qemu-system-x86_64 into @directory; return its path."""
    path = os.path.join(directory, "qemu-system-x86_64")
    with open(path, "w") as script:
        script.write(FAKE_QEMU)
    os.chmod(path, 0o755)
    return path


class FakeQemuCase(unittest.TestCase):
    """A temporary directory with the fake QEMU first on PATH and a dummy ISO/ELF."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="trigos-test-")
        self.dir = self.tmp.name
        self.bin = os.path.join(self.dir, "bin")
        os.mkdir(self.bin)
        make_fake_qemu(self.bin)
        self.iso = os.path.join(self.dir, "trigos.iso")
        self.elf = os.path.join(self.dir, "trigos.elf")
        for path in (self.iso, self.elf):
            with open(path, "wb") as image:
                image.write(b"\0" * 512)
        self.record = os.path.join(self.dir, "record.jsonl")
        self.env = dict(os.environ, PATH=self.bin + os.pathsep + os.environ.get("PATH", ""),
                        FAKE_QEMU_RECORD=self.record)
        self.env.pop("FAKE_QEMU_MODE", None)

    def tearDown(self):
        self.tmp.cleanup()

    def records(self):
        with open(self.record) as lines:
            return [json.loads(line) for line in lines]

    def run_tool(self, *args, mode=None, timeout=30, cwd=None):
        env = dict(self.env)
        if mode:
            env["FAKE_QEMU_MODE"] = mode
        return subprocess.run([sys.executable, RUN, "--iso", self.iso, "--kernel", self.elf,
                               *args], env=env, capture_output=True, timeout=timeout,
                              cwd=cwd or self.dir, stdin=subprocess.DEVNULL)


def build(**options):
    return qemu.build_command(qemu.RunConfig(**options))


def pairs(command):
    """The (option, value) pairs of a QEMU command, for membership tests."""
    return list(zip(command, command[1:]))


class CommandBuilderTest(unittest.TestCase):
    ALWAYS = [("-display", "none"), ("-monitor", "none"), ("-serial", "stdio"),
              ("-device", "isa-debug-exit,iobase=0xf4,iosize=0x04")]

    def check_always(self, command):
        self.assertEqual(command[0], "qemu-system-x86_64")
        for pair in self.ALWAYS:
            self.assertIn(pair, pairs(command))
        self.assertIn("-no-reboot", command)
        self.assertNotIn("kvm", " ".join(command[:command.index("-device")]).replace(
            "-accel tcg", ""))
        self.assertFalse(any("thread=single" in arg for arg in command))

    def test_defaults_bios_cdrom(self):
        command = build()
        self.check_always(command)
        self.assertIn(("-cdrom", "build/trigos.iso"), pairs(command))
        self.assertIn(("-accel", "tcg"), pairs(command))
        self.assertIn(("-smp", "2"), pairs(command))
        self.assertIn(("-m", "256"), pairs(command))
        self.assertIn(("-machine", "pc"), pairs(command))
        for absent in ("-kernel", "-append", "-fw_cfg", "-bios"):
            self.assertNotIn(absent, command)
        self.assertFalse(any("pflash" in arg for arg in command))

    def test_every_boot_and_firmware(self):
        for firmware in ("bios", "uefi"):
            for boot in ("cdrom", "usb", "kernel"):
                with self.subTest(firmware=firmware, boot=boot):
                    config = qemu.RunConfig(firmware=firmware, boot=boot, iso="t.iso",
                                           kernel="t.elf", ovmf_vars="/tmp/x/VARS.fd")
                    if firmware == "uefi" and boot == "kernel":
                        with self.assertRaises(cli.UsageError) as raised:
                            qemu.build_command(config)
                        self.assertIn("OVMF ignores -kernel", str(raised.exception))
                        continue
                    command = qemu.build_command(config)
                    self.check_always(command)
                    flash = [arg for arg in command if arg.startswith("if=pflash")]
                    if firmware == "uefi":
                        self.assertEqual(flash, [
                            "if=pflash,format=raw,unit=0,readonly=on,"
                            "file=/usr/share/OVMF/OVMF_CODE_4M.fd",
                            "if=pflash,format=raw,unit=1,file=/tmp/x/VARS.fd"])
                    else:
                        self.assertEqual(flash, [])
                    if boot == "cdrom":
                        self.assertIn(("-cdrom", "t.iso"), pairs(command))
                        self.assertNotIn("-kernel", command)
                    elif boot == "usb":
                        self.assertNotIn("-cdrom", command)
                        self.assertIn(("-device", "qemu-xhci,id=xhci"), pairs(command))
                        drive = [arg for arg in command if "id=usbstick" in arg]
                        self.assertEqual(len(drive), 1)
                        self.assertIn("readonly=on", drive[0].split(","))
                        self.assertTrue(drive[0].endswith("file=t.iso"))
                        self.assertTrue(any(arg.startswith("usb-storage,") and
                                            "drive=usbstick" in arg for arg in command))
                    else:
                        self.assertIn(("-kernel", "t.elf"), pairs(command))
                        self.assertNotIn("-cdrom", command)

    def test_cmdline_on_every_boot_path(self):
        cmdline = "test=lib_* seed=7"
        for boot in ("cdrom", "usb"):
            command = build(boot=boot, cmdline=cmdline)
            self.assertIn(("-fw_cfg", "name=opt/trigos/cmdline,string=test=lib_* seed=7"),
                          pairs(command))
            self.assertNotIn("-append", command)
        command = build(boot="kernel", cmdline=cmdline)
        self.assertIn(("-append", cmdline), pairs(command))
        self.assertNotIn("-fw_cfg", command)
        command = build(firmware="uefi", boot="cdrom", cmdline="x", ovmf_vars="v")
        self.assertIn(("-fw_cfg", "name=opt/trigos/cmdline,string=x"), pairs(command))

    def test_commas_are_doubled_in_option_lists(self):
        command = build(cmdline="a,b,,c")
        self.assertIn(("-fw_cfg", "name=opt/trigos/cmdline,string=a,,b,,,,c"), pairs(command))
        # -append is not an option list: commas stay as they are.
        self.assertIn(("-append", "a,b"), pairs(build(boot="kernel", cmdline="a,b")))
        command = build(boot="usb", iso="/tmp/odd,name.iso")
        self.assertTrue(any(arg.endswith("file=/tmp/odd,,name.iso") for arg in command))
        command = build(firmware="uefi", ovmf_vars="/tmp/a,b/VARS.fd")
        self.assertIn("if=pflash,format=raw,unit=1,file=/tmp/a,,b/VARS.fd", command)
        self.assertEqual(qemu.qemu_escape("x,y"), "x,,y")
        self.assertEqual(qemu.qemu_escape("plain"), "plain")

    def test_smp_cpus_memory_machine_accel_extra(self):
        self.assertIn(("-smp", "1"), pairs(build(cpus=1)))
        self.assertIn(("-smp", "4,maxcpus=8"), pairs(build(cpus=1, smp="4,maxcpus=8")))
        self.assertIn(("-smp", "6,sockets=2,cores=3"), pairs(build(smp="6,sockets=2,cores=3")))
        self.assertIn(("-m", "512"), pairs(build(memory=512)))
        self.assertIn(("-machine", "q35"), pairs(build(machine="q35")))
        self.assertIn(("-accel", "kvm"), pairs(build(accel="kvm")))
        command = build(qemu_args=["-cpu", "max", "-d", "int"])
        self.assertEqual(command[-4:], ["-cpu", "max", "-d", "int"])

    def test_invalid_configs(self):
        for options in ({"cpus": 0}, {"memory": 4}, {"smp": " "}, {"firmware": "uefi"},
                        {"boot": "floppy"}):
            with self.subTest(options=options), self.assertRaises(cli.UsageError):
                build(**options)

    def test_pure(self):
        # Nothing named in the config needs to exist.
        command = build(iso="/nonexistent/x.iso", firmware="uefi", ovmf_vars="/nonexistent/v")
        self.assertIn("/nonexistent/x.iso", command)


class CpuModelTest(unittest.TestCase):
    def test_cpu_model_follows_the_accelerator(self):
        command = qemu.build_command(qemu.RunConfig(cpu="max"))
        at = command.index("-cpu")
        self.assertEqual(command[at + 1], "max")
        self.assertEqual(command[at - 2:at], ["-accel", "tcg"])

    def test_no_model_leaves_qemus_default(self):
        self.assertNotIn("-cpu", qemu.build_command(qemu.RunConfig()))

    def test_command_line_default_is_max_and_empty_means_qemus(self):
        self.assertEqual(run.config_from_args(run.parse_args([])).cpu, "max")
        self.assertIsNone(run.config_from_args(run.parse_args(["--cpu", ""])).cpu)


class ExitMappingTest(unittest.TestCase):
    def test_verdicts(self):
        self.assertEqual(qemu.verdict_for_exit(33), (0, "PASS"))
        self.assertEqual(qemu.verdict_for_exit(35), (1, "FAIL"))
        self.assertEqual(qemu.verdict_for_exit(37), (2, "SKIP"))
        self.assertEqual(qemu.verdict_for_exit(39), (3, "CRASH"))
        for status in (0, 1, 2, 3, 32, 34, 41, 255, -9, -15):
            with self.subTest(status=status):
                self.assertEqual(qemu.verdict_for_exit(status), (5, None))
        self.assertEqual((run_common.EXIT_TIMEOUT, run_common.EXIT_NO_VERDICT,
                          run_common.EXIT_SETUP), (4, 5, 6))

    def test_cross_check_with_the_log(self):
        self.assertEqual(qemu.cross_check(33, "# RESULT: PASS"), (0, None))
        self.assertEqual(qemu.cross_check(33, "# RESULT: PASS  "), (0, None))
        code, message = qemu.cross_check(33, "# RESULT: FAIL")
        self.assertEqual(code, 5)
        self.assertIn("33", message)
        self.assertEqual(qemu.cross_check(33, "    ok 1 x")[0], 5)
        self.assertEqual(qemu.cross_check(33, "")[0], 5)
        self.assertEqual(qemu.cross_check(37, "# RESULT: PASS"), (2, None))
        self.assertEqual(qemu.cross_check(37, "ok 1 x")[0], 5)
        self.assertEqual(qemu.cross_check(35, "# RESULT: FAIL"), (1, None))
        code, message = qemu.cross_check(35, "# RESULT: PASS")
        self.assertEqual(code, 1)
        self.assertIsNotNone(message)
        self.assertEqual(qemu.cross_check(39, "# RESULT: CRASH"), (3, None))
        self.assertEqual(qemu.cross_check(39, "garbage")[0], 3)
        code, message = qemu.cross_check(0, "")
        self.assertEqual(code, 5)
        self.assertIn("reset", message)
        self.assertEqual(qemu.cross_check(1, "# RESULT: PASS")[0], 5)

    def test_last_line(self):
        # tools/run's cross-check reads the last line with tools/ktap's rule.
        self.assertEqual(ktap.last_line(b"a\r\n# RESULT: PASS\r\n\r\n  \n"),
                         (2, "# RESULT: PASS"))
        self.assertEqual(ktap.last_line(b"x\n \r\t\r\n"), (1, "x"))
        self.assertEqual(ktap.last_line(b""), (0, ""))
        self.assertEqual(ktap.last_line(b"x\xff\xfe"), (1, "x\ufffd\ufffd"))


class ArgumentTest(unittest.TestCase):
    def test_qemu_arg_is_split_like_a_shell(self):
        args = run.parse_args(["--qemu-arg", "-cpu max", "--qemu-arg=-d", "--qemu-arg",
                               "'a b'"])
        self.assertEqual(args.qemu_args, ["-cpu", "max", "-d", "a b"])

    def test_defaults(self):
        args = run.parse_args([])
        self.assertEqual((args.cpus, args.accel, args.firmware, args.boot, args.memory,
                          args.machine, args.timeout, args.iso, args.kernel),
                         (2, "tcg", "bios", "cdrom", 256, "pc", 60.0, "build/trigos.iso",
                          "build/trigos.elf"))

    def test_usage_errors_exit_6_not_2(self):
        for argv in (["--bogus"], ["--timeout", "0"], ["--accel", "hvf"], ["--cpus", "x"],
                     ["--qemu-arg", "'unbalanced"]):
            with self.subTest(argv=argv):
                result = subprocess.run([sys.executable, RUN, *argv], capture_output=True,
                                        text=True, stdin=subprocess.DEVNULL)
                self.assertEqual(result.returncode, 6)
                self.assertIn("error", result.stderr)

    def test_uefi_kernel_is_refused(self):
        result = subprocess.run([sys.executable, RUN, "--firmware", "uefi", "--boot", "kernel",
                                 "--dry-run"], capture_output=True, text=True)
        self.assertEqual(result.returncode, 6)
        self.assertIn("OVMF ignores -kernel", result.stderr)

    def test_dry_run_prints_the_command_and_needs_no_files(self):
        result = subprocess.run([sys.executable, RUN, "--dry-run", "--iso", "/nonexistent.iso",
                                 "--cmdline", "a,b", "--cpus", "3"], capture_output=True,
                                text=True)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("qemu-system-x86_64 ", result.stdout)
        self.assertIn("-cdrom /nonexistent.iso", result.stdout)
        self.assertIn(" -fw_cfg name=opt/trigos/cmdline,string=a,,b", result.stdout)
        self.assertIn("-smp 3", result.stdout)

    def test_help(self):
        result = subprocess.run([sys.executable, RUN, "--help"], capture_output=True, text=True)
        self.assertEqual(result.returncode, 0)
        for word in ("--cpus", "--smp", "--firmware", "--boot", "--cmdline", "--timeout",
                     "exit status"):
            self.assertIn(word, result.stdout)


class GdbTest(unittest.TestCase):
    """--gdb[=PORT]: the stub, the command printed, the timeout's meaning."""

    def test_stub_on_the_loopback_and_halted(self):
        command = build(gdb_port=4321)
        self.assertIn(("-gdb", "tcp:127.0.0.1:4321"), pairs(command))
        self.assertIn("-S", command)
        for boot in ("kernel", "usb"):
            self.assertIn(("-gdb", "tcp:127.0.0.1:4321"), pairs(build(gdb_port=4321, boot=boot)))
        self.assertNotIn("-S", build())
        self.assertNotIn("-gdb", build())
        with self.assertRaises(cli.UsageError):
            build(gdb_port=70000)

    def test_port_and_timeout_defaults(self):
        args = run.parse_args(["--gdb"])
        self.assertEqual((args.gdb, args.timeout), (1234, float("inf")))
        args = run.parse_args(["--gdb=4000", "--timeout", "5"])
        self.assertEqual((args.gdb, args.timeout), (4000, 5.0))
        args = run.parse_args(["--gdb", "4001"])
        self.assertEqual(args.gdb, 4001)
        self.assertEqual(run.parse_args([]).gdb, None)
        for argv in (["--gdb=0"], ["--gdb=http"], ["--gdb=65536"]):
            with self.subTest(argv=argv):
                result = subprocess.run([sys.executable, RUN, *argv, "--dry-run"],
                                        capture_output=True, text=True)
                self.assertEqual(result.returncode, run_common.EXIT_SETUP)
                self.assertIn("--gdb", result.stderr)

    def test_the_gdb_command_printed(self):
        config = qemu.RunConfig(gdb_port=1234, kernel="build/trigos.elf")
        self.assertEqual(run.gdb_command(config),
                         ["gdb", "build/trigos.elf", "-ex", "target remote 127.0.0.1:1234",
                          "-ex", "break kmain", "-ex", "continue"])
        # Under KVM a software breakpoint set before the load is overwritten by it.
        config.accel = "kvm"
        self.assertIn("hbreak kmain", run.gdb_command(config))

    def test_attached_is_read_from_query_chardev(self):
        # As QEMU 7.2 answers, before and while gdb is connected.
        waiting = [{"frontend-open": True, "filename": "gdb", "label": "#chr033"},
                   {"frontend-open": True, "filename": "disconnected:tcp:127.0.0.1:47123,"
                    "server=on", "label": "gdb"}]
        connected = [{"frontend-open": True, "filename": "tcp:127.0.0.1:47123,server=on "
                      "<-> 127.0.0.1:48624", "label": "gdb"}]
        self.assertFalse(run.gdb_attached(waiting))
        self.assertTrue(run.gdb_attached(connected))
        self.assertFalse(run.gdb_attached(None))
        self.assertFalse(run.gdb_attached([{"label": "serial0", "filename": "a <-> b"}]))


class GdbTimeoutTest(FakeQemuCase):
    """No timeout kill while a debugger is attached; the timeout as usual without one."""

    def test_attached_debugger_holds_the_timeout(self):
        self.env["FAKE_QEMU_DEBUG_SECONDS"] = "6"
        result = self.run_tool("--gdb=4444", "--timeout", "2", "--quiet",
                               "--log", os.path.join(self.dir, "debugged.log"),
                               mode="debugged")
        stderr = result.stderr.decode()
        self.assertEqual(result.returncode, run_common.EXIT_PASS, stderr)
        self.assertIn("gdb stub on 127.0.0.1:4444", stderr)
        self.assertIn("run:   gdb " + self.elf + " -ex 'target remote 127.0.0.1:4444'", stderr)
        self.assertIn("the 2 s timeout counts only while no debugger is attached", stderr)

    def test_without_a_debugger_the_timeout_still_ends_the_run(self):
        result = self.run_tool("--gdb=4444", "--timeout", "2", "--quiet",
                               "--log", os.path.join(self.dir, "undebugged.log"),
                               mode="undebugged")
        self.assertEqual(result.returncode, run_common.EXIT_TIMEOUT, result.stderr)


class MissingFilesTest(FakeQemuCase):
    def test_missing_qemu_names_the_package(self):
        empty = os.path.join(self.dir, "empty")
        os.mkdir(empty)
        env = dict(self.env, PATH=empty)
        result = subprocess.run([sys.executable, RUN, "--iso", self.iso], env=env,
                                capture_output=True, text=True)
        self.assertEqual(result.returncode, 6)
        self.assertIn("qemu-system-x86", result.stderr)
        self.assertIn("make deps", result.stderr)

    def test_missing_iso_and_kernel(self):
        result = subprocess.run([sys.executable, RUN, "--iso", "/nonexistent.iso"],
                                env=self.env, capture_output=True, text=True)
        self.assertEqual(result.returncode, 6)
        self.assertIn("/nonexistent.iso", result.stderr)
        self.assertIn("make iso", result.stderr)
        result = subprocess.run([sys.executable, RUN, "--boot", "kernel", "--kernel",
                                 "/nonexistent.elf"], env=self.env, capture_output=True,
                                text=True)
        self.assertEqual(result.returncode, 6)
        self.assertIn("/nonexistent.elf", result.stderr)


class MachineEndTest(FakeQemuCase):
    """exit=reboot|poweroff|halt: QEMU's account over QMP becomes the exit status."""

    def test_shutdown_event_reasons(self):
        for mode, status, text in (("reset", run_common.EXIT_RESET, "machine reset"),
                                   ("poweroff", run_common.EXIT_POWEROFF, "machine powered off")):
            result = self.run_tool("--quiet", "--log", os.path.join(self.dir, mode + ".log"),
                                   mode=mode)
            self.assertEqual(result.returncode, status, result.stderr)
            self.assertIn(f"run: {text} (QMP SHUTDOWN event", result.stderr.decode())

    def test_all_cpus_halted_with_interrupts_off(self):
        result = self.run_tool("--quiet", "--log", os.path.join(self.dir, "halt.log"),
                               "--timeout", "20", mode="halt")
        self.assertEqual(result.returncode, run_common.EXIT_HALTED, result.stderr)
        self.assertIn("run: machine halted: all 2 vCPUs halted with interrupts off",
                      result.stderr.decode())

    def test_a_cpu_with_interrupts_on_is_not_halted_for_good(self):
        result = self.run_tool("--quiet", "--log", os.path.join(self.dir, "running.log"),
                               "--timeout", "4", mode="running")
        self.assertEqual(result.returncode, run_common.EXIT_TIMEOUT, result.stderr)

    def test_register_dump_parsing(self):
        dump = ("\r\nCPU#0\r\nRIP=0000000000103ae2 RFL=00200002 [-------] CPL=0 HLT=1\r\n"
                "CPU#1\r\nEIP=000fd0c0 EFL=00000002 [-------] CPL=0 HLT=0\r\n"
                "CPU#2\r\nRIP=0000000000103ae2 RFL=00000246 [---Z-P-] CPL=0 HLT=1\r\n")
        self.assertEqual(qmp.parse_halted_cpus(dump), (1, 3))
        self.assertEqual(qmp.parse_halted_cpus(""), (0, 0))

    def test_qmp_is_on_the_command_line_only_when_asked(self):
        self.assertNotIn("-qmp", qemu.build_command(qemu.RunConfig()))
        command = qemu.build_command(qemu.RunConfig(qmp_socket="/tmp/a,b/qmp.sock"))
        self.assertEqual(command[command.index("-qmp") + 1],
                         "unix:/tmp/a,,b/qmp.sock,server=on,wait=off")


class FakeQemuRunTest(FakeQemuCase):
    def test_pass_streams_logs_and_reports(self):
        log = os.path.join(self.dir, "pass.log")
        result = self.run_tool("--log", log)
        self.assertEqual(result.returncode, 0, result.stderr)
        stdout = result.stdout.decode()
        self.assertIn("KTAP version 1\n", stdout)
        self.assertIn("# RESULT: PASS\n", stdout)
        self.assertNotIn("\x1b", stdout)           # escapes are not sent to the terminal
        with open(log, "rb") as saved:
            data = saved.read()
        self.assertTrue(data.startswith(b"\x1b[2J"))   # ...but the log keeps every byte
        self.assertTrue(data.endswith(b"# RESULT: PASS\n"))
        stderr = result.stderr.decode().splitlines()
        self.assertTrue(stderr[0].startswith("run: qemu-system-x86_64 -machine pc"))
        self.assertIn("-serial stdio", stderr[0])
        self.assertRegex(stderr[-1], r"^run: PASS \(QEMU exit 33\) in [0-9.]+ s; log: ")
        record, = self.records()
        self.assertIn(self.iso, record["argv"])

    def test_verdicts(self):
        expected = {"fail": 1, "skip": 2, "crash": 3, "lie": 5, "exit0": 5, "exit1": 5}
        processes = {}
        for mode in expected:       # in parallel: each is mostly interpreter start-up
            env = dict(self.env, FAKE_QEMU_MODE=mode)
            processes[mode] = subprocess.Popen(
                [sys.executable, RUN, "--iso", self.iso, "--quiet", "--log",
                 os.path.join(self.dir, mode + ".log")], env=env, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
        results = {mode: (process.communicate(timeout=30), process.returncode)
                   for mode, process in processes.items()}
        for mode, code in expected.items():
            with self.subTest(mode=mode):
                (stdout, stderr), returncode = results[mode]
                self.assertEqual(returncode, code, stderr)
                self.assertEqual(stdout, b"")
        self.assertIn(b"Could not open", results["exit1"][0][1])    # QEMU's own message
        self.assertIn(b"says PASS", results["lie"][0][1])
        self.assertIn(b"Booting from DVD", results["exit0"][0][1])  # the log's tail
        self.assertIn(b"reset or shut down", results["exit0"][0][1])

    def test_timeout_kills_the_process_group(self):
        child_file = os.path.join(self.dir, "child.pid")
        self.env["FAKE_QEMU_CHILD"] = child_file
        result = self.run_tool("--timeout", "5", "--log", os.path.join(self.dir, "hang.log"),
                               mode="hang")
        self.assertEqual(result.returncode, 4, result.stderr)
        stderr = result.stderr.decode()
        self.assertIn("timeout", stderr)
        self.assertIn("|     ok 1 one\n", stderr)     # the last lines of the log
        self.assertIn("# Subtest: alpha", stderr)
        with open(child_file) as pid_file:
            child = int(pid_file.read())
        record, = self.records()
        for pid in (child, record["pid"]):
            deadline = time.monotonic() + 3
            while time.monotonic() < deadline and _alive(pid):
                time.sleep(0.05)
            self.assertFalse(_alive(pid), f"process {pid} survived the timeout")

    def test_output_is_streamed_before_qemu_exits(self):
        go = os.path.join(self.dir, "go")
        env = dict(self.env, FAKE_QEMU_MODE="wait", FAKE_QEMU_GO=go)
        process = subprocess.Popen([sys.executable, RUN, "--iso", self.iso, "--log",
                                    os.path.join(self.dir, "w.log")], env=env,
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                   stdin=subprocess.DEVNULL)
        try:
            first = process.stdout.readline()
            self.assertEqual(first, b"KTAP version 1\n")
            self.assertIsNone(process.poll())
            open(go, "w").close()
            rest = process.stdout.read()
            self.assertEqual(process.wait(timeout=20), 2)
            self.assertIn(b"# RESULT: PASS", rest)
        finally:
            if process.poll() is None:
                process.kill()
            process.stdout.close()

    def test_sigterm_stops_qemu(self):
        env = dict(self.env, FAKE_QEMU_MODE="hang")
        process = subprocess.Popen([sys.executable, RUN, "--iso", self.iso, "--log",
                                    os.path.join(self.dir, "t.log")], env=env,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   stdin=subprocess.DEVNULL)
        try:
            self.assertEqual(process.stdout.readline(), b"BdsDxe: loading Boot0001\n")
            process.send_signal(signal.SIGTERM)
            self.assertEqual(process.wait(timeout=10), 128 + signal.SIGTERM)
        finally:
            if process.poll() is None:
                process.kill()
            process.stdout.close()
            process.stderr.close()
        record, = self.records()
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline and _alive(record["pid"]):
            time.sleep(0.05)
        self.assertFalse(_alive(record["pid"]))

    def test_uefi_uses_a_private_vars_copy(self):
        if not os.path.isfile(qemu.OVMF_VARS):
            self.skipTest("OVMF is not installed")
        result = self.run_tool("--firmware", "uefi", "--quiet", "--log",
                               os.path.join(self.dir, "u.log"))
        self.assertEqual(result.returncode, 0, result.stderr)
        record, = self.records()
        self.assertTrue(record["vars_writable"])
        self.assertNotEqual(os.path.dirname(record["vars"]), os.path.dirname(qemu.OVMF_VARS))
        self.assertFalse(os.path.exists(record["vars"]))    # removed after the run
        self.assertIn("if=pflash,format=raw,unit=0,readonly=on,file=" + qemu.OVMF_CODE,
                      record["argv"])

    def test_cmdline_reaches_qemu(self):
        for boot in ("cdrom", "usb", "kernel"):
            with self.subTest(boot=boot):
                result = self.run_tool("--boot", boot, "--cmdline", "fake=pass a,b", "--quiet",
                                       "--log", os.path.join(self.dir, boot + ".log"))
                self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual([record["cmdline"] for record in self.records()], ["fake=pass a,b"] * 3)

    def test_default_log_goes_to_build_logs(self):
        result = self.run_tool("--quiet")
        self.assertEqual(result.returncode, 0, result.stderr)
        logs = os.listdir(os.path.join(self.dir, "build", "logs"))
        self.assertEqual(len(logs), 1)
        self.assertTrue(logs[0].endswith(".log"))


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie has not been reaped yet but is dead; look at its state.
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
    return True


if __name__ == "__main__":
    unittest.main()
