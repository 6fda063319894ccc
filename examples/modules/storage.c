/* storage.c - module "storage". */
#define XLOG_MODULE "storage"
#include <xlog.h>

#include "parts.h"

void store_record(int id)
{
    xlog_debug("record %d: page allocated", id);
    xlog_info("record %d stored", id);
}
