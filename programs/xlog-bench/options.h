/*
 * options.h - the command line of xlog-bench.
 */
#ifndef XLOG_BENCH_OPTIONS_H
#define XLOG_BENCH_OPTIONS_H

#include "bench.h"

/* What parse_options decided. */
typedef enum options_outcome {
    OPTIONS_RUN,   /* run the benchmark */
    OPTIONS_DONE,  /* --help or --list was answered: exit 0 */
    OPTIONS_ERROR, /* a message is on stderr: exit 2 */
} options_outcome;

options_outcome parse_options(int argc, char **argv, bench_options *options);

#endif
