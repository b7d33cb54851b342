// SPDX-License-Identifier: MIT
/*
 * The exception path: every exception the kernel can cause on purpose is
 * caught with the right vector and error code, both through the exception
 * table (rdmsr_safe-style fixups) and through a recovery context (what turns
 * a fault in a test case into "not ok ... # ERROR").
 *
 * Fixups are not tested with RDMSR of a missing MSR: QEMU TCG returns 0 for
 * unknown MSRs instead of raising #GP (docs/emulators.md).
 */
#include <cpu/cpu.h>
#include <boot/options.h>
#include <harness/test.h>
#include <time/time.h>
#include <smp/recovery.h>
#include <mm/memory.h>
#include <asm/apic.h>
#include <asm/extable.h>
#include <asm/instructions.h>
#include <asm/interrupts.h>

#define NON_CANONICAL_ADDRESS	0x8000000000000000ull

static void divide_error_is_caught_by_fixup(void)
{
	uint64_t quotient = 0;

	EXPECT_EQ(divide_safe(100, 7, &quotient), FAULT_NONE);
	EXPECT_EQ(quotient, 14u);
	EXPECT_EQ(divide_safe(100, 0, &quotient), EXCEPTION_DIVIDE_ERROR);
}

static void invalid_opcode_is_caught_by_fixup(void)
{
	EXPECT_EQ(ud2_safe(), EXCEPTION_INVALID_OPCODE);
}

static void non_canonical_access_is_general_protection(void)
{
	uint8_t value;

	EXPECT_EQ(read_byte_safe((const void *)NON_CANONICAL_ADDRESS, &value),
		  EXCEPTION_GENERAL_PROTECTION);
	EXPECT_EQ(write_byte_safe((void *)NON_CANONICAL_ADDRESS, 1),
		  EXCEPTION_GENERAL_PROTECTION);
}

static void null_read_is_page_fault(void)
{
	uint8_t value;

	EXPECT_EQ(read_byte_safe((const void *)0, &value), EXCEPTION_PAGE_FAULT);
	EXPECT_EQ(read_byte_safe((const void *)0xff8, &value), EXCEPTION_PAGE_FAULT);
}

static void existing_msr_reads_without_fault(void)
{
	uint64_t value = 0;

	/* IA32_GS_BASE holds our per-CPU pointer: readable, and not zero. */
	EXPECT_EQ(rdmsr_safe(MSR_GS_BASE, &value), FAULT_NONE);
	EXPECT_NE(value, 0u);
}

/*
 * wrmsr_safe's no-fault path.  Its fault path is not tested through an MSR:
 * TCG neither faults on unknown MSRs nor on a non-canonical FS base (seen
 * here), so no MSR write faults reliably under QEMU.
 */
static void msr_write_reads_back(void)
{
	uint64_t value = 0;

	EXPECT_EQ(wrmsr_safe(MSR_FS_BASE, 0x12345000), FAULT_NONE);
	EXPECT_EQ(rdmsr_safe(MSR_FS_BASE, &value), FAULT_NONE);
	EXPECT_EQ(value, 0x12345000u);
	EXPECT_EQ(wrmsr_safe(MSR_FS_BASE, 0), FAULT_NONE);
}

/* --- Through a recovery context, as a faulting test case would be -------- */

static volatile uint8_t *volatile fault_target;

static void read_fault_target(void *unused)
{
	(void)*fault_target;
}

static void write_fault_target(void *unused)
{
	*fault_target = 1;
}

static void execute_ud2(void *unused)
{
	ud2();
}

static void execute_int3(void *unused)
{
	int3();
}

static long call_quietly(void (*function)(void *), struct recovery_context *context)
{
	*context = (struct recovery_context){ .report_faults = false };
	return recovery_call(context, function, NULL);
}

static void page_fault_reports_address_and_error_code(void)
{
	struct recovery_context context;

	fault_target = (volatile uint8_t *)0x123;
	EXPECT_EQ(call_quietly(read_fault_target, &context), EXCEPTION_PAGE_FAULT);
	EXPECT_EQ(context.fault.cr2, 0x123u);
	/* Not present, a read, from ring 0 (SDM vol 3, 5.7). */
	EXPECT_EQ(context.fault.error_code & (PAGE_FAULT_PRESENT | PAGE_FAULT_WRITE), 0u);

	EXPECT_EQ(call_quietly(write_fault_target, &context), EXCEPTION_PAGE_FAULT);
	EXPECT_EQ(context.fault.error_code & PAGE_FAULT_WRITE, PAGE_FAULT_WRITE);
}

static void general_protection_has_zero_error_code(void)
{
	struct recovery_context context;

	fault_target = (volatile uint8_t *)NON_CANONICAL_ADDRESS;
	EXPECT_EQ(call_quietly(read_fault_target, &context), EXCEPTION_GENERAL_PROTECTION);
	/* A non-canonical reference is not about a segment: error code 0. */
	EXPECT_EQ(context.fault.error_code, 0u);
}

static void invalid_opcode_reports_faulting_rip(void)
{
	struct recovery_context context;

	EXPECT_EQ(call_quietly(execute_ud2, &context), EXCEPTION_INVALID_OPCODE);
	/* #UD is a fault: RIP points at the UD2 itself, inside execute_ud2. */
	EXPECT_GE(context.fault.rip, (uint64_t)execute_ud2);
	EXPECT_LT(context.fault.rip, (uint64_t)execute_ud2 + 64);
	EXPECT_EQ(*(const uint16_t *)context.fault.rip, 0x0b0fu);
}

static void breakpoint_is_a_trap(void)
{
	struct recovery_context context;

	EXPECT_EQ(call_quietly(execute_int3, &context), EXCEPTION_BREAKPOINT);
	/* #BP is a trap: RIP is past the one-byte INT3. */
	EXPECT_EQ(*(const uint8_t *)(context.fault.rip - 1), 0xccu);
}

static void recovery_restores_interrupt_flag(void)
{
	struct recovery_context context;
	uint64_t before = read_rflags() & RFLAGS_IF;

	EXPECT_EQ(call_quietly(execute_ud2, &context), EXCEPTION_INVALID_OPCODE);
	EXPECT_EQ(read_rflags() & RFLAGS_IF, before);
}

static void thrower(void *unused)
{
	recovery_throw(this_cpu_recovery(), RECOVERY_THROW_BASE + 42);
}

static void returner(void *argument)
{
	*(int *)argument = 7;
}

static void nested_contexts_resume_the_innermost(void)
{
	struct recovery_context outer = { .report_faults = false };
	struct recovery_context *before = this_cpu_recovery();
	int value = 0;

	EXPECT_EQ(recovery_call(&outer, thrower, NULL), RECOVERY_THROW_BASE + 42);
	EXPECT_EQ(recovery_call(&outer, returner, &value), RECOVERY_RETURNED);
	EXPECT_EQ(value, 7);
	/* The runner's own context is innermost again afterwards. */
	EXPECT_TRUE(this_cpu_recovery() == before);
}

/* --- A fault fixed up inside an NMI handler ------------------------------------------- */

/*
 * The fix-up's return must leave NMIs blocked: its IRET would unblock them
 * (SDM vol 3, 6.7.1), and a second NMI would enter at the top of the NMI's
 * IST stack, over the live frame of the handler still running there.  The
 * handler of the first NMI takes a #GP through read_byte_safe(), then sends
 * its CPU a second NMI and waits 20 ms: blocked, the second NMI is taken
 * after the first handler's IRET; unblocked, it nests inside.  So that a
 * nested one does no harm here, the second NMI is given a stack of its own
 * (the TSS's NMI IST entry, SDM vol 3, 7.14.5) while the first handler
 * waits.  test_break=nmi_fixup_iret returns from the fix-up with IRET, as
 * before the fix: the case must then fail.
 */
#define SECOND_NMI_WAIT_US	20000

static uint8_t second_nmi_stack[8192] __attribute__((aligned(16)));

static struct {
	volatile bool armed;		/* the next NMI on the CPU takes the fault */
	volatile bool second_armed;	/* the next one is the second NMI */
	volatile unsigned int depth, deepest, seconds_taken;
	int fault;
} nmi_fault;

static bool fault_inside_an_nmi_handler(struct interrupt_frame *frame)
{
	struct task_state_segment *tss = &this_cpu()->arch.tss;
	uint64_t ist;
	uint8_t value;

	if (!nmi_fault.armed && !nmi_fault.second_armed)
		return false;
	if (++nmi_fault.depth > nmi_fault.deepest)
		nmi_fault.deepest = nmi_fault.depth;
	if (__atomic_exchange_n(&nmi_fault.armed, false, __ATOMIC_ACQ_REL)) {
		nmi_fault.fault = read_byte_safe((const void *)NON_CANONICAL_ADDRESS, &value);
		ist = tss->ist[IST_NMI - 1];
		tss->ist[IST_NMI - 1] = (uint64_t)(second_nmi_stack + sizeof(second_nmi_stack));
		__atomic_store_n(&nmi_fault.second_armed, true, __ATOMIC_RELEASE);
		lapic_send_ipi(cpus[cpu_id()].apic_id, APIC_DELIVERY_NMI);
		udelay(SECOND_NMI_WAIT_US);
		tss->ist[IST_NMI - 1] = ist;
	} else if (__atomic_exchange_n(&nmi_fault.second_armed, false, __ATOMIC_ACQ_REL)) {
		nmi_fault.seconds_taken++;
	}
	nmi_fault.depth--;
	return true;
}

static void a_fault_fixed_up_in_an_nmi_handler_keeps_nmis_blocked(void)
{
	uint64_t start;

	nmi_fault = (typeof(nmi_fault)){ .armed = true };
	ASSERT_TRUE(nmi_register(fault_inside_an_nmi_handler));
	lapic_send_ipi(cpus[cpu_id()].apic_id, APIC_DELIVERY_NMI);
	start = now_ns();
	while (!__atomic_load_n(&nmi_fault.seconds_taken, __ATOMIC_ACQUIRE) &&
	       now_ns() - start < 1000000000ull)
		cpu_relax();
	nmi_unregister(fault_inside_an_nmi_handler);
	nmi_fault.second_armed = false;
	test_diag("the fault in the NMI handler: vector %d; the second NMI taken %u times, %s%s",
		  nmi_fault.fault, nmi_fault.seconds_taken,
		  nmi_fault.deepest > 1 ? "inside the first handler: the fix-up unblocked NMIs" :
		  "after the first handler's IRET",
		  test_break_given(TEST_BREAK_NMI_FIXUP_IRET) ? " (test_break=nmi_fixup_iret)" : "");
	EXPECT_EQ(nmi_fault.fault, EXCEPTION_GENERAL_PROTECTION);
	EXPECT_EQ(nmi_fault.seconds_taken, 1u);
	EXPECT_EQ(nmi_fault.deepest, 1u);
}

static const struct test_case exception_cases[] = {
	TEST_CASE(divide_error_is_caught_by_fixup),
	TEST_CASE(invalid_opcode_is_caught_by_fixup),
	TEST_CASE(non_canonical_access_is_general_protection),
	TEST_CASE(null_read_is_page_fault),
	TEST_CASE(existing_msr_reads_without_fault),
	TEST_CASE(msr_write_reads_back),
	TEST_CASE(page_fault_reports_address_and_error_code),
	TEST_CASE(general_protection_has_zero_error_code),
	TEST_CASE(invalid_opcode_reports_faulting_rip),
	TEST_CASE(breakpoint_is_a_trap),
	TEST_CASE(recovery_restores_interrupt_flag),
	TEST_CASE(nested_contexts_resume_the_innermost),
	TEST_CASE(a_fault_fixed_up_in_an_nmi_handler_keeps_nmis_blocked),
};
TEST_SUITE(exceptions, exception_cases, NULL, NULL);
