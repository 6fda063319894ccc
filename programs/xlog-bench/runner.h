/*
 * runner.h - runs one strategy over the standard workload, the same way for
 * all of them, so that their rows can be compared.
 *
 * Each worker (a thread, or a process for strategies that model several
 * processes on one file) goes through three steps:
 *
 *   1. one warm-up call, timed on its own (first_call_ns): it is where a
 *      per-thread file is opened, or xlog allocates the thread's ring;
 *   2. the latency phase: --messages calls in bursts of --batch, with a pause
 *      of --gap-us between bursts so that a logger with a back end is measured
 *      at a rate it can sustain; every call is timed with bench_ticks(), and
 *      mallocs (and, for audited strategies, system calls) are counted around
 *      the bursts only; after each burst as many empty timer pairs are timed,
 *      the row's own reference for the timer's cost;
 *   3. the throughput phase: --messages calls back to back, untimed, from the
 *      moment all workers are released until the strategy's finish step says
 *      the data is in the file; write calls (syscw) and bytes are counted
 *      over exactly that time.
 *
 * A strategy only supplies the calls themselves and its open/flush/close
 * steps, in a phased_strategy.
 */
#ifndef XLOG_BENCH_RUNNER_H
#define XLOG_BENCH_RUNNER_H

#include <stdint.h>

#include "bench.h"
#include "syscall_audit.h"

typedef struct phased_run phased_run;

typedef struct bench_worker {
    int index;
    payload payload;
    phased_run *run;
    void *state;         /* the strategy's per-worker data */
    const char *dir;     /* where the strategy writes */
    void *shared;        /* the strategy's shared data, from setup */
    /* filled by the runner */
    uint64_t *samples;   /* one tick count per latency-phase call */
    uint64_t *pair_samples; /* as many empty timer pairs, taken after each burst */
    uint64_t first_call_ticks;
    int64_t first_call_mallocs;  /* -1: not counted */
    int64_t first_call_syscalls; /* -1: not audited */
    int64_t mallocs;
    int64_t syscalls;
    int64_t throughput_write_calls; /* process workers only */
    int failed;
    syscall_audit audit;
} bench_worker;

typedef struct phased_strategy {
    int multi_worker;          /* uses --threads workers (else one) */
    int workers_are_processes; /* fork() them instead of creating threads */
    int audit_syscalls;        /* count the caller's system calls (see syscall_audit.h) */
    int writes_nothing;        /* its calls are turned down: no line is due */
    /* Main thread, before any worker starts: open what the workers share and
     * store it in *shared.  Returns 0 or a negative errno. */
    int (*setup)(const char *dir, void **shared);
    /* Worker, before its first call: set w->state.  Returns 0 or -errno. */
    int (*worker_begin)(bench_worker *w);
    /* Worker: calls number first .. first + count - 1; when samples is not
     * NULL, times each one with bench_ticks() into samples[0 .. count-1]. */
    void (*calls)(bench_worker *w, uint64_t first, uint64_t count, uint64_t *samples);
    /* Worker, after the latency phase, untimed: push buffered lines out, so
     * that the throughput phase starts from empty buffers. */
    void (*worker_sync)(bench_worker *w);
    /* Worker, at the end of the throughput phase, inside its time: release
     * per-worker files (their data must be in the file afterwards). */
    void (*worker_end)(bench_worker *w);
    /* Main thread after every worker ended, inside the throughput time: make
     * sure the data is in the file. */
    void (*finish)(void *shared);
    /* Main thread, untimed: close what setup opened; may add figures to row. */
    void (*teardown)(void *shared, bench_row *row);
} phased_strategy;

/* Runs the strategy in dir (which must exist and be empty) and fills the
 * figures of row (whose name, label and source are already set). */
void run_phased(const phased_strategy *strategy, payload payload, const bench_options *options,
                const char *dir, bench_row *row);

/* Times n back-to-back pairs of bench_ticks(): the "timer" row. */
void run_timer_pairs(const bench_options *options, bench_row *row);

/* Runs `count` calls of CALL, an expression that may use call_index (first ..
 * first + count - 1); when samples is not NULL each call is timed. */
#define BENCH_CALLS(samples, first, count, CALL)                                           \
    do {                                                                                   \
        uint64_t *bench_sample_ = (samples);                                               \
        uint64_t bench_end_ = (first) + (count);                                           \
        if (bench_sample_ != NULL) {                                                       \
            for (uint64_t call_index = (first); call_index < bench_end_; call_index++) {   \
                uint64_t bench_start_ = bench_ticks();                                     \
                CALL;                                                                      \
                *bench_sample_++ = bench_ticks() - bench_start_;                           \
            }                                                                              \
        } else {                                                                           \
            for (uint64_t call_index = (first); call_index < bench_end_; call_index++) {   \
                CALL;                                                                      \
            }                                                                              \
        }                                                                                  \
    } while (0)

/* The calls of the standard workload: BENCH_CALLS with the worker's message,
 * LOG(..., format, arguments) being the strategy's log call (a function-like
 * macro) and the arguments after LOG what it takes before the format; e.g.
 * BENCH_MESSAGE_CALLS(w->payload, samples, first, count, XLOG, XLOG_INFO). */
#define BENCH_MESSAGE_CALLS(payload, samples, first, count, LOG, ...)                      \
    do {                                                                                   \
        if ((payload) == PAYLOAD_NUMBERS)                                                  \
            BENCH_CALLS(samples, first, count,                                             \
                        LOG(__VA_ARGS__, NUMBERS_FORMAT, NUMBERS_ARGS(call_index)));       \
        else                                                                               \
            BENCH_CALLS(samples, first, count,                                             \
                        LOG(__VA_ARGS__, STRING_FORMAT, STRING_ARGS(call_index)));         \
    } while (0)

#endif
