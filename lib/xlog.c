/*
 * xlog.c - the life cycle: configuration, open, flush, close, counters.
 *
 * Why it is apart: these calls are rare and may be slow; they check the
 * configuration, apply the operator's environment, start and stop the back
 * end, and hand the front end the few settings it reads on every call.
 *
 * Exit: xlog must write what was logged before the process ends, also by
 * code that runs during exit() after the program's last word.  exit() runs
 * the atexit handlers in reverse order of registration, then the
 * destructors.  So xlog_open registers a handler that only flushes (the
 * back end keeps running for the handlers registered before xlog_open, and
 * for C++ static destructors), and a destructor of the library closes xlog
 * at the very end (priority 101: after the program's own destructors).
 * quick_exit() runs only at_quick_exit handlers: xlog flushes there too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/backend.h"
#include "backend/crash.h"
#include "base/atomics.h"
#include "base/counters.h"
#include "base/error.h"
#include "base/guard.h"
#include "base/settings.h"
#include "config/config_file.h"
#include "frontend/filter.h"
#include "frontend/frontend.h"
#include "recovery/recovery.h"
#include "rings/rings.h"
#include "shm/shm.h"
#include "sinks/sink.h"

/* Serialises xlog_open and xlog_close with each other (and with fork). */
static pthread_mutex_t lifecycle_lock = PTHREAD_MUTEX_INITIALIZER;
static int is_open;
/* Each xlog_open starts an epoch; rings belong to one (frontend.c). */
static uint64_t last_epoch;
/* The configuration in force, for the child of a fork to start again with. */
static xlog_config open_cfg;
static char open_dir[PATH_MAX];
/* The configuration file open_cfg was read from: its strings and sinks,
 * which open_cfg points to until xlog_close (NULL: none). */
static xlog_config_file *open_file;

/* Messages dropped while xlog was closed that the log has announced. */
static uint64_t closed_drops_announced;
/* Why the rings of this xlog_open are not persistent (0: they are, or
 * cfg.persistent is 0), for the first line after it. */
static int survival_error;

static uint64_t backend_calls_refused;

/* Non-zero, after counting it and saying why, when function is called on
 * the back end's thread or from a sink's function: it must then return
 * -EDEADLK at once. */
static int refused_on_backend(const char *function)
{
    if (!xlog_serving())
        return 0;
    xlog_add(&backend_calls_refused, 1);
    xlog_set_error("%s: called from a custom sink's function (or cfg.wall_clock_ns), where it "
                   "would wait for xlog's back end or stop it", function);
    return 1;
}

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
    cfg.persistent = 1;
    cfg.persistent_dir = NULL;
    cfg.follow_symlinks = 1;
    cfg.rotate_size = 0;
    cfg.rotate_keep = 10;
    cfg.keep_days = 0;
    cfg.rotate_local_time = 0;
    cfg.file_prefix = NULL;
    cfg.rotate_hourly = 0;
    cfg.compress = XLOG_COMPRESS_NONE;
    cfg.check_interval_ms = 1000;
    cfg.console = 0;
    cfg.console_level = XLOG_TRACE;
    cfg.console_buffer = (size_t)1 << 20;
    cfg.console_color = XLOG_COLOR_AUTO;
    cfg.console_layout = XLOG_LAYOUT_TEXT;
    cfg.console_pattern = NULL;
    cfg.file_layout = XLOG_LAYOUT_TEXT;
    cfg.file_pattern = NULL;
    cfg.file_level = XLOG_TRACE;
    cfg.sinks = NULL;
    cfg.backtrace_lines = 0;
    cfg.backtrace_level = XLOG_TRACE;
    cfg.flush_level = XLOG_OFF;
    cfg.sync_level = XLOG_OFF;
    return cfg;
}

static size_t round_up_power_of_two(size_t n)
{
    size_t p = 1;
    while (p < n)
        p <<= 1;
    return p;
}

/* Fails xlog_open with -EINVAL and says which field and why. */
static int invalid(const char *format, ...) __attribute__((format(printf, 1, 2)));
static int invalid(const char *format, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, format);
    vsnprintf(text, sizeof text, format, ap);
    va_end(ap);
    xlog_set_error("%s", text);
    return -EINVAL;
}

/* dir as an absolute path in out (PATH_MAX bytes, no trailing slash), so
 * that a later chdir() of the program does not move the logs (rotation,
 * retention, reopen and compression all use it); what names the setting
 * in error messages.  0, or a negative errno after saying why. */
static int absolute_dir(const char *dir, const char *what, char *out)
{
    char resolved[PATH_MAX];
    if (dir[0] == '/') {
        if (strlen(dir) >= sizeof resolved)
            return invalid("%s: longer than PATH_MAX", what);
        strcpy(resolved, dir);
    } else {
        char cwd[PATH_MAX];
        if (!getcwd(cwd, sizeof cwd)) {
            int rc = -errno;
            xlog_set_error("%s \"%s\" is relative and the current directory is unknown: %s",
                           what, dir, strerror(errno));
            return rc;
        }
        const char *rest = dir;
        while (rest[0] == '.' && rest[1] == '/')
            rest += 2;
        int n = strcmp(rest, ".") == 0 ? snprintf(resolved, sizeof resolved, "%s", cwd)
                                       : snprintf(resolved, sizeof resolved, "%s/%s",
                                                  strcmp(cwd, "/") == 0 ? "" : cwd, rest);
        if (n < 0 || (size_t)n >= sizeof resolved)
            return invalid("%s: \"%s\" in \"%s\" is longer than PATH_MAX", what, dir, cwd);
    }
    /* Doubled slashes and "." components name the same directory as the
     * path without them: dropped, so that one directory has one spelling
     * when sets of files are compared (same_names) and in messages.  ".."
     * stays: after a symlink it does not undo the component before it. */
    size_t len = 0;
    for (const char *p = resolved; *p;) {
        while (*p == '/')
            p++;
        const char *end = p;
        while (*end && *end != '/')
            end++;
        if (end == p)
            break;
        if (!(end - p == 1 && *p == '.')) {
            out[len++] = '/';
            memcpy(out + len, p, (size_t)(end - p));
            len += (size_t)(end - p);
        }
        p = end;
    }
    if (len == 0)
        out[len++] = '/';
    out[len] = '\0';
    return 0;
}

/* cfg->dir made absolute, in open_dir. */
static int resolve_dir(xlog_config *cfg)
{
    int rc = absolute_dir(cfg->dir, "cfg.dir", open_dir);
    if (rc == 0)
        cfg->dir = open_dir;
    return rc;
}

/* The listed file sinks of the configuration being opened, each with its
 * directory absolute (cfg.dir's when it has none), and the list of sinks
 * that points to them in place of the program's (the other sinks as they
 * are).  Free to change only while xlog is closed. */
#define LISTED_MAX 32
static xlog_file_config open_files[LISTED_MAX];
static char open_file_dirs[LISTED_MAX][PATH_MAX];
static const xlog_sink_config *open_sinks[LISTED_MAX + 1];

/* Whether dir_a and dir_b are one directory: the same absolute spelling,
 * or (a symlink, "..") the same directory on disk if both exist already. */
static int same_directory(const char *dir_a, const char *dir_b)
{
    if (strcmp(dir_a, dir_b) == 0)
        return 1;
    struct stat a, b;
    return stat(dir_a, &a) == 0 && stat(dir_b, &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

/* Whether two sets of files would take each other's names. */
static int same_names(const char *dir_a, const char *prefix_a, const char *dir_b,
                      const char *prefix_b)
{
    return strcmp(prefix_a ? prefix_a : "", prefix_b ? prefix_b : "") == 0 &&
           same_directory(dir_a, dir_b);
}

/* Makes cfg->sinks the list above, after cfg->dir is absolute: 0, or
 * -EINVAL (a directory that cannot be made absolute, two sets of files
 * with the same directory and prefix).  A longer list than it holds is left
 * as it is, for the sinks to refuse. */
static int resolve_listed_files(xlog_config *cfg)
{
    size_t count = 0;
    while (cfg->sinks && cfg->sinks[count])
        count++;
    if (count == 0 || count > LISTED_MAX)
        return 0;
    for (size_t i = 0; i < count; i++) {
        open_sinks[i] = cfg->sinks[i];
        if (cfg->sinks[i]->kind != XLOG_SINK_FILE)
            continue;
        open_files[i] = *(const xlog_file_config *)cfg->sinks[i];
        char what[48];
        snprintf(what, sizeof what, "cfg.sinks[%zu] (file): dir", i);
        int rc = open_files[i].dir ? absolute_dir(open_files[i].dir, what, open_file_dirs[i]) : 0;
        if (rc != 0)
            return rc;
        open_files[i].dir = open_files[i].dir ? open_file_dirs[i] : cfg->dir;
        open_sinks[i] = &open_files[i].sink;
        const xlog_file_config *f = &open_files[i];
        if (same_names(f->dir, f->prefix, cfg->dir, cfg->file_prefix))
            return invalid("cfg.sinks[%zu] (file): the same directory (%s) and prefix (%s) as "
                           "the main files (cfg.dir, cfg.file_prefix): each would take the "
                           "other's files for its own", i, f->dir, f->prefix ? f->prefix : "none");
        for (size_t j = 0; j < i; j++)
            if (open_sinks[j]->kind == XLOG_SINK_FILE &&
                same_names(f->dir, f->prefix, open_files[j].dir, open_files[j].prefix))
                return invalid("cfg.sinks[%zu] (file): the same directory (%s) and prefix (%s) "
                               "as cfg.sinks[%zu]: each would take the other's files for its own",
                               i, f->dir, f->prefix ? f->prefix : "none", j);
    }
    open_sinks[count] = NULL;
    cfg->sinks = open_sinks;
    return 0;
}

/* The configuration file, if any (XLOG_CONFIG when the environment is
 * used, else cfg.config_file), over the program's configuration: 0 with
 * *file set (NULL: no file), or -EINVAL (-ENOMEM) with nothing applied. */
static int apply_config_file(xlog_config *cfg, xlog_config_file **file)
{
    *file = NULL;
    const char *path = cfg->config_file;
    const char *from_environment = cfg->use_environment ? getenv("XLOG_CONFIG") : NULL;
    if (from_environment && *from_environment)
        path = from_environment;
    if (!path || !*path)
        return 0;
    return xlog_config_file_load(path, cfg, file);
}

/* Applies the environment and checks every field: 0, or -EINVAL with the
 * reason in last_error.  The environment comes after the configuration
 * file: XLOG_DIR and XLOG_LEVEL override it. */
static int settle_config(xlog_config *cfg)
{
    if (cfg->use_environment) {
        const char *dir = getenv("XLOG_DIR");
        if (dir && *dir)
            cfg->dir = dir;
        const char *filter = getenv("XLOG_LEVEL");
        if (filter && *filter && xlog_apply_filter(filter, "XLOG_LEVEL", 0, 1) != 0)
            return -EINVAL;
    }
    if (!cfg->dir || !*cfg->dir)
        return invalid("cfg.dir is %s", cfg->dir ? "empty" : "NULL");
    if (cfg->file_mode != XLOG_FILE_SHARED && cfg->file_mode != XLOG_FILE_PER_THREAD &&
        cfg->file_mode != XLOG_FILE_PER_PROCESS)
        return invalid("cfg.file_mode: %d is not XLOG_FILE_SHARED, XLOG_FILE_PER_THREAD or "
                       "XLOG_FILE_PER_PROCESS", (int)cfg->file_mode);
    const struct {
        const char *name;
        int value;
    } levels[] = {{"cfg.level", cfg->level},
                  {"cfg.file_level", cfg->file_level},
                  {"cfg.backtrace_level", cfg->backtrace_level},
                  {"cfg.flush_level", cfg->flush_level},
                  {"cfg.sync_level", cfg->sync_level}};
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++)
        if (levels[i].value < XLOG_TRACE || levels[i].value > XLOG_OFF)
            return invalid("%s: %d is not a level from XLOG_TRACE (0) to XLOG_OFF (6)",
                           levels[i].name, levels[i].value);
    if (cfg->backtrace_lines > 100000)
        return invalid("cfg.backtrace_lines: %u is above 100000", cfg->backtrace_lines);
    if (cfg->full_policy != XLOG_FULL_BLOCK && cfg->full_policy != XLOG_FULL_DROP)
        return invalid("cfg.full_policy: %d is not XLOG_FULL_BLOCK or XLOG_FULL_DROP",
                       (int)cfg->full_policy);
    if (cfg->ring_size < 65536 || cfg->ring_size > ((size_t)1 << 30))
        return invalid("cfg.ring_size: %zu is not between 64 KiB and 1 GiB", cfg->ring_size);
    cfg->ring_size = round_up_power_of_two(cfg->ring_size);
    if (cfg->max_message < 256 || cfg->max_message > cfg->ring_size / 4)
        return invalid("cfg.max_message: %zu is not between 256 and ring_size / 4 (%zu)",
                       cfg->max_message, cfg->ring_size / 4);
    if (cfg->write_buffer < 4096)
        return invalid("cfg.write_buffer: %zu is below 4096", cfg->write_buffer);
    /* A buffer must hold at least one line of the longest kind. */
    if (cfg->write_buffer < cfg->max_message + 8192)
        cfg->write_buffer = cfg->max_message + 8192;
    /* Rotation: smaller files would mean a lock and renames for every few
     * writes. */
    if (cfg->rotate_size != 0 && cfg->rotate_size < 65536)
        return invalid("cfg.rotate_size: %zu is neither 0 (no size rotation) nor at least 64 KiB",
                       cfg->rotate_size);
    if (cfg->rotate_keep < 1 || cfg->rotate_keep > 100000)
        return invalid("cfg.rotate_keep: %u is not between 1 and 100000", cfg->rotate_keep);
    if (cfg->compress != XLOG_COMPRESS_NONE && cfg->compress != XLOG_COMPRESS_GZIP)
        return invalid("cfg.compress: %d is not XLOG_COMPRESS_NONE or XLOG_COMPRESS_GZIP",
                       (int)cfg->compress);
    if (cfg->check_interval_ms < 1 || cfg->check_interval_ms > 86400000)
        return invalid("cfg.check_interval_ms: %u is not between 1 and 86400000",
                       cfg->check_interval_ms);
    /* Console: a descriptor, a level, and room for the longest line. */
    if (cfg->console < 0)
        return invalid("cfg.console: %d is not a descriptor (0 for no console)", cfg->console);
    if (cfg->console_level < XLOG_TRACE || cfg->console_level > XLOG_OFF)
        return invalid("cfg.console_level: %d is not a level from XLOG_TRACE (0) to XLOG_OFF (6)",
                       cfg->console_level);
    if (cfg->console_color != XLOG_COLOR_AUTO && cfg->console_color != XLOG_COLOR_NEVER &&
        cfg->console_color != XLOG_COLOR_ALWAYS)
        return invalid("cfg.console_color: %d is not XLOG_COLOR_AUTO, XLOG_COLOR_NEVER or "
                       "XLOG_COLOR_ALWAYS", (int)cfg->console_color);
    if (cfg->console_buffer < 65536)
        return invalid("cfg.console_buffer: %zu is below 64 KiB", cfg->console_buffer);
    if (cfg->console_buffer < cfg->max_message + 8192)
        cfg->console_buffer = cfg->max_message + 8192;
    int rc = resolve_dir(cfg);
    return rc == 0 ? resolve_listed_files(cfg) : rc;
}

/* fork(): the locks are taken in one order (lifecycle, registry, back end,
 * then the rules': filter.c registers its handlers at load) so that none is
 * held by a thread that does not exist in the child. */
static void before_fork(void)
{
    xlog_enter();
    pthread_mutex_lock(&lifecycle_lock);
    pthread_mutex_lock(&xlog_rings.lock);
    xlog_rings_before_fork();
    xlog_backend_lock();
}

static void after_fork_in_parent(void)
{
    xlog_backend_unlock();
    xlog_rings_after_fork_in_parent();
    pthread_mutex_unlock(&xlog_rings.lock);
    pthread_mutex_unlock(&lifecycle_lock);
    xlog_leave();
}

static void resume_after_fork(void);

static void after_fork_in_child(void)
{
    xlog_backend_unlock();
    xlog_survival_after_fork();
    if (is_open)
        xlog_backend_after_fork();
    xlog_front_after_fork(); /* reads the thread's ring: before it is unmapped */
    xlog_rings_after_fork();
    pthread_mutex_unlock(&xlog_rings.lock);
    if (is_open) {
        xlog_store(&xlog_front.epoch, 0);
        xlog_front.restart_after_fork = resume_after_fork;
        xlog_store_release(&xlog_front.forked, 1);
    }
    pthread_mutex_unlock(&lifecycle_lock);
    xlog_leave();
}

static void resume_after_fork(void)
{
    pthread_mutex_lock(&lifecycle_lock);
    if (xlog_load(&xlog_front.forked) && is_open) {
        xlog_store(&xlog_front.forked, 0);
        survival_error = open_cfg.persistent ? -xlog_survival_start(&open_cfg) : 0;
        if (xlog_backend_start(&open_cfg) == 0) {
            xlog_store_release(&xlog_front.epoch, ++last_epoch);
        } else {
            xlog_survival_stop();
            xlog_config_file_free(open_file);
            open_file = NULL;
            is_open = 0;
        }
    }
    pthread_mutex_unlock(&lifecycle_lock);
}

/* exit(), quick_exit() or a return from main without xlog_close(): write
 * everything logged so far; what later exit handlers log is written too
 * (see the top of this file). */
static void flush_at_exit(void)
{
    xlog_flush();
}

/* quick_exit() runs no destructor: the process ends with every line
 * written, so what it keeps in shared memory can go now. */
static void flush_at_quick_exit(void)
{
    if (xlog_flush() == 0)
        xlog_survival_remove();
}

__attribute__((destructor(101))) static void close_at_the_end(void)
{
    xlog_close();
}

/* The first line after an xlog_open says how many messages were logged
 * while xlog was closed (or closing) since the last such line. */
static void announce_closed_drops(void)
{
    xlog_counters now;
    xlog_stats(&now);
    uint64_t seen = __atomic_exchange_n(&closed_drops_announced, now.dropped_closing,
                                        __ATOMIC_RELAXED);
    if (now.dropped_closing > seen)
        xlog_notice("%llu %s not written: logged while xlog was closed",
                    (unsigned long long)(now.dropped_closing - seen),
                    xlog_plural(now.dropped_closing - seen, "message was", "messages were"));
}

XLOG_API int xlog_open(const xlog_config *user_cfg)
{
    if (refused_on_backend("xlog_open"))
        return -EDEADLK;
    xlog_clear_error();
    xlog_config cfg = user_cfg ? *user_cfg : xlog_defaults();
    xlog_config_file *file = NULL;
    xlog_enter();
    pthread_mutex_lock(&lifecycle_lock);
    int rc = is_open ? -EALREADY : apply_config_file(&cfg, &file);
    if (rc == 0)
        rc = settle_config(&cfg);
    if (rc == -EALREADY)
        xlog_set_error("xlog is already open");
    if (rc == 0) {
        xlog_store(&xlog_front.ring_size, cfg.ring_size);
        xlog_store(&xlog_front.max_message, cfg.max_message);
        xlog_store(&xlog_front.full_policy, (int)cfg.full_policy);
        xlog_store(&xlog_front.alt_stacks, cfg.crash_handlers);
        xlog_store(&xlog_front.wall_clock_ns, cfg.wall_clock_ns);
        survival_error = 0;
        if (cfg.persistent) {
            /* The lines of processes that used this directory and died first,
             * then this process's own directory (survival.h). */
            xlog_survival_recover(cfg.dir, cfg.persistent_dir);
            survival_error = -xlog_survival_start(&cfg);
        }
        rc = xlog_backend_start(&cfg);
        if (rc != 0) {
            xlog_survival_stop();
            if (!xlog_last_error()[0])
                xlog_set_error("%s", strerror(-rc));
        }
    }
    if (rc != 0)
        xlog_config_file_free(file);
    if (rc == 0) {
        is_open = 1;
        open_cfg = cfg;
        open_file = file;
        xlog_store_release(&xlog_front.epoch, ++last_epoch);
        /* The rules in force: XLOG_LEVEL's, else the file's filter (either
         * over cfg.level where it names no level), else cfg.level alone. */
        const char *filter = cfg.use_environment ? getenv("XLOG_LEVEL") : NULL;
        if (filter && *filter)
            xlog_apply_filter(filter, "XLOG_LEVEL", cfg.level, 0); /* checked above */
        else if (file && xlog_config_file_filter(file))
            xlog_apply_filter(xlog_config_file_filter(file), "filter", cfg.level, 0);
        else
            xlog_set_level(cfg.level);
        xlog_set_backtrace_level(cfg.backtrace_lines ? cfg.backtrace_level : XLOG_OFF);
        xlog_use_sink_filters();
        if (cfg.crash_handlers)
            xlog_crash_install();
        static int hooks_installed;
        if (!hooks_installed) {
            atexit(flush_at_exit);
            at_quick_exit(flush_at_quick_exit);
            pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child);
            hooks_installed = 1;
        }
    }
    pthread_mutex_unlock(&lifecycle_lock);
    xlog_leave();
    if (rc == 0) {
        xlog_clear_error(); /* a custom sink's open may have made a refused call */
        if (survival_error)
            xlog_notice("the lines still in memory will not survive a kill of this process: its "
                        "persistent directory cannot be used: %s",
                        xlog_survival_refusal(survival_error));
        announce_closed_drops();
    }
    return rc;
}

XLOG_API int xlog_flush(void)
{
    if (refused_on_backend("xlog_flush"))
        return -EDEADLK;
    if (xlog_load(&xlog_front.forked))
        resume_after_fork();
    if (!xlog_load_acquire(&xlog_front.epoch))
        return -EBADF;
    return xlog_backend_flush();
}

XLOG_API int xlog_close(void)
{
    if (refused_on_backend("xlog_close"))
        return -EDEADLK;
    xlog_enter();
    pthread_mutex_lock(&lifecycle_lock);
    int rc = -EBADF;
    if (is_open) {
        xlog_crash_uninstall();
        if (xlog_load(&xlog_front.forked)) {
            /* A child that never logged: there is no back end to stop. */
            xlog_store(&xlog_front.forked, 0);
        } else {
            /* Calls from now on are dropped and counted; the back end's
             * last flush writes everything published before. */
            xlog_store_release(&xlog_front.epoch, 0);
            xlog_rings_take_room();
            xlog_backend_stop();
            xlog_use_sink_filters();
            xlog_rings_close_epoch();
            /* Lines of children (or any process of the directory) that
             * died before: written now, not left for a later open. */
            xlog_survival_recover_dead();
            xlog_survival_stop();
        }
        xlog_config_file_free(open_file);
        open_file = NULL;
        is_open = 0;
        rc = 0;
    }
    pthread_mutex_unlock(&lifecycle_lock);
    xlog_leave();
    return rc;
}

XLOG_API long xlog_recover(const char *dir, const char *persistent_dir)
{
    if (refused_on_backend("xlog_recover"))
        return -EDEADLK;
    xlog_clear_error();
    if (!dir || !*dir) {
        xlog_set_error("xlog_recover: dir is %s", dir ? "empty" : "NULL");
        return -EINVAL;
    }
    /* The same absolute name xlog_open gives it (absolute_dir), which the
     * dead process wrote in its process file: the directory spelled
     * another way ("/./", "//", relative) is still found. */
    char resolved[PATH_MAX];
    int rc = absolute_dir(dir, "xlog_recover: dir", resolved);
    if (rc != 0)
        return rc;
    long lines = xlog_survival_recover(resolved, persistent_dir);
    if (lines < 0)
        xlog_set_error("xlog_recover: %s", xlog_survival_refusal((int)-lines));
    return lines;
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
    out->refused = xlog_load(&xlog_counts.refused);
    xlog_sinks_stats(out);
    out->not_persistent = xlog_load(&xlog_survival_fallbacks);
    out->laps_not_grown = xlog_load(&xlog_laps_not_grown);
    out->backend_calls_refused = xlog_load(&backend_calls_refused);
    uint64_t dropped[XLOG_DROP_REASONS];
    xlog_enter();
    pthread_mutex_lock(&xlog_rings.lock);
    for (int i = 0; i < XLOG_DROP_REASONS; i++)
        dropped[i] = xlog_rings.retired_dropped[i] + xlog_load(&xlog_unringed_dropped[i]);
    out->blocked = xlog_rings.retired_blocked;
    xlog_ring *lists[] = {xlog_rings.rings, xlog_rings.stale};
    for (size_t l = 0; l < 2; l++) {
        for (xlog_ring *r = lists[l]; r; r = r->next) {
            for (int i = 0; i < XLOG_DROP_REASONS; i++)
                dropped[i] += xlog_load(&r->dropped[i]);
            out->blocked += xlog_load(&r->blocked);
        }
    }
    pthread_mutex_unlock(&xlog_rings.lock);
    xlog_leave();
    out->dropped_full = dropped[XLOG_DROP_FULL];
    out->dropped_nested = dropped[XLOG_DROP_NESTED];
    out->dropped_closing = dropped[XLOG_DROP_CLOSING];
    out->dropped = out->dropped_full + out->dropped_nested + out->dropped_closing;
}

XLOG_API const char *xlog_strerror(int rc)
{
    switch (rc) {
    case 0:
        return "success";
    case -EINVAL:
        return "invalid configuration: a field of xlog_config (or XLOG_LEVEL / XLOG_DIR, or "
               "a line of the configuration file) is out of range or cannot be used "
               "(cfg.console not an open descriptor, a custom sink without a write function); "
               "xlog_last_error() says which";
    case -EALREADY:
        return "xlog is already open";
    case -EDEADLK:
        return "refused: called from a custom sink's function (or cfg.wall_clock_ns), where it "
               "would wait for xlog's back end or stop it";
    case -EBADF:
        return "xlog is not open";
    default:
        return rc < 0 ? strerror(-rc) : "unknown xlog result";
    }
}

XLOG_API void xlog_impl_check_failed(const char *cond, const char *file, int line,
                                     const char *func, const char *format, ...)
{
    /* Formatted here: the message is the one of a program about to end,
     * and its arguments may not outlive this call for long. */
    char *message = NULL;
    va_list ap;
    va_start(ap, format);
    if (!format || vasprintf(&message, format, ap) < 0)
        message = NULL;
    va_end(ap);
    xlogout(XLOG_FATAL, file, line, func, "check failed: %s: %s", cond,
            message ? message : format ? format : "(null format)");
    free(message);
    /* Refused (-EDEADLK) on the back end, whose crash handler writes it all
     * at the abort instead. */
    xlog_flush();
    abort();
}

XLOG_API const char *xlog_version(void)
{
    return XLOG_VERSION_STRING;
}
