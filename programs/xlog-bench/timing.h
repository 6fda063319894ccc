/*
 * timing.h - the clock xlog-bench times every call with, and the statistics it
 * computes from the samples.
 *
 * Every strategy is timed the same way: bench_ticks() just before the call and
 * just after it.  On x86-64 that is the TSC, fenced with LFENCE on both sides
 * so that the instructions of the call cannot move out of the timed window;
 * elsewhere it is CLOCK_MONOTONIC in nanoseconds.  The "timer" row measures two
 * back-to-back bench_ticks() with nothing between them, so the cost of the
 * timer itself is shown next to the figures it is part of.
 */
#ifndef XLOG_BENCH_TIMING_H
#define XLOG_BENCH_TIMING_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define BENCH_TIMER_NAME "rdtsc (lfence before and after)"

static inline uint64_t bench_ticks(void)
{
    _mm_lfence();
    uint64_t ticks = __rdtsc();
    _mm_lfence();
    return ticks;
}
#else
#define BENCH_TIMER_NAME "clock_gettime(CLOCK_MONOTONIC)"

static inline uint64_t bench_ticks(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}
#endif

/* Latency figures of a set of calls, in nanoseconds. */
typedef struct latency_stats {
    uint64_t count;
    double avg_ns;
    double min_ns;
    double p50_ns;
    double p99_ns;
    double p999_ns;
    double max_ns;
} latency_stats;

/* Measures how many ticks make a nanosecond, against CLOCK_MONOTONIC over
 * about calibration_ms milliseconds.  Call once before any conversion. */
void timing_calibrate(unsigned calibration_ms);

/* Ticks per nanosecond found by timing_calibrate (1 without a TSC). */
double timing_ticks_per_ns(void);

double ticks_to_ns(uint64_t ticks);

/* Sorts samples (tick counts) in place and fills *out. */
void latency_stats_compute(uint64_t *samples, size_t count, latency_stats *out);

/* Monotonic time in seconds, for schedules and elapsed times. */
double monotonic_seconds(void);

/* Sleeps until the monotonic clock reads deadline (seconds). */
void sleep_until(double deadline);

#endif
