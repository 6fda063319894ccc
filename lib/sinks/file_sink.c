/*
 * file_sink.c - log files: naming, opening once, writing in large blocks.
 *
 * Names (note 000): <dir>/YYYY-MM-DD.log for the shared file,
 * <dir>/YYYY-MM-DD-<tid>.log per thread, <dir>/YYYY-MM-DD-p<pid>.log per
 * process.  The day is the UTC day of the line being written, so a file
 * changes name at midnight UTC, between two lines.
 *
 * Files are opened O_APPEND (several processes may share one, and each write
 * lands whole at the end), O_CLOEXEC (a child that execs does not inherit it),
 * mode 0640.  Lines are gathered in a buffer and written with one write(2)
 * when it is full, when it has waited flush_interval_ms, or on a flush;
 * short writes are resumed and EINTR retried.  A write that fails is counted
 * and its bytes are given up: the back end never loops on a broken disk.
 */
#define _GNU_SOURCE
#include "sinks/file_sink.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/line.h"
#include <time.h>
#include "common/internal.h"

int xlog_file_init(xlog_file *f, const char *dir, xlog_file_mode mode, int id, size_t capacity)
{
    memset(f, 0, sizeof *f);
    f->fd = -1;
    f->dir = dir;
    f->mode = mode;
    f->id = id;
    f->capacity = capacity;
    f->buffer = malloc(capacity);
    return f->buffer ? 0 : -ENOMEM;
}

int xlog_file_name(const xlog_file *f, int64_t day, char *out, size_t size)
{
    int year, month, mday;
    xlog_date_of_day(day, &year, &month, &mday);
    int n;
    switch (f->mode) {
    case XLOG_FILE_PER_THREAD:
        n = snprintf(out, size, "%s/%04d-%02d-%02d-%d.log", f->dir, year, month, mday, f->id);
        break;
    case XLOG_FILE_PER_PROCESS:
        n = snprintf(out, size, "%s/%04d-%02d-%02d-p%d.log", f->dir, year, month, mday, f->id);
        break;
    default:
        n = snprintf(out, size, "%s/%04d-%02d-%02d.log", f->dir, year, month, mday);
        break;
    }
    return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int xlog_make_dir(const char *dir)
{
    char path[PATH_MAX];
    size_t n = strlen(dir);
    if (n == 0 || n >= sizeof path)
        return n ? -ENAMETOOLONG : -EINVAL;
    memcpy(path, dir, n + 1);
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(path, 0750) != 0 && errno != EEXIST)
            return -errno;
        *p = '/';
    }
    if (mkdir(path, 0750) != 0 && errno != EEXIST)
        return -errno;
    struct stat st;
    if (stat(path, &st) != 0)
        return -errno;
    return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

int xlog_file_use_day(xlog_file *f, int64_t day)
{
    if (f->fd >= 0 && f->day == day)
        return 0;
    if (f->fd >= 0) {
        xlog_file_write_out(f);
        close(f->fd);
        f->fd = -1;
    }
    /* After a failed open, try again at most once a second. */
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
    if (f->open_failed_at && now.tv_sec <= f->open_failed_at)
        return -EAGAIN;
    char path[PATH_MAX];
    int rc = xlog_file_name(f, day, path, sizeof path);
    if (rc != 0)
        return rc;
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
    if (fd < 0 && errno == ENOENT && xlog_make_dir(f->dir) == 0)
        fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
    if (fd < 0) {
        rc = -errno;
        xlog_add(&xlog_counts.write_errors, 1);
        f->open_failed_at = now.tv_sec;
        return rc;
    }
    f->open_failed_at = 0;
    f->fd = fd;
    f->day = day;
    return 0;
}

void xlog_file_lose_line(xlog_file *f, int error)
{
    f->lost_lines++;
    f->lost_errno = error;
    xlog_add(&xlog_counts.lost, 1);
}

static uint64_t count_lines(const char *p, size_t n)
{
    uint64_t lines = 0;
    for (const char *end = p + n; (p = memchr(p, '\n', (size_t)(end - p))); p++)
        lines++;
    return lines;
}

void xlog_file_write_out(xlog_file *f)
{
    size_t done = 0;
    int error = f->fd >= 0 ? 0 : EBADF;
    while (done < f->length && !error) {
        ssize_t n = write(f->fd, f->buffer + done, f->length - done);
        if (n > 0) {
            xlog_add(&xlog_counts.writes, 1);
            xlog_add(&xlog_counts.bytes, (uint64_t)n);
            done += (size_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else {
            error = n < 0 ? errno : EIO;
            xlog_add(&xlog_counts.write_errors, 1);
        }
    }
    if (error) {
        uint64_t lines = count_lines(f->buffer + done, f->length - done);
        f->lost_lines += lines;
        f->lost_bytes += f->length - done;
        f->lost_errno = error;
        f->notice_in_buffer = 0;
        xlog_add(&xlog_counts.lost, lines);
    } else if (f->notice_in_buffer) {
        f->lost_lines -= f->notice_lines;
        f->lost_bytes -= f->notice_bytes;
        f->notice_in_buffer = 0;
    }
    if (done > 0)
        f->cut_mid_line = f->buffer[done - 1] != '\n';
    f->length = 0;
}

void xlog_file_destroy(xlog_file *f)
{
    xlog_file_write_out(f);
    if (f->fd >= 0)
        close(f->fd);
    f->fd = -1;
    free(f->buffer);
    f->buffer = NULL;
}
