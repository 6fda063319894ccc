/*
 * line_rule.h - an independent check of what a log line may contain, for the
 * tests and the fuzzer of escape.c.
 *
 * It decodes with glibc's mbrtowc in a UTF-8 locale instead of escape.c's own
 * decoder, so that the two must agree: the text is valid UTF-8 (mbrtowc also
 * refuses overlong forms and surrogates; values above U+10FFFF, which it
 * accepts, are refused here) with no C0 control, DEL, C1 control, U+2028 or
 * U+2029.  The caller must have set LC_CTYPE to a UTF-8 locale ("C.UTF-8").
 */
#ifndef XLOG_LINE_RULE_H
#define XLOG_LINE_RULE_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <wchar.h>

static inline bool line_rule_allows(const char *p, size_t n)
{
    mbstate_t state;
    memset(&state, 0, sizeof state);
    for (size_t i = 0; i < n;) {
        wchar_t wc;
        size_t len = mbrtowc(&wc, p + i, n - i, &state);
        if (len == 0) /* a NUL byte */
            return false;
        if (len > n - i || len > 4 || wc > 0x10ffff)
            return false; /* invalid, cut, or beyond Unicode */
        if (wc < 0x20 || (wc >= 0x7f && wc <= 0x9f) || wc == 0x2028 || wc == 0x2029)
            return false;
        i += len;
    }
    return true;
}

#endif
