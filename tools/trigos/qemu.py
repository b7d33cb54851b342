# SPDX-License-Identifier: MIT
"""The QEMU machine tools/run boots: its command line, and what QEMU's exit says.

build_command() is pure (no files, no processes), so that tools/tests can
check every boot path's command line without booting.  The kernel ends a run
by writing its verdict's value to isa-debug-exit (port 0xf4); QEMU then exits
with (value << 1) | 1 (trigos.verdict), which cross_check() holds against the
serial log's last line.
"""
import signal
from dataclasses import dataclass, field

from . import verdict
from .cli import UsageError

QEMU = "qemu-system-x86_64"
OVMF_CODE = "/usr/share/OVMF/OVMF_CODE_4M.fd"
OVMF_VARS = "/usr/share/OVMF/OVMF_VARS_4M.fd"
FW_CFG_CMDLINE = "opt/trigos/cmdline"
DEBUG_EXIT_DEVICE = "isa-debug-exit,iobase=0xf4,iosize=0x04"

# Which Debian package provides what this tool needs (`make deps` installs them).
PACKAGES = {QEMU: "qemu-system-x86", OVMF_CODE: "ovmf", OVMF_VARS: "ovmf"}

# QMP SHUTDOWN reasons (QEMU's ShutdownCause) -> (tools/run's exit status, what happened).
SHUTDOWN_REASONS = {
    "guest-reset": (verdict.RUN_RESET, "machine reset"),
    "guest-shutdown": (verdict.RUN_POWEROFF, "machine powered off"),
}

# QEMU exit status -> (tools/run's exit status, verdict word, the RESULT lines it may end with).
# 33: PASS, 35: FAIL, 37: SKIP (the log says PASS, or SKIP), 39: CRASH.
QEMU_VERDICTS = {
    verdict.qemu_exit_status(word): (
        verdict.RUN_STATUS_OF[word], word,
        verdict.SKIP_RESULT_WORDS if word == verdict.SKIP else (verdict.RESULT_WORDS[word],))
    for word in verdict.VERDICTS
}


@dataclass
class RunConfig:
    """Everything that decides the QEMU command line."""
    iso: str = "build/trigos.iso"
    kernel: str = "build/trigos.elf"
    cpus: int = 2
    smp: str = None                 # raw -smp value; overrides cpus
    accel: str = "tcg"
    firmware: str = "bios"
    boot: str = "cdrom"
    memory: int = 256
    machine: str = "pc"
    cpu: str = None                 # -cpu model; None leaves QEMU's default (qemu64)
    cmdline: str = None
    qemu_args: list = field(default_factory=list)
    serial: str = "stdio"           # "none": no UART; the log comes from debugcon
    screen_socket: str = None       # set: screendump mode (no isa-debug-exit, -no-shutdown)
    qemu: str = QEMU
    ovmf_code: str = OVMF_CODE
    ovmf_vars: str = None           # the private, writable copy of OVMF_VARS
    qmp_socket: str = None          # QMP server socket path (None: no QMP)
    gdb_port: int = None            # set: start halted, gdb stub on 127.0.0.1:gdb_port
    stall_qmp_socket: str = None    # set: named threads and a second QMP for --stall-vcpus


def qemu_escape(value):
    """Escape @value for a QEMU option list (key=value,...): ',' must be doubled."""
    return value.replace(",", ",,")


def validate(config):
    """Raise UsageError for combinations that cannot work."""
    if config.boot == "kernel" and config.firmware == "uefi":
        raise UsageError("--boot kernel needs --firmware bios: OVMF ignores -kernel here "
                         "(use --boot cdrom or --boot usb for UEFI)")
    if config.smp is None and config.cpus < 1:
        raise UsageError(f"--cpus must be at least 1, not {config.cpus}")
    if config.smp is not None and not config.smp.strip():
        raise UsageError("--smp needs a value, e.g. \"4\" or \"6,sockets=2,cores=3\"")
    if config.memory < 16:
        raise UsageError(f"--memory {config.memory} MB is too little (at least 16)")
    if config.serial not in ("stdio", "none"):
        raise UsageError(f"--serial must be stdio or none, not {config.serial!r}")
    if config.firmware == "uefi" and not config.ovmf_vars:
        raise UsageError("UEFI needs a private copy of the OVMF variable store")
    if config.gdb_port is not None and not 0 < config.gdb_port < 65536:
        raise UsageError(f"--gdb port must be 1..65535, not {config.gdb_port}")


def build_command(config):
    """Return the QEMU argument list for @config (pure: touches nothing)."""
    validate(config)
    smp = config.smp if config.smp is not None else str(config.cpus)
    command = [
        config.qemu,
        "-machine", config.machine,
        "-accel", config.accel,
    ]
    if config.cpu:
        command += ["-cpu", config.cpu]
    command += [
        "-smp", smp,
        "-m", str(config.memory),
        "-display", "none",
        "-monitor", "none",
    ]
    if config.serial == "none":
        command += ["-serial", "none", "-debugcon", "stdio"]
    else:
        command += ["-serial", "stdio"]
    command += ["-no-reboot", "-nic", "none"]
    if config.screen_socket:
        command += ["-no-shutdown", "-qmp",
                    f"unix:{qemu_escape(config.screen_socket)},server=on,wait=off"]
    else:
        command += ["-device", DEBUG_EXIT_DEVICE]
    if config.firmware == "uefi":
        command += [
            "-drive", "if=pflash,format=raw,unit=0,readonly=on,"
                      f"file={qemu_escape(config.ovmf_code)}",
            "-drive", f"if=pflash,format=raw,unit=1,file={qemu_escape(config.ovmf_vars)}",
        ]
    if config.boot == "cdrom":
        command += ["-cdrom", config.iso]
    elif config.boot == "usb":
        # readonly: the run must never modify the image (it is also what
        # `make iso` produced, and parallel runs share it).
        command += [
            "-device", "qemu-xhci,id=xhci",
            "-drive", f"if=none,id=usbstick,format=raw,readonly=on,file={qemu_escape(config.iso)}",
            "-device", "usb-storage,bus=xhci.0,drive=usbstick,bootindex=1",
        ]
    elif config.boot == "kernel":
        command += ["-kernel", config.kernel]
    else:
        raise UsageError(f"unknown boot path '{config.boot}'")
    if config.cmdline:
        if config.boot == "kernel":
            command += ["-append", config.cmdline]
        else:
            command += ["-fw_cfg", f"name={FW_CFG_CMDLINE},string={qemu_escape(config.cmdline)}"]
    if config.qmp_socket:
        command += ["-qmp", f"unix:{qemu_escape(config.qmp_socket)},server=on,wait=off"]
    if config.stall_qmp_socket:
        # Named threads ("CPU 1/TCG") for the reader of ps/top; the vCPU
        # stopper's own QMP, so that its probes never interleave with tools/run's.
        command += ["-name", "trigos,debug-threads=on",
                    "-qmp", f"unix:{qemu_escape(config.stall_qmp_socket)},server=on,wait=off"]
    command += gdb_stub_arguments(config)
    command += list(config.qemu_args)
    return command


def gdb_stub_arguments(config):
    """QEMU arguments for --gdb: halted before the first instruction, the stub on
    the loopback interface only (it gives whoever connects the whole machine)."""
    if config.gdb_port is None:
        return []
    return ["-S", "-gdb", f"tcp:127.0.0.1:{config.gdb_port}"]


def verdict_for_exit(status):
    """Map a QEMU exit status to (tools/run's exit status, verdict word)."""
    if status in QEMU_VERDICTS:
        code, word, _ = QEMU_VERDICTS[status]
        return code, word
    return verdict.RUN_NO_VERDICT, None


def describe_qemu_status(status):
    """Explain a QEMU exit status that carries no verdict."""
    if status is None:
        return "QEMU did not exit"
    if status < 0:
        try:
            name = signal.Signals(-status).name
        except ValueError:
            name = f"signal {-status}"
        return f"QEMU was killed by {name}"
    if status == 0:
        return ("QEMU exited with status 0 and no verdict: the guest reset or shut down "
                "(a triple fault under -no-reboot?)")
    if status == 1:
        return ("QEMU exited with status 1: QEMU failed (see its messages above), or the "
                "kernel wrote 0 to isa-debug-exit")
    if status & 1 and status > 1:
        return (f"QEMU exited with status {status}: the kernel wrote the unknown value "
                f"{status >> 1:#x} to isa-debug-exit")
    return f"QEMU exited with status {status} and no verdict"


def cross_check(qemu_status, last_line):
    """Compare the exit verdict with the log's last line.

    Returns (exit status, message or None).  A pass whose log does not end
    with "# RESULT: PASS" is no pass; a disagreeing fail or crash stays a
    failure, with a message.
    """
    code, word = verdict_for_exit(qemu_status)
    if word is None:
        return code, describe_qemu_status(qemu_status)
    accepted = QEMU_VERDICTS[qemu_status][2]
    if last_line.rstrip() in [verdict.RESULT_PREFIX + value for value in accepted]:
        return code, None
    shown = last_line if len(last_line) <= 200 else last_line[:200] + "..."
    message = (f"QEMU's exit status {qemu_status} says {word}, but the log's last line is "
               f"'{shown}', not '{verdict.RESULT_PREFIX}{accepted[0]}'")
    if code in (verdict.RUN_PASS, verdict.RUN_SKIP):
        return verdict.RUN_NO_VERDICT, message
    return code, message
