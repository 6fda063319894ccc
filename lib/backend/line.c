/*
 * line.c - time and level text of a line (see line.h).
 *
 * Dates come from a days-since-epoch calculation rather than gmtime_r, which
 * takes a lock for the time zone on some systems and is slower than the
 * arithmetic; the result is the proleptic Gregorian calendar, as gmtime's.
 */
#include "backend/line.h"

#include <string.h>

#include "xlog.h"

void xlog_time_cache_init(xlog_time_cache *c)
{
    c->second = INT64_MIN;
}

int64_t xlog_utc_day(int64_t utc_ns)
{
    int64_t day = utc_ns / XLOG_NS_PER_DAY;
    return utc_ns % XLOG_NS_PER_DAY < 0 ? day - 1 : day;
}

/* Civil date from days since 1970-01-01, by eras of 400 years (146097 days):
 * a year is taken to start on 1 March so that the leap day comes last. */
void xlog_date_of_day(int64_t day, int *year, int *month, int *mday)
{
    int64_t z = day + 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t day_of_era = z - era * 146097;
    int64_t year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
    int64_t day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    int64_t month_index = (5 * day_of_year + 2) / 153; /* 0 = March */
    *mday = (int)(day_of_year - (153 * month_index + 2) / 5 + 1);
    *month = (int)(month_index < 10 ? month_index + 3 : month_index - 9);
    *year = (int)(year_of_era + era * 400 + (*month <= 2));
}

static void digits(char *out, unsigned value, int count)
{
    for (int i = count - 1; i >= 0; i--) {
        out[i] = (char)('0' + value % 10);
        value /= 10;
    }
}

void xlog_line_time(xlog_time_cache *c, int64_t utc_ns, char *out)
{
    int64_t second = utc_ns / XLOG_NS_PER_SEC;
    int64_t nanos = utc_ns % XLOG_NS_PER_SEC;
    if (nanos < 0) {
        nanos += XLOG_NS_PER_SEC;
        second -= 1;
    }
    if (second != c->second) {
        int64_t day = second / 86400;
        int64_t in_day = second % 86400;
        if (in_day < 0) {
            in_day += 86400;
            day -= 1;
        }
        int year, month, mday;
        xlog_date_of_day(day, &year, &month, &mday);
        char *t = c->text;
        digits(t, (unsigned)(year < 0 ? 0 : year > 9999 ? 9999 : year), 4);
        t[4] = '-';
        digits(t + 5, (unsigned)month, 2);
        t[7] = '-';
        digits(t + 8, (unsigned)mday, 2);
        t[10] = ' ';
        digits(t + 11, (unsigned)(in_day / 3600), 2);
        t[13] = ':';
        digits(t + 14, (unsigned)(in_day / 60 % 60), 2);
        t[16] = ':';
        digits(t + 17, (unsigned)(in_day % 60), 2);
        t[19] = '.';
        c->second = second;
    }
    memcpy(out, c->text, 20);
    digits(out + 20, (unsigned)nanos, 9);
}

const char *xlog_level_tag(int level, size_t *len)
{
    static const char *const tags[] = {"[TRACE] ", "[DEBUG] ", "[INFO] ",
                                       "[WARN] ",  "[ERROR] ", "[FATAL] "};
    static const size_t lengths[] = {8, 8, 7, 7, 8, 8};
    if (level < XLOG_TRACE)
        level = XLOG_TRACE;
    if (level > XLOG_FATAL)
        level = XLOG_FATAL;
    *len = lengths[level];
    return tags[level];
}
