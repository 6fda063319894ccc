/*
 * record_args.h - how argument values are laid out inside a record.
 *
 * The front end writes them (frontend.c, write_args) and the back end reads
 * them back into xlog_arg values for the formatter (record_decode_args).
 * Keeping both directions' sizes in this one file is what keeps them in step.
 */
#ifndef XLOG_RECORD_ARGS_H
#define XLOG_RECORD_ARGS_H

#include <stdint.h>
#include <string.h>

#include "format/format.h"

/* A kind byte holds an xlog_arg_kind in its low bits; a string whose length
 * is bounded by the '*' precision just before it also carries this flag. */
#define XLOG_KIND_MASK 0x0fu
#define XLOG_KIND_STAR_PRECISION 0x80u
_Static_assert(XLOG_ARG_KIND_COUNT <= XLOG_KIND_MASK + 1, "a kind must fit XLOG_KIND_MASK");

/* The length written for a NULL string. */
#define XLOG_NULL_STRING UINT32_MAX

/* Bytes an argument takes in a record, not counting string contents. */
static inline unsigned xlog_arg_fixed_size(int kind)
{
    switch (kind) {
    case XLOG_ARG_LDOUBLE:
        return 16;
    case XLOG_ARG_STR:
    case XLOG_ARG_WSTR:
        return 4;
    default:
        return 8;
    }
}

/* Reads nargs arguments from a record body into out; returns the end. */
static inline const char *xlog_record_decode_args(const char *in, const unsigned char *kinds,
                                                  int nargs, xlog_arg *out)
{
    for (int i = 0; i < nargs; i++) {
        int kind = kinds[i] & XLOG_KIND_MASK;
        switch (kind) {
        case XLOG_ARG_LDOUBLE: {
            long double v = 0;
            memcpy(&v, in, sizeof v < 16 ? sizeof v : 16);
            out[i].ld = v;
            in += 16;
            break;
        }
        case XLOG_ARG_DOUBLE:
            memcpy(&out[i].d, in, 8);
            in += 8;
            break;
        case XLOG_ARG_PTR: {
            uint64_t v;
            memcpy(&v, in, 8);
            out[i].p = (const void *)(uintptr_t)v;
            in += 8;
            break;
        }
        case XLOG_ARG_STR: {
            uint32_t n;
            memcpy(&n, in, 4);
            in += 4;
            out[i].s.ptr = n == XLOG_NULL_STRING ? NULL : in;
            out[i].s.len = n == XLOG_NULL_STRING ? 0 : n;
            in += out[i].s.len;
            break;
        }
        case XLOG_ARG_WSTR: {
            uint32_t n;
            memcpy(&n, in, 4);
            in += 4;
            out[i].ws.ptr = n == XLOG_NULL_STRING ? NULL : (const wchar_t *)(const void *)in;
            out[i].ws.len = n == XLOG_NULL_STRING ? 0 : n;
            in += out[i].ws.len * sizeof(wchar_t);
            break;
        }
        case XLOG_ARG_ERRNO: /* the caller's errno, stored as the other ints are */
        default:
            memcpy(&out[i].u, in, 8);
            in += 8;
            break;
        }
    }
    return in;
}

#endif
