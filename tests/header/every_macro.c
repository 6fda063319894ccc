/*
 * every_macro.c - uses every macro and function of xlog.h, so that the
 * header is compiled in every language mode a user may pick (see
 * compile_everywhere.sh).  It is valid C and C++ as it stands.
 */
#define XLOG_MODULE "net.tls"
#include <xlog.h>

static void keep(void *context, const xlog_event *event, const char *bytes, size_t length)
{
    (void)context;
    (void)event;
    (void)bytes;
    (void)length;
}

static int uses_every_name(const char *name, int id, double ratio)
{
    xlog_syslog_config syslog = xlog_syslog_defaults();
    syslog.transport = XLOG_SYSLOG_TCP;
    syslog.sink.layout = XLOG_LAYOUT_JSON;
    xlog_custom_sink mine = xlog_custom_sink_defaults();
    mine.write = keep;
    const xlog_sink_config *sinks[] = {&syslog.sink, &mine.sink, XLOG_IMPL_NULL};
    xlog_config cfg = xlog_defaults();
    cfg.dir = "logs";
    cfg.sinks = sinks;
    cfg.backtrace_lines = 10;
    int rc = xlog_open(&cfg);
    if (rc != 0)
        return rc;
    xlog_trace("trace %s %d %f", name, id, ratio);
    xlog_debug("debug %s", name);
    xlog_info("info %d", id);
    xlog_warn("warn");
    xlog_error("error %f", ratio);
    xlog_fatal("fatal %s %d", name, id);
    XLOG_CHECK(id >= 0, "id %d is negative", id);
    XLOG_CHECK(name != XLOG_IMPL_NULL, "no name");
    XLOG(XLOG_WARN, "level %d%%", id);
    const char *dynamic = id > 0 ? "dynamic %d" : "other %d"; /* not a literal */
    XLOG(XLOG_INFO, dynamic, id);
    xlogout(XLOG_INFO, __FILE__, __LINE__, __func__, "note %d", id);
    for (int i = 0; i < 3; i++) {
        xlog_trace_every_n(2, "n %d", i);
        xlog_debug_every_n(2, "n %d", i);
        xlog_info_every_n(2, "n %d", i);
        xlog_warn_every_n(2, "n %d", i);
        xlog_error_every_n(2, "n %d", i);
        xlog_fatal_every_n(2, "n %d", i);
        xlog_trace_every_ms(10, "ms %d", i);
        xlog_debug_every_ms(10, "ms %d", i);
        xlog_info_every_ms(10, "ms %d", i);
        xlog_warn_every_ms(10, "ms %d", i);
        xlog_error_every_ms(10, "ms %d", i);
        xlog_fatal_every_ms(10, "ms %d", i);
        XLOG_EVERY_N(XLOG_INFO, 5, "N %s", name);
        XLOG_EVERY_MS(XLOG_INFO, 5, "MS %s", name);
    }
    if (xlog_set_filter("warn,net=debug") == 0 && xlog_module_enabled("net", XLOG_DEBUG))
        xlog_set_module_level("net.tls", XLOG_TRACE);
    xlog_dump_backtrace();
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
    (void)XLOG_MAX_SLOTS;
    return xlog_close() + (int)counters.messages;
}

int main(void)
{
    return uses_every_name("x", 1, 0.5) == 0 ? 0 : 1;
}
