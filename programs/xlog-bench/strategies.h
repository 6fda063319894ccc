/*
 * strategies.h - every strategy xlog-bench can run, as the suite (suite.c)
 * sees them: the phased ones as descriptions for runner.c, the others as
 * functions that fill a row themselves.
 */
#ifndef XLOG_BENCH_STRATEGIES_H
#define XLOG_BENCH_STRATEGIES_H

#include <xlog.h>

#include "bench.h"
#include "runner.h"

/* strategy_stdio.c */
extern const phased_strategy open_close_strategy;
extern const phased_strategy stdio_once_strategy;
extern const phased_strategy thread_files_strategy;
extern const phased_strategy flush_each_strategy;

/* strategy_flock.c */
extern const phased_strategy flock_processes_strategy;

/* strategy_xlog.c */
extern const phased_strategy xlog_shared_strategy;
extern const phased_strategy xlog_per_thread_strategy;
void run_xlog_throughput(const bench_options *options, const char *dir, bench_row *row);
void run_xlog_json_throughput(const bench_options *options, const char *dir, bench_row *row);
void run_xlog_binary_throughput(const bench_options *options, const char *dir, bench_row *row);
void run_xlog_burst(const bench_options *options, const char *dir, bench_row *row);

/* The burst's fresh process (fresh_process.h). */
void xlog_burst_process(const bench_options *options, const char *dir, bench_row *row);

/* Opens xlog with config, logs `messages` lines back to back from a new
 * thread, and fills the throughput figures of row: the time from the first
 * call until xlog_flush() returns and, when wait_after_flush is given, until
 * the bench_ticks() it returns, at which the outputs xlog_flush() does not
 * wait for had every message (files_seconds is then the time until
 * xlog_flush() returned).  Closes xlog.  Returns 0 or a negative errno. */
int measure_back_to_back(const xlog_config *config, uint64_t messages,
                         uint64_t (*wait_after_flush)(void *context), void *context,
                         bench_row *row);

/* xlog_open(config), remembering xlog's counters so that bench_xlog_close()
 * can put the blocked and dropped calls, and the console lines dropped, of
 * this run into a row. */
int bench_xlog_open(const xlog_config *config);
void bench_xlog_close(bench_row *row);
/* The defaults but for dir and mode, the environment ignored, and
 * cfg.persistent = bench_xlog_persistent (1 but in the rows NAME:volatile,
 * which compare rings in anonymous memory); and bench_xlog_open with it. */
xlog_config bench_xlog_config(const char *dir, xlog_file_mode mode);
int bench_xlog_open_dir(const char *dir, xlog_file_mode mode);
extern int bench_xlog_persistent;
/* Messages the syslog sinks dropped since bench_xlog_open. */
uint64_t bench_xlog_syslog_dropped(void);

/* strategy_syslog.c: the back-to-back row with a syslog sink, to a collector
 * of the bench's own on a local socket or on UDP */
void run_xlog_syslog_throughput(const bench_options *options, const char *dir, bench_row *row);
void run_xlog_syslog_udp_throughput(const bench_options *options, const char *dir,
                                    bench_row *row);

/* strategy_xlog_cat.c: xlog-cat turning binary files to text, one file, and
 * 8 per-thread files of the same lines merged */
void run_xlog_cat_one(const bench_options *options, const char *dir, bench_row *row);
void run_xlog_cat_merge(const bench_options *options, const char *dir, bench_row *row);

/* strategy_threads.c */
void run_xlog_live_threads(const bench_options *options, const char *dir, bench_row *row);
void run_xlog_short_threads(const bench_options *options, const char *dir, bench_row *row);
/* Their fresh processes (fresh_process.h); the live threads' twice, with
 * logging on and off. */
void xlog_live_threads_process(const bench_options *options, const char *dir, bench_row *row);
void xlog_live_threads_off_process(const bench_options *options, const char *dir,
                                   bench_row *row);
void xlog_short_threads_process(const bench_options *options, const char *dir, bench_row *row);

/* strategy_levels.c: calls turned down by a level or a module rule, and an
 * enabled call from a module */
extern const phased_strategy xlog_off_level_strategy;
extern const phased_strategy xlog_off_module_strategy;
extern const phased_strategy xlog_module_strategy;

/* strategy_terminal.c */
uint64_t terminal_calls(const bench_options *options); /* calls a terminal row makes */
void run_terminal_direct(const bench_options *options, const char *dir, bench_row *row);
void run_terminal_xlog(const bench_options *options, const char *dir, bench_row *row);

#endif
