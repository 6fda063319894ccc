/*
 * file.h - one log file as the file sink sees it: a name that follows the
 * date, a descriptor opened once, and a buffer written with one write(2)
 * when it is full or due, rotated by size and by day, with what could not be
 * written counted for the loss notice.
 *
 * The file sink (file_sink.c) owns one of these for the shared or
 * per-process file, or one per thread; this file knows nothing of lines
 * beyond that they end in '\n'.
 */
#ifndef XLOG_FILE_H
#define XLOG_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "event/event.h"
#include "shm/shm.h"
#include "xlog.h"

/* What every file of one configuration shares (set by the file sink at its
 * start, read and updated by the back end only). */
/* The longest file name prefix (cfg.file_prefix, a listed file sink's). */
#define XLOG_PREFIX_MAX XLOG_SURVIVAL_PREFIX_MAX

typedef struct xlog_file_rules {
    const char *dir;            /* absolute (xlog_open made it so) */
    const char *prefix;         /* before the date in every name, or NULL */
    int hourly;                 /* a file per hour: periods are hours */
    uint32_t index;             /* which set of files of the process: 0 the
                                   main ones, i the i-th listed file sink
                                   (as the survival directory lists them) */
    xlog_file_mode mode;
    int no_follow;              /* refuse a link as the directory or the file
                                   (cfg.follow_symlinks == 0) */
    size_t rotate_size;
    unsigned rotate_keep;
    unsigned keep_days;
    int local_time;             /* names follow local dates */
    int binary;                 /* XLOG_LAYOUT_BINARY: .xlog names, blocks */
    xlog_compress compress;
    unsigned compress_delay_ms;
    char retention_date[11];    /* the newest day old files were removed for */
} xlog_file_rules;

typedef struct xlog_file {
    const xlog_file_rules *rules;
    int fd;                  /* -1 while closed */
    int64_t day;             /* period of the open file's name (xlog_name_period:
                                its day, or its hour with rules->hourly) */
    int64_t day_start;       /* UTC nanoseconds: lines in [day_start, day_end) */
    int64_t day_end;         /* belong to the open file's period */
    char *path;              /* name of the file of day; NULL before the first open */
    int id;                  /* tid (per-thread) or pid (per-process) in the name */
    /* The buffer, with its header (lib/shm/shm.h): in a file of the
     * survival directory, so that its lines outlive the process, or in
     * anonymous memory (generation 0).  length and written are mirrored
     * there at every change. */
    xlog_survival_file *header;
    char *buffer;
    uint32_t slot;
    uint32_t generation;
    size_t length;           /* bytes of whole lines in the buffer */
    size_t written;          /* of those, bytes in the file (after a failed write) */
    size_t capacity;
    int64_t pending_since;   /* CLOCK_MONOTONIC_COARSE ms when buffer last became
                                non-empty */
    int64_t failed_at;       /* ... when a write last failed, or 0 */
    int64_t open_failed_at;  /* monotonic second of the last failed open, or 0 */

    /* Lines that could not be written (full disk, I/O error, no file), not
     * yet reported in the file.  The sink puts a notice at the start of the
     * next batch; once the notice itself is written, its counts are taken
     * off these (whatever happens to the rest of the batch). */
    uint64_t lost_lines;
    uint64_t lost_bytes;
    int lost_errno;
    int cut_mid_line;        /* the file ends inside a line (a short write) */
    int notice_in_buffer;    /* the buffer starts with a loss notice ... */
    uint64_t notice_lines;   /* ... reporting these counts ... */
    uint64_t notice_bytes;
    size_t notice_length;    /* ... in its first notice_length bytes (0: none
                                since the buffer was last emptied) */

    /* A binary file's buffer holds one block (docs/BINARY.md) from its
     * start, or nothing: the block's number among this file's (so that a
     * site's entry tells whether the block defines it), the thread of its
     * last entry, the time its next entry counts from, and how many
     * messages it holds (the loss count, where text counts lines). */
    uint32_t block_serial;
    int block_tid;
    int64_t block_time;
    uint64_t block_messages;
    uint64_t block_context;  /* the id of the context its entries carry (0: none) */
    /* The Thread name entries of the block (file_sink.c, name_entry): the
     * number of the last name given, and a few threads' names. */
    uint32_t named_id, named_serial;
    struct xlog_file_name {
        int tid;
        uint32_t block_serial;
        size_t length;
        char name[XLOG_THREAD_NAME_MAX];
    } named[8];
    /* Per site number, what the file sink knows of the site in this file
     * (file_sink.c). */
    struct xlog_file_site *sites;
    size_t site_count;
    /* Bytes of the open file as last seen (a binary file ends its block
     * early rather than pass rotate_size). */
    uint64_t file_size;
} xlog_file;

/* Prepares f (closed, with an empty buffer of capacity bytes); 0 or -errno. */
int xlog_file_init(xlog_file *f, const xlog_file_rules *rules, int id, size_t capacity);

/* Makes f's descriptor the file for a line at utc (nanoseconds), writing out
 * and closing the file of another day first.  A missing directory is created
 * again.  0 or -errno (the caller then counts the line as lost).  Costs two
 * compares while the day stays the same. */
static inline int xlog_file_use_time(xlog_file *f, int64_t utc);
int xlog_file_switch_day(xlog_file *f, int64_t utc);

/* Makes room for need bytes in the buffer, writing it out if necessary (and
 * giving up what a failing disk still holds back, counted as lost, if
 * that is the only way). */
char *xlog_file_room(xlog_file *f, size_t need);

/* The line of n bytes just written at xlog_file_room's place is in the
 * buffer; it is the line of the record of ring slot ring ending at
 * record_end (0 for a line of xlog's own), which recovery must know (see
 * survival.h, "Exactly once"). */
void xlog_file_add_line(xlog_file *f, size_t n, uint32_t ring, uint64_t record_end);

/* Writes what the buffer holds with one write(2) (after opening the name
 * again if it no longer leads to the open file), or, when that would take
 * the file past rotate_size, with one write of the whole lines that fit, a
 * rotation and a write of the rest.  The buffer holds whole lines only, so
 * a write never ends inside a line, except after a short write (the disk is
 * full, a file size limit).  What cannot be written stays in the buffer for
 * a later try (xlog_file_retry_due; never a loop on a broken disk), and
 * survives the process; it is counted as lost only when the buffer must
 * make room, or at the end. */
void xlog_file_write_out(xlog_file *f);

/* Whether a write that failed may be tried again (a tenth of a second
 * later), or none failed. */
int xlog_file_retry_due(const xlog_file *f, int64_t now_ms);
/* Milliseconds until that try, or 0 (due, or none failed). */
int64_t xlog_file_ms_to_retry(const xlog_file *f, int64_t now_ms);

/* Opens f's name again if it no longer leads to f's file (renamed, deleted,
 * rotated by another process), or always when forced (xlog_reopen). */
void xlog_file_check_name(xlog_file *f, int forced);

/* Writes out (counting as lost what still cannot be written), closes,
 * frees the buffer. */
void xlog_file_destroy(xlog_file *f);

/* In the child of fork(): closes f's descriptor and forgets f without
 * writing or freeing anything (its lines and memory are the parent's). */
void xlog_file_abandon(xlog_file *f);

/* The name of the file of a period (as xlog_name_period counts them) for
 * id (a tid or pid, by rules->mode) into out; 0 or -ENAMETOOLONG. */
int xlog_file_path(const xlog_file_rules *rules, int id, int64_t period, char *out, size_t size);

/* Creates dir and its parents (mode 0750); 0 or -errno. */
int xlog_make_dir(const char *dir);

/* The log directory itself, refused if it is a symbolic link: a descriptor
 * (O_PATH) or -1 with errno set (ELOOP for a link). */
int xlog_open_dir_no_follow(const char *dir);

/* The number of '\n' in p[0, n): whole lines, for the loss and recovery
 * counts. */
uint64_t xlog_count_lines(const char *p, size_t n);

/* A binary file's block ends here: it is written out, and what a failing
 * disk still holds back of it is given up (counted as lost), so that the
 * next entry starts a block of its own. */
void xlog_file_end_block(xlog_file *f);

/* Counts one line as lost (it could not be formatted into a file). */
void xlog_file_lose_line(xlog_file *f, int error);

static inline int xlog_file_use_time(xlog_file *f, int64_t utc)
{
    if (f->fd >= 0 && utc >= f->day_start && utc < f->day_end)
        return 0;
    return xlog_file_switch_day(f, utc);
}

#endif
