/*
 * rsyslogd.h - a real rsyslogd of the test's own, for test_syslog.c.
 *
 * Why: the syslog sink is only right if a real collector reads what it
 * sends, so the end-to-end tests run Debian's rsyslogd, never a mock.  It
 * runs in the foreground (-n) with a configuration written into the test's
 * directory: imtcp and imudp on free 127.0.0.1 ports, imuxsock on a socket
 * path in the directory (the system socket off), its work directory and pid
 * file in the directory, and one output file per input written through a
 * template that keeps what the tests check: severity, facility, APP-NAME,
 * PROCID and MSG.  Nothing needs root: the ports are unprivileged and every
 * path is the test's.
 *
 * rsyslogd_start waits until every input accepts (a TCP connect, the UDP
 * port bound, a datagram connect to the socket path); rsyslogd_stop ends it
 * with SIGTERM, which makes it write what it has taken in, and waits.
 */
#ifndef XLOG_TEST_RSYSLOGD_H
#define XLOG_TEST_RSYSLOGD_H

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RSYSLOGD "/usr/sbin/rsyslogd"

typedef struct rsyslogd {
    char dir[256];
    char conf[300];
    char socket_path[108]; /* sizeof sun_path */
    char tcp_out[300], udp_out[300], unix_out[300];
    int tcp_port, udp_port;
    pid_t pid;
} rsyslogd;

/* A port nobody listens on now (the kernel's choice for an ephemeral bind). */
static inline int rsyslogd_free_port(int type)
{
    int fd = socket(AF_INET, type, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) != 0)
        abort();
    close(fd);
    return ntohs(a.sin_port);
}

static inline int64_t rsyslogd_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static inline void rsyslogd_pause_ms(int ms)
{
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000};
    nanosleep(&t, NULL);
}

/* Writes the configuration into dir (which must exist); 0 or -1. */
static inline int rsyslogd_setup(rsyslogd *r, const char *dir)
{
    memset(r, 0, sizeof *r);
    snprintf(r->dir, sizeof r->dir, "%s", dir);
    snprintf(r->conf, sizeof r->conf, "%s/rsyslog.conf", dir);
    if (snprintf(r->socket_path, sizeof r->socket_path, "%s/log.sock", dir) >=
        (int)sizeof r->socket_path)
        return -1;
    snprintf(r->tcp_out, sizeof r->tcp_out, "%s/tcp.out", dir);
    snprintf(r->udp_out, sizeof r->udp_out, "%s/udp.out", dir);
    snprintf(r->unix_out, sizeof r->unix_out, "%s/unix.out", dir);
    r->tcp_port = rsyslogd_free_port(SOCK_STREAM);
    r->udp_port = rsyslogd_free_port(SOCK_DGRAM);
    char work[300];
    snprintf(work, sizeof work, "%s/work", dir);
    if (mkdir(work, 0700) != 0 && errno != EEXIST)
        return -1;
    FILE *f = fopen(r->conf, "w");
    if (!f)
        return -1;
    fprintf(f,
            "global(workDirectory=\"%s\")\n"
            /* rsyslogd's main queue holds 50,000 messages by default and
             * discards past it (an input that cannot wait, UDP, after 2 s),
             * and more than one worker may write a batch out of order: a
             * queue that holds every test's burst, and one worker. */
            "main_queue(queue.type=\"LinkedList\" queue.size=\"2000000\" "
            "queue.workerThreads=\"1\")\n"
            "module(load=\"imuxsock\" SysSock.Use=\"off\")\n"
            "module(load=\"imtcp\")\n"
            "module(load=\"imudp\")\n"
            "template(name=\"xlogtest\" type=\"string\"\n"
            "         string=\"%%syslogseverity%%|%%syslogfacility%%|%%app-name%%|%%procid%%|%%msg%%\\n\")\n"
            "ruleset(name=\"tcp\") { action(type=\"omfile\" file=\"%s\" template=\"xlogtest\") }\n"
            "ruleset(name=\"udp\") { action(type=\"omfile\" file=\"%s\" template=\"xlogtest\") }\n"
            "ruleset(name=\"unix\") { action(type=\"omfile\" file=\"%s\" template=\"xlogtest\") }\n"
            "input(type=\"imtcp\" address=\"127.0.0.1\" port=\"%d\" ruleset=\"tcp\"\n"
            "      supportOctetCountedFraming=\"on\")\n"
            /* A receive buffer that holds a burst (the kernel's drops on it
             * are read back from /proc/net/udp, see rsyslogd_udp_drops). */
            "input(type=\"imudp\" address=\"127.0.0.1\" port=\"%d\" ruleset=\"udp\" rcvbufSize=\"16m\")\n"
            "input(type=\"imuxsock\" socket=\"%s\" ruleset=\"unix\" rateLimit.interval=\"0\")\n"
            /* rsyslogd's own messages. */
            "*.* action(type=\"omfile\" file=\"%s/rsyslogd.out\")\n",
            work, r->tcp_out, r->udp_out, r->unix_out, r->tcp_port, r->udp_port, r->socket_path,
            dir);
    return fclose(f) == 0 ? 0 : -1;
}

/* Is the UDP port bound?  (/proc/net/udp lists it in hex.) */
static inline int rsyslogd_udp_bound(int port)
{
    FILE *f = fopen("/proc/net/udp", "r");
    if (!f)
        return 0;
    char line[512];
    int found = 0;
    while (!found && fgets(line, sizeof line, f)) {
        unsigned local_port;
        if (sscanf(line, " %*d: %*x:%x", &local_port) == 1 && (int)local_port == port)
            found = 1;
    }
    fclose(f);
    return found;
}

/* Datagrams the kernel dropped on rsyslogd's UDP socket because its
 * receive buffer was full (the last column of /proc/net/udp); -1 if the
 * port is not bound. */
static inline long rsyslogd_udp_drops(int port)
{
    FILE *f = fopen("/proc/net/udp", "r");
    if (!f)
        return -1;
    char line[512];
    long drops = -1;
    while (drops < 0 && fgets(line, sizeof line, f)) {
        unsigned local_port;
        if (sscanf(line, " %*d: %*x:%x", &local_port) != 1 || (int)local_port != port)
            continue;
        char *last = strrchr(line, ' ');
        if (last)
            drops = atol(last + 1);
    }
    fclose(f);
    return drops;
}

static inline int rsyslogd_accepts(const rsyslogd *r)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)r->tcp_port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    int tcp = connect(fd, (struct sockaddr *)&a, sizeof a) == 0;
    close(fd);
    fd = socket(AF_UNIX, SOCK_DGRAM, 0);
    struct sockaddr_un u = {.sun_family = AF_UNIX};
    memcpy(u.sun_path, r->socket_path, sizeof r->socket_path);
    int local = connect(fd, (struct sockaddr *)&u, sizeof u) == 0;
    close(fd);
    return tcp && local && rsyslogd_udp_bound(r->udp_port);
}

/* Starts rsyslogd and waits (up to 30 s) until every input accepts; 0, or
 * -1 after printing why. */
static inline int rsyslogd_start(rsyslogd *r)
{
    char pidfile[300], log[300];
    snprintf(pidfile, sizeof pidfile, "%s/rsyslogd.pid", r->dir);
    snprintf(log, sizeof log, "%s/rsyslogd.stderr", r->dir);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0600);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    char *argv[] = {RSYSLOGD, "-n", "-f", r->conf, "-i", pidfile, NULL};
    int rc = posix_spawn(&r->pid, RSYSLOGD, &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
        fprintf(stderr, "cannot start %s: %s (scripts/install-deps.sh installs rsyslog)\n",
                RSYSLOGD, strerror(rc));
        return -1;
    }
    for (int64_t until = rsyslogd_now_ms() + 30000; rsyslogd_now_ms() < until;) {
        if (rsyslogd_accepts(r))
            return 0;
        int status;
        if (waitpid(r->pid, &status, WNOHANG) == r->pid) {
            fprintf(stderr, "rsyslogd ended at start; see %s\n", log);
            r->pid = 0;
            return -1;
        }
        rsyslogd_pause_ms(20);
    }
    fprintf(stderr, "rsyslogd does not listen after 30 s; see %s\n", log);
    return -1;
}

static inline void rsyslogd_stop(rsyslogd *r)
{
    if (r->pid <= 0)
        return;
    kill(r->pid, SIGTERM);
    waitpid(r->pid, NULL, 0);
    r->pid = 0;
}

#endif
