/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_LIB_BYTES_H
#define TRIGOS_LIB_BYTES_H
/*
 * Reading fields out of the byte-packed, little-endian structures that
 * firmware and boot loaders hand over (ACPI 6.5 5.2, MP 1.4 chapter 4,
 * Multiboot2 3.6, the PVH start_info).
 *
 * Nothing promises such a field is aligned, and a fuzzer promises nothing at
 * all, so every multi-byte field is put together a byte at a time: no
 * unaligned load, no dependence on the host's byte order.
 */

#include <stddef.h>
#include <stdint.h>

/**
 * get_le16 - read a little-endian u16 from possibly unaligned memory
 * @bytes: the first of 2 readable bytes
 *
 * Return: the value.
 */
static inline uint16_t get_le16(const uint8_t *bytes)
{
	return (uint16_t)(bytes[0] | bytes[1] << 8);
}

/**
 * get_le32 - read a little-endian u32 from possibly unaligned memory
 * @bytes: the first of 4 readable bytes
 *
 * Return: the value.
 */
static inline uint32_t get_le32(const uint8_t *bytes)
{
	return (uint32_t)bytes[0] | (uint32_t)bytes[1] << 8 | (uint32_t)bytes[2] << 16 |
	       (uint32_t)bytes[3] << 24;
}

/**
 * get_le64 - read a little-endian u64 from possibly unaligned memory
 * @bytes: the first of 8 readable bytes
 *
 * Return: the value.
 */
static inline uint64_t get_le64(const uint8_t *bytes)
{
	return (uint64_t)get_le32(bytes) | (uint64_t)get_le32(bytes + 4) << 32;
}

/**
 * byte_sum - the sum of @length bytes, modulo 256
 * @bytes: the first of @length readable bytes
 * @length: how many to add up
 *
 * The checksum rule of ACPI (5.2.5.3 RSDP, 5.2.6 table header) and of the
 * MP tables (4.1 floating pointer, 4.2 configuration table): a structure is
 * valid when all its bytes sum to 0 mod 256.
 *
 * Return: the sum; 0 for a valid structure.
 */
static inline uint8_t byte_sum(const uint8_t *bytes, size_t length)
{
	uint8_t sum = 0;

	for (size_t i = 0; i < length; i++)
		sum = (uint8_t)(sum + bytes[i]);
	return sum;
}

#endif /* TRIGOS_LIB_BYTES_H */
