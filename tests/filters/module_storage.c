/* A translation unit of module "storage" (see test_filters.c). */
#define XLOG_MODULE "storage"
#include <xlog.h>

#include "modules.h"

void log_in_storage(int level, int n)
{
    XLOG(level, "storage %d", n);
}
