/*
 * frontend.h - what the rest of xlog asks of the front end (frontend.c):
 * its counts of messages no ring took, forgetting a thread's ring after
 * fork, and lines of xlog's own.
 */
#ifndef XLOG_FRONTEND_H
#define XLOG_FRONTEND_H

#include <stdint.h>

#include "rings/ring.h"

/* Messages dropped outside any ring: logged while xlog was closed, or by a
 * signal handler during a thread's first call (atomic). */
extern uint64_t xlog_unringed_dropped[XLOG_DROP_REASONS];

/* In the child of fork(): forget the calling thread's ring (frontend.c). */
void xlog_front_after_fork(void);

/* The calling thread has taken or given up its own threshold
 * (xlog_thread_level): calls in the program's code go to the library while
 * it has one (frontend.c, "Room"). */
void xlog_front_own_threshold_changed(void);

/* Logs a line of xlog's own (WARN, "xlog:0 xlog"), whatever the level in
 * force (frontend.c). */
void xlog_notice(const char *format, ...) __attribute__((format(printf, 1, 2)));

#endif
