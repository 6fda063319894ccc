/*
 * test_sinks.c - sinks of the program's own (xlog_custom_sink) and the
 * rules every sink follows: its level (and the file's own), its layout, the
 * order of its calls, and what happens when it misbehaves (logs, flushes or
 * closes xlog from inside, fails to open).
 */
#include "testutil.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <cmocka.h>

#include <xlog.h>

#include "filters/modules.h"

typedef struct recorder {
    int opened, flushed, closed;
    int writes;
    int levels[64];
    char lines[64][512];
    char messages[64][256];
    int lines_ok; /* every line ends in '\n' and has no other */
} recorder;

static int record_open(void *context)
{
    ((recorder *)context)->opened++;
    return 0;
}

static void record_write(void *context, const xlog_event *event, const char *bytes, size_t len)
{
    recorder *r = context;
    if (r->writes < 64) {
        r->levels[r->writes] = event->level;
        snprintf(r->lines[r->writes], sizeof r->lines[0], "%.*s", (int)len, bytes);
        snprintf(r->messages[r->writes], sizeof r->messages[0], "%s", event->message);
        r->lines_ok &= len > 0 && bytes[len - 1] == '\n' && memchr(bytes, '\n', len - 1) == NULL;
    }
    r->writes++;
}

static void record_flush(void *context)
{
    ((recorder *)context)->flushed++;
}

static void record_close(void *context)
{
    ((recorder *)context)->closed++;
}

static xlog_custom_sink recording_sink(recorder *r)
{
    memset(r, 0, sizeof *r);
    r->lines_ok = 1;
    xlog_custom_sink sink = xlog_custom_sink_defaults();
    sink.context = r;
    sink.open = record_open;
    sink.write = record_write;
    sink.flush = record_flush;
    sink.close = record_close;
    return sink;
}

static char *open_with_sinks(const char *tag, const xlog_sink_config *const *sinks)
{
    char *dir = test_make_dir(tag);
    xlog_config cfg = test_config_in(dir);
    cfg.sinks = sinks;
    int rc = xlog_open(&cfg);
    if (rc != 0)
        fail_msg("xlog_open: %s", xlog_last_error());
    return dir;
}

/* The custom sink gets the same lines as the file, at or above its level,
 * with the event's fields, between one open and one close. */
static void custom_sink_gets_events_and_lines_at_its_level(void **state)
{
    (void)state;
    recorder r;
    xlog_custom_sink sink = recording_sink(&r);
    sink.sink.level = XLOG_WARN;
    const xlog_sink_config *sinks[] = {&sink.sink, NULL};
    char *dir = open_with_sinks("custom", sinks);
    assert_int_equal(r.opened, 1);
    xlog_info("info %d", 1);
    xlog_warn("warn %s", "two");
    xlog_error("error %d\nwith a newline", 3);
    assert_int_equal(xlog_flush(), 0);
    assert_true(r.flushed >= 1);
    assert_int_equal(xlog_close(), 0);
    assert_int_equal(r.closed, 1);
    assert_int_equal(r.writes, 2);
    assert_int_equal(r.levels[0], XLOG_WARN);
    assert_int_equal(r.levels[1], XLOG_ERROR);
    assert_string_equal(r.messages[0], "warn two");
    assert_string_equal(r.messages[1], "error 3\nwith a newline"); /* raw in the event */
    assert_true(r.lines_ok);                                      /* escaped in the line */
    char *text = test_read_dir(dir, NULL);
    assert_int_equal(test_count_lines(text), 3);
    /* The sink's bytes are the file's lines (same default layout). */
    assert_non_null(strstr(text, r.lines[0]));
    assert_non_null(strstr(text, r.lines[1]));
    assert_non_null(strstr(r.lines[1], "error 3\\nwith a newline\n"));
    free(text);
    test_drop_dir(dir);
}

static int custom_sink_logs_from_inside;

static void logging_write(void *context, const xlog_event *event, const char *bytes, size_t len)
{
    (void)event;
    (void)bytes;
    (void)len;
    ++*(int *)context;
    xlog_info("from inside a sink %d", custom_sink_logs_from_inside++);
}

/* A sink that logs does not feed the back end its own output: the call is
 * dropped and counted. */
static void a_sink_that_logs_is_dropped_and_counted(void **state)
{
    (void)state;
    int writes = 0;
    xlog_custom_sink sink = xlog_custom_sink_defaults();
    sink.context = &writes;
    sink.write = logging_write;
    const xlog_sink_config *sinks[] = {&sink.sink, NULL};
    xlog_counters before, after;
    xlog_stats(&before);
    char *dir = open_with_sinks("selflog", sinks);
    for (int i = 0; i < 10; i++)
        xlog_info("message %d", i);
    assert_int_equal(xlog_close(), 0);
    xlog_stats(&after);
    assert_int_equal(writes, 10);
    assert_int_equal(after.dropped_nested - before.dropped_nested, 10);
    char *text = test_read_dir(dir, NULL);
    assert_int_equal(test_count_lines(text), 10);
    assert_null(strstr(text, "from inside a sink"));
    free(text);
    test_drop_dir(dir);
}

static int refuse_open(void *context)
{
    (void)context;
    return -EACCES;
}

static void a_sink_that_cannot_open_fails_xlog_open(void **state)
{
    (void)state;
    recorder r;
    xlog_custom_sink good = recording_sink(&r);
    xlog_custom_sink bad = xlog_custom_sink_defaults();
    bad.open = refuse_open;
    bad.write = record_write;
    const xlog_sink_config *sinks[] = {&good.sink, &bad.sink, NULL};
    char *dir = test_make_dir("badsink");
    xlog_config cfg = test_config_in(dir);
    cfg.sinks = sinks;
    assert_int_equal(xlog_open(&cfg), -EACCES);
    assert_non_null(strstr(xlog_last_error(), "cfg.sinks[1] (custom)"));
    /* The sink opened before it was closed again. */
    assert_int_equal(r.opened, 1);
    assert_int_equal(r.closed, 1);
    xlog_custom_sink no_write = xlog_custom_sink_defaults();
    const xlog_sink_config *bad_list[] = {&no_write.sink, NULL};
    cfg.sinks = bad_list;
    assert_int_equal(xlog_open(&cfg), -EINVAL);
    assert_non_null(strstr(xlog_last_error(), "write function is NULL"));
    xlog_sink_config unknown = {.kind = 99, .level = XLOG_TRACE};
    const xlog_sink_config *unknown_list[] = {&unknown, NULL};
    cfg.sinks = unknown_list;
    assert_int_equal(xlog_open(&cfg), -EINVAL);
    assert_non_null(strstr(xlog_last_error(), "kind 99 is not a kind of sink"));
    test_drop_dir(dir);
}

/* The file's own level: the files can keep less than another sink. */
static void each_output_has_its_own_level(void **state)
{
    (void)state;
    recorder r;
    xlog_custom_sink sink = recording_sink(&r);
    const xlog_sink_config *sinks[] = {&sink.sink, NULL};
    char *dir = test_make_dir("levels");
    xlog_config cfg = test_config_in(dir);
    cfg.level = XLOG_DEBUG;
    cfg.file_level = XLOG_ERROR;
    cfg.sinks = sinks;
    assert_int_equal(xlog_open(&cfg), 0);
    xlog_debug("debug");
    xlog_info("info");
    xlog_error("error");
    assert_int_equal(xlog_close(), 0);
    assert_int_equal(r.writes, 3);
    char *text = test_read_dir(dir, NULL);
    assert_int_equal(test_count_lines(text), 1);
    assert_non_null(strstr(text, "[ERROR]"));
    free(text);
    test_drop_dir(dir);
}

/* A sink that calls what would wait for the back end or stop it, from each
 * of its functions: xlog_flush hung the program forever, xlog_close crashed
 * it. */
typedef struct impatient {
    int writes, flushes;
    /* Calls that returned -EDEADLK, by the function that made them. */
    int refused_open, refused_write, refused_flush, refused_close;
    int other; /* calls that returned anything else */
    char first_error[256];
} impatient;

static void note_result(impatient *s, int *refused, long rc)
{
    if (rc == -EDEADLK)
        ++*refused;
    else
        s->other++;
}

static int impatient_open(void *context)
{
    impatient *s = context;
    note_result(s, &s->refused_open, xlog_flush());
    note_result(s, &s->refused_open, xlog_close());
    return 0;
}

static void impatient_write(void *context, const xlog_event *event, const char *bytes,
                            size_t len)
{
    (void)event;
    (void)bytes;
    (void)len;
    impatient *s = context;
    s->writes++;
    note_result(s, &s->refused_write, xlog_flush());
    if (s->writes == 1)
        snprintf(s->first_error, sizeof s->first_error, "%s", xlog_last_error());
    note_result(s, &s->refused_write, xlog_close());
    xlog_config cfg = xlog_defaults();
    cfg.use_environment = 0;
    note_result(s, &s->refused_write, xlog_open(&cfg));
    note_result(s, &s->refused_write, xlog_recover("/nonexistent-xlog-dir", NULL));
}

static void impatient_flush(void *context)
{
    impatient *s = context;
    s->flushes++;
    note_result(s, &s->refused_flush, xlog_flush());
}

static void impatient_close(void *context)
{
    impatient *s = context;
    note_result(s, &s->refused_close, xlog_close());
}

static void a_sink_that_flushes_or_closes_xlog_is_refused_and_counted(void **state)
{
    (void)state;
    impatient s;
    memset(&s, 0, sizeof s);
    xlog_custom_sink sink = xlog_custom_sink_defaults();
    sink.context = &s;
    sink.open = impatient_open;
    sink.write = impatient_write;
    sink.flush = impatient_flush;
    sink.close = impatient_close;
    const xlog_sink_config *sinks[] = {&sink.sink, NULL};
    xlog_counters before, after;
    xlog_stats(&before);
    char *dir = test_make_dir("impatient");
    xlog_config cfg = test_config_in(dir);
    cfg.persistent = 0; /* not the shared /dev/shm default */
    cfg.sinks = sinks;
    assert_int_equal(xlog_open(&cfg), 0);
    const int lines = 1000;
    for (int i = 0; i < lines; i++)
        xlog_info("line %d", i);
    assert_int_equal(xlog_flush(), 0); /* the sink's flush runs: refused too */
    assert_int_equal(xlog_close(), 0);
    xlog_stats(&after);
    assert_int_equal(s.writes, lines);
    assert_int_equal(s.other, 0);
    assert_int_equal(s.refused_open, 2);
    assert_int_equal(s.refused_write, 4 * lines);
    /* The sink is flushed only when asked (its lines are below
     * cfg.flush_level): once for xlog_flush, and three times by xlog_close
     * (the back end's last flush, the stop of all sinks, this sink's own
     * stop before its close).  Each flush's xlog_flush is refused. */
    assert_int_equal(s.flushes, 1 + 3);
    assert_int_equal(s.refused_flush, s.flushes);
    assert_int_equal(s.refused_close, 1);
    assert_int_equal(after.backend_calls_refused - before.backend_calls_refused,
                     (uint64_t)(2 + 4 * lines + s.flushes + 1));
    assert_string_equal(s.first_error, "xlog_flush: called from a custom sink's function (or "
                                       "cfg.wall_clock_ns), where it would wait for xlog's back "
                                       "end or stop it");
    assert_string_equal(xlog_strerror(-EDEADLK),
                        "refused: called from a custom sink's function (or cfg.wall_clock_ns), "
                        "where it would wait for xlog's back end or stop it");
    /* Every line is in the file, once, in order. */
    char *text = test_read_dir(dir, NULL);
    assert_int_equal(test_count_lines(text), (size_t)lines);
    const char *p = text;
    for (int i = 0; i < lines; i++) {
        const char *nl = strchr(p, '\n');
        test_line l;
        assert_true(test_parse_line(p, (size_t)(nl - p), &l));
        char expected[32];
        int n = snprintf(expected, sizeof expected, "line %d", i);
        assert_int_equal(l.message_len, (size_t)n);
        assert_memory_equal(l.message, expected, (size_t)n);
        p = nl + 1;
    }
    free(text);
    test_drop_dir(dir);
}

/* ---- each sink's filter (xlog_sink_config.filter) ------------------------- */

#define ROUTED_PATTERN "{level} {module} {message}"

/* The recorder's lines are exactly expected's (NULL-terminated). */
static void assert_recorded(const recorder *r, const char *const *expected)
{
    int n = 0;
    while (expected[n])
        n++;
    for (int i = 0; i < n && i < r->writes; i++)
        assert_string_equal(r->lines[i], expected[i]);
    assert_int_equal(r->writes, n);
}

/* The files' text is exactly expected's lines (NULL-terminated). */
static void assert_files_hold(const char *dir, const char *const *expected)
{
    char want[4096] = "";
    for (int i = 0; expected[i]; i++)
        strcat(want, expected[i]);
    char *text = test_read_dir(dir, NULL);
    assert_string_equal(text, want);
    free(text);
}

/* The same calls, from four modules, for the routing tests. */
static void log_every_module(void)
{
    log_in_storage(XLOG_DEBUG, 1);
    log_in_storage(XLOG_INFO, 2);
    log_in_net(XLOG_DEBUG, 3);
    log_in_net(XLOG_INFO, 4);
    log_in_net(XLOG_ERROR, 5);
    log_in_storage(XLOG_ERROR, 6);
    log_in_net_tls(XLOG_WARN, 7);
    log_in_http_access(XLOG_INFO, 8);
    log_in_http_access(XLOG_DEBUG, 9);
}

/* Three sinks and the files, each taking exactly its lines: a filter
 * below the program's level (storage's debug lines while cfg.level is
 * info) reaches its sink and no other; a filter of levels alone; a sink
 * without a filter and the files follow the program's rules. */
static void modules_go_to_each_sink_by_its_filter(void **state)
{
    (void)state;
    recorder storage, errors, plain, access;
    xlog_custom_sink to_storage = recording_sink(&storage);
    to_storage.sink.pattern = ROUTED_PATTERN;
    to_storage.sink.filter = "off,storage=debug";
    xlog_custom_sink to_errors = recording_sink(&errors);
    to_errors.sink.pattern = ROUTED_PATTERN;
    to_errors.sink.filter = "error";
    xlog_custom_sink to_plain = recording_sink(&plain);
    to_plain.sink.pattern = ROUTED_PATTERN;
    to_plain.sink.level = XLOG_WARN;
    xlog_custom_sink to_access = recording_sink(&access);
    to_access.sink.pattern = ROUTED_PATTERN;
    to_access.sink.level = XLOG_OFF; /* its filter names no level alone */
    to_access.sink.filter = " http.access = INFO ";
    const xlog_sink_config *sinks[] = {&to_storage.sink, &to_errors.sink, &to_plain.sink,
                                       &to_access.sink, NULL};
    char *dir = test_make_dir("routed");
    xlog_config cfg = test_config_in(dir);
    cfg.level = XLOG_INFO;
    cfg.file_pattern = ROUTED_PATTERN;
    cfg.sinks = sinks;
    if (xlog_open(&cfg) != 0)
        fail_msg("xlog_open: %s", xlog_last_error());
    assert_true(xlog_module_enabled("storage", XLOG_DEBUG));
    assert_true(xlog_module_enabled("storage.disk", XLOG_DEBUG));
    assert_false(xlog_module_enabled("net", XLOG_DEBUG));
    assert_false(xlog_module_enabled("storage", XLOG_TRACE));
    log_every_module();
    assert_int_equal(xlog_close(), 0);
    /* Closed, the program's rules alone again. */
    assert_false(xlog_module_enabled("storage", XLOG_DEBUG));
    assert_recorded(&storage, (const char *const[]){"DEBUG storage storage 1\n",
                                                    "INFO storage storage 2\n",
                                                    "ERROR storage storage 6\n", NULL});
    assert_recorded(&errors, (const char *const[]){"ERROR net net 5\n",
                                                   "ERROR storage storage 6\n", NULL});
    assert_recorded(&plain, (const char *const[]){"ERROR net net 5\n",
                                                  "ERROR storage storage 6\n",
                                                  "WARN net.tls net.tls 7\n", NULL});
    assert_recorded(&access, (const char *const[]){"INFO http.access http.access 8\n", NULL});
    assert_files_hold(dir, (const char *const[]){"INFO storage storage 2\n", "INFO net net 4\n",
                                                 "ERROR net net 5\n", "ERROR storage storage 6\n",
                                                 "WARN net.tls net.tls 7\n",
                                                 "INFO http.access http.access 8\n", NULL});
    test_drop_dir(dir);
}

/* While a sink has a filter, a change of the program's rules at run time
 * changes what the files take, not what the filter takes; a thread's own
 * threshold widens the files', not the filter's. */
static void the_program_rules_and_thread_threshold_leave_a_sink_filter_alone(void **state)
{
    (void)state;
    recorder storage;
    xlog_custom_sink to_storage = recording_sink(&storage);
    to_storage.sink.pattern = ROUTED_PATTERN;
    to_storage.sink.filter = "off,storage=debug";
    const xlog_sink_config *sinks[] = {&to_storage.sink, NULL};
    char *dir = test_make_dir("routed-change");
    xlog_config cfg = test_config_in(dir);
    cfg.level = XLOG_INFO;
    cfg.file_pattern = ROUTED_PATTERN;
    cfg.sinks = sinks;
    if (xlog_open(&cfg) != 0)
        fail_msg("xlog_open: %s", xlog_last_error());
    assert_int_equal(xlog_set_filter("error,net=debug"), 0);
    assert_int_equal(xlog_get_level(), XLOG_ERROR);
    log_in_storage(XLOG_DEBUG, 1);
    log_in_storage(XLOG_INFO, 2);
    log_in_net(XLOG_DEBUG, 3);
    log_in_net_tls(XLOG_TRACE, 4);
    xlog_thread_level(XLOG_TRACE);
    log_in_net_tls(XLOG_TRACE, 5);
    log_in_http_access(XLOG_DEBUG, 6);
    xlog_thread_level(XLOG_LEVEL_PROCESS);
    log_in_http_access(XLOG_DEBUG, 7);
    assert_int_equal(xlog_close(), 0);
    assert_recorded(&storage, (const char *const[]){"DEBUG storage storage 1\n",
                                                    "INFO storage storage 2\n", NULL});
    assert_files_hold(dir, (const char *const[]){"DEBUG net net 3\n",
                                                 "TRACE net.tls net.tls 5\n",
                                                 "DEBUG http.access http.access 6\n", NULL});
    test_drop_dir(dir);
    assert_int_equal(xlog_set_filter("info"), 0); /* its module rule stays otherwise */
}

/* A sink's filter with a mistake makes xlog_open fail, saying which sink,
 * what and where; nothing is left open. */
static void a_bad_sink_filter_fails_xlog_open_naming_the_sink_and_column(void **state)
{
    (void)state;
    static const struct {
        const char *filter;
        const char *message;
    } cases[] = {
        {"warn,net=loud", "cfg.sinks[1] (custom): filter=\"warn,net=loud\": \"loud\" at column "
                          "10 is not a level (trace, debug, info, warn or warning, error or err, "
                          "fatal or off)"},
        {"warn,,net=info", "cfg.sinks[1] (custom): filter=\"warn,,net=info\": empty item at "
                           "column 6"},
        {"off,ne t=info", "cfg.sinks[1] (custom): filter=\"off,ne t=info\": \"ne t\" at column 5 "
                          "is not a module name (letters, digits, '_', '-' and dots between them, "
                          "at most 63 bytes)"},
        {"", "cfg.sinks[1] (custom): filter=\"\": empty item at column 1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        recorder good, bad;
        xlog_custom_sink first = recording_sink(&good);
        first.sink.filter = "info";
        xlog_custom_sink second = recording_sink(&bad);
        second.sink.filter = cases[i].filter;
        const xlog_sink_config *sinks[] = {&first.sink, &second.sink, NULL};
        char *dir = test_make_dir("bad-filter");
        xlog_config cfg = test_config_in(dir);
        cfg.sinks = sinks;
        assert_int_equal(xlog_open(&cfg), -EINVAL);
        assert_string_equal(xlog_last_error(), cases[i].message);
        assert_int_equal(xlog_close(), -EBADF);
        assert_int_equal(good.opened, good.closed); /* the first sink was stopped again */
        assert_int_equal(bad.opened, 0);
        assert_false(xlog_module_enabled("", XLOG_DEBUG));
        test_drop_dir(dir);
    }
}

/* ---- files of their own (xlog_file_config) ------------------------------------ */

/* 2026-11-22 12:00:00 UTC, moved forward by the real clock. */
static int64_t clock_offset_ns;

static int64_t real_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t noon_clock(void)
{
    return real_ns() + __atomic_load_n(&clock_offset_ns, __ATOMIC_RELAXED);
}

/* The exact text of dir/name ("" when it is missing). */
static char *text_of(const char *dir, const char *name)
{
    char *path = test_path(dir, name);
    char *text = test_read_file(path, NULL);
    free(path);
    return text ? text : strdup("");
}

/* Every name in dir, sorted, joined by ' '. */
static char *names_in(const char *dir)
{
    size_t n;
    char **names = test_list_files(dir, &n);
    char *out = calloc(1, 1);
    size_t length = 0;
    for (size_t i = 0; i < n; i++) {
        out = realloc(out, length + strlen(names[i]) + 2);
        length += (size_t)sprintf(out + length, "%s%s", length ? " " : "", names[i]);
    }
    test_free_list(names, n);
    return out;
}

/* The main files, an access log, an error log and one module's debug lines
 * in a directory of their own, hourly and per process: each file holds
 * exactly its lines, by its filter and level, in its names. */
static void modules_go_to_files_of_their_own(void **state)
{
    (void)state;
    __atomic_store_n(&clock_offset_ns, (int64_t)1795348800 * 1000000000 - real_ns(),
                     __ATOMIC_RELAXED);
    char *dir = test_make_dir("listed-files");
    char storage_dir[PATH_MAX];
    snprintf(storage_dir, sizeof storage_dir, "%s/storage", dir);
    xlog_file_config access = xlog_file_defaults();
    access.prefix = "access";
    access.sink.filter = "off,http.access=info";
    access.sink.pattern = "{message}";
    xlog_file_config errors = xlog_file_defaults();
    errors.prefix = "errors";
    errors.sink.filter = "error";
    errors.sink.pattern = ROUTED_PATTERN;
    xlog_file_config storage = xlog_file_defaults();
    storage.dir = storage_dir;
    storage.rotate_hourly = 1;
    storage.mode = XLOG_FILE_PER_PROCESS;
    storage.sink.filter = "off,storage=debug";
    storage.sink.pattern = ROUTED_PATTERN;
    xlog_file_config quiet = xlog_file_defaults(); /* no filter: the program's rules */
    quiet.prefix = "quiet";
    quiet.sink.level = XLOG_WARN;
    quiet.sink.pattern = ROUTED_PATTERN;
    const xlog_sink_config *sinks[] = {&access.sink, &errors.sink, &storage.sink, &quiet.sink,
                                       NULL};
    xlog_config cfg = test_config_in(dir);
    cfg.wall_clock_ns = noon_clock;
    cfg.level = XLOG_INFO;
    cfg.file_pattern = ROUTED_PATTERN;
    cfg.sinks = sinks;
    if (xlog_open(&cfg) != 0)
        fail_msg("xlog_open: %s", xlog_last_error());
    log_every_module();
    assert_int_equal(xlog_close(), 0);
    char *listing = names_in(dir);
    assert_string_equal(listing, "2026-11-22.log access-2026-11-22.log errors-2026-11-22.log "
                                 "quiet-2026-11-22.log storage");
    free(listing);
    char storage_name[64];
    snprintf(storage_name, sizeof storage_name, "2026-11-22-12-p%d.log", (int)getpid());
    listing = names_in(storage_dir);
    assert_string_equal(listing, storage_name);
    free(listing);
    struct {
        const char *dir, *name, *text;
    } files[] = {
        {dir, "2026-11-22.log",
         "INFO storage storage 2\nINFO net net 4\nERROR net net 5\nERROR storage storage 6\n"
         "WARN net.tls net.tls 7\nINFO http.access http.access 8\n"},
        {dir, "access-2026-11-22.log", "http.access 8\n"},
        {dir, "errors-2026-11-22.log", "ERROR net net 5\nERROR storage storage 6\n"},
        {dir, "quiet-2026-11-22.log",
         "ERROR net net 5\nERROR storage storage 6\nWARN net.tls net.tls 7\n"},
        {storage_dir, storage_name,
         "DEBUG storage storage 1\nINFO storage storage 2\nERROR storage storage 6\n"},
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char *text = text_of(files[i].dir, files[i].name);
        assert_string_equal(text, files[i].text);
        free(text);
    }
    test_remove_tree(dir);
    free(dir);
}

/* A listed file sink's mistakes fail xlog_open, naming the sink and the
 * field. */
static void a_bad_file_sink_fails_xlog_open_naming_it(void **state)
{
    (void)state;
    char *dir = test_make_dir("bad-file-sink");
    xlog_file_config same = xlog_file_defaults(); /* the main files' names */
    xlog_file_config bad_prefix = xlog_file_defaults();
    bad_prefix.prefix = "../up";
    xlog_file_config bad_mode = xlog_file_defaults();
    bad_mode.prefix = "m";
    bad_mode.mode = (xlog_file_mode)7;
    xlog_file_config small = xlog_file_defaults();
    small.prefix = "s";
    small.rotate_size = 1000;
    xlog_file_config twin_a = xlog_file_defaults(), twin_b = xlog_file_defaults();
    twin_a.prefix = twin_b.prefix = "twin";
    char want[3][PATH_MAX + 256];
    snprintf(want[0], sizeof want[0],
             "cfg.sinks[0] (file): the same directory (%s) and prefix (none) as the main files "
             "(cfg.dir, cfg.file_prefix): each would take the other's files for its own", dir);
    snprintf(want[1], sizeof want[1],
             "cfg.sinks[1] (file): the same directory (%s) and prefix (twin) as cfg.sinks[0]: "
             "each would take the other's files for its own", dir);
    struct {
        const xlog_sink_config *sinks[3];
        const char *message;
    } cases[] = {
        {{&same.sink, NULL}, want[0]},
        {{&twin_a.sink, &twin_b.sink, NULL}, want[1]},
        {{&bad_prefix.sink, NULL},
         "cfg.sinks[0] (file): prefix: \"../up\" is not a file name prefix (letters, digits, "
         "'_', '-' and '.', not first; 1 to 127 bytes)"},
        {{&bad_mode.sink, NULL},
         "cfg.sinks[0] (file): mode: 7 is not XLOG_FILE_SHARED, XLOG_FILE_PER_THREAD or "
         "XLOG_FILE_PER_PROCESS"},
        {{&small.sink, NULL},
         "cfg.sinks[0] (file): rotate_size: 1000 is neither 0 (no size rotation) nor at least "
         "64 KiB"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        xlog_config cfg = test_config_in(dir);
        cfg.sinks = cases[i].sinks;
        assert_int_equal(xlog_open(&cfg), -EINVAL);
        assert_string_equal(xlog_last_error(), cases[i].message);
        assert_int_equal(xlog_close(), -EBADF);
    }
    test_remove_tree(dir);
    free(dir);
}


/* The directory of a listed file sink written another way than the main
 * files' (a "." in it, a doubled '/', a symlink to it) is still the same
 * directory: xlog_open refuses the same prefix there as it does for the
 * same spelling, instead of letting two sets write each other's files. */
static void a_file_sink_naming_the_same_directory_another_way_is_refused(void **state)
{
    (void)state;
    char *dir = test_make_dir("same-dir-two-ways");
    char dotted[PATH_MAX], doubled[PATH_MAX], link[PATH_MAX];
    snprintf(dotted, sizeof dotted, "%s/./", dir);
    size_t cut = strlen(dir);
    while (cut > 0 && dir[cut - 1] != '/')
        cut--;
    snprintf(doubled, sizeof doubled, "%.*s/%s", (int)cut, dir, dir + cut);
    snprintf(link, sizeof link, "%s-link", dir);
    unlink(link);
    assert_int_equal(symlink(dir, link), 0);
    const char *ways[] = {dotted, doubled, link};
    for (size_t i = 0; i < sizeof ways / sizeof ways[0]; i++) {
        xlog_file_config twin = xlog_file_defaults();
        twin.dir = ways[i];
        const xlog_sink_config *sinks[] = {&twin.sink, NULL};
        xlog_config cfg = test_config_in(dir);
        cfg.sinks = sinks;
        char want[2 * PATH_MAX + 256];
        snprintf(want, sizeof want,
                 "cfg.sinks[0] (file): the same directory (%s) and prefix (none) as the main "
                 "files (cfg.dir, cfg.file_prefix): each would take the other's files for its "
                 "own", i == 2 ? link : dir);
        int rc = xlog_open(&cfg);
        if (rc == 0)
            xlog_close();
        assert_int_equal(rc, -EINVAL);
        assert_string_equal(xlog_last_error(), want);
        assert_int_equal(xlog_close(), -EBADF);
    }
    unlink(link);
    test_remove_tree(dir);
    free(dir);
}

/* While a sink has a filter, the back end looks each line up in the
 * program's rules for the sinks without one: by the rules in force when
 * the line was logged, not by a later xlog_set_filter.  The back end read
 * them when it came to the line: warn lines logged at level warn were
 * dropped from the main files by an xlog_set_filter("error") that came
 * after them (and info lines logged at level warn, which only the sink's
 * filter wanted, came in by a later xlog_set_filter("info")). */
static void lines_keep_the_program_rules_they_were_logged_under(void **state)
{
    (void)state;
    enum { LINES = 200 };
    __atomic_store_n(&clock_offset_ns, (int64_t)1795348800 * 1000000000 - real_ns(),
                     __ATOMIC_RELAXED);
    char *dir = test_make_dir("rules-at-the-call");
    xlog_file_config side = xlog_file_defaults();
    side.prefix = "side";
    side.sink.filter = "info";
    side.sink.pattern = "{level} {message}";
    const xlog_sink_config *sinks[] = {&side.sink, NULL};
    xlog_config cfg = test_config_in(dir);
    cfg.wall_clock_ns = noon_clock;
    cfg.level = XLOG_WARN;
    cfg.file_pattern = "{level} {message}";
    cfg.sinks = sinks;
    if (xlog_open(&cfg) != 0)
        fail_msg("xlog_open: %s", xlog_last_error());
    static char main_want[65536], side_want[65536];
    int m = 0, n = 0;
    for (int i = 0; i < LINES; i++) {
        xlog_info("info %d", i); /* the sink's only */
        xlog_warn("warn %d", i);
        m += snprintf(main_want + m, sizeof main_want - (size_t)m, "WARN warn %d\n", i);
        n += snprintf(side_want + n, sizeof side_want - (size_t)n, "INFO info %d\nWARN warn %d\n",
                      i, i);
    }
    assert_int_equal(xlog_set_filter("error"), 0);
    xlog_warn("warn after error"); /* the sink's only */
    assert_int_equal(xlog_set_filter("info"), 0);
    xlog_info("info after info");
    m += snprintf(main_want + m, sizeof main_want - (size_t)m, "INFO info after info\n");
    n += snprintf(side_want + n, sizeof side_want - (size_t)n,
                  "WARN warn after error\nINFO info after info\n");
    assert_int_equal(xlog_close(), 0);
    char *text = text_of(dir, "2026-11-22.log");
    assert_string_equal(text, main_want);
    free(text);
    text = text_of(dir, "side-2026-11-22.log");
    assert_string_equal(text, side_want);
    free(text);
    test_remove_tree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(custom_sink_gets_events_and_lines_at_its_level),
        cmocka_unit_test(a_sink_that_logs_is_dropped_and_counted),
        cmocka_unit_test(a_sink_that_cannot_open_fails_xlog_open),
        cmocka_unit_test(each_output_has_its_own_level),
        cmocka_unit_test(a_sink_that_flushes_or_closes_xlog_is_refused_and_counted),
        cmocka_unit_test(modules_go_to_each_sink_by_its_filter),
        cmocka_unit_test(the_program_rules_and_thread_threshold_leave_a_sink_filter_alone),
        cmocka_unit_test(a_bad_sink_filter_fails_xlog_open_naming_the_sink_and_column),
        cmocka_unit_test(modules_go_to_files_of_their_own),
        cmocka_unit_test(a_bad_file_sink_fails_xlog_open_naming_it),
        cmocka_unit_test(a_file_sink_naming_the_same_directory_another_way_is_refused),
        cmocka_unit_test(lines_keep_the_program_rules_they_were_logged_under),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
