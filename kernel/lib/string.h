/* SPDX-License-Identifier: MIT */
#ifndef TRIGOS_LIB_STRING_H
#define TRIGOS_LIB_STRING_H
/*
 * The memory and string functions of C11 7.24 that the kernel needs, with
 * their standard names and semantics, plus the BSD strlcpy()/strlcat().
 *
 * They must exist under these names even if no kernel code called them:
 * gcc emits calls to memcpy, memmove, memset and memcmp by itself, for
 * structure copies and initialisations, even with -ffreestanding.  On the
 * host the names are mapped to lib_* by host_names.h.
 *
 * Bytes are compared as unsigned char everywhere, as C11 7.24.4 requires.
 * No function here checks for NULL: a NULL pointer is allowed only where
 * the matching count is zero.
 */

#include <stddef.h>

/**
 * memcpy - copy @count bytes from @source to @destination
 * @destination: where to copy to; must not overlap @source (use memmove())
 * @source: where to copy from
 * @count: number of bytes
 *
 * Return: @destination.
 */
void *memcpy(void *destination, const void *source, size_t count);

/**
 * memmove - copy @count bytes from @source to @destination, which may overlap
 * @destination: where to copy to
 * @source: where to copy from
 * @count: number of bytes
 *
 * The result is as if the bytes were first copied to a temporary buffer.
 *
 * Return: @destination.
 */
void *memmove(void *destination, const void *source, size_t count);

/**
 * memset - fill @count bytes at @destination with @value
 * @destination: the memory to fill
 * @value: the byte to store, converted to unsigned char
 * @count: number of bytes
 *
 * Return: @destination.
 */
void *memset(void *destination, int value, size_t count);

/**
 * memcmp - compare the first @count bytes of @left and @right
 * @left: first block
 * @right: second block
 * @count: number of bytes to compare
 *
 * Return: 0 if equal, otherwise the difference of the first differing bytes
 * (as unsigned char): negative if @left's is smaller, positive if larger.
 */
int memcmp(const void *left, const void *right, size_t count);

/**
 * memchr - find the first byte equal to @value among @count bytes at @memory
 * @memory: the block to search
 * @value: the byte to find, converted to unsigned char
 * @count: number of bytes to search; no byte beyond them is read
 *
 * Return: a pointer to the byte, or NULL if none of the @count bytes matches.
 */
void *memchr(const void *memory, int value, size_t count);

/**
 * strlen - length of the NUL-terminated string @text
 * @text: the string
 *
 * Return: the number of bytes before the terminating NUL.
 */
size_t strlen(const char *text);

/**
 * strnlen - length of @text, but look at no more than @max_length bytes
 * @text: the string, which need not be NUL-terminated within @max_length
 * @max_length: the most bytes to examine
 *
 * Return: strlen(@text) if that is smaller than @max_length, else @max_length.
 */
size_t strnlen(const char *text, size_t max_length);

/**
 * strcmp - compare two NUL-terminated strings
 * @left: first string
 * @right: second string
 *
 * Return: 0 if equal, negative if @left sorts first, positive if @right does
 * (bytes compared as unsigned char; a prefix sorts before the longer string).
 */
int strcmp(const char *left, const char *right);

/**
 * strncmp - compare at most @count bytes of two strings
 * @left: first string
 * @right: second string
 * @count: the most bytes to compare; comparison also stops at a NUL
 *
 * Return: as strcmp() for the compared part; 0 if @count is 0.
 */
int strncmp(const char *left, const char *right, size_t count);

/**
 * strchr - find the first occurrence of a character in a string
 * @text: the string to search
 * @character: the character, converted to char; '\0' finds the terminator
 *
 * Return: a pointer to the character in @text, or NULL if it is absent.
 */
char *strchr(const char *text, int character);

/**
 * strrchr - find the last occurrence of a character in a string
 * @text: the string to search
 * @character: the character, converted to char; '\0' finds the terminator
 *
 * Return: a pointer to the character in @text, or NULL if it is absent.
 */
char *strrchr(const char *text, int character);

/**
 * strstr - find the first occurrence of @needle in @haystack
 * @haystack: the string to search
 * @needle: the string to find; the empty string is found at @haystack
 *
 * Return: a pointer to the start of the match in @haystack, or NULL.
 */
char *strstr(const char *haystack, const char *needle);

/**
 * strlcpy - copy a string into a fixed-size buffer, always NUL-terminated
 * @destination: the buffer
 * @source: the string to copy; must not overlap @destination
 * @size: size of @destination in bytes; 0 means nothing is written
 *
 * Copies at most @size - 1 bytes and terminates the result when @size > 0.
 *
 * Return: strlen(@source), the length it tried to create; the copy was
 * truncated if that is >= @size.
 */
size_t strlcpy(char *destination, const char *source, size_t size);

/**
 * strlcat - append a string to the one in a fixed-size buffer
 * @destination: the buffer, holding a string
 * @source: the string to append; must not overlap @destination
 * @size: size of @destination in bytes (not the room left)
 *
 * Appends as much of @source as fits in @size - 1 bytes in all and
 * NUL-terminates.  If @destination has no NUL within its @size bytes,
 * nothing is written.
 *
 * Return: the length it tried to create, strnlen(@destination, @size) +
 * strlen(@source); the result was truncated if that is >= @size.
 */
size_t strlcat(char *destination, const char *source, size_t size);

#endif /* TRIGOS_LIB_STRING_H */
