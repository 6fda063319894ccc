/*
 * fuzz_escape.c - libFuzzer target for the escaping rule (lib/format/escape.c).
 *
 * Input: any bytes, escaped as a log line's text.  Checked for every input:
 *   - the output is what a line may hold, as tests/line_rule.h decides with
 *     glibc's UTF-8 decoder (valid UTF-8, no C0 or C1 control, no DEL, no
 *     U+2028 or U+2029), and it is at most XLOG_ESCAPE_GROWTH times as long;
 *   - an input that a line may already hold comes out unchanged;
 *   - at smaller capacities the same length is returned, and what is written
 *     is the escaped form of the input up to a unit boundary (so it never
 *     ends inside an escape or a character), the longest that fits, with
 *     nothing written past it;
 *   - a cut at xlog_utf8_cut, escaped in two parts, gives the escaped whole,
 *     and the cut is at most 3 bytes short of the limit.
 */
#include <locale.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format/escape.h"
#include "line_rule.h"

#define MAX_INPUT 4096

int LLVMFuzzerInitialize(int *argc, char **argv[])
{
    (void)argc;
    (void)argv;
    if (!setlocale(LC_CTYPE, "C.UTF-8")) /* line_rule.h decodes with mbrtowc */
        abort();
    return 0;
}

static char full[XLOG_ESCAPE_GROWTH * MAX_INPUT + 1];

/* Escapes in at capacity cap and checks the written prefix against full. */
static void check_capacity(const char *in, size_t len, size_t full_len, size_t cap)
{
    static char part[XLOG_ESCAPE_GROWTH * MAX_INPUT + 1];
    size_t written = SIZE_MAX;
    memset(part, 'G', cap + 1);
    if (xlog_escape_text(part, cap, in, len, &written) != full_len || written > cap ||
        memcmp(part, full, written) != 0)
        abort();
    for (size_t i = written; i <= cap; i++)
        if (part[i] != 'G')
            abort();
    /* written must be the escaped length of the input up to the last unit
     * boundary whose escaped length fits (every shorter prefix's escaped
     * form is a prefix of the whole, see the xlog_utf8_cut check) */
    size_t expect = 0;
    for (size_t k = 1; k <= len; k++) {
        if (xlog_utf8_cut(in, len, k) != k)
            continue; /* inside a character */
        size_t m = xlog_escape_text(NULL, 0, in, k, NULL);
        if (m > cap)
            break;
        expect = m;
    }
    if (written != expect)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > MAX_INPUT)
        return 0;
    /* the input in its own allocation, so reading past it is caught */
    char *in = malloc(size ? size : 1);
    if (!in)
        abort();
    memcpy(in, data, size);

    size_t written;
    size_t n = xlog_escape_text(full, sizeof full, in, size, &written);
    if (n != written || n > XLOG_ESCAPE_GROWTH * size || !line_rule_allows(full, n))
        abort();
    if (line_rule_allows(in, size) && (n != size || memcmp(full, in, size) != 0))
        abort();
    /* a line's field, escaped where printable ASCII is copied as it is
     * checked: the same bytes */
    static char field[XLOG_ESCAPE_GROWTH * MAX_INPUT + 1];
    if (xlog_escape_field(field, in, size) != n || memcmp(field, full, n) != 0)
        abort();

    if (size <= 128) { /* check_capacity takes time in size squared */
        size_t caps[] = { 0, 1, 2, 3, 5, 6, n / 2, n ? n - 1 : 0,
                          size ? (uint8_t)in[0] % (n + 1) : 0 };
        for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++)
            check_capacity(in, size, n, caps[i] < n ? caps[i] : n);
    }

    static char parts[XLOG_ESCAPE_GROWTH * MAX_INPUT + 1];
    size_t limits[] = { 0, 1, size / 3, size / 2, size ? size - 1 : 0,
                        size ? (uint8_t)in[size - 1] : 0 };
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
        size_t limit = limits[i];
        size_t cut = xlog_utf8_cut(in, size, limit);
        size_t want = limit < size ? limit : size;
        if (cut > want || cut + 3 < want)
            abort();
        size_t a = xlog_escape_text(parts, sizeof parts, in, cut, NULL);
        size_t b = xlog_escape_text(parts + a, sizeof parts - a, in + cut, size - cut, NULL);
        if (a + b != n || memcmp(parts, full, n) != 0)
            abort();
    }
    free(in);
    return 0;
}
