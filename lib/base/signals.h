/*
 * signals.h - the crash signals xlog handles (backend/crash.c), which the
 * back end's thread must also leave unblocked and name in its last line.
 */
#ifndef XLOG_SIGNALS_H
#define XLOG_SIGNALS_H

#include <signal.h>

/* SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT. */
extern const int xlog_crash_signals[];
#define XLOG_CRASH_SIGNALS 5

/* Removes the crash signals from set (for the back end's signal mask). */
void xlog_crash_signals_unblocked(sigset_t *set);
/* "SIGSEGV" ..., or "a signal". */
const char *xlog_signal_name(int sig);

#endif
