/*
 * syslog_sink.c - messages to a syslog collector (rsyslog, syslog-ng,
 * journald, ...) over the local datagram socket, UDP, or TCP with octet
 * counting, without ever making the back end wait for it.
 *
 * Why: a collector may be slow, restarting, or absent (no /dev/log in a
 * container); the log calls and the files must not notice.  So the back end
 * only formats each message and copies it into the sink's bounded queue
 * (async_queue.h); a writer thread of the sink's own sends it.
 *
 * What goes on the wire, for a message "disk full" at WARN from pid 4242 of
 * program "app" on host "web1", facility user (1):
 *   RFC 5424:  <12>1 2026-11-22T14:45:25.123456Z web1 app 4242 - - disk full
 *              (TIMESTAMP in UTC with microseconds, RFC 5424's finest;
 *              MSGID and STRUCTURED-DATA are "-"; MSG has no BOM)
 *   RFC 3164:  <12>Nov 22 15:45:25 app[4242]: disk full
 *              (local time, as syslog(3) sends it to /dev/log; over UDP or
 *              TCP the HOSTNAME comes after the time, as RFC 3164 says)
 *   TCP adds RFC 6587 octet counting in front: "61 <12>1 2026-...".
 * The MSG is the sink's layout applied to the event without its '\n' (the
 * layouts write one line, escaped, or one JSON object).  Severity follows
 * the level (xlog.h: TRACE and DEBUG 7, INFO 6, WARN 4, ERROR 3, FATAL 2).
 *
 * The back end's side (write, tick): a message that does not fit in
 * the queue is dropped and counted (xlog_counters.syslog_dropped).  The first
 * message that fits after drops is preceded by a message of xlog's own,
 * "xlog: N messages were not delivered to syslog: <reason>" (severity
 * warning, through the same layout), so the collector sees where the gap
 * is; the queue frees room only as the writer delivers, so the notice
 * arrives once delivery works again.  Each message wakes the writer as it
 * is queued, so the sink has no flush: xlog_flush does not wait for a
 * collector, which may be down.
 *
 * The writer's side: a connected socket per collector, opened again after
 * a failure, 100 ms later and then twice as long after each failure up to
 * 5 s.  A message whose sending failed (ECONNREFUSED when no one reads the
 * socket, a broken TCP connection, /dev/log missing) stays queued and is
 * sent once the collector is back, so a short outage loses nothing while
 * the queue holds; beyond that, the newest messages are dropped, counted
 * and announced with the reason ("sending failed: Connection refused").
 * Local datagrams go out with sendmmsg, UDP ones one per send (a refusal
 * is reported afterwards: see send_datagrams), TCP frames with one
 * sendmsg per batch; all nonblocking, waiting in poll() so that xlog_close
 * can give up on a collector that never reads (after STOP_WAIT_MS, counting
 * what it drops).  A message the transport refuses outright (EMSGSIZE) is
 * dropped, counted and announced.
 *
 * What no sender can count: messages already in the collector's socket
 * when it dies (the TCP or local socket's queue, rsyslogd's own queue),
 * and over UDP datagrams sent to a collector that has stopped reading but
 * still holds its port, or refused with a report that never came.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "base/atomics.h"
#include "base/error.h"
#include "sinks/async_queue.h"
#include "sinks/sink.h"

/* How long xlog_close lets the writer deliver what is queued. */
#define STOP_WAIT_MS 1000
/* Reconnection back-off. */
#define BACKOFF_FIRST_MS 100
#define BACKOFF_MAX_MS 5000
/* A TCP connection not established by then is a failure (then back-off). */
#define CONNECT_TIMEOUT_MS 5000
/* Messages the writer takes from the queue at a time (sendmmsg and
 * sendmsg take at most UIO_MAXIOV, 1024). */
#define BATCH 256
/* RFC 5424's limits, which RFC 3164's TAG and HOSTNAME keep to as well. */
#define HOSTNAME_MAX 255
#define APP_NAME_MAX 48
/* Room before the layout's bytes: octet count, PRI, version, timestamp and
 * the text after it (hostname, app name, pid). */
#define LENGTH_ROOM 24
#define HEADER_MAX (LENGTH_ROOM + 64 + HOSTNAME_MAX + APP_NAME_MAX + 32)

/* Lines not delivered since the process started (atomic; xlog_stats). */
static uint64_t messages_dropped;

typedef struct syslog_sink {
    xlog_aq queue;

    /* The settled configuration; read by both threads, written before the
     * writer starts. */
    int transport;
    int format;
    int facility;
    char *path;        /* XLOG_SYSLOG_UNIX */
    char *host, *port; /* UDP and TCP */
    char hostname[HOSTNAME_MAX + 1];
    char app_name[APP_NAME_MAX + 1];
    int64_t (*wall_clock_ns)(void);

    /* The back end's. */
    char *scratch;              /* one message on its way to the queue */
    size_t scratch_size;
    int64_t cached_second;      /* the second in cached_time, or INT64_MIN */
    char cached_time[24];       /* 5424: "2026-11-22T14:45:25"; 3164: "Nov 22 15:45:25" */
    size_t cached_time_len;
    int cached_pid;             /* the pid in after_time, or 0 */
    char after_time[HEADER_MAX]; /* " web1 app 4242 - - " or " app[4242]: " */
    size_t after_time_len;

    /* Shared (atomics). */
    int down_errno; /* writer: why it cannot deliver now; 0 while it delivers */
    int gap_reason; /* why the messages not yet announced were lost: an errno,
                       a getaddrinfo error (< 0), or 0 for a full buffer */

    /* The writer's. */
    int fd;                  /* atomic (read by the child of a fork); -1 when closed */
    int backoff_ms;
    int64_t next_attempt_ms; /* CLOCK_MONOTONIC */
    int stop_seen;
    size_t sent_in_first;    /* TCP: bytes of the oldest message already sent */
} syslog_sink;

XLOG_API xlog_syslog_config xlog_syslog_defaults(void)
{
    xlog_syslog_config c;
    memset(&c, 0, sizeof c);
    c.sink.kind = XLOG_SINK_SYSLOG;
    c.sink.level = XLOG_TRACE;
    c.sink.layout = XLOG_LAYOUT_TEXT;
    c.sink.pattern = NULL;
    c.transport = XLOG_SYSLOG_UNIX;
    c.address = NULL; /* the transport's: "/dev/log" or "127.0.0.1:514" */
    c.format = XLOG_SYSLOG_AUTO;
    c.facility = 1;
    c.app_name = NULL;
    c.hostname = NULL;
    c.buffer = (size_t)1 << 20;
    return c;
}

static int severity(int level)
{
    static const int by_level[] = {7, 7, 6, 4, 3, 2};
    return level >= XLOG_TRACE && level <= XLOG_FATAL ? by_level[level] : 3;
}

static size_t put_uint(char *out, uint64_t v)
{
    char digits[20];
    size_t n = 0;
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (size_t i = 0; i < n; i++)
        out[i] = digits[n - 1 - i];
    return n;
}

/* ---- the back end's side ----------------------------------------------------- */

/* Date and time of the second (cached: it changes once a second). */
static void time_text(syslog_sink *st, int64_t second)
{
    if (second == st->cached_second)
        return;
    static const char months[12][4] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                       "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    time_t t = (time_t)second;
    struct tm tm;
    int n;
    if (st->format == XLOG_SYSLOG_RFC5424) {
        gmtime_r(&t, &tm);
        n = snprintf(st->cached_time, sizeof st->cached_time, "%04d-%02d-%02dT%02d:%02d:%02d",
                     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
                     tm.tm_sec);
    } else {
        localtime_r(&t, &tm);
        n = snprintf(st->cached_time, sizeof st->cached_time, "%s %2d %02d:%02d:%02d",
                     months[tm.tm_mon], tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
    }
    st->cached_time_len = n > 0 && (size_t)n < sizeof st->cached_time ? (size_t)n : 0;
    st->cached_second = second;
}

/* The header's text after the timestamp, which changes only with the pid
 * (after a fork). */
static void after_time_text(syslog_sink *st, int pid)
{
    if (pid == st->cached_pid)
        return;
    int n;
    if (st->format == XLOG_SYSLOG_RFC5424)
        n = snprintf(st->after_time, sizeof st->after_time, " %s %s %d - - ", st->hostname,
                     st->app_name, pid);
    else if (st->transport == XLOG_SYSLOG_UNIX)
        n = snprintf(st->after_time, sizeof st->after_time, " %s[%d]: ", st->app_name, pid);
    else
        n = snprintf(st->after_time, sizeof st->after_time, " %s %s[%d]: ", st->hostname,
                     st->app_name, pid);
    st->after_time_len = (size_t)n;
    st->cached_pid = pid;
}

/* Formats the event into the scratch buffer; returns the message's first
 * byte and its length in *len, or NULL without memory. */
static const char *format_message(syslog_sink *st, xlog_layout *layout,
                                  const xlog_line_event *ev, size_t *len)
{
    size_t need = HEADER_MAX + xlog_layout_max_line(layout, ev->pub.message_length);
    if (need > st->scratch_size) {
        char *bigger = realloc(st->scratch, need);
        if (!bigger)
            return NULL;
        st->scratch = bigger;
        st->scratch_size = need;
    }
    int64_t second = ev->pub.time_ns / 1000000000;
    int64_t ns = ev->pub.time_ns % 1000000000;
    if (ns < 0) {
        second--;
        ns += 1000000000;
    }
    time_text(st, second);
    after_time_text(st, ev->pub.pid);

    char *start = st->scratch + LENGTH_ROOM;
    char *p = start;
    *p++ = '<';
    p += put_uint(p, (uint64_t)(st->facility * 8 + severity(ev->pub.level)));
    *p++ = '>';
    if (st->format == XLOG_SYSLOG_RFC5424) {
        *p++ = '1';
        *p++ = ' ';
    }
    memcpy(p, st->cached_time, st->cached_time_len);
    p += st->cached_time_len;
    if (st->format == XLOG_SYSLOG_RFC5424) {
        int us = (int)(ns / 1000);
        *p++ = '.';
        for (int div = 100000; div; div /= 10)
            *p++ = (char)('0' + us / div % 10);
        *p++ = 'Z';
    }
    memcpy(p, st->after_time, st->after_time_len);
    p += st->after_time_len;
    size_t line = xlog_layout_write(layout, ev, p);
    p += line && p[line - 1] == '\n' ? line - 1 : line;
    *len = (size_t)(p - start);
    if (st->transport == XLOG_SYSLOG_TCP) {
        char count[LENGTH_ROOM];
        size_t digits = put_uint(count, *len);
        start -= digits + 1;
        memcpy(start, count, digits);
        start[digits] = ' ';
        *len += digits + 1;
    }
    return start;
}

/* Formats the event and queues it; 0 if it does not fit (or no memory). */
static int queue_event(syslog_sink *st, xlog_layout *layout, const xlog_line_event *ev)
{
    size_t len;
    const char *msg = format_message(st, layout, ev, &len);
    if (!msg)
        return 0;
    char *room = xlog_aq_reserve(&st->queue, len);
    if (!room)
        return 0;
    memcpy(room, msg, len);
    xlog_aq_commit(&st->queue);
    return 1;
}

static const char *reason_text(int reason)
{
    if (reason > 0)
        return strerror(reason);
    return reason < 0 ? gai_strerror(reason) : "the buffer was full";
}

/* Queues the notice of the messages lost since the last one, as a message
 * of the thread of like; 0 if it does not fit. */
static int announce(syslog_sink *st, xlog_layout *layout, int64_t time_ns,
                    const xlog_line_event *like)
{
    uint64_t lost = xlog_aq_unannounced(&st->queue);
    int reason = xlog_load(&st->gap_reason);
    char text[200];
    int len = snprintf(text, sizeof text, "xlog: %llu %s not delivered to syslog: %s%s",
                       (unsigned long long)lost, xlog_plural(lost, "message was", "messages were"),
                       reason ? "sending failed: " : "", reason_text(reason));
    xlog_line_event notice;
    xlog_notice_event(&notice, time_ns, like, text, (size_t)len);
    if (!queue_event(st, layout, &notice))
        return 0;
    xlog_aq_announced(&st->queue, lost);
    __atomic_compare_exchange_n(&st->gap_reason, &reason, 0, 0, __ATOMIC_RELAXED,
                                __ATOMIC_RELAXED);
    return 1;
}

/* A message is lost: count it, and keep why the gap began. */
static void lose(syslog_sink *st, int why)
{
    int none = 0;
    if (why)
        __atomic_compare_exchange_n(&st->gap_reason, &none, why, 0, __ATOMIC_RELAXED,
                                    __ATOMIC_RELAXED);
    xlog_aq_count_lost(&st->queue, 1);
}

static void syslog_write(xlog_sink *s, const xlog_line_event *ev)
{
    syslog_sink *st = s->state;
    /* The notice goes first, so that it stands where the gap is. */
    if ((xlog_aq_unannounced(&st->queue) && !announce(st, s->layout, ev->pub.time_ns, ev)) ||
        !queue_event(st, s->layout, ev))
        lose(st, xlog_load(&st->down_errno));
}

/* Announces drops even when no message follows them, as a message of the
 * back end's thread. */
static void syslog_tick(xlog_sink *s)
{
    syslog_sink *st = s->state;
    if (!xlog_aq_unannounced(&st->queue))
        return;
    xlog_line_event self;
    memset(&self, 0, sizeof self);
    char tid_text[16];
    self.pub.pid = getpid();
    self.pub.tid = gettid();
    self.tid_text = tid_text;
    self.tid_text_length = (size_t)snprintf(tid_text, sizeof tid_text, "%d ", self.pub.tid);
    int64_t now;
    if (st->wall_clock_ns) {
        now = st->wall_clock_ns();
    } else {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        now = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    }
    announce(st, s->layout, now, &self);
}

/* ---- the writer ------------------------------------------------------------------ */

static void disconnect(syslog_sink *st)
{
    int fd = xlog_load(&st->fd);
    if (fd < 0)
        return;
    xlog_store(&st->fd, -1);
    close(fd);
    st->sent_in_first = 0;
}

/* Sending failed: try again later, waiting longer each time. */
static void failed(syslog_sink *st, int err)
{
    disconnect(st);
    xlog_store(&st->down_errno, err);
    st->next_attempt_ms = xlog_aq_now_ms() + st->backoff_ms;
    st->backoff_ms = st->backoff_ms * 2 < BACKOFF_MAX_MS ? st->backoff_ms * 2 : BACKOFF_MAX_MS;
}

/* The collector takes messages: the next failure starts the back-off
 * afresh. */
static void working(syslog_sink *st)
{
    if (xlog_load(&st->down_errno))
        xlog_store(&st->down_errno, 0);
    st->backoff_ms = BACKOFF_FIRST_MS;
}

/* Waits (as the stop allows) for a nonblocking connect; 0 or an errno. */
static int finish_connect(xlog_aq *q, int fd)
{
    int64_t until = xlog_aq_now_ms() + CONNECT_TIMEOUT_MS;
    for (;;) {
        int64_t left = until - xlog_aq_now_ms();
        if (left <= 0 || xlog_aq_state(q) == XLOG_AQ_GIVE_UP)
            return ETIMEDOUT;
        if (xlog_aq_wait(q, 0, fd, POLLOUT, (int)left))
            break;
    }
    int err = 0;
    socklen_t len = sizeof err;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
        err = errno;
    return err;
}

/* A connected socket to the collector, or -1 with the reason in *err. */
static int open_socket(syslog_sink *st, xlog_aq *q, int *err)
{
    if (st->transport == XLOG_SYSLOG_UNIX) {
        struct sockaddr_un sun = {.sun_family = AF_UNIX};
        memcpy(sun.sun_path, st->path, strlen(st->path) + 1);
        int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd >= 0 && connect(fd, (struct sockaddr *)&sun, sizeof sun) == 0)
            return fd;
        *err = errno;
        if (fd >= 0)
            close(fd);
        return -1;
    }
    int type = st->transport == XLOG_SYSLOG_TCP ? SOCK_STREAM : SOCK_DGRAM;
    struct addrinfo hints = {.ai_socktype = type, .ai_flags = AI_NUMERICSERV};
    struct addrinfo *list;
    int rc = getaddrinfo(st->host, st->port, &hints, &list);
    if (rc != 0) {
        *err = rc == EAI_SYSTEM ? errno : rc;
        return -1;
    }
    int fd = -1;
    for (struct addrinfo *ai = list; ai && fd < 0; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                    ai->ai_protocol);
        if (fd < 0) {
            *err = errno;
            continue;
        }
        int e = connect(fd, ai->ai_addr, ai->ai_addrlen) == 0 ? 0 : errno;
        if (e == EINPROGRESS)
            e = finish_connect(q, fd);
        if (e) {
            *err = e;
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(list);
    return fd;
}

/* Connects when the back-off allows; 1 when connected, 0 after waiting
 * for the back-off, -1 when the attempt failed. */
static int connect_collector(syslog_sink *st, xlog_aq *q)
{
    int64_t wait = st->next_attempt_ms - xlog_aq_now_ms();
    if (wait > 0) {
        xlog_aq_wait(q, 0, -1, 0, (int)wait);
        return 0;
    }
    int err = 0;
    int fd = open_socket(st, q, &err);
    if (fd < 0) {
        failed(st, err);
        return -1;
    }
    xlog_store(&st->fd, fd);
    return 1;
}

/* The local socket refuses a datagram as it is sent, and sendmmsg says
 * which one failed (its error comes back at the next call when it had
 * sent some).  UDP learns that a datagram was refused (ICMP port
 * unreachable: no one listens) only afterwards: poll() shows POLLERR and
 * the next send fails instead of sending; sendmmsg would drop that report
 * once it has sent a datagram, so UDP sends one per call.  On the local
 * machine or network the report comes before the next send, so the
 * refused datagram is the one sent last: it is released only once a later
 * send, or a poll after the batch, shows no refusal, and is otherwise sent
 * again after reconnecting.  A report that comes later than that is about
 * a datagram already released: it is counted as lost. */
static void send_datagrams(syslog_sink *st, xlog_aq *q, struct iovec *iov, size_t n)
{
    int fd = xlog_load(&st->fd);
    size_t sent = 0;
    int err = 0;
    if (st->transport == XLOG_SYSLOG_UNIX) {
        struct mmsghdr msgs[BATCH];
        memset(msgs, 0, n * sizeof msgs[0]);
        for (size_t i = 0; i < n; i++) {
            msgs[i].msg_hdr.msg_iov = &iov[i];
            msgs[i].msg_hdr.msg_iovlen = 1;
        }
        int rc = sendmmsg(fd, msgs, (unsigned)n, MSG_DONTWAIT | MSG_NOSIGNAL);
        sent = rc > 0 ? (size_t)rc : 0;
        err = rc < 0 ? errno : 0;
    } else {
        while (sent < n) {
            if (send(fd, iov[sent].iov_base, iov[sent].iov_len, MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
                err = errno;
                break;
            }
            sent++;
        }
        struct pollfd p = {.fd = fd};
        if (!err && poll(&p, 1, 0) == 1 && (p.revents & POLLERR)) {
            socklen_t len = sizeof err;
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
        }
        if (err == ECONNREFUSED) {
            if (sent)
                sent--;
            else
                lose(st, err);
        }
    }
    xlog_aq_release(q, sent);
    if (err == EAGAIN || err == EWOULDBLOCK) {
        working(st);
        xlog_aq_wait(q, 0, fd, POLLOUT, -1); /* the collector's queue is full */
    } else if (err == EMSGSIZE) {
        xlog_aq_release(q, 1);
        lose(st, EMSGSIZE);
    } else if (err && err != EINTR) {
        failed(st, err);
    } else if (sent) {
        working(st);
    }
}

static void send_stream(syslog_sink *st, xlog_aq *q, struct iovec *iov, size_t n)
{
    int fd = xlog_load(&st->fd);
    /* A collector never writes to us: anything to read is its end of the
     * connection.  Seen before sending, it costs no message. */
    char byte;
    ssize_t got = recv(fd, &byte, 1, MSG_DONTWAIT | MSG_PEEK);
    if (got >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
        failed(st, got >= 0 ? ECONNRESET : errno);
        return;
    }
    iov[0].iov_base = (char *)iov[0].iov_base + st->sent_in_first;
    iov[0].iov_len -= st->sent_in_first;
    struct msghdr msg = {.msg_iov = iov, .msg_iovlen = n};
    ssize_t sent = sendmsg(fd, &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (sent > 0) {
        size_t done = 0;
        size_t left = (size_t)sent;
        while (done < n && left >= iov[done].iov_len)
            left -= iov[done++].iov_len;
        st->sent_in_first = done ? left : st->sent_in_first + left;
        xlog_aq_release(q, done);
        working(st);
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
        xlog_aq_wait(q, 0, fd, POLLOUT, -1);
    } else if (errno != EINTR) {
        /* The partly sent message goes again, whole, on the next
         * connection: an octet-counted frame cut by a close is discarded
         * (rsyslog says "Incomplete frame at end of stream"). */
        failed(st, errno);
    }
}

static void writer_main(xlog_aq *q, void *arg)
{
    syslog_sink *st = arg;
    struct iovec iov[BATCH];
    for (;;) {
        int state = xlog_aq_state(q);
        if (state == XLOG_AQ_GIVE_UP)
            break;
        size_t n = xlog_aq_peek(q, iov, BATCH);
        if (n == 0) {
            if (state == XLOG_AQ_DRAINING)
                break;
            xlog_aq_wait(q, 1, -1, 0, -1);
            continue;
        }
        if (state == XLOG_AQ_DRAINING && !st->stop_seen) {
            st->stop_seen = 1; /* one more attempt now, not after the back-off */
            st->next_attempt_ms = 0;
        }
        if (xlog_load(&st->fd) < 0) {
            int connected = connect_collector(st, q);
            /* Stopping and the collector cannot be reached: waiting for
             * the deadline would only delay xlog_close. */
            if (connected < 0 && state == XLOG_AQ_DRAINING)
                break;
            if (connected <= 0)
                continue;
        }
        if (st->transport == XLOG_SYSLOG_TCP)
            send_stream(st, q, iov, n);
        else
            send_datagrams(st, q, iov, n);
    }
    disconnect(st);
}

/* ---- start and stop ------------------------------------------------------------ */

/* Copies a header field, replacing what RFC 5424 does not allow there (and
 * what would end RFC 3164's TAG) by '_'; "-" when empty. */
static void header_field(char *out, size_t max, const char *in, const char *forbidden)
{
    size_t n = 0;
    for (; in[n] && n < max; n++) {
        unsigned char c = (unsigned char)in[n];
        out[n] = c < 33 || c > 126 || strchr(forbidden, c) ? '_' : (char)c;
    }
    if (n == 0)
        out[n++] = '-';
    out[n] = '\0';
}

static void free_state(syslog_sink *st)
{
    free(st->path);
    free(st->host);
    free(st->port);
    free(st->scratch);
    free(st);
}

/* Splits "host:port" or "[v6 address]:port"; 0 or -EINVAL. */
static int split_address(syslog_sink *st, const char *address)
{
    const char *colon = strrchr(address, ':');
    if (!colon || colon == address)
        return -EINVAL;
    const char *host = address, *host_end = colon;
    if (*host == '[') {
        if (host_end[-1] != ']' || host_end - host < 3)
            return -EINVAL;
        host++;
        host_end--;
    }
    char *end;
    errno = 0;
    long port = strtol(colon + 1, &end, 10);
    if (colon[1] < '0' || colon[1] > '9' || *end || errno || port < 1 || port > 65535)
        return -EINVAL;
    st->host = strndup(host, (size_t)(host_end - host));
    st->port = strdup(colon + 1);
    return st->host && st->port ? 0 : -ENOMEM;
}

static int settle(syslog_sink *st, const xlog_config *cfg, const xlog_syslog_config *c)
{
    if (c->transport != XLOG_SYSLOG_UNIX && c->transport != XLOG_SYSLOG_UDP &&
        c->transport != XLOG_SYSLOG_TCP) {
        xlog_set_error("transport %d is not XLOG_SYSLOG_UNIX, _UDP or _TCP",
                       (int)c->transport);
        return -EINVAL;
    }
    if (c->format != XLOG_SYSLOG_AUTO && c->format != XLOG_SYSLOG_RFC5424 &&
        c->format != XLOG_SYSLOG_RFC3164) {
        xlog_set_error("format %d is not XLOG_SYSLOG_AUTO, _RFC5424 or _RFC3164",
                       (int)c->format);
        return -EINVAL;
    }
    if (c->facility < 0 || c->facility > 23) {
        xlog_set_error("facility %d is not between 0 and 23", c->facility);
        return -EINVAL;
    }
    if (c->buffer < 65536) {
        xlog_set_error("buffer %zu is below 64 KiB", c->buffer);
        return -EINVAL;
    }
    st->transport = (int)c->transport;
    st->format = (int)c->format;
    if (st->format == XLOG_SYSLOG_AUTO)
        st->format = st->transport == XLOG_SYSLOG_UNIX ? XLOG_SYSLOG_RFC3164 : XLOG_SYSLOG_RFC5424;
    st->facility = c->facility;
    st->wall_clock_ns = cfg->wall_clock_ns;

    const char *address = c->address;
    if (!address)
        address = st->transport == XLOG_SYSLOG_UNIX ? "/dev/log" : "127.0.0.1:514";
    if (st->transport == XLOG_SYSLOG_UNIX) {
        if (!*address || strlen(address) >= sizeof ((struct sockaddr_un *)0)->sun_path) {
            xlog_set_error("address \"%s\" is not a socket path (1 to 107 bytes)",
                           address);
            return -EINVAL;
        }
        st->path = strdup(address);
        if (!st->path)
            return -ENOMEM;
    } else {
        int rc = split_address(st, address);
        if (rc == -EINVAL)
            xlog_set_error("address \"%s\" is not host:port", address);
        if (rc != 0)
            return rc;
    }

    char host[HOSTNAME_MAX + 1] = "";
    const char *hostname = c->hostname;
    if (!hostname) {
        gethostname(host, sizeof host - 1);
        hostname = host;
    }
    const char *forbidden = st->format == XLOG_SYSLOG_RFC3164 ? ":[]" : "";
    header_field(st->hostname, HOSTNAME_MAX, hostname, "");
    header_field(st->app_name, APP_NAME_MAX,
                 c->app_name ? c->app_name : program_invocation_short_name, forbidden);
    return 0;
}

static int syslog_start(xlog_sink *s, const xlog_config *cfg, const xlog_sink_config *own)
{
    syslog_sink *st = calloc(1, sizeof *st);
    if (!st)
        return -ENOMEM;
    int rc = settle(st, cfg, (const xlog_syslog_config *)own);
    if (rc != 0) {
        free_state(st);
        return rc;
    }
    if (st->format == XLOG_SYSLOG_RFC3164)
        tzset(); /* local time as TZ says at xlog_open */
    st->cached_second = INT64_MIN;
    st->fd = -1;
    st->backoff_ms = BACKOFF_FIRST_MS;
    rc = xlog_aq_start(&st->queue, "xlog-syslog", ((const xlog_syslog_config *)own)->buffer,
                       &messages_dropped, writer_main, st);
    if (rc != 0) {
        xlog_set_error("cannot start its writer (%s)", strerror(-rc));
        free_state(st);
        return rc;
    }
    s->state = st;
    return 0;
}

static void syslog_stop(xlog_sink *s)
{
    syslog_sink *st = s->state;
    syslog_tick(s);
    xlog_aq_stop(&st->queue, STOP_WAIT_MS);
    free_state(st);
    s->state = NULL;
}

/* The child of a fork: the parent's writer, socket and queued messages
 * stay the parent's.  Only the descriptors are closed: the memory is left,
 * since the parent's back end may have been reallocating it (sinks.c starts
 * a new sink when xlog starts again in the child). */
static void syslog_after_fork(xlog_sink *s)
{
    syslog_sink *st = s->state;
    xlog_aq_after_fork(&st->queue);
    int fd = xlog_load(&st->fd);
    if (fd >= 0)
        close(fd);
    s->state = NULL;
}

static void syslog_stats(xlog_counters *out)
{
    out->syslog_dropped += xlog_load(&messages_dropped);
}

const xlog_sink_ops xlog_syslog_sink_ops = {
    .name = "syslog",
    .start = syslog_start,
    .write = syslog_write,
    .tick = syslog_tick,
    .after_fork = syslog_after_fork,
    .stop = syslog_stop,
    .stats = syslog_stats,
};
