/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_ASM_EXTABLE_H
#define TRIGOS_ASM_EXTABLE_H
/*
 * Exception fixups: an instruction that may fault is listed in the
 * .exception_table section with the address to resume at.  On a fault at a
 * listed address the exception handler stores (vector + 1) in R11 and resumes
 * at the fixup; the wrappers below return the vector, or FAULT_NONE.
 *
 * R11 is used because it is caller-saved scratch that none of the wrapped
 * instructions read or write.
 */

#include <stdint.h>

#define FAULT_NONE (-1)

struct exception_table_entry {
	uint64_t instruction;
	uint64_t fixup;
};

#define EXCEPTION_TABLE_ENTRY(instruction_label, fixup_label)                    \
	".pushsection .exception_table, \"a\"\n\t"                              \
	".balign 8\n\t"                                                         \
	".quad " #instruction_label ", " #fixup_label "\n\t"                   \
	".popsection\n\t"

/** exception_fixup_find - the fixup address for a fault at @rip, or 0 */
uint64_t exception_fixup_find(uint64_t rip);

/** rdmsr_safe - read an MSR; returns FAULT_NONE or the vector (#GP for a missing MSR) */
static inline int rdmsr_safe(uint32_t msr, uint64_t *value)
{
	uint32_t low = 0, high = 0;
	register uint64_t fault asm("r11") = 0;

	asm volatile("1: rdmsr\n2:\n\t" EXCEPTION_TABLE_ENTRY(1b, 2b)
		     : "+a"(low), "+d"(high), "+r"(fault) : "c"(msr) : "memory");
	*value = ((uint64_t)high << 32) | low;
	return (int)fault - 1;
}

/** wrmsr_safe - write an MSR; returns FAULT_NONE or the vector */
static inline int wrmsr_safe(uint32_t msr, uint64_t value)
{
	register uint64_t fault asm("r11") = 0;

	asm volatile("1: wrmsr\n2:\n\t" EXCEPTION_TABLE_ENTRY(1b, 2b)
		     : "+r"(fault)
		     : "c"(msr), "a"((uint32_t)value), "d"((uint32_t)(value >> 32)) : "memory");
	return (int)fault - 1;
}

/** read_byte_safe - load a byte from @address; returns FAULT_NONE or the vector */
static inline int read_byte_safe(const volatile void *address, uint8_t *value)
{
	uint8_t result = 0;
	register uint64_t fault asm("r11") = 0;

	asm volatile("1: movb (%2), %0\n2:\n\t" EXCEPTION_TABLE_ENTRY(1b, 2b)
		     : "+q"(result), "+r"(fault) : "r"(address) : "memory");
	*value = result;
	return (int)fault - 1;
}

/** write_byte_safe - store a byte to @address; returns FAULT_NONE or the vector */
static inline int write_byte_safe(volatile void *address, uint8_t value)
{
	register uint64_t fault asm("r11") = 0;

	asm volatile("1: movb %1, (%2)\n2:\n\t" EXCEPTION_TABLE_ENTRY(1b, 2b)
		     : "+r"(fault) : "q"(value), "r"(address) : "memory");
	return (int)fault - 1;
}

/** ud2_safe - execute UD2; returns the vector (#UD) or FAULT_NONE if it did not fault */
static inline int ud2_safe(void)
{
	register uint64_t fault asm("r11") = 0;

	asm volatile("1: ud2\n2:\n\t" EXCEPTION_TABLE_ENTRY(1b, 2b) : "+r"(fault) : : "memory");
	return (int)fault - 1;
}

/** divide_safe - @dividend / @divisor with DIV; returns FAULT_NONE or the vector (#DE) */
static inline int divide_safe(uint64_t dividend, uint64_t divisor, uint64_t *quotient)
{
	uint64_t low = dividend, high = 0;
	register uint64_t fault asm("r11") = 0;

	asm volatile("1: divq %3\n2:\n\t" EXCEPTION_TABLE_ENTRY(1b, 2b)
		     : "+a"(low), "+d"(high), "+r"(fault) : "r"(divisor) : "memory", "cc");
	*quotient = low;
	return (int)fault - 1;
}

#endif
