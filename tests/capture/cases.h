/*
 * cases.h - the calls of test_capture: each is one XLOG statement in a
 * function of its own, compiled twice: as C11 (capture_c11.c), where a call
 * whose arguments are all scalars captures them at its call site, and as
 * C99 (capture_c99.c), where every call takes the variable argument list.
 * The lines must be the same; test_capture.c holds what they must be.
 *
 * The includer defines CASES, the name of its table (CAPTURE_CASE_COUNT
 * functions).  Some calls are what -Wformat refuses (the format reads
 * another type or another number of arguments): a C11 site must notice
 * and keep the variable argument list.
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <wchar.h>

#include <xlog.h>

enum capture_color { CAPTURE_RED, CAPTURE_GREEN, CAPTURE_BLUE };

static void case_no_argument(void)
{
    xlog_info("no argument");
}

static void case_errno(void)
{
    errno = EACCES;
    xlog_info("open: %m");
}

static void case_star_width(void)
{
    xlog_info("%*d|%-*d|%.*f", 5, 42, 4, 7, 2, 3.14159);
}

static void case_small_ints(void)
{
    char c = -5;
    short s = -300;
    xlog_info("%hhd %hd %c %d %u %x %o %X", c, s, 'z', -7, -8, -9, -10, 0xfffffff0u);
}

static void case_unsigned_small(void)
{
    unsigned char uc = 200;
    unsigned short us = 65000;
    _Bool yes = 1;
    enum capture_color color = CAPTURE_BLUE;
    struct {
        unsigned three : 3;
        int two : 2;
    } bits = {5, -1};
    xlog_info("%hhu %hu %d %d %u %d", uc, us, yes, color, bits.three, bits.two);
}

static void case_wide_ints(void)
{
    xlog_info("%lu %ld %llu %lld %zu %zd %td %jd", ULONG_MAX, LONG_MIN, ULLONG_MAX, LLONG_MIN,
              SIZE_MAX, (ssize_t)-1, (ptrdiff_t)-2, (intmax_t)-3);
}

static void case_pointers_and_floats(void)
{
    float f = 1.5f;
    xlog_info("%p %p %f %e %g %a %.3f", (void *)0x1234, (void *)0, f, 12345.678, 0.0001, 1.0,
              -2.0 / 3);
}

/* %n is refused; its pointer is an argument all the same.  An int * is a
 * wchar_t * to the call site (a wide string: variable arguments), a long *
 * a pointer slot. */
static void case_refused_n_int(void)
{
    int n = 0;
    xlog_info("abc%n", &n);
}

static void case_refused_n_long(void)
{
    long l = 0;
    xlog_info("def%ln", &l);
}

static void case_eight(void)
{
    xlog_info("%d %d %d %d %d %d %d %d", 1, 2, 3, 4, 5, 6, 7, 8);
}

static void case_nine(void)
{
    xlog_info("%d %d %d %d %d %d %d %d %d", 1, 2, 3, 4, 5, 6, 7, 8, 9);
}

static void case_string(void)
{
    xlog_info("%s=%d", "answer", 42);
}

static void case_long_double(void)
{
    xlog_info("%Lf", (long double)2.25);
}

static void case_wide_char(void)
{
    xlog_info("%lc!", (wint_t)L'A');
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"
#pragma GCC diagnostic ignored "-Wformat-extra-args"
static void case_fewer_conversions(void)
{
    xlog_info("%d", 1, 2);
}

static void case_more_conversions(void)
{
    xlog_info("%d %d", 1);
}

static void case_long_for_int(void)
{
    long wide = 0x100000005L;
    xlog_info("%d", wide);
}
#pragma GCC diagnostic pop

#define CAPTURE_CASE_COUNT 17
void (*const CASES[CAPTURE_CASE_COUNT])(void) = {
    case_no_argument,       case_errno,          case_star_width,
    case_small_ints,        case_unsigned_small, case_wide_ints,
    case_pointers_and_floats, case_refused_n_int, case_refused_n_long,
    case_eight,             case_nine,
    case_string,            case_long_double,    case_wide_char,
    case_fewer_conversions, case_more_conversions, case_long_for_int,
};
