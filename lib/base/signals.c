/*
 * signals.c - see signals.h.
 */
#include "base/signals.h"

const int xlog_crash_signals[XLOG_CRASH_SIGNALS] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

void xlog_crash_signals_unblocked(sigset_t *set)
{
    for (int i = 0; i < XLOG_CRASH_SIGNALS; i++)
        sigdelset(set, xlog_crash_signals[i]);
}

const char *xlog_signal_name(int sig)
{
    switch (sig) {
    case SIGSEGV:
        return "SIGSEGV";
    case SIGBUS:
        return "SIGBUS";
    case SIGFPE:
        return "SIGFPE";
    case SIGILL:
        return "SIGILL";
    case SIGABRT:
        return "SIGABRT";
    default:
        return "a signal";
    }
}
