/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_ASM_APIC_H
#define TRIGOS_ASM_APIC_H
/*
 * The local APIC, in xAPIC (MMIO) or x2APIC (MSR) mode behind one interface
 * (SDM vol 3, chapter 12).  The mode is chosen once on the BSP from CPUID and
 * from the mode the firmware handed over, and every CPU then uses it.
 */

#include <stdbool.h>
#include <stdint.h>

/* Vectors trigos uses; exceptions own 0-31. */
#define VECTOR_LAPIC_TIMER	0xe0
#define VECTOR_WAKE		0xe1	/* an IPI that only ends a HLT */
#define VECTOR_LAPIC_ERROR	0xfe
#define VECTOR_SPURIOUS		0xff

enum apic_mode {
	APIC_MODE_XAPIC,
	APIC_MODE_X2APIC,
};

/**
 * apic_select_mode - which mode to run the local APICs in
 * @cpu_has_x2apic: CPUID.1:ECX[21]
 * @apic_base: IA32_APIC_BASE as the firmware left it
 *
 * Firmware that hands over in x2APIC mode (EXTD, bit 10, set) must be kept
 * there: leaving x2APIC for xAPIC requires disabling the APIC first (SDM
 * vol 3, 12.12.5), which QEMU TCG cannot undo.  Otherwise x2APIC when the CPU
 * has it, else xAPIC.  Pure, so that the selection is tested on machines
 * (TCG) that offer only xAPIC.
 */
enum apic_mode apic_select_mode(bool cpu_has_x2apic, uint64_t apic_base);

const char *apic_mode_name(enum apic_mode mode);

/** lapic_init_bsp - pick the mode, map the xAPIC page, set the BSP's LAPIC up */
void lapic_init_bsp(uint64_t madt_lapic_address);

/**
 * io_apic_version - an I/O APIC's IOAPICVER register (io_apic.c), read only
 * @base: its MMIO base from the MADT
 *
 * Return: the register; 0 or 0xffffffff where no I/O APIC answers (and 0
 * for a base that is not 16-byte aligned or cannot be mapped).
 */
uint32_t io_apic_version(uint64_t base);

/** lapic_init_ap - the same mode and setup on an AP */
void lapic_init_ap(void);

enum apic_mode lapic_mode(void);

/** lapic_id - the calling CPU's APIC ID (32 bits in x2APIC mode, 8 in xAPIC) */
uint32_t lapic_id(void);

/** lapic_eoi - signal end of interrupt for the in-service vector */
void lapic_eoi(void);

/**
 * lapic_vector_requested_or_in_service - whether this CPU's IRR or ISR holds
 * @vector (16..255): an interrupt of it pending or being handled
 */
bool lapic_vector_requested_or_in_service(unsigned int vector);

/* IPI delivery modes (SDM vol 3, 12.6.1, ICR bits 10:8). */
#define APIC_DELIVERY_FIXED	(0u << 8)
#define APIC_DELIVERY_NMI	(4u << 8)
#define APIC_DELIVERY_INIT	(5u << 8)
#define APIC_DELIVERY_STARTUP	(6u << 8)

/**
 * apic_icr_send - write the interrupt command register (ipi.c): the one
 * place an ICR is written
 * @apic_id: the destination; ignored when @low holds a shorthand
 * @low: ICR bits 0-31: vector, delivery mode, level, trigger mode, shorthand
 *
 * Waits (bounded) for the xAPIC's previous IPI to leave, keeps interrupts
 * off across the xAPIC's two writes and, in NMI context, puts back the ICR
 * high an interrupted send had written.  Returns false if the IPI was not
 * sent.
 */
bool apic_icr_send(uint32_t apic_id, uint32_t low);

/**
 * lapic_send_ipi - send an IPI to one APIC ID
 * @apic_id: the destination (never a broadcast ID)
 * @command: APIC_DELIVERY_* | vector (the startup page number for STARTUP)
 * Returns false if the xAPIC never reported the previous IPI as sent
 * (delivery status stuck for a millisecond-scale deadline).
 */
bool lapic_send_ipi(uint32_t apic_id, uint32_t command);

/**
 * lapic_send_ipi_all_but_self - the all-excluding-self shorthand: every
 * CPU of the machine but the caller, listed by the firmware or not
 */
void lapic_send_ipi_all_but_self(uint32_t command);

/** lapic_send_init_deassert - the level-deassert INIT older CPUs need after INIT */
void lapic_send_init_deassert(uint32_t apic_id);

/** lapic_error_count - LAPIC errors reported through VECTOR_LAPIC_ERROR so far */
unsigned long lapic_error_count(void);

/* --- Timer (SDM vol 3, 12.5.4) -------------------------------------------- */

/**
 * lapic_timer_count_begin - let this CPU's timer count down, masked, for
 * lapic_timer_calibrate() to read: called by the TSC calibration once it no
 * longer sleeps on the timer, so that both measure at once.  Idempotent;
 * any later use of the timer on this CPU ends the count.
 */
void lapic_timer_count_begin(void);

/**
 * lapic_timer_calibrate - measure the timer's rate against the (calibrated)
 * TSC over at least 10 ms of a free count, the one lapic_timer_count_begin()
 * began if nothing has used the timer since (BSP, once)
 */
void lapic_timer_calibrate(void);

/** lapic_timer_hz - timer ticks per second after division, 0 before calibration */
uint64_t lapic_timer_hz(void);

/** lapic_timer_current_count - this CPU's timer's current count register */
uint32_t lapic_timer_current_count(void);

/** lapic_timer_oneshot - one VECTOR_LAPIC_TIMER interrupt after @nanoseconds */
void lapic_timer_oneshot(uint64_t nanoseconds);

/**
 * lapic_timer_oneshot_count - one VECTOR_LAPIC_TIMER interrupt after @count
 * ticks of the bus clock divided by 16 (before calibration: its rate unknown)
 */
void lapic_timer_oneshot_count(uint32_t count);

/** lapic_timer_periodic - a VECTOR_LAPIC_TIMER interrupt every @nanoseconds */
void lapic_timer_periodic(uint64_t nanoseconds);

/** lapic_timer_stop - no more timer interrupts on this CPU */
void lapic_timer_stop(void);

/** tsc_deadline_supported - CPUID.1:ECX[24] (QEMU TCG: no) */
bool tsc_deadline_supported(void);

/** lapic_timer_deadline - one interrupt when the TSC reaches @tsc (TSC-deadline mode) */
void lapic_timer_deadline(uint64_t tsc);

#endif
