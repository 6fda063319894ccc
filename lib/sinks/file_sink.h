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
} xlog_file;

/* Prepares f (closed, with an empty buffer of capacity bytes); 0 or -errno. */
int xlog_file_init(xlog_file *f, const char *dir, xlog_file_mode mode, int id, size_t capacity);

/* Makes f's descriptor the file of that UTC day, writing out and closing the
 * file of another day first.  0 or -errno (the line is then discarded). */
int xlog_file_use_day(xlog_file *f, int64_t day);

/* Makes room for need bytes in the buffer, writing it out if necessary. */
static inline char *xlog_file_room(xlog_file *f, size_t need);

/* Writes the buffer with as few write(2) calls as the kernel allows. */
void xlog_file_write_out(xlog_file *f);

/* Writes out, closes, frees the buffer. */
void xlog_file_destroy(xlog_file *f);

/* Creates dir and its parents (mode 0750); 0 or -errno. */
int xlog_make_dir(const char *dir);

/* Builds the name of f's file for a day into out. */
int xlog_file_name(const xlog_file *f, int64_t day, char *out, size_t size);

static inline char *xlog_file_room(xlog_file *f, size_t need)
{
    if (f->capacity - f->length < need)
        xlog_file_write_out(f);
    return f->buffer + f->length;
}

#endif
