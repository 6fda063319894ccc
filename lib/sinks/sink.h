/*
 * sink.h - where lines go: one small table of functions per kind of output,
 * in the manner of Redis's ae_epoll.c / ae_kqueue.c behind ae.c.
 *
 * The back end hands every event to every sink whose level it reaches
 * (sinks.c); each sink writes it with its own layout into its own buffer,
 * so that the usual path copies a line once.  All of a sink's functions run
 * on the back-end thread (or, for the crash path, on the thread that
 * crashed while the back end is stopped), one at a time.  A sink must never
 * make the back end wait: one that may block (a terminal, a socket) hands
 * its bytes to a thread of its own (async_queue.h).
 *
 * Adding a kind of sink: write its file (lib/sinks/<name>_sink.c) with a
 * const xlog_sink_ops xlog_<name>_sink_ops, give it a kind in xlog.h
 * (XLOG_SINK_*) and a configuration whose first member is an
 * xlog_sink_config, and add one line to the list in sinks.c.
 */
#ifndef XLOG_SINK_H
#define XLOG_SINK_H

#include <stddef.h>
#include <stdint.h>

#include "base/clock.h"
#include "base/rules.h"
#include "event/event.h"
#include "layouts/layout.h"
#include "xlog.h"

typedef struct xlog_sink xlog_sink;

/* Records of numbered call sites, all of one ring, as a binary file takes
 * them without events (write_run): the back end's shortest way when a
 * binary file is its only sink.  One call for a run of records, so that
 * the call, the sink's checks of the file, the block's size and the
 * survival journal are paid once per run instead of once per line. */
#define XLOG_BINARY_RUN_MAX 64
typedef struct xlog_binary_run {
    int tid;
    uint32_t ring_slot;           /* as xlog_line_event's */
    const xlog_thread_name *thread_name; /* as xlog_line_event's */
    const xlog_context *context;  /* its thread's (xlog_line_event's) */
    size_t first;                 /* items[first, count) are handed */
    size_t count;
    struct xlog_binary_run_item {
        const xlog_record *rec;   /* a site's (XLOG_REC_SITE) */
        int64_t time_ns;          /* never older than the item's before */
        uint64_t record_end;      /* as xlog_line_event's */
    } items[XLOG_BINARY_RUN_MAX];
} xlog_binary_run;

typedef struct xlog_sink_ops {
    const char *name; /* for error messages: "syslog" */
    /* Readies the sink: cfg is xlog_open's (settled) configuration, own the
     * sink's own (NULL for the built-in file and console sinks).  s->layout
     * and s->level are set.  0, or a negative errno after xlog_set_error. */
    int (*start)(xlog_sink *s, const xlog_config *cfg, const xlog_sink_config *own);
    /* One event at or above the sink's level.  Must not block. */
    void (*write)(xlog_sink *s, const xlog_line_event *event);
    /* A binary file's: a run of records at or above its level, without
     * events; returns how many of them, from the first, it took (at least
     * one, or 0: the first must then come as an event, nothing of it
     * done).  The back end hands the rest again once the ring's buffered
     * position is past those taken: so that recovery finds every record
     * once (lib/shm/shm.h, "Exactly once"), a call never writes out the
     * buffer after putting a record of the run in it.  The sites' copies
     * carry their numbers for this run of the back end
     * (xlog_site_copy.backend_number).  Optional. */
    size_t (*write_run)(xlog_sink *s, const xlog_binary_run *run);
    /* Everything written so far goes on its way now (xlog_flush, close, a
     * message at cfg.flush_level); durable: and is made to survive a power
     * loss if the sink can (fdatasync; cfg.sync_level).  Optional. */
    void (*flush)(xlog_sink *s, int durable);
    /* Called once per back-end pass (every idle_sleep_us under load, up to
     * a doze apart under light load, every 250 ms at most when idle:
     * backend.c, "Sleeping"): timers, reopening, announcing drops.
     * Optional. */
    void (*tick)(xlog_sink *s);
    /* Milliseconds until tick has lines to write (a buffer falls due: 0 if
     * one has), or -1: the back end does not doze past it.  Optional. */
    int64_t (*ms_to_due)(xlog_sink *s);
    /* A thread has ended and all its events were written.  Optional. */
    void (*thread_ended)(xlog_sink *s, int tid);
    /* In the child of fork(): forget what belongs to the parent (threads,
     * locks, buffered lines) without touching it; close descriptors.
     * Optional. */
    void (*after_fork)(xlog_sink *s);
    /* Writes what is left and ends the sink (after the last flush). */
    void (*stop)(xlog_sink *s);
    /* Adds the counts of every sink of this kind since the process started
     * to out (xlog_stats), open or not.  Optional. */
    void (*stats)(xlog_counters *out);
} xlog_sink_ops;

struct xlog_sink {
    const xlog_sink_ops *ops;
    int level;
    xlog_layout *layout; /* NULL for a binary file sink (binary) */
    /* Writes records, not their messages (XLOG_LAYOUT_BINARY): the one
     * sink that is handed an event whose message may not be rendered
     * (xlog_event_render, event/message.h); every other gets it rendered. */
    int binary;
    /* The sink's own filter (xlog_sink_config.filter; its process level
     * the sink's level where it names none), or NULL: then it takes what
     * the program's rules let through at or above its level. */
    xlog_rules *filter;
    void *state; /* the implementation's */
};

/* ---- the open configuration's sinks, as one (sinks.c) ------------------ */

/* Makes the sinks cfg asks for (the files, the console if any, the extra
 * sinks) and starts them.  0, or the first failure's negative errno (after
 * xlog_set_error), with every sink already started stopped again. */
int xlog_sinks_start(const xlog_config *cfg);
/* Hands event to every sink that wants it: a sink with a filter, what its
 * filter lets through; one without, what reaches its level, and, while
 * some sink has a filter (the callers then follow the most permissive of
 * them all and the program's rules), what the program's rules or the
 * calling thread's own threshold let through. */
void xlog_sinks_write(const xlog_line_event *event);
/* The only sink when it takes records without events (a binary file), or
 * NULL: the back end may then hand it records itself (ops->write_run),
 * those at or above its level, with no call in between. */
xlog_sink *xlog_sinks_record_taker(void);
void xlog_sinks_flush(int durable);

/* Whether a sink in force has a filter: then 1, and the sinks' filters
 * merged as one (for every module, the lowest level any of them lets
 * through), at most XLOG_SHARED_RULES_MAX - XLOG_RULES_MAX rules, valid
 * until the sinks stop.  Else 0. */
int xlog_sinks_routing(int *process, const xlog_rule **list, size_t *count);
/* The program's rules (frontend/filter.c, at each change), which the sinks
 * without a filter follow while some sink has one. */
void xlog_sinks_set_program_rules(int process, const xlog_rule *list, size_t count);
void xlog_sinks_tick(void);
/* The least of the sinks' ms_to_due, or -1. */
int64_t xlog_sinks_ms_to_due(void);
void xlog_sinks_thread_ended(int tid);
void xlog_sinks_after_fork(void);
/* Flushes and stops every sink, the last one started first. */
void xlog_sinks_stop(void);
/* Adds every kind of sink's counts to out (xlog_stats). */
void xlog_sinks_stats(xlog_counters *out);

/* Whether prefix (NULL for none) may begin file names (cfg.file_prefix, a
 * listed file sink's): 0, or -EINVAL after saying why (what names the
 * setting). */
int xlog_file_prefix_check(const char *prefix, const char *what);

/* The back end's clock, whose calibration each block of a binary file
 * records (docs/BINARY.md, "Process"); set once the clock is started. */
void xlog_file_sink_set_clock(const xlog_clock *clock);

#endif
