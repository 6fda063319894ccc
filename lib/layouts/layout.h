/*
 * layout.h - how an event becomes the bytes of one line: text (the default
 * line, or a user's pattern) or a JSON object.  The language of patterns and
 * the JSON fields are documented in xlog.h ("Layouts").
 *
 * Each output has a layout of its own (xlog_layout_create at xlog_open), used
 * by the back end only, one event at a time, so a layout may keep caches
 * (the text of the current second) without a lock.
 *
 * Every line a layout writes is whole: it ends in '\n', holds no other
 * line break, and is valid UTF-8 (text: escaped by format/escape.h's rule;
 * JSON: escaped as RFC 8259 requires, invalid UTF-8 replaced by U+FFFD).
 */
#ifndef XLOG_LAYOUT_H
#define XLOG_LAYOUT_H

#include <stddef.h>

#include "event/event.h"
#include "xlog.h"

typedef struct xlog_layout xlog_layout;

/* The default line: note the brackets around the level. */
#define XLOG_DEFAULT_LINE "{time} [{level}] {file}:{line} {function} {tid} {message}"

/* Makes a layout of kind; pattern is NULL for the default one
 * (default_pattern) or a pattern (XLOG_LAYOUT_TEXT only).  what names the
 * setting for the error message ("cfg.file_pattern").  Returns 0, -ENOMEM,
 * or -EINVAL after telling xlog_set_error why. */
int xlog_layout_create(xlog_layout **out, xlog_layout_kind kind, const char *pattern,
                       const char *default_pattern, const char *what);

void xlog_layout_destroy(xlog_layout *layout);

/* The most bytes a line can take when the message has at most
 * message_length bytes (names are at most XLOG_MAX_NAME bytes). */
size_t xlog_layout_max_line(const xlog_layout *layout, size_t message_length);

/* Writes the line of event into out, which has room for
 * xlog_layout_max_line(layout, event->pub.message_length) bytes; returns its
 * length (the '\n' included). */
size_t xlog_layout_write(xlog_layout *layout, const xlog_line_event *event, char *out);

#endif
