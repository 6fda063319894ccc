/*
 * shm.c - the live process's side of survival.h: its directory in shared
 * memory, the files there (rings, file buffers), the site dictionary and
 * the clock's calibration.
 *
 * Why shared memory files: a ring that is a MAP_SHARED mapping of a file in
 * /dev/shm costs the caller exactly what anonymous memory does, and its
 * pages stay when the process dies, whatever kills it.  The next xlog_open
 * of the same log directory (recover.c) takes the lock a dead process no
 * longer holds and writes what it left.
 *
 * Everything here but xlog_survival_start/stop runs on the paths of a log
 * call or of the back end, so it only writes memory, or makes a system call
 * where the caller already does (a ring for a thread's first message).
 */
#define _GNU_SOURCE
#include "shm/shm.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/atomics.h"
#include "record/record.h"

static struct survival {
    int active;                       /* atomic */
    int users;                        /* atomic: see "In use" */
    int asked;                        /* atomic: this xlog_open has
                                         cfg.persistent, usable or not */
    char persistent[PATH_MAX];        /* the base, cfg.persistent_dir or the default */
    char dir[PATH_MAX];               /* <persistent>/<key>/<pid>.<start> */
    int lock;                         /* the "process" file, flock held */
    xlog_survival_process *process;   /* its mapping: header, then dictionary */
    size_t process_size;
    uint32_t next_slot;               /* atomic: numbers the files */
    uint32_t generation;              /* atomic: bumped by each start */
    uint64_t dictionary_reserved;     /* atomic: bytes of the dictionary whose
                                         pages the file has (see "Room") */
    uint64_t dictionary_retry_at;     /* the back end's: ticks before which it
                                         does not try to reserve more */
} sv = {.lock = -1};

/* ---- in use -----------------------------------------------------------------
 * Other threads than xlog_open's and xlog_close's read the directory's name
 * and its "process" mapping: a site's first call adds the site to the
 * dictionary, a thread's first call maps its ring, a ring or a buffer given
 * back removes its file.  xlog_close may meanwhile unmap the dictionary and
 * xlog_open write another name.  So each such use counts itself in users
 * and then looks whether the directory is active; xlog_survival_stop marks
 * it inactive and waits until no use is left before it takes anything away
 * (both sides sequentially consistent: a use that counted itself before the
 * mark sees the directory active and is waited for; one after sees it
 * inactive and touches nothing). */
static int use_begin(void)
{
    __atomic_add_fetch(&sv.users, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&sv.active, __ATOMIC_SEQ_CST))
        return 1;
    __atomic_sub_fetch(&sv.users, 1, __ATOMIC_RELEASE);
    return 0;
}

static void use_end(void)
{
    __atomic_sub_fetch(&sv.users, 1, __ATOMIC_RELEASE);
}

/* Files that went to anonymous memory although cfg.persistent was on
 * (xlog_counters.not_persistent). */
uint64_t xlog_survival_fallbacks;

/* Every site that has made its first call, so that a restarted directory
 * (xlog_close, xlog_open) gets them all again: pushed once per site, never
 * removed. */
static xlog_site_copy *noted_sites;

/* ---- names ---------------------------------------------------------------- */

void xlog_survival_default_dir(char *out, size_t size)
{
    snprintf(out, size, "/dev/shm/xlog-%u", (unsigned)geteuid());
}

/* The directory of one log directory's processes: FNV-1a of its path. */
void xlog_survival_key_dir(char *out, size_t size, const char *persistent, const char *log_dir)
{
    uint64_t h = 14695981039346656037ull;
    for (const char *p = log_dir; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    snprintf(out, size, "%s/%016llx", persistent, (unsigned long long)h);
}

int xlog_survival_private_dir(const char *dir)
{
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        return -errno;
    return xlog_survival_is_private(dir);
}

/* Why the last directory refused by this thread was refused. */
static _Thread_local char refusal[PATH_MAX + 96];

const char *xlog_survival_refusal(int error)
{
    return refusal[0] ? refusal : strerror(error);
}

int xlog_survival_is_private(const char *dir)
{
    struct stat st;
    refusal[0] = '\0';
    if (lstat(dir, &st) != 0)
        return -errno;
    if (S_ISLNK(st.st_mode) || !S_ISDIR(st.st_mode)) {
        snprintf(refusal, sizeof refusal, "%s is %s", dir,
                 S_ISLNK(st.st_mode) ? "a symbolic link" : "not a directory");
        return -ENOTDIR;
    }
    if (st.st_uid != geteuid()) {
        snprintf(refusal, sizeof refusal, "%s belongs to uid %u, not to this user (uid %u)", dir,
                 (unsigned)st.st_uid, (unsigned)geteuid());
        return -EPERM;
    }
    if (st.st_mode & 077) {
        snprintf(refusal, sizeof refusal, "%s: mode %04o is open to others (it must be 0700)",
                 dir, (unsigned)(st.st_mode & 07777));
        return -EPERM;
    }
    return 0;
}

uint64_t xlog_survival_start_time(int pid)
{
    char path[64], text[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, text, sizeof text - 1) : -1;
    if (fd >= 0)
        close(fd);
    if (n <= 0)
        return 0;
    text[n] = '\0';
    const char *p = strrchr(text, ')'); /* the command may hold spaces */
    for (int field = 2; p && field < 22; field++)
        p = strchr(p + 1, ' ');
    return p ? strtoull(p + 1, NULL, 10) : 0;
}

/* ---- room ------------------------------------------------------------------
 *
 * A file made with ftruncate is sparse: its pages are taken from the file
 * system when first written, and when it has no room then (a full
 * /dev/shm) the write is answered with SIGBUS.  So no page of these files
 * is written before it is known to be in the file: reserved with
 * posix_fallocate (a whole file buffer: the back end fills it from end to
 * end at any time; the process header, and the dictionary DICTIONARY_STEP
 * at a time as it fills), or with MADV_POPULATE_WRITE, which fails with
 * EFAULT where a write would have raised SIGBUS: a ring's pages as its
 * laps reach them (rings.c, "Room").  A ring or buffer whose file cannot
 * have its first room is not used: its owner falls back to anonymous
 * memory, and xlog_survival_fallbacks counts it. */

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14; older kernels say EINVAL */
#endif

/* The dictionary is reserved this much at a time, by the back end half a
 * step ahead of the sites that fill it. */
#define DICTIONARY_STEP (64u * 1024)

/* Makes the dictionary's first end bytes part of the file (rounded up to
 * DICTIONARY_STEP); 0, or -1 when they are beyond it or cannot be had. */
static int reserve_dictionary(uint64_t end)
{
    uint64_t room = __atomic_load_n(&sv.dictionary_reserved, __ATOMIC_ACQUIRE);
    uint64_t most = sv.process_size - sv.process->header_size;
    if (end <= room)
        return 0;
    if (end > most)
        return -1;
    end = (end + DICTIONARY_STEP - 1) / DICTIONARY_STEP * DICTIONARY_STEP;
    if (end > most)
        end = most;
    if (posix_fallocate(sv.lock, (off_t)(sv.process->header_size + room), (off_t)(end - room)))
        return -1;
    while (room < end && !__atomic_compare_exchange_n(&sv.dictionary_reserved, &room, end, 1,
                                                      __ATOMIC_RELEASE, __ATOMIC_ACQUIRE)) {
    }
    return 0;
}

/* ---- the dictionary -------------------------------------------------------- */

/* The entry of site, with its format (if it has one yet) or without. */
static void add_site(const xlog_site_copy *site, int with_format)
{
    xlog_survival_process *proc = sv.process;
    const char *format = with_format ? site->format : NULL;
    size_t file = strlen(site->file), function = strlen(site->func);
    size_t module = strlen(site->module), fmt = format ? strlen(format) : 0;
    uint64_t size = xlog_align8(sizeof(xlog_survival_site) + file + function + module + fmt);
    /* Only within the pages the file is known to have (a page it cannot
     * have would be a SIGBUS; see "Room"): the back end keeps them ahead,
     * and an entry beyond them (a long format, many new sites at once)
     * reserves them itself, on its site's first call.  Entries stay
     * contiguous, as recovery walks them.  Without room: this site's
     * records will not be recovered. */
    /* An entry is claimed by writing its size where the dictionary ends
     * (0 there: nobody's yet), then the end moves past it, by the claimer
     * or by whoever finds it claimed first.  So every claimed entry has its
     * size from the start, and recovery, which walks entries by their
     * sizes, never meets a gap that hides the entries after it (a kill
     * between claiming by the end and writing the size left one). */
    char *base = (char *)proc + proc->header_size;
    xlog_survival_site *entry;
    for (;;) {
        uint64_t at = __atomic_load_n(&proc->dictionary_used, __ATOMIC_ACQUIRE);
        if (reserve_dictionary(at + size) != 0)
            return;
        entry = (xlog_survival_site *)(base + at);
        uint32_t claimed = 0;
        if (__atomic_compare_exchange_n(&entry->size, &claimed, (uint32_t)size, 0,
                                        __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            __atomic_compare_exchange_n(&proc->dictionary_used, &at, at + size, 0,
                                        __ATOMIC_RELEASE, __ATOMIC_RELAXED);
            break;
        }
        __atomic_compare_exchange_n(&proc->dictionary_used, &at, at + claimed, 0,
                                    __ATOMIC_RELEASE, __ATOMIC_RELAXED);
    }
    entry->site = (uint64_t)(uintptr_t)site;
    entry->line = site->line;
    entry->file_length = (uint32_t)file;
    entry->function_length = (uint32_t)function;
    entry->module_length = (uint32_t)module;
    entry->format_length = (uint32_t)fmt;
    entry->nargs = format ? site->nargs : 0;
    if (format) /* without, the preparing thread may be writing them */
        memcpy(entry->kinds, site->kinds, sizeof entry->kinds);
    char *text = (char *)(entry + 1);
    memcpy(text, site->file, file);
    memcpy(text + file, site->func, function);
    if (module)
        memcpy(text + file + function, site->module, module);
    if (fmt)
        memcpy(text + file + function + module, format, fmt);
    __atomic_store_n(&entry->ready, 1, __ATOMIC_RELEASE);
}

void xlog_survival_add_site(xlog_site_copy *s)
{
    /* Noted first, then looked at: either a directory being started sees the
     * site in the list, or the site sees the directory active (or both:
     * a site twice in a dictionary is harmless, recovery prefers the entry
     * with a format). */
    s->next_noted = __atomic_load_n(&noted_sites, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(&noted_sites, &s->next_noted, s, 1, __ATOMIC_SEQ_CST,
                                        __ATOMIC_RELAXED)) {
    }
    if (use_begin()) {
        add_site(s, 1);
        use_end();
    }
}

void xlog_survival_add_site_names(const xlog_site_copy *s)
{
    if (use_begin()) {
        add_site(s, 0);
        use_end();
    }
}

void xlog_survival_set_clock(const xlog_clock *c)
{
    if (!__atomic_load_n(&sv.active, __ATOMIC_ACQUIRE))
        return;
    uint32_t slot = 1 - __atomic_load_n(&sv.process->clock_slot, __ATOMIC_RELAXED);
    sv.process->clock[slot].base_ticks = c->base_ticks;
    sv.process->clock[slot].base_utc_ns = c->base_utc_ns;
    sv.process->clock[slot].ns_per_tick = c->ns_per_tick;
    __atomic_store_n(&sv.process->clock_slot, slot, __ATOMIC_RELEASE);
}

void xlog_survival_set_rules(int routing, const xlog_rules *rules)
{
    if (!__atomic_load_n(&sv.active, __ATOMIC_ACQUIRE))
        return;
    uint32_t slot = 1 - __atomic_load_n(&sv.process->rules_slot, __ATOMIC_RELAXED);
    sv.process->rules[slot] = *rules;
    __atomic_store_n(&sv.process->rules_slot, slot, __ATOMIC_RELEASE);
    __atomic_store_n(&sv.process->routing, (uint32_t)(routing != 0), __ATOMIC_RELEASE);
}

/* The listed file sinks of cfg (its dirs made absolute by xlog_open) as
 * recovery needs them, into out (NULL: only counted); their count. */
static uint32_t describe_sinks(const xlog_config *cfg, xlog_survival_sink *out)
{
    uint32_t count = 0;
    for (size_t i = 0; cfg->sinks && cfg->sinks[i]; i++) {
        if (cfg->sinks[i]->kind != XLOG_SINK_FILE)
            continue;
        const xlog_file_config *f = (const xlog_file_config *)cfg->sinks[i];
        if (out) {
            xlog_survival_sink *d = &out[count];
            snprintf(d->dir, sizeof d->dir, "%s", f->dir ? f->dir : cfg->dir);
            snprintf(d->prefix, sizeof d->prefix, "%s", f->prefix ? f->prefix : "");
            snprintf(d->pattern, sizeof d->pattern, "%s", f->sink.pattern ? f->sink.pattern : "");
            d->mode = f->mode;
            d->layout = f->sink.layout;
            d->level = f->sink.level;
            d->hourly = f->rotate_hourly != 0;
            d->filter.process = f->sink.level;
            /* A filter with a mistake fails xlog_open when the sinks start,
             * saying so: nothing is said here. */
            d->has_filter = f->sink.filter && xlog_rules_parse(f->sink.filter, "", &d->filter) == 0;
        }
        count++;
    }
    return count;
}

/* ---- files ----------------------------------------------------------------- */

int xlog_survival_active(void)
{
    return __atomic_load_n(&sv.active, __ATOMIC_ACQUIRE);
}

static void file_path(char *out, size_t size, const char *kind, uint32_t slot)
{
    snprintf(out, size, "%s/%s.%u", sv.dir, kind, slot);
}

void xlog_survival_note_anonymous(void)
{
    if (__atomic_load_n(&sv.asked, __ATOMIC_RELAXED))
        __atomic_fetch_add(&xlog_survival_fallbacks, 1, __ATOMIC_RELAXED);
}

void *xlog_survival_map(const char *kind, size_t size, size_t *reserve, uint32_t *slot,
                        uint32_t *generation)
{
    if (!xlog_survival_active()) {
        xlog_survival_note_anonymous(); /* the directory could not be used */
        return NULL;
    }
    void *p = xlog_survival_try_map(kind, size, reserve, slot, generation);
    if (!p)
        __atomic_fetch_add(&xlog_survival_fallbacks, 1, __ATOMIC_RELAXED);
    return p;
}

static void *map_file(const char *kind, size_t size, size_t *reserve, uint32_t *slot,
                      uint32_t *generation)
{
    *slot = __atomic_fetch_add(&sv.next_slot, 1, __ATOMIC_RELAXED);
    *generation = __atomic_load_n(&sv.generation, __ATOMIC_RELAXED);
    char path[PATH_MAX + 32];
    file_path(path, sizeof path, kind, *slot);
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    void *p = MAP_FAILED;
    int whole = *reserve >= size;
    if (fd >= 0 && ftruncate(fd, (off_t)size) == 0 && (!whole || posix_fallocate(fd, 0, (off_t)size) == 0))
        p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p != MAP_FAILED && !whole) {
        /* Its first pages in the file and in memory at once; a kernel
         * without MADV_POPULATE_WRITE could not reserve the rest later:
         * the whole file now. */
        int rc = xlog_survival_reserve(p, *reserve);
        if (rc == -EINVAL && posix_fallocate(fd, 0, (off_t)size) == 0) {
            rc = 0;
            *reserve = size;
        }
        if (rc != 0) {
            munmap(p, size);
            p = MAP_FAILED;
        }
    }
    if (fd >= 0)
        close(fd);
    if (p == MAP_FAILED) {
        if (fd >= 0)
            unlink(path);
        return NULL;
    }
    return p;
}

void *xlog_survival_try_map(const char *kind, size_t size, size_t *reserve, uint32_t *slot,
                            uint32_t *generation)
{
    if (!use_begin())
        return NULL;
    void *p = map_file(kind, size, reserve, slot, generation);
    use_end();
    return p;
}

int xlog_survival_reserve(void *p, size_t size)
{
    if (size && madvise(p, size, MADV_POPULATE_WRITE) != 0)
        return -errno;
    return 0;
}

void xlog_survival_tend(uint64_t now, uint64_t retry_ticks)
{
    if (!xlog_survival_active() || now < sv.dictionary_retry_at)
        return;
    uint64_t used = __atomic_load_n(&sv.process->dictionary_used, __ATOMIC_RELAXED);
    uint64_t most = sv.process_size - sv.process->header_size;
    uint64_t ahead = used + DICTIONARY_STEP / 2;
    if (reserve_dictionary(ahead < most ? ahead : most) != 0)
        sv.dictionary_retry_at = now + retry_ticks; /* no room: not at every pass */
}

void xlog_survival_unmap(void *p, size_t size, const char *kind, uint32_t slot,
                         uint32_t generation)
{
    munmap(p, size);
    if (!use_begin())
        return;
    if (generation == __atomic_load_n(&sv.generation, __ATOMIC_RELAXED)) {
        char path[PATH_MAX + 32];
        file_path(path, sizeof path, kind, slot);
        unlink(path);
    }
    use_end();
}

void xlog_survival_discard(void *p, size_t size)
{
    if (size)
        madvise(p, size, MADV_REMOVE);
}

/* ---- life -------------------------------------------------------------------- */

/* Makes sv.dir, this process's directory under key; 0 or -errno.  A
 * directory of its name already there is the one of this process before an
 * exec (exec keeps the pid and the start time) that nobody has recovered
 * yet: never ours to take over, so the next free name. */
static int make_process_dir(const char *key, uint64_t start)
{
    for (unsigned again = 0; again <= 100; again++) {
        int n = again ? snprintf(sv.dir, sizeof sv.dir, "%s/%d.%llu.%u", key, (int)getpid(),
                                 (unsigned long long)start, again)
                      : snprintf(sv.dir, sizeof sv.dir, "%s/%d.%llu", key, (int)getpid(),
                                 (unsigned long long)start);
        if (n >= (int)sizeof sv.dir)
            return -ENAMETOOLONG;
        if (mkdir(sv.dir, 0700) == 0)
            return 0;
        if (errno != EEXIST)
            return -errno;
    }
    return -EEXIST;
}

int xlog_survival_start(const xlog_config *cfg)
{
    __atomic_store_n(&sv.asked, 1, __ATOMIC_RELAXED);
    char persistent[PATH_MAX], key[PATH_MAX + 32];
    if (cfg->persistent_dir && *cfg->persistent_dir)
        snprintf(persistent, sizeof persistent, "%s", cfg->persistent_dir);
    else
        xlog_survival_default_dir(persistent, sizeof persistent);
    xlog_survival_key_dir(key, sizeof key, persistent, cfg->dir);
    /* Again when a directory vanishes: another process's recovery removes
     * the key and base directories when it leaves them empty, which they
     * are between our making them and making ours in them. */
    uint64_t start = xlog_survival_start_time((int)getpid());
    int rc = -ENOENT;
    for (int attempt = 0; attempt < 8 && rc == -ENOENT; attempt++) {
        rc = xlog_survival_private_dir(persistent);
        if (rc == 0)
            rc = xlog_survival_private_dir(key);
        if (rc == 0)
            rc = make_process_dir(key, start);
    }
    if (rc != 0)
        return rc;
    snprintf(sv.persistent, sizeof sv.persistent, "%s", persistent);
    /* Made under another name and renamed once locked and whole: recovery
     * never finds a "process" file that its living owner has not locked yet
     * (it would take it for a dead process's, and remove the directory). */
    char path[PATH_MAX + 32], whole[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/process.new", sv.dir);
    snprintf(whole, sizeof whole, "%s/process", sv.dir);
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        rc = -errno;
        rmdir(sv.dir);
        return rc;
    }
    uint32_t sink_count = describe_sinks(cfg, NULL);
    size_t header =
        xlog_align8(sizeof(xlog_survival_process) + sink_count * sizeof(xlog_survival_sink));
    sv.process_size = header + XLOG_SURVIVAL_DICTIONARY;
    void *p = MAP_FAILED;
    /* The header and the dictionary's first pages are written before the
     * back end's first pass: reserved now (see "Room"). */
    rc = 0;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0 || ftruncate(fd, (off_t)sv.process_size) != 0)
        rc = -errno;
    else
        rc = -posix_fallocate(fd, 0, (off_t)(header + DICTIONARY_STEP));
    if (rc == 0) {
        /* Mapped through an open file of its own, never through the locked
         * one: a mapping holds its open file, and so the lock, for as long
         * as the mapping lives, which can be after the process is gone and
         * reaped (a reader of /proc/<pid>/maps or stat, such as ps, holds a
         * dead process's memory for a moment; a forked child keeps its copy
         * of the mapping for its whole life).  Recovery would take the
         * process for a living one.  A descriptor goes with the process. */
        int map = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
        if (map < 0) {
            rc = -errno;
        } else {
            p = mmap(NULL, sv.process_size, PROT_READ | PROT_WRITE, MAP_SHARED, map, 0);
            if (p == MAP_FAILED)
                rc = -errno;
            close(map);
        }
    }
    if (p == MAP_FAILED) {
        close(fd);
        unlink(path);
        rmdir(sv.dir);
        return rc ? rc : -EIO;
    }
    xlog_survival_process *proc = p;
    proc->header_size = (uint32_t)header;
    proc->pid = (int32_t)getpid();
    proc->start_time = start;
    snprintf(proc->log_dir, sizeof proc->log_dir, "%s", cfg->dir);
    proc->file_mode = cfg->file_mode;
    proc->file_layout = cfg->file_layout;
    proc->file_level = cfg->file_level;
    proc->follow_symlinks = cfg->follow_symlinks;
    proc->local_time = cfg->rotate_local_time;
    proc->rotate_keep = cfg->rotate_keep;
    proc->rotate_size = cfg->rotate_size;
    proc->max_message = cfg->max_message;
    snprintf(proc->file_pattern, sizeof proc->file_pattern, "%s",
             cfg->file_pattern ? cfg->file_pattern : "");
    snprintf(proc->file_prefix, sizeof proc->file_prefix, "%s",
             cfg->file_prefix ? cfg->file_prefix : "");
    proc->hourly = cfg->rotate_hourly != 0;
    proc->sink_count = describe_sinks(cfg, (xlog_survival_sink *)(proc + 1));
    proc->dictionary_used = 0;
    if (gethostname(proc->host, sizeof proc->host - 1) != 0)
        proc->host[0] = '\0';
    proc->host[sizeof proc->host - 1] = '\0';
    snprintf(proc->program, sizeof proc->program, "%s", program_invocation_short_name);
    memcpy(proc->magic, XLOG_SURVIVAL_MAGIC, sizeof proc->magic);
    if (rename(path, whole) != 0) {
        rc = -errno;
        munmap(p, sv.process_size);
        close(fd);
        unlink(path);
        rmdir(sv.dir);
        return rc;
    }
    sv.lock = fd;
    sv.process = p;
    sv.next_slot = 0;
    __atomic_store_n(&sv.dictionary_reserved, DICTIONARY_STEP, __ATOMIC_RELAXED);
    sv.dictionary_retry_at = 0;
    __atomic_store_n(&sv.generation, sv.generation + 1 ? sv.generation + 1 : 1, __ATOMIC_RELAXED);
    __atomic_store_n(&sv.active, 1, __ATOMIC_SEQ_CST);
    for (xlog_site_copy *s = __atomic_load_n(&noted_sites, __ATOMIC_SEQ_CST); s; s = s->next_noted)
        add_site(s, 1);
    return 0;
}

/* dir/kind.n (or dir/kind when n < 0) into out, with no call that is not
 * async-signal-safe: a crash handler removes the directory this way. */
static void name_in_dir(char *out, size_t size, const char *kind, long n)
{
    size_t at = 0;
    for (const char *p = sv.dir; *p && at + 1 < size; p++)
        out[at++] = *p;
    if (at + 1 < size)
        out[at++] = '/';
    for (const char *p = kind; *p && at + 1 < size; p++)
        out[at++] = *p;
    if (n >= 0 && at + 1 < size) {
        out[at++] = '.';
        char digits[24];
        int d = 0;
        do
            digits[d++] = (char)('0' + n % 10);
        while ((n /= 10) > 0);
        while (d > 0 && at + 1 < size)
            out[at++] = digits[--d];
    }
    out[at] = '\0';
}

/* Removes the files of the directory (every name it gave out), then the
 * directory and, when no other process uses them, the key directory and the
 * persistent directory above. */
static void remove_files(void)
{
    char path[PATH_MAX + 64];
    uint32_t slots = __atomic_load_n(&sv.next_slot, __ATOMIC_RELAXED);
    for (uint32_t i = 0; i < slots; i++) {
        name_in_dir(path, sizeof path, "ring", i);
        unlink(path);
        name_in_dir(path, sizeof path, "file", i);
        unlink(path);
    }
    name_in_dir(path, sizeof path, "process", -1);
    unlink(path);
    rmdir(sv.dir);
    memcpy(path, sv.dir, sizeof sv.dir);
    for (int up = 0; up < 2; up++) {
        size_t at = strlen(path);
        while (at > 0 && path[at - 1] != '/')
            at--;
        if (at <= 1)
            break;
        path[at - 1] = '\0';
        rmdir(path); /* fails, as it should, if another process uses it */
    }
}

void xlog_survival_stop(void)
{
    __atomic_store_n(&sv.asked, 0, __ATOMIC_RELAXED);
    if (!xlog_survival_active())
        return;
    __atomic_store_n(&sv.active, 0, __ATOMIC_SEQ_CST);
    while (__atomic_load_n(&sv.users, __ATOMIC_ACQUIRE)) /* see "In use" */
        sched_yield();
    remove_files();
    munmap(sv.process, sv.process_size);
    sv.process = NULL;
    close(sv.lock); /* the lock goes with it */
    sv.lock = -1;
}

void xlog_survival_remove(void)
{
    if (__atomic_exchange_n(&sv.active, 0, __ATOMIC_SEQ_CST))
        remove_files();
}

void xlog_survival_after_fork(void)
{
    __atomic_store_n(&sv.users, 0, __ATOMIC_RELAXED); /* the parent's other threads */
    if (!xlog_survival_active())
        return;
    __atomic_store_n(&sv.active, 0, __ATOMIC_SEQ_CST);
    /* Closing our copy does not release the parent's lock (another
     * descriptor of the same open file still holds it); the mappings of the
     * parent's files are the parent's: the child leaves them alone. */
    close(sv.lock);
    sv.lock = -1;
    sv.process = NULL;
}

/* ---- where, for the watch on dead processes (dead.c) ----------------------- */

int xlog_survival_where(char *log_dir, size_t log_size, char *persistent, size_t persistent_size)
{
    if (!xlog_survival_active())
        return -1;
    snprintf(persistent, persistent_size, "%s", sv.persistent);
    snprintf(log_dir, log_size, "%s", sv.process->log_dir);
    return 0;
}
