/*
 * progress.h - the progress line on stderr during a run.
 *
 * A background thread redraws "[ 3/14] label  45%  12.3 s" with a carriage
 * return a few times a second, only when stderr is a terminal.  Workers report
 * work done with progress_add(), which is an atomic add in memory shared with
 * forked workers too.  The thread writes with write(2) and counts its writes,
 * so that a strategy's write-call figure can leave them out.
 */
#ifndef XLOG_BENCH_PROGRESS_H
#define XLOG_BENCH_PROGRESS_H

#include <stdint.h>

/* Sets up the shared counter; starts the drawing thread if enabled. */
void progress_start(int enabled);

/* A new row begins: position (1-based) of total, its label, units of work. */
void progress_row(int position, int total, const char *label, uint64_t units);

/* Adds units of work done to the current row. */
void progress_add(uint64_t units);

/* write(2) calls the progress line has made so far. */
int64_t progress_write_calls(void);

/* Stops the thread and clears the line. */
void progress_stop(void);

#endif
