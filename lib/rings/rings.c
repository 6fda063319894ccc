/*
 * rings.c - where rings come from and where they go: the registry the back
 * end drains, a pool of rings kept for new threads, and the memory of each
 * ring (see ring.h, "Laps").
 *
 * Why a pool: a thread's first message needs a ring, and a program that
 * starts many short-lived threads would otherwise map, populate and unmap
 * one per thread.  A ring whose thread has ended goes back to the pool once
 * the back end has written everything in it (xlog_ring_retire), its first
 * laps still in memory (and in its file); the next new thread takes it with
 * one lock and no system call for its memory.  So do threads that are new
 * and many while no thread ends: the back end keeps a few spare rings in
 * the pool for them (see "Spares").
 *
 * Memory: a ring is one mapping, a header page (the xlog_ring) followed by
 * the buffer.  The mapping reserves ring_size but only the pages the
 * producer's laps reach are in memory (ring.h, "Laps"); the back end
 * populates a little ahead of them, so the caller seldom takes a page fault.
 *
 * Room: a ring in a shared memory file (lib/survival) must never have a
 * page written that the file does not have: the kernel would answer with
 * SIGBUS when the file system is full.  So its producer writes only below
 * populated, the bytes of the buffer whose pages are in the file, and a
 * ring costs /dev/shm only for the laps its thread has used:
 *   - made (on its thread's first call, which makes system calls anyway),
 *     or taken from the pool: twice its first lap is reserved, what the
 *     back end would populate at its next pass anyway;
 *   - the back end populates ahead of the laps as for any ring (with
 *     MADV_POPULATE_WRITE, which fails with EFAULT, not SIGBUS, when the
 *     file system is full: populated then stays where it was);
 *   - a lap that doubles beyond populated (a burst faster than the back
 *     end's passes) has its pages reserved by the producer itself first, in
 *     the call that lengthens it: a system call, but at most once per
 *     doubling (six from 16 KiB to 1 MiB), and only where the back end
 *     was not ahead.  Without room the lap stays as it is, and the
 *     producer waits or drops as with a full ring of that size
 *     (xlog_counters.laps_not_grown);
 *   - pages given back (a pooled ring, a trimmed one) are holes in the file
 *     again: populated goes down with them.
 * Both ends raise populated (a compare-and-swap: a value is only ever
 * stored by who has just reserved everything below it); only the back end
 * lowers it, when no call can write above it.  A kernel without
 * MADV_POPULATE_WRITE has the whole buffer reserved when the ring is made.
 * A ring whose first room cannot be had is made in anonymous memory
 * (counted: xlog_counters.not_persistent).
 *
 * Idle rings: a ring whose laps grew in a burst keeps those pages while its
 * thread logs.  When it has been empty and still for IDLE_NS, the back end
 * retires it: it sets the ring's epoch to 0, so the thread's next message
 * takes a small ring from the pool (and hands this one back at its next
 * change of ring or when it ends, to be drained and recycled: frontend.c,
 * ring_for_this_thread).  Only a call that had already read the old epoch
 * can still write here, and only one: a thread's calls follow each other,
 * and its next one reads the epoch again.  After IDLE_NS more without a new
 * record, the back end gives back every page but the two windows that one
 * call could write: at the write position, and at the start of the buffer
 * (if its lap ends there).  So an idle thread costs a few pages, and no page is
 * ever taken from under a record being written.
 *
 * Spares: making a ring in a file costs a thread's first call some 60 us
 * (openat, ftruncate, mmap, MADV_POPULATE_WRITE, close), more than the rest
 * of that call.  So the back end keeps SPARES rings ready in the pool, of
 * the ring_size in force, in a file of this xlog_open's survival directory
 * when there is one (else anonymous), their first laps reserved: it makes
 * them at its first pass and whenever a pass finds the pool below SPARES,
 * outside the registry lock.  A spare whose file cannot have its first
 * laps is not made (nor counted in xlog_counters.not_persistent: no thread
 * uses it), and the back end tries again 100 ms later; meanwhile a first
 * call makes its ring as without spares (in anonymous memory, counted, if
 * the file has no room).  A first call that leaves the pool with half
 * of them or fewer wakes it (a system call, on a call that makes some
 * anyway), so that it refills the pool while the next thread is started;
 * one that finds the pool empty makes its own ring, as without spares.
 * A spare is a pooled ring like any other: unlisted, so neither drained
 * nor trimmed; unmapped (its file removed) by xlog_close or in the child of
 * fork(); and a ring file with no record for recovery.
 *
 * Names: xlog cannot see pthread_setname_np (nor prctl PR_SET_NAME), so a
 * ring keeps the name its thread had when it took the ring (read by the
 * thread itself, PR_GET_NAME, in a call that makes system calls anyway),
 * and the back end reads every living thread's name again from
 * /proc/self/task/<tid>/comm at the end of each xlog_flush() and once a
 * second (xlog_ring_read_name); so the caller pays nothing per call.  The
 * name is in the ring's header page, which is in its file: recovery shows
 * the last name the back end knew.
 *
 * Waiting for room: a thread whose ring is full (XLOG_FULL_BLOCK) sleeps on
 * a futex of its ring until the back end has given back room, rather than
 * polling for it: with more threads than cores, polling threads (yielding,
 * or waking from short sleeps to look) take the cores, and the timer
 * interrupts, from the one thread that can make room.  The thread says
 * which tail it waits for (room_awaited), then reads the tail once more
 * and sleeps only if it is still short; the back end, after each store to
 * the tail, reads room_awaited and wakes the thread once the tail has
 * reached it (xlog_ring_set_tail: each side's store is ordered before its
 * load, so no wake is lost).  The thread asks for half its ring or
 * what its record needs, whichever is more: a woken thread then logs a
 * half ring in one go, and the back end makes a system call per half ring
 * of a full thread, not at each of its releases of room.  The sleep is
 * bounded (frontend.c, wait_for_room), so that a wake that cannot come (a
 * closed logger whose last flush is over) costs a short wait, not a hang.
 *
 * Life of a ring:
 *   made by the back end as a spare, or by a thread's first message that
 *     finds the pool empty;
 *   taken by a thread's first message (or its first after an xlog_open):
 *     from the pool or newly mapped, then listed in xlog_rings.rings;
 *   while the thread lives: drained by the back end every pass;
 *   the thread ends: marked exited; the back end writes what is left,
 *     unlists it and puts it in the pool;
 *   xlog_close: the listed rings become stale (xlog_rings.stale); each
 *     thread takes a new ring at its next message, and gives the stale one
 *     back at its change of ring after that or when it ends (frontend.c,
 *     ring_for_this_thread).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/atomics.h"
#include "base/doorbell.h"
#include "base/settings.h"
#include "record/record.h"
#include "rings/rings.h"
#include "shm/shm.h"

/* Rings kept for new threads; beyond this they are unmapped. */
#define POOL_MAX 64
/* Rings the back end keeps ready in the pool (see "Spares" above): enough
 * for a few threads started one after the other between two of its passes
 * (a file ring takes it some 60 us to make), few enough that an idle
 * process keeps little: each has its header page and first laps in memory
 * (a little over 36 KiB), and in /dev/shm when persistent. */
#define SPARES 4
/* A ring empty and still for this long is retired, and after as long again,
 * trimmed (see "Idle rings" above). */
#define IDLE_NS 2000000000.0

xlog_registry xlog_rings = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Threads taking their first rings at once may all ask: atomic, so that
 * they agree without a lock (they all store the same value). */
static size_t page_size(void)
{
    static size_t size;
    size_t known = __atomic_load_n(&size, __ATOMIC_RELAXED);
    if (!known) {
        long p = sysconf(_SC_PAGESIZE);
        known = p > 0 ? (size_t)p : 4096;
        __atomic_store_n(&size, known, __ATOMIC_RELAXED);
    }
    return known;
}

static size_t header_size(void)
{
    size_t page = page_size();
    return sizeof(xlog_ring) <= page ? page : (sizeof(xlog_ring) + page - 1) / page * page;
}

static uint64_t round_to_page(uint64_t n)
{
    uint64_t page = page_size();
    return (n + page - 1) / page * page;
}

/* The bytes of a buffer of capacity bytes that a producer whose laps end
 * at lap_end may write: the lap, and the padding record that ends it, which
 * starts at lap_end when a record ended there. */
static uint64_t reach(uint64_t capacity, uint64_t lap_end)
{
    uint64_t end = round_to_page(lap_end) + page_size();
    return end < capacity ? end : capacity;
}

/* The bytes of the buffer a ring should have in memory: what twice its
 * laps reach, so that the next doubling finds its pages ready. */
static uint64_t wanted_in_memory(const xlog_ring *r, uint64_t lap_end)
{
    return reach(r->capacity, 2 * (lap_end > XLOG_RING_MIN_LAP ? lap_end : XLOG_RING_MIN_LAP));
}

/* Makes [0, to) of the buffer populated: faults it in without touching its
 * bytes (the producer may be writing below populated), and for a ring in a
 * file, reserves it there (see "Room"); either end may call it.  0, or -1
 * when the file has no room (populated is then unchanged).  An anonymous
 * ring is only faulted in ahead of the producer, so a failure there
 * (EINVAL before Linux 5.14: the producer takes the page faults itself)
 * changes nothing. */
static int populate(xlog_ring *r, uint64_t to)
{
    uint64_t from = xlog_load_acquire(&r->populated);
    while (from < to) {
        if (xlog_survival_reserve(r->buffer + from, to - from) != 0 && r->generation)
            return -1;
        /* A failed exchange reads the new value: raised by the other end
         * (then only what is left above it), or lowered by a trim (then
         * the pages given back are reserved again). */
        if (__atomic_compare_exchange_n(&r->populated, &from, to, 0, __ATOMIC_RELEASE,
                                        __ATOMIC_ACQUIRE))
            break;
    }
    return 0;
}

uint64_t xlog_laps_not_grown;

int xlog_ring_room_for_lap(xlog_ring *r, uint64_t lap_end)
{
    uint64_t need = reach(r->capacity, lap_end);
    if (!r->generation || xlog_load_acquire(&r->populated) >= need || populate(r, need) == 0)
        return 1;
    xlog_add(&xlog_laps_not_grown, 1);
    return 0;
}

/* Gives back the pages of [from, from + size) of the buffer: a hole in a
 * shared file, or fresh zero pages for anonymous memory. */
static void give_back(xlog_ring *r, uint64_t from, uint64_t size)
{
    if (!size)
        return;
    if (r->generation)
        xlog_survival_discard(r->buffer + from, size);
    else
        madvise(r->buffer + from, size, MADV_DONTNEED);
}

/* Gives back the pages of the buffer from offset from on; nobody may write
 * there (the ring has no thread). */
static void discard(xlog_ring *r, uint64_t from)
{
    if (r->capacity > from)
        give_back(r, from, r->capacity - from);
    if (xlog_load(&r->populated) > from)
        xlog_store(&r->populated, from);
}

/* A ring in a file of the survival directory (lib/survival), so that what
 * the thread logged outlives the process; in anonymous memory when there is
 * no such directory.  A spare is in a file or not made (NULL) while there is
 * one: in anonymous memory it would be given to a thread as if the file had
 * no room, even once it has. */
static xlog_ring *ring_map(size_t capacity, int spare)
{
    size_t header = header_size();
    uint32_t slot = 0, generation = 0;
    size_t reserve = header + reach(capacity, 2 * XLOG_RING_MIN_LAP);
    void *p = NULL;
    if (!spare)
        p = xlog_survival_map("ring", header + capacity, &reserve, &slot, &generation);
    else if (xlog_survival_active() &&
             !(p = xlog_survival_try_map("ring", header + capacity, &reserve, &slot, &generation)))
        return NULL;
    if (!p) {
        reserve = header;
        generation = 0;
        p = mmap(NULL, header + capacity, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED)
            return NULL;
    }
    xlog_ring *r = p;
    r->slot = slot;
    r->generation = generation;
    r->buffer = (char *)p + header;
    r->mask = capacity - 1;
    r->map_size = header + capacity;
    /* Last: a file whose capacity is 0 is a ring never used (recovery's
     * never_used), and one with a capacity must have its mask, or an exec
     * or a kill of the process between the two stores leaves recovery a
     * ring it reports as damaged (test_survival, exec at a random moment). */
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    __atomic_store_n(&r->capacity, capacity, __ATOMIC_RELAXED);
    /* An anonymous ring has nothing populated here, on the caller's first
     * message: the back end does it ahead of the producer at its next pass
     * (xlog_ring_tend), and until then a page fault now and then costs
     * less than populating them all now.  A file has its first laps
     * reserved, in the call that made it (see "Room"). */
    r->populated = reserve - header;
    return r;
}

static void ring_unmap(xlog_ring *r)
{
    if (r->generation)
        xlog_survival_unmap(r, r->map_size, "ring", r->slot, r->generation);
    else
        munmap(r, r->map_size);
}

/* Where a ring's next thread starts: at the lap after the last record of
 * its previous thread, never back at 0.  A file buffer's journal names the
 * last line's ring by its file and the end of its record (survival.h,
 * "Exactly once"), and recovery takes every record of that ring ending
 * there or before for one already in the buffer: a pooled ring whose
 * positions started again at 0 had the new thread's first records taken
 * for the old thread's last one's, and lost at a kill.  A new lap keeps
 * pos & mask at 0, as for a new ring. */
static uint64_t next_thread_start(const xlog_ring *r)
{
    uint64_t end = xlog_load(&r->head);
    return (end + r->mask) & ~r->mask;
}

/* Makes r ready for the calling thread: empty, small laps, this epoch.
 * A kill may fall at any store here, and recovery must then find nothing
 * to read in it (its records are all buffered): head goes to 0 first, so
 * that it is behind the buffered position until the very last store. */
static void ring_reset(xlog_ring *r, uint64_t epoch)
{
    uint64_t start = next_thread_start(r);
    __atomic_store_n(&r->head, 0, __ATOMIC_SEQ_CST);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    /* Everything above the constant part goes back to zero, positions to
     * the start. */
    uint64_t populated = r->populated;
    memset(r, 0, offsetof(xlog_ring, buffer));
    r->populated = populated;
    r->write_pos = r->cached_tail = r->tail = r->read_pos = r->visible_end = r->idle_head = start;
    __atomic_store_n(&r->buffered, start, __ATOMIC_SEQ_CST);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    __atomic_store_n(&r->head, start, __ATOMIC_SEQ_CST);
    r->lap_end = XLOG_RING_MIN_LAP < r->capacity ? XLOG_RING_MIN_LAP : r->capacity;
    r->shared_lap_end = r->lap_end;
    r->epoch = epoch;
    r->tid = (int)syscall(SYS_gettid);
    /* After the memset: NUL-padded; an unnamed thread has its process's
     * name (the kernel's). */
    prctl(PR_GET_NAME, r->thread_name.text, 0, 0, 0);
    r->exited = 0;
    r->listed = 0;
    r->alt_stack = NULL;
    r->next = NULL;
}

static void unlink_from(xlog_ring **list, xlog_ring *r)
{
    for (xlog_ring **p = list; *p; p = &(*p)->next) {
        if (*p == r) {
            *p = r->next;
            return;
        }
    }
}

/* Moves r's counters into the registry's totals. */
static void take_counts_locked(xlog_ring *r)
{
    for (int i = 0; i < XLOG_DROP_REASONS; i++)
        xlog_rings.retired_dropped[i] += __atomic_exchange_n(&r->dropped[i], 0, __ATOMIC_RELAXED);
    xlog_rings.retired_blocked += __atomic_exchange_n(&r->blocked, 0, __ATOMIC_RELAXED);
}

/* Records published but never read: what a thread logged while xlog
 * closed (the back end's last pass was already over). */
static uint64_t count_unread(const xlog_ring *r)
{
    uint64_t unread = 0, end = xlog_load_acquire(&r->head);
    for (uint64_t pos = xlog_load(&r->tail); pos < end;) {
        const xlog_record *rec = (const xlog_record *)(r->buffer + (pos & r->mask));
        if (rec->size == 0)
            break;
        unread += rec->type != XLOG_REC_PAD && rec->type != XLOG_REC_CONTEXT;
        pos += rec->size;
    }
    return unread;
}

/* A ring nobody writes or reads any more, and no longer listed: its unread
 * records and its counters go into the totals, then it goes into the pool,
 * or is unmapped.  The system calls are made outside the lock. */
static void recycle(xlog_ring *r)
{
    /* A ring in a file of an earlier survival directory (xlog_close removed
     * it), or in anonymous memory while xlog has a survival directory (a
     * thread's ring from an xlog_open without persistence), would not
     * survive a kill: unmapped, never pooled. */
    int reusable = r->capacity == xlog_load(&xlog_front.ring_size) &&
                   (r->generation ? r->epoch == xlog_load(&xlog_front.epoch)
                                  : !xlog_survival_active());
    uint64_t unread = count_unread(r);
    if (reusable)
        discard(r, wanted_in_memory(r, XLOG_RING_MIN_LAP));
    pthread_mutex_lock(&xlog_rings.lock);
    take_counts_locked(r);
    xlog_rings.retired_dropped[XLOG_DROP_CLOSING] += unread;
    if (reusable && xlog_rings.free_count < POOL_MAX) {
        r->next = xlog_rings.free;
        xlog_rings.free = r;
        xlog_rings.free_count++;
        r = NULL;
    }
    pthread_mutex_unlock(&xlog_rings.lock);
    if (r)
        ring_unmap(r);
}

/* Whether a pooled ring has its first laps again: a ring in a file gave
 * back its pages beyond populated (see "Room"), and those its new thread
 * may write at once must be in the file again; on that thread's first
 * call. */
static int reserved_again(xlog_ring *r)
{
    return !r->generation || populate(r, wanted_in_memory(r, XLOG_RING_MIN_LAP)) == 0;
}

xlog_ring *xlog_ring_take(uint64_t epoch)
{
    size_t capacity = xlog_load(&xlog_front.ring_size);
    xlog_ring *r = NULL, *stale = NULL;
    pthread_mutex_lock(&xlog_rings.lock);
    if (xlog_rings.free) {
        r = xlog_rings.free;
        xlog_rings.free = r->next;
        xlog_rings.free_count--;
        /* From before this xlog_open: of another ring_size, or anonymous
         * while this one has a survival directory (the back end's first
         * pass removes both from the pool). */
        if (r->capacity != capacity || (!r->generation && xlog_survival_active())) {
            stale = r;
            r = NULL;
        } else if (!r->generation) {
            xlog_survival_note_anonymous(); /* a directory that could not be used */
        }
    }
    int wake = xlog_rings.backend_running && xlog_rings.free_count <= SPARES / 2;
    pthread_mutex_unlock(&xlog_rings.lock);
    if (wake)
        xlog_bell_ring(); /* the back end makes spares while the next thread starts */
    /* Mapping and unmapping outside the lock: another thread's first
     * message need not wait for them. */
    if (stale)
        ring_unmap(stale);
    if (r && !reserved_again(r)) {
        /* Its pages were given back, and its file has no room for them:
         * a new file, or anonymous memory (counted) if it has none either. */
        ring_unmap(r);
        r = NULL;
    }
    if (!r)
        r = ring_map(capacity, 0);
    if (!r)
        return NULL;
    ring_reset(r, epoch);
    pthread_mutex_lock(&xlog_rings.lock);
    r->next = xlog_rings.rings;
    xlog_rings.rings = r;
    r->listed = 1;
    xlog_add(&xlog_rings.generation, 1);
    pthread_mutex_unlock(&xlog_rings.lock);
    return r;
}

void xlog_ring_leave(xlog_ring *r)
{
    pthread_mutex_lock(&xlog_rings.lock);
    if (r->listed && xlog_rings.backend_running) {
        xlog_store_release(&r->exited, 1); /* the back end writes what is left */
        pthread_mutex_unlock(&xlog_rings.lock);
        return;
    }
    if (r->listed) {
        unlink_from(&xlog_rings.rings, r);
        r->listed = 0;
        xlog_add(&xlog_rings.generation, 1);
    } else {
        unlink_from(&xlog_rings.stale, r);
    }
    pthread_mutex_unlock(&xlog_rings.lock);
    recycle(r);
}

void xlog_ring_retire(xlog_ring *r)
{
    pthread_mutex_lock(&xlog_rings.lock);
    unlink_from(&xlog_rings.rings, r);
    r->listed = 0;
    xlog_add(&xlog_rings.generation, 1);
    pthread_mutex_unlock(&xlog_rings.lock);
    recycle(r);
}

void xlog_rings_take_room(void)
{
    pthread_mutex_lock(&xlog_rings.lock);
    for (xlog_ring *r = xlog_rings.rings; r; r = r->next)
        __atomic_store_n(&r->room_end, 0, __ATOMIC_SEQ_CST);
    pthread_mutex_unlock(&xlog_rings.lock);
}

void xlog_rings_close_epoch(void)
{
    xlog_ring *ended = NULL;
    pthread_mutex_lock(&xlog_rings.lock);
    for (xlog_ring *r = xlog_rings.rings, *next; r; r = next) {
        next = r->next;
        r->listed = 0;
        if (xlog_load_acquire(&r->exited)) {
            r->next = ended;
            ended = r;
        } else {
            take_counts_locked(r);
            r->next = xlog_rings.stale;
            xlog_rings.stale = r;
        }
    }
    xlog_rings.rings = NULL;
    xlog_add(&xlog_rings.generation, 1);
    /* Pooled rings in files of the survival directory, which goes now. */
    xlog_ring *pooled = NULL;
    for (xlog_ring **p = &xlog_rings.free; *p;) {
        xlog_ring *r = *p;
        if (r->generation) {
            *p = r->next;
            xlog_rings.free_count--;
            r->next = pooled;
            pooled = r;
        } else {
            p = &r->next;
        }
    }
    pthread_mutex_unlock(&xlog_rings.lock);
    for (xlog_ring *r = ended, *next; r; r = next) {
        next = r->next;
        recycle(r);
    }
    for (xlog_ring *r = pooled, *next; r; r = next) {
        next = r->next;
        ring_unmap(r);
    }
}

/* Ticks before which the back end makes no spare: the last one found no
 * room in its file. */
static uint64_t spare_retry_at;

void xlog_rings_keep_spares(int first_pass, uint64_t now, uint64_t retry_ticks)
{
    if (first_pass)
        spare_retry_at = 0;
    size_t capacity = xlog_load(&xlog_front.ring_size);
    int in_files = xlog_survival_active();
    xlog_ring *unwanted = NULL;
    pthread_mutex_lock(&xlog_rings.lock);
    if (first_pass) {
        /* Pooled before this xlog_open: rings of another ring_size, and
         * anonymous ones when this one has a survival directory (their
         * threads' lines would not survive a kill). */
        for (xlog_ring **p = &xlog_rings.free; *p;) {
            xlog_ring *r = *p;
            if (r->capacity != capacity || (in_files && !r->generation)) {
                *p = r->next;
                xlog_rings.free_count--;
                r->next = unwanted;
                unwanted = r;
            } else {
                p = &r->next;
            }
        }
    }
    size_t missing = xlog_rings.free_count < SPARES ? SPARES - xlog_rings.free_count : 0;
    pthread_mutex_unlock(&xlog_rings.lock);
    for (xlog_ring *r = unwanted, *next; r; r = next) {
        next = r->next;
        ring_unmap(r);
    }
    /* At most SPARES at a pass, however fast threads take them. */
    for (; missing && now >= spare_retry_at; missing--) {
        xlog_ring *r = ring_map(capacity, 1);
        if (!r) {
            /* No room in the file system (or no memory): not at every
             * pass; a thread's first call meanwhile makes its own ring. */
            spare_retry_at = now + retry_ticks;
            return;
        }
        /* A file ring has its first laps reserved already; an anonymous one
         * gets them in memory now, not in its thread's first call. */
        populate(r, wanted_in_memory(r, XLOG_RING_MIN_LAP));
        pthread_mutex_lock(&xlog_rings.lock);
        int pooled = xlog_rings.free_count < POOL_MAX;
        if (pooled) {
            r->next = xlog_rings.free;
            xlog_rings.free = r;
            xlog_rings.free_count++;
        }
        pthread_mutex_unlock(&xlog_rings.lock);
        if (!pooled) {
            ring_unmap(r);
            return;
        }
    }
}

/* fork(): a ring's link (ring->next) is in its header, which for a ring in
 * a file is shared with the parent: once the parent carries on (a thread
 * takes a spare, the back end pools a ring), the links the child would
 * follow are the parent's new ones.  So the parent lists the rings here,
 * under the registry lock, before the fork, and the child unmaps those. */
static xlog_ring **forked_rings;
static size_t forked_count;

void xlog_rings_before_fork(void)
{
    xlog_ring **lists[] = {&xlog_rings.rings, &xlog_rings.stale, &xlog_rings.free};
    size_t n = 0;
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
        for (xlog_ring *r = *lists[i]; r; r = r->next)
            n++;
    forked_rings = malloc((n ? n : 1) * sizeof *forked_rings);
    forked_count = 0;
    for (size_t i = 0; forked_rings && i < sizeof lists / sizeof lists[0]; i++)
        for (xlog_ring *r = *lists[i]; r; r = r->next)
            forked_rings[forked_count++] = r;
}

void xlog_rings_after_fork_in_parent(void)
{
    free(forked_rings);
    forked_rings = NULL;
    forked_count = 0;
}

/* In the child of fork(), whose only thread is the one that forked: no ring
 * of the parent's may be written here (the next message takes a new one),
 * and none is anybody's any more.  (Without the parent's list, for want of
 * memory, the child keeps their mappings and never uses them.) */
void xlog_rings_after_fork(void)
{
    for (size_t i = 0; i < forked_count; i++)
        ring_unmap(forked_rings[i]);
    xlog_rings_after_fork_in_parent();
    xlog_rings.rings = xlog_rings.stale = xlog_rings.free = NULL;
    xlog_rings.free_count = 0;
    memset(xlog_rings.retired_dropped, 0, sizeof xlog_rings.retired_dropped);
    xlog_rings.retired_blocked = 0;
    xlog_rings.backend_running = 0;
    xlog_add(&xlog_rings.generation, 1);
}

/* ---- the back end's care of a ring's memory -------------------------------- */

/* Bytes one record can take: a dynamic record carries its format, file and
 * function names and 64 arguments beside the message's text. */
static uint64_t largest_record(const xlog_ring *r)
{
    size_t text = xlog_load(&xlog_front.max_message);
    if (text > r->capacity / 4)
        text = r->capacity / 4;
    return round_to_page(text + 3 * 1024 + 64 * 16 + 256);
}

/* Gives back every page of an idle retired ring except where the one call
 * that may still be writing can write (see "Idle rings" above). */
static void trim(xlog_ring *r, uint64_t head)
{
    uint64_t window = largest_record(r);
    uint64_t at = (head & r->mask) / page_size() * page_size();
    uint64_t end = at + window < r->capacity ? at + window : r->capacity;
    if (at > window)
        give_back(r, window, at - window);
    if (end < r->capacity && end > window)
        give_back(r, end, r->capacity - end);
    /* Below the windows too: a lap the one call lengthens is reserved
     * again (the windows themselves keep their pages). */
    xlog_store(&r->populated, 0);
}

void xlog_ring_tend(xlog_ring *r, uint64_t now, double ns_per_tick)
{
    uint64_t head = xlog_load_acquire(&r->head);
    if (head != r->idle_head || !r->idle_since) {
        r->idle_head = head;
        r->idle_since = now;
        uint64_t want = wanted_in_memory(r, xlog_load(&r->shared_lap_end));
        if (r->idle_stage == 0 && want > xlog_load(&r->populated) && now >= r->populate_retry_at &&
            populate(r, want) != 0)
            r->populate_retry_at = now + (uint64_t)(100e6 / ns_per_tick); /* no room: not every pass */
        return;
    }
    int empty = head == r->read_pos && head == xlog_load(&r->tail);
    int big = xlog_load(&r->shared_lap_end) > XLOG_RING_MIN_LAP ||
              xlog_load(&r->populated) > wanted_in_memory(r, XLOG_RING_MIN_LAP);
    if (!empty || r->idle_stage == 2 || (r->idle_stage == 0 && !big) ||
        (double)(now - r->idle_since) * ns_per_tick < IDLE_NS)
        return;
    if (r->idle_stage == 0) {
        __atomic_store_n(&r->epoch, 0, __ATOMIC_SEQ_CST); /* seen at once by the next call */
        __atomic_store_n(&r->room_end, 0, __ATOMIC_SEQ_CST); /* frontend.c, "Room" */
        r->idle_stage = 1;
    } else {
        trim(r, head);
        r->idle_stage = 2;
    }
    r->idle_since = now;
}

int xlog_ring_read_name(xlog_ring *r)
{
    char path[48], text[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/comm", r->tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0; /* the thread has ended: its last name stays */
    ssize_t n = read(fd, text, sizeof text);
    close(fd);
    if (n <= 0)
        return 0;
    /* The kernel writes the name and a '\n' (a '\n' of the name's own
     * stays); never more than 15 bytes for a thread of ours. */
    size_t length = (size_t)n - (text[n - 1] == '\n');
    if (length > sizeof r->thread_name.text - 1)
        length = sizeof r->thread_name.text - 1;
    char name[sizeof r->thread_name.text] = {0};
    memcpy(name, text, length);
    if (memcmp(name, r->thread_name.text, sizeof name) == 0)
        return 0;
    memcpy(r->thread_name.text, name, sizeof name);
    return 1;
}

void xlog_ring_await_tail(xlog_ring *r, uint64_t wanted, long timeout_ns)
{
    uint32_t given = __atomic_load_n(&r->room_given, __ATOMIC_SEQ_CST);
    __atomic_store_n(&r->room_awaited, wanted, __ATOMIC_SEQ_CST);
    if ((int64_t)(__atomic_load_n(&r->tail, __ATOMIC_SEQ_CST) - wanted) < 0) {
        struct timespec timeout = {timeout_ns / 1000000000, timeout_ns % 1000000000};
        int saved = errno; /* a call from a signal handler too */
        syscall(SYS_futex, &r->room_given, FUTEX_WAIT_PRIVATE, given, &timeout, NULL, 0);
        errno = saved;
    }
    __atomic_store_n(&r->room_awaited, 0, __ATOMIC_RELAXED);
}

void xlog_ring_wake_producer(xlog_ring *r)
{
    if (!__atomic_exchange_n(&r->room_awaited, 0, __ATOMIC_SEQ_CST))
        return; /* woken already, or it found the room itself */
    __atomic_add_fetch(&r->room_given, 1, __ATOMIC_SEQ_CST);
    int saved = errno; /* the back end's crash drain runs in a signal handler */
    syscall(SYS_futex, &r->room_given, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    errno = saved;
}
