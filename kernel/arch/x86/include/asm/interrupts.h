/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_ASM_INTERRUPTS_H
#define TRIGOS_ASM_INTERRUPTS_H

#include <stdbool.h>
#include <stdint.h>

#define EXCEPTION_DIVIDE_ERROR		0
#define EXCEPTION_DEBUG			1
#define EXCEPTION_NMI			2
#define EXCEPTION_BREAKPOINT		3
#define EXCEPTION_OVERFLOW		4
#define EXCEPTION_BOUND_RANGE		5
#define EXCEPTION_INVALID_OPCODE	6
#define EXCEPTION_DEVICE_NOT_AVAILABLE	7
#define EXCEPTION_DOUBLE_FAULT		8
#define EXCEPTION_INVALID_TSS		10
#define EXCEPTION_SEGMENT_NOT_PRESENT	11
#define EXCEPTION_STACK_FAULT		12
#define EXCEPTION_GENERAL_PROTECTION	13
#define EXCEPTION_PAGE_FAULT		14
#define EXCEPTION_X87_FLOATING_POINT	16
#define EXCEPTION_ALIGNMENT_CHECK	17
#define EXCEPTION_MACHINE_CHECK		18
#define EXCEPTION_SIMD_FLOATING_POINT	19
#define EXCEPTION_VIRTUALIZATION	20
#define EXCEPTION_CONTROL_PROTECTION	21
#define EXCEPTION_COUNT			32
#define INTERRUPT_VECTOR_COUNT		256

/* Page-fault error code bits (SDM vol 3, 5.7 figure 5-12). */
#define PAGE_FAULT_PRESENT		(1u << 0)
#define PAGE_FAULT_WRITE		(1u << 1)
#define PAGE_FAULT_INSTRUCTION_FETCH	(1u << 4)

/* IST slots in every CPU's TSS (SDM vol 3, 8.7): stacks that are always good. */
#define IST_DOUBLE_FAULT		1
#define IST_NMI				2
#define IST_MACHINE_CHECK		3
#define IST_STACK_COUNT			3

/**
 * struct interrupt_frame - what interrupt_entry.S leaves on the stack
 *
 * Registers in the reverse of the order the common path pushes them, then
 * the stub's vector and error code, then what the CPU pushed.  A handler may
 * change any field: IRETQ resumes from the frame as it finds it.
 */
struct interrupt_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rdi, rsi, rbp, rdx, rcx, rbx, rax;
	uint64_t vector;
	uint64_t error_code;
	uint64_t rip, cs, rflags, rsp, ss;
};

typedef void (*interrupt_handler_t)(struct interrupt_frame *frame);

/** idt_init - build the shared IDT (BSP, once) */
void idt_init(void);

/** idt_load - load the shared IDT on this CPU */
void idt_load(void);

/**
 * interrupt_register - install @handler for @vector (32..255)
 *
 * Returns false if the vector is out of range or already taken.  The
 * handler is called with interrupts disabled; it must send the EOI itself
 * if its interrupt source needs one (the LAPIC does, see lapic.c).
 */
bool interrupt_register(unsigned int vector, interrupt_handler_t handler);

/** interrupt_unregister - remove the handler of @vector */
void interrupt_unregister(unsigned int vector);

/** exception_name - "#PF page fault" style name of an exception vector */
const char *exception_name(unsigned int vector);

/**
 * interrupt_dispatch - the C half of every interrupt and exception entry
 * (interrupt_entry.S); true when the return must not use IRET (a fault
 * fixed up inside an NMI handler: see interrupts.c)
 */
bool interrupt_dispatch(struct interrupt_frame *frame);

/*
 * What a handler's entry from interrupts-on code proves about the IPIs sent
 * to this CPU (ipi_evidence.c): interrupt_dispatch() brackets every handler
 * with these two.
 */
struct ipi_evidence_witness {
	bool valid;
	uint64_t tsc;
	uint64_t sent[2];	/* IPI_EVIDENCE_WAKE, IPI_EVIDENCE_CALL */
};

void ipi_evidence_handler_enter(unsigned int vector, bool from_irqs_on,
				struct ipi_evidence_witness *witness);
void ipi_evidence_handler_exit(unsigned int vector, const struct ipi_evidence_witness *witness);

struct recovery_context;

/**
 * recovery_redirect_frame - make IRETQ from @frame resume @context, whose
 * recovery_call() then returns @code (exceptions and the watchdog's NMI)
 */
void recovery_redirect_frame(struct interrupt_frame *frame, struct recovery_context *context,
			     long code);

/* An NMI handler returns true if the NMI was its own. */
typedef bool (*nmi_handler_t)(struct interrupt_frame *frame);

/** in_nmi - whether this CPU is inside an NMI handler (NMIs are blocked there) */
bool in_nmi(void);

/** nmi_register - add @handler to those every NMI runs; false when full */
bool nmi_register(nmi_handler_t handler);
void nmi_unregister(nmi_handler_t handler);

#endif
