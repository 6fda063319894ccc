/*
 * strategy_xlog.c - xlog itself, in the rows that compare it with the seed
 * notes' strategies:
 *
 *   xlog-shared      every thread into one file (XLOG_FILE_SHARED);
 *   xlog-per-thread  one file per thread (XLOG_FILE_PER_THREAD, the in-house logger's
 *                    layout);
 *   xlog-throughput  SPEC's back-end figure: N lines from one thread, back to
 *                    back, until xlog_flush() says they are in the file;
 *   xlog-json-throughput  the same with the files in JSON lines
 *                    (XLOG_LAYOUT_JSON), the census checking every object;
 *   xlog-binary-throughput  the same with binary files (XLOG_LAYOUT_BINARY),
 *                    the census decoding every entry (binary_census.c);
 *   xlog-burst       SPEC's memory figure: a burst of 10 million lines in a
 *                    fresh process (fresh_process.h: its peak RSS belongs to
 *                    the burst alone) with the default ring.
 *
 * The phased rows run with xlog's default configuration except the directory,
 * and with the caller threads' system calls audited (syscall_audit.h).  With
 * the suffix :volatile (suite.c), xlog-shared, xlog-per-thread and
 * xlog-throughput run with cfg.persistent = 0, so that one run compares the
 * rings in shared memory files (the default) with anonymous memory.  The
 * back-to-back measure is shared with the syslog rows (strategy_syslog.c),
 * which add a sink and wait for their collector after xlog_flush().
 */
#include <pthread.h>
#include <stdio.h>

#include <xlog.h>

#include "fresh_process.h"
#include "proc_stats.h"
#include "progress.h"
#include "runner.h"
#include "strategies.h"

/* Counters when the current xlog_open() returned: rows report differences. */
static xlog_counters counters_at_open;

int bench_xlog_open(const xlog_config *config)
{
    int rc = xlog_open(config);
    if (rc == 0)
        xlog_stats(&counters_at_open);
    return rc;
}

int bench_xlog_persistent = 1;

xlog_config bench_xlog_config(const char *dir, xlog_file_mode mode)
{
    xlog_config config = xlog_defaults();
    config.dir = dir;
    config.file_mode = mode;
    config.use_environment = 0;
    config.persistent = bench_xlog_persistent;
    return config;
}

int bench_xlog_open_dir(const char *dir, xlog_file_mode mode)
{
    xlog_config config = bench_xlog_config(dir, mode);
    return bench_xlog_open(&config);
}

uint64_t bench_xlog_syslog_dropped(void)
{
    xlog_counters now;
    xlog_stats(&now);
    return now.syslog_dropped - counters_at_open.syslog_dropped;
}

void bench_xlog_close(bench_row *row)
{
    xlog_counters now;
    xlog_flush();
    xlog_stats(&now);
    row->xlog_blocked = (int64_t)(now.blocked - counters_at_open.blocked);
    row->xlog_dropped = (int64_t)(now.dropped - counters_at_open.dropped);
    xlog_close();
    /* After xlog_close, which counts the console lines it gave up on. */
    xlog_stats(&now);
    row->console_dropped = (int64_t)(now.console_dropped - counters_at_open.console_dropped);
}

/* ---- the phased rows ----------------------------------------------------- */

static int xlog_shared_setup(const char *dir, void **shared)
{
    (void)shared;
    return bench_xlog_open_dir(dir, XLOG_FILE_SHARED);
}

static int xlog_per_thread_setup(const char *dir, void **shared)
{
    (void)shared;
    return bench_xlog_open_dir(dir, XLOG_FILE_PER_THREAD);
}

/* XLOG(XLOG_INFO, ...) is what xlog_info(...) stands for. */
static void xlog_calls(bench_worker *w, uint64_t first, uint64_t count, uint64_t *samples)
{
    BENCH_MESSAGE_CALLS(w->payload, samples, first, count, XLOG, XLOG_INFO);
}

static void xlog_worker_flush(bench_worker *w)
{
    (void)w;
    xlog_flush();
}

static void xlog_finish(void *shared)
{
    (void)shared;
    xlog_flush();
}

static void xlog_teardown(void *shared, bench_row *row)
{
    (void)shared;
    bench_xlog_close(row);
}

/* The two phased xlog rows differ only in their file mode and workers. */
#define XLOG_PHASED_STEPS                                                                  \
    .audit_syscalls = 1, .calls = xlog_calls, .worker_sync = xlog_worker_flush,            \
    .finish = xlog_finish, .teardown = xlog_teardown

const phased_strategy xlog_shared_strategy = {
    XLOG_PHASED_STEPS,
    .setup = xlog_shared_setup,
};

const phased_strategy xlog_per_thread_strategy = {
    XLOG_PHASED_STEPS,
    .multi_worker = 1,
    .setup = xlog_per_thread_setup,
};

/* ---- back to back, from one thread --------------------------------------- */

#define PROGRESS_CHUNK 65536

typedef struct back_to_back {
    uint64_t messages;
    uint64_t started; /* bench_ticks() just before the first call */
} back_to_back;

static void *log_back_to_back(void *arg)
{
    back_to_back *job = arg;
    job->started = bench_ticks();
    for (uint64_t done = 0; done < job->messages;) {
        uint64_t count = job->messages - done;
        if (count > PROGRESS_CHUNK)
            count = PROGRESS_CHUNK;
        for (uint64_t i = done; i < done + count; i++)
            xlog_info(NUMBERS_FORMAT, NUMBERS_ARGS(i));
        progress_add(count);
        done += count;
    }
    return NULL;
}

int measure_back_to_back(const xlog_config *config, uint64_t messages,
                         uint64_t (*wait_after_flush)(void *context), void *context,
                         bench_row *row)
{
    int rc = bench_xlog_open(config);
    if (rc != 0)
        return rc;
    back_to_back job = {.messages = messages};
    int64_t progress_writes_before = progress_write_calls();
    int64_t writes_before = process_write_calls();
    uint64_t bytes_before = directory_bytes(config->dir);
    pthread_t caller;
    rc = pthread_create(&caller, NULL, log_back_to_back, &job);
    if (rc != 0) {
        xlog_close();
        return -rc;
    }
    pthread_join(caller, NULL);
    xlog_flush();
    uint64_t finished = bench_ticks();
    row->write_calls = process_write_calls() - writes_before -
                       (progress_write_calls() - progress_writes_before);
    row->bytes_written = (int64_t)(directory_bytes(config->dir) - bytes_before);
    if (wait_after_flush != NULL) {
        row->files_seconds = ticks_to_ns(finished - job.started) * 1e-9;
        uint64_t collected = wait_after_flush(context);
        if (collected > finished)
            finished = collected;
    }
    row->seconds = ticks_to_ns(finished - job.started) * 1e-9;
    row->messages_per_s = (double)messages / row->seconds;
    row->throughput_messages = messages;
    row->messages_sent = messages;
    row->workers = 1;
    bench_xlog_close(row);
    row->available = 1;
    return 0;
}

static void run_back_to_back(const xlog_config *config, uint64_t messages, bench_row *row)
{
    int rc = measure_back_to_back(config, messages, NULL, NULL, row);
    if (rc != 0)
        snprintf(row->note, sizeof row->note, "xlog_open: %s", xlog_strerror(rc));
}

void run_xlog_throughput(const bench_options *options, const char *dir, bench_row *row)
{
    xlog_config config = bench_xlog_config(dir, XLOG_FILE_SHARED);
    run_back_to_back(&config, options->throughput_messages, row);
}

void run_xlog_json_throughput(const bench_options *options, const char *dir, bench_row *row)
{
    xlog_config config = bench_xlog_config(dir, XLOG_FILE_SHARED);
    config.file_layout = XLOG_LAYOUT_JSON;
    row->line_shape = LINE_JSON;
    run_back_to_back(&config, options->throughput_messages, row);
}

void run_xlog_binary_throughput(const bench_options *options, const char *dir, bench_row *row)
{
    xlog_config config = bench_xlog_config(dir, XLOG_FILE_SHARED);
    config.file_layout = XLOG_LAYOUT_BINARY;
    row->line_shape = LINE_BINARY;
    run_back_to_back(&config, options->throughput_messages, row);
}

/* ---- the burst, in a fresh process --------------------------------------- */

static int64_t memory_bound_kib(void)
{
    xlog_config defaults = xlog_defaults();
    return (int64_t)((defaults.ring_size + defaults.write_buffer) / 1024);
}

void xlog_burst_process(const bench_options *options, const char *dir, bench_row *row)
{
    row->rss_before_kib = process_rss_kib();
    xlog_config config = bench_xlog_config(dir, XLOG_FILE_SHARED);
    run_back_to_back(&config, options->burst_messages, row);
    row->peak_rss_kib = process_peak_rss_kib();
    row->memory_bound_kib = memory_bound_kib();
}

void run_xlog_burst(const bench_options *options, const char *dir, bench_row *row)
{
    run_in_fresh_process("burst", options, dir, row);
}
