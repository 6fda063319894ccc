/*
 * settings.h - what the log call reads on every call, set by xlog_open.
 *
 * It lives at the bottom because the front end, the rings and the back end
 * all read it while only xlog.c writes it; and it carries the one call the
 * front end makes upward (restarting xlog in the child of a fork) as a
 * function pointer that xlog_open sets, so no file calls up into xlog.c.
 */
#ifndef XLOG_SETTINGS_H
#define XLOG_SETTINGS_H

#include <stddef.h>
#include <stdint.h>

#include "base/atomics.h"

typedef struct xlog_front_settings {
    uint64_t epoch;       /* atomic: which xlog_open is in force; 0 while closed */
    int full_policy;      /* xlog_full_policy */
    size_t ring_size;     /* power of two */
    size_t max_message;
    int alt_stacks;       /* give each logging thread an alternate signal stack */
    int64_t (*wall_clock_ns)(void); /* cfg.wall_clock_ns, for rate limits */
    int forked;           /* atomic: this is a child of fork(); restart on first use */
    /* Starts xlog again in the child of fork() (xlog.c), called by the
     * first log call that finds forked set. */
    void (*restart_after_fork)(void);
} xlog_front_settings;

extern XLOG_HIDDEN xlog_front_settings xlog_front;

#endif
