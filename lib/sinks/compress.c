/*
 * compress.c - the compressor thread: rotated files become <name>.gz.
 *
 * How a job runs:
 *   1. under the directory lock, find the file's current name by its inode
 *      (a later rotation may have moved it from .1 to .2) and open it;
 *   2. without the lock, read it to the end and feed zlib, writing a hidden
 *      temporary file in the same directory;
 *   3. under the lock again: if the file has grown meanwhile (a process that
 *      had not yet noticed the rotation wrote to it), go back to 2 for the
 *      new bytes; otherwise find its current name again, rename the
 *      temporary file to <name>.gz and remove <name>.
 * A job whose file has disappeared (removed by retention) discards its work.
 * Two processes may compress the same file (both rotated away from a shared
 * day's file); the second to finish no longer finds it and discards its copy.
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
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "sinks/rotation.h"

#define READ_CHUNK (256 * 1024)

typedef struct job {
    struct job *next;
    char *base;
    dev_t dev;
    ino_t ino;
    unsigned keep;
    struct timespec ready; /* CLOCK_MONOTONIC */
} job;

static struct compressor {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    job *first, *last;
    int stop;
    int running;
    unsigned temp_seq;
    char *buffer;
} cz;

/* Writes into name the current name of the job's file; 0 if it is found. */
static int locate(const job *j, char *name, size_t size)
{
    for (unsigned k = 0; k <= j->keep; k++) {
        if (k == 0)
            snprintf(name, size, "%s", j->base);
        else
            snprintf(name, size, "%s.%u", j->base, k);
        struct stat st;
        if (stat(name, &st) == 0 && st.st_dev == j->dev && st.st_ino == j->ino)
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

/* Opens the job's file where it is now; -1 if it is gone. */
static int open_source(const job *j, const char *dir)
{
    int lock = xlog_dir_lock(dir);
    if (lock < 0)
        return -1;
    char name[PATH_MAX];
    int fd = -1;
    if (locate(j, name, sizeof name) == 0)
        fd = open(name, O_RDONLY | O_CLOEXEC);
    xlog_dir_unlock(lock);
    struct stat st;
    if (fd >= 0 && (fstat(fd, &st) != 0 || st.st_ino != j->ino || st.st_dev != j->dev)) {
        close(fd); /* replaced between the stat and the open */
        fd = -1;
    }
    return fd;
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
    char dir[PATH_MAX], temp[PATH_MAX];
    dir_of(j->base, dir, sizeof dir);
    int src = open_source(j, dir);
    if (src < 0)
        return;
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
        close(src);
        return;
    }
    off_t done = 0;
    int kept = 0;
    while (compress_to_end(src, gz, &done) == 0) {
        int lock = xlog_dir_lock(dir);
        if (lock < 0)
            break;
        struct stat st;
        if (fstat(src, &st) == 0 && st.st_size > done) {
            xlog_dir_unlock(lock); /* written to since we reached its end */
            continue;
        }
        int rc = gzclose(gz);
        gz = NULL;
        char name[PATH_MAX], packed[PATH_MAX + 3];
        if (rc == Z_OK && locate(j, name, sizeof name) == 0) {
            snprintf(packed, sizeof packed, "%s.gz", name);
            if (rename(temp, packed) == 0) {
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
    close(src);
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
            pthread_cond_timedwait(&cz.wake, &cz.lock, &j->ready);
            continue;
        }
        cz.first = j->next;
        if (!cz.first)
            cz.last = NULL;
        pthread_mutex_unlock(&cz.lock);
        run(j);
        free(j->base);
        free(j);
        pthread_mutex_lock(&cz.lock);
    }
    pthread_mutex_unlock(&cz.lock);
    return NULL;
}

int xlog_compress_start(void)
{
    if (cz.running) {
        /* Still running: this is the child of a fork.  The thread and its
         * jobs (the parent's) did not come along, nor a lock it may have
         * held. */
        for (job *j = cz.first, *next; j; j = next) {
            next = j->next;
            free(j->base);
            free(j);
        }
        free(cz.buffer);
        cz.running = 0;
    }
    pthread_mutex_init(&cz.lock, NULL);
    cz.buffer = malloc(READ_CHUNK);
    if (!cz.buffer)
        return -ENOMEM;
    cz.stop = 0;
    cz.first = cz.last = NULL;
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
    cz.running = 1;
    return 0;
}

void xlog_compress_queue(const char *base, dev_t dev, ino_t ino, unsigned keep, unsigned delay_ms)
{
    job *j = malloc(sizeof *j);
    char *copy = strdup(base);
    if (!j || !copy) {
        free(j); /* without memory the file simply stays uncompressed */
        free(copy);
        return;
    }
    j->next = NULL;
    j->base = copy;
    j->dev = dev;
    j->ino = ino;
    j->keep = keep;
    clock_gettime(CLOCK_MONOTONIC, &j->ready);
    j->ready.tv_sec += delay_ms / 1000;
    j->ready.tv_nsec += (long)(delay_ms % 1000) * 1000000;
    if (j->ready.tv_nsec >= 1000000000) {
        j->ready.tv_sec++;
        j->ready.tv_nsec -= 1000000000;
    }
    pthread_mutex_lock(&cz.lock);
    if (cz.last)
        cz.last->next = j;
    else
        cz.first = j;
    cz.last = j;
    pthread_cond_signal(&cz.wake);
    pthread_mutex_unlock(&cz.lock);
}

void xlog_compress_stop(void)
{
    if (!cz.running)
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
