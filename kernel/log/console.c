// SPDX-License-Identifier: MIT
#include <log/console.h>
#include <cpu/cpu.h>
#include <lib/format.h>
#include <lib/string.h>

static struct console_backend *backends;

/*
 * The console lock.  It cannot be the general spinlock: it must work before
 * that exists, and an exception taken while printing (or a panic) re-enters
 * the console on the same CPU.  So it records its owner and lets the owner in
 * again instead of deadlocking, and it gives up waiting after a bounded time
 * so that a CPU that died holding it cannot silence everyone else.
 */
#define CONSOLE_LOCK_FREE		(~0u)
#define CONSOLE_LOCK_SPIN_LIMIT		(50u * 1000 * 1000)

static unsigned int console_owner = CONSOLE_LOCK_FREE;
static bool panic_mode;

static unsigned int console_cpu_id(void)
{
	/* kmain points GS at cpus[0] before the first line is printed. */
	return this_cpu()->id;
}

/* Returns true when this call took the lock (and must release it). */
static bool console_lock(void)
{
	unsigned int me = console_cpu_id();
	unsigned int expected;

	if (panic_mode || __atomic_load_n(&console_owner, __ATOMIC_RELAXED) == me)
		return false;
	for (unsigned int spins = 0; spins < CONSOLE_LOCK_SPIN_LIMIT; spins++) {
		expected = CONSOLE_LOCK_FREE;
		if (__atomic_compare_exchange_n(&console_owner, &expected, me, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return true;
		cpu_relax();
	}
	return false;	/* the owner is stuck: print anyway rather than go silent */
}

static void console_unlock(bool taken)
{
	if (taken)
		__atomic_store_n(&console_owner, CONSOLE_LOCK_FREE, __ATOMIC_RELEASE);
}

void console_register(struct console_backend *backend)
{
	struct console_backend **link = &backends;

	while (*link)
		link = &(*link)->next;
	backend->next = NULL;
	*link = backend;
}

void console_unregister(struct console_backend *backend)
{
	bool taken = console_lock();

	for (struct console_backend **link = &backends; *link; link = &(*link)->next) {
		if (*link == backend) {
			*link = backend->next;
			break;
		}
	}
	console_unlock(taken);
}

static void write_all(const char *text, size_t length)
{
	for (struct console_backend *backend = backends; backend; backend = backend->next)
		backend->write(text, length);
}

void console_write(const char *text, size_t length)
{
	bool taken = console_lock();

	write_all(text, length);
	console_unlock(taken);
}

int vkprintf(const char *format, va_list args)
{
	char line[CONSOLE_LINE_MAX];
	int wanted = vsnprintf(line, sizeof(line), format, args);
	size_t length = strlen(line);

	if (wanted >= (int)sizeof(line)) {
		/* Cut, but keep the line a line: "...\n" replaces the tail. */
		memcpy(&line[sizeof(line) - 5], "...\n", 5);
		length = sizeof(line) - 1;
	}
	console_write(line, length);
	return (int)length;
}

int kprintf(const char *format, ...)
{
	va_list args;
	int written;

	va_start(args, format);
	written = vkprintf(format, args);
	va_end(args);
	return written;
}

void console_panic_mode(void)
{
	panic_mode = true;
}

void console_backend_names(char *buffer, size_t size)
{
	size_t used = 0;

	buffer[0] = '\0';
	for (struct console_backend *backend = backends; backend; backend = backend->next)
		used += scnprintf(buffer + used, size - used, "%s%s", used ? "," : "", backend->name);
}
