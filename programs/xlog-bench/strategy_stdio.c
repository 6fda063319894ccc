/*
 * strategy_stdio.c - the stdio strategies of the field notes on the in-house
 * C logger and on std::endl (docs/BENCHMARKS.md, "Where the strategies come
 * from"), as their authors wrote them (with the in-house logger's
 * fprintf(fp, format, ap) bug fixed to vfprintf):
 *
 *   open-close   fopen, fprintf, fclose at every line (the in-house logger's
 *                "ALWAYS OPEN/CLOSE", the Log4PHP note's option 2);
 *   stdio-once   one FILE opened before the first line (its "ONCE OPEN");
 *   thread-files one FILE per thread, <dir>/YYYY-MM-DD-<tid>.log, opened by the
 *                thread's first line and reopened when the date changes (its
 *                "THREAD LOG");
 *   flush-each   one FILE, fflush after every line (the std::endl note).
 *
 * Each line reads CLOCK_REALTIME and runs gmtime_r, as the in-house logger does.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>

#include "runner.h"
#include "strategies.h"

static FILE *open_in(const char *dir, const char *name)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return fopen(path, "a+");
}

static void dated_path(char *path, size_t capacity, const char *dir, const line_clock *clock)
{
    snprintf(path, capacity, "%s/%04d-%02d-%02d-%d.log", dir, clock->utc.tm_year + 1900,
             clock->utc.tm_mon + 1, clock->utc.tm_mday, (int)workload_thread_id());
}

/* ---- open, append, close on every line ---------------------------------- */

static void open_close_log(const char *dir, const char *file, int line, const char *func,
                           const char *format, ...)
{
    line_clock clock;
    line_clock_now(&clock);
    char path[PATH_MAX];
    dated_path(path, sizeof path, dir, &clock);
    FILE *stream = fopen(path, "a+");
    if (stream == NULL)
        return;
    va_list args;
    va_start(args, format);
    default_line_vfprintf(stream, &clock, file, line, func, format, args);
    va_end(args);
    fclose(stream);
}

#define OPEN_CLOSE_LOG(dir, ...) open_close_log(dir, __FILE__, __LINE__, __func__, __VA_ARGS__)

static void open_close_calls(bench_worker *w, uint64_t first, uint64_t count, uint64_t *samples)
{
    BENCH_MESSAGE_CALLS(w->payload, samples, first, count, OPEN_CLOSE_LOG, w->dir);
}

const phased_strategy open_close_strategy = {
    .calls = open_close_calls,
};

/* ---- one stdio file for every thread: kept open (the in-house logger's "ONCE OPEN"), or
 * flushed after every line (the std::endl note) ---------------------------- */

static int open_shared_stream(const char *dir, const char *name, void **shared)
{
    FILE *stream = open_in(dir, name);
    if (stream == NULL)
        return -errno;
    *shared = stream;
    return 0;
}

static void stream_log(FILE *stream, int flush, const char *file, int line, const char *func,
                       const char *format, ...)
{
    line_clock clock;
    line_clock_now(&clock);
    va_list args;
    va_start(args, format);
    default_line_vfprintf(stream, &clock, file, line, func, format, args);
    va_end(args);
    if (flush)
        fflush(stream);
}

#define STREAM_LOG(stream, flush, ...)                                                     \
    stream_log(stream, flush, __FILE__, __LINE__, __func__, __VA_ARGS__)

/* (Named as long as the two functions it replaced, stdio_once_calls and
 * flush_each_calls, so that the lines keep their length: __func__ is in them.) */
static void stdio_file_calls(bench_worker *w, uint64_t first, uint64_t count, uint64_t *samples,
                             int flush)
{
    FILE *stream = w->shared;
    BENCH_MESSAGE_CALLS(w->payload, samples, first, count, STREAM_LOG, stream, flush);
}

static int stdio_once_setup(const char *dir, void **shared)
{
    return open_shared_stream(dir, "stdio-once.log", shared);
}

static void stdio_once_calls(bench_worker *w, uint64_t first, uint64_t count, uint64_t *samples)
{
    stdio_file_calls(w, first, count, samples, 0);
}

static void flush_shared_stream(bench_worker *w)
{
    fflush(w->shared);
}

static void flush_stream(void *shared)
{
    fflush(shared);
}

static void close_stream(void *shared, bench_row *row)
{
    (void)row;
    fclose(shared);
}

const phased_strategy stdio_once_strategy = {
    .setup = stdio_once_setup,
    .calls = stdio_once_calls,
    .worker_sync = flush_shared_stream,
    .finish = flush_stream,
    .teardown = close_stream,
};

static int flush_each_setup(const char *dir, void **shared)
{
    return open_shared_stream(dir, "flush-each.log", shared);
}

static void flush_each_calls(bench_worker *w, uint64_t first, uint64_t count, uint64_t *samples)
{
    stdio_file_calls(w, first, count, samples, 1);
}

const phased_strategy flush_each_strategy = {
    .setup = flush_each_setup,
    .calls = flush_each_calls,
    .teardown = close_stream,
};

/* ---- one stdio file per thread, reopened on date change ----------------- */

typedef struct thread_log {
    FILE *stream;
    int date;
} thread_log;

static __thread thread_log this_thread_log;

static void thread_file_log(const char *dir, const char *file, int line, const char *func,
                            const char *format, ...)
{
    line_clock clock;
    line_clock_now(&clock);
    thread_log *log = &this_thread_log;
    if (log->stream == NULL || log->date != clock.date) {
        if (log->stream != NULL)
            fclose(log->stream);
        char path[PATH_MAX];
        dated_path(path, sizeof path, dir, &clock);
        log->stream = fopen(path, "a+");
        log->date = clock.date;
        if (log->stream == NULL)
            return;
    }
    va_list args;
    va_start(args, format);
    default_line_vfprintf(log->stream, &clock, file, line, func, format, args);
    va_end(args);
}

#define THREAD_FILE_LOG(dir, ...) thread_file_log(dir, __FILE__, __LINE__, __func__, __VA_ARGS__)

static void thread_files_calls(bench_worker *w, uint64_t first, uint64_t count, uint64_t *samples)
{
    BENCH_MESSAGE_CALLS(w->payload, samples, first, count, THREAD_FILE_LOG, w->dir);
}

static void flush_thread_file(bench_worker *w)
{
    (void)w;
    if (this_thread_log.stream != NULL)
        fflush(this_thread_log.stream);
}

static void close_thread_file(bench_worker *w)
{
    (void)w;
    if (this_thread_log.stream != NULL)
        fclose(this_thread_log.stream);
    this_thread_log = (thread_log){0};
}

const phased_strategy thread_files_strategy = {
    .multi_worker = 1,
    .calls = thread_files_calls,
    .worker_sync = flush_thread_file,
    .worker_end = close_thread_file,
};
