/*
 * guard.c - see guard.h.
 */
#include "base/guard.h"

XLOG_IMPL_TLS int xlog_in_call;

/* Non-zero on the back end's thread and inside a custom sink's function. */
static XLOG_IMPL_TLS int serving_xlog;

void xlog_mark_backend_thread(void)
{
    serving_xlog = 1;
}

void xlog_sink_code_enter(void)
{
    serving_xlog++;
}

void xlog_sink_code_leave(void)
{
    serving_xlog--;
}

int xlog_serving(void)
{
    return serving_xlog != 0;
}
