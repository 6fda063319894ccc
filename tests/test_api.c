/*
 * test_api.c - the public interface, call by call: levels and the per-thread
 * override, formats that are not literals and every argument kind, xlogout,
 * %m, bad input, the date in file names, the environment, errors from
 * xlog_open (codes, texts, the field named), a relative directory, a reopen
 * with a new configuration, XLOG_CHECK, a persistent directory that cannot
 * be used; and what is not written (a level out of range, a call while xlog
 * is closed or before it was ever open, a full ring under each policy),
 * counted and announced in notices of exact text.
 */
#include "testutil.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <setjmp.h>
#include <spawn.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <cmocka.h>

#include <xlog.h>

/* Opens xlog in a fresh directory; returns the directory. */
static char *open_fresh(const char *tag, xlog_config cfg)
{
    char *dir = test_make_dir(tag);
    cfg.dir = dir;
    cfg.use_environment = 0;
    int rc = xlog_open(&cfg);
    if (rc != 0)
        fail_msg("xlog_open: %s", xlog_strerror(rc));
    return dir;
}

/* Every message of the log in dir (the part after the tid) joined by '\n',
 * so tests compare exact text; each line must have the default layout. */
static char *messages_of(const char *dir)
{
    char *text = test_read_dir(dir, NULL);
    char *out = calloc(strlen(text) + 1, 1);
    size_t o = 0;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        assert_non_null(nl);
        test_line l;
        if (!test_parse_line(p, (size_t)(nl - p), &l))
            fail_msg("bad line: %.*s", (int)(nl - p), p);
        memcpy(out + o, l.message, l.message_len);
        o += l.message_len;
        out[o++] = '\n';
        p = nl + 1;
    }
    free(text);
    return out;
}

/* Closes xlog, returns messages_of(dir), and removes dir. */
static char *close_and_messages(char *dir)
{
    assert_int_equal(xlog_close(), 0);
    char *out = messages_of(dir);
    test_drop_dir(dir);
    return out;
}

static int evaluations;
static int counted(int v)
{
    evaluations++;
    return v;
}

static void levels_filter_and_skip_arguments(void **state)
{
    (void)state;
    xlog_config cfg = xlog_defaults();
    cfg.level = XLOG_WARN;
    char *dir = open_fresh("levels", cfg);
    evaluations = 0;
    xlog_debug("debug %d", counted(1));
    xlog_info("info %d", counted(2));
    xlog_warn("warn %d", counted(3));
    xlog_error("error %d", counted(4));
    xlog_fatal("fatal %d", counted(5));
    assert_int_equal(evaluations, 3); /* the disabled calls did not evaluate */
    assert_int_equal(xlog_get_level(), XLOG_WARN);
    xlog_set_level(XLOG_TRACE);
    xlog_trace("trace %d", 6);
    xlog_set_level(XLOG_OFF);
    xlog_fatal("off %d", 7);
    xlog_set_level(XLOG_ERROR);
    /* This thread only: one request logged in full. */
    xlog_thread_level(XLOG_TRACE);
    xlog_trace("request trace %d", 8);
    xlog_thread_level(XLOG_LEVEL_PROCESS);
    xlog_trace("after request %d", 9);
    /* An override can also quieten a thread. */
    xlog_thread_level(XLOG_OFF);
    xlog_error("quiet %d", 10);
    xlog_thread_level(XLOG_LEVEL_PROCESS);
    xlog_error("loud %d", 11);
    char *m = close_and_messages(dir);
    assert_string_equal(m, "warn 3\nerror 4\nfatal 5\ntrace 6\nrequest trace 8\nloud 11\n");
    free(m);
}

typedef struct override_arg {
    sem_t go, done;
    int level;
} override_arg;

static void *other_thread_logs(void *p)
{
    override_arg *a = p;
    xlog_thread_level(a->level);
    sem_wait(&a->go);
    xlog_debug("other thread debug");
    sem_post(&a->done);
    return NULL;
}

static void thread_override_is_per_thread(void **state)
{
    (void)state;
    char *dir = open_fresh("override", xlog_defaults());
    override_arg a;
    sem_init(&a.go, 0, 0);
    sem_init(&a.done, 0, 0);
    a.level = XLOG_DEBUG;
    pthread_t t;
    pthread_create(&t, NULL, other_thread_logs, &a);
    xlog_debug("main debug: not written");
    sem_post(&a.go);
    sem_wait(&a.done);
    pthread_join(t, NULL);
    xlog_debug("main debug again: not written");
    char *m = close_and_messages(dir);
    assert_string_equal(m, "other thread debug\n");
    free(m);
}

static void formats_that_are_not_literals(void **state)
{
    (void)state;
    char *dir = open_fresh("dynamic", xlog_defaults());
    const char *table[] = {"apples %d", "pears %d", "total=%d!"};
    for (int i = 0; i < 6; i++)
        xlog_info(table[i % 3], i);
    /* The same buffer, a different format each time. */
    char fmt[32];
    for (int i = 0; i < 3; i++) {
        snprintf(fmt, sizeof fmt, "%s %%d", i == 0 ? "one" : i == 1 ? "%s" : "three");
        if (i == 1)
            xlog_info(fmt, "two", 2);
        else
            xlog_info(fmt, i);
    }
    const char *null_fmt = NULL;
    xlog_info(null_fmt, 0);
    char *m = close_and_messages(dir);
    assert_string_equal(m, "apples 0\npears 1\ntotal=2!\napples 3\npears 4\ntotal=5!\n"
                           "one 0\ntwo 2\nthree 2\n(null format)\n");
    free(m);
}

static void every_argument_kind_round_trips(void **state)
{
    (void)state;
    char *dir = open_fresh("kinds", xlog_defaults());
    char unterminated[4] = {'a', 'b', 'c', 'd'}; /* no NUL: only read up to the precision */
    signed char sc = -5;
    short sh = -300;
    void *ptr = (void *)(uintptr_t)0x1234;
    xlog_info("%hhd %hd %d %ld %lld %jd %zu %td %u %#x %o %c %%", sc, sh, -7, -8L, -9LL,
              (intmax_t)-10, (size_t)11, (ptrdiff_t)-12, 13u, 255u, 8u, 'z');
    xlog_info("%f %.3e %g %a %Lf %10.2f|%-8s|%5s|", 1.5, 12345.678, 0.0001, 1.0, (long double)2.25,
              3.14159, "left", "r");
    xlog_info("%.*s|%*d|%-*d|%.2s", 3, unterminated, 5, 42, 4, 7, unterminated);
    xlog_info("%p %p %ls", ptr, (void *)0, L"wide");
    char *m = close_and_messages(dir);
    char expect[512];
    snprintf(expect, sizeof expect,
             "-5 -300 -7 -8 -9 -10 11 -12 13 0xff 10 z %%\n"
             "%f %.3e %g %a %Lf %10.2f|%-8s|%5s|\n"
             "abc|   42|7   |ab\n"
             "%p (nil) wide\n",
             1.5, 12345.678, 0.0001, 1.0, (long double)2.25, 3.14159, "left", "r", ptr);
    assert_string_equal(m, expect);
    free(m);
}

static void xlogout_keeps_the_old_entry_point_working(void **state)
{
    (void)state;
    char *dir = open_fresh("xlogout", xlog_defaults());
    xlogout(XLOG_INFO, __FILE__, 1234, "caller_func", "fmt %d %s", 1, "one");
    xlogout(XLOG_DEBUG, __FILE__, 1, "f", "not written at INFO");
    xlogout(XLOG_ERROR, "/deep/path/to/other.c", 7, "g", "no args");
    assert_int_equal(xlog_close(), 0);
    char *text = test_read_dir(dir, NULL);
    assert_int_equal(test_count_lines(text), 2);
    const char *first = strchr(text, '[');
    assert_non_null(first);
    assert_true(strncmp(first, "[INFO] test_api.c:1234 caller_func ", 35) == 0);
    const char *second = strchr(strchr(text, '\n') + 1, '[');
    assert_true(strncmp(second, "[ERROR] other.c:7 g ", 20) == 0);
    assert_non_null(strstr(text, " fmt 1 one\n"));
    assert_non_null(strstr(text, " no args\n"));
    free(text);
    test_drop_dir(dir);
}

/* xlogout's file and function come from the caller, not the compiler: a
 * newline in them must not start a line of its own (issue: a file argument
 * "\n2026-01-01 ... [FATAL] forged.c:1 forged 1 FORGED" made a real-looking
 * FATAL line, "\r\n" in the function a third). */
static void xlogout_file_and_function_cannot_forge_a_line(void **state)
{
    (void)state;
    char *dir = open_fresh("xlogout-forged", xlog_defaults());
    xlogout(XLOG_INFO, "a.c\n2026-01-01 00:00:00.000000000 [FATAL] forged.c:1 forged 1 FORGED", 3,
            "fn\r\n2026-01-01 00:00:00.000000000 [FATAL] x.c:1 f 1 AGAIN", "real %d", 1);
    assert_int_equal(xlog_close(), 0);
    char *text = test_read_dir(dir, NULL);
    assert_int_equal(test_count_lines(text), 1);
    assert_null(strchr(text, '\r'));
    assert_non_null(strstr(text, "[INFO] "));
    assert_null(strstr(text, "\n2026-01-01"));
    assert_non_null(strstr(text, "\\n2026-01-01 00:00:00.000000000 [FATAL] forged.c:1"));
    assert_non_null(strstr(text, "fn\\r\\n2026-01-01"));
    assert_non_null(strstr(text, " real 1\n"));
    free(text);
    test_drop_dir(dir);
}

/* A new thread's first call, which allocates its ring. */
static void *first_call_of_a_thread(void *unused)
{
    (void)unused;
    errno = EACCES;
    xlog_error("open: %m");
    return NULL;
}

/* %m prints errno as it was when the call was made, on every path: a
 * thread's first call, a call site's first and later calls, a format that is
 * not a literal, xlogout. */
static void percent_m_prints_errno_as_it_was_at_the_call(void **state)
{
    (void)state;
    char *dir = open_fresh("errno", xlog_defaults());
    pthread_t t;
    pthread_create(&t, NULL, first_call_of_a_thread, NULL);
    pthread_join(t, NULL);
    for (int i = 0; i < 2; i++) {
        errno = i == 0 ? ENOENT : EINTR;
        xlog_warn("try %d: %m", i);
    }
    const char *volatile fmt = "dynamic %.6m|%#m|%d"; /* gcc 12 does not know %#m */
    errno = ENOSPC;
    xlog_info(fmt, 3);
    errno = EPIPE;
    xlogout(XLOG_INFO, "f.c", 1, "g", "xlogout %-12m|%d", 4);
    char *m = close_and_messages(dir);
    assert_string_equal(m, "open: Permission denied\n"
                           "try 0: No such file or directory\n"
                           "try 1: Interrupted system call\n"
                           "dynamic No spa|ENOSPC|3\n"
                           "xlogout Broken pipe |4\n");
    free(m);
}

static void bad_input_gets_defined_results(void **state)
{
    (void)state;
    xlog_config cfg = xlog_defaults();
    cfg.max_message = 256;
    char *dir = open_fresh("hostile", cfg);
    const char *volatile null_str = NULL; /* hidden from -Wformat-overflow */
    XLOG(XLOG_INFO, "null: %s|%.2s|", null_str, null_str);
    int target = 77;
    xlog_info("count%n done %d", &target, 5);
    assert_int_equal(target, 77);
    xlog_info("forged\n2026-01-01 00:00:00.000000000 [INFO] x.c:1 f 1 fake %s", "line\r\x1b[31m");
    xlog_info("trailing newline dropped\n");
    const char *unknown = "%y and %1$d stay";
    xlog_info(unknown, 1);
    char big[1000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    xlog_info("long: %s", big);
    char *m = close_and_messages(dir);
    char expect[1024];
    int n = snprintf(expect, sizeof expect,
                     "null: (null)||\n" /* glibc prints nothing under a precision below 6 */
                     "count%%n done 5\n"
                     "forged\\n2026-01-01 00:00:00.000000000 [INFO] x.c:1 f 1 fake "
                     "line\\r\\x1b[31m\n"
                     "trailing newline dropped\n"
                     "%%y and %%1$d stay\n"
                     "long: ");
    /* 256 bytes of message: "long: ", x's, then the mark. */
    size_t keep = 256 - (sizeof XLOG_TRUNCATED_MARK - 1) - 6;
    memset(expect + n, 'x', keep);
    snprintf(expect + n + keep, sizeof expect - (size_t)n - keep, "%s\n", XLOG_TRUNCATED_MARK);
    assert_string_equal(m, expect);
    free(m);
    xlog_counters c;
    xlog_stats(&c);
    assert_true(c.truncated >= 1);
}

/* ---- a wall clock the test controls --------------------------------------- */

static int64_t fake_now_ns;
static int64_t fake_clock(void)
{
    return __atomic_load_n(&fake_now_ns, __ATOMIC_RELAXED);
}

static void file_name_follows_the_utc_date(void **state)
{
    (void)state;
    /* 2026-11-22 23:59:59.000 UTC */
    __atomic_store_n(&fake_now_ns, (int64_t)1795391999 * 1000000000, __ATOMIC_RELAXED);
    xlog_config cfg = xlog_defaults();
    cfg.wall_clock_ns = fake_clock;
    char *dir = open_fresh("midnight", cfg);
    xlog_info("before midnight");
    assert_int_equal(xlog_flush(), 0);
    __atomic_store_n(&fake_now_ns, (int64_t)1795392001 * 1000000000, __ATOMIC_RELAXED);
    assert_int_equal(xlog_flush(), 0); /* the back end re-reads the clock */
    xlog_info("after midnight");
    assert_int_equal(xlog_close(), 0);
    size_t n;
    char **files = test_list_files(dir, &n);
    assert_int_equal(n, 2);
    assert_string_equal(files[0], "2026-11-22.log");
    assert_string_equal(files[1], "2026-11-23.log");
    char *p0 = test_path(dir, files[0]), *p1 = test_path(dir, files[1]);
    char *a = test_read_file(p0, NULL), *b = test_read_file(p1, NULL);
    assert_true(strncmp(a, "2026-11-22 23:59:59.", 20) == 0);
    assert_non_null(strstr(a, " before midnight\n"));
    assert_int_equal(test_count_lines(a), 1);
    assert_true(strncmp(b, "2026-11-23 00:00:01.", 20) == 0);
    assert_non_null(strstr(b, " after midnight\n"));
    assert_int_equal(test_count_lines(b), 1);
    free(a);
    free(b);
    free(p0);
    free(p1);
    test_free_list(files, n);
    test_drop_dir(dir);
}

static void environment_overrides(void **state)
{
    (void)state;
    char *envdir = test_make_dir("envdir");
    setenv("XLOG_DIR", envdir, 1);
    setenv("XLOG_LEVEL", "debug", 1);
    xlog_config cfg = xlog_defaults();
    cfg.dir = "/nonexistent/never/used";
    assert_int_equal(xlog_open(&cfg), 0);
    xlog_debug("debug via env");
    assert_int_equal(xlog_close(), 0);
    char *text = test_read_dir(envdir, NULL);
    assert_non_null(strstr(text, " debug via env\n"));
    free(text);
    setenv("XLOG_LEVEL", "loud", 1);
    assert_int_equal(xlog_open(&cfg), -EINVAL);
    assert_non_null(strstr(xlog_strerror(-EINVAL), "XLOG_LEVEL"));
    unsetenv("XLOG_LEVEL");
    unsetenv("XLOG_DIR");
    test_drop_dir(envdir);
}

static void open_reports_errors(void **state)
{
    (void)state;
    char *dir = test_make_dir("errors");
    char *file = test_path(dir, "plain-file");
    FILE *f = fopen(file, "w");
    fclose(f);
    char *under_file = test_path(file, "logs");
    xlog_config cfg = test_config_in(under_file);
    assert_int_equal(xlog_open(&cfg), -ENOTDIR);
    assert_non_null(xlog_strerror(-ENOTDIR));
    cfg.dir = dir;
    cfg.ring_size = 100;
    assert_int_equal(xlog_open(&cfg), -EINVAL);
    cfg.ring_size = 1 << 20;
    cfg.level = 42;
    assert_int_equal(xlog_open(&cfg), -EINVAL);
    cfg.level = XLOG_INFO;
    cfg.dir = NULL;
    assert_int_equal(xlog_open(&cfg), -EINVAL);
    cfg.dir = dir;
    assert_int_equal(xlog_close(), -EBADF);
    assert_int_equal(xlog_open(&cfg), 0);
    assert_int_equal(xlog_open(&cfg), -EALREADY);
    assert_int_equal(xlog_close(), 0);
    unlink(file);
    free(under_file);
    free(file);
    test_drop_dir(dir);
}

static void open_errors_name_the_field(void **state)
{
    (void)state;
    char *dir = test_make_dir("lasterror");
    xlog_config cfg = test_config_in(dir);
    cfg.console = 99; /* not an open descriptor */
    assert_int_equal(xlog_open(&cfg), -EINVAL);
    assert_non_null(strstr(xlog_last_error(), "cfg.console: descriptor 99 is not open"));
    cfg.console = 0;
    cfg.ring_size = 100;
    assert_int_equal(xlog_open(&cfg), -EINVAL);
    assert_non_null(strstr(xlog_last_error(), "cfg.ring_size: 100 "));
    cfg.ring_size = 1 << 20;
    cfg.max_message = 1 << 20;
    assert_int_equal(xlog_open(&cfg), -EINVAL);
    assert_non_null(strstr(xlog_last_error(), "cfg.max_message"));
    cfg.max_message = 16384;
    cfg.use_environment = 1;
    setenv("XLOG_LEVEL", "verbose", 1);
    assert_int_equal(xlog_open(&cfg), -EINVAL);
    assert_non_null(strstr(xlog_last_error(), "XLOG_LEVEL=\"verbose\""));
    unsetenv("XLOG_LEVEL");
    assert_int_equal(xlog_open(&cfg), 0);
    assert_string_equal(xlog_last_error(), "");
    assert_int_equal(xlog_open(&cfg), -EALREADY);
    assert_string_equal(xlog_last_error(), "xlog is already open");
    assert_int_equal(xlog_close(), 0);
    test_drop_dir(dir);
}

/* A relative cfg.dir means the directory it named when xlog_open ran, also
 * for a reopen after the program changed its directory (as daemons do). */
static void relative_directory_stays_where_it_was_opened(void **state)
{
    (void)state;
    char *home = test_make_dir("relative");
    char *elsewhere = test_path(home, "elsewhere");
    assert_int_equal(mkdir(elsewhere, 0700), 0);
    char *before = getcwd(NULL, 0);
    assert_int_equal(chdir(home), 0);
    xlog_config cfg = xlog_defaults();
    cfg.use_environment = 0;
    cfg.dir = "logs";
    cfg.check_interval_ms = 1;
    assert_int_equal(xlog_open(&cfg), 0);
    xlog_info("before chdir");
    assert_int_equal(xlog_flush(), 0);
    assert_int_equal(chdir(elsewhere), 0);
    xlog_info("after chdir");
    xlog_reopen();
    assert_int_equal(xlog_flush(), 0);
    xlog_info("after reopen");
    assert_int_equal(xlog_close(), 0);
    assert_int_equal(chdir(before), 0);
    char *logs = test_path(home, "logs");
    char *text = test_read_dir(logs, NULL);
    assert_int_equal(test_count_lines(text), 3);
    assert_non_null(strstr(text, " before chdir\n"));
    assert_non_null(strstr(text, " after chdir\n"));
    assert_non_null(strstr(text, " after reopen\n"));
    char *wrong = test_path(elsewhere, "logs");
    assert_int_equal(access(wrong, F_OK), -1);
    free(text);
    test_remove_dir(logs);
    rmdir(elsewhere);
    rmdir(home);
    free(wrong);
    free(logs);
    free(before);
    free(elsewhere);
    free(home);
}

static void *log_one_line(void *unused)
{
    (void)unused;
    xlog_info("from a new thread");
    return NULL;
}

/* After xlog_close and xlog_open with a larger ring and max_message, a
 * thread that logged before writes as much as the new configuration
 * allows, like a thread that never logged. */
static void reopened_logger_gives_threads_rings_of_the_new_configuration(void **state)
{
    (void)state;
    char *dir = open_fresh("reconfig", xlog_defaults());
    xlog_info("with the defaults");
    pthread_t t;
    pthread_create(&t, NULL, log_one_line, NULL);
    pthread_join(t, NULL);
    assert_int_equal(xlog_close(), 0);
    xlog_config cfg = test_config_in(dir);
    cfg.ring_size = 4 << 20;
    cfg.max_message = 1 << 20;
    assert_int_equal(xlog_open(&cfg), 0);
    size_t n = 900000;
    char *big = malloc(n + 1);
    memset(big, 'x', n);
    big[n] = '\0';
    xlog_info("%s", big);
    char *text = close_and_messages(dir);
    const char *line = strstr(text, "xxx");
    assert_non_null(line);
    assert_int_equal(strcspn(line, "\n"), n);
    free(big);
    free(text);
}

static void levels_outside_the_range_are_refused_and_counted(void **state)
{
    (void)state;
    xlog_counters before, after;
    xlog_stats(&before);
    char *dir = open_fresh("badlevel", xlog_defaults());
    volatile int variable = 300;
    XLOG(XLOG_OFF, "off %d", 1);
    XLOG(7, "seven %d", 2);
    XLOG(-1, "minus one %d", 3);
    XLOG(variable, "variable %d", 4);
    xlogout(10, "file.c", 1, "func", "ten %d", 5);
    xlog_info("a real line");
    assert_int_equal(xlog_flush(), 0);
    xlog_stats(&after);
    char *text = close_and_messages(dir);
    assert_int_equal(after.refused - before.refused, 5);
    assert_null(strstr(text, "off 1"));
    assert_null(strstr(text, "seven"));
    assert_null(strstr(text, "minus one"));
    assert_null(strstr(text, "variable"));
    assert_null(strstr(text, "ten 5"));
    assert_non_null(strstr(text, "a real line\n"));
    /* Announced with the reason (in one or two notices: the first refusal
     * at once, the rest at the flush). */
    long announced = 0;
    for (const char *p = text; (p = strstr(p, " refused: level outside TRACE..FATAL")); p++) {
        const char *number = p;
        while (number > text && number[-1] >= '0' && number[-1] <= '9')
            number--;
        announced += strtol(number, NULL, 10);
    }
    assert_int_equal(announced, 5);
    assert_int_equal(xlog_enabled(7), 0);
    assert_int_equal(xlog_enabled(-1), 0);
    free(text);
}

static void messages_logged_while_closed_are_counted_and_announced(void **state)
{
    (void)state;
    xlog_counters before, after;
    char *dir = open_fresh("closed", xlog_defaults());
    xlog_info("first run");
    assert_int_equal(xlog_close(), 0);
    xlog_stats(&before);
    for (int i = 0; i < 5; i++)
        xlog_info("while closed %d", i);
    xlog_stats(&after);
    assert_int_equal(after.dropped_closing - before.dropped_closing, 5);
    assert_int_equal(after.dropped - before.dropped, 5);
    xlog_config cfg = test_config_in(dir);
    assert_int_equal(xlog_open(&cfg), 0);
    xlog_info("second run");
    char *text = close_and_messages(dir);
    assert_null(strstr(text, "while closed"));
    assert_non_null(strstr(text, "first run\n5 messages were not written: logged while xlog was "
                                 "closed\nsecond run\n"));
    free(text);
}

/* "test_api before-open <dir>", in a process of its own where xlog has
 * never been open: logs before the first xlog_open, then opens and closes.
 * Exit status 0, or which expectation failed. */
static int log_before_the_first_open(const char *dir)
{
    if (xlog_get_level() != XLOG_INFO)
        return 2;
    for (int i = 0; i < 3; i++)
        xlog_info("before open %d", i);
    xlog_warn("before open, a warning");
    xlog_debug("below the level: not a message at all");
    xlog_counters c;
    xlog_stats(&c);
    if (c.dropped_closing != 4 || c.dropped != 4)
        return 3;
    xlog_config cfg = test_config_in(dir);
    cfg.persistent = 0;
    if (xlog_open(&cfg) != 0)
        return 4;
    xlog_info("after open");
    if (xlog_close() != 0)
        return 5;
    xlog_stats(&c);
    return c.dropped_closing == 4 ? 0 : 6;
}

static void messages_logged_before_the_first_open_are_counted_and_announced(void **state)
{
    (void)state;
    char *dir = test_make_dir("beforeopen");
    char *argv[] = {"test_api", "before-open", dir, NULL};
    pid_t child;
    assert_int_equal(posix_spawn(&child, "/proc/self/exe", NULL, NULL, argv, environ), 0);
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    char *messages = messages_of(dir);
    assert_string_equal(messages, "4 messages were not written: logged while xlog was closed\n"
                                  "after open\n");
    free(messages);
    test_drop_dir(dir);
}

/* cfg.persistent with a directory that cannot be used (open to others):
 * the file's buffer and the thread's ring are in ordinary memory, and
 * xlog_counters.not_persistent says so. */
static void an_unusable_persistent_directory_counts_what_is_not_persistent(void **state)
{
    (void)state;
    char *persistent = test_make_dir("openshm");
    assert_int_equal(chmod(persistent, 0777), 0);
    xlog_counters before, after;
    xlog_stats(&before);
    xlog_config cfg = xlog_defaults();
    cfg.persistent_dir = persistent;
    char *dir = open_fresh("notpersistent", cfg);
    xlog_info("in ordinary memory");
    assert_int_equal(xlog_flush(), 0);
    xlog_stats(&after);
    /* One file buffer (XLOG_FILE_SHARED) and one ring (this thread's). */
    assert_int_equal(after.not_persistent - before.not_persistent, 2);
    char *text = close_and_messages(dir);
    /* The first line says exactly why; the message follows it. */
    char *expected = NULL;
    assert_true(asprintf(&expected,
                         "the lines still in memory will not survive a kill of this process: "
                         "its persistent directory cannot be used: %s: mode 0777 is open to "
                         "others (it must be 0700)\n"
                         "in ordinary memory\n",
                         persistent) > 0);
    assert_string_equal(text, expected);
    free(expected);
    free(text);
    rmdir(persistent);
    free(persistent);
}

/* The child of the XLOG_CHECK test: logs, then fails a check.  With
 * dir NULL, returns the line of its XLOG_CHECK instead. */
static int fail_a_check(const char *dir)
{
    if (dir) {
        struct rlimit no_core = {0, 0};
        setrlimit(RLIMIT_CORE, &no_core); /* the abort is expected */
        xlog_config cfg = test_config_in(dir);
        cfg.persistent = 0;
        if (xlog_open(&cfg) != 0)
            _exit(2);
        for (int i = 0; i < 100; i++)
            xlog_info("before the check %d", i);
    }
    int value = 4;
    if (!dir)
        return __LINE__ + 1;
    XLOG_CHECK(value == 3, "value %d, limit %d%%", value, 3);
    _exit(3); /* not reached */
}

/* XLOG_CHECK: a false condition logs it and the message at FATAL, writes
 * every line logged before, and aborts (xlog_fatal only logs). */
static void a_failed_check_logs_the_condition_writes_everything_and_aborts(void **state)
{
    (void)state;
    char *dir = test_make_dir("check");
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0)
        fail_a_check(dir);
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGABRT);
    char *text = test_read_dir(dir, NULL);
    assert_int_equal(test_count_lines(text), 100 + 2);
    const char *p = text;
    for (int i = 0; i < 102; i++) {
        const char *nl = strchr(p, '\n');
        test_line l;
        assert_true(test_parse_line(p, (size_t)(nl - p), &l));
        assert_int_equal(l.tid, child);
        char expected[128];
        if (i < 100) {
            assert_string_equal(l.level, "INFO");
            snprintf(expected, sizeof expected, "before the check %d", i);
        } else if (i == 100) {
            assert_string_equal(l.level, "FATAL");
            char where[64];
            snprintf(where, sizeof where, "test_api.c:%d", fail_a_check(NULL));
            assert_string_equal(l.where, where);
            assert_string_equal(l.func, "fail_a_check");
            snprintf(expected, sizeof expected, "check failed: value == 3: value 4, limit 3%%");
        } else {
            assert_string_equal(l.level, "FATAL");
            snprintf(expected, sizeof expected, "caught SIGABRT (signal %d): every message logged "
                                                "before it is above this line", SIGABRT);
        }
        assert_int_equal(l.message_len, strlen(expected));
        assert_memory_equal(l.message, expected, l.message_len);
        p = nl + 1;
    }
    free(text);
    test_drop_dir(dir);
}

/* -EBADF meant "xlog is not open" and, from xlog_open, "a descriptor in the
 * configuration is not open", with one text for both: each code now has one
 * meaning and its own text. */
static void each_error_code_has_one_meaning_and_text(void **state)
{
    (void)state;
    assert_int_equal(xlog_close(), -EBADF);
    assert_int_equal(xlog_flush(), -EBADF);
    assert_string_equal(xlog_strerror(-EBADF), "xlog is not open");
    char *dir = test_make_dir("codes");
    xlog_config cfg = test_config_in(dir);
    cfg.persistent = 0;
    cfg.console = 99; /* not an open descriptor */
    assert_int_equal(xlog_open(&cfg), -EINVAL);
    assert_string_equal(xlog_last_error(), "cfg.console: descriptor 99 is not open (Bad file "
                                           "descriptor)");
    assert_string_equal(xlog_strerror(-EINVAL),
                        "invalid configuration: a field of xlog_config (or XLOG_LEVEL / XLOG_DIR, "
                        "or a line of the configuration file) is out of range or cannot be used (cfg.console not an open descriptor, a "
                        "custom sink without a write function); xlog_last_error() says which");
    assert_string_equal(xlog_strerror(-EALREADY), "xlog is already open");
    test_drop_dir(dir);
}

/* Notices of one message say so in the singular: "1 message was", not "1
 * messages were". */
static void a_notice_of_one_message_is_in_the_singular(void **state)
{
    (void)state;
    xlog_config cfg = xlog_defaults();
    cfg.persistent = 0;
    char *dir = open_fresh("singular", cfg);
    xlog_info("first run");
    assert_int_equal(xlog_close(), 0);
    xlog_info("while closed");
    cfg.dir = dir;
    cfg.use_environment = 0;
    assert_int_equal(xlog_open(&cfg), 0);
    xlog_info("second run");
    XLOG(7, "a level that does not exist");
    assert_int_equal(xlog_flush(), 0);
    char *text = close_and_messages(dir);
    assert_string_equal(text, "first run\n"
                              "1 message was not written: logged while xlog was closed\n"
                              "second run\n"
                              "1 message of this thread was not written: 1 refused: level "
                              "outside TRACE..FATAL\n");
    free(text);
}

/* The notice of n messages of one thread not written for one reason, as
 * the back end writes it. */
static void thread_drop_notice(char *buf, size_t size, unsigned long long n, const char *reason)
{
    snprintf(buf, size, "%llu %s of this thread %s not written: %llu %s", n,
             test_plural(n, "message", "messages"), test_plural(n, "was", "were"), n, reason);
}

/* The notice of n messages logged while xlog was closed or closing. */
static void closed_drop_notice(char *buf, size_t size, unsigned long long n)
{
    snprintf(buf, size, "%llu %s not written: logged while xlog was closed", n,
             test_plural(n, "message was", "messages were"));
}

/* A line's message is exactly the text expected. */
static void assert_message_is(const test_line *l, const char *expected)
{
    if (l->message_len != strlen(expected) || memcmp(l->message, expected, l->message_len) != 0)
        fail_msg("the message '%.*s', not '%s'", (int)l->message_len, l->message, expected);
}

static const char full_drop[] = "its ring was full (XLOG_FULL_DROP)";

typedef struct dropper {
    long messages;
    int tid;
} dropper;

static void *drop_a_lot(void *p)
{
    dropper *d = p;
    d->tid = (int)gettid();
    for (long i = 0; i < d->messages; i++)
        xlog_info("flood %ld", i);
    return NULL;
}

/* Drops are announced with their reason, at most about once a second per
 * thread, and the announced counts add up to the drops. */
static void drop_notices_are_coalesced_and_sum_to_the_drops(void **state)
{
    (void)state;
    xlog_counters before, after;
    xlog_stats(&before);
    xlog_config cfg = xlog_defaults();
    cfg.ring_size = 65536;
    cfg.full_policy = XLOG_FULL_DROP;
    char *dir = open_fresh("coalesce", cfg);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    dropper d[2] = {{test_scaled(200000), 0}, {test_scaled(200000), 0}};
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, drop_a_lot, &d[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    assert_int_equal(xlog_close(), 0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    xlog_stats(&after);
    uint64_t dropped = after.dropped - before.dropped;
    char *text = test_read_dir(dir, NULL);
    uint64_t announced = 0, written = 0;
    long notices[2] = {0, 0};
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        test_line l;
        assert_true(test_parse_line(p, (size_t)(nl - p), &l));
        if (memmem(l.message, l.message_len, " not written: ", 14)) {
            unsigned long long n = strtoull(l.message, NULL, 10);
            char expected[160];
            thread_drop_notice(expected, sizeof expected, n, full_drop);
            assert_message_is(&l, expected);
            assert_string_equal(l.level, "WARN");
            announced += n;
            notices[l.tid == d[1].tid]++;
        } else {
            written++;
        }
        p = nl + 1;
    }
    assert_int_equal(announced, dropped);
    assert_int_equal(written + dropped, (uint64_t)(d[0].messages + d[1].messages));
    /* One a second while the drops go on, and the last one when the thread
     * ends. */
    for (int i = 0; i < 2; i++)
        assert_true(notices[i] <= (long)seconds + 2);
    free(text);
    test_drop_dir(dir);
}

/* A thread logs while another closes and reopens xlog again and again: what
 * it logged while xlog was closed or closing is counted and announced with
 * that reason, never as "its ring was full" (the ring never was: the policy
 * is to block), and the announced counts add up to the drops. */
static int reopens_done;

static void *log_through_reopens(void *p)
{
    dropper *d = p;
    while (!__atomic_load_n(&reopens_done, __ATOMIC_ACQUIRE))
        xlog_info("through %ld", d->messages++);
    return NULL;
}

static void logging_while_another_thread_reopens_gives_the_true_reason(void **state)
{
    (void)state;
    xlog_counters before, after;
    xlog_stats(&before);
    char *dir = open_fresh("reopens", xlog_defaults());
    xlog_config cfg = test_config_in(dir);
    dropper d = {0, 0};
    pthread_t t;
    __atomic_store_n(&reopens_done, 0, __ATOMIC_RELEASE);
    pthread_create(&t, NULL, log_through_reopens, &d);
    for (int i = 0; i < 20; i++) {
        assert_int_equal(xlog_close(), 0);
        assert_int_equal(xlog_open(&cfg), 0);
    }
    __atomic_store_n(&reopens_done, 1, __ATOMIC_RELEASE);
    pthread_join(t, NULL);
    assert_int_equal(xlog_close(), 0);
    assert_int_equal(xlog_open(&cfg), 0); /* announces what the last close left */
    assert_int_equal(xlog_close(), 0);
    xlog_stats(&after);
    uint64_t dropped = after.dropped - before.dropped;
    assert_int_equal(after.dropped_full - before.dropped_full, 0);
    char *text = test_read_dir(dir, NULL);
    uint64_t announced = 0, written = 0;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        test_line l;
        assert_true(test_parse_line(p, (size_t)(nl - p), &l));
        if (memmem(l.message, l.message_len, " not written: ", 14)) {
            unsigned long long n = strtoull(l.message, NULL, 10);
            char expected[160];
            closed_drop_notice(expected, sizeof expected, n);
            assert_message_is(&l, expected);
            announced += n;
        } else if (l.message_len > 8 && memcmp(l.message, "through ", 8) == 0) {
            written++;
        }
        p = nl + 1;
    }
    assert_true(dropped > 0); /* the thread did log while xlog was closed */
    if (announced != dropped || written + dropped != (uint64_t)d.messages)
        fail_msg("%ld logged, %llu written, %llu dropped (%llu closing, %llu nested, %llu full), "
                 "%llu announced",
                 d.messages, (unsigned long long)written, (unsigned long long)dropped,
                 (unsigned long long)(after.dropped_closing - before.dropped_closing),
                 (unsigned long long)(after.dropped_nested - before.dropped_nested),
                 (unsigned long long)(after.dropped_full - before.dropped_full),
                 (unsigned long long)announced);
    print_message("%ld messages, %llu dropped while xlog was closed or closing\n", d.messages,
                  (unsigned long long)dropped);
    free(text);
    test_drop_dir(dir);
}

/* ---- full rings ------------------------------------------------------------
 * The back end is held still inside the test's wall clock (it reads it when
 * it answers a flush), so the ring really fills; the test releases it when
 * the counters show the ring was full.  No timing is involved. */

static sem_t clock_release;
static int hold_clock;
static int64_t holding_clock(void)
{
    if (__atomic_load_n(&hold_clock, __ATOMIC_ACQUIRE)) {
        __atomic_store_n(&hold_clock, 0, __ATOMIC_RELAXED);
        sem_wait(&clock_release);
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void *flush_in_background(void *unused)
{
    (void)unused;
    xlog_flush();
    return NULL;
}

typedef struct burst {
    uint64_t blocked; /* release when xlog_counters.blocked reaches it, or (0) when
                         dropped > 0 */
    long messages;    /* from each producer */
    int producers;
    int finished;     /* atomic: producers done (all of them: release anyway) */
} burst;

typedef struct producer {
    burst *burst;
    int index;
} producer;

static void *release_back_end(void *p)
{
    burst *b = p;
    for (;;) {
        xlog_counters c;
        xlog_stats(&c);
        if ((b->blocked ? c.blocked >= b->blocked : c.dropped > 0) ||
            __atomic_load_n(&b->finished, __ATOMIC_ACQUIRE) == b->producers)
            break;
        struct timespec pause = {0, 1000000};
        nanosleep(&pause, NULL);
    }
    sem_post(&clock_release);
    return NULL;
}

static void *log_burst(void *p)
{
    producer *me = p;
    burst *b = me->burst;
    for (long i = 0; i < b->messages; i++) {
        if (b->producers == 1)
            xlog_info("burst %ld of %ld", i, b->messages);
        else
            xlog_info("producer %d burst %ld of %ld", me->index, i, b->messages);
    }
    __atomic_add_fetch(&b->finished, 1, __ATOMIC_RELEASE);
    return NULL;
}

static void fill_rings_with_back_end_held(burst *b)
{
    sem_init(&clock_release, 0, 0);
    /* A flush makes the back end read the clock, and it stays there. */
    __atomic_store_n(&hold_clock, 1, __ATOMIC_RELEASE);
    pthread_t flusher, releaser;
    pthread_create(&flusher, NULL, flush_in_background, NULL);
    while (__atomic_load_n(&hold_clock, __ATOMIC_ACQUIRE)) {
        struct timespec pause = {0, 100000};
        nanosleep(&pause, NULL);
    }
    pthread_create(&releaser, NULL, release_back_end, b);
    /* New threads, so that their rings have this configuration's size. */
    pthread_t threads[16];
    producer producers[16];
    assert_true(b->producers <= 16);
    for (int i = 0; i < b->producers; i++) {
        producers[i] = (producer){b, i};
        pthread_create(&threads[i], NULL, log_burst, &producers[i]);
    }
    for (int i = 0; i < b->producers; i++)
        pthread_join(threads[i], NULL);
    pthread_join(releaser, NULL);
    pthread_join(flusher, NULL);
}

static void fill_ring_with_back_end_held(xlog_full_policy policy, long messages)
{
    xlog_counters now;
    xlog_stats(&now);
    burst b = {policy == XLOG_FULL_BLOCK ? now.blocked + 1 : 0, messages, 1, 0};
    fill_rings_with_back_end_held(&b);
}

static void full_ring_blocks_and_loses_nothing(void **state)
{
    (void)state;
    xlog_counters before, after;
    xlog_stats(&before);
    xlog_config cfg = xlog_defaults();
    cfg.ring_size = 65536;
    cfg.wall_clock_ns = holding_clock;
    char *dir = open_fresh("block", cfg);
    const long messages = 20000; /* about 48 bytes each: 15 rings' worth */
    fill_ring_with_back_end_held(XLOG_FULL_BLOCK, messages);
    assert_int_equal(xlog_close(), 0);
    xlog_stats(&after);
    assert_true(after.blocked > before.blocked);
    assert_int_equal(after.dropped, before.dropped);
    char *text = test_read_dir(dir, NULL);
    assert_int_equal(test_count_lines(text), (size_t)messages);
    assert_int_equal(test_numbered_in_order(text, " burst "), messages);
    free(text);
    test_drop_dir(dir);
}

/* Sixteen threads (eight per core here) fill their rings while the back
 * end is held, and wait (asleep: rings.c, "Waiting for room") until every
 * one of them has, so that the back end, released, must wake them all;
 * every line is then written once, each thread's in order. */
static void threads_asleep_on_full_rings_are_all_woken_and_lose_nothing(void **state)
{
    (void)state;
    xlog_counters before, after;
    xlog_stats(&before);
    xlog_config cfg = xlog_defaults();
    cfg.ring_size = 65536;
    cfg.wall_clock_ns = holding_clock;
    char *dir = open_fresh("sleepers", cfg);
    /* At least two rings' worth each (about 56 bytes a record), at any scale:
     * every producer must wait while the back end is held. */
    enum { producers = 16 };
    const long messages = 3000 + test_scaled(17000);
    burst b = {before.blocked + producers, messages, producers, 0};
    fill_rings_with_back_end_held(&b);
    assert_int_equal(xlog_close(), 0);
    xlog_stats(&after);
    assert_true(after.blocked - before.blocked >= producers);
    assert_int_equal(after.dropped, before.dropped);
    char *text = test_read_dir(dir, NULL);
    long next[producers] = {0};
    size_t lines = 0;
    for (const char *p = text; *p; lines++) {
        const char *nl = strchr(p, '\n');
        assert_non_null(nl);
        test_line l;
        if (!test_parse_line(p, (size_t)(nl - p), &l))
            fail_msg("bad line %zu: %.*s", lines + 1, (int)(nl - p), p);
        /* sscanf on a copy: on the text it would measure the rest of the file
         * at every line. */
        char message[64];
        assert_true(l.message_len < sizeof message);
        memcpy(message, l.message, l.message_len);
        message[l.message_len] = '\0';
        int index = -1;
        assert_int_equal(sscanf(message, "producer %d ", &index), 1);
        assert_true(index >= 0 && index < producers);
        char expected[64];
        snprintf(expected, sizeof expected, "producer %d burst %ld of %ld", index, next[index],
                 messages);
        assert_message_is(&l, expected);
        next[index]++;
        p = nl + 1;
    }
    assert_int_equal(lines, (size_t)producers * (size_t)messages);
    for (int i = 0; i < producers; i++)
        assert_int_equal(next[i], messages);
    free(text);
    test_drop_dir(dir);
}

static void full_ring_drops_counts_and_says_so(void **state)
{
    (void)state;
    xlog_counters before, after;
    xlog_stats(&before);
    xlog_config cfg = xlog_defaults();
    cfg.ring_size = 65536;
    cfg.full_policy = XLOG_FULL_DROP;
    cfg.wall_clock_ns = holding_clock;
    char *dir = open_fresh("drop", cfg);
    const long messages = 20000;
    fill_ring_with_back_end_held(XLOG_FULL_DROP, messages);
    xlog_info("after the burst");
    assert_int_equal(xlog_close(), 0);
    xlog_stats(&after);
    uint64_t dropped = after.dropped - before.dropped;
    assert_true(dropped > 0);
    char *text = test_read_dir(dir, NULL);
    size_t written = 0, announced = 0, last_seq = 0;
    int ordered = 1;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        test_line l;
        assert_true(test_parse_line(p, (size_t)(nl - p), &l));
        if (strncmp(l.message, "burst ", 6) == 0) {
            size_t seq = strtoul(l.message + 6, NULL, 10);
            ordered &= written == 0 || seq > last_seq;
            last_seq = seq;
            written++;
        } else if (memmem(l.message, l.message_len, " not written: ", 14)) {
            unsigned long long n = strtoull(l.message, NULL, 10);
            char expected[160];
            thread_drop_notice(expected, sizeof expected, n, full_drop);
            assert_message_is(&l, expected);
            assert_string_equal(l.level, "WARN");
            announced += n;
        }
        p = nl + 1;
    }
    assert_true(ordered);
    assert_int_equal(written + dropped, (size_t)messages);
    assert_int_equal(announced, dropped);
    assert_non_null(strstr(text, " after the burst\n"));
    assert_int_equal(after.messages - before.messages, test_count_lines(text));
    free(text);
    test_drop_dir(dir);
}

/* Threads start, log one line and end (each maps a ring, in the persistent
 * directory when no spare is ready) while xlog closes and opens again and
 * again: a thread's first call must not use the directory a close is taking
 * away or the name an open is writing (ThreadSanitizer saw both), every
 * line is written once or counted as logged while closed, and no process
 * directory is left behind. */
static int starters_done;
static long starters_logged;

static void *start_log_end(void *unused)
{
    (void)unused;
    xlog_info("starter %ld", __atomic_fetch_add(&starters_logged, 1, __ATOMIC_RELAXED));
    return NULL;
}

static void *start_threads_until_done(void *unused)
{
    (void)unused;
    while (!__atomic_load_n(&starters_done, __ATOMIC_ACQUIRE)) {
        pthread_t t[8];
        for (int i = 0; i < 8; i++)
            assert_int_equal(pthread_create(&t[i], NULL, start_log_end, NULL), 0);
        for (int i = 0; i < 8; i++)
            pthread_join(t[i], NULL);
    }
    return NULL;
}

static void threads_starting_while_xlog_reopens_lose_nothing_and_leave_nothing(void **state)
{
    (void)state;
    xlog_counters before, after;
    xlog_stats(&before);
    char *dir = test_make_dir("starters");
    char *shm = test_path(dir, "shm");
    xlog_config cfg = test_config_in(dir);
    cfg.persistent_dir = shm;
    assert_int_equal(xlog_open(&cfg), 0);
    __atomic_store_n(&starters_done, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&starters_logged, 0, __ATOMIC_RELAXED);
    pthread_t spawners[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&spawners[i], NULL, start_threads_until_done, NULL);
    for (int i = 0; i < 200; i++) { /* not scaled: each is short, and races need many */
        assert_int_equal(xlog_close(), 0);
        assert_int_equal(xlog_open(&cfg), 0);
    }
    __atomic_store_n(&starters_done, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < 2; i++)
        pthread_join(spawners[i], NULL);
    assert_int_equal(xlog_close(), 0);
    assert_int_equal(xlog_open(&cfg), 0); /* announces what the last close left */
    assert_int_equal(xlog_close(), 0);
    xlog_stats(&after);
    long logged = __atomic_load_n(&starters_logged, __ATOMIC_RELAXED);
    uint64_t dropped = after.dropped - before.dropped;
    assert_int_equal(after.dropped_full - before.dropped_full, 0);
    char *text = test_read_dir(dir, NULL);
    char *seen = calloc((size_t)logged + 1, 1);
    uint64_t announced = 0, written = 0;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        test_line l;
        assert_true(test_parse_line(p, (size_t)(nl - p), &l));
        char expected[160];
        if (memmem(l.message, l.message_len, " not written: ", 14)) {
            unsigned long long n = strtoull(l.message, NULL, 10);
            closed_drop_notice(expected, sizeof expected, n);
            assert_message_is(&l, expected);
            announced += n;
        } else {
            long n = strtol(l.message + 8, NULL, 10);
            assert_true(n >= 0 && n < logged && !seen[n]);
            seen[n] = 1;
            snprintf(expected, sizeof expected, "starter %ld", n);
            assert_message_is(&l, expected);
            written++;
        }
        p = nl + 1;
    }
    if (announced != dropped || written + dropped != (uint64_t)logged)
        fail_msg("%ld logged, %llu written, %llu dropped, %llu announced", logged,
                 (unsigned long long)written, (unsigned long long)dropped,
                 (unsigned long long)announced);
    /* Every process directory went with its close: the key's directory
     * holds nothing, or is gone with the persistent directory. */
    char key[PATH_MAX];
    size_t entries = 0;
    DIR *d = opendir(shm);
    assert_true(d || errno == ENOENT);
    for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(key, sizeof key, "%s/%s", shm, e->d_name);
        DIR *k = opendir(key);
        assert_non_null(k);
        for (struct dirent *f; (f = readdir(k));)
            if (f->d_name[0] != '.') {
                print_error("left behind: %s/%s\n", key, f->d_name);
                entries++;
            }
        closedir(k);
    }
    if (d)
        closedir(d);
    assert_int_equal(entries, 0);
    free(seen);
    free(text);
    free(shm);
    test_drop_dir(dir);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "before-open") == 0)
        return log_before_the_first_open(argv[2]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(messages_logged_before_the_first_open_are_counted_and_announced),
        cmocka_unit_test(an_unusable_persistent_directory_counts_what_is_not_persistent),
        cmocka_unit_test(levels_filter_and_skip_arguments),
        cmocka_unit_test(thread_override_is_per_thread),
        cmocka_unit_test(formats_that_are_not_literals),
        cmocka_unit_test(every_argument_kind_round_trips),
        cmocka_unit_test(xlogout_keeps_the_old_entry_point_working),
        cmocka_unit_test(xlogout_file_and_function_cannot_forge_a_line),
        cmocka_unit_test(percent_m_prints_errno_as_it_was_at_the_call),
        cmocka_unit_test(bad_input_gets_defined_results),
        cmocka_unit_test(file_name_follows_the_utc_date),
        cmocka_unit_test(environment_overrides),
        cmocka_unit_test(open_reports_errors),
        cmocka_unit_test(open_errors_name_the_field),
        cmocka_unit_test(relative_directory_stays_where_it_was_opened),
        cmocka_unit_test(reopened_logger_gives_threads_rings_of_the_new_configuration),
        cmocka_unit_test(levels_outside_the_range_are_refused_and_counted),
        cmocka_unit_test(messages_logged_while_closed_are_counted_and_announced),
        cmocka_unit_test(a_notice_of_one_message_is_in_the_singular),
        cmocka_unit_test(each_error_code_has_one_meaning_and_text),
        cmocka_unit_test(a_failed_check_logs_the_condition_writes_everything_and_aborts),
        cmocka_unit_test(drop_notices_are_coalesced_and_sum_to_the_drops),
        cmocka_unit_test(logging_while_another_thread_reopens_gives_the_true_reason),
        cmocka_unit_test(threads_starting_while_xlog_reopens_lose_nothing_and_leave_nothing),
        cmocka_unit_test(full_ring_blocks_and_loses_nothing),
        cmocka_unit_test(threads_asleep_on_full_rings_are_all_woken_and_lose_nothing),
        cmocka_unit_test(full_ring_drops_counts_and_says_so),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
