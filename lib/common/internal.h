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

/* Settings the front end reads on every call, copied from the configuration
 * by xlog_open. */
typedef struct xlog_front_settings {
    int accepting;        /* atomic: 1 between xlog_open and xlog_close */
    int full_policy;      /* xlog_full_policy */
    size_t ring_size;     /* power of two */
    size_t max_message;
    int alt_stacks;       /* give each logging thread an alternate signal stack */
    int forked;           /* atomic: this is a child of fork(); restart on first use */
} xlog_front_settings;

extern xlog_front_settings xlog_front;

/* Every ring that exists, with totals of the rings already freed. */
typedef struct xlog_registry {
    pthread_mutex_t lock;
    xlog_ring *rings;          /* list through ring->next */
    uint64_t generation;       /* atomic: bumped when the list changes */
    int backend_running;       /* under lock: the back end frees exited rings */
    uint64_t retired_dropped;  /* under lock */
    uint64_t retired_blocked;  /* under lock */
} xlog_registry;

extern xlog_registry xlog_rings;

/* Unlinks and frees a ring; the registry lock must be held. */
void xlog_ring_free_locked(xlog_ring *r);

/* In the child of fork(): free the rings of the threads that did not come
 * along, empty the caller's own, zero the counters (frontend.c). */
void xlog_front_after_fork(void);
/* Starts the back end again in the child of fork() on its first use (xlog.c). */
void xlog_resume_after_fork(void);

/* Counters kept by the back end (atomics). */
typedef struct xlog_backend_counters {
    uint64_t messages, bytes, writes, truncated, write_errors, lost;
} xlog_backend_counters;

extern xlog_backend_counters xlog_counts;

/* Back end (backend.c). */
int xlog_backend_start(const xlog_config *cfg);
int xlog_backend_flush(void);
void xlog_backend_stop(void);
/* From a crash handler: writes everything published, and a last line. */
void xlog_backend_crash_flush(int sig);
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
