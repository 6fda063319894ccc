/*
 * strategy_flock.c - the Log4PHP note's option 4, the one its team chose: several
 * processes keep one shared file open (O_APPEND) and take an exclusive flock
 * around every line: flock(LOCK_EX), write(2), flock(LOCK_UN).
 *
 * The workers are forked processes (see runner.c); each formats its line on
 * its own stack before taking the lock, so the lock is held for one write.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/file.h>
#include <unistd.h>

#include "runner.h"
#include "strategies.h"

static int flock_worker_begin(bench_worker *w)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/flock-shared.log", w->dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
    if (fd < 0)
        return -errno;
    w->state = (void *)(intptr_t)fd;
    return 0;
}

static void locked_log(int fd, const char *file, int line, const char *func, const char *format,
                       ...)
{
    char text[LINE_CAPACITY];
    va_list args;
    va_start(args, format);
    size_t length = default_line_vformat(text, sizeof text, file, line, func, format, args);
    va_end(args);
    flock(fd, LOCK_EX);
    write_all(fd, text, length);
    flock(fd, LOCK_UN);
}

#define LOCKED_LOG(fd, ...) locked_log(fd, __FILE__, __LINE__, __func__, __VA_ARGS__)

static void flock_calls(bench_worker *w, uint64_t first, uint64_t count, uint64_t *samples)
{
    int fd = (int)(intptr_t)w->state;
    BENCH_MESSAGE_CALLS(w->payload, samples, first, count, LOCKED_LOG, fd);
}

static void flock_worker_end(bench_worker *w)
{
    close((int)(intptr_t)w->state);
}

const phased_strategy flock_processes_strategy = {
    .multi_worker = 1,
    .workers_are_processes = 1,
    .worker_begin = flock_worker_begin,
    .calls = flock_calls,
    .worker_end = flock_worker_end,
};
