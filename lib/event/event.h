/*
 * event.h - one message on its way from the back end to the sinks.
 *
 * The back end turns each record of a ring into an event: the public
 * xlog_event (time in UTC, level, pid, tid, call site, format, and the
 * message rendered once, raw, exactly as printf would, when a sink first
 * asks for it: a binary file takes the record itself), plus what the back
 * end keeps ready-made so that the default line costs no more than copying
 * (the "file:line function " text of the call site, escaped once per site,
 * and the "tid " text, made once per thread).  Layouts turn an event into
 * bytes; sinks take it from there (sinks/sink.h).
 */
#ifndef XLOG_EVENT_H
#define XLOG_EVENT_H

#include <stddef.h>
#include <stdint.h>

#include "format/escape.h"
#include "record/context.h"
#include "record/record.h"
#include "rings/ring.h"
#include "xlog.h"

/* Longest file, function or module name an event carries (longer ones are
 * cut), so that every line has a known bound. */
#define XLOG_MAX_NAME 1024

/* The length of name[0..length) as an event carries it: at most
 * XLOG_MAX_NAME bytes, cut between two UTF-8 characters (a character cut
 * in two would show as \xNN escapes).  The only place names are cut, so
 * that the living back end and recovery cut them alike. */
static inline size_t xlog_name_length(const char *name, size_t length)
{
    return length <= XLOG_MAX_NAME ? length : xlog_utf8_cut(name, length, XLOG_MAX_NAME);
}

#define XLOG_TRUNCATED_MARK_LENGTH (sizeof XLOG_TRUNCATED_MARK - 1)

/* The longest text of an int: "-2147483648". */
#define XLOG_INT_TEXT_MAX 11

/* Writes value in decimal; returns its length (at most XLOG_INT_TEXT_MAX). */
size_t xlog_int_text(char *out, int value);

/* The part of path[0..len) after its last '/'. */
const char *xlog_base_name(const char *path, size_t len, size_t *base_len);

/* The default line's "main.c:42 main ": the base name of file, the line and
 * the function, each name escaped by escape.h's rule.  The names are at most
 * XLOG_MAX_NAME bytes, as in an event. */
#define XLOG_WHERE_TEXT_MAX (2 * XLOG_ESCAPE_GROWTH * XLOG_MAX_NAME + XLOG_INT_TEXT_MAX + 3)
size_t xlog_where_text(char *out, const char *file, size_t file_len, int line,
                       const char *function, size_t function_len);

/* The longest thread name an event carries: Linux keeps 15 bytes of a
 * name (TASK_COMM_LEN less its NUL); a longer one read back from a file is
 * cut there, so that every line keeps its bound. */
#define XLOG_THREAD_NAME_MAX 15

/* The default line's "12345 ": the tid and a space. */
#define XLOG_TID_TEXT_MAX (XLOG_INT_TEXT_MAX + 1)
size_t xlog_tid_text(char *out, int tid);

typedef struct xlog_line_event {
    xlog_event pub;
    size_t file_length;
    size_t function_length;
    size_t module_length;
    /* "main.c:42 main ": the base name of file, the line and the function,
     * already escaped (the default line's middle part). */
    const char *where;
    size_t where_length;
    /* "12345 ": the tid and a space. */
    const char *tid_text;
    size_t tid_text_length;
    /* The thread's name (rings/ring.h: any bytes, at most
     * XLOG_THREAD_NAME_MAX, not escaped), or NULL: none known.  A pointer:
     * one store per line for the back end. */
    const xlog_thread_name *thread_name;
    /* The record this event comes from: its ring's file slot and the
     * position just past it (record_end 0: a line of xlog's own), for the
     * file sink's journal (lib/shm/shm.h, "Exactly once"). */
    uint32_t ring_slot;
    uint64_t record_end;
    /* What a binary file writes instead of the message: the record and
     * its parts (rec NULL: a line made already, a notice or a line of a
     * backtrace), its call site's copy for a site record (else NULL) and
     * the back end's number for that site (XLOG_NO_SITE_NUMBER: none, the
     * message is written). */
    const xlog_record *rec;
    const xlog_record_view *view;
    const xlog_site_copy *site;
    uint32_t site_number;
    /* Set while the message is not rendered (pub.message is NULL then):
     * xlog_event_render (message.h) renders it there. */
    struct xlog_event_scratch *pending;
    /* The thread's context when it logged this (xlog.h, "Context"), or
     * NULL: none. */
    const xlog_context *context;
} xlog_line_event;

#define XLOG_NO_SITE_NUMBER UINT32_MAX

/* A line of xlog's own (a drop or loss notice): WARN, from "xlog:0 xlog",
 * with the thread of like, at time_ns. */
static inline void xlog_notice_event(xlog_line_event *out, int64_t time_ns,
                                     const xlog_line_event *like, const char *text,
                                     size_t length)
{
    static const char where[] = "xlog:0 xlog ";
    out->pub.time_ns = time_ns;
    out->pub.level = XLOG_WARN;
    out->pub.pid = like->pub.pid;
    out->pub.tid = like->pub.tid;
    out->pub.file = "xlog";
    out->pub.line = 0;
    out->pub.function = "xlog";
    out->pub.module = "";
    out->pub.format = text;
    out->pub.message = text;
    out->pub.message_length = length;
    out->file_length = 4;
    out->function_length = 4;
    out->module_length = 0;
    out->where = where;
    out->where_length = sizeof where - 1;
    out->tid_text = like->tid_text;
    out->tid_text_length = like->tid_text_length;
    out->thread_name = like->thread_name;
    out->ring_slot = 0;
    out->record_end = 0;
    out->rec = NULL;
    out->view = NULL;
    out->site = NULL;
    out->site_number = XLOG_NO_SITE_NUMBER;
    out->pending = NULL;
    out->context = NULL;
}

#endif
