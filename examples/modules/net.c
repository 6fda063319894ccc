/* net.c - module "net". */
#define XLOG_MODULE "net"
#include <xlog.h>

#include "parts.h"

void handle_connection(int id)
{
    xlog_debug("connection %d accepted", id);
    tls_handshake(id);
    xlog_info("connection %d ready", id);
}
