/*
 * test_plugins.c - a library that logged may be unloaded (dlclose) while
 * its lines wait to be written: they are written as logged, nothing crashes,
 * and a library loaded later at the same address is not taken for it.
 *
 * The plugins (plugins/plugin.h) log from their constructor and destructor,
 * with strings that live in the plugin, through sites of every kind.  Every
 * line of the log is compared whole (level, file:line, function, message),
 * in order, and counted.
 */
#include "testutil.h"

#include <dlfcn.h>
#include <link.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <cmocka.h>

#include <xlog.h>

/* The killed child leaves its memory behind on purpose. */
__attribute__((used)) const char *__asan_default_options(void)
{
    return "detect_leaks=0";
}

/* ---- the lines the log must hold ----------------------------------------- */

typedef struct expected_line {
    char level[8];
    char where[256]; /* "file:line" */
    char func[128];
    char message[256];
} expected_line;

static expected_line *wanted;
static size_t wanted_count, wanted_capacity;

static void expect_line(const char *file, int line, const char *func, const char *format, ...)
{
    if (wanted_count == wanted_capacity) {
        wanted_capacity = wanted_capacity ? wanted_capacity * 2 : 4096;
        wanted = realloc(wanted, wanted_capacity * sizeof *wanted);
        assert_non_null(wanted);
    }
    expected_line *e = &wanted[wanted_count++];
    snprintf(e->level, sizeof e->level, "INFO");
    const char *base = strrchr(file, '/');
    snprintf(e->where, sizeof e->where, "%s:%d", base ? base + 1 : file, line);
    snprintf(e->func, sizeof e->func, "%s", func);
    va_list ap;
    va_start(ap, format);
    vsnprintf(e->message, sizeof e->message, format, ap);
    va_end(ap);
}

static void forget_expected(void)
{
    free(wanted);
    wanted = NULL;
    wanted_count = wanted_capacity = 0;
}

/* Every line of the log directory, in order, is the one expected.  With
 * recovered_child, the lines that process's back end did not write follow
 * recovery's notice, which must count them. */
static void check_log(const char *logs, pid_t recovered_child)
{
    size_t len;
    char *text = test_read_dir(logs, &len);
    size_t n = 0;
    int notices = 0;
    for (char *line = text; *line;) {
        char *end = strchr(line, '\n');
        assert_non_null(end);
        test_line parsed;
        if (!test_parse_line(line, (size_t)(end - line), &parsed))
            fail_msg("line %zu is not a default line: %.*s", n + 1, (int)(end - line), line);
        if (recovered_child && strcmp(parsed.where, "xlog:0") == 0 && !notices++) {
            char notice[256], message[512];
            test_recovery_notice(notice, sizeof notice, (long)(wanted_count - n),
                                 (int)recovered_child, (int)getpid());
            assert_string_equal(parsed.level, "WARN");
            assert_string_equal(test_message(&parsed, message, sizeof message), notice);
            line = end + 1;
            continue;
        }
        if (n >= wanted_count)
            fail_msg("line %zu is one too many: %.*s", n + 1, (int)(end - line), line);
        const expected_line *e = &wanted[n];
        char message[512];
        test_message(&parsed, message, sizeof message);
        if (strcmp(parsed.level, e->level) != 0 || strcmp(parsed.where, e->where) != 0 ||
            strcmp(parsed.func, e->func) != 0 || parsed.message_len != strlen(e->message) ||
            memcmp(parsed.message, e->message, parsed.message_len) != 0)
            fail_msg("line %zu is\n  %.*s\nwhere [%s] %s %s <tid> %s was expected", n + 1,
                     (int)(end - line), line, e->level, e->where, e->func, e->message);
        n++;
        line = end + 1;
    }
    assert_int_equal(n, wanted_count);
    if (recovered_child)
        assert_int_equal(notices, 1);
    free(text);
}

/* ---- plugins ---------------------------------------------------------- */

typedef struct plugin {
    void *handle;
    const char *name;
    void (*lines)(int n);
    char file[PATH_MAX];
    int line;
    uintptr_t base; /* where the loader put it */
} plugin;

static void load(plugin *p, const char *path, const char *name)
{
    p->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!p->handle)
        fail_msg("dlopen %s: %s", path, dlerror());
    p->name = name;
    p->lines = (void (*)(int))dlsym(p->handle, "plugin_lines");
    const char *(*file)(void) = (const char *(*)(void))dlsym(p->handle, "plugin_file");
    int (*line)(void) = (int (*)(void))dlsym(p->handle, "plugin_line");
    assert_true(p->lines && file && line);
    snprintf(p->file, sizeof p->file, "%s", file());
    p->line = line();
    struct link_map *map;
    assert_int_equal(dlinfo(p->handle, RTLD_DI_LINKMAP, &map), 0);
    p->base = (uintptr_t)map->l_addr;
    char func[64];
    snprintf(func, sizeof func, "%s_loaded", name);
    expect_line(p->file, p->line, func, "loaded a string of %s", name);
}

static void log_lines(plugin *p, int n)
{
    p->lines(n);
    char func[64];
    snprintf(func, sizeof func, "%s_line", p->name);
    for (int i = 0; i < n; i++) {
        expect_line(p->file, p->line, func, "%s scalar %d", p->name, i);
        expect_line(p->file, p->line, func, "%s string %d a string of %s", p->name, i, p->name);
        expect_line(p->file, p->line, func, "%s dynamic %d", p->name, i);
    }
}

/* Unmaps the plugin, whose destructor logs: no flush before. */
static void unload(plugin *p)
{
    assert_int_equal(dlclose(p->handle), 0);
    char func[64];
    snprintf(func, sizeof func, "%s_unloads", p->name);
    expect_line(p->file, p->line, func, "unloads a string of %s", p->name);
}

/* Loads the plugin where another was (base): the loader usually maps a
 * library where one of the same size was just unmapped, but not always (a
 * sanitizer's own mappings may take the place), so it tries a few times.
 * Returns how many loads it took to get there (0: it did not); every try
 * logs and is expected. */
static int load_at(plugin *p, const char *path, const char *name, uintptr_t base)
{
    load(p, path, name);
    int tries = 1;
    for (; p->base != base && tries < 20; tries++) {
        unload(p);
        load(p, path, name);
    }
    return p->base == base ? tries : 0;
}

static void host_line(int k)
{
    xlog_info("host line %d", k); expect_line(__FILE__, __LINE__, __func__, "host line %d", k);
}

/* ---- cases --------------------------------------------------------------- */

typedef test_place place;

static void place_make(place *p, const char *tag)
{
    alarm(300); /* a back end that faults can leave the test hanging: fail instead */
    test_place_make(p, tag);
}

static void place_remove(place *p)
{
    test_place_remove(p);
    forget_expected();
}

static void open_with(const place *p, unsigned flush_interval_ms)
{
    xlog_config cfg = xlog_defaults();
    cfg.dir = p->logs;
    cfg.persistent_dir = p->shm;
    cfg.crash_handlers = 0;
    cfg.flush_interval_ms = flush_interval_ms;
    assert_int_equal(xlog_open(&cfg), 0);
}

static void open_at(const place *p)
{
    open_with(p, xlog_defaults().flush_interval_ms);
}

/* The end of a case in this process: xlog_close, then every line of the
 * log is the one expected (check_log), and the place goes. */
static void close_and_check(place *p)
{
    assert_int_equal(xlog_close(), 0);
    check_log(p->logs, 0);
    place_remove(p);
}

/* Twenty plugins, alternately alpha and bravo, each loaded, logging 2,000
 * lines and unloaded at once (its records still in the ring, the back end
 * busy with them), the host logging after each unload. */
static void unloading_a_plugin_that_logged_loses_and_forges_nothing(void **state)
{
    (void)state;
    place p;
    place_make(&p, "plugins-unload");
    open_at(&p);
    int lines = (int)test_scaled(2000) / 3 + 1;
    for (int k = 0; k < 20; k++) {
        plugin plug;
        load(&plug, k % 2 ? PLUGIN_BRAVO : PLUGIN_ALPHA, k % 2 ? "bravo" : "alpha");
        log_lines(&plug, lines);
        unload(&plug);
        host_line(k);
    }
    close_and_check(&p);
}

/* Everything done right: flush, dlclose, xlog_close, xlog_open again (whose
 * survival dictionary is made again from the sites used so far). */
static void reopening_after_unloading_a_plugin_crashes_nothing(void **state)
{
    (void)state;
    place p;
    place_make(&p, "plugins-reopen");
    open_at(&p);
    plugin plug;
    load(&plug, PLUGIN_ALPHA, "alpha");
    log_lines(&plug, 10);
    assert_int_equal(xlog_flush(), 0);
    unload(&plug);
    assert_int_equal(xlog_close(), 0);
    open_at(&p);
    host_line(0);
    load(&plug, PLUGIN_BRAVO, "bravo");
    log_lines(&plug, 10);
    unload(&plug);
    host_line(1);
    close_and_check(&p);
}

/* alpha, unloaded, then bravo loaded where alpha was (the test checks that
 * the loader reused the address), then alpha again: with a flush between
 * (the back end has seen the sites before) and without (records of both
 * wait in the ring together). */
static void a_plugin_loaded_where_another_was_writes_its_own_lines(void **state)
{
    (void)state;
    place p;
    place_make(&p, "plugins-same-address");
    open_at(&p);
    plugin alpha, bravo, again;
    load(&alpha, PLUGIN_ALPHA, "alpha");
    log_lines(&alpha, 5);
    assert_int_equal(xlog_flush(), 0);
    unload(&alpha);
    assert_true(load_at(&bravo, PLUGIN_BRAVO, "bravo", alpha.base));
    log_lines(&bravo, 5);
    unload(&bravo);
    assert_true(load_at(&again, PLUGIN_ALPHA, "alpha", alpha.base));
    log_lines(&again, 5);
    unload(&again);
    host_line(0);
    close_and_check(&p);
}

/* The same in a process killed with SIGKILL, its lines then recovered from
 * shared memory by xlog_recover: each exactly as logged.  The child writes
 * the lines it expects to a file, one field a line. */
static void a_killed_process_s_plugin_lines_are_recovered_as_written(void **state)
{
    (void)state;
    place p;
    place_make(&p, "plugins-kill");
    char *expectations = test_path(p.base, "expected");
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        alarm(60);
        /* The last lines stay in the file's buffer until the kill, however
         * long writing the expectations takes (a loaded machine, TSan):
         * recovery must write them, after its notice. */
        open_with(&p, 600000);
        plugin alpha, bravo;
        load(&alpha, PLUGIN_ALPHA, "alpha");
        log_lines(&alpha, 50);
        assert_int_equal(xlog_flush(), 0);
        unload(&alpha);
        int loads = load_at(&bravo, PLUGIN_BRAVO, "bravo", alpha.base);
        if (!loads)
            _exit(3);
        log_lines(&bravo, 500);
        unload(&bravo);
        host_line(0);
        FILE *f = fopen(expectations, "w");
        for (size_t i = 0; f && i < wanted_count; i++)
            fprintf(f, "%s\n%s\n%s\n", wanted[i].where, wanted[i].func, wanted[i].message);
        if (!f || fprintf(f, "end %d\n", loads) < 0 || fclose(f) != 0)
            _exit(4);
        kill(getpid(), SIGKILL);
        _exit(5);
    }
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL)
        fail_msg("the child did not end by SIGKILL: status %#x", status);
    assert_true(xlog_recover(p.logs, p.shm) >= 0);
    FILE *f = fopen(expectations, "r");
    assert_non_null(f);
    expected_line e;
    int ended = 0, loads = 0;
    while (fgets(e.where, sizeof e.where, f) && !(ended = sscanf(e.where, "end %d", &loads) == 1) &&
           fgets(e.func, sizeof e.func, f) && fgets(e.message, sizeof e.message, f)) {
        e.where[strcspn(e.where, "\n")] = e.func[strcspn(e.func, "\n")] =
            e.message[strcspn(e.message, "\n")] = '\0';
        expect_line(e.where, 0, e.func, "%s", e.message);
        /* expect_line wrote "where:0": put the where back as read. */
        snprintf(wanted[wanted_count - 1].where, sizeof e.where, "%s", e.where);
    }
    fclose(f);
    assert_true(ended); /* the child wrote them all */
    /* alpha loaded, its lines, unloaded; bravo loaded (each try that missed
     * alpha's address loaded and unloaded it), its lines, unloaded; host. */
    assert_int_equal(wanted_count, 1 + 50 * 3 + 1 + (2 * loads - 1) + 500 * 3 + 1 + 1);
    check_log(p.logs, child);
    free(expectations);
    place_remove(&p);
}

/* ---- a fault on the back end's thread -------------------------------------- */

static const char fault_message[] = "this line makes the sink fault";

/* A custom sink (run by the back end) that faults on one line, writing to
 * its context: a page it may not write (a store to address 0 need not
 * fault: some systems map that page). */
static void fault_on_one_line(void *context, const xlog_event *event, const char *bytes,
                              size_t length)
{
    (void)bytes, (void)length;
    if (strcmp(event->message, fault_message) == 0)
        *(volatile int *)context = 1;
}

/* The child's log call; child_logs_line is its line. */
static void child_logs(const char *text)
{
    xlog_info("%s", text);
}
static const int child_logs_line = __LINE__ - 2;

/* The crash handler, on the back end's own thread, writes what was logged
 * (but the line it faulted on) and the FATAL line naming the signal, and
 * the program then ends by that signal. */
static void a_fault_on_the_back_end_s_thread_writes_the_fatal_line(void **state)
{
    (void)state;
    place p;
    place_make(&p, "backend-fault");
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        alarm(60);
        signal(SIGSEGV, SIG_DFL); /* not cmocka's, which would jump across threads */
        xlog_custom_sink sink = xlog_custom_sink_defaults();
        sink.write = fault_on_one_line;
        sink.context = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (sink.context == MAP_FAILED)
            _exit(2);
        const xlog_sink_config *sinks[] = {&sink.sink, NULL};
        xlog_config cfg = xlog_defaults();
        cfg.dir = p.logs;
        cfg.persistent_dir = p.shm;
        cfg.sinks = sinks;
        if (xlog_open(&cfg) != 0)
            _exit(3);
        for (int i = 0; i < 11; i++) {
            char text[64];
            snprintf(text, sizeof text, i < 5 ? "before %d" : "after %d", i < 5 ? i : i - 6);
            child_logs(i == 5 ? fault_message : text);
        }
        xlog_flush(); /* the back end faults before this returns */
        _exit(4);
    }
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGSEGV)
        fail_msg("the child did not end by SIGSEGV: status %#x", status);
    /* The file sink had the faulting line before the custom sink faulted
     * on it; the lines after it, then the FATAL line, from the handler. */
    for (int i = 0; i < 11; i++) {
        if (i == 5)
            expect_line(__FILE__, child_logs_line, "child_logs", "%s", fault_message);
        else
            expect_line(__FILE__, child_logs_line, "child_logs", i < 5 ? "before %d" : "after %d",
                        i < 5 ? i : i - 6);
    }
    expect_line("xlog", 0, "xlog",
                "caught SIGSEGV (signal 11): every message logged before it is above this line");
    snprintf(wanted[wanted_count - 1].level, sizeof wanted->level, "FATAL");
    check_log(p.logs, 0);
    place_remove(&p);
}

/* A case that failed left its expected lines: each starts without any. */
static int nothing_expected(void **state)
{
    (void)state;
    forget_expected();
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(unloading_a_plugin_that_logged_loses_and_forges_nothing,
                               nothing_expected),
        cmocka_unit_test_setup(reopening_after_unloading_a_plugin_crashes_nothing,
                               nothing_expected),
        cmocka_unit_test_setup(a_plugin_loaded_where_another_was_writes_its_own_lines,
                               nothing_expected),
        cmocka_unit_test_setup(a_killed_process_s_plugin_lines_are_recovered_as_written,
                               nothing_expected),
        cmocka_unit_test_setup(a_fault_on_the_back_end_s_thread_writes_the_fatal_line,
                               nothing_expected),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
