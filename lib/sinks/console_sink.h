/*
 * console_sink.h - lines shown on a console (terminal, pipe, socket, file)
 * without ever letting it hold up the back end.
 *
 * Why (note 004): a write to a terminal whose buffer is full blocks for as
 * long as the terminal does not read, seconds at a time.  So the back end
 * never writes to the console: it copies each line into the console's own
 * bounded buffer, or drops and counts it when that is full, and a thread of
 * the console's own does the writes that may block.
 */
#ifndef XLOG_CONSOLE_SINK_H
#define XLOG_CONSOLE_SINK_H

#include <stddef.h>
#include <stdint.h>

#include "xlog.h"

/* Read by the back end for every line; set by xlog_console_start and cleared
 * by xlog_console_stop while the back end is not running. */
typedef struct xlog_console_gate {
    int on;
    int level; /* lines below it are not shown */
} xlog_console_gate;

extern xlog_console_gate xlog_console;

/* Lines not shown on the console: its buffer was full, writing to it failed,
 * or it still held them when xlog_close gave up waiting (atomic). */
extern uint64_t xlog_console_dropped;

/* Starts the console's writer when cfg->console names one; 0 or -errno
 * (-EBADF when the descriptor is not open). */
int xlog_console_start(const xlog_config *cfg);

/* Copies one formatted line (ending in '\n') into the console's buffer, or
 * drops and counts it.  Back end only; never blocks. */
void xlog_console_put(int level, const char *line, size_t len);

static inline void xlog_console_line(int level, const char *line, size_t len)
{
    if (xlog_console.on && level >= xlog_console.level)
        xlog_console_put(level, line, len);
}

/* Puts the "N console lines dropped" notice into the buffer once there is
 * room for it.  Back end only, once per pass. */
void xlog_console_housekeeping(void);

/* Lets the writer show what is buffered (giving up after a second if the
 * console takes nothing), then ends it.  The back end must have stopped. */
void xlog_console_stop(void);

#endif
