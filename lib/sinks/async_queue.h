/*
 * async_queue.h - a bounded queue of whole messages between the back end and
 * a thread of a sink's own that delivers them, for sinks whose output may
 * block: a terminal that is not read, a syslog collector that is slow or
 * down.
 *
 * Why: the back end writes every output, so it must never wait for one
 * (the glog note in BENCHMARKS.md: a full terminal blocked its writer for 12 s).  A sink that may
 * block copies each message into this queue and returns; its writer thread
 * takes messages out and may block on its descriptor as long as it likes.
 * What both sides need is here: the bounded buffer, counting what is
 * dropped, a wake-up that never makes the back end wait on a lock, a stop
 * with a deadline that gives up on a peer that never reads, and forgetting
 * the writer in the child of fork().  How the messages are delivered (one
 * datagram each, or a byte stream coalesced into few writes) is the sink's.
 *
 * Contract:
 *   - One producer, the back end (or whoever stands in for it while it is
 *     stopped): xlog_aq_reserve, xlog_aq_commit, xlog_aq_stop,
 *     xlog_aq_after_fork.  None of them blocks, except xlog_aq_stop, which
 *     waits at most its deadline (plus one poll of the writer's).
 *   - One consumer, the writer function given to xlog_aq_start, on the
 *     queue's thread (all signals blocked): xlog_aq_peek, xlog_aq_release,
 *     xlog_aq_drop, xlog_aq_state, xlog_aq_wait.  The writer returns only once
 *     xlog_aq_state is not XLOG_AQ_RUNNING: when it has delivered everything
 *     (XLOG_AQ_DRAINING), when the deadline has passed (XLOG_AQ_GIVE_UP), or
 *     when it knows it cannot deliver (its collector is unreachable).
 *   - Messages leave in the order they were committed.  A message stays in
 *     the queue until the writer releases it, so a writer that cannot
 *     deliver keeps the oldest ones (up to the capacity) and the newest are
 *     dropped.
 *   - xlog_aq_count_lost (either side) counts messages that will never be
 *     delivered, in the sink's total and in the count not yet announced;
 *     the sink announces them as it sees fit and then calls
 *     xlog_aq_announced.  Messages the writer gives up with xlog_aq_drop,
 *     and those xlog_aq_stop gives up, are counted in the total only.
 */
#ifndef XLOG_ASYNC_QUEUE_H
#define XLOG_ASYNC_QUEUE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

typedef struct xlog_aq xlog_aq;

/* The writer: delivers messages until xlog_aq_state says to stop. */
typedef void (*xlog_aq_writer)(xlog_aq *q, void *arg);

struct xlog_aq {
    char *buffer;
    uint64_t capacity;      /* bytes, a multiple of 4 */
    uint64_t head;          /* atomic: end of the committed messages (producer) */
    uint64_t tail;          /* atomic: end of the released messages (writer) */
    uint64_t reserved_at;   /* producer: where the reserved message starts */
    uint32_t reserved_len;  /* producer: its length */
    uint64_t unannounced;   /* atomic: lost and not yet announced */
    uint64_t *lost_total;   /* atomic: the sink's counter in xlog_stats */
    int wake_fd;            /* eventfd: the writer polls it */
    int sleeping;           /* atomic: the writer may be waiting for messages */
    int stopping;           /* atomic: xlog_aq_stop has begun */
    int64_t give_up_ms;     /* atomic: CLOCK_MONOTONIC ms when the stop gives up */
    xlog_aq_writer writer;
    void *arg;
    pthread_t thread;
};

/* Allocates capacity bytes (rounded down to a multiple of 4; each message
 * takes its length plus 4 to 7 bytes) and starts the writer thread, named
 * thread_name (at most 15 bytes), which calls writer(q, arg).  lost_total is the sink's counter of messages not
 * delivered.  0 or a negative errno (nothing is left to undo). */
int xlog_aq_start(xlog_aq *q, const char *thread_name, size_t capacity, uint64_t *lost_total,
                  xlog_aq_writer writer, void *arg);

/* ---- the producer ---------------------------------------------------------- */

/* Contiguous room for a message of len bytes, or NULL when it does not fit
 * now (the caller decides whether that is a loss to count).  The message is
 * the caller's to fill until xlog_aq_commit; a new reserve discards it. */
void *xlog_aq_reserve(xlog_aq *q, size_t len);

/* Hands the reserved message to the writer, waking it if it sleeps. */
void xlog_aq_commit(xlog_aq *q);

/* Asks the writer to deliver what is queued within wait_ms, and joins it;
 * what it did not deliver is counted as lost (not announced: no one is left
 * to tell).  Frees the queue.  Returns the number of messages given up. */
uint64_t xlog_aq_stop(xlog_aq *q, int wait_ms);

/* In the child of fork(): the writer thread did not come along and the
 * queued messages are the parent's to deliver.  Closes the queue's
 * descriptor; the memory is left as it is (the parent's back end may have
 * been using it when the fork happened). */
void xlog_aq_after_fork(xlog_aq *q);

/* ---- accounting (either side) ---------------------------------------------- */

/* n messages will never be delivered. */
void xlog_aq_count_lost(xlog_aq *q, uint64_t n);

/* Lost messages not yet announced; the sink says it has announced n of them. */
uint64_t xlog_aq_unannounced(xlog_aq *q);
void xlog_aq_announced(xlog_aq *q, uint64_t n);

/* ---- the writer ------------------------------------------------------------ */

/* Up to max of the oldest messages not yet released, one iovec each (a
 * message is contiguous); returns how many. */
size_t xlog_aq_peek(xlog_aq *q, struct iovec *iov, size_t max);

/* The n oldest messages are done with (delivered, or counted lost): their
 * room goes back to the producer. */
void xlog_aq_release(xlog_aq *q, size_t n);

/* The n oldest messages will never be delivered because the output itself
 * failed: they are released and counted in the sink's total, not in the
 * count to announce (a notice would go the same way). */
void xlog_aq_drop(xlog_aq *q, size_t n);

enum {
    XLOG_AQ_RUNNING = 0,  /* deliver, and wait for more */
    XLOG_AQ_DRAINING = 1, /* the stop has begun: deliver what is queued, then return */
    XLOG_AQ_GIVE_UP = 2   /* the stop's deadline has passed: return now */
};
int xlog_aq_state(xlog_aq *q);

/* Sleeps until the stop begins or its deadline passes, timeout_ms passes
 * (-1: no timeout), fd (when >= 0) has one of events, or, when
 * for_messages, the queue holds a message (at once if it does).  Returns
 * fd's poll revents (0 when fd did not wake it).  Wake-ups may be spurious:
 * the caller looks again at what it waits for. */
int xlog_aq_wait(xlog_aq *q, int for_messages, int fd, short events, int timeout_ms);

/* CLOCK_MONOTONIC in milliseconds, the clock of the deadline. */
int64_t xlog_aq_now_ms(void);

#endif
