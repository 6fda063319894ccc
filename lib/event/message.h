/*
 * message.h - a record's message, rendered as printf would from its parts
 * (record/record.h), cut and marked as xlog.h says.  The back end uses it
 * for every record, and recovery (lib/recovery/recover.c) for the records a
 * dead process left, so that a recovered line is the line the process would
 * have written.
 */
#ifndef XLOG_MESSAGE_H
#define XLOG_MESSAGE_H

#include <stddef.h>

#include "format/format.h"
#include "record/record.h"

/* Renders the message of view into out (max_message + 64 bytes: room for a
 * mark): cut at max_message between two UTF-8 characters and marked when it
 * is longer or a string argument was cut on the caller, with the count of
 * suppressed calls for a rate-limited record; NUL-terminated.  args is a
 * scratch array of 64.  Returns its length; *truncated tells whether it was
 * cut. */
size_t xlog_message_render(char *out, size_t max_message, const xlog_record *rec,
                           const xlog_record_view *view, xlog_arg *args, int *truncated);

#endif
