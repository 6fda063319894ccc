/*
 * malloc_count.h - how many heap allocations the calling thread has made.
 *
 * SPEC asks that "no malloc on the caller" be counted, not assumed.  xlog-bench
 * replaces malloc and its siblings for the whole process (malloc_count.c) with
 * wrappers that bump a per-thread counter and forward to glibc, so a strategy
 * can read the counter before and after its timed calls.
 */
#ifndef XLOG_BENCH_MALLOC_COUNT_H
#define XLOG_BENCH_MALLOC_COUNT_H

#include <stdint.h>

/* Allocation calls made by this thread so far, or -1 when counting is not
 * compiled in (sanitizer builds, whose runtime owns malloc). */
int64_t malloc_calls_on_this_thread(void);

#endif
