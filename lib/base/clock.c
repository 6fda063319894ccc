/*
 * clock.c - calibration of the tick counter against the wall clock.
 *
 * The rate (ns per tick) is measured against CLOCK_MONOTONIC over the whole
 * time since xlog_open, so it gets more exact the longer the program runs and
 * is not disturbed when the wall clock is stepped.  The offset comes from the
 * wall clock at each resync, so a stepped wall clock is followed within about a
 * second.  The back end never prints a time earlier than one it already
 * printed, so a step backwards does not make the files go back in time.
 */
#include "base/clock.h"

static int64_t realtime_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Reads the ticks and a clock as close together as possible: the midpoint of
 * the tightest of a few tries. */
static void paired_read(int64_t (*clock)(void), uint64_t *ticks, int64_t *ns)
{
    uint64_t best_width = UINT64_MAX;
    for (int i = 0; i < 5; i++) {
        uint64_t before = xlog_ticks();
        int64_t t = clock();
        uint64_t after = xlog_ticks();
        if (after - before < best_width) {
            best_width = after - before;
            *ticks = before + (after - before) / 2;
            *ns = t;
        }
    }
}

static void measure_rate(xlog_clock *c)
{
    uint64_t ticks = 0;
    int64_t mono = 0;
    paired_read(monotonic_ns, &ticks, &mono);
    if (ticks > c->first_ticks && mono > c->first_mono_ns)
        c->ns_per_tick = (double)(mono - c->first_mono_ns) / (double)(ticks - c->first_ticks);
}

void xlog_clock_start(xlog_clock *c, int64_t (*wall)(void))
{
    c->wall_ns = wall ? wall : realtime_ns;
    paired_read(monotonic_ns, &c->first_ticks, &c->first_mono_ns);
    c->ns_per_tick = 1.0;
    /* A first rate from a short interval (2 ms); resyncs refine it. */
    int64_t until = c->first_mono_ns + 2000000;
    while (monotonic_ns() < until) {
    }
    measure_rate(c);
    paired_read(c->wall_ns, &c->base_ticks, &c->base_utc_ns);
}

void xlog_clock_resync(xlog_clock *c)
{
    measure_rate(c);
    paired_read(c->wall_ns, &c->base_ticks, &c->base_utc_ns);
}
