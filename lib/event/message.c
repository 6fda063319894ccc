/*
 * message.c - see message.h.
 */
#include "event/message.h"

#include <stdio.h>
#include <string.h>

#include "event/event.h"
#include "format/escape.h"

/* The parsed formats of the call sites of this process, for the back end
 * (xlog_message_render's site_format): a line then renders its message from
 * steps made once instead of reading the format again: 2,096 instructions a
 * line became 1,638 (callgrind of the whole program, as docs/BENCHMARKS.md
 * takes it, "Logging int: %lu, int: %lu, double: %f").  Static (116 KiB of
 * zeros until used), fixed in size: the back end renders lines after a
 * crash too, when nothing may be allocated. */
static xlog_fmt_cache site_formats;

void xlog_message_forget_format(const char *format)
{
    xlog_fmt_cache_forget(&site_formats, format);
}

/* A single newline at the very end of a format is dropped, since every
 * message is a line anyway. */
static size_t line_format_length(const char *format, size_t length)
{
    return length && format[length - 1] == '\n' ? length - 1 : length;
}

/* A rate-limited record ends with how many calls of its site were
 * suppressed before it; the message says so after its text (and its mark,
 * when cut), within max_message: writes the words into count (48 bytes)
 * and returns their length, 0 for none. */
static size_t suppressed_words(char *count, const xlog_record *rec)
{
    uint64_t suppressed = (rec->flags & XLOG_REC_RATED) ? xlog_record_suppressed(rec) : 0;
    if (suppressed == 0)
        return 0;
    return (size_t)snprintf(count, 48, " (%llu more suppressed)", (unsigned long long)suppressed);
}

size_t xlog_message_render(char *out, size_t max_message, const xlog_record *rec,
                           const xlog_record_view *view, xlog_arg *args, int *truncated,
                           int site_format)
{
    xlog_record_decode_args(view->args, view->kinds, view->nargs, args);
    size_t format_length = line_format_length(view->format, view->format_length);
    size_t full;
    if (site_format) {
        xlog_fmt_parsed local;
        const xlog_fmt_parsed *parsed =
            xlog_fmt_cache_get(&site_formats, view->format, format_length, &local);
        full = parsed ? xlog_fmt_render_parsed(parsed, view->format, args, (size_t)view->nargs,
                                               out, max_message)
                      : xlog_fmt_render(view->format, format_length, args, (size_t)view->nargs,
                                        out, max_message);
        xlog_fmt_cache_release(&site_formats);
    } else {
        full = xlog_fmt_render(view->format, format_length, args, (size_t)view->nargs, out,
                               max_message);
    }
    char count[48];
    size_t count_length = suppressed_words(count, rec);
    size_t room = max_message - count_length; /* max_message is at least 256 */
    size_t length = full;
    *truncated = full > room || (rec->flags & XLOG_REC_TRUNCATED);
    if (*truncated) {
        size_t shown = full < room ? full : room;
        length = xlog_utf8_cut(out, shown, room - XLOG_TRUNCATED_MARK_LENGTH);
        memcpy(out + length, XLOG_TRUNCATED_MARK, XLOG_TRUNCATED_MARK_LENGTH);
        length += XLOG_TRUNCATED_MARK_LENGTH;
    }
    memcpy(out + length, count, count_length);
    length += count_length;
    out[length] = '\0';
    return length;
}

/* name as an event carries it: in place when it needs no cut and is
 * NUL-terminated, else cut and copied to *room (moved past it). */
static const char *event_name(const char *name, size_t length, int terminated, char **room,
                              size_t *event_length)
{
    *event_length = xlog_name_length(name, length);
    if (terminated && *event_length == length)
        return name;
    char *copy = *room;
    memcpy(copy, name, *event_length);
    copy[*event_length] = '\0';
    *room += *event_length + 1;
    return copy;
}

size_t xlog_event_names_make(xlog_event_names *out, const char *file, size_t file_length,
                             const char *function, size_t function_length, const char *module,
                             size_t module_length, int line, int terminated, char *room)
{
    char *at = room;
    out->file = event_name(file, file_length, terminated, &at, &out->file_length);
    out->function = event_name(function, function_length, terminated, &at, &out->function_length);
    out->module = event_name(module, module_length, terminated, &at, &out->module_length);
    out->line = line;
    out->where = at;
    out->where_length = xlog_where_text(at, out->file, out->file_length, line, out->function,
                                        out->function_length);
    return (size_t)(at - room) + out->where_length;
}
