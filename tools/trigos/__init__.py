# SPDX-License-Identifier: MIT
"""trigos's host tools, one package; tools/NAME are its thin entry scripts.

Each tools/NAME puts tools/ on sys.path, imports trigos.NAME and hands its
main(argv) to cli.start() (NAME with '-' as '_': tools/write-usb runs
write_usb).  Modules import each other as `from . import NAME`, so each is
loaded once.  Python 3 standard library only; they run under Debian's
/usr/bin/python3 too (tools/lava and ci/labgrid need its lava and labgrid).

Shared by the others:
  verdict      the verdict words, the '# RESULT: ' prefix, QEMU's exit values
               and tools/run's statuses: the mirror of kernel/lib/verdict.h
  ktap         the KTAP v1 checker (tools/ktap), and the rule for a log's
               last line
  cli          the tree's paths, the argument parser, how a tool is started
  qemu, qmp    the QEMU machine (command line, exit status) and its QMP client
  bochs        the Bochs machine (bochsrc, grub.cfg, reading Bochs's log)
  emulators    Bochs 3.0 and QEMU 10.0 built from Debian 13's sources: where
               they are cached, whether built (tools/run, matrix), building them
  run_common   what tools/run's two runners share: the exit statuses, the
               verdict of a log's last line, showing a log and its tail,
               ending a process group, the signals that stop a run
  bench_results  the BENCH records: parsing, figures, tables, comparisons,
               results files (bench runs, plot draws; both read it)
  peer_timing  what the peers share: a QEMU run with its serial lines stamped
               by the host's arrival time, a peer's figure as a BENCH record
  vcpu_stall   tools/run --stall-vcpus: stops QEMU vCPU threads from the host
               (ptrace) during a run and notes it in the log as '# host:' lines
  kvm_unit_tests  the second peer: kvm-unit-tests built out of tree from a
               clone the user names, timed from outside (peer and bench use it)
The tools: run (boot once: QEMU and the dispatch; run_bochs is its Bochs
runner, --emulator bochs), matrix (every configuration of a matrix file),
soak, bench, peer (the Linux peer for bench), plot, lava, screencheck,
symbols, psf2c, model_check, fuzz_corpus, acpi_crafted, write_usb, emulators (Bochs 3.0 and QEMU 10.0 built
from Debian 13's sources), acpi_machines
(real machines' tables as test data), acpi_check (what trigos will do on a machine);
acpi_dump, which both use, reads acpidump texts and iasl's decodes and lays tables out as
memory images and as a disk for GRUB's acpi command (tools/run --acpi-tables);
layers (the kernel folders' layer rules) and commit_subjects (subjects of
at most 72 characters), both in `make check`.
Their tests are tools/tests/ (python3 -m unittest tools.tests.test_NAME);
what those tests read is in tools/tests/data/.
"""
