// SPDX-License-Identifier: MIT
/*
 * Memory and string functions (C11 7.24) plus strlcpy()/strlcat().
 *
 * Written for clarity first: byte loops, except that memcpy(), memmove()
 * and memset() move a machine word at a time over the part of the buffers
 * where that is aligned, since those three carry the bulk copies (console
 * scrolling, page clearing, structure copies emitted by gcc).
 */
#include <lib/string.h>

#include <stdbool.h>
#include <stdint.h>

/*
 * gcc's loop-distribution pass recognises loops that copy, fill or measure
 * memory and replaces them with calls to memcpy(), memmove(), memset() or
 * strlen().  Inside those very functions the call is to themselves:
 * infinite recursion.  gcc 12 does exactly that to memset() and strlen()
 * here when this file is built hosted.  -ffreestanding and -fno-builtin
 * stop it today, but older gccs did it even under -ffreestanding (gcc bug
 * 56888) and nothing promises otherwise, so the pass is switched off for
 * these functions and for their helpers (which then still inline: gcc
 * inlines only between functions built with the same options).
 */
#define NO_LIBCALL_LOOPS __attribute__((optimize("no-tree-loop-distribute-patterns")))

/*
 * A word that may alias anything, like char does: the word loops read and
 * write buffers of any type, and the host build has strict aliasing on.
 */
typedef uint64_t __attribute__((may_alias)) word_t;

#define WORD_SIZE sizeof(word_t)

static inline bool word_aligned(const void *pointer)
{
	return ((uintptr_t)pointer & (WORD_SIZE - 1)) == 0;
}

/* Word copies need both pointers to reach alignment at the same offset. */
static inline bool same_alignment(const void *left, const void *right)
{
	return (((uintptr_t)left ^ (uintptr_t)right) & (WORD_SIZE - 1)) == 0;
}

/*
 * Copy from low to high addresses.  Correct for overlapping buffers when
 * @destination is below @source: every byte (or word) is read before the
 * copy can reach it, because writes trail reads by source - destination
 * bytes, and a word copy happens only when that distance is a multiple of
 * WORD_SIZE, so a word write never lands on a word not yet read.
 */
NO_LIBCALL_LOOPS
static void copy_forward(unsigned char *destination, const unsigned char *source, size_t count)
{
	size_t i = 0;

	if (same_alignment(destination, source)) {
		while (i < count && !word_aligned(destination + i)) {
			destination[i] = source[i];
			i++;
		}
		for (; count - i >= WORD_SIZE; i += WORD_SIZE)
			*(word_t *)(destination + i) = *(const word_t *)(source + i);
	}
	for (; i < count; i++)
		destination[i] = source[i];
}

/* Copy from high to low addresses: the mirror image, for destination > source. */
NO_LIBCALL_LOOPS
static void copy_backward(unsigned char *destination, const unsigned char *source, size_t count)
{
	size_t i = count;

	if (same_alignment(destination, source)) {
		while (i > 0 && !word_aligned(destination + i)) {
			i--;
			destination[i] = source[i];
		}
		for (; i >= WORD_SIZE; i -= WORD_SIZE)
			*(word_t *)(destination + i - WORD_SIZE) =
				*(const word_t *)(source + i - WORD_SIZE);
	}
	while (i > 0) {
		i--;
		destination[i] = source[i];
	}
}

NO_LIBCALL_LOOPS
void *memcpy(void *destination, const void *source, size_t count)
{
	copy_forward(destination, source, count);
	return destination;
}

NO_LIBCALL_LOOPS
void *memmove(void *destination, const void *source, size_t count)
{
	/*
	 * Compare as integers: relational comparison of pointers into
	 * different objects is undefined in C, and the buffers need not be
	 * parts of one object.
	 */
	if ((uintptr_t)destination <= (uintptr_t)source)
		copy_forward(destination, source, count);
	else
		copy_backward(destination, source, count);
	return destination;
}

NO_LIBCALL_LOOPS
void *memset(void *destination, int value, size_t count)
{
	unsigned char *bytes = destination;
	unsigned char byte = (unsigned char)value;
	/* The byte in every byte lane of a word. */
	word_t pattern = (word_t)byte * (UINT64_MAX / 0xff);
	size_t i = 0;

	while (i < count && !word_aligned(bytes + i))
		bytes[i++] = byte;
	for (; count - i >= WORD_SIZE; i += WORD_SIZE)
		*(word_t *)(bytes + i) = pattern;
	for (; i < count; i++)
		bytes[i] = byte;
	return destination;
}

int memcmp(const void *left, const void *right, size_t count)
{
	const unsigned char *a = left, *b = right;

	for (size_t i = 0; i < count; i++) {
		if (a[i] != b[i])
			return a[i] - b[i];
	}
	return 0;
}

void *memchr(const void *memory, int value, size_t count)
{
	const unsigned char *bytes = memory;
	unsigned char wanted = (unsigned char)value;

	for (size_t i = 0; i < count; i++) {
		if (bytes[i] == wanted)
			return (void *)(bytes + i);
	}
	return NULL;
}

NO_LIBCALL_LOOPS
size_t strlen(const char *text)
{
	size_t length = 0;

	while (text[length] != '\0')
		length++;
	return length;
}

NO_LIBCALL_LOOPS
size_t strnlen(const char *text, size_t max_length)
{
	size_t length = 0;

	while (length < max_length && text[length] != '\0')
		length++;
	return length;
}

int strcmp(const char *left, const char *right)
{
	const unsigned char *a = (const unsigned char *)left;
	const unsigned char *b = (const unsigned char *)right;
	size_t i = 0;

	/* Stopping at a's NUL suffices: if b ends first, the bytes differ. */
	while (a[i] != '\0' && a[i] == b[i])
		i++;
	return a[i] - b[i];
}

int strncmp(const char *left, const char *right, size_t count)
{
	const unsigned char *a = (const unsigned char *)left;
	const unsigned char *b = (const unsigned char *)right;

	for (size_t i = 0; i < count; i++) {
		if (a[i] != b[i])
			return a[i] - b[i];
		if (a[i] == '\0')
			break;
	}
	return 0;
}

char *strchr(const char *text, int character)
{
	char wanted = (char)character;

	for (;; text++) {
		if (*text == wanted)
			return (char *)text;
		if (*text == '\0')
			return NULL;
	}
}

char *strrchr(const char *text, int character)
{
	char wanted = (char)character;
	const char *last = NULL;

	for (;; text++) {
		if (*text == wanted)
			last = text;
		if (*text == '\0')
			return (char *)last;
	}
}

/*
 * The obvious quadratic search: the kernel searches short strings (command
 * lines, names), where a cleverer algorithm's set-up costs more than it saves.
 */
char *strstr(const char *haystack, const char *needle)
{
	size_t needle_length = strlen(needle);

	for (;; haystack++) {
		if (strncmp(haystack, needle, needle_length) == 0)
			return (char *)haystack;
		if (*haystack == '\0')
			return NULL;
	}
}

size_t strlcpy(char *destination, const char *source, size_t size)
{
	size_t source_length = strlen(source);

	if (size > 0) {
		size_t copied = source_length < size - 1 ? source_length : size - 1;

		memcpy(destination, source, copied);
		destination[copied] = '\0';
	}
	return source_length;
}

size_t strlcat(char *destination, const char *source, size_t size)
{
	size_t existing = strnlen(destination, size);

	/* No NUL within @size: not a string in this buffer; do not touch it. */
	if (existing == size)
		return size + strlen(source);
	return existing + strlcpy(destination + existing, source, size - existing);
}
