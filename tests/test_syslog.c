/*
 * test_syslog.c - the syslog sink: the bytes of each framing, its
 * accounting of what it could not deliver, and delivery to a real rsyslogd
 * over TCP, UDP and the local datagram socket, across a restart of the
 * collector.
 *
 * Two kinds of tests:
 *   - Without rsyslog: the test plays the back end, calling the sink's
 *     functions (sinks/sink.h) with events it builds, and the collector, a
 *     socket of its own, so that it knows the exact bytes and can stop
 *     reading at will.  A few go through xlog_open instead (levels, fork,
 *     configuration errors).
 *   - With rsyslog (syslog/rsyslogd.h): 4 threads x 25,000 messages arrive
 *     exactly once, intact, with their severity; then rsyslogd is stopped
 *     for 2 s while a thread keeps logging, and started again: the messages
 *     logged after the restart arrive, the gap is counted (syslog_dropped)
 *     and announced to the collector, no caller waited (blocked), and
 *     xlog's files hold every message.  Figures (messages per second
 *     delivered, messages lost without a count) are printed, not asserted.
 *
 * MSG is the sink's layout applied to the event: with the default
 * "{message}", the message itself, escaped (a tab arrives as \t).
 */
#include "testutil.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <cmocka.h>

#include <xlog.h>

#include "layouts/layout.h"
#include "sinks/sink.h"
#include "syslog/rsyslogd.h"

/* ---- the test as the back end ------------------------------------------------- */

/* 2026-11-22T14:45:25.123456789Z, the events' time. */
#define EVENT_TIME 1795358725123456789LL

typedef struct test_event {
    xlog_line_event ev;
    char tid_text[16];
} test_event;

static void event_init(test_event *t, int64_t time_ns, int level, int pid, const char *message)
{
    memset(t, 0, sizeof *t);
    t->ev.pub.time_ns = time_ns;
    t->ev.pub.level = level;
    t->ev.pub.pid = pid;
    t->ev.pub.tid = 12345;
    t->ev.pub.file = "src/main.c";
    t->ev.pub.line = 42;
    t->ev.pub.function = "main";
    t->ev.pub.module = "";
    t->ev.pub.format = message;
    t->ev.pub.message = message;
    t->ev.pub.message_length = strlen(message);
    t->ev.file_length = strlen(t->ev.pub.file);
    t->ev.function_length = 4;
    t->ev.where = "main.c:42 main ";
    t->ev.where_length = strlen(t->ev.where);
    snprintf(t->tid_text, sizeof t->tid_text, "%d ", t->ev.pub.tid);
    t->ev.tid_text = t->tid_text;
    t->ev.tid_text_length = strlen(t->tid_text);
}

/* The sink's table (lib/sinks/syslog_sink.c; sinks.c declares it). */
extern const xlog_sink_ops xlog_syslog_sink_ops;

/* A syslog sink started as sinks.c starts it (its layout made first). */
static void sink_start(xlog_sink *s, const xlog_syslog_config *sc)
{
    memset(s, 0, sizeof *s);
    s->ops = &xlog_syslog_sink_ops;
    s->level = sc->sink.level;
    assert_int_equal(
        xlog_layout_create(&s->layout, sc->sink.layout, sc->sink.pattern, "{message}", "test"), 0);
    xlog_config cfg = xlog_defaults();
    assert_int_equal(s->ops->start(s, &cfg, &sc->sink), 0);
}

static void sink_stop(xlog_sink *s)
{
    s->ops->stop(s);
    xlog_layout_destroy(s->layout);
}

static void sink_write(xlog_sink *s, int level, int pid, const char *message)
{
    test_event t;
    event_init(&t, EVENT_TIME, level, pid, message);
    s->ops->write(s, &t.ev);
}

/* What the layout of sc makes of an event, without the '\n': the MSG. */
static char *expected_msg(const xlog_syslog_config *sc, const test_event *t)
{
    xlog_layout *layout;
    assert_int_equal(
        xlog_layout_create(&layout, sc->sink.layout, sc->sink.pattern, "{message}", "test"), 0);
    char *out = malloc(xlog_layout_max_line(layout, t->ev.pub.message_length) + 1);
    size_t n = xlog_layout_write(layout, &t->ev, out);
    assert_true(n > 0 && out[n - 1] == '\n');
    out[n - 1] = '\0';
    xlog_layout_destroy(layout);
    return out;
}

static uint64_t syslog_dropped(void)
{
    xlog_counters counts;
    xlog_stats(&counts);
    return counts.syslog_dropped;
}

/* ---- collectors of the test's own ---------------------------------------------- */

static int unix_collector(const char *path)
{
    int fd = socket(AF_UNIX, SOCK_DGRAM, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    unlink(path);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    return fd;
}

static int inet_collector(int type, char *address, size_t size)
{
    int fd = socket(AF_INET, type, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    if (type == SOCK_STREAM)
        assert_int_equal(listen(fd, 4), 0);
    snprintf(address, size, "127.0.0.1:%d", ntohs(a.sin_port));
    return fd;
}

/* Waits up to 20 s for fd to be readable. */
static int readable(int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    return poll(&p, 1, 20000) == 1;
}

/* One datagram as a C string; fails the test if none comes. */
static char *receive(int fd, char *buf, size_t size)
{
    assert_true(readable(fd));
    ssize_t n = recv(fd, buf, size - 1, 0);
    assert_true(n >= 0);
    buf[n] = '\0';
    return buf;
}

/* A TCP connection's bytes, read as RFC 6587 octet-counted frames. */
typedef struct stream {
    int fd;
    char buf[1 << 16];
    size_t len;
} stream;

static void stream_accept(stream *st, int listener)
{
    assert_true(readable(listener));
    st->fd = accept(listener, NULL, NULL);
    assert_true(st->fd >= 0);
    st->len = 0;
}

/* The next frame's message as a C string; the frame's bytes checked. */
static char *stream_frame(stream *st, char *out, size_t size)
{
    for (;;) {
        char *space = memchr(st->buf, ' ', st->len);
        if (space) {
            *space = '\0';
            for (char *d = st->buf; d < space; d++)
                assert_true(*d >= '0' && *d <= '9');
            assert_true(space > st->buf && st->buf[0] != '0');
            size_t frame = (size_t)atol(st->buf);
            *space = ' ';
            size_t head = (size_t)(space + 1 - st->buf);
            if (st->len >= head + frame) {
                assert_true(frame < size);
                memcpy(out, space + 1, frame);
                out[frame] = '\0';
                memmove(st->buf, st->buf + head + frame, st->len - head - frame);
                st->len -= head + frame;
                return out;
            }
        }
        assert_true(readable(st->fd));
        ssize_t n = recv(st->fd, st->buf + st->len, sizeof st->buf - st->len, 0);
        assert_true(n > 0);
        st->len += (size_t)n;
    }
}

/* ---- framing -------------------------------------------------------------------- */

static xlog_syslog_config config(xlog_syslog_transport transport, xlog_syslog_format format,
                                 const char *address)
{
    xlog_syslog_config sc = xlog_syslog_defaults();
    sc.transport = transport;
    sc.format = format;
    sc.address = address;
    sc.app_name = "app";
    sc.hostname = "web1";
    sc.buffer = 65536;
    return sc;
}

/* Sends one event at each level through sc and checks each message is
 * header + MSG, with the severity of its level; collect reads one. */
static void check_levels(const xlog_syslog_config *sc, const char *const headers[6],
                         char *(*collect)(void *from, char *buf, size_t size), void *from)
{
    xlog_sink s;
    sink_start(&s, sc);
    test_event t[6];
    for (int level = XLOG_TRACE; level <= XLOG_FATAL; level++) {
        event_init(&t[level], EVENT_TIME, level, 4242, "disk \xc3\xa9 full\t!");
        s.ops->write(&s, &t[level].ev);
    }
    for (int level = XLOG_TRACE; level <= XLOG_FATAL; level++) {
        char buf[4096], want[4096];
        char *msg = expected_msg(sc, &t[level]);
        snprintf(want, sizeof want, "%s%s", headers[level], msg);
        free(msg);
        assert_string_equal(collect(from, buf, sizeof buf), want);
    }
    sink_stop(&s);
}

static char *collect_datagram(void *from, char *buf, size_t size)
{
    return receive(*(int *)from, buf, size);
}

static char *collect_frame(void *from, char *buf, size_t size)
{
    return stream_frame(from, buf, size);
}

/* A directory of the test's own, and the path of a socket in it. */
typedef struct socket_place {
    char *dir, *path;
} socket_place;

static socket_place socket_place_make(const char *tag, const char *name)
{
    socket_place sp = {test_make_dir(tag), NULL};
    sp.path = test_path(sp.dir, name);
    return sp;
}

static void socket_place_remove(socket_place *sp)
{
    free(sp->path);
    test_remove_dir(sp->dir);
    free(sp->dir);
}

static void framing_unix_rfc3164_is_local_time_without_hostname(void **state)
{
    (void)state;
    socket_place sp = socket_place_make("syslog-frame", "log.sock");
    int fd = unix_collector(sp.path);
    /* Local time is five and a half hours ahead: 14:45 UTC is 20:15. */
    setenv("TZ", "XLT-5:30", 1);
    xlog_syslog_config sc = config(XLOG_SYSLOG_UNIX, XLOG_SYSLOG_AUTO, sp.path);
    static const char *const headers[6] = {
        "<15>Nov 22 20:15:25 app[4242]: ", "<15>Nov 22 20:15:25 app[4242]: ",
        "<14>Nov 22 20:15:25 app[4242]: ", "<12>Nov 22 20:15:25 app[4242]: ",
        "<11>Nov 22 20:15:25 app[4242]: ", "<10>Nov 22 20:15:25 app[4242]: "};
    check_levels(&sc, headers, collect_datagram, &fd);

    /* A day of one digit is padded with a space; the facility is in PRI. */
    sc.facility = 16;
    xlog_sink s;
    sink_start(&s, &sc);
    test_event t;
    event_init(&t, EVENT_TIME - 20LL * 86400 * 1000000000, XLOG_ERROR, 7, "early");
    s.ops->write(&s, &t.ev);
    char buf[4096], want[4096];
    char *msg = expected_msg(&sc, &t);
    snprintf(want, sizeof want, "<131>Nov  2 20:15:25 app[7]: %s", msg);
    free(msg);
    assert_string_equal(receive(fd, buf, sizeof buf), want);
    sink_stop(&s);
    unsetenv("TZ");
    close(fd);
    socket_place_remove(&sp);
}

static void framing_rfc5424_over_unix_and_udp(void **state)
{
    (void)state;
    static const char *const headers[6] = {
        "<15>1 2026-11-22T14:45:25.123456Z web1 app 4242 - - ",
        "<15>1 2026-11-22T14:45:25.123456Z web1 app 4242 - - ",
        "<14>1 2026-11-22T14:45:25.123456Z web1 app 4242 - - ",
        "<12>1 2026-11-22T14:45:25.123456Z web1 app 4242 - - ",
        "<11>1 2026-11-22T14:45:25.123456Z web1 app 4242 - - ",
        "<10>1 2026-11-22T14:45:25.123456Z web1 app 4242 - - "};
    socket_place sp = socket_place_make("syslog-frame", "log.sock");
    int fd = unix_collector(sp.path);
    xlog_syslog_config sc = config(XLOG_SYSLOG_UNIX, XLOG_SYSLOG_RFC5424, sp.path);
    check_levels(&sc, headers, collect_datagram, &fd);
    close(fd);

    char address[64];
    fd = inet_collector(SOCK_DGRAM, address, sizeof address);
    sc = config(XLOG_SYSLOG_UDP, XLOG_SYSLOG_AUTO, address);
    check_levels(&sc, headers, collect_datagram, &fd);
    close(fd);
    socket_place_remove(&sp);
}

static void framing_rfc3164_over_udp_has_hostname(void **state)
{
    (void)state;
    setenv("TZ", "UTC0", 1);
    static const char *const headers[6] = {
        "<15>Nov 22 14:45:25 web1 app[4242]: ", "<15>Nov 22 14:45:25 web1 app[4242]: ",
        "<14>Nov 22 14:45:25 web1 app[4242]: ", "<12>Nov 22 14:45:25 web1 app[4242]: ",
        "<11>Nov 22 14:45:25 web1 app[4242]: ", "<10>Nov 22 14:45:25 web1 app[4242]: "};
    char address[64];
    int fd = inet_collector(SOCK_DGRAM, address, sizeof address);
    xlog_syslog_config sc = config(XLOG_SYSLOG_UDP, XLOG_SYSLOG_RFC3164, address);
    check_levels(&sc, headers, collect_datagram, &fd);
    close(fd);
    unsetenv("TZ");
}

static void framing_tcp_octet_counting(void **state)
{
    (void)state;
    static const char *const headers[6] = {
        "<15>1 2026-11-22T14:45:25.123456Z web1 app 4242 - - ",
        "<15>1 2026-11-22T14:45:25.123456Z web1 app 4242 - - ",
        "<14>1 2026-11-22T14:45:25.123456Z web1 app 4242 - - ",
        "<12>1 2026-11-22T14:45:25.123456Z web1 app 4242 - - ",
        "<11>1 2026-11-22T14:45:25.123456Z web1 app 4242 - - ",
        "<10>1 2026-11-22T14:45:25.123456Z web1 app 4242 - - "};
    char address[64];
    int listener = inet_collector(SOCK_STREAM, address, sizeof address);
    xlog_syslog_config sc = config(XLOG_SYSLOG_TCP, XLOG_SYSLOG_AUTO, address);
    static stream st;
    stream *from = &st;
    xlog_sink s;
    char buf[4096];
    /* The sink connects when it has something to send. */
    sink_start(&s, &sc);
    test_event t[6];
    for (int level = XLOG_TRACE; level <= XLOG_FATAL; level++) {
        event_init(&t[level], EVENT_TIME, level, 4242, "disk \xc3\xa9 full\t!");
        s.ops->write(&s, &t[level].ev);
    }
    stream_accept(from, listener);
    for (int level = XLOG_TRACE; level <= XLOG_FATAL; level++) {
        char want[4096];
        char *msg = expected_msg(&sc, &t[level]);
        snprintf(want, sizeof want, "%s%s", headers[level], msg);
        free(msg);
        assert_string_equal(collect_frame(from, buf, sizeof buf), want);
    }
    /* Every byte is in a frame whose length counts bytes (the MSG holds
     * two-byte characters). */
    assert_true(from->len == 0);
    sink_stop(&s);
    close(from->fd);
    close(listener);
}

static void header_fields_keep_to_the_rfcs(void **state)
{
    (void)state;
    char address[64];
    int fd = inet_collector(SOCK_DGRAM, address, sizeof address);
    xlog_syslog_config sc = config(XLOG_SYSLOG_UDP, XLOG_SYSLOG_RFC5424, address);
    sc.app_name = "my app:[x]\xc3\xa9";
    sc.hostname = "web 1";
    xlog_sink s;
    sink_start(&s, &sc);
    sink_write(&s, XLOG_INFO, 9, "m");
    char buf[4096];
    assert_non_null(strstr(receive(fd, buf, sizeof buf), " web_1 my_app:[x]__ 9 - - "));
    sink_stop(&s);

    setenv("TZ", "UTC0", 1);
    sc.format = XLOG_SYSLOG_RFC3164;
    sc.app_name = "";
    sink_start(&s, &sc);
    sink_write(&s, XLOG_INFO, 9, "m");
    assert_non_null(strstr(receive(fd, buf, sizeof buf), ":25 web_1 -[9]: "));
    sink_stop(&s);
    sc.app_name = "a:b[c]";
    sink_start(&s, &sc);
    sink_write(&s, XLOG_INFO, 9, "m");
    assert_non_null(strstr(receive(fd, buf, sizeof buf), ":25 web_1 a_b_c_[9]: "));
    sink_stop(&s);
    unsetenv("TZ");
    close(fd);
}

/* Each sink has its layout: a pattern, or JSON (one object per message). */
static void layout_is_the_sinks_own(void **state)
{
    (void)state;
    char address[64];
    int fd = inet_collector(SOCK_DGRAM, address, sizeof address);
    xlog_syslog_config sc = config(XLOG_SYSLOG_UDP, XLOG_SYSLOG_AUTO, address);
    char buf[4096];
    sc.sink.pattern = "{level} {file}:{line} {message}";
    xlog_sink s;
    sink_start(&s, &sc);
    sink_write(&s, XLOG_ERROR, 4242, "disk\nfull");
    assert_string_equal(receive(fd, buf, sizeof buf),
                        "<11>1 2026-11-22T14:45:25.123456Z web1 app 4242 - - "
                        "ERROR main.c:42 disk\\nfull");
    sink_stop(&s);

    sc.sink.pattern = NULL;
    sc.sink.layout = XLOG_LAYOUT_JSON;
    sink_start(&s, &sc);
    test_event t;
    event_init(&t, EVENT_TIME, XLOG_WARN, 4242, "disk \xc3\xa9 \"full\"\n");
    s.ops->write(&s, &t.ev);
    char want[4096];
    char *msg = expected_msg(&sc, &t);
    snprintf(want, sizeof want, "<12>1 2026-11-22T14:45:25.123456Z web1 app 4242 - - %s", msg);
    free(msg);
    assert_string_equal(receive(fd, buf, sizeof buf), want);
    const char *json = strstr(buf, " - - ") + 5;
    assert_true(json[0] == '{' && json[strlen(json) - 1] == '}');
    assert_non_null(strstr(json, "\"body\":\"disk \xc3\xa9 \\\"full\\\"\\n\""));
    assert_non_null(strstr(json, "\"severity_text\":\"WARN\""));
    sink_stop(&s);
    close(fd);
}

/* ---- accounting without rsyslog ---------------------------------------------------- */

/* "xlog: N messages were not delivered to syslog: <why>" in buf: N, or -1.
 * Its words up to the reason are checked whole ("1 message was"). */
static long long notice_count(const char *buf)
{
    const char *p = strstr(buf, "xlog: ");
    long long n;
    char rest[64];
    if (!p || sscanf(p, "xlog: %lld %*s %*s not delivered to syslog: %63[^\n]", &n, rest) != 2)
        return -1;
    char words[96];
    int length = snprintf(words, sizeof words, "xlog: %lld %s not delivered to syslog: ", n,
                          test_plural((unsigned long long)n, "message was", "messages were"));
    if (strncmp(p, words, (size_t)length) != 0)
        fail_msg("a notice '%.*s', not '%s<why>'", (int)strcspn(p, "\n"), p, words);
    return n;
}

/* What a collector of the test's own has read: messages "xlogtest n=N"
 * (increasing: none repeated or out of order) and notices of xlog's own. */
typedef struct reader {
    int fd;
    int messages;
    int last_n;
    long long notices; /* their N, added up */
} reader;

/* Reads until count more messages came, or (count < 0) until the one that
 * ends in "xlogtest last". */
static void read_messages(reader *r, int count)
{
    char buf[4096];
    for (int got = 0; count < 0 || got < count;) {
        receive(r->fd, buf, sizeof buf);
        long long n = notice_count(buf);
        if (n >= 0) {
            assert_true(strncmp(buf, "<12>1 ", 6) == 0); /* a warning */
            r->notices += n;
            continue;
        }
        const char *p = strstr(buf, "xlogtest ");
        assert_non_null(p);
        if (count < 0 && strcmp(p, "xlogtest last") == 0)
            return;
        int i;
        assert_int_equal(sscanf(p, "xlogtest n=%d ", &i), 1);
        assert_true(i > r->last_n);
        r->last_n = i;
        r->messages++;
        got++;
    }
}

/* Writes n messages "xlogtest n=<i> " and 100 zeros: more than a socket
 * queue holds at once, each numbered for read_messages. */
static void write_numbered(xlog_sink *s, int n)
{
    for (int i = 0; i < n; i++) {
        char msg[160];
        snprintf(msg, sizeof msg, "xlogtest n=%d %0100d", i, 0);
        sink_write(s, XLOG_INFO, 1, msg);
    }
}

/* The collector on fd reads the `kept` numbered messages in order; one
 * more message brings the notice of those dropped, and the notices
 * received count all `dropped`. */
static void expect_kept_then_dropped_announced(xlog_sink *s, int fd, int kept, uint64_t dropped)
{
    reader r = {.fd = fd, .last_n = -1};
    read_messages(&r, kept);
    sink_write(s, XLOG_INFO, 1, "xlogtest last");
    read_messages(&r, -1);
    assert_int_equal(r.notices, (long long)dropped);
}

/* A collector that stops reading: what does not fit in the queue is dropped
 * and counted; once it reads again, everything kept arrives in order, and
 * the notices (the one the next message brings, and any that found room
 * earlier, where the gaps are) add up to the count.  A local socket loses
 * nothing silently, so received + counted is everything. */
static void drops_are_counted_and_announced(void **state)
{
    (void)state;
    socket_place sp = socket_place_make("syslog-drops", "log.sock");
    int fd = unix_collector(sp.path);
    xlog_syslog_config sc = config(XLOG_SYSLOG_UNIX, XLOG_SYSLOG_RFC5424, sp.path);
    xlog_sink s;
    sink_start(&s, &sc);
    uint64_t before = syslog_dropped();
    const int n = 3000;
    write_numbered(&s, n);
    uint64_t dropped = syslog_dropped() - before;
    assert_true(dropped > 0 && dropped < (uint64_t)n);
    expect_kept_then_dropped_announced(&s, fd, n - (int)dropped, dropped);
    char buf[4096];
    /* Announced once. */
    sink_write(&s, XLOG_INFO, 1, "xlogtest after");
    assert_non_null(strstr(receive(fd, buf, sizeof buf), "xlogtest after"));
    sink_stop(&s);
    assert_int_equal(syslog_dropped() - before, dropped);
    close(fd);
    socket_place_remove(&sp);
}

/* xlog_close gives a collector that never reads a second, then counts what
 * is left: what it received plus what was counted is everything. */
static void stop_gives_up_on_a_collector_that_never_reads(void **state)
{
    (void)state;
    socket_place sp = socket_place_make("syslog-stop", "log.sock");
    int fd = unix_collector(sp.path);
    xlog_syslog_config sc = config(XLOG_SYSLOG_UNIX, XLOG_SYSLOG_RFC5424, sp.path);
    xlog_sink s;
    sink_start(&s, &sc);
    uint64_t before = syslog_dropped();
    const int n = 200;
    for (int i = 0; i < n; i++)
        sink_write(&s, XLOG_INFO, 1, "xlogtest never read");
    sink_stop(&s);
    uint64_t dropped = syslog_dropped() - before;
    int received = 0;
    char buf[4096];
    while (recv(fd, buf, sizeof buf, MSG_DONTWAIT) > 0)
        received++;
    assert_true(received > 0 && dropped > 0);
    assert_int_equal(received + (int)dropped, n);
    close(fd);
    socket_place_remove(&sp);
}

/* No /dev/log (no syslog daemon): nothing waits, every message is counted. */
static void missing_socket_counts_every_message(void **state)
{
    (void)state;
    socket_place sp = socket_place_make("syslog-missing", "no-such.sock");
    xlog_syslog_config sc = config(XLOG_SYSLOG_UNIX, XLOG_SYSLOG_AUTO, sp.path);
    xlog_sink s;
    sink_start(&s, &sc);
    uint64_t before = syslog_dropped();
    const int n = 5000;
    for (int i = 0; i < n; i++)
        sink_write(&s, XLOG_ERROR, 1, "xlogtest nobody listens");
    sink_stop(&s);
    assert_int_equal(syslog_dropped() - before, (uint64_t)n);
    socket_place_remove(&sp);
}

/* A socket that appears later (the daemon starts after the program): the
 * messages kept arrive, then the notice of those that did not fit. */
static void socket_appearing_later_gets_kept_messages_and_notice(void **state)
{
    (void)state;
    socket_place sp = socket_place_make("syslog-later", "log.sock");
    xlog_syslog_config sc = config(XLOG_SYSLOG_UNIX, XLOG_SYSLOG_RFC5424, sp.path);
    xlog_sink s;
    sink_start(&s, &sc);
    uint64_t before = syslog_dropped();
    const int n = 3000;
    write_numbered(&s, n);
    uint64_t dropped = syslog_dropped() - before;
    assert_true(dropped > 0);
    int fd = unix_collector(sp.path);
    expect_kept_then_dropped_announced(&s, fd, n - (int)dropped, dropped);
    sink_stop(&s);
    close(fd);
    socket_place_remove(&sp);
}

/* The collector closes the connection (a restart): the sink notices before
 * its next send, connects again, and nothing is lost or repeated. */
static void tcp_reconnects_after_the_collector_closes(void **state)
{
    (void)state;
    char address[64];
    int listener = inet_collector(SOCK_STREAM, address, sizeof address);
    xlog_syslog_config sc = config(XLOG_SYSLOG_TCP, XLOG_SYSLOG_AUTO, address);
    static stream st;
    xlog_sink s;
    sink_start(&s, &sc);
    char buf[4096];
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 100; i++) {
            char msg[64];
            snprintf(msg, sizeof msg, "xlogtest round=%d n=%d", round, i);
            sink_write(&s, XLOG_INFO, 1, msg);
        }
        stream_accept(&st, listener);
        for (int i = 0; i < 100; i++) {
            char want[64];
            snprintf(want, sizeof want, "xlogtest round=%d n=%d", round, i);
            assert_string_equal(strstr(stream_frame(&st, buf, sizeof buf), " - - ") + 5, want);
        }
        close(st.fd);
    }
    uint64_t before = syslog_dropped();
    sink_stop(&s);
    assert_int_equal(syslog_dropped(), before);
    close(listener);
}

/* ---- through xlog_open ----------------------------------------------------------- */

static char *open_logging_to(xlog_syslog_config *sc, const char *tag)
{
    char *dir = test_make_dir(tag);
    static const xlog_sink_config *sinks[2];
    sinks[0] = &sc->sink;
    sinks[1] = NULL;
    xlog_config cfg = test_config_in(dir);
    cfg.level = XLOG_TRACE;
    cfg.sinks = sinks;
    int rc = xlog_open(&cfg);
    if (rc != 0)
        fail_msg("xlog_open: %s", xlog_last_error());
    return dir;
}

/* The sink's own level: the files get every message, syslog those at or
 * above WARN, with their severities. */
static void sink_level_is_its_own(void **state)
{
    (void)state;
    char address[64];
    int fd = inet_collector(SOCK_DGRAM, address, sizeof address);
    xlog_syslog_config sc = config(XLOG_SYSLOG_UDP, XLOG_SYSLOG_AUTO, address);
    sc.sink.level = XLOG_WARN;
    char *dir = open_logging_to(&sc, "syslog-level");
    for (int level = XLOG_TRACE; level <= XLOG_FATAL; level++)
        XLOG(level, "xlogtest level %d", level);
    assert_int_equal(xlog_close(), 0);
    char buf[4096];
    static const char *const pri[] = {"<12>1 ", "<11>1 ", "<10>1 "};
    for (int level = XLOG_WARN; level <= XLOG_FATAL; level++) {
        char want[64];
        snprintf(want, sizeof want, "xlogtest level %d", level);
        receive(fd, buf, sizeof buf);
        assert_true(strncmp(buf, pri[level - XLOG_WARN], 6) == 0);
        assert_string_equal(strstr(buf, " - - ") + 5, want);
    }
    assert_true(recv(fd, buf, sizeof buf, MSG_DONTWAIT) < 0);
    size_t len;
    char *text = test_read_dir(dir, &len);
    assert_int_equal(test_count_of(text, "xlogtest level "), 6);
    free(text);
    close(fd);
    test_drop_dir(dir);
}


/* fork(): the child's sink starts afresh, and never sends the parent's
 * messages again. */
static void fork_child_sends_only_its_own(void **state)
{
    (void)state;
    SKIP_IF_SANITIZER_CANNOT_FORK();
    char address[64];
    int fd = inet_collector(SOCK_DGRAM, address, sizeof address);
    int room = 4 << 20;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &room, sizeof room);
    xlog_syslog_config sc = config(XLOG_SYSLOG_UDP, XLOG_SYSLOG_AUTO, address);
    sc.buffer = 4 << 20;
    char *dir = open_logging_to(&sc, "syslog-fork");
    const int n = 1000;
    for (int i = 0; i < n; i++)
        xlog_info("xlogtest parent n=%d", i);
    pid_t child = fork();
    if (child == 0) {
        xlog_info("xlogtest child");
        xlog_close();
        _exit(0);
    }
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    xlog_info("xlogtest parent after");
    assert_int_equal(xlog_close(), 0);

    char *seen = calloc((size_t)n, 1);
    int child_lines = 0, after = 0;
    char buf[4096], want[64];
    snprintf(want, sizeof want, " %d - - ", (int)child);
    ssize_t got;
    while (readable(fd) && (got = recv(fd, buf, sizeof buf - 1, MSG_DONTWAIT)) > 0) {
        buf[got] = '\0';
        int i;
        const char *p = strstr(buf, "xlogtest ");
        assert_non_null(p);
        if (sscanf(p, "xlogtest parent n=%d", &i) == 1) {
            assert_true(i >= 0 && i < n && !seen[i]);
            seen[i] = 1;
        } else if (strcmp(p, "xlogtest child") == 0) {
            assert_non_null(strstr(buf, want)); /* the child's pid */
            child_lines++;
        } else {
            assert_string_equal(p, "xlogtest parent after");
            after++;
            break;
        }
    }
    for (int i = 0; i < n; i++)
        assert_true(seen[i]);
    assert_int_equal(child_lines, 1);
    assert_int_equal(after, 1);
    free(seen);
    close(fd);
    test_drop_dir(dir);
}

static void open_refuses_a_bad_configuration(void **state)
{
    (void)state;
    static const struct {
        int transport, facility;
        size_t buffer;
        const char *address, *error;
    } bad[] = {
        {XLOG_SYSLOG_UDP, 24, 65536, NULL, "facility 24 is not between 0 and 23"},
        {XLOG_SYSLOG_UDP, 1, 65535, NULL, "buffer 65535 is below 64 KiB"},
        {XLOG_SYSLOG_TCP, 1, 65536, "localhost", "address \"localhost\" is not host:port"},
        {XLOG_SYSLOG_TCP, 1, 65536, "[::1:514", "is not host:port"},
        {XLOG_SYSLOG_UDP, 1, 65536, "h:65536", "is not host:port"},
        {XLOG_SYSLOG_UNIX, 1, 65536, "", "is not a socket path"},
        {7, 1, 65536, NULL, "transport 7 is not"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        xlog_syslog_config sc = xlog_syslog_defaults();
        sc.transport = bad[i].transport;
        sc.facility = bad[i].facility;
        sc.buffer = bad[i].buffer;
        sc.address = bad[i].address;
        const xlog_sink_config *sinks[] = {&sc.sink, NULL};
        char *dir = test_make_dir("syslog-bad");
        xlog_config cfg = xlog_defaults();
        cfg.dir = dir;
        cfg.sinks = sinks;
        assert_int_equal(xlog_open(&cfg), -EINVAL);
        if (!strstr(xlog_last_error(), bad[i].error))
            fail_msg("%s: wanted \"%s\"", xlog_last_error(), bad[i].error);
        assert_non_null(strstr(xlog_last_error(), "cfg.sinks[0] (syslog)"));
        test_drop_dir(dir);
    }
}

/* A failed check leaves a test early: do not leave xlog open for the next. */
static int close_xlog(void **state)
{
    (void)state;
    xlog_close();
    return 0;
}

/* ---- a real rsyslogd ------------------------------------------------------------- */

static rsyslogd collector;
static char *collector_dir;

static int start_rsyslogd(void **state)
{
    (void)state;
    collector_dir = test_make_dir("syslog-rsyslogd");
    if (rsyslogd_setup(&collector, collector_dir) != 0 || rsyslogd_start(&collector) != 0)
        return -1;
    return 0;
}

static int stop_rsyslogd(void **state)
{
    (void)state;
    rsyslogd_stop(&collector);
    if (!getenv("XLOG_KEEP_TEST_DIRS")) {
        char *work = test_path(collector_dir, "work");
        test_drop_dir(work);
        test_remove_dir(collector_dir);
    }
    free(collector_dir);
    return 0;
}

/* Messages "xlogtest t=T n=N <payload>": the payload varies in length and
 * holds UTF-8 and a tab (which the layout escapes as \t). */
static const char *payload(int n, char *buf, size_t size)
{
    snprintf(buf, size, "%.*s \xc3\xa9\xe2\x82\xac", n % 41, "abcdefghijklmnopqrstuvwxyz0123456789ABCDE");
    return buf;
}

static int level_of(int n)
{
    return n % 6;
}

static void log_one(int t, int n)
{
    char p[64];
    XLOG(level_of(n), "xlogtest t=%d n=%d %s\tend", t, n, payload(n, p, sizeof p));
}

/* What rsyslogd wrote for one message (the template's fields). */
typedef struct received {
    int severity, facility, t, n;
    char app[64];
    long procid;
    int intact;      /* the message is exactly what was logged */
    long long notice; /* N of a notice of xlog's own, or -1 */
} received;

/* Parses "sev|fac|app|procid|msg"; 0 for a line that is not one of ours. */
static int parse_received(char *line, received *r)
{
    memset(r, 0, sizeof *r);
    r->notice = -1;
    char *f[5];
    for (int i = 0; i < 4; i++) {
        f[i] = line;
        line = strchr(line, '|');
        if (!line)
            return 0;
        *line++ = '\0';
    }
    f[4] = line;
    r->severity = atoi(f[0]);
    r->facility = atoi(f[1]);
    snprintf(r->app, sizeof r->app, "%s", f[2]);
    r->procid = atol(f[3]);
    char *msg = f[4][0] == ' ' ? f[4] + 1 : f[4]; /* RFC 3164's MSG keeps the space after the TAG */
    r->notice = notice_count(msg);
    if (r->notice >= 0)
        return 1;
    if (sscanf(msg, "xlogtest t=%d n=%d", &r->t, &r->n) != 2)
        return 0;
    char want[160], pl[64];
    snprintf(want, sizeof want, "xlogtest t=%d n=%d %s\\tend", r->t, r->n,
             payload(r->n, pl, sizeof pl));
    r->intact = strcmp(msg, want) == 0;
    return 1;
}

/* Calls each(r, arg) for every complete line of ours in path. */
static size_t read_received(const char *path, void (*each)(const received *, void *), void *arg)
{
    size_t len;
    char *text = test_read_file(path, &len);
    size_t count = 0;
    if (!text)
        return 0;
    char *line = text;
    for (char *nl; (nl = strchr(line, '\n')); line = nl + 1) {
        *nl = '\0';
        received r;
        if (parse_received(line, &r)) {
            each(&r, arg);
            count++;
        }
    }
    free(text);
    return count;
}

/* The tally of one run of messages t = first .. first + threads - 1. */
typedef struct tally {
    int first, threads, per_thread;
    int *seen;         /* [t * per_thread + n] */
    int *last_n;       /* per thread, for the order */
    long long notices; /* sum of the notices' N */
    int notice_count;
    long wrong_severity, not_intact, out_of_order, foreign, duplicates, total;
} tally;

static void tally_reset(tally *y)
{
    memset(y->seen, 0, (size_t)y->threads * (size_t)y->per_thread * sizeof *y->seen);
    for (int t = 0; t < y->threads; t++)
        y->last_n[t] = -1;
    y->notices = y->notice_count = 0;
    y->wrong_severity = y->not_intact = y->out_of_order = y->foreign = y->duplicates = y->total = 0;
}

static void tally_init(tally *y, int first, int threads, int per_thread)
{
    y->first = first;
    y->threads = threads;
    y->per_thread = per_thread;
    y->seen = calloc((size_t)threads * (size_t)per_thread, sizeof *y->seen);
    y->last_n = calloc((size_t)threads, sizeof *y->last_n);
    tally_reset(y);
}

static void tally_free(tally *y)
{
    free(y->seen);
    free(y->last_n);
}

static void tally_one(const received *r, void *arg)
{
    static const int severity_of_level[] = {7, 7, 6, 4, 3, 2};
    tally *y = arg;
    if (r->notice >= 0) {
        y->notices += r->notice;
        y->notice_count++;
        y->wrong_severity += r->severity != 4;
        return;
    }
    int t = r->t - y->first;
    if (t < 0 || t >= y->threads)
        return; /* another test's */
    if (r->n < 0 || r->n >= y->per_thread || strcmp(r->app, program_invocation_short_name) != 0 ||
        r->procid != getpid() || r->facility != 1) {
        y->foreign++;
        return;
    }
    y->total++;
    y->duplicates += y->seen[t * y->per_thread + r->n]++ > 0;
    y->wrong_severity += r->severity != severity_of_level[level_of(r->n)];
    y->not_intact += !r->intact;
    y->out_of_order += r->n <= y->last_n[t];
    y->last_n[t] = r->n;
}

static void tally_file(tally *y, const char *path)
{
    tally_reset(y);
    read_received(path, tally_one, y);
}

/* Counts the messages of the run in xlog's own files, each at most once. */
static long files_count(const char *dir, tally *y)
{
    size_t len;
    char *text = test_read_dir(dir, &len);
    memset(y->seen, 0, (size_t)y->threads * (size_t)y->per_thread * sizeof *y->seen);
    long count = 0;
    for (char *p = text; (p = strstr(p, "xlogtest t=")); p++) {
        /* Not sscanf: it measures the whole rest of the text each time. */
        char *end;
        int t = (int)strtol(p + strlen("xlogtest t="), &end, 10);
        if (strncmp(end, " n=", 3) != 0)
            continue;
        int n = (int)strtol(end + 3, &end, 10);
        t -= y->first;
        if (t >= 0 && t < y->threads && n >= 0 && n < y->per_thread &&
            y->seen[t * y->per_thread + n]++ == 0)
            count++;
    }
    free(text);
    return count;
}

typedef struct logger {
    int t, count;
    int *stop;        /* NULL: log count messages; else until *stop */
    unsigned pause_us;
} logger;

static void *logger_main(void *arg)
{
    logger *l = arg;
    int n = 0;
    for (; l->stop ? !__atomic_load_n(l->stop, __ATOMIC_ACQUIRE) : n < l->count; n++) {
        log_one(l->t, n);
        if (l->pause_us) {
            struct timespec pause = {0, (long)l->pause_us * 1000};
            nanosleep(&pause, NULL);
        }
    }
    l->count = n;
    return NULL;
}

static const char *out_of(int transport)
{
    return transport == XLOG_SYSLOG_TCP   ? collector.tcp_out
           : transport == XLOG_SYSLOG_UDP ? collector.udp_out
                                          : collector.unix_out;
}

static const char *name_of(int transport)
{
    return transport == XLOG_SYSLOG_TCP ? "tcp" : transport == XLOG_SYSLOG_UDP ? "udp" : "unix";
}

static xlog_syslog_config rsyslog_config(int transport, size_t buffer)
{
    xlog_syslog_config sc = xlog_syslog_defaults();
    sc.transport = transport;
    static char address[sizeof collector.socket_path];
    if (transport == XLOG_SYSLOG_UNIX)
        memcpy(address, collector.socket_path, sizeof address);
    else
        snprintf(address, sizeof address, "127.0.0.1:%d",
                 transport == XLOG_SYSLOG_TCP ? collector.tcp_port : collector.udp_port);
    sc.address = address;
    sc.buffer = buffer;
    return sc;
}

/* 4 threads x 25,000 messages: each arrives exactly once, intact, in its
 * thread's order, with its severity (over UDP: every datagram the sink sent
 * arrived or was dropped by the kernel on rsyslogd's full socket, which
 * /proc/net/udp counts). */
static void steady(int transport)
{
    const int threads = 4, per_thread = (int)test_scaled(25000);
    const long total = (long)threads * per_thread;
    /* Room for the whole burst: the collector may be slower than the
     * threads, and this run is about delivery, not drops. */
    xlog_syslog_config sc = rsyslog_config(transport, (size_t)64 << 20);
    char *dir = open_logging_to(&sc, "syslog-steady");
    uint64_t dropped_before = syslog_dropped();
    long udp_drops_before = transport == XLOG_SYSLOG_UDP ? rsyslogd_udp_drops(collector.udp_port) : 0;
    int64_t start = rsyslogd_now_ms();
    pthread_t th[4];
    logger lg[4];
    for (int t = 0; t < threads; t++) {
        lg[t] = (logger){.t = transport * 10 + t, .count = per_thread};
        pthread_create(&th[t], NULL, logger_main, &lg[t]);
    }
    for (int t = 0; t < threads; t++)
        pthread_join(th[t], NULL);
    assert_int_equal(xlog_flush(), 0);

    tally y;
    tally_init(&y, transport * 10, threads, per_thread);
    long udp_drops = 0;
    int64_t until = rsyslogd_now_ms() + 120000;
    for (;;) {
        tally_file(&y, out_of(transport));
        uint64_t dropped = syslog_dropped() - dropped_before;
        if (transport == XLOG_SYSLOG_UDP)
            udp_drops = rsyslogd_udp_drops(collector.udp_port) - udp_drops_before;
        if (y.total + udp_drops + (long)dropped >= total || rsyslogd_now_ms() > until)
            break;
        rsyslogd_pause_ms(50);
    }
    int64_t elapsed = rsyslogd_now_ms() - start;
    uint64_t dropped = syslog_dropped() - dropped_before;
    assert_int_equal(xlog_close(), 0);
    print_message("%s: %ld messages delivered to rsyslogd in %.2f s: %.0f messages/s "
                  "(sink drops %llu, kernel drops on rsyslogd's socket %ld)\n",
                  name_of(transport), y.total, (double)elapsed / 1000,
                  (double)y.total * 1000 / (double)(elapsed ? elapsed : 1),
                  (unsigned long long)dropped, udp_drops);
    assert_int_equal(dropped, 0);
    assert_int_equal(y.total + udp_drops, total);
    if (transport != XLOG_SYSLOG_UDP)
        assert_int_equal(udp_drops, 0);
    assert_int_equal(y.duplicates, 0);
    assert_int_equal(y.not_intact, 0);
    assert_int_equal(y.wrong_severity, 0);
    assert_int_equal(y.out_of_order, 0);
    assert_int_equal(y.foreign, 0);
    assert_int_equal(y.notice_count, 0);
    assert_int_equal(files_count(dir, &y), total);
    tally_free(&y);
    test_drop_dir(dir);
}

/* Waits until the run's tally in the output satisfies done(). */
static void wait_for(tally *y, int transport, int (*done)(const tally *, void *), void *arg)
{
    for (int64_t until = rsyslogd_now_ms() + 60000;; rsyslogd_pause_ms(50)) {
        tally_file(y, out_of(transport));
        if (done(y, arg))
            return;
        if (rsyslogd_now_ms() > until)
            fail_msg("%s: rsyslogd's output still lacks what the test waits for", name_of(transport));
    }
}

static int has_some(const tally *y, void *arg)
{
    (void)arg;
    return y->total >= 10;
}

static int has_notice(const tally *y, void *arg)
{
    (void)arg;
    return y->notice_count > 0;
}

static int has_all_of_last(const tally *y, void *arg)
{
    int last = *(int *)arg;
    for (int n = 0; n < last; n++)
        if (!y->seen[1 * y->per_thread + n])
            return 0;
    return 1;
}

/* rsyslogd stops for 2 s while a thread keeps logging, and starts again:
 * the messages after the restart arrive, the gap is counted and announced,
 * no caller waited, and xlog's files are complete. */
static void outage(int transport)
{
    /* A small buffer, so that the outage overflows it. */
    xlog_syslog_config sc = rsyslog_config(transport, 65536);
    char *dir = open_logging_to(&sc, "syslog-outage");
    const int first = 100 + transport * 10;
    const int most = 1 << 20, last = 100;
    tally y;
    tally_init(&y, first, 2, most);
    uint64_t dropped_before = syslog_dropped();
    int stop = 0;
    logger during = {.t = first, .stop = &stop, .pause_us = 100};
    pthread_t th;
    pthread_create(&th, NULL, logger_main, &during);
    wait_for(&y, transport, has_some, NULL);

    xlog_counters before, after;
    xlog_stats(&before);
    int64_t stopping = rsyslogd_now_ms();
    rsyslogd_stop(&collector);
    int64_t stop_ms = rsyslogd_now_ms() - stopping;
    rsyslogd_pause_ms(2000);
    assert_int_equal(rsyslogd_start(&collector), 0);
    wait_for(&y, transport, has_notice, NULL);
    __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
    pthread_join(th, NULL);
    xlog_stats(&after);

    /* Messages logged after the restart, once delivery works again. */
    for (int n = 0; n < last; n++)
        log_one(first + 1, n);
    assert_int_equal(xlog_flush(), 0);
    int want = last;
    wait_for(&y, transport, has_all_of_last, &want);
    assert_int_equal(xlog_close(), 0);
    uint64_t dropped = syslog_dropped() - dropped_before;
    tally_file(&y, out_of(transport));
    long logged = during.count + last;
    long lost_uncounted = logged - y.total - (long)dropped;
    print_message("%s outage: %d logged during, %ld received, %llu counted as not delivered, "
                  "%lld of them announced in %d notice(s), %ld lost without a count "
                  "(rsyslogd took %lld ms to stop)\n",
                  name_of(transport), during.count, y.total - last, (unsigned long long)dropped,
                  y.notices, y.notice_count, lost_uncounted, (long long)stop_ms);
    assert_int_equal(after.blocked, before.blocked);
    assert_true(dropped > 0);
    /* Announced; but a notice sent when the collector is dying is lost
     * with the other messages in flight (always possible over UDP, where
     * a send to a closed port succeeds), so the notices that arrive may
     * account for fewer than were counted. */
    assert_true(y.notice_count > 0);
    assert_true(y.notices > 0 && y.notices <= (long long)dropped);
    assert_int_equal(y.duplicates, 0);
    assert_int_equal(y.not_intact, 0);
    assert_int_equal(y.wrong_severity, 0);
    assert_int_equal(y.out_of_order, 0);
    assert_int_equal(y.foreign, 0);
    assert_true(lost_uncounted >= 0);
    assert_int_equal(files_count(dir, &y), logged);
    tally_free(&y);
    test_drop_dir(dir);
}

static void rsyslog_tcp(void **state)
{
    (void)state;
    steady(XLOG_SYSLOG_TCP);
    outage(XLOG_SYSLOG_TCP);
}

static void rsyslog_udp(void **state)
{
    (void)state;
    steady(XLOG_SYSLOG_UDP);
    outage(XLOG_SYSLOG_UDP);
}

static void rsyslog_unix(void **state)
{
    (void)state;
    steady(XLOG_SYSLOG_UNIX);
    outage(XLOG_SYSLOG_UNIX);
}

int main(void)
{
    const struct CMUnitTest own_collector[] = {
        cmocka_unit_test(framing_unix_rfc3164_is_local_time_without_hostname),
        cmocka_unit_test(framing_rfc5424_over_unix_and_udp),
        cmocka_unit_test(framing_rfc3164_over_udp_has_hostname),
        cmocka_unit_test(framing_tcp_octet_counting),
        cmocka_unit_test(header_fields_keep_to_the_rfcs),
        cmocka_unit_test(layout_is_the_sinks_own),
        cmocka_unit_test(drops_are_counted_and_announced),
        cmocka_unit_test(stop_gives_up_on_a_collector_that_never_reads),
        cmocka_unit_test(missing_socket_counts_every_message),
        cmocka_unit_test(socket_appearing_later_gets_kept_messages_and_notice),
        cmocka_unit_test(tcp_reconnects_after_the_collector_closes),
        cmocka_unit_test_teardown(sink_level_is_its_own, close_xlog),
        cmocka_unit_test_teardown(fork_child_sends_only_its_own, close_xlog),
        cmocka_unit_test_teardown(open_refuses_a_bad_configuration, close_xlog),
    };
    const struct CMUnitTest real_rsyslogd[] = {
        cmocka_unit_test_teardown(rsyslog_tcp, close_xlog),
        cmocka_unit_test_teardown(rsyslog_udp, close_xlog),
        cmocka_unit_test_teardown(rsyslog_unix, close_xlog),
    };
    int failed = cmocka_run_group_tests_name("syslog, own collector", own_collector, NULL, NULL);
    failed += cmocka_run_group_tests_name("syslog, rsyslogd", real_rsyslogd, start_rsyslogd,
                                          stop_rsyslogd);
    return failed;
}
