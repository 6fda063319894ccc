/*
 * message.h - reading a record back: its parts (format, names, arguments)
 * and its message, rendered as printf would, cut and marked as xlog.h
 * says.  The back end uses it for every record, and recovery
 * (lib/recovery/recover.c) for the records a dead process left, so that a
 * recovered line is the line the process would have written.
 */
#ifndef XLOG_MESSAGE_H
#define XLOG_MESSAGE_H

#include <stddef.h>

#include "record/record.h"
#include "format/format.h"

typedef struct xlog_record_view {
    const unsigned char *kinds;
    int nargs;
    const char *args;           /* the encoded arguments */
    const char *format;         /* as given: not NUL-terminated for a dynamic record */
    size_t format_length;
    /* A dynamic record without a call site carries its names (xlogout). */
    const char *file;
    size_t file_length;
    const char *function;
    size_t function_length;
    int line;
} xlog_record_view;

/* The parts of rec; for a site record (XLOG_REC_SITE), its site's format
 * (of site_format_length bytes) and kinds (in the live process, the site's
 * own; in recovery, the dictionary's). */
void xlog_record_view_of(const xlog_record *rec, const char *site_format,
                         size_t site_format_length, const unsigned char *site_kinds,
                         xlog_record_view *view);

/* Renders the message of view into out (max_message + 64 bytes: room for a
 * mark): cut at max_message between two UTF-8 characters and marked when it
 * is longer or a string argument was cut on the caller, with the count of
 * suppressed calls for a rate-limited record; NUL-terminated.  args is a
 * scratch array of 64.  Returns its length; *truncated tells whether it was
 * cut. */
size_t xlog_message_render(char *out, size_t max_message, const xlog_record *rec,
                           const xlog_record_view *view, xlog_arg *args, int *truncated);

#endif
