/* tsan_consumer.c - a program built with -fsanitize=thread against an
 * installed xlog (which is not): four threads log strings, one thread
 * flushes meanwhile, the console takes every line too.  ThreadSanitizer
 * must report nothing from xlog: the library tells it what its atomics
 * mean (see __tsan_acquire in lib/common/internal.h). */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include <xlog.h>

#define THREADS 4
#define MESSAGES 20000

static void *log_strings(void *arg)
{
    long id = (long)arg;
    char word[32];
    for (long i = 0; i < MESSAGES; i++) {
        snprintf(word, sizeof word, "word-%ld", i % 97);
        xlog_info("thread %ld says %s and %s (%ld)", id, word, "a constant", i);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    xlog_config cfg = xlog_defaults();
    cfg.dir = argc > 1 ? argv[1] : "logs";
    cfg.use_environment = 0;
    cfg.console = argc > 2 ? 1 : 0; /* stdout, sent to /dev/null by the caller */
    int rc = xlog_open(&cfg);
    if (rc != 0) {
        fprintf(stderr, "xlog_open: %s\n", xlog_last_error());
        return 1;
    }
    pthread_t t[THREADS];
    for (long i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, log_strings, (void *)i);
    for (int i = 0; i < 20; i++)
        xlog_flush();
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    xlog_close();
    xlog_counters c;
    xlog_stats(&c);
    return c.messages == THREADS * MESSAGES ? 0 : 1;
}
