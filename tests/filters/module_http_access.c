/* A translation unit of module "http.access" (see test_sinks.c). */
#define XLOG_MODULE "http.access"
#include <xlog.h>

#include "modules.h"

void log_in_http_access(int level, int n)
{
    XLOG(level, "http.access %d", n);
}
