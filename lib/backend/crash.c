/*
 * crash.c - the last lines before a crash or an exit() without xlog_close.
 *
 * Why it exists: the lines written just before a program dies are the ones
 * people open the log for, and at that moment they are still in the rings or
 * in the back end's buffers.
 *
 * How it works: xlog_open installs a handler for SIGSEGV, SIGBUS, SIGFPE,
 * SIGILL and SIGABRT (unless cfg.crash_handlers is 0), keeping the handlers
 * the program had.  On a signal, the handler asks the back end to write
 * everything already published and a last line naming the signal
 * (xlog_backend_crash_flush), waiting a bounded time; if the crash is in the
 * back end itself, the handler does that work on its own thread (if the back
 * end does not answer within 5 s, it is stuck and the handler gives up).
 * Then the program's previous handler runs (if it returns, the program and
 * xlog carry on), or the default action (with its core dump) proceeds.  The code on this path avoids locks and
 * allocation; formatting uses the same engine as always, which does not
 * allocate for the conversions a log line uses.
 *
 * Threads get an alternate signal stack with their ring (frontend.c), so a
 * stack overflow still reaches the handler.
 *
 * exit() and a return from main run xlog_close from an atexit handler, which
 * xlog_open registers once.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/backend.h"
#include "backend/crash.h"
#include "base/signals.h"
#include "shm/shm.h"

static struct sigaction previous[XLOG_CRASH_SIGNALS];
static int installed;
static int handling; /* atomic: a crash is being handled */

static void on_crash(int sig, siginfo_t *info, void *context)
{
    int written = 0;
    if (!__atomic_exchange_n(&handling, 1, __ATOMIC_ACQ_REL)) {
        written = xlog_backend_crash_flush(sig);
    } else {
        /* Another thread crashed at the same time: let its flush finish
         * before this one ends the process. */
        for (int i = 0; i < 5000 && __atomic_load_n(&handling, __ATOMIC_ACQUIRE); i++) {
            struct timespec pause = {0, 1000000};
            nanosleep(&pause, NULL);
        }
    }
    for (int i = 0; i < XLOG_CRASH_SIGNALS; i++) {
        if (xlog_crash_signals[i] != sig)
            continue;
        int chained = (previous[i].sa_flags & SA_SIGINFO) ||
                      (previous[i].sa_handler != SIG_DFL && previous[i].sa_handler != SIG_IGN);
        if (!chained)
            break;
        /* xlog's part is done.  The program's handler runs as if it were
         * alone, and may recover (return, or jump away): xlog carries on. */
        xlog_backend_crash_survived();
        __atomic_store_n(&handling, 0, __ATOMIC_RELEASE);
        struct sigaction ours;
        sigaction(sig, &previous[i], &ours);
        if (previous[i].sa_flags & SA_SIGINFO)
            previous[i].sa_sigaction(sig, info, context);
        else
            previous[i].sa_handler(sig);
        sigaction(sig, &ours, NULL); /* it returned: catch the next crash too */
        return;
    }
    /* Default action: the signal is blocked while we run, so it is delivered
     * (and the process ends, with a core dump where enabled) as we return.
     * Every line is in the files: the rings in shared memory can go (if the
     * back end could not answer, they stay for recovery to write). */
    if (written)
        xlog_survival_remove();
    signal(sig, SIG_DFL);
    raise(sig);
}

void xlog_crash_install(void)
{
    if (installed)
        return;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_crash;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigfillset(&action.sa_mask);
    for (int i = 0; i < XLOG_CRASH_SIGNALS; i++)
        sigaction(xlog_crash_signals[i], &action, &previous[i]);
    installed = 1;
}

void xlog_crash_uninstall(void)
{
    if (!installed)
        return;
    for (int i = 0; i < XLOG_CRASH_SIGNALS; i++) {
        struct sigaction current;
        sigaction(xlog_crash_signals[i], NULL, &current);
        /* Leave alone a handler the program installed after ours. */
        if ((current.sa_flags & SA_SIGINFO) && current.sa_sigaction == on_crash)
            sigaction(xlog_crash_signals[i], &previous[i], NULL);
    }
    installed = 0;
}
