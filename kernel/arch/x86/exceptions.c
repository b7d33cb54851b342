// SPDX-License-Identifier: MIT
/*
 * What happens on a CPU exception, in order:
 *  1. an instruction listed in the exception table resumes at its fixup
 *     (asm/extable.h: rdmsr_safe() and friends);
 *  2. otherwise, if the CPU is inside a recovery context (every test case
 *     is), the fault is recorded, optionally dumped, and the context resumes:
 *     the case ends as "not ok ... # ERROR" and the run goes on;
 *  3. otherwise the dump goes out and the kernel panics.
 */
#include <log/console.h>
#include <cpu/cpu.h>
#include <log/panic.h>
#include <smp/recovery.h>
#include <log/symbols.h>
#include <lib/format.h>
#include <asm/extable.h>
#include <asm/instructions.h>

#include "exceptions.h"

static const char *const exception_names[EXCEPTION_COUNT] = {
	[0] = "#DE divide error",
	[1] = "#DB debug",
	[2] = "NMI",
	[3] = "#BP breakpoint",
	[4] = "#OF overflow",
	[5] = "#BR bound range exceeded",
	[6] = "#UD invalid opcode",
	[7] = "#NM device not available",
	[8] = "#DF double fault",
	[9] = "coprocessor segment overrun",
	[10] = "#TS invalid TSS",
	[11] = "#NP segment not present",
	[12] = "#SS stack-segment fault",
	[13] = "#GP general protection",
	[14] = "#PF page fault",
	[15] = "reserved vector 15",
	[16] = "#MF x87 floating-point error",
	[17] = "#AC alignment check",
	[18] = "#MC machine check",
	[19] = "#XM SIMD floating-point",
	[20] = "#VE virtualization exception",
	[21] = "#CP control protection",
	[22] = "reserved vector 22",
	[23] = "reserved vector 23",
	[24] = "reserved vector 24",
	[25] = "reserved vector 25",
	[26] = "reserved vector 26",
	[27] = "reserved vector 27",
	[28] = "#HV hypervisor injection",
	[29] = "#VC VMM communication",
	[30] = "#SX security exception",
	[31] = "reserved vector 31",
};

const char *exception_name(unsigned int vector)
{
	return vector < EXCEPTION_COUNT ? exception_names[vector] : "interrupt";
}

extern const struct exception_table_entry __start_exception_table[];
extern const struct exception_table_entry __stop_exception_table[];

uint64_t exception_fixup_find(uint64_t rip)
{
	for (const struct exception_table_entry *entry = __start_exception_table;
	     entry < __stop_exception_table; entry++) {
		if (entry->instruction == rip)
			return entry->fixup;
	}
	return 0;
}

uint64_t current_frame_pointer(void)
{
	return read_rbp();
}

/*
 * Walk saved-RBP links: each frame holds the caller's RBP at [rbp] and the
 * return address at [rbp + 8] (the System V frame layout kept by
 * -fno-omit-frame-pointer).  The chain ends at 0 (boot.S and the AP entry
 * clear RBP); a link that is misaligned or does not move up the stack means
 * a corrupted frame, and the walk stops rather than fault on it.
 */
#define STACK_TRACE_MAX_DEPTH	24

void stack_trace_print(const char *prefix, uint64_t frame_pointer)
{
	char name[96];

	kprintf("%sstack trace:\n", prefix);
	for (int depth = 0; depth < STACK_TRACE_MAX_DEPTH && frame_pointer; depth++) {
		const uint64_t *frame = (const uint64_t *)frame_pointer;
		uint64_t return_address, next;

		if (frame_pointer & 7)
			break;
		/* A frame pointer into an unmapped page must not fault here. */
		if (read_byte_safe(frame, &(uint8_t){ 0 }) != FAULT_NONE ||
		    read_byte_safe((const uint8_t *)frame + 15, &(uint8_t){ 0 }) != FAULT_NONE)
			break;
		return_address = frame[1];
		next = frame[0];
		if (return_address == 0)
			break;
		/*
		 * Name the call, not what follows it: after a call to a
		 * noreturn function the return address is already the next
		 * function's first byte.
		 */
		kprintf("%s  %s\n", prefix, symbol_format_return_address(return_address, name,
									 sizeof(name)));
		if (next <= frame_pointer)
			break;
		frame_pointer = next;
	}
}

static void describe_page_fault(uint64_t error_code, char *buffer, size_t size)
{
	snprintf(buffer, size, " (%s, %s%s)",
		 error_code & PAGE_FAULT_PRESENT ? "protection violation" : "page not present",
		 error_code & PAGE_FAULT_INSTRUCTION_FETCH ? "instruction fetch" :
		 error_code & PAGE_FAULT_WRITE ? "write" : "read",
		 error_code & (1u << 3) ? ", reserved bit set" : "");
}

/**
 * exception_dump - print everything known about an exception, each line
 * starting with @prefix ("# " at top level, "    # " inside a KTAP suite)
 */
static void exception_dump(const struct interrupt_frame *frame, uint64_t cr2, const char *prefix)
{
	char name[96], detail[80] = "";

	if (frame->vector == EXCEPTION_PAGE_FAULT)
		describe_page_fault(frame->error_code, detail, sizeof(detail));
	kprintf("%sEXCEPTION %s on cpu %u, error code 0x%llx%s\n", prefix,
		exception_name((unsigned int)frame->vector), cpu_id(),
		(unsigned long long)frame->error_code, detail);
	kprintf("%sRIP 0x%016llx %s\n", prefix, (unsigned long long)frame->rip,
		symbol_format(frame->rip, name, sizeof(name)));
	kprintf("%sRSP 0x%016llx RFLAGS 0x%016llx CR2 0x%016llx\n", prefix,
		(unsigned long long)frame->rsp, (unsigned long long)frame->rflags,
		(unsigned long long)cr2);
	kprintf("%sRAX 0x%016llx RBX 0x%016llx RCX 0x%016llx RDX 0x%016llx\n", prefix,
		(unsigned long long)frame->rax, (unsigned long long)frame->rbx,
		(unsigned long long)frame->rcx, (unsigned long long)frame->rdx);
	kprintf("%sRSI 0x%016llx RDI 0x%016llx RBP 0x%016llx R8  0x%016llx\n", prefix,
		(unsigned long long)frame->rsi, (unsigned long long)frame->rdi,
		(unsigned long long)frame->rbp, (unsigned long long)frame->r8);
	kprintf("%sR9  0x%016llx R10 0x%016llx R11 0x%016llx R12 0x%016llx\n", prefix,
		(unsigned long long)frame->r9, (unsigned long long)frame->r10,
		(unsigned long long)frame->r11, (unsigned long long)frame->r12);
	kprintf("%sR13 0x%016llx R14 0x%016llx R15 0x%016llx CS %llx SS %llx\n", prefix,
		(unsigned long long)frame->r13, (unsigned long long)frame->r14,
		(unsigned long long)frame->r15, (unsigned long long)frame->cs,
		(unsigned long long)frame->ss);
	stack_trace_print(prefix, frame->rbp);
}

static void resume_in_context(struct interrupt_frame *frame, struct recovery_context *context,
			      uint64_t cr2)
{
	context->fault = (struct fault_record){
		.vector = frame->vector,
		.error_code = frame->error_code,
		.rip = frame->rip,
		.rsp = frame->rsp,
		.cr2 = cr2,
	};
	if (context->report_faults)
		exception_dump(frame, cr2, context->report_prefix ? context->report_prefix : "# ");
	recovery_redirect_frame(frame, context, (long)frame->vector);
}

void recovery_redirect_frame(struct interrupt_frame *frame, struct recovery_context *context,
			     long code)
{
	/*
	 * IRETQ into recovery_resume(context, code) on the context's own
	 * stack with interrupts off; recovery_resume restores the flags the
	 * context saved.  Returning through IRETQ (not jumping out of the
	 * handler) also ends NMI blocking, should this be an NMI handler.
	 */
	frame->rip = (uint64_t)recovery_resume;
	frame->rdi = (uint64_t)context;
	frame->rsi = (uint64_t)code;
	frame->rsp = context->rsp;
	frame->rflags &= ~RFLAGS_IF;
}

/* The exception's handler; true when it resumed at a fix-up (asm/extable.h). */
bool exception_handle(struct interrupt_frame *frame)
{
	struct cpu *cpu = this_cpu();
	uint64_t cr2 = frame->vector == EXCEPTION_PAGE_FAULT ? read_cr2() : 0;
	uint64_t fixup = exception_fixup_find(frame->rip);
	struct recovery_context *context;

	if (fixup) {
		frame->r11 = frame->vector + 1;
		frame->rip = fixup;
		return true;
	}

	cpu->exception_depth++;
	context = cpu->recovery;
	if (context && cpu->exception_depth == 1) {
		resume_in_context(frame, context, cr2);
		cpu->exception_depth--;
		return false;
	}

	panic_begin();
	if (cpu->exception_depth > 1)
		kprintf("# a second exception while handling one (depth %u):\n",
			cpu->exception_depth);
	exception_dump(frame, cr2, "# ");
	kprintf("# PANIC on cpu %u: unhandled %s\n", cpu_id(),
		exception_name((unsigned int)frame->vector));
	panic_end();
	return false;
}

#define NMI_HANDLERS_MAX 8

static nmi_handler_t nmi_handlers[NMI_HANDLERS_MAX];

bool nmi_register(nmi_handler_t handler)
{
	for (int slot = 0; slot < NMI_HANDLERS_MAX; slot++) {
		if (__atomic_compare_exchange_n(&nmi_handlers[slot], &(nmi_handler_t){ NULL },
						handler, false, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			return true;
	}
	return false;
}

void nmi_unregister(nmi_handler_t handler)
{
	for (int slot = 0; slot < NMI_HANDLERS_MAX; slot++) {
		/* A fresh expected value per slot: a failed exchange overwrites it. */
		nmi_handler_t expected = handler;

		__atomic_compare_exchange_n(&nmi_handlers[slot], &expected, NULL, false,
					    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
	}
}

static unsigned int nmi_depth[MAX_CPUS];

bool in_nmi(void)
{
	return nmi_depth[cpu_id()] > 0;
}

void nmi_dispatch(struct interrupt_frame *frame)
{
	bool handled = false;

	nmi_depth[cpu_id()]++;
	this_cpu()->nmis++;	/* tells a trigger wait what ended it */
	/* Every handler runs: NMIs from several sources may have merged into one. */
	for (int slot = 0; slot < NMI_HANDLERS_MAX; slot++) {
		nmi_handler_t handler = __atomic_load_n(&nmi_handlers[slot], __ATOMIC_ACQUIRE);

		if (handler && handler(frame))
			handled = true;
	}
	if (!handled)
		kprintf("# cpu %u: unexpected NMI at RIP 0x%llx\n", cpu_id(),
			(unsigned long long)frame->rip);
	nmi_depth[cpu_id()]--;
}

void unexpected_interrupt(struct interrupt_frame *frame)
{
	static uint8_t reported[INTERRUPT_VECTOR_COUNT];

	if (!__atomic_exchange_n(&reported[frame->vector], 1, __ATOMIC_RELAXED))
		kprintf("# cpu %u: unexpected interrupt, vector %llu (no handler; not reported again)\n",
			cpu_id(), (unsigned long long)frame->vector);
}
