/*
 * strategy_syslog.c - the back end with a syslog sink, sending to a collector
 * the bench runs itself (collector.h), so that no rsyslog is needed:
 *
 *   xlog-syslog-throughput      the local datagram socket (XLOG_SYSLOG_UNIX,
 *                               what /dev/log is), RFC 3164;
 *   xlog-syslog-udp-throughput  UDP on 127.0.0.1, RFC 5424.
 *
 * Each is xlog-throughput with one extra sink: the same N lines back to back
 * from one thread, timed until xlog_flush() says they are in the file AND the
 * collector has every message that xlog did not count as dropped
 * (xlog_counters.syslog_dropped).  xlog_flush() does not wait for syslog, so
 * the main thread then watches the collector; once arrivals pause, it also
 * counts the datagrams the kernel dropped (UDP), which will never come, and
 * it gives up once nothing has arrived for COLLECTOR_QUIET_S.
 *
 * The sink's buffer holds every message of the row (SYSLOG_BYTES_PER_MESSAGE
 * each, 512 MiB for 4 million): the back end formats faster than a socket
 * takes datagrams, and with the default 1 MiB most messages would be dropped,
 * so that the row would measure dropping, not delivery.  malloc() leaves the
 * pages untouched until the queue reaches them.
 *
 * Reported besides the throughput figures: the time until the files were
 * complete, the messages the collector received whole, those it found
 * malformed, those xlog dropped, those the kernel dropped (UDP), and whether
 * received + dropped == sent with nothing malformed and no time-out (a
 * datagram the kernel dropped makes it false: xlog could not count it).
 */
#include <stdio.h>
#include <unistd.h>

#include <xlog.h>

#include "collector.h"
#include "strategies.h"

/* Bytes of the sink's queue per message: the longest header (RFC 5424 with
 * COLLECTOR_HOSTNAME, COLLECTOR_APP_NAME and a pid: 66), the longest numbers
 * message (49) and the queue's own 4 to 7 bytes, rounded up. */
#define SYSLOG_BYTES_PER_MESSAGE 128
/* After arrivals pause this long, the kernel's drops are counted too; the
 * collector is given up on once nothing has arrived for the second. */
#define KERNEL_DROPS_AFTER_S 0.05
#define COLLECTOR_QUIET_S 5.0
/* How often the main thread looks at the collector's count. */
#define WAIT_STEP_US 1000

typedef struct collector_wait {
    collector *collector;
    uint64_t messages;
    int timed_out;
} collector_wait;

/* After xlog_flush(): until every message arrived or was counted as
 * dropped (by xlog, or by the kernel); returns the bench_ticks() of the last
 * arrival, or of the time-out. */
static uint64_t wait_for_collector(void *context)
{
    collector_wait *wait = context;
    uint64_t seen = 0, last_ticks = 0;
    double progress_at = monotonic_seconds();
    for (;;) {
        uint64_t accounted = collector_arrived(wait->collector, &last_ticks) +
                             bench_xlog_syslog_dropped();
        if (accounted >= wait->messages)
            return last_ticks;
        double now = monotonic_seconds();
        if (accounted != seen) {
            seen = accounted;
            progress_at = now;
        } else if (now - progress_at > COLLECTOR_QUIET_S) {
            wait->timed_out = 1;
            return bench_ticks();
        } else if (now - progress_at > KERNEL_DROPS_AFTER_S) {
            int64_t lost = collector_lost_in_kernel(wait->collector);
            if (lost > 0 && accounted + (uint64_t)lost >= wait->messages)
                return last_ticks;
        }
        usleep(WAIT_STEP_US);
    }
}

static void run_syslog(xlog_syslog_transport transport, const bench_options *options,
                       const char *dir, bench_row *row)
{
    uint64_t messages = options->throughput_messages;
    collector *collector;
    if (collector_start(&collector, transport, dir, messages, row->note, sizeof row->note) != 0)
        return;
    xlog_syslog_config syslog = xlog_syslog_defaults();
    syslog.transport = transport;
    syslog.address = collector_address(collector);
    syslog.app_name = COLLECTOR_APP_NAME;
    syslog.hostname = COLLECTOR_HOSTNAME;
    if (messages * SYSLOG_BYTES_PER_MESSAGE > syslog.buffer)
        syslog.buffer = messages * SYSLOG_BYTES_PER_MESSAGE;
    const xlog_sink_config *sinks[] = {&syslog.sink, NULL};
    xlog_config config = bench_xlog_config(dir, XLOG_FILE_SHARED);
    config.sinks = sinks;

    collector_wait wait = {.collector = collector, .messages = messages};
    int rc = measure_back_to_back(&config, messages, wait_for_collector, &wait, row);
    collector_counts counts;
    collector_stop(collector, &counts);
    if (rc != 0) {
        snprintf(row->note, sizeof row->note, "xlog_open: %s", xlog_strerror(rc));
        return;
    }
    row->syslog_received = (int64_t)counts.received;
    row->syslog_malformed = (int64_t)counts.malformed;
    row->syslog_dropped = (int64_t)bench_xlog_syslog_dropped();
    row->syslog_lost_in_kernel = counts.lost_in_kernel;
    row->syslog_balanced = !wait.timed_out && counts.malformed == 0 &&
                           counts.received + (uint64_t)row->syslog_dropped == messages;
}

void run_xlog_syslog_throughput(const bench_options *options, const char *dir, bench_row *row)
{
    run_syslog(XLOG_SYSLOG_UNIX, options, dir, row);
}

void run_xlog_syslog_udp_throughput(const bench_options *options, const char *dir,
                                    bench_row *row)
{
    run_syslog(XLOG_SYSLOG_UDP, options, dir, row);
}
