/*
 * test_signal_handlers.c - a signal handler that logs while its thread is
 * inside a log call: no crash, no hang, and every message accounted for.
 *
 * Log calls are not async-signal-safe, but a program that logs from a
 * handler must not corrupt a ring: the nested call is dropped and counted.
 * Each case runs in a child process watched by the parent, because the
 * failures being guarded against are a crash and a hang.  The child checks
 * its own file and counters (it knows how many calls its handler made) and
 * reports by its exit status; the parent turns that into an assertion.
 *
 * Accounting that must hold exactly: lines written by the main code and by
 * the handler, plus xlog_counters.dropped, equals the calls made by both.
 */
#include "testutil.h"

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <cmocka.h>

#include <xlog.h>

#if defined(__SANITIZE_THREAD__)
#define UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UNDER_TSAN 1
#endif
#endif

/* Exit statuses of a child. */
enum { CHILD_OK = 0, CHILD_OPEN_FAILED = 90, CHILD_BAD_LINE = 91, CHILD_MISCOUNT = 92,
       CHILD_OUT_OF_ORDER = 93 };

static volatile sig_atomic_t handler_calls;

/* Two messages: one with a string argument (a record of another size than
 * the main code's, written by the library), then one of scalars only,
 * which a C11 program writes in its own code when the site is ready
 * (xlog_impl_put) and which must then see the call it interrupted. */
static void log_from_handler(int sig)
{
    (void)sig;
    handler_calls++;
    xlog_info("handler %d %s", (int)handler_calls, "with a string argument");
    handler_calls++;
    xlog_info("handler %d", (int)handler_calls);
}

/* The message of the handler's nth message (see log_from_handler). */
static void handler_message(long n, char *out, size_t size)
{
    snprintf(out, size, n % 2 ? "handler %ld with a string argument" : "handler %ld", n);
}

/* The main code's ith message: every other one has a string argument, so
 * that a signal interrupts calls written by the library as well as calls
 * written in the program's code. */
static void log_main(long i)
{
    if (i % 2)
        xlog_info("main %ld", i);
    else
        xlog_info("main %ld %s", i, "library");
}

static void main_message(long i, char *out, size_t size)
{
    snprintf(out, size, i % 2 ? "main %ld" : "main %ld library", i);
}

static void open_for(const char *dir, xlog_full_policy policy)
{
    xlog_config cfg = test_config_in(dir);
    cfg.ring_size = 65536;
    cfg.full_policy = policy;
    cfg.crash_handlers = 0;
    if (xlog_open(&cfg) != 0)
        _exit(CHILD_OPEN_FAILED);
}

/* Whether msg is, whole, the back end's notice of the thread's messages
 * not written: those a full ring dropped (XLOG_FULL_DROP) and those of the
 * handler that came inside a log call, in that order, adding up to the
 * total it begins with. */
static int is_drop_notice(const char *msg)
{
    unsigned long long total = strtoull(msg, NULL, 10), full = 0, nested = 0;
    const char *reasons = strstr(msg, " not written: ");
    if (!reasons)
        return 0;
    char *end;
    unsigned long long first = strtoull(reasons + 14, &end, 10);
    if (strncmp(end, " its ring", 9) == 0) {
        full = first;
        const char *separator = strstr(end, ", ");
        nested = separator ? strtoull(separator + 2, NULL, 10) : 0;
    } else {
        nested = first;
    }
    char notice[256];
    int n = snprintf(notice, sizeof notice, "%llu %s of this thread %s not written: ", total,
                     test_plural(total, "message", "messages"), test_plural(total, "was", "were"));
    if (full)
        n += snprintf(notice + n, sizeof notice - (size_t)n,
                      "%llu its ring was full (XLOG_FULL_DROP)%s", full, nested ? ", " : "");
    if (nested)
        snprintf(notice + n, sizeof notice - (size_t)n,
                 "%llu logged by a signal handler inside a log call", nested);
    return total > 0 && full + nested == total && strcmp(msg, notice) == 0;
}

/* Counts the main code's and the handler's lines, each in its order. */
static int count_lines(const char *dir, long *main_lines, long *handler_lines)
{
    char *text = test_read_dir(dir, NULL);
    long last_main = -1, last_handler = 0;
    *main_lines = *handler_lines = 0;
    int status = CHILD_OK;
    for (const char *p = text; *p && status == CHILD_OK;) {
        const char *nl = strchr(p, '\n');
        test_line l;
        char msg[256];
        long n;
        if (!nl || !test_parse_line(p, (size_t)(nl - p), &l)) {
            status = CHILD_BAD_LINE;
            break;
        }
        test_message(&l, msg, sizeof msg);
        char whole[256] = "";
        if (sscanf(msg, "main %ld", &n) == 1) {
            main_message(n, whole, sizeof whole);
            status = strcmp(msg, whole) != 0 ? CHILD_BAD_LINE
                     : n > last_main         ? status
                                             : CHILD_OUT_OF_ORDER;
            last_main = n;
            ++*main_lines;
        } else if (sscanf(msg, "handler %ld", &n) == 1) {
            handler_message(n, whole, sizeof whole);
            status = strcmp(msg, whole) != 0 ? CHILD_BAD_LINE
                     : n > last_handler      ? status
                                             : CHILD_OUT_OF_ORDER;
            last_handler = n;
            ++*handler_lines;
        } else if (!is_drop_notice(msg)) {
            status = CHILD_BAD_LINE;
        }
        p = nl + 1;
    }
    free(text);
    return status;
}

/* SIGALRM runs log_from_handler. */
static void log_on_every_alarm(void)
{
    struct sigaction action = {.sa_handler = log_from_handler};
    sigemptyset(&action.sa_mask);
    sigaction(SIGALRM, &action, NULL);
}

/* The end of a case in the child, once the alarms stop: xlog closed, every
 * call made (`calls` by the main code, handler_calls by the handler) is a
 * line of the file or counted as dropped.  CHILD_OK if so; the main code's
 * lines in *main_lines, the counters in *c. */
static int close_and_account_for_every_call(const char *dir, long calls, long *main_lines,
                                            xlog_counters *c)
{
    signal(SIGALRM, SIG_IGN);
    xlog_close();
    xlog_stats(c);
    long handler_lines;
    int status = count_lines(dir, main_lines, &handler_lines);
    if (status != CHILD_OK)
        return status;
    if ((uint64_t)(*main_lines + handler_lines) + c->dropped != (uint64_t)(calls + handler_calls))
        return CHILD_MISCOUNT;
    return CHILD_OK;
}

/* The child's side of a case: the main code logs calls messages while a
 * timer interrupts it every period_us and its handler logs too. */
static int interrupted_main(const char *dir, xlog_full_policy policy, long period_us, long calls)
{
    open_for(dir, policy);
    log_on_every_alarm();
    struct itimerval every = {{0, period_us}, {0, period_us}};
    setitimer(ITIMER_REAL, &every, NULL);
    for (long i = 0; i < calls; i++)
        log_main(i);
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
    xlog_counters c;
    long main_lines;
    int status = close_and_account_for_every_call(dir, calls, &main_lines, &c);
    if (status != CHILD_OK)
        return status;
    /* Waiting for room never loses a message; only the nested ones go. */
    if (policy == XLOG_FULL_BLOCK &&
        (main_lines != calls || c.dropped != c.dropped_nested))
        return CHILD_MISCOUNT;
    return CHILD_OK;
}

#ifndef UNDER_TSAN /* see the last case */
/* A thread whose very first message (which takes its ring) is interrupted
 * by a timer aimed at that thread. */
typedef struct first_call {
    long period_us;
    long index;
} first_call;

static void *first_call_interrupted(void *arg)
{
    const first_call *fc = arg;
    timer_t timer;
    struct sigevent to_me = {.sigev_notify = SIGEV_THREAD_ID, .sigev_signo = SIGALRM};
    to_me._sigev_un._tid = (pid_t)syscall(SYS_gettid);
    if (timer_create(CLOCK_MONOTONIC, &to_me, &timer) != 0)
        return NULL;
    struct itimerspec every = {{0, fc->period_us * 1000}, {0, fc->period_us * 1000}};
    timer_settime(timer, 0, &every, NULL);
    log_main(fc->index);
    timer_delete(timer);
    return NULL;
}

static int interrupted_first_calls(const char *dir, long period_us, long threads)
{
    open_for(dir, XLOG_FULL_BLOCK);
    log_on_every_alarm();
    for (long i = 0; i < threads; i++) {
        first_call fc = {period_us, i};
        pthread_t t;
        pthread_create(&t, NULL, first_call_interrupted, &fc);
        pthread_join(t, NULL);
    }
    xlog_counters c;
    long main_lines;
    int status = close_and_account_for_every_call(dir, threads, &main_lines, &c);
    if (status != CHILD_OK)
        return status;
    return main_lines == threads ? CHILD_OK : CHILD_MISCOUNT;
}
#endif

/* Runs body in a child and fails on a crash, a hang (no end within
 * seconds) or a bad status. */
static void in_watched_child(int (*body)(const char *, long, long, long), long a, long b,
                             long c, int seconds)
{
    char *dir = test_make_dir("handler");
    pid_t child = fork();
    if (child == 0)
        _exit(body(dir, a, b, c));
    int status = 0;
    for (int waited = 0; waited < seconds * 10; waited++) {
        pid_t done = waitpid(child, &status, WNOHANG);
        if (done == child)
            break;
        struct timespec tick = {0, 100000000};
        nanosleep(&tick, NULL);
    }
    if (waitpid(child, &status, WNOHANG) == 0) {
        kill(child, SIGKILL);
        waitpid(child, &status, 0);
        fail_msg("the child hung (no end within %d s)", seconds);
    }
    if (WIFSIGNALED(status))
        fail_msg("the child died of signal %d", WTERMSIG(status));
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), CHILD_OK);
    test_drop_dir(dir);
}

static int main_case(const char *dir, long policy, long period_us, long calls)
{
    return interrupted_main(dir, (xlog_full_policy)policy, period_us, calls);
}

#ifndef UNDER_TSAN
static int first_call_case(const char *dir, long period_us, long threads, long unused)
{
    (void)unused;
    return interrupted_first_calls(dir, period_us, threads);
}
#endif

static void run_timer_rates(xlog_full_policy policy)
{
    static const long periods_us[] = {1000, 50, 20};
    for (size_t i = 0; i < sizeof periods_us / sizeof periods_us[0]; i++)
        in_watched_child(main_case, policy, periods_us[i], test_scaled(400000), 120);
}

static void handler_logging_inside_a_call_is_dropped_and_counted_when_blocking(void **state)
{
    (void)state;
    run_timer_rates(XLOG_FULL_BLOCK);
}

static void handler_logging_inside_a_call_is_dropped_and_counted_when_dropping(void **state)
{
    (void)state;
    run_timer_rates(XLOG_FULL_DROP);
}

static void handler_interrupting_a_threads_first_call_neither_deadlocks_nor_loses_count(
    void **state)
{
    (void)state;
#ifdef UNDER_TSAN
    /* A handler that runs just before a thread's first call takes the
     * thread's ring from the handler (not nested, so allowed), which TSan
     * reports as an unsafe call in a signal handler. */
    skip();
#else
    in_watched_child(first_call_case, 20, test_scaled(50) < 10 ? 10 : test_scaled(50), 0, 120);
#endif
}

#if XLOG_IMPL_PUT_INLINE
/* ---- a handler inside the caller's code, one instruction at a time -------
 *
 * A call written in the program's code loads the thread's ring, then sets
 * bit 0 of its write_pos (xlog_impl_claim).  A signal handler that runs between
 * the two and logs may give the thread another ring (its ring is from before
 * an xlog_close and xlog_open): the call it interrupted then goes on with
 * the ring it loaded.  The main code's call is single-stepped (the trap
 * flag), and the SIGTRAP handler logs when the next instruction is the
 * call's bts, so the handler lands there every time. */
enum { CHILD_NOT_THERE = 94 };

static volatile sig_atomic_t stepping, stepped_to_bts;

/* Whether code is `btsq $0, (reg)`, the claim's instruction (write_pos is
 * the ring's first field). */
static int is_claim(const unsigned char *code)
{
    return (code[0] & 0xf8) == 0x48 && code[1] == 0x0f && code[2] == 0xba &&
           (code[3] & 0xf8) == 0x28 && (code[3] & 7) != 4 && (code[3] & 7) != 5 && code[4] == 0;
}

static void step_handler(int sig, siginfo_t *info, void *context)
{
    (void)sig;
    (void)info;
    ucontext_t *uc = context;
    if (!stepping) {
        uc->uc_mcontext.gregs[REG_EFL] &= ~(greg_t)0x100;
        return;
    }
    if (!stepped_to_bts && is_claim((const unsigned char *)uc->uc_mcontext.gregs[REG_RIP])) {
        stepped_to_bts = 1;
        log_from_handler(sig);
    }
}

/* The main code's call, each instruction a trap from the first on. */
static __attribute__((noinline)) void step_through(long i)
{
    stepped_to_bts = 0;
    stepping = 1;
    __asm__ __volatile__("pushfq; orq $0x100, (%%rsp); popfq" ::: "memory", "cc");
    log_main(i);
    stepping = 0;
    __asm__ __volatile__("nop" ::: "memory");
}

static void *make_sites_ready(void *unused)
{
    (void)unused;
    for (int k = 0; k < 3; k++) {
        log_main(-2);
        log_main(-1);
        xlog_info("handler %d %s", -1, "with a string argument");
        xlog_info("handler %d", -2);
    }
    return NULL;
}

/* After each xlog_close and xlog_open the thread still points at its ring
 * of before, and another thread has made the sites pass under the new
 * rules: the main code's call (of slots, then of strings) is written in
 * its code, and the handler's call gives the thread its new ring. */
static int handler_between_ring_and_claim(const char *dir, long cycles, long unused_b,
                                          long unused_c)
{
    (void)unused_b;
    (void)unused_c;
    xlog_config cfg = test_config_in(dir);
    char persistent[PATH_MAX];
    snprintf(persistent, sizeof persistent, "%s/../%s.rings", dir, strrchr(dir, '/') + 1);
    cfg.persistent_dir = persistent;
    cfg.crash_handlers = 0;
    signal(SIGSEGV, SIG_DFL); /* a crash is the parent's to report */
    struct sigaction action = {.sa_sigaction = step_handler, .sa_flags = SA_SIGINFO};
    sigemptyset(&action.sa_mask);
    sigaction(SIGTRAP, &action, NULL);
    int status = CHILD_OK;
    for (long i = 0; i < cycles && status == CHILD_OK; i++) {
        if (xlog_open(&cfg) != 0)
            return CHILD_OPEN_FAILED;
        log_main(2 * i);
        xlog_close();
        if (xlog_open(&cfg) != 0)
            return CHILD_OPEN_FAILED;
        pthread_t t;
        pthread_create(&t, NULL, make_sites_ready, NULL);
        pthread_join(t, NULL);
        step_through(2 * i + 1);
        if (!stepped_to_bts)
            status = CHILD_NOT_THERE;
        xlog_close();
    }
    test_remove_tree(persistent);
    if (status != CHILD_OK)
        return status;
    /* Every line, in order: the main code's, the handler's. */
    char *text = test_read_dir(dir, NULL);
    char expected[16384] = "";
    size_t n = 0;
    long handler = 0;
    for (long i = 0; i < cycles; i++) {
        char line[128];
        main_message(2 * i, line, sizeof line);
        n += (size_t)snprintf(expected + n, sizeof expected - n, "%s\n", line);
        for (int k = 0; k < 3; k++) {
            main_message(-2, line, sizeof line);
            n += (size_t)snprintf(expected + n, sizeof expected - n, "%s\n", line);
            main_message(-1, line, sizeof line);
            n += (size_t)snprintf(expected + n, sizeof expected - n, "%s\n", line);
            n += (size_t)snprintf(expected + n, sizeof expected - n,
                                  "handler -1 with a string argument\nhandler -2\n");
        }
        handler_message(++handler, line, sizeof line);
        n += (size_t)snprintf(expected + n, sizeof expected - n, "%s\n", line);
        handler_message(++handler, line, sizeof line);
        n += (size_t)snprintf(expected + n, sizeof expected - n, "%s\n", line);
        main_message(2 * i + 1, line, sizeof line);
        n += (size_t)snprintf(expected + n, sizeof expected - n, "%s\n", line);
    }
    char messages[16384] = "";
    size_t m = 0;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        test_line l;
        char msg[256];
        if (!nl || !test_parse_line(p, (size_t)(nl - p), &l)) {
            free(text);
            return CHILD_BAD_LINE;
        }
        m += (size_t)snprintf(messages + m, sizeof messages - m, "%s\n",
                              test_message(&l, msg, sizeof msg));
        p = nl + 1;
    }
    free(text);
    xlog_counters c;
    xlog_stats(&c);
    if (strcmp(messages, expected) != 0)
        return CHILD_BAD_LINE;
    return c.dropped == 0 ? CHILD_OK : CHILD_MISCOUNT;
}
#endif

static void handler_that_gives_the_thread_a_new_ring_inside_a_call_breaks_nothing(void **state)
{
    (void)state;
#if XLOG_IMPL_PUT_INLINE
    long cycles = test_scaled(20) < 4 ? 4 : test_scaled(20);
    in_watched_child(handler_between_ring_and_claim, cycles, 0, 0, 120);
#else
    skip(); /* no call is written in the caller's code */
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(handler_logging_inside_a_call_is_dropped_and_counted_when_blocking),
        cmocka_unit_test(handler_logging_inside_a_call_is_dropped_and_counted_when_dropping),
        cmocka_unit_test(handler_interrupting_a_threads_first_call_neither_deadlocks_nor_loses_count),
        cmocka_unit_test(handler_that_gives_the_thread_a_new_ring_inside_a_call_breaks_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
