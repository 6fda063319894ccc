/*
 * date.h - calendar arithmetic on UTC nanoseconds, for the layouts (the
 * time of a line) and the file sink (the date in a file's name, the day a
 * rotation period starts).
 *
 * Dates come from a days-since-epoch calculation rather than gmtime_r, which
 * takes a lock for the time zone on some systems and is slower than the
 * arithmetic; the result is the proleptic Gregorian calendar, as gmtime's.
 */
#ifndef XLOG_DATE_H
#define XLOG_DATE_H

#include <stdint.h>

#define XLOG_NS_PER_SEC 1000000000LL
#define XLOG_NS_PER_DAY (86400LL * XLOG_NS_PER_SEC)

/* The UTC day of utc_ns (day 0 is 1970-01-01), and the date of a day. */
int64_t xlog_utc_day(int64_t utc_ns);
void xlog_date_of_day(int64_t day, int *year, int *month, int *mday);

#endif
