/*
 * custom_sink.c - a sink of your own: here, the last few errors kept in
 * memory for a status page, beside the usual log files.
 *
 * The sink's functions run on xlog's back-end thread, one at a time, so the
 * sink needs no lock for its own state as long as only those functions touch
 * it; the program reads it here after xlog_close.  (A program reading it
 * while xlog runs would add a lock of its own, held briefly: the back end
 * must never wait long.)  They must not block and must not log.
 *
 *   example_custom_sink [DIR]
 */
#include <stdio.h>
#include <string.h>

#include <xlog.h>

#define KEPT 3

typedef struct recent_errors {
    char lines[KEPT][256];
    unsigned count; /* errors seen; the last KEPT are kept */
} recent_errors;

static void keep(void *context, const xlog_event *event, const char *bytes, size_t length)
{
    recent_errors *recent = context;
    (void)event; /* event->level, event->message ... are there too */
    char *slot = recent->lines[recent->count % KEPT];
    size_t n = length < sizeof recent->lines[0] ? length : sizeof recent->lines[0] - 1;
    memcpy(slot, bytes, n);
    slot[n] = '\0';
    recent->count++;
}

int main(int argc, char **argv)
{
    static recent_errors recent;
    xlog_custom_sink errors = xlog_custom_sink_defaults();
    errors.sink.level = XLOG_ERROR;                   /* only ERROR and FATAL */
    errors.sink.pattern = "{time:iso,ms} {message}"; /* its own layout */
    errors.context = &recent;
    errors.write = keep;
    const xlog_sink_config *sinks[] = {&errors.sink, NULL};

    xlog_config cfg = xlog_defaults();
    cfg.dir = argc > 1 ? argv[1] : "logs";
    cfg.sinks = sinks;
    int rc = xlog_open(&cfg);
    if (rc != 0) {
        fprintf(stderr, "xlog_open: %s\n", xlog_last_error());
        return 1;
    }
    for (int i = 1; i <= 5; i++) {
        xlog_info("request %d served", i);
        if (i % 2 == 0)
            xlog_error("request %d: backend timed out", i);
    }
    xlog_close();

    printf("%u errors; the last ones:\n", recent.count);
    for (unsigned i = recent.count > KEPT ? recent.count - KEPT : 0; i < recent.count; i++)
        fputs(recent.lines[i % KEPT], stdout);
    return 0;
}
