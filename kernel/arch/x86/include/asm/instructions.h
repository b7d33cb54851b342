/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_ASM_INSTRUCTIONS_H
#define TRIGOS_ASM_INSTRUCTIONS_H
/*
 * Every special x86 instruction trigos uses, each as one static inline
 * wrapper.  Nothing outside kernel/arch/x86 contains inline assembly; generic
 * code reaches these through the arch hooks of the generic headers.
 */

#include <stdbool.h>
#include <stdint.h>

/* --- Port I/O (SDM vol 1, 19) -------------------------------------------- */

static inline void outb(uint16_t port, uint8_t value)
{
	asm volatile("outb %0, %1" : : "a"(value), "Nd"(port) : "memory");
}

static inline void outw(uint16_t port, uint16_t value)
{
	asm volatile("outw %0, %1" : : "a"(value), "Nd"(port) : "memory");
}

static inline void outl(uint16_t port, uint32_t value)
{
	asm volatile("outl %0, %1" : : "a"(value), "Nd"(port) : "memory");
}

static inline uint8_t inb(uint16_t port)
{
	uint8_t value;

	asm volatile("inb %1, %0" : "=a"(value) : "Nd"(port) : "memory");
	return value;
}

static inline uint16_t inw(uint16_t port)
{
	uint16_t value;

	asm volatile("inw %1, %0" : "=a"(value) : "Nd"(port) : "memory");
	return value;
}

static inline uint32_t inl(uint16_t port)
{
	uint32_t value;

	asm volatile("inl %1, %0" : "=a"(value) : "Nd"(port) : "memory");
	return value;
}

/* Write a whole buffer to one port (debugcon takes a line in one go). */
static inline void outsb(uint16_t port, const void *buffer, unsigned long count)
{
	asm volatile("rep outsb" : "+S"(buffer), "+c"(count) : "d"(port) : "memory");
}

/* --- CPUID and MSRs ------------------------------------------------------- */

struct cpuid_result {
	uint32_t eax, ebx, ecx, edx;
};

static inline struct cpuid_result cpuid_count(uint32_t leaf, uint32_t subleaf)
{
	struct cpuid_result result;

	asm volatile("cpuid"
		     : "=a"(result.eax), "=b"(result.ebx), "=c"(result.ecx), "=d"(result.edx)
		     : "a"(leaf), "c"(subleaf));
	return result;
}

static inline struct cpuid_result cpuid(uint32_t leaf)
{
	return cpuid_count(leaf, 0);
}

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t low, high;

	asm volatile("rdmsr" : "=a"(low), "=d"(high) : "c"(msr));
	return ((uint64_t)high << 32) | low;
}

static inline void wrmsr(uint32_t msr, uint64_t value)
{
	asm volatile("wrmsr" : : "c"(msr), "a"((uint32_t)value), "d"((uint32_t)(value >> 32))
		     : "memory");
}

/* --- Time stamp counter --------------------------------------------------- */

static inline uint64_t rdtsc(void)
{
	uint32_t low, high;

	asm volatile("rdtsc" : "=a"(low), "=d"(high));
	return ((uint64_t)high << 32) | low;
}

/*
 * RDTSCP waits for earlier instructions to finish before reading (SDM vol 2,
 * RDTSCP), which makes it the right end mark of a timed region.
 */
static inline uint64_t rdtscp(uint32_t *processor_id)
{
	uint32_t low, high, aux;

	asm volatile("rdtscp" : "=a"(low), "=d"(high), "=c"(aux));
	if (processor_id)
		*processor_id = aux;
	return ((uint64_t)high << 32) | low;
}

/* --- Control registers and descriptor tables ----------------------------- */

#define DEFINE_CONTROL_REGISTER_ACCESS(name)                                     \
	static inline uint64_t read_##name(void)                                \
	{                                                                       \
		uint64_t value;                                                 \
		asm volatile("mov %%" #name ", %0" : "=r"(value));              \
		return value;                                                   \
	}                                                                       \
	static inline void write_##name(uint64_t value)                         \
	{                                                                       \
		asm volatile("mov %0, %%" #name : : "r"(value) : "memory");     \
	}

DEFINE_CONTROL_REGISTER_ACCESS(cr0)
DEFINE_CONTROL_REGISTER_ACCESS(cr2)
DEFINE_CONTROL_REGISTER_ACCESS(cr3)
DEFINE_CONTROL_REGISTER_ACCESS(cr4)
#undef DEFINE_CONTROL_REGISTER_ACCESS

struct descriptor_table_pointer {
	uint16_t limit;
	uint64_t base;
} __attribute__((packed));

static inline void lgdt(const struct descriptor_table_pointer *pointer)
{
	asm volatile("lgdt %0" : : "m"(*pointer) : "memory");
}

static inline void lidt(const struct descriptor_table_pointer *pointer)
{
	asm volatile("lidt %0" : : "m"(*pointer) : "memory");
}

static inline void ltr(uint16_t selector)
{
	asm volatile("ltr %0" : : "r"(selector) : "memory");
}

/*
 * Reload CS with a far return and the data segments with plain moves, after a
 * new GDT is loaded (a GDT change takes effect only on a segment load).
 */
static inline void reload_segments(uint16_t code_selector, uint16_t data_selector)
{
	asm volatile("pushq %q0\n\t"
		     "leaq 1f(%%rip), %%rax\n\t"
		     "pushq %%rax\n\t"
		     "lretq\n"
		     "1:\n\t"
		     "movw %w1, %%ds\n\t"
		     "movw %w1, %%es\n\t"
		     "movw %w1, %%ss"
		     : : "r"((uint64_t)code_selector), "r"(data_selector) : "rax", "memory");
}

/* Write back every modified cache line, then invalidate the caches (SDM vol 2, WBINVD). */
static inline void wbinvd(void)
{
	asm volatile("wbinvd" : : : "memory");
}

static inline void invlpg(const volatile void *address)
{
	asm volatile("invlpg (%0)" : : "r"(address) : "memory");
}

/* --- Interrupt flag and flags register ------------------------------------ */

#define RFLAGS_IF	(1ul << 9)

static inline uint64_t read_rflags(void)
{
	uint64_t flags;

	asm volatile("pushfq\n\tpopq %0" : "=r"(flags) : : "memory");
	return flags;
}

static inline void cli(void)
{
	asm volatile("cli" : : : "memory");
}

static inline void sti(void)
{
	asm volatile("sti" : : : "memory");
}

static inline void hlt(void)
{
	asm volatile("hlt" : : : "memory");
}

/*
 * STI delays interrupt recognition by one instruction (SDM vol 2, STI), so
 * "sti; hlt" enables interrupts and halts with no window between them in which
 * an interrupt could arrive and be handled before the halt, leaving it to sleep.
 */
static inline void sti_hlt(void)
{
	asm volatile("sti\n\thlt" : : : "memory");
}

/*
 * Whether arch_cpu_relax() executes PAUSE: yes unless pause=off (hypervisor.c),
 * which exists to measure PAUSE under an emulator: in QEMU TCG it is no hint
 * but a trip out of the vCPU's translated code (QEMU
 * target/i386/tcg/misc_helper.c, do_pause(): EXCP_INTERRUPT), after which
 * the vCPU's thread takes QEMU's global lock - the lock a halted vCPU needs
 * to wake up (docs/emulators.md has the figures).
 */
extern bool cpu_relax_pauses;

/*
 * A poll loop's PAUSE, paced (sync/poll_wait.h): at most one PAUSE every
 * this many TSC cycles during the first cpu_relax_paced_for_cycles of a
 * wait, then one every poll; 0 is a PAUSE every poll.  Set under QEMU TCG
 * (hypervisor.c, pause=paced), where PAUSE is a trip through QEMU's global
 * lock and no hint; 0 elsewhere, where PAUSE is what a spinning CPU owes
 * its hyperthread sibling and a hypervisor's pause-loop exiting.
 */
extern uint64_t cpu_relax_pace_cycles;
extern uint64_t cpu_relax_paced_for_cycles;

/* PAUSE hints a spin-wait loop to the CPU (SDM vol 2, PAUSE); a compiler barrier in any case. */
static inline void arch_cpu_relax(void)
{
	if (__builtin_expect(cpu_relax_pauses, 1))
		asm volatile("pause" : : : "memory");
	else
		asm volatile("" : : : "memory");
}

/*
 * Open a window for pending interrupts in a loop that otherwise runs with
 * them disabled.  STI's shadow covers one instruction (a NOP here), so the
 * PAUSE after it is where an interrupt gets in; "sti; pause; cli" would
 * leave none under QEMU TCG, whose PAUSE ends the translation block while
 * the shadow is still in force, so no interrupt is ever taken there.
 */
static inline void sti_relax_cli(void)
{
	asm volatile("sti\n\tnop\n\tpause\n\tcli" : : : "memory");
}

/*
 * The same window without the PAUSE, for a loop that paces its PAUSE
 * itself (the trigger's spin phases).  An interrupt pending is taken after
 * the NOP, the STI's shadow (SDM vol 2, STI), before the CLI; under QEMU TCG
 * the shadow's instruction ends its translation block (an instruction
 * translated with interrupts inhibited ends the block, target/i386/tcg/
 * translate.c), and TCG takes the interrupt there without leaving for its
 * main loop, so without its global lock.
 */
static inline void sti_window_cli(void)
{
	asm volatile("sti\n\tnop\n\tcli" : : : "memory");
}

/* --- Barriers (SDM vol 3, 9.2: x86 keeps loads and stores mostly in order) - */

static inline void compiler_barrier(void)
{
	asm volatile("" : : : "memory");
}

/* A locked operation orders everything and is cheaper than MFENCE on most CPUs. */
static inline void full_barrier(void)
{
	asm volatile("lock orq $0, -8(%%rsp)" : : : "memory", "cc");
}

static inline void mfence(void)
{
	asm volatile("mfence" : : : "memory");
}

/* --- A counter one CPU writes --------------------------------------------- */

/*
 * One ADD with a memory operand and no LOCK prefix.  An interrupt or an NMI
 * comes between instructions, never inside one, so a handler's add on the
 * same CPU is not lost; other CPUs only read the counter, and an aligned
 * quadword read is atomic (SDM vol 3, 9.1.1).  A relaxed
 * __atomic_fetch_add() would emit LOCK ADD, a locked read-modify-write
 * that orders nothing here and costs more.
 */
static inline void arch_local_add(uint64_t *counter, uint64_t amount)
{
	asm volatile("addq %1, %0" : "+m"(*counter) : "er"(amount) : "cc");
}

/* --- Segment bases ------------------------------------------------------- */

#define MSR_FS_BASE		0xc0000100
#define MSR_GS_BASE		0xc0000101
#define MSR_KERNEL_GS_BASE	0xc0000102

/* Read the 64-bit word at %gs:offset (the per-CPU area, see asm/percpu.h). */
static inline uint64_t read_gs_quad(unsigned long offset)
{
	uint64_t value;

	asm volatile("movq %%gs:(%1), %0" : "=r"(value) : "r"(offset));
	return value;
}

/* --- Stack and frame ------------------------------------------------------ */

static inline uint64_t read_rsp(void)
{
	uint64_t value;

	asm volatile("movq %%rsp, %0" : "=r"(value));
	return value;
}

static inline uint64_t read_rbp(void)
{
	uint64_t value;

	asm volatile("movq %%rbp, %0" : "=r"(value));
	return value;
}

/* --- Deliberate faults, for the exception tests -------------------------- */

static inline void ud2(void)
{
	asm volatile("ud2" : : : "memory");
}

static inline void int3(void)
{
	asm volatile("int3" : : : "memory");
}



/* --- Arithmetic ---------------------------------------------------------- */

/**
 * arch_mul_div_u64 - @a * @b / @c with a 128-bit intermediate product
 *
 * MUL leaves the full product in RDX:RAX and DIV divides it, so no libgcc
 * helper is needed (libgcc is built with the red zone, which interrupts
 * would clobber here).  DIV faults (#DE) when the quotient does not fit in
 * 64 bits; that case, and @c == 0, saturate to UINT64_MAX instead.
 */
static inline uint64_t arch_mul_div_u64(uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t low, high, quotient;

	asm("mulq %3" : "=a"(low), "=d"(high) : "a"(a), "rm"(b) : "cc");
	if (c == 0 || high >= c)
		return UINT64_MAX;
	asm("divq %4" : "=a"(quotient), "=d"(high) : "a"(low), "d"(high), "rm"(c) : "cc");
	return quotient;
}

/* --- Waiting (SDM vol 2: MONITOR, MWAIT, UMONITOR, UMWAIT, TPAUSE; AMD APM
 * vol 3: MONITORX, MWAITX) ---------------------------------------------- */

/* Arm address monitoring of the cache line holding @address. */
static inline void monitor(const volatile void *address, uint32_t extensions, uint32_t hints)
{
	asm volatile("monitor" : : "a"(address), "c"(extensions), "d"(hints) : "memory");
}

/*
 * STI then MWAIT: the STI shadow covers the MWAIT, so an interrupt that
 * arrives in between still ends the wait instead of being taken before it.
 */
static inline void sti_mwait(uint32_t hints, uint32_t extensions)
{
	asm volatile("sti\n\tmwait" : : "a"(hints), "c"(extensions) : "memory");
}

static inline void mwait(uint32_t hints, uint32_t extensions)
{
	asm volatile("mwait" : : "a"(hints), "c"(extensions) : "memory");
}

static inline void monitorx(const volatile void *address, uint32_t extensions, uint32_t hints)
{
	asm volatile(".byte 0x0f, 0x01, 0xfa" /* monitorx */
		     : : "a"(address), "c"(extensions), "d"(hints) : "memory");
}

/*
 * MWAITX with ECX[1] set waits at most @timeout_cycles (EBX) TSC cycles.  (The
 * interrupts-on "sti; mwaitx" of a trigger wait is a marked window in
 * trigger_halt.S.)
 */
static inline void mwaitx(uint32_t hints, uint32_t extensions, uint32_t timeout_cycles)
{
	asm volatile(".byte 0x0f, 0x01, 0xfb" /* mwaitx */
		     : : "a"(hints), "c"(extensions), "b"(timeout_cycles) : "memory");
}

static inline void umonitor(const volatile void *address)
{
	asm volatile(".byte 0xf3, 0x0f, 0xae, 0xf0" /* umonitor %rax */
		     : : "a"(address) : "memory");
}

/* UMWAIT until a store to the monitored line or TSC @deadline; returns CF. */
static inline bool umwait(uint32_t control, uint64_t deadline)
{
	bool deadline_expired;

	asm volatile(".byte 0xf2, 0x0f, 0xae, 0xf1\n\t" /* umwait %ecx */
		     "setc %0"
		     : "=q"(deadline_expired)
		     : "c"(control), "a"((uint32_t)deadline), "d"((uint32_t)(deadline >> 32))
		     : "memory", "cc");
	return deadline_expired;
}

/* KVM's hypercall: VMCALL (Intel) or VMMCALL (AMD), number in RAX. */
static inline long kvm_hypercall2(unsigned long number, unsigned long first,
				  unsigned long second, bool amd)
{
	long result;

	if (amd)
		asm volatile(".byte 0x0f, 0x01, 0xd9" /* vmmcall */
			     : "=a"(result) : "a"(number), "b"(first), "c"(second) : "memory");
	else
		asm volatile("vmcall"
			     : "=a"(result) : "a"(number), "b"(first), "c"(second) : "memory");
	return result;
}

#endif /* TRIGOS_ASM_INSTRUCTIONS_H */
