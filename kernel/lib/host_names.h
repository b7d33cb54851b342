/* SPDX-License-Identifier: MIT */
/*
 * Force-included (-include) into every file of the host unit-test build only.
 *
 * kernel/lib provides the C library functions the kernel needs under their
 * standard names (the compiler itself emits calls to memcpy and memset).  On
 * the host those names belong to the real C library, so the test build renames
 * ours; a system header that declares memcpy then declares lib_memcpy with the
 * same prototype, which is harmless, and the tests exercise our code, not libc's.
 */
#define memcpy lib_memcpy
#define memmove lib_memmove
#define memset lib_memset
#define memcmp lib_memcmp
#define memchr lib_memchr
#define strlen lib_strlen
#define strnlen lib_strnlen
#define strcmp lib_strcmp
#define strncmp lib_strncmp
#define strchr lib_strchr
#define strrchr lib_strrchr
#define strstr lib_strstr
#define strlcpy lib_strlcpy
#define strlcat lib_strlcat
#define vsnprintf lib_vsnprintf
#define snprintf lib_snprintf
#define vscnprintf lib_vscnprintf
#define scnprintf lib_scnprintf
