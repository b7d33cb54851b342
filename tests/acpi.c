// SPDX-License-Identifier: MIT
/* The machine's own ACPI tables, as acpi_init() found them. */
#include <boot/acpi.h>
#include <harness/test.h>

static const struct acpi_tables *tables_or_skip(void)
{
	const struct acpi_tables *tables = acpi_tables_get();

	if (!tables)
		test_skip("this machine has no usable ACPI tables");
	return tables;
}

static void root_table_lists_a_fadt_and_a_madt(void)
{
	const struct acpi_tables *tables = tables_or_skip();
	uint32_t length = 0;

	EXPECT_NOT_NULL(acpi_tables_find(tables, "FACP", 0, &length));
	EXPECT_GE(length, 116u);
	EXPECT_NOT_NULL(acpi_tables_find(tables, "APIC", 0, &length));
	EXPECT_NULL(acpi_tables_find(tables, "NONE", 0, NULL));
}

static void fadt_gives_pm1a_control_and_timer(void)
{
	const struct acpi_fadt *fadt;

	tables_or_skip();
	fadt = acpi_fadt_get();
	ASSERT_NOT_NULL(fadt);
	if (fadt->hardware_reduced)
		test_skip("hardware-reduced ACPI has no PM1 blocks");
	EXPECT_NE(fadt->pm1a_control.address, 0u);
	EXPECT_NE(fadt->dsdt_address, 0u);
	EXPECT_NE(fadt->pm_timer.address, 0u);
}

/*
 * What exit=reboot, exit=poweroff and the PM timer will use must decode as
 * registers they can reach; the reset register is a byte (ACPI 6.5, 4.8.3.6).
 */
static void fadt_registers_the_kernel_uses_decode(void)
{
	const struct acpi_fadt *fadt;
	struct acpi_gas_access access;

	tables_or_skip();
	fadt = acpi_fadt_get();
	ASSERT_NOT_NULL(fadt);
	if (fadt->pm1a_control.address) {
		EXPECT_EQ(acpi_fadt_register_access(fadt, ACPI_FADT_PM1A_CONTROL, &access), ACPI_OK);
		EXPECT_EQ(access.bytes, 2u);
	}
	if (fadt->pm_timer.address) {
		EXPECT_EQ(acpi_fadt_register_access(fadt, ACPI_FADT_PM_TIMER, &access), ACPI_OK);
		EXPECT_EQ(access.bytes, 4u);
	}
	if (!fadt->reset_supported) {
		test_diag("FADT revision %u: no reset register offered", fadt->revision);
		return;
	}
	EXPECT_GE(fadt->revision, 2u);
	ASSERT_EQ(acpi_fadt_register_access(fadt, ACPI_FADT_RESET, &access), ACPI_OK);
	EXPECT_EQ(access.bytes, 1u);
	test_diag("reset register: space %u address 0x%llx value 0x%x", access.space_id,
		  (unsigned long long)access.address, fadt->reset_value);
}

static void soft_off_values_come_from_the_dsdt(void)
{
	struct acpi_sleep_type values;

	tables_or_skip();
	ASSERT_TRUE(acpi_soft_off_values(&values));
	EXPECT_LE(values.slp_typ_a, 7u);
	test_diag("\\_S5: SLP_TYPa %u SLP_TYPb %u", values.slp_typ_a, values.slp_typ_b);
}

static struct acpi_madt madt;

static void madt_lists_an_enabled_cpu(void)
{
	const struct acpi_tables *tables = tables_or_skip();
	const void *table;
	uint32_t length;
	size_t enabled = 0;

	table = acpi_tables_find(tables, "APIC", 0, &length);
	ASSERT_NOT_NULL(table);
	ASSERT_EQ(acpi_madt_parse(table, length, NULL, &madt), ACPI_OK);
	for (size_t i = 0; i < madt.cpu_count; i++)
		enabled += madt.cpus[i].enabled;
	EXPECT_GE(enabled, 1u);
	EXPECT_NE(madt.local_apic_address, 0u);
}

static const struct test_case acpi_cases[] = {
	TEST_CASE(root_table_lists_a_fadt_and_a_madt),
	TEST_CASE(fadt_gives_pm1a_control_and_timer),
	TEST_CASE(fadt_registers_the_kernel_uses_decode),
	TEST_CASE(soft_off_values_come_from_the_dsdt),
	TEST_CASE(madt_lists_an_enabled_cpu),
};
TEST_SUITE(acpi, acpi_cases, NULL, NULL);
