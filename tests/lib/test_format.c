// SPDX-License-Identifier: MIT
/*
 * Tests for kernel/lib/format.c.
 *
 * Every result is compared with a literal written out by hand (never with
 * the host's printf), together with the returned length.  Directives that
 * -Wformat rightly rejects (unknown conversions, flags that C ignores) go
 * through format_unchecked(), which has no format attribute.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <harness/test.h>
#include <lib/format.h>
#include <lib/string.h>

#define GUARD 0x5a

/*
 * The limits of int and long as <stdint.h> spells them (<limits.h> does
 * not work in the kernel build); trigos is LP64.
 */
_Static_assert(sizeof(int) == 4 && sizeof(long) == 8, "not LP64");
#define INT_MIN_VALUE	INT32_MIN
#define INT_MAX_VALUE	INT32_MAX
#define UINT_MAX_VALUE	UINT32_MAX
#define LONG_MIN_VALUE	((long)INT64_MIN)
#define LONG_MAX_VALUE	((long)INT64_MAX)
#define ULONG_MAX_VALUE	((unsigned long)UINT64_MAX)

/* vsnprintf() with its format hidden from -Wformat. */
static int format_unchecked(char *buffer, size_t size, const char *format, ...)
{
	va_list args;
	int length;

	va_start(args, format);
	length = vsnprintf(buffer, size, format, args);
	va_end(args);
	return length;
}

/* vscnprintf() through a real va_list. */
static int scformat(char *buffer, size_t size, const char *format, ...)
	__attribute__((format(printf, 3, 4)));
static int scformat(char *buffer, size_t size, const char *format, ...)
{
	va_list args;
	int length;

	va_start(args, format);
	length = vscnprintf(buffer, size, format, args);
	va_end(args);
	return length;
}

/* snprintf() into a roomy buffer must give exactly @expected (a literal). */
#define EXPECT_FORMAT(expected, ...)                                            \
	do {                                                                   \
		char output_[256];                                             \
		int length_ = snprintf(output_, sizeof(output_), __VA_ARGS__); \
		EXPECT_STREQ(output_, expected);                               \
		EXPECT_EQ(length_, (int)sizeof(expected) - 1);                 \
	} while (0)

#define EXPECT_FORMAT_UNCHECKED(expected, ...)                                  \
	do {                                                                   \
		char output_[256];                                             \
		int length_ = format_unchecked(output_, sizeof(output_), __VA_ARGS__); \
		EXPECT_STREQ(output_, expected);                               \
		EXPECT_EQ(length_, (int)sizeof(expected) - 1);                 \
	} while (0)

static void fill_guard(char *buffer, size_t size)
{
	for (size_t i = 0; i < size; i++)
		buffer[i] = (char)GUARD;
}

static bool all_guard(const char *buffer, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++) {
		if ((unsigned char)buffer[i] != GUARD)
			return false;
	}
	return true;
}

/*
 * Format at every buffer size from 0 to past the full length and check the
 * return value, the stored prefix, the NUL and that nothing beyond is written.
 */
static void check_every_size(int line, const char *expected, const char *format, ...)
	__attribute__((format(printf, 3, 4)));
static void check_every_size(int line, const char *expected, const char *format, ...)
{
	size_t expected_length = strlen(expected);
	char buffer[128];

	for (size_t size = 0; size <= expected_length + 2 && size < sizeof(buffer); size++) {
		size_t stored = size == 0 ? 0 : (expected_length < size - 1 ? expected_length : size - 1);
		va_list args;
		int length;
		bool good;

		fill_guard(buffer, sizeof(buffer));
		va_start(args, format);
		length = vsnprintf(buffer, size, format, args);
		va_end(args);

		good = length == (int)expected_length;
		for (size_t i = 0; i < stored; i++)
			good = good && buffer[i] == expected[i];
		if (size > 0)
			good = good && buffer[stored] == '\0';
		good = good && all_guard(buffer, size == 0 ? 0 : stored + 1, sizeof(buffer));
		if (!good)
			test_report_failure(__FILE__, line,
				"\"%s\" at size %zu: returned %d, stored \"%.*s\"", format, size,
				length, (int)stored, buffer);
	}
}

/* --- Plain text and %% ---------------------------------------------------- */

static void copies_plain_text(void)
{
	EXPECT_FORMAT_UNCHECKED("", "");
	EXPECT_FORMAT("hello, world", "hello, world");
	EXPECT_FORMAT("tab\tnewline\n", "tab\tnewline\n");
}

static void percent_percent_prints_one_percent(void)
{
	EXPECT_FORMAT("%", "%%");
	EXPECT_FORMAT("100%", "100%%");
	EXPECT_FORMAT("%d", "%%d");
	EXPECT_FORMAT("a%%b", "a%%%%b");
	/* Flags and width on %% are ignored (C leaves them undefined). */
	EXPECT_FORMAT_UNCHECKED("%", "%5%");
	EXPECT_FORMAT_UNCHECKED("[%]", "[%-05%]");
}

/* --- Integers ------------------------------------------------------------- */

static void formats_signed_decimal(void)
{
	EXPECT_FORMAT("0", "%d", 0);
	EXPECT_FORMAT("1", "%d", 1);
	EXPECT_FORMAT("-1", "%d", -1);
	EXPECT_FORMAT("2147483647", "%d", INT_MAX_VALUE);
	EXPECT_FORMAT("-2147483648", "%d", INT_MIN_VALUE);
	EXPECT_FORMAT("-42", "%i", -42);
	EXPECT_FORMAT("1000000", "%i", 1000000);
	EXPECT_FORMAT("x=-7,y=8", "x=%d,y=%d", -7, 8);
}

static void formats_64_bit_extremes(void)
{
	EXPECT_FORMAT("-9223372036854775808", "%lld", (long long)INT64_MIN);
	EXPECT_FORMAT("9223372036854775807", "%lld", (long long)INT64_MAX);
	EXPECT_FORMAT("-9223372036854775808", "%ld", LONG_MIN_VALUE);
	EXPECT_FORMAT("9223372036854775807", "%li", LONG_MAX_VALUE);
	EXPECT_FORMAT("-9223372036854775808", "%jd", INTMAX_MIN);
	EXPECT_FORMAT("-9223372036854775808", "%td", PTRDIFF_MIN);
	EXPECT_FORMAT("18446744073709551615", "%llu", (unsigned long long)UINT64_MAX);
	EXPECT_FORMAT("18446744073709551615", "%lu", ULONG_MAX_VALUE);
	EXPECT_FORMAT("18446744073709551615", "%ju", UINTMAX_MAX);
	EXPECT_FORMAT("18446744073709551615", "%zu", SIZE_MAX);
	EXPECT_FORMAT("ffffffffffffffff", "%llx", (unsigned long long)UINT64_MAX);
	EXPECT_FORMAT("FFFFFFFFFFFFFFFF", "%lX", ULONG_MAX_VALUE);
	EXPECT_FORMAT("8000000000000000", "%llx", 1ull << 63);
	EXPECT_FORMAT("10000000000000000000", "%llu", 10000000000000000000ull);
}

static void formats_unsigned_decimal(void)
{
	EXPECT_FORMAT("0", "%u", 0u);
	EXPECT_FORMAT("4294967295", "%u", UINT_MAX_VALUE);
	EXPECT_FORMAT("4294967295", "%u", (unsigned int)-1);
	EXPECT_FORMAT("2147483648", "%u", 2147483648u);
	EXPECT_FORMAT("42", "%zu", sizeof(char[42]));
}

static void formats_hexadecimal(void)
{
	EXPECT_FORMAT("0", "%x", 0u);
	EXPECT_FORMAT("ff", "%x", 255u);
	EXPECT_FORMAT("FF", "%X", 255u);
	EXPECT_FORMAT("deadbeef", "%x", 0xdeadbeefu);
	EXPECT_FORMAT("DEADBEEF", "%X", 0xdeadbeefu);
	EXPECT_FORMAT("ffffffff", "%x", (unsigned int)-1);
	EXPECT_FORMAT("123456789ABCDEF", "%llX", 0x0123456789abcdefull);
	EXPECT_FORMAT("abcdef", "%zx", (size_t)0xabcdef);
	EXPECT_FORMAT("10", "%jx", (uintmax_t)16);
}

static void length_modifiers_truncate_to_their_type(void)
{
	EXPECT_FORMAT("127", "%hhd", 127);
	EXPECT_FORMAT("-128", "%hhd", 128);
	EXPECT_FORMAT("-1", "%hhd", 255);
	EXPECT_FORMAT("0", "%hhd", 256);
	EXPECT_FORMAT("255", "%hhu", 0x1ff);
	EXPECT_FORMAT("255", "%hhu", -1);
	EXPECT_FORMAT("ff", "%hhx", 0x1ff);
	EXPECT_FORMAT("32767", "%hd", 32767);
	EXPECT_FORMAT("-32768", "%hd", 32768);
	EXPECT_FORMAT("-1", "%hi", 65535);
	EXPECT_FORMAT("0", "%hd", 65536);
	EXPECT_FORMAT("9029", "%hu", 0x12345);
	EXPECT_FORMAT("2345", "%hx", 0x12345);
	EXPECT_FORMAT("FFFF", "%hX", -1);
	EXPECT_FORMAT("-3", "%zd", (ptrdiff_t)-3);
	EXPECT_FORMAT("-5", "%td", (ptrdiff_t)-5);
	EXPECT_FORMAT_UNCHECKED("18446744073709551611", "%tu", (ptrdiff_t)-5);
	EXPECT_FORMAT("-2", "%lli", -2ll);
	/* A following argument is still read correctly after each size. */
	EXPECT_FORMAT("1 2 3 4 5 6 7 8", "%hhd %hd %d %ld %lld %zu %td %jd", 1, 2, 3, 4l, 5ll,
		      (size_t)6, (ptrdiff_t)7, (intmax_t)8);
}

static void width_pads_integers(void)
{
	EXPECT_FORMAT("   42", "%5d", 42);
	EXPECT_FORMAT("42   |", "%-5d|", 42);
	EXPECT_FORMAT("00042", "%05d", 42);
	EXPECT_FORMAT("-0042", "%05d", -42);
	EXPECT_FORMAT("  -42", "%5d", -42);
	EXPECT_FORMAT("12345", "%2d", 12345);
	EXPECT_FORMAT("12345", "%5d", 12345);
	EXPECT_FORMAT("42", "%0d", 42);
	EXPECT_FORMAT("       123", "%10u", 123u);
	EXPECT_FORMAT("000000beef", "%010x", 0xbeefu);
	EXPECT_FORMAT("beef      |", "%-10x|", 0xbeefu);
	EXPECT_FORMAT("-9223372036854775808", "%20lld", (long long)INT64_MIN);
	EXPECT_FORMAT(" -9223372036854775808", "%21lld", (long long)INT64_MIN);
	EXPECT_FORMAT("-009223372036854775808", "%022lld", (long long)INT64_MIN);
	/* '-' overrides '0'. */
	EXPECT_FORMAT_UNCHECKED("-42  |", "%-05d|", -42);
	EXPECT_FORMAT_UNCHECKED("42   |", "%0-5d|", 42);
}

static void sign_flags(void)
{
	EXPECT_FORMAT("+5", "%+d", 5);
	EXPECT_FORMAT("-5", "%+d", -5);
	EXPECT_FORMAT("+0", "%+d", 0);
	EXPECT_FORMAT(" 5", "% d", 5);
	EXPECT_FORMAT("-5", "% d", -5);
	EXPECT_FORMAT(" 0", "% d", 0);
	EXPECT_FORMAT("   42", "% 5d", 42);
	EXPECT_FORMAT("+0042", "%+05d", 42);
	EXPECT_FORMAT(" 0042", "% 05d", 42);
	EXPECT_FORMAT("+42  |", "%-+5d|", 42);
	EXPECT_FORMAT("+9223372036854775807", "%+lld", (long long)INT64_MAX);
	/* '+' overrides ' '; neither applies to unsigned conversions. */
	EXPECT_FORMAT_UNCHECKED("+5", "%+ d", 5);
	EXPECT_FORMAT_UNCHECKED("+5", "% +d", 5);
	EXPECT_FORMAT_UNCHECKED("5", "%+u", 5u);
	EXPECT_FORMAT_UNCHECKED("ff", "% x", 255u);
	EXPECT_FORMAT_UNCHECKED("FF", "%+X", 255u);
}

static void alternate_form_prefixes_hex(void)
{
	EXPECT_FORMAT("0xff", "%#x", 255u);
	EXPECT_FORMAT("0XFF", "%#X", 255u);
	/* No prefix for zero, as C says. */
	EXPECT_FORMAT("0", "%#x", 0u);
	EXPECT_FORMAT("0xffffffffffffffff", "%#llx", (unsigned long long)UINT64_MAX);
	EXPECT_FORMAT("0x0000ab", "%#08x", 0xabu);
	EXPECT_FORMAT("    0xab", "%#8x", 0xabu);
	EXPECT_FORMAT("0xab    |", "%-#8x|", 0xabu);
	EXPECT_FORMAT("0xab", "%#2x", 0xabu);
	/* '#' means nothing to decimal conversions. */
	EXPECT_FORMAT_UNCHECKED("42", "%#d", 42);
	EXPECT_FORMAT_UNCHECKED("42", "%#u", 42u);
}

static void precision_sets_minimum_digits(void)
{
	EXPECT_FORMAT("00042", "%.5d", 42);
	EXPECT_FORMAT("-00042", "%.5d", -42);
	EXPECT_FORMAT("42", "%.1d", 42);
	EXPECT_FORMAT("42", "%.2d", 42);
	EXPECT_FORMAT("   00042", "%8.5d", 42);
	EXPECT_FORMAT("00042   |", "%-8.5d|", 42);
	EXPECT_FORMAT("+007", "%+.3d", 7);
	EXPECT_FORMAT("00a", "%.3x", 0xau);
	EXPECT_FORMAT("0x00ab", "%#.4x", 0xabu);
	EXPECT_FORMAT("  0x00ab", "%#8.4x", 0xabu);
	EXPECT_FORMAT("00000000000000000001", "%.20llu", 1ull);
	EXPECT_FORMAT("-0000009223372036854775808", "%.25lld", (long long)INT64_MIN);
	/* With a precision, '0' is ignored. */
	EXPECT_FORMAT_UNCHECKED("   00042", "%08.5d", 42);
	EXPECT_FORMAT_UNCHECKED("      -7", "%08.1d", -7);
}

static void zero_with_precision_zero_prints_no_digits(void)
{
	EXPECT_FORMAT("", "%.0d", 0);
	EXPECT_FORMAT("[]", "[%.d]", 0);
	EXPECT_FORMAT("     |", "%5.0d|", 0);
	EXPECT_FORMAT("|     ", "|%-5.0d", 0);
	EXPECT_FORMAT("1", "%.0d", 1);
	EXPECT_FORMAT("", "%.0u", 0u);
	EXPECT_FORMAT("", "%.0x", 0u);
	EXPECT_FORMAT("", "%#.0x", 0u);
	EXPECT_FORMAT("+", "%+.0d", 0);
	EXPECT_FORMAT(" ", "% .0d", 0);
	EXPECT_FORMAT_UNCHECKED("     ", "%#5.0x", 0u);
	EXPECT_FORMAT("0", "%.1d", 0);
}

/* --- Widths and precisions from arguments --------------------------------- */

static void star_takes_width_and_precision_from_arguments(void)
{
	EXPECT_FORMAT("   42", "%*d", 5, 42);
	EXPECT_FORMAT("42", "%*d", 0, 42);
	EXPECT_FORMAT("42   |", "%-*d|", 5, 42);
	EXPECT_FORMAT("0007", "%.*d", 4, 7);
	EXPECT_FORMAT("", "%.*d", 0, 0);
	EXPECT_FORMAT("   007", "%*.*d", 6, 3, 7);
	EXPECT_FORMAT("    ab|", "%*.*s|", 6, 2, "abcdef");
	EXPECT_FORMAT("00042", "%0*d", 5, 42);
	EXPECT_FORMAT("x", "%*s", 0, "x");
	/* The argument after a '*' is the right one. */
	EXPECT_FORMAT("  a|b", "%*c|%c", 3, 'a', 'b');
}

static void negative_star_width_means_left_justify(void)
{
	EXPECT_FORMAT("42   |", "%*d|", -5, 42);
	EXPECT_FORMAT("42   |", "%-*d|", -5, 42);
	EXPECT_FORMAT("42   |", "%0*d|", -5, 42);
	EXPECT_FORMAT("ab  |", "%*s|", -4, "ab");
}

static void negative_star_precision_means_none(void)
{
	EXPECT_FORMAT("7", "%.*d", -1, 7);
	EXPECT_FORMAT("0", "%.*d", -1, 0);
	EXPECT_FORMAT("abc", "%.*s", -1, "abc");
	/* No precision, so '0' applies again. */
	EXPECT_FORMAT_UNCHECKED("00007", "%05.*d", -3, 7);
}

/* --- Strings, characters, pointers ---------------------------------------- */

static void formats_strings(void)
{
	EXPECT_FORMAT("abc", "%s", "abc");
	EXPECT_FORMAT("", "%s", "");
	EXPECT_FORMAT("[]", "[%s]", "");
	EXPECT_FORMAT("  abc", "%5s", "abc");
	EXPECT_FORMAT("abc  |", "%-5s|", "abc");
	EXPECT_FORMAT("abcdef", "%2s", "abcdef");
	EXPECT_FORMAT("     ", "%5s", "");
	EXPECT_FORMAT("one two", "%s %s", "one", "two");
	/* A string's '%' is not a directive. */
	EXPECT_FORMAT("%d", "%s", "%d");
}

static void string_precision_limits_length(void)
{
	const char letters[3] = { 'x', 'y', 'z' };	/* no NUL: must not be read past */

	EXPECT_FORMAT("ab", "%.2s", "abc");
	EXPECT_FORMAT("", "%.0s", "abc");
	EXPECT_FORMAT("abc", "%.10s", "abc");
	EXPECT_FORMAT("abc", "%.3s", "abc");
	EXPECT_FORMAT("   ab|", "%5.2s|", "abc");
	EXPECT_FORMAT("ab   |", "%-5.2s|", "abc");
	EXPECT_FORMAT("xyz", "%.3s", letters);
	EXPECT_FORMAT("xy", "%.2s", letters);
	EXPECT_FORMAT("xyz", "%.*s", 3, letters);
	EXPECT_FORMAT("xyz", "%.*s", (int)sizeof(letters), letters);
}

static void null_string_prints_null(void)
{
	const char *nothing = NULL;

	EXPECT_FORMAT_UNCHECKED("(null)", "%s", nothing);
	EXPECT_FORMAT_UNCHECKED("  (null)", "%8s", nothing);
	EXPECT_FORMAT_UNCHECKED("(null)  |", "%-8s|", nothing);
	EXPECT_FORMAT_UNCHECKED("(nu", "%.3s", nothing);
}

static void formats_characters(void)
{
	EXPECT_FORMAT("A", "%c", 'A');
	EXPECT_FORMAT("  A", "%3c", 'A');
	EXPECT_FORMAT("A  |", "%-3c|", 'A');
	EXPECT_FORMAT("abc", "%c%c%c", 'a', 'b', 'c');
	/* The int argument is converted to (unsigned) char. */
	EXPECT_FORMAT("A", "%c", 0x141);
	EXPECT_FORMAT("\xe9", "%c", 0xe9);
	EXPECT_FORMAT("%", "%c", '%');
}

static void character_nul_is_stored_and_counted(void)
{
	char buffer[8];

	fill_guard(buffer, sizeof(buffer));
	EXPECT_EQ(snprintf(buffer, sizeof(buffer), "a%cb", 0), 3);
	EXPECT_MEMEQ(buffer, "a\0b", 4);
	EXPECT_TRUE(all_guard(buffer, 4, sizeof(buffer)));
}

static void pointers_print_sixteen_hex_digits(void)
{
	EXPECT_FORMAT("0x0000000000001234", "%p", (void *)0x1234);
	EXPECT_FORMAT("0x0000000000000000", "%p", (void *)NULL);
	EXPECT_FORMAT("0xffffffffffffffff", "%p", (void *)UINTPTR_MAX);
	EXPECT_FORMAT("0xffff800000000000", "%p", (void *)0xffff800000000000ull);
	EXPECT_FORMAT("0x0123456789abcdef", "%p", (void *)0x0123456789abcdefull);
	EXPECT_FORMAT("  0x0000000000001234|", "%20p|", (void *)0x1234);
	EXPECT_FORMAT("0x0000000000001234  |", "%-20p|", (void *)0x1234);
	EXPECT_FORMAT("0x0000000000001234", "%5p", (void *)0x1234);
	EXPECT_FORMAT("[0x00000000000000ff]", "[%p]", (void *)0xff);
	/* Only width and '-' apply to %p. */
	EXPECT_FORMAT_UNCHECKED("  0x0000000000001234|", "%020p|", (void *)0x1234);
	EXPECT_FORMAT_UNCHECKED("0x0000000000001234", "%.3p", (void *)0x1234);
	EXPECT_FORMAT_UNCHECKED("0x0000000000001234", "%#+ p", (void *)0x1234);
}

static void mixed_directives(void)
{
	EXPECT_FORMAT("answer=42 (0x2a)!", "%s=%d (%#x)%c", "answer", 42, 42u, '!');
	EXPECT_FORMAT("cpu 3: [ 0042] ok 0x0000000000001000", "cpu %u: [%5.4d] %s %p", 3u, 42,
		      "ok", (void *)0x1000);
	EXPECT_FORMAT("-1 4294967295 ffffffff", "%d %u %x", -1, (unsigned int)-1,
		      (unsigned int)-1);
}

/* --- Unknown and unfinished directives ------------------------------------ */

static void unknown_conversion_prints_literally(void)
{
	EXPECT_FORMAT_UNCHECKED("%q", "%q");
	EXPECT_FORMAT_UNCHECKED("a%qb", "a%qb");
	EXPECT_FORMAT_UNCHECKED("%5q", "%5q");
	EXPECT_FORMAT_UNCHECKED("%-08.3q", "%-08.3q");
	EXPECT_FORMAT_UNCHECKED("%lq", "%lq");
	EXPECT_FORMAT_UNCHECKED("%hld", "%hld");
	EXPECT_FORMAT_UNCHECKED("%lll", "%lll");
	EXPECT_FORMAT_UNCHECKED("%o %f %n", "%o %f %n");
	/* An unknown directive consumes no argument. */
	EXPECT_FORMAT_UNCHECKED("%q7", "%q%d", 7);
	/* Except one for a '*' it had, which is read before the conversion is seen. */
	EXPECT_FORMAT_UNCHECKED("%*q9", "%*q%d", 5, 9);
}

static void length_modifier_on_non_integer_prints_literally(void)
{
	EXPECT_FORMAT_UNCHECKED("%lsabc", "%ls%s", "abc");
	EXPECT_FORMAT_UNCHECKED("%lcx", "%lc%c", 'x');
	EXPECT_FORMAT_UNCHECKED("%hhs", "%hhs");
	EXPECT_FORMAT_UNCHECKED("%lp", "%lp");
	EXPECT_FORMAT_UNCHECKED("%l%", "%l%");
}

static void format_ending_inside_a_directive(void)
{
	EXPECT_FORMAT_UNCHECKED("%", "%");
	EXPECT_FORMAT_UNCHECKED("100%", "100%");
	EXPECT_FORMAT_UNCHECKED("%l", "%l");
	EXPECT_FORMAT_UNCHECKED("%ll", "%ll");
	EXPECT_FORMAT_UNCHECKED("%hh", "%hh");
	EXPECT_FORMAT_UNCHECKED("%-", "%-");
	EXPECT_FORMAT_UNCHECKED("%5", "%5");
	EXPECT_FORMAT_UNCHECKED("%.", "%.");
	EXPECT_FORMAT_UNCHECKED("%#0 +-12.34z", "%#0 +-12.34z");
	EXPECT_FORMAT_UNCHECKED("%.*", "%.*", 3);
	EXPECT_FORMAT_UNCHECKED("7%", "%d%", 7);
}

static void format_ending_in_percent_cut_by_the_buffer(void)
{
	char buffer[3];

	fill_guard(buffer, sizeof(buffer));
	EXPECT_EQ(format_unchecked(buffer, sizeof(buffer), "ab%"), 3);
	EXPECT_STREQ(buffer, "ab");
	EXPECT_EQ(format_unchecked(buffer, sizeof(buffer), "%q"), 2);
	EXPECT_STREQ(buffer, "%q");
}

/* --- Buffer sizes, truncation, return values ------------------------------ */

static void truncates_at_every_size(void)
{
	check_every_size(__LINE__, "12345:hello:beef", "%d:%s:%x", 12345, "hello", 0xbeefu);
	check_every_size(__LINE__, "ab    |    cd|", "%-6s|%6s|", "ab", "cd");
	check_every_size(__LINE__, "0x00000abc", "%#010llx", 0xabcull);
	check_every_size(__LINE__, "[ -007]", "[%5.3d]", -7);
	check_every_size(__LINE__, "-9223372036854775808", "%lld", (long long)INT64_MIN);
	check_every_size(__LINE__, "18446744073709551615", "%llu", (unsigned long long)UINT64_MAX);
	check_every_size(__LINE__, "0x00000000deadbeef", "%p", (void *)0xdeadbeef);
	check_every_size(__LINE__, "(x)", "(%c)", 'x');
	check_every_size(__LINE__, "50%", "%d%%", 50);
	check_every_size(__LINE__, "", "%s", "");
}

static void size_zero_writes_nothing(void)
{
	char buffer[4];

	EXPECT_EQ(snprintf(NULL, 0, "%d", 12345), 5);
	EXPECT_EQ(snprintf(NULL, 0, "%s-%s", "ab", "cd"), 5);
	EXPECT_EQ(format_unchecked(NULL, 0, ""), 0);
	fill_guard(buffer, sizeof(buffer));
	EXPECT_EQ(snprintf(buffer, 0, "%s", "abc"), 3);
	EXPECT_TRUE(all_guard(buffer, 0, sizeof(buffer)));
}

static void size_one_stores_only_the_nul(void)
{
	char buffer[4];

	fill_guard(buffer, sizeof(buffer));
	EXPECT_EQ(snprintf(buffer, 1, "%s", "abc"), 3);
	EXPECT_EQ(buffer[0], '\0');
	EXPECT_TRUE(all_guard(buffer, 1, sizeof(buffer)));
}

static void writes_nothing_after_the_nul(void)
{
	char buffer[16];

	fill_guard(buffer, sizeof(buffer));
	EXPECT_EQ(snprintf(buffer, sizeof(buffer), "%s", "abc"), 3);
	EXPECT_STREQ(buffer, "abc");
	EXPECT_TRUE(all_guard(buffer, 4, sizeof(buffer)));
}

static void width_larger_than_the_buffer(void)
{
	char buffer[8];

	EXPECT_EQ(snprintf(buffer, sizeof(buffer), "%100d", 5), 100);
	EXPECT_STREQ(buffer, "       ");
	EXPECT_EQ(snprintf(buffer, sizeof(buffer), "%-100d", 5), 100);
	EXPECT_STREQ(buffer, "5      ");
	EXPECT_EQ(snprintf(buffer, sizeof(buffer), "%.100d", 5), 100);
	EXPECT_STREQ(buffer, "0000000");
	EXPECT_EQ(snprintf(buffer, sizeof(buffer), "%100s", "abc"), 100);
	EXPECT_STREQ(buffer, "       ");
	EXPECT_EQ(snprintf(buffer, sizeof(buffer), "%-100s|", "abc"), 101);
	EXPECT_STREQ(buffer, "abc    ");
	EXPECT_EQ(snprintf(buffer, sizeof(buffer), "%1000000d", 5), 1000000);
	EXPECT_STREQ(buffer, "       ");
}

static void huge_widths_saturate_the_return_value(void)
{
	char buffer[8];

	/* Each costs time for the buffer only, not for the width. */
	EXPECT_EQ(format_unchecked(buffer, sizeof(buffer), "%2147483647d", 1), INT_MAX_VALUE);
	EXPECT_STREQ(buffer, "       ");
	EXPECT_EQ(format_unchecked(buffer, sizeof(buffer), "%2147483647d%2147483647d", 1, 2),
		  INT_MAX_VALUE);
	/* A width written with more digits than an int holds is INT_MAX. */
	EXPECT_EQ(format_unchecked(buffer, sizeof(buffer), "%-99999999999999999999d|", 1),
		  INT_MAX_VALUE);
	EXPECT_STREQ(buffer, "1      ");
	EXPECT_EQ(format_unchecked(buffer, sizeof(buffer), "%*d", INT_MIN_VALUE, 1), INT_MAX_VALUE);
	EXPECT_STREQ(buffer, "1      ");
	EXPECT_EQ(format_unchecked(buffer, sizeof(buffer), "%.2147483647d", 1), INT_MAX_VALUE);
	EXPECT_STREQ(buffer, "0000000");
	EXPECT_EQ(format_unchecked(buffer, sizeof(buffer), "%2147483646d", 1), INT_MAX_VALUE - 1);
}

static void scnprintf_returns_what_was_stored(void)
{
	char buffer[8];

	EXPECT_EQ(scnprintf(buffer, sizeof(buffer), "%s", "abc"), 3);
	EXPECT_STREQ(buffer, "abc");
	EXPECT_EQ(scnprintf(buffer, sizeof(buffer), "%s", "abcdefghij"), 7);
	EXPECT_STREQ(buffer, "abcdefg");
	EXPECT_EQ(scnprintf(buffer, sizeof(buffer), "%s", "1234567"), 7);
	EXPECT_EQ(scnprintf(buffer, sizeof(buffer), "%s", "12345678"), 7);
	EXPECT_EQ(scnprintf(buffer, 1, "%d", 5), 0);
	EXPECT_STREQ(buffer, "");
	EXPECT_EQ(scnprintf(NULL, 0, "%d", 5), 0);
	EXPECT_EQ(scnprintf(buffer, sizeof(buffer), "%100d", 5), 7);
	EXPECT_EQ(scformat(buffer, sizeof(buffer), "%d-%d", 12, 34), 5);
	EXPECT_STREQ(buffer, "12-34");
	EXPECT_EQ(scformat(buffer, 4, "%d-%d", 12, 34), 3);
	EXPECT_STREQ(buffer, "12-");
	EXPECT_EQ(scformat(NULL, 0, "%d", 1), 0);
}

static void scnprintf_appends_without_overrunning(void)
{
	char buffer[10];
	size_t used = 0;

	fill_guard(buffer, sizeof(buffer));
	for (int i = 0; i < 10; i++)
		used += (size_t)scnprintf(buffer + used, sizeof(buffer) - used, "%d,", i);
	EXPECT_EQ(used, 9u);
	EXPECT_STREQ(buffer, "0,1,2,3,4");
}

static void snprintf_and_vsnprintf_agree(void)
{
	char direct[32], through_va_list[32];

	EXPECT_EQ(snprintf(direct, sizeof(direct), "%s %d %x", "a", -1, 2u), 6);
	EXPECT_EQ(format_unchecked(through_va_list, sizeof(through_va_list), "%s %d %x", "a", -1,
				   2u), 6);
	EXPECT_STREQ(direct, "a -1 2");
	EXPECT_STREQ(through_va_list, "a -1 2");
}

static const struct test_case lib_format_cases[] = {
	TEST_CASE(copies_plain_text),
	TEST_CASE(percent_percent_prints_one_percent),
	TEST_CASE(formats_signed_decimal),
	TEST_CASE(formats_64_bit_extremes),
	TEST_CASE(formats_unsigned_decimal),
	TEST_CASE(formats_hexadecimal),
	TEST_CASE(length_modifiers_truncate_to_their_type),
	TEST_CASE(width_pads_integers),
	TEST_CASE(sign_flags),
	TEST_CASE(alternate_form_prefixes_hex),
	TEST_CASE(precision_sets_minimum_digits),
	TEST_CASE(zero_with_precision_zero_prints_no_digits),
	TEST_CASE(star_takes_width_and_precision_from_arguments),
	TEST_CASE(negative_star_width_means_left_justify),
	TEST_CASE(negative_star_precision_means_none),
	TEST_CASE(formats_strings),
	TEST_CASE(string_precision_limits_length),
	TEST_CASE(null_string_prints_null),
	TEST_CASE(formats_characters),
	TEST_CASE(character_nul_is_stored_and_counted),
	TEST_CASE(pointers_print_sixteen_hex_digits),
	TEST_CASE(mixed_directives),
	TEST_CASE(unknown_conversion_prints_literally),
	TEST_CASE(length_modifier_on_non_integer_prints_literally),
	TEST_CASE(format_ending_inside_a_directive),
	TEST_CASE(format_ending_in_percent_cut_by_the_buffer),
	TEST_CASE(truncates_at_every_size),
	TEST_CASE(size_zero_writes_nothing),
	TEST_CASE(size_one_stores_only_the_nul),
	TEST_CASE(writes_nothing_after_the_nul),
	TEST_CASE(width_larger_than_the_buffer),
	TEST_CASE(huge_widths_saturate_the_return_value),
	TEST_CASE(scnprintf_returns_what_was_stored),
	TEST_CASE(scnprintf_appends_without_overrunning),
	TEST_CASE(snprintf_and_vsnprintf_agree),
};
TEST_SUITE(lib_format, lib_format_cases, NULL, NULL);
