/*
 * report.h - the three ways xlog-bench shows its rows: the table (Markdown,
 * readable on a terminal and pasteable into README), JSON for scripts, and an
 * SVG chart of the latency percentiles.
 */
#ifndef XLOG_BENCH_REPORT_H
#define XLOG_BENCH_REPORT_H

#include <stdio.h>

#include "bench.h"

/* The tables, then xlog against each strategy as ratios of this run. */
void report_table(FILE *out, const bench_options *options, const bench_row *rows, int count);

/* One JSON array with one object per row (see docs/BENCHMARKS.md). */
void report_json(FILE *out, const bench_options *options, const bench_row *rows, int count);

/* Writes the chart; returns 0 or a negative errno. */
int report_svg(const char *path, const bench_row *rows, int count);

#endif
