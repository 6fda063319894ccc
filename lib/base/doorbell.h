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
 * Between polling and that long sleep, a back end that keeps finding
 * little (light traffic: a burst now and then) polls less and less often,
 * up to a few milliseconds apart: it dozes.  A call costs nothing more for
 * it, but a burst must not fill a ring meanwhile, so a thread that finds
 * its ring half full while the back end dozes wakes it (frontend.c, "Room"),
 * as does one that finds it full.
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
    /* atomic: the back end dozes and wants a ring from a thread whose ring
     * is half full.  On a line of its own: it changes with every doze, and
     * the calls load asleep at every record, dozing only when they take
     * more room. */
    _Alignas(64) int dozing;
} __attribute__((aligned(64))) xlog_doorbell;

extern XLOG_HIDDEN xlog_doorbell xlog_bell;

/* Wakes the back end now.  Async-signal-safe (an atomic add and one futex
 * call, errno kept). */
void xlog_bell_ring(void);

/* Wakes the back end if it is asleep: for callers that have just published
 * work.  Async-signal-safe. */
void xlog_bell_ring_if_asleep(void);

/* Wakes the back end if it dozes: for a thread whose ring is getting full.
 * One ring per doze, whoever asks.  Async-signal-safe. */
void xlog_bell_ring_if_dozing(void);

/* Whether the back end dozes (a hint: it may wake meanwhile). */
static inline int xlog_bell_dozing(void)
{
    return __atomic_load_n(&xlog_bell.dozing, __ATOMIC_RELAXED);
}

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
