/*
 * xlog.c - the life cycle: configuration, open, flush, close, counters.
 *
 * Why it is apart: these calls are rare and may be slow; they check the
 * configuration, apply the operator's environment, start and stop the back
 * end, and hand the front end the few settings it reads on every call.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/internal.h"
#include "sinks/console_sink.h"

/* Serialises xlog_open and xlog_close with each other (and with fork). */
static pthread_mutex_t lifecycle_lock = PTHREAD_MUTEX_INITIALIZER;
static int is_open;
/* The configuration in force, for the child of a fork to start again with. */
static xlog_config open_cfg;
static char *open_dir;

XLOG_API xlog_config xlog_defaults(void)
{
    xlog_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.dir = "logs";
    cfg.file_mode = XLOG_FILE_SHARED;
    cfg.level = XLOG_INFO;
    cfg.ring_size = (size_t)1 << 20;
    cfg.full_policy = XLOG_FULL_BLOCK;
    cfg.max_message = 16384;
    cfg.write_buffer = 256 * 1024;
    cfg.flush_interval_ms = 20;
    cfg.idle_sleep_us = 500;
    cfg.use_environment = 1;
    cfg.wall_clock_ns = NULL;
    cfg.crash_handlers = 1;
    cfg.follow_symlinks = 1;
    cfg.rotate_size = 0;
    cfg.rotate_keep = 10;
    cfg.keep_days = 0;
    cfg.rotate_local_time = 0;
    cfg.compress = XLOG_COMPRESS_NONE;
    cfg.check_interval_ms = 1000;
    cfg.console = 0;
    cfg.console_level = XLOG_TRACE;
    cfg.console_buffer = (size_t)1 << 20;
    cfg.console_color = XLOG_COLOR_AUTO;
    return cfg;
}

static int parse_level(const char *text)
{
    static const char *const names[] = {"trace", "debug", "info", "warn", "error", "fatal", "off"};
    for (int i = 0; i <= XLOG_OFF; i++)
        if (strcasecmp(text, names[i]) == 0)
            return i;
    if (strcasecmp(text, "warning") == 0)
        return XLOG_WARN;
    return -1;
}

static size_t round_up_power_of_two(size_t n)
{
    size_t p = 1;
    while (p < n)
        p <<= 1;
    return p;
}

/* Applies the environment and checks every field; 0 or -EINVAL. */
static int settle_config(xlog_config *cfg)
{
    if (cfg->use_environment) {
        const char *dir = getenv("XLOG_DIR");
        if (dir && *dir)
            cfg->dir = dir;
        const char *level = getenv("XLOG_LEVEL");
        if (level && *level) {
            int parsed = parse_level(level);
            if (parsed < 0)
                return -EINVAL;
            cfg->level = parsed;
        }
    }
    if (!cfg->dir || !*cfg->dir)
        return -EINVAL;
    if (cfg->file_mode != XLOG_FILE_SHARED && cfg->file_mode != XLOG_FILE_PER_THREAD &&
        cfg->file_mode != XLOG_FILE_PER_PROCESS)
        return -EINVAL;
    if (cfg->level < XLOG_TRACE || cfg->level > XLOG_OFF)
        return -EINVAL;
    if (cfg->full_policy != XLOG_FULL_BLOCK && cfg->full_policy != XLOG_FULL_DROP)
        return -EINVAL;
    if (cfg->ring_size < 65536 || cfg->ring_size > ((size_t)1 << 30))
        return -EINVAL;
    cfg->ring_size = round_up_power_of_two(cfg->ring_size);
    if (cfg->max_message < 256 || cfg->max_message > cfg->ring_size / 4)
        return -EINVAL;
    if (cfg->write_buffer < 4096)
        return -EINVAL;
    /* A buffer must hold at least one line of the longest kind. */
    if (cfg->write_buffer < cfg->max_message + 8192)
        cfg->write_buffer = cfg->max_message + 8192;
    /* Rotation: smaller files would mean a lock and renames for every few
     * writes. */
    if (cfg->rotate_size != 0 && cfg->rotate_size < 65536)
        return -EINVAL;
    if (cfg->rotate_keep < 1 || cfg->rotate_keep > 100000)
        return -EINVAL;
    if (cfg->compress != XLOG_COMPRESS_NONE && cfg->compress != XLOG_COMPRESS_GZIP)
        return -EINVAL;
    if (cfg->check_interval_ms < 1 || cfg->check_interval_ms > 86400000)
        return -EINVAL;
    /* Console: a descriptor, a level, and room for the longest line. */
    if (cfg->console < 0 || cfg->console_level < XLOG_TRACE || cfg->console_level > XLOG_OFF)
        return -EINVAL;
    if (cfg->console_color != XLOG_COLOR_AUTO && cfg->console_color != XLOG_COLOR_NEVER &&
        cfg->console_color != XLOG_COLOR_ALWAYS)
        return -EINVAL;
    if (cfg->console_buffer < 65536)
        return -EINVAL;
    if (cfg->console_buffer < cfg->max_message + 8192)
        cfg->console_buffer = cfg->max_message + 8192;
    return 0;
}

/* fork(): the locks are taken in one order (lifecycle, registry, back end)
 * so that none is held by a thread that does not exist in the child. */
static void before_fork(void)
{
    pthread_mutex_lock(&lifecycle_lock);
    pthread_mutex_lock(&xlog_rings.lock);
    xlog_backend_lock();
}

static void after_fork_in_parent(void)
{
    xlog_backend_unlock();
    pthread_mutex_unlock(&xlog_rings.lock);
    pthread_mutex_unlock(&lifecycle_lock);
}

static void after_fork_in_child(void)
{
    xlog_backend_unlock();
    if (is_open)
        xlog_backend_after_fork();
    xlog_front_after_fork();
    pthread_mutex_unlock(&xlog_rings.lock);
    pthread_mutex_unlock(&lifecycle_lock);
    if (is_open) {
        xlog_store(&xlog_front.accepting, 0);
        xlog_store_release(&xlog_front.forked, 1);
    }
}

void xlog_resume_after_fork(void)
{
    pthread_mutex_lock(&lifecycle_lock);
    if (xlog_load(&xlog_front.forked) && is_open) {
        xlog_store(&xlog_front.forked, 0);
        if (xlog_backend_start(&open_cfg) == 0)
            xlog_store_release(&xlog_front.accepting, 1);
        else
            is_open = 0;
    }
    pthread_mutex_unlock(&lifecycle_lock);
}

/* exit() or a return from main without xlog_close(): write everything. */
static void close_at_exit(void)
{
    xlog_close();
}

XLOG_API int xlog_open(const xlog_config *user_cfg)
{
    xlog_config cfg = user_cfg ? *user_cfg : xlog_defaults();
    int rc = settle_config(&cfg);
    if (rc != 0)
        return rc;
    pthread_mutex_lock(&lifecycle_lock);
    if (is_open) {
        pthread_mutex_unlock(&lifecycle_lock);
        return -EALREADY;
    }
    xlog_store(&xlog_front.ring_size, cfg.ring_size);
    xlog_store(&xlog_front.max_message, cfg.max_message);
    xlog_store(&xlog_front.full_policy, (int)cfg.full_policy);
    xlog_store(&xlog_front.alt_stacks, cfg.crash_handlers);
    rc = xlog_backend_start(&cfg);
    if (rc == 0) {
        is_open = 1;
        xlog_store_release(&xlog_front.accepting, 1);
        xlog_set_level(cfg.level);
        if (cfg.crash_handlers)
            xlog_crash_install();
        free(open_dir);
        open_dir = strdup(cfg.dir);
        open_cfg = cfg;
        open_cfg.dir = open_dir ? open_dir : "logs";
        static int hooks_installed;
        if (!hooks_installed) {
            atexit(close_at_exit);
            pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child);
            hooks_installed = 1;
        }
    }
    pthread_mutex_unlock(&lifecycle_lock);
    return rc;
}

XLOG_API int xlog_flush(void)
{
    if (xlog_load(&xlog_front.forked))
        xlog_resume_after_fork();
    if (!xlog_load_acquire(&xlog_front.accepting))
        return -EBADF;
    return xlog_backend_flush();
}

XLOG_API int xlog_close(void)
{
    pthread_mutex_lock(&lifecycle_lock);
    if (!is_open) {
        pthread_mutex_unlock(&lifecycle_lock);
        return -EBADF;
    }
    xlog_crash_uninstall();
    xlog_set_level(XLOG_OFF);
    if (xlog_load(&xlog_front.forked)) {
        /* A child that never logged: there is no back end to stop. */
        xlog_store(&xlog_front.forked, 0);
    } else {
        xlog_store_release(&xlog_front.accepting, 0);
        xlog_backend_stop();
    }
    is_open = 0;
    pthread_mutex_unlock(&lifecycle_lock);
    return 0;
}

XLOG_API void xlog_stats(xlog_counters *out)
{
    memset(out, 0, sizeof *out);
    out->messages = xlog_load(&xlog_counts.messages);
    out->bytes = xlog_load(&xlog_counts.bytes);
    out->writes = xlog_load(&xlog_counts.writes);
    out->truncated = xlog_load(&xlog_counts.truncated);
    out->write_errors = xlog_load(&xlog_counts.write_errors);
    out->lost = xlog_load(&xlog_counts.lost);
    out->console_dropped = xlog_load(&xlog_console_dropped);
    pthread_mutex_lock(&xlog_rings.lock);
    out->dropped = xlog_rings.retired_dropped;
    out->blocked = xlog_rings.retired_blocked;
    for (xlog_ring *r = xlog_rings.rings; r; r = r->next) {
        out->dropped += xlog_load(&r->dropped);
        out->blocked += xlog_load(&r->blocked);
    }
    pthread_mutex_unlock(&xlog_rings.lock);
}

XLOG_API const char *xlog_strerror(int rc)
{
    switch (rc) {
    case 0:
        return "success";
    case -EINVAL:
        return "invalid configuration: a field of xlog_config (or XLOG_LEVEL / XLOG_DIR) is "
               "out of range";
    case -EALREADY:
        return "xlog is already open";
    case -EBADF:
        return "xlog is not open";
    default:
        return rc < 0 ? strerror(-rc) : "unknown xlog result";
    }
}

XLOG_API const char *xlog_version(void)
{
    return XLOG_VERSION_STRING;
}
