/* modules.h - one function per module, each logging from a translation unit
 * that defines its XLOG_MODULE (test_filters.c, test_sinks.c). */
#ifndef XLOG_TEST_MODULES_H
#define XLOG_TEST_MODULES_H

void log_in_net(int level, int n);
void log_in_net_tls(int level, int n);
void log_in_network(int level, int n);
void log_in_storage(int level, int n);
void log_in_http_access(int level, int n);

#endif
