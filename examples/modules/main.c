/*
 * modules/main.c - a program made of parts, each a module with a level of
 * its own: "info everywhere, debug in the TLS code", set by an operator
 * without a rebuild.
 *
 *   example_modules [DIR]
 *   XLOG_LEVEL="warn,net=debug,net.tls=trace" example_modules
 *
 * net.c names its module "net", tls.c "net.tls", storage.c "storage"; this
 * file has no module.  The filter below is what runs without XLOG_LEVEL;
 * then the program changes one module's level at run time, and logs one
 * request in full from a thread of its own.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <xlog.h>

#include "parts.h"

static void *one_request_in_full(void *unused)
{
    (void)unused;
    xlog_thread_level(XLOG_TRACE); /* this thread only, whatever the modules say */
    handle_connection(99);
    xlog_thread_level(XLOG_LEVEL_PROCESS);
    return NULL;
}

int main(int argc, char **argv)
{
    xlog_config cfg = xlog_defaults();
    cfg.dir = argc > 1 ? argv[1] : "logs";
    int rc = xlog_open(&cfg);
    if (rc != 0) {
        fprintf(stderr, "xlog_open: %s\n", xlog_last_error());
        return 1;
    }
    /* XLOG_LEVEL, when set, was applied by xlog_open; else this: */
    if (!getenv("XLOG_LEVEL") && xlog_set_filter("info,net=debug") != 0)
        fprintf(stderr, "filter: %s\n", xlog_last_error());

    xlog_info("serving");
    handle_connection(1);  /* net at DEBUG, net.tls follows net */
    store_record(1);       /* storage at INFO: its DEBUG line is not written */

    xlog_set_module_level("storage", XLOG_DEBUG);
    store_record(2);       /* now it is */

    pthread_t request;
    pthread_create(&request, NULL, one_request_in_full, NULL);
    pthread_join(request, NULL);

    xlog_close();
    return 0;
}
