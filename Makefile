# trigos: one non-recursive Makefile, everything built out of tree in build/.
#
#   make            the kernel ELF (build/trigos.elf)
#   make iso        the hybrid BIOS+UEFI ISO (build/trigos.iso)
#   make run        boot the ISO in QEMU and stream the serial console
#   make check      host unit tests (kernel/lib, tools)
#   make test       check + the QEMU boot matrix, every log checked
#   make bench      the benchmark matrix
#   make test-lava  the LAVA qemu job, run by the local lava-dispatcher
#   make test-labgrid  the labgrid example, its board a QEMU
#   make netboot    the GRUB EFI network image iPXE chains on a board
#   make soak N=200 N boots drawn from the matrix, random seeds
#   make deps       install the Debian packages the build and tests need
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
KERNEL_CFLAGS := -std=gnu11 -O2 -g $(WARNINGS) $(INCLUDES) \
              -ffreestanding \
              -fno-stack-protector -fno-pic -fno-pie -mcmodel=small -mno-red-zone \
              -mgeneral-regs-only -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
              -fno-optimize-sibling-calls \
              -fno-asynchronous-unwind-tables -fno-strict-aliasing -fno-common \
              -fno-delete-null-pointer-checks -MMD -MP
KERNEL_ASFLAGS := $(INCLUDES) -D__ASSEMBLY__ -g -MMD -MP
KERNEL_LDFLAGS := -nostdlib -static -z max-page-size=0x1000 -z noexecstack --no-warn-rwx-segments -T linker.ld

# kernel/lib also builds for the host, where its libc-named functions are
# renamed (kernel/lib/host_names.h) and the sanitizers watch it.
HOST_SANITIZERS ?= -fsanitize=address,undefined -fno-sanitize-recover=all
HOST_CFLAGS := -std=gnu11 -O1 -g $(WARNINGS) $(INCLUDES) -DTRIGOS_HOST_TEST \
              -fno-builtin -fno-omit-frame-pointer $(HOST_SANITIZERS) -MMD -MP
HOST_LIB_CFLAGS := $(HOST_CFLAGS) -include kernel/lib/host_names.h

# --- Sources ------------------------------------------------------------------
BOOT_SOURCES   := $(wildcard boot/*.S)
ARCH_SOURCES   := $(wildcard kernel/arch/x86/*.c kernel/arch/x86/*.S)
KERNEL_SOURCES := $(wildcard kernel/*.c)
LIB_SOURCES    := $(wildcard kernel/lib/*.c)
LIB_TESTS      := $(wildcard tests/lib/*.c)
KERNEL_TESTS   := $(wildcard tests/*.c)

kernel_object = $(BUILD)/kernel/$(basename $(1)).o
KERNEL_OBJECTS := $(foreach f,$(BOOT_SOURCES) $(ARCH_SOURCES) $(KERNEL_SOURCES) \
                    $(LIB_SOURCES) $(LIB_TESTS) $(KERNEL_TESTS),$(call kernel_object,$(f)))

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

.PHONY: all iso run test check check-unit check-tools bench clean deps
.PHONY: test-lava test-labgrid soak netboot
all: $(KERNEL_ELF)

# --- Kernel -------------------------------------------------------------------
# A change of flags rebuilds everything.
$(KERNEL_OBJECTS) $(HOST_LIB_OBJECTS) $(HOST_RUNNER_OBJECT): Makefile
$(BUILD)/kernel/%.o: %.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(KERNEL_CFLAGS) -c $< -o $@
	$(call say,CC,$<)

$(BUILD)/kernel/%.o: %.S
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(KERNEL_ASFLAGS) -c $< -o $@
	$(call say,AS,$<)

# The kernel embeds its own symbol table so that a fault prints symbol+offset.
# Pass 1 links with an empty table; its symbols generate the real table, and
# pass 2 links that in.  linker.ld puts the table last in the image, so the
# two passes lay everything else out identically; tools/symbols checks it.
$(BUILD)/empty-symbols.S: tools/symbols
	@mkdir -p $(dir $@)
	$(PYTHON) tools/symbols --empty > $@

$(BUILD)/%-symbols.o: $(BUILD)/%-symbols.S
	$(CC) $(KERNEL_ASFLAGS) -c $< -o $@

$(BUILD)/trigos-pass1.elf: $(KERNEL_OBJECTS) $(BUILD)/empty-symbols.o linker.ld
	$(LD) $(KERNEL_LDFLAGS) -o $@ $(KERNEL_OBJECTS) $(BUILD)/empty-symbols.o

$(BUILD)/kernel-symbols.S: $(BUILD)/trigos-pass1.elf tools/symbols
	$(NM) -n --defined-only $< | $(PYTHON) tools/symbols > $@

$(KERNEL_ELF): $(KERNEL_OBJECTS) $(BUILD)/kernel-symbols.o linker.ld tools/symbols
	$(LD) $(KERNEL_LDFLAGS) -o $@ $(KERNEL_OBJECTS) $(BUILD)/kernel-symbols.o
	$(NM) -n --defined-only $(BUILD)/trigos-pass1.elf > $(BUILD)/pass1.nm
	$(NM) -n --defined-only $@ | $(PYTHON) tools/symbols --same-layout $(BUILD)/pass1.nm

# --- ISO ----------------------------------------------------------------------
# One hybrid image: El Torito + MBR for BIOS (i386-pc), an EFI system
# partition image for UEFI (x86_64-efi); boots as a CD and raw-written to USB.
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
export SOURCE_DATE_EPOCH
$(ISO): $(KERNEL_ELF) iso/grub.cfg
	@rm -rf $(BUILD)/iso-root && mkdir -p $(BUILD)/iso-root/boot/grub
	cp $(KERNEL_ELF) $(BUILD)/iso-root/boot/trigos.elf
	cp iso/grub.cfg $(BUILD)/iso-root/boot/grub/grub.cfg
	grub-mkrescue --quiet \
		-o $@ $(BUILD)/iso-root 2>$(BUILD)/grub-mkrescue.log || \
		{ cat $(BUILD)/grub-mkrescue.log; exit 1; }

iso: $(ISO)

# --- Running ------------------------------------------------------------------
CPUS     ?= 2
RUN_ARGS ?=
CMDLINE  ?=
run: $(ISO)
	$(PYTHON) tools/run --cpus $(CPUS) --iso $(ISO) --kernel $(KERNEL_ELF) \
		$(if $(CMDLINE),--cmdline "$(CMDLINE)") $(RUN_ARGS)

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

check-unit: $(UNIT_TESTS)
	$(UNIT_TESTS) > $(BUILD)/host/unit-tests.log 2>&1; status=$$?; \
		cat $(BUILD)/host/unit-tests.log; \
		$(PYTHON) tools/ktap --quiet $(BUILD)/host/unit-tests.log && exit $$status

check-tools:
	$(PYTHON) -m unittest discover -s tools/tests -t . -q

check: check-unit check-tools

# --- Boot matrix --------------------------------------------------------------
test: deps-quiet
	$(MAKE) --no-print-directory check > $(BUILD)/check.log 2>&1; echo $$? > $(BUILD)/check.status; \
		tail -n 30 $(BUILD)/check.log
	$(MAKE) --no-print-directory iso
	$(PYTHON) tools/matrix --check-status $(BUILD)/check.status --check-log $(BUILD)/check.log \
		--iso $(ISO) --kernel $(KERNEL_ELF) --jobs 2 tests/matrix.cfg

bench: deps-quiet iso
	$(PYTHON) tools/bench --iso $(ISO) --kernel $(KERNEL_ELF) tests/bench.cfg

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

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
