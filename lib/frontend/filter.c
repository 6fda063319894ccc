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
 * fixed table guarded by a sequence counter (base/rules.h,
 * xlog_shared_rules); this is slow only next to the call sites' cache,
 * which it fills.  Changes are made on a copy and published whole,
 * serialised by a mutex taken only by xlog_set_level, xlog_set_filter,
 * xlog_set_module_level and xlog_thread_level (and fork).
 *
 * The rules the callers follow are the program's merged with the sinks'
 * filters (xlog_sink_config.filter): for every module the lowest level
 * either lets through, so that the caller's check stays one table and one
 * cached decision per site whatever the sinks ask, and a line some sink
 * wants reaches the back end, which gives each sink its share
 * (sinks/sinks.c).  Without sink filters they are the program's alone.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/atomics.h"
#include "base/error.h"
#include "base/guard.h"
#include "base/rules.h"
#include "frontend/filter.h"
#include "frontend/frontend.h"
#include "sinks/sink.h"

/* The rules the callers follow (read without a lock: base/rules.h): the
 * program's own, merged with the sinks' filters (the most permissive of
 * them all, so that a line some sink wants reaches the back end, which
 * gives each sink what its filter or the program's rules let through:
 * sinks.c). */
static xlog_shared_rules rules = {.process = XLOG_INFO, .backtrace = XLOG_OFF};

/* The program's own rules (its level, xlog_set_filter, module rules) and
 * the sinks' filters merged as one (xlog_use_sink_filters); under the mutex. */
static xlog_rules program = {.process = XLOG_INFO};
static struct {
    int active;
    int process;
    size_t count;
    xlog_rule list[XLOG_SHARED_RULES_MAX - XLOG_RULES_MAX];
} sink_side;

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

/* The level of module under the rules the callers follow (lock-free). */
static int level_of(const char *module, int *backtrace)
{
    return xlog_shared_rules_level(&rules, module, strlen(module), backtrace);
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
    return __atomic_load_n(&program.process, __ATOMIC_RELAXED);
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

/* Makes process and table (count rules) the program's rules, and publishes
 * them, merged with the sinks' filters, with a new floor and a new
 * generation, so that every site computes its thresholds again at its next
 * call.  Called with the mutex held, which it releases. */
static void publish(int process, int backtrace, const xlog_rule *table, size_t count)
{
    static xlog_rule merged[XLOG_SHARED_RULES_MAX];
    __atomic_store_n(&program.process, process, __ATOMIC_RELAXED);
    if (table != program.list)
        memcpy(program.list, table, count * sizeof *table);
    program.count = count;
    xlog_sinks_set_program_rules(process, program.list, count);
    int merged_process = process;
    size_t merged_count = count;
    const xlog_rule *followed = program.list;
    if (sink_side.active) {
        /* Cannot fail: the sinks' side has room for all but the program's
         * XLOG_RULES_MAX. */
        xlog_rules_merge(process, program.list, count, sink_side.process, sink_side.list,
                         sink_side.count, &merged_process, merged, &merged_count,
                         XLOG_SHARED_RULES_MAX);
        followed = merged;
    }
    xlog_shared_rules_store(&rules, merged_process, backtrace, followed, merged_count);
    rules_floor = merged_process < backtrace ? merged_process : backtrace;
    for (size_t i = 0; i < merged_count; i++)
        if (followed[i].level < rules_floor)
            rules_floor = followed[i].level;
    __atomic_store_n(&xlog_impl_process_threshold, merged_process, __ATOMIC_RELAXED);
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

/* Only writers (under the mutex) touch this copy of the program's rules. */
static xlog_rules scratch;

/* The program's rules, copied into scratch; returns their count. */
static size_t copy_rules(void)
{
    memcpy(scratch.list, program.list, program.count * sizeof *scratch.list);
    return program.count;
}

/* The backtrace level in force (under the mutex). */
static int backtrace_level(void)
{
    return __atomic_load_n(&rules.backtrace, __ATOMIC_RELAXED);
}

XLOG_API void xlog_set_level(int level)
{
    lock_rules();
    publish(clamp_level(level), backtrace_level(), scratch.list, copy_rules());
}

void xlog_set_backtrace_level(int level)
{
    lock_rules();
    publish(program.process, clamp_level(level), scratch.list, copy_rules());
}

XLOG_API int xlog_set_module_level(const char *module, int level)
{
    if (!module || !xlog_valid_module(module, strlen(module))) {
        xlog_set_error("xlog_set_module_level: \"%s\" is not a module name (letters, digits, "
                       "'_', '-' and dots between them, at most %d bytes)",
                       module ? module : "(null)", XLOG_MODULE_MAX - 1);
        return -EINVAL;
    }
    lock_rules();
    size_t count = copy_rules();
    if (xlog_rules_put(scratch.list, &count, XLOG_RULES_MAX, module, strlen(module),
                       clamp_level(level)) != 0) {
        unlock_rules(); /* nothing changed: every site's cache stays good */
        xlog_set_error("xlog_set_module_level: more than %d module rules", XLOG_RULES_MAX);
        return -ENOSPC;
    }
    publish(program.process, backtrace_level(), scratch.list, count);
    return 0;
}

int xlog_apply_filter(const char *filter, const char *what, int process, int check_only)
{
    lock_rules();
    scratch.process = process;
    int rc = xlog_rules_parse(filter, what, &scratch);
    if (rc != 0 || check_only) {
        unlock_rules();
        return rc;
    }
    publish(scratch.process, backtrace_level(), scratch.list, scratch.count);
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

void xlog_use_sink_filters(void)
{
    lock_rules();
    const xlog_rule *list;
    sink_side.active = xlog_sinks_routing(&sink_side.process, &list, &sink_side.count);
    if (sink_side.active)
        memcpy(sink_side.list, list, sink_side.count * sizeof *list);
    publish(program.process, backtrace_level(), program.list, program.count);
}
