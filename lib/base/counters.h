/*
 * counters.h - what the back end and its sinks count for xlog_stats()
 * (atomics: xlog_stats reads them from any thread).
 */
#ifndef XLOG_COUNTERS_H
#define XLOG_COUNTERS_H

#include <stdint.h>

typedef struct xlog_backend_counters {
    uint64_t messages, bytes, writes, truncated, write_errors, lost, refused;
} xlog_backend_counters;

extern xlog_backend_counters xlog_counts;

#endif
