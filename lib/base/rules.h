/*
 * rules.h - levels by module, as a filter string gives them
 * ("warn,net=debug"): its parser, and the lookup of a module's level (the
 * longest rule that covers it: "net" covers "net" and "net.tls").
 *
 * One parser for every filter: the program's (XLOG_LEVEL, xlog_set_filter,
 * cfg.level's, frontend/filter.c) and each sink's own
 * (xlog_sink_config.filter, sinks/sinks.c), so that they say the same
 * things the same way and their mistakes are reported alike.
 */
#ifndef XLOG_RULES_H
#define XLOG_RULES_H

#include <stddef.h>
#include <stdint.h>

#define XLOG_RULES_MAX 64   /* module rules of one filter */
#define XLOG_MODULE_MAX 64  /* bytes of a module name, with its NUL */

typedef struct xlog_rule {
    char module[XLOG_MODULE_MAX]; /* NUL-terminated, not empty */
    size_t length;
    int level;
} xlog_rule;

/* A filter: the level of the modules no rule covers, and its rules. */
typedef struct xlog_rules {
    int process;
    size_t count;
    xlog_rule list[XLOG_RULES_MAX];
} xlog_rules;

/* The level of module (length bytes) under process and list's rules. */
int xlog_rules_lookup(int process, const xlog_rule *list, size_t count, const char *module,
                      size_t length);

/* The most permissive of two sets of rules, as one: for every module, the
 * lower of its two levels.  Its rules are those of both (the longest rule
 * covering a module in the union gives the same level in each set as the
 * module itself: each set's longest rule covering the module also covers
 * that one), each at the lower level the two sets give it.  0, or -ENOSPC
 * when they are more than max. */
int xlog_rules_merge(int a_process, const xlog_rule *a, size_t a_count, int b_process,
                     const xlog_rule *b, size_t b_count, int *process, xlog_rule *out,
                     size_t *count, size_t max);

/* Parses filter into out, whose process level stays as the caller set it
 * where the filter names none.  0, or -EINVAL after xlog_set_error saying
 * where (what names the setting: what="..." then the reason). */
int xlog_rules_parse(const char *filter, const char *what, xlog_rules *out);

/* Sets module's rule (length bytes, replacing one for the same module) in
 * list of *count rules, at most max; 0, or -ENOSPC when it is full. */
int xlog_rules_put(xlog_rule *list, size_t *count, size_t max, const char *module, size_t length,
                   int level);

/* The level of module (length bytes, "" for none) under rules. */
int xlog_rules_level(const xlog_rules *rules, const char *module, size_t length);

/* Rules that threads read while one changes them, without a lock: a
 * sequence counter (odd while a change is written) guards them, and every
 * word and byte is read with an acquire load and written with a release
 * store, so that a reader overlapping a change reads stale values, never a
 * data race, and the counter's last check cannot move before the reads it
 * validates.  Writers are serialised by their owner. */
#define XLOG_SHARED_RULES_MAX (4 * XLOG_RULES_MAX)
typedef struct xlog_shared_rules {
    uint64_t sequence;
    int process;
    int backtrace;   /* lowest level kept for backtraces, or XLOG_OFF */
    size_t count;
    xlog_rule list[XLOG_SHARED_RULES_MAX];
} xlog_shared_rules;

/* The level of module (length bytes) under t, and t's backtrace level. */
int xlog_shared_rules_level(const xlog_shared_rules *t, const char *module, size_t length,
                            int *backtrace);
/* A copy of t's process level and rules (at most XLOG_RULES_MAX of them)
 * into out; the sequence they were read at (even). */
uint64_t xlog_shared_rules_copy(const xlog_shared_rules *t, xlog_rules *out);
/* Makes list (count rules, at most XLOG_SHARED_RULES_MAX) t's rules. */
void xlog_shared_rules_store(xlog_shared_rules *t, int process, int backtrace,
                             const xlog_rule *list, size_t count);

/* Whether rule r (its module r_length bytes) covers module (length bytes):
 * it is module, or a module above it. */
static inline int xlog_rule_covers(const char *r, size_t r_length, const char *module,
                                   size_t length)
{
    if (r_length > length)
        return 0;
    for (size_t i = 0; i < r_length; i++)
        if (module[i] != r[i])
            return 0;
    return length == r_length || module[r_length] == '.';
}

/* A module name: letters, digits, '_', '-' and dots between them, shorter
 * than XLOG_MODULE_MAX. */
int xlog_valid_module(const char *name, size_t length);

/* A level's name ("debug", "WARN", "warning"), or -1. */
int xlog_parse_level(const char *text, size_t length);

#endif
