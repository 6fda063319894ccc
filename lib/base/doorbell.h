/*
 * doorbell.h - how the back end sleeps and how anyone wakes it.
 *
 * The back end polls while there is traffic; when it has had nothing to do
 * for a while it sleeps on a futex until its next timer
 * (backend/backend.c, "Sleeping").  A call does not tell it that it has
 * published a record: it loads asleep, a cache line written only when the
 * back end falls asleep or is woken, so it stays shared and costs the call
 * one load and a branch.  Finding it set, the call rings.  Requests (a
 * flush, a close, a crash, a reopen, a thread that took the last spare
 * rings) ring whatever the flag says.
 *
 * It is here, at the bottom, so that the front end, the rings and the
 * sinks can wake the back end without calling up into it.
 */
#ifndef XLOG_DOORBELL_H
#define XLOG_DOORBELL_H

#include <stdint.h>

#include "base/atomics.h"

typedef struct xlog_doorbell {
    int asleep;     /* atomic: the back end sleeps long and wants a ring */
    uint32_t wakes; /* atomic: the futex word, counting rings, so none is lost */
} __attribute__((aligned(64))) xlog_doorbell;

extern XLOG_HIDDEN xlog_doorbell xlog_bell;

/* Wakes the back end now.  Async-signal-safe (an atomic add and one futex
 * call, errno kept). */
void xlog_bell_ring(void);

/* Wakes the back end if it is asleep: for callers that have just published
 * work.  Async-signal-safe. */
void xlog_bell_ring_if_asleep(void);

/* After a record is published: one load of a line that stays shared, and no
 * system call unless the back end has gone to sleep. */
static inline void xlog_bell_published(void)
{
    if (__builtin_expect(__atomic_load_n(&xlog_bell.asleep, __ATOMIC_RELAXED), 0))
        xlog_bell_ring_if_asleep();
}

/* The back end: sleeps until rung (any ring since it read seen) or for ns
 * nanoseconds. */
void xlog_bell_wait(uint32_t seen, long ns);

#endif
