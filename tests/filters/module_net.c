/* A translation unit of module "net" (see test_filters.c). */
#define XLOG_MODULE "net"
#include <xlog.h>

#include "modules.h"

void log_in_net(int level, int n)
{
    XLOG(level, "net %d", n);
}
