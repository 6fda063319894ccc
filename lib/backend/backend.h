/*
 * backend.h - the back end's thread (backend.c): started and stopped by
 * xlog.c, asked to flush, and called by the crash handler.
 */
#ifndef XLOG_BACKEND_H
#define XLOG_BACKEND_H

#include "xlog.h"

int xlog_backend_start(const xlog_config *cfg);
int xlog_backend_flush(void);
void xlog_backend_stop(void);
/* From a crash handler: writes everything published, and a last line;
 * 1 once that is done, 0 if it could not be (xlog closed, or the back end
 * did not answer). */
int xlog_backend_crash_flush(int sig);
/* The program's own handler returned from that signal: carry on. */
void xlog_backend_crash_survived(void);
/* fork(): the lock the back end shares with callers, and forgetting the
 * parent's back end in the child (its unwritten lines are the parent's). */
void xlog_backend_lock(void);
void xlog_backend_unlock(void);
void xlog_backend_after_fork(void);

#endif
