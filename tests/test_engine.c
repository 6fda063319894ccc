/*
 * test_engine.c - the engine end to end: N threads x M messages give exactly
 * N x M intact lines, each thread's in order, the shared file in time order;
 * per-thread files; flush; threads that end before their lines are written;
 * the counters against the files; a call that never finishes holding
 * nothing up; the back end asleep when idle, woken by lines and bursts; and
 * the threads xlog starts, each named for what it does.
 */
#include "testutil.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <cmocka.h>

#include <xlog.h>

#include "base/atomics.h"
#include "base/doorbell.h"
#include "base/guard.h"
#include "rings/rings.h"

typedef struct worker_arg {
    int index;
    long messages;
    long tid;
} worker_arg;

static void *log_sequence(void *p)
{
    worker_arg *w = p;
    w->tid = (long)gettid();
    for (long i = 0; i < w->messages; i++)
        xlog_info("thread %d seq %ld value %.2f", w->index, i, (double)i * 0.25);
    return NULL;
}

static void open_in(const char *dir, xlog_file_mode mode)
{
    xlog_config cfg = test_config_in(dir);
    cfg.file_mode = mode;
    assert_int_equal(xlog_open(&cfg), 0);
}

static void run_workers(worker_arg *w, int threads, long messages)
{
    pthread_t t[16];
    for (int i = 0; i < threads; i++) {
        w[i].index = i;
        w[i].messages = messages;
        assert_int_equal(pthread_create(&t[i], NULL, log_sequence, &w[i]), 0);
    }
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
}

/* A fresh directory (returned) in which xlog, in file mode `mode`, gets
 * `messages` lines from each of `threads` workers, and closes. */
static char *workers_log_into(const char *tag, xlog_file_mode mode, worker_arg *w, int threads,
                              long messages)
{
    char *dir = test_make_dir(tag);
    open_in(dir, mode);
    run_workers(w, threads, messages);
    assert_int_equal(xlog_close(), 0);
    return dir;
}

/* Checks every line of text: layout, level, sequence per thread, and (when
 * ordered) non-decreasing time.  Returns the number of lines. */
static size_t check_sequence_lines(const char *text, const worker_arg *w, int threads,
                                   long *next_seq, int ordered)
{
    size_t lines = 0;
    int64_t last_ns = 0;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        assert_non_null(nl);
        test_line l;
        if (!test_parse_line(p, (size_t)(nl - p), &l))
            fail_msg("bad line %zu: %.*s", lines + 1, (int)(nl - p), p);
        assert_string_equal(l.level, "INFO");
        assert_string_equal(l.func, "log_sequence");
        assert_non_null(strstr(l.where, "test_engine.c:"));
        int thread;
        long seq;
        char value[32];
        char msg[128];
        assert_true(l.message_len < sizeof msg);
        memcpy(msg, l.message, l.message_len);
        msg[l.message_len] = '\0';
        assert_int_equal(sscanf(msg, "thread %d seq %ld value %31s", &thread, &seq, value), 3);
        assert_true(thread >= 0 && thread < threads);
        assert_int_equal(l.tid, w[thread].tid);
        assert_int_equal(seq, next_seq[thread]);
        char expect[32];
        snprintf(expect, sizeof expect, "%.2f", (double)seq * 0.25);
        assert_string_equal(value, expect);
        next_seq[thread]++;
        if (ordered) {
            if (l.ns < last_ns)
                fail_msg("time goes back at line %zu: %.*s", lines + 1, (int)(nl - p), p);
            last_ns = l.ns;
        }
        lines++;
        p = nl + 1;
    }
    return lines;
}

static void shared_file_has_every_line_in_order(void **state)
{
    (void)state;
    const int threads = 4;
    const long messages = test_scaled(1000000);
    worker_arg w[4];
    char *dir = workers_log_into("shared", XLOG_FILE_SHARED, w, threads, messages);

    size_t nfiles;
    char **files = test_list_files(dir, &nfiles);
    assert_true(nfiles >= 1 && nfiles <= 2); /* two only if the run crossed midnight UTC */
    test_free_list(files, nfiles);
    char *text = test_read_dir(dir, NULL);
    long next_seq[4] = {0};
    size_t lines = check_sequence_lines(text, w, threads, next_seq, 1);
    assert_int_equal(lines, (size_t)threads * (size_t)messages);
    for (int i = 0; i < threads; i++)
        assert_int_equal(next_seq[i], messages);
    free(text);
    test_drop_dir(dir);
}

static void per_thread_files_hold_only_their_thread(void **state)
{
    (void)state;
    const int threads = 3;
    const long messages = test_scaled(20000);
    worker_arg w[3];
    char *dir = workers_log_into("perthread", XLOG_FILE_PER_THREAD, w, threads, messages);

    size_t nfiles;
    char **files = test_list_files(dir, &nfiles);
    assert_int_equal(nfiles, (size_t)threads);
    for (size_t f = 0; f < nfiles; f++) {
        /* YYYY-MM-DD-<tid>.log */
        long tid = 0;
        assert_int_equal(strlen(files[f]) > 15, 1);
        assert_int_equal(sscanf(files[f] + 11, "%ld.log", &tid), 1);
        char *path = test_path(dir, files[f]);
        char *text = test_read_file(path, NULL);
        long next_seq[3] = {0};
        size_t lines = check_sequence_lines(text, w, threads, next_seq, 1);
        assert_int_equal(lines, (size_t)messages);
        int owner = -1;
        for (int i = 0; i < threads; i++)
            if (next_seq[i])
                owner = owner == -1 ? i : -2;
        assert_true(owner >= 0);
        assert_int_equal(w[owner].tid, tid);
        free(text);
        free(path);
    }
    test_free_list(files, nfiles);
    test_drop_dir(dir);
}

static size_t lines_now(const char *dir)
{
    char *text = test_read_dir(dir, NULL);
    size_t n = test_count_lines(text);
    free(text);
    return n;
}

static void flush_writes_everything_logged_before_it(void **state)
{
    (void)state;
    char *dir = test_make_dir("flush");
    open_in(dir, XLOG_FILE_SHARED);
    size_t expected = 0;
    for (int round = 1; round <= 20; round++) {
        for (int i = 0; i < round * 37; i++)
            xlog_info("round %d line %d", round, i);
        expected += (size_t)round * 37;
        assert_int_equal(xlog_flush(), 0);
        assert_int_equal(lines_now(dir), expected);
    }
    xlog_counters c;
    xlog_stats(&c);
    assert_int_equal(xlog_close(), 0);
    assert_int_equal(xlog_flush(), -EBADF);
    assert_int_equal(lines_now(dir), expected);
    test_drop_dir(dir);
}

static int rings_registered(void)
{
    int n = 0;
    pthread_mutex_lock(&xlog_rings.lock);
    for (xlog_ring *r = xlog_rings.rings; r; r = r->next)
        n++;
    pthread_mutex_unlock(&xlog_rings.lock);
    return n;
}

static void ended_threads_lines_are_written_and_ring_freed(void **state)
{
    (void)state;
    char *dir = test_make_dir("exit");
    open_in(dir, XLOG_FILE_PER_THREAD);
    int before = rings_registered();
    const long messages = test_scaled(50000);
    for (int round = 0; round < 8; round++) {
        worker_arg w[2];
        run_workers(w, 2, messages); /* both threads have ended here */
        assert_int_equal(xlog_flush(), 0);
        assert_int_equal(rings_registered(), before);
    }
    assert_int_equal(lines_now(dir), (size_t)(16 * messages));
    size_t nfiles;
    char **files = test_list_files(dir, &nfiles);
    assert_int_equal(nfiles, 16); /* 16 threads, 16 tids (tids are not reused so soon) */
    test_free_list(files, nfiles);
    assert_int_equal(xlog_close(), 0);
    test_drop_dir(dir);
}

static void counters_match_the_files(void **state)
{
    (void)state;
    xlog_counters before, after;
    xlog_stats(&before);
    worker_arg w[2];
    char *dir = workers_log_into("counters", XLOG_FILE_SHARED, w, 2, test_scaled(100000));
    xlog_stats(&after);
    size_t len;
    char *text = test_read_dir(dir, &len);
    assert_int_equal(after.messages - before.messages, test_count_lines(text));
    assert_int_equal(after.bytes - before.bytes, len);
    assert_true(after.writes > before.writes);
    assert_int_equal(after.dropped, before.dropped);
    free(text);
    test_drop_dir(dir);
}

/* The calling thread's ring, from the registry; NULL if it has none. */
static xlog_ring *ring_of_this_thread(void)
{
    xlog_ring *mine = NULL;
    pthread_mutex_lock(&xlog_rings.lock);
    for (xlog_ring *r = xlog_rings.rings; r; r = r->next)
        if (r->tid == gettid())
            mine = r;
    pthread_mutex_unlock(&xlog_rings.lock);
    return mine;
}

static void *log_held_line(void *p)
{
    xlog_info("held %d", *(int *)p);
    return NULL;
}

static double ms_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) * 1e3 + (double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}

static void stuck_call(xlog_ring *mine, const char *dir);

/* A call that never finishes (a thread stopped inside it, or a signal
 * handler that logs while its thread is inside a call): the nested call is
 * dropped and counted, and the other threads' lines still get written. */
static void stuck_call_holds_nothing_up(void **state)
{
    (void)state;
    char *dir = test_make_dir("stuck");
    open_in(dir, XLOG_FILE_SHARED);
    xlog_info("before");
    xlog_ring *mine = ring_of_this_thread();
    if (!mine)
        fail_msg("no ring for this thread");
    else
        stuck_call(mine, dir);
    test_drop_dir(dir);
}

/* The part of the test above with this thread's ring found. */
static void stuck_call(xlog_ring *mine, const char *dir)
{
    uint64_t pos = xlog_load(&mine->write_pos);
    /* As if interrupted inside a call (this thread's own view, and the back
     * end's). */
    xlog_enter();
    xlog_store(&mine->write_pos, pos | 1);
    xlog_counters before, after;
    xlog_stats(&before);
    xlog_info("nested call: dropped");
    xlog_stats(&after);
    assert_int_equal(after.dropped, before.dropped + 1);
    worker_arg w[2];
    run_workers(w, 2, 1000);
    assert_int_equal(xlog_flush(), 0);
    assert_int_equal(lines_now(dir), 1 + 2000 + 1); /* and the drop notice */
    xlog_store(&mine->write_pos, pos); /* the call ends */
    xlog_leave();
    assert_int_equal(xlog_close(), 0);
    char *text = test_read_dir(dir, NULL);
    assert_null(strstr(text, "nested call"));
    assert_non_null(strstr(text, " 1 message of this thread was not written: 1 logged by a "
                                 "signal handler inside a log call\n"));
    assert_int_equal(test_count_lines(text), 1 + 2000 + 1);
    free(text);
}

/* A round of the tests below: this thread's call marked under way at pos
 * (as if interrupted inside it, as above), and meanwhile another thread's
 * line "held <round>", which must not reach the file (lines lines in it
 * so far) while the call is under way; the call then ends, having written
 * nothing.  1 when the round proved it: its checks came within 80 ms, well
 * inside STUCK_CALL_NS (100 ms), after which a call stops holding others
 * back; 0 when this thread was kept off the processor longer. */
static int held_while_under_way(xlog_ring *mine, uint64_t pos, const char *dir, int round,
                                size_t lines)
{
    xlog_enter();
    xlog_store(&mine->write_pos, pos | 1);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pthread_t other;
    assert_int_equal(pthread_create(&other, NULL, log_held_line, &round), 0);
    pthread_join(other, NULL);
    size_t seen = lines;
    while (ms_since(&t0) < 30 && seen == lines) {
        usleep(1000);
        seen = lines_now(dir);
    }
    int in_time = ms_since(&t0) < 80;
    xlog_store(&mine->write_pos, pos); /* the call ends */
    xlog_leave();
    if (in_time)
        assert_int_equal(seen, lines); /* the other thread's line waited */
    return in_time;
}

/* Opens xlog for the tests below, writing each line as its message alone
 * and into the file at once (persistent rings or not), and logs "first";
 * returns this thread's ring. */
static xlog_ring *open_with_first_line(const char *dir, int persistent)
{
    xlog_config cfg = test_config_in(dir);
    cfg.file_pattern = "{message}";
    cfg.flush_interval_ms = 1; /* what the back end writes is in the file at once */
    cfg.persistent = persistent;
    assert_int_equal(xlog_open(&cfg), 0);
    xlog_info("first");
    xlog_ring *mine = ring_of_this_thread();
    assert_non_null(mine);
    return mine;
}

/* The file after the tests below: "first", then each round's held line,
 * in order. */
static void assert_first_then_held(const char *dir, int rounds)
{
    char *text = test_read_dir(dir, NULL);
    char expected[4096] = "first\n";
    for (int i = 0; i < rounds; i++)
        snprintf(expected + strlen(expected), sizeof expected - strlen(expected), "held %d\n", i);
    assert_string_equal(text, expected);
    free(text);
}

/* Rounds of held_while_under_way, pause_us apart, at this thread's write
 * position, which no round moves (the lines are the other threads'),
 * until three are conclusive (at most max_rounds); then closes xlog and
 * checks the file. */
static void held_rounds(const char *dir, xlog_ring *mine, int max_rounds, useconds_t pause_us)
{
    uint64_t pos = xlog_load(&mine->write_pos);
    int rounds = 0, conclusive = 0;
    size_t lines = 1;
    while (conclusive < 3 && rounds < max_rounds) {
        assert_int_equal(xlog_flush(), 0);
        assert_int_equal(lines_now(dir), lines);
        usleep(pause_us);
        assert_int_equal(xlog_load(&mine->write_pos), pos);
        conclusive += held_while_under_way(mine, pos, dir, rounds, lines);
        rounds++;
        lines++;
    }
    assert_int_equal(conclusive, 3);
    assert_int_equal(xlog_close(), 0);
    assert_first_then_held(dir, rounds);
}

/* While a call of one thread is under way (bit 0 of its write_pos), a
 * later line of another thread waits for it, since the call's line may be
 * the older (backend.c, "watermark"), although the thread under way has no
 * record left to write: the back end must ask its write_pos then.  The
 * window is well inside the time after which a stuck call stops holding
 * others back (STUCK_CALL_NS, 100 ms); a round whose thread was kept off
 * the processor longer proves nothing and is run again. */
static void a_call_under_way_holds_back_another_threads_later_line(void **state)
{
    (void)state;
    char *dir = test_make_dir("underway");
    held_rounds(dir, open_with_first_line(dir, 1), 20, 0);
    test_drop_dir(dir);
}

/* A call under way at the position of an earlier call the back end saw
 * under way (that one wrote nothing: a full ring it dropped on, say) is a
 * new call, which holds other threads' later lines back as any: not one
 * already under way for longer than STUCK_CALL_NS (100 ms), which no
 * longer would.  Here this thread's calls, as above, each at the same
 * position, 150 ms apart. */
static void a_new_call_at_an_earlier_calls_position_holds_back_later_lines(void **state)
{
    (void)state;
    char *dir = test_make_dir("samepos");
    /* Longer than STUCK_CALL_NS since the last round's call. */
    held_rounds(dir, open_with_first_line(dir, 0), 10, 150 * 1000);
    test_drop_dir(dir);
}

/* A line published while the back end reads the rings, by a call that took
 * its time long before (it copied a long string), must still wait for
 * another thread's call under way when that thread has records of its own
 * to write: the back end asks no ring while only one has records, then
 * asks the others and reads their heads again; once it finds the long
 * line there, it must ask the one it left out too (backend.c, scan).
 * The other thread's call under way is this thread's, as above; its line
 * "before" waits while the long call is under way (its time is later than
 * the long call's thread's last line), so that it is in the ring when the
 * long line comes.  The window is the back end's time between its two
 * reads of the long call's ring: a round fails only when the long line is
 * published inside it (the back end taken off the processor there, say),
 * so many rounds are run, with the back end passing without a pause and
 * a hundred rings to read. */
static int threads_started;

typedef struct long_caller {
    const char *text;
    int round; /* the round to log, -2 before the first, -1 to end */
    int done;  /* the last round logged */
} long_caller;

static void *log_long_lines(void *p)
{
    long_caller *c = p;
    xlog_info("long caller");
    xlog_add(&threads_started, 1);
    for (int logged = -2;;) {
        int round = xlog_load_acquire(&c->round);
        if (round == -1)
            return NULL;
        if (round == logged) {
            usleep(50);
            continue;
        }
        xlog_info("long %d %s", round, c->text);
        logged = round;
        xlog_store_release(&c->done, round);
    }
}

static int waiters_end;

static void *wait_with_a_line(void *p)
{
    (void)p;
    xlog_info("waiting");
    xlog_add(&threads_started, 1);
    while (!xlog_load_acquire(&waiters_end))
        usleep(1000);
    return NULL;
}

static void a_line_published_during_a_scan_waits_for_another_threads_call(void **state)
{
    (void)state;
    enum { WAITERS = 100, LONG_TEXT = 1 << 20 };
    char *dir = test_make_dir("duringscan");
    xlog_config cfg = test_config_in(dir);
    cfg.file_pattern = "{message}";
    cfg.flush_interval_ms = 1;
    cfg.persistent = 0; /* nothing in /dev/shm */
    cfg.idle_sleep_us = 1; /* passes one after another */
    cfg.ring_size = 16 << 20;
    cfg.max_message = 2 << 20;
    assert_int_equal(xlog_open(&cfg), 0);
    xlog_counters start;
    xlog_stats(&start);
    xlog_info("first");
    xlog_ring *mine = ring_of_this_thread();
    assert_non_null(mine);
    xlog_store(&waiters_end, 0);
    xlog_store(&threads_started, 0);
    pthread_t waiters[WAITERS], caller;
    for (int i = 0; i < WAITERS; i++)
        assert_int_equal(pthread_create(&waiters[i], NULL, wait_with_a_line, NULL), 0);
    char *text = malloc(LONG_TEXT + 1);
    assert_non_null(text);
    memset(text, 'x', LONG_TEXT);
    text[LONG_TEXT] = '\0';
    long_caller c = {text, -2, -2};
    assert_int_equal(pthread_create(&caller, NULL, log_long_lines, &c), 0);
    while (xlog_load_acquire(&threads_started) < WAITERS + 1)
        usleep(1000);
    const int rounds = (int)test_scaled(300);
    int conclusive = 0, early = 0;
    for (int round = 0; round < rounds; round++) {
        assert_int_equal(xlog_flush(), 0);
        xlog_counters before, after;
        xlog_stats(&before);
        xlog_info("before %d", round);
        uint64_t pos = xlog_load(&mine->write_pos);
        xlog_enter(); /* as if interrupted inside a call, as above */
        xlog_store(&mine->write_pos, pos | 1);
        struct timespec t0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        xlog_store_release(&c.round, round);
        while (xlog_load_acquire(&c.done) != round)
            usleep(100);
        usleep(3000); /* passes of the back end after the long line */
        xlog_stats(&after);
        int in_time = ms_since(&t0) < 50;
        xlog_store(&mine->write_pos, pos); /* the call ends */
        xlog_leave();
        if (in_time) {
            conclusive++;
            /* "before" may be written, the long line must wait */
            early += after.messages - before.messages > 1;
        }
    }
    xlog_store_release(&c.round, -1);
    pthread_join(caller, NULL);
    xlog_store_release(&waiters_end, 1);
    for (int i = 0; i < WAITERS; i++)
        pthread_join(waiters[i], NULL);
    xlog_counters end;
    assert_int_equal(xlog_flush(), 0);
    xlog_stats(&end);
    assert_int_equal(xlog_close(), 0);
    assert_int_equal(early, 0);
    assert_true(conclusive > 0);
    /* first, the threads' lines, and each round's two */
    assert_int_equal(end.messages - start.messages, 1 + WAITERS + 1 + 2 * (uint64_t)rounds);
    free(text);
    test_drop_dir(dir);
}

/* ---- the idle back end ------------------------------------------------------ */

/* A failed test leaves xlog open: the next one must still start. */
static void release_hold(void);
static void release_clock(void);

static int close_after_failure(void **state)
{
    (void)state;
    release_hold(); /* a test that held the back end in its sink */
    release_clock(); /* or in its wall clock */
    xlog_close();
    return 0;
}

static void open_quiet(const char *dir)
{
    xlog_config cfg = test_config_in(dir);
    cfg.persistent = 0; /* nothing in /dev/shm */
    assert_int_equal(xlog_open(&cfg), 0);
}

static void pause_ms(long ms)
{
    struct timespec pause = {ms / 1000, (ms % 1000) * 1000000};
    while (nanosleep(&pause, &pause) != 0)
        ;
}

/* The ids of the process's threads, sorted; returns how many. */
static int thread_ids(long *ids, int capacity)
{
    char **names;
    size_t n;
    names = test_list_files("/proc/self/task", &n);
    int count = 0;
    for (size_t i = 0; i < n && count < capacity; i++)
        ids[count++] = atol(names[i]);
    test_free_list(names, n);
    return count;
}

/* Context switches of the threads that are not in before: the threads xlog
 * started (at least one: the back end).  Voluntary and not, so that neither
 * can hide a wake-up. */
static long switches_of_new_threads(const long *before, int before_count)
{
    long ids[64], total = 0;
    int count = thread_ids(ids, 64), counted = 0;
    for (int i = 0; i < count; i++) {
        int old = 0;
        for (int j = 0; j < before_count; j++)
            old |= ids[i] == before[j];
        if (old)
            continue;
        char path[64], line[256];
        snprintf(path, sizeof path, "/proc/self/task/%ld/status", ids[i]);
        FILE *status = fopen(path, "r"); /* proc files have no size to read by */
        if (!status)
            continue; /* ended meanwhile */
        int fields = 0;
        while (fgets(line, sizeof line, status)) {
            long n;
            if (sscanf(line, "voluntary_ctxt_switches: %ld", &n) == 1 ||
                sscanf(line, "nonvoluntary_ctxt_switches: %ld", &n) == 1) {
                total += n;
                fields++;
            }
        }
        fclose(status);
        assert_int_equal(fields, 2);
        counted++;
    }
    assert_true(counted >= 1);
    return total;
}

/* An idle xlog wakes only for its timers: the back end used to poll every
 * idle_sleep_us, 2,000 times a second.  Counted over a second of idleness
 * as the context switches of the threads xlog started. */
static void an_idle_back_end_wakes_only_for_its_timers(void **state)
{
    (void)state;
    long before[64];
    int before_count = thread_ids(before, 64);
    char *dir = test_make_dir("idle");
    open_quiet(dir);
    xlog_info("one line, then nothing");
    assert_int_equal(xlog_flush(), 0);
    pause_ms(300); /* past the flush interval and the settling that follow work */
    long start = switches_of_new_threads(before, before_count);
    pause_ms(1000);
    long woken = switches_of_new_threads(before, before_count) - start;
    print_message("context switches of xlog's threads in 1 s idle: %ld\n", woken);
    assert_true(woken <= 20);
    assert_int_equal(xlog_close(), 0);
    assert_int_equal(lines_now(dir), 1);
    test_drop_dir(dir);
}

/* After the back end has slept long, a line wakes it: written without a
 * flush (within the flush interval, waited for here without a deadline but
 * the test's), and xlog_flush answers. */
static void lines_logged_after_a_long_idle_are_written(void **state)
{
    (void)state;
    char *dir = test_make_dir("longidle");
    open_quiet(dir);
    for (int round = 1; round <= 3; round++) {
        pause_ms(700);
        xlog_info("after idle %d", round);
        while (lines_now(dir) < (size_t)round * 2 - 1)
            pause_ms(5);
        pause_ms(700);
        xlog_info("after idle %d flushed", round);
        assert_int_equal(xlog_flush(), 0);
        assert_int_equal(lines_now(dir), (size_t)round * 2);
    }
    assert_int_equal(xlog_close(), 0);
    char *text = test_read_dir(dir, NULL);
    const char *p = text;
    for (int i = 0; i < 6; i++) {
        char expected[64];
        snprintf(expected, sizeof expected, i % 2 ? "after idle %d flushed" : "after idle %d",
                 i / 2 + 1);
        const char *nl = strchr(p, '\n');
        assert_non_null(nl);
        test_line l;
        assert_true(test_parse_line(p, (size_t)(nl - p), &l));
        assert_string_equal(l.level, "INFO");
        assert_int_equal(l.message_len, strlen(expected));
        assert_memory_equal(l.message, expected, l.message_len);
        p = nl + 1;
    }
    assert_int_equal(*p, '\0');
    free(text);
    test_drop_dir(dir);
}

typedef struct burster {
    int index;
    int bursts;
    int lines;     /* in each burst */
    int pause_ms;  /* between bursts: pause_ms to 2 * pause_ms */
    int flushes;   /* xlog_flush after every eighth burst */
    long tid;
} burster;

static void *log_bursts(void *p)
{
    burster *b = p;
    b->tid = (long)gettid();
    unsigned seed = (unsigned)b->index * 7919u + 1;
    for (int burst = 0; burst < b->bursts; burst++) {
        for (int i = 0; i < b->lines; i++)
            xlog_info("burster %d burst %d line %d", b->index, burst, i);
        if (b->flushes && burst % 8 == 7)
            assert_int_equal(xlog_flush(), 0);
        pause_ms(b->pause_ms + (long)(rand_r(&seed) % (unsigned)b->pause_ms));
    }
    return NULL;
}

/* THREADS threads log their bursts into a fresh xlog (ring_size 0: the
 * default); then every line must be in the file once, each thread's in
 * order. */
enum { THREADS = 4 };
static void bursts_are_all_written(const char *tag, size_t ring_size, int bursts, int lines,
                                   int pause, int flushes)
{
    char *dir = test_make_dir(tag);
    xlog_config cfg = test_config_in(dir);
    cfg.persistent = 0; /* nothing in /dev/shm */
    if (ring_size)
        cfg.ring_size = ring_size;
    assert_int_equal(xlog_open(&cfg), 0);
    burster b[THREADS];
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) {
        b[i] = (burster){.index = i, .bursts = bursts, .lines = lines, .pause_ms = pause,
                         .flushes = flushes};
        assert_int_equal(pthread_create(&t[i], NULL, log_bursts, &b[i]), 0);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    assert_int_equal(xlog_flush(), 0);
    size_t total = (size_t)THREADS * (size_t)bursts * (size_t)lines;
    assert_int_equal(lines_now(dir), total);
    assert_int_equal(xlog_close(), 0);
    char *text = test_read_dir(dir, NULL);
    int next[THREADS] = {0}; /* burst * lines + line, expected next of each thread */
    size_t count = 0;
    for (const char *p = text; *p; count++) {
        const char *nl = strchr(p, '\n');
        assert_non_null(nl);
        test_line l;
        assert_true(test_parse_line(p, (size_t)(nl - p), &l));
        char msg[96];
        int who, burst, i;
        assert_int_equal(sscanf(test_message(&l, msg, sizeof msg), "burster %d burst %d line %d",
                                &who, &burst, &i), 3);
        assert_true(who >= 0 && who < THREADS);
        char expected[96];
        snprintf(expected, sizeof expected, "burster %d burst %d line %d", who,
                 next[who] / lines, next[who] % lines);
        assert_string_equal(msg, expected); /* once, and in order */
        assert_int_equal(l.tid, b[who].tid);
        next[who]++;
        p = nl + 1;
    }
    assert_int_equal(count, total);
    free(text);
    test_drop_dir(dir);
}

/* Many short bursts from several threads, each after a pause long enough for
 * the back end to go to sleep (40 to 80 ms), so that many land just as it
 * does: every line is written once, and every flush answers. */
static void bursts_after_pauses_from_several_threads_are_all_written(void **state)
{
    (void)state;
    int bursts = (int)test_scaled(24);
    bursts_are_all_written("bursts", 0, bursts < 8 ? 8 : bursts, 50, 40, 1);
}

/* Bursts of most of a 64 KiB ring after pauses of 4 to 8 ms, while the
 * back end dozes (backend.c, "Sleeping"): every line is written once, and
 * the calls that find their ring full wait for room, never for a doze. */
static void bursts_of_most_of_a_ring_into_a_dozing_back_end_are_all_written(void **state)
{
    (void)state;
    int bursts = (int)test_scaled(40);
    bursts_are_all_written("doze-bursts", 64 * 1024, bursts < 10 ? 10 : bursts, 1000, 4, 0);
}

/* ---- a dozing back end ------------------------------------------------------
 * Under light traffic the back end polls less and less often (backend.c,
 * "Sleeping"); a thread whose ring gets half full, or full, wakes it.  The
 * tests hold the back end inside a sink at the line "hold", so that nothing
 * but the thread under test touches the doze: they raise xlog_bell.dozing
 * themselves, as the back end does when it dozes, and count the rings on
 * the doorbell's futex word. */
static int hold_reached, hold_released;

static void hold_at_gate(void *context, const xlog_event *event, const char *bytes, size_t length)
{
    (void)context;
    (void)bytes;
    (void)length;
    if (strcmp(event->message, "hold") != 0)
        return;
    __atomic_store_n(&hold_reached, 1, __ATOMIC_SEQ_CST);
    while (!__atomic_load_n(&hold_released, __ATOMIC_SEQ_CST))
        pause_ms(1);
}

/* The one call site of the bursts: the back end has seen it before it is
 * held (burst_line(-1)), so that the calls take the shortest path, written
 * in this code, which renews its room only at its end. */
static __attribute__((noinline)) void burst_line(long i)
{
    xlog_info("line %ld of a burst into a dozing back end", i);
}

/* Logs "hold" and returns once the back end is held at it, not dozing:
 * it may have begun to doze before it got to the line (the calling thread
 * off the processor a few milliseconds), and, held, it touches the flag no
 * more. */
static void hold(void)
{
    __atomic_store_n(&hold_reached, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&hold_released, 0, __ATOMIC_SEQ_CST);
    xlog_info("hold");
    while (!__atomic_load_n(&hold_reached, __ATOMIC_SEQ_CST))
        pause_ms(1);
    __atomic_store_n(&xlog_bell.dozing, 0, __ATOMIC_SEQ_CST);
}

/* The same line through the library's general path: an argument that
 * goes through the variable argument list (%.*s here; any string does from
 * C99 or C++) makes the call reserve its room there, at every call. */
static __attribute__((noinline)) void general_burst_line(long i)
{
    xlog_info("line %ld of a burst into a dozing back end%.*s", i, 0, "");
}

/* A configuration for dir with a 64 KiB ring in ordinary memory and a
 * custom sink whose write is the one given (one at a time). */
static xlog_config doze_config(const char *dir,
                               void (*write)(void *, const xlog_event *, const char *, size_t))
{
    static xlog_custom_sink sink;
    static const xlog_sink_config *sinks[2];
    sink = xlog_custom_sink_defaults();
    sink.write = write;
    sinks[0] = &sink.sink;
    xlog_config cfg = test_config_in(dir);
    cfg.persistent = 0;
    cfg.ring_size = 64 * 1024;
    cfg.sinks = sinks;
    return cfg;
}

/* Opens xlog in dir with a 64 KiB ring, full_policy as given, and the sink
 * above; logs line -1, flushes (the thread has its ring, the site is
 * known), then "hold", and returns once the back end is held. */
static void open_and_hold(const char *dir, xlog_full_policy full_policy)
{
    xlog_config cfg = doze_config(dir, hold_at_gate);
    cfg.full_policy = full_policy;
    assert_int_equal(xlog_open(&cfg), 0);
    burst_line(-1);
    assert_int_equal(xlog_flush(), 0);
    hold();
}

static uint64_t bytes_logged_since(uint64_t start)
{
    return (xlog_load(&xlog_impl_my_ring->write_pos) & ~(uint64_t)1) - start;
}

static uint32_t rings_so_far(void)
{
    return __atomic_load_n(&xlog_bell.wakes, __ATOMIC_SEQ_CST);
}

/* The message of the line at *p (a whole line of the default layout), into
 * message; *p moves to the next line. */
static const char *next_message(const char **p, char *message, size_t size)
{
    const char *nl = strchr(*p, '\n');
    assert_non_null(nl);
    test_line l;
    assert_true(test_parse_line(*p, (size_t)(nl - *p), &l));
    *p = nl + 1;
    return test_message(&l, message, size);
}

/* The file holds line -1, "hold", then line 0 .. line count-1, with
 * "hold" again before line held_again if that is not negative; and, if notice is
 * not NULL, that line once, anywhere after "hold" (the back end announces
 * drops before the batch it finds them at). */
static void expect_lines(const char *dir, long count, long held_again, const char *notice)
{
    char *text = test_read_dir(dir, NULL);
    const char *p = text;
    int notices = 0, second_hold = 0;
    for (long i = -2; i < count || (notice && !notices && *p);) { /* -2: line -1 */
        char message[160], expected[160];
        next_message(&p, message, sizeof message);
        if (notice && i >= 0 && strcmp(message, notice) == 0) {
            notices++;
            continue;
        }
        if (held_again >= 0 && i == held_again && !second_hold) {
            assert_string_equal(message, "hold");
            second_hold = 1;
            continue;
        }
        if (i == -1)
            snprintf(expected, sizeof expected, "hold");
        else
            snprintf(expected, sizeof expected, "line %ld of a burst into a dozing back end",
                     i == -2 ? -1 : i);
        assert_string_equal(message, expected);
        i++;
    }
    assert_int_equal(notices, notice != NULL);
    assert_int_equal(second_hold, held_again >= 0);
    assert_int_equal(*p, '\0');
    free(text);
}

/* The file holds line -1 .. line count-1 of the bursts, nothing else. */
static void expect_burst_lines(const char *dir, long count)
{
    char *text = test_read_dir(dir, NULL);
    const char *p = text;
    for (long i = -1; i < count; i++) {
        char message[160], expected[160];
        snprintf(expected, sizeof expected, "line %ld of a burst into a dozing back end", i);
        assert_string_equal(next_message(&p, message, sizeof message), expected);
    }
    assert_int_equal(*p, '\0');
    free(text);
}

static void release_hold(void)
{
    __atomic_store_n(&hold_released, 1, __ATOMIC_SEQ_CST);
}

/* With the back end held, raises the doze flag as the back end does, then
 * logs line(*count), line(*count + 1) ... through 48 KiB of the thread's 64
 * KiB ring: no ring on the doorbell short of half (30 KiB), exactly one by
 * 48 KiB, and the flag back at 0. */
static void one_ring_past_half(void (*line)(long), long *count)
{
    __atomic_store_n(&xlog_bell.dozing, 1, __ATOMIC_SEQ_CST);
    uint32_t before = rings_so_far();
    uint64_t start = xlog_load(&xlog_impl_my_ring->write_pos);
    while (bytes_logged_since(start) < 30 * 1024) { /* short of half */
        line((*count)++);
        assert_int_equal(rings_so_far(), before);
        assert_int_equal(xlog_load(&xlog_bell.dozing), 1);
    }
    while (bytes_logged_since(start) < 48 * 1024) /* past half, short of full */
        line((*count)++);
    assert_int_equal(rings_so_far(), before + 1);
    assert_int_equal(xlog_load(&xlog_bell.dozing), 0);
}

/* A thread that gets past half its ring while the back end dozes rings the
 * doorbell, once however many calls follow, and not before half. */
static void a_ring_half_full_wakes_a_dozing_back_end_once(void **state)
{
    (void)state;
    char *dir = test_make_dir("doze-half");
    open_and_hold(dir, XLOG_FULL_BLOCK);
    long count = 0;
    one_ring_past_half(burst_line, &count);
    release_hold();
    assert_int_equal(xlog_close(), 0);
    expect_lines(dir, count, -1, NULL);
    test_drop_dir(dir);
}

/* The general path reserves room at every call and reads its ring's tail
 * only when the ring looks full, so once a burst has made its lap the
 * whole ring, the tail it knows may be most of a ring old, the back end
 * having read everything since.  Such a call must not take its ring for
 * half full and wake a dozing back end at every doze: it rings once it is
 * past half of the tail as it is, and only then. */
static void a_general_call_into_a_ring_read_to_its_end_does_not_wake_a_dozing_back_end(
    void **state)
{
    (void)state;
    char *dir = test_make_dir("doze-general");
    open_and_hold(dir, XLOG_FULL_BLOCK);
    uint64_t start = xlog_load(&xlog_impl_my_ring->write_pos);
    long count = 0;
    while (bytes_logged_since(start) < 40 * 1024) /* its lap grows to the whole ring */
        general_burst_line(count++);
    long held_again = count;
    release_hold();
    assert_int_equal(xlog_flush(), 0); /* read to its end */
    hold();
    one_ring_past_half(general_burst_line, &count);
    release_hold();
    assert_int_equal(xlog_close(), 0);
    expect_lines(dir, count, held_again, NULL);
    test_drop_dir(dir);
}

/* A thread may ring after the back end has read its ring in a pass and
 * before that pass ends in a sleep: the sleep must not be a doze, or half a
 * ring waits for it.  The test holds the back end there, in the wall clock
 * it reads at its resynchronisation (a second after the last, after it has
 * read and written the rings), fills half its ring meanwhile, then notes
 * in a sink whether the back end had gone back to dozing when it wrote the
 * first of those lines.  A line logged 150 ms before that keeps the back
 * end from its long sleep (it sleeps long after flush_interval_ms, here
 * 250, and 30 ms more without work), so the sleep in question is a doze;
 * should the test thread be late, it is the long sleep's last check, and
 * the flag must be down at that line all the same. */
static int clock_armed, clock_reached, clock_released;

static int64_t clock_held_when_armed(void)
{
    if (__atomic_load_n(&clock_armed, __ATOMIC_SEQ_CST) &&
        __atomic_exchange_n(&clock_armed, 0, __ATOMIC_SEQ_CST)) {
        __atomic_store_n(&clock_reached, 1, __ATOMIC_SEQ_CST);
        while (!__atomic_load_n(&clock_released, __ATOMIC_SEQ_CST))
            pause_ms(1);
    }
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

static void release_clock(void)
{
    __atomic_store_n(&clock_released, 1, __ATOMIC_SEQ_CST);
}

static int dozing_at_line_1 = -1;

static void note_dozing_at_line_1(void *context, const xlog_event *event, const char *bytes,
                                  size_t length)
{
    (void)context;
    (void)bytes;
    (void)length;
    if (strcmp(event->message, "line 1 of a burst into a dozing back end") == 0)
        __atomic_store_n(&dozing_at_line_1, xlog_load(&xlog_bell.dozing), __ATOMIC_SEQ_CST);
}

static void a_ring_between_a_pass_and_its_sleep_is_answered_before_any_doze(void **state)
{
    (void)state;
    char *dir = test_make_dir("doze-late-ring");
    xlog_config cfg = doze_config(dir, note_dozing_at_line_1);
    cfg.wall_clock_ns = clock_held_when_armed;
    cfg.flush_interval_ms = 250;
    __atomic_store_n(&clock_reached, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&clock_released, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&dozing_at_line_1, -1, __ATOMIC_SEQ_CST);
    assert_int_equal(xlog_open(&cfg), 0);
    burst_line(-1);
    assert_int_equal(xlog_flush(), 0); /* resynchronises: the next one is a second later */
    __atomic_store_n(&clock_armed, 1, __ATOMIC_SEQ_CST);
    pause_ms(850);
    general_burst_line(0);
    while (!__atomic_load_n(&clock_reached, __ATOMIC_SEQ_CST))
        pause_ms(1);
    /* Idle since line 0: the back end has raised the flag. */
    assert_int_equal(xlog_load(&xlog_bell.dozing), 1);
    uint32_t before = rings_so_far();
    uint64_t start = xlog_load(&xlog_impl_my_ring->write_pos);
    long count = 1;
    while (bytes_logged_since(start) < 48 * 1024) /* past half, short of full */
        general_burst_line(count++);
    assert_int_equal(rings_so_far(), before + 1);
    assert_int_equal(xlog_load(&xlog_bell.dozing), 0);
    release_clock();
    while (__atomic_load_n(&dozing_at_line_1, __ATOMIC_SEQ_CST) < 0)
        pause_ms(1);
    assert_int_equal(__atomic_load_n(&dozing_at_line_1, __ATOMIC_SEQ_CST), 0);
    assert_int_equal(xlog_close(), 0);
    expect_burst_lines(dir, count);
    test_drop_dir(dir);
}

/* A room given before the doze began may run to the full ring: the call
 * that finds it full rings (and drops, with XLOG_FULL_DROP), once. */
static void a_full_ring_wakes_a_dozing_back_end_once(void **state)
{
    (void)state;
    char *dir = test_make_dir("doze-full");
    open_and_hold(dir, XLOG_FULL_DROP);
    xlog_ring *r = (xlog_ring *)(void *)xlog_impl_my_ring;
    uint32_t before = rings_so_far();
    long count = 0;
    while (xlog_load(&r->dropped[XLOG_DROP_FULL]) == 0)
        burst_line(count++);
    assert_int_equal(rings_so_far(), before); /* the back end was not dozing */
    __atomic_store_n(&xlog_bell.dozing, 1, __ATOMIC_SEQ_CST);
    for (int i = 0; i < 5; i++) {
        xlog_info("dropped too");
        assert_int_equal(rings_so_far(), before + 1);
        assert_int_equal(xlog_load(&xlog_bell.dozing), 0);
    }
    assert_int_equal(xlog_load(&r->dropped[XLOG_DROP_FULL]), 6);
    release_hold();
    assert_int_equal(xlog_close(), 0);
    expect_lines(dir, count - 1, -1,
                 "6 messages of this thread were not written: 6 its ring was full "
                 "(XLOG_FULL_DROP)");
    test_drop_dir(dir);
}

/* The names of this process's threads that start with "xlog", sorted and
 * joined by ',' (/proc/self/task/<tid>/comm, as top -H and ps -L show). */
static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *xlog_thread_names(void)
{
    size_t n;
    char **tasks = test_list_files("/proc/self/task", &n);
    char **names = calloc(n + 1, sizeof *names);
    size_t count = 0;
    for (size_t i = 0; i < n; i++) {
        char *path = NULL;
        if (asprintf(&path, "/proc/self/task/%s/comm", tasks[i]) < 0)
            abort();
        /* A /proc file tells no size: read it as a stream. */
        FILE *f = fopen(path, "r");
        free(path);
        char *comm = calloc(32, 1);
        if (f && fgets(comm, 32, f) && strncmp(comm, "xlog", 4) == 0)
            names[count++] = comm;
        else
            free(comm);
        if (f)
            fclose(f);
    }
    test_free_list(tasks, n);
    qsort(names, count, sizeof *names, compare_names);
    char *joined = calloc(1, 1);
    size_t length = 0;
    for (size_t i = 0; i < count; i++) {
        size_t more = strlen(names[i]);
        joined = realloc(joined, length + more + 2);
        memcpy(joined + length, names[i], more);
        length += more;
        joined[length - 1] = ','; /* in place of comm's '\n' */
        joined[length] = '\0';
        free(names[i]);
    }
    free(names);
    return joined;
}

/* Every thread xlog starts carries a name saying what it is, from the moment
 * xlog_open returns, and none is left after xlog_close. */
static void the_threads_xlog_starts_are_named(void **state)
{
    (void)state;
    char *before = xlog_thread_names();
    assert_string_equal(before, "");
    free(before);
    char *dir = test_make_dir("names");
    int console[2];
    assert_int_equal(pipe(console), 0);
    char *socket_path = test_path(dir, "no-collector.sock");
    xlog_syslog_config syslog = xlog_syslog_defaults();
    syslog.address = socket_path;
    const xlog_sink_config *sinks[] = {&syslog.sink, NULL};
    xlog_config cfg = test_config_in(dir);
    cfg.persistent = 0; /* not the shared /dev/shm default */
    cfg.console = console[1];
    cfg.compress = XLOG_COMPRESS_GZIP;
    cfg.sinks = sinks;
    assert_int_equal(xlog_open(&cfg), 0);
    char *names = xlog_thread_names();
    assert_string_equal(names, "xlog,xlog-console,xlog-gzip,xlog-syslog,");
    free(names);
    assert_int_equal(xlog_close(), 0);
    names = xlog_thread_names();
    assert_string_equal(names, "");
    free(names);
    close(console[0]);
    close(console[1]);
    free(socket_path);
    test_drop_dir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shared_file_has_every_line_in_order),
        cmocka_unit_test(per_thread_files_hold_only_their_thread),
        cmocka_unit_test(flush_writes_everything_logged_before_it),
        cmocka_unit_test(ended_threads_lines_are_written_and_ring_freed),
        cmocka_unit_test(counters_match_the_files),
        cmocka_unit_test(stuck_call_holds_nothing_up),
        cmocka_unit_test(a_call_under_way_holds_back_another_threads_later_line),
        cmocka_unit_test(a_line_published_during_a_scan_waits_for_another_threads_call),
        cmocka_unit_test(a_new_call_at_an_earlier_calls_position_holds_back_later_lines),
        cmocka_unit_test_teardown(an_idle_back_end_wakes_only_for_its_timers,
                                  close_after_failure),
        cmocka_unit_test_teardown(lines_logged_after_a_long_idle_are_written,
                                  close_after_failure),
        cmocka_unit_test_teardown(bursts_after_pauses_from_several_threads_are_all_written,
                                  close_after_failure),
        cmocka_unit_test_teardown(
            bursts_of_most_of_a_ring_into_a_dozing_back_end_are_all_written,
            close_after_failure),
        cmocka_unit_test_teardown(a_ring_half_full_wakes_a_dozing_back_end_once,
                                  close_after_failure),
        cmocka_unit_test_teardown(
            a_general_call_into_a_ring_read_to_its_end_does_not_wake_a_dozing_back_end,
            close_after_failure),
        cmocka_unit_test_teardown(a_full_ring_wakes_a_dozing_back_end_once, close_after_failure),
        cmocka_unit_test_teardown(a_ring_between_a_pass_and_its_sleep_is_answered_before_any_doze,
                                  close_after_failure),
        cmocka_unit_test_teardown(the_threads_xlog_starts_are_named, close_after_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
