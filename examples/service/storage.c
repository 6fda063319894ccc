/* storage.c - module "storage": its debug lines go to storage's own file. */
#define XLOG_MODULE "storage"
#include <xlog.h>

#include "service.h"

int storage_read(int item)
{
    xlog_debug("item %d: page %d read", item, item * 7);
    if (item == 5) {
        xlog_error("item %d: backend timed out after %d ms", item, 250);
        return -1;
    }
    return 0;
}
