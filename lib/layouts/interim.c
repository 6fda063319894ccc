/*
 * interim.c - the default line only, until the layouts land (to be replaced
 * by lib/layouts/text.c and json.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "backend/line.h"
#include "common/internal.h"
#include "format/escape.h"
#include "layouts/layout.h"

struct xlog_layout {
    xlog_time_cache time;
};

int xlog_layout_create(xlog_layout **out, xlog_layout_kind kind, const char *pattern,
                       const char *default_pattern, const char *what)
{
    (void)default_pattern;
    if (kind != XLOG_LAYOUT_TEXT || pattern) {
        xlog_set_error("%s: not yet", what);
        return -EINVAL;
    }
    *out = calloc(1, sizeof **out);
    if (!*out)
        return -ENOMEM;
    xlog_time_cache_init(&(*out)->time);
    return 0;
}

void xlog_layout_destroy(xlog_layout *layout)
{
    free(layout);
}

size_t xlog_layout_max_line(const xlog_layout *layout, size_t message_length)
{
    (void)layout;
    return 64 + 2 * XLOG_ESCAPE_GROWTH * XLOG_MAX_NAME + 32 + XLOG_ESCAPE_GROWTH * message_length;
}

size_t xlog_layout_write(xlog_layout *layout, const xlog_line_event *event, char *out)
{
    char *p = out;
    xlog_line_time(&layout->time, event->pub.time_ns, p);
    p += XLOG_TIME_TEXT_LEN;
    *p++ = ' ';
    size_t tag_len;
    const char *tag = xlog_level_tag(event->pub.level, &tag_len);
    memcpy(p, tag, tag_len);
    p += tag_len;
    memcpy(p, event->where, event->where_length);
    p += event->where_length;
    memcpy(p, event->tid_text, event->tid_text_length);
    p += event->tid_text_length;
    p += xlog_escape_text(p, XLOG_ESCAPE_GROWTH * event->pub.message_length, event->pub.message,
                          event->pub.message_length, NULL);
    *p++ = '\n';
    return (size_t)(p - out);
}
