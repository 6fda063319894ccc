/*
 * filter.h - levels by module (filter.c).
 */
#ifndef XLOG_FILTER_H
#define XLOG_FILTER_H

#include <stddef.h>
#include <stdint.h>

#include "base/rules.h"
#include "xlog.h"

/* xlog_impl_pass[level] under the rules of this generation (xlog.h). */
static inline uint32_t xlog_pass_of(uint32_t generation, int level)
{
    return generation << 3 | (uint32_t)level;
}

/* After a call of site written whole at level (its record's level and
 * flags, XLOG_IMPL_RECORD_BITS), by the slots' path: if the rules the
 * site's thresholds came from let every call of this level be written,
 * and its format is a literal, later calls of the level are written in
 * the caller's code (xlog_impl_put) until the rules change. */
void xlog_remember_pass(xlog_impl_site *site, int level);

/* xlog_apply_filter parses a filter string
 * ("warn,net=debug"): with check_only, only checks it; else makes it the
 * rules in force, with process as the level where it names none.  0, or
 * -EINVAL after xlog_set_error (what names the setting). */
int xlog_apply_filter(const char *filter, const char *what, int process, int check_only);
/* The lowest level kept for backtraces (cfg.backtrace_level), or XLOG_OFF. */
void xlog_set_backtrace_level(int level);
/* The sinks' filters (sinks.c, xlog_sinks_routing) as the sinks in force
 * have them, merged into the rules the callers follow: xlog_open calls it
 * once the sinks are started, xlog_close once they are stopped. */
void xlog_use_sink_filters(void);

#endif
