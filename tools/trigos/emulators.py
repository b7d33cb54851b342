# SPDX-License-Identifier: MIT
"""The emulators trigos builds itself: Bochs 3.0 and QEMU 10.0, from Debian 13's
("trixie") own source packages, into a cache outside the source tree.

Debian 12 ships Bochs 2.7 (no WAITPKG: UMONITOR, UMWAIT, TPAUSE) and QEMU 7.2
(no x2APIC under TCG, so no APIC ID above 255).  Their successors exist as
Debian 13 packages, whose binaries need Debian 13's libc; their sources build
on Debian 12.  `tools/emulators build` (what `make deps-emulators` and
`tools/deps --emulators` run):

- fetches the source packages with apt-get through a private apt
  configuration (a `deb-src` line for trixie in the cache, never the
  system's sources): `apt-get source --download-only bochs qemu`;
- QEMU's configure wants meson >= 1.5 and (unless Debian's patch drops it)
  pycotap as installed Python packages; Debian 12 has meson 1.0.  Both are
  pure Python in trixie: pycotap from its source package, meson from its
  source package where the mirror serves it, else from its `Architecture:
  all` package, whose files are the same Python sources (the mirrors these
  machines reach serve no meson source tarball).  They go into a venv in the
  cache, from which configure runs;
- applies Debian's own patch series to QEMU (it skips the firmware blobs the
  `+ds` tarball lacks), builds only x86_64-softmmu with TCG and the boards
  and devices trigos uses, and points --firmwarepath at Debian 12's SeaBIOS,
  VGA BIOS and iPXE packages, as Debian's own QEMU does;
- builds Bochs with SMP, x86-64 and the features the sapphire_rapids model
  (WAITPKG) needs, without its debugger (so no `-rc`, tools/trigos/bochs.py),
  and boots it with Debian 12's Bochs BIOS and VGA BIOS.

Each build is installed into CACHE/NAME and marked done by CACHE/NAME/BUILT
(how long it took, on what load); a build present is reused, `make clean`
never touches the cache.  A machine without them skips the matrix sections
that name them (tests/matrix.cfg, `--emulator-version` in `run =`), naming the reason.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

from .cli import UsageError

CACHE_VARIABLE = "TRIGOS_EMULATORS"
DEBIAN_KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"
DEBIAN_MIRROR = "http://deb.debian.org/debian"
SOURCE_SUITE = "trixie"
SYSTEM_PYTHON = "/usr/bin/python3"
# Debian 12's firmware packages, where Debian 12's own QEMU looks (seabios,
# vgabios in seabios, ipxe-qemu; qemu-system-data for the option ROMs).
QEMU_FIRMWARE_PATH = "/usr/share/qemu:/usr/share/seabios:/usr/lib/ipxe/qemu"

# The boards and devices trigos's QEMU 10 sections use (configure
# --without-default-devices drops everything only implied): q35 and pc, the
# exit port, the HPET and the standard VGA GRUB draws on.
QEMU_DEVICES = """\
# Written by tools/trigos/emulators.py: what trigos boots, nothing implied.
CONFIG_Q35=y
CONFIG_I440FX=y
CONFIG_ISAPC=n
CONFIG_MICROVM=n
CONFIG_NITRO_ENCLAVE=n
CONFIG_ISA_DEBUG=y
CONFIG_HPET=y
CONFIG_VGA_PCI=y
"""

QEMU_CONFIGURE = [
    "--target-list=x86_64-softmmu", "--without-default-features", "--without-default-devices",
    "--with-devices-x86_64=trigos", "--enable-tcg", "--disable-kvm", "--disable-xen",
    "--disable-docs", "--disable-tools", "--disable-guest-agent", "--disable-user",
    "--disable-werror", "--disable-download", "--disable-debug-info", "--disable-install-blobs",
    "--disable-fdt", "--disable-plugins", f"--firmwarepath={QEMU_FIRMWARE_PATH}",
]

# sapphire_rapids (WAITPKG, x2APIC) needs AVX, EVEX, AMX, CET and protection
# keys compiled in; MONITOR/MWAIT and UMONITOR/UMWAIT need --enable-monitor-mwait.
BOCHS_CONFIGURE = [
    "--enable-smp", "--enable-x86-64", "--enable-cpu-level=6", "--enable-avx", "--enable-evex",
    "--enable-amx", "--enable-cet", "--enable-protection-keys", "--enable-memtype",
    "--enable-monitor-mwait", "--enable-all-optimizations", "--enable-repeat-speedups",
    "--enable-pci", "--enable-cdrom", "--enable-a20-pin", "--with-nogui", "--with-term",
    "--disable-docbook",
    # With "show IPS" Bochs logs "ips = ..." from its SIGALRM handler each second
    # (main.cc bx_signal_handler -> bx_show_ips_handler -> gui.cc show_ips ->
    # BX_INFO): a signal that lands while the simulator itself is writing a log
    # line waits for logio_mutex, which the code it interrupted holds, for ever.
    # gdb on a stuck Bochs showed exactly that (iofunctions::out of "[APIC1 ]"
    # interrupted, the handler's iofunctions::out in pthread_mutex_lock); 2 of 269
    # runs of a 2-CPU umwait section stuck so with two busy host loops beside, and
    # CI runs "hung" at different points of the boot three times before.
    "--disable-show-ips",
]


@dataclass
class Emulator:
    name: str                   # cache directory; NAME-VER of --emulator, --emulator-version
    package: str                # Debian source package
    binary: str                 # relative to the install directory
    what: str
    helpers: list = field(default_factory=list)    # source packages of build-time tools
    # Raised when the way it is built changes: a build of an older revision is rebuilt.
    revision: int = 1


EMULATORS = {
    "bochs-3.0": Emulator("bochs-3.0", "bochs", "bin/bochs", "Bochs 3.0",
                          revision=2),     # 2: --disable-show-ips
    "qemu-10.0": Emulator("qemu-10.0", "qemu", "bin/qemu-system-x86_64", "QEMU 10.0",
                          helpers=["meson", "python-pycotap"]),
}


def cache_root():
    """CACHE: $TRIGOS_EMULATORS, else $XDG_CACHE_HOME/trigos/emulators, else ~/.cache/..."""
    explicit = os.environ.get(CACHE_VARIABLE)
    if explicit:
        return os.path.abspath(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "trigos", "emulators")


def install_directory(name, root=None):
    return os.path.join(root or cache_root(), name)


def stamp_path(name, root=None):
    return os.path.join(install_directory(name, root), "BUILT")


def binary(name, root=None):
    """The built emulator @name's executable, or None when it is not built."""
    emulator = EMULATORS[name]
    path = os.path.join(install_directory(name, root), emulator.binary)
    record = build_record(name, root)
    if record is not None and record_revision(record) == emulator.revision and \
            os.access(path, os.X_OK):
        return path
    return None


def record_revision(record):
    """The build recipe revision a BUILT record was made by (1 before it was recorded)."""
    revision = record.get("revision", 1)
    return revision if isinstance(revision, int) else 0


def missing_reason(name, root=None):
    """Why @name cannot run here (None when it can): the sentence a skip prints."""
    if name not in EMULATORS:
        return f"unknown emulator '{name}' (known: {', '.join(EMULATORS)})"
    if binary(name, root):
        return None
    record = build_record(name, root)
    if record is not None:
        return (f"{EMULATORS[name].what} in {install_directory(name, root)} was built by "
                f"recipe revision {record_revision(record)}, not the current "
                f"{EMULATORS[name].revision} (`make deps-emulators` rebuilds it)")
    return (f"{EMULATORS[name].what} is not built in {install_directory(name, root)} "
            f"(`make deps-emulators` builds it from Debian 13's source package)")


def build_record(name, root=None):
    """The BUILT record of @name (a dict), or None."""
    try:
        with open(stamp_path(name, root), encoding="utf-8") as stamp:
            return json.load(stamp)
    except (OSError, ValueError):
        return None


# --- Building ----------------------------------------------------------------------

class BuildError(Exception):
    """A step of a build failed; the message names it and its log."""


class Builder:
    """Builds the emulators into @root, logging each step to ROOT/build/NAME.log."""

    def __init__(self, root=None, jobs=2, out=sys.stdout):
        self.root = root or cache_root()
        self.jobs = jobs
        self.out = out
        self.apt_dir = os.path.join(self.root, "apt")
        self.source_dir = os.path.join(self.root, "src")
        self.work_dir = os.path.join(self.root, "build")
        self.log = None

    def say(self, text):
        print(f"emulators: {text}", file=self.out, flush=True)

    def run(self, command, cwd=None, env=None):
        """Run @command, its output into the build log; raise BuildError on failure."""
        self.log.write(f"\n$ {' '.join(command)}\n")
        self.log.flush()
        result = subprocess.run(command, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                stdout=self.log, stderr=subprocess.STDOUT)
        if result.returncode != 0:
            raise BuildError(f"'{' '.join(command[:3])} ...' failed with status "
                             f"{result.returncode}; see {self.log.name}")

    # apt-get with only the cache's sources: the system's apt configuration is untouched.
    def apt_options(self):
        return ["-o", f"Dir::Etc::SourceList={os.path.join(self.apt_dir, 'sources.list')}",
                "-o", "Dir::Etc::SourceParts=/dev/null",
                "-o", f"Dir::State::Lists={os.path.join(self.apt_dir, 'lists')}",
                "-o", f"Dir::Cache={os.path.join(self.apt_dir, 'cache')}",
                "-o", "Dir::Etc::Preferences=/dev/null",
                "-o", "Dir::Etc::PreferencesParts=/dev/null",
                "-o", "Debug::NoLocking=1"] + (
                    # root's apt drops to _apt, who cannot write a cache in root's home
                    ["-o", "APT::Sandbox::User=root"] if os.geteuid() == 0 else [])

    def apt_update(self):
        for sub in ("lists/partial", "cache/archives/partial"):
            os.makedirs(os.path.join(self.apt_dir, sub), exist_ok=True)
        signed = f"[signed-by={DEBIAN_KEYRING}]"
        with open(os.path.join(self.apt_dir, "sources.list"), "w", encoding="utf-8") as sources:
            sources.write(f"deb-src {signed} {DEBIAN_MIRROR} {SOURCE_SUITE} main\n")
            # Only for meson's Architecture: all package, when its source is not served.
            sources.write(f"deb [signed-by={DEBIAN_KEYRING} arch=amd64] {DEBIAN_MIRROR} "
                          f"{SOURCE_SUITE} main\n")
        self.run(["apt-get", *self.apt_options(), "update"])

    def fetch_source(self, package):
        """apt-get source --download-only @package into src/; its orig tarball's path."""
        os.makedirs(self.source_dir, exist_ok=True)
        try:
            self.run(["apt-get", *self.apt_options(), "source", "--download-only", package],
                     cwd=self.source_dir)
        except BuildError:
            pass        # judged by what arrived: a mirror may serve the tarball but not the .dsc
        return self.source_file(package, ".orig.tar.")

    def source_file(self, package, kind):
        names = sorted(name for name in os.listdir(self.source_dir)
                       if name.startswith(package + "_") and kind in name
                       and not name.endswith(".partial"))
        return os.path.join(self.source_dir, names[-1]) if names else None

    def unpack(self, tarball, directory):
        shutil.rmtree(directory, ignore_errors=True)
        os.makedirs(directory)
        self.run(["tar", "xf", tarball, "--strip-components=1", "-C", directory])

    # --- the Python tools QEMU's configure needs --------------------------------
    def python_venv(self):
        venv = os.path.join(self.work_dir, "venv")
        shutil.rmtree(venv, ignore_errors=True)
        self.run([SYSTEM_PYTHON, "-m", "venv", venv])
        python = os.path.join(venv, "bin", "python3")
        site = subprocess.run([python, "-c", "import sysconfig; "
                               "print(sysconfig.get_paths()['purelib'])"],
                              capture_output=True, text=True, check=True).stdout.strip()
        meson = self.fetch_source("meson")
        if meson:
            tree = os.path.join(self.work_dir, "meson")
            self.unpack(meson, tree)
            self.run([python, "setup.py", "-q", "install"], cwd=tree)
        else:
            self.say("the mirror serves no meson source tarball: installing the Python files of "
                     "its Architecture: all package")
            self.run(["apt-get", *self.apt_options(), "download", "meson"], cwd=self.source_dir)
            package = self.source_file("meson", "_all.deb")
            with tempfile.TemporaryDirectory(prefix="trigos-meson-") as scratch:
                self.run(["dpkg-deb", "-x", package, scratch])
                packages = os.path.join(scratch, "usr", "lib", "python3", "dist-packages")
                for name in os.listdir(packages):
                    shutil.copytree(os.path.join(packages, name), os.path.join(site, name),
                                    dirs_exist_ok=True)
            with open(os.path.join(venv, "bin", "meson"), "w", encoding="utf-8") as script:
                script.write(f"#!{python}\nimport sys\nfrom mesonbuild.mesonmain import main\n"
                             f"sys.exit(main())\n")
            os.chmod(os.path.join(venv, "bin", "meson"), 0o755)
        pycotap = self.fetch_source("python-pycotap")
        if not pycotap:
            raise BuildError("no python-pycotap source tarball from the mirror")
        tree = os.path.join(self.work_dir, "pycotap")
        self.unpack(pycotap, tree)
        self.run([python, "setup.py", "-q", "install"], cwd=tree)
        self.run([python, "-c", "import importlib.metadata as m; "
                  "print('meson', m.version('meson'), 'pycotap', m.version('pycotap'))"])
        return venv

    # --- the two emulators -------------------------------------------------------
    def build_bochs(self, prefix):
        tarball = self.fetch_source("bochs")
        if not tarball:
            raise BuildError("no bochs source tarball from the mirror")
        tree = os.path.join(self.work_dir, "bochs")
        self.unpack(tarball, tree)
        self.run(["./configure", f"--prefix={prefix}", *BOCHS_CONFIGURE], cwd=tree)
        self.run(["make", f"-j{self.jobs}"], cwd=tree)
        self.run(["make", "install"], cwd=tree)

    def build_qemu(self, prefix):
        venv = self.python_venv()
        tarball = self.fetch_source("qemu")
        debian = self.source_file("qemu", ".debian.tar.")
        if not tarball or not debian:
            raise BuildError("no qemu source package (orig and debian tarballs) from the mirror")
        tree = os.path.join(self.work_dir, "qemu")
        self.unpack(tarball, tree)
        self.run(["tar", "xf", debian, "-C", tree])
        with open(os.path.join(tree, "debian", "patches", "series"), encoding="utf-8") as series:
            for patch in series:
                patch = patch.split("#", 1)[0].strip()
                if patch:
                    self.run(["patch", "-p1", "-s", "--forward", "-i",
                              os.path.join("debian", "patches", patch)], cwd=tree)
        with open(os.path.join(tree, "configs", "devices", "x86_64-softmmu", "trigos.mak"), "w",
                  encoding="utf-8") as devices:
            devices.write(QEMU_DEVICES)
        build = os.path.join(tree, "b")
        os.makedirs(build)
        env = dict(os.environ, PATH=os.path.join(venv, "bin") + os.pathsep + os.environ["PATH"])
        self.run(["../configure", f"--prefix={prefix}",
                  f"--python={os.path.join(venv, 'bin', 'python3')}", *QEMU_CONFIGURE],
                 cwd=build, env=env)
        self.run(["ninja", f"-j{self.jobs}"], cwd=build, env=env)
        self.run(["ninja", "install"], cwd=build, env=env)

    def build(self, name):
        """Build @name into its install directory; its BUILT record."""
        prefix = install_directory(name, self.root)
        os.makedirs(self.work_dir, exist_ok=True)
        log_path = os.path.join(self.work_dir, f"{name}.log")
        load = os.getloadavg()[0]
        started, cpu_before = time.monotonic(), os.times()
        self.say(f"building {EMULATORS[name].what} into {prefix} (log {log_path}; "
                 f"host load {load:.1f}, {os.cpu_count()} CPUs, make -j{self.jobs})")
        shutil.rmtree(prefix, ignore_errors=True)
        with open(log_path, "w", encoding="utf-8") as self.log:
            self.apt_update()
            (self.build_bochs if name.startswith("bochs") else self.build_qemu)(prefix)
        cpu_after = os.times()
        record = {
            "name": name, "date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
            "wall_seconds": round(time.monotonic() - started),
            "cpu_seconds": round(cpu_after.children_user + cpu_after.children_system
                                 - cpu_before.children_user - cpu_before.children_system),
            "revision": EMULATORS[name].revision,
            "jobs": self.jobs, "host_cpus": os.cpu_count(), "load_at_start": round(load, 1),
            "load_at_end": round(os.getloadavg()[0], 1),
        }
        with open(stamp_path(name, self.root), "w", encoding="utf-8") as stamp:
            json.dump(record, stamp, indent=1)
            stamp.write("\n")
        self.say(f"built {EMULATORS[name].what} in {record['wall_seconds']} s of wall, "
                 f"{record['cpu_seconds']} s of CPU: {binary(name, self.root)}")
        return record


# --- The command ------------------------------------------------------------------

def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        prog="tools/emulators",
        description="Build Bochs 3.0 and QEMU 10.0 from Debian 13's source packages into "
                    "a cache outside the source tree (default ~/.cache/trigos/emulators, or "
                    f"${CACHE_VARIABLE}), or say what is built.",
        epilog="  tools/emulators status\n"
               "  tools/emulators build               every one not yet built\n"
               "  tools/emulators build qemu-10.0 --rebuild\n"
               "  tools/emulators path bochs-3.0      its executable (status 1: not built)",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", choices=("status", "build", "path"))
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help=f"emulators: {', '.join(EMULATORS)} (default all)")
    parser.add_argument("--rebuild", action="store_true", help="build even if present")
    parser.add_argument("--jobs", type=int, default=2, help="parallel compile jobs (default 2)")
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    names = args.names or list(EMULATORS)
    for name in names:
        if name not in EMULATORS:
            raise UsageError(f"emulators: unknown emulator '{name}' "
                             f"(known: {', '.join(EMULATORS)})")
    if args.action == "path":
        paths = [binary(name) for name in names]
        for path in paths:
            if path:
                print(path)
        return 0 if all(paths) else 1
    if args.action == "status":
        for name in names:
            record = build_record(name)
            if binary(name) and record:
                print(f"{name}: {binary(name)} (built {record.get('date')}: "
                      f"{record.get('wall_seconds')} s of wall, {record.get('cpu_seconds')} s "
                      f"of CPU, -j{record.get('jobs')}, load {record.get('load_at_start')})")
            else:
                print(f"{name}: {missing_reason(name)}")
        return 0
    builder = Builder(jobs=args.jobs)
    status = 0
    for name in names:
        if binary(name) and not args.rebuild:
            print(f"emulators: {name} already built: {binary(name)}")
            continue
        try:
            builder.build(name)
        except (BuildError, OSError, subprocess.CalledProcessError) as error:
            print(f"emulators: {name} not built: {error}", file=sys.stderr)
            status = 1
    return status
