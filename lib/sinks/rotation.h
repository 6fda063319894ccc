/*
 * rotation.h - the file-system side of rotation: which day a line's file
 * belongs to, the lock that processes sharing a directory take around
 * renames, the rename chain of size rotation, and removal of old files.
 *
 * Why apart from file_sink.c: these steps work on names in a directory, not
 * on one open file and its buffer, and the compressor (compress.c) needs the
 * same lock and the same names.
 */
#ifndef XLOG_ROTATION_H
#define XLOG_ROTATION_H

#include <stddef.h>
#include <stdint.h>

#include "xlog.h"

/* The day whose date names the file of a line at utc_ns (nanoseconds since the
 * epoch), counted like xlog_utc_day: day 0 is 1970-01-01.  With local set,
 * the date is the local one (TZ).  *start and *end receive the UTC
 * nanoseconds at which that day begins and ends, so the caller can tell with
 * two compares whether a later line still belongs to it. */
int64_t xlog_name_day(int64_t utc_ns, int local, int64_t *start, int64_t *end);

/* The period whose name a file of a line at utc_ns takes: its day
 * (xlog_name_day), or with hourly its hour, counted as day * 24 + hour of
 * the (UTC or local) clock.  *start and *end as xlog_name_day's, for that
 * period (an hour's end is never past its day's: a change of the local
 * offset inside an hour makes the name follow the day). */
int64_t xlog_name_period(int64_t utc_ns, int local, int hourly, int64_t *start, int64_t *end);

/* The name of a period's file without its directory and extension, into
 * out: [<prefix>-]YYYY-MM-DD[-HH] (the hour with hourly).  0 or
 * -ENAMETOOLONG. */
int xlog_period_name(char *out, size_t size, const char *prefix, int hourly, int64_t period);

/* Takes the lock of a log directory (flock on the directory itself, so no
 * lock file is left beside the logs).  Returns a descriptor to give to
 * xlog_dir_unlock, or -1 if the lock could not be had (the caller then skips
 * what needed it). */
int xlog_dir_lock(const char *dir);
void xlog_dir_unlock(int lock);

/* The name of number n of path's size-rotation chain, into out: path.n
 * for a text file ("2026-11-22.log.1"), the number before the extension
 * for a binary one ("2026-11-22.1.xlog", so that *.xlog names them all).
 * 0 or -ENAMETOOLONG. */
int xlog_numbered_path(char *out, size_t size, const char *path, unsigned n);

/* Size rotation of path, under the directory lock: number keep of its
 * chain (xlog_numbered_path) and anything numbered beyond it are removed,
 * number k becomes k+1 for k below keep (and its .gz likewise), path
 * becomes number 1.  Returns 0 or -errno of the
 * last rename (path stays where it was if that rename failed). */
int xlog_rotate_chain(const char *path, unsigned keep);

/* Removes the files of old days in dir: of the names xlog makes for
 * prefix (NULL or "" for none), hourly and mode (live, numbered and
 * compressed), those dated before current_date ("YYYY-MM-DD") except the
 * ones of the keep (at least 1) newest earlier dates. */
void xlog_remove_old_days(const char *dir, const char *prefix, int hourly, xlog_file_mode mode,
                          const char *current_date, unsigned keep);

#endif
