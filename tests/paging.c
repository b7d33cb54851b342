// SPDX-License-Identifier: MIT
/*
 * Page permissions as paging.c promises them, checked both by reading the
 * page tables (paging_query) and by doing what must fault: a write to
 * kernel text, a jump into data, a touch of page 0 or of a guard page.
 */
#include <harness/test.h>
#include <mm/memory.h>
#include <smp/recovery.h>
#include <asm/extable.h>
#include <asm/interrupts.h>

extern char __text_start[], __text_end[], __rodata_start[], __data_start[], __bss_start[];
extern char boot_stack_guard[], boot_stack_bottom[];

static unsigned int attributes_at(const void *address)
{
	unsigned int attributes = ~0u;

	ASSERT_TRUE(paging_query((uint64_t)address, &attributes));
	return attributes;
}

static void text_is_read_only_and_executable(void)
{
	EXPECT_EQ(attributes_at(__text_start) & (MAP_WRITE | MAP_EXECUTE), MAP_EXECUTE);
	EXPECT_EQ(attributes_at((const void *)text_is_read_only_and_executable) &
		  (MAP_WRITE | MAP_EXECUTE), MAP_EXECUTE);
	EXPECT_EQ(attributes_at((const void *)((uint64_t)__text_end - 1)) & MAP_WRITE, 0u);
}

static void rodata_is_read_only_and_not_executable(void)
{
	EXPECT_EQ(attributes_at(__rodata_start) & (MAP_WRITE | MAP_EXECUTE), 0u);
}

static void data_and_bss_are_writable_and_not_executable(void)
{
	EXPECT_EQ(attributes_at(__data_start) & (MAP_WRITE | MAP_EXECUTE), MAP_WRITE);
	EXPECT_EQ(attributes_at(__bss_start) & (MAP_WRITE | MAP_EXECUTE), MAP_WRITE);
}

static void write_to_text_faults(void)
{
	volatile uint8_t *code = (volatile uint8_t *)text_is_read_only_and_executable;
	uint8_t original = *code;

	/* CR0.WP makes a read-only page binding on ring 0 too (SDM vol 3, 2.5). */
	EXPECT_EQ(write_byte_safe(code, original), EXCEPTION_PAGE_FAULT);
	EXPECT_EQ(*code, original);
}

/* A RET instruction placed in writable, non-executable data. */
static uint8_t return_instruction_in_data[16] __attribute__((aligned(16))) = { 0xc3 };

static void jump_into_data_faults(void)
{
	struct recovery_context context = { .report_faults = false };
	void (*function)(void *) = (void (*)(void *))(void *)return_instruction_in_data;
	long outcome = recovery_call(&context, function, NULL);

	/* Without NX the RET would simply return. */
	EXPECT_EQ(outcome, EXCEPTION_PAGE_FAULT);
	EXPECT_EQ(context.fault.error_code & PAGE_FAULT_INSTRUCTION_FETCH,
		  PAGE_FAULT_INSTRUCTION_FETCH);
	EXPECT_EQ(context.fault.cr2, (uint64_t)return_instruction_in_data);
}

static void page_zero_is_unmapped(void)
{
	unsigned int attributes;
	uint8_t value;

	EXPECT_FALSE(paging_query(0, &attributes));
	EXPECT_EQ(read_byte_safe((const void *)8, &value), EXCEPTION_PAGE_FAULT);
}

static void boot_stack_guard_is_unmapped(void)
{
	unsigned int attributes;
	uint8_t value;

	EXPECT_FALSE(paging_query((uint64_t)boot_stack_guard, &attributes));
	EXPECT_EQ(read_byte_safe(boot_stack_guard + PAGE_SIZE - 1, &value), EXCEPTION_PAGE_FAULT);
	EXPECT_TRUE(paging_query((uint64_t)boot_stack_bottom, &attributes));
}

static void map_phys_sets_uncached_and_unmap_removes(void)
{
	void *page = page_alloc();
	unsigned int attributes;

	ASSERT_NOT_NULL(page);
	ASSERT_TRUE(map_phys((uint64_t)page, PAGE_SIZE, MAP_WRITE | MAP_UNCACHED) == page);
	EXPECT_EQ(attributes_at(page), MAP_WRITE | MAP_UNCACHED);
	unmap_range((uint64_t)page, PAGE_SIZE);
	EXPECT_FALSE(paging_query((uint64_t)page, &attributes));
	/* Its neighbour, in the same (now split) large page, is untouched. */
	EXPECT_EQ(attributes_at((uint8_t *)page + PAGE_SIZE) & (MAP_WRITE | MAP_EXECUTE), MAP_WRITE);
	ASSERT_TRUE(map_phys((uint64_t)page, PAGE_SIZE, MAP_WRITE) == page);
	page_free(page);
}

/*
 * A stack overflow runs into a guard page: the #PF cannot push its frame
 * there, which makes it a #DF, delivered on its own IST stack (SDM vol 3,
 * 7.15, interrupt 8) and reported instead of a triple fault.  This runs on a
 * stack of its own with a guard below it, so the real stack is not harmed.
 */
#define OVERFLOW_STACK_PAGES 4

/* Deliberately unbounded (the guard page ends it); GCC would rightly warn. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winfinite-recursion"
static unsigned int __attribute__((noinline)) recurse(unsigned int depth)
{
	volatile uint8_t frame[256];

	frame[0] = (uint8_t)depth;
	return recurse(depth + 1) + frame[0];
}
#pragma GCC diagnostic pop

static void overflow_the_stack(void *unused)
{
	(void)recurse(0);
}

static void overflow_on_stack(void *stack_top)
{
	call_on_stack(stack_top, overflow_the_stack, NULL);
}

static void stack_overflow_into_guard_page_is_double_fault(void)
{
	uint8_t *stack = pages_alloc(OVERFLOW_STACK_PAGES);
	struct recovery_context context = { .report_faults = false };
	long outcome;

	ASSERT_NOT_NULL(stack);
	unmap_range((uint64_t)stack, PAGE_SIZE);
	outcome = recovery_call(&context, overflow_on_stack, stack + OVERFLOW_STACK_PAGES * PAGE_SIZE);
	map_phys((uint64_t)stack, PAGE_SIZE, MAP_WRITE);
	EXPECT_EQ(outcome, EXCEPTION_DOUBLE_FAULT);
	EXPECT_EQ(context.fault.error_code, 0u);
	/* The faulting stack pointer was at the guard page's top edge. */
	EXPECT_GE(context.fault.rsp, (uint64_t)stack);
	EXPECT_LT(context.fault.rsp, (uint64_t)stack + 2 * PAGE_SIZE);
}

static const struct test_case paging_cases[] = {
	TEST_CASE(text_is_read_only_and_executable),
	TEST_CASE(rodata_is_read_only_and_not_executable),
	TEST_CASE(data_and_bss_are_writable_and_not_executable),
	TEST_CASE(write_to_text_faults),
	TEST_CASE(jump_into_data_faults),
	TEST_CASE(page_zero_is_unmapped),
	TEST_CASE(boot_stack_guard_is_unmapped),
	TEST_CASE(map_phys_sets_uncached_and_unmap_removes),
	TEST_CASE(stack_overflow_into_guard_page_is_double_fault),
};
TEST_SUITE(paging, paging_cases, NULL, NULL);
