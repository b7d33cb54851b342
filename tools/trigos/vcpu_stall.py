# SPDX-License-Identifier: MIT
"""Stop QEMU vCPU threads from the host, as a loaded host does (tools/run --stall-vcpus).

A guest that waits for other CPUs must tell "the host did not run that vCPU"
from "the IPI never came".  In-guest holds only imitate the first; this module
makes it real: during the run it stops one vCPU thread of QEMU for 1.5-3 s,
several times, and writes into the serial log, between the kernel's lines,
what it did and when, so that a reader can line the stop up with the kernel's
diagnostics of the same moments.

How a thread is stopped: ptrace(2) on its thread id (QEMU names its threads
under "-name ...,debug-threads=on", and QMP "query-cpus-fast" gives each
vCPU's "thread-id").  PTRACE_SEIZE attaches without stopping anything and
PTRACE_INTERRUPT then stops that one thread, not its process (ptrace(2),
"PTRACE_INTERRUPT" and "group-stop"); waitpid(__WALL) sees it stopped;
PTRACE_DETACH lets it run on.  A signal (SIGSTOP) would stop every thread of
QEMU, and a SCHED_FIFO hog does not stop anything: RT throttling leaves the
starved thread ~50 ms of every second.  A thread stopped inside a system call
(a futex wait, ppoll) resumes it after the detach (the call is restarted:
no signal is delivered).

"lock" stops a thread only while it holds QEMU's global lock (the "BQL" of
QEMU's docs/devel/multi-thread-tcg.rst): a TCG vCPU thread takes it to emulate
a device access (port I/O, the local APIC's page), to take an interrupt and
around every exit from its translated code, and QEMU's main loop takes it to
answer a QMP command.  So the lock is held by the stopped thread when a QMP
command sent after the stop gets no answer and QEMU's main thread is found
waiting in futex(2) (/proc/PID/task/TID/syscall): then every other vCPU
soon waits for the lock too, and the whole machine stops.  Most stops find
the lock free: the thread is let go at once and stopped again a moment later,
until one catches it (the attempts are counted in the log).  A vCPU halted
in HLT waits with the lock free: a planned vCPU not caught within 2 s gives
way to the others, tried in turn, and the log names the one stopped.

The figures of each stop are read from /proc/PID/task/TID/stat (utime and
stime, in clock ticks): the stopped thread's CPU time during the stop (0 when
it really stood still) and the other vCPU threads' (how much the machine ran
meanwhile; ~0 when the lock was held).

parse_spec() and plan() are pure, so the tests check them without a QEMU.
"""

import ctypes
import ctypes.util
import errno
import os
import queue
import random
import threading
import time
from dataclasses import dataclass

from .cli import UsageError

# <sys/ptrace.h> and <sys/wait.h> (Linux): the requests and flags used here.
PTRACE_DETACH = 17
PTRACE_SEIZE = 0x4206
PTRACE_INTERRUPT = 0x4207
WALL = 0x40000000           # __WALL: wait for a thread that is not a child
SYSCALL_FUTEX = 202         # x86-64 system call number of futex(2)

# What a stall spec says when it says nothing (tools/run --help repeats them).
DEFAULT_SECONDS = (1.5, 3.0)
DEFAULT_GAP = (1.0, 3.0)
DEFAULT_FIRST = 1.5
DEFAULT_SEED = 1
LOCK_TRIES = 2000           # stops tried to catch the global lock held
LOCK_PROBE_SECONDS = 0.15   # how long QEMU's main loop may take to answer
LOCK_GIVE_UP_SECONDS = 30.0
LOCK_PLANNED_SECONDS = 2.0  # tries at the planned vCPU before the others are tried too
STOP_WAIT_SECONDS = 2.0     # a thread not stopped by then is reported, never waited for

NOTE_PREFIX = "# host: "    # a KTAP diagnostic line; the kernel writes none like it

SPEC_HELP = ("COUNT[,seconds=MIN-MAX][,gap=MIN-MAX][,first=S][,seed=N][,lock]: stop a vCPU "
             "thread COUNT times, each stop MIN-MAX s long (default 1.5-3), the first S s "
             "after QEMU started (default 1.5), the next MIN-MAX s after the last ended "
             "(default 1-3), the vCPU and lengths drawn with seed N (default 1); lock: "
             "only while the thread holds QEMU's global lock (the whole machine stops)")


@dataclass(frozen=True)
class StallSpec:
    """What --stall-vcpus asked for."""
    count: int
    seconds: tuple = DEFAULT_SECONDS
    gap: tuple = DEFAULT_GAP
    first: float = DEFAULT_FIRST
    seed: int = DEFAULT_SEED
    lock: bool = False


@dataclass(frozen=True)
class Stall:
    """One planned stop: @start s after QEMU started, vCPU @cpu, for @seconds."""
    number: int
    start: float
    cpu: int
    seconds: float


def _range(key, text):
    low, sep, high = text.partition("-")
    try:
        values = (float(low), float(high if sep else low))
    except ValueError:
        raise UsageError(f"--stall-vcpus: {key}={text!r} is not MIN-MAX in seconds")
    if not 0 <= values[0] <= values[1] or values[1] > 3600:
        raise UsageError(f"--stall-vcpus: {key}={text!r}: need 0 <= MIN <= MAX <= 3600")
    return values


def parse_spec(text):
    """The StallSpec of a --stall-vcpus value; UsageError saying what is wrong."""
    words = [word.strip() for word in text.split(",")]
    try:
        count = int(words[0], 10)
    except ValueError:
        raise UsageError(f"--stall-vcpus {text!r}: starts with the number of stops, "
                         f"not {words[0]!r} ({SPEC_HELP})")
    if not 1 <= count <= 1000:
        raise UsageError(f"--stall-vcpus: {count} stops: need 1..1000")
    fields = {"count": count}
    for word in words[1:]:
        key, sep, value = word.partition("=")
        if word == "lock":
            fields["lock"] = True
        elif key in ("seconds", "gap") and sep:
            fields[key] = _range(key, value)
        elif key == "first" and sep:
            fields[key] = _range(key, value)[0]
        elif key == "seed" and sep:
            try:
                fields[key] = int(value, 0)
            except ValueError:
                raise UsageError(f"--stall-vcpus: seed={value!r} is not a number")
        else:
            raise UsageError(f"--stall-vcpus: unknown word {word!r} ({SPEC_HELP})")
    return StallSpec(**fields)


def plan(spec, cpus):
    """The stops of @spec on a machine of @cpus vCPUs, in order (pure, seeded)."""
    rng = random.Random(spec.seed)
    stalls = []
    start = spec.first
    for number in range(1, spec.count + 1):
        if number > 1:
            start += rng.uniform(*spec.gap)
        seconds = rng.uniform(*spec.seconds)
        stalls.append(Stall(number, round(start, 3), rng.randrange(cpus), round(seconds, 3)))
        start += seconds
    return stalls


def vcpu_threads(cpus_fast):
    """{vCPU index: thread id} from QMP query-cpus-fast's answer ({} if it has none)."""
    threads = {}
    for cpu in cpus_fast or []:
        if isinstance(cpu, dict) and isinstance(cpu.get("cpu-index"), int) and \
                isinstance(cpu.get("thread-id"), int):
            threads[cpu["cpu-index"]] = cpu["thread-id"]
    return threads


def thread_ticks(pid, tid):
    """utime + stime of thread @tid of @pid in clock ticks (proc(5)), None if gone."""
    try:
        with open(f"/proc/{pid}/task/{tid}/stat") as stat:
            text = stat.read()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()     # after "pid (comm) "
    return int(fields[11]) + int(fields[12])          # fields 14 and 15 of proc(5)


def thread_syscall(pid, tid):
    """The system call thread @tid of @pid is blocked in (a number), or None."""
    try:
        with open(f"/proc/{pid}/task/{tid}/syscall") as syscall:
            first = syscall.read().split()
    except OSError:
        return None
    try:
        return int(first[0]) if first else None
    except ValueError:
        return None      # "running"


def ms_of_ticks(ticks):
    return None if ticks is None else ticks * 1000 // os.sysconf("SC_CLK_TCK")


class Ptrace:
    """ptrace(2) through libc (ctypes): stop one thread, let it go."""

    def __init__(self):
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        self._ptrace = libc.ptrace
        self._ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
        self._ptrace.restype = ctypes.c_long

    def _call(self, request, tid):
        if self._ptrace(request, tid, None, None) == -1:
            code = ctypes.get_errno()
            raise OSError(code, os.strerror(code))

    def stop(self, tid):
        """Attach to thread @tid and stop it; returns once it is stopped."""
        self._call(PTRACE_SEIZE, tid)
        try:
            self._call(PTRACE_INTERRUPT, tid)
            deadline = time.monotonic() + STOP_WAIT_SECONDS
            while True:
                waited, status = os.waitpid(tid, WALL | os.WNOHANG)
                if waited and os.WIFSTOPPED(status):
                    return
                if waited and (os.WIFEXITED(status) or os.WIFSIGNALED(status)):
                    raise OSError(errno.ESRCH, "the thread ended")
                if time.monotonic() > deadline:
                    raise OSError(errno.ETIMEDOUT, f"thread {tid} did not stop within "
                                                   f"{STOP_WAIT_SECONDS:g} s of PTRACE_INTERRUPT")
                time.sleep(0.001)
        except BaseException:
            self.release(tid)
            raise

    def release(self, tid):
        """Detach from thread @tid (it runs on); a thread that ended is reaped.

        PTRACE_DETACH needs the thread in a ptrace-stop: one that is not (its
        stop never came, or it is dying with its process) is stopped first,
        or collected, or QEMU's exit would wait for its tracer (us).
        """
        try:
            self._call(PTRACE_DETACH, tid)
            return
        except OSError:
            pass
        try:
            self._call(PTRACE_INTERRUPT, tid)
        except OSError:
            pass
        deadline = time.monotonic() + STOP_WAIT_SECONDS
        while time.monotonic() < deadline:
            try:
                waited, status = os.waitpid(tid, WALL | os.WNOHANG)
            except ChildProcessError:
                return
            if waited:
                if os.WIFSTOPPED(status):
                    try:
                        self._call(PTRACE_DETACH, tid)
                    except OSError:
                        pass
                return
            time.sleep(0.001)


class VcpuStaller(threading.Thread):
    """Runs the planned stops against a running QEMU; notes() gives what it did.

    @qmp is this thread's own QMP connection (a second -qmp socket: the first
    is tools/run's), @pid QEMU's process id, @started the monotonic time QEMU
    was started at.  The stops are planned once QMP has named the vCPUs'
    threads.  Everything happens on this thread:
    ptrace's tracer is the thread that attached.
    """

    def __init__(self, spec, qmp, pid, started, tracer=None):
        super().__init__(daemon=True)
        self.spec = spec
        self.qmp = qmp
        self.pid = pid
        self.started = started
        self.stalls = []
        self.tracer = tracer
        self.finished = threading.Event()
        self._notes = queue.Queue()
        self._cancelled = threading.Event()
        self.done = 0

    def note(self, text):
        self._notes.put(text)

    def notes(self):
        """The notes written since the last call, each one line without its prefix."""
        lines = []
        while True:
            try:
                lines.append(self._notes.get_nowait())
            except queue.Empty:
                return lines

    def cancel(self):
        self._cancelled.set()

    def now(self):
        return time.monotonic() - self.started

    def run(self):
        try:
            self._run()
        except Exception as error:    # the run goes on; the log says why stops ended
            self.note(f"vCPU stalls ended: {type(error).__name__}: {error}")
        finally:
            self.finished.set()

    def _run(self):
        if self.tracer is None:
            self.tracer = Ptrace()
        threads = vcpu_threads(self.qmp.command("query-cpus-fast"))
        if not threads:
            self.note("vCPU stalls: QMP query-cpus-fast gave no vCPU thread ids; none done")
            return
        indexes = sorted(threads)
        self.stalls = [Stall(stall.number, stall.start, indexes[stall.cpu], stall.seconds)
                       for stall in plan(self.spec, len(indexes))]
        shown = " ".join(f"{cpu}:{tid}" for cpu, tid in sorted(threads.items()))
        self.note(f"vCPU stalls planned: {len(self.stalls)}, "
                  f"{'holding QEMU global lock, ' if self.spec.lock else ''}"
                  f"vCPU threads (index:tid) {shown}")
        last_end = 0.0
        for stall in self.stalls:
            start = max(stall.start, last_end)
            if self._cancelled.wait(max(0.0, start - self.now())):
                break
            tid = threads.get(stall.cpu)
            if tid is None:
                self.note(f"stall {stall.number} of {len(self.stalls)}: vCPU {stall.cpu} "
                          f"has no thread id; skipped")
                continue
            self._stall(stall, tid, threads)
            last_end = self.now()
        if self.done == len(self.stalls):
            self.note(f"vCPU stalls: all {self.done} done")

    def _catch_lock(self, cpu, threads):
        """Stop a vCPU thread at a moment it holds the global lock: (tries, cpu) or None.

        The planned vCPU @cpu is tried alone for LOCK_PLANNED_SECONDS, then
        every vCPU in turn.  A vCPU halted in HLT waits for an interrupt with
        the lock free, so the planned one may hold it never again (a run's
        last seconds may leave it idle); whichever vCPU holds the lock,
        stopping it stops the whole machine.
        """
        start = time.monotonic()
        deadline = start + LOCK_GIVE_UP_SECONDS
        order = sorted(threads)
        rng = random.Random(self.spec.seed + threads[cpu])
        for attempt in range(1, LOCK_TRIES + 1):
            now = time.monotonic()
            if self._cancelled.is_set() or now > deadline:
                return None
            candidate = cpu if now - start < LOCK_PLANNED_SECONDS else order[attempt % len(order)]
            tid = threads[candidate]
            self.tracer.stop(tid)
            if not self.qmp.send("query-status"):
                self.tracer.release(tid)
                return None
            answer = self.qmp.wait_reply(LOCK_PROBE_SECONDS)
            if answer is None and thread_syscall(self.pid, self.pid) == SYSCALL_FUTEX:
                return attempt, candidate
            self.tracer.release(tid)
            if answer is None:
                self.qmp.wait_reply(1.0)      # a slow answer, not a held lock
            time.sleep(rng.uniform(0.0, 0.02))
        return None

    def _stall(self, stall, tid, threads):
        count = len(self.stalls)
        tries = None
        lock_held = None
        if self.spec.lock:
            caught = self._catch_lock(stall.cpu, threads)
            if caught is None:
                self.note(f"stall {stall.number} of {count}: no vCPU found holding QEMU's "
                          f"global lock (vCPU {stall.cpu}, thread {tid}, planned); skipped")
                return
            tries, cpu = caught
            if cpu != stall.cpu:
                self.note(f"stall {stall.number} of {count}: vCPU {stall.cpu} (thread {tid}) "
                          f"not found holding QEMU's global lock in {LOCK_PLANNED_SECONDS:g} s "
                          f"(halted?): vCPU {cpu} stopped instead")
                stall = Stall(stall.number, stall.start, cpu, stall.seconds)
                tid = threads[cpu]
        else:
            self.tracer.stop(tid)
            # Whether the machine runs on: QEMU's main loop answers unless
            # the thread was stopped, by chance, holding the global lock.
            if self.qmp.send("query-status"):
                lock_held = self.qmp.wait_reply(LOCK_PROBE_SECONDS) is None
        others = [other for other in threads.values() if other != tid]
        before = thread_ticks(self.pid, tid)
        before_other = [thread_ticks(self.pid, other) for other in others]
        stopped_at = self.now()
        if tries:
            how = (f", holding QEMU's global lock (a QMP command got no answer and the main "
                   f"thread waits in futex; caught at try {tries})")
        elif lock_held is None:
            how = ""
        elif lock_held:
            how = ", by chance holding QEMU's global lock (QMP gets no answer)"
        else:
            how = ", QEMU's main loop runs on (QMP answers)"
        self.note(f"stall {stall.number} of {count}: vCPU {stall.cpu} (thread {tid}) stopped "
                  f"at +{stopped_at:.3f} s for {stall.seconds:.3f} s{how}")
        self._cancelled.wait(stall.seconds)
        after = thread_ticks(self.pid, tid)
        after_other = [thread_ticks(self.pid, other) for other in others]
        self.tracer.release(tid)
        resumed_at = self.now()
        if tries or lock_held:
            self.qmp.wait_reply(2.0)
        ran = ms_of_ticks(after - before) if None not in (after, before) else None
        other_ms = [ms_of_ticks(a - b) for a, b in zip(after_other, before_other)
                    if a is not None and b is not None]
        self.done += 1
        self.note(f"stall {stall.number} of {count}: vCPU {stall.cpu} (thread {tid}) resumed "
                  f"at +{resumed_at:.3f} s after {resumed_at - stopped_at:.3f} s stopped; "
                  f"its CPU time meanwhile {ran} ms, the other vCPUs' "
                  f"{' '.join(str(ms) for ms in other_ms)} ms")
