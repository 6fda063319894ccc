/*
 * logrotate_writer.c - the program that logs while test_logrotate.py runs
 * the real logrotate against its log directory, as an operator's cron would.
 * (outputs_writer, the other writer of these tests, logs a fixed number of
 * lines as fast as it can and knows no signal; this one logs at a steady
 * pace until told to stop, and reopens on SIGHUP.)
 *
 *   logrotate_writer DIR PERSISTENT_DIR THREADS PACE_US
 *
 * Opens xlog on DIR with its defaults (XLOG_FILE_SHARED, no rotation of its
 * own, no compression, check_interval_ms 1000) but for its shared memory,
 * kept in PERSISTENT_DIR (inside the test's directory, so that what a writer
 * killed by a failing run leaves is removed with it, not written into the
 * next run's files by xlog_open's recovery), installs a SIGHUP handler
 * that calls xlog_reopen(), as docs/OUTPUTS.md shows for logrotate's
 * postrotate step, and prints "ready".  Then each of THREADS threads logs
 * "t<thread> seq <n> <FILLER>" for n = 0, 1, 2 ... and sleeps PACE_US
 * microseconds after every 100 lines, until standard input reaches its end
 * (the test closes it once logrotate has run enough times); each thread
 * stops at a multiple of 100 lines.  After xlog_close it prints, one per
 * line, "t<thread> <lines logged>" and "lost N", "dropped N",
 * "write_errors N", and exits with status 0 when all three are 0.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <xlog.h>

/* Makes each line about 120 bytes, so that a line cut or mixed with another
 * cannot pass for a whole one. */
#define FILLER "abcdefghijklmnopqrstuvwxyz0123456789"

enum { MAX_THREADS = 16 };

typedef struct writer {
    int thread;
    long pace_us;
    long logged;
} writer;

static atomic_int stop;

static void on_hup(int sig)
{
    (void)sig;
    xlog_reopen();
}

static void *log_lines(void *p)
{
    writer *w = p;
    struct timespec pace = {w->pace_us / 1000000, (w->pace_us % 1000000) * 1000};
    long n = 0;
    while (!atomic_load(&stop)) {
        for (int i = 0; i < 100; i++, n++)
            xlog_info("t%d seq %ld %s", w->thread, n, FILLER);
        nanosleep(&pace, NULL);
    }
    w->logged = n;
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: %s DIR PERSISTENT_DIR THREADS PACE_US\n", argv[0]);
        return 2;
    }
    int threads = atoi(argv[3]);
    long pace_us = atol(argv[4]);
    if (threads < 1 || threads > MAX_THREADS || pace_us < 0)
        return 2;

    xlog_config cfg = xlog_defaults();
    cfg.dir = argv[1];
    cfg.persistent_dir = argv[2];
    cfg.use_environment = 0;
    int rc = xlog_open(&cfg);
    if (rc != 0) {
        fprintf(stderr, "xlog_open: %s (%s)\n", xlog_strerror(rc), xlog_last_error());
        return 1;
    }
    struct sigaction sa = {.sa_handler = on_hup};
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGHUP, &sa, NULL);

    writer w[MAX_THREADS];
    pthread_t t[MAX_THREADS];
    for (int i = 0; i < threads; i++) {
        w[i] = (writer){i, pace_us, 0};
        if (pthread_create(&t[i], NULL, log_lines, &w[i]) != 0) {
            fprintf(stderr, "pthread_create failed\n");
            return 1;
        }
    }
    printf("ready\n");
    fflush(stdout);

    char buf[256];
    while (read(STDIN_FILENO, buf, sizeof buf) > 0)
        ;
    atomic_store(&stop, 1);
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    xlog_close();

    xlog_counters c;
    xlog_stats(&c);
    for (int i = 0; i < threads; i++)
        printf("t%d %ld\n", i, w[i].logged);
    printf("lost %llu\ndropped %llu\nwrite_errors %llu\n", (unsigned long long)c.lost,
           (unsigned long long)c.dropped, (unsigned long long)c.write_errors);
    return c.lost || c.dropped || c.write_errors ? 1 : 0;
}
