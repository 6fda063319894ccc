/*
 * message.h - a record read back as an event: its message, rendered as
 * printf would from its parts (record/record.h), cut and marked as xlog.h
 * says, and the one step that makes a record an event (xlog_record_event).
 * The back end uses it for every record, and recovery
 * (lib/recovery/recover.c) for the records a dead process left, so that a
 * recovered line is byte for byte the line the process would have written.
 */
#ifndef XLOG_MESSAGE_H
#define XLOG_MESSAGE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "event/event.h"
#include "format/format.h"
#include "record/record.h"

/* A site's format rendered with xlog_message_render's site_format is about
 * to be freed (never in the living process, whose sites live as long as it
 * does; a reader of binary files redefines its sites): its parse is
 * forgotten. */
void xlog_message_forget_format(const char *format);

/* Renders the message of view into out (max_message + 64 bytes: room for a
 * mark): cut at max_message between two UTF-8 characters and marked when it
 * is longer or a string argument was cut on the caller, with the count of
 * suppressed calls for a rate-limited record; NUL-terminated.  args is a
 * scratch array of XLOG_RECORD_MAX_ARGS.  Returns its length; *truncated
 * tells whether it was cut.  site_format says that view's format is a call
 * site's copy in this process (never freed): its parsed form is then kept,
 * keyed by its address, in a cache of the back end's, which only the back
 * end's thread may use (format/format.h, xlog_fmt_cache). */
size_t xlog_message_render(char *out, size_t max_message, const xlog_record *rec,
                           const xlog_record_view *view, xlog_arg *args, int *truncated,
                           int site_format);

/* What names an event: its file, function and module as the event carries
 * them (NUL-terminated, cut by xlog_name_length), its line, and its
 * "file:line function " (xlog_where_text of those). */
typedef struct xlog_event_names {
    const char *file;
    size_t file_length;
    const char *function;
    size_t function_length;
    const char *module;
    size_t module_length;
    int line;
    const char *where;
    size_t where_length;
} xlog_event_names;

/* Room for xlog_event_names_make: the three names, cut and NUL-terminated,
 * and the where text. */
#define XLOG_EVENT_NAMES_ROOM (3 * (XLOG_MAX_NAME + 1) + XLOG_WHERE_TEXT_MAX)

/* Makes *out from file, function and module (of the given lengths, any
 * bytes) and line, in room (XLOG_EVENT_NAMES_ROOM bytes): the where text,
 * and the names cut.  With terminated (each name is NUL-terminated at its
 * length: a call site's copy, kept as long as its events), a name that
 * needs no cut is used in place; any other is copied into room, cut.
 * Returns how many bytes of room it used, so that a name made once (the
 * back end's per call site) can be made again, the same, in room of that
 * size. */
size_t xlog_event_names_make(xlog_event_names *out, const char *file, size_t file_length,
                             const char *function, size_t function_length, const char *module,
                             size_t module_length, int line, int terminated, char *room);

/* The names of an event: its file, line, function, module and where text,
 * from names (made by xlog_event_names_make). */
static inline void xlog_event_set_names(xlog_line_event *ev, const xlog_event_names *names)
{
    ev->pub.file = names->file;
    ev->pub.line = names->line;
    ev->pub.function = names->function;
    ev->pub.module = names->module;
    ev->file_length = names->file_length;
    ev->function_length = names->function_length;
    ev->module_length = names->module_length;
    ev->where = names->where;
    ev->where_length = names->where_length;
}

/* What xlog_record_event works in, for the messages of one process. */
typedef struct xlog_event_scratch {
    size_t max_message;               /* the process's xlog_config.max_message */
    char *message;                    /* xlog_message_render's out */
    char *format;                     /* one more byte than the longest format */
    xlog_arg args[XLOG_RECORD_MAX_ARGS];
    int truncated;                    /* the last message rendered was cut */
    int site_format;                  /* the event's format is its site's own */
    /* Names made for one record only, in room: a dynamic record's (by
     * xlog_record_event), or a site's that its caller keeps none of.
     * Here rather than on the stack: there, they made the back end's
     * consume too big a frame for the compiler to inline it into merge,
     * 2,182 instructions per line against 2,164 (callgrind of the whole
     * program, as docs/BENCHMARKS.md takes it). */
    xlog_event_names names;
    char room[XLOG_EVENT_NAMES_ROOM];
} xlog_event_scratch;

/* The one step from a record to its event, the same for the living back
 * end and for recovery: rec (its parts in view) at time_ns (UTC), named by
 * names (the call site's, made by xlog_event_names_make) or, when names is
 * NULL, by the names in the record (a dynamic record without a site:
 * xlogout), with format (NUL-terminated: a site's own) or, when format is
 * NULL, view's format copied into s.  Fills ev but for the thread (pid,
 * tid, tid_text), the ring (ring_slot, record_end) and the site's number
 * for a binary file (site, site_number), which are the reader's.  The
 * message is not rendered yet: xlog_event_render does it, into s, when a
 * sink first needs it, so that a binary file alone formats nothing; rec,
 * view and s must last until then.  Inline: the back end takes it for
 * every record, and as a call of its own it cost 34 instructions more per
 * line (2,215 against 2,181, 1.5%: callgrind of the whole program, as
 * docs/BENCHMARKS.md takes it). */
static inline void xlog_record_event(xlog_line_event *ev, const xlog_record *rec,
                                     const xlog_record_view *view, const xlog_event_names *names,
                                     const char *format, int64_t time_ns, xlog_event_scratch *s)
{
    if (!names) {
        xlog_event_names_make(&s->names, view->file, view->file_length, view->function,
                              view->function_length, "", 0, view->line, 0, s->room);
        names = &s->names;
    }
    if (!format) {
        memcpy(s->format, view->format, view->format_length);
        s->format[view->format_length] = '\0';
        format = s->format;
    }
    ev->pub.time_ns = time_ns;
    ev->pub.level = rec->level;
    xlog_event_set_names(ev, names);
    ev->pub.format = format;
    ev->pub.message = NULL;
    ev->pub.message_length = 0;
    ev->rec = rec;
    ev->view = view;
    ev->pending = s;
    s->truncated = 0;
    /* The site's own format, never freed: the back end's cache of parsed
     * formats may key it by its address (message.c). */
    s->site_format = format == view->format;
}

/* Renders the message of an event made by xlog_record_event, if not yet
 * done (xlog_message_render, into its scratch; s->truncated tells whether
 * it was cut).  The event is the back end's (or recovery's), never const
 * where it was made: a sink is handed it as const, and the message it
 * lacks is still part of it. */
static inline void xlog_event_render(const xlog_line_event *event)
{
    if (!event->pending)
        return;
    xlog_line_event *ev = (xlog_line_event *)event;
    xlog_event_scratch *s = ev->pending;
    ev->pub.message_length = xlog_message_render(s->message, s->max_message, ev->rec, ev->view,
                                                 s->args, &s->truncated,
                                                 s->site_format);
    ev->pub.message = s->message;
    ev->pending = NULL;
}

#endif
