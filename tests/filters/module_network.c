/* A translation unit of module "network" (see test_filters.c). */
#define XLOG_MODULE "network"
#include <xlog.h>

#include "modules.h"

void log_in_network(int level, int n)
{
    XLOG(level, "network %d", n);
}
