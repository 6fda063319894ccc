/*
 * error.c - see error.h.
 */
#include "base/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/atomics.h"
#include "xlog.h"

/* Why the calling thread's last failing call failed (xlog_last_error). */
static XLOG_IMPL_TLS char last_error[512];

void xlog_set_error(const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    vsnprintf(last_error, sizeof last_error, format, ap);
    va_end(ap);
}

void xlog_clear_error(void)
{
    last_error[0] = '\0';
}

void xlog_prefix_error(const char *prefix)
{
    size_t n = strlen(prefix), old = strlen(last_error);
    if (n + 2 + old >= sizeof last_error)
        old = sizeof last_error - 1 - n - 2;
    memmove(last_error + n + 2, last_error, old);
    memcpy(last_error, prefix, n);
    memcpy(last_error + n, ": ", 2);
    last_error[n + 2 + old] = '\0';
}

XLOG_API const char *xlog_last_error(void)
{
    return last_error;
}
