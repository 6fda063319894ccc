/*
 * test_reliability.c - nothing lost when the program dies or forks: a
 * crash by each fatal signal (also with threads logging, with the
 * program's own handler, and one that recovers with siglongjmp), exit
 * without xlog_close, lines logged by exit handlers and destructors,
 * quick_exit, fork while threads log and from a thread that logged, and
 * threads that end during xlog_close.  The cases that die run in a child
 * process, and the parent checks the files and how the child ended.
 *
 * (A file that cannot grow and a link in place of the file are the file
 * output's cases: test_outputs.c.)
 */
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <cmocka.h>

#include <xlog.h>

#define THREADS 4

/* The children here end by crashing or exiting on purpose: under the
 * sanitizers what such a child leaves behind (memory, threads) is not a leak.
 * Leaks are checked by the other test programs. */
__attribute__((used)) const char *__asan_default_options(void)
{
    return "detect_leaks=0";
}
__attribute__((used)) const char *__tsan_default_options(void)
{
    return "report_thread_leaks=0";
}

static long per_thread;

static void open_or_die(const char *dir)
{
    xlog_config cfg = test_config_in(dir);
    if (xlog_open(&cfg) != 0)
        _exit(90);
}

static void *log_lines(void *arg)
{
    long id = (long)arg;
    for (long i = 0; i < per_thread; i++)
        xlog_info("t%ld seq %ld", id, i);
    return NULL;
}

static void log_from_threads(void)
{
    pthread_t t[THREADS];
    for (long i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, log_lines, (void *)i);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
}

/* Checks that each thread's lines form a gap-free sequence from 0; returns
 * the total, and whether the last line is the crash line for sig. */
static long count_sequences(const char *text, long *per, int sig, int *crash_line_last)
{
    long total = 0;
    for (int i = 0; i < THREADS; i++)
        per[i] = 0;
    *crash_line_last = 0;
    char expect[64];
    snprintf(expect, sizeof expect, "(signal %d)", sig);
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        assert_non_null(nl);
        test_line l;
        if (!test_parse_line(p, (size_t)(nl - p), &l))
            fail_msg("bad line: %.*s", (int)(nl - p), p);
        long id, seq;
        *crash_line_last = 0;
        char msg[256];
        if (sscanf(test_message(&l, msg, sizeof msg), "t%ld seq %ld", &id, &seq) == 2) {
            assert_true(id >= 0 && id < THREADS);
            assert_int_equal(seq, per[id]);
            per[id]++;
            total++;
        } else if (memmem(l.message, l.message_len, expect, strlen(expect))) {
            assert_string_equal(l.level, "FATAL");
            *crash_line_last = 1;
        } else {
            fail_msg("unexpected line: %.*s", (int)(nl - p), p);
        }
        p = nl + 1;
    }
    return total;
}

/* A crashing child: no core file, and the default actions (the test
 * framework's own handlers would otherwise carry on with the next test). */
static void prepare_crashing_child(void)
{
    struct rlimit none = {0, 0};
    setrlimit(RLIMIT_CORE, &none);
    const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        signal(sigs[i], SIG_DFL);
}

static volatile uintptr_t unmapped_address = 8;

/* A real fault for each signal (UBSan would stop the division first). */
__attribute__((no_sanitize("undefined"))) static void crash_by(int sig)
{
    switch (sig) {
    case SIGSEGV:
        *(volatile int *)unmapped_address = 1;
        break;
    case SIGFPE: {
        volatile int zero = 0;
        volatile int r = 1 / zero;
        (void)r;
        break;
    }
    case SIGILL:
        __builtin_trap();
    case SIGABRT:
        abort();
    case SIGBUS: {
        /* A page of a file beyond its end. */
        FILE *f = tmpfile();
        char *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fileno(f), 0);
        page[0] = 1;
        break;
    }
    }
    raise(sig); /* in case the CPU did not fault as expected */
}

static void every_line_survives(int sig)
{
    per_thread = test_scaled(25000);
    char *dir = test_make_dir("crash");
    pid_t child = fork();
    if (child == 0) {
        prepare_crashing_child();
        open_or_die(dir);
        log_from_threads();
        if (sig == 0)
            exit(3); /* exit without xlog_close */
        crash_by(sig);
        _exit(91);
    }
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    if (sig == 0) {
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 3);
    } else {
        assert_true(WIFSIGNALED(status));
        assert_int_equal(WTERMSIG(status), sig);
    }
    char *text = test_read_dir(dir, NULL);
    long per[THREADS];
    int crash_last;
    long total = count_sequences(text, per, sig, &crash_last);
    assert_int_equal(total, THREADS * per_thread);
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(per[i], per_thread);
    assert_int_equal(test_count_lines(text), (size_t)(total + (sig != 0)));
    if (sig)
        assert_true(crash_last);
    free(text);
    test_drop_dir(dir);
}

static void crash_sigsegv(void **s) { (void)s; every_line_survives(SIGSEGV); }
static void crash_sigbus(void **s) { (void)s; every_line_survives(SIGBUS); }
static void crash_sigfpe(void **s) { (void)s; every_line_survives(SIGFPE); }
static void crash_sigill(void **s) { (void)s; every_line_survives(SIGILL); }
static void crash_sigabrt(void **s) { (void)s; every_line_survives(SIGABRT); }
static void exit_without_close(void **s) { (void)s; every_line_survives(0); }

/* The program's own handler still runs after xlog's. */
static volatile sig_atomic_t own_handler_ran;
static void own_handler(int sig)
{
    (void)sig;
    own_handler_ran = 1;
    _exit(42);
}

static void crash_chains_to_the_programs_handler(void **state)
{
    (void)state;
    char *dir = test_make_dir("chain");
    pid_t child = fork();
    if (child == 0) {
        prepare_crashing_child();
        signal(SIGSEGV, own_handler);
        open_or_die(dir);
        xlog_info("before the crash");
        crash_by(SIGSEGV);
        _exit(91);
    }
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 42);
    char *text = test_read_dir(dir, NULL);
    assert_non_null(strstr(text, " before the crash\n"));
    assert_non_null(strstr(text, "caught SIGSEGV (signal 11)"));
    free(text);
    test_drop_dir(dir);
}

/* A program whose own handler recovers from the fault (here by jumping
 * away) goes on logging, and everything is written at its exit. */
static sigjmp_buf recover_point;
static void recovering_handler(int sig)
{
    (void)sig;
    siglongjmp(recover_point, 1);
}

static void program_that_recovers_keeps_logging(void **state)
{
    (void)state;
    char *dir = test_make_dir("recover");
    pid_t child = fork();
    if (child == 0) {
        prepare_crashing_child();
        signal(SIGSEGV, recovering_handler);
        open_or_die(dir);
        xlog_info("before the first fault");
        if (sigsetjmp(recover_point, 1) == 0)
            crash_by(SIGSEGV);
        for (int i = 0; i < 1000; i++)
            xlog_info("after recovering %d", i);
        exit(0);
    }
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    char *text = test_read_dir(dir, NULL);
    const char *first = strstr(text, " before the first fault\n");
    const char *caught = strstr(text, "caught SIGSEGV");
    const char *after = strstr(text, " after recovering 0\n");
    assert_non_null(first);
    assert_non_null(caught);
    assert_non_null(after);
    assert_true(first < caught && caught < after);
    assert_non_null(strstr(after, " after recovering 999\n"));
    assert_int_equal(test_count_lines(text), 1002);
    free(text);
    test_drop_dir(dir);
}

/* A crash while other threads are still logging: each thread's lines are a
 * gap-free prefix of what it logged, and the crash line comes last. */
static void *log_forever(void *arg)
{
    long id = (long)arg;
    for (long i = 0;; i++)
        xlog_info("t%ld seq %ld", id, i);
    return NULL;
}

static void crash_while_threads_log(void **state)
{
    (void)state;
    char *dir = test_make_dir("busycrash");
    pid_t child = fork();
    if (child == 0) {
        prepare_crashing_child();
        open_or_die(dir);
        pthread_t t[THREADS - 1];
        for (long i = 0; i < THREADS - 1; i++)
            pthread_create(&t[i], NULL, log_forever, (void *)i);
        for (long i = 0; i < 20000; i++)
            xlog_info("t%d seq %ld", THREADS - 1, i);
        crash_by(SIGSEGV);
        _exit(91);
    }
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGSEGV);
    char *text = test_read_dir(dir, NULL);
    long per[THREADS];
    int crash_last;
    count_sequences(text, per, SIGSEGV, &crash_last);
    assert_int_equal(per[THREADS - 1], 20000); /* everything the crashing thread logged */
    assert_true(crash_last);
    free(text);
    test_drop_dir(dir);
}

/* ---- fork ------------------------------------------------------------------- */

static int keep_logging;

static void *log_until_told(void *arg)
{
    long id = (long)arg, i = 0;
    while (__atomic_load_n(&keep_logging, __ATOMIC_RELAXED)) {
        xlog_info("t%ld seq %ld", id, i++);
        if (i % 16 == 0) { /* steady logging, without filling the disk */
            struct timespec pause = {0, 100000};
            nanosleep(&pause, NULL);
        }
    }
    return (void *)i;
}

/* 100 children forked while 4 threads log into one shared file, each child
 * logging 100 lines and ending by exit(): every parent line is in the file
 * once and in order, and every child's 100 lines are there too (the child's
 * exit hook writes them; it never writes the parent's). */
static void fork_while_threads_log_to_one_file_loses_no_line(void **state)
{
    (void)state;
    SKIP_IF_SANITIZER_CANNOT_FORK();
    char *dir = test_make_dir("fork");
    xlog_config cfg = test_config_in(dir);
    assert_int_equal(xlog_open(&cfg), 0);
    __atomic_store_n(&keep_logging, 1, __ATOMIC_RELAXED);
    pthread_t t[THREADS];
    for (long i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, log_until_told, (void *)i);
    const int children = 100, child_lines = 100;
    for (int c = 0; c < children; c++) {
        pid_t child = fork();
        if (child == 0) {
            alarm(60); /* a safety net against a hang, not a timing check */
            for (int i = 0; i < child_lines; i++)
                xlog_info("child %d line %d", c, i);
            exit(0); /* the atexit hook writes everything */
        }
        int status;
        assert_int_equal(waitpid(child, &status, 0), child);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            fail_msg("child %d: %s %d", c, WIFEXITED(status) ? "exit" : "signal",
                     WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    }
    __atomic_store_n(&keep_logging, 0, __ATOMIC_RELAXED);
    long logged[THREADS];
    for (int i = 0; i < THREADS; i++) {
        void *n;
        pthread_join(t[i], &n);
        logged[i] = (long)n;
    }
    assert_int_equal(xlog_close(), 0);

    char *text = test_read_dir(dir, NULL);
    long seen[THREADS] = {0};
    int child_seen[100][2] = {{0}}; /* lines, next expected */
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        test_line l;
        if (!test_parse_line(p, (size_t)(nl - p), &l))
            fail_msg("bad line: %.*s", (int)(nl - p), p);
        long id, seq;
        int c, i;
        char msg[256];
        test_message(&l, msg, sizeof msg);
        if (sscanf(msg, "t%ld seq %ld", &id, &seq) == 2) {
            assert_int_equal(seq, seen[id]);
            seen[id]++;
        } else if (sscanf(msg, "child %d line %d", &c, &i) == 2) {
            assert_int_equal(i, child_seen[c][1]);
            child_seen[c][1]++;
            child_seen[c][0]++;
        } else {
            fail_msg("unexpected line: %.*s", (int)(nl - p), p);
        }
        p = nl + 1;
    }
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(seen[i], logged[i]); /* the parent lost nothing, and no child wrote its lines */
    for (int c = 0; c < children; c++)
        assert_int_equal(child_seen[c][0], child_lines);
    free(text);
    test_drop_dir(dir);
}

/* The thread that forks has logged (so it has a ring, which the child must
 * neither use nor free twice); the child logs and closes, the parent goes
 * on. */
static void fork_from_a_thread_that_logged(void **state)
{
    (void)state;
    /* The back end runs while the test forks: TSan's runtime cannot start
     * a thread (the child's back end) after such a fork, and ASan's
     * allocator lock, held by the parent's back end inside malloc at the
     * fork, stays locked in the child (the child's back end hung in calloc
     * in a CI run of c2af3a7); glibc's malloc is safe across fork, so the
     * plain build runs this. */
    SKIP_IF_SANITIZER_CANNOT_FORK();
    char *dir = test_make_dir("forklogged");
    open_or_die(dir);
    xlog_info("parent before fork");
    pid_t child = fork();
    if (child == 0) {
        xlog_info("child %d", 1);
        _exit(xlog_close() == 0 ? 0 : 1);
    }
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    xlog_info("parent after fork");
    assert_int_equal(xlog_close(), 0);
    /* Each line once, whole, from the thread that logged it (the two
     * processes share the file, so their lines may come in either order). */
    static const char *const messages[] = {"parent before fork", "child 1", "parent after fork"};
    int seen[3] = {0, 0, 0};
    char *text = test_read_dir(dir, NULL);
    assert_int_equal(test_count_lines(text), 3);
    for (const char *at = text; *at;) {
        const char *nl = strchr(at, '\n');
        test_line l;
        assert_true(nl && test_parse_line(at, (size_t)(nl - at), &l));
        int which = -1;
        for (int i = 0; i < 3; i++)
            if (l.message_len == strlen(messages[i]) &&
                memcmp(l.message, messages[i], l.message_len) == 0)
                which = i;
        if (which < 0)
            fail_msg("an unexpected line: %.*s", (int)(nl - at), at);
        seen[which]++;
        assert_string_equal(l.level, "INFO");
        assert_string_equal(l.func, "fork_from_a_thread_that_logged");
        assert_int_equal(l.tid, which == 1 ? (long)child : (long)gettid());
        at = nl + 1;
    }
    for (int i = 0; i < 3; i++)
        assert_int_equal(seen[i], 1);
    free(text);
    test_drop_dir(dir);
}

/* Runs exit_writer with its arguments and returns its exit status. */
static int run_exit_writer(const char *mode, const char *dir, const char *count)
{
    pid_t child = fork();
    if (child == 0) {
        execl(EXIT_WRITER, EXIT_WRITER, mode, dir, count, (char *)NULL);
        _exit(127);
    }
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

static void lines_logged_by_exit_handlers_and_destructors_are_written(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"atexit-before-open", "from an atexit handler registered before xlog_open"},
        {"destructor", "from a destructor"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *dir = test_make_dir("exit");
        assert_int_equal(run_exit_writer(cases[i][0], dir, NULL), 0);
        char *text = test_read_dir(dir, NULL);
        assert_int_equal(test_count_lines(text), 2);
        /* main's line, then the one logged after main returned, whole */
        const char *want[2] = {"from main", cases[i][1]};
        const char *at = text;
        for (int n = 0; n < 2; n++) {
            const char *nl = strchr(at, '\n');
            test_line l;
            assert_true(nl && test_parse_line(at, (size_t)(nl - at), &l));
            assert_string_equal(l.level, "INFO");
            if (l.message_len != strlen(want[n]) || memcmp(l.message, want[n], l.message_len))
                fail_msg("%s: line %d is '%.*s', not '%s'", cases[i][0], n + 1,
                         (int)l.message_len, l.message, want[n]);
            at = nl + 1;
        }
        free(text);
        test_drop_dir(dir);
    }
}

static void quick_exit_writes_every_line(void **state)
{
    (void)state;
    char *dir = test_make_dir("quick");
    long lines = test_scaled(100000);
    char count[32];
    snprintf(count, sizeof count, "%ld", lines);
    assert_int_equal(run_exit_writer("quick-exit", dir, count), 0);
    char *text = test_read_dir(dir, NULL);
    assert_int_equal(test_count_lines(text), (size_t)lines);
    assert_int_equal(test_numbered_in_order(text, " line "), lines);
    free(text);
    test_drop_dir(dir);
}

/* A failed check leaves the test early: do not leave xlog open for the next. */
static int close_if_open(void **state)
{
    (void)state;
    xlog_close();
    return 0;
}

/* Threads that logged end while xlog_close runs: a thread that ends once
 * the back end is gone recycles its ring itself, and may unmap it; close
 * must not touch that ring afterwards (it freed the rings' backtraces after
 * that point, reading unmapped memory: SIGSEGV in every run). */
static int ending_go, ending_logged;

static void *log_once_and_end(void *unused)
{
    (void)unused;
    xlog_info("short-lived");
    __atomic_add_fetch(&ending_logged, 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&ending_go, __ATOMIC_ACQUIRE))
        usleep(50);
    return NULL;
}

static void threads_ending_during_xlog_close_do_not_crash_it(void **state)
{
    (void)state;
    char *dir = test_make_dir("ending");
    xlog_config cfg = test_config_in(dir);
    long rounds = test_scaled(200);
    xlog_counters before;
    xlog_stats(&before);
    for (long k = 0; k < rounds; k++) {
        assert_int_equal(xlog_open(&cfg), 0);
        pthread_t t[16];
        __atomic_store_n(&ending_go, 0, __ATOMIC_RELEASE);
        __atomic_store_n(&ending_logged, 0, __ATOMIC_RELEASE);
        for (int i = 0; i < 16; i++)
            pthread_create(&t[i], NULL, log_once_and_end, NULL);
        while (__atomic_load_n(&ending_logged, __ATOMIC_ACQUIRE) < 16)
            usleep(100);
        __atomic_store_n(&ending_go, 1, __ATOMIC_RELEASE);
        usleep((useconds_t)(k % 100));
        assert_int_equal(xlog_close(), 0);
        for (int i = 0; i < 16; i++)
            pthread_join(t[i], NULL);
    }
    xlog_counters after;
    xlog_stats(&after);
    char *text = test_read_dir(dir, NULL);
    size_t lines = test_count_lines(text);
    if (lines != (size_t)(rounds * 16))
        fail_msg("%zu lines of %ld; dropped while closing %llu (before %llu)", lines, rounds * 16,
                 (unsigned long long)after.dropped_closing,
                 (unsigned long long)before.dropped_closing);
    free(text);
    test_drop_dir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(crash_sigsegv, close_if_open),
        cmocka_unit_test_teardown(crash_sigbus, close_if_open),
        cmocka_unit_test_teardown(crash_sigfpe, close_if_open),
        cmocka_unit_test_teardown(crash_sigill, close_if_open),
        cmocka_unit_test_teardown(crash_sigabrt, close_if_open),
        cmocka_unit_test_teardown(exit_without_close, close_if_open),
        cmocka_unit_test_teardown(crash_chains_to_the_programs_handler, close_if_open),
        cmocka_unit_test_teardown(program_that_recovers_keeps_logging, close_if_open),
        cmocka_unit_test_teardown(crash_while_threads_log, close_if_open),
        cmocka_unit_test_teardown(fork_while_threads_log_to_one_file_loses_no_line, close_if_open),
        cmocka_unit_test_teardown(fork_from_a_thread_that_logged, close_if_open),
        cmocka_unit_test(lines_logged_by_exit_handlers_and_destructors_are_written),
        cmocka_unit_test(quick_exit_writes_every_line),
        cmocka_unit_test(threads_ending_during_xlog_close_do_not_crash_it),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
