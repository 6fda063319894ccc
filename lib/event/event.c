/*
 * event.c - the parts of an event made once and copied into every line:
 * the call site's "file:line function " and the thread's "tid ".
 */
#define _GNU_SOURCE /* memrchr */
#include "event/event.h"

#include <string.h>

#include "format/escape.h"

size_t xlog_int_text(char *out, int value)
{
    char text[XLOG_INT_TEXT_MAX];
    unsigned magnitude = value < 0 ? 0u - (unsigned)value : (unsigned)value;
    size_t start = sizeof text;
    do {
        text[--start] = (char)('0' + magnitude % 10);
        magnitude /= 10;
    } while (magnitude);
    if (value < 0)
        text[--start] = '-';
    memcpy(out, text + start, sizeof text - start);
    return sizeof text - start;
}

const char *xlog_base_name(const char *path, size_t len, size_t *base_len)
{
    const char *slash = memrchr(path, '/', len);
    const char *base = slash ? slash + 1 : path;
    *base_len = len - (size_t)(base - path);
    return base;
}

size_t xlog_where_text(char *out, const char *file, size_t file_len, int line,
                       const char *function, size_t function_len)
{
    size_t base_len;
    const char *base = xlog_base_name(file, file_len, &base_len);
    char *p = out;
    p += xlog_escape_text(p, XLOG_ESCAPE_GROWTH * base_len, base, base_len, NULL);
    *p++ = ':';
    p += xlog_int_text(p, line);
    *p++ = ' ';
    p += xlog_escape_text(p, XLOG_ESCAPE_GROWTH * function_len, function, function_len, NULL);
    *p++ = ' ';
    return (size_t)(p - out);
}

size_t xlog_tid_text(char *out, int tid)
{
    size_t n = xlog_int_text(out, tid);
    out[n] = ' ';
    return n + 1;
}
