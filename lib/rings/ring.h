/*
 * ring.h - one thread's queue of raw messages: the only thing the two ends share.
 *
 * Why: a log call must not take a lock or make a system call, so every thread
 * gets its own single-producer, single-consumer byte ring.  The thread (the
 * producer) appends records; the back end (the consumer) reads them in place,
 * formats them, and gives the space back.
 *
 * Positions are free-running 64-bit byte counters; the buffer offset of a
 * position is pos & mask.  A record never wraps around the end of the buffer.
 *
 *   head  written by the producer: the end of the published records, which
 *         the back end polls.  The producer only stores to it.
 *   write_pos  the producer's: where its next record goes, plus 1 while a
 *         call is between taking its timestamp and publishing its record
 *         (see "ordering" below).  A call sets that bit with one read-modify-
 *         write, so it lives on the producer's own line: read by the back end
 *         only when another thread's records must wait for this call, and
 *         before it sleeps.
 *   tail  written by the consumer: everything before it may be overwritten.
 * The producer may write [pos, pos + size) when pos + size - tail <= capacity.
 *
 * Laps, and why the memory of a ring follows what it holds: the producer
 * does not always run to the end of the buffer before starting again at
 * offset 0.  It wraps at lap_end, which starts small (XLOG_RING_MIN_LAP):
 * when it gets there and the back end has read everything (the ring is
 * empty), it wraps early; otherwise (a burst) the lap doubles, up to the
 * whole buffer.  A wrap is a padding record from the write position to the
 * end of the buffer, so the next lap starts at a multiple of the capacity,
 * pos & mask stays the offset, and the rule above stays the whole safety
 * condition.  So a thread that logs a little touches only the first pages
 * of its ring however long it runs; a thread that bursts gets the room it
 * needs.  Laps never shrink on their own (a short lap after a burst would
 * make the next burst wait); instead a ring that stays idle is retired by
 * the back end and its pages given back, and the thread's next message
 * takes a small ring from the pool (rings.c, "Idle rings").
 *
 * Ordering across threads: a shared file must be in time order, but a thread
 * can be preempted after reading the clock and before publishing.  Bit 0 of
 * write_pos tells the back end that a record with a timestamp no older than the
 * thread's previous one may still appear, so the back end holds back later
 * records until that call has finished (see backend.c, "watermark").
 *
 * The fields are grouped by who writes them, each group on its own cache
 * line, so that the two ends do not slow each other down.
 */
#ifndef XLOG_RING_H
#define XLOG_RING_H

#include <stddef.h>
#include <stdint.h>
#include "record/context.h"
#include "xlog.h"

#define XLOG_CACHE_LINE 64
/* The shortest lap, and about what a new ring has in memory. */
#define XLOG_RING_MIN_LAP (16u * 1024)

/* Why a thread's messages were dropped (counted per reason, reported in the
 * log with the reason). */
enum {
    XLOG_DROP_FULL = 0,   /* the ring was full and full_policy is XLOG_FULL_DROP */
    XLOG_DROP_NESTED = 1, /* logged by a signal handler inside a log call of the thread */
    XLOG_DROP_CLOSING = 2,/* logged while xlog_close ran (or waiting for room when it did) */
    XLOG_DROP_REASONS = 3
};

/* A thread's name (pthread_setname_np, prctl PR_SET_NAME) as the back end
 * knows it; events point to it (event.h). */
typedef struct xlog_thread_name {
    char text[16];    /* NUL-padded: what recovery reads (at most 15 bytes) */
    uint32_t length;  /* of text; the back end's, 0 until it numbers it */
    uint32_t id;      /* a number the back end gives each name of each ring
                         (so that a binary file repeats a name only when it
                         must); 0: none */
} xlog_thread_name;

typedef struct xlog_ring {
    /* Read and written by the producer: a line the back end reads only
     * when another ring's records wait for a call of this one, or before
     * it sleeps, so the call's loads do not miss. */
    _Alignas(XLOG_CACHE_LINE) uint64_t write_pos; /* atomic: see above */
    uint64_t room_end;                       /* atomic: see xlog_impl_ring (xlog.h) and
                                                frontend.c, "Room"; the back end and
                                                xlog_close may make it 0 */
    char *base;                              /* buffer minus the lap's first position,
                                                minus 1 (xlog.h, xlog_impl_ring) */
    uint64_t text_budget;                    /* bytes of strings a record may carry
                                                uncut (frontend.c, message_budget) */
    uint64_t room;                           /* the shortest paths write below it
                                                (frontend.c, "Room") */
    uint64_t cached_tail;                    /* producer's last view of tail */
    uint64_t lap_end;                        /* the producer wraps at this offset */
    uint64_t epoch;                          /* atomic: the xlog_open this ring belongs
                                                to; 0 once the back end retired it */

    /* Stored to by the producer at every call, polled by the back end:
     * alone on its line.  The producer never loads it, so the back end's
     * reads never make a call wait (a store waits in the store buffer). */
    _Alignas(XLOG_CACHE_LINE) uint64_t head; /* atomic; see above */

    /* Written by the producer rarely (read by the back end per pass, so
     * they must not share the line above). */
    _Alignas(XLOG_CACHE_LINE) uint64_t dropped[XLOG_DROP_REASONS]; /* atomic */
    uint64_t blocked;                        /* atomic: calls that waited for room */
    uint64_t shared_lap_end;                 /* atomic: lap_end, for the back end */
    uint64_t lap_stays_till;                 /* the producer's: the lap could not grow
                                                (no room for its pages): not tried
                                                again before this position, the next
                                                lap's start */
    uint64_t populated;                      /* atomic: bytes of the buffer in memory
                                                (and in its file): the producer writes
                                                none beyond; raised by either end
                                                (rings.c, "Room") */
    uint64_t room_awaited;                   /* atomic: 0, or the tail the producer
                                                sleeps until (rings.c, "Waiting for
                                                room"); the back end takes it back to 0
                                                when it wakes it */
    uint32_t room_given;                     /* atomic: the futex word it sleeps on,
                                                which the back end counts up when it
                                                wakes it */

    /* Written by the consumer only. */
    _Alignas(XLOG_CACHE_LINE) uint64_t tail; /* atomic */
    uint64_t read_pos;                       /* consumer's position, ahead of tail */
    uint64_t buffered;                       /* records before it are in a file buffer
                                                (lib/shm/shm.h) */
    uint64_t visible_end;                    /* published end seen by the last scan */
    uint64_t last_tsc;                       /* timestamp of the newest record seen */
    uint64_t claimed_pos;                    /* a write_pos seen with bit 0 set ... */
    uint64_t claimed_since;                  /* ... since these ticks (see backend.c) */
    uint64_t refused;                        /* records with a level outside TRACE..FATAL */
    uint64_t dropped_reported[XLOG_DROP_REASONS]; /* drops already announced ... */
    uint64_t refused_reported;               /* ... and refusals */
    uint64_t notice_due;                     /* ticks before which no new drop notice */
    uint64_t populate_retry_at;              /* ticks before which populating ahead is
                                                not tried again (the file had no room) */
    uint64_t idle_head;                      /* head when the ring was last seen idle ... */
    uint64_t idle_since;                     /* ... and since when (ticks) */
    int idle_stage;                          /* rings.c, "Idle rings" */
    struct xlog_backtrace *backtrace;        /* the thread's kept messages, or NULL */
    /* The context of the records read so far (backend.c, "Context"): its
     * bytes in context_bytes[context_current] (atomic), the other half
     * being where the next change is written, so that a kill at any store
     * leaves recovery a whole context for the records past `buffered`;
     * read into context, which the lines of the ring point to. */
    uint32_t context_current;
    xlog_context context;
    char context_bytes[2][XLOG_CONTEXT_BYTES_MAX];
    char tid_text[16];                       /* "<tid> " ready to copy */
    size_t tid_text_len;
    /* The thread's name: read by the thread when it takes the ring, then
     * again by the back end (rings.c, "Names"). */
    xlog_thread_name thread_name;

    /* Set when the ring is given to a thread, read by both. */
    _Alignas(XLOG_CACHE_LINE) char *buffer;
    uint64_t mask;
    uint64_t capacity;
    size_t map_size;                         /* header page and buffer, as mapped */
    uint32_t slot;                           /* its file, "ring.<slot>" ... */
    uint32_t generation;                     /* ... of this survival directory, or 0:
                                                anonymous memory */
    int tid;                                 /* kernel thread id */
    int exited;                              /* atomic: the owning thread has ended
                                                or moved to another ring */
    int listed;                              /* in xlog_rings.rings (registry lock) */
    void *alt_stack;                         /* signal stack xlog gave the thread, or NULL */
    struct xlog_ring *next;                  /* registry or free list, under the registry lock */
} xlog_ring;

/* A call compiled into the program writes these fields through
 * xlog_impl_ring (xlog.h). */
_Static_assert(offsetof(xlog_ring, write_pos) == offsetof(xlog_impl_ring, write_pos), "ABI");
_Static_assert(offsetof(xlog_ring, room_end) == offsetof(xlog_impl_ring, room_end), "ABI");
_Static_assert(offsetof(xlog_ring, base) == offsetof(xlog_impl_ring, base), "ABI");
_Static_assert(offsetof(xlog_ring, text_budget) == offsetof(xlog_impl_ring, text_budget), "ABI");
_Static_assert(offsetof(xlog_ring, head) == offsetof(xlog_impl_ring, head), "ABI");
/* The ring's header is one page (rings.c, header_size): the context's two
 * copies fit in it beside the rest. */
_Static_assert(sizeof(xlog_ring) <= 4096, "a ring's header is one page");

#endif
