/*
 * console_sink.c - the console: each line goes through the sink's bounded
 * queue (async_queue.h) to a writer thread of the queue's own.
 *
 * Why (one of the field notes behind xlog): a write to a terminal whose
 * buffer is full blocks for as long as the terminal does not read, seconds
 * at a time.  So the back end never writes to the console: it queues each
 * line, or drops and counts it when the queue is full, and the queue's
 * thread does the writes that may block.
 *
 * How it works:
 *   - The back end (the only producer) queues each formatted line as one
 *     message, wrapped in a colour by level when the console is a terminal.
 *     If the line does not fit, it is dropped and counted; the next line
 *     that fits is preceded by "xlog: N console lines dropped", so the gap
 *     shows where it happened.  Queuing never waits for the writer.
 *   - The writer (the only consumer) writes the queued lines as one byte
 *     stream, many at a time with writev (sendmsg for a socket); a line
 *     written in part is resumed from where the write stopped.  A terminal
 *     or a pipe is written through a descriptor of its own, opened again
 *     through /proc/self/fd with O_NONBLOCK, so that the application's
 *     descriptor keeps its flags and xlog_close can give up on a console
 *     that never reads (after CLOSE_WAIT_MS, counting what it drops).  A
 *     socket is written with MSG_DONTWAIT.  A file, or a terminal that
 *     cannot be opened again (no /proc), is written with plain blocking
 *     writes; a file does not stall, such a terminal may make xlog_close
 *     wait for it.  Lines whose writing fails (EPIPE, EIO, ...) are dropped
 *     and counted, not announced: the notice would fail the same way.
 *   - There is no flush: each line wakes the writer as it is queued, and
 *     xlog_flush does not wait for a console, which may not be read.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "base/atomics.h"
#include "base/error.h"
#include "sinks/async_queue.h"
#include "sinks/sink.h"

/* How long xlog_close lets a console that takes nothing keep its lines. */
#define CLOSE_WAIT_MS 1000
/* Lines the writer takes from the queue at a time (writev and sendmsg
 * take at most UIO_MAXIOV, 1024). */
#define BATCH 256
#define RESET "\x1b[0m"

/* Lines not delivered since the process started (atomic; xlog_stats). */
static uint64_t lines_dropped;

typedef struct console {
    xlog_aq queue;

    /* Set before the writer starts. */
    int fd;        /* what the writer writes to */
    int own_fd;    /* fd was opened here and is closed at stop */
    int is_socket;
    int color;

    /* The back end's. */
    char *line;    /* where the layout writes a line, before it is queued */

    /* The writer's. */
    size_t written_in_first; /* bytes of the oldest line already written */
} console;

static const char *const level_colors[] = {
    "\x1b[2m",    /* TRACE: dim */
    "\x1b[2m",    /* DEBUG: dim */
    "",           /* INFO: as the terminal writes */
    "\x1b[33m",   /* WARN: yellow */
    "\x1b[31m",   /* ERROR: red */
    "\x1b[1;31m", /* FATAL: bold red */
};

/* ---- the back end's side ---------------------------------------------------- */

/* Queues a line (ending in '\n') as one message, between the colour's start
 * and a reset when color is not empty; returns 0 if it does not fit. */
static int put(console *c, const char *color, const char *line, size_t len)
{
    size_t color_len = strlen(color);
    size_t reset_len = color_len ? sizeof RESET - 1 : 0;
    char *room = xlog_aq_reserve(&c->queue, color_len + len + reset_len);
    if (!room)
        return 0;
    memcpy(room, color, color_len);
    room += color_len;
    memcpy(room, line, len - 1);
    room += len - 1;
    memcpy(room, RESET, reset_len);
    room[reset_len] = '\n';
    xlog_aq_commit(&c->queue);
    return 1;
}

/* Puts the notice of the drops since the last one; 0 if it does not fit. */
static int put_notice(console *c)
{
    uint64_t dropped = xlog_aq_unannounced(&c->queue);
    char text[80];
    int n = snprintf(text, sizeof text, "xlog: %llu console %s dropped\n",
                     (unsigned long long)dropped, xlog_plural(dropped, "line", "lines"));
    if (!put(c, c->color ? level_colors[XLOG_WARN] : "", text, (size_t)n))
        return 0;
    xlog_aq_announced(&c->queue, dropped);
    return 1;
}

static void console_write(xlog_sink *s, const xlog_line_event *event)
{
    console *c = s->state;
    size_t len = xlog_layout_write(s->layout, event, c->line);
    int level = event->pub.level;
    /* The notice goes first, so that it stands where the gap is. */
    if ((xlog_aq_unannounced(&c->queue) && !put_notice(c)) ||
        !put(c, c->color ? level_colors[level] : "", c->line, len))
        xlog_aq_count_lost(&c->queue, 1);
}

/* Announces drops even when no line follows them. */
static void console_tick(xlog_sink *s)
{
    console *c = s->state;
    if (xlog_aq_unannounced(&c->queue))
        put_notice(c);
}

/* ---- the writer ------------------------------------------------------------- */

/* Writes what it can of the n lines in iov, the first from written_in_first
 * on. */
static void write_lines(console *c, xlog_aq *q, struct iovec *iov, size_t n)
{
    iov[0].iov_base = (char *)iov[0].iov_base + c->written_in_first;
    iov[0].iov_len -= c->written_in_first;
    ssize_t written;
    if (c->is_socket) {
        struct msghdr msg = {.msg_iov = iov, .msg_iovlen = n};
        written = sendmsg(c->fd, &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
    } else {
        written = writev(c->fd, iov, (int)n);
    }
    if (written > 0) {
        size_t done = 0;
        size_t left = (size_t)written;
        while (done < n && left >= iov[done].iov_len)
            left -= iov[done++].iov_len;
        c->written_in_first = done ? left : c->written_in_first + left;
        xlog_aq_release(q, done);
    } else if (written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        xlog_aq_wait(q, 0, c->fd, POLLOUT, -1); /* the console is full */
    } else if (written == 0 || errno != EINTR) {
        c->written_in_first = 0;
        xlog_aq_drop(q, n); /* the console is gone (EPIPE, EIO, ...) */
    }
}

static void writer_main(xlog_aq *q, void *arg)
{
    console *c = arg;
    struct iovec iov[BATCH];
    for (;;) {
        int state = xlog_aq_state(q);
        if (state == XLOG_AQ_GIVE_UP)
            return;
        size_t n = xlog_aq_peek(q, iov, BATCH);
        if (n == 0) {
            if (state == XLOG_AQ_DRAINING)
                return;
            xlog_aq_wait(q, 1, -1, 0, -1);
            continue;
        }
        write_lines(c, q, iov, n);
    }
}

/* ---- start and stop --------------------------------------------------------- */

static void free_state(console *c)
{
    if (c->own_fd)
        close(c->fd);
    free(c->line);
    free(c);
}

static int console_start(xlog_sink *s, const xlog_config *cfg, const xlog_sink_config *own)
{
    (void)own;
    struct stat st;
    if (fstat(cfg->console, &st) != 0) {
        /* A field of the configuration that cannot be used: -EINVAL, as for
         * any other; -EBADF means that xlog is not open. */
        xlog_set_error("cfg.console: descriptor %d is not open (%s)", cfg->console,
                       strerror(errno));
        return -EINVAL;
    }
    console *c = calloc(1, sizeof *c);
    if (!c)
        return -ENOMEM;
    c->fd = cfg->console;
    c->is_socket = S_ISSOCK(st.st_mode);
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
        char path[48];
        snprintf(path, sizeof path, "/proc/self/fd/%d", cfg->console);
        int fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (fd >= 0) {
            c->fd = fd;
            c->own_fd = 1;
        }
    }
    const char *no_color = getenv("NO_COLOR");
    c->color = cfg->console_color == XLOG_COLOR_ALWAYS ||
               (cfg->console_color == XLOG_COLOR_AUTO && isatty(cfg->console) &&
                !(no_color && *no_color));
    /* Room for the longest line, and then some, whatever console_buffer. */
    size_t longest = xlog_layout_max_line(s->layout, cfg->max_message + XLOG_TRUNCATED_MARK_LENGTH);
    c->line = malloc(longest);
    if (!c->line) {
        free_state(c);
        return -ENOMEM;
    }
    size_t capacity = cfg->console_buffer > 4 * longest ? cfg->console_buffer : 4 * longest;
    int rc = xlog_aq_start(&c->queue, "xlog-console", capacity, &lines_dropped,
                           writer_main, c);
    if (rc != 0) {
        xlog_set_error("cfg.console: cannot start its writer (%s)", strerror(-rc));
        free_state(c);
        return rc;
    }
    s->state = c;
    return 0;
}

static void console_stop(xlog_sink *s)
{
    console *c = s->state;
    console_tick(s);
    xlog_aq_stop(&c->queue, CLOSE_WAIT_MS);
    free_state(c);
    s->state = NULL;
}

/* The child of a fork: the parent's writer did not come along, and the
 * queued lines are the parent's to write.  Only the descriptors are closed:
 * the memory is left, since the parent's back end may have been using it
 * (sinks.c starts a new sink when xlog starts again in the child). */
static void console_after_fork(xlog_sink *s)
{
    console *c = s->state;
    xlog_aq_after_fork(&c->queue);
    if (c->own_fd)
        close(c->fd);
    s->state = NULL;
}

static void console_stats(xlog_counters *out)
{
    out->console_dropped += xlog_load(&lines_dropped);
}

const xlog_sink_ops xlog_console_sink_ops = {
    .name = "console",
    .start = console_start,
    .write = console_write,
    .tick = console_tick,
    .after_fork = console_after_fork,
    .stop = console_stop,
    .stats = console_stats,
};
