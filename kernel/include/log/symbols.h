/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_SYMBOLS_H
#define TRIGOS_SYMBOLS_H
/* The kernel's own symbol table, embedded at build time (tools/symbols). */

#include <stddef.h>
#include <stdint.h>

/**
 * symbol_lookup - the function containing @address
 * @address: a code address
 * @offset: set to @address minus the symbol's start
 * Returns the symbol name, or NULL when @address is outside the kernel text.
 */
const char *symbol_lookup(uint64_t address, uint64_t *offset);

/** symbol_address - the address of the function named @name, or 0 */
uint64_t symbol_address(const char *name);

/** symbol_count - how many symbols the table holds (0 in the first link pass) */
size_t symbol_count(void);

/**
 * symbol_format - "name+0xoffset" (or just the address) into @buffer
 * Returns @buffer.
 */
char *symbol_format(uint64_t address, char *buffer, size_t size);

/**
 * symbol_format_return_address - like symbol_format(), but names the
 * function containing the call that pushed return address @address
 */
char *symbol_format_return_address(uint64_t address, char *buffer, size_t size);

#endif
