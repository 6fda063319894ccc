/*
 * fresh_process.h - rows measured in a re-executed xlog-bench, so that the
 * memory figures of the process (VmRSS, VmHWM) are the row's alone.
 *
 * The parent forks and execs /proc/self/exe with the hidden options
 * --child NAME --result-fd FD, the row's directory and the options a child
 * needs; the child runs NAME and writes its bench_row to FD.  Not fork
 * alone: a forked child starts with the parent's pages (its arrays of
 * samples, the thread stacks and malloc arenas of earlier rows) and its
 * VmHWM would count them.
 */
#ifndef XLOG_BENCH_FRESH_PROCESS_H
#define XLOG_BENCH_FRESH_PROCESS_H

#include "bench.h"

/* Runs the child NAME in a fresh process writing under dir, and puts its
 * figures into row (keeping row's name, label and source).  On failure the
 * row stays unavailable, with a note. */
void run_in_fresh_process(const char *child, const bench_options *options, const char *dir,
                          bench_row *row);

/* The child's side: runs options->child in options->dir and writes the row
 * to options->result_fd.  Returns the exit status. */
int fresh_process_main(const bench_options *options);

#endif
