/*
 * sinks.c - the sinks of the open configuration, as one: the files (always),
 * the console (when cfg.console names one), and the extra sinks listed in
 * cfg.sinks, each with its layout and level.
 *
 * The list of the kinds an extra sink can be is EXTRA_KINDS below: a new
 * kind of sink is one file (its xlog_sink_ops) and one line there.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/atomics.h"
#include "base/error.h"
#include "event/message.h"
#include "sinks/sink.h"

/* The kinds of sink cfg.sinks may list, one line each: its XLOG_SINK_*
 * kind, its name (its table is xlog_<name>_sink_ops, in <name>_sink.c),
 * and the text layout it has when its configuration gives none. */
#define EXTRA_KINDS(KIND)                              \
    KIND(XLOG_SINK_CUSTOM, custom, XLOG_DEFAULT_LINE) \
    KIND(XLOG_SINK_SYSLOG, syslog, "{message}")

/* The files and the console are set by their own fields of xlog_config. */
extern const xlog_sink_ops xlog_file_sink_ops;
extern const xlog_sink_ops xlog_console_sink_ops;
#define DECLARE_OPS(kind, name, pattern) extern const xlog_sink_ops xlog_##name##_sink_ops;
EXTRA_KINDS(DECLARE_OPS)

typedef struct sink_kind {
    int kind;                    /* XLOG_SINK_* */
    const xlog_sink_ops *ops;
    const char *default_pattern; /* its text layout when the config gives none */
} sink_kind;

#define LIST_KIND(kind, name, pattern) {kind, &xlog_##name##_sink_ops, pattern},
static const sink_kind extra_kinds[] = {EXTRA_KINDS(LIST_KIND)};

/* More sinks than anyone needs; a longer list is refused at xlog_open. */
#define MAX_SINKS 32

static struct {
    xlog_sink list[MAX_SINKS];
    size_t count;
} sinks;

/* Makes and starts one sink; what names it in error messages, and also
 * prefixes the sink's own messages for an extra sink (own != NULL). */
static int add(const xlog_sink_ops *ops, int level, xlog_layout_kind layout, const char *pattern,
               const char *default_pattern, const char *what, const xlog_config *cfg,
               const xlog_sink_config *own)
{
    if (level < XLOG_TRACE || level > XLOG_OFF) {
        xlog_set_error("%s: level %d is not a level from XLOG_TRACE (0) to XLOG_OFF (6)", what,
                       level);
        return -EINVAL;
    }
    int binary = layout == XLOG_LAYOUT_BINARY;
    if (binary && ops != &xlog_file_sink_ops) {
        xlog_set_error("%s: XLOG_LAYOUT_BINARY is for the files only (cfg.file_layout)", what);
        return -EINVAL;
    }
    if (layout != XLOG_LAYOUT_TEXT && layout != XLOG_LAYOUT_JSON && !binary) {
        xlog_set_error("%s: layout %d is not XLOG_LAYOUT_TEXT, XLOG_LAYOUT_JSON or "
                       "XLOG_LAYOUT_BINARY", what, (int)layout);
        return -EINVAL;
    }
    xlog_sink *s = &sinks.list[sinks.count];
    memset(s, 0, sizeof *s);
    s->ops = ops;
    s->level = level;
    s->binary = binary;
    int rc = binary ? 0 : xlog_layout_create(&s->layout, layout, pattern, default_pattern, what);
    if (rc != 0)
        return rc;
    rc = ops->start(s, cfg, own);
    if (rc != 0) {
        if (own)
            xlog_prefix_error(what);
        xlog_layout_destroy(s->layout);
        return rc;
    }
    sinks.count++;
    return 0;
}

static int add_extra(const xlog_sink_config *own, size_t index, const xlog_config *cfg)
{
    char what[48];
    for (size_t i = 0; i < sizeof extra_kinds / sizeof extra_kinds[0]; i++) {
        if (extra_kinds[i].kind != own->kind)
            continue;
        snprintf(what, sizeof what, "cfg.sinks[%zu] (%s)", index, extra_kinds[i].ops->name);
        return add(extra_kinds[i].ops, own->level, own->layout, own->pattern,
                   extra_kinds[i].default_pattern, what, cfg, own);
    }
    xlog_set_error("cfg.sinks[%zu]: kind %d is not a kind of sink (start from its defaults "
                   "function, e.g. xlog_syslog_defaults())", index, own->kind);
    return -EINVAL;
}

int xlog_sinks_start(const xlog_config *cfg)
{
    sinks.count = 0;
    int rc = add(&xlog_file_sink_ops, cfg->file_level, cfg->file_layout, cfg->file_pattern,
                 XLOG_DEFAULT_LINE, "cfg.file_pattern", cfg, NULL);
    if (rc == 0 && cfg->console)
        rc = add(&xlog_console_sink_ops, cfg->console_level, cfg->console_layout,
                 cfg->console_pattern, XLOG_DEFAULT_LINE, "cfg.console_pattern", cfg, NULL);
    for (size_t i = 0; rc == 0 && cfg->sinks && cfg->sinks[i]; i++) {
        if (sinks.count == MAX_SINKS) {
            xlog_set_error("cfg.sinks: more than %d sinks", MAX_SINKS - 2);
            rc = -EINVAL;
        } else {
            rc = add_extra(cfg->sinks[i], i, cfg);
        }
    }
    if (rc != 0)
        xlog_sinks_stop();
    return rc;
}

void xlog_sinks_write(const xlog_line_event *event)
{
    for (size_t i = 0; i < sinks.count; i++) {
        if (event->pub.level < sinks.list[i].level)
            continue;
        if (!sinks.list[i].binary)
            xlog_event_render(event);
        sinks.list[i].ops->write(&sinks.list[i], event);
    }
}

xlog_sink *xlog_sinks_record_taker(void)
{
    if (sinks.count == 1 && sinks.list[0].binary && sinks.list[0].ops->write_record)
        return &sinks.list[0];
    return NULL;
}

void xlog_sinks_flush(int durable)
{
    for (size_t i = 0; i < sinks.count; i++)
        if (sinks.list[i].ops->flush)
            sinks.list[i].ops->flush(&sinks.list[i], durable);
}

void xlog_sinks_tick(void)
{
    for (size_t i = 0; i < sinks.count; i++)
        if (sinks.list[i].ops->tick)
            sinks.list[i].ops->tick(&sinks.list[i]);
}

void xlog_sinks_thread_ended(int tid)
{
    for (size_t i = 0; i < sinks.count; i++)
        if (sinks.list[i].ops->thread_ended)
            sinks.list[i].ops->thread_ended(&sinks.list[i], tid);
}

/* The child's sinks are the parent's: each forgets what it can without
 * touching it; the list is empty until xlog starts again in the child. */
void xlog_sinks_after_fork(void)
{
    for (size_t i = 0; i < sinks.count; i++)
        if (sinks.list[i].ops->after_fork)
            sinks.list[i].ops->after_fork(&sinks.list[i]);
    sinks.count = 0;
}

void xlog_sinks_stop(void)
{
    xlog_sinks_flush(0);
    while (sinks.count > 0) {
        xlog_sink *s = &sinks.list[--sinks.count];
        s->ops->stop(s);
        xlog_layout_destroy(s->layout);
    }
}

void xlog_sinks_stats(xlog_counters *out)
{
    const xlog_sink_ops *kinds[2 + sizeof extra_kinds / sizeof extra_kinds[0]] = {
        &xlog_file_sink_ops, &xlog_console_sink_ops};
    for (size_t i = 0; i < sizeof extra_kinds / sizeof extra_kinds[0]; i++)
        kinds[2 + i] = extra_kinds[i].ops;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (kinds[i]->stats)
            kinds[i]->stats(out);
}
