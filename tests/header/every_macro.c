/*
 * every_macro.c - uses every macro and function of xlog.h, so that the
 * header is compiled in every language mode a user may pick (see
 * compile_everywhere.sh).  It is valid C and C++ as it stands.
 */
#include <xlog.h>

static int uses_every_name(const char *name, int id, double ratio)
{
    xlog_config cfg = xlog_defaults();
    cfg.dir = "logs";
    int rc = xlog_open(&cfg);
    if (rc != 0)
        return rc;
    xlog_trace("trace %s %d %f", name, id, ratio);
    xlog_debug("debug %s", name);
    xlog_info("info %d", id);
    xlog_warn("warn");
    xlog_error("error %f", ratio);
    xlog_fatal("fatal %s %d", name, id);
    XLOG(XLOG_WARN, "level %d%%", id);
    const char *dynamic = id > 0 ? "dynamic %d" : "other %d"; /* not a literal */
    XLOG(XLOG_INFO, dynamic, id);
    xlogout(XLOG_INFO, __FILE__, __LINE__, __func__, "note %d", id);
    if (xlog_enabled(XLOG_DEBUG))
        xlog_set_level(XLOG_DEBUG);
    xlog_thread_level(XLOG_TRACE);
    xlog_thread_level(XLOG_LEVEL_PROCESS);
    xlog_counters counters;
    xlog_stats(&counters);
    xlog_reopen();
    xlog_flush();
    (void)xlog_get_level();
    (void)xlog_strerror(rc);
    (void)xlog_last_error();
    (void)xlog_version();
    (void)XLOG_VERSION_MAJOR;
    (void)XLOG_VERSION_MINOR;
    (void)XLOG_VERSION_PATCH;
    (void)XLOG_VERSION_STRING;
    (void)XLOG_TRUNCATED_MARK;
    (void)XLOG_MAX_ARGS;
    return xlog_close() + (int)counters.messages;
}

int main(void)
{
    return uses_every_name("x", 1, 0.5) == 0 ? 0 : 1;
}
