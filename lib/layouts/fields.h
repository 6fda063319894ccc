/*
 * fields.h - the text of a line's fields, shared by the layouts (text.c,
 * json.c).  The default line's middle parts, made once per call site and
 * once per thread, come with the event (event/event.h).
 *
 * Every field has a known longest text (the *_MAX constants), from which the
 * layouts compute the bound that sizes the sinks' buffers.
 *
 * The time is the costly field, so each use of it keeps its own cache
 * (xlog_time_text): the date, the time to the second and the offset are
 * made at most once per second of log time; a line copies them and writes
 * its fraction of a second.
 */
#ifndef XLOG_LAYOUT_FIELDS_H
#define XLOG_LAYOUT_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/date.h"
#include "event/event.h"
#include "format/digits.h"
#include "format/escape.h"

/* The default line, the pattern xlog.h documents; a layout with this pattern
 * (or one that means the same) writes the event's ready-made where and
 * tid_text instead of making them again. */
#define XLOG_DEFAULT_PATTERN "{time} [{level}] {file}:{line} {function} {tid} {message}"

/* The longest level name. */
#define XLOG_LEVEL_NAME_MAX 5

/* The level as an index from XLOG_TRACE to XLOG_FATAL: the back end never
 * gives another, but a table must not be read out of its bounds. */
static inline int xlog_level_clamp(int level)
{
    return level < XLOG_TRACE ? XLOG_TRACE : level > XLOG_FATAL ? XLOG_FATAL : level;
}

/* "TRACE" ... "FATAL", without brackets (the level clamped). */
const char *xlog_level_name(int level, size_t *len);

/* Writes an integer field (line, pid, tid: xlog_int_text's text) at p;
 * returns its end.  The digits' writer may write up to 8 bytes for a
 * shorter number: the field has room for XLOG_INT_TEXT_MAX (its share of
 * the line's bound), and what follows overwrites the rest. */
static inline char *xlog_put_int_field(char *p, int value)
{
    unsigned magnitude = value < 0 ? 0u - (unsigned)value : (unsigned)value;
    *p = '-';
    p += value < 0;
    return xlog_digits_at(p, magnitude, xlog_decimal_length(magnitude));
}

/* ---- the time ------------------------------------------------------------ */

/* "YYYY-MM-DDTHH:MM:SS.nnnnnnnnn+05:30", the longest form. */
#define XLOG_TIME_TEXT_MAX 35

/* One way of showing the time, and its cache.  The year always has four
 * digits: one outside 0..9999 is clamped (the nanoseconds of an int64_t
 * reach only the years 1677 to 2262, so none is today). */
typedef struct xlog_time_text {
    bool local;            /* localtime_r and its offset, else UTC */
    bool iso;              /* 'T' between date and time; 'Z' when UTC */
    unsigned char digits;  /* of the fraction: 0, 3, 6 or 9 */
    unsigned char suffix_len;
    uint32_t divisor;      /* 10^(9 - digits) */
    int64_t second;        /* the second cached in head and suffix */
    char head[20];         /* "YYYY-MM-DD HH:MM:SS." */
    char suffix[6];        /* "", "Z" or "+05:30" */
} xlog_time_text;

void xlog_time_text_init(xlog_time_text *t, bool local, bool iso, int digits);

/* The length of every text t writes (it does not depend on the time). */
size_t xlog_time_text_length(const xlog_time_text *t);

/* Makes the cached text of second (since the epoch). */
void xlog_time_text_refresh(xlog_time_text *t, int64_t second);

/* Writes count decimal digits of value, with leading zeros. */
static inline void xlog_put_digits(char *out, uint32_t value, int count)
{
    xlog_digits_before(out + count, value, count);
}

/* Writes the time of utc_ns; returns xlog_time_text_length(t).  It may
 * write one byte beyond the text (the head's '.' when digits is 0), which
 * is no more than the line takes: something always follows the time (at
 * least the line's '\n'). */
static inline size_t xlog_time_text_write(xlog_time_text *t, int64_t utc_ns, char *out)
{
    int64_t second = utc_ns / XLOG_NS_PER_SEC;
    int64_t nanos = utc_ns % XLOG_NS_PER_SEC;
    if (nanos < 0) {
        nanos += XLOG_NS_PER_SEC;
        second -= 1;
    }
    if (second != t->second)
        xlog_time_text_refresh(t, second);
    memcpy(out, t->head, sizeof t->head);
    size_t n = 19;
    if (t->digits == 9) { /* the default: the 8 last digits in one go */
        out[20] = (char)('0' + nanos / 100000000);
        xlog_digits_at(out + 21, (uint64_t)nanos % 100000000, 8);
        n = 29;
    } else if (t->digits) {
        xlog_put_digits(out + 20, (uint32_t)nanos / t->divisor, t->digits);
        n = 20 + (size_t)t->digits;
    }
    if (t->suffix_len) /* UTC without 'Z' has none: no call for nothing */
        memcpy(out + n, t->suffix, t->suffix_len);
    return n + t->suffix_len;
}

#endif
