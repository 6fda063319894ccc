/*
 * clock.h - the timestamp a log call takes, and its conversion to UTC.
 *
 * Why: clock_gettime costs the caller 20 ns or more; the TSC costs a few.  The
 * caller only reads ticks; the back end turns ticks into wall-clock
 * nanoseconds with a calibration it keeps up to date (clock.c).
 *
 * On x86-64 the ticks are the TSC (its rate is constant on every CPU this
 * library targets: the constant_tsc and nonstop_tsc flags).  Elsewhere they are
 * CLOCK_MONOTONIC nanoseconds, so the library builds and works everywhere,
 * only with a dearer call.
 */
#ifndef XLOG_CLOCK_H
#define XLOG_CLOCK_H

#include <stdint.h>
#include <time.h>

#if defined(__x86_64__)
#include <x86intrin.h>
static inline uint64_t xlog_ticks(void)
{
    return __rdtsc();
}
#else
static inline uint64_t xlog_ticks(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#endif

/* Ticks to UTC nanoseconds since the epoch: utc = base_utc + (ticks - base_ticks) * ns_per_tick. */
typedef struct xlog_clock {
    int64_t (*wall_ns)(void); /* the wall clock; never NULL once started */
    uint64_t first_ticks;     /* the rate is measured over [first, last resync] */
    int64_t first_mono_ns;
    uint64_t base_ticks;
    int64_t base_utc_ns;
    double ns_per_tick;
} xlog_clock;

/* Calibrates the clock; wall may be NULL for CLOCK_REALTIME. */
void xlog_clock_start(xlog_clock *c, int64_t (*wall)(void));
/* Takes a new base pair and refines the rate; done by the back end about once
 * a second and on every flush. */
void xlog_clock_resync(xlog_clock *c);
/* UTC nanoseconds of a tick count. */
static inline int64_t xlog_clock_utc(const xlog_clock *c, uint64_t ticks)
{
    return c->base_utc_ns + (int64_t)((double)(int64_t)(ticks - c->base_ticks) * c->ns_per_tick);
}

#endif
