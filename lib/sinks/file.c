/*
 * file.c - a log file: naming, opening once, writing in large blocks,
 * rotating by size and by day (see file.h; the file sink, file_sink.c,
 * decides what goes into which file).
 *
 * Names: <dir>/YYYY-MM-DD.log for the shared file,
 * <dir>/YYYY-MM-DD-<tid>.log per thread, <dir>/YYYY-MM-DD-p<pid>.log per
 * process, each maybe with the rules' prefix and a '-' before the date, and
 * with hourly files "-HH" after it.  The day (or hour) is the one of the
 * line being written (UTC, or local time with rotate_local_time), so a file
 * changes name at midnight (or on the hour), between two lines.  Size
 * rotation adds .1, .2, ... to these names (rotation.c).
 *
 * Files are opened O_APPEND (several processes may share one, and each write
 * lands whole at the end), O_CLOEXEC (a child that execs does not inherit it),
 * mode 0640.  Lines are gathered in a buffer and written with one write(2)
 * when it is full, when it has waited flush_interval_ms, or on a flush;
 * short writes are resumed and EINTR retried.  A write that fails is counted
 * and its bytes stay in the buffer, tried again at most every 100 ms, until
 * the buffer is needed for newer lines: then the old bytes are given up and
 * counted as lost (the newer lines win), and a notice says how many once
 * writing works again.  The back end never loops on a broken disk.
 *
 * Before each write(2) the back end checks that the file's name still leads
 * to the open file (fstat and stat; one pair per buffer, never per line) and
 * opens the name again if not, so a file renamed or deleted by someone else
 * (logrotate, another process's rotation) receives at most the write under
 * way when that happens.
 *
 * Rotation (docs/OUTPUTS.md):
 *   - by day: the name follows the day of each line (UTC, or local time with
 *     rotate_local_time); the old day's file is closed, queued for
 *     compression, and the files of days beyond keep_days are removed;
 *   - by size: a buffer that would take the file past rotate_size is split
 *     at the last line that fits; then the back end takes the directory
 *     lock, checks that the name still leads to its file (another process
 *     may have rotated it already), renames the chain (rotation.c), opens the
 *     name anew and writes the rest there.  An empty file always takes one
 *     line, so only a line longer than rotate_size makes a bigger file.
 *     Writes never take the lock.
 *   - by others: besides the check before each write, the file sink does
 *     the same check for every open file every check_interval_ms (so idle
 *     files are let go too), and at once on xlog_reopen().  Lines still in
 *     the buffer go to the new file.
 *
 * Binary files (rules->binary: XLOG_LAYOUT_BINARY, named .xlog, numbered
 * <date>.N.xlog by rotation.c) hold blocks, not lines (file_sink.c makes
 * them): a buffer is never split by size rotation (a file that the buffer
 * would take past rotate_size is rotated first, unless it is empty), and
 * the rest of a block cut by a short write is given up at once rather than
 * written after what other processes appended since.  What is lost is
 * counted in messages (block_messages), not in newline bytes: of a block a
 * short write cut, the messages whose entries do not end before the cut.
 *
 * Without follow_symlinks, each open goes through a descriptor of the
 * directory opened with O_NOFOLLOW, so that neither the directory nor the
 * file can be a symbolic link (docs/OUTPUTS.md says what is not checked).
 */
#define _GNU_SOURCE
#include "sinks/file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <time.h>

#include "base/atomics.h"
#include "base/counters.h"
#include "base/date.h"
#include "binary/decode.h"
#include "sinks/compress.h"
#include "sinks/rotation.h"

int xlog_file_init(xlog_file *f, const xlog_file_rules *rules, int id, size_t capacity)
{
    memset(f, 0, sizeof *f);
    f->rules = rules;
    f->fd = -1;
    f->id = id;
    f->capacity = capacity;
    size_t size = sizeof(xlog_survival_file) + capacity;
    /* Reserved whole: the back end fills a buffer from its start to its
     * end at any time, and a page the file could not have would be a
     * SIGBUS (lib/shm/shm.c, "Room"); without that room, ordinary
     * memory (counted in xlog_counters.not_persistent). */
    size_t reserve = size;
    f->header = xlog_survival_map("file", size, &reserve, &f->slot, &f->generation);
    if (!f->header) {
        f->generation = 0;
        f->header = calloc(1, size);
        if (!f->header)
            return -ENOMEM;
    }
    f->header->id = id;
    f->header->sink = rules->index;
    f->header->capacity = capacity;
    memcpy(f->header->magic, XLOG_SURVIVAL_MAGIC, sizeof f->header->magic);
    f->buffer = (char *)(f->header + 1);
    return 0;
}

static void give_up(xlog_file *f);

/* length and written, mirrored in the header for recovery. */
static void set_length(xlog_file *f, size_t length)
{
    f->length = length;
    __atomic_store_n(&f->header->length, length, __ATOMIC_RELEASE);
}

static void set_written(xlog_file *f, size_t written)
{
    f->written = written;
    __atomic_store_n(&f->header->written, written, __ATOMIC_RELEASE);
}

void xlog_file_add_line(xlog_file *f, size_t n, uint32_t ring, uint64_t record_end)
{
    size_t length = f->length + n;
    if (record_end) {
        /* Void while the ring and record change: a kill between them must
         * not leave this line's record paired with the last line's length,
         * which the buffer's length still equals (recovery would take the
         * record for one in the buffer, and skip it). */
        __atomic_store_n(&f->header->last_length, 0, __ATOMIC_RELAXED);
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        f->header->last_ring = ring;
        f->header->last_record_end = record_end;
        __atomic_store_n(&f->header->last_length, length, __ATOMIC_RELEASE);
    }
    set_length(f, length);
}

int xlog_file_path(const xlog_file_rules *rules, int id, int64_t period, char *out, size_t size)
{
    char name[XLOG_PREFIX_MAX + 32];
    if (xlog_period_name(name, sizeof name, rules->prefix, rules->hourly, period) != 0)
        return -ENAMETOOLONG;
    const char *dir = rules->dir;
    int n;
    const char *extension = rules->binary ? "xlog" : "log";
    switch (rules->mode) {
    case XLOG_FILE_PER_THREAD:
        n = snprintf(out, size, "%s/%s-%d.%s", dir, name, id, extension);
        break;
    case XLOG_FILE_PER_PROCESS:
        n = snprintf(out, size, "%s/%s-p%d.%s", dir, name, id, extension);
        break;
    default:
        n = snprintf(out, size, "%s/%s.%s", dir, name, extension);
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

static int64_t coarse_seconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
    return now.tv_sec;
}

/* The log directory itself, refused if it is a symbolic link (without
 * follow_symlinks).  Trailing slashes are dropped first: they would make
 * open(2) follow a link whatever the flags.  O_PATH, because a directory
 * that may be searched need not be readable.  A descriptor, or -1 with
 * errno set (ELOOP for a link). */
int xlog_open_dir_no_follow(const char *dir)
{
    char path[PATH_MAX];
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    if (n >= sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(path, dir, n);
    path[n] = '\0';
    /* With O_PATH and O_NOFOLLOW, a link is opened as itself, not followed,
     * so fstat tells a link from a directory. */
    int fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st;
    int error = fstat(fd, &st) != 0 ? errno : S_ISLNK(st.st_mode) ? ELOOP
                                            : !S_ISDIR(st.st_mode) ? ENOTDIR
                                                                   : 0;
    if (error) {
        close(fd);
        errno = error;
        return -1;
    }
    return fd;
}

/* Opens f->path with flags.  Without follow_symlinks the file is opened in
 * the descriptor of its directory, so neither the file nor the directory
 * can be a link, even one put in place between a check and the open. */
static int open_name(const xlog_file *f, int flags)
{
    if (!f->rules->no_follow)
        return open(f->path, flags, 0640);
    int dir = xlog_open_dir_no_follow(f->rules->dir);
    if (dir < 0)
        return -1;
    int fd = openat(dir, strrchr(f->path, '/') + 1, flags | O_NOFOLLOW, 0640);
    int error = errno;
    close(dir);
    errno = error;
    return fd;
}

/* Opens f->path into f->fd; 0 or -errno. */
static int open_path(xlog_file *f)
{
    int flags = O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC;
    int fd = open_name(f, flags);
    if (fd < 0 && errno == ENOENT && xlog_make_dir(f->rules->dir) == 0)
        fd = open_name(f, flags);
    if (fd < 0) {
        int rc = -errno;
        xlog_add(&xlog_counts.write_errors, 1);
        f->open_failed_at = coarse_seconds();
        return rc;
    }
    f->open_failed_at = 0;
    f->fd = fd;
    struct stat st;
    f->file_size = fstat(fd, &st) == 0 ? (uint64_t)st.st_size : 0;
    return 0;
}

/* Closes f's file and opens its name again: a new file if the old one was
 * renamed or deleted.  The buffer is kept for the new file. */
static void reopen(xlog_file *f)
{
    close(f->fd);
    f->fd = -1;
    open_path(f);
}

/* Queues the compression of f's file, which is now called name (the day's
 * name itself, first = 0, or the .1 of a size rotation, first = 1, then
 * under the directory lock), while f still has it open: the compressor gets
 * a descriptor of its own on that very file, opened by name and checked
 * against f's, so that it can never take another file for it (an inode
 * number that retention freed and a newer file reused). */
static void queue_compression(const xlog_file *f, const char *name, unsigned first)
{
    if (f->rules->compress == XLOG_COMPRESS_NONE)
        return;
    int fd = open(name, O_RDONLY | O_CLOEXEC);
    struct stat mine, theirs;
    if (fd < 0)
        return; /* it stays uncompressed */
    if (fstat(f->fd, &mine) != 0 || fstat(fd, &theirs) != 0 || mine.st_ino != theirs.st_ino ||
        mine.st_dev != theirs.st_dev) {
        close(fd);
        return;
    }
    xlog_compress_queue(f->path, first, fd, f->rules->rotate_keep, f->rules->compress_delay_ms);
}

/* Removes the files of days beyond keep_days, once per new day. */
static void remove_old_days(const xlog_file *f, int64_t period)
{
    /* The rules are the sink's, shared by its files: the day they were
     * cleaned for is kept there. */
    xlog_file_rules *rules = (xlog_file_rules *)f->rules;
    int year, month, mday;
    int64_t day = rules->hourly ? period / 24 - (period % 24 < 0) : period;
    xlog_date_of_day(day, &year, &month, &mday);
    char date[16];
    snprintf(date, sizeof date, "%04d-%02d-%02d", year, month, mday);
    if (strcmp(date, rules->retention_date) <= 0)
        return;
    memcpy(rules->retention_date, date, sizeof rules->retention_date);
    /* Under the lock, like every removal and every compressor's rename, so
     * that a file is never compressed and removed at the same time. */
    int lock = xlog_dir_lock(rules->dir);
    xlog_remove_old_days(rules->dir, rules->prefix, rules->hourly, rules->mode, date,
                         rules->keep_days);
    xlog_dir_unlock(lock);
}

int xlog_file_switch_day(xlog_file *f, int64_t utc)
{
    int64_t start, end;
    int64_t day = xlog_name_period(utc, f->rules->local_time, f->rules->hourly, &start, &end);
    if (f->fd >= 0 && f->day == day) {
        f->day_start = start; /* the old bounds were a stop-gap (xlog_name_day) */
        f->day_end = end;
        return 0;
    }
    if (f->fd >= 0) {
        xlog_file_write_out(f);
        if (f->length > f->written)
            give_up(f); /* an old day's lines must not go to the new day's file */
        queue_compression(f, f->path, 0); /* the old day's file is rotated away */
        close(f->fd);
        f->fd = -1;
    }
    /* After a failed open, try again at most once a second. */
    if (f->open_failed_at && coarse_seconds() <= f->open_failed_at)
        return -EAGAIN;
    char path[PATH_MAX];
    int rc = xlog_file_path(f->rules, f->id, day, path, sizeof path);
    if (rc != 0)
        return rc;
    char *copy = strdup(path);
    if (!copy)
        return -ENOMEM;
    free(f->path);
    f->path = copy;
    snprintf(f->header->path, sizeof f->header->path, "%s", copy);
    rc = open_path(f);
    if (rc != 0)
        return rc;
    f->day = day;
    f->day_start = start;
    f->day_end = end;
    if (f->rules->keep_days)
        remove_old_days(f, day);
    return 0;
}

/* Whether f's name still leads to the file f has open (it was not renamed,
 * deleted, or rotated by another process); *mine receives the open file's
 * status.  A name that cannot be looked at for another reason than its
 * absence (EACCES, say) counts as leading to it. */
static int name_leads_to_file(const xlog_file *f, struct stat *mine)
{
    struct stat named;
    if (fstat(f->fd, mine) != 0 || mine->st_nlink == 0)
        return 0;
    if (stat(f->path, &named) != 0)
        return errno != ENOENT;
    return named.st_ino == mine->st_ino && named.st_dev == mine->st_dev;
}

/* Size rotation, under the directory lock: if the name still leads to f's
 * file (another process may have rotated it since we looked), the chain is
 * renamed and the file queued for compression; then the name is opened
 * anew.  0, or -1 if nothing could be done (f keeps its file). */
static int rotate(xlog_file *f)
{
    int lock = xlog_dir_lock(f->rules->dir);
    if (lock < 0)
        return -1;
    struct stat mine;
    int rc = 0;
    if (name_leads_to_file(f, &mine)) {
        rc = xlog_rotate_chain(f->path, f->rules->rotate_keep);
        char first[PATH_MAX];
        if (rc == 0 && xlog_numbered_path(first, sizeof first, f->path, 1) == 0)
            queue_compression(f, first, 1);
    }
    if (rc == 0)
        reopen(f);
    xlog_dir_unlock(lock);
    return rc == 0 ? 0 : -1;
}

/* Before each write(2): opens f's name again if it no longer leads to f's
 * file, so that a process that has not seen another's rotation (or
 * logrotate's rename) puts at most the write under way into the old file.
 * Returns 1 with *st the status of the file now open, 0 if none is. */
static int follow_name(xlog_file *f, struct stat *st)
{
    if (f->fd < 0)
        return 0;
    if (name_leads_to_file(f, st))
        return 1;
    reopen(f);
    return f->fd >= 0 && fstat(f->fd, st) == 0;
}

/* How many bytes of the buffer, from done on, the next write(2) takes: all
 * of them, or, when they would take the file past rotate_size, the whole
 * lines that still fit; when not one fits, the file is rotated first (see
 * the top of this file).  An empty file takes the first line however long
 * it is, so a file exceeds rotate_size only by holding a single line longer
 * than it.  When the file cannot be rotated, or is found full again twice
 * (other processes), the rest goes where it is. */
static size_t next_chunk(xlog_file *f, size_t done)
{
    const char *p = f->buffer + done;
    size_t n = f->length - done;
    struct stat st;
    int known = follow_name(f, &st);
    size_t limit = f->rules->rotate_size;
    for (int rotations = 0; known && limit; rotations++) {
        uint64_t size = (uint64_t)st.st_size;
        f->file_size = size;
        if (size + n <= limit)
            break;
        /* A binary file is never split inside its block: the block goes
         * whole to a file that has room, or to a new one. */
        if (f->rules->binary && size == 0)
            return n;
        if (f->rules->binary) {
            if (rotations == 2 || rotate(f) != 0)
                break;
            known = f->fd >= 0 && fstat(f->fd, &st) == 0;
            continue;
        }
        if (size < limit) {
            const char *nl = memrchr(p, '\n', limit - size);
            if (nl)
                return (size_t)(nl + 1 - p);
        }
        if (size == 0) {
            const char *nl = memchr(p, '\n', n);
            return nl ? (size_t)(nl + 1 - p) : n;
        }
        if (rotations == 2 || rotate(f) != 0)
            break;
        known = f->fd >= 0 && fstat(f->fd, &st) == 0;
    }
    return n;
}

/* Writes buffer[*done, end) with as many write(2) calls as that takes (a
 * short write is resumed, EINTR retried), advancing *done; 0 or the errno
 * that stopped it.  Each write(2) is announced in the header first (the
 * file, and its size), so that recovery can tell whether it happened if the
 * process dies before `written` moves. */
static int write_range(xlog_file *f, size_t *done, size_t end)
{
    if (f->fd < 0)
        return EBADF;
    xlog_survival_file *h = f->header;
    while (*done < end) {
        struct stat st;
        if (f->generation && fstat(f->fd, &st) == 0) {
            h->chunk_dev = st.st_dev;
            h->chunk_ino = st.st_ino;
            h->chunk_size = (uint64_t)st.st_size;
            snprintf(h->chunk_path, sizeof h->chunk_path, "%s", f->path);
            __atomic_store_n(&h->chunk, end - *done, __ATOMIC_RELEASE);
        }
        ssize_t n = write(f->fd, f->buffer + *done, end - *done);
        if (n > 0) {
            xlog_add(&xlog_counts.writes, 1);
            xlog_add(&xlog_counts.bytes, (uint64_t)n);
            *done += (size_t)n;
            f->file_size += (uint64_t)n;
            set_written(f, *done);
        }
        __atomic_store_n(&h->chunk, 0, __ATOMIC_RELEASE);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            xlog_add(&xlog_counts.write_errors, 1);
            return n < 0 ? errno : EIO;
        }
    }
    return 0;
}

void xlog_file_lose_line(xlog_file *f, int error)
{
    f->lost_lines++;
    f->lost_errno = error;
    xlog_add(&xlog_counts.lost, 1);
}

uint64_t xlog_count_lines(const char *p, size_t n)
{
    uint64_t lines = 0;
    for (const char *end = p + n; (p = memchr(p, '\n', (size_t)(end - p))); p++)
        lines++;
    return lines;
}

/* How long after a failed write the buffer is tried again. */
#define RETRY_MS 100

static int64_t coarse_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/* Empties the buffer (what was written is in the file; the rest is given
 * up). */
static void empty(xlog_file *f)
{
    /* length first: a buffer with written > length reads as empty. */
    set_length(f, 0);
    set_written(f, 0);
    f->notice_in_buffer = 0;
    f->notice_length = 0; /* a binary block's messages begin there */
    f->block_messages = 0;
}

/* How many messages of f's binary block a reader cannot show from the file
 * when only its first `written` bytes are there (a short write: a file size
 * limit, a full disk): the messages whose entries do not end before the
 * cut.  The library's own reader walks what was written, so the count is
 * what xlog-cat misses; a loss notice at the block's start (its entry ends
 * at notice_length) is no message.  Without memory for the reader the whole
 * block counts, an over-count.  Only after a write failed, never per entry. */
static uint64_t messages_past_cut(const xlog_file *f)
{
    if (f->written == 0)
        return f->block_messages;
    xlog_binary_reader *reader = xlog_binary_reader_new(f->path ? f->path : "a cut block");
    if (!reader)
        return f->block_messages;
    uint64_t shown = 0;
    int rc;
    while ((rc = xlog_binary_next(reader, (const uint8_t *)f->buffer, 0, f->written, 1)) !=
           XLOG_BINARY_END)
        if (rc == XLOG_BINARY_ENTRY && xlog_binary_entry_of(reader)->offset >= f->notice_length)
            shown++;
    xlog_binary_reader_free(reader);
    return shown < f->block_messages ? f->block_messages - shown : 0;
}

/* Gives up what the buffer still holds back, counting it as lost. */
static void give_up(xlog_file *f)
{
    size_t from = f->written;
    if (f->notice_in_buffer && from < f->notice_length)
        from = f->notice_length; /* a notice not written is no lost message */
    if (from < f->length) {
        uint64_t lines = f->rules->binary ? messages_past_cut(f)
                                          : xlog_count_lines(f->buffer + from, f->length - from);
        f->lost_lines += lines;
        f->lost_bytes += f->length - from;
        xlog_add(&xlog_counts.lost, lines);
    }
    if (f->written > 0 && !f->rules->binary)
        f->cut_mid_line = f->buffer[f->written - 1] != '\n';
    empty(f);
    f->failed_at = 0;
}

void xlog_file_write_out(xlog_file *f)
{
    size_t done = f->written;
    int error = 0;
    while (done < f->length && !error)
        error = write_range(f, &done, done + next_chunk(f, done));
    /* A loss notice heads the buffer.  Once it is in the file its counts
     * are reported, whatever becomes of the lines behind it. */
    if (f->notice_in_buffer && done >= f->notice_length) {
        f->lost_lines -= f->notice_lines;
        f->lost_bytes -= f->notice_bytes;
        f->notice_in_buffer = 0;
    }
    if (error) {
        /* Kept for a later try (it survives the process, too): a block that
         * nothing of was written stays whole, and takes more entries.  The
         * rest of a block cut by a short write could only follow whatever
         * other processes appended since, where no reader would find it. */
        f->lost_errno = error;
        if (f->rules->binary && done > 0)
            give_up(f);
        f->failed_at = coarse_ms();
        return;
    }
    f->failed_at = 0;
    if (done > 0 && !f->rules->binary)
        f->cut_mid_line = f->buffer[done - 1] != '\n';
    empty(f);
}

int64_t xlog_file_ms_to_retry(const xlog_file *f, int64_t now_ms)
{
    int64_t ms = f->failed_at ? f->failed_at + RETRY_MS - now_ms : 0;
    return ms > 0 ? ms : 0;
}

int xlog_file_retry_due(const xlog_file *f, int64_t now_ms)
{
    return xlog_file_ms_to_retry(f, now_ms) == 0;
}

char *xlog_file_room(xlog_file *f, size_t need)
{
    if (f->capacity - f->length < need) {
        xlog_file_write_out(f);
        if (f->capacity - f->length < need)
            give_up(f); /* the disk still fails: the new lines win */
    }
    return f->buffer + f->length;
}

void xlog_file_end_block(xlog_file *f)
{
    xlog_file_write_out(f);
    if (f->length > f->written)
        give_up(f);
}

void xlog_file_check_name(xlog_file *f, int forced)
{
    struct stat st;
    if (f->fd >= 0 && (forced || !name_leads_to_file(f, &st)))
        reopen(f);
}

/* Frees f's buffer: its file in the survival directory goes too. */
static void release_buffer(xlog_file *f)
{
    if (f->generation)
        xlog_survival_unmap(f->header, sizeof *f->header + f->capacity, "file", f->slot,
                            f->generation);
    else
        free(f->header);
    f->header = NULL;
    f->buffer = NULL;
}

void xlog_file_destroy(xlog_file *f)
{
    xlog_file_write_out(f);
    if (f->length > f->written)
        give_up(f);
    if (f->fd >= 0)
        close(f->fd);
    f->fd = -1;
    release_buffer(f);
    free(f->path);
    f->path = NULL;
    free(f->sites);
    f->sites = NULL;
    f->site_count = 0;
}

void xlog_file_abandon(xlog_file *f)
{
    if (f->fd >= 0)
        close(f->fd);
    if (f->generation)
        munmap(f->header, sizeof *f->header + f->capacity); /* the parent's file */
    memset(f, 0, sizeof *f);
    f->fd = -1;
}
