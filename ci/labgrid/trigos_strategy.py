# SPDX-License-Identifier: MIT
"""labgrid strategy that boots trigos once and captures its KTAP console.

Written against labgrid 0.4.1 (Debian 12): a Strategy is a Driver registered
with target_factory; its `bindings` name the protocols and drivers it uses,
and None in a binding's set makes it optional (labgrid/target.py).

States, in the order transition() walks them:

    off       the board is powered off (PowerProtocol.off())
    written   the ISO is on the boot medium: the USB-SD-Mux (or another
              USB storage switch) is switched to the host, the image written
              (USBStorageDriver.write_image), the mux switched to the board.
              Skipped when the target has no storage driver (QEMU boots the
              ISO straight from its -cdrom).
    done      the console is open, the board powered on, its output read until
              the '# RESULT: ' line (or the console falls silent / the time
              runs out) and written to the log file; the board is powered off.

The log is then judged by tools/ktap (check_log()); the strategy itself never
decides pass or fail from what it read.
"""

import enum
import os
import sys
import time

import attr
from pexpect import TIMEOUT

from labgrid.factory import target_factory
from labgrid.step import step
from labgrid.strategy import Strategy, StrategyError
from labgrid.util import Timeout

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
from trigos import ktap, verdict  # noqa: E402 (the tools package, from tools/)

RESULT_LINE = b"\n" + verdict.RESULT_PREFIX.encode()


class Status(enum.Enum):
    unknown = 0
    off = 1
    written = 2
    done = 3


@target_factory.reg_driver
@attr.s(eq=False)
class TrigosStrategy(Strategy):
    """Power the board off, put the ISO on its boot medium, boot it, keep its KTAP log."""

    bindings = {
        "power": "PowerProtocol",
        "console": "ConsoleProtocol",
        "mux": {"USBSDMuxDriver", None},
        "storage": {"USBStorageDriver", None},
    }

    status = attr.ib(default=Status.unknown)
    # Where the serial console is written (relative paths: to the working directory).
    log_path = attr.ib(default="build/labgrid/serial.log",
                       validator=attr.validators.instance_of(str))
    # The whole boot, firmware included, and the longest silence of the console.
    boot_timeout = attr.ib(default=300.0, converter=float)
    silence_timeout = attr.ib(default=60.0, converter=float)

    @step(args=["status"])
    def transition(self, status, *, step):
        if not isinstance(status, Status):
            status = Status[status]
        if status == Status.unknown:
            raise StrategyError(f"can not transition to {status}")
        if status == self.status:
            step.skip("nothing to do")
            return
        if status == Status.off:
            self.target.activate(self.power)
            self.power.off()
        elif status == Status.written:
            self.transition(Status.off)  # pylint: disable=missing-kwoa
            self._write_image()
        elif status == Status.done:
            self.transition(Status.written)  # pylint: disable=missing-kwoa
            self._boot_and_capture()
            self.power.off()
        else:
            raise StrategyError(f"no transition found from {self.status} to {status}")
        self.status = status

    def _write_image(self):
        if self.storage is None:
            return
        if self.mux is not None:
            self.target.activate(self.mux)
            self.mux.set_mode("host")
        self.target.activate(self.storage)
        # The whole hybrid ISO, raw: it boots from a USB stick or SD card as is.
        self.storage.write_image()
        if self.mux is not None:
            self.mux.set_mode("dut")

    def _boot_and_capture(self):
        """Power on and read the console until the verdict line; write the log."""
        self.target.activate(self.console)
        self.power.on()
        data = bytearray()
        overall = Timeout(self.boot_timeout)
        last_output = time.monotonic()
        while not overall.expired:
            try:
                chunk = self.console.read(size=4096, timeout=1.0)
            except TIMEOUT:
                chunk = b""
            if chunk:
                data += chunk
                last_output = time.monotonic()
                # The verdict is the last line: stop once it is complete.
                at = data.find(RESULT_LINE)
                if at >= 0 and data.find(b"\n", at + len(RESULT_LINE)) >= 0:
                    break
            elif time.monotonic() - last_output > self.silence_timeout:
                break
        directory = os.path.dirname(self.log_path)
        if directory:
            os.makedirs(directory, exist_ok=True)
        # Serial lines end in LF; a terminal or pty may add CR, which tools/ktap ignores.
        with open(self.log_path, "wb") as log:
            log.write(bytes(data))


def check_log(path):
    """Judge @path as tools/ktap --quiet does; return its exit status (0 pass)."""
    return ktap.main(["--quiet", path])
