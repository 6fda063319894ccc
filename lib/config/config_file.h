/*
 * config_file.h - xlog's configuration file (config_file.c): what an
 * operator writes to set xlog_config and the sinks without a rebuild.  The
 * format, its keys and its errors are documented in xlog.h
 * ("Configuration file").
 */
#ifndef XLOG_CONFIG_FILE_H
#define XLOG_CONFIG_FILE_H

#include <stddef.h>

#include "xlog.h"

/* What a loaded file owns: its strings, its sinks and the list cfg.sinks
 * points to afterwards.  It must live as long as the configuration it
 * changed is used (xlog.c frees it at xlog_close). */
typedef struct xlog_config_file xlog_config_file;

/* Reads the file at path and applies it over *cfg.  0 with *out set (the
 * file's memory); or -EINVAL after xlog_set_error("path:line:column:
 * what"; "path: what" for a file that cannot be read), with *cfg untouched
 * and nothing to free. */
int xlog_config_file_load(const char *path, xlog_config *cfg, xlog_config_file **out);

/* The same for text already in memory (length bytes, NULs included); name
 * stands for the path in error messages. */
int xlog_config_file_parse(const char *name, const char *text, size_t length, xlog_config *cfg,
                           xlog_config_file **out);

/* The file's filter key (a filter string, as XLOG_LEVEL), or NULL. */
const char *xlog_config_file_filter(const xlog_config_file *file);

/* Frees what the file owns (NULL does nothing). */
void xlog_config_file_free(xlog_config_file *file);

#endif
