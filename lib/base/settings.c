/*
 * settings.c - see settings.h.  Before the first xlog_open, a call finds
 * epoch 0 and is counted as logged while closed.
 */
#include "base/settings.h"

#include "xlog.h"

xlog_front_settings xlog_front = {
    .epoch = 0, .full_policy = XLOG_FULL_BLOCK, .ring_size = (size_t)1 << 20, .max_message = 16384};
