/*
 * ring.h - one thread's queue of raw messages: the only thing the two ends share.
 *
 * Why: a log call must not take a lock or make a system call, so every thread
 * gets its own single-producer, single-consumer byte ring.  The thread (the
 * producer) appends records; the back end (the consumer) reads them in place,
 * formats them, and gives the space back.
 *
 * How: positions are free-running 64-bit byte counters; the slot of a position
 * is pos & mask.  A record never wraps: when it does not fit before the end of
 * the buffer, the producer writes a padding record there and starts again at
 * offset 0.  Records are 8-byte aligned.
 *
 *   head  written by the producer.  Bits 63..1 hold the end of the published
 *         records; bit 0 is set while a call is between taking its timestamp
 *         and publishing its record (see "ordering" below).
 *   tail  written by the consumer: everything before it may be overwritten.
 *
 * Ordering across threads: a shared file must be in time order, but a thread
 * can be preempted after reading the clock and before publishing.  Bit 0 of
 * head tells the back end that a record with a timestamp no older than the
 * thread's previous one may still appear, so the back end holds back later
 * records until that call has finished (see backend.c, "watermark").
 *
 * The producer-written and consumer-written fields live on separate cache
 * lines so the two ends do not slow each other down.
 */
#ifndef XLOG_RING_H
#define XLOG_RING_H

#include <stdint.h>
#include <stddef.h>

#define XLOG_CACHE_LINE 64

struct xlog_file;

typedef struct xlog_ring {
    /* Read and written by the producer only: a line the back end never
     * touches, so the call's loads never miss. */
    _Alignas(XLOG_CACHE_LINE) uint64_t write_pos; /* producer's copy of head, bit 0 clear */
    uint64_t cached_tail;                    /* producer's last view of tail */
    int in_call;                             /* between begin_record and publish_record */

    /* Written by the producer at every call, polled by the back end: alone
     * on its line (the producer only stores to it). */
    _Alignas(XLOG_CACHE_LINE) uint64_t head; /* atomic; see above */

    /* Written by the producer rarely (read by the back end per record, so
     * they must not share the line above). */
    _Alignas(XLOG_CACHE_LINE) uint64_t dropped; /* atomic: messages dropped on a full ring */
    uint64_t blocked;                        /* atomic: calls that waited for room */

    /* Written by the consumer only. */
    _Alignas(XLOG_CACHE_LINE) uint64_t tail; /* atomic */
    uint64_t read_pos;                       /* consumer's position, ahead of tail */
    uint64_t visible_end;                    /* published end seen by the last scan */
    uint64_t last_tsc;                       /* timestamp of the newest record seen */
    uint64_t odd_head;                       /* a head seen with bit 0 set ... */
    uint64_t odd_since;                      /* ... since these ticks (see backend.c) */
    uint64_t dropped_reported;               /* drops already announced in the log */
    struct xlog_file *file;                  /* this thread's file (per-thread mode) */
    char tid_text[24];                       /* "<tid> " ready to copy */
    size_t tid_text_len;

    /* Set once, read by both. */
    _Alignas(XLOG_CACHE_LINE) char *buffer;
    uint64_t mask;
    uint64_t capacity;
    int tid;                                 /* kernel thread id */
    int exited;                              /* atomic: the owning thread has ended */
    void *alt_stack;                         /* signal stack xlog gave the thread, or NULL */
    struct xlog_ring *next;                  /* registry list, under the registry lock */
} xlog_ring;

/* Record types. */
enum {
    XLOG_REC_SITE = 1,    /* format, file, line, function and kinds from a static site */
    XLOG_REC_DYNAMIC = 2, /* format (and maybe file/function) copied into the record */
    XLOG_REC_PAD = 3      /* filler up to the end of the buffer */
};

/* Record flags. */
#define XLOG_REC_TRUNCATED 0x1u /* a string argument was cut at max_message */

/* Every record starts with this header; the arguments follow. */
typedef struct xlog_record {
    uint32_t size;  /* whole record in bytes, header included, multiple of 8 */
    uint8_t type;   /* XLOG_REC_* */
    uint8_t level;
    uint8_t flags;  /* XLOG_REC_* flags */
    uint8_t nargs;
    uint64_t tsc;   /* timestamp, in clock ticks (see clock.h) */
    const void *site; /* the xlog_impl_site, or NULL for an xlogout() record */
} xlog_record;

#define XLOG_RECORD_ALIGN 8u

static inline uint64_t xlog_align8(uint64_t n)
{
    return (n + (XLOG_RECORD_ALIGN - 1)) & ~(uint64_t)(XLOG_RECORD_ALIGN - 1);
}

#endif
