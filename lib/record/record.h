/*
 * record.h - a log call's record: what the front end writes into its ring and
 * what the back end and recovery read back.
 *
 * Everything about the record's bytes is here, size, encoding and decoding
 * side by side, so the writer and the readers cannot drift apart: the
 * header, the kinds of the arguments (and the one parser that lists them
 * from a format), how the arguments are measured and written by the caller
 * and read back.
 */
#ifndef XLOG_RECORD_H
#define XLOG_RECORD_H

#include <stdint.h>
#include <string.h>

#include "format/format.h"
#include "xlog.h"

/* Record types. */
enum {
    XLOG_REC_SITE = 1,    /* format, file, line, function and kinds from a site's copy */
    XLOG_REC_DYNAMIC = 2, /* format (and maybe file/function) copied into the record */
    XLOG_REC_PAD = 3,     /* filler up to the end of the buffer: the next lap follows */
    XLOG_REC_DUMP = 4     /* xlog_dump_backtrace(): write the thread's backtrace */
};

/* Record flags. */
#define XLOG_REC_TRUNCATED 0x1u /* a string argument was cut at max_message */
#define XLOG_REC_KEEP 0x2u      /* below the level written: kept for a backtrace */
#define XLOG_REC_RATED 0x4u     /* rate-limited: ends with the count suppressed before it */

/* Every record starts with this header; the arguments follow. */
typedef struct xlog_record {
    uint32_t size;  /* whole record in bytes, header included, multiple of 8 */
    uint8_t type;   /* XLOG_REC_* */
    uint8_t level;
    uint8_t flags;  /* XLOG_REC_* flags */
    uint8_t nargs;
    uint64_t tsc;   /* timestamp, in clock ticks (see clock.h) */
    const void *site; /* the site's xlog_site_copy, or NULL: names in the record */
} xlog_record;

#define XLOG_RECORD_ALIGN 8u

static inline uint64_t xlog_align8(uint64_t n)
{
    return (n + (XLOG_RECORD_ALIGN - 1)) & ~(uint64_t)(XLOG_RECORD_ALIGN - 1);
}

/* The states of a call site (xlog_impl_site.state).  READY sites capture
 * with the site's kinds; SCALAR ones (no string argument) take the shortest
 * path of all; DYNAMIC ones parse their format at every call. */
enum { XLOG_SITE_NEW = 0, XLOG_SITE_PARSING = 1, XLOG_SITE_SCALAR = 2, XLOG_SITE_READY = 3,
       XLOG_SITE_DYNAMIC = 4 };

/* xlog's own copy of a call site (xlog_impl_site.copy): all that the back
 * end and the survival dictionary read of a site, in memory xlog owns, so
 * that they never read a library the program may have unloaded.  Made on
 * the site's first call (by the first thread to get there), never freed: a
 * record may name it as long as the process lives, and its address, which
 * keys the back end's cache and the dictionary, never names another site. */
typedef struct xlog_impl_site_copy {
    const char *file;
    const char *func;
    const char *module;  /* "" for none */
    int line;
    /* Set by the thread that prepares the site, before its state lets a
     * site record name it (the back end reads them only for those); a
     * dynamic site has no format. */
    const char *format;
    unsigned char nargs;
    unsigned char kinds[XLOG_MAX_ARGS];
    struct xlog_impl_site_copy *next_noted; /* every prepared site, for the
                                               dictionary (survival.h) */
} xlog_site_copy;

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
