/*
 * strategy_levels.c - what a call costs when a level or a module rule turns
 * it down, and an enabled call from a module, to set beside the enabled
 * call without a module (xlog-shared):
 *
 *   xlog-off-level   XLOG_DEBUG under the process level INFO: the first
 *                    test (a thread-local load, a global load, a compare);
 *   xlog-off-module  XLOG_DEBUG from module "bench.quiet" while another
 *                    module's rule lets DEBUG through (so the first test
 *                    passes): the call site's cached decision turns it down;
 *   xlog-module      XLOG_INFO from module "bench.quiet": an enabled call
 *                    that goes through the module's decision too.
 *
 * The module is this translation unit's, as a program's would be.
 */
#define XLOG_MODULE "bench.quiet"
#include <xlog.h>

#include "runner.h"
#include "strategies.h"

static int open_with_filter(const char *dir, const char *filter)
{
    int rc = bench_xlog_open_dir(dir, XLOG_FILE_SHARED);
    if (rc == 0 && filter)
        rc = xlog_set_filter(filter);
    return rc;
}

static int off_level_setup(const char *dir, void **shared)
{
    (void)shared;
    return open_with_filter(dir, "info");
}

static int off_module_setup(const char *dir, void **shared)
{
    (void)shared;
    return open_with_filter(dir, "info,bench.loud=debug");
}

static int module_setup(const char *dir, void **shared)
{
    (void)shared;
    return open_with_filter(dir, "info,bench.quiet=info");
}

static void debug_calls(bench_worker *w, uint64_t first, uint64_t count, uint64_t *samples)
{
    BENCH_MESSAGE_CALLS(w->payload, samples, first, count, XLOG, XLOG_DEBUG);
}

static void info_calls(bench_worker *w, uint64_t first, uint64_t count, uint64_t *samples)
{
    BENCH_MESSAGE_CALLS(w->payload, samples, first, count, XLOG, XLOG_INFO);
}

static void sync_calls(bench_worker *w)
{
    (void)w;
    xlog_flush();
}

static void finish(void *shared)
{
    (void)shared;
    xlog_flush();
}

static void teardown(void *shared, bench_row *row)
{
    (void)shared;
    bench_xlog_close(row);
    xlog_set_filter("info"); /* no module rule for the rows after */
}

#define LEVEL_STEPS                                                                        \
    .audit_syscalls = 1, .worker_sync = sync_calls, .finish = finish, .teardown = teardown

const phased_strategy xlog_off_level_strategy = {
    LEVEL_STEPS,
    .writes_nothing = 1,
    .setup = off_level_setup,
    .calls = debug_calls,
};

const phased_strategy xlog_off_module_strategy = {
    LEVEL_STEPS,
    .writes_nothing = 1,
    .setup = off_module_setup,
    .calls = debug_calls,
};

const phased_strategy xlog_module_strategy = {
    LEVEL_STEPS,
    .setup = module_setup,
    .calls = info_calls,
};
