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
 *      happened by looking for its bytes in the file, and append what was
 *      never written;
 *   3. each ring: render every record past its buffered position, as the
 *      back end would have (backend/message.c, the process's own layout),
 *      all rings merged by time;
 *   4. write them into the files the process would have used, after a
 *      notice saying whose lines they are;
 *   5. remove the directory.
 * Recovered lines are appended to the day's file of each line, without
 * size rotation or compression.
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

#include "backend/event.h"
#include "backend/message.h"
#include "common/date.h"
#include "common/internal.h"
#include "common/ring.h"
#include "layouts/fields.h"
#include "layouts/layout.h"
#include "sinks/file.h"
#include "sinks/rotation.h"
#include "survival/survival.h"

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
    uint64_t pos;
} pending_record;

/* Where recovered lines go: one open file at a time, with a buffer. */
typedef struct output {
    char path[PATH_MAX];
    int fd;
    char *buffer;
    size_t length, capacity;
    int no_follow;
} output;

typedef struct dead_process {
    const xlog_survival_process *proc;
    size_t proc_size;
    xlog_clock clock;
    xlog_file_rules rules;
    xlog_layout *layout;
    mapped rings[4096];
    size_t ring_count;
    mapped files[4096];
    size_t file_count;
    /* The dictionary, sorted by site address. */
    const xlog_survival_site **sites;
    size_t site_count;
    long lines;
} dead_process;

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

static int by_address(const void *a, const void *b)
{
    uint64_t x = (*(const xlog_survival_site *const *)a)->site;
    uint64_t y = (*(const xlog_survival_site *const *)b)->site;
    return x < y ? -1 : x > y;
}

/* Indexes the ready entries of the dictionary. */
static int index_sites(dead_process *dp)
{
    const char *start = (const char *)dp->proc + dp->proc->header_size;
    const char *end = (const char *)dp->proc + dp->proc_size;
    uint64_t used = dp->proc->dictionary_used;
    if (used < (uint64_t)(end - start))
        end = start + used;
    size_t capacity = 0;
    for (const char *p = start; p + sizeof(xlog_survival_site) <= end;) {
        const xlog_survival_site *e = (const xlog_survival_site *)p;
        if (e->size < sizeof *e || e->size % 8 || e->size > (size_t)(end - p))
            break;
        if (e->ready) {
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

static void output_flush(output *out)
{
    for (size_t done = 0; done < out->length;) {
        ssize_t n = out->fd >= 0 ? write(out->fd, out->buffer + done, out->length - done) : -1;
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break; /* nothing more to do for a file that cannot be written */
        done += (size_t)n;
    }
    out->length = 0;
}

static void output_switch(output *out, const char *path)
{
    if (out->fd >= 0 && strcmp(out->path, path) == 0)
        return;
    output_flush(out);
    if (out->fd >= 0)
        close(out->fd);
    snprintf(out->path, sizeof out->path, "%s", path);
    int flags = O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (out->no_follow ? O_NOFOLLOW : 0);
    out->fd = open(path, flags, 0640);
}

static void output_append(output *out, const char *bytes, size_t n)
{
    if (out->capacity - out->length < n)
        output_flush(out);
    if (n > out->capacity) {
        out->length = 0;
        if (out->fd >= 0 && write(out->fd, bytes, n) < 0) {
            /* a file that cannot take it: the line is not recovered */
        }
        return;
    }
    memcpy(out->buffer + out->length, bytes, n);
    out->length += n;
}

/* ---- file buffers ---------------------------------------------------------- */

/* Whether the bytes were appended to the file (dev, ino), which had size
 * bytes before: recovery's answer to a write(2) the process may have made
 * just before it died. */
static int bytes_in_file(const xlog_survival_file *h, const char *bytes, size_t n)
{
    int fd = open(h->chunk_path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    int found = 0;
    if (fd >= 0 && fstat(fd, &st) == 0 && (uint64_t)st.st_dev == h->chunk_dev &&
        (uint64_t)st.st_ino == h->chunk_ino && (uint64_t)st.st_size >= h->chunk_size + n) {
        /* Other processes may have appended around it: look from the size
         * it had, over what was added since. */
        size_t span = (size_t)((uint64_t)st.st_size - h->chunk_size);
        char *added = malloc(span);
        if (added && pread(fd, added, span, (off_t)h->chunk_size) == (ssize_t)span)
            found = memmem(added, span, bytes, n) != NULL;
        free(added);
    }
    if (fd >= 0)
        close(fd);
    return found;
}

static void settle_buffer(dead_process *dp, xlog_survival_file *h, output *out)
{
    const char *bytes = (const char *)(h + 1);
    uint64_t length = h->length, written = h->written;
    if (length > h->capacity || written > length)
        return; /* emptied, or not a buffer of ours */
    if (h->chunk && written + h->chunk <= length &&
        bytes_in_file(h, bytes + written, (size_t)h->chunk))
        written += h->chunk;
    /* A line appended whose ring had not yet moved past its record. */
    if (h->last_length && h->last_length == length) {
        for (size_t i = 0; i < dp->ring_count; i++) {
            xlog_ring *r = ring_at(dp, i);
            if (dp->rings[i].slot == h->last_ring && r->buffered < h->last_record_end)
                r->buffered = h->last_record_end;
        }
    }
    if (written < length && h->path[0]) {
        output_switch(out, h->path);
        output_append(out, bytes + written, (size_t)(length - written));
        for (const char *p = bytes + written; (p = memchr(p, '\n', (size_t)(bytes + length - p)));
             p++)
            dp->lines++;
    }
}

/* ---- rings ------------------------------------------------------------------ */

static int by_time(const void *a, const void *b)
{
    const pending_record *x = a, *y = b;
    if (x->tsc != y->tsc)
        return x->tsc < y->tsc ? -1 : 1;
    if (x->ring != y->ring)
        return x->ring < y->ring ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* Every record of every ring past its buffered position that makes a line,
 * in time order. */
static pending_record *collect(const dead_process *dp, size_t *count)
{
    size_t capacity = 1024;
    pending_record *all = malloc(capacity * sizeof *all);
    *count = 0;
    for (size_t i = 0; all && i < dp->ring_count; i++) {
        xlog_ring *r = ring_at(dp, i);
        uint64_t end = r->head & ~(uint64_t)1;
        if (r->capacity == 0 || (r->capacity & r->mask) || end - r->buffered > r->capacity)
            continue; /* not a ring we can read */
        for (uint64_t pos = r->buffered; pos < end;) {
            const xlog_record *rec = (const xlog_record *)(r->buffer + (pos & r->mask));
            if (rec->size < 8 || rec->size % 8 || (pos & r->mask) + rec->size > r->capacity)
                break;
            if ((rec->type == XLOG_REC_SITE || rec->type == XLOG_REC_DYNAMIC) &&
                rec->level <= XLOG_FATAL && !(rec->flags & XLOG_REC_KEEP)) {
                if (*count == capacity) {
                    capacity *= 2;
                    pending_record *more = realloc(all, capacity * sizeof *more);
                    if (!more)
                        break;
                    all = more;
                }
                all[(*count)++] = (pending_record){rec->tsc, (uint32_t)i, pos};
            }
            pos += rec->size;
        }
    }
    if (all)
        qsort(all, *count, sizeof *all, by_time);
    return all;
}

/* Room for rendering one record: its names and format as an event carries
 * them, its message, its line. */
typedef struct scratch {
    char file[XLOG_MAX_NAME + 1];
    char function[XLOG_MAX_NAME + 1];
    char module[XLOG_MAX_NAME + 1];
    char where[XLOG_WHERE_TEXT_MAX];
    char tid[XLOG_TID_TEXT_MAX];
    char *format;  /* max_message + 1: a record's format is never longer */
    char *message; /* max_message + 64 */
    char *line;    /* the layout's longest line */
    xlog_arg args[64];
} scratch;

static size_t copy_name(char *to, const char *name, size_t length)
{
    if (length > XLOG_MAX_NAME)
        length = XLOG_MAX_NAME;
    memcpy(to, name, length);
    to[length] = '\0';
    return length;
}

/* The event of one record, its line rendered into s->line; the line's
 * length, or 0 when it cannot be rendered (a site the dictionary lacks). */
static size_t render(const dead_process *dp, const xlog_ring *r, const xlog_record *rec,
                     scratch *s, xlog_line_event *ev)
{
    const xlog_survival_site *site =
        rec->site ? find_site(dp, (uint64_t)(uintptr_t)rec->site) : NULL;
    if (rec->site && (!site || (rec->type == XLOG_REC_SITE && !site->format_length)))
        return 0;
    const char *text = site ? (const char *)(site + 1) : NULL;
    xlog_record_view view;
    xlog_record_view_of(rec,
                        site ? text + site->file_length + site->function_length +
                                   site->module_length
                             : NULL,
                        site ? site->format_length : 0, site ? site->kinds : NULL, &view);
    size_t max_message = dp->proc->max_message;
    if (view.format_length > max_message)
        return 0;
    memset(ev, 0, sizeof *ev);
    ev->file_length = site ? copy_name(s->file, text, site->file_length)
                           : copy_name(s->file, view.file, view.file_length);
    ev->function_length = site ? copy_name(s->function, text + site->file_length,
                                           site->function_length)
                               : copy_name(s->function, view.function, view.function_length);
    ev->module_length =
        site ? copy_name(s->module, text + site->file_length + site->function_length,
                         site->module_length)
             : copy_name(s->module, "", 0);
    memcpy(s->format, view.format, view.format_length);
    s->format[view.format_length] = '\0';
    ev->pub.time_ns = xlog_clock_utc(&dp->clock, rec->tsc);
    ev->pub.level = rec->level;
    ev->pub.pid = dp->proc->pid;
    ev->pub.tid = r->tid;
    ev->pub.file = s->file;
    ev->pub.function = s->function;
    ev->pub.module = s->module;
    ev->pub.line = site ? site->line : view.line;
    ev->pub.format = s->format;
    ev->where = s->where;
    ev->where_length = xlog_where_text(s->where, s->file, ev->file_length, ev->pub.line,
                                       s->function, ev->function_length);
    ev->tid_text = s->tid;
    ev->tid_text_length = xlog_tid_text(s->tid, r->tid);
    int truncated;
    ev->pub.message_length =
        xlog_message_render(s->message, max_message, rec, &view, s->args, &truncated);
    ev->pub.message = s->message;
    return xlog_layout_write(dp->layout, ev, s->line);
}

/* The file a line at utc of thread tid goes to. */
static void path_for(const dead_process *dp, int tid, int64_t utc, char *path, size_t size)
{
    int64_t start, end;
    int64_t day = xlog_name_day(utc, dp->rules.local_time, &start, &end);
    int id = dp->rules.mode == XLOG_FILE_PER_THREAD ? tid : dp->proc->pid;
    xlog_file_path(&dp->rules, id, day, path, size);
}

/* Renders and writes every record, each file's first preceded by a notice
 * of how many lines it gets. */
static void write_records(dead_process *dp, output *out)
{
    size_t count;
    pending_record *all = collect(dp, &count);
    size_t max_message = dp->proc->max_message;
    size_t longest = xlog_layout_max_line(dp->layout, max_message + XLOG_TRUNCATED_MARK_LENGTH);
    scratch *s = calloc(1, sizeof *s);
    char *notice_line = malloc(longest);
    char (*paths)[PATH_MAX] = calloc(count ? count : 1, PATH_MAX);
    if (s) {
        s->format = malloc(max_message + 1);
        s->message = malloc(max_message + 64);
        s->line = malloc(longest);
    }
    if (!all || !s || !s->format || !s->message || !s->line || !notice_line || !paths)
        goto out;
    /* First the paths, so that each file's notice can give its count. */
    for (size_t i = 0; i < count; i++) {
        const xlog_ring *r = ring_at(dp, all[i].ring);
        path_for(dp, r->tid, xlog_clock_utc(&dp->clock, all[i].tsc), paths[i], PATH_MAX);
    }
    for (size_t i = 0; i < count; i++) {
        xlog_ring *r = ring_at(dp, all[i].ring);
        const xlog_record *rec = (const xlog_record *)(r->buffer + (all[i].pos & r->mask));
        xlog_line_event ev;
        size_t n = render(dp, r, rec, s, &ev);
        if (!n)
            continue;
        int first = 1;
        for (size_t j = 0; j < i && first; j++)
            first = strcmp(paths[j], paths[i]) != 0;
        output_switch(out, paths[i]);
        if (first) {
            size_t lines = 0;
            for (size_t j = i; j < count; j++)
                lines += strcmp(paths[j], paths[i]) == 0;
            char text[256];
            int length = snprintf(text, sizeof text,
                                  "%zu lines of process %d follow, recovered by process %d: it "
                                  "ended without xlog_close",
                                  lines, (int)dp->proc->pid, (int)getpid());
            xlog_line_event notice;
            xlog_notice_event(&notice, ev.pub.time_ns, &ev, text, (size_t)length);
            output_append(out, notice_line, xlog_layout_write(dp->layout, &notice, notice_line));
        }
        output_append(out, s->line, n);
        dp->lines++;
    }
out:
    free(paths);
    free(notice_line);
    if (s) {
        free(s->format);
        free(s->message);
        free(s->line);
    }
    free(s);
    free(all);
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
    if (dp->layout)
        xlog_layout_destroy(dp->layout);
}

/* Recovers the process whose directory is open as dir; the number of lines. */
static long recover_process(int dir, const char *log_dir)
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
    const xlog_survival_clock *c = &proc->clock[proc->clock_slot & 1];
    dp->clock.base_ticks = c->base_ticks;
    dp->clock.base_utc_ns = c->base_utc_ns;
    dp->clock.ns_per_tick = c->ns_per_tick > 0 ? c->ns_per_tick : 1.0;
    dp->rules.dir = proc->log_dir;
    dp->rules.mode = (xlog_file_mode)proc->file_mode;
    dp->rules.no_follow = !proc->follow_symlinks;
    dp->rules.local_time = proc->local_time;
    if (index_sites(dp) != 0 ||
        xlog_layout_create(&dp->layout, (xlog_layout_kind)proc->file_layout,
                           proc->file_pattern[0] ? proc->file_pattern : NULL, XLOG_DEFAULT_LINE,
                           "recovery") != 0) {
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
        if (is_ring) {
            /* Its buffer follows its header page; the pointer in the header
             * was the dead process's, so it is made valid for this mapping. */
            xlog_ring *r = into->base;
            if (r->capacity == 0 || (r->capacity & (r->capacity - 1)) ||
                into->size <= r->capacity || r->mask != r->capacity - 1) {
                munmap(into->base, into->size);
                continue;
            }
            r->buffer = (char *)r + (into->size - r->capacity);
            dp->ring_count++;
        } else {
            dp->file_count++;
        }
    }
    if (d)
        closedir(d);
    output out = {.fd = -1, .capacity = 256 * 1024, .no_follow = dp->rules.no_follow};
    out.buffer = malloc(out.capacity);
    if (out.buffer) {
        for (size_t i = 0; i < dp->file_count; i++)
            settle_buffer(dp, dp->files[i].base, &out);
        output_flush(&out);
        write_records(dp, &out);
        output_flush(&out);
    }
    if (out.fd >= 0)
        close(out.fd);
    free(out.buffer);
    long lines = dp->lines;
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

long xlog_survival_recover(const char *log_dir, const char *persistent_dir)
{
    char persistent[PATH_MAX], key[PATH_MAX + 32];
    if (persistent_dir && *persistent_dir)
        snprintf(persistent, sizeof persistent, "%s", persistent_dir);
    else
        xlog_survival_default_dir(persistent, sizeof persistent);
    xlog_survival_key_dir(key, sizeof key, persistent, log_dir);
    DIR *d = opendir(key);
    if (!d)
        return errno == ENOENT ? 0 : -errno;
    long total = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[PATH_MAX + 64];
        if (snprintf(path, sizeof path, "%s/%s", key, e->d_name) >= (int)sizeof path)
            continue; /* not a name of ours */
        int dir = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dir < 0)
            continue;
        int lock = openat(dir, "process", O_RDWR | O_NOFOLLOW | O_CLOEXEC);
        struct stat st;
        if (lock < 0 && errno == ENOENT && fstat(dir, &st) == 0 &&
            time(NULL) - st.st_mtime > 60) {
            /* A process that died while making its directory, long ago. */
            remove_process_dir(dir, path);
        }
        /* Taken only if the owner is gone; held while its lines are written,
         * so that two processes never recover the same one. */
        if (lock >= 0 && flock(lock, LOCK_EX | LOCK_NB) == 0) {
            long lines = recover_process(dir, log_dir);
            if (lines >= 0) {
                total += lines;
                remove_process_dir(dir, path);
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
    return total;
}
