/*
 * console_sink.c - the console: a byte ring filled by the back end, emptied
 * by a writer thread of its own.
 *
 * Why (one of the field notes behind xlog): a write to a terminal whose
 * buffer is full blocks for as long as the terminal does not read, seconds
 * at a time.  So the back end never writes to the console: it copies each
 * line into the console's own bounded buffer, or drops and counts it when
 * that is full, and a thread of the console's own does the writes that may
 * block.
 *
 * How it works:
 *   - The back end (the only producer) copies each formatted line into the
 *     ring, wrapped in a colour by level when the console is a terminal.  If
 *     the line does not fit, it is dropped and counted; the next line that
 *     fits is preceded by "xlog: N console lines dropped", so the gap shows
 *     where it happened.  The back end never waits for the console: it takes
 *     the writer's mutex only to wake it, and the writer holds that mutex only
 *     while deciding to sleep.
 *   - The writer (the only consumer) writes what the ring holds.  A terminal
 *     or a pipe is written through a descriptor of its own, opened again
 *     through /proc/self/fd with O_NONBLOCK, so that the application's
 *     descriptor keeps its flags and xlog_close can give up on a console that
 *     never reads (after CLOSE_WAIT_MS, counting what it drops).  A socket is
 *     written with MSG_DONTWAIT.  A file, or a terminal that cannot be opened
 *     again (no /proc), is written with plain blocking writes; a file does
 *     not stall, such a terminal may make xlog_close wait for it.
 * The ring's positions are free-running byte counters, like the threads'
 * rings (common/ring.h); a line may wrap around the end of the buffer.
 */
#define _GNU_SOURCE
#include "sinks/console_sink.h"
#include "sinks/sink.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/internal.h"

/* How long xlog_close lets a console that takes nothing keep its lines. */
#define CLOSE_WAIT_MS 1000
/* How often a writer waiting for a full console looks whether to give up. */
#define POLL_MS 100
#define RESET "\x1b[0m"

uint64_t xlog_console_dropped;

static struct console {
    int fd;             /* what the writer writes to */
    int own_fd;         /* fd was opened here and is closed at stop */
    int is_socket;
    int color;
    char *buffer;
    uint64_t capacity;
    uint64_t head;      /* atomic: end of the lines put, by the back end */
    uint64_t tail;      /* atomic: end of the bytes written, by the writer */
    uint64_t pending;   /* back end only: drops not yet announced */
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int waiting;        /* atomic: the writer may be asleep */
    int stop;           /* atomic: xlog_close has begun */
    int64_t give_up_ms; /* atomic: CLOCK_MONOTONIC ms after which to drop the rest */
    int on;             /* the writer runs (back end only) */
    char *line;         /* where the layout writes a line, before it is put */
} con;

static const char *const level_colors[] = {
    "\x1b[2m",    /* TRACE: dim */
    "\x1b[2m",    /* DEBUG: dim */
    "",           /* INFO: as the terminal writes */
    "\x1b[33m",   /* WARN: yellow */
    "\x1b[31m",   /* ERROR: red */
    "\x1b[1;31m", /* FATAL: bold red */
};

static int64_t monotonic_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/* ---- the back end's side ---------------------------------------------------- */

static void copy_in(uint64_t pos, const char *src, size_t n)
{
    size_t offset = (size_t)(pos % con.capacity);
    size_t first = n < con.capacity - offset ? n : (size_t)(con.capacity - offset);
    memcpy(con.buffer + offset, src, first);
    memcpy(con.buffer, src + first, n - first);
}

/* Copies a line into the ring, between the colour's start and a reset when
 * color is not empty; returns 0 if it does not fit. */
static int put(const char *color, const char *line, size_t len)
{
    size_t color_len = strlen(color);
    size_t reset_len = color_len ? sizeof RESET - 1 : 0;
    uint64_t head = con.head;
    uint64_t used = head - __atomic_load_n(&con.tail, __ATOMIC_ACQUIRE);
    xlog_tsan_acquire(&con.tail);
    if (color_len + len + reset_len > con.capacity - used)
        return 0;
    copy_in(head, color, color_len);
    head += color_len;
    copy_in(head, line, len - 1);
    head += len - 1;
    copy_in(head, RESET, reset_len);
    head += reset_len;
    copy_in(head, "\n", 1);
    head += 1;
    /* Sequentially consistent with the writer's "waiting" flag: either the
     * writer sees this head before sleeping, or this sees it asleep. */
    xlog_tsan_release(&con.head);
    __atomic_store_n(&con.head, head, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&con.waiting, __ATOMIC_SEQ_CST)) {
        pthread_mutex_lock(&con.lock);
        pthread_cond_signal(&con.wake);
        pthread_mutex_unlock(&con.lock);
    }
    return 1;
}

/* Puts the notice of the drops since the last one; 0 if it does not fit. */
static int put_notice(void)
{
    char text[80];
    int n = snprintf(text, sizeof text, "xlog: %llu console lines dropped\n",
                     (unsigned long long)con.pending);
    if (!put(con.color ? level_colors[XLOG_WARN] : "", text, (size_t)n))
        return 0;
    con.pending = 0;
    return 1;
}

static void console_write(xlog_sink *s, const xlog_line_event *event)
{
    size_t len = xlog_layout_write(s->layout, event, con.line);
    int level = event->pub.level;
    /* The notice goes first, so that it stands where the gap is. */
    if ((con.pending && !put_notice()) ||
        !put(con.color ? level_colors[level] : "", con.line, len)) {
        con.pending++;
        xlog_add(&xlog_console_dropped, 1);
    }
}

static void console_tick(xlog_sink *s)
{
    (void)s;
    if (con.pending)
        put_notice();
}

/* ---- the writer ------------------------------------------------------------- */

static ssize_t emit(const char *p, size_t n)
{
    if (con.is_socket)
        return send(con.fd, p, n, MSG_DONTWAIT | MSG_NOSIGNAL);
    return write(con.fd, p, n);
}

/* Gives up the bytes from *tail to head, counting the lines among them. */
static void discard(uint64_t *tail, uint64_t head)
{
    uint64_t lines = 0;
    for (uint64_t pos = *tail; pos < head; pos++)
        lines += con.buffer[pos % con.capacity] == '\n';
    xlog_add(&xlog_console_dropped, lines);
    *tail = head;
    xlog_tsan_release(&con.tail);
    __atomic_store_n(&con.tail, head, __ATOMIC_RELEASE);
}

static void *writer_main(void *unused)
{
    (void)unused;
    uint64_t tail = con.tail;
    for (;;) {
        uint64_t head = __atomic_load_n(&con.head, __ATOMIC_ACQUIRE);
        xlog_tsan_acquire(&con.head);
        if (head == tail) {
            pthread_mutex_lock(&con.lock);
            __atomic_store_n(&con.waiting, 1, __ATOMIC_SEQ_CST);
            head = __atomic_load_n(&con.head, __ATOMIC_SEQ_CST);
            int stopping = __atomic_load_n(&con.stop, __ATOMIC_ACQUIRE);
            if (head == tail && !stopping)
                pthread_cond_wait(&con.wake, &con.lock);
            __atomic_store_n(&con.waiting, 0, __ATOMIC_RELAXED);
            pthread_mutex_unlock(&con.lock);
            if (head == tail && stopping)
                return NULL;
            continue;
        }
        size_t offset = (size_t)(tail % con.capacity);
        size_t n = (size_t)(head - tail);
        if (n > con.capacity - offset)
            n = (size_t)(con.capacity - offset);
        ssize_t written = emit(con.buffer + offset, n);
        if (written > 0) {
            tail += (uint64_t)written;
            xlog_tsan_release(&con.tail);
            __atomic_store_n(&con.tail, tail, __ATOMIC_RELEASE);
        } else if (written < 0 && errno == EINTR) {
            continue;
        } else if (written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (__atomic_load_n(&con.stop, __ATOMIC_ACQUIRE) &&
                monotonic_ms() >= __atomic_load_n(&con.give_up_ms, __ATOMIC_RELAXED)) {
                discard(&tail, head);
                continue;
            }
            struct pollfd p = {.fd = con.fd, .events = POLLOUT};
            poll(&p, 1, POLL_MS);
        } else {
            discard(&tail, head); /* the console is gone (EPIPE, EIO, ...) */
        }
    }
}

/* ---- start and stop --------------------------------------------------------- */

static int console_start(xlog_sink *s, const xlog_config *cfg, const xlog_sink_config *own)
{
    (void)own;
    pthread_mutex_init(&con.lock, NULL);
    struct stat st;
    if (fstat(cfg->console, &st) != 0) {
        int rc = -errno;
        xlog_set_error("cfg.console: descriptor %d is not open (%s)", cfg->console,
                       strerror(errno));
        return rc;
    }
    con.fd = cfg->console;
    con.own_fd = 0;
    con.is_socket = S_ISSOCK(st.st_mode);
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
        char path[48];
        snprintf(path, sizeof path, "/proc/self/fd/%d", cfg->console);
        int fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (fd >= 0) {
            con.fd = fd;
            con.own_fd = 1;
        }
    }
    const char *no_color = getenv("NO_COLOR");
    con.color = cfg->console_color == XLOG_COLOR_ALWAYS ||
                (cfg->console_color == XLOG_COLOR_AUTO && isatty(cfg->console) &&
                 !(no_color && *no_color));
    /* Room for the longest line, and then some, whatever console_buffer. */
    size_t longest = xlog_layout_max_line(s->layout, cfg->max_message + XLOG_TRUNCATED_MARK_LENGTH);
    con.capacity = cfg->console_buffer > 4 * longest ? cfg->console_buffer : 4 * longest;
    con.buffer = malloc(con.capacity);
    con.line = malloc(longest);
    if (!con.buffer || !con.line) {
        free(con.buffer);
        free(con.line);
        if (con.own_fd)
            close(con.fd);
        return -ENOMEM;
    }
    con.head = con.tail = con.pending = 0;
    con.waiting = con.stop = 0;
    pthread_cond_init(&con.wake, NULL);
    /* Signals belong to the application; a console gone away gives EPIPE
     * here rather than a SIGPIPE that ends the program. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&con.thread, NULL, writer_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        pthread_cond_destroy(&con.wake);
        free(con.buffer);
        free(con.line);
        con.buffer = con.line = NULL;
        if (con.own_fd)
            close(con.fd);
        return -rc;
    }
    con.on = 1;
    return 0;
}

static void console_stop(xlog_sink *s)
{
    (void)s;
    if (!con.on)
        return;
    if (con.pending)
        put_notice();
    __atomic_store_n(&con.give_up_ms, monotonic_ms() + CLOSE_WAIT_MS, __ATOMIC_RELAXED);
    pthread_mutex_lock(&con.lock);
    __atomic_store_n(&con.stop, 1, __ATOMIC_RELEASE);
    pthread_cond_signal(&con.wake);
    pthread_mutex_unlock(&con.lock);
    pthread_join(con.thread, NULL);
    con.on = 0;
    if (con.own_fd)
        close(con.fd);
    pthread_cond_destroy(&con.wake);
    free(con.buffer);
    free(con.line);
    con.buffer = con.line = NULL;
}

/* The child of a fork: the writer did not come along, nor a lock it may
 * have held; the buffer's lines are the parent's. */
static void console_after_fork(xlog_sink *s)
{
    (void)s;
    if (con.on && con.own_fd)
        close(con.fd);
    con.on = 0;
}

const xlog_sink_ops xlog_console_sink_ops = {
    .name = "console",
    .start = console_start,
    .write = console_write,
    .tick = console_tick,
    .after_fork = console_after_fork,
    .stop = console_stop,
};
