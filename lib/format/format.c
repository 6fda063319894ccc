/*
 * format.c - the printf-compatible format engine (see format.h).
 *
 * Why it exists: the calling thread only copies raw argument values, so the
 * back end must later produce exactly what snprintf would have produced from
 * those values, fast, and without ever trusting the format or the arguments.
 *
 * How it works: xlog_fmt_next() is the one parser; it splits a format into
 * literal text and conversions and says which argument kinds each conversion
 * consumes.  The renderer writes through a "sink" that counts every byte of the
 * complete output but stores only what fits, so the returned length is exact
 * whatever the capacity.  Integers, strings, characters and "%%" are written
 * by hand, the ' flag's digit grouping included (from the locale's
 * LC_NUMERIC, as glibc does it).  Floating conversions are given to libc
 * snprintf, which guarantees exact digits, but without the width and with
 * the precision cut to what a value can use: we add the padding and the
 * zeros, so a huge width or precision never needs a huge buffer.  "%f" with a
 * small precision and a moderate value has an exact fast path of its own
 * (render_fixed_fast).  Wide characters are converted with wcrtomb, as
 * glibc's printf does.  "%m" prints the caller's saved errno through
 * strerror_r (or strerrorname_np for "%#m"), glibc's own sources of that text.
 * Nothing is escaped here: a message is rendered once, and each layout
 * escapes it for its own line format (escape.h for text, RFC 8259 for JSON).
 */
#define _GNU_SOURCE /* strerror_r returning the text, strerrorname_np, GROUPING */
#include "format.h"
#include "digits.h"

#include <fenv.h>
#include <float.h>
#include <langinfo.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __FAST_MATH__
#error "format.c relies on exact IEEE arithmetic (nan, rounding): build it without -ffast-math"
#endif

/* ------------------------------------------------------------------------ */
/* Parsing                                                                  */
/* ------------------------------------------------------------------------ */

/* Conversion characters grouped by the argument kinds they accept. */
enum conv_class {
    CLASS_NONE = 0, /* not a conversion character */
    CLASS_INTEGER,  /* d i o u x X b B */
    CLASS_COUNT,    /* n */
    CLASS_FLOATING, /* f F e E g G a A */
    CLASS_CHAR,     /* c */
    CLASS_STRING,   /* s */
    CLASS_POINTER,  /* p */
    CLASS_ERRNO,    /* m */
    CLASS_PERCENT,  /* % */
    CLASS_COUNT_OF
};

static const unsigned char conv_class[256] = {
    ['d'] = CLASS_INTEGER,  ['i'] = CLASS_INTEGER,  ['o'] = CLASS_INTEGER,
    ['u'] = CLASS_INTEGER,  ['x'] = CLASS_INTEGER,  ['X'] = CLASS_INTEGER,
    ['b'] = CLASS_INTEGER,  ['B'] = CLASS_INTEGER,
    ['n'] = CLASS_COUNT,
    ['f'] = CLASS_FLOATING, ['F'] = CLASS_FLOATING, ['e'] = CLASS_FLOATING,
    ['E'] = CLASS_FLOATING, ['g'] = CLASS_FLOATING, ['G'] = CLASS_FLOATING,
    ['a'] = CLASS_FLOATING, ['A'] = CLASS_FLOATING,
    ['c'] = CLASS_CHAR,     ['s'] = CLASS_STRING,   ['p'] = CLASS_POINTER,
    ['m'] = CLASS_ERRNO,    ['%'] = CLASS_PERCENT,
};

#define NO_KIND 0xff /* a length modifier C99 does not define for the conversion */

/* The argument kind each class reads with each length modifier.  Undefined
 * pairs ("%Ld", "%hs", "%lp") are shown literally rather than guessed at, so
 * the caller and the back end can never disagree about a va_arg type. */
static const unsigned char kind_by_length[CLASS_COUNT_OF][XLOG_LEN_BIG_L + 1] = {
    [CLASS_NONE] = { NO_KIND, NO_KIND, NO_KIND, NO_KIND, NO_KIND, NO_KIND, NO_KIND, NO_KIND, NO_KIND },
    [CLASS_INTEGER] = {
        [XLOG_LEN_NONE] = XLOG_ARG_INT,  [XLOG_LEN_HH] = XLOG_ARG_INT,
        [XLOG_LEN_H] = XLOG_ARG_INT,     [XLOG_LEN_L] = XLOG_ARG_LONG,
        [XLOG_LEN_LL] = XLOG_ARG_LLONG,  [XLOG_LEN_J] = XLOG_ARG_INTMAX,
        [XLOG_LEN_Z] = XLOG_ARG_SIZE,    [XLOG_LEN_T] = XLOG_ARG_PTRDIFF,
        [XLOG_LEN_BIG_L] = NO_KIND,
    },
    /* a refused %n still consumes its pointer, whatever it points to */
    [CLASS_COUNT] = { XLOG_ARG_PTR, XLOG_ARG_PTR, XLOG_ARG_PTR, XLOG_ARG_PTR, XLOG_ARG_PTR,
                      XLOG_ARG_PTR, XLOG_ARG_PTR, XLOG_ARG_PTR, NO_KIND },
    [CLASS_FLOATING] = { XLOG_ARG_DOUBLE, NO_KIND, NO_KIND, XLOG_ARG_DOUBLE, NO_KIND,
                         NO_KIND, NO_KIND, NO_KIND, XLOG_ARG_LDOUBLE },
    [CLASS_CHAR] = { XLOG_ARG_INT, NO_KIND, NO_KIND, XLOG_ARG_WINT, NO_KIND,
                     NO_KIND, NO_KIND, NO_KIND, NO_KIND },
    [CLASS_STRING] = { XLOG_ARG_STR, NO_KIND, NO_KIND, XLOG_ARG_WSTR, NO_KIND,
                       NO_KIND, NO_KIND, NO_KIND, NO_KIND },
    [CLASS_POINTER] = { XLOG_ARG_PTR, NO_KIND, NO_KIND, NO_KIND, NO_KIND,
                        NO_KIND, NO_KIND, NO_KIND, NO_KIND },
    /* glibc ignores a length modifier on %m; no argument is read */
    [CLASS_ERRNO] = { XLOG_ARG_ERRNO, XLOG_ARG_ERRNO, XLOG_ARG_ERRNO, XLOG_ARG_ERRNO,
                      XLOG_ARG_ERRNO, XLOG_ARG_ERRNO, XLOG_ARG_ERRNO, XLOG_ARG_ERRNO,
                      XLOG_ARG_ERRNO },
    [CLASS_PERCENT] = { XLOG_ARG_NONE, NO_KIND, NO_KIND, NO_KIND, NO_KIND,
                        NO_KIND, NO_KIND, NO_KIND, NO_KIND },
};

static const unsigned char flag_bits[256] = {
    ['-'] = XLOG_FMT_FLAG_MINUS, ['+'] = XLOG_FMT_FLAG_PLUS, [' '] = XLOG_FMT_FLAG_SPACE,
    ['#'] = XLOG_FMT_FLAG_HASH,  ['0'] = XLOG_FMT_FLAG_ZERO,  ['\''] = XLOG_FMT_FLAG_GROUP,
};

/* Reads a decimal count at *p into *value (left alone when there are no
 * digits).  Returns false when it does not fit an int, as printf then fails. */
static bool parse_count(const char **p, const char *end, int *value)
{
    const char *s = *p;
    if (s == end || *s < '0' || *s > '9')
        return true;
    long long n = 0;
    for (; s < end && *s >= '0' && *s <= '9'; s++) {
        n = n * 10 + (*s - '0');
        if (n > INT_MAX) {
            *p = s + 1;
            return false;
        }
    }
    *value = (int)n;
    *p = s;
    return true;
}

/* Marks c as shown literally: the text from '%' up to p is then output as is
 * and no argument is consumed. */
static const char *refuse(xlog_conv *c, const char *p)
{
    c->conv = '?';
    c->flags = 0;
    c->width = XLOG_FMT_NONE;
    c->precision = XLOG_FMT_NONE;
    c->length = XLOG_LEN_NONE;
    c->kind = XLOG_ARG_NONE;
    return p;
}

/* Parses the conversion starting at the '%' at p; returns where it ends. */
static const char *parse_conversion(const char *p, const char *end, xlog_conv *c)
{
    p++;
    /* Most conversions are a bare letter: "%d", "%s". */
    if (p < end && conv_class[(unsigned char)*p] != CLASS_NONE) {
        c->conv = *p;
        c->kind = kind_by_length[conv_class[(unsigned char)*p]][XLOG_LEN_NONE];
        return p + 1;
    }

    for (; p < end && flag_bits[(unsigned char)*p]; p++)
        c->flags |= flag_bits[(unsigned char)*p];

    if (p < end && *p == '*') {
        c->width = XLOG_FMT_STAR;
        p++;
    } else if (!parse_count(&p, end, &c->width)) {
        return refuse(c, p);
    }

    if (p < end && *p == '.') {
        p++;
        c->precision = 0; /* "%.f" means precision 0 */
        if (p < end && *p == '*') {
            c->precision = XLOG_FMT_STAR;
            p++;
        } else if (!parse_count(&p, end, &c->precision)) {
            return refuse(c, p);
        }
    }

    if (p < end) {
        switch (*p) {
        case 'h':
            c->length = (p + 1 < end && p[1] == 'h') ? XLOG_LEN_HH : XLOG_LEN_H;
            break;
        case 'l':
            c->length = (p + 1 < end && p[1] == 'l') ? XLOG_LEN_LL : XLOG_LEN_L;
            break;
        case 'j': c->length = XLOG_LEN_J; break;
        case 'z': c->length = XLOG_LEN_Z; break;
        case 't': c->length = XLOG_LEN_T; break;
        case 'L': c->length = XLOG_LEN_BIG_L; break;
        default: break;
        }
        p += (c->length == XLOG_LEN_HH || c->length == XLOG_LEN_LL) ? 2
             : c->length != XLOG_LEN_NONE;
    }

    if (p == end)
        return refuse(c, p);
    char conv = *p++;
    unsigned char kind = kind_by_length[conv_class[(unsigned char)conv]][c->length];
    if (kind == NO_KIND)
        return refuse(c, p);
    c->conv = conv;
    c->kind = kind;
    return p;
}

int xlog_fmt_next(const char **cursor, const char *end, xlog_conv *c)
{
    const char *p = *cursor;
    if (p >= end)
        return 0;

    const char *percent = memchr(p, '%', (size_t)(end - p));
    c->lit = p;
    c->lit_len = (size_t)((percent ? percent : end) - p);
    c->flags = 0;
    c->width = XLOG_FMT_NONE;
    c->precision = XLOG_FMT_NONE;
    c->length = XLOG_LEN_NONE;
    c->kind = XLOG_ARG_NONE;
    if (!percent) {
        c->conv = 0;
        c->spec = end;
        c->spec_len = 0;
        *cursor = end;
        return 1;
    }
    const char *after = parse_conversion(percent, end, c);
    c->spec = percent;
    c->spec_len = (size_t)(after - percent);
    *cursor = after;
    return 1;
}

/* ------------------------------------------------------------------------ */
/* Output                                                                   */
/* ------------------------------------------------------------------------ */

/* Where output goes: len counts the complete output, buf keeps what fits. */
typedef struct sink {
    char *buf;
    size_t cap;
    size_t len;
} sink;

static inline void put(sink *o, const char *p, size_t n)
{
    if (n == 0) /* common (an empty prefix, adjacent conversions): skip the call */
        return;
    if (o->len < o->cap) {
        size_t room = o->cap - o->len;
        memcpy(o->buf + o->len, p, n < room ? n : room);
    }
    o->len += n;
}

static inline void put_char(sink *o, char ch)
{
    if (o->len < o->cap)
        o->buf[o->len] = ch;
    o->len++;
}

static inline void pad(sink *o, char ch, size_t n)
{
    if (n == 0)
        return;
    if (o->len < o->cap) {
        size_t room = o->cap - o->len;
        memset(o->buf + o->len, ch, n < room ? n : room);
    }
    o->len += n;
}

/* A conversion's flags, width and precision once '*' arguments are read. */
typedef struct field {
    unsigned flags;
    size_t width;  /* 0 when not given; a negative '*' width can exceed INT_MAX */
    int precision; /* < 0 when not given */
} field;

static void put_padded_text(sink *o, const field *f, const char *p, size_t n)
{
    size_t fill = f->width > n ? f->width - n : 0;
    if (!(f->flags & XLOG_FMT_FLAG_MINUS))
        pad(o, ' ', fill);
    put(o, p, n);
    if (f->flags & XLOG_FMT_FLAG_MINUS)
        pad(o, ' ', fill);
}

/* A number's text as printf lays it out, before the width is applied. */
typedef struct number_text {
    const char *prefix;   /* sign and "0x": the '0' flag pads after them */
    size_t prefix_len;
    size_t leading_zeros; /* from an integer's precision */
    const char *digits;   /* the rest: digits, point, exponent */
    size_t ndigits;
    size_t inner_at;      /* inner_zeros zeros go before digits[inner_at] */
    size_t inner_zeros;   /* (the tail of a huge floating precision) */
    size_t uncounted;     /* bytes the width does not count (see render_float) */
} number_text;

static void put_digits(sink *o, const number_text *n)
{
    pad(o, '0', n->leading_zeros);
    if (n->inner_zeros == 0) {
        put(o, n->digits, n->ndigits);
        return;
    }
    put(o, n->digits, n->inner_at);
    pad(o, '0', n->inner_zeros);
    put(o, n->digits + n->inner_at, n->ndigits - n->inner_at);
}

/* Writes a number padded to the field width.  zero_fill says whether the '0'
 * flag may pad (printf ignores it with '-', with a precision on integers, and
 * for inf and nan). */
static void put_number(sink *o, const field *f, const number_text *n, bool zero_fill)
{
    size_t size = n->prefix_len + n->leading_zeros + n->ndigits + n->inner_zeros - n->uncounted;
    size_t fill = f->width > size ? f->width - size : 0;
    if (f->flags & XLOG_FMT_FLAG_MINUS) {
        put(o, n->prefix, n->prefix_len);
        put_digits(o, n);
        pad(o, ' ', fill);
    } else if (zero_fill && (f->flags & XLOG_FMT_FLAG_ZERO)) {
        put(o, n->prefix, n->prefix_len);
        pad(o, '0', fill);
        put_digits(o, n);
    } else {
        pad(o, ' ', fill);
        put(o, n->prefix, n->prefix_len);
        put_digits(o, n);
    }
}

/* ------------------------------------------------------------------------ */
/* Integers                                                                 */
/* ------------------------------------------------------------------------ */

const char xlog_digit_pairs[200] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* Writes v in decimal so that it ends just before end; returns its start. */
static inline char *write_decimal(char *end, uint64_t v)
{
    return xlog_digits_before(end, v, xlog_decimal_length(v));
}

/* The value as printf reads it for a signed conversion with this length. */
static int64_t narrow_signed(uint64_t v, unsigned char length)
{
    switch (length) {
    case XLOG_LEN_HH: return (signed char)v;
    case XLOG_LEN_H: return (short)v;
    case XLOG_LEN_L: return (long)v;
    case XLOG_LEN_LL: return (long long)v;
    case XLOG_LEN_J: return (intmax_t)v;
    case XLOG_LEN_Z: return (ptrdiff_t)(size_t)v; /* the signed type of size_t's width */
    case XLOG_LEN_T: return (ptrdiff_t)v;
    default: return (int)v;
    }
}

/* The value as printf reads it for an unsigned conversion with this length. */
static uint64_t narrow_unsigned(uint64_t v, unsigned char length)
{
    switch (length) {
    case XLOG_LEN_HH: return (unsigned char)v;
    case XLOG_LEN_H: return (unsigned short)v;
    case XLOG_LEN_L: return (unsigned long)v;
    case XLOG_LEN_LL: return (unsigned long long)v;
    case XLOG_LEN_J: return (uintmax_t)v;
    case XLOG_LEN_Z: return (size_t)v;
    case XLOG_LEN_T: return (size_t)(ptrdiff_t)v;
    default: return (unsigned)v;
    }
}

/* Writes an integer's digits with its prefix (sign, "0x"), zeros from the
 * precision, and padding.  Inlined: a call here costs the common "%d" a
 * tenth of its time. */
static inline __attribute__((always_inline)) void put_integer(sink *o, const field *f, char conv,
                                                              const char *prefix, size_t prefix_len,
                                                              const char *digits, size_t ndigits)
{
    size_t zeros = f->precision > 0 && (size_t)f->precision > ndigits
                       ? (size_t)f->precision - ndigits : 0;
    /* '#' on octal makes the first digit a 0, adding one if needed. */
    if (conv == 'o' && (f->flags & XLOG_FMT_FLAG_HASH) && zeros == 0 &&
        (ndigits == 0 || *digits != '0'))
        zeros = 1;
    if (f->width == 0 && zeros == 0) { /* the usual "%d": no padding to lay out */
        put(o, prefix, prefix_len);
        put(o, digits, ndigits);
        return;
    }
    number_text text = { .prefix = prefix, .prefix_len = prefix_len, .leading_zeros = zeros,
                         .digits = digits, .ndigits = ndigits, .inner_at = ndigits };
    put_number(o, f, &text, f->precision < 0);
}

/* The longest separator grouped digits can hold (a locale's multibyte
 * character); a longer one is not used. */
#define MAX_SEPARATOR MB_LEN_MAX

/*
 * put_integer for the ' flag: the locale's thousands separator goes between
 * groups of digits, as glibc 2.36 does it for every integer conversion but
 * %p.  GROUPING's first byte is the size of the rightmost group, each next
 * byte the size of the next group to the left, and the last one repeats.
 * CHAR_MAX ("-1" in a locale's source) means no further grouping, which a
 * size above 64 gives anyway: no integer has that many digits.  The
 * precision's zeros and the '0' flag's padding are not grouped, and the
 * precision and width count the separator's bytes.
 */
static __attribute__((cold, noinline)) void put_grouped(sink *o, const field *f, char conv,
                                                        const char *prefix, size_t prefix_len,
                                                        const char *digits, size_t ndigits)
{
    const char *sep = nl_langinfo(THOUSANDS_SEP);
    const char *sizes = nl_langinfo(GROUPING);
    size_t sep_len = strlen(sep);
    size_t size = (unsigned char)sizes[0];
    if (sep_len == 0 || sep_len > MAX_SEPARATOR || size == 0) {
        put_integer(o, f, conv, prefix, prefix_len, digits, ndigits);
        return;
    }
    char grouped[64 + 63 * MAX_SEPARATOR];
    char *start = grouped + sizeof grouped;
    size_t left = ndigits;
    while (left > size) {
        start -= size;
        left -= size;
        memcpy(start, digits + left, size);
        start -= sep_len;
        memcpy(start, sep, sep_len);
        if (sizes[1] != '\0')
            size = (unsigned char)*++sizes;
    }
    start -= left;
    memcpy(start, digits, left);
    put_integer(o, f, conv, prefix, prefix_len, start, (size_t)(grouped + sizeof grouped - start));
}

/* %d %i %o %u %x %X %b %B, and %p (as glibc: "0x" then hex digits, where the
 * '+' and ' ' flags and a precision still apply). */
static void render_integer(sink *o, const field *f, char conv, unsigned char length, uint64_t bits)
{
    char prefix[3];
    size_t prefix_len = 0;
    uint64_t magnitude;

    if (conv == 'd' || conv == 'i') {
        int64_t v = narrow_signed(bits, length);
        magnitude = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
        if (v < 0)
            prefix[prefix_len++] = '-';
    } else {
        magnitude = conv == 'p' ? bits : narrow_unsigned(bits, length);
    }
    if ((conv == 'd' || conv == 'i' || conv == 'p') && prefix_len == 0) {
        if (f->flags & XLOG_FMT_FLAG_PLUS)
            prefix[prefix_len++] = '+';
        else if (f->flags & XLOG_FMT_FLAG_SPACE)
            prefix[prefix_len++] = ' ';
    }

    char buf[64];
    char *end = buf + sizeof buf, *digits = end;
    if (magnitude != 0 || f->precision != 0) { /* "%.0d" of 0 has no digits */
        if (conv == 'd' || conv == 'i' || conv == 'u') { /* first: the commonest */
            digits = write_decimal(end, magnitude);
        } else if (conv == 'o') {
            do *--digits = (char)('0' + (magnitude & 7)); while (magnitude >>= 3);
        } else {
            /* "0x", "0X", "0b", "0B": always for %p, with '#' for a value not 0 */
            if (conv == 'p' || ((f->flags & XLOG_FMT_FLAG_HASH) && magnitude != 0)) {
                prefix[prefix_len++] = '0';
                prefix[prefix_len++] = conv == 'p' ? 'x' : conv;
            }
            if (conv == 'b' || conv == 'B') {
                do *--digits = (char)('0' + (magnitude & 1)); while (magnitude >>= 1);
            } else {
                const char *hex = conv == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
                do *--digits = hex[magnitude & 15]; while (magnitude >>= 4);
            }
        }
    }
    if ((f->flags & XLOG_FMT_FLAG_GROUP) && conv != 'p')
        put_grouped(o, f, conv, prefix, prefix_len, digits, (size_t)(end - digits));
    else
        put_integer(o, f, conv, prefix, prefix_len, digits, (size_t)(end - digits));
}

/* ------------------------------------------------------------------------ */
/* Floating point                                                           */
/* ------------------------------------------------------------------------ */

/* The printf sign of a floating value: glibc prints '-' whenever the sign bit
 * is set, also for -0.0 and for values that round to zero. */
static size_t sign_prefix(char *prefix, bool negative, unsigned flags)
{
    if (negative)
        *prefix = '-';
    else if (flags & XLOG_FMT_FLAG_PLUS)
        *prefix = '+';
    else if (flags & XLOG_FMT_FLAG_SPACE)
        *prefix = ' ';
    else
        return 0;
    return 1;
}

#define FAST_FIXED_MAX_PRECISION 15

/*
 * "%f" and "%.Nf" (N <= 15) of a finite double below 1e18, without snprintf.
 * Returns false, having written nothing, when it cannot be sure to match
 * snprintf; the caller then uses snprintf.
 *
 * Why it is exact: the magnitude a splits exactly into an integer part ip (a
 * uint64_t) and a fraction fr = a - ip (subtracting a double's integer part is
 * exact).  We must round fr * 10^N to an integer as glibc does: to nearest,
 * ties to even, on the exact value P.  10^N is exact in a double; P < 10^15 <
 * 2^50, so the rounded product is within 2^-4 of P and r, its truncation,
 * leaves P - r in (-1/16, 1 + 1/16): the answer is r or r + 1.  fma() computes
 * P - r with a single rounding, which is monotonic, so comparing its result e
 * with 0.5 tells which, except when e == 0.5 exactly; that case (a true tie, or
 * too close to call) goes to snprintf.  So the fraction digits are
 * r + (e > 0.5), carrying into ip when they reach 10^N.  glibc honours the
 * current rounding mode and the locale's decimal point; we require
 * round-to-nearest and ".".
 */
static bool render_fixed_fast(sink *o, const field *f, double x)
{
    static const double powers_of_ten[FAST_FIXED_MAX_PRECISION + 1] = {
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
    };
    int precision = f->precision < 0 ? 6 : f->precision;
    double a = fabs(x);
    if (precision > FAST_FIXED_MAX_PRECISION || !(a < 1e18))
        return false; /* also refuses nan; inf fails a < 1e18 */
    const char *radix = nl_langinfo(RADIXCHAR);
    if (radix[0] != '.' || radix[1] != '\0' || fegetround() != FE_TONEAREST)
        return false;

    uint64_t ip = (uint64_t)a;
    double fr = a - (double)ip;
    double scale = powers_of_ten[precision];
    uint64_t r = (uint64_t)(fr * scale);
    double e = fma(fr, scale, -(double)r);
    if (e == 0.5)
        return false;
    uint64_t digits_after = r + (e > 0.5);
    if (digits_after == (uint64_t)scale) {
        digits_after = 0;
        ip++;
    }

    /* ip < 2^64 (20 digits), the point, the fraction (15), and the 8 bytes
     * xlog_digits_at may write */
    char buf[48];
    char *end = xlog_digits_at(buf, ip, xlog_decimal_length(ip));
    if (precision > 0 || (f->flags & XLOG_FMT_FLAG_HASH))
        *end++ = '.';
    end = xlog_digits_at(end, digits_after, precision);

    char prefix[1];
    size_t prefix_len = sign_prefix(prefix, signbit(x), f->flags);
    size_t ndigits = (size_t)(end - buf);
    if (f->width == 0) { /* "%f", "%.3f": nothing to lay out */
        put(o, prefix, prefix_len);
        put(o, buf, ndigits);
        return true;
    }
    number_text text = { .prefix = prefix, .prefix_len = prefix_len, .digits = buf,
                         .ndigits = ndigits, .inner_at = ndigits };
    put_number(o, f, &text, true);
    return true;
}

/* The spec is built at run time from a checked conversion (see render_float). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

/* Formats the value with snprintf into a stack buffer, or the heap when it is
 * long (a %Lf of a huge value, a large precision).  Returns the text and its
 * length (in *len), or NULL when snprintf or the allocation fails; *heap is
 * set to what the caller must free. */
static const char *snprintf_float(char *stack, size_t stack_size, const char *spec,
                                  int precision, const xlog_arg *value, bool is_long,
                                  size_t *len, char **heap)
{
    *heap = NULL;
    int n = is_long ? snprintf(stack, stack_size, spec, precision, value->ld)
                    : snprintf(stack, stack_size, spec, precision, value->d);
    if (n < 0)
        return NULL;
    *len = (size_t)n;
    if ((size_t)n < stack_size)
        return stack;
    *heap = malloc((size_t)n + 1);
    if (!*heap)
        return NULL;
    int again = is_long ? snprintf(*heap, (size_t)n + 1, spec, precision, value->ld)
                        : snprintf(*heap, (size_t)n + 1, spec, precision, value->d);
    if (again != n) {
        free(*heap);
        *heap = NULL;
        return NULL;
    }
    return *heap;
}

#pragma GCC diagnostic pop

/*
 * Beyond these precisions every further digit is 0, because a binary floating
 * value has a finite decimal (or hex) expansion.  A value is m * 2^-k with m
 * below 2^M (M mantissa bits) and k at most M - min_exp, so %f has at most k
 * fractional digits, %e at most those of m * 5^k, that is M*log10(2) +
 * k*log10(5) + 1 significant ones, and %a at most M/4 + 1 hex digits after the
 * point.  (Each limit is rounded up.)  Larger precisions are rendered by
 * asking snprintf for this many and inserting the missing zeros ourselves,
 * which keeps a "%.2000000000f" from needing gigabytes (glibc would allocate
 * them).  The limits also exceed the largest decimal exponent, so %g picks the
 * same style at the limit as at the precision asked for.
 */
#define FRACTION_DIGITS(mant_dig, min_exp) ((mant_dig) - (min_exp))
#define SIGNIFICANT_DIGITS(mant_dig, min_exp) \
    ((mant_dig) * 30103 / 100000 + FRACTION_DIGITS(mant_dig, min_exp) * 69898 / 100000 + 2)
#define HEX_DIGITS(mant_dig) ((mant_dig) / 4 + 2)

static int precision_limit(char conv, bool is_long)
{
    switch (conv) {
    case 'f': case 'F':
        return is_long ? FRACTION_DIGITS(LDBL_MANT_DIG, LDBL_MIN_EXP)
                       : FRACTION_DIGITS(DBL_MANT_DIG, DBL_MIN_EXP);
    case 'a': case 'A':
        return is_long ? HEX_DIGITS(LDBL_MANT_DIG) : HEX_DIGITS(DBL_MANT_DIG);
    default:
        return is_long ? SIGNIFICANT_DIGITS(LDBL_MANT_DIG, LDBL_MIN_EXP)
                       : SIGNIFICANT_DIGITS(DBL_MANT_DIG, DBL_MIN_EXP);
    }
}

/* Where the zeros of a precision cut by precision_limit belong in text:
 * before the exponent, or at the end. */
static size_t tail_zeros_at(const char *text, size_t len, char conv)
{
    char exponent = (conv == 'a' || conv == 'A') ? 'p' : 'e';
    for (size_t i = 0; i < len; i++)
        if ((text[i] | 0x20) == exponent)
            return i;
    return len;
}

/* glibc pads %f %e %g (not %a) to a width counted in characters, so a
 * decimal point or thousands separator of several bytes (U+066B, U+202F)
 * counts as one: these are the bytes it does not count.  Only those two can
 * be multibyte in a floating conversion's text. */
static size_t multibyte_extra(const char *text, size_t len)
{
    size_t extra = 0;
    mbstate_t state;
    memset(&state, 0, sizeof state);
    for (size_t i = 0; i < len;) {
        size_t n = (unsigned char)text[i] < 0x80 ? 1 : mbrlen(text + i, len - i, &state);
        if (n == 0 || n > len - i) { /* not a character of this locale: a byte each */
            memset(&state, 0, sizeof state);
            n = 1;
        }
        extra += n - 1;
        i += n;
    }
    return extra;
}

/* %f %F %e %E %g %G %a %A.  Returns false when the conversion could not be
 * done (snprintf failed: out of memory). */
static bool render_float(sink *o, const field *f, const xlog_conv *c, const xlog_arg *value)
{
    bool is_long = c->kind == XLOG_ARG_LDOUBLE;
    if (!is_long && (c->conv == 'f' || c->conv == 'F') && !(f->flags & XLOG_FMT_FLAG_GROUP) &&
        render_fixed_fast(o, f, value->d))
        return true;

    int precision = f->precision, limit = precision_limit(c->conv, is_long);
    size_t cut_zeros = 0;
    if (precision > limit) {
        cut_zeros = (size_t)(precision - limit);
        precision = limit;
    }

    /* The width is left out of the spec: snprintf's output then stays short,
     * and we pad as for integers. */
    char spec[12], *s = spec;
    *s++ = '%';
    if (f->flags & XLOG_FMT_FLAG_PLUS)
        *s++ = '+';
    if (f->flags & XLOG_FMT_FLAG_SPACE)
        *s++ = ' ';
    if (f->flags & XLOG_FMT_FLAG_HASH)
        *s++ = '#';
    if (f->flags & XLOG_FMT_FLAG_GROUP)
        *s++ = '\'';
    *s++ = '.';
    *s++ = '*'; /* a negative precision argument means "not given" */
    if (is_long)
        *s++ = 'L';
    *s++ = c->conv;
    *s = '\0';

    char stack[512], *heap;
    size_t len;
    const char *text = snprintf_float(stack, sizeof stack, spec, precision, value, is_long,
                                      &len, &heap);
    if (!text)
        return false;
    /* The '0' flag pads after the sign and after a%'s "0x", and only finite
     * values, whose text then goes on with a digit. */
    size_t prefix_len = (len > 0 && (text[0] == '-' || text[0] == '+' || text[0] == ' '));
    bool finite = len > prefix_len && text[prefix_len] >= '0' && text[prefix_len] <= '9';
    if (finite && (c->conv == 'a' || c->conv == 'A'))
        prefix_len += 2;
    /* %g drops trailing zeros, unless '#' keeps them; inf and nan have none. */
    bool is_g = c->conv == 'g' || c->conv == 'G';
    bool keeps_zeros = finite && (!is_g || (f->flags & XLOG_FMT_FLAG_HASH));
    number_text number = {
        .prefix = text,
        .prefix_len = prefix_len,
        .digits = text + prefix_len,
        .ndigits = len - prefix_len,
        .inner_at = tail_zeros_at(text + prefix_len, len - prefix_len, c->conv),
        .inner_zeros = keeps_zeros ? cut_zeros : 0,
        .uncounted = f->width > 0 && c->conv != 'a' && c->conv != 'A' ? multibyte_extra(text, len)
                                                                         : 0,
    };
    put_number(o, f, &number, finite);
    free(heap);
    return true;
}

/* ------------------------------------------------------------------------ */
/* Characters and strings                                                   */
/* ------------------------------------------------------------------------ */

/* A NULL %s or %ls: glibc prints "(null)" when the precision leaves room for
 * all of it, and nothing otherwise. */
static void put_null(sink *o, const field *f)
{
    put_padded_text(o, f, "(null)", f->precision < 0 || f->precision >= 6 ? 6 : 0);
}

static void render_string(sink *o, const field *f, const xlog_arg *value)
{
    if (!value->s.ptr) {
        put_null(o, f);
        return;
    }
    size_t n = value->s.len;
    if (f->precision >= 0 && (size_t)f->precision < n)
        n = (size_t)f->precision;
    /* Like a C string, it ends at a NUL byte if one comes first. */
    const char *nul = memchr(value->s.ptr, '\0', n);
    if (nul)
        n = (size_t)(nul - value->s.ptr);
    put_padded_text(o, f, value->s.ptr, n);
}

/* Converts a wide string as glibc's %ls does (wcsrtombs): character by
 * character, stopping at L'\0', after len characters, or before a character
 * whose bytes would pass limit.  Writes the bytes to o unless o is NULL.
 * Returns the byte count in *bytes, or false when a character has no
 * multibyte form in the current locale. */
static bool convert_wide(sink *o, const wchar_t *ws, size_t len, size_t limit, size_t *bytes)
{
    mbstate_t state;
    memset(&state, 0, sizeof state);
    *bytes = 0;
    /* A record holds a wide string right after its u32 length, which need
     * not be at a multiple of 4 (a %s of odd length before it): each
     * character is copied out, never loaded through a misaligned pointer. */
    const char *at = (const char *)ws;
    for (size_t i = 0; i < len && *bytes < limit; i++) {
        wchar_t wc;
        memcpy(&wc, at + i * sizeof wc, sizeof wc);
        if (wc == L'\0')
            break;
        char mb[MB_LEN_MAX];
        size_t n = wcrtomb(mb, wc, &state);
        if (n == (size_t)-1)
            return false;
        if (n > limit - *bytes)
            break;
        *bytes += n;
        if (o)
            put(o, mb, n);
    }
    return true;
}

/* %ls.  Returns false when a character cannot be converted (glibc's snprintf
 * then fails as a whole; we show the conversion literally instead). */
static bool render_wide_string(sink *o, const field *f, const xlog_arg *value)
{
    if (!value->ws.ptr) {
        put_null(o, f);
        return true;
    }
    size_t limit = f->precision >= 0 ? (size_t)f->precision : SIZE_MAX;
    size_t bytes;
    if (!convert_wide(NULL, value->ws.ptr, value->ws.len, limit, &bytes))
        return false;
    size_t fill = f->width > bytes ? f->width - bytes : 0;
    if (!(f->flags & XLOG_FMT_FLAG_MINUS))
        pad(o, ' ', fill);
    convert_wide(o, value->ws.ptr, value->ws.len, limit, &bytes);
    if (f->flags & XLOG_FMT_FLAG_MINUS)
        pad(o, ' ', fill);
    return true;
}

/* %lc (the precision does not apply).  Returns false as render_wide_string. */
static bool render_wide_char(sink *o, const field *f, const xlog_arg *value)
{
    mbstate_t state;
    memset(&state, 0, sizeof state);
    char mb[MB_LEN_MAX];
    size_t n = wcrtomb(mb, (wchar_t)(wint_t)value->u, &state);
    if (n == (size_t)-1)
        return false;
    put_padded_text(o, f, mb, n);
    return true;
}

/* %m: what glibc's %m prints for the errno the caller saw.  That is
 * strerror_r's message, a string to which width, precision and '-' apply;
 * with '#', the error's name ("EINVAL"), or for a number without one, the
 * number as %d prints it (with the flags, width and precision).  Not inlined:
 * its buffer would make every render's stack frame 1 KiB larger. */
static __attribute__((noinline)) void render_errno(sink *o, const field *f, int errnum)
{
    char buf[1024];
    const char *text = (f->flags & XLOG_FMT_FLAG_HASH) ? strerrorname_np(errnum)
                                                        : strerror_r(errnum, buf, sizeof buf);
    if (!text) {
        render_integer(o, f, 'd', XLOG_LEN_NONE, (uint64_t)(int64_t)errnum);
        return;
    }
    size_t n = strlen(text);
    if (f->precision >= 0 && (size_t)f->precision < n)
        n = (size_t)f->precision;
    put_padded_text(o, f, text, n);
}

/* ------------------------------------------------------------------------ */
/* Rendering                                                                */
/* ------------------------------------------------------------------------ */

/* Reads the '*' arguments and renders one conversion; *next_arg advances past
 * what it consumes. */
static void render_conversion(sink *o, const xlog_conv *c, const xlog_arg *args, size_t nargs,
                              size_t *next_arg)
{
    size_t needed = (size_t)(c->width == XLOG_FMT_STAR) + (c->precision == XLOG_FMT_STAR) +
                    (c->kind != XLOG_ARG_NONE);
    if (c->conv == '?' || nargs - *next_arg < needed) {
        /* Once an argument is missing, later conversions would read the
         * wrong ones: they are all shown literally too. */
        if (c->conv != '?')
            *next_arg = nargs;
        put(o, c->spec, c->spec_len);
        return;
    }

    field f = { .flags = c->flags, .width = 0, .precision = c->precision };
    if (c->width == XLOG_FMT_STAR) {
        int w = (int)args[(*next_arg)++].i;
        if (w < 0) {
            f.flags |= XLOG_FMT_FLAG_MINUS;
            f.width = (size_t)-(int64_t)w; /* no overflow for INT_MIN */
        } else {
            f.width = (size_t)w;
        }
    } else if (c->width >= 0) {
        f.width = (size_t)c->width;
    }
    if (c->precision == XLOG_FMT_STAR) {
        int p = (int)args[(*next_arg)++].i;
        f.precision = p < 0 ? XLOG_FMT_NONE : p;
    }
    const xlog_arg *value = c->kind != XLOG_ARG_NONE ? &args[(*next_arg)++] : NULL;

    bool done = true;
    switch (c->conv) {
    case 'd': case 'i': case 'o': case 'u': case 'x': case 'X': case 'b': case 'B':
        render_integer(o, &f, c->conv, c->length, value->u);
        break;
    case 'm':
        render_errno(o, &f, (int)value->i);
        break;
    case 'p':
        if (value->p)
            render_integer(o, &f, 'p', XLOG_LEN_NONE, (uint64_t)(uintptr_t)value->p);
        else
            put_padded_text(o, &f, "(nil)", 5);
        break;
    case 's':
        if (c->kind == XLOG_ARG_WSTR)
            done = render_wide_string(o, &f, value);
        else
            render_string(o, &f, value);
        break;
    case 'c':
        if (c->kind == XLOG_ARG_WINT) {
            done = render_wide_char(o, &f, value);
        } else {
            char ch = (char)(unsigned char)value->u;
            put_padded_text(o, &f, &ch, 1);
        }
        break;
    case '%':
        put_char(o, '%'); /* glibc ignores flags, width and precision here */
        break;
    case 'n':
        done = false; /* refused: its pointer is consumed, nothing is written */
        break;
    default:
        done = render_float(o, &f, c, value);
        break;
    }
    if (!done)
        put(o, c->spec, c->spec_len);
}

size_t xlog_fmt_render(const char *fmt, size_t fmt_len, const xlog_arg *args, size_t nargs,
                       char *out, size_t cap)
{
    sink o = { .buf = out, .cap = cap, .len = 0 };
    if (fmt_len == 0)
        return 0;
    const char *cursor = fmt, *end = fmt + fmt_len;
    size_t next_arg = 0;
    xlog_conv c;
    while (xlog_fmt_next(&cursor, end, &c)) {
        put(&o, c.lit, c.lit_len);
        if (c.conv)
            render_conversion(&o, &c, args, nargs, &next_arg);
    }
    return o.len;
}

/* ------------------------------------------------------------------------ */
/* Formats parsed once                                                      */
/* ------------------------------------------------------------------------ */

/* How a parsed step renders its conversion. */
enum step_op {
    OP_END,      /* none: the text after the last conversion */
    OP_UNSIGNED, /* %u with no flags, width or precision; any length */
    OP_SIGNED,   /* %d %i, the same */
    OP_STRING,   /* %s of a char string, no flags, width or precision */
    OP_FIXED,    /* %f %F of a double, no flags or width; any precision */
    OP_GENERAL   /* any other: render_conversion */
};

/* The bits an integer conversion of this length reads, as a shift that
 * keeps them (narrow_signed and narrow_unsigned's widths). */
static unsigned char integer_shift(unsigned char length)
{
    switch (length) {
    case XLOG_LEN_HH: return 64 - CHAR_BIT;
    case XLOG_LEN_H: return 64 - CHAR_BIT * sizeof(short);
    case XLOG_LEN_NONE: return 64 - CHAR_BIT * sizeof(int);
    case XLOG_LEN_L: return 64 - CHAR_BIT * sizeof(long);
    default: return 0; /* ll j z t: 64 bits */
    }
}

static unsigned char step_op(const xlog_conv *c)
{
    bool plain = c->flags == 0 && c->width == XLOG_FMT_NONE;
    if (!plain)
        return OP_GENERAL;
    switch (c->conv) {
    case 'u':
        return c->precision == XLOG_FMT_NONE ? OP_UNSIGNED : OP_GENERAL;
    case 'd': case 'i':
        return c->precision == XLOG_FMT_NONE ? OP_SIGNED : OP_GENERAL;
    case 's':
        return c->kind == XLOG_ARG_STR && c->precision == XLOG_FMT_NONE ? OP_STRING : OP_GENERAL;
    case 'f': case 'F':
        return c->kind == XLOG_ARG_DOUBLE && c->precision != XLOG_FMT_STAR ? OP_FIXED
                                                                            : OP_GENERAL;
    default:
        return OP_GENERAL;
    }
}

int xlog_fmt_parse(const char *fmt, size_t fmt_len, xlog_fmt_parsed *out)
{
    out->usable = 0;
    if (fmt_len > XLOG_FMT_PARSED_MAX_LENGTH)
        return 0;
    out->fmt_len = (uint16_t)fmt_len;
    const char *cursor = fmt, *end = fmt + fmt_len;
    size_t count = 0, needed = 0, tail_at = fmt_len;
    xlog_conv c;
    xlog_fmt_step *s = out->steps;
    while (xlog_fmt_next(&cursor, end, &c)) {
        if (!c.conv) { /* the text after the last conversion */
            tail_at = (size_t)(c.lit - fmt);
            break;
        }
        if (count == XLOG_FMT_PARSED_CONVERSIONS)
            return 0;
        *s = (xlog_fmt_step){
            .lit_at = (uint16_t)(c.lit - fmt), .lit_len = (uint16_t)c.lit_len,
            .spec_at = (uint16_t)(c.spec - fmt), .spec_len = (uint16_t)c.spec_len,
            .op = step_op(&c), .shift = integer_shift(c.length), .conv = c.conv,
            .flags = (unsigned char)c.flags, .length = c.length, .kind = c.kind,
            .width = c.width, .precision = c.precision,
        };
        needed += (size_t)(c.width == XLOG_FMT_STAR) + (c.precision == XLOG_FMT_STAR) +
                  (c.kind != XLOG_ARG_NONE);
        count++;
        s++;
    }
    *s = (xlog_fmt_step){ .lit_at = (uint16_t)tail_at, .lit_len = (uint16_t)(fmt_len - tail_at),
                          .op = OP_END };
    out->args_needed = (unsigned char)needed;
    out->usable = 1;
    return 1;
}

/* A decimal integer without padding: the "%d" and "%lu" of most lines.  The
 * digits go straight to the output when it has room for them. */
static inline __attribute__((always_inline)) void put_decimal(sink *o, uint64_t magnitude)
{
    int n = xlog_decimal_length(magnitude);
    if (o->len <= o->cap && o->cap - o->len >= 20) { /* xlog_digits_at's 8 bytes, any n */
        xlog_digits_at(o->buf + o->len, magnitude, n);
        o->len += (size_t)n;
        return;
    }
    char buf[20];
    put(o, xlog_digits_before(buf + sizeof buf, magnitude, n), (size_t)n);
}

/* The conversion of step s, as xlog_fmt_next described it. */
static void step_conv(const xlog_fmt_step *s, const char *fmt, xlog_conv *c)
{
    *c = (xlog_conv){ .lit = fmt + s->lit_at, .lit_len = s->lit_len, .conv = s->conv,
                      .spec = fmt + s->spec_at, .spec_len = s->spec_len, .flags = s->flags,
                      .width = s->width, .precision = s->precision, .length = s->length,
                      .kind = s->kind };
}

size_t xlog_fmt_render_parsed(const xlog_fmt_parsed *parsed, const char *fmt,
                              const xlog_arg *args, size_t nargs, char *out, size_t cap)
{
    /* A missing argument makes this and every later conversion literal:
     * rare, and xlog_fmt_render's walk does it. */
    if (nargs < parsed->args_needed)
        return xlog_fmt_render(fmt, parsed->fmt_len, args, nargs, out, cap);
    sink o = { .buf = out, .cap = cap, .len = 0 };
    size_t next_arg = 0;
    for (const xlog_fmt_step *s = parsed->steps;; s++) {
        put(&o, fmt + s->lit_at, s->lit_len);
        switch (s->op) {
        case OP_END:
            return o.len;
        case OP_UNSIGNED:
            put_decimal(&o, args[next_arg++].u << s->shift >> s->shift);
            break;
        case OP_SIGNED: {
            int64_t v = (int64_t)(args[next_arg++].u << s->shift) >> s->shift;
            if (v < 0)
                put_char(&o, '-');
            put_decimal(&o, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
            break;
        }
        case OP_STRING: {
            field f = { .flags = 0, .width = 0, .precision = XLOG_FMT_NONE };
            render_string(&o, &f, &args[next_arg++]);
            break;
        }
        case OP_FIXED: {
            /* render_float's fast path first, without its frame; what it
             * declines, render_float tries again and then renders */
            field f = { .flags = 0, .width = 0, .precision = s->precision };
            const xlog_arg *value = &args[next_arg++];
            if (render_fixed_fast(&o, &f, value->d))
                break;
            xlog_conv c;
            step_conv(s, fmt, &c);
            if (!render_float(&o, &f, &c, value))
                put(&o, c.spec, c.spec_len);
            break;
        }
        default: {
            xlog_conv c;
            step_conv(s, fmt, &c);
            render_conversion(&o, &c, args, nargs, &next_arg);
            break;
        }
        }
    }
}

static size_t cache_slot(const char *fmt)
{
    uintptr_t a = (uintptr_t)fmt;
    return (size_t)((a >> 4) ^ (a >> 13)) & (XLOG_FMT_CACHE_SLOTS - 1);
}

const xlog_fmt_parsed *xlog_fmt_cache_get(xlog_fmt_cache *cache, const char *fmt,
                                          size_t fmt_len, xlog_fmt_parsed *local)
{
    int enclosed = cache->held++ > 0;
    __atomic_signal_fence(__ATOMIC_SEQ_CST); /* held before any read of a slot */
    xlog_fmt_cache_slot *slot = &cache->slots[cache_slot(fmt)];
    if (slot->fmt == fmt && slot->parsed.fmt_len == fmt_len)
        return slot->parsed.usable ? &slot->parsed : NULL;
    if (enclosed) /* the get we interrupt may be reading or writing this slot */
        return xlog_fmt_parse(fmt, fmt_len, local) ? local : NULL;
    slot->fmt = NULL;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    xlog_fmt_parse(fmt, fmt_len, &slot->parsed);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    slot->fmt = fmt;
    return slot->parsed.usable ? &slot->parsed : NULL;
}

void xlog_fmt_cache_forget(xlog_fmt_cache *cache, const char *fmt)
{
    xlog_fmt_cache_slot *slot = &cache->slots[cache_slot(fmt)];
    if (slot->fmt == fmt)
        slot->fmt = NULL;
}
