/*
 * backtrace.c - the messages a thread logged below the level written, kept
 * by the back end so that the lines before an error can be written with it
 * (xlog_config.backtrace_lines).
 *
 * Why on the back end: the caller must pay for a kept message what it pays
 * for a written one, so it only marks the record (XLOG_REC_KEEP); the back
 * end renders it as usual and, instead of handing it to the sinks, copies
 * the event here.  Each thread has a circular list of its last N events
 * (their message and names copied, since the back end's buffers are reused
 * by the next record); an ERROR or FATAL from the thread, or its
 * xlog_dump_backtrace(), replays them oldest first and empties the list.
 * A kept message is stored already marked, so that replaying needs no
 * buffer of the back end's: the ERROR that triggers the replay is rendered
 * in the back end's message buffer and must still be there after it.
 */
#include "backend/backtrace.h"

#include <stdlib.h>
#include <string.h>

/* One kept event with its strings in one allocation. */
typedef struct kept {
    xlog_line_event event;
    xlog_context context; /* the thread's when it logged, its bytes after where in text */
    char *text; /* marked message, file, function, format and where, NUL-separated */
} kept;

static const char mark[] = "[backtrace] ";
#define MARK_LENGTH (sizeof mark - 1)

struct xlog_backtrace {
    size_t capacity; /* events kept at most */
    size_t first;    /* the oldest */
    size_t count;
    kept events[];
};

xlog_backtrace *xlog_backtrace_new(size_t lines)
{
    xlog_backtrace *b = calloc(1, sizeof *b + lines * sizeof(kept));
    if (b)
        b->capacity = lines;
    return b;
}

static void forget(kept *k)
{
    free(k->text);
    k->text = NULL;
}

/* Copies s (n bytes) to *at, NUL-terminated; returns the copy. */
static const char *put(char **at, const char *s, size_t n)
{
    char *copy = *at;
    memcpy(copy, s, n);
    copy[n] = '\0';
    *at += n + 1;
    return copy;
}

void xlog_backtrace_keep(xlog_backtrace *b, const xlog_line_event *event)
{
    size_t format_length = strlen(event->pub.format);
    size_t size = MARK_LENGTH + event->pub.message_length + event->file_length +
                  event->function_length + event->module_length + format_length +
                  event->where_length + 6;
    int has_context = event->context && event->context->count;
    char *text = malloc(size + (has_context ? XLOG_CONTEXT_BYTES_MAX : 0));
    if (!text)
        return; /* without memory, the backtrace has a gap */
    kept *k;
    if (b->count == b->capacity) {
        k = &b->events[b->first];
        forget(k);
        b->first = (b->first + 1) % b->capacity;
    } else {
        k = &b->events[(b->first + b->count) % b->capacity];
        b->count++;
    }
    k->text = text;
    k->event = *event;
    memcpy(text, mark, MARK_LENGTH);
    char *at = text + MARK_LENGTH;
    put(&at, event->pub.message, event->pub.message_length);
    k->event.pub.message = text;
    k->event.pub.message_length = MARK_LENGTH + event->pub.message_length;
    k->event.pub.file = put(&at, event->pub.file, event->file_length);
    k->event.pub.function = put(&at, event->pub.function, event->function_length);
    k->event.pub.module = put(&at, event->pub.module, event->module_length);
    k->event.pub.format = put(&at, event->pub.format, format_length);
    k->event.where = put(&at, event->where, event->where_length);
    /* The line is replayed with the context it was logged with, not the
     * thread's context at the replay. */
    k->event.context = NULL;
    if (has_context) {
        xlog_context_copy(&k->context, event->context, at);
        k->event.context = &k->context;
    }
    /* The record is gone by the replay: a binary file writes the line. */
    k->event.rec = NULL;
    k->event.view = NULL;
    k->event.site = NULL;
    k->event.site_number = XLOG_NO_SITE_NUMBER;
    k->event.pending = NULL;
    /* A module may be a cut copy in the back end's scratch, made again for
     * the next record: copied like the names.  The tid text belongs to the
     * ring, which outlives its backtrace. */
}

void xlog_backtrace_replay(xlog_backtrace *b, void (*emit)(const xlog_line_event *event))
{
    for (; b->count; b->count--, b->first = (b->first + 1) % b->capacity) {
        kept *k = &b->events[b->first];
        emit(&k->event);
        forget(k);
    }
}

void xlog_backtrace_free(xlog_backtrace *b)
{
    if (!b)
        return;
    for (size_t i = 0; i < b->count; i++)
        forget(&b->events[(b->first + i) % b->capacity]);
    free(b);
}
