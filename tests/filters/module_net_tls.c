/* A translation unit of module "net.tls" (see test_filters.c). */
#define XLOG_MODULE "net.tls"
#include <xlog.h>

#include "modules.h"

void log_in_net_tls(int level, int n)
{
    XLOG(level, "net.tls %d", n);
}
