/*
 * backtrace.h - a thread's kept messages (see backtrace.c); back end only.
 */
#ifndef XLOG_BACKTRACE_H
#define XLOG_BACKTRACE_H

#include <stddef.h>

#include "event/event.h"

typedef struct xlog_backtrace xlog_backtrace;

/* A backtrace of at most lines events; NULL without memory. */
xlog_backtrace *xlog_backtrace_new(size_t lines);

/* Keeps a copy of event, forgetting the oldest when full. */
void xlog_backtrace_keep(xlog_backtrace *b, const xlog_line_event *event);

/* Hands every kept event to emit, oldest first, its message marked
 * "[backtrace] ", and forgets them.  It uses no buffer but its own, so an
 * event being written when it is called (the ERROR that calls it) is left
 * whole. */
void xlog_backtrace_replay(xlog_backtrace *b, void (*emit)(const xlog_line_event *event));

void xlog_backtrace_free(xlog_backtrace *b);

#endif
