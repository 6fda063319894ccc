/*
 * fields.c - the text of a line's fields (see fields.h).
 *
 * UTC dates come from date.h's arithmetic, which takes no lock; local ones
 * from localtime_r, with the TZ that xlog_open read (tzset), once per second
 * of log time per cache, which keeps its lock off the path of a line.
 */
#define _GNU_SOURCE /* tm_gmtoff, memrchr */
#include "layouts/fields.h"

#include <string.h>
#include <time.h>

#include "xlog.h"

const char *xlog_level_name(int level, size_t *len)
{
    static const char names[][XLOG_LEVEL_NAME_MAX + 1] = {"TRACE", "DEBUG", "INFO",
                                                          "WARN",  "ERROR", "FATAL"};
    level = xlog_level_clamp(level);
    *len = strlen(names[level]);
    return names[level];
}

void xlog_time_text_init(xlog_time_text *t, bool local, bool iso, int digits)
{
    memset(t, 0, sizeof *t);
    t->local = local;
    t->iso = iso;
    t->digits = (unsigned char)digits;
    t->divisor = 1;
    for (int i = digits; i < 9; i++)
        t->divisor *= 10;
    t->second = INT64_MIN;
}

size_t xlog_time_text_length(const xlog_time_text *t)
{
    size_t suffix = t->local ? 6 : t->iso ? 1 : 0;
    return 19 + (t->digits ? 1 + (size_t)t->digits : 0) + suffix;
}

void xlog_time_text_refresh(xlog_time_text *t, int64_t second)
{
    struct tm tm;
    time_t seconds = (time_t)second;
    long offset = 0;
    if (t->local && localtime_r(&seconds, &tm)) {
        tm.tm_year += 1900;
        tm.tm_mon += 1;
        offset = tm.tm_gmtoff;
    } else { /* UTC; also local time beyond what struct tm holds, never met */
        int64_t day = second / 86400, in_day = second % 86400;
        if (in_day < 0) {
            in_day += 86400;
            day -= 1;
        }
        xlog_date_of_day(day, &tm.tm_year, &tm.tm_mon, &tm.tm_mday);
        tm.tm_hour = (int)(in_day / 3600);
        tm.tm_min = (int)(in_day / 60 % 60);
        tm.tm_sec = (int)(in_day % 60);
    }
    char *h = t->head;
    xlog_put_digits(h, (uint32_t)(tm.tm_year < 0 ? 0 : tm.tm_year > 9999 ? 9999 : tm.tm_year), 4);
    h[4] = '-';
    xlog_put_digits(h + 5, (uint32_t)tm.tm_mon, 2);
    h[7] = '-';
    xlog_put_digits(h + 8, (uint32_t)tm.tm_mday, 2);
    h[10] = t->iso ? 'T' : ' ';
    xlog_put_digits(h + 11, (uint32_t)tm.tm_hour, 2);
    h[13] = ':';
    xlog_put_digits(h + 14, (uint32_t)tm.tm_min, 2);
    h[16] = ':';
    /* 60 in a leap second of a "right/" zone */
    xlog_put_digits(h + 17, (uint32_t)tm.tm_sec, 2);
    h[19] = '.';
    if (t->local) {
        /* ISO 8601 offsets have minutes at most: the seconds of a historical
         * offset (local mean time, +00:53:28) are cut, as strftime's %z does */
        long magnitude = offset < 0 ? -offset : offset;
        t->suffix[0] = offset < 0 ? '-' : '+';
        xlog_put_digits(t->suffix + 1, (uint32_t)(magnitude / 3600), 2);
        t->suffix[3] = ':';
        xlog_put_digits(t->suffix + 4, (uint32_t)(magnitude / 60 % 60), 2);
        t->suffix_len = 6;
    } else if (t->iso) {
        t->suffix[0] = 'Z';
        t->suffix_len = 1;
    }
    t->second = second;
}
