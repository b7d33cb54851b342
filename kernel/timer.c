// SPDX-License-Identifier: MIT
#include <cpu.h>
#include <timer.h>
#include <watchdog.h>

void timer_tick(void)
{
	this_cpu()->timer_ticks++;
	watchdog_tick();
}
