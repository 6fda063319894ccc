/*
 * internal.h - state shared by the parts of the library (never installed).
 *
 * The front end (frontend/) needs a few settings and the registry of rings;
 * the back end (backend/) drains that registry; xlog.c starts and stops both.
 */
#ifndef XLOG_INTERNAL_H
#define XLOG_INTERNAL_H

#include <pthread.h>
#include <signal.h>
#include <stdint.h>

#include "xlog.h"
#include "common/ring.h"

#define XLOG_API __attribute__((visibility("default")))

/* Relaxed atomics compile to plain loads and stores on x86-64; they are used
 * for every field two threads touch so that the sanitizers can check us. */
#define xlog_load(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define xlog_load_acquire(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define xlog_store(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define xlog_store_release(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define xlog_add(p, v) __atomic_fetch_add((p), (v), __ATOMIC_RELAXED)

/* ThreadSanitizer and a library not built with it (a program built with
 * -fsanitize=thread against an installed libxlog): the atomics that hand a
 * ring's bytes from one thread to another are invisible to it, but libc's
 * memcpy, which copies strings in and out, is watched, so it would report a
 * race on every string.  When its runtime is in the process, these tell it
 * what the atomics mean: a release where a thread hands bytes over, an
 * acquire where the other takes them.  Without it they cost a compare. */
extern void __tsan_acquire(void *addr) __attribute__((weak));
extern void __tsan_release(void *addr) __attribute__((weak));

static inline void xlog_tsan_acquire(void *addr)
{
    if (__tsan_acquire)
        __tsan_acquire(addr);
}

static inline void xlog_tsan_release(void *addr)
{
    if (__tsan_release)
        __tsan_release(addr);
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

/* Settings the front end reads on every call, copied from the configuration
 * by xlog_open. */
typedef struct xlog_front_settings {
    uint64_t epoch;       /* atomic: which xlog_open is in force; 0 while closed */
    int full_policy;      /* xlog_full_policy */
    size_t ring_size;     /* power of two */
    size_t max_message;
    int alt_stacks;       /* give each logging thread an alternate signal stack */
    int64_t (*wall_clock_ns)(void); /* cfg.wall_clock_ns, for rate limits */
    int forked;           /* atomic: this is a child of fork(); restart on first use */
} xlog_front_settings;

extern xlog_front_settings xlog_front;

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

/* Messages dropped outside any ring: logged while xlog was closed, or by a
 * signal handler during a thread's first call (atomic). */
extern uint64_t xlog_unringed_dropped[XLOG_DROP_REASONS];

/* In the child of fork(): forget the calling thread's ring (frontend.c). */
void xlog_front_after_fork(void);
/* Starts the back end again in the child of fork() on its first use (xlog.c). */
void xlog_resume_after_fork(void);
/* xlog.c: the functions that wait for the back end or stop it (xlog_open,
 * xlog_close, xlog_flush, xlog_recover) refuse to run on the back end's
 * thread, which marks itself as it starts, and inside a custom sink's
 * function, wherever xlog calls it (open and close run on the thread of
 * xlog_open and xlog_close, which hold the lock those take): the call would
 * wait for itself forever, or join its own thread. */
void xlog_mark_backend_thread(void);
void xlog_sink_code_enter(void);
void xlog_sink_code_leave(void);

/* Logs a line of xlog's own (WARN, "xlog:0 xlog"), whatever the level in
 * force (frontend.c). */
void xlog_notice(const char *format, ...) __attribute__((format(printf, 1, 2)));
/* one or many, as the count n asks: notices say "1 message was", "2
 * messages were". */
static inline const char *xlog_plural(unsigned long long n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

/* Marks the calling thread as inside xlog while it holds a lock a log call
 * may need, so that a signal handler's log call is dropped rather than
 * deadlocking (frontend.c). */
void xlog_enter(void);
void xlog_leave(void);
/* Whether the calling thread is inside xlog (a log call, or xlog_enter). */
int xlog_inside(void);

/* filter.c: levels by module.  xlog_apply_filter parses a filter string
 * ("warn,net=debug"): with check_only, only checks it; else makes it the
 * rules in force, with process as the level where it names none.  0, or
 * -EINVAL after xlog_set_error (what names the setting). */
int xlog_apply_filter(const char *filter, const char *what, int process, int check_only);
/* The lowest level kept for backtraces (cfg.backtrace_level), or XLOG_OFF. */
void xlog_set_backtrace_level(int level);
/* A level's name ("debug", "WARN", "warning"), or -1. */
int xlog_parse_level(const char *text, size_t length);

/* Says why xlog_open is failing, for xlog_last_error() (xlog.c); only
 * during xlog_open, on its thread. */
void xlog_set_error(const char *format, ...) __attribute__((format(printf, 1, 2)));
/* Puts "prefix: " before the error set last (naming the sink it is about). */
void xlog_prefix_error(const char *prefix);

/* Counters kept by the back end (atomics). */
typedef struct xlog_backend_counters {
    uint64_t messages, bytes, writes, truncated, write_errors, lost, refused;
} xlog_backend_counters;

extern xlog_backend_counters xlog_counts;

/* Back end (backend.c). */
int xlog_backend_start(const xlog_config *cfg);
int xlog_backend_flush(void);
/* Wakes the back end for a pass now, if it sleeps: a thread's first call
 * that took the last spare rings (rings.c, "Spares"). */
void xlog_backend_wake(void);

/* How a call tells the back end there is work without a system call while
 * the back end is awake (backend.c, "Sleeping").  asleep is read by every
 * call and written only when the back end falls asleep or is woken, so its
 * cache line stays shared; wakes is the futex word the back end sleeps on. */
typedef struct xlog_doorbell {
    int asleep;
    uint32_t wakes;
} __attribute__((aligned(64))) xlog_doorbell;

extern xlog_doorbell xlog_backend_bell;

/* Wakes the back end if it is asleep.  Async-signal-safe (atomics and one
 * futex call, errno kept). */
void xlog_backend_doorbell(void);
void xlog_backend_stop(void);
/* From a crash handler: writes everything published, and a last line;
 * 1 once that is done, 0 if it could not be (xlog closed, or the back end
 * did not answer). */
int xlog_backend_crash_flush(int sig);
/* The program's own handler returned from that signal: carry on. */
void xlog_backend_crash_survived(void);
/* fork(): the lock the back end shares with callers, and forgetting the
 * parent's back end in the child (its unwritten lines are the parent's). */
void xlog_backend_lock(void);
void xlog_backend_unlock(void);
void xlog_backend_after_fork(void);

/* Crash handlers (crash.c). */
void xlog_crash_install(void);
void xlog_crash_uninstall(void);
const char *xlog_signal_name(int sig);
/* Removes the crash signals from set (for the back end's signal mask). */
void xlog_crash_signals_unblocked(sigset_t *set);

#endif
