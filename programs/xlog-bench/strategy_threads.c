/*
 * strategy_threads.c - what a thread that logs a few lines costs the
 * process, in memory and in time: a program with hundreds of threads, or
 * one that starts a thread per task, should not pay for a full ring per
 * thread.  Each row runs in fresh processes (fresh_process.h), so that the
 * RSS it reads is its own.
 *
 *   xlog-live-threads   --live-threads threads (300) each log --thread-lines
 *       lines (10) and stay alive; once all have logged and xlog_flush() has
 *       returned, the process's RSS is read: its growth since before
 *       xlog_open.  The same runs again in a second fresh process with
 *       logging off (xlog open, level XLOG_OFF), which tells the threads'
 *       own cost (stacks, the kernel's) from xlog's.  The RSS counts the
 *       pages of /dev/shm the process has mapped (RssShmem), not those its
 *       persistent files have reserved without mapping them (a file
 *       buffer's): the row also gives what those files take there.  The
 *       threads are made
 *       one at a time, each logging before the next starts, so that each
 *       timed first call (where the thread gets its ring) is the call's
 *       cost, not 2 cores shared among 300 threads.
 *   xlog-short-threads  --short-threads threads (2,000) created and joined
 *       one after the other, each logging --thread-lines lines and ending:
 *       the wall time of the whole run with logging off, then on, repeated
 *       --thread-pairs times (5) in one process; the median of each, the
 *       median of the pairs' ratios (a pair's two runs are a fraction of a
 *       second apart, so other load on the machine moves both), and the
 *       process's peak RSS.  One at a time, so that the time is the sum
 *       of the threads' lives and the ratio is the overhead per thread, not
 *       how well the second core hides it.  Logging off is xlog open at level
 *       XLOG_OFF: the same program, whose calls do nothing, with the same
 *       back end present.
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xlog.h>

#include "fresh_process.h"
#include "proc_stats.h"
#include "runner.h"
#include "strategies.h"

/* What one thread does: its lines, the first one timed; then, for the live
 * threads, say so and wait to be let go. */
typedef struct thread_job {
    uint64_t lines;
    uint64_t *first_call; /* ticks of the thread's first call */
    sem_t *logged;        /* posted after the lines; NULL: the thread ends at once */
    sem_t *release;
} thread_job;

static void *thread_main(void *arg)
{
    const thread_job *job = arg;
    BENCH_MESSAGE_CALLS(PAYLOAD_NUMBERS, job->first_call, 0, 1, XLOG, XLOG_INFO);
    BENCH_MESSAGE_CALLS(PAYLOAD_NUMBERS, NULL, 1, job->lines - 1, XLOG, XLOG_INFO);
    if (job->logged != NULL) {
        sem_post(job->logged);
        while (sem_wait(job->release) != 0) {
        }
    }
    return NULL;
}

/* ---- live threads ---------------------------------------------------------- */

static void live_threads(const bench_options *options, const char *dir, int logging,
                         bench_row *row)
{
    int count = options->live_threads;
    pthread_t *threads = calloc((size_t)count, sizeof *threads);
    thread_job *jobs = calloc((size_t)count, sizeof *jobs);
    uint64_t *first_calls = calloc((size_t)count, sizeof *first_calls);
    sem_t logged, release;
    if (threads == NULL || jobs == NULL || first_calls == NULL || sem_init(&logged, 0, 0) != 0 ||
        sem_init(&release, 0, 0) != 0) {
        snprintf(row->note, sizeof row->note, "no memory for %d threads", count);
        goto out;
    }
    row->rss_before_kib = process_rss_kib();
    int rc = bench_xlog_open_dir(dir, XLOG_FILE_SHARED);
    if (rc != 0) {
        snprintf(row->note, sizeof row->note, "xlog_open: %s", xlog_strerror(rc));
        goto out;
    }
    if (!logging)
        xlog_set_level(XLOG_OFF);
    int started = 0, error = 0;
    for (; started < count; started++) {
        jobs[started] = (thread_job){(uint64_t)options->thread_lines, &first_calls[started],
                                     &logged, &release};
        error = pthread_create(&threads[started], NULL, thread_main, &jobs[started]);
        if (error != 0)
            break;
        while (sem_wait(&logged) != 0) {
        }
    }
    xlog_flush();
    row->rss_after_kib = process_rss_kib();
    row->rss_shmem_kib = process_rss_shmem_kib();
    row->shm_kib = process_shm_kib();
    for (int i = 0; i < started; i++)
        sem_post(&release);
    for (int i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    row->peak_rss_kib = process_peak_rss_kib();
    bench_xlog_close(row);
    if (error != 0) {
        snprintf(row->note, sizeof row->note, "thread %d: %s", started, strerror(error));
        goto out;
    }
    latency_stats first;
    latency_stats_compute(first_calls, (size_t)count, &first);
    row->workers = count;
    row->thread_lines = options->thread_lines;
    row->messages_sent = logging ? (uint64_t)count * (uint64_t)options->thread_lines : 0;
    row->rss_growth_kib = row->rss_after_kib - row->rss_before_kib;
    row->first_call_p50_ns = first.p50_ns;
    row->first_call_ns = first.max_ns;
    row->available = 1;
out:
    free(threads);
    free(jobs);
    free(first_calls);
}

void xlog_live_threads_process(const bench_options *options, const char *dir, bench_row *row)
{
    live_threads(options, dir, 1, row);
}

void xlog_live_threads_off_process(const bench_options *options, const char *dir,
                                   bench_row *row)
{
    live_threads(options, dir, 0, row);
}

void run_xlog_live_threads(const bench_options *options, const char *dir, bench_row *row)
{
    bench_row off = *row;
    run_in_fresh_process("live-threads-off", options, dir, &off);
    if (!off.available) {
        snprintf(row->note, sizeof row->note, "logging off: %.80s", off.note);
        return;
    }
    run_in_fresh_process("live-threads", options, dir, row);
    row->rss_growth_off_kib = off.rss_growth_kib;
}

/* ---- short-lived threads --------------------------------------------------- */

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Creates and joins count threads one after the other, the first call of
 * thread i timed into first_calls[i]; returns the ticks the run took, or 0
 * with *error set when a thread could not be created. */
static uint64_t short_threads_run(int count, uint64_t lines, uint64_t *first_calls, int *error)
{
    thread_job job = {.lines = lines};
    uint64_t start = bench_ticks();
    for (int i = 0; i < count; i++) {
        pthread_t thread;
        job.first_call = &first_calls[i];
        *error = pthread_create(&thread, NULL, thread_main, &job);
        if (*error != 0)
            return 0;
        pthread_join(thread, NULL);
    }
    return bench_ticks() - start;
}

void xlog_short_threads_process(const bench_options *options, const char *dir, bench_row *row)
{
    int count = options->short_threads, pairs = options->thread_pairs;
    uint64_t lines = (uint64_t)options->thread_lines;
    /* The first calls of the runs with logging on, then room for those of a
     * run with logging off (not reported); touched now, not during a run. */
    size_t first_call_count = (size_t)count * (size_t)pairs;
    uint64_t *first_calls = calloc(first_call_count + (size_t)count, sizeof *first_calls);
    if (first_calls == NULL) {
        snprintf(row->note, sizeof row->note, "no memory for %d threads", count);
        return;
    }
    memset(first_calls, 0, (first_call_count + (size_t)count) * sizeof *first_calls);
    uint64_t on[pairs], off[pairs];
    row->rss_before_kib = process_rss_kib();
    int rc = bench_xlog_open_dir(dir, XLOG_FILE_SHARED);
    if (rc != 0) {
        snprintf(row->note, sizeof row->note, "xlog_open: %s", xlog_strerror(rc));
        free(first_calls);
        return;
    }
    int level = xlog_get_level();
    int64_t peak_off = -1;
    int error = 0;
    for (int p = 0; p < pairs && error == 0; p++) {
        xlog_set_level(XLOG_OFF);
        off[p] = short_threads_run(count, lines, first_calls + first_call_count, &error);
        /* The first run, before any thread has logged: what the threads
         * alone cost. */
        if (p == 0)
            peak_off = process_peak_rss_kib();
        xlog_set_level(level);
        if (error == 0)
            on[p] = short_threads_run(count, lines, first_calls + (size_t)p * (size_t)count,
                                      &error);
        /* Outside the timed runs: the next one starts with nothing queued,
         * as the first did. */
        xlog_flush();
    }
    row->peak_rss_kib = process_peak_rss_kib();
    bench_xlog_close(row);
    if (error != 0) {
        snprintf(row->note, sizeof row->note, "pthread_create: %s", strerror(error));
        free(first_calls);
        return;
    }
    double ratios[pairs];
    for (int p = 0; p < pairs; p++)
        ratios[p] = (double)on[p] / (double)off[p];
    qsort(ratios, (size_t)pairs, sizeof ratios[0], compare_doubles);
    latency_stats wall_on, wall_off, first;
    latency_stats_compute(on, (size_t)pairs, &wall_on);
    latency_stats_compute(off, (size_t)pairs, &wall_off);
    latency_stats_compute(first_calls, first_call_count, &first);
    row->workers = count;
    row->thread_lines = options->thread_lines;
    row->pairs = pairs;
    row->messages_sent = first_call_count * lines;
    row->wall_seconds = wall_on.p50_ns * 1e-9;
    row->wall_seconds_off = wall_off.p50_ns * 1e-9;
    row->wall_ratio = ratios[(pairs - 1) / 2];
    row->rss_growth_kib = row->peak_rss_kib - row->rss_before_kib;
    row->rss_growth_off_kib = peak_off - row->rss_before_kib;
    row->first_call_p50_ns = first.p50_ns;
    row->first_call_ns = first.max_ns;
    row->available = 1;
    free(first_calls);
}

void run_xlog_short_threads(const bench_options *options, const char *dir, bench_row *row)
{
    run_in_fresh_process("short-threads", options, dir, row);
}
