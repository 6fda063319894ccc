/*
 * test_filters.c - what gets logged: module rules (prefixes, the most
 * specific winning, the thread's own threshold over them), filter strings
 * (valid and malformed, with their messages), rate limits (counted exactly,
 * with the injectable clock), backtraces (content and order, per thread)
 * and flushing on level.
 *
 * The modules are translation units of their own (tests/filters/), each
 * defining its XLOG_MODULE as a program would.
 */
#include "testutil.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <setjmp.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdarg.h>
#include <cmocka.h>

#include <xlog.h>

#include "filters/modules.h"

static char *open_in(const char *tag, xlog_config cfg)
{
    char *dir = test_make_dir(tag);
    cfg.dir = dir;
    cfg.use_environment = 0;
    if (xlog_open(&cfg) != 0)
        fail_msg("xlog_open: %s", xlog_last_error());
    return dir;
}

/* The messages of the files, one per line, after closing. */
static char *close_and_read(char *dir)
{
    assert_int_equal(xlog_close(), 0);
    char *text = test_read_dir(dir, NULL);
    test_drop_dir(dir);
    return text;
}

/* Whether text has a line ending in "[LEVEL] ... message". */
static int has(const char *text, const char *level, const char *message)
{
    char tag[16];
    snprintf(tag, sizeof tag, "[%s] ", level);
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = (size_t)(nl - p), mlen = strlen(message);
        if (memmem(p, len, tag, strlen(tag)) && len > mlen && memcmp(nl - mlen, message, mlen) == 0 &&
            nl[-(long)mlen - 1] == ' ')
            return 1;
        p = nl + 1;
    }
    return 0;
}

static void log_everywhere(int level, int n)
{
    log_in_net(level, n);
    log_in_net_tls(level, n);
    log_in_network(level, n);
    log_in_storage(level, n);
    XLOG(level, "none %d", n);
}

static const char *const level_names[] = {"TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"};

/* Expects, for each module and level, a line exactly when level >= min. */
static void expect_levels(const char *text, const char *module, int min)
{
    for (int level = XLOG_TRACE; level <= XLOG_FATAL; level++) {
        char message[64];
        snprintf(message, sizeof message, "%s %d", module, level);
        if (has(text, level_names[level], message) != (level >= min))
            fail_msg("%s at %s: expected %s", module, level_names[level],
                     level >= min ? "a line" : "none");
    }
}

static void module_rules_match_prefixes_and_the_most_specific_wins(void **state)
{
    (void)state;
    char *dir = open_in("modules", xlog_defaults());
    assert_int_equal(xlog_set_filter("warn, net=debug ,net.tls=trace"), 0);
    assert_int_equal(xlog_get_level(), XLOG_WARN);
    assert_true(xlog_module_enabled("net", XLOG_DEBUG));
    assert_false(xlog_module_enabled("net", XLOG_TRACE));
    assert_true(xlog_module_enabled("net.tls.session", XLOG_TRACE));
    assert_false(xlog_module_enabled("network", XLOG_INFO));
    for (int level = XLOG_TRACE; level <= XLOG_FATAL; level++)
        log_everywhere(level, level);
    char *text = close_and_read(dir);
    expect_levels(text, "net", XLOG_DEBUG);
    expect_levels(text, "net.tls", XLOG_TRACE);
    expect_levels(text, "network", XLOG_WARN); /* "net" does not cover "network" */
    expect_levels(text, "storage", XLOG_WARN);
    expect_levels(text, "none", XLOG_WARN);
    free(text);
}

static void module_level_changes_at_run_time(void **state)
{
    (void)state;
    char *dir = open_in("modlevel", xlog_defaults()); /* INFO */
    assert_int_equal(xlog_set_filter("info"), 0);
    log_in_storage(XLOG_DEBUG, 1);
    assert_int_equal(xlog_set_module_level("storage", XLOG_DEBUG), 0);
    log_in_storage(XLOG_DEBUG, 2);
    log_in_net(XLOG_DEBUG, 3);
    assert_int_equal(xlog_set_module_level("storage", XLOG_ERROR), 0);
    log_in_storage(XLOG_WARN, 4);
    log_in_storage(XLOG_ERROR, 5);
    xlog_set_level(XLOG_TRACE); /* the process level: modules with a rule keep it */
    log_in_storage(XLOG_WARN, 6);
    log_in_net(XLOG_TRACE, 7);
    assert_int_equal(xlog_set_module_level("bad..name", XLOG_DEBUG), -EINVAL);
    assert_non_null(strstr(xlog_last_error(), "\"bad..name\" is not a module name"));
    char *text = close_and_read(dir);
    assert_false(has(text, "DEBUG", "storage 1"));
    assert_true(has(text, "DEBUG", "storage 2"));
    assert_false(has(text, "DEBUG", "net 3"));
    assert_false(has(text, "WARN", "storage 4"));
    assert_true(has(text, "ERROR", "storage 5"));
    assert_false(has(text, "WARN", "storage 6"));
    assert_true(has(text, "TRACE", "net 7"));
    free(text);
    xlog_set_filter("info"); /* no rule left for the next tests */
}

typedef struct follower {
    int traced; /* 1: this thread logs everything */
} follower;

static void *log_from_a_thread(void *p)
{
    const follower *f = p;
    if (f->traced)
        xlog_thread_level(XLOG_TRACE);
    log_in_net_tls(XLOG_TRACE, 100 + f->traced);
    log_in_storage(XLOG_DEBUG, 100 + f->traced);
    return NULL;
}

/* One request logged in full: the thread's own threshold wins over every
 * module rule, for that thread only. */
static void thread_override_wins_over_module_rules(void **state)
{
    (void)state;
    char *dir = open_in("override", xlog_defaults());
    assert_int_equal(xlog_set_filter("error,net.tls=warn,storage=fatal"), 0);
    follower traced = {1}, plain = {0};
    pthread_t a, b;
    pthread_create(&a, NULL, log_from_a_thread, &traced);
    pthread_join(a, NULL);
    pthread_create(&b, NULL, log_from_a_thread, &plain);
    pthread_join(b, NULL);
    char *text = close_and_read(dir);
    assert_true(has(text, "TRACE", "net.tls 101"));
    assert_true(has(text, "DEBUG", "storage 101"));
    assert_false(has(text, "TRACE", "net.tls 100"));
    assert_false(has(text, "DEBUG", "storage 100"));
    free(text);
    xlog_set_filter("info");
}

/* A thread that takes a threshold of its own, logs once at TRACE when told,
 * and then drops it or just ends. */
typedef struct holder {
    int level;
    int drop;
    sem_t ready, go;
} holder;

static void *hold_own_threshold(void *p)
{
    holder *h = p;
    xlog_thread_level(h->level);
    sem_post(&h->ready);
    sem_wait(&h->go);
    xlog_trace("held %d", h->level);
    xlog_error("held error %d", h->level);
    if (h->drop)
        xlog_thread_level(XLOG_LEVEL_PROCESS);
    return NULL;
}

static void start_holder(holder *h, pthread_t *t, int level, int drop)
{
    h->level = level;
    h->drop = drop;
    sem_init(&h->ready, 0, 0);
    sem_init(&h->go, 0, 0);
    assert_int_equal(pthread_create(t, NULL, hold_own_threshold, h), 0);
    sem_wait(&h->ready);
}

static void finish_holder(holder *h, pthread_t t)
{
    sem_post(&h->go);
    pthread_join(t, NULL);
    sem_destroy(&h->ready);
    sem_destroy(&h->go);
}

/* A disabled call compares its level with one floor; a thread's own
 * threshold below the rules lowers it while the thread has it (until it
 * drops it, ends, or is left behind by a fork), and other threads' calls
 * that pass it are still turned down; a thread's threshold above the rules
 * silences it alone. */
static void a_threads_own_threshold_moves_the_floor_only_while_it_has_it(void **state)
{
    (void)state;
    char *dir = open_in("floor", xlog_defaults());
    assert_int_equal(xlog_impl_floor, XLOG_INFO);

    holder h;
    pthread_t t;
    start_holder(&h, &t, XLOG_TRACE, 0); /* ends without dropping it */
    assert_int_equal(xlog_impl_floor, XLOG_TRACE);
    xlog_debug("main debug while the floor is low");
    xlog_info("main info while the floor is low");
    if (!SANITIZER_FORK_LIMIT) {
        pid_t child = fork();
        if (child == 0)
            _exit(xlog_impl_floor == XLOG_INFO ? 0 : 1); /* the holder did not come along */
        int status;
        assert_int_equal(waitpid(child, &status, 0), child);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        assert_int_equal(xlog_impl_floor, XLOG_TRACE);
    }
    finish_holder(&h, t);
    assert_int_equal(xlog_impl_floor, XLOG_INFO);

    start_holder(&h, &t, XLOG_DEBUG, 1); /* drops it */
    assert_int_equal(xlog_impl_floor, XLOG_DEBUG);
    finish_holder(&h, t);
    assert_int_equal(xlog_impl_floor, XLOG_INFO);

    xlog_set_level(XLOG_TRACE);
    start_holder(&h, &t, XLOG_OFF, 1); /* silenced: the floor stays */
    assert_int_equal(xlog_impl_floor, XLOG_TRACE);
    finish_holder(&h, t);
    xlog_trace("main trace at TRACE");

    xlog_set_level(XLOG_WARN);
    xlog_thread_level(XLOG_INFO);
    assert_int_equal(xlog_impl_floor, XLOG_INFO);
    xlog_info("main info with its own threshold");
    xlog_thread_level(XLOG_LEVEL_PROCESS);
    assert_int_equal(xlog_impl_floor, XLOG_WARN);
    xlog_info("main info after dropping it");

    char *text = close_and_read(dir);
    assert_false(has(text, "DEBUG", "main debug while the floor is low"));
    assert_true(has(text, "INFO", "main info while the floor is low"));
    assert_true(has(text, "TRACE", "held 0"));
    assert_true(has(text, "TRACE", "held 1") == 0 && has(text, "ERROR", "held error 1"));
    assert_false(has(text, "TRACE", "held 6"));
    assert_false(has(text, "ERROR", "held error 6"));
    assert_true(has(text, "TRACE", "main trace at TRACE"));
    assert_true(has(text, "INFO", "main info with its own threshold"));
    assert_false(has(text, "INFO", "main info after dropping it"));
    free(text);
}

/* A program's own thread-specific destructor that runs after xlog's and
 * drops the thread's threshold ("a request guard") must not take the
 * thread's count twice: the count wrapped, and the floor then rose above a
 * threshold another thread still had, whose TRACE lines were lost. */
static pthread_key_t guard_key;

static void request_guard_ends(void *unused)
{
    (void)unused;
    xlog_thread_level(XLOG_LEVEL_PROCESS);
}

static void *traced_request_then_end(void *unused)
{
    (void)unused;
    xlog_thread_level(XLOG_TRACE);
    pthread_setspecific(guard_key, &guard_key);
    return NULL;
}

static void a_threshold_dropped_again_by_a_later_destructor_counts_once(void **state)
{
    (void)state;
    char *dir = open_in("guard", xlog_defaults());
    xlog_thread_level(XLOG_DEBUG); /* xlog's key exists before the program's */
    xlog_thread_level(XLOG_LEVEL_PROCESS);
    assert_int_equal(pthread_key_create(&guard_key, request_guard_ends), 0);
    pthread_t t;
    pthread_create(&t, NULL, traced_request_then_end, NULL);
    pthread_join(t, NULL);
    assert_int_equal(xlog_impl_floor, XLOG_INFO);
    holder h;
    start_holder(&h, &t, XLOG_TRACE, 1);
    assert_int_equal(xlog_impl_floor, XLOG_TRACE);
    finish_holder(&h, t);
    assert_int_equal(xlog_impl_floor, XLOG_INFO);
    pthread_key_delete(guard_key);
    char *text = close_and_read(dir);
    assert_true(has(text, "TRACE", "held 0"));
    free(text);
}

/* Runs first, before any xlog_open in this process: the rules' lock is
 * used before xlog_open (xlog_thread_level, xlog_set_level), so its fork
 * handlers must be in place from the start.  A child forked while another
 * thread held that lock waited for it forever in xlog_set_level (half the
 * runs), and kept the floor of that thread's threshold. */
static int keep_changing;
static int holds_trace; /* atomic: the thread holds TRACE, no longer changing */

static void *change_own_threshold(void *unused)
{
    (void)unused;
    while (__atomic_load_n(&keep_changing, __ATOMIC_ACQUIRE)) {
        xlog_thread_level(XLOG_TRACE);
        xlog_thread_level(XLOG_LEVEL_PROCESS);
    }
    xlog_thread_level(XLOG_TRACE); /* held at the last forks */
    __atomic_store_n(&holds_trace, 1, __ATOMIC_RELEASE);
    while (__atomic_load_n(&keep_changing, __ATOMIC_ACQUIRE) == 0)
        usleep(100);
    xlog_thread_level(XLOG_LEVEL_PROCESS);
    return NULL;
}

static void fork_before_xlog_open_while_a_thread_changes_its_threshold(void **state)
{
    (void)state;
    SKIP_IF_SANITIZER_CANNOT_FORK();
    __atomic_store_n(&keep_changing, 1, __ATOMIC_RELEASE);
    pthread_t t;
    pthread_create(&t, NULL, change_own_threshold, NULL);
    for (int i = 0; i < 40; i++) {
        if (i == 30) {
            /* Wait until the thread holds TRACE: on a busy machine it may
             * not run for a while, and had it not seen keep_changing at 0
             * before the 2 of the end, it changed its threshold forever
             * and the join below hung (seen: 1 run in 5, other core busy). */
            __atomic_store_n(&keep_changing, 0, __ATOMIC_RELEASE);
            while (!__atomic_load_n(&holds_trace, __ATOMIC_ACQUIRE))
                usleep(100);
        }
        pid_t child = fork();
        if (child == 0) {
            alarm(10);
            xlog_set_level(XLOG_WARN);
            _exit(xlog_impl_floor == XLOG_WARN ? 0 : 1);
        }
        int status;
        assert_int_equal(waitpid(child, &status, 0), child);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            fail_msg("fork %d: the child %s", i,
                     WIFSIGNALED(status) ? "hung (killed by its alarm)" : "kept a wrong floor");
    }
    __atomic_store_n(&keep_changing, 2, __ATOMIC_RELEASE);
    pthread_join(t, NULL);
    xlog_set_level(XLOG_INFO);
}

static void filter_strings_are_checked_whole_with_the_place_of_the_mistake(void **state)
{
    (void)state;
    assert_int_equal(xlog_set_filter("warn,net=debug"), 0);
    static const struct {
        const char *filter;
        const char *message;
    } bad[] = {
        {"warn,net=loud", "filter=\"warn,net=loud\": \"loud\" at column 10 is not a level"},
        {",warn", "filter=\",warn\": empty item at column 1"},
        {"warn,", "filter=\"warn,\": empty item at column 6"},
        {"warn,=debug", "filter=\"warn,=debug\": \"\" at column 6 is not a module name"},
        {"net..tls=debug", "filter=\"net..tls=debug\": \"net..tls\" at column 1 is not a module "
                           "name"},
        {"verbose", "filter=\"verbose\": \"verbose\" at column 1 is not a level"},
        {"info,storage=debug,x y=info", "\"x y\" at column 20 is not a module name"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(xlog_set_filter(bad[i].filter), -EINVAL);
        if (!strstr(xlog_last_error(), bad[i].message))
            fail_msg("%s: got \"%s\"", bad[i].filter, xlog_last_error());
        /* Nothing was applied: the rules before stay. */
        assert_int_equal(xlog_get_level(), XLOG_WARN);
        assert_true(xlog_module_enabled("net", XLOG_DEBUG));
        assert_false(xlog_module_enabled("storage", XLOG_DEBUG));
    }
    /* A long filter: the message quotes its start and still gives the reason
     * and the place. */
    char many[2048] = "info";
    for (int i = 0; i < 65; i++)
        snprintf(many + strlen(many), sizeof many - strlen(many), ",module%d=debug", i);
    assert_int_equal(xlog_set_filter(many), -EINVAL);
    assert_non_null(strstr(xlog_last_error(), "...\": more than 64 module rules"));
    char loud[600];
    memset(loud, 'a', 500);
    strcpy(loud + 500, "=debug,net=loud");
    assert_int_equal(xlog_set_filter(loud), -EINVAL);
    assert_non_null(strstr(xlog_last_error(), "at column 1 is not a module name"));
    assert_non_null(strstr(xlog_last_error(), "at most 63 bytes"));
    strcpy(loud, "warn,net=");
    memset(loud + 9, 'x', 500);
    loud[509] = '\0';
    assert_int_equal(xlog_set_filter(loud), -EINVAL);
    assert_non_null(strstr(xlog_last_error(), "at column 10 is not a level"));
    assert_int_equal(xlog_get_level(), XLOG_WARN);
    assert_int_equal(xlog_set_filter(NULL), -EINVAL);
    assert_int_equal(xlog_set_filter("Warning,NET=Debug"), 0); /* any case */
    assert_int_equal(xlog_get_level(), XLOG_WARN);
    assert_true(xlog_module_enabled("NET", XLOG_DEBUG));
    xlog_set_filter("info");
}

static void environment_filter_applies_at_open_and_is_refused_whole(void **state)
{
    (void)state;
    char *dir = test_make_dir("envfilter");
    xlog_config cfg = xlog_defaults();
    cfg.dir = dir;
    setenv("XLOG_LEVEL", "error,net=trace", 1);
    assert_int_equal(xlog_open(&cfg), 0);
    assert_int_equal(xlog_get_level(), XLOG_ERROR);
    assert_true(xlog_module_enabled("net.tls", XLOG_TRACE));
    assert_int_equal(xlog_close(), 0);
    setenv("XLOG_LEVEL", "debug", 1); /* one word, as before */
    assert_int_equal(xlog_open(&cfg), 0);
    assert_int_equal(xlog_get_level(), XLOG_DEBUG);
    assert_int_equal(xlog_close(), 0);
    setenv("XLOG_LEVEL", "info,net=", 1);
    assert_int_equal(xlog_open(&cfg), -EINVAL);
    assert_non_null(strstr(xlog_last_error(), "XLOG_LEVEL=\"info,net=\": \"\" at column 10 is "
                                              "not a level"));
    unsetenv("XLOG_LEVEL");
    test_drop_dir(dir);
    xlog_set_filter("info");
}

/* What xlog.h promises: blanks around items and around '=' are not part of
 * them, and syslog's spellings "warning" and "err" are levels, in any case;
 * XLOG_LEVEL is read the same way. */
static void blanks_around_items_and_equals_and_level_aliases_are_accepted(void **state)
{
    (void)state;
    setenv("XLOG_LEVEL", "WARNING, net.tls = TRACE", 1);
    char *dir = test_make_dir("blanks");
    xlog_config cfg = xlog_defaults();
    cfg.dir = dir;
    cfg.persistent = 0; /* not the shared /dev/shm default */
    assert_int_equal(xlog_open(&cfg), 0);
    unsetenv("XLOG_LEVEL");
    assert_int_equal(xlog_get_level(), XLOG_WARN);
    for (int level = XLOG_TRACE; level <= XLOG_FATAL; level++)
        log_everywhere(level, level);
    assert_int_equal(xlog_close(), 0);
    char *text = test_read_dir(dir, NULL);
    test_drop_dir(dir);
    expect_levels(text, "net.tls", XLOG_TRACE);
    expect_levels(text, "net", XLOG_WARN);
    expect_levels(text, "network", XLOG_WARN);
    expect_levels(text, "storage", XLOG_WARN);
    expect_levels(text, "none", XLOG_WARN);
    /* net.tls: 6 levels; net, network, storage and none: WARN, ERROR, FATAL. */
    assert_int_equal(test_count_lines(text), 6 + 4 * 3);
    free(text);

    assert_int_equal(xlog_set_filter(" err ,\tnet\t=\tDebug , storage= Err"), 0);
    assert_int_equal(xlog_get_level(), XLOG_ERROR);
    assert_true(xlog_module_enabled("net", XLOG_DEBUG));
    assert_false(xlog_module_enabled("net", XLOG_TRACE));
    assert_true(xlog_module_enabled("storage", XLOG_ERROR));
    assert_false(xlog_module_enabled("storage", XLOG_WARN));
    assert_false(xlog_module_enabled("network", XLOG_WARN));

    assert_int_equal(xlog_set_filter("warn , net = loud"), -EINVAL);
    assert_string_equal(xlog_last_error(),
                        "filter=\"warn , net = loud\": \"loud\" at column 14 is not a level "
                        "(trace, debug, info, warn or warning, error or err, fatal or off)");
    assert_int_equal(xlog_set_filter("warn, n et = info"), -EINVAL);
    assert_string_equal(xlog_last_error(),
                        "filter=\"warn, n et = info\": \"n et\" at column 7 is not a module name "
                        "(letters, digits, '_', '-' and dots between them, at most 63 bytes)");
    assert_int_equal(xlog_get_level(), XLOG_ERROR); /* nothing changed */
    xlog_set_filter("info");
}

/* ---- rate limits ---------------------------------------------------------- */

static int64_t fake_ns;
static int64_t fake_clock(void)
{
    return __atomic_load_n(&fake_ns, __ATOMIC_RELAXED);
}

/* One call site for every call of the timed case (limits are per site). */
static void timed(int i)
{
    xlog_error_every_ms(1000, "timed %d", i);
}

static void rate_limits_count_what_they_suppress(void **state)
{
    (void)state;
    fake_ns = (int64_t)1800000000 * 1000000000;
    xlog_config cfg = xlog_defaults();
    cfg.wall_clock_ns = fake_clock;
    char *dir = open_in("rate", cfg);
    int evaluated = 0;
    for (int i = 0; i < 1000; i++)
        xlog_warn_every_n(100, "every hundredth %d", i);
    for (int i = 0; i < 10; i++)
        XLOG_EVERY_N(XLOG_DEBUG, 2, "disabled %d", ++evaluated); /* below INFO: not counted */
    for (int i = 0; i < 5; i++)
        timed(i);
    fake_ns += 999000000; /* not yet a second */
    timed(5);
    fake_ns += 1000000;
    timed(6);
    for (int i = 7; i < 10; i++)
        timed(i);
    fake_ns += 5000000000;
    timed(10);
    char *text = close_and_read(dir);
    assert_int_equal(evaluated, 0); /* arguments of a disabled call are not evaluated */
    assert_true(has(text, "WARN", "every hundredth 0"));
    for (int i = 100; i < 1000; i += 100) {
        char message[64];
        snprintf(message, sizeof message, "every hundredth %d (99 more suppressed)", i);
        assert_true(has(text, "WARN", message));
    }
    assert_int_equal(test_count_lines(text), 10 + 3);
    assert_true(has(text, "ERROR", "timed 0"));
    assert_true(has(text, "ERROR", "timed 6 (5 more suppressed)"));
    assert_true(has(text, "ERROR", "timed 10 (3 more suppressed)"));
    free(text);
}

/* One call site for the cut rated messages. */
static void rated_long(const char *text)
{
    xlog_warn_every_n(2, "%s", text);
}

/* A rated message is cut to leave room for its count: the mark stays, and
 * the count follows it; one that fits max_message only without its count is
 * cut and marked too, not cut silently. */
static void a_rated_message_cut_at_max_message_keeps_its_mark_and_its_count(void **state)
{
    (void)state;
    xlog_config cfg = xlog_defaults();
    cfg.max_message = 256;
    char *dir = open_in("ratedcut", cfg);
    char longer[400], fitting[251];
    memset(longer, 'a', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    memset(fitting, 'b', sizeof fitting - 1);
    fitting[sizeof fitting - 1] = '\0';
    rated_long(longer);  /* written */
    rated_long(longer);  /* suppressed */
    rated_long(longer);  /* written, 1 suppressed */
    rated_long(fitting); /* suppressed */
    rated_long(fitting); /* written, 1 suppressed */
    char *text = close_and_read(dir);
    static const char count[] = " (1 more suppressed)";
    size_t body = 256 - (sizeof XLOG_TRUNCATED_MARK - 1) - (sizeof count - 1);
    char expected[2][300];
    snprintf(expected[0], sizeof expected[0], "%.*s%s%s", (int)body, longer, XLOG_TRUNCATED_MARK, count);
    snprintf(expected[1], sizeof expected[1], "%.*s%s%s", (int)body, fitting, XLOG_TRUNCATED_MARK, count);
    assert_int_equal(strlen(expected[0]), 256);
    char first[300];
    snprintf(first, sizeof first, "%.*s%s", (int)(256 - (sizeof XLOG_TRUNCATED_MARK - 1)), longer,
             XLOG_TRUNCATED_MARK);
    assert_true(has(text, "WARN", first));
    assert_true(has(text, "WARN", expected[0]));
    assert_true(has(text, "WARN", expected[1]));
    assert_int_equal(test_count_lines(text), 3);
    free(text);
}

/* ---- backtraces ------------------------------------------------------------- */

typedef struct request {
    int id;
    int fail;
} request;

static void *serve(void *p)
{
    const request *r = p;
    for (int step = 1; step <= 5; step++)
        xlog_debug("request %d step %d", r->id, step);
    xlog_trace("request %d trace", r->id);
    if (r->fail)
        xlog_error("request %d failed", r->id);
    else
        xlog_info("request %d done", r->id);
    return NULL;
}

/* The DEBUG and TRACE lines before an ERROR are written with it, marked, in
 * their order, and only the failing thread's (at most backtrace_lines). */
static void backtrace_writes_the_lines_before_an_error_of_that_thread(void **state)
{
    (void)state;
    xlog_config cfg = xlog_defaults();
    cfg.backtrace_lines = 3;
    cfg.backtrace_level = XLOG_DEBUG;
    char *dir = open_in("backtrace", cfg);
    request ok = {1, 0}, failing = {2, 1};
    pthread_t a, b;
    pthread_create(&a, NULL, serve, &ok);
    pthread_create(&b, NULL, serve, &failing);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    char *text = close_and_read(dir);
    const char *four = strstr(text, " [backtrace] request 2 step 3\n");
    assert_non_null(four);
    const char *five = strstr(text, " [backtrace] request 2 step 4\n");
    const char *six = strstr(text, " [backtrace] request 2 step 5\n");
    const char *error = strstr(text, "[ERROR] ");
    assert_true(four < five && five && five < six && six && six < error && error);
    test_line line;
    const char *error_line = strchr(six, '\n') + 1; /* whole: not a "[backtrace] " left there */
    assert_true(test_parse_line(error_line, strcspn(error_line, "\n"), &line));
    assert_string_equal(line.level, "ERROR");
    assert_memory_equal(line.message, "request 2 failed\n", line.message_len + 1);
    assert_null(strstr(text, "request 2 step 2\n")); /* only the last three */
    assert_null(strstr(text, "request 2 trace"));   /* below backtrace_level */
    assert_null(strstr(text, "request 1 step"));    /* no error in thread 1 */
    assert_true(has(text, "DEBUG", "[backtrace] request 2 step 3"));
    assert_int_equal(test_count_lines(text), 1 + 3 + 1);
    free(text);
}

/* What a custom sink with the JSON layout saw of one message. */
typedef struct seen_event {
    int level, line, tid;
    size_t message_length;
    char message[128];
    size_t json_length;
    char json[1024];
} seen_event;

typedef struct seen_events {
    int count;
    seen_event events[8];
} seen_events;

/* Copies n bytes into a buffer of size bytes, cut to fit, NUL-terminated;
 * returns n, so that a cut copy is told by its length. */
static size_t copy_seen(char *to, size_t size, const char *from, size_t n)
{
    size_t kept = n < size - 1 ? n : size - 1;
    memcpy(to, from, kept);
    to[kept] = '\0';
    return n;
}

static void see_event(void *context, const xlog_event *event, const char *bytes, size_t length)
{
    seen_events *seen = context;
    if (seen->count++ >= (int)(sizeof seen->events / sizeof seen->events[0]))
        return; /* counted: the test expects fewer */
    seen_event *e = &seen->events[seen->count - 1];
    e->level = event->level;
    e->line = event->line;
    e->tid = event->tid;
    e->message_length = copy_seen(e->message, sizeof e->message, event->message,
                                  event->message_length);
    e->json_length = copy_seen(e->json, sizeof e->json, bytes, length);
}

/* The ERROR that replays a backtrace is written with its own message, longer
 * than the kept ones: the replay used to build the kept lines in the buffer
 * the ERROR's message had been rendered in, and the ERROR was then written
 * as "[backtrace] debug step 5\0ger message 42".  Every line is compared
 * whole, in the file, in a custom sink's event and in its JSON line. */
static void an_error_that_replays_a_backtrace_keeps_its_own_message(void **state)
{
    (void)state;
    seen_events seen = {0};
    xlog_custom_sink sink = xlog_custom_sink_defaults();
    sink.sink.layout = XLOG_LAYOUT_JSON;
    sink.context = &seen;
    sink.write = see_event;
    const xlog_sink_config *sinks[] = {&sink.sink, NULL};
    xlog_config cfg = xlog_defaults();
    cfg.backtrace_lines = 4;
    cfg.backtrace_level = XLOG_DEBUG;
    cfg.sinks = sinks;
    char *dir = open_in("errorkept", cfg);
    int debug_line = __LINE__ + 2;
    for (int i = 0; i < 6; i++)
        xlog_debug("debug step %d", i);
    int error_line = __LINE__ + 1;
    xlog_error("error happened with a longer message %d", 42);
    char *text = close_and_read(dir);

    static const char *const messages[5] = {
        "[backtrace] debug step 2", "[backtrace] debug step 3", "[backtrace] debug step 4",
        "[backtrace] debug step 5", "error happened with a longer message 42"};
    int tid = (int)syscall(SYS_gettid);
    assert_int_equal(test_count_lines(text), 5);
    assert_int_equal(seen.count, 5);
    const char *at = text;
    for (int i = 0; i < 5; i++) {
        int error = i == 4;
        int level = error ? XLOG_ERROR : XLOG_DEBUG;
        int source_line = error ? error_line : debug_line;
        char expected[1024];

        /* The file: only the time is taken from the line itself. */
        size_t length = strcspn(at, "\n");
        assert_true(length > 29);
        snprintf(expected, sizeof expected, "%.29s [%s] test_filters.c:%d %s %d %s", at,
                 level_names[level], source_line, __func__, tid, messages[i]);
        assert_int_equal(length, strlen(expected));
        assert_memory_equal(at, expected, length);
        at += length + 1;

        /* The custom sink's event. */
        const seen_event *e = &seen.events[i];
        assert_int_equal(e->level, level);
        assert_int_equal(e->line, source_line);
        assert_int_equal(e->tid, tid);
        assert_int_equal(e->message_length, strlen(messages[i]));
        assert_string_equal(e->message, messages[i]);

        /* Its JSON line: only the timestamp is taken from the line itself. */
        static const char head[] = "{\"timestamp\":\"";
        assert_true(e->json_length < sizeof e->json);
        assert_memory_equal(e->json, head, sizeof head - 1);
        const char *timestamp = e->json + sizeof head - 1;
        snprintf(expected, sizeof expected,
                 "%s%.*s\",\"severity_text\":\"%s\",\"severity_number\":%d,\"body\":\"%s\","
                 "\"attributes\":{\"code.filepath\":\"%s\",\"code.lineno\":%d,"
                 "\"code.function\":\"%s\",\"thread.id\":%d,"
                 /* the thread never named itself: its program's name */
                 "\"thread.name\":\"test_filters\",\"process.pid\":%d}}\n",
                 head, (int)strcspn(timestamp, "\""), timestamp, level_names[level],
                 error ? 17 : 5, messages[i], __FILE__, source_line, __func__, tid,
                 (int)getpid());
        assert_string_equal(e->json, expected);
    }
    free(text);
}

static void dumped_backtrace_is_written_on_request(void **state)
{
    (void)state;
    xlog_config cfg = xlog_defaults();
    cfg.backtrace_lines = 10;
    char *dir = open_in("dump", cfg);
    xlog_debug("kept %d", 1);
    xlog_trace("kept %d", 2);
    xlog_info("written %d", 3);
    xlog_dump_backtrace();
    xlog_dump_backtrace(); /* nothing left to write */
    char *text = close_and_read(dir);
    const char *written = strstr(text, "written 3\n");
    const char *first = strstr(text, "[backtrace] kept 1\n");
    const char *second = strstr(text, "[backtrace] kept 2\n");
    assert_true(written && first && second && written < first && first < second);
    assert_int_equal(test_count_lines(text), 3);
    free(text);
}

/* ---- flushing on level ------------------------------------------------------ */

static int file_has(const char *dir, const char *needle)
{
    char *text = test_read_dir(dir, NULL);
    int found = strstr(text, needle) != NULL;
    free(text);
    return found;
}

static void an_error_is_in_the_file_without_waiting_for_a_flush(void **state)
{
    (void)state;
    xlog_config cfg = xlog_defaults();
    cfg.flush_interval_ms = 3600000; /* buffers would wait an hour */
    cfg.flush_level = XLOG_ERROR;
    cfg.sync_level = XLOG_FATAL;
    char *dir = open_in("flushlevel", cfg);
    xlog_info("before the error");
    xlog_error("the error");
    /* The back end takes it at its next pass: wait for it, without asking. */
    int seen = 0;
    for (int i = 0; i < 1000 && !seen; i++) {
        seen = file_has(dir, " the error\n");
        struct timespec pause = {0, 10000000};
        nanosleep(&pause, NULL);
    }
    assert_true(seen);
    assert_true(file_has(dir, " before the error\n"));
    xlog_warn("after the error");
    struct timespec pause = {0, 100000000};
    nanosleep(&pause, NULL);
    assert_false(file_has(dir, " after the error\n")); /* buffered, as usual */
    xlog_fatal("durable");
    for (int i = 0; i < 1000 && !file_has(dir, " durable\n"); i++)
        nanosleep(&pause, NULL);
    assert_true(file_has(dir, " after the error\n"));
    free(close_and_read(dir));
}

/* ---- rules changed while threads read them ---------------------------------- */

/* Two filters whose mix is told from both: under either, "alpha" lets WARN
 * through and "beta" ERROR, and neither lets TRACE through.  A reader that
 * mixed one filter's module name with the other's level (alpha at error,
 * beta at warn... or the process level at trace) would break that. */
static const char *const flipping_filters[2] = {"warn,alpha=debug", "trace,beta=error,alpha=warn"};
static int stop_flipping;

static long flips;

static void *flip_filters(void *unused)
{
    (void)unused;
    for (unsigned i = 0; !__atomic_load_n(&stop_flipping, __ATOMIC_RELAXED); i++) {
        if (xlog_set_filter(flipping_filters[i % 2]) != 0)
            fail_msg("xlog_set_filter: %s", xlog_last_error());
        __atomic_add_fetch(&flips, 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

static void *read_rules(void *failures)
{
    int rounds = test_scaled(200000);
    /* On a busy machine the readers could finish before the flipper ran
     * at all (1 run in 4 under ASan at scale 0.1): read while it does. */
    while (!__atomic_load_n(&flips, __ATOMIC_RELAXED))
        sched_yield();
    for (int i = 0; i < rounds; i++) {
        int torn = !xlog_module_enabled("alpha", XLOG_WARN) ||
                   !xlog_module_enabled("beta.x", XLOG_ERROR) ||
                   xlog_module_enabled("alpha.x", XLOG_TRACE);
        if (torn)
            __atomic_add_fetch((int *)failures, 1, __ATOMIC_RELAXED);
        xlog_debug("reader line %d", i); /* the call site's cache is refreshed under fire */
    }
    return NULL;
}

static void rules_changed_while_threads_read_them_are_never_torn(void **state)
{
    (void)state;
    char *dir = open_in("flip", xlog_defaults());
    int failures = 0;
    pthread_t flipper, readers[2];
    __atomic_store_n(&stop_flipping, 0, __ATOMIC_RELAXED);
    pthread_create(&flipper, NULL, flip_filters, NULL);
    for (int i = 0; i < 2; i++)
        pthread_create(&readers[i], NULL, read_rules, &failures);
    for (int i = 0; i < 2; i++)
        pthread_join(readers[i], NULL);
    long flips_while_read = __atomic_load_n(&flips, __ATOMIC_RELAXED);
    __atomic_store_n(&stop_flipping, 1, __ATOMIC_RELAXED);
    pthread_join(flipper, NULL);
    assert_true(flips_while_read > 0); /* the rules did change under the readers */
    assert_int_equal(failures, 0);
    /* The last filter is the one in force, for every call site. */
    assert_int_equal(xlog_set_filter("warn,alpha=debug"), 0);
    xlog_debug("not written");
    xlog_warn("written");
    char *text = close_and_read(dir);
    assert_false(strstr(text, " not written\n"));
    assert_true(has(text, "WARN", "written"));
    free(text);
}

static int reset_filter(void **state)
{
    (void)state;
    xlog_close();
    xlog_set_filter("info");
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fork_before_xlog_open_while_a_thread_changes_its_threshold),
        cmocka_unit_test_teardown(module_rules_match_prefixes_and_the_most_specific_wins,
                                  reset_filter),
        cmocka_unit_test_teardown(module_level_changes_at_run_time, reset_filter),
        cmocka_unit_test_teardown(thread_override_wins_over_module_rules, reset_filter),
        cmocka_unit_test_teardown(a_threads_own_threshold_moves_the_floor_only_while_it_has_it,
                                  reset_filter),
        cmocka_unit_test_teardown(a_threshold_dropped_again_by_a_later_destructor_counts_once,
                                  reset_filter),
        cmocka_unit_test_teardown(filter_strings_are_checked_whole_with_the_place_of_the_mistake,
                                  reset_filter),
        cmocka_unit_test_teardown(environment_filter_applies_at_open_and_is_refused_whole,
                                  reset_filter),
        cmocka_unit_test_teardown(blanks_around_items_and_equals_and_level_aliases_are_accepted,
                                  reset_filter),
        cmocka_unit_test_teardown(rate_limits_count_what_they_suppress, reset_filter),
        cmocka_unit_test_teardown(a_rated_message_cut_at_max_message_keeps_its_mark_and_its_count, reset_filter),
        cmocka_unit_test_teardown(backtrace_writes_the_lines_before_an_error_of_that_thread,
                                  reset_filter),
        cmocka_unit_test_teardown(an_error_that_replays_a_backtrace_keeps_its_own_message,
                                  reset_filter),
        cmocka_unit_test_teardown(dumped_backtrace_is_written_on_request, reset_filter),
        cmocka_unit_test_teardown(an_error_is_in_the_file_without_waiting_for_a_flush,
                                  reset_filter),
        cmocka_unit_test_teardown(rules_changed_while_threads_read_them_are_never_torn,
                                  reset_filter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
