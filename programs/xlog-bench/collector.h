/*
 * collector.h - a syslog collector of xlog-bench's own, for the syslog rows,
 * so that they need no rsyslog: a socket that xlog's syslog sink sends to,
 * and a reader thread that takes every datagram, checks that it is one whole
 * message of the workload under the header the sink writes, and counts it.
 *
 * Two transports, as xlog_syslog_config names them:
 *   XLOG_SYSLOG_UNIX  a local datagram socket, collector.sock in the row's
 *                     directory (what /dev/log is); RFC 3164 header
 *                     "<14>Nov 22 15:45:25 xlog-bench[PID]: ";
 *   XLOG_SYSLOG_UDP   UDP on 127.0.0.1, a port the kernel chooses; RFC 5424
 *                     header "<14>1 2026-11-22T14:45:25.123456Z localhost
 *                     xlog-bench PID - - ".
 * The sink must be configured with collector_address(), app_name
 * COLLECTOR_APP_NAME and hostname COLLECTOR_HOSTNAME, and its default format
 * and facility.
 *
 * The reader takes up to 256 datagrams per recvmmsg() and does little else,
 * so that the row measures the sender more than the reader.  It records the
 * bench_ticks() of the last datagram it took, so that the row's time ends
 * when the last message arrived, not when the main thread noticed it.
 */
#ifndef XLOG_BENCH_COLLECTOR_H
#define XLOG_BENCH_COLLECTOR_H

#include <stdint.h>

#include <xlog.h>

#define COLLECTOR_APP_NAME "xlog-bench"
#define COLLECTOR_HOSTNAME "localhost"

typedef struct collector collector;

typedef struct collector_counts {
    uint64_t received;  /* whole messages of the workload, each with its header */
    uint64_t malformed; /* datagrams that are neither those nor xlog's notice of
                           messages not delivered ("xlog: N messages were not
                           delivered to syslog: ..."), which is not counted */
    /* UDP: datagrams the kernel dropped because the socket's receive buffer
     * was full (the drops column of /proc/net/udp), which no sender can
     * count; -1 for the local socket, whose sender waits for room instead,
     * or when that column cannot be read. */
    int64_t lost_in_kernel;
} collector_counts;

/* Opens the socket (in dir for XLOG_SYSLOG_UNIX) and starts the reader,
 * which takes messages of call indexes below `messages`.  Returns 0 or a
 * negative errno, with what failed in why. */
int collector_start(collector **out, xlog_syslog_transport transport, const char *dir,
                    uint64_t messages, char *why, size_t why_size);

/* What the sink's address must be: the socket's path, or "127.0.0.1:PORT". */
const char *collector_address(const collector *c);

/* Datagrams taken so far that were not xlog's notices (received +
 * malformed), and the bench_ticks() at which the last of them was taken. */
uint64_t collector_arrived(collector *c, uint64_t *last_ticks);

/* UDP: datagrams the kernel dropped so far (as lost_in_kernel below); -1 for
 * the local socket. */
int64_t collector_lost_in_kernel(collector *c);

/* Stops the reader (within 100 ms), closes and removes the socket, fills
 * *counts and frees c. */
void collector_stop(collector *c, collector_counts *counts);

#endif
