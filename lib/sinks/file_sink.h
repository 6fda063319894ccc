/*
 * file_sink.h - a log file as the back end sees it: a name that follows the
 * date, a descriptor opened once, and a buffer written with one write(2)
 * when it is full or due; and the sinks' start, stop and housekeeping
 * (rotation by size, reopening files renamed or deleted by others, the
 * console and the compressor).
 */
#ifndef XLOG_FILE_SINK_H
#define XLOG_FILE_SINK_H

#include <stddef.h>
#include <stdint.h>

#include "xlog.h"

typedef struct xlog_file {
    int fd;                  /* -1 while closed */
    int64_t day;             /* day of the open file's name (UTC or local) */
    int64_t day_start;       /* UTC nanoseconds: lines in [day_start, day_end) */
    int64_t day_end;         /* belong to the open file's day */
    char *path;              /* name of the file of day; NULL before the first open */
    xlog_file_mode mode;
    int id;                  /* tid (per-thread) or pid (per-process) in the name */
    int no_follow;           /* refuse a link as the directory or the file
                                (cfg.follow_symlinks == 0) */
    const char *dir;
    char *buffer;
    size_t length;           /* bytes waiting in buffer */
    size_t capacity;
    uint64_t pending_since;  /* ticks when buffer last became non-empty */
    int64_t open_failed_at;  /* monotonic second of the last failed open, or 0 */

    /* Lines that could not be written (full disk, I/O error, no file), not
     * yet reported in the file.  The back end puts a notice at the start of
     * the next batch; once the notice itself is written, its counts are
     * taken off these (whatever happens to the rest of the batch). */
    uint64_t lost_lines;
    uint64_t lost_bytes;
    int lost_errno;
    int cut_mid_line;        /* the file ends inside a line (a short write) */
    int notice_in_buffer;    /* the buffer starts with a loss notice ... */
    uint64_t notice_lines;   /* ... reporting these counts ... */
    uint64_t notice_bytes;
    size_t notice_length;    /* ... in its first notice_length bytes */

    /* Every initialised file, for the periodic check (back end only). */
    struct xlog_file *prev_file, *next_file;
} xlog_file;

/* Starts what the files and the console need beyond the back end: rotation
 * settings, the compressor and the console's writer.  0 or -errno (-ELOOP:
 * without cfg->follow_symlinks, the log directory is a link). */
int xlog_sinks_start(const xlog_config *cfg);

/* Ends the console's writer and the compressor (after the back end and every
 * file are closed). */
void xlog_sinks_stop(void);

/* Called by the back end once per pass: reopens the files when xlog_reopen()
 * asked for it, and every check_interval_ms reopens those whose name no
 * longer leads to them; gives the console its drop notice. */
void xlog_sinks_housekeeping(void);

/* Prepares f (closed, with an empty buffer of capacity bytes); 0 or -errno. */
int xlog_file_init(xlog_file *f, const char *dir, xlog_file_mode mode, int id, size_t capacity);

/* Makes f's descriptor the file for a line at utc (nanoseconds), writing out
 * and closing the file of another day first.  A missing directory is created
 * again.  0 or -errno (the caller then counts the line as lost).  Costs two
 * compares while the day stays the same. */
static inline int xlog_file_use_time(xlog_file *f, int64_t utc);
int xlog_file_switch_day(xlog_file *f, int64_t utc);

/* Makes room for need bytes in the buffer, writing it out if necessary. */
static inline char *xlog_file_room(xlog_file *f, size_t need);

/* Writes the buffer with one write(2) (after opening the name again if it
 * no longer leads to the open file), or, when that would take the file past
 * rotate_size, with one write of the whole lines that fit, a rotation and a
 * write of the rest.  The buffer holds whole lines only, so a write never
 * ends inside a line, except after a short write (the disk is full, a file
 * size limit): the rest is written at once, but with several processes
 * appending, another's write may land between the two parts.  What cannot
 * be written is counted as lost (never retried in a loop). */
void xlog_file_write_out(xlog_file *f);

/* Writes out, closes, frees the buffer. */
void xlog_file_destroy(xlog_file *f);

/* Creates dir and its parents (mode 0750); 0 or -errno. */
int xlog_make_dir(const char *dir);

/* Counts one line as lost (it could not be formatted into a file). */
void xlog_file_lose_line(xlog_file *f, int error);

/* Builds the name of f's file for a day into out. */
int xlog_file_name(const xlog_file *f, int64_t day, char *out, size_t size);

static inline int xlog_file_use_time(xlog_file *f, int64_t utc)
{
    if (f->fd >= 0 && utc >= f->day_start && utc < f->day_end)
        return 0;
    return xlog_file_switch_day(f, utc);
}

static inline char *xlog_file_room(xlog_file *f, size_t need)
{
    if (f->capacity - f->length < need)
        xlog_file_write_out(f);
    return f->buffer + f->length;
}

#endif
