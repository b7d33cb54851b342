// SPDX-License-Identifier: MIT
/*
 * The IDT and the first level of interrupt dispatch.
 *
 * One IDT serves every CPU.  All 256 gates are 64-bit interrupt gates (so
 * IF is clear on entry: handlers never nest unless they choose to), DPL 0.
 * #DF, NMI and #MC run on IST stacks: they can arrive when the current stack
 * is unusable (an overflow into a guard page) or in the middle of anything.
 */
#include <log/console.h>
#include <cpu/cpu.h>
#include <sync/irq.h>
#include <boot/options.h>
#include <asm/boot.h>
#include <asm/instructions.h>
#include <asm/interrupts.h>

#include "exceptions.h"

struct idt_gate {
	uint16_t offset_low;
	uint16_t selector;
	uint8_t ist;
	uint8_t type_attributes;
	uint16_t offset_middle;
	uint32_t offset_high;
	uint32_t reserved;
} __attribute__((packed));

#define GATE_PRESENT_INTERRUPT_64	0x8e	/* P=1, DPL=0, type 0xE (SDM vol 3, 7.14.1) */

extern const uint64_t interrupt_stub_table[INTERRUPT_VECTOR_COUNT];

static struct idt_gate idt[INTERRUPT_VECTOR_COUNT] __attribute__((aligned(16)));
static interrupt_handler_t handlers[INTERRUPT_VECTOR_COUNT];

static void set_gate(unsigned int vector, uint64_t address, unsigned int ist)
{
	idt[vector] = (struct idt_gate){
		.offset_low = address & 0xffff,
		.selector = SELECTOR_KERNEL_CODE,
		.ist = ist,
		.type_attributes = GATE_PRESENT_INTERRUPT_64,
		.offset_middle = (address >> 16) & 0xffff,
		.offset_high = address >> 32,
	};
}

void idt_init(void)
{
	for (unsigned int vector = 0; vector < INTERRUPT_VECTOR_COUNT; vector++)
		set_gate(vector, interrupt_stub_table[vector], 0);
	set_gate(EXCEPTION_DOUBLE_FAULT, interrupt_stub_table[EXCEPTION_DOUBLE_FAULT], IST_DOUBLE_FAULT);
	set_gate(EXCEPTION_NMI, interrupt_stub_table[EXCEPTION_NMI], IST_NMI);
	set_gate(EXCEPTION_MACHINE_CHECK, interrupt_stub_table[EXCEPTION_MACHINE_CHECK],
		 IST_MACHINE_CHECK);
}

void idt_load(void)
{
	struct descriptor_table_pointer pointer = {
		.limit = sizeof(idt) - 1,
		.base = (uint64_t)idt,
	};

	lidt(&pointer);
}

bool interrupt_register(unsigned int vector, interrupt_handler_t handler)
{
	if (vector < EXCEPTION_COUNT || vector >= INTERRUPT_VECTOR_COUNT)
		return false;
	/* Atomic so that two CPUs registering at once cannot both win. */
	return __atomic_compare_exchange_n(&handlers[vector], &(interrupt_handler_t){ NULL },
					   handler, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

void interrupt_unregister(unsigned int vector)
{
	if (vector < INTERRUPT_VECTOR_COUNT)
		__atomic_store_n(&handlers[vector], NULL, __ATOMIC_RELEASE);
}

bool interrupt_dispatch(struct interrupt_frame *frame)
{
	unsigned int vector = (unsigned int)frame->vector;
	interrupt_handler_t handler;
	struct ipi_evidence_witness witness;

	if (vector == EXCEPTION_NMI) {
		nmi_dispatch(frame);
		return false;
	}
	if (vector < EXCEPTION_COUNT) {
		/*
		 * A fault fixed up inside an NMI handler resumes in that
		 * handler, which still runs on the NMI's IST stack.  IRET would
		 * end NMI blocking there (SDM vol 3, 6.7.1: "execution of the
		 * IRET instruction unblocks NMIs even if the instruction causes
		 * a fault"), and a second NMI would then enter at the top of
		 * the same IST stack (SDM vol 3, 7.14.5), over the first one's
		 * live frame.  So that return goes without IRET
		 * (interrupt_entry.S).  A recovery out of an NMI handler
		 * (resume_in_context) leaves the handler for good: its IRET
		 * ends the NMI, as it should.  test_break=nmi_fixup_iret keeps
		 * the IRET, to show the test (tests/exceptions.c) failing.
		 */
		return exception_handle(frame) && in_nmi() &&
		       !test_break_given(TEST_BREAK_NMI_FIXUP_IRET);
	}
	this_cpu()->interrupts++;	/* tells a trigger wait what ended it */
	handler = __atomic_load_n(&handlers[vector], __ATOMIC_ACQUIRE);
	if (handler) {
		ipi_evidence_handler_enter(vector, frame->rflags & RFLAGS_IF, &witness);
		handler(frame);
		ipi_evidence_handler_exit(vector, &witness);
		return false;
	}
	/*
	 * Nobody asked for this vector.  It may be a stray IPI or an interrupt
	 * from a device the firmware left enabled: say so once per vector and
	 * carry on; a level-triggered source would repeat, hence "once".
	 */
	unexpected_interrupt(frame);
	return false;
}
