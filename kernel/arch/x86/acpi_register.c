// SPDX-License-Identifier: MIT
/*
 * Reading and writing the registers ACPI describes with a Generic Address
 * Structure (ACPI 6.5, 5.2.3.2): I/O ports, memory-mapped registers and PCI
 * configuration space of bus 0.  The decoding, its width rules and its
 * checks are in kernel/lib (acpi_fadt_register_access(), host-tested on real
 * machines' FADTs); this file does the access.
 *
 * PCI configuration space is reached through configuration mechanism #1
 * (PCI Local Bus 3.0, 3.2.2.3.2: address to 0xCF8, data at 0xCFC plus the
 * offset's low two bits), which covers the first 256 bytes of a function;
 * a register beyond that would need the MCFG's ECAM window and is refused.
 */
#include <arch/acpi_register.h>
#include <arch/paging.h>
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

static const char *check_access(const struct acpi_fadt *fadt, enum acpi_fadt_register which,
				struct acpi_gas_access *access)
{
	if (acpi_fadt_register_access(fadt, which, access) != ACPI_OK)
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

static void memory_access(uintptr_t address, unsigned int bytes, bool write, uint64_t *value)
{
	switch (bytes) {
	case 1:
		if (write)
			*(volatile uint8_t *)address = (uint8_t)*value;
		else
			*value = *(const volatile uint8_t *)address;
		break;
	case 2:
		if (write)
			*(volatile uint16_t *)address = (uint16_t)*value;
		else
			*value = *(const volatile uint16_t *)address;
		break;
	case 4:
		if (write)
			*(volatile uint32_t *)address = (uint32_t)*value;
		else
			*value = *(const volatile uint32_t *)address;
		break;
	default:
		if (write)
			*(volatile uint64_t *)address = *value;
		else
			*value = *(const volatile uint64_t *)address;
	}
}

/* acpi_fadt_register_access() allows no 8-byte I/O or PCI access. */
static void port_access(uint16_t port, unsigned int bytes, bool write, uint64_t *value)
{
	switch (bytes) {
	case 1:
		if (write)
			outb(port, (uint8_t)*value);
		else
			*value = inb(port);
		break;
	case 2:
		if (write)
			outw(port, (uint16_t)*value);
		else
			*value = inw(port);
		break;
	default:
		if (write)
			outl(port, (uint32_t)*value);
		else
			*value = inl(port);
	}
}

static const char *register_access(const struct acpi_fadt *fadt, enum acpi_fadt_register which,
				   bool write, uint64_t *value)
{
	struct acpi_gas_access access;
	const char *problem = check_access(fadt, which, &access);

	if (problem)
		return problem;
	if (access.space_id == ACPI_GAS_SYSTEM_MEMORY)
		memory_access((uintptr_t)access.address, access.bytes, write, value);
	else
		port_access(port_for(&access), access.bytes, write, value);
	return NULL;
}

const char *acpi_register_write(const struct acpi_fadt *fadt, enum acpi_fadt_register which,
				uint64_t value)
{
	return register_access(fadt, which, true, &value);
}

const char *acpi_register_read(const struct acpi_fadt *fadt, enum acpi_fadt_register which,
			       uint64_t *value)
{
	return register_access(fadt, which, false, value);
}
