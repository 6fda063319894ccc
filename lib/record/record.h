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

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <wchar.h>

#include "format/format.h"
#include "xlog.h"

/* Record types. */
enum {
    XLOG_REC_SITE = 1,    /* format, file, line, function and kinds from a site's copy */
    XLOG_REC_DYNAMIC = 2, /* format (and maybe file/function) copied into the record */
    XLOG_REC_PAD = 3,     /* filler up to the end of the buffer: the next lap follows */
    XLOG_REC_DUMP = 4,    /* xlog_dump_backtrace(): write the thread's backtrace */
    XLOG_REC_CONTEXT = 5  /* the thread's whole context from here on (record/context.h) */
};

/* Record flags. */
#define XLOG_REC_TRUNCATED 0x1u /* a string argument was cut at max_message */
#define XLOG_REC_KEEP 0x2u      /* below the level written: kept for a backtrace */
#define XLOG_REC_RATED 0x4u     /* rate-limited: ends with the count suppressed before it */
#define XLOG_REC_OWN 0x8u       /* let through by its thread's own threshold, not the
                                   program's rules (sinks/sinks.c, routing) */

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

/* A call compiled into the program writes the header as xlog_impl_record. */
_Static_assert(sizeof(xlog_record) == sizeof(xlog_impl_record), "ABI");
_Static_assert(offsetof(xlog_record, tsc) == offsetof(xlog_impl_record, tsc), "ABI");
_Static_assert(offsetof(xlog_record, site) == offsetof(xlog_impl_record, site), "ABI");
_Static_assert(offsetof(xlog_record, nargs) == offsetof(xlog_impl_record, nargs), "ABI");
_Static_assert(XLOG_REC_SITE == XLOG_IMPL_RECORD_SITE, "ABI");

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
    /* The back end's alone (backend.c, "Call sites"): its number for the
     * site during its run backend_run (0: none yet), so that a record of
     * the site finds it without a lookup. */
    uint32_t backend_run;
    uint32_t backend_number;
} xlog_site_copy;

/* A kind byte holds an xlog_arg_kind in its low bits; a string whose length
 * is bounded by the '*' precision just before it also carries this flag. */
#define XLOG_KIND_MASK 0x0fu
#define XLOG_KIND_STAR_PRECISION 0x80u
_Static_assert(XLOG_ARG_KIND_COUNT <= XLOG_KIND_MASK + 1, "a kind must fit XLOG_KIND_MASK");

/* The length written for a NULL string. */
#define XLOG_NULL_STRING UINT32_MAX

/* Most arguments a record carries: a format that reads more keeps its first
 * ones, and the conversions beyond show literally. */
#define XLOG_RECORD_MAX_ARGS 64
/* Longest file or function name a dynamic record carries. */
#define XLOG_RECORD_MAX_NAME 1024

/* ---- what a format asks of a record (record.c) ------------------------------
 * The one parser of argument kinds: the front end captures with it, recovery
 * checks a dead process's dictionary with it, the tests and fuzz_format test
 * it.  kinds[i] is the xlog_arg_kind of the i-th argument in va_arg order
 * (XLOG_ARG_ERRNO for %m, which reads no argument), with
 * XLOG_KIND_STAR_PRECISION on a string whose precision is the '*' int
 * before it; precision[i] (if precision is not NULL) the fixed precision of
 * that conversion, -1 for none.  Returns how many arguments the format
 * takes, which may be more than max: only max are stored.  *strings (if not
 * NULL) tells whether a %s, %ls or %m is among them (the shortest path of
 * the call does not save errno). */
int xlog_record_kinds(const char *fmt, size_t len, unsigned char *kinds, int *precision, int max,
                      int *strings);

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

/* ---- encoding: the caller's side ----------------------------------------------
 * A record is its header, then for a dynamic record (XLOG_REC_DYNAMIC) the
 * dynamic head: u32 format length, u32 line, u32 file length, u32 function
 * length, the kind bytes, the format, file and function bytes; then the
 * arguments in order: integers, pointers and doubles as 8 bytes, long
 * doubles as 16, strings as a u32 length (XLOG_NULL_STRING for NULL) and
 * the bytes, wide strings as a u32 count and the wchar_t values; then, for
 * a rate-limited record (XLOG_REC_RATED), the count of calls suppressed
 * before it (XLOG_RECORD_SUPPRESSED_SIZE bytes, ending the record). */

/* First pass over the arguments: the byte length of each string (bounded by
 * its precision, '*' or fixed, and by what is left of the budget), and the
 * size of the arguments in the record.  A string is never read past its
 * precision; one byte past the budget is probed only to tell that it was cut. */
static inline uint64_t xlog_record_measure_args(const unsigned char *kinds, int nargs,
                                                const int *fixed_precision, size_t budget,
                                                va_list ap, uint32_t *lens, unsigned *flags)
{
    uint64_t bytes = 0;
    int last_int = -1;
    int s = 0;
    for (int i = 0; i < nargs; i++) {
        int kind = kinds[i] & XLOG_KIND_MASK;
        size_t precision = SIZE_MAX;
        if (kinds[i] & XLOG_KIND_STAR_PRECISION && last_int >= 0)
            precision = (size_t)last_int;
        if (fixed_precision && fixed_precision[i] >= 0)
            precision = (size_t)fixed_precision[i];
        switch (kind) {
        case XLOG_ARG_STR: {
            const char *str = va_arg(ap, const char *);
            size_t n = 0;
            if (str && precision <= budget) {
                n = strnlen(str, precision);
            } else if (str) {
                n = strnlen(str, budget + 1);
                if (n > budget) {
                    n = budget;
                    *flags |= XLOG_REC_TRUNCATED;
                }
            }
            lens[s++] = str ? (uint32_t)n : XLOG_NULL_STRING;
            budget -= n;
            bytes += 4 + n;
            break;
        }
        case XLOG_ARG_WSTR: {
            /* A precision counts output bytes, and every wide character
             * gives at least one, so it also bounds the characters read. */
            const wchar_t *str = va_arg(ap, const wchar_t *);
            size_t wbudget = budget / sizeof(wchar_t);
            size_t n = 0;
            if (str && precision <= wbudget) {
                n = wcsnlen(str, precision);
            } else if (str) {
                n = wcsnlen(str, wbudget + 1);
                if (n > wbudget) {
                    n = wbudget;
                    *flags |= XLOG_REC_TRUNCATED;
                }
            }
            lens[s++] = str ? (uint32_t)n : XLOG_NULL_STRING;
            budget -= n * sizeof(wchar_t);
            bytes += 4 + n * sizeof(wchar_t);
            break;
        }
        case XLOG_ARG_INT:
            last_int = va_arg(ap, int);
            bytes += 8;
            break;
        case XLOG_ARG_DOUBLE:
            (void)va_arg(ap, double);
            bytes += 8;
            break;
        case XLOG_ARG_LDOUBLE:
            (void)va_arg(ap, long double);
            bytes += 16;
            break;
        case XLOG_ARG_LONG:
            (void)va_arg(ap, long);
            bytes += 8;
            break;
        case XLOG_ARG_LLONG:
            (void)va_arg(ap, long long);
            bytes += 8;
            break;
        case XLOG_ARG_INTMAX:
            (void)va_arg(ap, intmax_t);
            bytes += 8;
            break;
        case XLOG_ARG_SIZE:
            (void)va_arg(ap, size_t);
            bytes += 8;
            break;
        case XLOG_ARG_PTRDIFF:
            (void)va_arg(ap, ptrdiff_t);
            bytes += 8;
            break;
        case XLOG_ARG_WINT:
            (void)va_arg(ap, wint_t);
            bytes += 8;
            break;
        case XLOG_ARG_PTR:
            (void)va_arg(ap, void *);
            bytes += 8;
            break;
        case XLOG_ARG_ERRNO: /* %m: the caller's errno, no va_arg */
            bytes += 8;
            break;
        }
    }
    return bytes;
}

/* Second pass: copies the arguments into the record (lens from the first); caller_errno is errno
 * as it was when the log call was made, for %m. */
static inline __attribute__((always_inline)) char *
xlog_record_encode_args(char *out, const unsigned char *kinds, int nargs, const uint32_t *lens,
                        int caller_errno, va_list ap)
{
    int s = 0;
    for (int i = 0; i < nargs; i++) {
        /* The two commonest kinds are tested first: two well-predicted
         * branches cost less than the switch's indirect jump. */
        int kind = kinds[i] & XLOG_KIND_MASK;
        if (kind == XLOG_ARG_INT) {
            int64_t v = va_arg(ap, int);
            memcpy(out, &v, 8);
            out += 8;
            continue;
        }
        if (kind == XLOG_ARG_DOUBLE) {
            double v = va_arg(ap, double);
            memcpy(out, &v, 8);
            out += 8;
            continue;
        }
        switch (kind) {
        case XLOG_ARG_LONG: {
            int64_t v = va_arg(ap, long);
            memcpy(out, &v, 8);
            out += 8;
            break;
        }
        case XLOG_ARG_LLONG: {
            int64_t v = va_arg(ap, long long);
            memcpy(out, &v, 8);
            out += 8;
            break;
        }
        case XLOG_ARG_INTMAX: {
            int64_t v = va_arg(ap, intmax_t);
            memcpy(out, &v, 8);
            out += 8;
            break;
        }
        case XLOG_ARG_SIZE: {
            uint64_t v = va_arg(ap, size_t);
            memcpy(out, &v, 8);
            out += 8;
            break;
        }
        case XLOG_ARG_PTRDIFF: {
            int64_t v = va_arg(ap, ptrdiff_t);
            memcpy(out, &v, 8);
            out += 8;
            break;
        }
        case XLOG_ARG_WINT: {
            uint64_t v = va_arg(ap, wint_t);
            memcpy(out, &v, 8);
            out += 8;
            break;
        }
        case XLOG_ARG_LDOUBLE: {
            long double v = va_arg(ap, long double);
            memset(out, 0, 16);
            memcpy(out, &v, sizeof v < 16 ? sizeof v : 16);
            out += 16;
            break;
        }
        case XLOG_ARG_PTR: {
            uint64_t v = (uintptr_t)va_arg(ap, void *);
            memcpy(out, &v, 8);
            out += 8;
            break;
        }
        case XLOG_ARG_STR: {
            const char *str = va_arg(ap, const char *);
            uint32_t n = lens[s++];
            memcpy(out, &n, 4);
            out += 4;
            if (n != XLOG_NULL_STRING) {
                memcpy(out, str, n);
                out += n;
            }
            break;
        }
        case XLOG_ARG_WSTR: {
            const wchar_t *str = va_arg(ap, const wchar_t *);
            uint32_t n = lens[s++];
            memcpy(out, &n, 4);
            out += 4;
            if (n != XLOG_NULL_STRING) {
                memcpy(out, str, n * sizeof(wchar_t));
                out += n * sizeof(wchar_t);
            }
            break;
        }
        case XLOG_ARG_ERRNO: {
            int64_t v = caller_errno;
            memcpy(out, &v, 8);
            out += 8;
            break;
        }
        }
    }
    return out;
}

/* ---- arguments captured at the call site (xlog.h, "Capture at the call
 * site") ----
 * A slot holds an argument's 8 bytes as xlog_record_encode_args writes
 * them, when the argument's type and the conversion's kind agree as
 * xlog_record_slot_fits says; such arguments are written as they are. */

/* Whether a slot of class slot_class (XLOG_IMPL_SLOT_*) holds the bytes
 * xlog_record_encode_args writes for kind: an int for XLOG_ARG_INT (read
 * as int and sign-extended), a 64-bit integer or a pointer for the 8-byte
 * integer kinds and XLOG_ARG_PTR, a double for XLOG_ARG_DOUBLE.  Never a
 * string, a long double, %m (no argument) or XLOG_ARG_WINT (zero-extended). */
static inline int xlog_record_slot_fits(int kind, int slot_class)
{
    switch (kind & XLOG_KIND_MASK) {
    case XLOG_ARG_INT:
        return slot_class == XLOG_IMPL_SLOT_INT;
    case XLOG_ARG_LONG:
    case XLOG_ARG_LLONG:
    case XLOG_ARG_INTMAX:
    case XLOG_ARG_SIZE:
    case XLOG_ARG_PTRDIFF:
    case XLOG_ARG_PTR:
        return slot_class == XLOG_IMPL_SLOT_64;
    case XLOG_ARG_DOUBLE:
        return slot_class == XLOG_IMPL_SLOT_DOUBLE;
    default:
        return 0;
    }
}

/* Writes n slots that fit their kinds; returns the end. */
static inline __attribute__((always_inline)) char *
xlog_record_encode_slots(char *out, const uint64_t *slots, int n)
{
    for (int i = 0; i < n; i++, out += 8)
        memcpy(out, &slots[i], 8);
    return out;
}

#define XLOG_RECORD_DYNAMIC_HEAD 16u

/* Bytes of a dynamic head with these parts. */
static inline uint64_t xlog_record_dynamic_size(int nargs, size_t format_length,
                                                size_t file_length, size_t function_length)
{
    return XLOG_RECORD_DYNAMIC_HEAD + (uint64_t)nargs + format_length + file_length +
           function_length;
}

/* Writes a dynamic head; returns where the arguments go. */
static inline char *xlog_record_encode_dynamic(char *out, const unsigned char *kinds, int nargs,
                                               const char *format, uint32_t format_length,
                                               int line, const char *file, uint32_t file_length,
                                               const char *function, uint32_t function_length)
{
    uint32_t head[4] = {format_length, (uint32_t)line, file_length, function_length};
    memcpy(out, head, sizeof head);
    out += sizeof head;
    memcpy(out, kinds, (size_t)nargs);
    out += nargs;
    memcpy(out, format, format_length);
    out += format_length;
    if (file_length)
        memcpy(out, file, file_length);
    out += file_length;
    if (function_length)
        memcpy(out, function, function_length);
    return out + function_length;
}

#define XLOG_RECORD_SUPPRESSED_SIZE 8u

static inline void xlog_record_set_suppressed(xlog_record *rec, uint64_t suppressed)
{
    memcpy((char *)rec + rec->size - XLOG_RECORD_SUPPRESSED_SIZE, &suppressed, 8);
}

/* ---- decoding: the back end's and recovery's side ------------------------- */

static inline uint64_t xlog_record_suppressed(const xlog_record *rec)
{
    uint64_t suppressed;
    memcpy(&suppressed, (const char *)rec + rec->size - XLOG_RECORD_SUPPRESSED_SIZE, 8);
    return suppressed;
}

/* The parts of a record. */
typedef struct xlog_record_view {
    const unsigned char *kinds;
    int nargs;
    const char *args;           /* the encoded arguments */
    const char *format;         /* as given: not NUL-terminated for a dynamic record */
    size_t format_length;
    /* A dynamic record without a call site carries its names (xlogout). */
    const char *file;
    size_t file_length;
    const char *function;
    size_t function_length;
    int line;
} xlog_record_view;

/* The parts of rec; for a site record (XLOG_REC_SITE), its site's format
 * (of site_format_length bytes) and kinds (in the live process, the site's
 * own; in recovery, the dictionary's).  rec must hold its head (recovery
 * checks a dead process's records first). */
void xlog_record_view_of(const xlog_record *rec, const char *site_format,
                         size_t site_format_length, const unsigned char *site_kinds,
                         xlog_record_view *view);

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
