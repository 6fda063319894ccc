/*
 * filter.c - which messages are written: the process-wide level, a level per
 * module (a "net" rule covers "net" and "net.tls", the longest matching rule
 * wins), the filter string that sets them all at once, and each call site's
 * cached decision.
 *
 * Why a cache: a disabled call must cost a load and a compare, and matching
 * a module against rules costs far more.  So the XLOG macro first compares
 * the level with the floor, one global: the lowest level any rule lets
 * through, or any thread's own threshold names (xlog_thread_level; threads
 * are counted by their threshold, and a thread that ends or forgets its
 * threshold raises the floor again).  Only a call that passes looks at the
 * thread's own threshold and then at its call site's cached thresholds,
 * which carry the generation of the rules they were computed from.  Every
 * change of the rules bumps the generation, and a site whose cache is older
 * computes it again (xlog_impl_site_refresh) on its next call.
 *
 * The rules are read by callers on any thread, possibly in a signal handler
 * that interrupted a change, so readers take no lock: the rules live in a
 * fixed table guarded by a sequence counter (odd while a change is being
 * written); a reader that sees it move reads again.  Every word and byte of
 * the table is read with an acquire load and written with a release store
 * (no fences), so a reader that overlaps a change reads values that are
 * merely stale, never a data race, and the final check of the counter
 * cannot move before the reads it validates; this is slow only next to
 * the call sites' cache, which it fills.  Changes are made on a copy and
 * published whole, serialised by a mutex taken only by xlog_set_level,
 * xlog_set_filter, xlog_set_module_level and xlog_thread_level (and fork).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/atomics.h"
#include "base/error.h"
#include "base/guard.h"
#include "frontend/filter.h"
#include "frontend/frontend.h"

#define MAX_RULES 64
#define MAX_MODULE 64

typedef struct rule {
    char module[MAX_MODULE]; /* NUL-terminated, not empty */
    size_t length;
    int level;
} rule;

static struct rules {
    uint64_t sequence;        /* atomic: odd while being changed */
    int process;              /* the level of messages no module rule covers
                                 (mirrored in xlog_impl_process_threshold) */
    int backtrace;            /* lowest level kept for the backtrace, or XLOG_OFF */
    size_t count;
    rule list[MAX_RULES];
} rules = {.process = XLOG_INFO, .backtrace = XLOG_OFF};

static pthread_mutex_t changing = PTHREAD_MUTEX_INITIALIZER;

/* Before the first xlog_open, the level is cfg.level's default, so that the
 * messages it lets through reach the library, which counts them as dropped
 * while closed, and the first xlog_open announces them. */
XLOG_API int xlog_impl_process_threshold = XLOG_INFO;
XLOG_API int xlog_impl_floor = XLOG_INFO;
XLOG_API uint32_t xlog_impl_generation = 1;
XLOG_API uint32_t xlog_impl_pass[XLOG_FATAL + 1] = {8, 9, 10, 11, 12, 13}; /* generation 1 */
XLOG_API XLOG_IMPL_TLS int xlog_impl_thread_threshold = XLOG_LEVEL_PROCESS;

/* Under the mutex: the lowest level of the rules, and how many threads
 * have each own threshold.  A thread's count goes when it drops its
 * threshold or ends (the key's destructor; its value is the level + 1). */
static int rules_floor = XLOG_INFO;
static unsigned long own_thresholds[XLOG_OFF + 1];
static pthread_key_t own_threshold_key;
static pthread_once_t own_threshold_key_once = PTHREAD_ONCE_INIT;

/* ---- reading ---------------------------------------------------------------- */

#define READ(field) __atomic_load_n(&(field), __ATOMIC_ACQUIRE)
#define WRITE(field, value) __atomic_store_n(&(field), (value), __ATOMIC_RELEASE)

/* Whether the rule's module (length bytes) is module, or a module above it
 * ("net" covers "net.tls"). */
static int covers(const rule *r, size_t length, const char *module)
{
    for (size_t i = 0; i < length; i++)
        if (module[i] != READ(r->module[i]))
            return 0;
    return module[length] == '\0' || module[length] == '.';
}

/* The level of module under the current rules (lock-free, see the top). */
static int level_of(const char *module, int *backtrace)
{
    for (;;) {
        uint64_t before = READ(rules.sequence);
        if (before & 1) {
            sched_yield(); /* another thread is changing them */
            continue;
        }
        int level = READ(rules.process);
        size_t best = 0;
        size_t count = READ(rules.count);
        for (size_t i = 0; i < count && i < MAX_RULES && *module; i++) {
            const rule *r = &rules.list[i];
            size_t length = READ(r->length);
            if (length > best && length < MAX_MODULE && covers(r, length, module)) {
                best = length;
                level = READ(r->level);
            }
        }
        *backtrace = READ(rules.backtrace);
        if (READ(rules.sequence) == before)
            return level;
    }
}

XLOG_API uint64_t xlog_impl_site_refresh(xlog_impl_site *site)
{
    /* A signal handler that interrupted this thread inside xlog (maybe in
     * the middle of a change of the rules, which would never end while we
     * waited): let the call through, to be dropped and counted as nested,
     * and leave the cache to the next call. */
    if (xlog_inside())
        return XLOG_TRACE;
    uint32_t generation = __atomic_load_n(&xlog_impl_generation, __ATOMIC_ACQUIRE);
    int backtrace;
    int write = level_of(site->module ? site->module : "", &backtrace);
    int keep = backtrace < write ? backtrace : write;
    uint64_t levels = (uint64_t)generation << 32 | (uint64_t)keep << 8 | (uint64_t)write;
    __atomic_store_n(&site->levels, levels, __ATOMIC_RELAXED);
    return levels;
}

void xlog_remember_pass(xlog_impl_site *site, int level)
{
    if ((unsigned)level > (unsigned)XLOG_FATAL || !site->literal || site->literal != site->format)
        return;
    uint64_t levels = __atomic_load_n(&site->levels, __ATOMIC_RELAXED);
    if (level < (int)(levels & 0xff))
        return; /* kept for a backtrace only, or written by the thread's own threshold */
    uint32_t pass = xlog_pass_of((uint32_t)(levels >> 32), level);
    if (__atomic_load_n(&site->pass, __ATOMIC_RELAXED) != pass)
        __atomic_store_n(&site->pass, pass, __ATOMIC_RELEASE);
}

XLOG_API int xlog_get_level(void)
{
    return READ(rules.process);
}

XLOG_API int xlog_module_enabled(const char *module, int level)
{
    int backtrace;
    return (unsigned)level <= (unsigned)XLOG_FATAL && level >= level_of(module ? module : "",
                                                                         &backtrace);
}

/* ---- changing ----------------------------------------------------------------- */

/* The rules are changed with the mutex held and the thread marked as inside
 * xlog (a signal handler's log call is then dropped rather than waiting for
 * the change to end). */
static void lock_rules(void)
{
    xlog_enter();
    pthread_mutex_lock(&changing);
}

static void unlock_rules(void)
{
    pthread_mutex_unlock(&changing);
    xlog_leave();
}

/* The floor the XLOG macro compares with: the rules' lowest level, or a
 * lower one some thread has as its own threshold.  Under the mutex. */
static void store_floor(void)
{
    int floor = rules_floor;
    for (int level = 0; level < floor; level++)
        if (own_thresholds[level]) {
            floor = level;
            break;
        }
    __atomic_store_n(&xlog_impl_floor, floor, __ATOMIC_RELAXED);
}

/* Writes the table (every byte through a release store: see the top), and
 * publishes it with a new floor and a new generation, so that every site
 * computes its thresholds again at its next call.  Called with the mutex
 * held, which it releases. */
static void publish(int process, int backtrace, const rule *table, size_t count)
{
    WRITE(rules.sequence, rules.sequence + 1);
    WRITE(rules.process, process);
    WRITE(rules.backtrace, backtrace);
    for (size_t i = 0; i < count; i++) {
        rule *r = &rules.list[i];
        for (size_t c = 0; c < MAX_MODULE; c++)
            WRITE(r->module[c], table[i].module[c]);
        WRITE(r->length, table[i].length);
        WRITE(r->level, table[i].level);
    }
    WRITE(rules.count, count);
    rules_floor = process < backtrace ? process : backtrace;
    for (size_t i = 0; i < count; i++)
        if (table[i].level < rules_floor)
            rules_floor = table[i].level;
    WRITE(rules.sequence, rules.sequence + 1);
    __atomic_store_n(&xlog_impl_process_threshold, rules.process, __ATOMIC_RELAXED);
    store_floor();
    uint32_t generation = xlog_impl_generation + 1;
    __atomic_store_n(&xlog_impl_generation, generation, __ATOMIC_RELEASE);
    for (int level = XLOG_TRACE; level <= XLOG_FATAL; level++)
        __atomic_store_n(&xlog_impl_pass[level], xlog_pass_of(generation, level), __ATOMIC_RELEASE);
    unlock_rules();
}

/* ---- each thread's own threshold ---------------------------------------------- */

static void count_own_threshold(int level, long change)
{
    if (level >= 0)
        own_thresholds[level] += (unsigned long)change;
}

/* The thread is ending.  Its threshold is forgotten with its count: a
 * destructor of the program's that runs after this one and calls
 * xlog_thread_level must find none to take back, or the count is taken
 * twice. */
static void own_threshold_ended(void *value)
{
    lock_rules();
    count_own_threshold((int)(uintptr_t)value - 1, -1);
    xlog_impl_thread_threshold = XLOG_LEVEL_PROCESS;
    xlog_front_own_threshold_changed();
    store_floor();
    unlock_rules();
}

static void make_own_threshold_key(void)
{
    pthread_key_create(&own_threshold_key, own_threshold_ended);
}

XLOG_API void xlog_thread_level(int level)
{
    int own = level < 0 ? XLOG_LEVEL_PROCESS : level > XLOG_OFF ? XLOG_OFF : level;
    if (own == xlog_impl_thread_threshold)
        return;
    pthread_once(&own_threshold_key_once, make_own_threshold_key);
    lock_rules();
    count_own_threshold(xlog_impl_thread_threshold, -1);
    count_own_threshold(own, +1);
    xlog_impl_thread_threshold = own;
    xlog_front_own_threshold_changed();
    store_floor();
    pthread_setspecific(own_threshold_key, own >= 0 ? (void *)(uintptr_t)(own + 1) : NULL);
    unlock_rules();
}

/* fork(): the rules' mutex is taken before and released after, so that no
 * thread that is gone holds it in the child; there, only the forking
 * thread's own threshold is left to count.  The rules are used before any
 * xlog_open (xlog_thread_level, xlog_set_level), so these handlers are
 * registered when the library is loaded, before xlog_open registers its
 * own: the prepare handlers then run xlog_open's first (lifecycle lock and
 * the rest), then these, the order in which xlog_open takes them. */
static void before_fork(void)
{
    pthread_mutex_lock(&changing);
}

static void after_fork_in_parent(void)
{
    pthread_mutex_unlock(&changing);
}

static void after_fork_in_child(void)
{
    memset(own_thresholds, 0, sizeof own_thresholds);
    count_own_threshold(xlog_impl_thread_threshold, +1);
    store_floor();
    pthread_mutex_unlock(&changing);
}

__attribute__((constructor)) static void register_fork_handlers(void)
{
    pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child);
}

static int clamp_level(int level)
{
    return level < XLOG_TRACE ? XLOG_TRACE : level > XLOG_OFF ? XLOG_OFF : level;
}

/* Only writers (under the mutex) touch these copies of the rules. */
static rule scratch[MAX_RULES];

/* The rules in force, copied into scratch; returns their count. */
static size_t copy_rules(void)
{
    memcpy(scratch, rules.list, rules.count * sizeof *scratch);
    return rules.count;
}

XLOG_API void xlog_set_level(int level)
{
    lock_rules();
    publish(clamp_level(level), rules.backtrace, scratch, copy_rules());
}

void xlog_set_backtrace_level(int level)
{
    lock_rules();
    publish(rules.process, clamp_level(level), scratch, copy_rules());
}

/* A module name: letters, digits, '_', '-' and dots between them. */
static int valid_module(const char *name, size_t length)
{
    if (length == 0 || length >= MAX_MODULE || name[0] == '.' || name[length - 1] == '.')
        return 0;
    for (size_t i = 0; i < length; i++) {
        char c = name[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '_' || c == '-' || (c == '.' && name[i + 1] != '.');
        if (!ok)
            return 0;
    }
    return 1;
}

/* Sets module's rule in table (replacing one for the same module); 0, or
 * -ENOSPC when the table is full. */
static int put_rule(rule *table, size_t *count, const char *module, size_t length, int level)
{
    for (size_t i = 0; i < *count; i++) {
        if (table[i].length == length && memcmp(table[i].module, module, length) == 0) {
            table[i].level = level;
            return 0;
        }
    }
    if (*count == MAX_RULES)
        return -ENOSPC;
    memcpy(table[*count].module, module, length);
    table[*count].module[length] = '\0';
    table[*count].length = length;
    table[*count].level = level;
    ++*count;
    return 0;
}

XLOG_API int xlog_set_module_level(const char *module, int level)
{
    if (!module || !valid_module(module, strlen(module))) {
        xlog_set_error("xlog_set_module_level: \"%s\" is not a module name (letters, digits, "
                       "'_', '-' and dots between them, at most %d bytes)",
                       module ? module : "(null)", MAX_MODULE - 1);
        return -EINVAL;
    }
    lock_rules();
    size_t count = copy_rules();
    if (put_rule(scratch, &count, module, strlen(module), clamp_level(level)) != 0) {
        unlock_rules(); /* nothing changed: every site's cache stays good */
        xlog_set_error("xlog_set_module_level: more than %d module rules", MAX_RULES);
        return -ENOSPC;
    }
    publish(rules.process, rules.backtrace, scratch, count);
    return 0;
}

int xlog_parse_level(const char *text, size_t length)
{
    /* The names xlog prints, and the other spellings operators type
     * (syslog's "warning" and "err"). */
    static const struct {
        const char *name;
        int level;
    } names[] = {{"trace", XLOG_TRACE}, {"debug", XLOG_DEBUG}, {"info", XLOG_INFO},
                 {"warn", XLOG_WARN},   {"warning", XLOG_WARN}, {"error", XLOG_ERROR},
                 {"err", XLOG_ERROR},   {"fatal", XLOG_FATAL},  {"off", XLOG_OFF}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i].name) == length && strncasecmp(text, names[i].name, length) == 0)
            return names[i].level;
    return -1;
}

static int blank(char c)
{
    return c == ' ' || c == '\t';
}

/* How much of a filter, and of one of its items, an error message quotes. */
#define SHOWN 64
#define SHOWN_ITEM(length) ((length) > 32 ? 32 : (length))

/* Parses a filter ("warn,net=debug,net.tls=trace") into *process and
 * table; 0, or -EINVAL after saying where (what names the setting). */
static int parse_filter(const char *filter, const char *what, int *process, rule *table,
                        size_t *count)
{
    /* A long filter is quoted in part, so that the reason fits the message. */
    int shown = strlen(filter) > SHOWN ? SHOWN : (int)strlen(filter);
    const char *cut = strlen(filter) > SHOWN ? "..." : "";
    *count = 0;
    const char *p = filter;
    for (;;) {
        /* Blanks (spaces, tabs) around an item and around its '=' are not
         * part of it. */
        while (blank(*p))
            p++;
        const char *item = p;
        size_t length = strcspn(p, ",");
        while (length && blank(p[length - 1]))
            length--;
        const char *equals = memchr(item, '=', length);
        int column = (int)(item - filter) + 1;
        if (length == 0) {
            xlog_set_error("%s=\"%.*s%s\": empty item at column %d", what, shown, filter, cut,
                           column);
            return -EINVAL;
        }
        const char *level_text = equals ? equals + 1 : item;
        while (equals && blank(*level_text) && level_text < item + length)
            level_text++;
        size_t level_length = (size_t)(item + length - level_text);
        size_t module_length = equals ? (size_t)(equals - item) : 0;
        while (module_length && blank(item[module_length - 1]))
            module_length--;
        int level = xlog_parse_level(level_text, level_length);
        if (level < 0) {
            xlog_set_error("%s=\"%.*s%s\": \"%.*s\" at column %d is not a level (trace, debug, "
                           "info, warn or warning, error or err, fatal or off)",
                           what, shown, filter, cut, (int)SHOWN_ITEM(level_length), level_text,
                           (int)(level_text - filter) + 1);
            return -EINVAL;
        }
        if (!equals) {
            *process = level;
        } else if (!valid_module(item, module_length)) {
            xlog_set_error("%s=\"%.*s%s\": \"%.*s\" at column %d is not a module name (letters, "
                           "digits, '_', '-' and dots between them, at most %d bytes)",
                           what, shown, filter, cut, (int)SHOWN_ITEM(module_length), item,
                           column, MAX_MODULE - 1);
            return -EINVAL;
        } else if (put_rule(table, count, item, module_length, level) != 0) {
            xlog_set_error("%s=\"%.*s%s\": more than %d module rules", what, shown, filter, cut,
                           MAX_RULES);
            return -EINVAL;
        }
        p += strcspn(p, ",");
        if (*p == '\0')
            return 0;
        p++;
    }
}

int xlog_apply_filter(const char *filter, const char *what, int process, int check_only)
{
    size_t count;
    lock_rules();
    int rc = parse_filter(filter, what, &process, scratch, &count);
    if (rc != 0 || check_only) {
        unlock_rules();
        return rc;
    }
    publish(process, rules.backtrace, scratch, count);
    return 0;
}

XLOG_API int xlog_set_filter(const char *filter)
{
    if (!filter) {
        xlog_set_error("xlog_set_filter: the filter is NULL");
        return -EINVAL;
    }
    return xlog_apply_filter(filter, "filter", xlog_get_level(), 0);
}
