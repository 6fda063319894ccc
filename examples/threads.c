/*
 * threads.c - several threads logging at once, into one shared file or into
 * one file per thread, then the counters.
 *
 *   example_threads [threads] [messages per thread] [shared|per-thread] [dir]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xlog.h>

static long messages = 100000;

static void *worker(void *arg)
{
    int id = (int)(long)arg;
    for (long i = 0; i < messages; i++)
        xlog_info("worker %d message %ld of %ld, load %.3f", id, i, messages, (double)i / 7.0);
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 4;
    messages = argc > 2 ? atol(argv[2]) : 100000;
    xlog_config cfg = xlog_defaults();
    cfg.file_mode = argc > 3 && strcmp(argv[3], "per-thread") == 0 ? XLOG_FILE_PER_THREAD
                                                                    : XLOG_FILE_SHARED;
    cfg.dir = argc > 4 ? argv[4] : "logs";
    int rc = xlog_open(&cfg);
    if (rc != 0) {
        fprintf(stderr, "xlog_open: %s\n", xlog_strerror(rc));
        return 1;
    }
    pthread_t tids[256];
    if (threads < 1 || threads > 256)
        threads = 4;
    for (int t = 0; t < threads; t++)
        pthread_create(&tids[t], NULL, worker, (void *)(long)t);
    for (int t = 0; t < threads; t++)
        pthread_join(tids[t], NULL);
    xlog_close();

    xlog_counters c;
    xlog_stats(&c);
    printf("%d threads x %ld messages -> %s/ (%s)\n", threads, messages, cfg.dir,
           cfg.file_mode == XLOG_FILE_SHARED ? "one shared file" : "one file per thread");
    printf("lines %llu, bytes %llu, write calls %llu, blocked %llu, dropped %llu\n",
           (unsigned long long)c.messages, (unsigned long long)c.bytes,
           (unsigned long long)c.writes, (unsigned long long)c.blocked,
           (unsigned long long)c.dropped);
    return 0;
}
