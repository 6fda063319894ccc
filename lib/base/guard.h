/*
 * guard.h - where the calling thread is: inside a log call, or serving
 * xlog (its back end, a sink's function).
 *
 * Inside a call: a signal handler that logs while its thread is inside a
 * log call (or inside an xlog function that holds a lock a call may need)
 * must not touch the ring, the lock or the allocator the interrupted code
 * is using; its message is dropped and counted (frontend.c).  The back
 * end, the filters and xlog.c mark the regions where they hold such a lock.
 *
 * Serving xlog: the functions that wait for the back end or stop it
 * (xlog_open, xlog_close, xlog_flush, xlog_recover) refuse to run on the
 * back end's thread, which marks itself as it starts, and inside a custom
 * sink's function, wherever xlog calls it (open and close run on the thread
 * of xlog_open and xlog_close, which hold the lock those take): the call
 * would wait for itself forever, or join its own thread.
 */
#ifndef XLOG_GUARD_H
#define XLOG_GUARD_H

#include "base/atomics.h"
#include "xlog.h"

/* Non-zero while the thread is inside a log call or a marked region
 * (they nest). */
extern XLOG_HIDDEN XLOG_IMPL_TLS int xlog_in_call;

/* The compiler must not move the ring's stores out of the region, since a
 * signal handler on this thread checks it. */
static inline void xlog_enter(void)
{
    xlog_in_call++;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

static inline void xlog_leave(void)
{
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    xlog_in_call--;
}

static inline int xlog_inside(void)
{
    return xlog_in_call != 0;
}

void xlog_mark_backend_thread(void);
void xlog_sink_code_enter(void);
void xlog_sink_code_leave(void);
/* Whether the calling thread serves xlog (see above). */
int xlog_serving(void);

#endif
