/*
 * doorbell.c - see doorbell.h.
 */
#define _GNU_SOURCE
#include "base/doorbell.h"

#include <errno.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

xlog_doorbell xlog_bell;

void xlog_bell_ring(void)
{
    int saved = errno; /* from a signal handler too */
    __atomic_add_fetch(&xlog_bell.wakes, 1, __ATOMIC_SEQ_CST);
    syscall(SYS_futex, &xlog_bell.wakes, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    errno = saved;
}

void xlog_bell_ring_if_asleep(void)
{
    if (__atomic_exchange_n(&xlog_bell.asleep, 0, __ATOMIC_SEQ_CST))
        xlog_bell_ring();
}

void xlog_bell_ring_if_dozing(void)
{
    if (xlog_bell_dozing() && __atomic_exchange_n(&xlog_bell.dozing, 0, __ATOMIC_SEQ_CST))
        xlog_bell_ring();
}

void xlog_bell_wait(uint32_t seen, long ns)
{
    struct timespec timeout = {ns / 1000000000, ns % 1000000000};
    syscall(SYS_futex, &xlog_bell.wakes, FUTEX_WAIT_PRIVATE, seen, &timeout, NULL, 0);
}
