/*
 * filter.h - levels by module (filter.c).
 */
#ifndef XLOG_FILTER_H
#define XLOG_FILTER_H

#include <stddef.h>

/* xlog_apply_filter parses a filter string
 * ("warn,net=debug"): with check_only, only checks it; else makes it the
 * rules in force, with process as the level where it names none.  0, or
 * -EINVAL after xlog_set_error (what names the setting). */
int xlog_apply_filter(const char *filter, const char *what, int process, int check_only);
/* The lowest level kept for backtraces (cfg.backtrace_level), or XLOG_OFF. */
void xlog_set_backtrace_level(int level);
/* A level's name ("debug", "WARN", "warning"), or -1. */
int xlog_parse_level(const char *text, size_t length);

#endif
