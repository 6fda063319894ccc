/*
 * syscall_audit.c - the seccomp user-notification counter described in
 * syscall_audit.h.
 *
 * The filter is one BPF instruction, "return SECCOMP_RET_USER_NOTIF", attached
 * to the audited thread only (no SECCOMP_FILTER_FLAG_TSYNC), so the rest of
 * the process - xlog's back end included - is not affected.  A filter cannot
 * be removed, which is why audited callers are threads that exit when their
 * strategy ends.  The listener descriptor is handed to the supervisor through
 * an atomic variable, because any other hand-over would itself be a system
 * call of the audited thread, waiting for a supervisor that does not yet know
 * where to listen.  Needs Linux 5.5 or later (SECCOMP_USER_NOTIF_FLAG_CONTINUE):
 * an older kernel would take the filter but could not let the calls go on, so
 * there attaching is refused and the count is reported as unavailable.
 */
#include "syscall_audit.h"

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

static void answer_notifications(syscall_audit *audit, int listener)
{
    for (;;) {
        struct pollfd ready = {.fd = listener, .events = POLLIN};
        if (poll(&ready, 1, -1) < 0) {
            if (errno == EINTR)
                continue;
            return;
        }
        if (ready.revents & POLLIN) {
            struct seccomp_notif request;
            memset(&request, 0, sizeof request);
            if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &request) != 0) {
                if (errno == EINTR || errno == ENOENT)
                    continue;
                return;
            }
            atomic_fetch_add(&audit->calls, 1);
            struct seccomp_notif_resp response = {
                .id = request.id,
                .flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE,
            };
            /* ENOENT here means the thread was killed meanwhile: nothing to do. */
            ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &response);
        } else if (ready.revents & (POLLHUP | POLLERR)) {
            return; /* the audited thread is gone */
        }
    }
}

static void *supervise(void *arg)
{
    syscall_audit *audit = arg;
    const struct timespec pause = {.tv_nsec = 100 * 1000};
    int listener;
    while ((listener = atomic_load(&audit->listener_fd)) < 0) {
        if (atomic_load(&audit->given_up))
            return NULL;
        nanosleep(&pause, NULL);
    }
    answer_notifications(audit, listener);
    close(listener);
    return NULL;
}

int syscall_audit_start(syscall_audit *audit)
{
    atomic_init(&audit->listener_fd, -1);
    atomic_init(&audit->given_up, 0);
    atomic_init(&audit->calls, 0);
    int rc = pthread_create(&audit->supervisor, NULL, supervise, audit);
    audit->supervisor_running = rc == 0;
    return -rc;
}

static int kernel_can_continue_calls(void)
{
    struct utsname system;
    int major = 0, minor = 0;
    if (uname(&system) != 0 || sscanf(system.release, "%d.%d", &major, &minor) != 2)
        return 0;
    return major > 5 || (major == 5 && minor >= 5);
}

int syscall_audit_attach(syscall_audit *audit)
{
    /* Without a supervisor, the first audited system call would wait forever. */
    if (!audit->supervisor_running || !kernel_can_continue_calls()) {
        atomic_store(&audit->given_up, 1);
        return -ENOSYS;
    }
    struct sock_filter notify_everything[] = {
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
    };
    struct sock_fprog program = {
        .len = sizeof notify_everything / sizeof notify_everything[0],
        .filter = notify_everything,
    };
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        atomic_store(&audit->given_up, 1);
        return -errno;
    }
    long listener = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                            SECCOMP_FILTER_FLAG_NEW_LISTENER, &program);
    if (listener < 0) {
        atomic_store(&audit->given_up, 1);
        return -errno;
    }
    atomic_store(&audit->listener_fd, (int)listener);
    return 0;
}

uint64_t syscall_audit_count(syscall_audit *audit)
{
    return atomic_load(&audit->calls);
}

void syscall_audit_finish(syscall_audit *audit)
{
    if (audit->supervisor_running) {
        /* If the audited thread never got as far as attaching, stop waiting. */
        if (atomic_load(&audit->listener_fd) < 0)
            atomic_store(&audit->given_up, 1);
        pthread_join(audit->supervisor, NULL);
        audit->supervisor_running = 0;
    }
}
