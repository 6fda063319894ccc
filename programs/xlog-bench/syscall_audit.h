/*
 * syscall_audit.h - counts every system call one thread makes, exactly.
 *
 * SPEC asks that "no syscall on the caller" be counted, not assumed.  The
 * counters the kernel exposes per thread (/proc/thread-self/io syscr/syscw,
 * context switches) only see some kinds of system call, so xlog-bench asks the
 * kernel itself: the audited thread installs a seccomp filter that turns every
 * one of its system calls into a user notification, and a supervisor thread
 * counts each notification and lets the call go on unchanged
 * (SECCOMP_USER_NOTIF_FLAG_CONTINUE).  A call that makes no system call is not
 * slowed at all; one that does waits for the supervisor's round trip, which
 * is why xlog-bench audits only the strategies that claim to make none.
 *
 * Usage: syscall_audit_start() on the main thread, then the audited thread
 * calls syscall_audit_attach() and reads syscall_audit_count() around the
 * calls it wants counted; after it has exited, syscall_audit_finish().
 */
#ifndef XLOG_BENCH_SYSCALL_AUDIT_H
#define XLOG_BENCH_SYSCALL_AUDIT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

typedef struct syscall_audit {
    atomic_int listener_fd;    /* -1 until the audited thread has attached */
    atomic_int given_up;       /* the audited thread could not attach */
    atomic_uint_fast64_t calls; /* system calls seen so far */
    pthread_t supervisor;
    int supervisor_running;
} syscall_audit;

/* Starts the supervisor thread.  Returns 0 or a negative errno. */
int syscall_audit_start(syscall_audit *audit);

/* Called by the thread to audit: from now on every system call it (and any
 * thread it creates) makes is counted.  Returns 0, or a negative errno when the
 * kernel refuses (then the count stays unavailable). */
int syscall_audit_attach(syscall_audit *audit);

/* System calls counted so far. */
uint64_t syscall_audit_count(syscall_audit *audit);

/* Waits for the supervisor to see the audited thread gone, and frees it.
 * Call after the audited thread has exited. */
void syscall_audit_finish(syscall_audit *audit);

#endif
