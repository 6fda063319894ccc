/*
 * test_format.c - the format engine against glibc snprintf, byte for byte.
 *
 * Most of the checks are differential: random formats and arguments are
 * rendered by xlog_fmt_render and by snprintf with the same real arguments, and
 * the bytes and lengths must be equal.  A format with several conversions is
 * compared one "segment" (literal text plus one conversion) at a time, because
 * C cannot build a snprintf call with a run-time list of mixed argument types;
 * our side always renders the whole format from one argument array, so
 * argument order is still checked.  A few fixed shapes are also compared as
 * whole formats.  What our defined behaviour deliberately changes (%n,
 * unknown conversions, missing arguments) is tested with exact expected
 * strings.  The output is raw, control bytes and invalid UTF-8 included, as
 * snprintf's is; escaping it for a line is the layouts' work (test_escape.c).
 *
 * glibc's output depends on the locale: the comparisons also run in locales
 * with digit grouping (the ' flag) and decimal points of several bytes, which
 * tests/make_locales.sh builds into XLOG_TEST_LOCALES before this test runs.
 * A locale that is missing is reported and its cases skipped; the C locale's
 * cases always run.
 *
 * The random seed is printed; set XLOG_FORMAT_SEED to replay a run.
 */
#include <errno.h>
#include <fenv.h>
#include <float.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include <cmocka.h>

#include "format/digits.h"
#include "format/format.h"
#include "record/record.h"
#include "format_reference.h"

/* ------------------------------------------------------------------------ */
/* Helpers                                                                  */
/* ------------------------------------------------------------------------ */

static uint64_t rng_state;
static uint64_t seed;

static uint64_t rand64(void)
{
    /* splitmix64: good enough, tiny, and the same everywhere */
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static unsigned rand_below(unsigned n)
{
    return (unsigned)(rand64() % n);
}

static int rand_between(int lo, int hi)
{
    return lo + (int)rand_below((unsigned)(hi - lo + 1));
}

static int one_in(unsigned n)
{
    return rand_below(n) == 0;
}

#ifndef XLOG_TEST_LOCALES
#define XLOG_TEST_LOCALES "" /* built outside CMake: the locale cases are skipped */
#endif

/* Sets category to one of the locales make_locales.sh built (LC_ALL for the
 * system ones, LC_NUMERIC alone for xlog_numeric); says so and returns false
 * when it is missing. */
static bool use_test_locale(int category, const char *name)
{
    setenv("LOCPATH", XLOG_TEST_LOCALES, 1); /* read by setlocale itself */
    bool found = setlocale(category, name) != NULL;
    unsetenv("LOCPATH");
    if (!found)
        printf("test_format: locale %s not found in \"%s\": its cases are SKIPPED\n", name,
               XLOG_TEST_LOCALES);
    return found;
}

/* The locales the comparisons with glibc also run in. */
static const struct test_locale {
    int category;
    const char *name;
} test_locales[] = {
    { LC_ALL, "de_DE.UTF-8" },         /* "1.234.567,5", the issue's example */
    { LC_ALL, "fr_FR.UTF-8" },         /* U+202F, three bytes, between groups */
    { LC_ALL, "en_IN.UTF-8" },         /* groups of 3, then of 2: 12,34,567 */
    { LC_ALL, "ps_AF.UTF-8" },         /* U+066B and U+066C, decimal point and separator */
    { LC_NUMERIC, "xlog_numeric.UTF-8" }, /* groups of 1, of 2, then none */
};
#define TEST_LOCALE_COUNT (sizeof test_locales / sizeof test_locales[0])

static bool use_numbered_locale(size_t i)
{
    setlocale(LC_ALL, "C.UTF-8");
    return use_test_locale(test_locales[i].category, test_locales[i].name);
}

static int setup_seed(void **state)
{
    (void)state;
    const char *env = getenv("XLOG_FORMAT_SEED");
    seed = env ? strtoull(env, NULL, 0) : 20240611u;
    printf("test_format: seed %llu (set XLOG_FORMAT_SEED to replay)\n", (unsigned long long)seed);
    return 0;
}

/* Shows bytes readably in failure messages. */
static const char *visible(const char *p, size_t n)
{
    static char text[4][2048];
    static int which;
    char *out = text[which++ & 3];
    size_t o = 0;
    for (size_t i = 0; i < n && o + 8 < sizeof text[0]; i++) {
        unsigned char b = (unsigned char)p[i];
        if (b >= 0x20 && b < 0x7f && b != '\\')
            out[o++] = (char)b;
        else
            o += (size_t)sprintf(out + o, "\\x%02x", b);
    }
    out[o] = '\0';
    return out;
}

static char rendered[1 << 20];

/* The format parsed once, as the back end keeps a call site's, renders the
 * same bytes, whole and cut at cap, as xlog_fmt_render.  A format the
 * parser does not keep (too long, too many conversions) is rendered by
 * xlog_fmt_render alone, and that is checked too. */
static void expect_parsed_render(const char *fmt, size_t fmt_len, const xlog_arg *args,
                                 size_t nargs, const char *expected, size_t expected_len,
                                 size_t cap)
{
    xlog_fmt_parsed parsed;
    size_t conversions = 0;
    const char *cursor = fmt;
    xlog_conv c;
    while (xlog_fmt_next(&cursor, fmt + fmt_len, &c))
        conversions += c.conv != 0;
    int keepable = fmt_len <= XLOG_FMT_PARSED_MAX_LENGTH &&
                   conversions <= XLOG_FMT_PARSED_CONVERSIONS;
    assert_int_equal(xlog_fmt_parse(fmt, fmt_len, &parsed), keepable);
    if (!keepable)
        return;
    size_t n = xlog_fmt_render_parsed(&parsed, fmt, args, nargs, rendered, sizeof rendered);
    if (n != expected_len || n > sizeof rendered || memcmp(rendered, expected, n) != 0) {
        fail_msg("parsed format \"%s\" (seed %llu)\n  expected [%s] (%zu)\n  rendered [%s] (%zu)",
                 visible(fmt, fmt_len), (unsigned long long)seed, visible(expected, expected_len),
                 expected_len, visible(rendered, n < sizeof rendered ? n : sizeof rendered), n);
    }
    char small[64];
    memset(small, '#', sizeof small);
    assert_int_equal(xlog_fmt_render_parsed(&parsed, fmt, args, nargs, small, cap), expected_len);
    assert_memory_equal(small, expected, cap);
    if (cap < sizeof small)
        assert_int_equal(small[cap], '#');
    assert_int_equal(xlog_fmt_render_parsed(&parsed, fmt, args, nargs, NULL, 0), expected_len);
}

/* Renders and checks the whole output and the prefix property. */
static void expect_render(const char *fmt, size_t fmt_len, const xlog_arg *args, size_t nargs,
                          const char *expected, size_t expected_len)
{
    size_t n = xlog_fmt_render(fmt, fmt_len, args, nargs, rendered, sizeof rendered);
    if (n != expected_len || n > sizeof rendered || memcmp(rendered, expected, n) != 0) {
        fail_msg("format \"%s\" (seed %llu)\n  expected [%s] (%zu)\n  rendered [%s] (%zu)",
                 visible(fmt, fmt_len), (unsigned long long)seed, visible(expected, expected_len),
                 expected_len, visible(rendered, n < sizeof rendered ? n : sizeof rendered), n);
    }
    /* A smaller capacity writes a prefix and still returns the full length. */
    char small[64];
    size_t cap = rand_below((unsigned)(expected_len < sizeof small ? expected_len + 1 : sizeof small));
    memset(small, '#', sizeof small);
    assert_int_equal(xlog_fmt_render(fmt, fmt_len, args, nargs, small, cap), expected_len);
    assert_memory_equal(small, expected, cap);
    if (cap < sizeof small)
        assert_int_equal(small[cap], '#');
    assert_int_equal(xlog_fmt_render(fmt, fmt_len, args, nargs, NULL, 0), expected_len);
    expect_parsed_render(fmt, fmt_len, args, nargs, expected, expected_len, cap);
}

static void expect_text(const char *fmt, const xlog_arg *args, size_t nargs, const char *expected)
{
    expect_render(fmt, strlen(fmt), args, nargs, expected, strlen(expected));
}

/* ------------------------------------------------------------------------ */
/* Random arguments                                                         */
/* ------------------------------------------------------------------------ */

static const int64_t edge_ints[] = {
    0, 1, -1, 7, 8, 9, 10, 15, 16, 99, 100, 127, 128, -128, -129, 255, 256, 32767, 32768,
    -32768, 65535, 65536, INT_MAX, INT_MIN, (int64_t)INT_MAX + 1, UINT_MAX, (int64_t)UINT_MAX + 1,
    LLONG_MAX, LLONG_MIN, 1000000007, -999999999, 0x7f, 0x80, 0xff, 0x100,
};

static int64_t random_integer(void)
{
    switch (rand_below(4)) {
    case 0: return edge_ints[rand_below(sizeof edge_ints / sizeof edge_ints[0])];
    case 1: return (int64_t)rand64();
    case 2: return (int64_t)(rand64() >> rand_below(64));
    default: return rand_between(-1000, 1000);
    }
}

static double random_double(void)
{
    static const double edges[] = {
        0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.5, -2.5, 0.125, 0.375, 1e-7, 5e-7, 4.9999995e-7,
        0.05, 0.15, 0.25, 0.35, 9.9999995, 0.9999995, 0.99999949999, 999999.9999996,
        123456.789, 1e15, 1e17, 1e18, 9.999999999999999e17, 1e22, 1e23, 1e300, 1e-300,
        DBL_MAX, -DBL_MAX, DBL_MIN, DBL_TRUE_MIN, DBL_EPSILON, 4503599627370495.5,
        9007199254740993.0, 18446744073709551616.0, 0.1, 0.2, 0.3, 3.141592653589793,
    };
    uint64_t bits;
    double d;
    switch (rand_below(8)) {
    case 0: return edges[rand_below(sizeof edges / sizeof edges[0])];
    case 1:
        switch (rand_below(4)) {
        case 0: return INFINITY;
        case 1: return -INFINITY;
        case 2: return NAN;
        default: return -NAN;
        }
    case 2:
        bits = rand64();
        memcpy(&d, &bits, sizeof d);
        return d; /* any pattern, denormals and nans included */
    case 3: /* a decimal such as a person logs: 12.345 */
        return (double)rand_between(-2000000, 2000000) / pow(10, rand_below(8));
    case 4: /* exact binary fractions: many are printf ties */
        return ldexp((double)rand_between(-100000, 100000), -(int)rand_below(20));
    case 5: /* next to a tie of a short decimal */
        d = ((double)rand_between(0, 100000) + 0.5) / pow(10, rand_below(7));
        return rand_below(3) == 0 ? d : nextafter(d, one_in(2) ? 0.0 : 1e30);
    case 6:
        return ldexp((double)(rand64() >> 11), rand_between(-1100, 1000)) * (one_in(2) ? 1 : -1);
    default:
        return (double)(int64_t)rand64() / pow(10, rand_below(25));
    }
}

static long double random_long_double(void)
{
    static const long double edges[] = {
        0.0L, -0.0L, 1.0L, 0.5L, 2.5L, 1e-4950L, LDBL_MAX, LDBL_MIN, -LDBL_MAX, 1e100L,
        0.1L, 3.14159265358979323846L, 1e-20L,
    };
    switch (rand_below(4)) {
    case 0: return edges[rand_below(sizeof edges / sizeof edges[0])];
    case 1: return one_in(2) ? (long double)INFINITY : (long double)NAN * (one_in(2) ? 1 : -1);
    case 2: return ldexpl((long double)rand64(), rand_between(-16400, 16300));
    default: return (long double)random_double();
    }
}

/* Every string and buffer a case uses, freed when the case ends. */
static void *allocations[64];
static int allocation_count;

static void *case_alloc(size_t n)
{
    assert_true(allocation_count < (int)(sizeof allocations / sizeof allocations[0]));
    void *p = malloc(n ? n : 1);
    assert_non_null(p);
    allocations[allocation_count++] = p;
    return p;
}

static void free_case(void)
{
    while (allocation_count > 0)
        free(allocations[--allocation_count]);
}

/* A random byte for a string, never NUL (control and UTF-8 bytes included). */
static char random_text_byte(void)
{
    static const char common[] = "abcxyzABC019 -_/.:,;=()[]{}<>!?'\"@#$^&*~\\|";
    switch (rand_below(6)) {
    case 0: return (char)rand_between(1, 255);
    case 1: return (char)(0x80 + rand_below(0x80));
    default: return common[rand_below(sizeof common - 1)];
    }
}

static wchar_t random_wide_char(int utf8)
{
    static const wchar_t wide[] = { L'a', L'Z', L'\n', 0xe9, 0x20ac, 0x4e2d, 0x1f600, 0x7f, 0x80 };
    size_t count = sizeof wide / sizeof wide[0];
    if (!utf8) /* mostly ASCII: the C locale refuses the rest */
        return one_in(8) ? wide[rand_below((unsigned)count)] : (wchar_t)rand_between(1, 127);
    return one_in(20) ? (wchar_t)0xd800 /* not encodable */ : wide[rand_below((unsigned)count)];
}

/* ------------------------------------------------------------------------ */
/* Random formats                                                           */
/* ------------------------------------------------------------------------ */

/* One generated conversion: its text and the arguments it consumes. */
typedef struct planned {
    char spec[64];
    int stars[2];
    int nstars;
    int star_precision; /* the precision is a '*' */
    xlog_arg value;
    unsigned char kind;
} planned;

static const char *const int_lengths[] = { "", "hh", "h", "l", "ll", "j", "z", "t" };
static const unsigned char int_kinds[] = {
    XLOG_ARG_INT, XLOG_ARG_INT, XLOG_ARG_INT, XLOG_ARG_LONG,
    XLOG_ARG_LLONG, XLOG_ARG_INTMAX, XLOG_ARG_SIZE, XLOG_ARG_PTRDIFF,
};

/* Writes flags, width and precision (up to max_precision, or exactly
 * forced_precision when that is >= 0) at *s, noting '*' arguments in p. */
static void plan_field(planned *p, char **s, int max_precision, int forced_precision)
{
    static const char flags[] = "-+ #0'";
    for (int n = (int)rand_below(4); n > 0; n--)
        *(*s)++ = flags[rand_below(6)];
    switch (rand_below(5)) {
    case 0: case 1: break;
    case 2: case 3: *s += sprintf(*s, "%d", rand_between(1, 30)); break;
    default:
        *(*s)++ = '*';
        p->stars[p->nstars++] = rand_between(-30, 30);
        break;
    }
    int choice = forced_precision >= 0 ? 3 + (int)rand_below(2) : (int)rand_below(6);
    switch (choice) {
    case 0: case 1: break;
    case 2: *(*s)++ = '.'; break; /* precision 0 */
    case 3:
        *s += sprintf(*s, ".%d", forced_precision >= 0 ? forced_precision
                                                       : rand_between(0, max_precision));
        break;
    default: /* '*', negative values included */
        *(*s)++ = '.';
        *(*s)++ = '*';
        p->star_precision = 1;
        p->stars[p->nstars++] = forced_precision >= 0 ? forced_precision
                                                      : rand_between(-5, max_precision);
        break;
    }
}

/* errno values for %m: known ones, 0, and numbers without a message or name */
static const int errno_values[] = {
    0, EPERM, ENOENT, EINTR, EAGAIN, EINVAL, ENOSPC, EPIPE, ETIMEDOUT, EHWPOISON,
    134, 200, 4096, 1234567, -1, -5, INT_MAX, INT_MIN,
};
#define ERRNO_VALUE_COUNT (sizeof errno_values / sizeof errno_values[0])

static void plan_conversion(planned *p, int utf8)
{
    static const char int_convs[] = "diouxXbB";
    static const char float_convs[] = "fFeEgGaA";
    char *s = p->spec;
    *s++ = '%';
    p->nstars = 0;
    p->star_precision = 0;
    switch (rand_below(10)) {
    case 0: case 1: { /* integers */
        plan_field(p, &s, 25, -1);
        unsigned length = rand_below(8);
        s += sprintf(s, "%s%c", int_lengths[length], int_convs[rand_below(8)]);
        p->kind = int_kinds[length];
        int64_t v = random_integer();
        switch (p->kind) {
        case XLOG_ARG_INT: p->value.i = (int)v; break;
        case XLOG_ARG_LONG: p->value.i = (long)v; break;
        case XLOG_ARG_PTRDIFF: p->value.i = (ptrdiff_t)v; break;
        default: p->value.i = v; break;
        }
        break;
    }
    case 2: case 3: { /* floating */
        int is_long = one_in(5);
        plan_field(p, &s, one_in(4) ? 60 : 17, -1);
        s += sprintf(s, "%s%c", is_long ? "L" : one_in(8) ? "l" : "", float_convs[rand_below(8)]);
        p->kind = is_long ? XLOG_ARG_LDOUBLE : XLOG_ARG_DOUBLE;
        if (is_long)
            p->value.ld = random_long_double();
        else
            p->value.d = random_double();
        break;
    }
    case 4: { /* strings, sometimes without a NUL within reach, or NULL */
        if (one_in(6)) {
            plan_field(p, &s, 8, -1);
            *s++ = 's';
            p->kind = XLOG_ARG_STR;
            p->value.s.ptr = NULL;
            p->value.s.len = 0;
            break;
        }
        size_t len = rand_below(12);
        /* Unterminated ones get a precision of at least 1: ASan's snprintf
         * interceptor takes ".0" for "no precision" and would report a false
         * overflow (test_strings_with_length covers ".0" on our side). */
        int terminated = len == 0 || !one_in(3);
        char *buf = case_alloc(len + terminated);
        for (size_t i = 0; i < len; i++)
            buf[i] = one_in(25) ? '\0' : random_text_byte();
        if (terminated)
            buf[len] = '\0';
        plan_field(p, &s, 15, terminated ? -1 : rand_between(1, (int)len));
        *s++ = 's';
        p->kind = XLOG_ARG_STR;
        p->value.s.ptr = buf;
        p->value.s.len = len;
        break;
    }
    case 5: /* characters */
        plan_field(p, &s, 5, -1);
        if (one_in(3)) {
            s += sprintf(s, "lc");
            p->kind = XLOG_ARG_WINT;
            p->value.u = (wint_t)random_wide_char(utf8);
        } else {
            *s++ = 'c';
            p->kind = XLOG_ARG_INT;
            p->value.i = (int)random_integer();
        }
        break;
    case 6: /* pointers */
        plan_field(p, &s, 20, -1);
        *s++ = 'p';
        p->kind = XLOG_ARG_PTR;
        p->value.p = one_in(4) ? NULL : (const void *)(uintptr_t)(rand64() >> rand_below(64));
        break;
    case 7: /* "%%", also with the flags and width glibc ignores */
        if (one_in(3))
            plan_field(p, &s, 5, -1);
        *s++ = '%';
        p->kind = XLOG_ARG_NONE;
        break;
    case 8: /* %m, with the length modifiers glibc ignores */
        plan_field(p, &s, 30, -1);
        s += sprintf(s, "%sm", one_in(4) ? int_lengths[rand_below(8)] : "");
        p->kind = XLOG_ARG_ERRNO;
        p->value.i = errno_values[rand_below(ERRNO_VALUE_COUNT)];
        break;
    default: { /* wide strings, NUL-terminated for snprintf's sake, or NULL */
        if (one_in(6)) {
            plan_field(p, &s, 8, -1);
            s += sprintf(s, "ls");
            p->kind = XLOG_ARG_WSTR;
            p->value.ws.ptr = NULL;
            p->value.ws.len = 0;
            break;
        }
        size_t len = rand_below(8);
        wchar_t *ws = case_alloc((len + 1) * sizeof *ws);
        for (size_t i = 0; i < len; i++)
            ws[i] = random_wide_char(utf8);
        ws[len] = L'\0';
        plan_field(p, &s, 12, -1);
        s += sprintf(s, "ls");
        p->kind = XLOG_ARG_WSTR;
        p->value.ws.ptr = ws;
        p->value.ws.len = len + one_in(2); /* with or without its NUL */
        break;
    }
    }
    *s = '\0';
}

/* Literal text: anything but '%' and NUL, control and UTF-8 bytes included. */
static size_t random_literal(char *out, size_t max)
{
    size_t n = rand_below((unsigned)max + 1);
    for (size_t i = 0; i < n; i++) {
        char b;
        do
            b = random_text_byte();
        while (b == '%');
        out[i] = b;
    }
    return n;
}

static char expected[1 << 20];

/* Builds a random format of up to 4 conversions, renders it, and compares
 * it with snprintf of each segment (literal text and one conversion). */
static void differential_case(int utf8)
{
    char fmt[1024];
    size_t fmt_len = 0, expected_len = 0;
    xlog_arg args[12];
    unsigned char arg_kinds[12];
    size_t nargs = 0;
    int conversions = (int)rand_below(5);

    for (int i = 0; i <= conversions; i++) {
        char segment[256];
        size_t seg_len = random_literal(segment, 8);
        if (i == conversions) { /* the trailing literal text */
            memcpy(fmt + fmt_len, segment, seg_len);
            memcpy(expected + expected_len, segment, seg_len);
            fmt_len += seg_len;
            expected_len += seg_len;
            break;
        }
        planned p;
        plan_conversion(&p, utf8);
        size_t spec_len = strlen(p.spec);
        memcpy(segment + seg_len, p.spec, spec_len + 1);
        seg_len += spec_len;

        int n = reference_snprintf(expected + expected_len, sizeof expected - expected_len, segment,
                                   p.stars, p.nstars, p.kind, &p.value, p.value.s.ptr);
        if (n < 0) {
            /* glibc refused a wide character; we show the segment literally. */
            memcpy(expected + expected_len, segment, seg_len);
            n = (int)seg_len;
        }
        assert_true((size_t)n < sizeof expected - expected_len);
        expected_len += (size_t)n;
        memcpy(fmt + fmt_len, segment, seg_len);
        fmt_len += seg_len;

        for (int s = 0; s < p.nstars; s++) {
            args[nargs].i = p.stars[s];
            arg_kinds[nargs++] = XLOG_ARG_INT;
        }
        if (p.kind != XLOG_ARG_NONE) {
            /* a string bounded by a '*' precision is flagged: the caller
             * copies no more of it than that int says */
            int bounded = p.star_precision && (p.kind == XLOG_ARG_STR || p.kind == XLOG_ARG_WSTR);
            args[nargs] = p.value;
            arg_kinds[nargs++] = (unsigned char)(p.kind | (bounded ? XLOG_KIND_STAR_PRECISION : 0));
        }
    }

    /* Both ends agree on the argument list. */
    unsigned char kinds[12];
    int count = xlog_record_kinds(fmt, fmt_len, kinds, NULL, 12, NULL);
    assert_int_equal(count, (int)nargs);
    assert_memory_equal(kinds, arg_kinds, nargs);

    expect_render(fmt, fmt_len, args, nargs, expected, expected_len);
    free_case();
}

static void test_differential_c_locale(void **state)
{
    (void)state;
    rng_state = seed;
    for (int i = 0; i < 40000; i++)
        differential_case(0);
}

static void test_differential_utf8_locale(void **state)
{
    (void)state;
    rng_state = seed ^ 0x5555;
    assert_non_null(setlocale(LC_ALL, "C.UTF-8"));
    for (int i = 0; i < 5000; i++)
        differential_case(1);
    setlocale(LC_ALL, "C");
}

/* The same in locales that group digits and have other decimal points. */
static void test_differential_grouping_locales(void **state)
{
    (void)state;
    for (size_t l = 0; l < TEST_LOCALE_COUNT; l++) {
        rng_state = seed ^ (0x6666 + l);
        if (!use_numbered_locale(l))
            continue;
        for (int i = 0; i < 3000; i++)
            differential_case(1);
    }
    setlocale(LC_ALL, "C");
}

/* Whole formats with several conversions in one snprintf call. */
static void test_whole_formats(void **state)
{
    (void)state;
    rng_state = seed ^ 0xaaaa;
    static const char int_convs[] = "diouxXc";
    static const char float_convs[] = "fFeEgGaA";
    static const char flags[] = "-+ #0'";
    for (int i = 0; i < 5000; i++) {
        char fmt[128], *s = fmt;
        s += sprintf(s, "user %%");
        for (int f = (int)rand_below(3); f > 0; f--)
            *s++ = flags[rand_below(6)];
        s += sprintf(s, "s logged in, id %%");
        for (int f = (int)rand_below(3); f > 0; f--)
            *s++ = flags[rand_below(6)];
        if (one_in(2))
            s += sprintf(s, "%d", rand_between(1, 12));
        s += sprintf(s, "%c, took %%", int_convs[rand_below(7)]);
        if (one_in(2))
            s += sprintf(s, "%d", rand_between(1, 20));
        if (one_in(2))
            s += sprintf(s, ".%d", rand_between(0, 12));
        s += sprintf(s, "%c ms %%%%", float_convs[rand_below(8)]);

        char name[16];
        size_t name_len = rand_below(sizeof name);
        for (size_t k = 0; k < name_len; k++)
            name[k] = (char)('a' + rand_below(26));
        name[name_len] = '\0';
        int id = (int)random_integer();
        double ms = random_double();

        int n = snprintf(expected, sizeof expected, fmt, name, id, ms);
        assert_true(n >= 0);
        xlog_arg args[3];
        args[0].s.ptr = name;
        args[0].s.len = name_len;
        args[1].i = id;
        args[2].d = ms;
        expect_render(fmt, strlen(fmt), args, 3, expected, (size_t)n);
    }
}

/* The "%f" fast path, hammered where it is hardest: ties, carries, precision
 * 0 to 17, magnitudes around its limits. */
static void test_fixed_point(void **state)
{
    (void)state;
    rng_state = seed ^ 0xf00d;
    for (int i = 0; i < 200000; i++) {
        double x;
        switch (rand_below(4)) {
        case 0: x = random_double(); break;
        case 1: x = ldexp((double)(rand64() >> 11), rand_between(-70, 10)); break;
        case 2: x = (double)rand_between(0, 1 << 30) / pow(10, rand_below(16)) + 0.5 / pow(10, rand_below(16)); break;
        default: x = nextafter(floor((double)rand_between(0, 1000000)) + 0.5, one_in(2) ? 0.0 : 1e9) / pow(10, rand_below(10)); break;
        }
        if (one_in(2))
            x = -x;
        char fmt[16];
        int precision = rand_between(0, 17);
        if (one_in(6))
            snprintf(fmt, sizeof fmt, "%%f");
        else
            snprintf(fmt, sizeof fmt, "%%%s.%df", one_in(4) ? "+#" : "", precision);
        int n = snprintf(expected, sizeof expected, fmt, x);
        xlog_arg arg = { .d = x };
        expect_render(fmt, strlen(fmt), &arg, 1, expected, (size_t)n);
    }
}

/* glibc rounds by the current rounding mode; the fast path must notice. */
static void test_fixed_point_rounding_modes(void **state)
{
    (void)state;
    rng_state = seed ^ 0xbeef;
    static const int modes[] = { FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO };
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        for (int i = 0; i < 2000; i++) {
            double x = (double)rand_between(-2000000, 2000000) / pow(10, rand_below(8));
            char fmt[16];
            snprintf(fmt, sizeof fmt, "%%.%df", rand_between(0, 9));
            assert_int_equal(fesetround(modes[m]), 0);
            int n = snprintf(expected, sizeof expected, fmt, x);
            size_t len = xlog_fmt_render(fmt, strlen(fmt), &(xlog_arg){ .d = x }, 1, rendered,
                                         sizeof rendered);
            fesetround(FE_TONEAREST);
            if (len != (size_t)n || memcmp(rendered, expected, len) != 0)
                fail_msg("%s of %.17g in rounding mode %d: expected [%.*s], rendered [%.*s]", fmt,
                         x, modes[m], n, expected, (int)len, rendered);
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Parsing                                                                  */
/* ------------------------------------------------------------------------ */

static void test_kinds_list(void **state)
{
    (void)state;
    const char *fmt = "%d %s %*.*f %Lf %zu %n %% %lc %ls %p %hhx %lld %jd %td %lf %.*s";
    unsigned char kinds[32];
    static const unsigned char want[] = {
        XLOG_ARG_INT,   XLOG_ARG_STR,   XLOG_ARG_INT,    XLOG_ARG_INT,     XLOG_ARG_DOUBLE,
        XLOG_ARG_LDOUBLE, XLOG_ARG_SIZE, XLOG_ARG_PTR,   XLOG_ARG_WINT,    XLOG_ARG_WSTR,
        XLOG_ARG_PTR,   XLOG_ARG_INT,   XLOG_ARG_LLONG,  XLOG_ARG_INTMAX,  XLOG_ARG_PTRDIFF,
        XLOG_ARG_DOUBLE, XLOG_ARG_INT,  XLOG_ARG_STR | XLOG_KIND_STAR_PRECISION,
    };
    int n = xlog_record_kinds(fmt, strlen(fmt), kinds, NULL, 32, NULL);
    assert_int_equal(n, (int)sizeof want);
    assert_memory_equal(kinds, want, sizeof want);

    /* exactly enough room, then one too few: the count is the format's,
     * and only max kinds are stored */
    assert_int_equal(xlog_record_kinds(fmt, strlen(fmt), kinds, NULL, (int)sizeof want, NULL),
                     (int)sizeof want);
    memset(kinds, 0xee, sizeof kinds);
    assert_int_equal(xlog_record_kinds(fmt, strlen(fmt), kinds, NULL, (int)sizeof want - 1, NULL),
                     (int)sizeof want);
    assert_memory_equal(kinds, want, sizeof want - 1);
    assert_int_equal(kinds[sizeof want - 1], 0xee);
    assert_int_equal(xlog_record_kinds("%d", 2, NULL, NULL, 0, NULL), 1);
    assert_int_equal(xlog_record_kinds("no conversions %%", 17, NULL, NULL, 0, NULL), 0);
    assert_int_equal(xlog_record_kinds(NULL, 0, NULL, NULL, 0, NULL), 0);

    /* refused conversions consume nothing, even with '*' */
    const char *refused = "%y %*y %1$d %*1$d %Ld %hs %lp %hf %5";
    assert_int_equal(xlog_record_kinds(refused, strlen(refused), kinds, NULL, 32, NULL), 0);

    /* "%%" with '*' consumes the int, as glibc does */
    assert_int_equal(xlog_record_kinds("%*%", 3, kinds, NULL, 32, NULL), 1);
    assert_int_equal(kinds[0], XLOG_ARG_INT);
    /* the length ends the format: "%d" is cut to "%" */
    assert_int_equal(xlog_record_kinds("%d", 1, kinds, NULL, 32, NULL), 0);
}

/* What the caller needs besides the kinds: each conversion's fixed
 * precision (a string's bounds its copy), and whether any argument is a
 * string or %m (the shortest path saves no errno and measures no string). */
static void test_kinds_give_precisions_and_strings(void **state)
{
    (void)state;
    const char *fmt = "%.*s|%.5s|%*d|%m|%.3f|%ls";
    unsigned char kinds[8];
    int precision[8], strings = -1;
    static const unsigned char want[] = {
        XLOG_ARG_INT, XLOG_ARG_STR | XLOG_KIND_STAR_PRECISION, XLOG_ARG_STR, XLOG_ARG_INT,
        XLOG_ARG_INT, XLOG_ARG_ERRNO, XLOG_ARG_DOUBLE, XLOG_ARG_WSTR,
    };
    static const int want_precision[] = {-1, XLOG_FMT_STAR, 5, -1, XLOG_FMT_NONE, XLOG_FMT_NONE,
                                         3, XLOG_FMT_NONE};
    assert_int_equal(xlog_record_kinds(fmt, strlen(fmt), kinds, precision, 8, &strings), 8);
    assert_memory_equal(kinds, want, sizeof want);
    assert_memory_equal(precision, want_precision, sizeof want_precision);
    assert_int_equal(strings, 1);

    strings = -1;
    assert_int_equal(xlog_record_kinds("%d %p %g", 8, kinds, precision, 8, &strings), 3);
    assert_int_equal(strings, 0);
    strings = -1;
    assert_int_equal(xlog_record_kinds("%m", 2, kinds, NULL, 8, &strings), 1);
    assert_int_equal(kinds[0], XLOG_ARG_ERRNO);
    assert_int_equal(strings, 1);
}

static void test_next_describes(void **state)
{
    (void)state;
    const char *fmt = "ab%-+ #0*.*lldcd%12.3Lg";
    const char *cursor = fmt, *end = fmt + strlen(fmt);
    xlog_conv c;

    assert_int_equal(xlog_fmt_next(&cursor, end, &c), 1);
    assert_int_equal(c.lit_len, 2);
    assert_memory_equal(c.lit, "ab", 2);
    assert_int_equal(c.conv, 'd');
    assert_int_equal(c.spec_len, 12);
    assert_memory_equal(c.spec, "%-+ #0*.*lld", 12);
    assert_int_equal(c.flags, XLOG_FMT_FLAG_MINUS | XLOG_FMT_FLAG_PLUS | XLOG_FMT_FLAG_SPACE |
                                  XLOG_FMT_FLAG_HASH | XLOG_FMT_FLAG_ZERO);
    assert_int_equal(c.width, XLOG_FMT_STAR);
    assert_int_equal(c.precision, XLOG_FMT_STAR);
    assert_int_equal(c.length, XLOG_LEN_LL);
    assert_int_equal(c.kind, XLOG_ARG_LLONG);

    assert_int_equal(xlog_fmt_next(&cursor, end, &c), 1);
    assert_int_equal(c.lit_len, 2);
    assert_memory_equal(c.lit, "cd", 2);
    assert_int_equal(c.conv, 'g');
    assert_int_equal(c.width, 12);
    assert_int_equal(c.precision, 3);
    assert_int_equal(c.length, XLOG_LEN_BIG_L);
    assert_int_equal(c.kind, XLOG_ARG_LDOUBLE);
    assert_int_equal(c.flags, 0);
    assert_ptr_equal(cursor, end);

    assert_int_equal(xlog_fmt_next(&cursor, end, &c), 0);

    /* "%.d" is precision 0; trailing text is a last step with conv 0 */
    fmt = "%.dtail";
    cursor = fmt;
    end = fmt + strlen(fmt);
    assert_int_equal(xlog_fmt_next(&cursor, end, &c), 1);
    assert_int_equal(c.precision, 0);
    assert_int_equal(c.width, XLOG_FMT_NONE);
    assert_int_equal(xlog_fmt_next(&cursor, end, &c), 1);
    assert_int_equal(c.conv, 0);
    assert_int_equal(c.lit_len, 4);
    assert_int_equal(xlog_fmt_next(&cursor, end, &c), 0);
}

/* ------------------------------------------------------------------------ */
/* Defined behaviour for bad input                                          */
/* ------------------------------------------------------------------------ */

static void test_percent_n_is_refused(void **state)
{
    (void)state;
    int target = 12345;
    xlog_arg args[3];
    args[0].i = 7;
    args[1].p = &target;
    args[2].i = 8;
    expect_text("a%db%nc%d", args, 3, "a7b%nc8");
    assert_int_equal(target, 12345);

    unsigned char kinds[4];
    assert_int_equal(xlog_record_kinds("%hhn%*n", 7, kinds, NULL, 4, NULL), 3);
    assert_int_equal(kinds[0], XLOG_ARG_PTR);
    assert_int_equal(kinds[1], XLOG_ARG_INT);
    assert_int_equal(kinds[2], XLOG_ARG_PTR);
    args[0].p = &target;
    args[1].i = 5;
    args[2].p = &target;
    expect_text("%hhn|%*n|", args, 3, "%hhn|%*n|");
    assert_int_equal(target, 12345);
}

static void test_unknown_conversions(void **state)
{
    (void)state;
    xlog_arg args[2];
    args[0].i = 42;
    args[1].i = 43;
    expect_text("%y %d", args, 1, "%y 42");
    expect_text("100%5 done %d", args, 1, "100%5 done 42");
    expect_text("%*y %d", args, 1, "%*y 42");
    expect_text("%Ld %hs %lp %hf %zc %d", args, 1, "%Ld %hs %lp %hf %zc 42");
    expect_text("%qd %Zd %C %S %I5d %Lb %qm|%d", args, 1, "%qd %Zd %C %S %I5d %Lb %qm|42");
    expect_text("%d%h%d", args, 2, "42%h%d"); /* "%h%" is refused, 'd' is text */
    expect_text("%99999999999d|%d", args, 1, "%99999999999d|42");
    expect_text("%.99999999999d|%d", args, 1, "%.99999999999d|42");
    /* glibc prints "%" for "%5%" and consumes the '*' of "%*%" */
    expect_text("%5%|%-05.3%|%*%|%d", args, 2, "%|%|%|43");
}

static void test_trailing_and_cut_formats(void **state)
{
    (void)state;
    xlog_arg arg = { .i = 9 };
    expect_text("%d%", &arg, 1, "9%");
    expect_text("50%", NULL, 0, "50%");
    expect_text("%-08.", NULL, 0, "%-08.");
    expect_text("%ll", NULL, 0, "%ll");

    /* a format that is not NUL-terminated ends exactly at its length */
    static const char *const cut[] = { "%", "%5", "%l", "%.*", "ab%d" };
    for (size_t i = 0; i < sizeof cut / sizeof cut[0]; i++) {
        size_t n = strlen(cut[i]);
        char *exact = malloc(n);
        assert_non_null(exact);
        memcpy(exact, cut[i], n);
        size_t len = xlog_fmt_render(exact, n - (i == 4), &arg, 1, rendered, sizeof rendered);
        assert_int_equal(len, n - (i == 4));
        assert_memory_equal(rendered, cut[i], len);
        free(exact);
    }

    /* a NUL byte in the format is ordinary text */
    expect_render("a\0%d", 4, &arg, 1, "a\0" "9", 3);
}

static void test_positional_is_literal(void **state)
{
    (void)state;
    xlog_arg args[2] = { { .i = 1 }, { .i = 2 } };
    expect_text("%1$d %2$s|%d", args, 1, "%1$d %2$s|1");
    expect_text("%*1$d|%d", args, 1, "%*1$d|1");
    expect_text("%.*2$d|%d", args, 1, "%.*2$d|1");
}

static void test_missing_arguments(void **state)
{
    (void)state;
    xlog_arg args[3] = { { .i = 5 }, { .i = 6 }, { .i = 7 } };
    expect_text("%d %d %d", args, 2, "5 6 %d");
    expect_text("%d %s %% %d", args, 1, "5 %s % %d");
    /* "%*d" needs two: with one left it is literal, and so is what follows */
    expect_text("%d %*d %d", args, 2, "5 %*d %d");
    expect_text("%*.*d|%d", args, 2, "%*.*d|%d");
    expect_text("%d", NULL, 0, "%d");
    expect_text("%d %n %d", args, 2, "5 %n %d");
}

/* A NULL %p is glibc's "(nil)", padded with spaces even with '0'. */
static void test_null_pointer(void **state)
{
    (void)state;
    xlog_arg nil = { .p = NULL };
    expect_text("[%p|%08p|%-7p|%.9p]", (xlog_arg[]){ nil, nil, nil, nil }, 4,
                "[(nil)|   (nil)|(nil)  |(nil)]");
}

static void test_strings_with_length(void **state)
{
    (void)state;
    /* exactly 5 bytes, no NUL after them */
    char *five = malloc(5);
    assert_non_null(five);
    memcpy(five, "hello", 5);
    xlog_arg arg = { .s = { five, 5 } };
    expect_text("[%s|%.3s|%7s|%-7.2s|%.9s|%3.0s]", (xlog_arg[]){ arg, arg, arg, arg, arg, arg }, 6,
                "[hello|hel|  hello|he     |hello|   ]");
    arg.s.len = 3;
    expect_text("[%s]", &arg, 1, "[hel]");
    free(five);

    /* a NUL within the length ends the string, as in C */
    xlog_arg with_nul = { .s = { "ab\0cd", 5 } };
    expect_text("[%s|%4s]", (xlog_arg[]){ with_nul, with_nul }, 2, "[ab|  ab]");
    xlog_arg empty = { .s = { "", 0 } };
    expect_text("[%s|%3s]", (xlog_arg[]){ empty, empty }, 2, "[|   ]");
}

static void test_negative_star(void **state)
{
    (void)state;
    xlog_arg args[4] = { { .i = -6 }, { .i = -1 }, { .i = 42 } };
    expect_text("[%*.*d]", args, 3, "[42    ]");
    args[0].i = 6;
    args[1].i = -3;
    args[2].d = 1.5;
    expect_text("[%*.*f]", args, 3, "[1.500000]");
    args[2].i = 0;
    expect_text("[%0*.*d]", args, 3, "[000000]");
    args[0].i = INT_MIN; /* a width of 2^31: counted, not written */
    args[1].i = 5;
    assert_int_equal(xlog_fmt_render("%*d", 3, args, 2, rendered, 16), (size_t)INT_MAX + 1);
    assert_memory_equal(rendered, "5      ", 7);
}

static void test_huge_fields(void **state)
{
    (void)state;
    int n;
    xlog_arg arg = { .i = 7 };
    char out[8];
    assert_int_equal(xlog_fmt_render("%2147483647d", 12, &arg, 1, out, sizeof out), 2147483647u);
    assert_memory_equal(out, "        ", 8);
    assert_int_equal(xlog_fmt_render("%.2147483647d", 13, &arg, 1, out, sizeof out), 2147483647u);
    assert_memory_equal(out, "00000000", 8);
    arg.d = 2.0;
    assert_int_equal(xlog_fmt_render("%-2147483647f", 13, &arg, 1, out, sizeof out), 2147483647u);
    assert_memory_equal(out, "2.000000", 8);
    /* precisions past a value's exact expansion, whose zeros we add */
    static const struct { const char *fmt; double d; } tails[] = {
        { "%.2000f", DBL_TRUE_MIN }, { "%.1500f", -0.1 }, { "%.1000e", DBL_TRUE_MIN },
        { "%.900E", 1e300 }, { "%#.1000g", 1e-300 }, { "%.1000g", 1e-300 }, { "%#.900g", 123.5 },
        { "%#.900G", 1e20 }, { "%.40a", 0.1 }, { "%#.40A", -DBL_MAX }, { "%.40a", DBL_TRUE_MIN },
        { "%.1000e", 0x0.fffffffffffffp-1022 }, { "%.1000G", 0x1.fffffffffffffp-1021 },
        { "%0+1200.1100f", 1.0 / 3 }, { "%.2000f", INFINITY }, { "%-1100.1100e", NAN },
    };
    for (size_t i = 0; i < sizeof tails / sizeof tails[0]; i++) {
        n = snprintf(expected, sizeof expected, tails[i].fmt, tails[i].d);
        xlog_arg v = { .d = tails[i].d };
        expect_render(tails[i].fmt, strlen(tails[i].fmt), &v, 1, expected, (size_t)n);
    }
    static const struct { const char *fmt; long double ld; } long_tails[] = {
        { "%.17000Lf", LDBL_TRUE_MIN }, { "%.12000Le", LDBL_TRUE_MIN }, { "%#.12000Lg", 0.1L },
        { "%.40La", 0.1L }, { "%.40LA", LDBL_MAX },
    };
    long double longest = nextafterl(LDBL_MIN, 0); /* the most significant digits */
    n = snprintf(expected, sizeof expected, "%.12000Le|%.12000Lg", longest, longest);
    expect_render("%.12000Le|%.12000Lg", 19, (xlog_arg[]){ { .ld = longest }, { .ld = longest } }, 2,
                  expected, (size_t)n);
    for (size_t i = 0; i < sizeof long_tails / sizeof long_tails[0]; i++) {
        n = snprintf(expected, sizeof expected, long_tails[i].fmt, long_tails[i].ld);
        xlog_arg v = { .ld = long_tails[i].ld };
        expect_render(long_tails[i].fmt, strlen(long_tails[i].fmt), &v, 1, expected, (size_t)n);
    }
    arg.d = 0.5;
    assert_int_equal(xlog_fmt_render("%.2000000000f", 13, &arg, 1, out, sizeof out), 2000000002u);
    assert_memory_equal(out, "0.500000", 8);

    /* a %Lf too long for the stack buffer */
    xlog_arg big = { .ld = LDBL_MAX };
    n = snprintf(expected, sizeof expected, "%Lf|%.3000Le", LDBL_MAX, LDBL_MAX);
    expect_render("%Lf|%.3000Le", 12, (xlog_arg[]){ big, big }, 2, expected, (size_t)n);
}

static void test_wide_in_c_locale(void **state)
{
    (void)state;
    setlocale(LC_ALL, "C");
    xlog_arg args[2];
    args[0].ws.ptr = L"caf\xe9";
    args[0].ws.len = 4;
    args[1].u = 0xe9;
    /* glibc's snprintf fails as a whole here (-1); we show those literally */
    expect_text("[%ls|%lc|%.3ls]", (xlog_arg[]){ args[0], args[1], args[0] }, 3,
                "[%ls|%lc|caf]");
    args[1].u = 0; /* %lc of 0 writes a NUL byte, as glibc does */
    expect_render("[%lc]", 5, &args[1], 1, "[\0]", 3);
}

/* ------------------------------------------------------------------------ */
/* What glibc prints that xlog once printed literally or differently        */
/* ------------------------------------------------------------------------ */

/* Renders a one-conversion format (its '*' values first, then value) and
 * compares it with glibc's snprintf. */
static void expect_like_glibc(const char *fmt, const int *stars, int nstars, unsigned char kind,
                              const xlog_arg *value)
{
    int n = reference_snprintf(expected, sizeof expected, fmt, stars, nstars, kind, value,
                               kind == XLOG_ARG_STR ? value->s.ptr : NULL);
    assert_true(n >= 0);
    xlog_arg args[3];
    size_t nargs = 0;
    for (int i = 0; i < nstars; i++)
        args[nargs++].i = stars[i];
    args[nargs++] = *value;
    expect_render(fmt, strlen(fmt), args, nargs, expected, (size_t)n);
}

/* Every field a conversion can have: each subset of the flags "-+ #0'", each
 * width and each precision (0 to 7, and 9), given or taken from '*'. */
static const char *const field_widths[] = { "", "1", "6", "13", "*" };
static const char *const field_precisions[] = {
    "", ".", ".0", ".1", ".2", ".3", ".4", ".5", ".6", ".7", ".9", ".*",
};
#define FIELD_FLAG_SETS 64
#define FIELD_WIDTHS (sizeof field_widths / sizeof field_widths[0])
#define FIELD_PRECISIONS (sizeof field_precisions / sizeof field_precisions[0])
#define FIELD_COUNT (FIELD_FLAG_SETS * FIELD_WIDTHS * FIELD_PRECISIONS)
#define FIELD_QUOTE 32 /* the flag set bit of ' */

/* Writes field i (0 <= i < FIELD_COUNT) after the '%' at spec, with the '*'
 * values it takes (derived from i) in stars; returns the end of the text. */
static char *write_field(char *spec, size_t i, int *stars, int *nstars)
{
    static const char flag_chars[] = "-+ #0'";
    size_t flags = i % FIELD_FLAG_SETS, width = i / FIELD_FLAG_SETS % FIELD_WIDTHS;
    size_t precision = i / (FIELD_FLAG_SETS * FIELD_WIDTHS);
    char *s = spec;
    *s++ = '%';
    for (int b = 0; b < 6; b++)
        if (flags >> b & 1)
            *s++ = flag_chars[b];
    s += sprintf(s, "%s%s", field_widths[width], field_precisions[precision]);
    *nstars = 0;
    if (field_widths[width][0] == '*')
        stars[(*nstars)++] = (int)(i % 7) * 3 - 9; /* -9 to 9: a negative one is '-' */
    if (strcmp(field_precisions[precision], ".*") == 0)
        stars[(*nstars)++] = (int)(i % 9) - 1;     /* -1 (none) to 7 */
    return s;
}

static const uint64_t combination_values[] = {
    0, 1, 6, 7, 12, 999, 1000, 1234, 65535, 1234567, 0x80000000u, 0xfffffffeu,
    (uint64_t)INT64_MIN, UINT64_MAX, (uint64_t)-1234567, 123456789012345u,
};
#define COMBINATION_VALUE_COUNT (sizeof combination_values / sizeof combination_values[0])

/* Every field with every length on each integer conversion in convs, with
 * values_per_format values each; with quote_only, only the fields with the
 * ' flag. */
static void integer_combinations(const char *convs, bool quote_only, size_t values_per_format)
{
    for (const char *conv = convs; *conv; conv++) {
        for (size_t length = 0; length < 8; length++) {
            for (size_t i = 0; i < FIELD_COUNT; i++) {
                if (quote_only && !(i % FIELD_FLAG_SETS & FIELD_QUOTE))
                    continue;
                char fmt[64];
                int stars[2], nstars;
                sprintf(write_field(fmt, i, stars, &nstars), "%s%c", int_lengths[length], *conv);
                for (size_t k = 0; k < values_per_format; k++) {
                    size_t pick = (i * values_per_format + k + length) % COMBINATION_VALUE_COUNT;
                    xlog_arg v = { .u = combination_values[pick] };
                    if (int_kinds[length] == XLOG_ARG_INT)
                        v.i = (int)v.u;
                    expect_like_glibc(fmt, stars, nstars, int_kinds[length], &v);
                }
            }
        }
    }
}

static void test_binary_conversions_print_like_glibc(void **state)
{
    (void)state;
    xlog_arg six = { .i = 6 };
    expect_text("%b|%B|%#b|%#B|%#010b|%-#7b|%.5b|%#.0b", (xlog_arg[]){ six, six, six, six, six,
                six, six, { .i = 0 } }, 8, "110|110|0b110|0B110|0b00000110|0b110  |00110|");
    xlog_arg big = { .u = UINT64_MAX };
    expect_text("%lb", &big, 1,
                "1111111111111111111111111111111111111111111111111111111111111111");
    unsigned char kinds[4];
    assert_int_equal(xlog_record_kinds("%hhb%llB%*b", 11, kinds, NULL, 4, NULL), 4);
    assert_memory_equal(kinds, ((unsigned char[]){ XLOG_ARG_INT, XLOG_ARG_LLONG, XLOG_ARG_INT,
                                                   XLOG_ARG_INT }), 4);
    integer_combinations("bB", false, 3);
}

static void test_quote_flag_groups_digits_like_glibc(void **state)
{
    (void)state;
    setlocale(LC_ALL, "C");
    xlog_arg n = { .i = 1234567 };
    xlog_arg x = { .d = 1234567.5 };
    /* the C locale has no thousands separator: the flag changes nothing */
    expect_text("%'d|%'.2f", (xlog_arg[]){ n, x }, 2, "1234567|1234567.50");
    integer_combinations("diuoxXbB", true, 3);
    for (size_t l = 0; l < TEST_LOCALE_COUNT; l++) {
        if (!use_numbered_locale(l))
            continue;
        if (strcmp(test_locales[l].name, "de_DE.UTF-8") == 0)
            expect_text("%'d|%'.2f|%'010d", (xlog_arg[]){ n, x, n }, 3,
                        "1.234.567|1.234.567,50|01.234.567");
        integer_combinations("diuoxXbB", true, 1);
        /* the floating conversions, with and without ', long double too */
        static const double doubles[] = { 0.0, -0.5, 999.5, 1234.5, 1234567.891, -98765432.1,
                                          1e20, 123456789012.0, 1e-5, 1e300 };
        static const char float_convs[] = "fFgGeEaA";
        for (size_t c = 0; c < 8; c++) {
            for (size_t i = 0; i < FIELD_COUNT; i++) {
                char fmt[64];
                int stars[2], nstars;
                bool is_long = i % 5 == 0;
                sprintf(write_field(fmt, i, stars, &nstars), "%s%c", is_long ? "L" : "",
                        float_convs[c]);
                xlog_arg v;
                double d = doubles[(i + c) % (sizeof doubles / sizeof doubles[0])];
                if (is_long)
                    v.ld = d;
                else
                    v.d = d;
                expect_like_glibc(fmt, stars, nstars, is_long ? XLOG_ARG_LDOUBLE : XLOG_ARG_DOUBLE,
                                  &v);
            }
        }
    }
    setlocale(LC_ALL, "C");
}

/* glibc pads %f %e %g to a width counted in characters; a decimal point of
 * two bytes (ps_AF's U+066B) counts as one. */
static void test_float_width_counts_a_multibyte_decimal_point_once(void **state)
{
    (void)state;
    if (!use_test_locale(LC_ALL, "ps_AF.UTF-8")) {
        setlocale(LC_ALL, "C");
        skip();
    }
    xlog_arg x = { .d = 1234567.5 };
    expect_text("[%20f|%-14e|%012g]", (xlog_arg[]){ x, x, x }, 3,
                "[      1234567\xd9\xab" "500000|1\xd9\xab" "234568e+06  |01\xd9\xab" "23457e+06]");
    /* and %a counts bytes, as glibc does */
    xlog_arg half = { .d = 1.5 };
    expect_text("[%12a]", &half, 1, "[   0x1\xd9\xab" "8p+0]");
    setlocale(LC_ALL, "C");
}

static void test_percent_m_prints_the_saved_errno_like_glibc(void **state)
{
    (void)state;
    unsigned char kinds[4];
    assert_int_equal(xlog_record_kinds("%m %*lm %d", 10, kinds, NULL, 4, NULL), 4);
    assert_memory_equal(kinds, ((unsigned char[]){ XLOG_ARG_ERRNO, XLOG_ARG_INT, XLOG_ARG_ERRNO,
                                                   XLOG_ARG_INT }), 4);
    xlog_arg einval = { .i = EINVAL }, unknown = { .i = 134 }, seven = { .i = 7 };
    setlocale(LC_ALL, "C");
    errno = 0; /* the renderer uses the saved value, never its own errno */
    expect_text("%m|%#m|%.3m|%#m|%d", (xlog_arg[]){ einval, einval, einval, unknown, seven }, 5,
                "Invalid argument|EINVAL|Inv|134|7");
    for (int pass = 0; pass < 2; pass++) {
        /* every field, every length modifier, every kind of value; the second
         * pass in de_DE, where messages are translated and %#'m groups */
        if (pass == 1 && !use_test_locale(LC_ALL, "de_DE.UTF-8"))
            break;
        for (size_t i = 0; i < FIELD_COUNT; i++) {
            char fmt[64];
            int stars[2], nstars;
            sprintf(write_field(fmt, i, stars, &nstars), "%sm", int_lengths[i % 8]);
            for (size_t k = 0; k < 3; k++) {
                xlog_arg e = { .i = errno_values[(i * 3 + k) % ERRNO_VALUE_COUNT] };
                expect_like_glibc(fmt, stars, nstars, XLOG_ARG_ERRNO, &e);
            }
        }
    }
    setlocale(LC_ALL, "C");
}

static void test_null_string_under_short_precision_prints_like_glibc(void **state)
{
    (void)state;
    xlog_arg null = { .s = { NULL, 0 } };
    expect_text("[%s|%.3s|%.5s|%.6s|%10.3s|%-8.2s|%.0s|%8s]",
                (xlog_arg[]){ null, null, null, null, null, null, null, null }, 8,
                "[(null)|||(null)|          |        ||  (null)]");
    xlog_arg wnull = { .ws = { NULL, 0 } };
    expect_text("[%ls|%.5ls|%.6ls|%7.1ls]", (xlog_arg[]){ wnull, wnull, wnull, wnull }, 4,
                "[(null)||(null)|       ]");
    for (size_t i = 0; i < FIELD_COUNT; i++) {
        char fmt[64];
        int stars[2], nstars;
        char *end = write_field(fmt, i, stars, &nstars);
        strcpy(end, "s");
        expect_like_glibc(fmt, stars, nstars, XLOG_ARG_STR, &null);
        strcpy(end, "ls");
        expect_like_glibc(fmt, stars, nstars, XLOG_ARG_WSTR, &wnull);
    }
}

/* ------------------------------------------------------------------------ */
/* Raw output                                                               */
/* ------------------------------------------------------------------------ */

/* Renders fmt with args and compares with glibc's snprintf of fmt given the
 * same values with their C types (the arguments after nargs). */
#define EXPECT_AS_SNPRINTF(fmt, args, nargs, ...)                                \
    do {                                                                         \
        int n_ = snprintf(expected, sizeof expected, fmt, ##__VA_ARGS__);        \
        assert_true(n_ >= 0);                                                    \
        expect_render(fmt, strlen(fmt), args, nargs, expected, (size_t)n_);      \
    } while (0)

/* Nothing is escaped here, the layouts do it (test_escape.c): control bytes,
 * C1 characters, line separators and invalid UTF-8, from the format or from
 * %s %c %ls %lc, come out as snprintf writes them, and a width counts their
 * bytes. */
static void test_raw_bytes_come_out_as_snprintf_writes_them(void **state)
{
    (void)state;
    setlocale(LC_ALL, "C");
    EXPECT_AS_SNPRINTF("a\nb", NULL, 0);
    EXPECT_AS_SNPRINTF("\r\t\x1b[0m\x7f\x01 caf\xc3\xa9", NULL, 0);
    EXPECT_AS_SNPRINTF("\xc2\x9b[31m|\xc2\x85|a\xe2\x80\xa8" "b\xe2\x80\xa9|\xff\xc3(|\xed\xa0\x80|"
                       "\xc3\xa9", NULL, 0);

    xlog_arg str = { .s = { "line1\r\nline2", 12 } };
    EXPECT_AS_SNPRINTF("got: %s.", &str, 1, str.s.ptr);
    EXPECT_AS_SNPRINTF("[%.6s]", &str, 1, str.s.ptr);
    xlog_arg tab = { .s = { "\tx", 2 } };
    EXPECT_AS_SNPRINTF("[%5s|%-5s|%3s]", ((xlog_arg[]){ tab, tab, tab }), 3, tab.s.ptr, tab.s.ptr,
                       tab.s.ptr);
    xlog_arg csi = { .s = { "\x9b" "2J\xe2\x80\xa8", 6 } };
    /* the precision cuts U+2028 after its first byte, as glibc does */
    EXPECT_AS_SNPRINTF("[%s|%9s|%-12.4s]", ((xlog_arg[]){ csi, csi, csi }), 3, csi.s.ptr, csi.s.ptr,
                       csi.s.ptr);

    xlog_arg ch = { .i = '\n' }, esc = { .i = 0x1b }, nul = { .i = 0 }, c1 = { .i = 0x85 };
    EXPECT_AS_SNPRINTF("[%c|%4c|%-5c]", ((xlog_arg[]){ ch, ch, esc }), 3, '\n', '\n', 0x1b);
    EXPECT_AS_SNPRINTF("[%c]", &nul, 1, 0);
    EXPECT_AS_SNPRINTF("[%c]", &c1, 1, 0x85); /* one byte, not UTF-8 */
    xlog_arg lead = { .i = 0xc3 }, trail = { .i = 0xa9 };
    EXPECT_AS_SNPRINTF("%c%c", ((xlog_arg[]){ lead, trail }), 2, 0xc3, 0xa9);

    /* glibc has no rule for "%\n"; ours shows it literally, its byte raw */
    xlog_arg num = { .i = -5 };
    expect_text("%d%\n", &num, 1, "-5%\n");

    assert_non_null(setlocale(LC_ALL, "C.UTF-8"));
    xlog_arg ws = { .ws = { L"a\n\xe9", 3 } };
    EXPECT_AS_SNPRINTF("[%ls|%6ls]", ((xlog_arg[]){ ws, ws }), 2, ws.ws.ptr, ws.ws.ptr);
    xlog_arg wc = { .u = L'\t' };
    EXPECT_AS_SNPRINTF("[%3lc]", &wc, 1, (wint_t)L'\t');
    xlog_arg separators = { .ws = { L"\x85|\x2028|\x1f600", 5 } };
    EXPECT_AS_SNPRINTF("%ls", &separators, 1, separators.ws.ptr);
    setlocale(LC_ALL, "C");
}

/* ------------------------------------------------------------------------ */
/* Output capacity                                                          */
/* ------------------------------------------------------------------------ */

static void test_truncation(void **state)
{
    (void)state;
    xlog_arg args[3];
    args[0].s.ptr = "alice";
    args[0].s.len = 5;
    args[1].i = 42;
    args[2].d = 1.25;
    const char *fmt = "user %s logged in, id %d, took %f ms";
    const char *full = "user alice logged in, id 42, took 1.250000 ms";
    size_t full_len = strlen(full);
    for (size_t cap = 0; cap <= full_len + 1; cap++) {
        char out[64];
        memset(out, '#', sizeof out);
        assert_int_equal(xlog_fmt_render(fmt, strlen(fmt), args, 3, out, cap), full_len);
        assert_memory_equal(out, full, cap < full_len ? cap : full_len);
        assert_int_equal(out[cap < full_len ? cap : full_len], '#');
    }
    assert_int_equal(xlog_fmt_render(fmt, strlen(fmt), args, 3, NULL, 0), full_len);

    /* a capacity cuts where it falls, inside a character too, as snprintf's
     * does before its NUL */
    static const char *const raw[] = { "ab\xe2\x80\xa8", "a\x01" };
    for (size_t i = 0; i < sizeof raw / sizeof raw[0]; i++) {
        size_t len = strlen(raw[i]);
        for (size_t cap = 0; cap <= len; cap++) {
            char ours[8], theirs[8];
            memset(ours, '#', sizeof ours);
            assert_int_equal(snprintf(theirs, cap + 1, "%s", raw[i]), (int)len);
            assert_int_equal(xlog_fmt_render(raw[i], len, NULL, 0, ours, cap), len);
            assert_memory_equal(ours, theirs, cap);
            assert_int_equal(ours[cap], '#');
        }
    }
}

/* ------------------------------------------------------------------------ */
/* The cache of parsed formats (the back end's, per call site)              */
/* ------------------------------------------------------------------------ */

static xlog_fmt_cache cache; /* 512 slots: too big for the stack */

/* Renders fmt (NUL-terminated, at its own address) through the cache and
 * checks the bytes against xlog_fmt_render's. */
static void expect_cached_render(const char *fmt, const xlog_arg *args, size_t nargs)
{
    char direct[256], cached[256];
    size_t len = strlen(fmt);
    size_t n = xlog_fmt_render(fmt, len, args, nargs, direct, sizeof direct);
    xlog_fmt_parsed local;
    const xlog_fmt_parsed *parsed = xlog_fmt_cache_get(&cache, fmt, len, &local);
    size_t m = parsed ? xlog_fmt_render_parsed(parsed, fmt, args, nargs, cached, sizeof cached)
                      : xlog_fmt_render(fmt, len, args, nargs, cached, sizeof cached);
    xlog_fmt_cache_release(&cache);
    assert_int_equal(m, n);
    assert_memory_equal(cached, direct, n);
}

/* Many sites, more than the cache has slots, each with its own format at
 * its own address (so that slots are shared and formats replace each
 * other), logged in rounds: every line is what xlog_fmt_render makes. */
static void test_cache_of_many_sites_renders_each_sites_format(void **state)
{
    (void)state;
    memset(&cache, 0, sizeof cache);
    enum { SITES = 3 * XLOG_FMT_CACHE_SLOTS + 7 };
    char (*formats)[48] = malloc(SITES * sizeof *formats);
    assert_non_null(formats);
    static const char *const shapes[] = {"site %d: %lu and %s", "%s/%d/%.2f site %d",
                                         "site %d %x %5u %-3s!", "site %d: %f"};
    for (int i = 0; i < SITES; i++)
        snprintf(formats[i], sizeof formats[i], "%s", shapes[i % 4]);
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < SITES; i++) {
            int k = (i * 7 + round) % SITES; /* a different order every round */
            xlog_arg args[4] = {{.i = k}, {.u = (uint64_t)k * 1000003u}, {.s = {"text", 4}},
                                {.i = -k}};
            if (k % 4 == 1)
                args[0] = (xlog_arg){.s = {"path", 4}}, args[2].d = k / 3.0, args[3].i = k;
            if (k % 4 == 2)
                args[2] = (xlog_arg){.u = (uint64_t)k}, args[3] = (xlog_arg){.s = {"ab", 2}};
            if (k % 4 == 3)
                args[1].d = k * 0.125;
            expect_cached_render(formats[k], args, 4);
        }
    }
    free(formats);
}

/* The same format at two sites (two copies at two addresses), and one site
 * whose slot another takes in between: each renders its own bytes. */
static void test_cache_keeps_the_same_format_at_two_sites_apart(void **state)
{
    (void)state;
    memset(&cache, 0, sizeof cache);
    char *a = strdup("Logging int: %lu, int: %lu, double: %f");
    char *b = strdup(a);
    assert_non_null(a);
    assert_non_null(b);
    xlog_arg args[3] = {{.u = 12345}, {.u = 24690}, {.d = 6172.5}};
    for (int i = 0; i < 3; i++) {
        expect_cached_render(a, args, 3);
        expect_cached_render(b, args, 3);
    }
    /* Fewer arguments than the conversions read (a record cut short): the
     * conversions left over are shown as they are written. */
    expect_cached_render(a, args, 1);
    free(a);
    free(b);
}

/* A format with more conversions than a parsed one holds is not kept: the
 * cache says so each time, and the format renders as before. */
static void test_cache_declines_a_format_with_too_many_conversions(void **state)
{
    (void)state;
    memset(&cache, 0, sizeof cache);
    static const char fmt[] = "%d %d %d %d %d %d %d %d %d";
    xlog_arg args[9];
    for (int i = 0; i < 9; i++)
        args[i].i = i * 11;
    xlog_fmt_parsed local;
    for (int i = 0; i < 2; i++) {
        assert_null(xlog_fmt_cache_get(&cache, fmt, strlen(fmt), &local));
        xlog_fmt_cache_release(&cache);
        expect_cached_render(fmt, args, 9);
    }
    static const char eight[] = "%d %d %d %d %d %d %d %d";
    assert_non_null(xlog_fmt_cache_get(&cache, eight, strlen(eight), &local));
    xlog_fmt_cache_release(&cache);
}

/* A get that interrupts another (a crash handler on the back end's thread)
 * parses into its own room and writes no slot: the interrupted get's
 * parsed format stays as it was, whichever slots the inner formats fall in. */
static void test_cache_get_inside_another_leaves_its_slot_alone(void **state)
{
    (void)state;
    memset(&cache, 0, sizeof cache);
    enum { INNER = 4 * XLOG_FMT_CACHE_SLOTS, STRIDE = 16 };
    char *block = malloc((INNER + 1) * STRIDE);
    assert_non_null(block);
    char *first = block + INNER * STRIDE;
    strcpy(first, "outer %d");
    xlog_fmt_parsed local, inner_local;
    const xlog_fmt_parsed *outer = xlog_fmt_cache_get(&cache, first, strlen(first), &local);
    assert_non_null(outer);
    assert_ptr_not_equal(outer, &local);
    xlog_fmt_parsed before = *outer;
    for (int i = 0; i < INNER; i++) {
        char *fmt = block + i * STRIDE;
        strcpy(fmt, "inner %s!");
        const xlog_fmt_parsed *inner = xlog_fmt_cache_get(&cache, fmt, strlen(fmt), &inner_local);
        assert_ptr_equal(inner, &inner_local);
        char out[32];
        xlog_arg arg = {.s = {"yes", 3}};
        assert_int_equal(xlog_fmt_render_parsed(inner, fmt, &arg, 1, out, sizeof out), 10);
        assert_memory_equal(out, "inner yes!", 10);
        xlog_fmt_cache_release(&cache);
    }
    assert_memory_equal(outer, &before, sizeof before);
    xlog_arg arg = {.i = -7};
    char out[32];
    assert_int_equal(xlog_fmt_render_parsed(outer, first, &arg, 1, out, sizeof out), 8);
    assert_memory_equal(out, "outer -7", 8);
    xlog_fmt_cache_release(&cache);
    /* released: the next get keeps its format in a slot again */
    const xlog_fmt_parsed *kept = xlog_fmt_cache_get(&cache, block, strlen(block), &local);
    assert_ptr_not_equal(kept, &local);
    xlog_fmt_cache_release(&cache);
    free(block);
}

/* ------------------------------------------------------------------------ */
/* Decimal digits (format/digits.h)                                         */
/* ------------------------------------------------------------------------ */

/* Every digit count and every way of writing digits agrees with snprintf,
 * at the powers of ten and either side of them, at the 32-bit and 10^8
 * boundaries where the writers change method, and at random values. */
static void test_digits_are_written_as_snprintf_writes_them(void **state)
{
    (void)state;
    uint64_t values[4096];
    size_t n = 0;
    uint64_t power = 1;
    for (int i = 0; i < 20; i++, power *= 10) {
        values[n++] = power - 1;
        values[n++] = power;
        values[n++] = power + 1;
        values[n++] = power * 2 - 1;
    }
    static const uint64_t edges[] = {0, UINT32_MAX, (uint64_t)UINT32_MAX + 1, 99999999,
                                     100000000, 9999999999999999u, 10000000000000000u,
                                     UINT64_MAX, UINT64_MAX - 1, 12345678901234567890u};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
        values[n++] = edges[i];
    while (n < sizeof values / sizeof values[0])
        values[n++] = rand64() >> rand_below(64);
    for (size_t i = 0; i < n; i++) {
        uint64_t v = values[i];
        char expected[32];
        int len = snprintf(expected, sizeof expected, "%llu", (unsigned long long)v);
        assert_int_equal(xlog_decimal_length(v), len);
        /* every count, 0 to 20: the last count digits, zeros in front */
        char padded[48];
        snprintf(padded, sizeof padded, "%020llu", (unsigned long long)v);
        for (int count = 0; count <= 20; count++) {
            char at[48], before[48];
            memset(at, '#', sizeof at);
            memset(before, '#', sizeof before);
            char *end = xlog_digits_at(at + 4, v, count);
            assert_ptr_equal(end, at + 4 + count);
            assert_memory_equal(at + 4, padded + 20 - count, (size_t)count);
            assert_memory_equal(at, "####", 4); /* nothing before */
            /* after: at most up to 8 bytes in all */
            for (int k = count > 8 ? count : 8; k < 40; k++)
                assert_int_equal(at[4 + k], '#');
            char *start = xlog_digits_before(before + 24, v, count);
            assert_ptr_equal(start, before + 24 - count);
            assert_memory_equal(start, padded + 20 - count, (size_t)count);
            for (int k = 0; k < 24 - count; k++)
                assert_int_equal(before[k], '#');
            for (int k = 24; k < 48; k++)
                assert_int_equal(before[k], '#');
        }
    }
    /* xlog_digits8 on every value below 10^5 and a stride through 10^8 */
    for (uint32_t v = 0; v < 100000000; v += v < 100000 ? 1 : 9973) {
        char expected[16];
        snprintf(expected, sizeof expected, "%08u", v);
        char got[8];
        xlog_digits_at(got, v, 8);
        if (memcmp(got, expected, 8) != 0)
            fail_msg("%u: [%.8s]", v, got);
    }
}

/* A keeper that frees a format and gets the same address for another one
 * of the same length (a reader of binary files redefines its sites) says
 * so: the new bytes are parsed again, not rendered by the old steps. */
static void test_cache_forgets_a_format_whose_bytes_are_freed(void **state)
{
    (void)state;
    memset(&cache, 0, sizeof cache);
    char fmt[8] = "v=%d!";
    xlog_arg arg = {.i = 255};
    char out[32];
    xlog_fmt_parsed local;
    const xlog_fmt_parsed *parsed = xlog_fmt_cache_get(&cache, fmt, 5, &local);
    assert_non_null(parsed);
    size_t n = xlog_fmt_render_parsed(parsed, fmt, &arg, 1, out, sizeof out);
    xlog_fmt_cache_release(&cache);
    assert_int_equal(n, 6);
    assert_memory_equal(out, "v=255!", 6);
    xlog_fmt_cache_forget(&cache, fmt);
    memcpy(fmt, "v=%x!", 6); /* freed, and the address given to another format */
    parsed = xlog_fmt_cache_get(&cache, fmt, 5, &local);
    assert_non_null(parsed);
    n = xlog_fmt_render_parsed(parsed, fmt, &arg, 1, out, sizeof out);
    xlog_fmt_cache_release(&cache);
    assert_int_equal(n, 5);
    assert_memory_equal(out, "v=ff!", 5);
}

/* In a record, a %ls's characters follow a u32 length right after the bytes
 * of the arguments before it, so they need not be 4-byte aligned (record.h);
 * they were loaded as wchar_t, which UBSan stops at as misaligned. */
static void test_a_wide_string_at_an_odd_address_is_read_whole(void **state)
{
    (void)state;
    setlocale(LC_ALL, "C");
    const wchar_t text[] = L"Hi!";
    _Alignas(8) char record[1 + sizeof text];
    memcpy(record + 1, text, sizeof text);
    xlog_arg arg = { .ws = { (const wchar_t *)(const void *)(record + 1), 3 } };
    expect_text("[%ls|%5.2ls]", ((xlog_arg[]){ arg, arg }), 2, "[Hi!|   Hi]");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_differential_c_locale),
        cmocka_unit_test(test_differential_utf8_locale),
        cmocka_unit_test(test_whole_formats),
        cmocka_unit_test(test_fixed_point),
        cmocka_unit_test(test_fixed_point_rounding_modes),
        cmocka_unit_test(test_kinds_list),
        cmocka_unit_test(test_kinds_give_precisions_and_strings),
        cmocka_unit_test(test_next_describes),
        cmocka_unit_test(test_percent_n_is_refused),
        cmocka_unit_test(test_unknown_conversions),
        cmocka_unit_test(test_trailing_and_cut_formats),
        cmocka_unit_test(test_positional_is_literal),
        cmocka_unit_test(test_missing_arguments),
        cmocka_unit_test(test_null_pointer),
        cmocka_unit_test(test_strings_with_length),
        cmocka_unit_test(test_negative_star),
        cmocka_unit_test(test_huge_fields),
        cmocka_unit_test(test_wide_in_c_locale),
        cmocka_unit_test(test_differential_grouping_locales),
        cmocka_unit_test(test_binary_conversions_print_like_glibc),
        cmocka_unit_test(test_quote_flag_groups_digits_like_glibc),
        cmocka_unit_test(test_float_width_counts_a_multibyte_decimal_point_once),
        cmocka_unit_test(test_percent_m_prints_the_saved_errno_like_glibc),
        cmocka_unit_test(test_null_string_under_short_precision_prints_like_glibc),
        cmocka_unit_test(test_raw_bytes_come_out_as_snprintf_writes_them),
        cmocka_unit_test(test_truncation),
        cmocka_unit_test(test_digits_are_written_as_snprintf_writes_them),
        cmocka_unit_test(test_cache_of_many_sites_renders_each_sites_format),
        cmocka_unit_test(test_cache_keeps_the_same_format_at_two_sites_apart),
        cmocka_unit_test(test_cache_declines_a_format_with_too_many_conversions),
        cmocka_unit_test(test_cache_get_inside_another_leaves_its_slot_alone),
        cmocka_unit_test(test_cache_forgets_a_format_whose_bytes_are_freed),

        cmocka_unit_test(test_a_wide_string_at_an_odd_address_is_read_whole),
    };
    return cmocka_run_group_tests(tests, setup_seed, NULL);
}
