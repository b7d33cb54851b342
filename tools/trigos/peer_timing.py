# SPDX-License-Identifier: MIT
"""What the peers (tools/peer: Linux, kvm-unit-tests) share: a QEMU run whose serial
lines are stamped with the host time they arrived, and a peer's figure as a BENCH record.

The host's clock is the one clock that times a peer from outside, without
changing it: each line is stamped when the host reads it from QEMU's stdout
(the serial port), so a figure between two lines includes the emulated
UART's and the pipe's delay, the same for every peer.
"""
import os
import select
import signal
import subprocess
import time


class PeerUnavailable(Exception):
    """A peer could not be made ready (packages not fetched or unpacked, a tree missing or
    not built); the reason is the message."""


HOST_OBSERVED = "host-observed"


def peer_record(peer, name, cpus, value, clock, unit="us"):
    """One figure of a peer as a BENCH record (the tools/bench format), labelled by its clock."""
    return dict(figure_record(name, cpus, value, clock, unit), peer=peer)


def figure_record(name, cpus, value, clock, unit="us"):
    """One figure as a BENCH record, labelled by its clock (trigos's when no peer is named)."""
    return {"v": 1, "name": name, "cpus": cpus, "unit": unit, "value": value, "clock": clock}


def host_record(name, cpus, seconds):
    """A span between two lines' arrivals (seconds) as a host-observed figure in us."""
    return figure_record(name, cpus, int(round(seconds * 1e6)), HOST_OBSERVED)


def run_timed(command, log_path, timeout, tick=None, on_tick=None):
    """Run @command (a QEMU whose serial port is its stdout) until it exits or @timeout seconds
    pass; keep its output in @log_path and stamp each line with the host time it arrived.

    @tick(seconds) or @on_tick(process, seconds) is called at least every half second.
    Returns a dict: lines [(seconds since the start, text)], exit (None when it could not
    start), wall_seconds, timed_out (QEMU was killed), errors (its stderr), problems.
    """
    timed, pending = [], b""
    start = time.monotonic()
    try:
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, start_new_session=True)
    except OSError as error:
        return {"lines": [], "exit": None, "wall_seconds": None, "timed_out": False,
                "errors": "", "problems": ["cannot start %s: %s" % (command[0], error)]}
    timed_out = False
    with open(log_path, "wb") as log:
        while True:
            if time.monotonic() - start > timeout:
                timed_out = True
                break
            ready, _, _ = select.select([process.stdout], [], [], 0.5)
            if tick:
                tick(time.monotonic() - start)
            if on_tick:
                on_tick(process, time.monotonic() - start)
            if not ready:
                continue
            data = os.read(process.stdout.fileno(), 65536)
            if not data:
                break
            now = time.monotonic() - start
            log.write(data)
            pending += data
            *lines, pending = pending.split(b"\n")
            timed += [(now, line.decode("utf-8", errors="replace")) for line in lines]
    if timed_out:
        os.killpg(process.pid, signal.SIGKILL)
    if pending:
        timed.append((time.monotonic() - start, pending.decode("utf-8", errors="replace")))
    status = process.wait()
    wall = time.monotonic() - start
    errors = process.stderr.read().decode("utf-8", errors="replace").strip()
    process.stdout.close()
    process.stderr.close()
    return {"lines": timed, "exit": status, "wall_seconds": round(wall, 3),
            "timed_out": timed_out, "errors": errors, "problems": []}
