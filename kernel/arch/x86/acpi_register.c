// SPDX-License-Identifier: MIT
/*
 * Reading and writing the registers ACPI describes with a Generic Address
 * Structure (ACPI 6.5, 5.2.3.2): I/O ports, memory-mapped registers and PCI
 * configuration space of bus 0.  The decoding and its checks are in
 * kernel/lib (acpi_gas_decode(), host-tested); this file does the access.
 *
 * PCI configuration space is reached through configuration mechanism #1
 * (PCI Local Bus 3.0, 3.2.2.3.2: address to 0xCF8, data at 0xCFC plus the
 * offset's low two bits), which covers the first 256 bytes of a function;
 * a register beyond that would need the MCFG's ECAM window and is refused.
 */
#include <acpi_register.h>
#include <memory.h>
#include <lib/format.h>
#include <asm/instructions.h>

#define PCI_CONFIG_ADDRESS	0xcf8
#define PCI_CONFIG_DATA		0xcfc
#define PCI_CONFIG_ENABLE	(1u << 31)

void acpi_register_describe(const struct acpi_generic_address *gas, char *buffer, size_t size)
{
	switch (gas->space_id) {
	case ACPI_GAS_SYSTEM_IO:
		scnprintf(buffer, size, "I/O port 0x%llx", (unsigned long long)gas->address);
		return;
	case ACPI_GAS_SYSTEM_MEMORY:
		scnprintf(buffer, size, "memory 0x%llx", (unsigned long long)gas->address);
		return;
	case ACPI_GAS_PCI_CONFIG:
		scnprintf(buffer, size, "PCI 00:%02llx.%llx offset 0x%llx",
			  (unsigned long long)(gas->address >> 32) & 0xffff,
			  (unsigned long long)(gas->address >> 16) & 0xffff,
			  (unsigned long long)gas->address & 0xffff);
		return;
	default:
		scnprintf(buffer, size, "address space %u, address 0x%llx", gas->space_id,
			  (unsigned long long)gas->address);
	}
}

static void pci_select(const struct acpi_gas_access *access)
{
	outl(PCI_CONFIG_ADDRESS, PCI_CONFIG_ENABLE | (uint32_t)access->pci_device << 11 |
				 (uint32_t)access->pci_function << 8 | (access->address & 0xfc));
}

static const char *check_access(const struct acpi_generic_address *gas, unsigned int default_bytes,
				struct acpi_gas_access *access)
{
	if (acpi_gas_decode(gas, default_bytes, access) != ACPI_OK)
		return "the register description is malformed";
	/* Mechanism #1 reads naturally aligned pieces of one dword. */
	if (access->space_id == ACPI_GAS_PCI_CONFIG &&
	    (access->address >= 256 || (access->address & (access->bytes - 1))))
		return "PCI configuration offsets past 255, or unaligned, are not supported";
	if (access->space_id == ACPI_GAS_SYSTEM_MEMORY &&
	    !map_phys(access->address & ~(uint64_t)(PAGE_SIZE - 1), PAGE_SIZE,
		      MAP_WRITE | MAP_UNCACHED))
		return "the register's page could not be mapped";
	return NULL;
}

/* The port to use: the register's own, or the PCI data window once selected. */
static uint16_t port_for(const struct acpi_gas_access *access)
{
	if (access->space_id != ACPI_GAS_PCI_CONFIG)
		return (uint16_t)access->address;
	pci_select(access);
	return (uint16_t)(PCI_CONFIG_DATA + (access->address & 3));
}

const char *acpi_register_write(const struct acpi_generic_address *gas, unsigned int default_bytes,
				uint64_t value)
{
	struct acpi_gas_access access;
	const char *problem = check_access(gas, default_bytes, &access);
	volatile void *where = (volatile void *)(uintptr_t)access.address;
	uint16_t port;

	if (problem)
		return problem;
	if (access.space_id == ACPI_GAS_SYSTEM_MEMORY) {
		if (access.bytes == 1)
			*(volatile uint8_t *)where = (uint8_t)value;
		else if (access.bytes == 2)
			*(volatile uint16_t *)where = (uint16_t)value;
		else if (access.bytes == 4)
			*(volatile uint32_t *)where = (uint32_t)value;
		else
			*(volatile uint64_t *)where = value;
		return NULL;
	}
	port = port_for(&access);
	if (access.bytes == 1)
		outb(port, (uint8_t)value);
	else if (access.bytes == 2)
		outw(port, (uint16_t)value);
	else
		outl(port, (uint32_t)value);
	return NULL;
}

const char *acpi_register_read(const struct acpi_generic_address *gas, unsigned int default_bytes,
			       uint64_t *value)
{
	struct acpi_gas_access access;
	const char *problem = check_access(gas, default_bytes, &access);
	const volatile void *where = (const volatile void *)(uintptr_t)access.address;
	uint16_t port;

	if (problem)
		return problem;
	if (access.space_id == ACPI_GAS_SYSTEM_MEMORY) {
		if (access.bytes == 1)
			*value = *(const volatile uint8_t *)where;
		else if (access.bytes == 2)
			*value = *(const volatile uint16_t *)where;
		else if (access.bytes == 4)
			*value = *(const volatile uint32_t *)where;
		else
			*value = *(const volatile uint64_t *)where;
		return NULL;
	}
	port = port_for(&access);
	if (access.bytes == 1)
		*value = inb(port);
	else if (access.bytes == 2)
		*value = inw(port);
	else
		*value = inl(port);
	return NULL;
}
