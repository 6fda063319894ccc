/*
 * file_sink.c - the log files as a sink: which file a line goes to, the
 * buffers' timing, the periodic check of the names, the loss notice, and the
 * compressor's life.
 *
 * Files (file.c does one file): XLOG_FILE_SHARED and XLOG_FILE_PER_PROCESS
 * have one; XLOG_FILE_PER_THREAD has one per thread, found by tid in a small
 * table, created by the thread's first line and closed when the back end
 * says the thread has ended.
 *
 * Each line is written by the sink's layout straight into its file's
 * buffer, which is written with one write(2) when it is full, when it has
 * waited flush_interval_ms (checked at every tick), or on a flush.
 *
 * When writing failed, the next batch of that file starts with a notice
 * saying how many lines were lost and why (file.h keeps the counts); the
 * notice is a line of the sink's layout, like any other.
 *
 * Binary files (XLOG_LAYOUT_BINARY, docs/BINARY.md): a file's buffer holds
 * one block, begun by its first entry with the block's header and the
 * Process entry; a record's Site entry goes before its first record in the
 * block, a Thread entry before a record of another thread than the last,
 * and the header's size is brought up to date with every entry, so that
 * the buffer is a whole block at every moment (recovery writes it as it
 * is).  Every write(2) is thus one block, which needs nothing written
 * before it.  A record whose site has no number (after a crash, without
 * memory), a dynamic record, a notice and a backtrace's line go as Message
 * entries: the line's message, rendered.  The block ends early, written
 * out, where the file would pass rotate_size, and where an entry is older
 * than the block's last (a backtrace replayed): time only moves forward
 * in a block.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/atomics.h"
#include "base/counters.h"
#include "base/doorbell.h"
#include "base/error.h"
#include "binary/context_entry.h"
#include "binary/encode.h"
#include "event/message.h"
#include "sinks/compress.h"
#include "sinks/file.h"
#include "sinks/sink.h"

typedef struct file_sink {
    xlog_file_rules rules;
    size_t buffer_size;
    size_t max_line;           /* the longest line the layout can write */
    int64_t flush_interval_ms;
    int64_t check_interval_ms;
    int64_t next_check_ms;     /* CLOCK_MONOTONIC_COARSE */
    unsigned reopen_requests_seen; /* xlog_reopen's count when last looked at */
    char *prefix;              /* the rules' prefix, the sink's own copy */
    xlog_file shared;          /* XLOG_FILE_SHARED and XLOG_FILE_PER_PROCESS */
    /* XLOG_FILE_PER_THREAD: open addressing by tid, power-of-two size. */
    xlog_file **by_tid;
    size_t slots;
    size_t count;
    /* Binary files: the writer's number, what the Process entry says but
     * for the clock (read at each block), and the longest entry a block
     * takes (longer records go as Message entries, whose length is
     * bounded). */
    uint64_t writer;
    xlog_binary_process process;
    char host[XLOG_BINARY_NAME_MAX + 1];
    size_t entry_max;
} file_sink;

/* The back end's clock, for the Process entry of each block. */
static const xlog_clock *block_clock;

void xlog_file_sink_set_clock(const xlog_clock *clock)
{
    block_clock = clock;
}

/* Counts the calls of xlog_reopen (maybe in a signal handler); each file
 * sink reopens its files when it sees a count it has not seen. */
static unsigned reopen_requests;

XLOG_API void xlog_reopen(void)
{
    __atomic_fetch_add(&reopen_requests, 1, __ATOMIC_RELEASE);
    xlog_bell_ring_if_asleep(); /* signal-safe, both */
    xlog_bell_ring_if_dozing();
}

static int64_t coarse_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/* ---- per-thread files --------------------------------------------------- */

static size_t slot_of(const file_sink *fs, int tid)
{
    return ((unsigned)tid * 2654435761u) & (fs->slots - 1);
}

static int grow(file_sink *fs)
{
    size_t slots = fs->slots ? fs->slots * 2 : 64;
    xlog_file **table = calloc(slots, sizeof *table);
    if (!table)
        return -1;
    xlog_file **old = fs->by_tid;
    size_t old_slots = fs->slots;
    fs->by_tid = table;
    fs->slots = slots;
    for (size_t i = 0; i < old_slots; i++) {
        if (!old[i])
            continue;
        size_t j = slot_of(fs, old[i]->id);
        while (fs->by_tid[j])
            j = (j + 1) & (fs->slots - 1);
        fs->by_tid[j] = old[i];
    }
    free(old);
    return 0;
}

/* The file of thread tid, made by its first line; NULL without memory. */
static xlog_file *thread_file(file_sink *fs, int tid)
{
    if (fs->slots) {
        for (size_t j = slot_of(fs, tid); fs->by_tid[j]; j = (j + 1) & (fs->slots - 1))
            if (fs->by_tid[j]->id == tid)
                return fs->by_tid[j];
    }
    if ((fs->count + 1) * 2 > fs->slots && grow(fs) != 0)
        return NULL;
    xlog_file *f = malloc(sizeof *f);
    if (!f || xlog_file_init(f, &fs->rules, tid, fs->buffer_size) != 0) {
        free(f);
        return NULL;
    }
    size_t j = slot_of(fs, tid);
    while (fs->by_tid[j])
        j = (j + 1) & (fs->slots - 1);
    fs->by_tid[j] = f;
    fs->count++;
    return f;
}

/* Removes the file of tid from the table (backward-shift deletion, so that
 * no tombstone is needed); returns it, or NULL. */
static xlog_file *take_thread_file(file_sink *fs, int tid)
{
    if (!fs->slots)
        return NULL;
    size_t j = slot_of(fs, tid);
    while (fs->by_tid[j] && fs->by_tid[j]->id != tid)
        j = (j + 1) & (fs->slots - 1);
    xlog_file *f = fs->by_tid[j];
    if (!f)
        return NULL;
    fs->by_tid[j] = NULL;
    fs->count--;
    for (size_t k = (j + 1) & (fs->slots - 1); fs->by_tid[k]; k = (k + 1) & (fs->slots - 1)) {
        xlog_file *moved = fs->by_tid[k];
        fs->by_tid[k] = NULL;
        size_t to = slot_of(fs, moved->id);
        while (fs->by_tid[to])
            to = (to + 1) & (fs->slots - 1);
        fs->by_tid[to] = moved;
    }
    return f;
}

/* Calls fn on every file of the sink. */
static void each_file(file_sink *fs, void (*fn)(xlog_file *f, void *arg), void *arg)
{
    if (fs->rules.mode != XLOG_FILE_PER_THREAD) {
        fn(&fs->shared, arg);
        return;
    }
    for (size_t i = 0; i < fs->slots; i++)
        if (fs->by_tid[i])
            fn(fs->by_tid[i], arg);
}

/* ---- lines ------------------------------------------------------------------ */

static void binary_loss_notice(xlog_file *f, const xlog_line_event *next, const char *text,
                               size_t length);

/* Starts a batch with a line saying what the file missed since writing last
 * failed (in the sink's layout, at the time and thread of the event that
 * follows it); the counts are taken off once that line is written. */
static void report_loss(xlog_sink *s, xlog_file *f, const xlog_line_event *next)
{
    file_sink *fs = s->state;
    f->notice_in_buffer = 1;
    f->notice_lines = f->lost_lines;
    f->notice_bytes = f->lost_bytes;
    if (f->cut_mid_line) {
        *xlog_file_room(f, 1) = '\n'; /* end the line a short write cut */
        xlog_file_add_line(f, 1, 0, 0);
    }
    char text[200];
    unsigned long long lines = f->notice_lines, bytes = f->notice_bytes;
    int n = snprintf(text, sizeof text, "%llu %s (%llu %s) %s lost: writing failed: %s", lines,
                     xlog_plural(lines, "line", "lines"), bytes, xlog_plural(bytes, "byte", "bytes"),
                     xlog_plural(lines, "was", "were"), strerror(f->lost_errno));
    if (fs->rules.binary) {
        binary_loss_notice(f, next, text, (size_t)n);
        f->notice_length = f->length;
        xlog_add(&xlog_counts.messages, 1);
        return;
    }
    xlog_line_event notice;
    xlog_notice_event(&notice, next->pub.time_ns, next, text, (size_t)n);
    char *out = xlog_file_room(f, fs->max_line);
    xlog_file_add_line(f, xlog_layout_write(s->layout, &notice, out), 0, 0);
    f->notice_length = f->length;
    xlog_add(&xlog_counts.messages, 1);
}

/* ---- binary blocks ------------------------------------------------------ */

/* Room for a block's header and Process entry and a loss notice. */
#define BLOCK_START_MAX (XLOG_BINARY_HEADER_SIZE + XLOG_BINARY_PROCESS_MAX + 512)

/* Brings the block's size up to date with the buffer and adds the n bytes
 * just written as one line of file.h's (a message, or a notice). */
static void add_entry(xlog_file *f, size_t n, uint32_t ring, uint64_t record_end)
{
    xlog_binary_set_size((uint8_t *)f->buffer, (uint32_t)(f->length + n));
    xlog_file_add_line(f, n, ring, record_end);
}

/* Starts the block of an empty buffer at time_ns. */
static void begin_block(const file_sink *fs, xlog_file *f, int64_t time_ns)
{
    xlog_binary_process process = fs->process;
    if (block_clock) {
        process.ns_per_tick = block_clock->ns_per_tick;
        process.base_ticks = block_clock->base_ticks;
        process.base_utc_ns = block_clock->base_utc_ns;
    }
    uint8_t *start = (uint8_t *)f->buffer;
    uint8_t *end = xlog_binary_block_header(start, fs->writer, time_ns);
    end = xlog_binary_process_entry(end, &process);
    f->block_serial++;
    f->block_tid = -1;
    f->block_context = 0;
    f->block_time = time_ns;
    f->block_messages = 0;
    add_entry(f, (size_t)(end - start), 0, 0);
}

/* name_entry's way when the name is not the last one given in the block. */
static __attribute__((noinline)) uint8_t *other_name_entry(xlog_file *f, uint8_t *end, int tid,
                                                           const xlog_thread_name *thread_name)
{
    const char *name = thread_name ? thread_name->text : "";
    size_t length = thread_name ? thread_name->length : 0;
    struct xlog_file_name *known = &f->named[(unsigned)tid % 8];
    int given = known->tid == tid && known->block_serial == f->block_serial;
    /* Not given: an empty name too, since the slot may have been another
     * thread's since this thread's name in the block, which the reader
     * would otherwise go on showing. */
    if (!given || known->length != length || (length && memcmp(known->name, name, length) != 0)) {
        end = xlog_binary_thread_name(end, tid, name, length);
        known->tid = tid;
        known->block_serial = f->block_serial;
        known->length = length;
        if (length)
            memcpy(known->name, name, length);
    }
    f->named_id = thread_name ? thread_name->id : 0;
    f->named_serial = f->block_serial;
    return end;
}

/* Whether thread_name is the last name the block gave (to the thread of
 * its last entry): its next entry needs no Thread name entry. */
static inline int name_given_last(const xlog_file *f, const xlog_thread_name *thread_name)
{
    return thread_name && thread_name->id && thread_name->id == f->named_id &&
           f->named_serial == f->block_serial;
}

/* The Thread name entry (docs/BINARY.md) that the thread's next entry
 * needs at end, if any: none when the block gave this name to this thread
 * already (the name's number, or one of a few threads' names kept).
 * Returns the end.
 * The usual case, the block's last name again, is a test inline: as a call
 * it cost 31 instructions a record (callgrind, as docs/BENCHMARKS.md). */
static inline __attribute__((always_inline)) uint8_t *
name_entry(xlog_file *f, uint8_t *end, int tid, const xlog_thread_name *thread_name)
{
    if (name_given_last(f, thread_name))
        return end;
    return other_name_entry(f, end, tid, thread_name);
}

/* A Message entry of event (rendered) at the end of f's block. */
static void message_entry(xlog_file *f, const xlog_line_event *event, uint32_t ring,
                          uint64_t record_end)
{
    uint8_t *start = (uint8_t *)f->buffer + f->length, *end = start;
    if (event->pub.tid != f->block_tid) {
        end = xlog_binary_thread(end, event->pub.tid);
        f->block_tid = event->pub.tid;
    }
    end = name_entry(f, end, event->pub.tid, event->thread_name);
    end = xlog_binary_message(end, (uint64_t)(event->pub.time_ns - f->block_time),
                              event->pub.level, event->pub.line, event->pub.file,
                              event->file_length, event->pub.function, event->function_length,
                              event->pub.module, event->module_length, event->pub.message,
                              event->pub.message_length);
    f->block_time = event->pub.time_ns;
    add_entry(f, (size_t)(end - start), ring, record_end);
}

/* The loss notice (report_loss) as a Message entry, just after the
 * block's Process entry. */
static void binary_loss_notice(xlog_file *f, const xlog_line_event *next, const char *text,
                               size_t length)
{
    xlog_line_event notice;
    xlog_notice_event(&notice, next->pub.time_ns, next, text, length);
    message_entry(f, &notice, 0, 0);
}

/* One record of a numbered call site for record_entry: an event's, or
 * one of a run the back end hands over (sink.h, write_run). */
typedef struct xlog_binary_item {
    int tid;
    int64_t time_ns;
    const xlog_record *rec;       /* a site's (XLOG_REC_SITE) */
    const xlog_site_copy *site;
    uint32_t site_number;
    uint32_t ring_slot;
    uint64_t record_end;
    const xlog_thread_name *thread_name;
    const xlog_context *context;
} xlog_binary_item;

/* What a binary file knows of a call site, by the site's number: the block
 * that last defined it, the level of its records there, its Site entry's
 * size and its arguments' shape (both measured once per file and site:
 * measuring at every line cost 29 instructions). */
typedef struct xlog_file_site {
    uint32_t block_serial;
    uint32_t entry_size;     /* 0 until measured */
    int level;
    xlog_binary_shape shape;
    /* The first 8 bytes of the site's usual record in this block (its
     * size, type, level, no flag but XLOG_REC_OWN, its arguments' count:
     * usual_header) and the room that record takes in the buffer, for
     * usual_records' one compare; 0 when the site has no usual record. */
    uint64_t usual_header;
    size_t usual_room;
} xlog_file_site;

/* The first 8 bytes of rec (size, type, level, flags, nargs), without the
 * flag XLOG_REC_OWN, which changes nothing in a binary file. */
static inline uint64_t header_bytes(const xlog_record *rec)
{
    static const xlog_record own = {.flags = XLOG_REC_OWN};
    uint64_t bytes, mask;
    memcpy(&bytes, rec, 8);
    memcpy(&mask, &own, 8);
    return bytes & ~mask;
}

/* Sets known's usual record: of the level its Site entry gives in the
 * block, nargs scalar arguments of 8 bytes each, as the front end writes
 * them, no flag; none when its arguments are not all scalars or its
 * entries would be longer than a block takes. */
static void set_usual(const file_sink *fs, xlog_file_site *known, int nargs)
{
    xlog_record usual = {.size = (uint32_t)(sizeof usual + 8 * (size_t)nargs),
                         .type = XLOG_REC_SITE,
                         .level = (uint8_t)known->level,
                         .nargs = (uint8_t)nargs};
    size_t need = known->entry_size + xlog_binary_record_max(&usual, nargs);
    known->usual_header = 0;
    if (known->shape.scalars && need <= fs->entry_max) {
        known->usual_header = header_bytes(&usual);
        known->usual_room = need + XLOG_BINARY_THREAD_MAX;
    }
}

/* f's entry for the site numbered number, measured now; NULL without
 * memory for f's table. */
static __attribute__((noinline)) xlog_file_site *
measure_site(xlog_file *f, uint32_t number, const xlog_site_copy *site,
             const unsigned char *kinds, int nargs)
{
    if (number >= f->site_count) {
        size_t count = f->site_count ? f->site_count : 64;
        while (count <= number)
            count *= 2;
        xlog_file_site *sites = realloc(f->sites, count * sizeof *sites);
        if (!sites)
            return NULL;
        memset(sites + f->site_count, 0, (count - f->site_count) * sizeof *sites);
        f->sites = sites;
        f->site_count = count;
    }
    xlog_file_site *known = &f->sites[number];
    known->entry_size = (uint32_t)xlog_binary_site_max(site, nargs);
    xlog_binary_shape_of(&known->shape, kinds, nargs);
    return known;
}

static inline xlog_file_site *file_site(xlog_file *f, uint32_t number,
                                        const xlog_site_copy *site, const unsigned char *kinds,
                                        int nargs)
{
    if (number < f->site_count && f->sites[number].entry_size)
        return &f->sites[number];
    return measure_site(f, number, site, kinds, nargs);
}

/* A Context entry when the next entry's context is not the one the block
 * says (docs/BINARY.md, "Context"); block_room made room for it. */
static void context_entry(xlog_file *f, const xlog_context *context)
{
    uint64_t id = xlog_binary_context_id(context);
    if (id == f->block_context)
        return;
    uint8_t *start = (uint8_t *)f->buffer + f->length;
    add_entry(f, (size_t)(xlog_binary_context(start, context) - start), 0, 0);
    f->block_context = id;
}

/* Room for need more bytes in f's block (and for a thread entry), which
 * begins here, at time_ns, if the buffer is empty: with the loss notice
 * first if writing failed since the last one (at the time and thread of
 * what follows it).  Inlined, as record_entry: their calls cost 9.7
 * instructions a line (498.3 to 488.0, callgrind of the whole program as
 * docs/BENCHMARKS.md takes it, the 3-argument statement). */
static inline __attribute__((always_inline)) void block_room(xlog_sink *s, xlog_file *f,
                                                             size_t need, int64_t time_ns,
                                                             int tid, const xlog_context *context)
{
    file_sink *fs = s->state;
    need += XLOG_BINARY_THREAD_MAX + XLOG_BINARY_THREAD_NAME_MAX + XLOG_BINARY_CONTEXT_MAX;
    if (f->length > f->written && time_ns < f->block_time)
        xlog_file_end_block(f);
    /* (A block a failing disk holds back is tried again only when due,
     * never at every entry.) */
    if (f->rules->rotate_size && f->length > f->written &&
        f->file_size + f->length + need > f->rules->rotate_size &&
        xlog_file_retry_due(f, coarse_ms()))
        xlog_file_write_out(f);
    /* (xlog_file_room does nothing more when there is room.) */
    if (f->capacity - f->length < need + BLOCK_START_MAX)
        xlog_file_room(f, need + BLOCK_START_MAX);
    if (f->length == 0) {
        f->pending_since = coarse_ms();
        begin_block(fs, f, time_ns);
        if (!f->notice_in_buffer && (f->lost_lines || f->lost_bytes)) {
            xlog_line_event next;
            memset(&next, 0, sizeof next);
            next.pub.time_ns = time_ns;
            next.pub.pid = fs->process.pid;
            next.pub.tid = tid;
            report_loss(s, f, &next);
        }
    }
    context_entry(f, context);
}

/* A record of a numbered site as a Record entry (after its Site entry if
 * the block has none, and a Thread entry if another thread wrote last);
 * 0, with nothing done, if it cannot be (no memory for f's site table,
 * or an entry longer than a block may take): it then goes as a message. */
static inline __attribute__((always_inline)) int
record_entry(xlog_sink *s, xlog_file *f, const xlog_binary_item *item)
{
    file_sink *fs = s->state;
    const xlog_record *rec = item->rec;
    int nargs = rec->nargs;
    uint32_t number = item->site_number;
    xlog_file_site *known = file_site(f, number, item->site, item->site->kinds, nargs);
    if (!known)
        return 0;
    size_t need = known->entry_size + xlog_binary_record_max(rec, nargs);
    if (need > fs->entry_max)
        return 0;
    block_room(s, f, need, item->time_ns, item->tid, item->context);
    uint8_t *start = (uint8_t *)f->buffer + f->length, *end = start;
    if (known->block_serial != f->block_serial) {
        end = xlog_binary_site(end, number, rec->level, item->site, item->site->kinds, nargs);
        known->block_serial = f->block_serial;
        known->level = rec->level;
        set_usual(fs, known, nargs);
    }
    if (item->tid != f->block_tid) {
        end = xlog_binary_thread(end, item->tid);
        f->block_tid = item->tid;
    }
    end = name_entry(f, end, item->tid, item->thread_name);
    /* A site's entry has the level of the record that defined it in the
     * block; a record of another level says its own. */
    end = xlog_binary_record(end, number, known->level, (uint64_t)(item->time_ns - f->block_time),
                             rec, item->site->kinds, &known->shape);
    f->block_time = item->time_ns;
    f->block_messages++;
    add_entry(f, (size_t)(end - start), item->ring_slot, item->record_end);
    xlog_add(&xlog_counts.messages, 1);
    return 1;
}

static void binary_write(xlog_sink *s, xlog_file *f, const xlog_line_event *event)
{
    if (event->site && event->site_number != XLOG_NO_SITE_NUMBER) {
        xlog_binary_item item = {event->pub.tid,   event->pub.time_ns, event->rec,
                                 event->site,      event->site_number,
                                 event->ring_slot, event->record_end,  event->thread_name,
                                 event->context};
        if (record_entry(s, f, &item))
            return;
    }
    xlog_event_render(event);
    block_room(s, f,
               xlog_binary_message_max(event->file_length, event->function_length,
                                       event->module_length, event->pub.message_length),
               event->pub.time_ns, event->pub.tid, event->context);
    message_entry(f, event, event->ring_slot, event->record_end);
    f->block_messages++;
    xlog_add(&xlog_counts.messages, 1);
}

/* Item i of run that is not one of the usual records of usual_records
 * below: every case.  0 if it must come as an event. */
static __attribute__((noinline)) int write_record_any(xlog_sink *s, const xlog_binary_run *run,
                                                      size_t i)
{
    file_sink *fs = s->state;
    const struct xlog_binary_run_item *it = &run->items[i];
    const xlog_site_copy *site = it->rec->site;
    xlog_binary_item item = {run->tid,       it->time_ns,    it->rec,
                             site,           site->backend_number,
                             run->ring_slot, it->record_end, run->thread_name,
                             run->context};
    xlog_file *f = fs->rules.mode == XLOG_FILE_PER_THREAD ? thread_file(fs, item.tid)
                                                          : &fs->shared;
    if (!f)
        return 0;
    int rc = xlog_file_use_time(f, item.time_ns);
    if (rc != 0) {
        xlog_file_lose_line(f, -rc);
        return 1;
    }
    return record_entry(s, f, &item);
}

/* Writes the usual records of run from item i on, as many as come one
 * after the other, and returns the index of the first it left (i if
 * none).  Usual: the shared or per-process file, open, of the record's
 * day, with a block begun whose last entry is the run's thread, with its
 * name and context; the record's site already defined in the block, no
 * flag, its site's level, scalar arguments, room in the buffer and under
 * rotate_size (what record_entry would write is then its Record entry
 * alone).  The file's checks are made once for the run; the rest of the
 * room, in the buffer and under rotate_size, is one bound, and the
 * block's size, the counts and the survival journal (the last record's
 * end: recovery skips every record of the ring up to it, shm.h "Exactly
 * once") are written once at the end: with a call, these checks and
 * writes per record, the whole program cost 335 instructions a line, 211
 * with them per run (callgrind, docs/BENCHMARKS.md).  An entry that
 * record_entry may add before a Record (a new kind of entry) must end the
 * usual records here. */
static inline __attribute__((always_inline)) size_t
usual_records(file_sink *fs, const xlog_binary_run *run, size_t i)
{
    xlog_file *f = &fs->shared;
    const struct xlog_binary_run_item *it = &run->items[i], *last = &run->items[run->count];
    if (it == last || fs->rules.mode == XLOG_FILE_PER_THREAD || f->fd < 0 || f->length == 0 ||
        run->tid != f->block_tid || it->time_ns < f->block_time ||
        it->time_ns < f->day_start || !name_given_last(f, run->thread_name) ||
        xlog_binary_context_id(run->context) != f->block_context)
        return i;
    /* Room for a record while length + room stays under bound: the buffer's
     * (a block's start kept free) and, once the buffer holds bytes not yet
     * written, rotate_size's (as record_entry's block_room). */
    size_t bound = f->capacity - BLOCK_START_MAX;
    size_t rotate_size = f->rules->rotate_size;
    if (rotate_size) {
        if (f->length <= f->written)
            return i;
        size_t left = f->file_size < rotate_size ? rotate_size - f->file_size : 0;
        if (left < bound)
            bound = left;
    }
    /* (Times never go back in a run: those of the file's day come first.) */
    while (last > it && last[-1].time_ns >= f->day_end)
        last--;
    uint8_t *buffer = (uint8_t *)f->buffer;
    uint8_t *start = buffer + f->length, *out = start;
    int64_t previous = f->block_time;
    uint32_t serial = f->block_serial;
    size_t site_count = f->site_count;
    for (; it < last; it++) {
        const xlog_record *rec = it->rec;
        uint32_t number = ((const xlog_site_copy *)rec->site)->backend_number;
        if (number >= site_count)
            break;
        const xlog_file_site *known = &f->sites[number];
        /* Its site defined in the block, its usual record (no flag, the
         * Site entry's level, scalar arguments), and room. */
        if (known->block_serial != serial || header_bytes(rec) != known->usual_header ||
            (size_t)(out - buffer) + known->usual_room > bound)
            break;
        out = xlog_binary_record_usual(out, number, (uint64_t)(it->time_ns - previous), rec,
                                       &known->shape);
        previous = it->time_ns;
    }
    size_t taken = (size_t)(it - &run->items[i]);
    if (taken) {
        f->block_time = previous;
        f->block_messages += taken;
        xlog_add(&xlog_counts.messages, taken);
        add_entry(f, (size_t)(out - start), run->ring_slot, it[-1].record_end);
    }
    return i + taken;
}

/* The back end's direct way to a binary file (sink.h, write_run): the
 * usual records by usual_records, after the first by write_record_any if
 * it is not one (before any of the run is in the buffer: that one may
 * write the buffer out, begin a block, switch the day). */
static size_t file_write_run(xlog_sink *s, const xlog_binary_run *run)
{
    file_sink *fs = s->state;
    size_t first = run->first, end = usual_records(fs, run, first);
    if (end > first)
        return end - first;
    if (!write_record_any(s, run, first))
        return 0;
    return usual_records(fs, run, first + 1) - first;
}

static void file_write(xlog_sink *s, const xlog_line_event *event)
{
    file_sink *fs = s->state;
    xlog_file *f = fs->rules.mode == XLOG_FILE_PER_THREAD ? thread_file(fs, event->pub.tid)
                                                          : &fs->shared;
    if (!f) {
        xlog_add(&xlog_counts.lost, 1); /* no memory for the thread's file */
        return;
    }
    int rc = xlog_file_use_time(f, event->pub.time_ns);
    if (rc != 0) {
        xlog_file_lose_line(f, -rc);
        return;
    }
    if (fs->rules.binary) {
        binary_write(s, f, event);
        return;
    }
    /* Room first: making it may write the buffer, or give up what a
     * failing disk held back, which the notice must then report. */
    char *out = xlog_file_room(f, fs->max_line);
    if (f->length == 0) {
        f->pending_since = coarse_ms();
        if (!f->notice_in_buffer && (f->lost_lines || f->lost_bytes)) {
            report_loss(s, f, event);
            out = xlog_file_room(f, fs->max_line);
        }
    }
    xlog_file_add_line(f, xlog_layout_write(s->layout, event, out), event->ring_slot,
                       event->record_end);
    xlog_add(&xlog_counts.messages, 1);
}

/* ---- timing --------------------------------------------------------------- */

/* Milliseconds until f's buffer is written by a tick, 0 if now, or -1
 * when no line waits: interval_ms after its first line, and no sooner
 * than a failing disk's retry. */
static int64_t ms_to_due(const xlog_file *f, int64_t now_ms, int64_t interval_ms)
{
    if (f->length <= f->written)
        return -1;
    int64_t ms = f->pending_since + interval_ms - now_ms;
    int64_t retry_ms = xlog_file_ms_to_retry(f, now_ms);
    if (ms < retry_ms)
        ms = retry_ms;
    return ms > 0 ? ms : 0;
}

typedef struct due {
    int64_t now_ms;
    int64_t interval_ms;
    int64_t least_ms; /* -1: no line waits */
} due;

static void write_if_due(xlog_file *f, void *arg)
{
    const due *d = arg;
    if (ms_to_due(f, d->now_ms, d->interval_ms) == 0)
        xlog_file_write_out(f);
}

static void note_due(xlog_file *f, void *arg)
{
    due *d = arg;
    int64_t ms = ms_to_due(f, d->now_ms, d->interval_ms);
    if (ms >= 0 && (d->least_ms < 0 || ms < d->least_ms))
        d->least_ms = ms;
}

/* When write_if_due will write a buffer. */
static int64_t file_ms_to_due(xlog_sink *s)
{
    file_sink *fs = s->state;
    due d = {coarse_ms(), fs->flush_interval_ms, -1};
    each_file(fs, note_due, &d);
    return d.least_ms;
}

static void check_name(xlog_file *f, void *forced)
{
    xlog_file_check_name(f, *(int *)forced);
}

static void file_tick(xlog_sink *s)
{
    file_sink *fs = s->state;
    int64_t now = coarse_ms();
    due d = {now, fs->flush_interval_ms, -1};
    each_file(fs, write_if_due, &d);
    unsigned requests = __atomic_load_n(&reopen_requests, __ATOMIC_ACQUIRE);
    int asked = requests != fs->reopen_requests_seen;
    fs->reopen_requests_seen = requests;
    if (!asked && now < fs->next_check_ms)
        return;
    fs->next_check_ms = now + fs->check_interval_ms;
    each_file(fs, check_name, &asked);
}

static void write_out(xlog_file *f, void *durable)
{
    if (f->length > f->written)
        xlog_file_write_out(f);
    if (*(int *)durable && f->fd >= 0)
        fdatasync(f->fd);
}

static void file_flush(xlog_sink *s, int durable)
{
    each_file(s->state, write_out, &durable);
}

static void file_thread_ended(xlog_sink *s, int tid)
{
    file_sink *fs = s->state;
    xlog_file *f = fs->rules.mode == XLOG_FILE_PER_THREAD ? take_thread_file(fs, tid) : NULL;
    if (f) {
        xlog_file_destroy(f);
        free(f);
    }
}

/* ---- life -------------------------------------------------------------------- */

/* What a binary sink knows from the start: its writer's number, the
 * Process entry, and its longest entry: the longest Message entry (a
 * message at its longest, names at theirs), or a record of that size
 * (max_message of string bytes, 64 arguments of 16 bytes, and their
 * site's entry with as long a format as the message). */
static void binary_start(file_sink *fs, const xlog_config *cfg)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    int pid = (int)getpid();
    fs->writer = xlog_binary_writer_id(pid, (int64_t)now.tv_sec * 1000000000 + now.tv_nsec);
    if (gethostname(fs->host, sizeof fs->host - 1) != 0)
        fs->host[0] = '\0';
    fs->host[sizeof fs->host - 1] = '\0';
    fs->process.pid = pid;
    fs->process.max_message = cfg->max_message;
    fs->process.host = fs->host;
    fs->process.program = program_invocation_short_name;
    fs->process.options = cfg->rotate_local_time ? XLOG_BINARY_LOCAL_DATES : 0;
    size_t message = xlog_binary_message_max(XLOG_MAX_NAME, XLOG_MAX_NAME, XLOG_MAX_NAME,
                                             cfg->max_message + XLOG_TRUNCATED_MARK_LENGTH + 64);
    size_t record = 2 * (cfg->max_message + XLOG_RECORD_MAX_ARGS * 16) + message;
    fs->entry_max = record;
    fs->max_line = BLOCK_START_MAX + XLOG_BINARY_THREAD_MAX + XLOG_BINARY_CONTEXT_MAX + record;
}

int xlog_file_prefix_check(const char *prefix, const char *what)
{
    if (!prefix)
        return 0;
    size_t length = strlen(prefix);
    int ok = length > 0 && length < XLOG_PREFIX_MAX && prefix[0] != '.';
    for (size_t i = 0; ok && i < length; i++) {
        char c = prefix[i];
        ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
             c == '_' || c == '-' || c == '.';
    }
    if (ok)
        return 0;
    xlog_set_error("%s: \"%.*s\" is not a file name prefix (letters, digits, '_', '-' and '.', "
                   "not first; 1 to %d bytes)", what, 64, prefix, XLOG_PREFIX_MAX - 1);
    return -EINVAL;
}

/* What one set of files is made of: the main files' fields of xlog_config,
 * or a listed file sink's (xlog_file_config), and the names of those fields
 * for error messages. */
typedef struct file_settings {
    const char *dir, *prefix;
    xlog_file_mode mode;
    int hourly;
    size_t rotate_size;
    unsigned rotate_keep, keep_days;
    xlog_compress compress;
    uint32_t index;            /* 0 for the main files, i for the i-th listed */
    const char *dir_name, *prefix_name;
} file_settings;

static file_settings main_settings(const xlog_config *cfg)
{
    return (file_settings){cfg->dir, cfg->file_prefix, cfg->file_mode, cfg->rotate_hourly,
                           cfg->rotate_size, cfg->rotate_keep, cfg->keep_days, cfg->compress,
                           0, "cfg.dir", "cfg.file_prefix"};
}

/* A listed file sink's settings (xlog.c gave it an absolute dir), checked
 * as xlog_open checks the main files' fields: 0, or -EINVAL after saying
 * which is wrong. */
static int listed_settings(const xlog_config *cfg, const xlog_file_config *own, file_settings *out)
{
    *out = (file_settings){own->dir, own->prefix, own->mode, own->rotate_hourly,
                           own->rotate_size, own->rotate_keep, own->keep_days, own->compress,
                           1, "dir", "prefix"};
    for (size_t i = 0; cfg->sinks[i] != &own->sink; i++)
        out->index += cfg->sinks[i]->kind == XLOG_SINK_FILE;
    if (own->mode != XLOG_FILE_SHARED && own->mode != XLOG_FILE_PER_THREAD &&
        own->mode != XLOG_FILE_PER_PROCESS) {
        xlog_set_error("mode: %d is not XLOG_FILE_SHARED, XLOG_FILE_PER_THREAD or "
                       "XLOG_FILE_PER_PROCESS", (int)own->mode);
        return -EINVAL;
    }
    if (own->rotate_size != 0 && own->rotate_size < 65536) {
        xlog_set_error("rotate_size: %zu is neither 0 (no size rotation) nor at least 64 KiB",
                       own->rotate_size);
        return -EINVAL;
    }
    if (own->rotate_keep < 1 || own->rotate_keep > 100000) {
        xlog_set_error("rotate_keep: %u is not between 1 and 100000", own->rotate_keep);
        return -EINVAL;
    }
    if (own->compress != XLOG_COMPRESS_NONE && own->compress != XLOG_COMPRESS_GZIP) {
        xlog_set_error("compress: %d is not XLOG_COMPRESS_NONE or XLOG_COMPRESS_GZIP",
                       (int)own->compress);
        return -EINVAL;
    }
    return 0;
}

static int file_start(xlog_sink *s, const xlog_config *cfg, const xlog_sink_config *own)
{
    file_settings set;
    int rc = own ? listed_settings(cfg, (const xlog_file_config *)own, &set) : 0;
    if (!own)
        set = main_settings(cfg);
    if (rc == 0)
        rc = xlog_file_prefix_check(set.prefix, set.prefix_name);
    if (rc != 0)
        return rc;
    file_sink *fs = calloc(1, sizeof *fs);
    if (!fs)
        return -ENOMEM;
    if (set.prefix && !(fs->prefix = strdup(set.prefix))) {
        free(fs);
        return -ENOMEM;
    }
    fs->rules.dir = set.dir;
    fs->rules.prefix = fs->prefix;
    fs->rules.hourly = set.hourly;
    fs->rules.index = set.index;
    fs->rules.mode = set.mode;
    fs->rules.no_follow = !cfg->follow_symlinks;
    fs->rules.rotate_size = set.rotate_size;
    fs->rules.rotate_keep = set.rotate_keep;
    fs->rules.keep_days = set.keep_days;
    fs->rules.local_time = cfg->rotate_local_time;
    fs->rules.binary = s->binary;
    fs->rules.compress = set.compress;
    /* A shared file may still be written by processes that have not yet
     * noticed its rotation; they notice at their next write. */
    fs->rules.compress_delay_ms =
        set.mode == XLOG_FILE_SHARED ? 2 * cfg->check_interval_ms : 0;
    fs->flush_interval_ms = cfg->flush_interval_ms;
    fs->check_interval_ms = cfg->check_interval_ms;
    if (s->binary)
        binary_start(fs, cfg);
    else
        fs->max_line =
            xlog_layout_max_line(s->layout, cfg->max_message + XLOG_TRUNCATED_MARK_LENGTH);
    /* A buffer holds at least a few of the longest lines. */
    fs->buffer_size = cfg->write_buffer > 4 * fs->max_line ? cfg->write_buffer : 4 * fs->max_line;
    fs->reopen_requests_seen = __atomic_load_n(&reopen_requests, __ATOMIC_ACQUIRE);
    s->state = fs;

    rc = xlog_make_dir(set.dir);
    if (rc != 0) {
        xlog_set_error("%s: cannot create the log directory %s: %s", set.dir_name, set.dir,
                       strerror(-rc));
        goto fail;
    }
    /* Checked here for every mode: per-thread files are opened only by
     * their first line, too late for xlog_open to refuse a linked directory. */
    if (!cfg->follow_symlinks) {
        int dir = xlog_open_dir_no_follow(set.dir);
        if (dir < 0) {
            rc = -errno;
            xlog_set_error("%s: %s: %s (cfg.follow_symlinks is 0)", set.dir_name, set.dir,
                           strerror(errno));
            goto fail;
        }
        close(dir);
    }
    if (set.mode != XLOG_FILE_PER_THREAD) {
        rc = xlog_file_init(&fs->shared, &fs->rules, (int)getpid(), fs->buffer_size);
        if (rc != 0)
            goto fail;
        /* The first file now, so that a bad directory fails xlog_open. */
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        int64_t utc = cfg->wall_clock_ns ? cfg->wall_clock_ns()
                                         : (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
        rc = xlog_file_use_time(&fs->shared, utc);
        if (rc != 0) {
            xlog_set_error("cannot open the log file %s: %s",
                           fs->shared.path ? fs->shared.path : set.dir, strerror(-rc));
            xlog_file_destroy(&fs->shared);
            goto fail;
        }
    } else if (access(set.dir, W_OK) != 0) {
        rc = -errno;
        xlog_set_error("%s: cannot write in %s: %s", set.dir_name, set.dir, strerror(errno));
        goto fail;
    }
    if (set.compress != XLOG_COMPRESS_NONE) {
        rc = xlog_compress_start();
        if (rc != 0) {
            xlog_set_error("cannot start the compressor: %s", strerror(-rc));
            if (set.mode != XLOG_FILE_PER_THREAD)
                xlog_file_destroy(&fs->shared);
            goto fail;
        }
    }
    return 0;
fail:
    free(fs->prefix);
    free(fs);
    s->state = NULL;
    return rc;
}

static void destroy_file(xlog_file *f, void *unused)
{
    (void)unused;
    xlog_file_destroy(f);
}

static void file_stop(xlog_sink *s)
{
    file_sink *fs = s->state;
    each_file(fs, destroy_file, NULL);
    for (size_t i = 0; i < fs->slots; i++)
        free(fs->by_tid[i]);
    free(fs->by_tid);
    if (fs->rules.compress != XLOG_COMPRESS_NONE)
        xlog_compress_stop();
    free(fs->prefix);
    free(fs);
    s->state = NULL;
}

/* The parent's back end may have been changing its files and table when the
 * fork happened; the child only closes its copies of the descriptors and
 * leaves the memory. */
static void abandon_file(xlog_file *f, void *unused)
{
    (void)unused;
    xlog_file_abandon(f);
}

static void file_after_fork(xlog_sink *s)
{
    each_file(s->state, abandon_file, NULL);
    s->state = NULL;
}

XLOG_API xlog_file_config xlog_file_defaults(void)
{
    xlog_file_config c;
    memset(&c, 0, sizeof c);
    c.sink.kind = XLOG_SINK_FILE;
    c.sink.level = XLOG_TRACE;
    c.sink.layout = XLOG_LAYOUT_TEXT;
    c.mode = XLOG_FILE_SHARED;
    c.rotate_keep = 10;
    c.compress = XLOG_COMPRESS_NONE;
    return c;
}

const xlog_sink_ops xlog_file_sink_ops = {
    .name = "file",
    .start = file_start,
    .write = file_write,
    .write_run = file_write_run,
    .flush = file_flush,
    .tick = file_tick,
    .ms_to_due = file_ms_to_due,
    .thread_ended = file_thread_ended,
    .after_fork = file_after_fork,
    .stop = file_stop,
};
