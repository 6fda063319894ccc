/* tls.c - module "net.tls": the rule for "net" covers it unless it has its
 * own. */
#define XLOG_MODULE "net.tls"
#include <xlog.h>

#include "parts.h"

void tls_handshake(int id)
{
    xlog_trace("connection %d: client hello", id);
    xlog_debug("connection %d: cipher chosen", id);
}
