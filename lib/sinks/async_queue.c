/*
 * async_queue.c - the bounded message queue between the back end and a
 * sink's writer thread (see async_queue.h for the contract).
 *
 * How it works:
 *   - The buffer is a ring of records: a 4-byte length, then the message,
 *     padded to a multiple of 4.  A message is never split: when it does not
 *     fit before the end of the buffer, a SKIP length sends the reader back
 *     to the start (the bytes skipped count as used until it passes them),
 *     so the writer can hand each message to sendmmsg or writev as it lies.
 *     head and tail are free-running byte counters, like the threads' rings.
 *   - Hand-offs: the producer fills a record and publishes head; the writer
 *     reads records up to head and publishes tail when it releases them.
 *     Each side's acquire of the other's counter is mirrored to
 *     ThreadSanitizer (base/atomics.h) because the library's atomics are
 *     invisible to a program built with it, while the copies in and the
 *     sendmmsg/writev out are watched.
 *   - Wake-up: the writer waits in poll() on an eventfd (and on its own
 *     descriptor when it waits for it).  Before sleeping for messages it
 *     sets "sleeping" and looks at head again; the producer publishes head
 *     and then looks at "sleeping", both sequentially consistent, so either
 *     the writer sees the message or the producer sees it asleep and writes
 *     the eventfd.  There is no lock: the back end never waits for the
 *     writer, whatever the writer is blocked in.
 *   - Stop: the producer sets a deadline, wakes the writer and joins it.
 *     Every wait of the writer's ends at the deadline, after which
 *     xlog_aq_state says XLOG_AQ_GIVE_UP; what is still queued is counted.
 *   - fork(): the child has no writer; it closes its copy of the eventfd
 *     and leaves the buffer (no lock was copied in a held state).
 */
#define _GNU_SOURCE
#include "sinks/async_queue.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "base/atomics.h"

#define SKIP UINT32_MAX
#define HEADER 4

static uint64_t record_size(uint32_t len)
{
    return HEADER + (((uint64_t)len + 3) & ~(uint64_t)3);
}

int64_t xlog_aq_now_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

static void *thread_main(void *arg)
{
    xlog_aq *q = arg;
    q->writer(q, q->arg);
    return NULL;
}

int xlog_aq_start(xlog_aq *q, const char *thread_name, size_t capacity, uint64_t *lost_total,
                  xlog_aq_writer writer, void *arg)
{
    memset(q, 0, sizeof *q);
    q->capacity = capacity & ~(uint64_t)3;
    q->lost_total = lost_total;
    q->writer = writer;
    q->arg = arg;
    q->buffer = malloc(q->capacity);
    if (!q->buffer)
        return -ENOMEM;
    q->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (q->wake_fd < 0) {
        int rc = -errno;
        free(q->buffer);
        return rc;
    }
    /* Signals belong to the application; a peer gone away gives EPIPE to
     * the writer rather than a SIGPIPE that ends the program. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&q->thread, NULL, thread_main, q);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        close(q->wake_fd);
        free(q->buffer);
        return -rc;
    }
    /* Named before xlog_open returns, for top -H, ps -L and gdb. */
    pthread_setname_np(q->thread, thread_name);
    return 0;
}

static void wake(xlog_aq *q)
{
    uint64_t one = 1;
    /* Fails only when the counter is saturated: the writer is woken anyway. */
    ssize_t rc = write(q->wake_fd, &one, sizeof one);
    (void)rc;
}

/* ---- the producer ------------------------------------------------------------ */

void *xlog_aq_reserve(xlog_aq *q, size_t len)
{
    if (len > q->capacity - HEADER || len > UINT32_MAX - 4)
        return NULL;
    uint64_t size = record_size((uint32_t)len);
    uint64_t head = xlog_load(&q->head);
    uint64_t tail = xlog_load_acquire(&q->tail);
    xlog_tsan_acquire(&q->tail);
    uint64_t offset = head % q->capacity;
    uint64_t to_end = q->capacity - offset;
    uint64_t skip = size > to_end ? to_end : 0;
    if (skip + size > q->capacity - (head - tail))
        return NULL;
    if (skip) {
        uint32_t marker = SKIP;
        memcpy(q->buffer + offset, &marker, HEADER);
    }
    q->reserved_at = head + skip;
    q->reserved_len = (uint32_t)len;
    return q->buffer + q->reserved_at % q->capacity + HEADER;
}

void xlog_aq_commit(xlog_aq *q)
{
    memcpy(q->buffer + q->reserved_at % q->capacity, &q->reserved_len, HEADER);
    xlog_tsan_release(&q->head);
    __atomic_store_n(&q->head, q->reserved_at + record_size(q->reserved_len), __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&q->sleeping, __ATOMIC_SEQ_CST))
        wake(q);
}

/* Moves *pos over the records towards head, at most max messages (and the
 * SKIPs before them), describing each in iov when given; returns how many. */
static size_t walk(xlog_aq *q, uint64_t *pos, uint64_t head, size_t max, struct iovec *iov)
{
    size_t n = 0;
    while (*pos != head && n < max) {
        uint64_t offset = *pos % q->capacity;
        uint32_t len;
        memcpy(&len, q->buffer + offset, HEADER);
        if (len == SKIP) {
            *pos += q->capacity - offset;
            continue;
        }
        if (iov) {
            iov[n].iov_base = q->buffer + offset + HEADER;
            iov[n].iov_len = len;
        }
        n++;
        *pos += record_size(len);
    }
    return n;
}

uint64_t xlog_aq_stop(xlog_aq *q, int wait_ms)
{
    __atomic_store_n(&q->give_up_ms, xlog_aq_now_ms() + wait_ms, __ATOMIC_RELAXED);
    __atomic_store_n(&q->stopping, 1, __ATOMIC_SEQ_CST);
    wake(q);
    pthread_join(q->thread, NULL);
    uint64_t pos = q->tail;
    uint64_t left = walk(q, &pos, q->head, SIZE_MAX, NULL);
    xlog_add(q->lost_total, left);
    close(q->wake_fd);
    free(q->buffer);
    q->buffer = NULL;
    return left;
}

void xlog_aq_after_fork(xlog_aq *q)
{
    close(q->wake_fd);
}

/* ---- accounting ---------------------------------------------------------------- */

void xlog_aq_count_lost(xlog_aq *q, uint64_t n)
{
    xlog_add(q->lost_total, n);
    xlog_add(&q->unannounced, n);
}

uint64_t xlog_aq_unannounced(xlog_aq *q)
{
    return xlog_load(&q->unannounced);
}

void xlog_aq_announced(xlog_aq *q, uint64_t n)
{
    __atomic_fetch_sub(&q->unannounced, n, __ATOMIC_RELAXED);
}

/* ---- the writer ---------------------------------------------------------------- */

size_t xlog_aq_peek(xlog_aq *q, struct iovec *iov, size_t max)
{
    uint64_t head = xlog_load_acquire(&q->head);
    xlog_tsan_acquire(&q->head);
    uint64_t pos = q->tail;
    return walk(q, &pos, head, max, iov);
}

/* Releases up to n messages; returns how many. */
static size_t release(xlog_aq *q, size_t n)
{
    uint64_t pos = q->tail;
    size_t released = walk(q, &pos, xlog_load(&q->head), n, NULL);
    xlog_tsan_release(&q->tail);
    xlog_store_release(&q->tail, pos);
    return released;
}

void xlog_aq_release(xlog_aq *q, size_t n)
{
    release(q, n);
}

void xlog_aq_drop(xlog_aq *q, size_t n)
{
    xlog_add(q->lost_total, release(q, n));
}

int xlog_aq_state(xlog_aq *q)
{
    if (!__atomic_load_n(&q->stopping, __ATOMIC_ACQUIRE))
        return XLOG_AQ_RUNNING;
    if (xlog_aq_now_ms() >= __atomic_load_n(&q->give_up_ms, __ATOMIC_RELAXED))
        return XLOG_AQ_GIVE_UP;
    return XLOG_AQ_DRAINING;
}

int xlog_aq_wait(xlog_aq *q, int for_messages, int fd, short events, int timeout_ms)
{
    if (__atomic_load_n(&q->stopping, __ATOMIC_ACQUIRE)) {
        int64_t left = __atomic_load_n(&q->give_up_ms, __ATOMIC_RELAXED) - xlog_aq_now_ms();
        if (left <= 0)
            return 0;
        if (timeout_ms < 0 || timeout_ms > left)
            timeout_ms = (int)left;
    }
    if (for_messages) {
        __atomic_store_n(&q->sleeping, 1, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&q->head, __ATOMIC_SEQ_CST) != q->tail ||
            __atomic_load_n(&q->stopping, __ATOMIC_SEQ_CST)) {
            __atomic_store_n(&q->sleeping, 0, __ATOMIC_RELAXED);
            return 0;
        }
    }
    struct pollfd p[2] = {{.fd = q->wake_fd, .events = POLLIN}, {.fd = fd, .events = events}};
    int rc = poll(p, fd >= 0 ? 2 : 1, timeout_ms);
    __atomic_store_n(&q->sleeping, 0, __ATOMIC_RELAXED);
    if (rc <= 0)
        return 0;
    if (p[0].revents & POLLIN) {
        uint64_t count;
        ssize_t got = read(q->wake_fd, &count, sizeof count);
        (void)got; /* EAGAIN: another wait already took the wake-up */
    }
    return fd >= 0 ? p[1].revents : 0;
}
