/*
 * line.h - the fixed part of a log line: time and level.
 *
 * The line is note 000's:
 *   2026-11-22 14:45:25.123456789 [INFO] main.c:42 main 12345 message
 * The back end writes the date and time at most once per second of log time
 * (a cache) and the nanoseconds for every line.
 */
#ifndef XLOG_LINE_H
#define XLOG_LINE_H

#include <stddef.h>
#include <stdint.h>

#define XLOG_NS_PER_SEC 1000000000LL
#define XLOG_NS_PER_DAY (86400LL * XLOG_NS_PER_SEC)
#define XLOG_TIME_TEXT_LEN 29 /* "YYYY-MM-DD HH:MM:SS.nnnnnnnnn" */

typedef struct xlog_time_cache {
    int64_t second; /* the second cached in text, or INT64_MIN */
    char text[XLOG_TIME_TEXT_LEN];
} xlog_time_cache;

void xlog_time_cache_init(xlog_time_cache *c);

/* Writes the 29 characters of utc_ns (nanoseconds since the epoch) to out. */
void xlog_line_time(xlog_time_cache *c, int64_t utc_ns, char *out);

/* The UTC day of utc_ns, and its date. */
int64_t xlog_utc_day(int64_t utc_ns);
void xlog_date_of_day(int64_t day, int *year, int *month, int *mday);

/* "[INFO] " and the like; level is clamped to TRACE..FATAL. */
const char *xlog_level_tag(int level, size_t *len);

#endif
