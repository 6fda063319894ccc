/*
 * proc_stats.h - the process-wide figures xlog-bench reads from the kernel:
 * write(2)-family calls made so far (syscw in /proc/self/io, all threads,
 * xlog's back end included) and resident memory (current and peak).
 */
#ifndef XLOG_BENCH_PROC_STATS_H
#define XLOG_BENCH_PROC_STATS_H

#include <stdint.h>

/* Write-family system calls (write, writev, pwrite ...) made by this process,
 * live threads and exited ones; -1 if /proc/self/io cannot be read. */
int64_t process_write_calls(void);

/* Resident set size now (VmRSS), in KiB; -1 if unknown. */
int64_t process_rss_kib(void);

/* Shared memory pages mapped now (RssShmem, part of VmRSS), in KiB; -1 if
 * unknown. */
int64_t process_rss_shmem_kib(void);

/* KiB of /dev/shm the files of this process's persistent directory take
 * (xlog's default persistent_dir, /dev/shm/xlog-<uid>/<key>/<pid>.<start>),
 * mapped or not: a page reserved there is memory the process costs even
 * while it is not in its RSS; -1 if there is no such directory. */
int64_t process_shm_kib(void);

/* Peak resident set size of this address space (VmHWM), in KiB.  Not
 * getrusage's ru_maxrss: across fork and exec that one keeps the peak of the
 * address space exec replaced, which after fork is the parent's memory. */
int64_t process_peak_rss_kib(void);

#endif
