/*
 * bench.h - what the parts of xlog-bench hand each other: the options of a
 * run, and one row of results per strategy.
 *
 * Every figure a strategy cannot have (a latency for the burst row, caller
 * system calls for a strategy that is not audited ...) is stored as a negative
 * number and shown as "-" in the table and null in the JSON.
 */
#ifndef XLOG_BENCH_H
#define XLOG_BENCH_H

#include <stdint.h>

#include "timing.h"
#include "workload.h"

typedef struct bench_options {
    int threads;                  /* workers of the multi-thread/process rows */
    uint64_t messages;            /* per worker, in each of the two phases */
    uint64_t batch;               /* calls per burst in the latency phase */
    unsigned gap_us;              /* pause between two bursts */
    uint64_t throughput_messages; /* the xlog back-end throughput row */
    uint64_t burst_messages;      /* the xlog burst (peak RSS) row */
    int live_threads;             /* threads of the live-threads row */
    int short_threads;            /* threads of each run of the short-threads row */
    int thread_lines;             /* lines each thread of those two rows logs */
    int thread_pairs;             /* short-threads: runs with logging off then on */
    double stall_seconds;         /* how long the terminal stops reading */
    int quick;
    int json;
    int keep_files;
    int progress;                 /* draw a progress line on stderr */
    const char *chart_path;
    const char *strategies;       /* comma-separated names, NULL for the default suite */
    const char *dir;              /* where the strategies write their files */
    const char *child;            /* re-executed for a row: what to run (fresh_process.h) */
    int result_fd;                /* ... and where to write the row */
} bench_options;

/* Which section of the table a row belongs to. */
typedef enum row_kind {
    ROW_TIMER,      /* the timer's own cost */
    ROW_PHASED,     /* latency phase + throughput phase (most strategies) */
    ROW_THROUGHPUT, /* as many lines as possible from one thread, untimed per call */
    ROW_TERMINAL,   /* a terminal that stops reading */
    ROW_THREADS,    /* many threads that log a few lines: memory and time per thread */
} row_kind;

typedef struct bench_row {
    char name[48];       /* as given to --strategies, e.g. "stdio-once:string" */
    char label[96];      /* what the table shows */
    char source[64];     /* where it comes from: the field notes, or xlog */
    char note[96];       /* why a row has no figures, or "" */
    row_kind kind;
    int available;       /* 0: the row could not run (see note) */
    int workers;         /* threads, or processes when workers_are_processes */
    int workers_are_processes;

    latency_stats latency; /* count == 0: none */
    double timer_pair_p50_ns; /* phased rows: empty timer pairs timed between the bursts */
    double first_call_ns;  /* each worker's first call (not in latency); max; < 0: none */
    int64_t first_call_mallocs;  /* the same call's mallocs, the most of any worker; < 0: none */
    int64_t first_call_syscalls; /* its system calls (audited rows); < 0: none */

    double seconds;          /* throughput time, first call until the data is in the file
                                (and, with a syslog collector, in the collector) */
    double files_seconds;    /* rows with a collector: first call until it was in the file;
                                < 0: none */
    double messages_per_s;   /* < 0: none */
    int64_t write_calls;     /* syscw during the throughput time; < 0: none */
    int64_t bytes_written;   /* bytes added to the files during it */
    uint64_t throughput_messages;

    uint64_t messages_sent;  /* every call of every phase */
    int writes_nothing;      /* the calls are below the level: no line is due */
    line_shape line_shape;   /* what the files' lines look like (LINE_TEXT unless set) */
    line_census census;      /* what the files hold afterwards */
    int lines_ok;            /* 1: census.lines == messages_sent and none malformed;
                                0: not so; -1: the row writes no file */

    int64_t caller_mallocs;  /* during timed calls, all workers; < 0: not counted */
    int64_t caller_syscalls; /* during timed calls, all workers; < 0: not audited */

    int64_t rss_before_kib;  /* rows in a fresh process: before xlog_open; < 0: none */
    int64_t peak_rss_kib;    /* rows in a fresh process: its peak RSS (VmHWM) */
    int64_t memory_bound_kib; /* burst row: ring + back-end buffer */
    int64_t rss_after_kib;   /* live-threads row: every thread alive, its lines written */
    int64_t rss_growth_kib;  /* threads rows: rss_after_kib (live) or peak (short) - before */
    int64_t rss_growth_off_kib; /* the same with logging off */
    int64_t shm_kib;         /* live-threads row: /dev/shm its persistent files take at
                                the reading, mapped or not ... */
    int64_t rss_shmem_kib;   /* ... and the shared memory in rss_after_kib (RssShmem) */

    int thread_lines;        /* threads rows: lines each thread logs */
    double first_call_p50_ns; /* threads rows: the median thread's first call (the
                                 slowest is first_call_ns) */
    int pairs;               /* short-threads row: runs with logging off, then on */
    double wall_seconds;     /* short-threads row: median run with logging on; < 0: none */
    double wall_seconds_off; /* ... with logging off */
    double wall_ratio;       /* ... median over the pairs of on / off */

    int64_t xlog_blocked;    /* xlog rows: calls that waited for room; < 0: none */
    int64_t xlog_dropped;
    int64_t console_dropped; /* xlog rows: lines the console sink did not show */

    /* syslog rows (< 0 for the others): what the collector took, and what
     * xlog counted as not delivered (xlog_counters.syslog_dropped) */
    int64_t syslog_received;       /* whole messages of the workload */
    int64_t syslog_malformed;      /* anything else but xlog's notices of drops */
    int64_t syslog_dropped;
    int64_t syslog_lost_in_kernel; /* UDP: dropped by the collector's socket; < 0: none */
    int syslog_balanced;           /* received + dropped == sent, none malformed, in time */

    uint64_t terminal_lines;      /* terminal rows: lines the terminal received */
    int64_t file_lines_at_resume; /* terminal rows: lines in the file when the reader resumed */
    int64_t lines_due_at_resume;  /* terminal rows: calls scheduled up to that moment */
    double stall_worst_ns;        /* terminal rows: worst of the calls due during the stall */
} bench_row;

/* Marks every optional figure of a fresh row as absent. */
void bench_row_init(bench_row *row, const char *name, const char *label, const char *source,
                    row_kind kind);

/* Write calls per 1,000 messages of the throughput time, or -1. */
double bench_row_writes_per_1000(const bench_row *row);

/* Write calls per 64 KiB written during the throughput time, or -1. */
double bench_row_writes_per_64kib(const bench_row *row);

/* Sets lines_ok from messages_sent and the census of dir, whose lines must
 * be of the row's line_shape; returns lines_ok. */
int bench_row_check_lines(bench_row *row, const char *dir);

#endif
