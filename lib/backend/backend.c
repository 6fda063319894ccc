/*
 * backend.c - the one thread that turns raw records into lines in files.
 *
 * Why it exists: everything a log call does not do happens here: reading the
 * rings, putting messages from all threads in time order, converting ticks to
 * UTC, formatting, and writing large blocks.
 *
 * How it works, one pass of the loop:
 *   1. scan: read every ring's head; note how far each is published and which
 *      threads are inside a call (bit 0 of head).
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
 *      that have ended once they are empty, resynchronise the clock.
 * When a pass finds nothing it sleeps idle_sleep_us (a flush or close wakes
 * it at once).
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
#include <sys/syscall.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/internal.h"
#include "common/record_args.h"
#include "format/format.h"
#include "layouts/fields.h"
#include "sinks/console_sink.h"
#include "sinks/file_sink.h"

#define WATERMARK_MARGIN_NS 50000.0
#define RESYNC_INTERVAL_NS 1000000000.0
#define STUCK_CALL_NS 100000000.0
#define NOTICE_INTERVAL_NS 1000000000.0
/* Consumed bytes given back to a producer at least this often. */
#define RELEASE_EVERY 65536u
/* Room a line prefix may take: time, level, file:line function, tid. */
#define MAX_PREFIX 2200

xlog_backend_counters xlog_counts;

/* What the back end remembers of a call site: its "file:line function " text
 * and the length of its format. */
typedef struct site_entry {
    const void *site;
    size_t format_len;
    char *where;   /* "main.c:42 main " */
    size_t where_len;
} site_entry;

#define FORMAT_LEN_UNKNOWN SIZE_MAX

static struct backend {
    pthread_t thread;
    xlog_config cfg;
    char *dir;
    xlog_clock clock;
    int64_t last_utc;        /* never print a time older than this */
    uint64_t margin_ticks;
    uint64_t stuck_ticks;
    uint64_t resync_ticks;
    uint64_t flush_interval_ticks;
    uint64_t notice_interval_ticks;
    uint64_t next_resync;
    xlog_time_text time_text;
    xlog_file shared;        /* shared and per-process modes */

    xlog_ring **rings;       /* snapshot of the registry */
    size_t ring_count;
    size_t ring_capacity;
    uint64_t rings_generation;

    site_entry *sites;       /* open addressing, power-of-two size */
    size_t site_slots;
    size_t site_count;

    xlog_arg args[64];       /* the record being written, decoded */

    pthread_mutex_t lock;
    pthread_cond_t wake;     /* to the back end: a request is waiting */
    pthread_cond_t answered; /* from the back end: a flush is done */
    uint64_t flush_requested;
    uint64_t flush_done;
    int stop;

    int tid;                 /* the back end's kernel thread id */
    int crash_signal;        /* atomic: a crash handler asks for a last flush */
    int crash_tid;           /* atomic: the thread that crashed */
    int crash_done;          /* atomic: that flush is done */
} be = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* ---- call sites ---------------------------------------------------------- */

/* The last component of a path of len bytes (no NUL needed). */
static const char *base_name(const char *path, size_t len)
{
    const char *slash = memrchr(path, '/', len);
    return slash ? slash + 1 : path;
}

/* The format length a line uses: a single newline at the very end of a format
 * is dropped, since every message is a line anyway. */
static size_t line_format_len(const char *format, size_t len)
{
    return len && format[len - 1] == '\n' ? len - 1 : len;
}

/* Writes "file:line function " (file reduced to its base name) into out;
 * returns its length, at most size - 1. */
static size_t format_where(char *out, size_t size, const char *file, size_t file_len, int line,
                           const char *func, size_t func_len)
{
    const char *base = base_name(file, file_len);
    file_len -= (size_t)(base - file);
    int n = snprintf(out, size, "%.*s:%d %.*s ", (int)file_len, base, line, (int)func_len, func);
    return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}

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

static site_entry *site_lookup(const xlog_impl_site *site)
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
    site_entry entry = {site, FORMAT_LEN_UNKNOWN, NULL, 0};
    size_t file_len = strlen(site->file), func_len = strlen(site->func);
    size_t size = file_len + func_len + 16;
    entry.where = malloc(size);
    if (!entry.where)
        return NULL;
    entry.where_len = format_where(entry.where, size, site->file, file_len, site->line,
                                   site->func, func_len);
    size_t j = ((uintptr_t)site >> 4) & (be.site_slots - 1);
    while (be.sites[j].site)
        j = (j + 1) & (be.site_slots - 1);
    be.sites[j] = entry;
    be.site_count++;
    return &be.sites[j];
}

static void sites_free(void)
{
    for (size_t i = 0; i < be.site_slots; i++)
        free(be.sites[i].where);
    free(be.sites);
    be.sites = NULL;
    be.site_slots = be.site_count = 0;
}

/* ---- writing one line ------------------------------------------------------ */

static xlog_file *file_for(xlog_ring *r)
{
    if (be.cfg.file_mode != XLOG_FILE_PER_THREAD)
        return &be.shared;
    if (!r->file) {
        xlog_file *f = malloc(sizeof *f);
        if (!f)
            return NULL;
        if (xlog_file_init(f, be.dir, XLOG_FILE_PER_THREAD, r->tid, be.cfg.write_buffer) != 0) {
            free(f);
            return NULL;
        }
        f->no_follow = !be.cfg.follow_symlinks;
        r->file = f;
    }
    return r->file;
}

static void release_file(xlog_ring *r)
{
    if (r->file) {
        xlog_file_destroy(r->file);
        free(r->file);
        r->file = NULL;
    }
}

/* Time of a record in UTC, never older than a time already written. */
static int64_t line_time(uint64_t tsc)
{
    int64_t utc = xlog_clock_utc(&be.clock, tsc);
    if (utc < be.last_utc)
        utc = be.last_utc;
    be.last_utc = utc;
    return utc;
}

static void write_notice(xlog_ring *r, int64_t utc, const char *text);

/* Starts a batch with a line saying what the file missed since writing last
 * failed; the counts are cleared only once that batch is written. */
static void report_loss(xlog_ring *r, xlog_file *f, int64_t utc)
{
    f->notice_in_buffer = 1;
    f->notice_lines = f->lost_lines;
    f->notice_bytes = f->lost_bytes;
    if (f->cut_mid_line)
        f->buffer[f->length++] = '\n'; /* end the line a short write cut */
    char text[200];
    snprintf(text, sizeof text, "%llu lines (%llu bytes) were lost: writing failed: %s",
             (unsigned long long)f->notice_lines, (unsigned long long)f->notice_bytes,
             strerror(f->lost_errno));
    write_notice(r, utc, text);
    f->notice_length = f->length;
}

/* Writes one line: prefix, then the message rendered from fmt and args
 * (escaped, cut at max_message). */
static void write_line(xlog_ring *r, int64_t utc, int level, const char *where, size_t where_len,
                       const char *fmt, size_t fmt_len, const xlog_arg *args, size_t nargs,
                       int truncated)
{
    xlog_file *f = file_for(r);
    if (!f)
        return;
    int rc = xlog_file_use_time(f, utc);
    if (rc != 0) {
        xlog_file_lose_line(f, -rc);
        return;
    }
    if (f->length == 0 && !f->notice_in_buffer && (f->lost_lines || f->lost_bytes))
        report_loss(r, f, utc);
    if (where_len > MAX_PREFIX - 64)
        where_len = MAX_PREFIX - 64;
    size_t max_message = be.cfg.max_message;
    size_t mark_len = sizeof XLOG_TRUNCATED_MARK - 1;
    char *out = xlog_file_room(f, MAX_PREFIX + max_message + mark_len + 1);
    if (f->length == 0)
        f->pending_since = xlog_ticks();

    char *p = out;
    p += xlog_time_text_write(&be.time_text, utc, p);
    memcpy(p, " [", 2);
    p += 2;
    size_t name_len;
    const char *name = xlog_level_name(level, &name_len);
    memcpy(p, name, name_len);
    p += name_len;
    memcpy(p, "] ", 2);
    p += 2;
    memcpy(p, where, where_len);
    p += where_len;
    if (!r->tid_text_len)
        r->tid_text_len = (size_t)snprintf(r->tid_text, sizeof r->tid_text, "%d ", r->tid);
    memcpy(p, r->tid_text, r->tid_text_len);
    p += r->tid_text_len;

    size_t full = xlog_fmt_render(fmt, fmt_len, args, nargs, XLOG_FMT_ESCAPE, p, max_message);
    if (full > max_message || truncated) {
        size_t keep = full < max_message ? full : max_message;
        if (keep > max_message - mark_len)
            keep = max_message - mark_len;
        memcpy(p + keep, XLOG_TRUNCATED_MARK, mark_len);
        p += keep + mark_len;
        xlog_add(&xlog_counts.truncated, 1);
    } else {
        p += full;
    }
    *p++ = '\n';
    f->length += (size_t)(p - out);
    xlog_console_line(level, out, (size_t)(p - out));
    xlog_add(&xlog_counts.messages, 1);
}

/* A line of xlog's own, e.g. how many messages a thread dropped. */
static void write_notice(xlog_ring *r, int64_t utc, const char *text)
{
    static const char where[] = "xlog:0 xlog ";
    write_line(r, utc, XLOG_WARN, where, sizeof where - 1, text, strlen(text), NULL, 0, 0);
}

/* One line saying how many of the thread's messages were not written since
 * the last such line, and why; at most one per thread per NOTICE_INTERVAL_NS
 * unless forced (a flush, the thread's end), so that a flood of drops makes
 * one line a second, not one per gap. */
static void report_drops(xlog_ring *r, uint64_t now, int force)
{
    static const char *const reasons[XLOG_DROP_REASONS] = {
        [XLOG_DROP_FULL] = "its ring was full (XLOG_FULL_DROP)",
        [XLOG_DROP_NESTED] = "logged by a signal handler inside a log call",
        [XLOG_DROP_CLOSING] = "logged while xlog was closing",
    };
    uint64_t news[XLOG_DROP_REASONS], refused = r->refused - r->refused_reported, total = refused;
    for (int i = 0; i < XLOG_DROP_REASONS; i++) {
        news[i] = xlog_load(&r->dropped[i]) - r->dropped_reported[i];
        total += news[i];
    }
    if (total == 0 || (!force && now < r->notice_due))
        return;
    char text[400];
    size_t n = (size_t)snprintf(text, sizeof text,
                                "%llu messages of this thread were not written:",
                                (unsigned long long)total);
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

/* Formats and writes the record at the ring's read position. */
static void consume(xlog_ring *r, const xlog_record *rec)
{
    report_drops(r, rec->tsc, 0);
    if (rec->level > XLOG_FATAL) {
        r->refused++;
        xlog_add(&xlog_counts.refused, 1);
        return;
    }
    int64_t utc = line_time(rec->tsc);
    const xlog_impl_site *site = rec->site;
    site_entry *entry = site ? site_lookup(site) : NULL;
    const char *body = (const char *)(rec + 1);
    const unsigned char *kinds;
    const char *args, *fmt;
    size_t fmt_len;
    char where_text[MAX_PREFIX - 64];
    const char *where = where_text;
    size_t where_len = 0;

    if (rec->type == XLOG_REC_SITE) {
        kinds = site->kinds;
        args = body;
        fmt = site->format;
        if (entry && entry->format_len == FORMAT_LEN_UNKNOWN)
            entry->format_len = line_format_len(fmt, strlen(fmt));
        fmt_len = entry ? entry->format_len : line_format_len(fmt, strlen(fmt));
    } else {
        uint32_t head[4]; /* format length, line, file length, function length */
        memcpy(head, body, sizeof head);
        kinds = (const unsigned char *)body + sizeof head;
        fmt = (const char *)kinds + rec->nargs;
        fmt_len = line_format_len(fmt, head[0]);
        const char *file = fmt + head[0];
        const char *func = file + head[2];
        args = func + head[3];
        if (!site)
            where_len = format_where(where_text, sizeof where_text, file, head[2], (int)head[1],
                                     func, head[3]);
    }
    if (entry) {
        where = entry->where;
        where_len = entry->where_len;
    } else if (site) {
        where_len = format_where(where_text, sizeof where_text, site->file, strlen(site->file),
                                 site->line, site->func, strlen(site->func));
    }
    xlog_record_decode_args(args, kinds, rec->nargs, be.args);
    write_line(r, utc, rec->level, where, where_len, fmt, fmt_len, be.args, rec->nargs,
               rec->flags & XLOG_REC_TRUNCATED);
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
}

/* Reads every head; returns the watermark (see the top of this file).  A
 * call that has not finished for STUCK_CALL_NS (its thread is stopped in a
 * debugger, say) stops holding the others back, and at the last flush of
 * xlog_close none does: its line, if it ever comes, is written late (with a
 * time no earlier than the lines before it) rather than everything waiting. */
static uint64_t scan(int last_flush)
{
    uint64_t now = xlog_ticks();
    refresh_rings();
    uint64_t watermark = now - be.margin_ticks;
    for (size_t i = 0; i < be.ring_count; i++) {
        xlog_ring *r = be.rings[i];
        uint64_t head = xlog_load_acquire(&r->head);
        xlog_tsan_acquire(&r->head);
        r->visible_end = head & ~(uint64_t)1;
        if (!(head & 1))
            continue;
        if (head != r->odd_head) {
            r->odd_head = head;
            r->odd_since = now;
        }
        if (!last_flush && now - r->odd_since < be.stuck_ticks && r->last_tsc < watermark)
            watermark = r->last_tsc;
    }
    return watermark;
}

/* The next record of a ring, skipping padding; NULL if none is visible. */
static const xlog_record *front(xlog_ring *r)
{
    while (r->read_pos < r->visible_end) {
        const xlog_record *rec = (const xlog_record *)(r->buffer + (r->read_pos & r->mask));
        if (rec->type != XLOG_REC_PAD) {
            if (rec->tsc > r->last_tsc)
                r->last_tsc = rec->tsc;
            return rec;
        }
        r->read_pos += rec->size;
    }
    return NULL;
}

/* Gives the producer back the space of the records read. */
static void release_space(xlog_ring *r)
{
    xlog_tsan_release(&r->tail);
    xlog_store_release(&r->tail, r->read_pos);
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
        const xlog_record *rec;
        while ((rec = front(best)) && rec->tsc <= limit) {
            consume(best, rec);
            best->read_pos += rec->size;
            written++;
            if (best->read_pos - xlog_load(&best->tail) >= RELEASE_EVERY)
                release_space(best);
        }
        release_space(best);
    }
}

/* ---- housekeeping ---------------------------------------------------------- */

/* Gives the rings of threads that have ended back to the pool, once
 * everything in them is written; tends the memory of the others. */
static void tend_rings(uint64_t now)
{
    for (size_t i = 0; i < be.ring_count; i++) {
        xlog_ring *r = be.rings[i];
        if (!xlog_load_acquire(&r->exited)) {
            xlog_ring_tend(r, now, be.clock.ns_per_tick);
            continue;
        }
        r->visible_end = xlog_load_acquire(&r->head);
        xlog_tsan_acquire(&r->head);
        if (front(r))
            continue;
        report_drops(r, now, 1);
        release_file(r);
        pthread_mutex_lock(&xlog_rings.lock);
        xlog_ring_retire_locked(r);
        pthread_mutex_unlock(&xlog_rings.lock);
        be.rings[i--] = be.rings[--be.ring_count];
    }
}

static void write_buffers(uint64_t now, int all)
{
    if (be.shared.length && (all || now - be.shared.pending_since >= be.flush_interval_ticks))
        xlog_file_write_out(&be.shared);
    for (size_t i = 0; i < be.ring_count; i++) {
        xlog_file *f = be.rings[i]->file;
        if (f && f->length && (all || now - f->pending_since >= be.flush_interval_ticks))
            xlog_file_write_out(f);
    }
}

static void resync_clock(uint64_t now)
{
    xlog_clock_resync(&be.clock);
    be.next_resync = now + be.resync_ticks;
}

static void idle_wait(unsigned microseconds)
{
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_nsec += (long)microseconds * 1000;
    until.tv_sec += until.tv_nsec / 1000000000;
    until.tv_nsec %= 1000000000;
    pthread_mutex_lock(&be.lock);
    if (xlog_load(&be.flush_requested) == be.flush_done && !be.stop)
        pthread_cond_timedwait(&be.wake, &be.lock, &until);
    pthread_mutex_unlock(&be.lock);
}

/* ---- after a crash ---------------------------------------------------------- */

/* Writes everything published so far, whatever the watermark (a thread that
 * crashed inside a call will never finish it), then a line naming the
 * signal. */
static void crash_drain(int sig)
{
    refresh_rings();
    for (size_t i = 0; i < be.ring_count; i++)
        be.rings[i]->visible_end = xlog_load_acquire(&be.rings[i]->head) & ~(uint64_t)1;
    merge(UINT64_MAX);

    /* The last line goes to the crashing thread's stream. */
    int tid = xlog_load(&be.crash_tid);
    static xlog_ring stranger; /* a thread that never logged: shared files only */
    xlog_ring *r = NULL;
    for (size_t i = 0; i < be.ring_count && !r; i++)
        if (be.rings[i]->tid == tid)
            r = be.rings[i];
    if (!r && be.cfg.file_mode != XLOG_FILE_PER_THREAD) {
        stranger.tid = tid;
        r = &stranger;
    }
    if (r) {
        char text[128];
        snprintf(text, sizeof text,
                 "caught %s (signal %d): every message logged before it is above this line",
                 xlog_signal_name(sig), sig);
        int64_t utc = line_time(xlog_ticks());
        write_line(r, utc, XLOG_FATAL, "xlog:0 xlog ", 12, text, strlen(text), NULL, 0, 0);
    }
    write_buffers(xlog_ticks(), 1);
}

void xlog_backend_crash_flush(int sig)
{
    if (!xlog_load_acquire(&xlog_front.epoch))
        return;
    int self = (int)syscall(SYS_gettid);
    xlog_store(&be.crash_tid, self);
    xlog_store(&be.crash_done, 0);
    xlog_store_release(&be.crash_signal, sig);
    if (self == xlog_load(&be.tid)) {
        crash_drain(sig); /* the back end itself crashed */
        xlog_store(&be.crash_signal, 0);
        return;
    }
    /* The back end notices within idle_sleep_us; if it has not answered
     * within five seconds it is stuck (in a write to a dead disk, say), and
     * running the same code beside it would be worse than giving up. */
    for (int i = 0; i < 5000 && !xlog_load_acquire(&be.crash_done); i++) {
        struct timespec pause = {0, 1000000};
        nanosleep(&pause, NULL);
    }
}

void xlog_backend_crash_survived(void)
{
    xlog_store_release(&be.crash_signal, 0);
}

static void *backend_main(void *unused)
{
    (void)unused;
    xlog_store(&be.tid, (int)syscall(SYS_gettid));
    int flushing = 0, stopping = 0;
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
        uint64_t watermark = scan(stopping);
        size_t written = merge(watermark);
        uint64_t now = xlog_ticks();
        tend_rings(now);
        xlog_sinks_housekeeping();
        if (flushing && watermark >= flush_target) {
            for (size_t i = 0; i < be.ring_count; i++)
                report_drops(be.rings[i], now, 1);
            write_buffers(now, 1);
            resync_clock(now);
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
        write_buffers(now, 0);
        if (now >= be.next_resync)
            resync_clock(now);
        if (written == 0) {
            if (flushing) {
                struct timespec pause = {0, 10000};
                nanosleep(&pause, NULL);
            } else {
                idle_wait(be.cfg.idle_sleep_us);
            }
        }
    }
}

/* ---- starting, flushing, stopping ------------------------------------------ */

/* The condition variables live as long as the process (a caller of
 * xlog_flush may still be waking up from one when xlog_close returns). */
static pthread_once_t conditions_once = PTHREAD_ONCE_INIT;

static void init_conditions(void)
{
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&be.wake, &attr);
    pthread_condattr_destroy(&attr);
    pthread_cond_init(&be.answered, NULL);
}

int xlog_backend_start(const xlog_config *cfg)
{
    be.cfg = *cfg;
    be.dir = strdup(cfg->dir);
    if (!be.dir)
        return -ENOMEM;
    be.cfg.dir = be.dir;
    int rc = xlog_make_dir(be.dir);
    if (rc != 0) {
        xlog_set_error("cfg.dir: cannot create the log directory %s: %s", be.dir, strerror(-rc));
        goto fail_dir;
    }
    rc = xlog_sinks_start(cfg);
    if (rc != 0)
        goto fail_dir;

    xlog_clock_start(&be.clock, cfg->wall_clock_ns);
    be.margin_ticks = (uint64_t)(WATERMARK_MARGIN_NS / be.clock.ns_per_tick);
    be.resync_ticks = (uint64_t)(RESYNC_INTERVAL_NS / be.clock.ns_per_tick);
    be.stuck_ticks = (uint64_t)(STUCK_CALL_NS / be.clock.ns_per_tick);
    be.flush_interval_ticks = (uint64_t)(cfg->flush_interval_ms * 1e6 / be.clock.ns_per_tick);
    be.notice_interval_ticks = (uint64_t)(NOTICE_INTERVAL_NS / be.clock.ns_per_tick);
    be.next_resync = xlog_ticks() + be.resync_ticks;
    be.last_utc = INT64_MIN;
    xlog_time_text_init(&be.time_text, false, false, 9);

    rc = xlog_file_init(&be.shared, be.dir, cfg->file_mode, (int)getpid(), cfg->write_buffer);
    if (rc != 0)
        goto fail_sinks;
    be.shared.no_follow = !cfg->follow_symlinks;
    /* Open the first file now so that a bad directory is reported by
     * xlog_open; per-thread files are opened by their first line. */
    if (cfg->file_mode != XLOG_FILE_PER_THREAD) {
        rc = xlog_file_use_time(&be.shared, xlog_clock_utc(&be.clock, xlog_ticks()));
        if (rc != 0) {
            xlog_set_error("cannot open the log file %s: %s",
                           be.shared.path ? be.shared.path : be.dir, strerror(-rc));
            goto fail_file;
        }
    } else if (access(be.dir, W_OK) != 0) {
        rc = -errno;
        xlog_set_error("cfg.dir: cannot write in %s: %s", be.dir, strerror(errno));
        goto fail_file;
    }

    /* Room for many threads from the start: after a crash the snapshot of
     * the rings cannot grow. */
    be.ring_capacity = 256;
    be.ring_count = 0;
    be.rings = malloc(be.ring_capacity * sizeof *be.rings);
    if (!be.rings) {
        rc = -ENOMEM;
        goto fail_file;
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
    if (rc == 0)
        return 0;
    pthread_mutex_lock(&xlog_rings.lock);
    xlog_rings.backend_running = 0;
    pthread_mutex_unlock(&xlog_rings.lock);
    free(be.rings);
    be.rings = NULL;
fail_file:
    xlog_file_destroy(&be.shared);
fail_sinks:
    xlog_sinks_stop();
fail_dir:
    free(be.dir);
    be.dir = NULL;
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
    pthread_cond_signal(&be.wake);
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

/* Frees what one run of the back end built: the shared file (written out
 * first if its buffer holds anything), the site cache, the ring snapshot. */
static void forget_run(void)
{
    xlog_file_destroy(&be.shared);
    sites_free();
    free(be.rings);
    be.rings = NULL;
    be.ring_count = be.ring_capacity = 0;
    free(be.dir);
    be.dir = NULL;
}

/* The child of fork() has no back end thread.  What the parent's had in its
 * buffers is the parent's to write; the child only closes its copies of the
 * descriptors and starts afresh when it first logs. */
void xlog_backend_after_fork(void)
{
    /* The parent's back end may have been in the middle of changing its
     * files and its site table when the fork happened (it does that without
     * the locks the fork takes), so the child frees none of them: it only
     * closes its copies of the descriptors, and leaves the memory. */
    for (xlog_ring *r = xlog_rings.rings; r; r = r->next) {
        if (r->file && r->file->fd >= 0)
            close(r->file->fd);
        r->file = NULL;
    }
    if (be.shared.fd >= 0)
        close(be.shared.fd);
    memset(&be.shared, 0, sizeof be.shared);
    be.shared.fd = -1;
    be.sites = NULL;
    be.site_slots = be.site_count = 0;
    free(be.rings); /* changed only under the registry lock, which the fork held */
    be.rings = NULL;
    be.ring_count = be.ring_capacity = 0;
    be.dir = NULL;
    init_conditions();
    be.tid = 0;
    be.crash_signal = be.crash_done = 0;
}

void xlog_backend_stop(void)
{
    pthread_mutex_lock(&be.lock);
    xlog_store_release(&be.stop, 1);
    pthread_cond_signal(&be.wake);
    pthread_mutex_unlock(&be.lock);
    pthread_join(be.thread, NULL);

    pthread_mutex_lock(&xlog_rings.lock);
    xlog_rings.backend_running = 0;
    for (xlog_ring *r = xlog_rings.rings; r; r = r->next)
        release_file(r);
    pthread_mutex_unlock(&xlog_rings.lock);

    xlog_sinks_stop();
    forget_run();
}
