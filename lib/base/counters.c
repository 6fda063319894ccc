/*
 * counters.c - see counters.h.
 */
#include "base/counters.h"

xlog_backend_counters xlog_counts;
