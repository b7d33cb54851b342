/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_MEMTYPE_CHECK_H
#define TRIGOS_MEMTYPE_CHECK_H
/*
 * Is the RAM where triggers live write-back on every CPU?  MONITOR/MWAIT,
 * MONITORX/MWAITX and UMONITOR/UMWAIT watch write-back memory only (SDM
 * vol 2, MONITOR and UMONITOR; AMD APM vol 3, MONITORX): on any other
 * memory type a store may never end the wait.  So the trigger backends
 * built on them are refused for the run unless every online CPU sees that
 * RAM as write-back.
 */

#include <stdbool.h>
#include <stdint.h>
#include <lib/memtype.h>

/**
 * memtype_check - on every online CPU, combine its MTRRs, its PAT and the
 * kernel's page-table bits (and CR0.CD) into the memory type of the trigger
 * memory (the kernel's data and bss, the RAM the page allocator hands out),
 * and report it: one line for the boot CPU, one for each CPU that differs.
 * After SMP bring-up, before trigger_boot_init().
 */
void memtype_check(void);

/**
 * memtype_trigger_memory_problem - NULL when every online CPU sees the
 * trigger memory as write-back; else a sentence naming the first CPU that
 * does not and the type it sees ("cpu 1 sees the trigger memory as UC
 * (CR0.CD set)")
 */
const char *memtype_trigger_memory_problem(void);

/**
 * struct memtype_survey - what one CPU sees, read on that CPU
 * @data: the effective types of the kernel's data and bss
 * @ram: the effective types of the RAM the page allocator hands out
 * @cr0: its CR0
 * @description: the whole account, as the boot log prints it
 */
struct memtype_survey {
	memtype_set data, ram;
	uint64_t cr0;
	char description[200];
};

/** memtype_survey_this_cpu - read the calling CPU's registers into @survey */
void memtype_survey_this_cpu(struct memtype_survey *survey);

#endif
