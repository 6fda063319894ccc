/*
 * fuzz_config.c - libFuzzer target for the configuration file's parser
 * (lib/config/config_file.c).
 *
 * Input: the bytes of a configuration file, parsed over xlog_defaults()
 * with one program sink already listed.  Checked for every input, besides
 * what ASan and UBSan see:
 *   - the parse succeeds or fails with -EINVAL, and parsing the same bytes
 *     again gives the same result and the same message;
 *   - a refused file leaves the configuration byte for byte as it was, and
 *     its message is "fuzz.conf:LINE:COLUMN: what" with LINE at most the
 *     lines of the input and COLUMN at most one past the longest line
 *     allowed (or "fuzz.conf: ..." for the allocations' failures);
 *   - an accepted file gives strings without control characters (other
 *     than a tab), patterns and a filter that xlog_open will accept, levels
 *     and names of enums in range, and a NULL-terminated list of sinks that
 *     begins with the program's own and adds at most 30 syslog sinks.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xlog.h>

#include "config/config_file.h"
#include "frontend/filter.h"
#include "layouts/layout.h"

static void check_string(const char *s)
{
    if (!s)
        return;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if ((*p < 0x20 && *p != '\t') || *p == 0x7f)
            abort();
}

static void check_pattern(const char *pattern)
{
    check_string(pattern);
    if (!pattern)
        return;
    xlog_layout *layout;
    if (xlog_layout_create(&layout, XLOG_LAYOUT_TEXT, pattern, NULL, "pattern") != 0)
        abort();
    xlog_layout_destroy(layout);
}

static void check_level(int level)
{
    if (level < XLOG_TRACE || level > XLOG_OFF)
        abort();
}

static void check_accepted(const xlog_config *cfg, const xlog_config_file *file,
                           const xlog_sink_config *program_sink)
{
    check_string(cfg->dir);
    check_string(cfg->persistent_dir);
    check_string(cfg->file_prefix);
    check_pattern(cfg->file_pattern);
    check_pattern(cfg->console_pattern);
    check_level(cfg->level);
    check_level(cfg->file_level);
    check_level(cfg->console_level);
    check_level(cfg->backtrace_level);
    check_level(cfg->flush_level);
    check_level(cfg->sync_level);
    if ((unsigned)cfg->file_mode > XLOG_FILE_PER_PROCESS ||
        (unsigned)cfg->full_policy > XLOG_FULL_DROP || (unsigned)cfg->compress > XLOG_COMPRESS_GZIP ||
        (unsigned)cfg->console_color > XLOG_COLOR_ALWAYS ||
        (unsigned)cfg->file_layout > XLOG_LAYOUT_BINARY ||
        (unsigned)cfg->console_layout > XLOG_LAYOUT_JSON || cfg->console < 0)
        abort();
    if (cfg->ring_size < 65536 || cfg->ring_size > ((size_t)1 << 30) || cfg->max_message < 256 ||
        cfg->rotate_keep < 1 || cfg->rotate_keep > 100000 || cfg->check_interval_ms < 1 ||
        cfg->check_interval_ms > 86400000 || (cfg->rotate_size && cfg->rotate_size < 65536))
        abort();
    const char *filter = xlog_config_file_filter(file);
    check_string(filter);
    if (filter && xlog_apply_filter(filter, "filter", XLOG_INFO, 1) != 0)
        abort();
    if (cfg->sinks[0] != program_sink)
        abort();
    size_t n = 1;
    for (; cfg->sinks[n]; n++) {
        const xlog_sink_config *sink = cfg->sinks[n];
        check_level(sink->level);
        check_pattern(sink->pattern);
        check_string(sink->filter);
        if (sink->filter && xlog_apply_filter(sink->filter, "filter", XLOG_INFO, 1) != 0)
            abort();
        if (sink->kind == XLOG_SINK_FILE) { /* a [file NAME] section */
            const xlog_file_config *f = (const xlog_file_config *)sink;
            if ((unsigned)f->mode > XLOG_FILE_PER_PROCESS ||
                (unsigned)sink->layout > XLOG_LAYOUT_BINARY ||
                (unsigned)f->compress > XLOG_COMPRESS_GZIP || f->rotate_keep < 1 ||
                f->rotate_keep > 100000 || (f->rotate_size && f->rotate_size < 65536))
                abort();
            check_string(f->dir);
            check_string(f->prefix);
            continue;
        }
        const xlog_syslog_config *s = (const xlog_syslog_config *)sink;
        if (sink->kind != XLOG_SINK_SYSLOG || s->facility < 0 || s->facility > 23 ||
            s->buffer < 65536 || (unsigned)s->transport > XLOG_SYSLOG_TCP ||
            (unsigned)s->format > XLOG_SYSLOG_RFC3164 ||
            (unsigned)sink->layout > XLOG_LAYOUT_JSON)
            abort();
        check_string(s->address);
        check_string(s->app_name);
        check_string(s->hostname);
    }
    if (n > 31)
        abort();
}

static void check_refused(const char *error, const uint8_t *data, size_t size)
{
    unsigned lines = 1;
    for (size_t i = 0; i < size; i++)
        lines += data[i] == '\n';
    unsigned line;
    size_t column;
    int used = 0;
    if (strncmp(error, "fuzz.conf: ", 11) == 0)
        return;
    if (sscanf(error, "fuzz.conf:%u:%zu: %n", &line, &column, &used) != 2 || used == 0 ||
        line < 1 || line > lines || column < 1 || column > 4097 || error[used] == '\0')
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    xlog_custom_sink program = xlog_custom_sink_defaults();
    const xlog_sink_config *given[] = {&program.sink, NULL};
    xlog_config cfg = xlog_defaults();
    cfg.sinks = given;
    xlog_config before = cfg;
    xlog_config_file *file = NULL;
    int rc = xlog_config_file_parse("fuzz.conf", (const char *)data, size, &cfg, &file);
    if (rc == 0) {
        check_accepted(&cfg, file, &program.sink);
        xlog_config_file_free(file);
        cfg = before;
        if (xlog_config_file_parse("fuzz.conf", (const char *)data, size, &cfg, &file) != 0)
            abort();
        xlog_config_file_free(file);
        return 0;
    }
    if ((rc != -EINVAL && rc != -ENOMEM) || file != NULL ||
        memcmp(&cfg, &before, sizeof cfg) != 0)
        abort();
    char error[512];
    snprintf(error, sizeof error, "%s", xlog_last_error());
    check_refused(error, data, size);
    if (xlog_config_file_parse("fuzz.conf", (const char *)data, size, &cfg, &file) != rc ||
        strcmp(error, xlog_last_error()) != 0)
        abort();
    return 0;
}
