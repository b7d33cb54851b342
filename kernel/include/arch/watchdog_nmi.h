/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_ARCH_WATCHDOG_NMI_H
#define TRIGOS_ARCH_WATCHDOG_NMI_H
/* The arch's side of the harness's watchdog (kernel/arch/x86/watchdog_nmi.c). */

#include <stdbool.h>

/*
 * arch_watchdog_nmi_init - register the NMI handler that asks @is_ours
 * (the harness's watchdog_nmi_is_ours()) whether an NMI is the watchdog's
 */
void arch_watchdog_nmi_init(bool (*is_ours)(void));

/* arch_send_nmi - send an NMI to logical CPU @cpu */
void arch_send_nmi(unsigned int cpu);

#endif
