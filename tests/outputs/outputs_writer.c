/*
 * outputs_writer.c - one of the processes of test_outputs' "many processes,
 * one file" test.  It is a program of its own (started with posix_spawn)
 * rather than a fork of the test, so that each process starts xlog from
 * nothing, as separate programs sharing a log directory do.
 *
 *   outputs_writer DIR PROCESS THREADS MESSAGES ROTATE_SIZE WRITE_BUFFER CHECK_MS KEEP GZIP
 *
 * Each thread logs "p<PROCESS> t<thread> seq <n>" for n = 0 .. MESSAGES-1
 * into the shared file of DIR, rotated at ROTATE_SIZE bytes, KEEP rotated
 * files kept, compressed if GZIP is 1.  Exit status 0 when xlog reports
 * nothing lost or dropped.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <xlog.h>

typedef struct writer {
    int process;
    int thread;
    long messages;
} writer;

static void *log_lines(void *p)
{
    const writer *w = p;
    for (long i = 0; i < w->messages; i++)
        xlog_info("p%d t%d seq %ld", w->process, w->thread, i);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 10) {
        fprintf(stderr,
                "usage: %s DIR PROCESS THREADS MESSAGES ROTATE_SIZE WRITE_BUFFER CHECK_MS KEEP GZIP\n",
                argv[0]);
        return 2;
    }
    int threads = atoi(argv[3]);
    if (threads < 1 || threads > 64)
        return 2;
    xlog_config cfg = xlog_defaults();
    cfg.dir = argv[1];
    cfg.use_environment = 0;
    cfg.max_message = 1024;
    cfg.rotate_size = strtoul(argv[5], NULL, 10);
    cfg.rotate_keep = (unsigned)strtoul(argv[8], NULL, 10);
    cfg.write_buffer = strtoul(argv[6], NULL, 10);
    cfg.check_interval_ms = (unsigned)strtoul(argv[7], NULL, 10);
    cfg.compress = atoi(argv[9]) ? XLOG_COMPRESS_GZIP : XLOG_COMPRESS_NONE;
    int rc = xlog_open(&cfg);
    if (rc != 0) {
        fprintf(stderr, "xlog_open: %s\n", xlog_strerror(rc));
        return 1;
    }
    writer w[64];
    pthread_t t[64];
    for (int i = 0; i < threads; i++) {
        w[i] = (writer){atoi(argv[2]), i, atol(argv[4])};
        pthread_create(&t[i], NULL, log_lines, &w[i]);
    }
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    xlog_close();
    xlog_counters c;
    xlog_stats(&c);
    if (c.lost || c.dropped || c.write_errors) {
        fprintf(stderr, "lost %llu, dropped %llu, write errors %llu\n", (unsigned long long)c.lost,
                (unsigned long long)c.dropped, (unsigned long long)c.write_errors);
        return 1;
    }
    return 0;
}
