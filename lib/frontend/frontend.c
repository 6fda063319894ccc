/*
 * frontend.c - the log call: everything that runs on the caller's thread.
 *
 * Why it exists: this is the only code that costs the application time, so it
 * does the least it can.  A call copies its timestamp and raw arguments into
 * the calling thread's own ring (rings/ring.h) and returns; the back end does
 * the rest.
 *
 * How it works:
 *   1. The XLOG macro checks the level inline (xlog.h) and passes its static
 *      call site.  On the site's first use, the format is parsed once into a
 *      list of argument kinds (site_prepare); later calls just read it.
 *   2. The whole call is one region the thread marks (base/guard.h): a signal
 *      handler that logs while its thread is inside a call (or inside an
 *      xlog function that holds a lock a call may need) is dropped and
 *      counted, never allowed to touch the ring, a lock or the allocator the
 *      interrupted call is using.
 *   3. The thread's first message takes a ring (rings/rings.c: from a pool,
 *      or newly mapped) and gives the thread an alternate signal stack: the
 *      only system calls a thread makes here, unless its ring is full and
 *      the call waits.  A ring belongs to one xlog_open (its epoch): after a
 *      close and an open, the thread's next message takes a new ring, made
 *      with the configuration in force.
 *   4. The call measures the record (string lengths need a first pass over the
 *      arguments), reserves room in the ring (ring_reserve, which also ends a
 *      lap: rings/ring.h), marks itself "in a call" (bit 0 of write_pos), reads
 *      the clock, copies the arguments and publishes.
 *   5. A full ring blocks (spinning, then sleeping until the back end has
 *      made room: rings.c, "Waiting for room") or drops, as configured;
 *      both are counted.
 *
 * Formats that are not string literals, sites whose format has more than
 * XLOG_MAX_ARGS arguments or a fixed string precision ("%.10s"), and
 * xlogout() go through log_dynamic(), which parses the format at every call
 * and copies it into the record, so a parse is never applied to a format it
 * was not made from.
 *
 * The record's bytes, and how they are measured and written, are
 * record/record.h's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include "base/atomics.h"
#include "base/clock.h"
#include "base/doorbell.h"
#include "base/guard.h"
#include "base/settings.h"
#include "format/escape.h"
#include "format/format.h"
#include "frontend/filter.h"
#include "frontend/frontend.h"
#include "record/context.h"
#include "record/record.h"
#include "rings/rings.h"
#include "shm/shm.h"

#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

uint64_t xlog_unringed_dropped[XLOG_DROP_REASONS];

/* ---- Room ------------------------------------------------------------------
 *
 * The calling thread's ring is xlog_impl_my_ring (xlog.h), shared with the
 * calls compiled into the program (xlog_impl_put); a thread without one
 * points at no_ring, which has no room, so those calls need not test for
 * it.  A ring's room is how far the shortest paths may write without
 * looking at its lap and its tail: the end of the lap the last reservation
 * was in, or the back end's last known tail plus the capacity, whichever
 * comes first (ring_reserve sets it, and renew_room when the shortest
 * paths reach it).
 *
 * A call in the program's code checks room_end, which is room or 0: 0 when
 * the library must see every call, which it does by sending it here.  It
 * is 0 for a thread with its own threshold (the call site's pass knows only
 * the rules), and three things make it 0, each after the change the
 * library's paths will see:
 *   - the back end retiring an idle ring (after its epoch is 0), and
 *     xlog_close (after the logger's epoch is 0);
 *   - the back end falling asleep (after it sets xlog_bell.asleep): a call
 *     sets bit 0 of write_pos before it reads room_end, and the back end,
 *     after the 0s, runs membarrier and then looks at every write_pos and
 *     head: either it sees
 *     the call under way (and stays awake) or the call sees no room and
 *     takes the library's way, which rings the doorbell.
 * The library sets room_end again (open_room) with a full barrier, then
 * looks at the epochs and the doorbell and takes it back to 0 if either
 * changed: either it sees the change, or the change's 0 comes after its
 * store.  A call that read room_end before a 0 is "the one call" rings.c
 * allows for.  So a call written in the program's code needs no epoch
 * check and no doorbell check.
 *
 * While the back end dozes (it polls a few milliseconds apart under light
 * traffic: backend.c, "Sleeping"), a room given ends at half the ring from
 * the tail, and the call that gets past half rings the doorbell, once per
 * doze whoever rings; so does a call that finds its ring full.  A room
 * given before the doze began may reach the full ring: that call rings.
 *
 * The same bit 0 of write_pos keeps a signal handler's call out of a call under
 * way: the call in the program's code sets it and learns whether it was
 * set in one instruction; the library's paths set it before they read the
 * write position (claim), and their entries drop a call made while it is
 * set (nested_call). */
static xlog_impl_ring no_ring;
XLOG_API XLOG_IMPL_TLS xlog_impl_ring *xlog_impl_my_ring = &no_ring;

static xlog_ring *my_ring(void)
{
    return xlog_impl_my_ring == &no_ring ? NULL : (xlog_ring *)(void *)xlog_impl_my_ring;
}

static void set_my_ring(xlog_ring *r)
{
    xlog_impl_my_ring = r ? (xlog_impl_ring *)(void *)r : &no_ring;
}

static pthread_key_t thread_exit_key;
static pthread_once_t thread_exit_key_once = PTHREAD_ONCE_INIT;



static void count_drop(xlog_ring *r, int reason)
{
    xlog_add(r ? &r->dropped[reason] : &xlog_unringed_dropped[reason], 1);
}

/* A call made inside another of the same thread: a signal handler that
 * interrupted it.  Writing would corrupt the record being written. */
static __attribute__((noinline)) void drop_nested(void)
{
    count_drop(my_ring(), XLOG_DROP_NESTED);
}

/* ---- the thread's ring -------------------------------------------------- */

/* Size of the alternate signal stack: the crash handler formats lines. */
#define ALT_STACK_SIZE (64 * 1024)

/* So that a stack overflow still reaches the crash handler; only for a
 * thread that has no alternate stack of its own. */
static void give_alt_stack(xlog_ring *r)
{
    stack_t current;
    if (sigaltstack(NULL, &current) != 0 || !(current.ss_flags & SS_DISABLE))
        return;
    stack_t mine = {.ss_sp = malloc(ALT_STACK_SIZE), .ss_size = ALT_STACK_SIZE, .ss_flags = 0};
    if (mine.ss_sp && sigaltstack(&mine, NULL) == 0)
        r->alt_stack = mine.ss_sp;
    else
        free(mine.ss_sp);
}

static void take_alt_stack(xlog_ring *r)
{
    if (!r->alt_stack)
        return;
    stack_t off = {.ss_sp = NULL, .ss_size = 0, .ss_flags = SS_DISABLE};
    sigaltstack(&off, NULL);
    free(r->alt_stack);
    r->alt_stack = NULL;
}

/* The ring the thread had before its last change of ring (see
 * ring_for_this_thread), given back at its next change or when it ends. */
static XLOG_IMPL_TLS xlog_ring *left_ring;

/* The thread is ending: its rings stay until the back end has written what
 * is in them. */
static void thread_exited(void *ring)
{
    xlog_ring *r = ring;
    xlog_enter();
    set_my_ring(NULL);
    take_alt_stack(r);
    xlog_ring_leave(r);
    if (left_ring) {
        xlog_ring_leave(left_ring);
        left_ring = NULL;
    }
    xlog_leave();
}

static void make_thread_exit_key(void)
{
    pthread_key_create(&thread_exit_key, thread_exited);
}

static void context_to_new_ring(xlog_ring *r);

/* The thread's first message in this epoch, or after the back end retired
 * its idle ring: a ring of its own; the signal stack stays with the thread.
 * The old one is given back (left to the back end, recycled or unmapped)
 * only at the thread's next change of ring, or when it ends: this call may
 * be a signal handler's that interrupted a call in the program's code
 * between its load of xlog_impl_my_ring and its claim (xlog_impl_claim),
 * which then sets bit 0 of the old ring's write_pos, reads its write position
 * and, finding no room (the old ring's room_end is 0, or it is "the one
 * call" of a retired ring), comes here.  Given back at once, the old ring
 * could be unmapped (a ring in a file of an earlier xlog_open), or in the
 * pool and another thread's, under that call. */
static __attribute__((noinline)) xlog_ring *ring_for_this_thread(uint64_t epoch)
{
    pthread_once(&thread_exit_key_once, make_thread_exit_key);
    xlog_ring *old = my_ring();
    xlog_ring *r = xlog_ring_take(epoch);
    if (!r)
        return NULL;
    if (old) {
        r->alt_stack = old->alt_stack;
        old->alt_stack = NULL;
    } else if (xlog_load(&xlog_front.alt_stacks)) {
        give_alt_stack(r);
    }
    set_my_ring(r);
    pthread_setspecific(thread_exit_key, r);
    context_to_new_ring(r); /* before any line of the thread in it */
    if (old) {
        xlog_ring *before = left_ring;
        left_ring = old;
        if (before)
            xlog_ring_leave(before);
    }
    return r;
}

void xlog_front_after_fork(void)
{
    /* rings.c unmaps every ring; the signal stack stays the thread's. */
    xlog_ring *mine = my_ring();
    if (mine && mine->alt_stack) {
        void *stack = mine->alt_stack;
        mine->alt_stack = NULL;
        stack_t off = {.ss_sp = NULL, .ss_size = 0, .ss_flags = SS_DISABLE};
        sigaltstack(&off, NULL);
        free(stack);
    }
    set_my_ring(NULL);
    left_ring = NULL;
    if (mine)
        pthread_setspecific(thread_exit_key, NULL);
}

/* The calling thread's ring, if xlog takes messages now; counts the message
 * as dropped otherwise. */
static xlog_ring *ring_for_call(void)
{
    uint64_t epoch = xlog_load_acquire(&xlog_front.epoch);
    if (UNLIKELY(epoch == 0)) {
        if (xlog_load(&xlog_front.forked)) {
            xlog_front.restart_after_fork();
            epoch = xlog_load_acquire(&xlog_front.epoch);
        }
        if (epoch == 0) {
            count_drop(NULL, XLOG_DROP_CLOSING);
            return NULL;
        }
    }
    xlog_ring *r = my_ring();
    if (LIKELY(r != NULL && xlog_load(&r->epoch) == epoch))
        return r;
    r = ring_for_this_thread(epoch);
    if (!r)
        count_drop(NULL, XLOG_DROP_FULL); /* no memory for a ring */
    return r;
}

/* ---- room in the ring ----------------------------------------------------- */

/* Set while the thread writes a context change, which waits for room
 * whatever full_policy says ("context" below). */
static XLOG_IMPL_TLS int writing_context;

/* A full ring's thread first spins this many times (room given back within
 * a microsecond or so: no system call on either side), then sleeps until
 * the back end has read half its ring (rings.c, "Waiting for room"), at
 * most this long at a time, to look at the epoch again when no wake can
 * come (a logger closed meanwhile). */
#define ROOM_SPINS 100
#define ROOM_SLEEP_MAX_NS 10000000L

/* The tail a full ring's thread sleeps until: half the ring read, or what
 * need takes if more (need - capacity, which is past the tail). */
static uint64_t tail_to_sleep_for(const xlog_ring *r, uint64_t need)
{
    uint64_t half_read = r->write_pos - r->capacity / 2, needed = need - r->capacity;
    return (int64_t)(needed - half_read) > 0 ? needed : half_read;
}

/* Waits until the ring has room up to position need; 0 if the message must be
 * dropped instead. */
static int wait_for_room(xlog_ring *r, uint64_t need)
{
    xlog_bell_ring_if_dozing(); /* else the room might come a doze later */
    if (xlog_load(&xlog_front.full_policy) == XLOG_FULL_DROP && !writing_context) {
        count_drop(r, XLOG_DROP_FULL);
        return 0;
    }
    xlog_add(&r->blocked, 1);
    uint64_t wanted = need - r->capacity; /* the tail waited for */
    for (unsigned tries = 0;; tries++) {
        if (xlog_load(&xlog_front.epoch) != xlog_load(&r->epoch)) {
            count_drop(r, XLOG_DROP_CLOSING);
            return 0;
        }
        r->cached_tail = xlog_load_acquire(&r->tail);
        if ((int64_t)(r->cached_tail - wanted) >= 0)
            return 1;
        if (tries < ROOM_SPINS) {
#if defined(__x86_64__)
            __builtin_ia32_pause();
#endif
            continue;
        }
        if (tries == ROOM_SPINS)
            wanted = tail_to_sleep_for(r, need);
        xlog_ring_await_tail(r, wanted, ROOM_SLEEP_MAX_NS);
    }
}

/* Makes the lap at least needed bytes long (at least twice as long as it
 * was, at most the buffer), and tells the back end, which populates ahead
 * of it.  0 when it stays as it was: a ring in a file whose pages for the
 * longer lap were neither reserved by the back end nor could be now
 * (rings.c, "Room"). */
static int lengthen_lap(xlog_ring *r, uint64_t needed)
{
    uint64_t end = r->lap_end * 2;
    while (end < needed)
        end *= 2;
    if (end > r->capacity)
        end = r->capacity;
    if (!xlog_ring_room_for_lap(r, end))
        return 0;
    r->lap_end = end;
    xlog_store(&r->shared_lap_end, end);
    return 1;
}

/* Sets bit 0 of write_pos (a call of this thread is under way, ring.h) in
 * one instruction, so that a signal handler's call sees it either unset
 * (and completes before this one reads the write position) or set; returns
 * the write position. */
static inline uint64_t claim(xlog_ring *r)
{
#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__)
    __asm__ __volatile__("orq $1, %0" : "+m"(r->write_pos) : : "memory");
#else
    __atomic_fetch_or(&r->write_pos, 1, __ATOMIC_RELAXED);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
#endif
    return xlog_load(&r->write_pos) - 1;
}

/* The call writes nothing after all. */
static inline void unclaim(xlog_ring *r)
{
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    xlog_store_release(&r->write_pos, xlog_load(&r->write_pos) & ~(uint64_t)1);
}

/* A call made while another of its thread is under way (a signal handler
 * that interrupted it): inside the library, or in the program's code. */
static inline int nested_call(void)
{
    xlog_ring *r;
    return xlog_inside() || ((r = my_ring()) != NULL && (xlog_load(&r->write_pos) & 1));
}

/* Gives the calls in the program's code the ring's room, unless the
 * library must see them (see "Room"). */
static void open_room(xlog_ring *r)
{
    uint64_t end = xlog_impl_thread_threshold >= 0 ? 0 : r->room;
    if (xlog_load(&r->room_end) == end)
        return;
    __atomic_store_n(&r->room_end, end, __ATOMIC_SEQ_CST);
    uint64_t epoch = __atomic_load_n(&r->epoch, __ATOMIC_SEQ_CST);
    if (end && (epoch == 0 || epoch != __atomic_load_n(&xlog_front.epoch, __ATOMIC_SEQ_CST) ||
                __atomic_load_n(&xlog_bell.asleep, __ATOMIC_SEQ_CST)))
        __atomic_store_n(&r->room_end, 0, __ATOMIC_SEQ_CST);
}

void xlog_front_own_threshold_changed(void)
{
    xlog_ring *r = my_ring();
    if (r)
        open_room(r);
}

/* Bytes of text one record may carry (format and strings together): at most
 * max_message, and little enough that a record always fits in this ring
 * (the ring may predate a later xlog_open with a larger max_message). */
static size_t message_budget(const xlog_ring *r)
{
    size_t max_message = xlog_load(&xlog_front.max_message);
    return max_message < r->capacity / 4 ? max_message : r->capacity / 4;
}

/* The shortest paths may now write below end in the lap that starts at
 * lap_start. */
static void set_room(xlog_ring *r, uint64_t lap_start, uint64_t end)
{
    r->base = (char *)((uintptr_t)r->buffer - (uintptr_t)lap_start - 1);
    r->text_budget = message_budget(r);
    r->room = end;
    open_room(r);
}

/* Waits for room as wait_for_room, with bit 0 of write_pos clear meanwhile
 * (the back end holds other threads' later records while it is set); 1
 * with the ring claimed again and the write position in *pos (a signal
 * handler's call may have written), or 0 unclaimed. */
static int wait_unclaimed(xlog_ring *r, uint64_t need, uint64_t *pos)
{
    unclaim(r);
    if (!wait_for_room(r, need))
        return 0;
    *pos = claim(r);
    return 1;
}

/* The shortest paths may now write below the lap's end or the tail's
 * last known room, whichever comes first, for a record at pos that fits
 * in both. */
static void set_room_from(xlog_ring *r, uint64_t pos, uint64_t size)
{
    uint64_t lap_start = pos - (pos & r->mask);
    uint64_t lap_room = lap_start + r->lap_end, tail_room = r->cached_tail + r->capacity;
    if (UNLIKELY(xlog_bell_dozing())) {
        /* The back end dozes (backend.c, "Sleeping"): past half the ring,
         * wake it; short of it, come back here at half.  Half of the tail
         * as it is: ring_reserve reads the tail only when the ring looks
         * full, so the one known may be most of a ring old, and the back
         * end may have read everything since. */
        if (pos + size > r->cached_tail + r->capacity / 2) {
            r->cached_tail = xlog_load_acquire(&r->tail);
            tail_room = r->cached_tail + r->capacity;
        }
        uint64_t half = r->cached_tail + r->capacity / 2;
        if (pos + size > half)
            xlog_bell_ring_if_dozing();
        else
            tail_room = half;
    }
    set_room(r, lap_start, lap_room < tail_room ? lap_room : tail_room);
}

/* Whether this lap, which ends where next_lap starts, may not grow: it is
 * the whole buffer, or its pages could not be had (ring.h, "Laps"). */
static inline int lap_is_last(const xlog_ring *r, uint64_t next_lap)
{
    return r->lap_stays_till == next_lap || r->lap_end == r->capacity;
}

/* The lap is over at pos (ring.h, "Laps"): reads the tail, and says
 * whether a record of size bytes may follow a wrap now, neither waiting
 * nor lengthening the lap: early, when the back end has read everything,
 * or at the end of a lap that may not grow, once it has read the start. */
static inline int may_wrap(xlog_ring *r, uint64_t pos, uint64_t size)
{
    uint64_t offset = pos & r->mask, next_lap = pos - offset + r->capacity;
    r->cached_tail = xlog_load_acquire(&r->tail);
    int empty = r->cached_tail == pos && size <= offset;
    return (empty || lap_is_last(r, next_lap)) && next_lap + size - r->cached_tail <= r->capacity;
}

/* Ends the lap at pos with a padding record, published with the record
 * that follows it; the next lap's start. */
static inline uint64_t wrap(xlog_ring *r, uint64_t pos)
{
    uint64_t offset = pos & r->mask;
    xlog_record *filler = (xlog_record *)(r->buffer + offset);
    filler->size = (uint32_t)(r->capacity - offset);
    filler->type = XLOG_REC_PAD;
    return pos - offset + r->capacity;
}

/* The shortest paths' room ends at the tail the thread last read or at
 * the end of the lap (see "Room"), so they find none about twice a lap
 * although the back end has read on.  With the ring claimed: reads the
 * tail, wraps when the lap is over and may_wrap says so, and gives the
 * room to a record of size bytes at *pos (moved to the next lap after a
 * wrap): 1.  Or 0, still claimed, with nothing written, when ring_reserve
 * must wait, lengthen the lap or drop, or when the back end retired the
 * ring (its epoch, read after the claim, is 0): then its pages may be
 * going back, and only ring_for_call's new ring may be written.  Out of
 * line (the shortest paths stay short) but not cold: it runs every lap,
 * and the general path it spares costs microseconds in cache misses. */
static __attribute__((noinline)) int renew_room(xlog_ring *r, uint64_t *pos, uint64_t size)
{
    uint64_t at = *pos;
    if (UNLIKELY(xlog_load(&r->epoch) == 0))
        return 0;
    if ((at & r->mask) + size > r->lap_end) {
        if (size > r->lap_end || !may_wrap(r, at, size))
            return 0;
        at = wrap(r, at);
    } else {
        r->cached_tail = xlog_load_acquire(&r->tail);
        if (at + size - r->cached_tail > r->capacity)
            return 0;
    }
    set_room_from(r, at, size);
    *pos = at;
    return 1;
}

/* Reserves size bytes of contiguous room; returns where, with its position
 * in *record_pos, or NULL when the message is dropped.  Nothing is
 * published yet: a padding record that ends a lap is published with the
 * record that follows it. */
static char *ring_reserve(xlog_ring *r, uint64_t size, uint64_t *record_pos)
{
    uint64_t pos = claim(r);
    for (;;) {
        uint64_t offset = pos & r->mask;
        if (offset + size <= r->lap_end) {
            if (UNLIKELY(pos + size - r->cached_tail > r->capacity)) {
                r->cached_tail = xlog_load_acquire(&r->tail);
                if (pos + size - r->cached_tail > r->capacity) {
                    if (!wait_unclaimed(r, pos + size, &pos))
                        return NULL;
                    continue;
                }
            }
            set_room_from(r, pos, size);
            *record_pos = pos;
            return r->buffer + offset;
        }
        /* The lap is over: wrap if may_wrap; otherwise make the lap
         * longer.  A lap that cannot grow (tried once a lap: it is a
         * system call) is as the end of the buffer: wrap once the back
         * end has read the start, waiting or dropping as with a full
         * ring.  A record too long to follow a wrap there is dropped, as
         * waiting cannot help, and the next record tries to grow the lap
         * again. */
        uint64_t next_lap = pos - offset + r->capacity;
        int last_lap = lap_is_last(r, next_lap);
        if (may_wrap(r, pos, size)) {
            pos = wrap(r, pos);
        } else if (!last_lap) {
            if (!lengthen_lap(r, offset + size))
                r->lap_stays_till = next_lap;
        } else if (size > offset) {
            r->lap_stays_till = 0;
            unclaim(r);
            count_drop(r, XLOG_DROP_FULL);
            return NULL;
        } else if (!wait_unclaimed(r, next_lap + size, &pos)) {
            return NULL;
        }
    }
}

/* The clock, for a record whose room is claimed: the mark (bit 0 of write_pos)
 * is visible no later than the timestamp is taken (see ring.h). */
static inline uint64_t begin_record(void)
{
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    return xlog_ticks();
}

/* The thread's ring, claimed, when size bytes fit in its room (see "Room"),
 * renewed if need be, with the position they go to; else NULL, for the
 * general path.  Gives the calls in the program's code their room back
 * after the back end took it to sleep. */
static inline xlog_ring *room_for(uint64_t size, uint64_t *pos)
{
    xlog_ring *r = my_ring();
    if (UNLIKELY(r == NULL) || UNLIKELY(xlog_load(&r->epoch) != xlog_load(&xlog_front.epoch)))
        return NULL;
    *pos = claim(r);
    if (UNLIKELY(*pos + size > r->room) && !renew_room(r, pos, size)) {
        unclaim(r);
        return NULL;
    }
    if (UNLIKELY(xlog_load(&r->room_end) != r->room))
        open_room(r);
    return r;
}

/* Where the record at pos of the room's lap goes (base is one byte below
 * position 0: xlog.h, xlog_impl_ring). */
static inline xlog_record *record_at(const xlog_ring *r, uint64_t pos)
{
    return (xlog_record *)((uintptr_t)r->base + pos + 1);
}

/* Publishes, then clears bit 0 of write_pos (xlog.h, xlog_impl_publish,
 * says why in this order). */
static inline void publish_record(xlog_ring *r, uint64_t record_pos, uint64_t size)
{
    xlog_store_release(&r->head, record_pos + size);
    xlog_store_release(&r->write_pos, record_pos + size);
    xlog_bell_published();
}

/* ---- argument capture --------------------------------------------------- */


/* ---- the dynamic path --------------------------------------------------- */

/* The record flags a call's level carries (xlog.h: XLOG_IMPL_KEEP ...), in
 * its second byte (a slot call passes that byte as it is). */
_Static_assert(XLOG_IMPL_KEEP >> 8 == XLOG_REC_KEEP && XLOG_IMPL_RATED >> 8 == XLOG_REC_RATED &&
                   XLOG_IMPL_OWN >> 8 == XLOG_REC_OWN &&
                   (XLOG_IMPL_RECORD_BITS >> 8) == (XLOG_REC_KEEP | XLOG_REC_RATED | XLOG_REC_OWN),
               "a level's second byte is its record's flags");
static inline unsigned call_flags(int level)
{
    return (unsigned)(level >> 8) & (XLOG_REC_KEEP | XLOG_REC_RATED | XLOG_REC_OWN);
}

/* A rate-limited call's record ends with how many calls of its site were
 * suppressed since the last one written. */
static uint64_t suppressed_size(unsigned flags)
{
    return flags & XLOG_REC_RATED ? XLOG_RECORD_SUPPRESSED_SIZE : 0;
}

/* A rate-limited record is always of a site; only it has that flag. */
static void write_suppressed(xlog_record *rec, xlog_impl_site *site, unsigned flags)
{
    if (flags & XLOG_REC_RATED)
        xlog_record_set_suppressed(rec, __atomic_exchange_n(&site->suppressed, 0, __ATOMIC_RELAXED));
}

/* The length of a name a dynamic record carries (xlogout's file and
 * function): at most XLOG_RECORD_MAX_NAME bytes, cut between two UTF-8
 * characters as an event cuts its names (event/event.h), so that a line
 * never shows half a character. */
static uint32_t name_length(const char *s)
{
    if (!s)
        return 0;
    /* 3 bytes past the limit: a character that crosses it is whole there,
     * so that it is seen as one (and not as bytes of a broken one). */
    size_t n = strnlen(s, XLOG_RECORD_MAX_NAME + 3);
    return (uint32_t)xlog_utf8_cut(s, n, XLOG_RECORD_MAX_NAME);
}

/* Logs a message whose format is parsed now and copied into the record.
 * named, the site's copy, gives file, line and function, or is NULL and
 * they are copied too; site (NULL for xlogout) keeps a rate limit's count. */
static void log_dynamic(xlog_ring *r, xlog_impl_site *site, const xlog_site_copy *named, int level,
                        const char *file, int line, const char *func, const char *fmt,
                        int caller_errno, va_list ap)
{
    if (!fmt)
        fmt = "(null format)";
    unsigned flags = call_flags(level);
    size_t budget = message_budget(r);
    size_t fmt_len = strnlen(fmt, budget + 1);
    if (fmt_len > budget) {
        fmt_len = budget;
        flags |= XLOG_REC_TRUNCATED;
    }
    unsigned char kinds[XLOG_RECORD_MAX_ARGS];
    int precision[XLOG_RECORD_MAX_ARGS];
    int strings;
    int nargs = xlog_record_kinds(fmt, fmt_len, kinds, precision, XLOG_RECORD_MAX_ARGS, &strings);
    if (nargs > XLOG_RECORD_MAX_ARGS)
        nargs = XLOG_RECORD_MAX_ARGS; /* the conversions beyond show literally */
    uint32_t file_len = named ? 0 : name_length(file);
    uint32_t func_len = named ? 0 : name_length(func);
    uint32_t lens[XLOG_RECORD_MAX_ARGS];
    va_list measure;
    va_copy(measure, ap);
    uint64_t args_size =
        xlog_record_measure_args(kinds, nargs, precision, budget - fmt_len, measure, lens, &flags);
    va_end(measure);

    uint64_t size = xlog_align8(sizeof(xlog_record) +
                                xlog_record_dynamic_size(nargs, fmt_len, file_len, func_len) +
                                args_size + suppressed_size(flags));
    uint64_t pos;
    char *p = ring_reserve(r, size, &pos);
    if (!p)
        return;
    xlog_record *rec = (xlog_record *)p;
    rec->tsc = begin_record();
    rec->size = (uint32_t)size;
    write_suppressed(rec, site, flags);
    rec->type = XLOG_REC_DYNAMIC;
    rec->level = (uint8_t)level;
    rec->flags = (uint8_t)flags;
    rec->nargs = (uint8_t)nargs;
    rec->site = named;
    char *out = xlog_record_encode_dynamic(p + sizeof(xlog_record), kinds, nargs, fmt,
                                           (uint32_t)fmt_len, line, file, file_len, func,
                                           func_len);
    xlog_tsan_acquire(&r->tail);
    xlog_record_encode_args(out, kinds, nargs, lens, caller_errno, ap);
    xlog_tsan_release(&r->head);
    publish_record(r, pos, size);
}

/* ---- the fast path ------------------------------------------------------ */

/* Memory for site copies, never given back, taken without malloc: a
 * site's first call may be made by a signal handler that interrupted malloc
 * itself.  Chunks come from mmap (a system call, safe in a handler) and are
 * cut by an atomic bump; a copy larger than a chunk gets a mapping of its
 * own.  A leak checker does not see them, so they need no list to stay
 * reachable.  errno is kept: the caller's %m must not change. */
#define KEEP_CHUNK ((size_t)64 << 10)

typedef struct keep_chunk {
    size_t used; /* atomic: bytes given out, may run past the end */
    size_t size; /* bytes after this header */
} keep_chunk;

static keep_chunk *keep_current; /* atomic */

static void *keep_alloc(size_t size)
{
    size = (size + 15) & ~(size_t)15;
    keep_chunk *c = __atomic_load_n(&keep_current, __ATOMIC_ACQUIRE);
    if (c) {
        size_t at = __atomic_fetch_add(&c->used, size, __ATOMIC_RELAXED);
        if (at <= c->size && size <= c->size - at)
            return (char *)(c + 1) + at;
    }
    size_t room = size + sizeof(keep_chunk) > KEEP_CHUNK ? size : KEEP_CHUNK - sizeof(keep_chunk);
    int saved_errno = errno;
    void *mem = mmap(NULL, room + sizeof(keep_chunk), PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    errno = saved_errno;
    if (mem == MAP_FAILED)
        return NULL;
    keep_chunk *fresh = mem;
    fresh->size = room;
    fresh->used = size;
    /* The rest of a chunk serves later copies, unless another thread put a
     * chunk of its own in place meanwhile (then the rest stays unused). */
    if (room > size)
        __atomic_compare_exchange_n(&keep_current, &c, fresh, 0, __ATOMIC_RELEASE,
                                    __ATOMIC_RELAXED);
    return fresh + 1;
}

/* The site's copy (xlog_site_copy), made now if this is the site's first
 * call: file, function and module copied, no format yet.  NULL without
 * memory. */
static xlog_site_copy *site_copy_of(xlog_impl_site *site)
{
    xlog_site_copy *copy = __atomic_load_n(&site->copy, __ATOMIC_ACQUIRE);
    if (copy)
        return copy;
    const char *module = site->module ? site->module : "";
    size_t file = strlen(site->file) + 1, func = strlen(site->func) + 1, mod = strlen(module) + 1;
    copy = keep_alloc(sizeof *copy + file + func + mod);
    if (!copy)
        return NULL;
    char *text = (char *)(copy + 1);
    copy->file = memcpy(text, site->file, file);
    copy->func = memcpy(text + file, site->func, func);
    copy->module = memcpy(text + file + func, module, mod);
    copy->line = site->line;
    xlog_site_copy *first = NULL;
    if (!__atomic_compare_exchange_n(&site->copy, &first, copy, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE))
        return first; /* another thread's first call made it; ours stays unused */
    return copy;
}

/* The copy a dynamic record of site may name: one the survival dictionary
 * has (see site_prepare), or NULL when the site's preparation failed for
 * want of memory (the record then carries the names). */
static const xlog_site_copy *copy_to_name(xlog_impl_site *site)
{
    if (__atomic_load_n(&site->state, __ATOMIC_ACQUIRE) == XLOG_SITE_NEW)
        return NULL;
    return __atomic_load_n(&site->copy, __ATOMIC_ACQUIRE);
}

/* Another thread is preparing the site: this call's record (the dynamic
 * path) names a copy that may not be in the survival dictionary yet. */
static void note_site_being_prepared(xlog_impl_site *site)
{
    xlog_site_copy *copy = site_copy_of(site);
    if (copy)
        xlog_survival_add_site_names(copy);
}

/* Whether the slots a C11 call site passes (their classes ride on level:
 * xlog.h, "Capture at the call site") are, one for one, the bytes the
 * format's kinds ask for, so that the site may call xlog_impl_log_<n>.  A
 * call without slots (C99, C++, a string among the arguments) needs no
 * such check. */
static int slots_fit(int level, const unsigned char *kinds, int nargs)
{
    if (!(level & XLOG_IMPL_SLOTTED))
        return 1;
    unsigned classes = (unsigned)level >> XLOG_IMPL_SLOT_SHIFT;
    for (int i = 0; i < nargs; i++, classes >>= 2)
        if (!xlog_record_slot_fits(kinds[i], classes & 3))
            return 0; /* also a conversion with no argument left */
    return classes == 0; /* and no argument without its conversion */
}

/* Parses a site's format on its first use.  Returns 1 if the site can take
 * the fast path with this format: at most XLOG_MAX_ARGS arguments and no
 * string with a fixed precision (which must bound the copy: dynamic path).
 * level is the first call's, with its slot classes if it has them. */
static int site_prepare(xlog_impl_site *site, const char *fmt, int level)
{
    int state = XLOG_SITE_NEW;
    if (!__atomic_compare_exchange_n(&site->state, &state, XLOG_SITE_PARSING, 0, __ATOMIC_ACQUIRE,
                                     __ATOMIC_ACQUIRE)) {
        if (state == XLOG_SITE_PARSING)
            note_site_being_prepared(site);
        return (state == XLOG_SITE_SCALAR || state == XLOG_SITE_READY) && site->format == fmt;
    }

    /* The format goes into memory of xlog's with the rest of the copy. */
    xlog_site_copy *copy = site_copy_of(site);
    size_t fmt_len = strlen(fmt);
    char *format = copy ? keep_alloc(fmt_len + 1) : NULL;
    if (!format) { /* this call goes the dynamic way, the next one tries again */
        __atomic_store_n(&site->state, XLOG_SITE_NEW, __ATOMIC_RELEASE);
        return 0;
    }

    unsigned char kinds[XLOG_MAX_ARGS];
    int precision[XLOG_MAX_ARGS];
    int strings;
    int nargs = xlog_record_kinds(fmt, fmt_len, kinds, precision, XLOG_MAX_ARGS, &strings);
    int ready = nargs <= XLOG_MAX_ARGS;
    unsigned fixed = 0;
    for (int i = 0; ready && i < nargs; i++) {
        int kind = kinds[i] & XLOG_KIND_MASK;
        if ((kind == XLOG_ARG_STR || kind == XLOG_ARG_WSTR) && precision[i] >= 0)
            ready = 0;
        site->kinds[i] = kinds[i];
        fixed += xlog_arg_fixed_size(kind);
    }
    site->format = fmt;
    site->nargs = (unsigned char)(ready ? nargs : 0);
    site->fixed_size = (unsigned short)xlog_align8(sizeof(xlog_record) + fixed);
    int prepared = !ready ? XLOG_SITE_DYNAMIC : strings ? XLOG_SITE_READY : XLOG_SITE_SCALAR;
    copy->format = memcpy(format, fmt, fmt_len + 1);
    copy->nargs = site->nargs;
    memcpy(copy->kinds, site->kinds, sizeof copy->kinds);
    /* In the survival dictionary before the state lets any record name it. */
    xlog_survival_add_site(copy);
    __atomic_store_n(&site->state, prepared, __ATOMIC_RELEASE);
    /* The shortest path tests this pointer in place of the state: the copy
     * a record names costs it no load of its own.  A C11 call site tests
     * it too, and then passes slots: only if they fit. */
    if (prepared == XLOG_SITE_SCALAR && slots_fit(level, site->kinds, site->nargs))
        __atomic_store_n(&site->scalar_copy, copy, __ATOMIC_RELEASE);
    return ready;
}

/* Reserves a record of a prepared site and writes its header; NULL when
 * the message is dropped. */
static inline __attribute__((always_inline)) xlog_record *
begin_site_record(xlog_ring *r, xlog_impl_site *site, uint64_t size, int level, unsigned flags,
                  uint64_t *pos)
{
    char *p = ring_reserve(r, size, pos);
    if (!p)
        return NULL;
    xlog_record *rec = (xlog_record *)p;
    rec->tsc = begin_record();
    rec->size = (uint32_t)size;
    write_suppressed(rec, site, flags);
    rec->type = XLOG_REC_SITE;
    rec->level = (uint8_t)level;
    rec->flags = (uint8_t)flags;
    rec->nargs = site->nargs;
    /* Atomic, as in xlog_impl_log_captured: another thread's first call may
     * be setting it (site_copy_of) while this one, which found it set,
     * reads it. */
    rec->site = __atomic_load_n(&site->copy, __ATOMIC_RELAXED);
    return rec;
}

/* Everything but the shortest path: a thread's first message, a site's
 * first use, string arguments, the end of a lap, a full ring, a closed
 * logger. */
static __attribute__((noinline)) void log_general(xlog_impl_site *site, int level, const char *fmt,
                                                  int caller_errno, va_list ap)
{
    xlog_ring *r = ring_for_call();
    if (!r)
        return;
    int state = __atomic_load_n(&site->state, __ATOMIC_ACQUIRE);
    if (!((state == XLOG_SITE_SCALAR || state == XLOG_SITE_READY) && site->format == fmt) &&
        !site_prepare(site, fmt, level)) {
        log_dynamic(r, site, copy_to_name(site), level, site->file, site->line, site->func, fmt,
                    caller_errno, ap);
        return;
    }
    unsigned flags = call_flags(level);
    uint64_t size = site->fixed_size;
    uint32_t lens[XLOG_MAX_ARGS];
    /* Atomic: another thread's first call may be trying the site's state. */
    if (__atomic_load_n(&site->state, __ATOMIC_RELAXED) == XLOG_SITE_READY) { /* strings */
        va_list measure;
        va_copy(measure, ap);
        size = sizeof(xlog_record) + xlog_record_measure_args(site->kinds, site->nargs, NULL,
                                                     message_budget(r), measure, lens, &flags);
        va_end(measure);
    }
    size = xlog_align8(size + suppressed_size(flags));
    uint64_t pos;
    xlog_record *rec = begin_site_record(r, site, size, level, flags, &pos);
    if (!rec)
        return;
    xlog_tsan_acquire(&r->tail);
    xlog_record_encode_args((char *)(rec + 1), site->kinds, site->nargs, lens, caller_errno, ap);
    xlog_tsan_release(&r->head);
    publish_record(r, pos, size);
}

/* The log call.  The shortest path (a known site without strings, room
 * before the end of the lap) is written out here so that it needs no other
 * call. */
XLOG_API void xlog_impl_log(xlog_impl_site *site, int level, const char *fmt, ...)
{
    if (UNLIKELY(nested_call())) {
        drop_nested();
        return;
    }
    xlog_enter();
    va_list ap;
    va_start(ap, fmt);
    const xlog_site_copy *scalar;
    if (LIKELY((scalar = __atomic_load_n(&site->scalar_copy, __ATOMIC_ACQUIRE)) != NULL) &&
        LIKELY(site->format == fmt)) {
        uint64_t size = site->fixed_size, pos;
        xlog_ring *r = room_for(size, &pos);
        if (LIKELY(r != NULL)) {
            xlog_record *rec = record_at(r, pos);
            rec->tsc = begin_record();
            rec->size = (uint32_t)size;
            rec->type = XLOG_REC_SITE;
            rec->level = (uint8_t)level;
            rec->flags = (uint8_t)call_flags(level);
            rec->nargs = site->nargs;
            rec->site = scalar;
            xlog_record_encode_args((char *)(rec + 1), site->kinds, site->nargs, NULL, 0, ap); /* no %m here */
            publish_record(r, pos, size);
            va_end(ap);
            xlog_leave();
            return;
        }
    }
    /* Nothing above calls anything, so errno is still the caller's. */
    log_general(site, level, fmt, errno, ap);
    va_end(ap);
    xlog_leave();
}

/* ---- the call captured at its site ---------------------------------------
 *
 * Compiled as C11, a call site whose arguments are all scalars (no string,
 * no long double) and at most XLOG_MAX_SLOTS turns each argument into an
 * 8-byte slot by its type, at compile time (xlog.h, "Capture at the call
 * site"), and, once its site is ready, calls xlog_impl_log_<n> with the
 * slots: no va_list, no decision per argument at run time; the record's
 * size and its argument count are constants of each function.
 *
 * The record is byte for byte the one xlog_impl_log writes (same header,
 * the site's copy with the kinds from the format's parse, 8-byte
 * arguments), so the back end, recovery and the survival dictionary do not
 * know the difference.  That holds because the site is ready only when the
 * kinds take the slots as they are (slots_fit, on the site's first call,
 * made through xlog_impl_log with the slot classes on its level): anything
 * else -Wformat lets through or cannot see (%m, which reads no argument;
 * %lc, zero-extended; a long where %d reads an int; more or fewer
 * conversions than arguments) leaves the site unready, and its call site
 * keeps calling xlog_impl_log, which reads the arguments by the kinds as
 * before.  A '*' width or precision is an int slot like any other; %n's
 * pointer is a pointer slot.  So these functions never see a site they
 * cannot write, and their general path (a thread's first message, another
 * epoch, a full ring, the end of a lap, a closed logger) writes the slots
 * as they are, through the same reservation as log_general. */

/* Everything but the shortest path, for a site ready for its slots. */
static __attribute__((noinline)) void log_slots_general(xlog_impl_site *site, int level,
                                                        const uint64_t *slots, int n)
{
    xlog_ring *r = ring_for_call();
    if (!r)
        return;
    uint64_t pos;
    xlog_record *rec = begin_site_record(r, site, site->fixed_size, level, call_flags(level), &pos);
    if (!rec)
        return;
    xlog_tsan_acquire(&r->tail);
    xlog_record_encode_slots((char *)(rec + 1), slots, n);
    xlog_tsan_release(&r->head);
    publish_record(r, pos, site->fixed_size);
}

/* The shortest path of a ready site's call with n slots, written out as in
 * xlog_impl_log, with the record's size a constant; 0 if the call must
 * take log_slots_general.  level holds the record's level and flags only
 * (XLOG_IMPL_RECORD_BITS). */
static inline __attribute__((always_inline)) int log_slots_fast(xlog_impl_site *site, int level,
                                                                const uint64_t *slots, int n)
{
    const uint64_t size = sizeof(xlog_record) + 8 * (uint64_t)n;
    uint64_t pos;
    xlog_ring *r = room_for(size, &pos);
    if (UNLIKELY(r == NULL))
        return 0;
    xlog_record *rec = record_at(r, pos);
    rec->tsc = begin_record();
    rec->size = (uint32_t)size;
    rec->type = XLOG_REC_SITE;
    rec->level = (uint8_t)level;
    rec->flags = (uint8_t)(level >> 8);
    rec->nargs = (uint8_t)n;
    /* Set before the call site could call here (xlog.h). */
    rec->site = __atomic_load_n(&site->scalar_copy, __ATOMIC_RELAXED);
    xlog_record_encode_slots((char *)(rec + 1), slots, n);
    publish_record(r, pos, size);
    return 1;
}

/* The functions a call site calls with its slots.  The slots are given to
 * the fast path and to the general one in arrays of their own, so that
 * the fast path stores the registers where they go, and only the general
 * path puts them on the stack. */
XLOG_API void xlog_impl_log_0(xlog_impl_site *site, int level)
{
    if (UNLIKELY(nested_call())) {
        drop_nested();
        return;
    }
    xlog_enter();
    if (!log_slots_fast(site, level, NULL, 0))
        log_slots_general(site, level, NULL, 0);
    xlog_remember_pass(site, level);
    xlog_leave();
}

/* xlog_impl_log_<n>: parameters is the list of the n slots' parameters,
 * in parentheses, and the arguments name them. */
#define SLOTS_ENTRY(n, parameters, ...)                                                     \
    XLOG_API void xlog_impl_log_##n(xlog_impl_site *site, int level, LIST parameters)      \
    {                                                                                       \
        if (UNLIKELY(nested_call())) {                                                       \
            drop_nested();                                                                  \
            return;                                                                         \
        }                                                                                   \
        xlog_enter();                                                                       \
        if (!log_slots_fast(site, level, (const uint64_t[]){__VA_ARGS__}, n)) {             \
            const uint64_t slots[] = {__VA_ARGS__};                                         \
            log_slots_general(site, level, slots, n);                                       \
        }                                                                                   \
        xlog_remember_pass(site, level);                                                    \
        xlog_leave();                                                                       \
    }
#define LIST(...) __VA_ARGS__
SLOTS_ENTRY(1, (uint64_t a0), a0)
SLOTS_ENTRY(2, (uint64_t a0, uint64_t a1), a0, a1)
SLOTS_ENTRY(3, (uint64_t a0, uint64_t a1, uint64_t a2), a0, a1, a2)
SLOTS_ENTRY(4, (uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3), a0, a1, a2, a3)
SLOTS_ENTRY(5, (uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4), a0, a1, a2, a3, a4)
SLOTS_ENTRY(6, (uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5), a0, a1, a2, a3, a4, a5)
SLOTS_ENTRY(7, (uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5, uint64_t a6), a0, a1, a2, a3, a4, a5, a6)
SLOTS_ENTRY(8, (uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5, uint64_t a6, uint64_t a7), a0, a1, a2, a3, a4, a5, a6, a7)
#undef LIST
#undef SLOTS_ENTRY

/* A call of a rate-limited site that passed its limit: its record carries
 * the count of the calls suppressed before it (log_general). */
XLOG_API void xlog_impl_log_rated(xlog_impl_site *site, int level, const char *fmt, ...)
{
    int caller_errno = errno;
    if (UNLIKELY(nested_call())) {
        drop_nested();
        return;
    }
    xlog_enter();
    va_list ap;
    va_start(ap, fmt);
    log_general(site, level, fmt, caller_errno, ap);
    va_end(ap);
    xlog_leave();
}

/* Rate limits measure time with the configuration's wall clock when it has
 * one (tests), else with the coarse monotonic clock (a few nanoseconds, a
 * few milliseconds of resolution: enough for limits in milliseconds). */
static uint64_t rate_clock_ns(void)
{
    int64_t (*wall)(void) = xlog_load(&xlog_front.wall_clock_ns);
    if (wall)
        return (uint64_t)wall();
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

XLOG_API int xlog_impl_every_ms(xlog_impl_site *site, unsigned long ms)
{
    uint64_t now = rate_clock_ns() | 1; /* 0 means "never written" */
    uint64_t last = __atomic_load_n(&site->rate_state, __ATOMIC_RELAXED);
    if ((last == 0 || now - last >= (uint64_t)ms * 1000000u) &&
        __atomic_compare_exchange_n(&site->rate_state, &last, now, 0, __ATOMIC_RELAXED,
                                    __ATOMIC_RELAXED))
        return 1;
    __atomic_fetch_add(&site->suppressed, 1, __ATOMIC_RELAXED);
    return 0;
}

XLOG_API void xlog_dump_backtrace(void)
{
    if (UNLIKELY(nested_call()))
        return;
    xlog_enter();
    xlog_ring *r = ring_for_call();
    uint64_t pos;
    char *p = r ? ring_reserve(r, sizeof(xlog_record), &pos) : NULL;
    if (p) {
        xlog_record *rec = (xlog_record *)p;
        rec->tsc = begin_record();
        rec->size = sizeof(xlog_record);
        rec->type = XLOG_REC_DUMP;
        rec->level = XLOG_INFO;
        rec->flags = 0;
        rec->nargs = 0;
        rec->site = NULL;
        publish_record(r, pos, sizeof(xlog_record));
    }
    xlog_leave();
}

/* ---- context (xlog.h, "Context") ------------------------------------------
 * The thread's context lives here, in its own memory, as record/context.h's
 * bytes; each change writes the whole new context into the thread's ring
 * as one record, which the back end reads in its place among the thread's
 * records (backend.c, "Context").  So the log calls never look at it.  A
 * thread that gets a new ring (its first call in an xlog_open, after the
 * back end retired its idle ring, in the child of a fork) writes its
 * context there first.  Every change is made inside the thread's in-call
 * mark: a signal handler's call meanwhile is dropped (xlog_inside), or,
 * written in the program's code, goes before the change. */
static __thread struct {
    uint32_t length; /* 0: none */
    char bytes[XLOG_CONTEXT_BYTES_MAX];
} my_context;

/* The thread's context as one record at the ring's write position.  A
 * change dropped would leave every later line with a wrong context, so it
 * waits for room whatever full_policy says (writing_context). */
static void write_context(xlog_ring *r)
{
    uint32_t length = my_context.length ? my_context.length : 4;
    uint64_t size = xlog_align8(sizeof(xlog_record) + length), pos;
    writing_context = 1;
    char *p = ring_reserve(r, size, &pos);
    writing_context = 0;
    if (!p)
        return;
    xlog_record *rec = (xlog_record *)p;
    rec->tsc = begin_record();
    rec->size = (uint32_t)size;
    rec->type = XLOG_REC_CONTEXT;
    rec->level = XLOG_INFO;
    rec->flags = 0;
    rec->nargs = 0;
    rec->site = NULL;
    memset(p + size - 8, 0, 8); /* the padding after the bytes */
    if (my_context.length)
        memcpy(rec + 1, my_context.bytes, length);
    else
        memset(rec + 1, 0, 4); /* no pairs */
    publish_record(r, pos, size);
}

static void context_to_new_ring(xlog_ring *r)
{
    if (my_context.length)
        write_context(r);
}

/* Keys xlog's JSON lines have as attributes of their own. */
static int reserved_key(const char *key)
{
    static const char *const own[] = {"code.filepath", "code.lineno", "code.function",
                                      "thread.id",     "thread.name", "process.pid",
                                      "xlog.module"};
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
        if (strcmp(key, own[i]) == 0)
            return 1;
    return 0;
}

/* The index of key's pair in c, or c->count when it has none. */
static uint32_t pair_of(const xlog_context *c, const char *key, size_t key_length)
{
    uint32_t i = 0;
    while (i < c->count && (c->pairs[i].key_length != key_length ||
                            memcmp(c->pairs[i].key, key, key_length) != 0))
        i++;
    return i;
}

/* Makes c the thread's context and tells the ring, if the thread has one
 * of this xlog_open (else its next ring is told: context_to_new_ring). */
static void context_commit(const xlog_context *c)
{
    char bytes[XLOG_CONTEXT_BYTES_MAX];
    uint32_t length = c->count ? (uint32_t)(xlog_context_write(bytes, c) - bytes) : 0;
    memcpy(my_context.bytes, bytes, length);
    my_context.length = length;
    xlog_ring *r = my_ring();
    uint64_t epoch = xlog_load_acquire(&xlog_front.epoch);
    if (r && epoch && xlog_load(&r->epoch) == epoch)
        write_context(r);
}

/* The thread's context now, its pairs in my_context. */
static void context_now(xlog_context *c)
{
    c->id = 0;
    if (!my_context.length || xlog_context_read(my_context.bytes, my_context.length, c) != 0)
        c->count = 0;
}

XLOG_API int xlog_context_vset(const char *key, const char *fmt, va_list args)
{
    if (!key || !fmt || !*key || reserved_key(key))
        return -EINVAL;
    size_t key_length = strnlen(key, XLOG_CONTEXT_MAX_KEY + 1);
    if (key_length > XLOG_CONTEXT_MAX_KEY)
        return -E2BIG;
    char value[XLOG_CONTEXT_MAX_VALUE + 1];
    int value_length = vsnprintf(value, sizeof value, fmt, args);
    if (value_length < 0)
        return -EINVAL;
    if (value_length > XLOG_CONTEXT_MAX_VALUE)
        return -E2BIG;
    if (nested_call())
        return -EBUSY;
    xlog_enter();
    xlog_context c;
    context_now(&c);
    uint32_t i = pair_of(&c, key, key_length);
    int rc = 0;
    if (i == XLOG_CONTEXT_MAX_PAIRS) {
        rc = -ENOSPC;
    } else {
        c.pairs[i] = (xlog_context_pair){key, value, (uint32_t)key_length,
                                         (uint32_t)value_length};
        c.count += i == c.count;
        context_commit(&c);
    }
    xlog_leave();
    return rc;
}

XLOG_API int xlog_context_set(const char *key, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    int rc = xlog_context_vset(key, fmt, args);
    va_end(args);
    return rc;
}

XLOG_API int xlog_context_clear(const char *key)
{
    if (nested_call())
        return -EBUSY;
    xlog_enter();
    xlog_context c;
    context_now(&c);
    int rc = 0;
    uint32_t before = c.count;
    if (!key) {
        c.count = 0;
    } else {
        uint32_t i = pair_of(&c, key, strlen(key));
        if (i == c.count) {
            rc = -ENOENT;
        } else {
            memmove(&c.pairs[i], &c.pairs[i + 1], (c.count - i - 1) * sizeof c.pairs[0]);
            c.count--;
        }
    }
    if (c.count != before) /* else nothing to tell the ring */
        context_commit(&c);
    xlog_leave();
    return rc;
}

XLOG_API void xlog_impl_log_dynamic(xlog_impl_site *site, int level, const char *fmt, ...)
{
    int caller_errno = errno; /* for %m, before a first call's allocations change it */
    if (UNLIKELY(nested_call())) {
        drop_nested();
        return;
    }
    xlog_enter();
    /* Its first call: the site's file, function and line go into the
     * dictionary of survival.h (its format varies: the records carry it),
     * before the state lets another thread's record name it; a thread that
     * comes while that is being done adds the names itself. */
    int state = __atomic_load_n(&site->state, __ATOMIC_ACQUIRE);
    if (UNLIKELY(state == XLOG_SITE_NEW) &&
        __atomic_compare_exchange_n(&site->state, &state, XLOG_SITE_PARSING, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE)) {
        xlog_site_copy *copy = site_copy_of(site);
        if (copy)
            xlog_survival_add_site(copy);
        /* Without memory for the copy, the next call tries again. */
        __atomic_store_n(&site->state, copy ? XLOG_SITE_DYNAMIC : XLOG_SITE_NEW, __ATOMIC_RELEASE);
    } else if (UNLIKELY(state == XLOG_SITE_PARSING)) {
        note_site_being_prepared(site);
    }
    xlog_ring *r = ring_for_call();
    if (r) {
        va_list ap;
        va_start(ap, fmt);
        log_dynamic(r, site, copy_to_name(site), level, site->file, site->line, site->func, fmt,
                    caller_errno, ap);
        va_end(ap);
    }
    xlog_leave();
}

/* A call without a call site (xlog's notices, xlogout): the format is
 * parsed now and the names are copied into the record. */
static void log_without_site(int level, const char *file, int line, const char *func,
                             const char *format, int caller_errno, va_list ap)
{
    if (UNLIKELY(nested_call())) {
        drop_nested();
        return;
    }
    xlog_enter();
    xlog_ring *r = ring_for_call();
    if (r)
        log_dynamic(r, NULL, NULL, level, file, line, func, format, caller_errno, ap);
    xlog_leave();
}

void xlog_notice(const char *format, ...)
{
    int caller_errno = errno;
    va_list ap;
    va_start(ap, format);
    log_without_site(XLOG_WARN, "xlog", 0, "xlog", format, caller_errno, ap);
    va_end(ap);
}

XLOG_API void xlogout(unsigned int type, const char *file, int line, const char *func,
                      const char *format, ...)
{
    int caller_errno = errno; /* for %m, before a first call's allocations change it */
    /* A level outside TRACE..FATAL is carried to the back end, which refuses
     * and counts it (see xlog.h). */
    int level = type > XLOG_FATAL ? XLOG_IMPL_LEVEL_INVALID : (int)type;
    if (level <= XLOG_FATAL && !xlog_enabled(level))
        return;
    va_list ap;
    va_start(ap, format);
    log_without_site(level, file ? file : "?", line, func ? func : "?", format, caller_errno, ap);
    va_end(ap);
}

/* ---- strings captured at the call site -----------------------------------
 *
 * A call site whose arguments are scalars and strings (C11: xlog.h,
 * "Strings captured at the call site"; C++: any call of at most
 * XLOG_MAX_SLOTS arguments) knows each argument's class at compile time,
 * measures its strings itself (strlen, or a std::string's size) and passes
 * an array of xlog_impl_arg, once xlog_impl_prepare_captured has found
 * that the format's kinds take the arguments one for one.  The record is
 * byte for byte the one xlog_impl_log writes for the same call: strings as
 * a u32 length and the bytes (XLOG_NULL_STRING for NULL), cut at the
 * message budget with XLOG_REC_TRUNCATED exactly as
 * xlog_record_measure_args cuts them; scalars as their 8 bytes.  No
 * va_list, no parse, and the strings are read once, by the copy. */

/* Whether arguments of this shape (xlog.h, xlog_impl_arg) are, one for one,
 * what the site's kinds read: a plain %s for a string (no %ls, no '*'
 * precision: a fixed one made the site dynamic), a fitting slot for a
 * scalar (xlog_record_slot_fits), as many conversions as arguments. */
static int shape_fits(const xlog_impl_site *site, uint32_t shape)
{
    for (int i = 0; i < site->nargs; i++, shape >>= 4) {
        unsigned arg_class = shape & 15;
        int kind = site->kinds[i];
        if (arg_class == XLOG_IMPL_ARG_STRING ? kind != XLOG_ARG_STR
                                              : !xlog_record_slot_fits(kind, (int)arg_class))
            return 0; /* also a conversion with no argument left */
    }
    return shape == 0; /* and no argument without its conversion */
}

/* The level site_prepare expects of a call with slots (slots_fit): the
 * classes of an all-scalar shape, 2 bits each; nothing for one with
 * strings (site_prepare then leaves scalar_copy to the format alone, as
 * for a C99 call). */
static int slotted_level(uint32_t shape)
{
    if (shape & XLOG_IMPL_SHAPE_STRINGS)
        return 0;
    unsigned classes = 0;
    for (int i = 0; shape; i++, shape >>= 4)
        classes |= (shape & 3) << (2 * i);
    return XLOG_IMPL_SLOTTED | (int)(classes << XLOG_IMPL_SLOT_SHIFT);
}

XLOG_API int xlog_impl_prepare_captured(xlog_impl_site *site, const char *fmt, uint32_t shape)
{
    if (UNLIKELY(nested_call()))
        return 0; /* the variable-argument call that follows drops it */
    xlog_enter();
    int state = __atomic_load_n(&site->state, __ATOMIC_ACQUIRE);
    /* While xlog is closed the site stays new, as log_general leaves it. */
    if (state == XLOG_SITE_NEW && xlog_load_acquire(&xlog_front.epoch) != 0) {
        site_prepare(site, fmt, slotted_level(shape));
        state = __atomic_load_n(&site->state, __ATOMIC_ACQUIRE);
    }
    int ready = 0;
    if (state != XLOG_SITE_NEW && state != XLOG_SITE_PARSING && site->format == fmt) {
        /* An all-scalar shape (C++) takes xlog_impl_log_<n>, whose record
         * names scalar_copy. */
        ready = (state == XLOG_SITE_READY || state == XLOG_SITE_SCALAR) &&
                shape_fits(site, shape) &&
                ((shape & XLOG_IMPL_SHAPE_STRINGS) ||
                 __atomic_load_n(&site->scalar_copy, __ATOMIC_ACQUIRE) != NULL);
        __atomic_store_n(&site->captured_shape, ready ? shape : XLOG_IMPL_SHAPE_NEVER,
                         __ATOMIC_RELEASE);
    }
    xlog_leave();
    return ready;
}

/* The bytes the arguments take in the record (strings cut at budget) and
 * each string's length as written (lens, by argument); sets
 * XLOG_REC_TRUNCATED in *flags when one was cut, as
 * xlog_record_measure_args does. */
static uint64_t captured_size(uint32_t shape, const xlog_impl_arg *args, size_t budget,
                              uint32_t *lens, unsigned *flags)
{
    uint64_t bytes = 0;
    for (int i = 0; shape; i++, shape >>= 4) {
        if (!(shape & XLOG_IMPL_ARG_STRING)) {
            bytes += 8;
            continue;
        }
        size_t n = args[i].length;
        if (args[i].value == 0) {
            lens[i] = XLOG_NULL_STRING;
            bytes += 4;
            continue;
        }
        if (n > budget) {
            n = budget;
            *flags |= XLOG_REC_TRUNCATED;
        }
        budget -= n;
        lens[i] = (uint32_t)n;
        bytes += 4 + n;
    }
    return bytes;
}

/* Writes the arguments: a string as its length (lens[i], or
 * XLOG_NULL_STRING) and its bytes, a scalar as its slot. */
static void encode_captured(char *out, uint32_t shape, const xlog_impl_arg *args,
                            const uint32_t *lens)
{
    for (int i = 0; shape; i++, shape >>= 4) {
        if (!(shape & XLOG_IMPL_ARG_STRING)) {
            memcpy(out, &args[i].value, 8);
            out += 8;
            continue;
        }
        memcpy(out, &lens[i], 4);
        out += 4;
        if (lens[i] != XLOG_NULL_STRING) {
            memcpy(out, (const char *)(uintptr_t)args[i].value, lens[i]);
            out += lens[i];
        }
    }
}

/* The same when nothing is cut: each string's length is the one the call
 * site measured. */
static inline __attribute__((always_inline)) void
encode_captured_whole(char *out, uint32_t shape, const xlog_impl_arg *args)
{
    do {
        uint64_t value = args->value;
        if (!(shape & XLOG_IMPL_ARG_STRING)) {
            memcpy(out, &value, 8);
            out += 8;
        } else if (value) {
            uint32_t n = (uint32_t)args->length;
            memcpy(out, &n, 4);
            xlog_impl_copy_text(out + 4, (const char *)(uintptr_t)value, n);
            out += 4 + n;
        } else {
            uint32_t null = XLOG_NULL_STRING;
            memcpy(out, &null, 4);
            out += 4;
        }
        args++;
        shape >>= 4;
    } while (shape);
}

/* Everything but the shortest path: as log_general, the strings cut at
 * the budget. */
static __attribute__((noinline)) void log_captured_general(xlog_impl_site *site, int level,
                                                           uint32_t shape,
                                                           const xlog_impl_arg *args)
{
    xlog_ring *r = ring_for_call();
    if (!r)
        return;
    uint32_t lens[XLOG_MAX_SLOTS];
    unsigned flags = call_flags(level);
    uint64_t size = xlog_align8(sizeof(xlog_record) +
                                captured_size(shape, args, message_budget(r), lens, &flags) +
                                suppressed_size(flags));
    uint64_t pos;
    xlog_record *rec = begin_site_record(r, site, size, level, flags, &pos);
    if (!rec)
        return;
    xlog_tsan_acquire(&r->tail);
    encode_captured((char *)(rec + 1), shape, args, lens);
    xlog_tsan_release(&r->head);
    publish_record(r, pos, size);
}

/* bytes: what the arguments take uncut (xlog_impl_log_captured_args): when
 * the budget holds them all, nothing is cut and the record's size is
 * known without looking at them. */
XLOG_API void xlog_impl_log_captured(xlog_impl_site *site, int level, uint32_t shape,
                                     const xlog_impl_arg *args, size_t bytes)
{
    if (UNLIKELY(nested_call())) {
        drop_nested();
        return;
    }
    xlog_enter();
    xlog_ring *r = my_ring();
    unsigned flags = call_flags(level);
    if (LIKELY(r != NULL) && LIKELY(bytes <= message_budget(r)) &&
        LIKELY(!(flags & XLOG_REC_RATED))) {
        uint64_t size = xlog_align8(sizeof(xlog_record) + bytes), pos;
        if (LIKELY((r = room_for(size, &pos)) != NULL)) {
            xlog_record *rec = record_at(r, pos);
            rec->tsc = begin_record();
            rec->size = (uint32_t)size;
            rec->type = XLOG_REC_SITE;
            rec->level = (uint8_t)level;
            rec->flags = (uint8_t)flags;
            rec->nargs = site->nargs;
            /* Atomic: a racing first call's site_copy_of may still try
             * to set it (and fail: it was set before the site was ready). */
            rec->site = __atomic_load_n(&site->copy, __ATOMIC_RELAXED);
            encode_captured_whole((char *)(rec + 1), shape, args);
            publish_record(r, pos, size);
            xlog_remember_pass(site, level);
            xlog_leave();
            return;
        }
    }
    log_captured_general(site, level, shape, args);
    xlog_remember_pass(site, level);
    xlog_leave();
}
