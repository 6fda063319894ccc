/*
 * backend.c - the one thread that turns raw records into lines in files.
 *
 * Why it exists: everything a log call does not do happens here: reading the
 * rings, putting messages from all threads in time order, converting ticks to
 * UTC, formatting, and writing large blocks.
 *
 * How it works, one pass of the loop:
 *   1. scan: read every ring's head, how far each is published; then, only
 *      when some other ring has records to write, which threads are inside
 *      a call (bit 0 of write_pos).  A thread alone with records is never
 *      asked: its call under way comes after them (unless a ring asked
 *      shows records at its second reading: scan).  So the back end reads
 *      no line a call loads while one thread logs, and the call's first
 *      instruction never waits for this core to give a line back.
 *   2. watermark: the newest timestamp that is safe to write.  A record not
 *      yet visible can only have a timestamp older than "now" if its thread
 *      is inside a call; that call's timestamp is no older than the newest
 *      record already seen from the thread (a thread's timestamps only grow).
 *      So the watermark is min(now - margin, newest seen of each thread inside
 *      a call).  The margin (WATERMARK_MARGIN_NS) covers the time between a
 *      thread marking itself and that mark being visible here, which is well
 *      under a microsecond on any hardware we know of.
 *   3. merge: repeatedly take the ring whose next record is oldest and write
 *      its records while they are no newer than the watermark and the next
 *      oldest ring's record, so a shared file is in time order and each
 *      thread's lines keep their order.
 *   4. housekeeping: give consumed space back to the producers, write out
 *      buffers that have waited flush_interval_ms, free the rings of threads
 *      that have ended once they are empty, keep a few spare rings ready
 *      for new threads (rings.c, "Spares"), resynchronise the clock.
 * When a pass finds nothing it sleeps idle_sleep_us; after SETTLE of
 * nothing it sleeps long (see "Sleeping" below).  A flush, a close, a crash
 * or a thread's first call that took the last spare rings wakes it at once.
 *
 * xlog_flush() is a request: the back end notes the time it sees the request,
 * passes until the watermark has reached it (so every record published before
 * the request has been written into a buffer), writes all buffers, and
 * answers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "backend/backend.h"
#include "backend/backtrace.h"
#include "base/atomics.h"
#include "base/clock.h"
#include "base/counters.h"
#include "base/doorbell.h"
#include "base/error.h"
#include "base/guard.h"
#include "base/settings.h"
#include "base/signals.h"
#include "event/event.h"
#include "event/message.h"
#include "format/escape.h"
#include "format/format.h"
#include "layouts/fields.h"
#include "record/record.h"
#include "recovery/recovery.h"
#include "rings/rings.h"
#include "shm/shm.h"
#include "sinks/sink.h"

#define WATERMARK_MARGIN_NS 50000.0
#define RESYNC_INTERVAL_NS 1000000000.0
#define STUCK_CALL_NS 100000000.0
#define NOTICE_INTERVAL_NS 1000000000.0
/* Consumed bytes given back to a producer at least this often. */
#define RELEASE_EVERY 65536u
/* The longest the back end sleeps when idle: its timers (a buffer's flush
 * interval past this, check_interval_ms, a failing file's retry, trimming
 * the rings of idle threads, the clock's resynchronisation) wait at most
 * this long. */
#define DEEP_SLEEP_MS 250u
/* Idle this long past the flush interval (or past DEEP_SLEEP_MS if that is
 * shorter) and every buffer waiting for its interval has been written out
 * (the sinks measure it with a coarse clock, which may lag by a tick): only
 * then does the back end sleep long. */
#define SETTLE_MS 30u
/* The longest doze (see "Sleeping"), unless half the flush interval is
 * shorter: what a line may wait in its ring under light traffic. */
#define DOZE_MAX_MS 8u
/* A pass that finds a ring this full (a sixteenth of it) ends the doze. */
#define DOZE_ENDS_AT_PARTS 16u

/* What the back end remembers of a call site, keyed by its copy
 * (xlog_site_copy: never freed, so an address never names two sites): its
 * names as its events carry them, with its "file:line function " text
 * (escaped), made once (what they need beyond the site's copy, in text),
 * and the length of its format. */
typedef struct site_entry {
    const void *site;
    size_t format_len;
    xlog_event_names names;
    char *text;
    uint32_t number; /* dense from 0, in the order first seen: a binary file's site number */
} site_entry;

#define FORMAT_LEN_UNKNOWN SIZE_MAX

static struct backend {
    pthread_t thread;
    xlog_config cfg;
    char *dir;
    int pid;
    xlog_clock clock;
    int64_t last_utc;        /* never print a time older than this */
    uint64_t margin_ticks;
    uint64_t stuck_ticks;
    uint64_t resync_ticks;
    uint64_t notice_interval_ticks;
    uint64_t next_resync;
    uint64_t context_ids;    /* the last context's id ("Context") */

    xlog_ring **rings;       /* snapshot of the registry */
    size_t ring_count;
    size_t ring_capacity;
    uint64_t rings_generation;

    site_entry *sites;       /* open addressing, power-of-two size */
    size_t site_slots;
    size_t site_count;

    /* The record being written: its arguments, message, a dynamic
     * record's format and names, a site's names when the cache has none. */
    xlog_event_scratch scratch;

    pthread_mutex_t lock;
    pthread_cond_t answered; /* from the back end: a flush is done */
    uint64_t flush_requested;
    uint64_t flush_done;
    int stop;

    uint64_t last_work;      /* ticks when a pass last wrote or flushed */
    uint64_t settle_ticks;   /* idle this long, the back end sleeps long */
    long deep_sleep_ns;      /* how long */
    long doze_ns;            /* the next short sleep ("Sleeping") */
    long doze_max_ns;
    int ring_filling;        /* the last scan found a ring a sixteenth full */
    int membarrier;          /* MEMBARRIER_CMD_PRIVATE_EXPEDITED is ours */

    int tid;                 /* the back end's kernel thread id */
    uint32_t run;            /* this run's number (xlog_site_copy.backend_run) */
    xlog_sink *record_sink;  /* the only sink, a binary file (sinks.c), or NULL */
    xlog_binary_run handed;  /* the records handed to it in one call */
    /* The ring whose front record the back end is writing, NULL between
     * records, or whose records from its read position to handed_end it
     * has handed to record_sink in one call: a fault on the back end's
     * thread (a custom sink's, say) skips them rather than fault again in
     * the crash handler. */
    xlog_ring *consuming;
    xlog_ring *handing;
    uint64_t handed_end;
    int crash_signal;        /* atomic: a crash handler asks for a last flush */
    int crash_tid;           /* atomic: the thread that crashed */
    int crash_done;          /* atomic: that flush is done */
    uint32_t thread_name_ids; /* the last number given to a thread's name */
} be = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* ---- call sites ----------------------------------------------------------
 * A site's entry is found by its copy's address in an open-addressing
 * table; its number is also kept in the copy itself, with the run it
 * belongs to (numbers start again from 0 at every xlog_open), for the
 * binary files' shortest way (write_record), which needs nothing else: the
 * lookup cost it 20 instructions a line. */

/* Runs of the back end so far: a run's number is never 0. */
static uint32_t runs;

static int sites_grow(void)
{
    size_t slots = be.site_slots ? be.site_slots * 2 : 1024;
    site_entry *table = calloc(slots, sizeof *table);
    if (!table)
        return -1;
    for (size_t i = 0; i < be.site_slots; i++) {
        if (!be.sites[i].site)
            continue;
        size_t j = ((uintptr_t)be.sites[i].site >> 4) & (slots - 1);
        while (table[j].site)
            j = (j + 1) & (slots - 1);
        table[j] = be.sites[i];
    }
    free(be.sites);
    be.sites = table;
    be.site_slots = slots;
    return 0;
}

/* The names of site's events, made in room; the bytes of room used. */
static size_t site_names(const xlog_site_copy *site, xlog_event_names *names, char *room)
{
    return xlog_event_names_make(names, site->file, strlen(site->file), site->func,
                                 strlen(site->func), site->module, strlen(site->module),
                                 site->line, 1, room);
}

static site_entry *site_lookup(const xlog_site_copy *site)
{
    if (be.site_slots) {
        size_t j = ((uintptr_t)site >> 4) & (be.site_slots - 1);
        while (be.sites[j].site) {
            if (be.sites[j].site == site)
                return &be.sites[j];
            j = (j + 1) & (be.site_slots - 1);
        }
    }
    /* After a crash nothing is allocated: the caller formats without a cache. */
    if (xlog_load(&be.crash_signal))
        return NULL;
    if ((be.site_count + 1) * 2 > be.site_slots && sites_grow() != 0)
        return NULL;
    /* The format's length is learnt from the first fast-path record: a site
     * seen first through a dynamic record may not have its format yet. */
    site_entry entry = {site, FORMAT_LEN_UNKNOWN, {0}, NULL, (uint32_t)be.site_count};
    /* Made in the scratch room to learn its size, then again in its own. */
    entry.text = malloc(site_names(site, &entry.names, be.scratch.room));
    if (!entry.text)
        return NULL;
    site_names(site, &entry.names, entry.text);
    size_t j = ((uintptr_t)site >> 4) & (be.site_slots - 1);
    while (be.sites[j].site)
        j = (j + 1) & (be.site_slots - 1);
    be.sites[j] = entry;
    be.site_count++;
    /* The back end alone reads and writes these (record.h). */
    xlog_site_copy *copy = (xlog_site_copy *)site;
    copy->backend_number = entry.number;
    copy->backend_run = be.run;
    return &be.sites[j];
}

static void sites_free(void)
{
    for (size_t i = 0; i < be.site_slots; i++)
        free(be.sites[i].text);
    free(be.sites);
    be.sites = NULL;
    be.site_slots = be.site_count = 0;
}

/* ---- events ------------------------------------------------------------- */

/* Time of a record in UTC, never older than a time already written. */
static int64_t line_time(uint64_t tsc)
{
    int64_t utc = xlog_clock_utc(&be.clock, tsc);
    if (utc < be.last_utc)
        utc = be.last_utc;
    be.last_utc = utc;
    return utc;
}

_Static_assert(sizeof ((xlog_thread_name *)0)->text == XLOG_THREAD_NAME_MAX + 1, "event.h");

/* r's thread has a name the back end has not numbered yet (a new ring, or
 * a new name): its number (ring.h) and length. */
static void number_thread_name(xlog_ring *r)
{
    xlog_thread_name *name = &r->thread_name;
    name->id = ++be.thread_name_ids ? be.thread_name_ids : ++be.thread_name_ids;
    name->length = (uint32_t)strnlen(name->text, XLOG_THREAD_NAME_MAX);
}

/* Reads the name of every living thread again (rings.c, "Names"): at the
 * end of each flush, and once a second. */
static void read_thread_names(void)
{
    for (size_t i = 0; i < be.ring_count; i++) {
        xlog_ring *r = be.rings[i];
        if (!xlog_load_acquire(&r->exited) && xlog_ring_read_name(r))
            number_thread_name(r);
    }
}

/* The thread's part of an event. */
static void event_of_ring(xlog_line_event *ev, xlog_ring *r)
{
    if (!r->tid_text_len)
        r->tid_text_len = xlog_tid_text(r->tid_text, r->tid);
    ev->pub.pid = be.pid;
    ev->pub.tid = r->tid;
    ev->tid_text = r->tid_text;
    ev->tid_text_length = r->tid_text_len;
    ev->thread_name = &r->thread_name;
}

/* A line of xlog's own, e.g. how many messages a thread dropped. */
static void write_notice(xlog_ring *r, int64_t utc, const char *text)
{
    xlog_line_event thread, notice;
    event_of_ring(&thread, r);
    xlog_notice_event(&notice, utc, &thread, text, strlen(text));
    xlog_sinks_write(&notice);
}

/* A message below the level written, kept for the thread's next error. */
static void keep_for_backtrace(xlog_ring *r, const xlog_line_event *ev)
{
    if (!r->backtrace)
        r->backtrace = xlog_backtrace_new(be.cfg.backtrace_lines);
    if (r->backtrace)
        xlog_backtrace_keep(r->backtrace, ev);
}

static void replay_backtrace(xlog_ring *r)
{
    if (r->backtrace)
        xlog_backtrace_replay(r->backtrace, xlog_sinks_write);
}

/* One line saying how many of the thread's messages were not written since
 * the last such line, and why; at most one per thread per NOTICE_INTERVAL_NS
 * unless forced (a flush, the thread's end), so that a flood of drops makes
 * one line a second, not one per gap.  Drops while xlog was closing are not
 * among them: the first line after the next xlog_open announces every
 * message logged while xlog was closed or closing, from the totals, and a
 * drop announced here too would be counted twice. */
static void report_drops(xlog_ring *r, uint64_t now, int force)
{
    static const char *const reasons[XLOG_DROP_REASONS] = {
        [XLOG_DROP_FULL] = "its ring was full (XLOG_FULL_DROP)",
        [XLOG_DROP_NESTED] = "logged by a signal handler inside a log call",
    };
    uint64_t news[XLOG_DROP_REASONS] = {0}, refused = r->refused - r->refused_reported;
    uint64_t total = refused;
    for (int i = 0; i < XLOG_DROP_REASONS; i++) {
        if (!reasons[i])
            continue;
        news[i] = xlog_load(&r->dropped[i]) - r->dropped_reported[i];
        total += news[i];
    }
    if (total == 0 || (!force && now < r->notice_due))
        return;
    char text[400];
    size_t n = (size_t)snprintf(text, sizeof text,
                                "%llu %s of this thread %s not written:",
                                (unsigned long long)total,
                                xlog_plural(total, "message", "messages"),
                                xlog_plural(total, "was", "were"));
    const char *separator = " ";
    for (int i = 0; i < XLOG_DROP_REASONS; i++) {
        if (news[i]) {
            n += (size_t)snprintf(text + n, sizeof text - n, "%s%llu %s", separator,
                                  (unsigned long long)news[i], reasons[i]);
            separator = ", ";
        }
        r->dropped_reported[i] += news[i];
    }
    if (refused)
        snprintf(text + n, sizeof text - n, "%s%llu refused: level outside TRACE..FATAL", separator,
                 (unsigned long long)refused);
    r->refused_reported += refused;
    r->notice_due = now + be.notice_interval_ticks;
    write_notice(r, line_time(now), text);
}

/* Counts a message cut (xlog_counters.truncated): when rendered, as
 * rendering cut it; when no sink needed it rendered (binary files only),
 * when a string was cut on the caller (max_message is then xlog-cat's). */
static void count_truncated(const xlog_line_event *ev)
{
    if (ev->pending ? (ev->rec->flags & XLOG_REC_TRUNCATED) != 0 : be.scratch.truncated)
        xlog_add(&xlog_counts.truncated, 1);
}

static void consume(xlog_ring *r, const xlog_record *rec);

/* A run of r's records for be.record_sink, without its records yet. */
static xlog_binary_run *run_of(xlog_ring *r)
{
    xlog_binary_run *run = &be.handed;
    run->tid = r->tid;
    run->ring_slot = r->slot;
    run->thread_name = &r->thread_name;
    run->context = &r->context;
    return run;
}

/* The shortest way, when the only sink is a binary file (be.record_sink):
 * a record of a site this run has numbered goes to it as it is, without
 * an event (no names, no message, no view beyond its arguments) and
 * without consume's checks of what it is not; 0 if it must go through
 * consume after all.  The usual records go in runs (hand_run); this is
 * the way of the others that can, one at a time. */
static int write_record(xlog_ring *r, const xlog_record *rec)
{
    xlog_sink *sink = be.record_sink;
    const xlog_site_copy *site = rec->site;
    /* A site's format and kinds only for its own kind of record: a dynamic
     * record may name a site another thread is still preparing.  A kept
     * record, or an error that replays a backtrace, takes consume's way. */
    if (!sink || rec->type != XLOG_REC_SITE || rec->level > XLOG_FATAL ||
        (rec->flags & XLOG_REC_KEEP) || site->backend_run != be.run ||
        (rec->level >= XLOG_ERROR && r->backtrace))
        return 0;
    if (rec->level >= sink->level) {
        xlog_binary_run *run = run_of(r);
        run->items[0].rec = rec;
        run->items[0].time_ns = line_time(rec->tsc);
        run->items[0].record_end = r->read_pos + rec->size;
        run->first = 0;
        run->count = 1;
        if (!sink->ops->write_run(sink, run))
            return 0;
    }
    if (rec->flags & XLOG_REC_TRUNCATED)
        xlog_add(&xlog_counts.truncated, 1);
    if (rec->level >= be.cfg.flush_level)
        xlog_sinks_flush(rec->level >= be.cfg.sync_level);
    return 1;
}

/* The levels of r's usual records (hand_run): from the sink's level up to
 * the first that flushes, that is not a line's, or (while r keeps records
 * for a backtrace) that replays one, excluded. */
typedef struct usual_levels {
    unsigned low, span; /* level - low < span */
} usual_levels;

static usual_levels usual_levels_of(const xlog_ring *r)
{
    unsigned low = (unsigned)be.record_sink->level, high = XLOG_FATAL + 1;
    if ((unsigned)be.cfg.flush_level < high)
        high = (unsigned)be.cfg.flush_level;
    if (r->backtrace && XLOG_ERROR < high)
        high = XLOG_ERROR;
    return (usual_levels){low, high > low ? high - low : 0};
}

/* Whether write_record would take rec, with nothing to do after it (no
 * truncation to count, no flush): a usual record, which hand_run hands
 * to the sink with others. */
static inline __attribute__((always_inline)) int usual(const xlog_record *rec, usual_levels levels,
                                                        uint32_t backend_run)
{
    return rec->type == XLOG_REC_SITE && (unsigned)rec->level - levels.low < levels.span &&
           !(rec->flags & (XLOG_REC_KEEP | XLOG_REC_TRUNCATED)) &&
           ((const xlog_site_copy *)rec->site)->backend_run == backend_run;
}

/* Hands be.record_sink the usual records of r from its read position on,
 * up to limit and XLOG_BINARY_RUN_MAX of them, the first being usual;
 * returns how many records were consumed.  The sink takes them in as few
 * calls as it can (one, usually), and after each the ring's buffered
 * position moves past what it took (the sink's journal names the last of
 * them: survival.h, "Exactly once").  A record it refuses goes through
 * consume, at the time it had, and the rest is left to the caller, who
 * finds them again with the same times.  One call per record cost 335
 * instructions a line for the whole program; a call per run, with the
 * sink's checks, its block size and journal once per run, 211
 * (callgrind, the 3-argument statement, docs/BENCHMARKS.md). */
static __attribute__((noinline)) size_t hand_run(xlog_ring *r, uint64_t limit,
                                                 usual_levels levels)
{
    xlog_binary_run *run = run_of(r);
    uint64_t pos = r->read_pos, end = r->visible_end, last_tsc = r->last_tsc;
    int64_t utc_before = be.last_utc;
    /* In locals what the loop reads (its stores to be.handed would make
     * the compiler read be's fields again at every record): line_time's
     * clock and last time, and usual's run number.  (Few: those that do
     * not fit in registers are read from the stack at every record.) */
    const xlog_clock clock = be.clock;
    int64_t last_utc = utc_before;
    uint32_t backend_run = be.run;
    const char *buffer = r->buffer;
    uint64_t mask = r->mask;
    struct xlog_binary_run_item *item = run->items, *full = run->items + XLOG_BINARY_RUN_MAX;
    do {
        const xlog_record *rec = (const xlog_record *)(buffer + (pos & mask));
        if (!usual(rec, levels, backend_run) || rec->tsc > limit)
            break;
        if (rec->tsc > last_tsc)
            last_tsc = rec->tsc;
        int64_t utc = xlog_clock_utc(&clock, rec->tsc); /* as line_time */
        if (utc > last_utc)
            last_utc = utc;
        pos += rec->size;
        item->rec = rec;
        item->time_ns = last_utc;
        item->record_end = pos;
    } while (++item < full && pos < end);
    be.last_utc = last_utc;
    r->last_tsc = last_tsc;
    size_t n = (size_t)(item - run->items);
    run->count = n;
    xlog_sink *sink = be.record_sink;
    size_t done = 0;
    while (done < n) {
        run->first = done;
        be.handing = r;
        be.handed_end = pos;
        size_t taken = sink->ops->write_run(sink, run);
        be.handing = NULL;
        if (!taken)
            break;
        done += taken;
        r->read_pos = run->items[done - 1].record_end;
        /* In a file buffer now (survival.h). */
        xlog_store_release(&r->buffered, r->read_pos);
    }
    if (done == n)
        return n;
    /* Refused: as an event, at the time line_time gave it, which it gives
     * again from the last time of those taken. */
    be.last_utc = done ? run->items[done - 1].time_ns : utc_before;
    const xlog_record *rec = run->items[done].rec;
    be.consuming = r;
    consume(r, rec);
    be.consuming = NULL;
    r->read_pos += rec->size;
    xlog_store_release(&r->buffered, r->read_pos);
    return done + 1;
}

/* ---- Context ----------------------------------------------------------------
 * A context record (frontend.c, "context") carries the thread's whole
 * context from there on.  Its bytes are copied into the half of the ring's
 * context_bytes that is not current, which then becomes current with one
 * store: a kill at any moment leaves recovery one whole context, and since
 * the ring's buffered position moves past the record only after that
 * store, a recovery that finds the old context also finds the record and
 * reads it again.  Every later event of the ring points to r->context;
 * each new context gets a new id, by which a binary file knows when to
 * say it again. */
static void context_change(xlog_ring *r, const xlog_record *rec)
{
    xlog_context c;
    if (xlog_context_read((const char *)(rec + 1), rec->size - sizeof *rec, &c) != 0)
        c.count = 0;
    uint32_t next = !r->context_current;
    char *bytes = r->context_bytes[next];
    size_t length = (size_t)(xlog_context_write(bytes, &c) - bytes);
    xlog_store_release(&r->context_current, next);
    xlog_context_read(bytes, length, &r->context);
    r->context.id = c.count ? ++be.context_ids : 0;
}

/* Turns the record at the ring's read position into an event for the
 * sinks, which render its message only if they need it (write_record took
 * it already if it could). */
static __attribute__((noinline)) void consume(xlog_ring *r, const xlog_record *rec)
{
    if (rec->type >= XLOG_REC_DUMP) { /* the two kinds that are not lines */
        if (rec->type == XLOG_REC_CONTEXT)
            context_change(r, rec);
        else if (rec->type == XLOG_REC_DUMP)
            replay_backtrace(r);
        return;
    }
    if (rec->level > XLOG_FATAL) {
        r->refused++;
        xlog_add(&xlog_counts.refused, 1);
        return;
    }
    const xlog_site_copy *site = rec->site;
    site_entry *entry = site ? site_lookup(site) : NULL;
    size_t format_len = 0;
    /* A site's format and kinds only for its own kind of record: a dynamic
     * record may name a site another thread is still preparing. */
    int prepared = rec->type == XLOG_REC_SITE;
    /* The site's first record in this run: numbered just now. */
    if (prepared && entry && be.record_sink && write_record(r, rec))
        return;
    if (prepared) {
        if (entry && entry->format_len == FORMAT_LEN_UNKNOWN)
            entry->format_len = strlen(site->format);
        format_len = entry ? entry->format_len : strlen(site->format);
    }
    xlog_record_view view;
    xlog_record_view_of(rec, prepared ? site->format : NULL, format_len,
                        prepared ? site->kinds : NULL, &view);
    const xlog_event_names *names = entry ? &entry->names : NULL;
    if (site && !entry) { /* after a crash, or without memory: no cache */
        site_names(site, &be.scratch.names, be.scratch.room);
        names = &be.scratch.names;
    }
    xlog_line_event ev;
    event_of_ring(&ev, r);
    ev.ring_slot = r->slot;
    ev.record_end = r->read_pos + rec->size;
    ev.context = &r->context;
    xlog_record_event(&ev, rec, &view, names, prepared ? site->format : NULL,
                      line_time(rec->tsc), &be.scratch);
    ev.site = prepared ? site : NULL;
    ev.site_number = prepared && entry ? entry->number : XLOG_NO_SITE_NUMBER;
    if (rec->flags & XLOG_REC_KEEP) {
        xlog_event_render(&ev);
        count_truncated(&ev);
        keep_for_backtrace(r, &ev);
        return;
    }
    if (ev.pub.level >= XLOG_ERROR && r->backtrace)
        replay_backtrace(r);
    xlog_sinks_write(&ev);
    count_truncated(&ev);
    if (ev.pub.level >= be.cfg.flush_level)
        xlog_sinks_flush(ev.pub.level >= be.cfg.sync_level);
}

/* ---- reading the rings ----------------------------------------------------- */

/* Takes a new snapshot of the registry when it has changed.  After a crash
 * it neither waits for the lock nor allocates: the old snapshot must do. */
static void refresh_rings(void)
{
    uint64_t generation = xlog_load(&xlog_rings.generation);
    if (generation == be.rings_generation)
        return;
    int crashing = xlog_load(&be.crash_signal) != 0;
    if (crashing ? pthread_mutex_trylock(&xlog_rings.lock) != 0
                 : pthread_mutex_lock(&xlog_rings.lock) != 0)
        return;
    size_t count = 0;
    for (xlog_ring *r = xlog_rings.rings; r; r = r->next)
        count++;
    if (count > be.ring_capacity && !crashing) {
        size_t capacity = count * 2;
        xlog_ring **rings = realloc(be.rings, capacity * sizeof *rings);
        if (rings) {
            be.rings = rings;
            be.ring_capacity = capacity;
        }
    }
    be.ring_count = 0;
    for (xlog_ring *r = xlog_rings.rings; r && be.ring_count < be.ring_capacity; r = r->next)
        be.rings[be.ring_count++] = r;
    be.rings_generation = xlog_load(&xlog_rings.generation);
    pthread_mutex_unlock(&xlog_rings.lock);
    for (size_t i = 0; i < be.ring_count; i++)
        if (!be.rings[i]->thread_name.id)
            number_thread_name(be.rings[i]);
}

static void read_head(xlog_ring *r)
{
    r->visible_end = xlog_load_acquire(&r->head);
    xlog_tsan_acquire(&r->head);
}

/* Asks r whether a call of its thread is under way (bit 0 of write_pos),
 * then reads its head again; returns the watermark lowered for that call.
 * A call that finds bit 0 clear has published before it (xlog.h,
 * xlog_impl_publish): so head again, after it.  A call is timed from the
 * first pass that finds it under way after one that did not (or did not
 * ask): a call that wrote nothing (dropped on a full ring, say) leaves
 * write_pos as it was, and the next call, at the same position, is not
 * the one seen long ago, to be taken for stuck at once. */
static uint64_t ask_call(xlog_ring *r, uint64_t now, uint64_t watermark, int last_flush)
{
    uint64_t claimed = xlog_load_acquire(&r->write_pos);
    read_head(r);
    if (!(claimed & 1)) {
        r->claimed_pos = 0;
        return watermark;
    }
    if (claimed != r->claimed_pos) {
        r->claimed_pos = claimed;
        r->claimed_since = now;
    }
    if (!last_flush && now - r->claimed_since < be.stuck_ticks && r->last_tsc < watermark)
        return r->last_tsc;
    return watermark;
}

/* Reads every head; returns the watermark (see the top of this file).  A
 * call that has not finished for STUCK_CALL_NS (its thread is stopped in a
 * debugger, say) stops holding the others back, and at the last flush of
 * xlog_close none does: its line, if it ever comes, is written late (with a
 * time no earlier than the lines before it) rather than everything waiting.
 *
 * The ring alone with records at the first reading is not asked: no other
 * ring's record is to wait for its call.  But a ring asked reads its head
 * again, and may then show records its call published meanwhile, with a
 * time older than the watermark (the call copied a long message, or its
 * thread was off the processor): those would be written before the lone
 * ring's call under way, older still, comes in.  So the lone ring is asked
 * too once another ring shows records. */
static uint64_t scan(int last_flush)
{
    uint64_t now = xlog_ticks();
    refresh_rings();
    uint64_t watermark = now - be.margin_ticks;
    size_t with_records = 0;
    be.ring_filling = 0;
    for (size_t i = 0; i < be.ring_count; i++) {
        xlog_ring *r = be.rings[i];
        read_head(r);
        with_records += r->visible_end != r->read_pos;
        be.ring_filling |= (r->visible_end - r->read_pos) * DOZE_ENDS_AT_PARTS >= r->capacity;
    }
    xlog_ring *alone = NULL;
    int others_have_records = 0;
    for (size_t i = 0; i < be.ring_count; i++) {
        xlog_ring *r = be.rings[i];
        int has_records = r->visible_end != r->read_pos;
        if (with_records - has_records == 0) {
            if (has_records)
                alone = r; /* no other ring's record to hold back, yet */
            r->claimed_pos = 0; /* not asked: a call seen next is timed anew */
            continue;
        }
        watermark = ask_call(r, now, watermark, last_flush);
        others_have_records |= r->visible_end != r->read_pos;
    }
    if (alone && others_have_records)
        watermark = ask_call(alone, now, watermark, last_flush);
    return watermark;
}

/* The next record of a ring, skipping padding; NULL if none is visible.
 * Inlined: merge calls it for every record (3-4 instructions a line).
 * A padding record makes no line, so the buffered position moves past it
 * too: it must never stay behind the tail given back to the producer, who
 * may then overwrite what lies between (survival.h, "Exactly once"). */
static inline __attribute__((always_inline)) const xlog_record *front(xlog_ring *r)
{
    while (r->read_pos < r->visible_end) {
        const xlog_record *rec = (const xlog_record *)(r->buffer + (r->read_pos & r->mask));
        if (rec->type != XLOG_REC_PAD) {
            if (rec->tsc > r->last_tsc)
                r->last_tsc = rec->tsc;
            return rec;
        }
        r->read_pos += rec->size;
        xlog_store_release(&r->buffered, r->read_pos);
    }
    return NULL;
}

/* Gives the producer back the space of the records read, and wakes it if
 * it sleeps for that room. */
static void release_space(xlog_ring *r)
{
    xlog_tsan_release(&r->tail);
    xlog_ring_set_tail(r, r->read_pos);
}

/* Writes every visible record no newer than the watermark, oldest first. */
static size_t merge(uint64_t watermark)
{
    size_t written = 0;
    for (;;) {
        xlog_ring *best = NULL;
        uint64_t best_tsc = 0, second_tsc = UINT64_MAX;
        for (size_t i = 0; i < be.ring_count; i++) {
            const xlog_record *rec = front(be.rings[i]);
            if (!rec)
                continue;
            if (!best || rec->tsc < best_tsc) {
                if (best)
                    second_tsc = best_tsc;
                best = be.rings[i];
                best_tsc = rec->tsc;
            } else if (rec->tsc < second_tsc) {
                second_tsc = rec->tsc;
            }
        }
        if (!best || best_tsc > watermark)
            return written;
        uint64_t limit = second_tsc < watermark ? second_tsc : watermark;
        /* Before the ring's batch, so that a drop notice stands where the
         * gap is. */
        report_drops(best, best_tsc, 0);
        const xlog_record *rec;
        uint64_t release_at = xlog_load(&best->tail) + RELEASE_EVERY;
        xlog_sink *record_sink = be.record_sink;
        usual_levels levels = {0, 0};
        if (record_sink)
            levels = usual_levels_of(best);
        while ((rec = front(best)) && rec->tsc <= limit) {
            if (record_sink && usual(rec, levels, be.run)) {
                written += hand_run(best, limit, levels);
            } else {
                be.consuming = best;
                if (!record_sink || !write_record(best, rec))
                    consume(best, rec);
                be.consuming = NULL;
                best->read_pos += rec->size;
                /* In a file buffer now, or making no line (survival.h). */
                xlog_store_release(&best->buffered, best->read_pos);
                written++;
                /* (A kept record starts a backtrace: errors then replay it.) */
                if (record_sink)
                    levels = usual_levels_of(best);
            }
            if (best->read_pos >= release_at) {
                release_space(best);
                release_at = best->read_pos + RELEASE_EVERY;
            }
        }
        release_space(best);
    }
}

/* ---- housekeeping ---------------------------------------------------------- */

/* Gives the rings of threads that have ended back to the pool, once
 * everything in them is written; tends the memory of the others, and the
 * room of the survival dictionary; once a second, writes the lines of the
 * processes of the log directory that are gone (recovery/dead.c). */
static void tend_rings(uint64_t now)
{
    xlog_survival_tend(now, (uint64_t)(100e6 / be.clock.ns_per_tick));
    xlog_survival_watch(now, (uint64_t)(1e9 / be.clock.ns_per_tick));
    for (size_t i = 0; i < be.ring_count; i++) {
        xlog_ring *r = be.rings[i];
        if (!xlog_load_acquire(&r->exited)) {
            xlog_ring_tend(r, now, be.clock.ns_per_tick);
            continue;
        }
        read_head(r);
        if (front(r))
            continue;
        report_drops(r, now, 1);
        xlog_sinks_thread_ended(r->tid);
        xlog_backtrace_free(r->backtrace);
        r->backtrace = NULL;
        xlog_ring_retire(r);
        be.rings[i--] = be.rings[--be.ring_count];
    }
}

static void resync_clock(uint64_t now)
{
    xlog_clock_resync(&be.clock);
    xlog_survival_set_clock(&be.clock);
    be.next_resync = now + be.resync_ticks;
}

/* ---- sleeping ---------------------------------------------------------------
 * A call does not tell the back end it has published a record: the back end
 * polls every idle_sleep_us while there is traffic, and the caller's cost
 * stays one load of xlog_bell.asleep, a line that is only read.
 * After SETTLE of nothing to do, the back end sleeps until its next timer
 * (deep_sleep_ns), or until a buffer falls due if sooner, unless woken.  It
 * sets asleep, then checks every ring once more; a caller publishes its
 * record, then reads asleep and, finding it set, takes it back to 0 and
 * rings (futex wake).  So either the back end
 * sees the record or the caller sees asleep: the order of a store then a
 * load on each side needs a full barrier on both, which the back end pays
 * for the caller with membarrier(PRIVATE_EXPEDITED) (a barrier on every
 * running thread of the process), only when it falls asleep.  Without
 * membarrier (an old kernel, a filter) a record can be missed until the
 * sleep ends, so the sleep is cut to the flush interval.
 *
 * The futex word counts rings: the back end reads it before each pass reads
 * the rings, and sleeps only if nobody has rung since (nor starts to doze),
 * so a ring is never lost, not even one that comes after the pass has read
 * its ring (base/doorbell.h).
 *
 * Dozing: under light traffic (bursts of a few lines) each pass finds a
 * little and the next finds nothing, so the back end would wake every
 * idle_sleep_us for a few lines.  Each pass reads the heads and records the
 * callers write, and the next call after it waits for those lines to come
 * back to its core: the back end's polling is most of what a burst's
 * first call costs (docs/BENCHMARKS.md).  So each short sleep doubles the
 * next, up to DOZE_MAX_MS (or half the flush interval), until a pass finds
 * a ring a sixteenth full, a flush is asked for, or a thread rings.  Lines
 * then wait a few milliseconds in their ring rather than in the write
 * buffer, where they would wait for the flush interval anyway; and no doze
 * goes past the time a buffer falls due (xlog_sinks_ms_to_due), so a
 * formatted line still waits flush_interval_ms at most.  While the
 * sleep is longer than idle_sleep_us, xlog_bell.dozing asks a thread whose
 * ring gets half full to ring (frontend.c, "Room"), so a burst does not
 * fill its ring while the back end dozes; one that does rings too.  The
 * flag is set after the futex word is read, so a ring that clears it
 * always wakes the sleep it was meant for. */

/* A pass found work that must not wait for a doze. */
static void stop_dozing(void)
{
    be.doze_ns = (long)be.cfg.idle_sleep_us * 1000;
    if (xlog_load(&xlog_bell.dozing))
        __atomic_store_n(&xlog_bell.dozing, 0, __ATOMIC_SEQ_CST);
}

/* A record published but not written yet, or a call under way. */
static int rings_have_work(void)
{
    if (xlog_load_acquire(&xlog_rings.generation) != be.rings_generation)
        return 1;
    for (size_t i = 0; i < be.ring_count; i++) {
        uint64_t claimed = xlog_load_acquire(&be.rings[i]->write_pos);
        if ((claimed & 1) || xlog_load_acquire(&be.rings[i]->head) != be.rings[i]->read_pos)
            return 1;
    }
    return 0;
}

static int requests_waiting(void)
{
    return xlog_load_acquire(&be.flush_requested) != be.flush_done ||
           xlog_load_acquire(&be.stop) || xlog_load_acquire(&be.crash_signal);
}

/* A sleep of ns cut to end when a buffer falls due (due_ms, as
 * xlog_sinks_ms_to_due says), but never shorter than a short one. */
static long sleep_till_due(long ns, int64_t due_ms)
{
    long short_ns = (long)be.cfg.idle_sleep_us * 1000;
    if (due_ms < 0 || ns <= due_ms * 1000000)
        return ns;
    return due_ms * 1000000 > short_ns ? (long)due_ms * 1000000 : short_ns;
}

/* Sleeps after a pass that wrote nothing; wakes is the futex word as it
 * was before the pass read the rings. */
static void idle_wait(uint64_t now, uint32_t wakes)
{
    if (__atomic_load_n(&xlog_bell.wakes, __ATOMIC_SEQ_CST) != wakes)
        return; /* rung since: the next pass reads what rang */
    int deep = now - be.last_work >= be.settle_ticks;
    int64_t due_ms = xlog_sinks_ms_to_due(); /* a formatted line waits flush_interval_ms at most */
    long ns = sleep_till_due(be.doze_ns, due_ms);
    if (ns > (long)be.cfg.idle_sleep_us * 1000 && !xlog_load(&xlog_bell.dozing))
        __atomic_store_n(&xlog_bell.dozing, 1, __ATOMIC_SEQ_CST);
    be.doze_ns = 2 * be.doze_ns < be.doze_max_ns ? 2 * be.doze_ns : be.doze_max_ns;
    if (deep) {
        /* An exchange: a full barrier on this side (x86's xchg, arm's
         * dmb); membarrier puts one on the callers' side. */
        __atomic_exchange_n(&xlog_bell.asleep, 1, __ATOMIC_SEQ_CST);
        /* The calls written in the program's code check no flag: no room
         * sends them to the library's way, which does (frontend.c, "Room"). */
        for (size_t i = 0; i < be.ring_count; i++)
            __atomic_store_n(&be.rings[i]->room_end, 0, __ATOMIC_SEQ_CST);
        if (be.membarrier)
            syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
        /* A line may wait in a buffer though the back end has had nothing
         * to do for a while: one of its own (a thread's drop notice at the
         * thread's end), or any when flush_interval_ms is past the settle. */
        ns = sleep_till_due(be.deep_sleep_ns, due_ms);
    }
    if (!(deep && rings_have_work()) && !requests_waiting()) {
        xlog_bell_wait(wakes, ns);
    }
    if (deep)
        __atomic_store_n(&xlog_bell.asleep, 0, __ATOMIC_SEQ_CST);
}

/* ---- after a crash ---------------------------------------------------------- */

/* Writes everything published so far, whatever the watermark (a thread that
 * crashed inside a call will never finish it), then a line naming the
 * signal. */
static void crash_drain(int sig)
{
    /* The back end faulted writing a record (crash_flush runs this on its
     * own thread then): writing it again would fault again, inside the
     * handler, where the fault ends the process before any line is out. */
    if (xlog_load(&be.crash_tid) == be.tid) {
        xlog_ring *faulted = be.consuming;
        const xlog_record *rec = faulted ? front(faulted) : NULL;
        if (rec)
            faulted->read_pos += rec->size;
        if (be.handing) {
            faulted = be.handing;
            faulted->read_pos = be.handed_end;
        }
        if (faulted)
            xlog_store_release(&faulted->buffered, faulted->read_pos);
        be.consuming = NULL;
        be.handing = NULL;
    }
    refresh_rings();
    for (size_t i = 0; i < be.ring_count; i++)
        read_head(be.rings[i]);
    merge(UINT64_MAX);

    /* The last line goes to the crashing thread's stream. */
    int tid = xlog_load(&be.crash_tid);
    xlog_ring stranger = {.tid = tid}; /* a thread that never logged */
    xlog_ring *r = &stranger;
    for (size_t i = 0; i < be.ring_count; i++)
        if (be.rings[i]->tid == tid)
            r = be.rings[i];
    char text[128];
    snprintf(text, sizeof text,
             "caught %s (signal %d): every message logged before it is above this line",
             xlog_signal_name(sig), sig);
    xlog_line_event thread, last;
    event_of_ring(&thread, r);
    xlog_notice_event(&last, line_time(xlog_ticks()), &thread, text, strlen(text));
    last.pub.level = XLOG_FATAL;
    xlog_sinks_write(&last);
    xlog_sinks_flush(0);
}

int xlog_backend_crash_flush(int sig)
{
    if (!xlog_load_acquire(&xlog_front.epoch))
        return 0;
    int self = (int)syscall(SYS_gettid);
    xlog_store(&be.crash_tid, self);
    xlog_store(&be.crash_done, 0);
    xlog_store_release(&be.crash_signal, sig);
    if (self == xlog_load(&be.tid)) {
        crash_drain(sig); /* the back end itself crashed */
        xlog_store(&be.crash_signal, 0);
        return 1;
    }
    xlog_bell_ring();
    /* The back end notices at once; if it has not answered
     * within five seconds it is stuck (in a write to a dead disk, say), and
     * running the same code beside it would be worse than giving up. */
    for (int i = 0; i < 5000 && !xlog_load_acquire(&be.crash_done); i++) {
        struct timespec pause = {0, 1000000};
        nanosleep(&pause, NULL);
    }
    return xlog_load_acquire(&be.crash_done);
}

void xlog_backend_crash_survived(void)
{
    xlog_store_release(&be.crash_signal, 0);
}

static void *backend_main(void *unused)
{
    (void)unused;
    /* A log call made by a sink (a custom sink's function) is dropped and
     * counted: it would feed the back end its own output. */
    xlog_enter();
    xlog_mark_backend_thread();
    xlog_store(&be.tid, (int)syscall(SYS_gettid));
    int flushing = 0, stopping = 0, first_pass = 1;
    uint64_t flush_seq = 0, flush_target = 0;
    for (;;) {
        int crash = xlog_load_acquire(&be.crash_signal);
        if (crash) {
            /* Nothing goes after the crash line, unless the program survives
             * the signal (its own handler returns): then xlog carries on. */
            crash_drain(crash);
            xlog_store_release(&be.crash_done, 1);
            while (xlog_load_acquire(&be.crash_signal)) {
                struct timespec pause = {0, 1000000};
                nanosleep(&pause, NULL);
            }
            continue;
        }
        if (!flushing) {
            uint64_t requested = xlog_load_acquire(&be.flush_requested);
            stopping = xlog_load_acquire(&be.stop);
            if (requested != be.flush_done || stopping) {
                flushing = 1;
                flush_seq = requested;
                flush_target = xlog_ticks();
            }
        }
        uint32_t wakes = __atomic_load_n(&xlog_bell.wakes, __ATOMIC_SEQ_CST);
        uint64_t watermark = scan(stopping);
        size_t written = merge(watermark);
        uint64_t now = xlog_ticks();
        if (written || flushing)
            be.last_work = now;
        if (be.ring_filling || flushing)
            stop_dozing();
        tend_rings(now);
        if (!stopping) /* spares made at the last pass would be unmapped at once */
            xlog_rings_keep_spares(first_pass, now, (uint64_t)(100e6 / be.clock.ns_per_tick));
        first_pass = 0;
        xlog_sinks_tick();
        if (flushing && watermark >= flush_target) {
            for (size_t i = 0; i < be.ring_count; i++)
                report_drops(be.rings[i], now, 1);
            xlog_sinks_flush(0);
            resync_clock(now);
            /* After the lines logged before the flush, before its answer:
             * those keep the name they had, the lines logged after it have
             * a new one (rings.c, "Names"). */
            read_thread_names();
            pthread_mutex_lock(&be.lock);
            /* The last flush answers every request: nothing comes after it. */
            be.flush_done = stopping ? be.flush_requested : flush_seq;
            pthread_cond_broadcast(&be.answered);
            pthread_mutex_unlock(&be.lock);
            flushing = 0;
            if (stopping)
                return NULL;
            continue;
        }
        if (now >= be.next_resync) {
            resync_clock(now);
            read_thread_names();
        }
        if (written == 0) {
            if (flushing) {
                struct timespec pause = {0, 10000};
                nanosleep(&pause, NULL);
            } else {
                idle_wait(now, wakes);
            }
        }
    }
}

/* ---- starting, flushing, stopping ------------------------------------------ */

/* The condition variable lives as long as the process (a caller of
 * xlog_flush may still be waking up from it when xlog_close returns). */
static pthread_once_t conditions_once = PTHREAD_ONCE_INIT;

static void init_conditions(void)
{
    pthread_cond_init(&be.answered, NULL);
}

/* When the back end sleeps long, and after how long idle (see "Sleeping"). */
static void plan_sleep(const xlog_config *cfg)
{
    static int registered = -1; /* membarrier registration lasts as long as the process */
    if (registered < 0)
        registered = syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
    be.membarrier = registered;
    unsigned deep_ms = DEEP_SLEEP_MS;
    if (cfg->check_interval_ms < deep_ms)
        deep_ms = cfg->check_interval_ms;
    if (!be.membarrier && cfg->flush_interval_ms < deep_ms)
        deep_ms = cfg->flush_interval_ms;
    unsigned flush_ms = cfg->flush_interval_ms < DEEP_SLEEP_MS ? cfg->flush_interval_ms
                                                                : DEEP_SLEEP_MS;
    be.deep_sleep_ns = (long)deep_ms * 1000000;
    if (be.deep_sleep_ns < (long)cfg->idle_sleep_us * 1000) /* never shorter than a short one */
        be.deep_sleep_ns = (long)cfg->idle_sleep_us * 1000;
    be.settle_ticks = (uint64_t)((flush_ms + SETTLE_MS) * 1e6 / be.clock.ns_per_tick);
    be.last_work = xlog_ticks();
    unsigned doze_max_ms = cfg->flush_interval_ms / 2 < DOZE_MAX_MS ? cfg->flush_interval_ms / 2
                                                                    : DOZE_MAX_MS;
    be.doze_max_ns = (long)doze_max_ms * 1000000;
    if (be.doze_max_ns < (long)cfg->idle_sleep_us * 1000)
        be.doze_max_ns = (long)cfg->idle_sleep_us * 1000;
    be.doze_ns = (long)cfg->idle_sleep_us * 1000;
    xlog_store(&xlog_bell.dozing, 0);
}

int xlog_backend_start(const xlog_config *cfg)
{
    be.cfg = *cfg;
    be.dir = strdup(cfg->dir);
    /* A dynamic record's format is at most max_message bytes (frontend.c,
     * message_budget). */
    be.scratch.max_message = cfg->max_message;
    be.scratch.message = malloc(cfg->max_message + 1);
    be.scratch.format = malloc(cfg->max_message + 1);
    int rc = -ENOMEM;
    if (!be.dir || !be.scratch.message || !be.scratch.format)
        goto fail;
    be.cfg.dir = be.dir;
    be.pid = (int)getpid();
    if (cfg->rotate_local_time || cfg->file_pattern || cfg->console_pattern || cfg->sinks)
        tzset(); /* local dates and times follow TZ as it is now */
    rc = xlog_sinks_start(&be.cfg);
    if (rc != 0)
        goto fail;
    be.record_sink = xlog_sinks_record_taker();
    be.run = ++runs;
    if (be.run == 0) /* wrapped: 0 means no run */
        be.run = ++runs;

    xlog_clock_start(&be.clock, cfg->wall_clock_ns);
    xlog_survival_set_clock(&be.clock);
    xlog_file_sink_set_clock(&be.clock);
    be.margin_ticks = (uint64_t)(WATERMARK_MARGIN_NS / be.clock.ns_per_tick);
    be.resync_ticks = (uint64_t)(RESYNC_INTERVAL_NS / be.clock.ns_per_tick);
    be.stuck_ticks = (uint64_t)(STUCK_CALL_NS / be.clock.ns_per_tick);
    be.notice_interval_ticks = (uint64_t)(NOTICE_INTERVAL_NS / be.clock.ns_per_tick);
    be.next_resync = xlog_ticks() + be.resync_ticks;
    be.last_utc = INT64_MIN;
    plan_sleep(cfg);

    /* Room for many threads from the start: after a crash the snapshot of
     * the rings cannot grow. */
    be.ring_capacity = 256;
    be.ring_count = 0;
    be.rings = malloc(be.ring_capacity * sizeof *be.rings);
    if (!be.rings) {
        rc = -ENOMEM;
        goto fail_sinks;
    }
    be.rings_generation = xlog_load(&xlog_rings.generation) - 1; /* take a first snapshot */
    be.flush_requested = be.flush_done = 0;
    be.stop = 0;
    pthread_once(&conditions_once, init_conditions);

    pthread_mutex_lock(&xlog_rings.lock);
    xlog_rings.backend_running = 1;
    pthread_mutex_unlock(&xlog_rings.lock);

    /* The back end takes no signals: they belong to the application; only a
     * crash of its own reaches the crash handler. */
    sigset_t all, old;
    sigfillset(&all);
    xlog_crash_signals_unblocked(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rc = -pthread_create(&be.thread, NULL, backend_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc == 0) {
        pthread_setname_np(be.thread, "xlog"); /* for top -H, ps -L and gdb */
        return 0;
    }
    pthread_mutex_lock(&xlog_rings.lock);
    xlog_rings.backend_running = 0;
    pthread_mutex_unlock(&xlog_rings.lock);
    free(be.rings);
    be.rings = NULL;
fail_sinks:
    xlog_sinks_stop();
fail:
    free(be.dir);
    free(be.scratch.message);
    free(be.scratch.format);
    be.dir = be.scratch.message = be.scratch.format = NULL;
    return rc;
}

int xlog_backend_flush(void)
{
    pthread_mutex_lock(&be.lock);
    if (be.stop) { /* xlog_close is running: its last flush writes everything */
        pthread_mutex_unlock(&be.lock);
        return -EBADF;
    }
    uint64_t mine = be.flush_requested + 1;
    xlog_store_release(&be.flush_requested, mine);
    xlog_bell_ring();
    while (be.flush_done < mine)
        pthread_cond_wait(&be.answered, &be.lock);
    pthread_mutex_unlock(&be.lock);
    return 0;
}

void xlog_backend_lock(void)
{
    pthread_mutex_lock(&be.lock);
}

void xlog_backend_unlock(void)
{
    pthread_mutex_unlock(&be.lock);
}

/* Frees the lines the rings kept for a backtrace (for an error that never
 * came).  Only while no thread may recycle a ring of the snapshot: before
 * xlog_backend_stop tells the registry the back end is gone. */
static void forget_backtraces(void)
{
    for (size_t i = 0; i < be.ring_count; i++) {
        xlog_backtrace_free(be.rings[i]->backtrace);
        be.rings[i]->backtrace = NULL;
    }
}

/* Frees what one run of the back end built: the site cache, the ring
 * snapshot, the buffers. */
static void forget_run(void)
{
    sites_free();
    free(be.rings);
    be.rings = NULL;
    be.ring_count = be.ring_capacity = 0;
    free(be.dir);
    free(be.scratch.message);
    free(be.scratch.format);
    be.dir = be.scratch.message = be.scratch.format = NULL;
}

/* The child of fork() has no back end thread.  What the parent's had in its
 * buffers is the parent's to write; the child only closes its copies of the
 * descriptors and starts afresh when it first logs. */
void xlog_backend_after_fork(void)
{
    /* The parent's back end may have been in the middle of changing its
     * sinks and its site table when the fork happened (it does that without
     * the locks the fork takes), so the child frees none of them: it only
     * closes its copies of the descriptors, and leaves the memory. */
    xlog_sinks_after_fork();
    be.sites = NULL;
    be.site_slots = be.site_count = 0;
    be.record_sink = NULL; /* the parent's sink, and its site numbers */
    free(be.rings); /* changed only under the registry lock, which the fork held */
    be.rings = NULL;
    be.ring_count = be.ring_capacity = 0;
    be.dir = be.scratch.message = be.scratch.format = NULL;
    init_conditions();
    be.tid = 0;
    be.crash_signal = be.crash_done = 0;
    xlog_store(&xlog_bell.asleep, 0); /* the parent's back end may have slept */
    xlog_store(&xlog_bell.dozing, 0);
}

void xlog_backend_stop(void)
{
    pthread_mutex_lock(&be.lock);
    xlog_store_release(&be.stop, 1);
    xlog_bell_ring();
    pthread_mutex_unlock(&be.lock);
    pthread_join(be.thread, NULL);

    /* Until backend_running is 0, a thread that ends only marks its ring;
     * from then on it recycles it itself, and may unmap it: the snapshot's
     * rings are not touched after that. */
    forget_backtraces();
    pthread_mutex_lock(&xlog_rings.lock);
    xlog_rings.backend_running = 0;
    pthread_mutex_unlock(&xlog_rings.lock);

    xlog_sinks_stop();
    forget_run();
}
