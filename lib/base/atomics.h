/*
 * atomics.h - the atomics every part of xlog uses, and what the library
 * exports.
 *
 * Relaxed atomics compile to plain loads and stores on x86-64; they are used
 * for every field two threads touch so that the sanitizers can check us.
 */
#ifndef XLOG_ATOMICS_H
#define XLOG_ATOMICS_H

/* A function of the public interface (include/xlog.h); everything else is
 * hidden (the objects are built with -fvisibility=hidden). */
#define XLOG_API __attribute__((visibility("default")))
/* On the declaration of a variable the log call reads in another file: the
 * compiler then addresses it directly, not through the GOT (one load
 * less per use in the shared library). */
#define XLOG_HIDDEN __attribute__((visibility("hidden")))

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

#endif
