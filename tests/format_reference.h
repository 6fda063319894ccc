/*
 * format_reference.h - the reference the format engine is checked against:
 * glibc's snprintf of one conversion, given its argument with its real C
 * type, as the caller's compiler would have passed it.  Shared by the
 * differential test (test_format.c) and the fuzzer (fuzz/fuzz_format.c).
 */
#ifndef XLOG_FORMAT_REFERENCE_H
#define XLOG_FORMAT_REFERENCE_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <wchar.h>

#include "format/format.h"

/* snprintf of fmt (one conversion, with nstars '*' values first) and the
 * value v of that kind; string is v's string as a NUL-terminated copy.  For
 * %m, errno is set to the saved value first, as it was at the caller. */
static inline int reference_snprintf(char *buf, size_t cap, const char *fmt, const int *stars,
                                     int nstars, unsigned char kind, const xlog_arg *v,
                                     const char *string)
{
#define WITH_STARS(value)                                                        \
    (nstars == 0   ? snprintf(buf, cap, fmt, value)                              \
     : nstars == 1 ? snprintf(buf, cap, fmt, stars[0], value)                    \
                   : snprintf(buf, cap, fmt, stars[0], stars[1], value))
    switch (kind) {
    case XLOG_ARG_INT: return WITH_STARS((int)v->i);
    case XLOG_ARG_LONG: return WITH_STARS((long)v->i);
    case XLOG_ARG_LLONG: return WITH_STARS((long long)v->i);
    case XLOG_ARG_INTMAX: return WITH_STARS((intmax_t)v->i);
    case XLOG_ARG_SIZE: return WITH_STARS((size_t)v->u);
    case XLOG_ARG_PTRDIFF: return WITH_STARS((ptrdiff_t)v->i);
    case XLOG_ARG_WINT: return WITH_STARS((wint_t)v->u);
    case XLOG_ARG_DOUBLE: return WITH_STARS(v->d);
    case XLOG_ARG_LDOUBLE: return WITH_STARS(v->ld);
    case XLOG_ARG_PTR: return WITH_STARS(v->p);
    case XLOG_ARG_STR: return WITH_STARS(string);
    case XLOG_ARG_WSTR: return WITH_STARS(v->ws.ptr);
    case XLOG_ARG_ERRNO: errno = (int)v->i; return WITH_STARS(0); /* nothing is read */
    default: return WITH_STARS(0); /* "%%": the extra argument is ignored */
    }
#undef WITH_STARS
}

#endif
