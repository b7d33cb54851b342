# SPDX-License-Identifier: MIT
"""QMP, QEMU's machine protocol: what QEMU itself says happened to the machine.

tools/run asks over it for the SHUTDOWN event's reason (a reset or a power-off
by the guest), for "info registers -a" (every vCPU halted with interrupts
off), for query-chardev (a debugger attached to the gdb stub), and for a
screendump.
"""
import json
import re
import select
import socket
import time


class Qmp:
    """A minimal QMP client: capabilities negotiation, SHUTDOWN events, HMP commands."""

    def __init__(self, path):
        self.path = path
        self.sock = None
        self.buffer = b""
        self.shutdown_reason = None
        self.replies = []
        self.eof = False

    def connect(self, process, timeout=5.0):
        """Connect and negotiate; False (and closed) if QEMU gives no QMP in time.

        QEMU creates the socket before the guest runs.  A QEMU that already
        printed something or exited without one (a stand-in in the tests)
        is not waited for.
        """
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and process.poll() is None:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.connect(self.path)
            except OSError:
                sock.close()
                if process.stdout and select.select([process.stdout], [], [], 0.02)[0]:
                    break
                continue
            self.sock = sock
            try:
                if self._wait_for("QMP", deadline) and \
                        self.command("qmp_capabilities", deadline=deadline) is not None:
                    return True
            except OSError:
                pass
            break
        self.close()
        return False

    def close(self):
        if self.sock:
            self.sock.close()
            self.sock = None

    def fileno(self):
        return self.sock.fileno()

    def pump(self, wait=0.0):
        """Read what QEMU sent (waiting up to @wait s); False once the socket is closed."""
        if not self.sock or self.eof:
            return False
        if wait > 0:
            self.sock.settimeout(wait)
        else:
            self.sock.setblocking(False)
        try:
            data = self.sock.recv(65536)
        except (BlockingIOError, socket.timeout):
            return True
        except OSError:
            data = b""
        if not data:
            self.eof = True
            return False
        self.buffer += data
        *lines, self.buffer = self.buffer.split(b"\n")
        for line in lines:
            self._handle(line)
        return True

    def drain(self, timeout=1.0):
        """After QEMU exited: read everything left, up to its end of file."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and \
                self.pump(wait=max(0.01, deadline - time.monotonic())):
            pass

    def _handle(self, line):
        try:
            message = json.loads(line)
        except ValueError:
            return
        if not isinstance(message, dict):
            return
        if message.get("event") == "SHUTDOWN":
            data = message.get("data") or {}
            self.shutdown_reason = data.get("reason")
        elif "return" in message or "error" in message or "QMP" in message:
            self.replies.append(message)

    def _wait_for(self, key, deadline):
        while time.monotonic() < deadline:
            for index, message in enumerate(self.replies):
                if key in message or (key == "return" and "error" in message):
                    return self.replies.pop(index)
            if not self.pump(wait=max(0.01, deadline - time.monotonic())):
                return None
        return None

    def command(self, name, arguments=None, deadline=None):
        """Run QMP command @name; its "return" value, or None on error or timeout."""
        if not self.sock:
            return None
        request = {"execute": name}
        if arguments:
            request["arguments"] = arguments
        self.sock.settimeout(2.0)
        self.sock.sendall(json.dumps(request).encode() + b"\n")
        reply = self._wait_for("return", deadline or time.monotonic() + 2.0)
        return None if reply is None or "error" in reply else reply["return"]

    def send(self, name, arguments=None):
        """Send QMP command @name without waiting; False if there is no connection.

        Its answer is read by wait_reply(): a caller that wants to see
        whether QEMU answers in time (tools/trigos/vcpu_stall.py).
        """
        if not self.sock or self.eof:
            return False
        request = {"execute": name}
        if arguments:
            request["arguments"] = arguments
        try:
            self.sock.settimeout(2.0)
            self.sock.sendall(json.dumps(request).encode() + b"\n")
        except OSError:
            return False
        return True

    def wait_reply(self, timeout):
        """The next answer (a "return" or an "error" message) within @timeout s, or None."""
        return self._wait_for("return", time.monotonic() + timeout)

    def halted_cpus(self):
        """(vCPUs halted with IF clear, vCPUs) from "info registers -a", or None.

        A running machine's vCPUs are read one after the other, so a first
        look that finds them all halted is repeated with the machine stopped,
        where the registers are one consistent picture.
        """
        try:
            counts = self._registers()
            if counts and counts[0] == counts[1] > 0 and self.command("stop") is not None:
                counts = self._registers()
                self.command("cont")
        except OSError:
            return None
        return counts

    def _registers(self):
        text = self.command("human-monitor-command", {"command-line": "info registers -a"})
        return parse_halted_cpus(text) if isinstance(text, str) else None


def parse_halted_cpus(text):
    """Count the vCPUs of an "info registers -a" dump that are halted with IF=0.

    QEMU prints, per x86 vCPU, "CPU#N" and a line with the flags ("RFL=<hex>"
    in long mode, "EFL=<hex>" otherwise) and "HLT=<0|1>"; IF is bit 9.
    """
    halted = total = 0
    for block in re.split(r"^CPU#\d+\s*$", text, flags=re.MULTILINE)[1:]:
        total += 1
        flags = re.search(r"\b[ER]FL=([0-9a-fA-F]+)", block)
        halt = re.search(r"\bHLT=(\d)", block)
        if flags and halt and halt.group(1) == "1" and not int(flags.group(1), 16) & 0x200:
            halted += 1
    return halted, total
