# trigos: one non-recursive Makefile, everything built out of tree in build/.
#
#   make            the kernel ELF (build/trigos.elf)
#   make iso        the hybrid BIOS+UEFI ISO (build/trigos.iso)
#   make run        boot the ISO in QEMU and stream the serial console
#   make debug      the same, halted, waiting for gdb (GDB_PORT=1234)
#   make check      host unit tests (kernel/lib, tools), the trigger model (Spin),
#                   the layer rules and the commit subjects
#   make test       check + the QEMU boot matrix, every log checked
#   make bench      the benchmark matrix
#   make test-lava  the LAVA qemu job, run by the local lava-dispatcher
#   make test-labgrid  the labgrid example, its board a QEMU
#   make netboot    the GRUB EFI network image iPXE chains on a board
#   make soak N=200 N boots drawn from the matrix, random seeds
#   make deps       install the Debian packages the build and tests need
#   make deps-emulators  build Bochs 3.0 and QEMU 10.0 from Debian 13's sources
#                   (into ~/.cache/trigos/emulators, kept across make clean)
#   make clean
#
# Variables worth setting: CPUS=N, RUN_ARGS="...", CMDLINE="test=lib_*".

BUILD      ?= build
CC         ?= gcc
HOST_CC    ?= gcc
LD         ?= ld
NM         ?= nm
OBJCOPY    ?= objcopy
PYTHON     ?= python3

# Make's built-in CC is "cc"; keep gcc unless the caller chose otherwise.
ifeq ($(origin CC),default)
CC := gcc
endif

WARNINGS   := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
              -Wpointer-arith -Wvla -Wno-unused-parameter
INCLUDES   := -Ikernel/include -Ikernel -Ikernel/arch/x86/include

# The kernel is freestanding and linked at 1 MiB: -mcmodel=small fits any
# address below 2 GiB without PIC.  -mno-red-zone because interrupts arrive on
# the current stack; -mgeneral-regs-only because nothing saves SSE state.
# Frame pointers stay, and tail calls stay calls, so that a fault can print
# a complete stack trace.
# Files generated into the build directory (the font, the symbol table) are
# named as if it were build/, so that the image does not depend on BUILD=
# (make check-reproducible builds in two directories).
BUILD_PREFIX_MAP := -ffile-prefix-map=$(BUILD)/=build/

KERNEL_CFLAGS := -std=gnu11 -O2 -g $(WARNINGS) $(INCLUDES) \
              -ffreestanding \
              -fno-stack-protector -fno-pic -fno-pie -mcmodel=small -mno-red-zone \
              -mgeneral-regs-only -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
              -fno-optimize-sibling-calls \
              -fno-asynchronous-unwind-tables -fno-strict-aliasing -fno-common \
              -fno-delete-null-pointer-checks -MMD -MP $(BUILD_PREFIX_MAP)
KERNEL_ASFLAGS := $(INCLUDES) -D__ASSEMBLY__ -g -MMD -MP $(BUILD_PREFIX_MAP)
KERNEL_LDFLAGS := -nostdlib -static -z max-page-size=0x1000 -z noexecstack --no-warn-rwx-segments -T linker.ld

# kernel/lib also builds for the host, where its libc-named functions are
# renamed (kernel/lib/host_names.h) and the sanitizers watch it.
HOST_SANITIZERS ?= -fsanitize=address,undefined -fno-sanitize-recover=all
# -O0: the sanitizers watch an unoptimized build as well (ASan finds more:
# nothing is kept in registers), and make check compiles these 45 files in
# 13 s of CPU instead of 28 s at -O1, for 1 s more of running them (make
# test is CPU-bound).  The optimizer's flow warnings (-Wmaybe-uninitialized
# and the like) still see kernel/lib, in the kernel's -O2 build.  The
# libFuzzer build is optimized (FUZZ_CFLAGS): its speed is its coverage.
HOST_OPTIMIZE := -O0
HOST_CFLAGS := -std=gnu11 $(HOST_OPTIMIZE) -g $(WARNINGS) $(INCLUDES) -DTRIGOS_HOST_TEST \
              -fno-builtin -fno-omit-frame-pointer $(HOST_SANITIZERS) -MMD -MP
HOST_LIB_CFLAGS := $(HOST_CFLAGS) -include kernel/lib/host_names.h

# --- Sources ------------------------------------------------------------------
# kernel/*.c and one folder per subsystem (docs/CONVENTIONS.md, each folder's
# README.md); the hardware in kernel/arch/x86, the freestanding library in kernel/lib.
KERNEL_SUBSYSTEMS := cpu log sync smp harness boot mm time console
ARCH_SOURCES   := $(wildcard kernel/arch/x86/*.c kernel/arch/x86/*.S)
KERNEL_SOURCES := $(wildcard kernel/*.c $(patsubst %,kernel/%/*.c,$(KERNEL_SUBSYSTEMS)))
LIB_SOURCES    := $(wildcard kernel/lib/*.c)
LIB_TESTS      := $(wildcard tests/lib/*.c)
KERNEL_TESTS   := $(wildcard tests/*.c)

kernel_object = $(BUILD)/kernel/$(basename $(1)).o
KERNEL_OBJECTS := $(foreach f,$(ARCH_SOURCES) $(KERNEL_SOURCES) \
                    $(LIB_SOURCES) $(LIB_TESTS) $(KERNEL_TESTS),$(call kernel_object,$(f)))

# The screen console's font, converted at build time (tools/psf2c) from a
# Debian console font; the generated C file lives in build/ only.
# Uni2-VGA16 (console-setup-linux, from u_vga16.bdf) is under an X11-style
# licence, see /usr/share/doc/console-setup-linux/copyright.fonts.gz.
CONSOLE_FONT   ?= /usr/share/consolefonts/Uni2-VGA16.psf.gz
FONT_SOURCE    := $(BUILD)/generated/console_font.c
FONT_OBJECT    := $(BUILD)/generated/console_font.o
KERNEL_OBJECTS += $(FONT_OBJECT)

HOST_LIB_OBJECTS  := $(patsubst %.c,$(BUILD)/host/%.o,$(LIB_SOURCES) $(LIB_TESTS))
HOST_RUNNER_OBJECT := $(BUILD)/host/tests/host/runner.o
UNIT_TESTS     := $(BUILD)/host/unit-tests

KERNEL_ELF     := $(BUILD)/trigos.elf
ISO            := $(BUILD)/trigos.iso

# V=1 shows every command.
ifeq ($(V),1)
Q :=
say =
else
Q := @
say = @printf '  %-6s %s\n' $(1) $(2)
endif

.PHONY: all iso run debug test check check-unit check-tools check-model bench bench-bochs clean deps deps-emulators
.PHONY: check-reproducible check-recorded check-layers check-commits
.PHONY: check-fuzz fuzz fuzz-deps
.PHONY: test-lava test-labgrid soak netboot
all: $(KERNEL_ELF)

# --- Kernel -------------------------------------------------------------------
# A change of flags rebuilds everything.
$(KERNEL_OBJECTS) $(HOST_LIB_OBJECTS) $(HOST_RUNNER_OBJECT): Makefile
$(BUILD)/kernel/%.o: %.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(KERNEL_CFLAGS) -c $< -o $@
	$(call say,CC,$<)

# kernel/lib stands alone (docs/CONVENTIONS.md): it is compiled with no
# include path but kernel/, so an include of a kernel header (sync/...,
# asm/...) from kernel/lib fails the build, in the kernel and on the host.
LIB_ONLY_INCLUDES := -Ikernel
$(foreach f,$(LIB_SOURCES),$(call kernel_object,$(f))): \
	KERNEL_CFLAGS := $(filter-out $(INCLUDES),$(KERNEL_CFLAGS)) $(LIB_ONLY_INCLUDES)
$(patsubst %.c,$(BUILD)/host/%.o,$(LIB_SOURCES)): \
	HOST_LIB_CFLAGS := $(filter-out $(INCLUDES),$(HOST_LIB_CFLAGS)) $(LIB_ONLY_INCLUDES)

$(BUILD)/kernel/%.o: %.S
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(KERNEL_ASFLAGS) -c $< -o $@
	$(call say,AS,$<)

$(FONT_SOURCE): $(CONSOLE_FONT) tools/psf2c tools/trigos/psf2c.py
	@mkdir -p $(dir $@)
	$(Q)$(PYTHON) tools/psf2c --notice "$(notdir $(CONSOLE_FONT)), Copyright (c) 2000, 2001 \
		Dmitry Bolkhovityanov, X11-style licence (console-setup-linux copyright.fonts)" \
		$(CONSOLE_FONT) $@
	$(call say,PSF2C,$(CONSOLE_FONT))

$(FONT_OBJECT): $(FONT_SOURCE) Makefile
	$(Q)$(CC) $(KERNEL_CFLAGS) -c $< -o $@
	$(call say,CC,$<)

# The kernel embeds its own symbol table so that a fault prints symbol+offset.
# Pass 1 links with an empty table; its symbols generate the real table, and
# pass 2 links that in.  linker.ld puts the table last in the image, so the
# two passes lay everything else out identically; tools/symbols checks it.
$(BUILD)/empty-symbols.S: tools/symbols tools/trigos/symbols.py
	@mkdir -p $(dir $@)
	$(PYTHON) tools/symbols --empty > $@

$(BUILD)/%-symbols.o: $(BUILD)/%-symbols.S
	$(CC) $(KERNEL_ASFLAGS) -c $< -o $@

$(BUILD)/trigos-pass1.elf: $(KERNEL_OBJECTS) $(BUILD)/empty-symbols.o linker.ld
	$(LD) $(KERNEL_LDFLAGS) -o $@ $(KERNEL_OBJECTS) $(BUILD)/empty-symbols.o

$(BUILD)/kernel-symbols.S: $(BUILD)/trigos-pass1.elf tools/symbols tools/trigos/symbols.py
	$(NM) -n --defined-only $< | $(PYTHON) tools/symbols > $@

$(KERNEL_ELF): $(KERNEL_OBJECTS) $(BUILD)/kernel-symbols.o linker.ld tools/symbols tools/trigos/symbols.py
	$(LD) $(KERNEL_LDFLAGS) -o $@ $(KERNEL_OBJECTS) $(BUILD)/kernel-symbols.o
	$(NM) -n --defined-only $(BUILD)/trigos-pass1.elf > $(BUILD)/pass1.nm
	$(NM) -n --defined-only $@ | $(PYTHON) tools/symbols --same-layout $(BUILD)/pass1.nm

# --- ISO ----------------------------------------------------------------------
# One hybrid image: El Torito + MBR for BIOS (i386-pc), an EFI system
# partition image for UEFI (x86_64-efi); boots as a CD and raw-written to USB.
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
export SOURCE_DATE_EPOCH
# Reproducible ISO: every file and the volume carry the commit's date, and
# the EFI image's FAT a serial derived from it (tools/mformat-fixed-serial).
ISO_DATE := $(shell date -u -d @$(SOURCE_DATE_EPOCH) +%Y%m%d%H%M%S00)
ISO_FIXED_DATES := --set_all_file_dates $(ISO_DATE) --modification-date=$(ISO_DATE)
$(ISO): $(KERNEL_ELF) iso/grub.cfg
	@rm -rf $(BUILD)/iso-root && mkdir -p $(BUILD)/iso-root/boot/grub
	@# Without its DWARF (3 MB; gdb reads build/trigos.elf): GRUB's multiboot
	@# loader reads every section that is not loaded for its ELF-sections tag
	@# too (grub-core/loader/multiboot_elfxx.c), through the BIOS's disk calls,
	@# which cost each Bochs boot about a second.
	$(OBJCOPY) --strip-debug $(KERNEL_ELF) $(BUILD)/iso-root/boot/trigos.elf
	cp iso/grub.cfg $(BUILD)/iso-root/boot/grub/grub.cfg
	@mkdir -p $(BUILD)/iso-tools && ln -sf $(abspath tools/mformat-fixed-serial) $(BUILD)/iso-tools/mformat
	PATH="$(abspath $(BUILD)/iso-tools):$$PATH" grub-mkrescue --quiet \
		-o $@ $(BUILD)/iso-root $(ISO_FIXED_DATES) 2>$(BUILD)/grub-mkrescue.log || \
		{ cat $(BUILD)/grub-mkrescue.log; exit 1; }

iso: $(ISO)

# A build from scratch in another directory must give the ISO's bytes.  One
# more build, not two: the ISO itself is the other (on a clean clone, as in
# CI, a build from scratch too), which saves a whole build's CPU in make test.
check-reproducible: $(ISO)
	@rm -rf $(BUILD)/reproducible && mkdir -p $(BUILD)
	$(Q)$(MAKE) --no-print-directory BUILD=$(BUILD)/reproducible iso \
		> $(BUILD)/reproducible.log 2>&1 || { cat $(BUILD)/reproducible.log; exit 1; }
	cmp $(ISO) $(BUILD)/reproducible/trigos.iso
	@echo "reproducible: a second ISO build, in another directory, is byte-identical"
	@rm -rf $(BUILD)/reproducible

# --- Running ------------------------------------------------------------------
CPUS     ?= 2
RUN_ARGS ?=
CMDLINE  ?=
RUN_TOOL_ARGS = --cpus $(CPUS) --iso $(ISO) --kernel $(KERNEL_ELF) \
		$(if $(CMDLINE),--cmdline "$(CMDLINE)") $(RUN_ARGS)
run: $(ISO)
	$(PYTHON) tools/run $(RUN_TOOL_ARGS)

# As make run, but QEMU starts halted with its gdb stub on GDB_PORT and
# tools/run prints the gdb command to attach with (docs/running.md, "Debugging with gdb").
GDB_PORT ?= 1234
debug: $(ISO)
	$(PYTHON) tools/run --gdb=$(GDB_PORT) $(RUN_TOOL_ARGS)

# --- Host unit tests ----------------------------------------------------------
$(BUILD)/host/tests/host/%.o: tests/host/%.c
	@mkdir -p $(dir $@)
	$(Q)$(HOST_CC) $(HOST_CFLAGS) -c $< -o $@
	$(call say,HOSTCC,$<)

$(BUILD)/host/%.o: %.c
	@mkdir -p $(dir $@)
	$(Q)$(HOST_CC) $(HOST_LIB_CFLAGS) -c $< -o $@
	$(call say,HOSTCC,$<)

$(UNIT_TESTS): $(HOST_LIB_OBJECTS) $(HOST_RUNNER_OBJECT)
	$(HOST_CC) $(HOST_CFLAGS) -o $@ $^

# Every expectation form failing on purpose (tests/host/expect_output.c), through the
# host runner: what they print must be byte for byte tests/host/expect_output.golden,
# and the run must fail.
EXPECT_OUTPUT := $(BUILD)/host/expect-output
$(EXPECT_OUTPUT): $(patsubst %.c,$(BUILD)/host/%.o,$(LIB_SOURCES)) $(HOST_RUNNER_OBJECT) \
		$(BUILD)/host/tests/host/expect_output.o
	$(HOST_CC) $(HOST_CFLAGS) -o $@ $^

check-unit: $(UNIT_TESTS) $(EXPECT_OUTPUT)
	$(UNIT_TESTS) > $(BUILD)/host/unit-tests.log 2>&1; status=$$?; \
		cat $(BUILD)/host/unit-tests.log; \
		$(PYTHON) tools/ktap --quiet $(BUILD)/host/unit-tests.log || exit 1; \
		[ $$status = 0 ] || exit $$status
	$(EXPECT_OUTPUT) > $(BUILD)/host/expect-output.log 2>&1; \
		if [ $$? != 1 ]; then echo "expect-output: its failing cases did not fail the run"; \
			exit 1; fi
	diff -u tests/host/expect_output.golden $(BUILD)/host/expect-output.log
	@echo "expect-output: every expectation form printed as tests/host/expect_output.golden"

# One process per tools/tests module, so that make -j runs them side by side:
# most of their time is waiting (test_run's fake QEMU and time-outs: 22 s of
# wall for 3 s of CPU), and one discover run took 43 s of wall for 9 s of CPU.
TOOL_TEST_CHECKS := $(addprefix check-tools-,$(basename $(notdir $(wildcard tools/tests/test_*.py))))
.PHONY: $(TOOL_TEST_CHECKS)
check-tools: $(TOOL_TEST_CHECKS)
$(TOOL_TEST_CHECKS): check-tools-%:
	$(PYTHON) -m unittest -q tools.tests.$*
# acpi-check's tests run the host build of the parser on a real machine's tables.
check-tools-test_acpi_dump: $(ACPI_MACHINES)

# The trigger's halting protocol, model-checked by Spin (tests/model/): the
# model must hold and each of its mutants must fail.
check-model:
	$(PYTHON) tools/model-check --build $(BUILD)/model

# The layer rules (each kernel folder's README.md, "May include:") against
# every #include and every call of a name another folder alone defines.
check-layers:
	$(PYTHON) tools/layers

# Commit subjects of at most 72 characters, a blank line, then the body:
# checked over the commits after the rule was adopted (COMMIT_BASE).
COMMIT_BASE ?= 67b368c
check-commits:
	$(PYTHON) tools/commit-subjects --base $(COMMIT_BASE)

check: check-unit check-tools check-fuzz check-model check-layers check-commits check-acpi-machines

# --- Fuzzing ------------------------------------------------------------------
# Targets in tests/fuzz/ (one LLVMFuzzerTestOneInput each, over kernel/lib with
# the host renaming).  `make check` replays their seed corpora and crash
# regressions (and the crafted tables of tools/acpi-crafted) with gcc and
# ASan/UBSan; `make fuzz` builds them with clang's libFuzzer and runs each for
# FUZZ_SECONDS (tools/fuzz), one process at a time.
FUZZ_TARGETS  := acpi_table acpi_walk mptable multiboot2 pvh cmdline format
FUZZ_SECONDS  ?= 30
FUZZ_CC       ?= clang-14
# clang has no optimize attribute (lib/string.c uses GCC's to keep its loops
# from becoming calls to themselves); it is not needed for the host.
FUZZ_CFLAGS   := $(filter-out $(HOST_SANITIZERS) $(HOST_OPTIMIZE),$(HOST_LIB_CFLAGS)) -O1 \
                 -Wno-unknown-attributes \
                 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
HOST_KLIB_OBJECTS := $(patsubst %.c,$(BUILD)/host/%.o,$(LIB_SOURCES))
FUZZ_KLIB_OBJECTS := $(patsubst %.c,$(BUILD)/fuzz/%.o,$(LIB_SOURCES) tests/fuzz/common.c)
FUZZ_REPLAYS  := $(patsubst %,$(BUILD)/host/fuzz/replay-%,$(FUZZ_TARGETS))
FUZZ_BINARIES := $(patsubst %,$(BUILD)/fuzz/fuzz-%,$(FUZZ_TARGETS))
FUZZ_HOST_OBJECTS := $(patsubst %,$(BUILD)/host/tests/fuzz/%.o,$(FUZZ_TARGETS) replay common)
FUZZ_OBJECTS  := $(patsubst %,$(BUILD)/fuzz/tests/fuzz/%.o,$(FUZZ_TARGETS)) $(FUZZ_KLIB_OBJECTS)
.SECONDARY: $(FUZZ_HOST_OBJECTS) $(FUZZ_OBJECTS)

$(FUZZ_HOST_OBJECTS) $(FUZZ_OBJECTS): Makefile
$(BUILD)/host/fuzz/replay-%: $(BUILD)/host/tests/fuzz/%.o $(BUILD)/host/tests/fuzz/replay.o \
		$(BUILD)/host/tests/fuzz/common.o $(HOST_KLIB_OBJECTS)
	@mkdir -p $(dir $@)
	$(Q)$(HOST_CC) $(HOST_CFLAGS) -o $@ $^
	$(call say,LINK,$@)

check-fuzz: $(FUZZ_REPLAYS)
	$(Q)for target in $(FUZZ_TARGETS); do \
		$(BUILD)/host/fuzz/replay-$$target $$target tests/fuzz/corpus/$$target \
			tests/fuzz/regressions/$$target || exit 1; \
	done
	$(Q)$(BUILD)/host/fuzz/replay-acpi_walk acpi_crafted tests/fuzz/crafted

$(BUILD)/fuzz/%.o: %.c
	@mkdir -p $(dir $@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -c $< -o $@
	$(call say,FUZZCC,$<)

$(BUILD)/fuzz/fuzz-%: $(BUILD)/fuzz/tests/fuzz/%.o $(FUZZ_KLIB_OBJECTS)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $^
	$(call say,LINK,$@)

fuzz-deps:
	@tools/deps --fuzz --quiet

fuzz: fuzz-deps
	$(MAKE) --no-print-directory $(FUZZ_BINARIES)
	tools/fuzz --seconds $(FUZZ_SECONDS) --build $(BUILD) $(FUZZ_TARGETS)

# --- Real machines' ACPI tables ---------------------------------------------
# tests/machines/acpi-machines.xz (tools/acpi-machines: linuxhw/ACPI's dumps,
# CC BY 4.0) through tests/host/acpi_machines.c with ASan/UBSan: every
# machine's facts as trigos's parser finds them must equal iasl's decode.
ACPI_MACHINES      := $(BUILD)/host/acpi-machines
ACPI_MACHINES_DATA := tests/machines/acpi-machines.xz
$(BUILD)/host/tests/host/acpi_machines.o: tests/host/acpi_machines.c Makefile
	@mkdir -p $(dir $@)
	$(Q)$(HOST_CC) $(HOST_LIB_CFLAGS) -c $< -o $@
	$(call say,HOSTCC,$<)

$(ACPI_MACHINES): $(BUILD)/host/tests/host/acpi_machines.o $(HOST_KLIB_OBJECTS)
	$(Q)$(HOST_CC) $(HOST_CFLAGS) -o $@ $^
	$(call say,LINK,$@)

$(BUILD)/host/acpi-machines.bin: $(ACPI_MACHINES_DATA)
	$(Q)$(PYTHON) tools/acpi-machines unpack $< $@

check-acpi-machines: $(ACPI_MACHINES) $(BUILD)/host/acpi-machines.bin
	$(Q)$(ACPI_MACHINES) $(BUILD)/host/acpi-machines.bin > $(BUILD)/host/acpi-machines.log; \
		status=$$?; grep -v '^    ok ' $(BUILD)/host/acpi-machines.log; exit $$status

# --- Boot matrix --------------------------------------------------------------
# The ISO first; then make check and the reproducibility build run beside the
# boots, not before them: much of make check waits (on a fake QEMU or Bochs, or
# a time-out), and beside the matrix its waits overlap the boots instead of
# delaying them; its CPU time still counts (make test is CPU-bound on 2 cores:
# docs/measurements.md).  tools/matrix judges it after the last boot, waiting for
# its status file (written last, whole, by check-recorded).  -j4 for make check:
# its tools tests mostly wait (41-42 s of wall with -j2, 30-31 s with -j4, the
# same CPU time, twice each back to back at host load 2-3).
# The sections that need Bochs 3.0 or QEMU 10.0 (tests/matrix.cfg, needs =)
# run when tools/emulators built them: make test builds them first, once
# (EMULATORS=skip leaves them out; a failed build makes those sections skip).
EMULATORS ?= build
CHECK_WAIT_SECONDS ?= 1800
test: deps-quiet
ifneq ($(EMULATORS),skip)
	@tools/deps --quiet --emulators || \
		echo "make test: Bochs 3.0 / QEMU 10.0 not built: their sections will be skipped"
endif
	@rm -f $(BUILD)/check.status
	$(MAKE) --no-print-directory -j2 iso
	$(MAKE) --no-print-directory -j4 check-recorded & \
	$(PYTHON) tools/matrix --check-status $(BUILD)/check.status --check-log $(BUILD)/check.log \
		--check-wait $(CHECK_WAIT_SECONDS) --iso $(ISO) --kernel $(KERNEL_ELF) --jobs 2 \
		tests/matrix.cfg; status=$$?; wait; exit $$status

# make check and check-reproducible into check.log, their status into
# check.status (through a temporary file: the matrix may be waiting for it).
# --output-sync: each recipe's output whole, when it ends, not interleaved
# with the others' under -j4, so that a tool test's "Ran N tests" and its
# "FAILED (failures=1)" stay together (tools/matrix counts them) and a
# failure's traceback reads as one.
check-recorded:
	@mkdir -p $(BUILD)
	@rm -f $(BUILD)/check.status
	$(MAKE) --no-print-directory --output-sync=target check check-reproducible \
		> $(BUILD)/check.log 2>&1; \
		echo $$? > $(BUILD)/check.status.new; mv $(BUILD)/check.status.new $(BUILD)/check.status

# tools/bench boots the matrix and the Linux peer (build/peer), then draws
# the charts and writes the report through tools/plot, as it does when run
# by hand; BENCH_ARGS="--repeat 3" etc.
bench: deps-quiet iso
	$(PYTHON) tools/bench --iso $(ISO) --kernel $(KERNEL_ELF) --out $(BUILD)/bench/results.json \
		$(BENCH_ARGS) tests/bench.cfg

# The Bochs sections of tests/bench.cfg (simulated figures): every section
# booted twice per seed, its BENCH lines compared (identical, or exit 1), and
# each figure's spread across seeds 1..5.
bench-bochs: deps-quiet iso
	$(PYTHON) tools/bench --iso $(ISO) --kernel $(KERNEL_ELF) --out $(BUILD)/bench/bochs.json \
		--only 'bochs-*' --no-peer --repeatable --seeds 5 $(BENCH_ARGS) tests/bench.cfg

# --- Board farms and soak (ci/lava, ci/labgrid, tools/soak) -----------------
# lava-dispatcher and labgrid are Debian packages of Debian's own Python,
# which need not be the python3 first on PATH.
SYSTEM_PYTHON ?= /usr/bin/python3

# The LAVA qemu job run by the real dispatcher (lava-run, no server): once as
# it is, once with the harness's self-test whose cases pass, fail, fault and
# skip on purpose; tools/lava compares LAVA's results with tools/ktap's.
# Then the board job's boot path: iPXE chaining the GRUB network image.
test-lava: deps-quiet
	@tools/deps --quiet --with lava
	$(MAKE) --no-print-directory iso
	$(SYSTEM_PYTHON) tools/lava validate --device ci/lava/device-qemu.yaml \
		ci/lava/qemu-job.yaml ci/lava/x86-board-job.yaml
	$(SYSTEM_PYTHON) tools/lava run --iso $(ISO) --out $(BUILD)/lava/qemu
	$(SYSTEM_PYTHON) tools/lava run --iso $(ISO) --out $(BUILD)/lava/selftest \
		--cmdline test=selftest_outcomes --expect fail
	$(MAKE) --no-print-directory netboot
	$(PYTHON) tools/matrix --iso $(ISO) --kernel $(KERNEL_ELF) --log-dir $(BUILD)/lava/netboot \
		ci/lava/netboot.cfg

# The labgrid example (ci/labgrid) with labgrid's QEMUDriver as the board:
# TrigosStrategy boots the ISO, tools/ktap checks the console it kept.
test-labgrid: deps-quiet
	@tools/deps --quiet --with labgrid
	$(MAKE) --no-print-directory iso
	$(SYSTEM_PYTHON) ci/labgrid/run-ktap --env ci/labgrid/env-board.yaml --validate
	$(SYSTEM_PYTHON) ci/labgrid/run-ktap --env ci/labgrid/env-qemu.yaml

# A standalone GRUB for UEFI with grub.cfg and the kernel in its memdisk:
# what iPXE chains on a board (ci/lava/x86-board-job.yaml).
NETBOOT := $(BUILD)/netboot/trigos-grub.efi
$(NETBOOT): $(KERNEL_ELF) iso/grub.cfg
	@mkdir -p $(dir $@)
	grub-mkstandalone -O x86_64-efi -o $@ --fonts= --locales= --themes= \
		boot/grub/grub.cfg=iso/grub.cfg boot/trigos.elf=$(KERNEL_ELF)

netboot: $(NETBOOT)

# N boots of configurations drawn from the matrix, each with a random seed=.
N         ?= 200
SOAK_ARGS ?=
soak: deps-quiet
	$(MAKE) --no-print-directory iso
	$(PYTHON) tools/soak --iso $(ISO) --kernel $(KERNEL_ELF) --boots $(N) --jobs 2 \
		--out $(BUILD)/soak $(SOAK_ARGS) tests/matrix.cfg

# --- Dependencies -------------------------------------------------------------
deps:
	tools/deps

deps-quiet:
	@mkdir -p $(BUILD)
	@tools/deps --quiet

deps-emulators:
	tools/deps --emulators

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
