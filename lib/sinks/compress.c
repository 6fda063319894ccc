/*
 * compress.c - the compressor thread: rotated files become <name>.gz.
 *
 * A job holds a read-only descriptor on its file from the moment the file
 * was rotated (file_sink.c opens it then, while the writer still has the
 * file open, and checks that both are the same file).  That is what keeps a
 * job to its own file: while the descriptor is open the inode cannot be
 * freed, so no newer file can get its number, and the name in the chain
 * that leads to the descriptor's inode is that file's and no other's.
 * (Looking a file up by a remembered inode number alone went wrong: once
 * retention had removed the file, the new live file could get the number,
 * and the job compressed and removed the live file.)
 *
 * How a job runs, once its delay is over:
 *   1. if the file has no link left (retention removed it), drop the job;
 *   2. without the lock, read the file through the descriptor and feed
 *      zlib, writing a hidden temporary file (.xlog-<pid>-<n>.gz.tmp) in the
 *      same directory;
 *   3. under the directory lock: if the file has grown meanwhile (a process
 *      that had not yet noticed the rotation wrote to it), go back to 2 for
 *      the new bytes; otherwise find the file's current name (a later
 *      rotation may have moved it from .1 to .2), rename the temporary file
 *      to <name>.gz and remove <name>.  A job whose file has no name in the
 *      chain any more, or whose <name>.gz already exists, discards its work.
 *
 * Who may remove a file: retention (the rename chain and keep_days) removes
 * names; the compressor only replaces a name with its .gz.  Both work under
 * the directory lock, so a file is either removed or compressed, never one
 * half-way through the other, and no .gz is ever overwritten.  Waiting jobs
 * whose file was removed are dropped at each queueing, so the descriptors
 * held pin only files still in the chain, and at most a quarter of the
 * process's descriptor limit of them (beyond that a rotated file stays
 * uncompressed; see docs/OUTPUTS.md): the application's own open() calls
 * must not fail for xlog's backlog.
 * Two processes may compress the same file (both left a shared day's file
 * behind); the second to finish no longer finds it and discards its copy.
 *
 * Why zlib: gzip is read by every system and every log tool; zlib is in
 * every distribution (Debian: zlib1g-dev) and is maintained since 1995.
 */
#define _GNU_SOURCE
#include "sinks/compress.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "sinks/rotation.h"

#define READ_CHUNK (256 * 1024)

typedef struct job {
    struct job *next;
    char *base;
    unsigned first;        /* the lowest number the file can have (0: base) */
    unsigned keep;
    int fd;                /* read-only, on the file itself */
    struct timespec ready; /* CLOCK_MONOTONIC */
} job;

static struct compressor {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    job *first, *last;
    unsigned waiting;
    unsigned max_waiting;  /* each waiting job holds a descriptor */
    int stop;
    int running;
    unsigned users;        /* xlog_compress_start's not yet stopped */
    unsigned temp_seq;
    char *buffer;
} cz;

static void free_job(job *j)
{
    close(j->fd);
    free(j->base);
    free(j);
}

/* Whether the job's file still has a name somewhere. */
static int linked(const job *j)
{
    struct stat st;
    return fstat(j->fd, &st) == 0 && st.st_nlink > 0;
}

/* Writes into name the current name of the job's file (under the directory
 * lock); 0 if it is found in the chain. */
static int locate(const job *j, char *name, size_t size)
{
    struct stat mine, st;
    if (fstat(j->fd, &mine) != 0 || mine.st_nlink == 0)
        return -1;
    for (unsigned k = j->first; k <= j->keep; k++) {
        if (k == 0)
            snprintf(name, size, "%s", j->base);
        else if (xlog_numbered_path(name, size, j->base, k) != 0)
            return -1;
        if (stat(name, &st) == 0 && st.st_dev == mine.st_dev && st.st_ino == mine.st_ino)
            return 0;
    }
    return -1;
}

static void dir_of(const char *path, char *dir, size_t size)
{
    const char *slash = strrchr(path, '/');
    if (slash)
        snprintf(dir, size, "%.*s", (int)(slash - path), path);
    else
        snprintf(dir, size, ".");
}

/* Feeds the rest of src to gz; the total read in *done.  0 or -1. */
static int compress_to_end(int src, gzFile gz, off_t *done)
{
    for (;;) {
        ssize_t n = read(src, cz.buffer, READ_CHUNK);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0)
            return 0;
        if (gzwrite(gz, cz.buffer, (unsigned)n) != (int)n)
            return -1;
        *done += n;
    }
}

static void run(const job *j)
{
    if (!linked(j))
        return;
    char dir[PATH_MAX], temp[PATH_MAX];
    dir_of(j->base, dir, sizeof dir);
    int len = snprintf(temp, sizeof temp, "%s/.xlog-%d-%u.gz.tmp", dir, (int)getpid(),
                       cz.temp_seq++);
    int out = len > 0 && (size_t)len < sizeof temp
                  ? open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640)
                  : -1;
    gzFile gz = out >= 0 ? gzdopen(out, "wb") : NULL;
    if (!gz) {
        if (out >= 0) {
            close(out);
            unlink(temp);
        }
        return;
    }
    off_t done = 0;
    int kept = 0;
    while (compress_to_end(j->fd, gz, &done) == 0) {
        int lock = xlog_dir_lock(dir);
        if (lock < 0)
            break;
        struct stat st;
        if (fstat(j->fd, &st) == 0 && st.st_size > done) {
            xlog_dir_unlock(lock); /* written to since we reached its end */
            continue;
        }
        int rc = gzclose(gz);
        gz = NULL;
        char name[PATH_MAX], packed[PATH_MAX + 3];
        if (rc == Z_OK && locate(j, name, sizeof name) == 0) {
            snprintf(packed, sizeof packed, "%s.gz", name);
            /* A .gz already there holds other lines (a day's file that a
             * straggling process created again after it was compressed):
             * the file then stays as it is, beside it. */
            if (lstat(packed, &st) != 0 && errno == ENOENT && rename(temp, packed) == 0) {
                unlink(name);
                kept = 1;
            }
        }
        xlog_dir_unlock(lock);
        break;
    }
    if (gz)
        gzclose(gz);
    if (!kept)
        unlink(temp);
}

static int before(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

static void *compressor_main(void *unused)
{
    (void)unused;
    pthread_mutex_lock(&cz.lock);
    for (;;) {
        job *j = cz.first;
        if (!j) {
            if (cz.stop)
                break;
            pthread_cond_wait(&cz.wake, &cz.lock);
            continue;
        }
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (before(&now, &j->ready)) {
            /* A copy: while this thread waits, a queueing may drop and free
             * the job (its file removed). */
            struct timespec until = j->ready;
            pthread_cond_timedwait(&cz.wake, &cz.lock, &until);
            continue;
        }
        cz.first = j->next;
        if (!cz.first)
            cz.last = NULL;
        cz.waiting--;
        pthread_mutex_unlock(&cz.lock);
        run(j);
        free_job(j);
        pthread_mutex_lock(&cz.lock);
    }
    pthread_mutex_unlock(&cz.lock);
    return NULL;
}

/* The child of a fork has no compressor thread, and the waiting jobs are
 * the parent's.  Their descriptors are closed at once: a child that does not
 * log again would otherwise pin the space of files that retention removes,
 * for as long as it lives.  (The one file being compressed at the moment of
 * the fork stays open in the child until xlog starts there again.)  No lock
 * is taken: the thread that may have held it did not come along, and the
 * list can be walked at every step of a change (a job is linked whole, and
 * unlinked before it is freed). */
static void after_fork_in_child(void)
{
    if (!cz.running)
        return;
    for (job *j = cz.first, *next; j; j = next) {
        next = j->next;
        free_job(j);
    }
    free(cz.buffer);
    cz.buffer = NULL;
    cz.running = 0;
    cz.users = 0;
}

static void watch_forks(void)
{
    pthread_atfork(NULL, NULL, after_fork_in_child);
}

int xlog_compress_start(void)
{
    if (cz.running) {
        cz.users++;
        return 0;
    }
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, watch_forks);
    pthread_mutex_init(&cz.lock, NULL);
    cz.buffer = malloc(READ_CHUNK);
    if (!cz.buffer)
        return -ENOMEM;
    cz.stop = 0;
    cz.first = cz.last = NULL;
    cz.waiting = 0;
    /* A quarter of the descriptor limit, from 64 to 65536. */
    struct rlimit files;
    rlim_t quarter = getrlimit(RLIMIT_NOFILE, &files) == 0 ? files.rlim_cur / 4 : 0;
    cz.max_waiting = quarter < 64 ? 64 : quarter > 65536 ? 65536 : (unsigned)quarter;
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&cz.wake, &attr);
    pthread_condattr_destroy(&attr);
    /* Signals belong to the application, not to this thread. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&cz.thread, NULL, compressor_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        pthread_cond_destroy(&cz.wake);
        free(cz.buffer);
        cz.buffer = NULL;
        return -rc;
    }
    pthread_setname_np(cz.thread, "xlog-gzip"); /* for top -H, ps -L and gdb */
    cz.running = 1;
    cz.users = 1;
    return 0;
}

/* Frees the waiting jobs whose file retention has removed, closing their
 * descriptors so that the space is given back. */
static void drop_removed_locked(void)
{
    job *kept = NULL;
    for (job **at = &cz.first; *at;) {
        job *j = *at;
        if (linked(j)) {
            kept = j;
            at = &j->next;
            continue;
        }
        *at = j->next;
        free_job(j);
        cz.waiting--;
    }
    cz.last = kept;
}

void xlog_compress_queue(const char *base, unsigned first, int fd, unsigned keep,
                         unsigned delay_ms)
{
    job *j = malloc(sizeof *j);
    char *copy = strdup(base);
    if (!j || !copy) {
        free(j); /* without memory the file simply stays uncompressed */
        free(copy);
        close(fd);
        return;
    }
    j->next = NULL;
    j->base = copy;
    j->first = first;
    j->keep = keep;
    j->fd = fd;
    clock_gettime(CLOCK_MONOTONIC, &j->ready);
    j->ready.tv_sec += delay_ms / 1000;
    j->ready.tv_nsec += (long)(delay_ms % 1000) * 1000000;
    if (j->ready.tv_nsec >= 1000000000) {
        j->ready.tv_sec++;
        j->ready.tv_nsec -= 1000000000;
    }
    pthread_mutex_lock(&cz.lock);
    drop_removed_locked();
    if (cz.waiting >= cz.max_waiting) {
        pthread_mutex_unlock(&cz.lock);
        free_job(j);
        return;
    }
    if (cz.last)
        cz.last->next = j;
    else
        cz.first = j;
    cz.last = j;
    cz.waiting++;
    pthread_cond_signal(&cz.wake);
    pthread_mutex_unlock(&cz.lock);
}

void xlog_compress_stop(void)
{
    if (!cz.running || --cz.users > 0)
        return;
    pthread_mutex_lock(&cz.lock);
    cz.stop = 1;
    pthread_cond_signal(&cz.wake);
    pthread_mutex_unlock(&cz.lock);
    pthread_join(cz.thread, NULL);
    cz.running = 0;
    pthread_cond_destroy(&cz.wake);
    free(cz.buffer);
    cz.buffer = NULL;
}
