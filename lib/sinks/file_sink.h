/*
 * file_sink.h - a log file as the back end sees it: a name that follows the
 * date, a descriptor opened once, and a buffer written with one write(2)
 * when it is full or due.
 */
#ifndef XLOG_FILE_SINK_H
#define XLOG_FILE_SINK_H

#include <stddef.h>
#include <stdint.h>

#include "xlog.h"

typedef struct xlog_file {
    int fd;                  /* -1 while closed */
    int64_t day;             /* UTC day of the open file's name */
    xlog_file_mode mode;
    int id;                  /* tid (per-thread) or pid (per-process) in the name */
    const char *dir;
    char *buffer;
    size_t length;           /* bytes waiting in buffer */
    size_t capacity;
    uint64_t pending_since;  /* ticks when buffer last became non-empty */
    int64_t open_failed_at;  /* monotonic second of the last failed open, or 0 */

    /* Lines that could not be written (full disk, I/O error, no file), not
     * yet reported in the file.  The back end puts a notice at the start of
     * the next batch; the counts are cleared when that batch is written. */
    uint64_t lost_lines;
    uint64_t lost_bytes;
    int lost_errno;
    int cut_mid_line;        /* the file ends inside a line (a short write) */
    int notice_in_buffer;    /* the buffer starts with a loss notice ... */
    uint64_t notice_lines;   /* ... reporting these counts */
    uint64_t notice_bytes;
} xlog_file;

/* Prepares f (closed, with an empty buffer of capacity bytes); 0 or -errno. */
int xlog_file_init(xlog_file *f, const char *dir, xlog_file_mode mode, int id, size_t capacity);

/* Makes f's descriptor the file of that UTC day, writing out and closing the
 * file of another day first.  A missing directory is created again.  0 or
 * -errno (the caller then counts the line as lost). */
int xlog_file_use_day(xlog_file *f, int64_t day);

/* Makes room for need bytes in the buffer, writing it out if necessary. */
static inline char *xlog_file_room(xlog_file *f, size_t need);

/* Writes the buffer with as few write(2) calls as the kernel allows; what
 * cannot be written is counted as lost (never retried in a loop). */
void xlog_file_write_out(xlog_file *f);

/* Writes out, closes, frees the buffer. */
void xlog_file_destroy(xlog_file *f);

/* Creates dir and its parents (mode 0750); 0 or -errno. */
int xlog_make_dir(const char *dir);

/* Counts one line as lost (it could not be formatted into a file). */
void xlog_file_lose_line(xlog_file *f, int error);

/* Builds the name of f's file for a day into out. */
int xlog_file_name(const xlog_file *f, int64_t day, char *out, size_t size);

static inline char *xlog_file_room(xlog_file *f, size_t need)
{
    if (f->capacity - f->length < need)
        xlog_file_write_out(f);
    return f->buffer + f->length;
}

#endif
