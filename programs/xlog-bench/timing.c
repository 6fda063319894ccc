/*
 * timing.c - turns tick counts into nanoseconds and samples into percentiles.
 *
 * The TSC rate is measured against CLOCK_MONOTONIC at start-up rather than
 * read from /proc/cpuinfo, which does not state it on every machine.
 * Percentiles are nearest-rank on the sorted samples: p99 is the smallest
 * sample that at least 99% of the samples do not exceed.
 */
#include "timing.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

static double ticks_per_ns = 1.0;

double monotonic_seconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

void sleep_until(double deadline)
{
    struct timespec when;
    when.tv_sec = (time_t)deadline;
    when.tv_nsec = (long)((deadline - (double)when.tv_sec) * 1e9);
    if (when.tv_nsec >= 1000000000L) {
        when.tv_sec++;
        when.tv_nsec -= 1000000000L;
    }
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &when, NULL) == EINTR) {
    }
}

void timing_calibrate(unsigned calibration_ms)
{
#if defined(__x86_64__) || defined(__i386__)
    double start_s = monotonic_seconds();
    uint64_t start_ticks = bench_ticks();
    sleep_until(start_s + calibration_ms * 1e-3);
    double end_s = monotonic_seconds();
    uint64_t end_ticks = bench_ticks();
    ticks_per_ns = (double)(end_ticks - start_ticks) / ((end_s - start_s) * 1e9);
#else
    (void)calibration_ms;
    ticks_per_ns = 1.0;
#endif
}

double timing_ticks_per_ns(void)
{
    return ticks_per_ns;
}

double ticks_to_ns(uint64_t ticks)
{
    return (double)ticks / ticks_per_ns;
}

static int compare_ticks(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a;
    uint64_t y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static double nearest_rank(const uint64_t *sorted, size_t count, double fraction)
{
    size_t rank = (size_t)ceil(fraction * (double)count);
    if (rank < 1)
        rank = 1;
    return ticks_to_ns(sorted[rank - 1]);
}

void latency_stats_compute(uint64_t *samples, size_t count, latency_stats *out)
{
    *out = (latency_stats){.count = count};
    if (count == 0)
        return;
    qsort(samples, count, sizeof *samples, compare_ticks);
    double sum = 0;
    for (size_t i = 0; i < count; i++)
        sum += (double)samples[i];
    out->avg_ns = sum / (double)count / ticks_per_ns;
    out->min_ns = ticks_to_ns(samples[0]);
    out->p50_ns = nearest_rank(samples, count, 0.50);
    out->p99_ns = nearest_rank(samples, count, 0.99);
    out->p999_ns = nearest_rank(samples, count, 0.999);
    out->max_ns = ticks_to_ns(samples[count - 1]);
}
