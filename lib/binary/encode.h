/*
 * encode.h - the one writer of the binary log files' entries
 * (docs/BINARY.md): a block's header, its Process, Site, Thread, Record and
 * Message entries, from a record as the rings hold it.
 *
 * Why apart from the file sink: the sink decides which block an entry goes
 * to (one block per write(2)); this file only knows the bytes, so that the
 * living back end and, later, recovery write them alike.  It decodes
 * nothing: xlog-cat's reader is lib/binary/decode.c.
 *
 * Every function writes at out, which the caller made big enough (the
 * *_size and *_max functions say how much), and returns the end.
 */
#ifndef XLOG_BINARY_ENCODE_H
#define XLOG_BINARY_ENCODE_H

#include <stddef.h>
#include <stdint.h>

#include "binary/binary.h"
#include "record/record.h"

/* The longest host and program names a Process entry carries (longer ones
 * are cut), so that the entry has a known bound. */
#define XLOG_BINARY_NAME_MAX 256u
#define XLOG_BINARY_PROCESS_MAX (1 + 2 * XLOG_VARINT_MAX + 8 + 2 * XLOG_VARINT_MAX + \
                                 2 * (XLOG_VARINT_MAX + XLOG_BINARY_NAME_MAX) + XLOG_VARINT_MAX)

/* What a Process entry says (docs/BINARY.md, "Process"). */
typedef struct xlog_binary_process {
    int pid;
    uint64_t max_message;
    double ns_per_tick;
    uint64_t base_ticks;
    int64_t base_utc_ns;
    const char *host;
    const char *program;
    unsigned options; /* XLOG_BINARY_LOCAL_DATES */
} xlog_binary_process;

/* The Process entry of p (at most XLOG_BINARY_PROCESS_MAX bytes): made once
 * by a writer, copied at the start of each of its blocks. */
uint8_t *xlog_binary_process_entry(uint8_t *out, const xlog_binary_process *p);

/* A writer's number: pid and start time mixed, never 0. */
uint64_t xlog_binary_writer_id(int pid, int64_t start_ns);

/* A block's header, its size left 0 until xlog_binary_set_size. */
uint8_t *xlog_binary_block_header(uint8_t *out, uint64_t writer, int64_t base_ns);

/* Writes the size of the block that starts at block (its header) and is
 * size bytes long, header included. */
static inline void xlog_binary_set_size(uint8_t *block, uint32_t size)
{
    uint8_t bytes[4] = {(uint8_t)size, (uint8_t)(size >> 8), (uint8_t)(size >> 16),
                        (uint8_t)(size >> 24)};
    memcpy(block + 12, bytes, 4);
}

/* A Site entry: site (a site copy, prepared) as number, its records' level
 * in this block level, its arguments nargs of kinds. */
size_t xlog_binary_site_max(const xlog_site_copy *site, int nargs);
uint8_t *xlog_binary_site(uint8_t *out, uint32_t number, int level, const xlog_site_copy *site,
                          const unsigned char *kinds, int nargs);

#define XLOG_BINARY_THREAD_MAX (1 + XLOG_VARINT_MAX)
uint8_t *xlog_binary_thread(uint8_t *out, int tid);

/* A Thread name entry: name[0..length), at most 15 bytes (the kernel's). */
#define XLOG_BINARY_THREAD_NAME_MAX (2 + 2 * XLOG_VARINT_MAX + 15)
uint8_t *xlog_binary_thread_name(uint8_t *out, int tid, const char *name, size_t length);

/* Writes v as a varint (binary.h's xlog_varint_put) with the widths a
 * record's numbers mostly have (a site, a time delta, a counter: one to
 * three bytes) written without a loop. */
static inline uint8_t *xlog_binary_varint(uint8_t *out, uint64_t v)
{
    if (v < 0x80) {
        out[0] = (uint8_t)v;
        return out + 1;
    }
    if (v < 0x4000) {
        out[0] = (uint8_t)(v | 0x80);
        out[1] = (uint8_t)(v >> 7);
        return out + 2;
    }
    if (v < 0x200000) {
        out[0] = (uint8_t)(v | 0x80);
        out[1] = (uint8_t)((v >> 7) | 0x80);
        out[2] = (uint8_t)(v >> 14);
        return out + 3;
    }
    return xlog_varint_put(out, v);
}

/* An integer argument at in (8 bytes, as the ring holds it) as its
 * zigzag varint. */
static inline __attribute__((always_inline)) uint8_t *xlog_binary_integer_argument(uint8_t *out,
                                                                                   const char *in)
{
    int64_t v;
    memcpy(&v, in, 8);
    return xlog_binary_varint(out, xlog_zigzag(v));
}

/* What a site's kinds make of its records' arguments, found once per site
 * (xlog_binary_shape_of): scalars when every argument is an integer of any
 * width, %m or a double, 8 bytes each in the ring, with bit i of doubles
 * set for a double.  The record's encoder then needs no dispatch per
 * kind: a switch per argument was 38 of the 138 instructions the encoder
 * spent on a line of the 3-argument statement. */
typedef struct xlog_binary_shape {
    int scalars;
    /* With at most 3 arguments, all scalar: their count times 8 plus
     * doubles, which picks the encoder's unrolled sequence for them; -1
     * for a loop over the arguments.  The loop and a test per argument
     * were 23 of the 211 instructions a line of the 3-argument statement
     * (callgrind of the whole program, docs/BENCHMARKS.md). */
    int unrolled;
    uint64_t doubles;
} xlog_binary_shape;
void xlog_binary_shape_of(xlog_binary_shape *shape, const unsigned char *kinds, int nargs);

/* A Record entry of rec, a site's record (XLOG_REC_SITE: its arguments
 * follow its header, of the site's kinds), of site number, delta_ns after
 * the block's previous time; site_level is its Site entry's level, shape
 * the site's (xlog_binary_shape_of). */
static inline size_t xlog_binary_record_max(const xlog_record *rec, int nargs)
{
    /* An argument takes at most twice its bytes in the ring and 2 more
     * (a string's 4-byte length becomes a varint of at most 10). */
    return 3 * XLOG_VARINT_MAX + 2 + 2 * (size_t)rec->size + 2 * (size_t)nargs;
}
uint8_t *xlog_binary_record_any(uint8_t *out, uint32_t number, int site_level, uint64_t delta_ns,
                                const xlog_record *rec, const unsigned char *kinds);
/* The usual record's Record entry (no flag, its Site entry's level,
 * scalar arguments: the caller checked), which the back end writes at
 * every line.  Inline (always: the file sink's shortest way needs it
 * inlined to make no call). */
static inline __attribute__((always_inline)) uint8_t *
xlog_binary_record_usual(uint8_t *out, uint32_t number, uint64_t delta_ns,
                         const xlog_record *rec, const xlog_binary_shape *shape)
{
    *out++ = XLOG_BINARY_RECORD;
    out = xlog_binary_varint(out, number);
    out = xlog_binary_varint(out, delta_ns);
    const char *in = (const char *)(rec + 1);
/* Argument k, an integer (I) or a double (D): as the loop below writes. */
#define I(k) out = xlog_binary_integer_argument(out, in + 8 * (k))
#define D(k) (memcpy(out, in + 8 * (k), 8), out += 8)
    switch (shape->unrolled) {
    case 0 << 3:
        return out;
    case 1 << 3 | 0: I(0); return out;
    case 1 << 3 | 1: D(0); return out;
    case 2 << 3 | 0: I(0); I(1); return out;
    case 2 << 3 | 1: D(0); I(1); return out;
    case 2 << 3 | 2: I(0); D(1); return out;
    case 2 << 3 | 3: D(0); D(1); return out;
    case 3 << 3 | 0: I(0); I(1); I(2); return out;
    case 3 << 3 | 1: D(0); I(1); I(2); return out;
    case 3 << 3 | 2: I(0); D(1); I(2); return out;
    case 3 << 3 | 3: D(0); D(1); I(2); return out;
    case 3 << 3 | 4: I(0); I(1); D(2); return out;
    case 3 << 3 | 5: D(0); I(1); D(2); return out;
    case 3 << 3 | 6: I(0); D(1); D(2); return out;
    case 3 << 3 | 7: D(0); D(1); D(2); return out;
    default:
        break;
    }
#undef I
#undef D
    uint64_t doubles = shape->doubles;
    for (int i = 0, nargs = rec->nargs; i < nargs; i++, in += 8, doubles >>= 1) {
        uint64_t v;
        memcpy(&v, in, 8);
        if (doubles & 1) {
            memcpy(out, &v, 8);
            out += 8;
        } else {
            out = xlog_binary_varint(out, xlog_zigzag((int64_t)v));
        }
    }
    return out;
}

/* Any record: the usual one inline, the others by xlog_binary_record_any. */
static inline __attribute__((always_inline)) uint8_t *
xlog_binary_record(uint8_t *out, uint32_t number, int site_level, uint64_t delta_ns,
                   const xlog_record *rec, const unsigned char *kinds,
                   const xlog_binary_shape *shape)
{
    if (!shape->scalars || rec->level != site_level ||
        (rec->flags & (XLOG_REC_TRUNCATED | XLOG_REC_RATED)))
        return xlog_binary_record_any(out, number, site_level, delta_ns, rec, kinds);
    return xlog_binary_record_usual(out, number, delta_ns, rec, shape);
}

/* A Message entry: a line already made. */
static inline size_t xlog_binary_message_max(size_t file_length, size_t function_length,
                                             size_t module_length, size_t message_length)
{
    return 2 + 6 * XLOG_VARINT_MAX + file_length + function_length + module_length +
           message_length;
}
uint8_t *xlog_binary_message(uint8_t *out, uint64_t delta_ns, int level, int line,
                             const char *file, size_t file_length, const char *function,
                             size_t function_length, const char *module, size_t module_length,
                             const char *message, size_t message_length);

#endif
