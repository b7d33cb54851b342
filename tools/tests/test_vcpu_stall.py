# SPDX-License-Identifier: MIT
"""Tests of tools/run --stall-vcpus (tools/trigos/vcpu_stall.py): the spec, the
plan, and real stops of a busy thread of a child process through ptrace(2)."""

import os
import re
import subprocess
import sys
import textwrap
import time
import unittest
from unittest import mock

from trigos import run, vcpu_stall
from trigos.cli import UsageError

# A child with one busy thread (the "vCPU") whose main thread waits in
# futex(2) on a lock the busy thread holds, as QEMU's main thread waits for
# the global lock a stopped vCPU thread holds.  It prints the busy thread's id.
BUSY_CHILD = textwrap.dedent("""
    import sys, threading
    lock = threading.Lock()
    ready = threading.Event()
    def busy():
        lock.acquire()
        sys.stdout.write(str(threading.get_native_id()) + "\\n")
        sys.stdout.flush()
        ready.set()
        n = 0
        while True:
            n += 1
    threading.Thread(target=busy, daemon=True).start()
    ready.wait()
    lock.acquire()
""")


def ptrace_refused():
    """Why ptrace cannot be used here, or None (a child of ours can be traced as root
    or under Yama scope 0/1)."""
    try:
        with open("/proc/sys/kernel/yama/ptrace_scope") as scope:
            if int(scope.read()) >= 3:
                return "Yama ptrace_scope 3 forbids ptrace"
    except OSError:
        pass
    return None


class BusyChild:
    def __enter__(self):
        self.process = subprocess.Popen([sys.executable, "-c", BUSY_CHILD],
                                        stdout=subprocess.PIPE, text=True)
        self.tid = int(self.process.stdout.readline())
        return self

    def __exit__(self, *exc):
        self.process.kill()
        self.process.wait()
        self.process.stdout.close()

    def ticks(self):
        return vcpu_stall.thread_ticks(self.process.pid, self.tid)

    def main_thread_blocked(self, seconds=10, settled=10, poll=0.01):
        """Whether the main thread came to rest in futex on the busy thread's lock:
        @settled reads in a row, @poll apart.  One read is not enough: on its way
        there it also waits in futex for Python's GIL, 5 ms at a time, and one
        make check under load caught it running just after such a wait."""
        pid, in_a_row, futex = self.process.pid, 0, None
        deadline = time.monotonic() + seconds
        while in_a_row < settled and time.monotonic() < deadline:
            waits_on = self.futex_waited_on(pid)
            in_a_row = in_a_row + 1 if waits_on is not None and waits_on == futex else 0
            futex = waits_on
            time.sleep(poll)
        return in_a_row >= settled

    @staticmethod
    def futex_waited_on(pid):
        """The futex word the thread @pid waits on (the system call's first argument,
        /proc/PID/syscall), or None when it is not in futex: the same word each time
        is the lock, where the GIL's waits come and go."""
        try:
            with open(f"/proc/{pid}/task/{pid}/syscall") as syscall:
                number, word = syscall.read().split()[:2]
        except (OSError, ValueError):
            return None         # gone, or "running" (one field)
        return word if number == str(vcpu_stall.SYSCALL_FUTEX) else None

    def state(self):
        with open(f"/proc/{self.process.pid}/task/{self.tid}/stat") as stat:
            text = stat.read()
        return text[text.rindex(")") + 2]


class FakeQmp:
    """The stopper's QMP: query-cpus-fast names the child's thread as vCPU 0; a
    query-status probe is answered unless @answers is False."""

    def __init__(self, tid, answers=True):
        self.tid = tid
        self.answers = answers
        self.sent = []

    def command(self, name, arguments=None):
        assert name == "query-cpus-fast"
        return [{"cpu-index": 0, "thread-id": self.tid, "qom-path": "/machine/unattached/x"}]

    def send(self, name, arguments=None):
        self.sent.append(name)
        return True

    def wait_reply(self, timeout):
        return {"return": {}} if self.answers else None

    def close(self):
        pass


class SpecTest(unittest.TestCase):
    def test_defaults(self):
        spec = vcpu_stall.parse_spec("3")
        self.assertEqual(spec, vcpu_stall.StallSpec(3, (1.5, 3.0), (1.0, 3.0), 1.5, 1, False))

    def test_every_field(self):
        spec = vcpu_stall.parse_spec("2, seconds=2-2.5,gap=0-1,first=4,seed=0x10,lock")
        self.assertEqual(spec, vcpu_stall.StallSpec(2, (2.0, 2.5), (0.0, 1.0), 4.0, 16, True))

    def test_bad_specs_say_what_is_wrong(self):
        for text, words in (("", "starts with the number of stops"),
                            ("x", "starts with the number of stops"),
                            ("0", "need 1..1000"),
                            ("2,seconds=3-1", "need 0 <= MIN <= MAX"),
                            ("2,seconds=a-b", "is not MIN-MAX in seconds"),
                            ("2,seed=z", "is not a number"),
                            ("2,locked", "unknown word 'locked'")):
            with self.subTest(text=text), self.assertRaises(UsageError) as caught:
                vcpu_stall.parse_spec(text)
            self.assertIn(words, str(caught.exception))

    def test_the_command_names_threads_and_gives_the_stopper_its_qmp(self):
        with mock.patch("sys.stdout") as out:
            self.assertEqual(run.main(["--boot", "kernel", "--stall-vcpus", "2", "--dry-run"]), 0)
        printed = "".join(call.args[0] for call in out.write.call_args_list)
        self.assertIn(" -name trigos,debug-threads=on -qmp 'unix:<temporary directory>/"
                      "stall.sock,server=on,wait=off'", printed)
        with mock.patch("sys.stdout") as out:
            run.main(["--boot", "kernel", "--dry-run"])
        self.assertNotIn("debug-threads", "".join(call.args[0]
                                                  for call in out.write.call_args_list))

    def test_bochs_refuses_it(self):
        with mock.patch("sys.stderr") as err:
            self.assertEqual(run.main(["--emulator", "bochs", "--stall-vcpus", "2",
                                       "--dry-run"]), 6)
        self.assertIn("--stall-vcpus cannot be used with --emulator bochs: Bochs runs every "
                      "CPU on one host thread",
                      "".join(call.args[0] for call in err.write.call_args_list))

    def test_run_refuses_a_bad_spec_with_status_6(self):
        with mock.patch("sys.stderr"), self.assertRaises(SystemExit) as caught:
            run.parse_args(["--stall-vcpus", "2,bogus"])
        self.assertEqual(caught.exception.code, 6)


class PlanTest(unittest.TestCase):
    def test_seeded_ordered_and_within_the_ranges(self):
        spec = vcpu_stall.StallSpec(6, seconds=(1.5, 3.0), gap=(1.0, 3.0), first=2.0, seed=5)
        stalls = vcpu_stall.plan(spec, 4)
        self.assertEqual(stalls, vcpu_stall.plan(spec, 4))
        self.assertNotEqual(stalls, vcpu_stall.plan(vcpu_stall.StallSpec(6, seed=6), 4))
        self.assertEqual([stall.number for stall in stalls], list(range(1, 7)))
        self.assertEqual(stalls[0].start, 2.0)
        for earlier, later in zip(stalls, stalls[1:]):
            gap = later.start - (earlier.start + earlier.seconds)
            self.assertTrue(0.99 <= gap <= 3.01, gap)
        for stall in stalls:
            self.assertTrue(1.5 <= stall.seconds <= 3.0)
            self.assertIn(stall.cpu, range(4))

    def test_vcpu_threads_from_query_cpus_fast(self):
        answer = [{"cpu-index": 1, "thread-id": 11}, {"cpu-index": 0, "thread-id": 10},
                  {"cpu-index": 2}, "junk"]
        self.assertEqual(vcpu_stall.vcpu_threads(answer), {0: 10, 1: 11})
        self.assertEqual(vcpu_stall.vcpu_threads(None), {})


@unittest.skipIf(ptrace_refused(), ptrace_refused())
class StopTest(unittest.TestCase):
    def test_a_stopped_thread_does_not_run_and_runs_again_after(self):
        tracer = vcpu_stall.Ptrace()
        with BusyChild() as child:
            time.sleep(0.2)
            tracer.stop(child.tid)
            try:
                self.assertEqual(child.state(), "t")     # tracing stop (proc(5))
                before = child.ticks()
                time.sleep(0.5)
                self.assertEqual(child.ticks(), before)
            finally:
                tracer.release(child.tid)
            before = child.ticks()
            time.sleep(0.5)
            self.assertGreater(child.ticks(), before)
            self.assertIsNone(child.process.poll())

    def test_the_stopper_notes_each_stop(self):
        spec = vcpu_stall.StallSpec(2, seconds=(0.4, 0.4), gap=(0.1, 0.1), first=0.0)
        with BusyChild() as child:
            staller = vcpu_stall.VcpuStaller(spec, FakeQmp(child.tid), child.process.pid,
                                             time.monotonic())
            staller.start()
            staller.join(timeout=10)
            notes = staller.notes()
            self.assertIsNone(child.process.poll())
        self.assertEqual(len(notes), 6, notes)
        self.assertEqual(notes[0], f"vCPU stalls planned: 2, vCPU threads (index:tid) "
                                   f"0:{child.tid}")
        # The times are the host's: a loaded one starts and ends a stop late.
        self.assertRegex(notes[1], rf"^stall 1 of 2: vCPU 0 \(thread {child.tid}\) stopped at "
                                   r"\+\d+\.\d{3} s for 0\.400 s, QEMU's main loop runs on "
                                   r"\(QMP answers\)$")
        stopped = re.fullmatch(rf"stall 1 of 2: vCPU 0 \(thread {child.tid}\) resumed at "
                               r"\+\d+\.\d{3} s after (\d+\.\d{3}) s stopped; its CPU time "
                               r"meanwhile 0 ms, the other vCPUs'  ms", notes[2])
        self.assertIsNotNone(stopped, notes[2])
        self.assertGreaterEqual(float(stopped.group(1)), 0.4)
        self.assertTrue(notes[4].startswith("stall 2 of 2: "), notes[4])
        self.assertEqual(notes[5], "vCPU stalls: all 2 done")

    def test_a_plain_stop_says_whether_the_machine_runs_on(self):
        spec = vcpu_stall.StallSpec(1, seconds=(0.2, 0.2), first=0.0)
        with BusyChild() as child:
            staller = vcpu_stall.VcpuStaller(spec, FakeQmp(child.tid, answers=False),
                                             child.process.pid, time.monotonic())
            staller.run()
        self.assertTrue(staller.notes()[1].endswith(
            ", by chance holding QEMU's global lock (QMP gets no answer)"))

    def test_lock_mode_holds_only_when_the_main_loop_cannot_answer(self):
        spec = vcpu_stall.StallSpec(1, seconds=(0.3, 0.3), first=0.0, lock=True)
        with BusyChild() as child:
            pid = child.process.pid
            self.assertTrue(child.main_thread_blocked(), "the child's main thread never "
                                                         "settled in futex on its lock")
            held = vcpu_stall.VcpuStaller(spec, FakeQmp(child.tid, answers=False), pid,
                                          time.monotonic())
            held.run()
            answered = vcpu_stall.VcpuStaller(spec, FakeQmp(child.tid, answers=True), pid,
                                              time.monotonic())
            with mock.patch.object(vcpu_stall, "LOCK_TRIES", 3):
                answered.run()
            self.assertIsNone(child.process.poll())
        # Try 1 unless the child's main thread was caught off its futex for a moment.
        self.assertRegex(held.notes()[1], r"holding QEMU's global lock \(a QMP command got no "
                                          r"answer and the main thread waits in futex; caught "
                                          r"at try \d+\)$")
        self.assertEqual(answered.qmp.sent, ["query-status"] * 3)
        self.assertIn("no vCPU found holding QEMU's global lock (vCPU 0, thread "
                      f"{child.tid}, planned); skipped", answered.notes()[1])

    def test_lock_mode_stops_another_vcpu_when_the_planned_one_never_holds_it(self):
        """A planned vCPU that stays halted is given up after LOCK_PLANNED_SECONDS."""
        spec = vcpu_stall.StallSpec(1, seconds=(0.1, 0.1), first=0.0, lock=True)
        idle = 999999999                # a thread id no process has: the halted vCPU

        class Tracer:
            stopped = None

            def stop(self, tid):
                self.stopped = tid

            def release(self, tid):
                self.stopped = None

        class Qmp(FakeQmp):
            def command(self, name, arguments=None):
                return [{"cpu-index": 0, "thread-id": idle},
                        {"cpu-index": 1, "thread-id": self.tid}]

            def wait_reply(self, timeout):
                # QEMU's main loop answers unless the busy vCPU is the one stopped.
                return None if tracer.stopped == self.tid else {"return": {}}

        tracer = Tracer()
        with BusyChild() as child:
            pid = child.process.pid
            self.assertTrue(child.main_thread_blocked())
            staller = vcpu_stall.VcpuStaller(spec, Qmp(child.tid), pid, time.monotonic(),
                                             tracer=tracer)
            with mock.patch.object(vcpu_stall, "plan", return_value=[
                    vcpu_stall.Stall(1, 0.0, 0, 0.1)]), \
                    mock.patch.object(vcpu_stall, "LOCK_PLANNED_SECONDS", 0.2):
                staller.run()
        notes = staller.notes()
        self.assertEqual(notes[1], f"stall 1 of 1: vCPU 0 (thread {idle}) not found holding "
                                   f"QEMU's global lock in 0.2 s (halted?): vCPU 1 stopped "
                                   f"instead")
        self.assertRegex(notes[2], rf"^stall 1 of 1: vCPU 1 \(thread {child.tid}\) stopped at "
                                   r".* holding QEMU's global lock \(.*caught at try \d+\)$")
        self.assertEqual(notes[-1], "vCPU stalls: all 1 done")


class NotesInTheLogTest(unittest.TestCase):
    """stream() puts the host's notes between whole lines, never after '# RESULT:'."""

    def test_notes_go_between_lines_and_never_after_the_result(self):
        script = ("import sys, time\n"
                  "for part in ['KTAP version 1\\n', 'half ', 'line\\n', 'ok 1 a\\n',"
                  " '# RESULT: PASS\\n']:\n"
                  "    sys.stdout.write(part); sys.stdout.flush(); time.sleep(0.3)\n")
        process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE)
        counter = iter(range(1000))
        log_path = os.path.join(self.tmp(), "log")
        with open(log_path, "wb") as log, mock.patch("sys.stderr"):
            self.assertTrue(run.stream(process, log, True, 20,
                                       notes=lambda: [f"note {next(counter)}"]))
        process.wait()
        process.stdout.close()
        with open(log_path) as log:
            lines = log.read().splitlines()
        self.assertIn("half line", lines)
        self.assertEqual(lines[-1], "# RESULT: PASS")
        self.assertTrue(any(line.startswith("# host: note ") for line in lines), lines)
        for line in lines:
            self.assertTrue(line.startswith("# host: note ") or "note" not in line, line)

    def tmp(self):
        import tempfile
        directory = tempfile.TemporaryDirectory()
        self.addCleanup(directory.cleanup)
        return directory.name


if __name__ == "__main__":
    unittest.main()
