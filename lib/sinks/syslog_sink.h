/*
 * syslog_sink.h - what the rest of the library needs from the syslog sink
 * (syslog_sink.c): its count of messages not delivered, for xlog_stats.
 * The sink itself is reached through its table, xlog_syslog_sink (sink.h).
 */
#ifndef XLOG_SYSLOG_SINK_H
#define XLOG_SYSLOG_SINK_H

#include <stdint.h>

/* Messages not delivered to any syslog collector since the process started:
 * dropped because a sink's buffer was full, given up by its writer, or left
 * when xlog_close gave up waiting (atomic). */
extern uint64_t xlog_syslog_dropped;

#endif
