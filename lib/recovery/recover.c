/*
 * recover.c - writes the lines of processes that ended without xlog_close
 * (survival.h tells what they leave and why it is enough), then removes
 * what they left.
 *
 * For each process directory of the log directory whose lock can be taken
 * (its owner is gone; a living owner keeps it locked):
 *   1. map its rings and file buffers, and index its call sites;
 *   2. each file buffer: finish the journal (a line appended whose ring had
 *      not yet been told), settle a write(2) that may or may not have
 *      happened by looking for its bytes in the file;
 *   3. each ring: find every record past its buffered position, all rings
 *      merged by time, and the file each one's line goes to;
 *   4. each file buffer: append what was never written; each record: render
 *      it as the back end would have (event/message.c, the process's own
 *      layout) into the file the process would have used.  The first
 *      recovered line of each file is preceded by a notice saying how many
 *      follow and whose they are (a line a short write had cut is finished
 *      first: a notice never splits a line);
 *   5. remove the directory.
 * Recovered lines are appended to the day's (or hour's) file of each line,
 * without size rotation or compression.
 *
 * Each set of files of the process is recovered by its own rules: the main
 * files (xlog_config's) and each listed file sink (xlog_file_config, which
 * the process file lists after its header), each with its directory,
 * prefix, layout, level and filter; a buffer names its set.  A record goes
 * to every set that would have taken it, except one whose buffer's journal
 * shows its line already there: a kill in the back end's hand-out of one
 * record leaves its line in the buffers of the sets it had reached, not yet
 * in the others.
 *
 * A process that wrote binary files (XLOG_LAYOUT_BINARY): its buffers are
 * whole blocks (file_sink.c; the last one's size is fitted to the buffer,
 * which a kill inside an append leaves one entry short), written as they
 * are; a block whose write the kill cut is finished by its rest, right
 * after its start if nothing follows it in the file, else by a block of its
 * own holding what a reader could not read of it.  Each recovered line (a
 * record rendered as above, a notice) is a block of its own holding it as a
 * Message entry (docs/BINARY.md), written with no other block's bytes in
 * between.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/atomics.h"
#include "base/date.h"
#include "base/error.h"
#include "binary/context_entry.h"
#include "binary/decode.h"
#include "binary/encode.h"
#include "event/event.h"
#include "event/message.h"
#include "layouts/fields.h"
#include "layouts/layout.h"
#include "record/record.h"
#include "recovery/recovery.h"
#include "rings/ring.h"
#include "shm/shm.h"
#include "sinks/file.h"
#include "sinks/rotation.h"

/* One mapped file of the dead process. */
typedef struct mapped {
    void *base;
    size_t size;
    uint32_t slot;
} mapped;

/* A record to render, and where it comes from. */
typedef struct pending_record {
    uint64_t tsc;
    uint32_t ring;   /* index in rings[] */
    int32_t target;  /* index in targets[], or -1: it cannot be rendered */
    uint64_t pos;
    uint32_t sink;   /* index in sinks[]: the set of files it may go to */
    uint64_t context_pos; /* the ring's context record before it, or
                             RING_CONTEXT: the context the back end kept */
} pending_record;

/* A record with no context record before it in what is recovered of its
 * ring: its context is the one the back end kept in the ring's header
 * (backend.c, "Context"). */
#define RING_CONTEXT UINT64_MAX

/* A file that gets recovered lines: how many, for its notice. */
typedef struct target {
    char path[PATH_MAX];
    uint32_t sink;      /* the set of files it is one of */
    size_t lines;
    int64_t first_time; /* of its first record, or 0 if it has none */
    int noticed;
} target;

/* A position of the dead process to move to value once the output's first
 * `at` bytes are in the file: a ring's buffered position past a record
 * whose line they hold. */
typedef struct mark {
    uint64_t *position;
    uint64_t value;
    size_t at;
} mark;

#define MARKS 4096

/* Where recovered lines go: one open file at a time, with a buffer.  What
 * is written is marked in the dead process's files as it goes, and the
 * first failure (a full disk) stops everything after it, so that a later
 * recovery writes the rest, and nothing twice. */
typedef struct output {
    char path[PATH_MAX];
    const char *dir;  /* made again if it is missing */
    int fd;
    char *buffer;
    size_t length, capacity;
    mark marks[MARKS];
    size_t mark_count;
    int no_follow;
    int error;        /* the errno that stopped it, or 0 */
} output;

/* A file of the dead process that could not be read at all. */
typedef struct damaged_file {
    char name[32];
    uint64_t bytes;
    const char *why;
} damaged_file;

/* The main files and at most as many listed file sinks as a
 * configuration may have. */
#define SINKS_MAX 33

/* One set of files of the dead process. */
typedef struct recovery_sink {
    xlog_file_rules rules;
    xlog_layout *layout;      /* NULL for binary files (rules.binary) */
    int level;
    const xlog_rules *filter; /* a listed sink's own, or NULL */
} recovery_sink;

/* A line a buffer's journal shows in it: the last record of ring slot
 * `slot` whose line its set of files took ends at `end` (shm.h). */
typedef struct journal_entry {
    uint32_t sink;
    uint32_t slot;
    uint64_t end;
} journal_entry;

typedef struct dead_process {
    const xlog_survival_process *proc;
    size_t proc_size;
    xlog_clock clock;
    recovery_sink sinks[SINKS_MAX]; /* [0]: the main files */
    size_t sink_count;
    const xlog_rules *program;  /* the program's rules while routing, or NULL */
    uint64_t writer;         /* binary files: the recovered blocks' writer */
    mapped rings[4096];
    size_t ring_count;
    /* The last period a record of each ring was seen in, and its file,
     * for each set of files. */
    int64_t ring_day[4096][SINKS_MAX];
    int32_t ring_target[4096][SINKS_MAX];
    journal_entry journal[4096];
    size_t journal_count;
    target *targets;
    size_t target_count;
    mapped files[4096];
    size_t file_count;
    /* The dictionary, sorted by site address. */
    const xlog_survival_site **sites;
    size_t site_count;
    size_t longest_format; /* of a record: a site's, or at most max_message */
    long lines;
    /* What could not be read, said in the log (write_damage_notices): per
     * ring, records skipped and bytes past the last record that could be
     * walked; files refused whole; dictionary entries refused. */
    uint64_t ring_bad_records[4096];
    uint64_t ring_bad_bytes[4096];
    damaged_file refused[16];
    size_t refused_count;
    uint64_t refused_more;  /* refused files beyond refused[] */
    uint64_t bad_sites;
    const char *kept;       /* where its files are kept when something was skipped */
} dead_process;

/* ---- validation -------------------------------------------------------------
 * The files of a dead process are memory it could write to, and a process
 * that died of memory corruption (the case recovery exists for) may have
 * left any bytes in them.  No length, count, kind or offset read from them
 * is used before it is checked against the bounds of what was mapped; what
 * does not fit is skipped, and said in the log (write_damage_notices). */

static int terminated(const char *text, size_t size)
{
    return memchr(text, '\0', size) != NULL;
}

/* Notes a file of the dead process that could not be read at all. */
static void refuse_file(dead_process *dp, const char *name, uint64_t bytes, const char *why)
{
    if (dp->refused_count == sizeof dp->refused / sizeof dp->refused[0]) {
        dp->refused_more++;
        return;
    }
    damaged_file *f = &dp->refused[dp->refused_count++];
    /* Names of ours ("ring.<n>") fit; a longer one is not ours and is cut. */
    size_t n = strnlen(name, sizeof f->name - 1);
    memcpy(f->name, name, n);
    f->name[n] = '\0';
    f->bytes = bytes;
    f->why = why;
}

/* Whether the "process" file's header (without its dictionary) can be used
 * to write the process's lines as it would have. */
/* Whether a filter read from the dead process's file can be looked up. */
static int rules_usable(const xlog_rules *r)
{
    if (r->count > XLOG_RULES_MAX || r->process < XLOG_TRACE || r->process > XLOG_OFF)
        return 0;
    for (size_t i = 0; i < r->count; i++)
        if (r->list[i].length == 0 || r->list[i].length >= XLOG_MODULE_MAX ||
            r->list[i].module[r->list[i].length] != '\0')
            return 0;
    return 1;
}

static int layout_usable(int32_t layout)
{
    return layout == XLOG_LAYOUT_TEXT || layout == XLOG_LAYOUT_JSON ||
           layout == XLOG_LAYOUT_BINARY;
}

/* Whether the listed file sinks after the header can be read (the header
 * itself was found to hold them). */
static int listed_sinks_usable(const xlog_survival_process *p)
{
    const xlog_survival_sink *sinks = xlog_survival_sinks(p);
    for (uint32_t i = 0; i < p->sink_count; i++) {
        const xlog_survival_sink *d = &sinks[i];
        if (!terminated(d->dir, sizeof d->dir) || d->dir[0] != '/' ||
            !terminated(d->prefix, sizeof d->prefix) ||
            !terminated(d->pattern, sizeof d->pattern) ||
            d->mode < XLOG_FILE_SHARED || d->mode > XLOG_FILE_PER_PROCESS ||
            !layout_usable(d->layout) || d->level < XLOG_TRACE || d->level > XLOG_OFF ||
            (d->has_filter && !rules_usable(&d->filter)))
            return 0;
    }
    return 1;
}

static int process_header_usable(const xlog_survival_process *p, size_t size)
{
    return size >= sizeof *p && terminated(p->log_dir, sizeof p->log_dir) &&
           terminated(p->file_pattern, sizeof p->file_pattern) &&
           terminated(p->file_prefix, sizeof p->file_prefix) &&
           p->file_mode >= XLOG_FILE_SHARED && p->file_mode <= XLOG_FILE_PER_PROCESS &&
           layout_usable(p->file_layout) &&
           p->max_message >= 256 && p->max_message <= ((uint64_t)1 << 30) / 4 &&
           p->sink_count < SINKS_MAX &&
           sizeof *p + p->sink_count * sizeof(xlog_survival_sink) <= size &&
           rules_usable(&p->rules[0]) && rules_usable(&p->rules[1]) &&
           listed_sinks_usable(p);
}

/* Whether the argument kinds agree with what the format reads: the
 * formatter takes each argument as the kind its conversion says.  A format
 * that reads more than XLOG_RECORD_MAX_ARGS arguments has only the first
 * ones in its record (the conversions beyond show literally). */
static int kinds_match_format(const char *format, size_t length, const unsigned char *kinds,
                              unsigned nargs)
{
    unsigned char expected[XLOG_RECORD_MAX_ARGS];
    int n = xlog_record_kinds(format, length, expected, NULL, XLOG_RECORD_MAX_ARGS, NULL);
    if (n > XLOG_RECORD_MAX_ARGS)
        n = XLOG_RECORD_MAX_ARGS;
    if ((unsigned)n != nargs)
        return 0;
    for (unsigned i = 0; i < nargs; i++)
        if (kinds[i] != expected[i])
            return 0;
    return 1;
}

/* Whether a dictionary entry's names, format and kinds lie inside it (its
 * size already within the dictionary) and agree.  The entry of a site that
 * takes the dynamic way (more than XLOG_MAX_ARGS arguments, a fixed string
 * precision) has a format but no kinds (nargs 0): its records carry their
 * own, checked with each record (record_fits). */
static int site_entry_fits(const xlog_survival_site *e)
{
    uint64_t text = (uint64_t)e->file_length + e->function_length + e->module_length +
                    e->format_length;
    if (text > e->size - sizeof *e || e->nargs > XLOG_MAX_ARGS)
        return 0;
    const char *format =
        (const char *)(e + 1) + e->file_length + e->function_length + e->module_length;
    return e->nargs == 0 || kinds_match_format(format, e->format_length, e->kinds, e->nargs);
}

/* Whether the arguments of a record, as its view says, lie inside it up
 * to end, each string's bytes included. */
static int args_fit(const xlog_record_view *view, const char *end)
{
    const char *at = view->args;
    for (int i = 0; i < view->nargs; i++) {
        int kind = view->kinds[i] & XLOG_KIND_MASK;
        uint64_t fixed = xlog_arg_fixed_size(kind);
        if (fixed > (uint64_t)(end - at))
            return 0;
        uint32_t n = 0;
        if (kind == XLOG_ARG_STR || kind == XLOG_ARG_WSTR)
            memcpy(&n, at, 4);
        at += fixed;
        if (n != 0 && n != XLOG_NULL_STRING) {
            uint64_t bytes = kind == XLOG_ARG_WSTR ? (uint64_t)n * sizeof(wchar_t) : n;
            if (bytes > (uint64_t)(end - at))
                return 0;
            at += bytes;
        }
    }
    return 1;
}

/* Whether a file was made but never used, and holds nothing: a ring made
 * ahead of need and never given to a thread (capacity 0), a file buffer
 * whose header was not written yet or that never held a line (length 0). */
static int never_used(const mapped *m, int is_ring)
{
    if (is_ring)
        return m->size >= sizeof(xlog_ring) && ((const xlog_ring *)m->base)->capacity == 0;
    return m->size >= sizeof(xlog_survival_file) &&
           ((const xlog_survival_file *)m->base)->length == 0;
}

/* Why a mapped ring file cannot be read, or NULL. */
static const char *ring_problem(const mapped *m)
{
    const xlog_ring *r = m->base;
    if (m->size < sizeof *r)
        return "shorter than a ring's header";
    if (r->capacity == 0 || (r->capacity & (r->capacity - 1)) || r->mask != r->capacity - 1)
        return "its capacity is not a power of two";
    if (r->capacity > m->size - sizeof *r)
        return "its capacity is beyond its file";
    return NULL;
}

/* Why a mapped file buffer cannot be read, or NULL. */
static const char *file_buffer_problem(const mapped *m, const dead_process *dp)
{
    const xlog_survival_file *h = m->base;
    if (m->size < sizeof *h)
        return "shorter than a file buffer's header";
    if (memcmp(h->magic, XLOG_SURVIVAL_MAGIC, sizeof h->magic) != 0 ||
        !terminated(h->path, sizeof h->path) || !terminated(h->chunk_path, sizeof h->chunk_path))
        return "its header is not a file buffer's";
    if (h->capacity > m->size - sizeof *h || h->length > h->capacity)
        return "its capacity or length is beyond its file";
    if (h->sink >= dp->sink_count)
        return "its set of files is not one the process lists";
    /* Its lines go to a file of its set's directory, opened there as the
     * live process does (open_output): no other path. */
    const char *log_dir = dp->sinks[h->sink].rules.dir;
    size_t n = strlen(log_dir);
    if (h->path[0] && (strncmp(h->path, log_dir, n) != 0 || h->path[n] != '/' ||
                       strchr(h->path + n + 1, '/') || !h->path[n + 1]))
        return "its file is not in its directory";
    return NULL;
}

/* Whether a record's fixed part, before its view is taken, can be read:
 * a dynamic record's lengths, a rate-limited one's count. */
static int record_head_fits(const xlog_record *rec)
{
    uint64_t need = sizeof *rec + (rec->flags & XLOG_REC_RATED ? 8 : 0) +
                    (rec->type == XLOG_REC_DYNAMIC ? 16 : 0);
    return rec->size >= need && rec->nargs <= XLOG_RECORD_MAX_ARGS;
}

/* Whether a record's parts (view, of site) lie inside it and agree with its
 * format; its size is already within its ring. */
static int record_fits(const xlog_record *rec, const xlog_survival_site *site,
                       const xlog_record_view *view)
{
    const char *body = (const char *)(rec + 1);
    const char *end = (const char *)rec + rec->size - (rec->flags & XLOG_REC_RATED ? 8 : 0);
    if (rec->type == XLOG_REC_SITE) {
        if (!site || rec->nargs != site->nargs)
            return 0;
    } else {
        uint64_t parts = 16 + (uint64_t)rec->nargs + view->format_length + view->file_length +
                         view->function_length;
        if (parts > (uint64_t)(end - body))
            return 0;
    }
    return kinds_match_format(view->format, view->format_length, view->kinds, view->nargs) &&
           args_fit(view, end);
}

/* ---- mapping ------------------------------------------------------------------ */

static void *map_file(int dir, const char *name, size_t *size)
{
    int fd = openat(dir, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    void *p = MAP_FAILED;
    if (fd >= 0 && fstat(fd, &st) == 0 && st.st_size > 0) {
        *size = (size_t)st.st_size;
        p = mmap(NULL, *size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    }
    if (fd >= 0)
        close(fd);
    return p == MAP_FAILED ? NULL : p;
}

/* By address; of two entries of one site (survival.h,
 * xlog_survival_add_site_names), the one with a format first. */
static int by_address(const void *a, const void *b)
{
    const xlog_survival_site *x = *(const xlog_survival_site *const *)a;
    const xlog_survival_site *y = *(const xlog_survival_site *const *)b;
    if (x->site != y->site)
        return x->site < y->site ? -1 : 1;
    return (y->format_length > 0) - (x->format_length > 0);
}

/* Indexes the ready entries of the dictionary. */
static int index_sites(dead_process *dp)
{
    uint64_t header = dp->proc->header_size;
    if (header < sizeof *dp->proc + dp->proc->sink_count * sizeof(xlog_survival_sink) ||
        header > dp->proc_size || header % 8) {
        refuse_file(dp, "process", dp->proc_size,
                    "its dictionary's start is outside the file");
        return 0;
    }
    const char *start = (const char *)dp->proc + header;
    const char *end = (const char *)dp->proc + dp->proc_size;
    /* The end may lag one claimed entry behind (shm.c, add_site): entries
     * are walked by their sizes up to the first unclaimed one (size 0). */
    size_t capacity = 0;
    for (const char *p = start; (size_t)(end - p) >= sizeof(xlog_survival_site);) {
        const xlog_survival_site *e = (const xlog_survival_site *)p;
        if (e->size == 0)
            break;
        if (e->size < sizeof *e || e->size % 8 || e->size > (size_t)(end - p)) {
            dp->bad_sites++; /* the entries after it cannot be found */
            break;
        }
        if (e->ready && !site_entry_fits(e)) {
            dp->bad_sites++;
        } else if (e->ready) {
            if (e->format_length > dp->longest_format)
                dp->longest_format = e->format_length;
            if (dp->site_count == capacity) {
                capacity = capacity ? capacity * 2 : 256;
                const xlog_survival_site **more = realloc(dp->sites, capacity * sizeof *more);
                if (!more)
                    return -ENOMEM;
                dp->sites = more;
            }
            dp->sites[dp->site_count++] = e;
        }
        p += e->size;
    }
    if (dp->site_count) /* sites is NULL without any */
        qsort(dp->sites, dp->site_count, sizeof *dp->sites, by_address);
    return 0;
}

static const xlog_survival_site *find_site(const dead_process *dp, uint64_t address)
{
    size_t lo = 0, hi = dp->site_count;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (dp->sites[mid]->site < address)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < dp->site_count && dp->sites[lo]->site == address ? dp->sites[lo] : NULL;
}

static xlog_ring *ring_at(const dead_process *dp, size_t i)
{
    return dp->rings[i].base;
}

/* ---- output ------------------------------------------------------------------- */

/* Writes the n bytes at bytes to the output's file with as many write(2)
 * calls as that takes; how many went (all, unless out->error is set). */
static size_t output_write(output *out, const void *bytes, size_t n)
{
    size_t done = 0;
    while (!out->error && done < n) {
        ssize_t w = write(out->fd, (const char *)bytes + done, n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            out->error = w < 0 ? errno : EIO;
        else
            done += (size_t)w;
    }
    return done;
}

static void output_flush(output *out)
{
    size_t done = output_write(out, out->buffer, out->length);
    for (size_t i = 0; i < out->mark_count && out->marks[i].at <= done; i++)
        if (*out->marks[i].position < out->marks[i].value)
            __atomic_store_n(out->marks[i].position, out->marks[i].value, __ATOMIC_RELEASE);
    out->length = 0;
    out->mark_count = 0;
}

/* Opens path (a file of the log directory) as the live process's file sink
 * does (file.c, open_name): without follow_symlinks, in a descriptor of the
 * directory opened with O_NOFOLLOW, so that recovery (often run as root)
 * never writes through a directory or a file replaced by a link. */
static int open_output(const output *out, const char *path, int flags)
{
    if (!out->no_follow)
        return open(path, flags, 0640);
    int dir = xlog_open_dir_no_follow(out->dir);
    if (dir < 0)
        return -1;
    int fd = openat(dir, strrchr(path, '/') + 1, flags | O_NOFOLLOW, 0640);
    int error = errno;
    close(dir);
    errno = error;
    return fd;
}

static void output_switch(output *out, const char *path)
{
    if (out->fd >= 0 && strcmp(out->path, path) == 0)
        return;
    output_flush(out);
    if (out->fd >= 0)
        close(out->fd);
    out->fd = -1;
    if (out->error)
        return;
    snprintf(out->path, sizeof out->path, "%s", path);
    int flags = O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC;
    out->fd = open_output(out, path, flags);
    if (out->fd < 0 && errno == ENOENT && xlog_make_dir(out->dir) == 0)
        out->fd = open_output(out, path, flags);
    if (out->fd < 0)
        out->error = errno;
}

static void output_append(output *out, const char *bytes, size_t n)
{
    while (n > 0) {
        if (out->length == out->capacity)
            output_flush(out);
        size_t take = out->capacity - out->length < n ? out->capacity - out->length : n;
        memcpy(out->buffer + out->length, bytes, take);
        out->length += take;
        bytes += take;
        n -= take;
    }
}

/* After the bytes appended so far: *position moves to value once they are
 * written. */
static void output_mark(output *out, uint64_t *position, uint64_t value)
{
    if (out->mark_count == MARKS)
        output_flush(out);
    out->marks[out->mark_count++] = (mark){position, value, out->length};
}

/* Writes the bytes of the buffer h from h->written up to `to` straight
 * into the file, moving h->written with every write(2), so that what a
 * failure leaves is exactly what was not written. */
static void output_buffer_bytes(output *out, xlog_survival_file *h, uint64_t to)
{
    output_flush(out);
    const char *bytes = (const char *)(h + 1);
    while (!out->error && h->written < to) {
        ssize_t n = write(out->fd, bytes + h->written, (size_t)(to - h->written));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            out->error = n < 0 ? errno : EIO;
        else
            __atomic_store_n(&h->written, h->written + (uint64_t)n, __ATOMIC_RELEASE);
    }
}

/* ---- file buffers ---------------------------------------------------------- */

/* How many of the n bytes the process was writing (h->chunk) when it died
 * are in the file (dev, ino), which had chunk_size bytes before: all, none,
 * or the first ones (a write(2) that a kill cut short).  One write(2) with
 * O_APPEND puts its bytes together, where the file ended; other processes
 * may have appended whole lines before and after them.  So they are the
 * longest prefix of the bytes found where the file had ended (chunk_size)
 * or at a line's start after it, if that prefix holds a whole line (lines
 * are unique: their time and thread) or ends the file: a few bytes that
 * merely look like the start of another process's line are not taken for
 * ours (at worst the start of a line is then written twice, never lost). */
static size_t bytes_in_file(const xlog_survival_file *h, const char *bytes, size_t n, int binary)
{
    int fd = open(h->chunk_path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    size_t found = 0;
    if (fd >= 0 && fstat(fd, &st) == 0 && (uint64_t)st.st_dev == h->chunk_dev &&
        (uint64_t)st.st_ino == h->chunk_ino && (uint64_t)st.st_size > h->chunk_size) {
        size_t span = (size_t)((uint64_t)st.st_size - h->chunk_size);
        char *added = malloc(span);
        const char *nl = memchr(bytes, '\n', n);
        size_t line = nl ? (size_t)(nl + 1 - bytes) : n;
        /* A binary block is told apart by its header, which names its
         * writer; a newline byte means nothing there. */
        if (binary)
            line = n < XLOG_BINARY_HEADER_SIZE ? n : XLOG_BINARY_HEADER_SIZE;
        if (added && pread(fd, added, span, (off_t)h->chunk_size) == (ssize_t)span) {
            for (size_t at = 0; at < span && found < n;) {
                size_t same = 0;
                while (same < n && at + same < span && added[at + same] == bytes[same])
                    same++;
                if (same > found && (same >= line || at + same == span))
                    found = same;
                const char *next = memchr(added + at, '\n', span - at);
                at = next ? (size_t)(next + 1 - added) : span;
            }
        }
        free(added);
    }
    if (fd >= 0)
        close(fd);
    return found;
}

/* Whether the buffer holds bytes that are not in its file. */
static int has_unwritten(const xlog_survival_file *h)
{
    return h->length <= h->capacity && h->written < h->length && h->path[0];
}

/* Sizes a binary buffer's last block to the bytes the buffer holds.  The
 * back end sets its block's size before it counts the entry it adds
 * (file_sink.c, add_entry): a kill between the two leaves a size that runs
 * past the buffer's length by that entry, whose record is still past its
 * ring's buffered position (recovered from there).  Written as it was, the
 * block read as cut where the next one begins. */
static void fit_last_block(xlog_survival_file *h)
{
    uint8_t *bytes = (uint8_t *)(h + 1);
    uint64_t at = 0;
    while (h->length - at >= XLOG_BINARY_HEADER_SIZE) {
        uint32_t size = (uint32_t)bytes[at + 12] | (uint32_t)bytes[at + 13] << 8 |
                        (uint32_t)bytes[at + 14] << 16 | (uint32_t)bytes[at + 15] << 24;
        if (size < XLOG_BINARY_HEADER_SIZE)
            return;
        if (size > h->length - at) {
            xlog_binary_set_size(bytes + at, (uint32_t)(h->length - at));
            return;
        }
        at += size;
    }
}

/* Settles the buffer's journal (survival.h). */
static void settle_buffer(dead_process *dp, xlog_survival_file *h)
{
    const char *bytes = (const char *)(h + 1);
    uint64_t length = h->length, written = h->written;
    if (length > h->capacity || written > length)
        return; /* emptied, or not a buffer of ours */
    if (h->chunk && h->chunk <= length - written)
        written += bytes_in_file(h, bytes + written, (size_t)h->chunk,
                                 dp->sinks[h->sink].rules.binary);
    /* Settled for good, here where the rest of recovery reads it (and where
     * a later recovery would, if this one has to stop). */
    h->written = written;
    h->chunk = 0;
    if (dp->sinks[h->sink].rules.binary)
        fit_last_block(h);
    /* A line appended whose ring had not yet moved past its record: that
     * record is in this set of files already (collect skips it there). */
    if (h->last_length && h->last_length == length && h->last_record_end % XLOG_RECORD_ALIGN == 0)
        dp->journal[dp->journal_count++] =
            (journal_entry){h->sink, (uint32_t)h->last_ring, h->last_record_end};
}

/* Whether a record of ring i ending at end is in the buffers of set sink
 * already, by their journals. */
static int journaled(const dead_process *dp, uint32_t sink, size_t i, uint64_t end)
{
    for (size_t j = 0; j < dp->journal_count; j++)
        if (dp->journal[j].sink == sink && dp->journal[j].slot == dp->rings[i].slot &&
            end <= dp->journal[j].end)
            return 1;
    return 0;
}

/* The block of a binary buffer that a cut write(2) left `written` inside
 * of (the buffer holds blocks back to back from its start, file_sink.c):
 * 1 and its start and end, or 0 when written is at a block's start.  A
 * size that does not fit makes the rest of the buffer one block. */
static int cut_block(const xlog_survival_file *h, uint64_t *start, uint64_t *end)
{
    const uint8_t *bytes = (const uint8_t *)(h + 1);
    uint64_t at = 0;
    while (at < h->written) {
        uint32_t size = 0;
        if (h->length - at >= XLOG_BINARY_HEADER_SIZE)
            size = (uint32_t)bytes[at + 12] | (uint32_t)bytes[at + 13] << 8 |
                   (uint32_t)bytes[at + 14] << 16 | (uint32_t)bytes[at + 15] << 24;
        if (size < XLOG_BINARY_HEADER_SIZE || size > h->length - at)
            size = (uint32_t)(h->length - at);
        if (h->written < at + size) {
            *start = at;
            *end = at + size;
            return 1;
        }
        at += size;
    }
    return 0;
}

/* Where the buffer's bytes not yet written start a whole line: after the
 * rest of a line that a short write cut (written is then inside it). */
static uint64_t first_whole_line(const xlog_survival_file *h)
{
    const char *bytes = (const char *)(h + 1);
    if (h->written == 0 || bytes[h->written - 1] == '\n')
        return h->written;
    const char *nl = memchr(bytes + h->written, '\n', (size_t)(h->length - h->written));
    return nl ? (uint64_t)(nl + 1 - bytes) : h->length;
}

/* ---- rings ------------------------------------------------------------------ */

static int by_time(const void *a, const void *b)
{
    const pending_record *x = a, *y = b;
    if (x->tsc != y->tsc)
        return x->tsc < y->tsc ? -1 : 1;
    if (x->ring != y->ring)
        return x->ring < y->ring ? -1 : 1;
    if (x->pos != y->pos)
        return x->pos < y->pos ? -1 : 1;
    return x->sink < y->sink ? -1 : x->sink > y->sink;
}

/* Every record of every ring past its buffered position that makes a line,
 * in time order. */
static pending_record *collect(dead_process *dp, size_t *count)
{
    size_t capacity = 1024;
    pending_record *all = malloc(capacity * sizeof *all);
    *count = 0;
    for (size_t i = 0; all && i < dp->ring_count; i++) {
        xlog_ring *r = ring_at(dp, i);
        uint64_t end = r->head;
        if (end - r->buffered > r->capacity || r->buffered % XLOG_RECORD_ALIGN ||
            end % XLOG_RECORD_ALIGN) {
            /* Its positions say it holds more than it can: none of it can
             * be told from garbage. */
            dp->ring_bad_bytes[i] += r->capacity;
            continue;
        }
        uint64_t context_pos = RING_CONTEXT;
        for (uint64_t pos = r->buffered; pos < end;) {
            const xlog_record *rec = (const xlog_record *)(r->buffer + (pos & r->mask));
            if (rec->size < 8 || rec->size % 8 ||
                (pos & r->mask) + rec->size > r->capacity || rec->size > end - pos) {
                dp->ring_bad_bytes[i] += end - pos; /* where the next record starts is lost */
                break;
            }
            int is_line = rec->type == XLOG_REC_SITE || rec->type == XLOG_REC_DYNAMIC;
            if ((rec->type < XLOG_REC_SITE || rec->type > XLOG_REC_CONTEXT) ||
                ((is_line || rec->type == XLOG_REC_CONTEXT) && rec->size < sizeof *rec)) {
                dp->ring_bad_records[i]++;
                pos += rec->size;
                continue;
            }
            if (rec->type == XLOG_REC_CONTEXT)
                context_pos = pos;
            /* The lines the sets of files may have written (find_targets
             * looks at the modules): not those below a set's level
             * (another's), nor those kept for a backtrace, nor one the
             * set's buffer holds already. */
            for (uint32_t k = 0; is_line && k < dp->sink_count; k++) {
                if (rec->level > XLOG_FATAL || (rec->flags & XLOG_REC_KEEP) ||
                    (!dp->sinks[k].filter && rec->level < dp->sinks[k].level) ||
                    journaled(dp, k, i, pos + rec->size))
                    continue;
                if (*count == capacity) {
                    capacity *= 2;
                    pending_record *more = realloc(all, capacity * sizeof *more);
                    if (!more) {
                        free(all);
                        return NULL;
                    }
                    all = more;
                }
                all[(*count)++] =
                    (pending_record){rec->tsc, (uint32_t)i, -1, pos, k, context_pos};
            }
            pos += rec->size;
        }
    }
    if (all)
        qsort(all, *count, sizeof *all, by_time);
    return all;
}

/* Room for rendering one record: its event (names, format, message, made
 * as the back end makes them: message.h), its thread's "tid ", its line. */
typedef struct scratch {
    xlog_event_scratch event;
    xlog_context context;    /* the record's, read where it is */
    char tid[XLOG_TID_TEXT_MAX];
    xlog_thread_name thread_name; /* of the record being rendered */
    char *line;    /* the layout's longest line */
    char *notice;  /* the same */
} scratch;

/* The time of a dead process's record.  Its clock calibration and the
 * record's ticks come from files that may be damaged: a time the int64_t
 * nanoseconds cannot hold (or one before the epoch) would overflow in
 * xlog_clock_utc (undefined behaviour) or date the line centuries away; it
 * is written as the epoch, which says plainly that the time was lost. */
static int64_t recovered_time(const xlog_clock *c, uint64_t ticks)
{
    double offset = (double)(int64_t)(ticks - c->base_ticks) * c->ns_per_tick;
    int64_t utc;
    /* Also false for a NaN; 9.2e18 is just below INT64_MAX. */
    if (!(offset > -9.2e18 && offset < 9.2e18) ||
        __builtin_add_overflow(c->base_utc_ns, (int64_t)offset, &utc) || utc < 0)
        return 0;
    return utc;
}

/* The parts of a record and its site; 0 when it cannot be rendered (a
 * site the dictionary lacks). */
static int record_parts(const dead_process *dp, const xlog_record *rec,
                        const xlog_survival_site **site, xlog_record_view *view)
{
    *site = rec->site ? find_site(dp, (uint64_t)(uintptr_t)rec->site) : NULL;
    if (rec->site && (!*site || (rec->type == XLOG_REC_SITE && !(*site)->format_length)))
        return 0;
    if (!record_head_fits(rec))
        return 0;
    const xlog_survival_site *e = *site;
    const char *text = e ? (const char *)(e + 1) : NULL;
    xlog_record_view_of(rec,
                        e ? text + e->file_length + e->function_length + e->module_length : NULL,
                        e ? e->format_length : 0, e ? e->kinds : NULL, view);
    return view->format_length <= dp->longest_format && record_fits(rec, e, view);
}

/* A name the dead process left in its header (host, program, of room
 * bytes): "" when its room holds no NUL (garbage). */
static const char *leftover_name(const char *field, size_t room)
{
    return memchr(field, '\0', room) ? field : "";
}

/* The bytes of ev's line in the process's files, into out (the longest
 * line's room, longest_line): its layout's line, or for binary files a
 * block holding it as a Message entry (ev's message rendered). */
static size_t line_of(const dead_process *dp, uint32_t sink, const xlog_line_event *ev,
                      char *out)
{
    const recovery_sink *k = &dp->sinks[sink];
    if (!k->rules.binary)
        return xlog_layout_write(k->layout, ev, out);
    xlog_binary_process process = {
        .pid = dp->proc->pid,
        .max_message = dp->proc->max_message,
        .ns_per_tick = dp->clock.ns_per_tick,
        .base_ticks = dp->clock.base_ticks,
        .base_utc_ns = dp->clock.base_utc_ns,
        .host = leftover_name(dp->proc->host, sizeof dp->proc->host),
        .program = leftover_name(dp->proc->program, sizeof dp->proc->program),
        .options = k->rules.local_time ? XLOG_BINARY_LOCAL_DATES : 0,
    };
    uint8_t *start = (uint8_t *)out;
    uint8_t *end = xlog_binary_block_header(start, dp->writer, ev->pub.time_ns);
    end = xlog_binary_process_entry(end, &process);
    end = xlog_binary_thread(end, ev->pub.tid);
    if (ev->thread_name && ev->thread_name->length)
        end = xlog_binary_thread_name(end, ev->pub.tid, ev->thread_name->text,
                                      ev->thread_name->length);
    if (ev->context && ev->context->count)
        end = xlog_binary_context(end, ev->context);
    end = xlog_binary_message(end, 0, ev->pub.level, ev->pub.line, ev->pub.file,
                              ev->file_length, ev->pub.function, ev->function_length,
                              ev->pub.module, ev->module_length, ev->pub.message,
                              ev->pub.message_length);
    xlog_binary_set_size(start, (uint32_t)(end - start));
    return (size_t)(end - start);
}

/* The room line_of needs, for every set of files. */
static size_t longest_line(const dead_process *dp)
{
    size_t message = dp->proc->max_message + XLOG_TRUNCATED_MARK_LENGTH, longest = 0;
    for (size_t k = 0; k < dp->sink_count; k++) {
        size_t n = !dp->sinks[k].rules.binary
                       ? xlog_layout_max_line(dp->sinks[k].layout, message)
                       : XLOG_BINARY_HEADER_SIZE + XLOG_BINARY_PROCESS_MAX +
                             XLOG_BINARY_THREAD_MAX + XLOG_BINARY_THREAD_NAME_MAX +
                             XLOG_BINARY_CONTEXT_MAX +
                             xlog_binary_message_max(XLOG_MAX_NAME, XLOG_MAX_NAME,
                                                     XLOG_MAX_NAME, message);
        if (n > longest)
            longest = n;
    }
    return longest;
}

/* Appends a line (line_of); a binary block goes whole into one write(2). */
static void output_line(const dead_process *dp, uint32_t sink, output *out, const char *bytes,
                        size_t n)
{
    if (dp->sinks[sink].rules.binary && out->capacity - out->length < n)
        output_flush(out);
    output_append(out, bytes, n);
}

/* The context of a record of r whose context record is at context_pos
 * (collect), read into c; NULL if it has none, or if what should hold it
 * is not a context (a damaged header: the line is written without). */
static const xlog_context *context_of(const xlog_ring *r, uint64_t context_pos,
                                      xlog_context *c)
{
    c->id = 0;
    int rc;
    if (context_pos == RING_CONTEXT) {
        uint32_t current = __atomic_load_n(&r->context_current, __ATOMIC_ACQUIRE) & 1;
        rc = xlog_context_read(r->context_bytes[current], XLOG_CONTEXT_BYTES_MAX, c);
    } else {
        const xlog_record *rec = (const xlog_record *)(r->buffer + (context_pos & r->mask));
        rc = xlog_context_read((const char *)(rec + 1), rec->size - sizeof *rec, c);
    }
    return rc == 0 && c->count ? c : NULL;
}

/* The event of one record, its line rendered into s->line; the line's
 * length, or 0 when it cannot be rendered. */
static size_t render(const dead_process *dp, uint32_t sink, const xlog_ring *r,
                     const xlog_record *rec, uint64_t context_pos, scratch *s,
                     xlog_line_event *ev)
{
    const xlog_survival_site *site;
    xlog_record_view view;
    if (!record_parts(dp, rec, &site, &view))
        return 0;
    if (site) {
        const char *text = (const char *)(site + 1);
        xlog_event_names_make(&s->event.names, text, site->file_length, text + site->file_length,
                              site->function_length,
                              text + site->file_length + site->function_length,
                              site->module_length, site->line, 0, s->event.room);
    }
    memset(ev, 0, sizeof *ev);
    ev->pub.pid = dp->proc->pid;
    ev->pub.tid = r->tid;
    ev->tid_text = s->tid;
    ev->tid_text_length = xlog_tid_text(s->tid, r->tid);
    /* The last name the back end read (rings.c, "Names"), measured here:
     * the ring's length is the back end's, which may not have come to it. */
    memcpy(s->thread_name.text, r->thread_name.text, XLOG_THREAD_NAME_MAX);
    s->thread_name.length = (uint32_t)strnlen(s->thread_name.text, XLOG_THREAD_NAME_MAX);
    s->thread_name.id = 0;
    ev->thread_name = &s->thread_name;
    xlog_record_event(ev, rec, &view, site ? &s->event.names : NULL, NULL,
                      recovered_time(&dp->clock, rec->tsc), &s->event);
    xlog_event_render(ev);
    ev->context = context_of(r, context_pos, &s->context);
    return line_of(dp, sink, ev, s->line);
}

/* The index in targets[] of path (a file of set sink), added if new; -1
 * without memory. */
static int32_t target_of(dead_process *dp, const char *path, uint32_t sink)
{
    for (size_t i = 0; i < dp->target_count; i++)
        if (strcmp(dp->targets[i].path, path) == 0)
            return (int32_t)i;
    target *more = realloc(dp->targets, (dp->target_count + 1) * sizeof *more);
    if (!more)
        return -1;
    dp->targets = more;
    target *t = &dp->targets[dp->target_count];
    memset(t, 0, sizeof *t);
    snprintf(t->path, sizeof t->path, "%s", path);
    t->sink = sink;
    return (int32_t)dp->target_count++;
}

/* Whether set k takes a record of level, flags and module (length bytes),
 * as the back end's sinks would have (sinks.c, wants). */
static int set_wants(const dead_process *dp, uint32_t k, const xlog_record *rec,
                     const char *module, size_t length)
{
    const recovery_sink *sink = &dp->sinks[k];
    if (sink->filter)
        return rec->level >= xlog_rules_level(sink->filter, module, length);
    return rec->level >= sink->level &&
           (!dp->program || (rec->flags & XLOG_REC_OWN) ||
            rec->level >= xlog_rules_level(dp->program, module, length));
}

/* The file each record's line goes to (-1 for one that cannot be
 * rendered, or that its set's filter turns down), and how many lines each
 * file gets.  A ring's records change file only when their period
 * changes, so the search is made once per ring, set and period.  0, or
 * -ENOMEM. */
static int find_targets(dead_process *dp, pending_record *all, size_t count)
{
    for (size_t i = 0; i < dp->ring_count; i++)
        for (size_t k = 0; k < SINKS_MAX; k++)
            dp->ring_target[i][k] = -1;
    for (size_t i = 0; i < count; i++) {
        const xlog_ring *r = ring_at(dp, all[i].ring);
        const xlog_record *rec = (const xlog_record *)(r->buffer + (all[i].pos & r->mask));
        const xlog_survival_site *site;
        xlog_record_view view;
        uint32_t k = all[i].sink;
        all[i].target = -1;
        if (!record_parts(dp, rec, &site, &view)) {
            /* Counted once, not once per set. */
            if (i == 0 || all[i - 1].ring != all[i].ring || all[i - 1].pos != all[i].pos)
                dp->ring_bad_records[all[i].ring]++;
            continue;
        }
        const char *module = site ? (const char *)(site + 1) + site->file_length +
                                        site->function_length
                                  : "";
        if (!set_wants(dp, k, rec, module, site ? site->module_length : 0))
            continue;
        const xlog_file_rules *rules = &dp->sinks[k].rules;
        int64_t utc = recovered_time(&dp->clock, rec->tsc), start, end;
        int64_t day = xlog_name_period(utc, rules->local_time, rules->hourly, &start, &end);
        int32_t *cached = &dp->ring_target[all[i].ring][k];
        if (*cached < 0 || dp->ring_day[all[i].ring][k] != day) {
            char path[PATH_MAX];
            int id = rules->mode == XLOG_FILE_PER_THREAD ? r->tid : dp->proc->pid;
            xlog_file_path(rules, id, day, path, sizeof path);
            dp->ring_day[all[i].ring][k] = day;
            *cached = target_of(dp, path, k);
            if (*cached < 0)
                return -ENOMEM;
        }
        target *t = &dp->targets[*cached];
        if (!t->lines++)
            t->first_time = utc;
        all[i].target = *cached;
    }
    return 0;
}

/* Before the first recovered line of target t: a notice of how many follow,
 * at time_ns, in the layout's line of the thread of like. */
static void notice(dead_process *dp, target *t, int64_t time_ns, const xlog_line_event *like,
                   scratch *s, output *out)
{
    /* A buffer may hold nothing but the end of a line a cut write began:
     * that end goes where the line began, and no line follows. */
    if (t->noticed || t->lines == 0)
        return;
    t->noticed = 1;
    char text[256];
    int length = snprintf(text, sizeof text,
                          "%zu %s of process %d %s, recovered by process %d: it ended "
                          "without xlog_close",
                          t->lines, xlog_plural(t->lines, "line", "lines"), (int)dp->proc->pid,
                          xlog_plural(t->lines, "follows", "follow"), (int)getpid());
    xlog_line_event ev;
    xlog_notice_event(&ev, time_ns, like, text, (size_t)length);
    output_line(dp, t->sink, out, s->notice, line_of(dp, t->sink, &ev, s->notice));
}

/* Whether the file open (write-only) at fd ends with the n bytes at
 * bytes; read through the descriptor's own entry in /proc, which leads to
 * the same file whatever its name has become. */
static int file_ends_with(int fd, const uint8_t *bytes, size_t n)
{
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    int in = open(proc, O_RDONLY | O_CLOEXEC);
    struct stat st, st_in;
    int same = 0;
    if (in >= 0 && fstat(fd, &st) == 0 && fstat(in, &st_in) == 0 && st.st_dev == st_in.st_dev &&
        st.st_ino == st_in.st_ino && (uint64_t)st.st_size >= n) {
        uint8_t *tail = malloc(n ? n : 1);
        same = tail && pread(in, tail, n, st.st_size - (off_t)n) == (ssize_t)n &&
               memcmp(tail, bytes, n) == 0;
        free(tail);
    }
    if (in >= 0)
        close(in);
    return same;
}

/* Finishes the block of the binary buffer h that a write(2) the kill cut
 * began (written is inside it, at start + k): when the file still ends with
 * its first k bytes, its rest goes right after them and the block is whole
 * again; when another process has appended since, a reader reads the
 * entries whole before the cut (docs/BINARY.md, "Reading"), so what it
 * could not read goes as a block of its own.  Either way each entry is in
 * the file once.  (A block that is not whole in the buffer is given up.) */
static void finish_cut_block(output *out, xlog_survival_file *h, uint64_t start, uint64_t end)
{
    const uint8_t *block = (const uint8_t *)(h + 1) + start;
    size_t k = (size_t)(h->written - start);
    output_flush(out);
    if (out->error)
        return;
    if (file_ends_with(out->fd, block, k)) {
        output_buffer_bytes(out, h, end);
        return;
    }
    uint8_t *rest = malloc((size_t)(end - start));
    size_t n = rest ? xlog_binary_rest_of_cut_block(block, (size_t)(end - start), k, rest) : 0;
    output_write(out, rest, n);
    free(rest);
    if (!out->error)
        __atomic_store_n(&h->written, end, __ATOMIC_RELEASE);
}

/* Makes t's file the output's, in t's set's directory and by its rules. */
static void switch_to(const dead_process *dp, output *out, const target *t)
{
    out->dir = dp->sinks[t->sink].rules.dir;
    out->no_follow = dp->sinks[t->sink].rules.no_follow;
    output_switch(out, t->path);
}

/* Whether the text buffer h's bytes from `whole` start with the "\n" by
 * which the live sink, after giving up the rest of a line a short write
 * had cut, ends that line (file_sink.c, report_loss), and the file still
 * ends inside a line: that byte must go before recovery's notice, which
 * would otherwise be appended to the cut line, followed by an empty one. */
static int ends_a_given_up_line(output *out, const xlog_survival_file *h, uint64_t whole)
{
    const char *bytes = (const char *)(h + 1);
    if (whole != h->written || whole >= h->length || bytes[whole] != '\n')
        return 0;
    output_flush(out);
    struct stat st;
    return !out->error && out->fd >= 0 && fstat(out->fd, &st) == 0 && st.st_size > 0 &&
           !file_ends_with(out->fd, (const uint8_t *)"\n", 1);
}

/* Appends what the buffer h never wrote to its file: the rest of a line
 * (or block) a short write cut, the end of a line whose rest was given up,
 * the notice, the whole lines (blocks). */
static void write_buffer(dead_process *dp, xlog_survival_file *h, scratch *s, output *out)
{
    target *t = &dp->targets[target_of(dp, h->path, h->sink)];
    switch_to(dp, out, t);
    uint64_t start, end;
    if (!dp->sinks[h->sink].rules.binary) {
        uint64_t whole = first_whole_line(h);
        output_buffer_bytes(out, h, whole);
        if (ends_a_given_up_line(out, h, whole)) {
            output_buffer_bytes(out, h, whole + 1);
            t->lines--; /* counted as a line (find_targets), but it only ends one */
            dp->lines--;
        }
    } else if (cut_block(h, &start, &end)) {
        finish_cut_block(out, h, start, end);
    }
    /* The thread of the buffer's file (its pid outside per-thread mode),
     * at the time of its first record, or of the last calibration of the
     * process's clock (the lines here are older than its end). */
    xlog_line_event like;
    memset(&like, 0, sizeof like);
    like.pub.pid = dp->proc->pid;
    like.pub.tid = h->id;
    like.tid_text = s->tid;
    like.tid_text_length = xlog_tid_text(s->tid, h->id);
    notice(dp, t, t->first_time ? t->first_time : dp->clock.base_utc_ns, &like, s, out);
    output_buffer_bytes(out, h, h->length);
}

/* Renders and writes every record (all, in time order), each file's first
 * line preceded by its notice. */
static void write_records(dead_process *dp, const pending_record *all, size_t count, scratch *s,
                          output *out)
{
    for (size_t i = 0; i < count; i++) {
        if (all[i].target < 0)
            continue;
        xlog_ring *r = ring_at(dp, all[i].ring);
        const xlog_record *rec = (const xlog_record *)(r->buffer + (all[i].pos & r->mask));
        xlog_line_event ev;
        size_t n = render(dp, all[i].sink, r, rec, all[i].context_pos, s, &ev);
        target *t = &dp->targets[all[i].target];
        switch_to(dp, out, t);
        notice(dp, t, ev.pub.time_ns, &ev, s, out);
        output_line(dp, all[i].sink, out, s->line, n);
        /* Past the record once its last set has its line (its sets are
         * next to each other in all). */
        if (i + 1 == count || all[i + 1].ring != all[i].ring || all[i + 1].pos != all[i].pos)
            output_mark(out, &r->buffered, all[i].pos + rec->size);
        dp->lines++;
    }
}

/* Whether anything of the process could not be read. */
static int damaged(const dead_process *dp)
{
    if (dp->refused_count || dp->bad_sites)
        return 1;
    for (size_t i = 0; i < dp->ring_count; i++)
        if (dp->ring_bad_records[i] || dp->ring_bad_bytes[i])
            return 1;
    return 0;
}

/* One line saying what could not be read, in the file the process's lines
 * of thread tid (its pid outside per-thread mode) go to today. */
static void damage_notice(dead_process *dp, int tid, const char *text, size_t length, scratch *s,
                          output *out)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    int64_t time_ns = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec, start, end;
    const xlog_file_rules *rules = &dp->sinks[0].rules;
    int64_t day = xlog_name_period(time_ns, rules->local_time, rules->hourly, &start, &end);
    char path[PATH_MAX];
    xlog_file_path(rules, rules->mode == XLOG_FILE_PER_THREAD ? tid : dp->proc->pid, day, path,
                   sizeof path);
    xlog_line_event like, ev;
    memset(&like, 0, sizeof like);
    like.pub.pid = dp->proc->pid;
    like.pub.tid = tid;
    like.tid_text = s->tid;
    like.tid_text_length = xlog_tid_text(s->tid, tid);
    xlog_notice_event(&ev, time_ns, &like, text, length);
    out->dir = rules->dir;
    out->no_follow = rules->no_follow;
    output_switch(out, path);
    output_line(dp, 0, out, s->notice, line_of(dp, 0, &ev, s->notice));
}

/* After the lines it could write: what recovery skipped of the process, and
 * where its files are kept for a look (they are not removed). */
static void write_damage_notices(dead_process *dp, scratch *s, output *out)
{
    char text[PATH_MAX + 512];
    int pid = (int)dp->proc->pid, n;
    for (size_t i = 0; i < dp->ring_count; i++) {
        if (!dp->ring_bad_records[i] && !dp->ring_bad_bytes[i])
            continue;
        n = snprintf(text, sizeof text,
                     "recovery could not read %llu %s and %llu %s of thread %d of "
                     "process %d: they do not fit their ring or the call sites; its files are "
                     "kept in %s",
                     (unsigned long long)dp->ring_bad_records[i],
                     xlog_plural(dp->ring_bad_records[i], "record", "records"),
                     (unsigned long long)dp->ring_bad_bytes[i],
                     xlog_plural(dp->ring_bad_bytes[i], "byte", "bytes"), ring_at(dp, i)->tid, pid,
                     dp->kept);
        damage_notice(dp, ring_at(dp, i)->tid, text, (size_t)n < sizeof text ? (size_t)n : sizeof text - 1, s, out);
    }
    for (size_t i = 0; i < dp->refused_count; i++) {
        const damaged_file *f = &dp->refused[i];
        n = snprintf(text, sizeof text,
                     "recovery could not read %s (%llu %s) of process %d: %s; its files are "
                     "kept in %s",
                     f->name, (unsigned long long)f->bytes, xlog_plural(f->bytes, "byte", "bytes"),
                     pid, f->why, dp->kept);
        damage_notice(dp, pid, text, (size_t)n < sizeof text ? (size_t)n : sizeof text - 1, s, out);
    }
    if (dp->refused_more || dp->bad_sites) {
        n = snprintf(text, sizeof text,
                     "recovery could not read %llu more %s and %llu call %s of process "
                     "%d; its files are kept in %s",
                     (unsigned long long)dp->refused_more, xlog_plural(dp->refused_more, "file", "files"),
                     (unsigned long long)dp->bad_sites, xlog_plural(dp->bad_sites, "site", "sites"), pid,
                     dp->kept);
        damage_notice(dp, pid, text, (size_t)n < sizeof text ? (size_t)n : sizeof text - 1, s, out);
    }
}

/* Writes what the buffers never wrote, then every record, each file's
 * lines after their notice; the number of lines, or a negative errno (no
 * memory, or writing failed: what was written is marked as such). */
static long write_all(dead_process *dp)
{
    size_t count = 0;
    pending_record *all = collect(dp, &count);
    int rc = all ? find_targets(dp, all, count) : -ENOMEM;
    for (size_t i = 0; rc == 0 && i < dp->file_count; i++) {
        xlog_survival_file *h = dp->files[i].base;
        if (!has_unwritten(h))
            continue;
        int32_t t = target_of(dp, h->path, h->sink);
        if (t < 0) {
            rc = -ENOMEM;
            break;
        }
        /* A binary buffer's messages are not counted: only its blocks
         * could tell them, by reading every entry. */
        uint64_t whole = dp->sinks[h->sink].rules.binary ? h->length : first_whole_line(h);
        uint64_t lines = xlog_count_lines((const char *)(h + 1) + whole,
                                          (size_t)(h->length - whole));
        dp->targets[t].lines += lines;
        dp->lines += (long)lines;
    }
    size_t longest = longest_line(dp);
    scratch *s = calloc(1, sizeof *s);
    output *out = calloc(1, sizeof *out);
    if (out) {
        out->fd = -1;
        out->capacity = longest > 256 * 1024 ? longest : 256 * 1024;
        out->buffer = malloc(out->capacity);
    }
    if (s) {
        s->event.max_message = dp->proc->max_message;
        s->event.format = malloc(dp->longest_format + 1);
        s->event.message = malloc(dp->proc->max_message + 64);
        s->line = malloc(longest);
        s->notice = malloc(longest);
    }
    if (rc == 0 && (!s || !s->event.format || !s->event.message || !s->line || !s->notice ||
                    !out || !out->buffer))
        rc = -ENOMEM;
    if (rc == 0) {
        for (size_t i = 0; i < dp->file_count; i++)
            if (has_unwritten(dp->files[i].base))
                write_buffer(dp, dp->files[i].base, s, out);
        write_records(dp, all, count, s, out);
        write_damage_notices(dp, s, out);
        output_flush(out);
        rc = -out->error;
    }
    if (out && out->fd >= 0)
        close(out->fd);
    if (out)
        free(out->buffer);
    free(out);
    if (s) {
        free(s->event.format);
        free(s->event.message);
        free(s->line);
        free(s->notice);
    }
    free(s);
    free(all);
    return rc == 0 ? dp->lines : rc;
}

/* ---- one process ------------------------------------------------------------- */

static void unmap_all(dead_process *dp)
{
    for (size_t i = 0; i < dp->ring_count; i++)
        munmap(dp->rings[i].base, dp->rings[i].size);
    for (size_t i = 0; i < dp->file_count; i++)
        munmap(dp->files[i].base, dp->files[i].size);
    munmap((void *)dp->proc, dp->proc_size);
    free(dp->sites);
    free(dp->targets);
    for (size_t k = 0; k < dp->sink_count; k++)
        xlog_layout_destroy(dp->sinks[k].layout);
}

/* One set of files of the process, its layout made: 0, or -EINVAL. */
static int make_sink(dead_process *dp, const char *dir, const char *prefix, int32_t mode,
                     int32_t layout, const char *pattern, int32_t level, int32_t hourly,
                     const xlog_rules *filter)
{
    recovery_sink *k = &dp->sinks[dp->sink_count++];
    k->rules.dir = dir;
    k->rules.prefix = prefix;
    k->rules.hourly = hourly != 0;
    k->rules.mode = (xlog_file_mode)mode;
    k->rules.no_follow = !dp->proc->follow_symlinks;
    k->rules.local_time = dp->proc->local_time;
    k->rules.binary = layout == XLOG_LAYOUT_BINARY;
    k->level = level;
    k->filter = filter;
    return k->rules.binary ? 0
                           : xlog_layout_create(&k->layout, (xlog_layout_kind)layout,
                                                pattern[0] ? pattern : NULL, XLOG_DEFAULT_LINE,
                                                "recovery");
}

/* The main files, then the listed file sinks, as the process file says. */
static int make_sinks(dead_process *dp)
{
    const xlog_survival_process *p = dp->proc;
    int rc = make_sink(dp, p->log_dir, p->file_prefix, p->file_mode, p->file_layout,
                       p->file_pattern, p->file_level, p->hourly, NULL);
    const xlog_survival_sink *listed = xlog_survival_sinks(p);
    for (uint32_t i = 0; rc == 0 && i < p->sink_count; i++) {
        const xlog_survival_sink *d = &listed[i];
        rc = make_sink(dp, d->dir, d->prefix, d->mode, d->layout, d->pattern, d->level,
                       d->hourly, d->has_filter ? &d->filter : NULL);
    }
    return rc;
}

/* Recovers the process whose directory is open as dir; the number of lines.
 * *is_damaged is set when some of it could not be read: its files are then
 * to be kept, as `kept` (named in the notices). */
static long recover_process(int dir, const char *log_dir, const char *kept, int *is_damaged)
{
    dead_process *dp = calloc(1, sizeof *dp);
    if (!dp)
        return -ENOMEM;
    dp->proc = map_file(dir, "process", &dp->proc_size);
    const xlog_survival_process *proc = dp->proc;
    if (!proc || dp->proc_size < sizeof *proc ||
        memcmp(proc->magic, XLOG_SURVIVAL_MAGIC, sizeof proc->magic) != 0 ||
        strcmp(proc->log_dir, log_dir) != 0) {
        if (proc)
            munmap((void *)proc, dp->proc_size);
        free(dp);
        return 0; /* died before it wrote its header, or not ours: nothing to recover */
    }
    if (!process_header_usable(proc, dp->proc_size)) {
        /* Nothing says how its lines were written, nor where a notice
         * would go: its files are kept as they are. */
        *is_damaged = 1;
        munmap((void *)proc, dp->proc_size);
        free(dp);
        return 0;
    }
    dp->kept = kept;
    const xlog_survival_clock *c = &proc->clock[proc->clock_slot & 1];
    dp->clock.base_ticks = c->base_ticks;
    dp->clock.base_utc_ns = c->base_utc_ns;
    dp->clock.ns_per_tick = c->ns_per_tick > 0 ? c->ns_per_tick : 1.0;
    dp->writer = xlog_binary_writer_id(proc->pid, (int64_t)proc->start_time);
    dp->longest_format = proc->max_message;
    if (proc->routing)
        dp->program = &proc->rules[proc->rules_slot & 1];
    if (index_sites(dp) != 0 || make_sinks(dp) != 0) {
        unmap_all(dp);
        free(dp);
        return -EINVAL;
    }
    DIR *d = fdopendir(dup(dir));
    if (d)
        rewinddir(d); /* the duplicate shares its position with dir */
    struct dirent *e;
    while (d && (e = readdir(d))) {
        unsigned slot;
        char kind[8];
        if (sscanf(e->d_name, "%7[a-z].%u", kind, &slot) != 2)
            continue;
        int is_ring = strcmp(kind, "ring") == 0, is_file = strcmp(kind, "file") == 0;
        mapped *into = is_ring && dp->ring_count < 4096 ? &dp->rings[dp->ring_count]
                       : is_file && dp->file_count < 4096 ? &dp->files[dp->file_count]
                                                          : NULL;
        if (!into || !(into->base = map_file(dir, e->d_name, &into->size)))
            continue;
        into->slot = slot;
        const char *problem =
            is_ring ? ring_problem(into) : file_buffer_problem(into, dp);
        if (never_used(into, is_ring)) {
            munmap(into->base, into->size);
            continue;
        }
        if (problem) {
            refuse_file(dp, e->d_name, into->size, problem);
            munmap(into->base, into->size);
            continue;
        }
        if (is_ring) {
            /* Its buffer follows its header page; the pointer in the header
             * was the dead process's, so it is made valid for this mapping. */
            xlog_ring *r = into->base;
            r->buffer = (char *)r + (into->size - r->capacity);
            dp->ring_count++;
        } else {
            dp->file_count++;
        }
    }
    if (d)
        closedir(d);
    for (size_t i = 0; i < dp->file_count; i++)
        settle_buffer(dp, dp->files[i].base);
    long lines = write_all(dp);
    *is_damaged = damaged(dp);
    unmap_all(dp);
    free(dp);
    return lines;
}

/* Removes every file of the open directory dir (named path), then it. */
static void remove_process_dir(int dir, const char *path)
{
    DIR *d = fdopendir(dup(dir));
    if (d)
        rewinddir(d); /* the duplicate shares its position with dir */
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.')
            unlinkat(dir, e->d_name, 0);
    if (d)
        closedir(d);
    rmdir(path);
}

/* A process directory recovery could not read whole is kept as
 * <key>/damaged.<its name>, for a look: recovery and xlog_open leave it
 * alone, and xlog-recover --list names it. */
static void keep_damaged(int dir, const char *path, const char *kept)
{
    /* What was recovered is marked as such in its files; the rest would
     * only be skipped again.  The name says what it is: its "process"
     * file stays (xlog-recover --list reads it), unlocked, so recovery and
     * the watch on dead processes (dead.c) skip the name. */
    if (rename(path, kept) != 0)
        remove_process_dir(dir, path);
}

long xlog_survival_recover(const char *log_dir, const char *persistent_dir)
{
    char persistent[PATH_MAX], key[PATH_MAX + 32];
    if (persistent_dir && *persistent_dir)
        snprintf(persistent, sizeof persistent, "%s", persistent_dir);
    else
        xlog_survival_default_dir(persistent, sizeof persistent);
    xlog_survival_key_dir(key, sizeof key, persistent, log_dir);
    /* Recovery writes where the files in there say: only this user may
     * have put them there (/dev/shm is open to all, and a directory of
     * that name could be anybody's). */
    int rc = xlog_survival_is_private(persistent);
    if (rc == 0)
        rc = xlog_survival_is_private(key);
    if (rc == -ENOENT && xlog_survival_is_private(persistent) == 0)
        rmdir(persistent); /* left empty by a process killed before it made its key */
    if (rc != 0)
        return rc == -ENOENT ? 0 : rc;
    DIR *d = opendir(key);
    if (!d)
        return errno == ENOENT ? 0 : -errno;
    long total = 0;
    int error = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || strncmp(e->d_name, XLOG_SURVIVAL_DAMAGED_PREFIX, strlen(XLOG_SURVIVAL_DAMAGED_PREFIX)) == 0)
            continue;
        char path[PATH_MAX + 64], kept[PATH_MAX + 320];
        if (snprintf(path, sizeof path, "%s/%s", key, e->d_name) >= (int)sizeof path)
            continue; /* not a name of ours */
        snprintf(kept, sizeof kept, "%s/" XLOG_SURVIVAL_DAMAGED_PREFIX "%s", key, e->d_name);
        int dir = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dir < 0)
            continue;
        int lock = openat(dir, "process", O_RDWR | O_NOFOLLOW | O_CLOEXEC);
        struct stat st;
        int pid;
        unsigned long long start;
        if (lock < 0 && errno == ENOENT &&
            ((sscanf(e->d_name, "%d.%llu", &pid, &start) == 2 &&
              xlog_survival_start_time(pid) != start) ||
             (fstat(dir, &st) == 0 && time(NULL) - st.st_mtime > 60))) {
            /* A process that died while making its directory (its name is
             * its pid and start time), or one we cannot tell, long ago. */
            remove_process_dir(dir, path);
        }
        /* Taken only if the owner is gone; held while its lines are written,
         * so that two processes never recover the same one. */
        if (lock >= 0 && flock(lock, LOCK_EX | LOCK_NB) == 0 && !(fstat(lock, &st) == 0 && st.st_nlink == 0)) {
            /* (A lock file no longer linked: another recovery wrote that
             * process and removed its files between our open and our lock.) */
            int is_damaged = 0;
            long lines = recover_process(dir, log_dir, kept, &is_damaged);
            if (lines >= 0 && is_damaged) {
                total += lines;
                keep_damaged(dir, path, kept);
            } else if (lines >= 0) {
                total += lines;
                remove_process_dir(dir, path);
            } else if (!error) {
                error = (int)-lines; /* the rest is kept for a later recovery */
            }
        }
        if (lock >= 0)
            close(lock);
        close(dir);
    }
    closedir(d);
    /* Left empty: they go (xlog_survival_start makes them again). */
    if (rmdir(key) == 0)
        rmdir(persistent);
    return error ? -error : total;
}
