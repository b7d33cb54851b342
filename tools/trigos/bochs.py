# SPDX-License-Identifier: MIT
"""Bochs as a machine of tools/run (--emulator bochs): Debian 12's 2.7, or the
3.0 tools/emulators builds (--emulator-version 3.0): its configuration, its
boot medium and what its own log says.  A module, loaded by tools/run.

Bochs has no fw_cfg and no direct kernel boot, so the kernel command line
reaches the kernel through GRUB: a copy of the ISO whose grub.cfg keeps the
ISO's own settings (serial terminal, modules) and has one menu entry that
boots the kernel with "machine=bochs" and the command line.  The kernel is
told it runs under Bochs by that word only (Bochs shows no hypervisor bit,
no signature and no fw_cfg); told so, it ends the run by writing "Shutdown"
to Bochs's port 0x8900 (iodev/unmapped.cc at tag REL_2_7_FINAL).

The kernel prints its log to the first parallel port (console=lp0), which
Bochs writes straight into the log file (parport1; iodev/parallel.cc writes
and flushes each byte as the strobe rises); COM1 gets GRUB's output and
anything the kernel prints before it reads console= (NAME.com1.log).  The
serial port is what real machines use, but Bochs's 16550 sends a byte every
87 simulated microseconds (iodev/serial.cc), and a CPU waiting for it runs
8700 instructions a byte at the default ips: a third of a full run's time
(LOG_PORTS; --bochs-log-port com1 takes the log from COM1 as before).
Bochs writes its own log to its stderr (unbuffered) and its "term" display
to a pseudo-terminal that tools/run drains: no X server, no VNC port, and
several runs in parallel never share anything.  The
built-in debugger of Debian's 2.7 is told to continue at once (-rc FILE with
"c"); stdin is /dev/null, so anything that breaks into the debugger (a panic)
quits Bochs instead of waiting for a prompt.  The 3.0 build has no debugger
(and no plugins: its term display is built in).

Everything here but derive_iso() is pure, for tools/tests.
"""

import hashlib
import collections
import os
import re
import subprocess
import tempfile
import time
from dataclasses import dataclass

BOCHS = "bochs"
XORRISO = "xorriso"
BIOS_IMAGE = "/usr/share/bochs/BIOS-bochs-latest"
VGA_BIOS_IMAGE = "/usr/share/vgabios/vgabios.cirrus.bin"
TERM_DISPLAY_PLUGIN = "/usr/lib/x86_64-linux-gnu/bochs/plugins/libbx_term_gui.so"
# What a Bochs run needs -> (what it is, its Debian package; `make deps` installs them).
PREREQUISITES = {
    BOCHS: ("Bochs", "bochs"),
    BIOS_IMAGE: ("Bochs's BIOS", "bochsbios"),
    VGA_BIOS_IMAGE: ("the cirrus VGA BIOS", "vgabios"),
    TERM_DISPLAY_PLUGIN: ("Bochs's term display library", "bochs-term"),
    XORRISO: ("xorriso", "xorriso"),
}

# `bochs --help cpu` of Debian 12's Bochs 2.7 (cpu/cpudb/ at tag REL_2_7_FINAL).
CPU_MODELS = (
    "bx_generic", "pentium", "pentium_mmx", "amd_k6_2_chomper", "p2_klamath", "p3_katmai",
    "p4_willamette", "core_duo_t2400_yonah", "atom_n270", "p4_prescott_celeron_336",
    "athlon64_clawhammer", "athlon64_venice", "turion64_tyler", "phenom_8650_toliman",
    "core2_penryn_t9600", "corei5_lynnfield_750", "corei5_arrandale_m520",
    "corei7_sandy_bridge_2600k", "zambezi", "trinity_apu", "ryzen", "corei7_ivy_bridge_3770k",
    "corei7_haswell_4770", "broadwell_ult", "corei7_skylake_x", "corei3_cnl",
    "corei7_icelake_u", "tigerlake",
)
# Bochs 3.0 (cpudb.h of the 3.0 source package) adds these; sapphire_rapids
# and arrow_lake offer WAITPKG (UMONITOR, UMWAIT, TPAUSE).
CPU_MODELS_ADDED_IN_3_0 = ("i386", "i486dx4", "athlon_xp", "sapphire_rapids", "arrow_lake")

# The Bochs releases tools/run knows: Debian 12's (the system's), and the one
# tools/emulators builds from Debian 13's source package.
RELEASE_SYSTEM = "2.7"
RELEASE_BUILT = "3.0"
RELEASES = (RELEASE_SYSTEM, RELEASE_BUILT)


def cpu_models(release):
    """The CPU models of Bochs @release."""
    return CPU_MODELS + (CPU_MODELS_ADDED_IN_3_0 if release == RELEASE_BUILT else ())


DEFAULT_CPU_MODEL = "corei7_haswell_4770"
# Instructions per simulated second, per CPU: the TSC and every timer run at
# this rate, so it sets how many instructions a time-based wait costs.  The
# kernel's TSC calibration refuses rates below 50 MHz as implausible
# (kernel/arch/x86/tsc.c); 100 MHz, the cheapest rate allowed, keeps a margin
# above that for the calibration's own error.
DEFAULT_IPS = 100_000_000
MINIMUM_IPS = 100_000_000
# A fixed RTC start (2000-01-01 00:00:00): with the default (the host's
# clock) no two runs would start alike.
RTC_START = 946684800

# What tells the kernel it runs under Bochs, and which: 2.7 needs every
# workaround of kernel/arch/x86/trigger_bochs.c, 3.0 only those its probes
# showed it still needs (docs/emulators.md, Bochs 3.0).
KERNEL_WORDS = {RELEASE_SYSTEM: "machine=bochs", RELEASE_BUILT: "machine=bochs-3.0"}
KERNEL_WORD = KERNEL_WORDS[RELEASE_SYSTEM]
# Where the project's ISO keeps the kernel (Makefile, $(ISO)).
ISO_KERNEL_PATH = "/boot/trigos.elf"
# What a BIOS boot from the CD never reads: dropped from the derived copy.
EFI_ONLY_PATHS = ("/efi.img", "/boot/grub/x86_64-efi", "/System", "/mach_kernel")
ELTORITO_IMAGE = "/boot/grub/i386-pc/eltorito.img"
CACHE_DIRECTORY = "bochs-iso"
CACHE_KEEP = 16                 # derived ISOs kept beside the ISO
CACHE_FRESH_SECONDS = 600       # never removed within this long of their last use
# GRUB escapes these when it joins its arguments into the kernel command
# line (grub-core/lib/cmdline.c, GRUB 2.06), and the kernel reads no escapes.
GRUB_ESCAPED = "\"'\\"


# Where the kernel's log comes from: lp0, the first parallel port (the
# kernel is passed console=lp0), or com1, the first UART, which also carries
# GRUB's output.  Under Bochs 2.7 the full 4-CPU haswell run took 21-32 s
# with lp0 against 39-46 s with com1, the same kernel and command line,
# alternated (docs/emulators.md).
LOG_PORTS = ("lp0", "com1")
DEFAULT_LOG_PORT = "lp0"


class BochsError(Exception):
    """What makes a Bochs run impossible (bad option, unusable path, xorriso failed)."""


@dataclass
class BochsConfig:
    """Everything that decides the bochsrc."""
    iso: str                    # the derived ISO Bochs boots
    serial_log: str             # COM1's output file
    parallel_log: str = None    # the first parallel port's output file, if it has one
    cpus: int = 2
    memory: int = 256
    model: str = DEFAULT_CPU_MODEL
    ips: int = DEFAULT_IPS
    release: str = RELEASE_SYSTEM


def bochsrc_path_value(path):
    """@path as a bochsrc value: quoted; refused where Bochs's parser would change it.

    Bochs's bochsrc reader (config.cc, parse_line_unformatted) substitutes
    '$NAME' even inside quotes, splits values at ',' and drops '"'.
    """
    if any(char in path for char in "\"$,\n\r"):
        raise BochsError(f"the path {path!r} cannot be written in a bochsrc "
                         f"(it holds '\"', '$', ',' or a line break)")
    return f'"{path}"'


def validate(config):
    if config.release not in RELEASES:
        raise BochsError(f"Bochs {config.release} is not one tools/run knows "
                         f"({', '.join(RELEASES)})")
    if config.model not in cpu_models(config.release):
        raise BochsError(f"--bochs-cpu {config.model!r} is not a Bochs {config.release} CPU "
                         f"model; one of: {', '.join(cpu_models(config.release))}")
    if config.cpus < 1:
        raise BochsError(f"--cpus must be at least 1, not {config.cpus}")
    if config.memory < 16:
        raise BochsError(f"--memory {config.memory} MB is too little (at least 16)")
    if config.ips < MINIMUM_IPS:
        raise BochsError(f"--bochs-ips {config.ips} is below {MINIMUM_IPS}: the TSC runs at "
                         f"the ips rate, and the kernel does not believe a TSC much slower than "
                         f"100 MHz (it then assumes 3 GHz and every time-out is wrong)")


def bochsrc(config):
    """The bochsrc text for @config (pure: touches nothing)."""
    validate(config)
    lines = [
        "# Written by tools/run --emulator bochs.",
        f"megs: {config.memory}",
        # reset_on_triple_fault=1: a triple fault resets the machine as on a
        # PC, and tools/run reports the reset (Bochs's log says why).
        f"cpu: count={config.cpus}, ips={config.ips}, model={config.model}, "
        f"reset_on_triple_fault=1",
        # fastboot skips the BIOS's boot menu wait.
        f"romimage: file={bochsrc_path_value(BIOS_IMAGE)}, options=fastboot",
        # GRUB sets a VBE mode for the kernel's framebuffer; the cirrus VGA
        # BIOS has one, and Bochs's default VGA BIOS makes GRUB fault.
        f"vgaromimage: file={bochsrc_path_value(VGA_BIOS_IMAGE)}",
        "vga: extension=cirrus",
        # 3.0's term display refuses a log on stderr ("cannot log to stderr in term
        # mode", gui/term.cc); its build has nogui, which draws nothing at all.
        "display_library: term" if config.release == RELEASE_SYSTEM else
        "display_library: nogui",
        "boot: cdrom",
        f"ata0-master: type=cdrom, path={bochsrc_path_value(config.iso)}, status=inserted",
        f"com1: enabled=1, mode=file, dev={bochsrc_path_value(config.serial_log)}",
    ]
    if config.parallel_log:
        lines.append(f"parport1: enabled=1, file={bochsrc_path_value(config.parallel_log)}")
    lines += [
        "speaker: enabled=0",
        f"clock: sync=none, time0={RTC_START}",
        # A Bochs panic ends the run (tools/run reports it) instead of asking.
        "panic: action=fatal",
        "error: action=report",
        "info: action=report",
        "debug: action=ignore",
        "log: -",
    ]
    return "\n".join(lines) + "\n"


def command(bochsrc_file, rc_file, bochs=BOCHS, debugger=True):
    """The Bochs argument list: quick start, this bochsrc, debugger commands from @rc_file.

    Only a Bochs built with its debugger (Debian's 2.7; not the 3.0 of
    tools/emulators, @debugger False) takes -rc: without one it refuses the
    option and starts nothing, and there is no prompt to answer either.
    """
    return [bochs, "-q", "-f", bochsrc_file] + (["-rc", rc_file] if debugger else [])


# The debugger's commands: continue, and never stop again.
DEBUGGER_COMMANDS = "c\n"


# --- The boot medium ----------------------------------------------------------

def _console_words(cmdline):
    return [word for word in (cmdline or "").split() if word.startswith("console=")]


def log_port(cmdline, requested=DEFAULT_LOG_PORT):
    """Where the log comes from (LOG_PORTS): @requested, unless @cmdline names its own
    consoles (console= words), whose lp0 or else COM1 the kernel then prints to (pure)."""
    if requested not in LOG_PORTS:
        raise BochsError(f"the log port {requested!r} is not one of {', '.join(LOG_PORTS)}")
    consoles = _console_words(cmdline)
    if not consoles:
        return requested
    return "lp0" if "console=lp0" in consoles else "com1"


def kernel_words(cmdline, release=RELEASE_SYSTEM, port=DEFAULT_LOG_PORT):
    """The words GRUB must pass: machine=bochs (machine=bochs-3.0 for @release 3.0),
    console=lp0 when the log comes from lp0 (@port, log_port()) and @cmdline names no
    console, then @cmdline split as the kernel splits it.

    Words holding '"', "'" or '\\' are refused: GRUB escapes them with '\\'
    and the kernel reads no escapes, so the kernel would not see what was
    written.
    """
    words = [KERNEL_WORDS[release]]
    if port == "lp0" and not _console_words(cmdline):
        words.append("console=lp0")
    for word in (cmdline or "").split():
        bad = sorted({char for char in word if char in GRUB_ESCAPED})
        if bad:
            raise BochsError(f"--cmdline word {word!r} holds {' and '.join(bad)}: under "
                             f"--emulator bochs the command line goes through GRUB, which "
                             f"escapes it, so the kernel would read something else")
        words.append(word)
    return words


def grub_quote(word):
    """@word as one GRUB script word: single quotes keep '$', ';', '*' and spaces literal."""
    return "'" + word + "'"


# The ISO's `insmod all_video` is left out of the Bochs copy's grub.cfg: the
# only mode GRUB finds there is the cirrus BIOS's 640x480 indexed one, which
# the kernel cannot draw, and loading the video modules from the CD and
# setting that mode took about 1 s of every Bochs boot (4.8 s instead of 5.6
# to 7.7 s for a lib_glob run, measured with the mode and without).
BIOS_VIDEO_LEFT_OUT = "insmod all_video"


def grub_cfg(original, cmdline, release=RELEASE_SYSTEM, port=DEFAULT_LOG_PORT):
    """The derived grub.cfg: @original's settings before its first menu entry, then one
    entry booting the kernel with machine=bochs (kernel_words(), @port) and @cmdline (pure)."""
    preamble = []
    for line in original.split("\n"):
        if re.match(r"\s*menuentry\b", line):
            break
        if re.match(r"\s*insmod\s+all_video\s*$", line):
            continue    # BIOS_VIDEO_LEFT_OUT
        preamble.append(line)
    else:
        raise BochsError("the ISO's grub.cfg has no menuentry: not the project's ISO?")
    while preamble and not preamble[-1].strip():
        preamble.pop()
    arguments = " ".join(grub_quote(word) for word in kernel_words(cmdline, release, port))
    return "\n".join(preamble + [
        "",
        "# Written by tools/run --emulator bochs: Bochs has no fw_cfg, so the",
        "# command line is here (GRUB hands it to the kernel as written).",
        "set timeout=0",
        "set default=0",
        'menuentry "trigos under Bochs" {',
        f"\tmultiboot2 {ISO_KERNEL_PATH} {arguments}",
        "\tboot",
        "}",
    ]) + "\n"


def cache_key(source_iso_stat, cfg_text):
    """The derived ISO's name: the source ISO's identity (size, mtime) and the grub.cfg."""
    digest = hashlib.sha256()
    digest.update(f"{source_iso_stat.st_size}:{source_iso_stat.st_mtime_ns}\n".encode())
    digest.update(cfg_text.encode())
    return digest.hexdigest()[:20]


def cache_directory(source_iso):
    return os.path.join(os.path.dirname(os.path.abspath(source_iso)), CACHE_DIRECTORY)


def derived_iso_path(source_iso, cfg_text):
    return os.path.join(cache_directory(source_iso),
                        cache_key(os.stat(source_iso), cfg_text) + ".iso")


def read_iso_file(iso, path, xorriso=XORRISO):
    """The text of file @path inside @iso (xorriso's extract)."""
    with tempfile.TemporaryDirectory(prefix="trigos-bochs-") as directory:
        target = os.path.join(directory, "file")
        result = subprocess.run([xorriso, "-osirrox", "on", "-indev", iso, "-extract", path,
                                 target], stdin=subprocess.DEVNULL, capture_output=True)
        if result.returncode != 0 or not os.path.isfile(target):
            raise BochsError(f"cannot read {path} from {iso}: "
                             f"{_xorriso_problem(result.stderr)}")
        with open(target, encoding="utf-8", errors="replace") as text:
            return text.read()


def _xorriso_problem(stderr):
    lines = [line for line in stderr.decode("utf-8", errors="replace").splitlines()
             if "FAILURE" in line or "SORRY" in line]
    return "; ".join(lines[-3:]) or "xorriso failed"


# Bochs's CD-ROM takes 80 ms times the fraction of the disc a read moves
# across (iodev/harddrv.cc, start_seek(): the disc's size is the image file's,
# cdrom capacity()), and the BIOS polls through every such wait: GRUB's reads
# from its module directory, its grub.cfg (written last, at the end) and the
# kernel took about 0.3 simulated seconds of each boot.  A sparse tail of
# zeros, beyond the ISO 9660 volume (which readers stop at, and which takes
# no disk), makes every distance a small fraction: the kernel started at
# 121 million ticks instead of 151 million, 3.7 s instead of 4.25 s of a
# 2-CPU lib_glob boot.
CD_IMAGE_PADDED_BYTES = 1 << 30


def _pad_for_short_seeks(path):
    if os.path.getsize(path) < CD_IMAGE_PADDED_BYTES:
        os.truncate(path, CD_IMAGE_PADDED_BYTES)


def derive_iso(source_iso, cfg_text, xorriso=XORRISO):
    """Return the path of @source_iso with @cfg_text as its grub.cfg, built once and kept.

    The copy is BIOS-bootable only (El Torito, GRUB i386-pc): the EFI parts
    are left out and the hybrid partition tables are not replayed.  Its
    dates are fixed, so that one command line gives one image.  Made in a
    temporary file and renamed, so runs in parallel never see half an ISO.
    """
    target = derived_iso_path(source_iso, cfg_text)
    if os.path.isfile(target):
        os.utime(target)        # in use: keep it past the next clean-up
        return target
    directory = os.path.dirname(target)
    os.makedirs(directory, exist_ok=True)
    epoch = int(os.stat(source_iso).st_mtime)
    with tempfile.TemporaryDirectory(prefix="trigos-bochs-") as scratch:
        cfg_file = os.path.join(scratch, "grub.cfg")
        with open(cfg_file, "w", encoding="utf-8") as cfg:
            cfg.write(cfg_text)
        os.utime(cfg_file, (epoch, epoch))
        partial = os.path.join(directory, f".{os.path.basename(target)}.{os.getpid()}.part")
        arguments = [xorriso, "-report_about", "FAILURE", "-return_with", "FAILURE", "32",
                     "-indev", source_iso, "-outdev", partial,
                     "-map", cfg_file, "/boot/grub/grub.cfg"]
        for path in EFI_ONLY_PATHS:
            arguments += ["-rm_r", path, "--"]
        arguments += ["-boot_image", "any", "discard",
                      "-boot_image", "grub", f"bin_path={ELTORITO_IMAGE}",
                      "-boot_image", "grub", "grub2_boot_info=on",
                      "-boot_image", "any", "boot_info_table=on",
                      "-boot_image", "any", "load_size=2048",
                      "-boot_image", "any", "cat_path=/boot.catalog",
                      "-commit"]
        environment = dict(os.environ, SOURCE_DATE_EPOCH=str(epoch))
        result = subprocess.run(arguments, stdin=subprocess.DEVNULL, capture_output=True,
                                env=environment)
        if result.returncode != 0:
            _remove(partial)
            raise BochsError(f"xorriso could not derive the Bochs ISO from {source_iso}: "
                             f"{_xorriso_problem(result.stderr)}")
        _pad_for_short_seeks(partial)
        os.replace(partial, target)
    prune_cache(directory, keep=target)
    return target


def prune_cache(directory, keep, now=None):
    """Remove derived ISOs beyond the CACHE_KEEP most recently used, never one used lately."""
    now = time.time() if now is None else now
    try:
        names = [name for name in os.listdir(directory) if name.endswith(".iso")]
    except OSError:
        return
    entries = []
    for name in names:
        path = os.path.join(directory, name)
        try:
            entries.append((os.stat(path).st_mtime, path))
        except OSError:
            continue
    entries.sort(reverse=True)
    for mtime, path in entries[CACHE_KEEP:]:
        if path != keep and now - mtime > CACHE_FRESH_SECONDS:
            _remove(path)


def _remove(path):
    try:
        os.remove(path)
    except OSError:
        pass


# --- What Bochs's own log says ------------------------------------------------

# A Bochs log line: ticks, level (i info, e error, p panic, d debug), [module], text.
_LOG_LINE = re.compile(r"^(\d+)([iedp])\[([^\]]*)\]\s?(.*)$")
_RESET = re.compile(r"bx_pc_system_c::Reset\((HARDWARE|SOFTWARE)\) called")
_PANIC = ">>PANIC<< "
SHUTDOWN_PORT = "Shutdown port: shutdown requested"
SOFT_POWER_OFF = "ACPI control: soft power off"
_TRIPLE_FAULT = "exception with no resolution"
# cpu/proc_ctrl.cc, HLT; cpu/apic.cc, bx_local_apic_c::deliver: module names are
# "CPU%x" and "APIC%x" with the CPU's number (Bochs's APIC IDs are its CPU numbers).
_HALT_WITH_INTERRUPTS_OFF = "WARNING: HLT instruction with IF=0!"
_WAKES_A_HALTED_CPU = ("Deliver NMI", "Deliver INIT IPI", "Deliver SMI")
_CPU_MODULE = re.compile(r"^CPU([0-9a-f]+)$")
_APIC_MODULE = re.compile(r"^APIC([0-9a-f]+)$")

# What ended the machine, as Bochs's own log tells it.
ENDED_SHUTDOWN_PORT = "shutdown-port"
ENDED_POWEROFF = "poweroff"
ENDED_RESET = "reset"
ENDED_HALT = "halt"
ENDED_PANIC = "panic"


class BochsLog:
    """Reads Bochs's log line by line and notes how the machine ended.

    Bochs resets the machine once at power-on (tick 0); any later reset is
    the guest's (8042, port 0xcf9, a triple fault).  Its shutdown port and
    ACPI soft-off end the simulation through a fatal log message.  A CPU
    that executes HLT with IF=0 is logged; only an NMI, INIT or SMI, each
    logged as its APIC delivers it, can end that halt: when every CPU is so
    halted, nothing in the machine can run again (the caller confirms it
    and calls halted()).
    """

    def __init__(self, cpus=1):
        self.cpus = cpus
        self.ended = None           # one of ENDED_*, or None
        self.detail = ""            # Bochs's words for it
        self.resets = 0
        self.errors = collections.deque(maxlen=8)  # the last error and panic lines
        self.halted_cpus = set()    # halted with IF=0, and nothing delivered since
        self._triple_fault = ""

    def feed(self, line):
        """Take one line; return self.ended once the machine has ended."""
        match = _LOG_LINE.match(line.rstrip("\r\n"))
        if not match or self.ended:
            return self.ended
        level, module, text = match.group(2), match.group(3).strip(), match.group(4)
        if level in "ep":
            self.errors.append(f"[{module}] {text}")
        if text == _HALT_WITH_INTERRUPTS_OFF and _CPU_MODULE.match(module):
            self.halted_cpus.add(int(_CPU_MODULE.match(module).group(1), 16))
        elif text in _WAKES_A_HALTED_CPU and _APIC_MODULE.match(module):
            self.halted_cpus.discard(int(_APIC_MODULE.match(module).group(1), 16))
        if _TRIPLE_FAULT in text:
            self._triple_fault = text
        if _RESET.search(text):
            self.resets += 1
            self.halted_cpus.clear()
            if self.resets > 1:
                self.ended = ENDED_RESET
                self.detail = (f"{self._triple_fault} (a triple fault)" if self._triple_fault
                               else text)
        elif level == "p" and text.startswith(_PANIC):
            message = text[len(_PANIC):]
            if message.startswith(SHUTDOWN_PORT):
                self.ended, self.detail = ENDED_SHUTDOWN_PORT, message
            elif message.startswith(SOFT_POWER_OFF):
                self.ended, self.detail = ENDED_POWEROFF, message
            else:
                self.ended, self.detail = ENDED_PANIC, f"[{module}] {message}"
        return self.ended

    def all_halted(self):
        """Every CPU is halted with IF=0 and nothing was delivered to it since."""
        return not self.ended and self.halted_cpus >= set(range(self.cpus))

    def halted(self):
        """The caller saw all_halted() hold long enough: the machine has ended."""
        self.ended = ENDED_HALT
        self.detail = (f"all {self.cpus} CPUs halted with interrupts off: each one's last HLT "
                       f"with IF=0 was followed by no NMI, INIT or SMI")
