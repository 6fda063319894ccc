/*
 * suite.h - the list of strategies xlog-bench knows, the default suite, and
 * running a selection of them into rows.
 */
#ifndef XLOG_BENCH_SUITE_H
#define XLOG_BENCH_SUITE_H

#include <stdio.h>

#include "bench.h"

/* Prints every strategy name with what it reproduces. */
void suite_print_list(FILE *out);

/* 0 if every name in the comma-separated list is known; else says which is
 * not on stderr and returns -1. */
int suite_check_names(const char *list);

/* Runs the selected strategies (options->strategies, or the default suite)
 * in sub-directories of base_dir.  Returns the rows in *rows (malloc'd) and
 * their number. */
int suite_run(const bench_options *options, const char *base_dir, bench_row **rows);

#endif
