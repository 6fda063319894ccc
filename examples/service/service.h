/* service.h - the parts of examples/service, one module each. */
#ifndef SERVICE_H
#define SERVICE_H

int storage_read(int item);                    /* module "storage": 0, or -1 */
void access_log(int item, int status, long us); /* module "http.access" */

#endif
