/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_X86_EXCEPTIONS_H
#define TRIGOS_X86_EXCEPTIONS_H
/* Private to kernel/arch/x86: the exception and NMI paths of interrupt_dispatch. */

#include <asm/interrupts.h>

bool exception_handle(struct interrupt_frame *frame);
void nmi_dispatch(struct interrupt_frame *frame);
void unexpected_interrupt(struct interrupt_frame *frame);

#endif
