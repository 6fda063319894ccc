/*
 * rings.h - the registry of every thread's ring: how a thread gets one, how
 * the back end lists, keeps and retires them, and what fork does to them
 * (rings.c).
 */
#ifndef XLOG_RINGS_H
#define XLOG_RINGS_H

#include <pthread.h>
#include <stdint.h>

#include "rings/ring.h"

/* Every ring, by state (see rings.c), with the counts of rings that are no
 * longer listed. */
typedef struct xlog_registry {
    pthread_mutex_t lock;
    xlog_ring *rings;          /* the open epoch's rings, through ring->next */
    xlog_ring *stale;          /* rings of an earlier epoch that threads still hold */
    xlog_ring *free;           /* the pool */
    size_t free_count;
    uint64_t generation;       /* atomic: bumped when the list of rings changes */
    int backend_running;       /* under lock: the back end retires exited rings */
    uint64_t retired_dropped[XLOG_DROP_REASONS]; /* under lock */
    uint64_t retired_blocked;  /* under lock */
} xlog_registry;

extern xlog_registry xlog_rings;

/* rings.c.  A ring for the calling thread in this epoch (NULL without
 * memory); the registry lock must not be held. */
xlog_ring *xlog_ring_take(uint64_t epoch);
/* The thread is done with r (it ended, or moved to another ring): the back
 * end writes what is left in it, or, if none drains it, it is recycled now. */
void xlog_ring_leave(xlog_ring *r);
/* The back end unlists a drained ring of a thread that has ended (the
 * registry lock must not be held). */
void xlog_ring_retire(xlog_ring *r);
/* xlog_close, after the back end has stopped: the rings become stale. */
void xlog_rings_close_epoch(void);
/* xlog_close, once the logger's epoch is 0: every ring's room_end to 0, so
 * that no call writes in the program's code any more (frontend.c, "Room"). */
void xlog_rings_take_room(void);
/* The back end, once a pass (not its last): keeps a few rings ready in the
 * pool for new threads (rings.c, "Spares"); at its first pass, first
 * unmaps the pooled rings that no longer fit (another ring_size; anonymous
 * while there is a survival directory).  After a spare that found no
 * room, none before retry_ticks later.  The registry lock must not be
 * held. */
void xlog_rings_keep_spares(int first_pass, uint64_t now, uint64_t retry_ticks);
/* fork(): the parent lists its rings before (the registry lock held) and
 * lets go of that list after; the child unmaps every ring of that list and
 * forgets them. */
void xlog_rings_before_fork(void);
void xlog_rings_after_fork_in_parent(void);
void xlog_rings_after_fork(void);
/* The producer, before its lap may end at lap_end: whether every page it
 * may then write is populated (a ring in a file: reserved there; rings.c,
 * "Room"), populating them now if the back end was not ahead; 0 when the
 * file has no room for them (counted in xlog_laps_not_grown). */
int xlog_ring_room_for_lap(xlog_ring *r, uint64_t lap_end);
/* Laps that could not grow (atomic): xlog_counters.laps_not_grown. */
extern uint64_t xlog_laps_not_grown;
/* The back end, once a pass per ring: populate ahead of its laps, retire
 * and trim an idle ring (rings.c, "Idle rings"). */
void xlog_ring_tend(xlog_ring *r, uint64_t now, double ns_per_tick);

/* The producer, its ring full: sleeps until the back end has given back
 * room up to position wanted (r's tail), for at most timeout_ns (rings.c,
 * "Waiting for room").  The caller looks at the tail again. */
void xlog_ring_await_tail(xlog_ring *r, uint64_t wanted, long timeout_ns);
/* Wakes r's producer, which sleeps until a tail no further than r's. */
void xlog_ring_wake_producer(xlog_ring *r);

/* The back end gives the producer back the room before position tail, and
 * wakes it if it sleeps for room that is there now: a store and one load
 * of a line the producer seldom writes, both sequentially consistent (on
 * x86 the store is an xchg, a full barrier), as are the producer's store
 * of room_awaited and its load of the tail (xlog_ring_await_tail): so
 * either the back end sees the producer waiting or the producer sees the
 * new tail.  A system call only when the producer sleeps. */
static inline void xlog_ring_set_tail(xlog_ring *r, uint64_t tail)
{
    __atomic_store_n(&r->tail, tail, __ATOMIC_SEQ_CST);
    uint64_t awaited = __atomic_load_n(&r->room_awaited, __ATOMIC_SEQ_CST);
    if (__builtin_expect(awaited != 0, 0) && (int64_t)(tail - awaited) >= 0)
        xlog_ring_wake_producer(r);
}

/* The back end: reads the name of r's thread again (rings.c, "Names");
 * 1 if it changed.  A thread that has ended keeps its last name. */
int xlog_ring_read_name(xlog_ring *r);

#endif
