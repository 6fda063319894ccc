/*
 * console_sink.h - the console's drop counter, which xlog_stats reads (the
 * sink itself is xlog_console_sink in sink.h).
 */
#ifndef XLOG_CONSOLE_SINK_H
#define XLOG_CONSOLE_SINK_H

#include <stdint.h>

/* Lines not shown on the console: its buffer was full, writing to it failed,
 * or it still held them when xlog_close gave up waiting (atomic). */
extern uint64_t xlog_console_dropped;

#endif
