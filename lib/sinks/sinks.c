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
#include "base/clock.h"
#include "base/error.h"
#include "event/message.h"
#include "shm/shm.h"
#include "sinks/sink.h"

/* The kinds of sink cfg.sinks may list, one line each: its XLOG_SINK_*
 * kind, its name (its table is xlog_<name>_sink_ops, in <name>_sink.c),
 * and the text layout it has when its configuration gives none. */
#define EXTRA_KINDS(KIND)                              \
    KIND(XLOG_SINK_CUSTOM, custom, XLOG_DEFAULT_LINE) \
    KIND(XLOG_SINK_SYSLOG, syslog, "{message}")       \
    KIND(XLOG_SINK_FILE, file, XLOG_DEFAULT_LINE)

/* The main files and the console are set by their own fields of
 * xlog_config (the main files' ops are also a listed file sink's). */
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

/* Routing: while some sink has a filter (active), the callers let through
 * what any sink wants (frontend/filter.c merges these rules, the filters'
 * as one, with the program's), so the back end gives each sink only its
 * share: a sink with a filter what the filter lets through, one without
 * what the program's rules do (program_rules, written by filter.c at each
 * change, read here without a lock) unless the thread's own threshold let
 * it through.  The filters' rules share the room the callers' table has
 * beside the program's. */
#define ROUTING_RULES_MAX (XLOG_SHARED_RULES_MAX - XLOG_RULES_MAX)
static struct {
    int active;
    int process;
    size_t count;
    xlog_rule list[ROUTING_RULES_MAX];
} routing;
static xlog_shared_rules program_rules = {.process = XLOG_INFO, .backtrace = XLOG_OFF};
/* The program's rules of the last RULES_KEPT changes, each with the tick
 * it was made at: a line is judged by the rules it was logged under (the
 * callers let it through by those), not by a change made while it waited
 * in its ring; without a filter the caller's check is final, and a line
 * must not go or come because some sink has one.  A line older than all
 * of them (more changes than that while it waited) takes the oldest. */
#define RULES_KEPT 8
static struct {
    xlog_shared_rules rules;
    uint64_t made_at; /* atomic */
} rules_kept[RULES_KEPT] = {[0] = {.rules = {.process = XLOG_INFO, .backtrace = XLOG_OFF}}};
static unsigned rules_newest; /* atomic: the index in rules_kept of program_rules' copy */
/* The sequence of program_rules last stored in the survival directory
 * (odd: none yet), for recovery to follow as the back end did. */
static uint64_t program_rules_saved = 1;

void xlog_sinks_set_program_rules(int process, const xlog_rule *list, size_t count)
{
    /* The callers are serialised (filter.c's mutex). */
    unsigned next = (rules_newest + 1) % RULES_KEPT;
    xlog_shared_rules_store(&rules_kept[next].rules, process, XLOG_OFF, list, count);
    __atomic_store_n(&rules_kept[next].made_at, xlog_ticks(), __ATOMIC_RELEASE);
    __atomic_store_n(&rules_newest, next, __ATOMIC_RELEASE);
    xlog_shared_rules_store(&program_rules, process, XLOG_OFF, list, count);
}

/* The program's rules in force at tick (rules_kept). */
static const xlog_shared_rules *program_rules_at(uint64_t tick)
{
    unsigned i = __atomic_load_n(&rules_newest, __ATOMIC_ACQUIRE);
    for (unsigned k = 1; k < RULES_KEPT; k++) {
        if (__atomic_load_n(&rules_kept[i].made_at, __ATOMIC_ACQUIRE) <= tick)
            break;
        i = (i + RULES_KEPT - 1) % RULES_KEPT;
    }
    return &rules_kept[i].rules;
}

int xlog_sinks_routing(int *process, const xlog_rule **list, size_t *count)
{
    *process = routing.process;
    *list = routing.list;
    *count = routing.count;
    return routing.active;
}

/* While some sink has a filter, the program's rules as they change, for
 * recovery (shm.h). */
static void save_program_rules(void)
{
    if (routing.active &&
        __atomic_load_n(&program_rules.sequence, __ATOMIC_ACQUIRE) != program_rules_saved) {
        xlog_rules copy;
        program_rules_saved = xlog_shared_rules_copy(&program_rules, &copy);
        xlog_survival_set_rules(1, &copy);
    }
}

/* Adds a sink's filter to the routing's rules; 0, or -EINVAL after saying
 * which sink made them too many. */
static int route(const xlog_rules *filter, const char *what)
{
    static xlog_rule merged[ROUTING_RULES_MAX];
    int process;
    size_t count;
    if (!routing.active) {
        routing.process = filter->process;
        routing.count = 0;
    }
    if (xlog_rules_merge(routing.process, routing.list, routing.count, filter->process,
                         filter->list, filter->count, &process, merged, &count,
                         ROUTING_RULES_MAX) != 0) {
        xlog_set_error("%s: filter: the sinks' filters name more than %d modules in all", what,
                       ROUTING_RULES_MAX);
        return -EINVAL;
    }
    routing.active = 1;
    routing.process = process;
    routing.count = count;
    memcpy(routing.list, merged, count * sizeof *merged);
    return 0;
}

/* The sink's own filter, parsed, its process level the sink's level where
 * it names none: 0 with *out set (NULL for none), or -EINVAL (-ENOMEM)
 * after saying why. */
static int parse_filter(const char *filter, int level, const char *what, xlog_rules **out)
{
    *out = NULL;
    if (!filter)
        return 0;
    xlog_rules *rules = malloc(sizeof *rules);
    if (!rules) {
        xlog_set_error("%s: filter: out of memory", what);
        return -ENOMEM;
    }
    char setting[64];
    snprintf(setting, sizeof setting, "%s: filter", what);
    rules->process = level;
    int rc = xlog_rules_parse(filter, setting, rules);
    if (rc == 0)
        rc = route(rules, what);
    if (rc != 0) {
        free(rules);
        return rc;
    }
    *out = rules;
    return 0;
}

/* Makes and starts one sink; what names it in error messages, and also
 * prefixes the sink's own messages for an extra sink (own != NULL). */
static int add(const xlog_sink_ops *ops, int level, const char *filter, xlog_layout_kind layout,
               const char *pattern, const char *default_pattern, const char *what,
               const xlog_config *cfg, const xlog_sink_config *own)
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
    int rc = parse_filter(filter, level, what, &s->filter);
    if (rc != 0)
        return rc;
    rc = binary ? 0 : xlog_layout_create(&s->layout, layout, pattern, default_pattern, what);
    if (rc != 0) {
        free(s->filter);
        return rc;
    }
    rc = ops->start(s, cfg, own);
    if (rc != 0) {
        if (own)
            xlog_prefix_error(what);
        xlog_layout_destroy(s->layout);
        free(s->filter);
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
        return add(extra_kinds[i].ops, own->level, own->filter, own->layout, own->pattern,
                   extra_kinds[i].default_pattern, what, cfg, own);
    }
    xlog_set_error("cfg.sinks[%zu]: kind %d is not a kind of sink (start from its defaults "
                   "function, e.g. xlog_syslog_defaults())", index, own->kind);
    return -EINVAL;
}

int xlog_sinks_start(const xlog_config *cfg)
{
    sinks.count = 0;
    routing.active = 0;
    program_rules_saved = 1;
    int rc = add(&xlog_file_sink_ops, cfg->file_level, NULL, cfg->file_layout, cfg->file_pattern,
                 XLOG_DEFAULT_LINE, "cfg.file_pattern", cfg, NULL);
    if (rc == 0 && cfg->console)
        rc = add(&xlog_console_sink_ops, cfg->console_level, NULL, cfg->console_layout,
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
    else
        save_program_rules(); /* before the back end's first pass */
    return rc;
}

/* Whether s takes event (see sink.h), while some sink has a filter (the
 * program's rules then route lines too). */
static __attribute__((noinline)) int wants_routed(const xlog_sink *s,
                                                  const xlog_line_event *event)
{
    int level = event->pub.level;
    const char *module = event->pub.module ? event->pub.module : "";
    if (s->filter)
        return level >= xlog_rules_level(s->filter, module, event->module_length);
    if (level < s->level)
        return 0;
    /* xlog's own lines and a backtrace's (no record, or one a thread's
     * own threshold let through) are not the program's rules' to turn
     * down. */
    if (!event->rec || (event->rec->flags & XLOG_REC_OWN))
        return 1;
    int backtrace;
    return level >= xlog_shared_rules_level(program_rules_at(event->rec->tsc), module,
                                            event->module_length, &backtrace);
}

void xlog_sinks_write(const xlog_line_event *event)
{
    /* Without filters (routing is set at start only), a sink's level
     * alone: the routed check, inline, cost 13 instructions a line of the
     * text layout's whole program (callgrind, docs/BENCHMARKS.md). */
    int routed = routing.active;
    for (size_t i = 0; i < sinks.count; i++) {
        if (routed ? !wants_routed(&sinks.list[i], event)
                   : event->pub.level < sinks.list[i].level)
            continue;
        if (!sinks.list[i].binary)
            xlog_event_render(event);
        sinks.list[i].ops->write(&sinks.list[i], event);
    }
}

xlog_sink *xlog_sinks_record_taker(void)
{
    if (sinks.count == 1 && sinks.list[0].binary && sinks.list[0].ops->write_run)
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
    save_program_rules();
    for (size_t i = 0; i < sinks.count; i++)
        if (sinks.list[i].ops->tick)
            sinks.list[i].ops->tick(&sinks.list[i]);
}

int64_t xlog_sinks_ms_to_due(void)
{
    int64_t least = -1;
    for (size_t i = 0; i < sinks.count; i++) {
        xlog_sink *sink = &sinks.list[i];
        int64_t ms = sink->ops->ms_to_due ? sink->ops->ms_to_due(sink) : -1;
        if (ms >= 0 && (least < 0 || ms < least))
            least = ms;
    }
    return least;
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
        free(s->filter);
    }
    routing.active = 0;
}

void xlog_sinks_stats(xlog_counters *out)
{
    const xlog_sink_ops *kinds[1 + sizeof extra_kinds / sizeof extra_kinds[0]] = {
        &xlog_console_sink_ops};
    for (size_t i = 0; i < sizeof extra_kinds / sizeof extra_kinds[0]; i++)
        kinds[1 + i] = extra_kinds[i].ops;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (kinds[i]->stats)
            kinds[i]->stats(out);
}
