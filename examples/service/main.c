/*
 * service/ - what a service needs from its logger (README, "Services"):
 *   - each request's lines carry its id and trace id (xlog_context_set),
 *     without passing them to every call;
 *   - the access log and the errors of every module go to files of their
 *     own, the storage module's debug lines to a third (file sinks listed
 *     in cfg.sinks, each with its filter);
 *   - the files have the service's name (file_prefix), so that services
 *     sharing a directory keep theirs apart;
 *   - each line of the main file names the worker thread that wrote it
 *     (pthread_setname_np, {thread}).
 *
 *   example_service [DIR]       (default "logs")
 *
 * Two workers serve three requests each (items 1 to 6; item 5 fails) and
 * write into DIR:
 *   service-YYYY-MM-DD.log  info and above of every module but the access
 *                           log: time, level, thread, context, message
 *   access-YYYY-MM-DD.log   http.access only: time, context, message
 *   errors-YYYY-MM-DD.log   errors of every module, as JSON objects (the
 *                           trace id as OpenTelemetry's trace_id)
 *   storage/YYYY-MM-DD-HH.log  storage's debug lines, a file per hour
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>

#include <xlog.h>

#include "service.h"

static void serve(int item)
{
    xlog_context_set("request_id", "req-%d", item);
    xlog_context_set("trace_id", "%032x", 0x5eed0000 + item);
    xlog_info("item %d requested", item);
    int failed = storage_read(item) != 0;
    access_log(item, failed ? 503 : 200, 120L * item);
    if (!failed)
        xlog_info("item %d served", item);
    xlog_context_clear(NULL); /* the request is over */
}

static void *worker(void *arg)
{
    int n = (int)(long)arg;
    char name[16];
    snprintf(name, sizeof name, "worker-%d", n);
    pthread_setname_np(pthread_self(), name);
    for (int item = n; item <= 6; item += 2)
        serve(item);
    return NULL;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "logs";

    xlog_file_config access = xlog_file_defaults();
    access.prefix = "access";
    access.sink.filter = "off,http.access=info";
    access.sink.pattern = "{time:iso} {context} {message}";

    xlog_file_config errors = xlog_file_defaults();
    errors.prefix = "errors";
    errors.sink.filter = "error";
    errors.sink.layout = XLOG_LAYOUT_JSON;

    char storage_dir[4096];
    snprintf(storage_dir, sizeof storage_dir, "%s/storage", dir);
    xlog_file_config storage = xlog_file_defaults();
    storage.dir = storage_dir;
    storage.sink.filter = "off,storage=debug";
    storage.rotate_hourly = 1;

    const xlog_sink_config *sinks[] = {&access.sink, &errors.sink, &storage.sink, NULL};
    xlog_config cfg = xlog_defaults();
    cfg.dir = dir;
    cfg.file_prefix = "service";
    cfg.level = XLOG_INFO;
    cfg.file_pattern = "{time} [{level}] {thread} {context} {message}";
    cfg.sinks = sinks;
    /* The main files: info and above, but not the access log's lines. */
    if (xlog_open(&cfg) != 0 || xlog_set_filter("info,http.access=off") != 0) {
        fprintf(stderr, "xlog: %s\n", xlog_last_error());
        return 1;
    }
    pthread_t workers[2];
    for (long n = 0; n < 2; n++)
        pthread_create(&workers[n], NULL, worker, (void *)(n + 1));
    for (int n = 0; n < 2; n++)
        pthread_join(workers[n], NULL);
    xlog_close();
    printf("wrote to %s/\n", dir);
    return 0;
}
