/*
 * fuzz_recover.c - libFuzzer target for recovery (lib/recovery/recover.c)
 * reading what a dead process left.
 *
 * Random bytes in those files found nothing in 400 runs (a length field is
 * rarely hit, and most damage stops the walk early), while single edits of
 * one field crashed recovery every time.  So the input here is a list of
 * edits of the fields of real leftovers:
 *
 *   at start, a child process logs lines of every argument kind (numbers, a
 *   string, a string with a precision, a double, a pointer, %m) from several
 *   call sites, and is killed with kill -9 once its back end has read them;
 *   its directory is kept in memory, its rings rewound so that recovery
 *   renders their records (the file buffer keeps its lines as well);
 *
 *   each input is a list of 12-byte edits: what (a record, a call site, the
 *   process header, a ring's header, a file buffer's header, a file's size,
 *   raw bytes), which one, which field, and a value (or, with the field's
 *   high bit, a hostile value: 0, all ones, 255, the size of what holds
 *   it, just past it, ...).  The edited directory is written, xlog_recover
 *   runs on it, and then both directories are emptied for the next input.
 *
 * The checks are those of ASan and UBSan: recovery must never read or write
 * outside what it mapped or allocated, whatever the fields say.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <xlog.h>

#include "record/record.h"
#include "rings/ring.h"
#include "shm/shm.h"

#define MAX_FILES 16

/* One file of the killed process's directory, as it was left. */
typedef struct left_file {
    char name[32];
    char *bytes;
    size_t size;
} left_file;

static char base[PATH_MAX], logs[PATH_MAX + 16], shm[PATH_MAX + 16], key[PATH_MAX + 64];
static char process_name[64];
static left_file seed[MAX_FILES];
static size_t seed_count;
static left_file work[MAX_FILES];

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

/* Empties dir, keeping it. */
static void empty_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char path[PATH_MAX * 2];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    }
    if (d)
        closedir(d);
}

/* The lines of the child: several sites, every kind of argument. */
static void child_logs(void)
{
    for (int i = 0; i < 40; i++) {
        errno = i % 5;
        switch (i % 6) {
        case 0: xlog_info("plain %d %u %ld", i, (unsigned)i * 3, (long)i * 7); break;
        case 1: xlog_warn("string %s and %d", "abc", i); break;
        case 2: xlog_info("cut %.*s|%5s", i % 4, "precision", "w"); break;
        case 3: xlog_error("double %.3f %g %p", i / 3.0, i * 1e10, (void *)&seed); break;
        case 4: xlog_info("errno %m %zu %lld", (size_t)i, (long long)-i); break;
        default: xlog_info("wide %ls %c", L"w\u00e9", 'a' + i % 26); break;
        }
    }
}

/* Whether every ring of the process directory dir has been read by its
 * back end into the file buffer. */
static int all_read(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int all = 1;
    while (d && (e = readdir(d))) {
        if (strncmp(e->d_name, "ring.", 5) != 0)
            continue;
        char path[PATH_MAX * 2];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        xlog_ring r;
        int fd = open(path, O_RDONLY);
        if (fd >= 0 && pread(fd, &r, sizeof r, 0) == (ssize_t)sizeof r)
            all &= r.buffered == (r.head & ~(uint64_t)1);
        if (fd >= 0)
            close(fd);
    }
    if (d)
        closedir(d);
    return all;
}

/* Makes the seed: a real process's leftovers, its rings rewound. */
/* Memory for a file's bytes, aligned as a ring's header is (64 bytes):
 * the ring and its records are read in place, as the library reads them. */
static char *room_for(size_t size)
{
    return aligned_alloc(64, size ? (size + 63) & ~(size_t)63 : 64);
}

static void make_seed(void)
{
    int ready[2];
    if (pipe(ready) != 0)
        abort();
    pid_t child = fork();
    if (child == 0) {
        xlog_config cfg = xlog_defaults();
        cfg.dir = logs;
        cfg.persistent_dir = shm;
        cfg.use_environment = 0;
        cfg.ring_size = 65536;
        cfg.write_buffer = 65536;
        cfg.max_message = 1024;
        cfg.flush_interval_ms = 600000;
        if (xlog_open(&cfg) != 0)
            _exit(1);
        child_logs();
        if (write(ready[1], "x", 1) != 1)
            _exit(1);
        for (;;)
            pause();
    }
    char c;
    if (read(ready[0], &c, 1) != 1)
        abort();
    close(ready[0]);
    close(ready[1]);
    xlog_survival_key_dir(key, sizeof key, shm, logs);
    snprintf(process_name, sizeof process_name, "%d.", (int)child);
    DIR *d = opendir(key);
    struct dirent *e;
    char dir[PATH_MAX * 2] = "";
    while (d && (e = readdir(d)))
        if (strncmp(e->d_name, process_name, strlen(process_name)) == 0) {
            snprintf(process_name, sizeof process_name, "%s", e->d_name);
            snprintf(dir, sizeof dir, "%s/%s", key, e->d_name);
        }
    if (d)
        closedir(d);
    if (!dir[0])
        abort();
    while (!all_read(dir))
        usleep(1000);
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    d = opendir(dir);
    while (d && (e = readdir(d)) && seed_count < MAX_FILES) {
        if (e->d_name[0] == '.')
            continue;
        char path[PATH_MAX * 3];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        int fd = open(path, O_RDONLY);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) != 0)
            abort();
        left_file *f = &seed[seed_count++];
        snprintf(f->name, sizeof f->name, "%s", e->d_name);
        f->size = (size_t)st.st_size;
        f->bytes = room_for(f->size);
        if (!f->bytes || pread(fd, f->bytes, f->size, 0) != (ssize_t)f->size)
            abort();
        close(fd);
        if (strncmp(f->name, "ring.", 5) == 0) {
            xlog_ring *r = (xlog_ring *)f->bytes;
            if (r->capacity)
                r->buffered = 0; /* its records are rendered again */
        }
    }
    if (d)
        closedir(d);
    empty_dir(shm);
    empty_dir(logs);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *tmp = getenv("TMPDIR");
    snprintf(base, sizeof base, "%s/xlog-fuzz-recover-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(base))
        abort();
    snprintf(logs, sizeof logs, "%s/logs", base);
    snprintf(shm, sizeof shm, "%s/shm", base);
    if (mkdir(logs, 0700) != 0 || mkdir(shm, 0700) != 0)
        abort();
    make_seed();
    return 0;
}

/* ---- edits ------------------------------------------------------------------ */

enum { EDIT_RECORD, EDIT_SITE, EDIT_PROCESS, EDIT_RING, EDIT_FILE_BUFFER, EDIT_SIZE, EDIT_BYTES,
       EDIT_KINDS };

static left_file *file_named(const char *prefix, unsigned which)
{
    unsigned seen = 0;
    left_file *last = NULL;
    for (size_t i = 0; i < seed_count; i++)
        if (strncmp(work[i].name, prefix, strlen(prefix)) == 0) {
            last = &work[i];
            if (seen++ == which)
                return last;
        }
    return last; /* fewer than which: the last one */
}

/* A value for a field of width bytes in something of `room` bytes. */
static uint64_t hostile(uint64_t raw, int pick, uint64_t room)
{
    const uint64_t values[] = {0, UINT64_MAX, 255, room, room + 8, room - 8, 1, raw & 0xffffffff};
    return pick ? values[raw % (sizeof values / sizeof values[0])] : raw;
}

/* The header of the which-th file named prefix* (the last if fewer), or
 * NULL if there is none or it is shorter than a header; a value for one
 * of its fields in *v. */
static void *file_header(const char *prefix, unsigned which, size_t header, uint64_t raw,
                         int pick, uint64_t *v)
{
    left_file *f = file_named(prefix, which);
    if (!f || f->size < header)
        return NULL;
    *v = hostile(raw, pick, f->size);
    return f->bytes;
}

static void store(void *field, size_t width, size_t room_left, uint64_t value)
{
    if (width > room_left)
        return;
    memcpy(field, &value, width); /* little-endian: the low bytes */
}

/* The n-th record of the first ring with records. */
static xlog_record *nth_record(left_file *ring, unsigned n, size_t *room)
{
    xlog_ring *r = (xlog_ring *)ring->bytes;
    if (ring->size < sizeof *r || !r->capacity || r->capacity % 8 || r->capacity >= ring->size)
        return NULL; /* an earlier edit broke the ring: recovery refuses it, nothing to walk */
    char *buffer = ring->bytes + (ring->size - r->capacity);
    uint64_t end = r->head & ~(uint64_t)1, pos = 0;
    for (unsigned i = 0; pos < end && pos < r->capacity; i++) {
        xlog_record *rec = (xlog_record *)(buffer + pos);
        if (rec->size < 8 || rec->size % 8 || pos + rec->size > r->capacity)
            return NULL;
        if (i == n) {
            *room = r->capacity - pos;
            return rec;
        }
        pos += rec->size;
    }
    return NULL;
}

/* The n-th entry of the dictionary. */
static xlog_survival_site *nth_site(left_file *proc, unsigned n, size_t *room)
{
    xlog_survival_process *p = (xlog_survival_process *)proc->bytes;
    if (proc->size < sizeof *p || p->header_size > proc->size || p->header_size % 8)
        return NULL; /* an earlier edit moved the dictionary: recovery refuses it */
    size_t at = p->header_size, end = p->header_size + p->dictionary_used;
    if (end > proc->size)
        end = proc->size;
    for (unsigned i = 0; at + sizeof(xlog_survival_site) <= end; i++) {
        xlog_survival_site *e = (xlog_survival_site *)(proc->bytes + at);
        if (i == n) {
            *room = e->size;
            return e;
        }
        if (e->size < sizeof *e || e->size % 8)
            return NULL;
        at += e->size;
    }
    return NULL;
}

static void apply(const uint8_t *edit)
{
    unsigned what = edit[0] % 8, which = edit[1], field = edit[2] & 0x7f;
    int pick = edit[2] & 0x80;
    uint64_t raw;
    memcpy(&raw, edit + 4, 8);
    size_t room = 0;
    switch (what) {
    case EDIT_RECORD: {
        xlog_record *rec = nth_record(file_named("ring.", 0), which, &room);
        if (!rec)
            return;
        uint64_t v = hostile(raw, pick, rec->size);
        switch (field % 6) {
        case 0: store(&rec->size, 4, room, v); break;
        case 1: store(&rec->type, 1, room, v); break;
        case 2: store(&rec->nargs, 1, room, v); break;
        case 3: store(&rec->flags, 1, room, v); break;
        case 4: store(&rec->level, 1, room, v); break;
        default: /* a byte of its body: a string's length, a dynamic part's */
            if (rec->size > sizeof *rec)
                store((char *)rec + sizeof *rec + (raw >> 32) % (rec->size - sizeof *rec), 4,
                      rec->size - sizeof *rec - (raw >> 32) % (rec->size - sizeof *rec),
                      hostile(raw & 0xffffffff, pick, rec->size));
            break;
        }
        return;
    }
    case EDIT_SITE:
    case EDIT_KINDS: {
        xlog_survival_site *e = nth_site(file_named("process", 0), which, &room);
        if (!e)
            return;
        uint64_t v = hostile(raw, pick, e->size);
        if (what == EDIT_KINDS) {
            e->kinds[field % XLOG_MAX_ARGS] = (uint8_t)v;
            return;
        }
        switch (field % 8) {
        case 0: e->size = (uint32_t)v; break;
        case 1: e->file_length = (uint32_t)v; break;
        case 2: e->function_length = (uint32_t)v; break;
        case 3: e->module_length = (uint32_t)v; break;
        case 4: e->format_length = (uint32_t)v; break;
        case 5: e->nargs = (uint8_t)v; break;
        case 6: e->site = v; break;
        default: e->ready = (uint32_t)v; break;
        }
        return;
    }
    case EDIT_PROCESS: {
        uint64_t v;
        xlog_survival_process *p = file_header("process", 0, sizeof *p, raw, pick, &v);
        if (!p)
            return;
        switch (field % 9) {
        case 0: p->header_size = (uint32_t)v; break;
        case 1: p->dictionary_used = v; break;
        case 2: p->max_message = v; break;
        case 3: p->file_mode = (int32_t)v; break;
        case 4: p->file_layout = (int32_t)v; break;
        case 5: p->clock_slot = (uint32_t)v; break;
        case 6: memcpy(&p->clock[0].ns_per_tick, &v, 8); break;
        case 7: p->file_level = (int32_t)v; break;
        default: memset(p->file_pattern, 'x', sizeof p->file_pattern); break;
        }
        return;
    }
    case EDIT_RING: {
        uint64_t v;
        xlog_ring *r = file_header("ring.", which, sizeof *r, raw, pick, &v);
        if (!r)
            return;
        switch (field % 5) {
        case 0: r->capacity = v; break;
        case 1: r->mask = v; break;
        case 2: r->head = v; break;
        case 3: r->buffered = v; break;
        default: r->tid = (int)v; break;
        }
        return;
    }
    case EDIT_FILE_BUFFER: {
        uint64_t v;
        xlog_survival_file *h = file_header("file.", which, sizeof *h, raw, pick, &v);
        if (!h)
            return;
        switch (field % 8) {
        case 0: h->capacity = v; break;
        case 1: h->length = v; break;
        case 2: h->written = v; break;
        case 3: h->last_ring = v; break;
        case 4: h->last_record_end = v; break;
        case 5: h->last_length = v; break;
        case 6: h->chunk = v; break;
        default: memset(h->path, 'p', sizeof h->path); break;
        }
        return;
    }
    case EDIT_SIZE: {
        left_file *f = &work[which % seed_count];
        uint64_t v = hostile(raw, pick, f->size);
        if (v < f->size)
            f->size = (size_t)v; /* cut short: a truncated file */
        return;
    }
    default: { /* EDIT_BYTES: up to 4 bytes anywhere in a file */
        left_file *f = &work[which % seed_count];
        if (f->size)
            store(f->bytes + raw % f->size, field % 4 + 1, f->size - raw % f->size, raw >> 32);
        return;
    }
    }
}

/* ---- one input ------------------------------------------------------------- */

static void write_dir(void)
{
    char dir[PATH_MAX * 2];
    snprintf(dir, sizeof dir, "%s/%s", key, process_name);
    /* Recovery removes the persistent directory it leaves empty. */
    if ((mkdir(shm, 0700) != 0 && errno != EEXIST) || (mkdir(key, 0700) != 0 && errno != EEXIST) ||
        mkdir(dir, 0700) != 0)
        abort();
    for (size_t i = 0; i < seed_count; i++) {
        char path[PATH_MAX * 3];
        snprintf(path, sizeof path, "%s/%s", dir, work[i].name);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd < 0 || write(fd, work[i].bytes, work[i].size) != (ssize_t)work[i].size)
            abort();
        close(fd);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    for (size_t i = 0; i < seed_count; i++) {
        work[i] = seed[i];
        work[i].bytes = room_for(seed[i].size);
        if (!work[i].bytes)
            abort();
        memcpy(work[i].bytes, seed[i].bytes, seed[i].size);
    }
    for (size_t at = 0; at + 12 <= size && at < 12 * 8; at += 12)
        apply(data + at);
    write_dir();
    for (size_t i = 0; i < seed_count; i++)
        free(work[i].bytes);
    xlog_recover(logs, shm);
    empty_dir(shm);
    empty_dir(logs);
    return 0;
}
