// SPDX-License-Identifier: MIT
#include <log/console.h>
#include <cpu/cpu.h>
#include <log/log.h>
#include <log/panic.h>
#include <lib/format.h>

#define NO_CPU (~0u)

static unsigned int panicking_cpu = NO_CPU;
static void (*end_of_run)(void) __attribute__((noreturn));

void panic_set_end_of_run(void (*end)(void) __attribute__((noreturn)))
{
	__atomic_store_n(&end_of_run, end, __ATOMIC_RELEASE);
}

void panic_begin(void)
{
	unsigned int expected = NO_CPU;

	local_irq_disable();
	if (!__atomic_compare_exchange_n(&panicking_cpu, &expected, cpu_id(), false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) &&
	    expected != cpu_id()) {
		/* Another CPU is already reporting; two reports would interleave. */
		arch_halt_forever();
	}
	console_panic_mode();
	ktap_flush_notes();
}

void panic_end(void)
{
	void (*end)(void) __attribute__((noreturn)) =
		__atomic_load_n(&end_of_run, __ATOMIC_ACQUIRE);

	if (end)
		end();
	arch_halt_forever();
}

void panic(const char *format, ...)
{
	va_list args;
	char message[CONSOLE_LINE_MAX - 32];

	panic_begin();
	va_start(args, format);
	vsnprintf(message, sizeof(message), format, args);
	va_end(args);
	kprintf("# PANIC on cpu %u: %s\n", cpu_id(), message);
	stack_trace_print("# ", current_frame_pointer());
	panic_end();
}
