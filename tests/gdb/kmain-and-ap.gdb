# gdb commands of the matrix sections gdb-* (tests/matrix.cfg, key gdb =).
# tools/matrix has gdb load build/trigos.elf and "target remote" the stub of
# tools/run --gdb, where QEMU waits before the firmware's first instruction.
#
# Stop where the kernel's C code starts (64-bit, reached through the 32-bit
# entry of kernel/arch/x86/entry.S), then where an AP comes online - on the AP's own
# thread - and let the run go on to its verdict.
break kmain
continue
backtrace
info threads
break ap_online
continue
info threads
backtrace
delete
detach
