/*
 * fuzz_format.c - libFuzzer target for the format engine.
 *
 * Input: byte 0 is the format's length L, the next L bytes are the format, and
 * the rest are argument bytes, decoded in the order xlog_record_kinds() lists:
 * 4 bytes for int, wint_t and the errno of %m, 8 for the other integers,
 * pointers and double, 10 for long double (x87), and for a string a length
 * byte (0xff: NULL) then that many bytes (wide strings: that many 4-byte
 * characters).  Each string is its own allocation of exactly its length, so
 * reading past it is caught.  When the bytes run out, the remaining arguments
 * are missing.
 *
 * Checked at several capacities: the length is the same whatever the
 * capacity; what is written is a prefix of the full output and nothing past
 * cap is touched.  The output must equal glibc snprintf's, raw bytes and all,
 * compared one segment (literal text and one conversion) at a time with the
 * real types, up to the first segment our defined behaviour changes (a
 * refused or literal conversion, %n, a missing argument, a NUL in the
 * format).  Then it is escaped whole, as the text layout escapes a message
 * (lib/format/escape.c): the result is what a line may hold
 * (tests/line_rule.h), at most XLOG_ESCAPE_GROWTH times as long, and the
 * output itself when that already was.
 */
#include <locale.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "format/escape.h"
#include "format/format.h"
#include "record/record.h"
#include "format_reference.h"
#include "line_rule.h"

#define MAX_ARGS 32
#define FULL_LIMIT (1u << 20)      /* render in full only up to this size */
#define SNPRINTF_LIMIT (1u << 16)  /* compare with snprintf up to this size */

typedef struct reader {
    const uint8_t *p;
    size_t left;
} reader;

static bool take(reader *r, void *out, size_t n)
{
    if (r->left < n)
        return false;
    memcpy(out, r->p, n);
    r->p += n;
    r->left -= n;
    return true;
}

/* What the decoded arguments need freed, and what defeats the comparison. */
typedef struct decoded {
    xlog_arg args[MAX_ARGS];
    size_t nargs;
    void *owned[2 * MAX_ARGS];
    size_t nowned;
    const char *terminated[MAX_ARGS]; /* NUL-terminated copies for snprintf */
} decoded;

static void *own(decoded *d, size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        abort();
    d->owned[d->nowned++] = p;
    return p;
}

static bool decode_arg(reader *r, unsigned char kind, decoded *d)
{
    xlog_arg *a = &d->args[d->nargs];
    memset(a, 0, sizeof *a);
    switch (kind & XLOG_KIND_MASK) {
    case XLOG_ARG_INT: case XLOG_ARG_ERRNO: {
        int32_t v;
        if (!take(r, &v, sizeof v))
            return false;
        a->i = v;
        return true;
    }
    case XLOG_ARG_WINT: {
        uint32_t v;
        if (!take(r, &v, sizeof v))
            return false;
        a->u = v;
        return true;
    }
    case XLOG_ARG_LONG: case XLOG_ARG_LLONG: case XLOG_ARG_INTMAX:
    case XLOG_ARG_SIZE: case XLOG_ARG_PTRDIFF: case XLOG_ARG_PTR:
        return take(r, &a->u, sizeof a->u); /* all 64 bits wide here */
    case XLOG_ARG_DOUBLE:
        return take(r, &a->d, sizeof a->d);
    case XLOG_ARG_LDOUBLE:
        return take(r, &a->ld, 10); /* the x87 bytes; the rest stays zero */
    case XLOG_ARG_STR: {
        uint8_t len;
        if (!take(r, &len, 1))
            return false;
        if (len == 0xff)
            return true; /* NULL */
        if (r->left < len)
            return false;
        char *exact = own(d, len), *copy = own(d, (size_t)len + 1);
        take(r, exact, len);
        memcpy(copy, exact, len);
        copy[len] = '\0';
        a->s.ptr = exact;
        a->s.len = len;
        d->terminated[d->nargs] = copy;
        return true;
    }
    case XLOG_ARG_WSTR: {
        uint8_t len;
        if (!take(r, &len, 1))
            return false;
        if (len == 0xff)
            return true; /* NULL */
        if (r->left < (size_t)len * 4)
            return false;
        wchar_t *ws = own(d, ((size_t)len + 1) * sizeof *ws);
        for (size_t i = 0; i < len; i++) {
            int32_t ch;
            take(r, &ch, sizeof ch);
            ws[i] = ch;
        }
        ws[len] = L'\0'; /* for snprintf; we pass len, so we never need it */
        a->ws.ptr = ws;
        a->ws.len = len;
        return true;
    }
    default:
        abort(); /* xlog_record_kinds listed a kind that does not exist */
    }
}

/* Compares out[0..len) with snprintf, segment by segment, up to the first
 * segment our defined behaviour changes or snprintf cannot be given: the
 * output is the concatenation of the segments, so what comes before it must
 * match exactly, and all of it must when no segment was left out. */
static void compare_with_snprintf(const char *fmt, size_t fmt_len, const decoded *d,
                                  const char *out, size_t len)
{
    static char expected[SNPRINTF_LIMIT + 1];
    static char segment[512];
    size_t expected_len = 0, next_arg = 0;
    const char *cursor = fmt, *end = fmt + fmt_len;
    bool complete = true;
    xlog_conv c;
    while (xlog_fmt_next(&cursor, end, &c)) {
        size_t seg_len = c.lit_len + c.spec_len;
        size_t needed = (size_t)(c.width == XLOG_FMT_STAR) + (c.precision == XLOG_FMT_STAR) +
                        (c.kind != XLOG_ARG_NONE);
        if (c.conv == '?' || c.conv == 'n' || seg_len >= sizeof segment ||
            memchr(c.lit, '\0', seg_len) || /* snprintf would stop at it; we do not */
            d->nargs - next_arg < needed) {
            complete = false;
            break;
        }
        memcpy(segment, c.lit, seg_len); /* the conversion follows its text */
        segment[seg_len] = '\0';
        int stars[2], nstars = 0;
        if (c.width == XLOG_FMT_STAR)
            stars[nstars++] = (int)d->args[next_arg++].i;
        if (c.precision == XLOG_FMT_STAR)
            stars[nstars++] = (int)d->args[next_arg++].i;
        const xlog_arg *v = c.kind != XLOG_ARG_NONE ? &d->args[next_arg] : NULL;
        const char *terminated = c.kind == XLOG_ARG_STR ? d->terminated[next_arg] : NULL;
        next_arg += c.kind != XLOG_ARG_NONE;
        int precision = c.precision == XLOG_FMT_STAR ? stars[nstars - 1] : c.precision;
        if (precision > (int)SNPRINTF_LIMIT) {
            /* glibc allocates memory in proportion to the precision for %ls
             * and the floating conversions, even when the output is short
             * ("%.2000000000g" of 0.5 is "0.5"); we do not. */
            complete = false;
            break;
        }
        int n = reference_snprintf(expected + expected_len, sizeof expected - expected_len, segment,
                                 stars, nstars, c.kind, v, terminated);
        if (n < 0 || expected_len + (size_t)n > SNPRINTF_LIMIT) {
            complete = false; /* glibc failed (a wide character), or too long */
            break;
        }
        expected_len += (size_t)n;
    }
    if (expected_len > len || memcmp(expected, out, expected_len) != 0 ||
        (complete && expected_len != len)) {
        fprintf(stderr, "mismatch with snprintf: expected %zu bytes%s, rendered %zu\n",
                expected_len, complete ? "" : " (a prefix)", len);
        abort();
    }
}

static locale_t utf8;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
    if (!utf8)
        abort();
    return 0;
}

/* Renders at several capacities and checks the invariants; returns the full
 * output (malloc'ed, *len bytes) when it is small enough, else NULL. */
static char *render_checked(const char *fmt, size_t fmt_len, const decoded *d, size_t extra_cap,
                            size_t *len)
{
    size_t total = xlog_fmt_render(fmt, fmt_len, d->args, d->nargs, NULL, 0);
    *len = total;
    size_t full_cap = total <= FULL_LIMIT ? total : 4096;
    /* one guard byte after cap shows that nothing past it is written */
    char *full = malloc(full_cap + 1);
    if (!full)
        abort();
    full[full_cap] = 'G';
    if (xlog_fmt_render(fmt, fmt_len, d->args, d->nargs, full, full_cap) != total ||
        full[full_cap] != 'G')
        abort();

    /* The format parsed once (as the back end keeps a call site's) renders
     * the same bytes at every capacity. */
    xlog_fmt_parsed parsed;
    bool usable = xlog_fmt_parse(fmt, fmt_len, &parsed);
    size_t caps[] = { 1, 2, 7, full_cap / 2, full_cap ? full_cap - 1 : 0, extra_cap % (full_cap + 1),
                      full_cap };
    for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
        size_t cap = caps[i] < full_cap ? caps[i] : full_cap;
        char *part = malloc(cap + 1);
        if (!part)
            abort();
        part[cap] = 'G';
        if (xlog_fmt_render(fmt, fmt_len, d->args, d->nargs, part, cap) != total ||
            memcmp(part, full, cap) != 0 || part[cap] != 'G')
            abort();
        if (usable) {
            memset(part, 'G', cap + 1);
            if (xlog_fmt_render_parsed(&parsed, fmt, d->args, d->nargs, part, cap) != total ||
                memcmp(part, full, cap) != 0 || part[cap] != 'G')
                abort();
        }
        free(part);
    }
    if (usable && xlog_fmt_render_parsed(&parsed, fmt, d->args, d->nargs, NULL, 0) != total)
        abort();

    if (total > FULL_LIMIT) {
        free(full);
        return NULL;
    }
    return full;
}

/* Escapes the whole output, as the text layout escapes a message, and checks
 * that a line may hold the result. */
static void check_escaped(const char *raw, size_t len)
{
    char *escaped = malloc(XLOG_ESCAPE_GROWTH * len + 1);
    if (!escaped)
        abort();
    size_t written;
    size_t n = xlog_escape_text(escaped, XLOG_ESCAPE_GROWTH * len, raw, len, &written);
    locale_t before = uselocale(utf8); /* line_rule.h decodes UTF-8 */
    bool allowed = line_rule_allows(escaped, n);
    bool raw_allowed = line_rule_allows(raw, len);
    uselocale(before);
    if (written != n || n < len || n > XLOG_ESCAPE_GROWTH * len || !allowed ||
        (raw_allowed && (n != len || memcmp(escaped, raw, len) != 0)))
        abort();
    free(escaped);
}

/* Every step of the parser starts where the last one ended, moves forward,
 * and covers exactly its literal text and its conversion. */
static void check_parser(const char *fmt, size_t fmt_len)
{
    const char *cursor = fmt, *end = fmt + fmt_len, *step = fmt;
    xlog_conv c;
    while (xlog_fmt_next(&cursor, end, &c)) {
        if (c.lit != step || cursor <= step || cursor > end ||
            c.lit_len + c.spec_len != (size_t)(cursor - step) ||
            (c.conv && c.spec != c.lit + c.lit_len))
            abort();
        step = cursor;
    }
    if (cursor != end)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    size_t fmt_len = data[0] < size - 1 ? data[0] : size - 1;
    /* the format in its own allocation, so reading past it is caught */
    char *fmt = malloc(fmt_len ? fmt_len : 1);
    if (!fmt)
        abort();
    memcpy(fmt, data + 1, fmt_len);
    check_parser(fmt, fmt_len);

    unsigned char kinds[MAX_ARGS];
    int nkinds = xlog_record_kinds(fmt, fmt_len, kinds, NULL, MAX_ARGS, NULL);
    if (nkinds > MAX_ARGS) /* as a record: the first ones only */
        nkinds = MAX_ARGS;
    static decoded d;
    memset(&d, 0, sizeof d);
    reader r = { data + 1 + fmt_len, size - 1 - fmt_len };
    for (int i = 0; i < nkinds && decode_arg(&r, kinds[i], &d); i++)
        d.nargs++;
    size_t extra_cap = r.left ? r.p[0] : 0;

    size_t len;
    char *out = render_checked(fmt, fmt_len, &d, extra_cap, &len);
    if (out) {
        compare_with_snprintf(fmt, fmt_len, &d, out, len);
        check_escaped(out, len);
    }

    free(out);
    for (size_t i = 0; i < d.nowned; i++)
        free(d.owned[i]);
    free(fmt);
    return 0;
}
