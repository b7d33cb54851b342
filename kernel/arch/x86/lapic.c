// SPDX-License-Identifier: MIT
/*
 * Local APIC access (SDM vol 3, chapter 12): xAPIC through its 4 KiB MMIO
 * page, x2APIC through MSRs 0x800 + (offset >> 4) (12.12.1.2), one set of
 * functions over both.
 */
#include <log/console.h>
#include <cpu/cpu.h>
#include <sync/irq.h>
#include <smp/smp.h>
#include <time/timer.h>
#include <log/log.h>
#include <arch/paging.h>
#include <log/panic.h>
#include <time/time.h>
#include <asm/apic.h>
#include <asm/instructions.h>
#include <asm/interrupts.h>
#include <asm/pic.h>
#include <boot/options.h>

#define MSR_APIC_BASE			0x1b
#define APIC_BASE_BSP			(1ull << 8)
#define APIC_BASE_X2APIC_ENABLE		(1ull << 10)
#define APIC_BASE_GLOBAL_ENABLE		(1ull << 11)
#define APIC_BASE_ADDRESS_MASK		0xffffff000ull
#define CPUID_X2APIC			(1u << 21)	/* CPUID.1:ECX */
#define CPUID_TSC_DEADLINE		(1u << 24)	/* CPUID.1:ECX */
#define MSR_TSC_DEADLINE		0x6e0
#define MSR_X2APIC_BASE			0x800

#define REGISTER_ID			0x020
#define REGISTER_VERSION		0x030
#define REGISTER_TASK_PRIORITY		0x080
#define REGISTER_EOI			0x0b0
#define REGISTER_SPURIOUS		0x0f0
#define REGISTER_ERROR_STATUS		0x280
#define REGISTER_LVT_TIMER		0x320
#define REGISTER_LVT_LINT0		0x350
#define REGISTER_LVT_LINT1		0x360
#define REGISTER_LVT_ERROR		0x370
#define REGISTER_TIMER_INITIAL		0x380
#define REGISTER_TIMER_CURRENT		0x390
#define REGISTER_TIMER_DIVIDE		0x3e0

#define SPURIOUS_APIC_ENABLE		(1u << 8)
#define LVT_MASKED			(1u << 16)
#define LVT_TIMER_PERIODIC		(1u << 17)
#define LVT_TIMER_TSC_DEADLINE		(2u << 17)
#define LVT_TIMER_MODE_MASK		(3u << 17)
#define LVT_VECTOR_MASK			0xffu
#define ICR_LEVEL_ASSERT		(1u << 14)
#define ICR_TRIGGER_LEVEL		(1u << 15)
#define TIMER_DIVIDE_BY_16		0x3

static enum apic_mode mode;
static volatile uint32_t *xapic;
static uint64_t timer_hz;
static unsigned long error_count;

enum apic_mode apic_select_mode(bool cpu_has_x2apic, uint64_t apic_base)
{
	if ((apic_base & APIC_BASE_GLOBAL_ENABLE) && (apic_base & APIC_BASE_X2APIC_ENABLE))
		return APIC_MODE_X2APIC;
	return cpu_has_x2apic ? APIC_MODE_X2APIC : APIC_MODE_XAPIC;
}

const char *apic_mode_name(enum apic_mode apic_mode)
{
	return apic_mode == APIC_MODE_X2APIC ? "x2APIC" : "xAPIC";
}

enum apic_mode lapic_mode(void)
{
	return mode;
}

static uint32_t lapic_read(uint32_t offset)
{
	if (mode == APIC_MODE_X2APIC)
		return (uint32_t)rdmsr(MSR_X2APIC_BASE + (offset >> 4));
	return xapic[offset / 4];
}

static void lapic_write(uint32_t offset, uint32_t value)
{
	if (mode == APIC_MODE_X2APIC)
		wrmsr(MSR_X2APIC_BASE + (offset >> 4), value);
	else
		xapic[offset / 4] = value;
}

uint32_t lapic_id(void)
{
	/* x2APIC: the full 32-bit ID; xAPIC: bits 31:24 (SDM vol 3, 12.4.6). */
	uint32_t id = lapic_read(REGISTER_ID);

	return mode == APIC_MODE_X2APIC ? id : id >> 24;
}

void lapic_eoi(void)
{
	lapic_write(REGISTER_EOI, 0);
}

/* ISR and IRR: eight 32-bit registers each, 0x10 apart (SDM vol 3, 12.8.4). */
#define REGISTER_IN_SERVICE		0x100
#define REGISTER_REQUEST		0x200

bool lapic_vector_requested_or_in_service(unsigned int vector)
{
	uint32_t offset = (vector / 32) * 0x10, bit = 1u << (vector % 32);

	return ((lapic_read(REGISTER_REQUEST + offset) | lapic_read(REGISTER_IN_SERVICE + offset)) &
		bit) != 0;
}

unsigned long lapic_error_count(void)
{
	return __atomic_load_n(&error_count, __ATOMIC_RELAXED);
}

static void spurious_interrupt(struct interrupt_frame *frame)
{
	/* A spurious interrupt is not in service: no EOI (SDM vol 3, 12.9). */
}

static void error_interrupt(struct interrupt_frame *frame)
{
	uint32_t status;

	/* ESR latches on a write (SDM vol 3, 12.5.3). */
	lapic_write(REGISTER_ERROR_STATUS, 0);
	status = lapic_read(REGISTER_ERROR_STATUS);
	__atomic_fetch_add(&error_count, 1, __ATOMIC_RELAXED);
	kprintf("# cpu %u: local APIC error, status 0x%x\n", cpu_id(), status);
	lapic_eoi();
}

static void lapic_setup_this_cpu(void)
{
	uint64_t base = rdmsr(MSR_APIC_BASE);

	/* Never clear EN: TCG's APIC cannot be enabled again (docs/emulators.md). */
	base |= APIC_BASE_GLOBAL_ENABLE;
	if (mode == APIC_MODE_X2APIC)
		base |= APIC_BASE_X2APIC_ENABLE;
	wrmsr(MSR_APIC_BASE, base);

	lapic_write(REGISTER_TASK_PRIORITY, 0);
	lapic_write(REGISTER_LVT_TIMER, LVT_MASKED | VECTOR_LAPIC_TIMER);
	lapic_write(REGISTER_LVT_ERROR, VECTOR_LAPIC_ERROR);
	lapic_write(REGISTER_TIMER_DIVIDE, TIMER_DIVIDE_BY_16);
	lapic_write(REGISTER_SPURIOUS, SPURIOUS_APIC_ENABLE | VECTOR_SPURIOUS);
	/* Clear errors latched before we took over (two writes: SDM vol 3, 12.5.3). */
	lapic_write(REGISTER_ERROR_STATUS, 0);
	lapic_write(REGISTER_ERROR_STATUS, 0);
}

void lapic_init_bsp(uint64_t madt_lapic_address)
{
	uint64_t base = rdmsr(MSR_APIC_BASE);
	uint64_t physical = base & APIC_BASE_ADDRESS_MASK;

	mode = apic_select_mode((cpuid(1).ecx & CPUID_X2APIC) != 0, base);
	if (mode == APIC_MODE_XAPIC) {
		if (madt_lapic_address && madt_lapic_address != physical)
			ktap_note("apic: MADT says the LAPIC is at 0x%llx, IA32_APIC_BASE 0x%llx; "
				  "using the MSR", (unsigned long long)madt_lapic_address,
				  (unsigned long long)physical);
		xapic = map_phys(physical, PAGE_SIZE, MAP_WRITE | MAP_UNCACHED);
		if (!xapic)
			panic("cannot map the local APIC at 0x%llx", (unsigned long long)physical);
	}
	interrupt_register(VECTOR_SPURIOUS, spurious_interrupt);
	interrupt_register(VECTOR_LAPIC_ERROR, error_interrupt);
	lapic_setup_this_cpu();
	ktap_note("apic: %s mode%s, BSP APIC ID %u", apic_mode_name(mode),
		  (base & APIC_BASE_X2APIC_ENABLE) ? " (handed over by the firmware)" : "",
		  lapic_id());
}

void lapic_init_ap(void)
{
	lapic_setup_this_cpu();
}

/*
 * Every ICR write goes through apic_icr_send() (ipi.c), which owns the
 * xAPIC's two-write window, the NMI-context restore of ICR high and the
 * wait for the previous IPI to leave.
 */
bool lapic_send_ipi(uint32_t apic_id, uint32_t command)
{
	return apic_icr_send(apic_id, command | ICR_LEVEL_ASSERT);
}

#define ICR_ALL_EXCLUDING_SELF		(3u << 18)

void lapic_send_ipi_all_but_self(uint32_t command)
{
	apic_icr_send(0, command | ICR_LEVEL_ASSERT | ICR_ALL_EXCLUDING_SELF);
}

void lapic_send_init_deassert(uint32_t apic_id)
{
	/* Only P6-era and older CPUs need it; x2APIC forbids it (12.12.10.2). */
	if (mode == APIC_MODE_X2APIC)
		return;
	apic_icr_send(apic_id, APIC_DELIVERY_INIT | ICR_TRIGGER_LEVEL);
}

/* --- Timer ----------------------------------------------------------------- */

/*
 * The timer's rate is measured against the TSC over at least 10 ms of a
 * free count: masked, one-shot, from the largest count.  The count may
 * begin during the TSC's own calibration (tsc.c calls
 * lapic_timer_count_begin() once it no longer sleeps on this timer), so
 * that the two windows overlap; lapic_timer_calibrate() then waits only
 * for what is left of the 10 ms.  Each end is one read of the count
 * between two TSC reads, the tightest of a few: a vCPU the host stops
 * between a TSC read and the count read would otherwise shift that end.
 */
#define CALIBRATION_NS		10000000ull	/* at least 10 ms */
#define COUNT_READ_TRIES	8
#define COUNT_READ_BRACKET	30000ull	/* TSC cycles: tight enough to stop trying */
#define FREE_COUNT_START	0xffffffffu

struct count_reading {
	uint64_t tsc;		/* the middle of the TSC reads around the count read */
	uint32_t count;
};

static struct {
	bool counting;		/* lapic_timer_count_begin() began it */
	unsigned int cpu;
	struct count_reading start;
} free_count;

static void read_count(struct count_reading *reading)
{
	uint64_t tightest = UINT64_MAX;

	for (int i = 0; i < COUNT_READ_TRIES && tightest > COUNT_READ_BRACKET; i++) {
		bool enabled = local_irq_save();
		uint64_t before = rdtsc();
		uint32_t count = lapic_read(REGISTER_TIMER_CURRENT);
		uint64_t after = rdtsc();

		local_irq_restore(enabled);
		if (after - before < tightest) {
			tightest = after - before;
			reading->tsc = before + tightest / 2;
			reading->count = count;
		}
	}
}

/*
 * Whether this CPU's timer still runs the free count: every other use of
 * it (a one-shot, periodic or TSC-deadline timer, a stop) leaves another
 * mode, an unmasked LVT or another initial count, and the count is then no
 * measurement.  Read from the timer itself, once, at the calibration.
 */
static bool free_count_still_running(void)
{
	uint32_t lvt = lapic_read(REGISTER_LVT_TIMER);

	return free_count.counting && free_count.cpu == cpu_id() &&
	       (lvt & (LVT_MASKED | LVT_TIMER_MODE_MASK | LVT_VECTOR_MASK)) ==
	       (LVT_MASKED | VECTOR_LAPIC_TIMER) &&
	       lapic_read(REGISTER_TIMER_INITIAL) == FREE_COUNT_START;
}

void lapic_timer_count_begin(void)
{
	if (free_count.counting)
		return;
	lapic_write(REGISTER_LVT_TIMER, LVT_MASKED | VECTOR_LAPIC_TIMER);
	lapic_write(REGISTER_TIMER_DIVIDE, TIMER_DIVIDE_BY_16);
	lapic_write(REGISTER_TIMER_INITIAL, FREE_COUNT_START);
	read_count(&free_count.start);
	free_count.cpu = cpu_id();
	free_count.counting = true;
}

void lapic_timer_calibrate(void)
{
	bool overlapped = free_count_still_running();
	uint64_t window = ns_to_cycles(CALIBRATION_NS), elapsed_ns;
	struct count_reading end;
	uint32_t counted;

	if (!overlapped) {
		free_count.counting = false;
		lapic_timer_count_begin();
	}
	/* test_break=lapic_window: a window of 20 ms taken as 10, so that the error is certain. */
	if (test_break_given(TEST_BREAK_LAPIC_WINDOW))
		window *= 2;
	while (rdtsc() - free_count.start.tsc < window)
		arch_cpu_relax();
	read_count(&end);
	counted = free_count.start.count - end.count;
	elapsed_ns = test_break_given(TEST_BREAK_LAPIC_WINDOW) ? CALIBRATION_NS :
			     cycles_to_ns(end.tsc - free_count.start.tsc);
	free_count.counting = false;
	lapic_write(REGISTER_TIMER_INITIAL, 0);
	timer_hz = elapsed_ns ? (uint64_t)counted * 1000000000ull / elapsed_ns : 0;
	ktap_note("apic: timer %llu kHz after dividing by 16 (against the TSC, over %llu ms%s)",
		  (unsigned long long)(timer_hz / 1000),
		  (unsigned long long)(elapsed_ns / 1000000),
		  overlapped ? ", counting through the TSC's calibration" : "");
}

uint64_t lapic_timer_hz(void)
{
	return timer_hz;
}

uint32_t lapic_timer_current_count(void)
{
	return lapic_read(REGISTER_TIMER_CURRENT);
}

void lapic_timer_oneshot_count(uint32_t count)
{
	lapic_write(REGISTER_LVT_TIMER, VECTOR_LAPIC_TIMER);
	lapic_write(REGISTER_TIMER_DIVIDE, TIMER_DIVIDE_BY_16);
	lapic_write(REGISTER_TIMER_INITIAL, count ? count : 1);
}

static uint32_t timer_count_for(uint64_t nanoseconds)
{
	uint64_t count = nanoseconds * timer_hz / 1000000000ull;

	if (count == 0)
		count = 1;
	return count > 0xffffffffull ? 0xffffffff : (uint32_t)count;
}

void lapic_timer_oneshot(uint64_t nanoseconds)
{
	lapic_timer_oneshot_count(timer_count_for(nanoseconds));
}

void lapic_timer_periodic(uint64_t nanoseconds)
{
	lapic_write(REGISTER_LVT_TIMER, LVT_TIMER_PERIODIC | VECTOR_LAPIC_TIMER);
	lapic_write(REGISTER_TIMER_DIVIDE, TIMER_DIVIDE_BY_16);
	lapic_write(REGISTER_TIMER_INITIAL, timer_count_for(nanoseconds));
}

void lapic_timer_stop(void)
{
	lapic_write(REGISTER_LVT_TIMER, LVT_MASKED | VECTOR_LAPIC_TIMER);
	lapic_write(REGISTER_TIMER_INITIAL, 0);
	if (tsc_deadline_supported())
		wrmsr(MSR_TSC_DEADLINE, 0);
}

bool tsc_deadline_supported(void)
{
	return (cpuid(1).ecx & CPUID_TSC_DEADLINE) != 0;
}

void lapic_timer_deadline(uint64_t tsc)
{
	lapic_write(REGISTER_LVT_TIMER, LVT_TIMER_TSC_DEADLINE | VECTOR_LAPIC_TIMER);
	/* The LVT write must be seen before the MSR write (SDM vol 3, 12.5.4.1). */
	mfence();
	wrmsr(MSR_TSC_DEADLINE, tsc);
}

static void timer_interrupt(struct interrupt_frame *frame)
{
	timer_tick();
	lapic_eoi();
}

void interrupt_controller_init(void)
{
	pic_disable();
	lapic_init_bsp(0);
	interrupt_register(VECTOR_LAPIC_TIMER, timer_interrupt);
}

void arch_timer_calibrate(void)
{
	lapic_timer_calibrate();
}

void arch_timer_oneshot(uint64_t nanoseconds)
{
	lapic_timer_oneshot(nanoseconds);
}

void arch_timer_periodic(uint64_t nanoseconds)
{
	lapic_timer_periodic(nanoseconds);
}

void arch_timer_stop(void)
{
	lapic_timer_stop();
}

bool arch_apic_id_reachable(uint32_t apic_id)
{
	/* xAPIC destinations are 8 bits, 0xff being broadcast (SDM vol 3, 12.6.1). */
	return mode == APIC_MODE_X2APIC || apic_id < 0xff;
}

const char *arch_apic_mode_name(void)
{
	return apic_mode_name(mode);
}
