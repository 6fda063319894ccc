/* access.c - module "http.access": one line per request, which only the
 * access log takes. */
#define XLOG_MODULE "http.access"
#include <xlog.h>

#include "service.h"

void access_log(int item, int status, long us)
{
    xlog_info("GET /items/%d %d %ldus", item, status, us);
}
