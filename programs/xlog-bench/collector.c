/*
 * collector.c - the syslog collector of collector.h: a datagram socket and a
 * reader thread that checks and counts what arrives.
 *
 * Each datagram is checked whole: its PRI (<14>, user.info; <12>, user.warning,
 * for xlog's notice of messages not delivered), its timestamp (a time that
 * exists; the last good second is remembered, since it changes once a
 * second),
 * the rest of the header with this process's pid, and the message, which must
 * be exactly the numbers message of a call index the row makes
 * (numbers_message_ok).  A datagram cut by the reader's buffer is malformed.
 */
#define _GNU_SOURCE
#include "collector.h"

#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "timing.h"
#include "workload.h"

/* Datagrams per recvmmsg(), and the room for each: the workload's messages
 * and the notices take under 200 bytes. */
#define BATCH 256
#define DATAGRAM_ROOM 512
/* How long the reader waits in recvmmsg() before it looks at `stopping`. */
#define POLL_MS 100
/* What UDP asks for its receive buffer (the kernel keeps it at or below
 * net.core.rmem_max). */
#define UDP_RECEIVE_BUFFER (4 << 20)

#define RFC3164_TIME_LENGTH 15 /* "Nov 22 15:45:25" */
#define RFC5424_TIME_LENGTH 27 /* "2026-11-22T14:45:25.123456Z" */
#define RFC5424_SECOND_LENGTH 19 /* "2026-11-22T14:45:25" */

struct collector {
    xlog_syslog_transport transport;
    int fd;
    uint64_t messages;
    char address[sizeof ((struct sockaddr_un *)0)->sun_path];
    char after_time[64]; /* the header after the timestamp */
    size_t after_time_length;
    size_t time_length;
    char good_second[RFC5424_SECOND_LENGTH]; /* the last second found good (3164: 15 bytes) */
    pthread_t reader;
    atomic_int stopping;
    atomic_uint_fast64_t received;
    atomic_uint_fast64_t malformed;
    atomic_uint_fast64_t last_ticks;
    struct mmsghdr headers[BATCH];
    struct iovec vectors[BATCH];
    char datagrams[BATCH][DATAGRAM_ROOM];
};

/* "Nov 22 15:45:25": local time, the day padded with a space. */
static int rfc3164_time_ok(const char *time)
{
    static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
    int month = 0;
    while (month < 12 && memcmp(time, months + 3 * month, 3) != 0)
        month++;
    if (month == 12 || time[3] != ' ' || time[6] != ' ' || time[4] == '0')
        return 0;
    char iso[20]; /* the same as "2000-11-22 15:45:25", in a leap year */
    snprintf(iso, sizeof iso, "2000-%02d-%c%c %.8s", month + 1, time[4] == ' ' ? '0' : time[4],
             time[5], time + 7);
    return valid_date_time(iso, ' ');
}

/* ".123456Z", after an RFC 5424 timestamp's second. */
static int rfc5424_fraction_ok(const char *fraction)
{
    for (int i = 1; i < 7; i++) {
        if (fraction[i] < '0' || fraction[i] > '9')
            return 0;
    }
    return fraction[0] == '.' && fraction[7] == 'Z';
}

static int time_ok(collector *c, const char *time)
{
    int local_socket = c->transport == XLOG_SYSLOG_UNIX;
    size_t second_length = local_socket ? RFC3164_TIME_LENGTH : RFC5424_SECOND_LENGTH;
    if (memcmp(time, c->good_second, second_length) != 0) {
        if (!(local_socket ? rfc3164_time_ok(time) : valid_date_time(time, 'T')))
            return 0;
        memcpy(c->good_second, time, second_length);
    }
    return local_socket || rfc5424_fraction_ok(time + RFC5424_SECOND_LENGTH);
}

static int notice_ok(const char *text, size_t length)
{
    static const char prefix[] = "xlog: ";
    static const char middle[] = " messages were not delivered to syslog: ";
    if (length < sizeof prefix - 1 || memcmp(text, prefix, sizeof prefix - 1) != 0)
        return 0;
    const char *digit = text + sizeof prefix - 1, *end = text + length;
    const char *after = digit;
    while (after < end && *after >= '0' && *after <= '9')
        after++;
    return after > digit && (size_t)(end - after) > sizeof middle - 1 &&
           memcmp(after, middle, sizeof middle - 1) == 0;
}

typedef enum datagram_kind { MESSAGE, NOTICE, MALFORMED } datagram_kind;

static datagram_kind classify(collector *c, const char *data, size_t length, int flags)
{
    /* "<14>" then, for RFC 5424, the version "1 " */
    size_t pri_length = c->transport == XLOG_SYSLOG_UNIX ? 4 : 6;
    size_t header = pri_length + c->time_length + c->after_time_length;
    if ((flags & MSG_TRUNC) || length < header || data[0] != '<' || data[1] != '1' ||
        (data[2] != '4' && data[2] != '2') || data[3] != '>' ||
        (pri_length == 6 && memcmp(data + 4, "1 ", 2) != 0) ||
        !time_ok(c, data + pri_length) ||
        memcmp(data + pri_length + c->time_length, c->after_time, c->after_time_length) != 0)
        return MALFORMED;
    if (data[2] == '4')
        return numbers_message_ok(data + header, length - header, c->messages) ? MESSAGE
                                                                                : MALFORMED;
    return notice_ok(data + header, length - header) ? NOTICE : MALFORMED;
}

static void *reader_main(void *arg)
{
    collector *c = arg;
    while (!atomic_load_explicit(&c->stopping, memory_order_relaxed)) {
        int n = recvmmsg(c->fd, c->headers, BATCH, MSG_WAITFORONE, NULL);
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            break;
        if (n <= 0)
            continue;
        uint64_t taken = bench_ticks();
        uint64_t received = 0, malformed = 0;
        for (int i = 0; i < n; i++) {
            datagram_kind kind = classify(c, c->datagrams[i], c->headers[i].msg_len,
                                          c->headers[i].msg_hdr.msg_flags);
            received += kind == MESSAGE;
            malformed += kind == MALFORMED;
        }
        atomic_store_explicit(&c->last_ticks, taken, memory_order_relaxed);
        atomic_fetch_add_explicit(&c->malformed, malformed, memory_order_release);
        atomic_fetch_add_explicit(&c->received, received, memory_order_release);
    }
    return NULL;
}

static int fail(collector *c, const char *what, char *why, size_t why_size)
{
    int error = errno;
    snprintf(why, why_size, "%s: %s", what, strerror(error));
    if (c->fd >= 0)
        close(c->fd);
    if (c->transport == XLOG_SYSLOG_UNIX && c->address[0] != '\0')
        unlink(c->address); /* bound */
    free(c);
    return -error;
}

static int open_socket(collector *c, const char *dir, char *why, size_t why_size)
{
    if (c->transport == XLOG_SYSLOG_UNIX) {
        struct sockaddr_un name = {.sun_family = AF_UNIX};
        int length = snprintf(name.sun_path, sizeof name.sun_path, "%s/collector.sock", dir);
        if (length < 0 || (size_t)length >= sizeof name.sun_path) {
            errno = ENAMETOOLONG;
            return fail(c, "collector socket path", why, why_size);
        }
        c->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (c->fd < 0 || bind(c->fd, (struct sockaddr *)&name, sizeof name) != 0)
            return fail(c, "collector socket", why, why_size);
        snprintf(c->address, sizeof c->address, "%s", name.sun_path);
        return 0;
    }
    struct sockaddr_in name = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t name_length = sizeof name;
    int receive_buffer = UDP_RECEIVE_BUFFER;
    c->fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (c->fd < 0 ||
        setsockopt(c->fd, SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof receive_buffer) != 0 ||
        bind(c->fd, (struct sockaddr *)&name, sizeof name) != 0 ||
        getsockname(c->fd, (struct sockaddr *)&name, &name_length) != 0)
        return fail(c, "collector UDP socket", why, why_size);
    snprintf(c->address, sizeof c->address, "127.0.0.1:%d", ntohs(name.sin_port));
    return 0;
}

int collector_start(collector **out, xlog_syslog_transport transport, const char *dir,
                    uint64_t messages, char *why, size_t why_size)
{
    collector *c = calloc(1, sizeof *c);
    if (c == NULL) {
        snprintf(why, why_size, "collector: %s", strerror(ENOMEM));
        return -ENOMEM;
    }
    c->transport = transport;
    c->messages = messages;
    c->fd = -1;
    int rc = open_socket(c, dir, why, why_size);
    if (rc != 0)
        return rc;
    struct timeval wait = {.tv_usec = POLL_MS * 1000};
    if (setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait) != 0)
        return fail(c, "collector socket timeout", why, why_size);
    int pid = (int)getpid();
    int length = transport == XLOG_SYSLOG_UNIX
                     ? snprintf(c->after_time, sizeof c->after_time, " %s[%d]: ",
                                COLLECTOR_APP_NAME, pid)
                     : snprintf(c->after_time, sizeof c->after_time, " %s %s %d - - ",
                                COLLECTOR_HOSTNAME, COLLECTOR_APP_NAME, pid);
    c->after_time_length = (size_t)length;
    c->time_length = transport == XLOG_SYSLOG_UNIX ? RFC3164_TIME_LENGTH : RFC5424_TIME_LENGTH;
    for (int i = 0; i < BATCH; i++) {
        c->vectors[i] = (struct iovec){c->datagrams[i], DATAGRAM_ROOM};
        c->headers[i].msg_hdr.msg_iov = &c->vectors[i];
        c->headers[i].msg_hdr.msg_iovlen = 1;
    }
    rc = pthread_create(&c->reader, NULL, reader_main, c);
    if (rc != 0) {
        errno = rc;
        return fail(c, "collector thread", why, why_size);
    }
    *out = c;
    return 0;
}

const char *collector_address(const collector *c)
{
    return c->address;
}

uint64_t collector_arrived(collector *c, uint64_t *last_ticks)
{
    uint64_t arrived = atomic_load_explicit(&c->received, memory_order_acquire) +
                       atomic_load_explicit(&c->malformed, memory_order_acquire);
    *last_ticks = atomic_load_explicit(&c->last_ticks, memory_order_relaxed);
    return arrived;
}

/* The drops column of the socket's line in /proc/net/udp (found by its
 * inode), or -1. */
static int64_t udp_drops(int fd)
{
    struct stat info;
    FILE *table = fopen("/proc/net/udp", "r");
    if (table == NULL)
        return -1;
    int64_t drops = -1;
    char line[512];
    if (fstat(fd, &info) == 0 && fgets(line, sizeof line, table) != NULL) { /* the titles */
        while (drops < 0 && fgets(line, sizeof line, table) != NULL) {
            unsigned long inode;
            long long count;
            if (sscanf(line, "%*s %*s %*s %*s %*s %*s %*s %*s %*s %lu %*s %*s %lld", &inode,
                       &count) == 2 &&
                inode == (unsigned long)info.st_ino)
                drops = count;
        }
    }
    fclose(table);
    return drops;
}

int64_t collector_lost_in_kernel(collector *c)
{
    return c->transport == XLOG_SYSLOG_UDP ? udp_drops(c->fd) : -1;
}

void collector_stop(collector *c, collector_counts *counts)
{
    atomic_store(&c->stopping, 1);
    pthread_join(c->reader, NULL);
    counts->received = atomic_load(&c->received);
    counts->malformed = atomic_load(&c->malformed);
    counts->lost_in_kernel = collector_lost_in_kernel(c);
    close(c->fd);
    if (c->transport == XLOG_SYSLOG_UNIX)
        unlink(c->address);
    free(c);
}
