/*
 * test_thread_names.c - the thread's name ({thread} in a pattern,
 * "thread.name" in JSON; xlog.h, "Thread names"), in every way a line is
 * made: by the back end in text and JSON, in binary files read back by the
 * library's reader (what xlog-cat runs), and by recovery after kill -9.
 *
 * The threads name themselves with prctl(PR_SET_NAME) (what
 * pthread_setname_np does for the calling thread), or are named by another
 * thread (pthread_setname_np, which writes /proc/.../comm); one never names
 * itself and has the name of the thread that started it, the test
 * program's ("test_thread_nam", the kernel's 15 bytes).  Hostile names (a
 * quote, a backslash, control bytes, bytes that are not UTF-8, a C1
 * control and U+2028, an empty name) are named first when the thread
 * takes its ring and again after a rename, which the back end reads from
 * /proc.  Every expected line is written out here byte for byte; only the
 * JSON timestamp is taken from the line.
 */
#include "leftovers.h"
#include "testutil.h"

#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <cmocka.h>

#include <xlog.h>

#include "binary/decode.h"
#include "layouts/fields.h"
#include "layouts/layout.h"

/* What the kernel gives a thread that never named itself here. */
#define PROGRAM_NAME "test_thread_nam"
#define PATTERN "{tid}|{thread}|{message}"

static int gettid_(void)
{
    return (int)syscall(SYS_gettid);
}

static void name_self(const char *name)
{
    assert_int_equal(prctl(PR_SET_NAME, name, 0, 0, 0), 0);
}

/* ---- the lines a scenario must give ---------------------------------------- */

/* A thread's name as each layout shows it: NULL json for none. */
typedef struct shown_name {
    const char *raw;
    const char *text;
    const char *json;
} shown_name;

static const shown_name PROGRAM = {PROGRAM_NAME, PROGRAM_NAME, PROGRAM_NAME};

/* The hostile names: each shown by the line rule (escape.h) and by JSON. */
static const shown_name HOSTILE[] = {
    {"q\"b\\c", "q\"b\\c", "q\\\"b\\\\c"},
    {"\x01\t\n", "\\x01\\t\\n", "\\u0001\\t\\n"},
    {"\xff\xfeok", "\\xff\\xfeok", "\xef\xbf\xbd\xef\xbf\xbdok"},
    {"\xe2\x80\xa8x\xc2\x85", "\\u2028x\\u0085", "\\u2028x\\u0085"},
    {"123456789012345", "123456789012345", "123456789012345"},
    {"", "", NULL},
};
#define HOSTILE_COUNT (sizeof HOSTILE / sizeof HOSTILE[0])

typedef struct expected_line {
    int tid;
    shown_name name;
    char message[64];
} expected_line;

typedef struct expected {
    expected_line lines[64];
    size_t count;
} expected;

static void expect(expected *e, int tid, shown_name name, const char *message)
{
    assert_true(e->count < sizeof e->lines / sizeof e->lines[0]);
    expected_line *l = &e->lines[e->count++];
    l->tid = tid;
    l->name = name;
    snprintf(l->message, sizeof l->message, "%s", message);
}

/* Every call of the scenarios is made here, so that a JSON line's code
 * attributes are known. */
static int log_line;

static void log_message(const char *message)
{
    log_line = __LINE__ + 1;
    xlog_info("%s", message);
}

/* The text of e in the layout: PATTERN's lines, or JSON objects with the
 * timestamps of actual (the lines written, in order). */
static char *expected_text(const expected *e, int json, const char *actual)
{
    size_t size = 4096 + e->count * 1024, at = 0;
    char *out = malloc(size);
    assert_non_null(out);
    out[0] = '\0';
    for (size_t i = 0; i < e->count; i++) {
        const expected_line *l = &e->lines[i];
        if (!json) {
            at += (size_t)snprintf(out + at, size - at, "%d|%s|%s\n", l->tid, l->name.text,
                                   l->message);
            continue;
        }
        static const char head[] = "{\"timestamp\":\"";
        const char *timestamp = "";
        int timestamp_length = 0;
        if (actual && strncmp(actual, head, sizeof head - 1) == 0) {
            timestamp = actual + sizeof head - 1;
            timestamp_length = (int)strcspn(timestamp, "\"");
        }
        char name[128] = "";
        if (l->name.json)
            snprintf(name, sizeof name, ",\"thread.name\":\"%s\"", l->name.json);
        at += (size_t)snprintf(out + at, size - at,
                               "%s%.*s\",\"severity_text\":\"INFO\",\"severity_number\":9,"
                               "\"body\":\"%s\",\"attributes\":{\"code.filepath\":\"%s\","
                               "\"code.lineno\":%d,\"code.function\":\"log_message\","
                               "\"thread.id\":%d%s,\"process.pid\":%d}}\n",
                               head, timestamp_length, timestamp, l->message, __FILE__, log_line,
                               l->tid, name, (int)getpid());
        if (actual) {
            const char *next = strchr(actual, '\n');
            actual = next ? next + 1 : NULL;
        }
    }
    return out;
}

/* ---- scenarios -------------------------------------------------------------- */

/* Runs fn(arg) in a new thread of the test program (so with its name until
 * it names itself) and waits for it. */
static void in_thread(void *(*fn)(void *), void *arg)
{
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, fn, arg), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
}

typedef struct script {
    expected *e;
    const shown_name *name; /* named before the first call; NULL: never */
    const char *messages[3];
} script;

static void *run_script(void *arg)
{
    script *s = arg;
    if (s->name)
        name_self(s->name->raw);
    for (int i = 0; i < 3 && s->messages[i]; i++) {
        log_message(s->messages[i]);
        expect(s->e, gettid_(), s->name ? *s->name : PROGRAM, s->messages[i]);
    }
    return NULL;
}

/* Two named threads, an unnamed one, and the test's own thread. */
static void named_and_unnamed(expected *e)
{
    static const shown_name alpha = {"alpha", "alpha", "alpha"};
    static const shown_name beta = {"beta-2", "beta-2", "beta-2"};
    script a = {e, &alpha, {"a 1", "a 2"}};
    script b = {e, &beta, {"b 1"}};
    script u = {e, NULL, {"u 1", "u 2"}};
    in_thread(run_script, &a);
    in_thread(run_script, &b);
    in_thread(run_script, &u);
    log_message("main 1");
    expect(e, gettid_(), PROGRAM, "main 1");
}

/* A thread renamed by another thread, then by itself: the lines an
 * xlog_flush() wrote before the rename have the old name, the lines logged
 * after a flush that followed the rename the new one. */
typedef struct renamed {
    expected *e;
    sem_t go, done;
} renamed;

static void wait_for(sem_t *s)
{
    while (sem_wait(s) != 0)
        assert_int_equal(errno, EINTR);
}

static void *renamed_thread(void *arg)
{
    static const shown_name before = {"before", "before", "before"};
    static const shown_name by_main = {"by-main", "by-main", "by-main"};
    static const shown_name after = {"after", "after", "after"};
    renamed *r = arg;
    int tid = gettid_();
    name_self(before.raw);
    log_message("one");
    expect(r->e, tid, before, "one");
    /* written before the rename: the name it had */
    assert_int_equal(xlog_flush(), 0);
    sem_post(&r->done);
    wait_for(&r->go); /* renamed by the test's thread, which flushed */
    log_message("two");
    expect(r->e, tid, by_main, "two");
    name_self(after.raw);
    assert_int_equal(xlog_flush(), 0);
    log_message("three");
    expect(r->e, tid, after, "three");
    log_message("four");
    expect(r->e, tid, after, "four");
    return NULL;
}

static void renamed_mid_run(expected *e)
{
    renamed r = {.e = e};
    sem_init(&r.go, 0, 0);
    sem_init(&r.done, 0, 0);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, renamed_thread, &r), 0);
    wait_for(&r.done);
    assert_int_equal(pthread_setname_np(t, "by-main"), 0);
    assert_int_equal(xlog_flush(), 0);
    sem_post(&r.go);
    assert_int_equal(pthread_join(t, NULL), 0);
    sem_destroy(&r.go);
    sem_destroy(&r.done);
}

/* Each hostile name: taken with the thread's ring (its first call), and
 * read again from /proc after a rename. */
typedef struct hostile_case {
    expected *e;
    const shown_name *name;
} hostile_case;

static void *hostile_thread(void *arg)
{
    static const shown_name plain = {"plain", "plain", "plain"};
    hostile_case *h = arg;
    int tid = gettid_();
    name_self(h->name->raw);
    log_message("first");
    expect(h->e, tid, *h->name, "first");
    assert_int_equal(xlog_flush(), 0);
    name_self(plain.raw);
    assert_int_equal(xlog_flush(), 0);
    log_message("plain");
    expect(h->e, tid, plain, "plain");
    assert_int_equal(xlog_flush(), 0);
    name_self(h->name->raw);
    assert_int_equal(xlog_flush(), 0);
    log_message("again");
    expect(h->e, tid, *h->name, "again");
    return NULL;
}

static void hostile_names(expected *e)
{
    for (size_t i = 0; i < HOSTILE_COUNT; i++) {
        hostile_case h = {e, &HOSTILE[i]};
        in_thread(hostile_thread, &h);
    }
}

typedef void (*scenario)(expected *e);

/* ---- running one --------------------------------------------------------------- */

static xlog_config config_in(const test_place *p, xlog_layout_kind layout)
{
    xlog_config cfg = test_config_in(p->logs);
    cfg.persistent_dir = p->shm;
    cfg.file_layout = layout;
    cfg.file_pattern = layout == XLOG_LAYOUT_TEXT ? PATTERN : NULL;
    return cfg;
}

/* The lines of a binary file, through the library's reader (as xlog-cat
 * reads it), in a layout of kind (PATTERN for text). */
static char *decoded(const char *data, size_t size, xlog_layout_kind kind)
{
    xlog_layout *layout = NULL;
    assert_int_equal(xlog_layout_create(&layout, kind, kind == XLOG_LAYOUT_TEXT ? PATTERN : NULL,
                                        XLOG_DEFAULT_PATTERN, "test"),
                     0);
    xlog_binary_reader *r = xlog_binary_reader_new("test");
    assert_non_null(r);
    size_t capacity = 1 << 16, length = 0;
    char *out = malloc(capacity);
    assert_non_null(out);
    int rc;
    while ((rc = xlog_binary_next(r, (const uint8_t *)data, 0, size, 1)) != XLOG_BINARY_END) {
        if (rc == XLOG_BINARY_DAMAGE)
            fail_msg("%s", xlog_binary_error(r));
        assert_int_equal(rc, XLOG_BINARY_ENTRY);
        const xlog_line_event *ev = xlog_binary_event(r);
        assert_non_null(ev);
        size_t need = xlog_layout_max_line(layout, ev->pub.message_length);
        if (length + need + 1 > capacity) {
            capacity = 2 * (length + need + 1);
            out = realloc(out, capacity);
            assert_non_null(out);
        }
        length += xlog_layout_write(layout, ev, out + length);
    }
    out[length] = '\0';
    xlog_binary_reader_free(r);
    xlog_layout_destroy(layout);
    return out;
}

static void check_text(const char *what, const char *got, const char *want)
{
    if (strcmp(got, want) != 0)
        fail_msg("%s:\n--- got ---\n%s--- want ---\n%s", what, got, want);
}

/* Runs the scenario with the files in layout and checks every line: the
 * file's own (text, JSON), or the binary file's read back in both. */
static void run(scenario play, xlog_layout_kind layout)
{
    test_place p;
    test_place_make(&p, "names");
    xlog_config cfg = config_in(&p, layout);
    assert_int_equal(xlog_open(&cfg), 0);
    expected e = {0};
    play(&e);
    assert_int_equal(xlog_close(), 0);
    size_t size;
    char *file = test_read_dir(p.logs, &size);
    if (layout == XLOG_LAYOUT_BINARY) {
        char *text = decoded(file, size, XLOG_LAYOUT_TEXT);
        char *want = expected_text(&e, 0, NULL);
        check_text("the binary file's lines", text, want);
        free(text);
        free(want);
        char *json = decoded(file, size, XLOG_LAYOUT_JSON);
        want = expected_text(&e, 1, json);
        check_text("the binary file's JSON objects", json, want);
        free(json);
        free(want);
    } else {
        char *want = expected_text(&e, layout == XLOG_LAYOUT_JSON, file);
        check_text("the file", file, want);
        free(want);
    }
    free(file);
    test_place_remove(&p);
}

/* ---- threads at once ------------------------------------------------------------ */

/* Several threads log at once (so that a binary block switches between
 * them at any record, and some of their tids share a slot of the file
 * sink's table of names given), each renaming itself halfway between two
 * of its own flushes: each line has its own thread's name, the old one
 * before the rename, the new one after. */
enum { CROWD = 6 };

typedef struct crowd_thread {
    int index, tid;
    long lines;
    pthread_barrier_t *start;
} crowd_thread;

static void *crowd_member(void *arg)
{
    crowd_thread *c = arg;
    c->tid = gettid_();
    char name[16];
    snprintf(name, sizeof name, "w%d", c->index);
    name_self(name);
    pthread_barrier_wait(c->start);
    for (long i = 0; i < c->lines; i++) {
        if (i == c->lines / 2) {
            assert_int_equal(xlog_flush(), 0);
            snprintf(name, sizeof name, "w%d-b", c->index);
            name_self(name);
            assert_int_equal(xlog_flush(), 0);
        }
        xlog_info("w%d %ld", c->index, i);
        sched_yield(); /* the threads' lines interleave, in a block too */
    }
    return NULL;
}

/* Checks every line of text ("tid|name|w<k> <i>") against the crowd. */
static void check_crowd(const char *text, const crowd_thread *crowd, long lines)
{
    long seen[CROWD] = {0};
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        assert_non_null(end);
        int tid, k, name_length;
        long i;
        char name[32];
        if (sscanf(line, "%d|%31[^|]|w%d %ld", &tid, name, &k, &i) != 4 || k < 0 || k >= CROWD)
            fail_msg("not a crowd line: %.*s", (int)(end - line), line);
        char want[64];
        name_length = snprintf(want, sizeof want, "%d|w%d%s|w%d %ld", crowd[k].tid, k,
                               i < lines / 2 ? "" : "-b", k, i);
        if ((int)(end - line) != name_length || memcmp(line, want, (size_t)name_length) != 0)
            fail_msg("line %.*s, not %s", (int)(end - line), line, want);
        if (i != seen[k]++)
            fail_msg("thread %d's line %ld where %ld was due", k, i, seen[k] - 1);
        line = end + 1;
    }
    for (int k = 0; k < CROWD; k++)
        assert_int_equal(seen[k], lines);
}

static void crowd_in(xlog_layout_kind layout)
{
    test_place p;
    test_place_make(&p, "names-crowd");
    xlog_config cfg = config_in(&p, layout);
    assert_int_equal(xlog_open(&cfg), 0);
    long lines = test_scaled(4000);
    crowd_thread crowd[CROWD];
    pthread_t threads[CROWD];
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, CROWD);
    for (int k = 0; k < CROWD; k++) {
        crowd[k] = (crowd_thread){k, 0, lines, &start};
        assert_int_equal(pthread_create(&threads[k], NULL, crowd_member, &crowd[k]), 0);
    }
    for (int k = 0; k < CROWD; k++)
        assert_int_equal(pthread_join(threads[k], NULL), 0);
    pthread_barrier_destroy(&start);
    assert_int_equal(xlog_close(), 0);
    size_t size;
    char *file = test_read_dir(p.logs, &size);
    char *text = layout == XLOG_LAYOUT_BINARY ? decoded(file, size, XLOG_LAYOUT_TEXT) : file;
    check_crowd(text, crowd, lines);
    if (text != file)
        free(text);
    free(file);
    test_place_remove(&p);
}

/* ---- after kill -9 ------------------------------------------------------------- */

/* A child holds its back end in a custom sink (it never returns from one
 * message, which is then in the file's buffer, unwritten), logs more, and
 * is killed; xlog_recover writes the records left in its rings with the
 * name the back end last read into each ring. */
#define HOLD_MESSAGE "hold the back end"
enum { RECOVERED_HOSTILE = 0 };

typedef struct child_page {
    int held;    /* the back end is held */
    int logged;  /* everything is logged */
    int pid;
    int renamed_tid, hostile_tid, unnamed_tid;
    sem_t step, stepped; /* the renamed thread's steps, one at a time */
} child_page;

static child_page *page;

static void hold_sink(void *context, const xlog_event *event, const char *bytes, size_t length)
{
    (void)context;
    (void)bytes;
    (void)length;
    if (strcmp(event->message, HOLD_MESSAGE) == 0) {
        __atomic_store_n(&page->held, 1, __ATOMIC_RELEASE);
        for (;;)
            pause();
    }
}

static void child_step(void)
{
    sem_post(&page->step);
    wait_for(&page->stepped);
}

/* Named "r-old", logs; renamed "r-new" (read by the back end at a flush);
 * then, the back end held, logs, renames itself "r-late" (which no back
 * end reads) and logs again. */
static void *renamed_child_thread(void *unused)
{
    (void)unused;
    page->renamed_tid = gettid_();
    name_self("r-old");
    log_message("r1");
    child_step();
    name_self("r-new");
    child_step();
    log_message("r2");
    name_self("r-late");
    log_message("r3");
    return NULL;
}

static void *hostile_child_thread(void *unused)
{
    (void)unused;
    page->hostile_tid = gettid_();
    name_self(HOSTILE[RECOVERED_HOSTILE].raw);
    log_message("h1");
    return NULL;
}

static void *unnamed_child_thread(void *unused)
{
    (void)unused;
    page->unnamed_tid = gettid_();
    log_message("u1");
    return NULL;
}

static void wait_held(void)
{
    while (!__atomic_load_n(&page->held, __ATOMIC_ACQUIRE)) {
        struct timespec t = {0, 1000000};
        nanosleep(&t, NULL);
    }
}

static void child(const test_place *p, xlog_layout_kind layout)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    alarm(60);
    xlog_custom_sink sink = xlog_custom_sink_defaults();
    sink.write = hold_sink;
    const xlog_sink_config *sinks[] = {&sink.sink, NULL};
    xlog_config cfg = config_in(p, layout);
    cfg.flush_interval_ms = 600000; /* the held line stays in the file's buffer */
    cfg.sinks = sinks;
    if (xlog_open(&cfg) != 0)
        _exit(90);
    page->pid = getpid();
    pthread_t renamed;
    if (pthread_create(&renamed, NULL, renamed_child_thread, NULL) != 0)
        _exit(91);
    wait_for(&page->step); /* r1 logged */
    xlog_flush();
    sem_post(&page->stepped);
    wait_for(&page->step); /* renamed r-new */
    xlog_flush();
    log_message(HOLD_MESSAGE);
    wait_held();
    sem_post(&page->stepped);
    pthread_join(renamed, NULL);
    pthread_t t;
    if (pthread_create(&t, NULL, hostile_child_thread, NULL) != 0 || pthread_join(t, NULL) != 0 ||
        pthread_create(&t, NULL, unnamed_child_thread, NULL) != 0 || pthread_join(t, NULL) != 0)
        _exit(92);
    __atomic_store_n(&page->logged, 1, __ATOMIC_RELEASE);
    for (;;)
        pause();
}

static void recovered(xlog_layout_kind layout)
{
    test_place p;
    test_place_make(&p, "names-kill");
    page = mmap(NULL, sizeof *page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    assert_true(page != MAP_FAILED);
    memset(page, 0, sizeof *page);
    sem_init(&page->step, 1, 0);
    sem_init(&page->stepped, 1, 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        child(&p, layout);
    while (!__atomic_load_n(&page->logged, __ATOMIC_ACQUIRE)) {
        if (waitpid(pid, NULL, WNOHANG) == pid)
            fail_msg("the child ended before logging");
        struct timespec t = {0, 1000000};
        nanosleep(&t, NULL);
    }
    kill(pid, SIGKILL);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    /* (a binary buffer's block counts no line: recover.c) */
    long records = 4, lines = xlog_recover(p.logs, p.shm);
    if (lines != records + (layout != XLOG_LAYOUT_BINARY))
        fail_msg("%ld lines recovered (%s)", lines, xlog_last_error());

    /* r1 was written before the kill; the notice (of the process, no
     * thread's: its pid, no name), the held line from the buffer, and the
     * records from the rings, each with the last name its ring knew. */
    char notice[256], want[2048];
    test_recovery_notice(notice, sizeof notice, lines, pid, getpid());
    snprintf(want, sizeof want,
             "%d|r-old|r1\n%d||%s\n%d|" PROGRAM_NAME "|" HOLD_MESSAGE "\n%d|r-new|r2\n"
             "%d|r-new|r3\n%d|%s|h1\n%d|" PROGRAM_NAME "|u1\n",
             page->renamed_tid, pid, notice, pid, page->renamed_tid, page->renamed_tid,
             page->hostile_tid, HOSTILE[RECOVERED_HOSTILE].text, page->unnamed_tid);
    size_t size;
    char *file = test_read_dir(p.logs, &size);
    char *got = layout == XLOG_LAYOUT_BINARY ? decoded(file, size, XLOG_LAYOUT_TEXT) : file;
    check_text("the recovered file", got, want);
    if (got != file)
        free(got);
    free(file);
    sem_destroy(&page->step);
    sem_destroy(&page->stepped);
    munmap(page, sizeof *page);
    test_place_remove(&p);
}

/* ---- the tests ------------------------------------------------------------------ */

static int program_named(void **state)
{
    (void)state;
    char name[16] = "";
    prctl(PR_GET_NAME, name, 0, 0, 0);
    if (strcmp(name, PROGRAM_NAME) != 0) {
        fprintf(stderr, "this program must run as test_thread_names (it is \"%s\")\n", name);
        return -1;
    }
    return 0;
}

static void each_thread_has_its_name_in_the_pattern(void **state)
{
    (void)state;
    run(named_and_unnamed, XLOG_LAYOUT_TEXT);
}

static void each_thread_has_its_name_in_json(void **state)
{
    (void)state;
    run(named_and_unnamed, XLOG_LAYOUT_JSON);
}

static void each_thread_has_its_name_in_a_binary_file(void **state)
{
    (void)state;
    run(named_and_unnamed, XLOG_LAYOUT_BINARY);
}

static void a_renamed_thread_has_its_new_name_after_a_flush(void **state)
{
    (void)state;
    run(renamed_mid_run, XLOG_LAYOUT_TEXT);
    run(renamed_mid_run, XLOG_LAYOUT_JSON);
    run(renamed_mid_run, XLOG_LAYOUT_BINARY);
}

static void hostile_names_are_escaped_as_every_field(void **state)
{
    (void)state;
    run(hostile_names, XLOG_LAYOUT_TEXT);
    run(hostile_names, XLOG_LAYOUT_JSON);
    run(hostile_names, XLOG_LAYOUT_BINARY);
}

static void threads_logging_at_once_each_have_their_own_name(void **state)
{
    (void)state;
    crowd_in(XLOG_LAYOUT_TEXT);
    crowd_in(XLOG_LAYOUT_BINARY);
}

static void recovered_lines_have_the_last_name_the_back_end_read(void **state)
{
    (void)state;
    recovered(XLOG_LAYOUT_TEXT);
}

static void recovered_binary_blocks_have_the_last_name_the_back_end_read(void **state)
{
    (void)state;
    recovered(XLOG_LAYOUT_BINARY);
}

/* ---- a name taken away in the middle of a block ------------------------------ */

/* A thread that names itself and logs, then waits for go, renames itself to
 * no name, waits for the back end's once-a-second read of the names (no
 * xlog_flush, which would end the binary block), and logs again. */
typedef struct unnamed_later {
    int tid;
    const test_place *place;
    sem_t logged, go, done;
} unnamed_later;

/* Waits until the back end has read a name of length bytes for thread tid
 * (of this process, logging into place), numbered other than not_id: its
 * ring's name, in the ring's file in the persistent directory (the back
 * end reads every living thread's name once a second; nothing else here
 * ends the block).  Returns the name's number.  (The back end stores a
 * name's number before its length: a new number with the length wanted is
 * the name wanted.) */
static uint32_t wait_until_the_back_end_reads(const test_place *place, int tid, uint32_t length,
                                              uint32_t not_id)
{
    char dir[PATH_MAX + 128];
    test_process_dir(place, getpid(), dir, sizeof dir);
    assert_true(dir[0] != '\0');
    for (;;) {
        uint32_t found = 0;
        size_t n;
        char **names = test_list_files(dir, &n);
        for (size_t i = 0; i < n; i++) {
            size_t size;
            xlog_ring *r = strncmp(names[i], "ring.", 5) == 0
                               ? test_map_leftover(dir, names[i], &size)
                               : NULL;
            if (!r)
                continue;
            uint32_t id = __atomic_load_n(&r->thread_name.id, __ATOMIC_ACQUIRE);
            if (__atomic_load_n(&r->tid, __ATOMIC_ACQUIRE) == tid && id != 0 && id != not_id &&
                __atomic_load_n(&r->thread_name.length, __ATOMIC_ACQUIRE) == length)
                found = id;
            munmap(r, size);
        }
        test_free_list(names, n);
        if (found)
            return found;
        usleep(10000);
    }
}

static void *named_then_unnamed(void *arg)
{
    unnamed_later *u = arg;
    u->tid = gettid_();
    name_self("before");
    log_message("named");
    uint32_t before = wait_until_the_back_end_reads(u->place, u->tid, 6, 0);
    sem_post(&u->logged);
    wait_for(&u->go);
    name_self("");
    wait_until_the_back_end_reads(u->place, u->tid, 0, before);
    log_message("unnamed");
    sem_post(&u->done);
    return NULL;
}

/* A thread whose tid is the same as tid modulo 8 (the slot of the file
 * sink's small table of the names its block gave), started and kept
 * waiting at go: other threads are started and end until one has it. */
typedef struct slot_mate {
    int tid;
    sem_t started, go;
    int wanted;
} slot_mate;

static void *slot_mate_thread(void *arg)
{
    slot_mate *m = arg;
    m->tid = gettid_();
    sem_post(&m->started);
    wait_for(&m->go);
    if (m->tid % 8 == m->wanted % 8) {
        name_self("mate");
        log_message("mate");
    }
    return NULL;
}

/* A thread renamed to no name after another thread with its slot in the
 * table (tid % 8) was named in the same block: the file sink knew no more
 * that the block had named it, gave no (empty) Thread name entry, and the
 * reader showed the old name for its later lines, where the text and JSON
 * layouts show none. */
static void a_thread_renamed_to_no_name_mid_block_has_none_in_the_binary_file(void **state)
{
    (void)state;
    test_place p;
    test_place_make(&p, "names-unnamed");
    xlog_config cfg = config_in(&p, XLOG_LAYOUT_BINARY);
    cfg.flush_interval_ms = 60000; /* one block for the whole run */
    assert_int_equal(xlog_open(&cfg), 0);
    unnamed_later u = {.place = &p};
    sem_init(&u.logged, 0, 0);
    sem_init(&u.go, 0, 0);
    sem_init(&u.done, 0, 0);
    pthread_t subject, mate_thread;
    assert_int_equal(pthread_create(&subject, NULL, named_then_unnamed, &u), 0);
    wait_for(&u.logged);
    slot_mate mate;
    for (;;) {
        mate = (slot_mate){.wanted = u.tid};
        sem_init(&mate.started, 0, 0);
        sem_init(&mate.go, 0, 0);
        assert_int_equal(pthread_create(&mate_thread, NULL, slot_mate_thread, &mate), 0);
        wait_for(&mate.started);
        sem_post(&mate.go);
        assert_int_equal(pthread_join(mate_thread, NULL), 0);
        sem_destroy(&mate.started);
        sem_destroy(&mate.go);
        if (mate.tid % 8 == u.tid % 8)
            break;
    }
    sem_post(&u.go);
    wait_for(&u.done);
    assert_int_equal(pthread_join(subject, NULL), 0);
    sem_destroy(&u.logged);
    sem_destroy(&u.go);
    sem_destroy(&u.done);
    assert_int_equal(xlog_close(), 0);

    static const shown_name before = {"before", "before", "before"};
    static const shown_name mate_name = {"mate", "mate", "mate"};
    static const shown_name none = {"", "", NULL};
    expected e = {0};
    expect(&e, u.tid, before, "named");
    expect(&e, mate.tid, mate_name, "mate");
    expect(&e, u.tid, none, "unnamed");
    size_t size;
    char *file = test_read_dir(p.logs, &size);
    char *text = decoded(file, size, XLOG_LAYOUT_TEXT);
    char *want = expected_text(&e, 0, NULL);
    check_text("the binary file's lines", text, want);
    free(text);
    free(want);
    char *json = decoded(file, size, XLOG_LAYOUT_JSON);
    want = expected_text(&e, 1, json);
    check_text("the binary file's JSON objects", json, want);
    free(json);
    free(want);
    free(file);
    test_place_remove(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(each_thread_has_its_name_in_the_pattern),
        cmocka_unit_test(each_thread_has_its_name_in_json),
        cmocka_unit_test(each_thread_has_its_name_in_a_binary_file),
        cmocka_unit_test(a_renamed_thread_has_its_new_name_after_a_flush),
        cmocka_unit_test(hostile_names_are_escaped_as_every_field),
        cmocka_unit_test(threads_logging_at_once_each_have_their_own_name),
        cmocka_unit_test(recovered_lines_have_the_last_name_the_back_end_read),
        cmocka_unit_test(recovered_binary_blocks_have_the_last_name_the_back_end_read),
        cmocka_unit_test(a_thread_renamed_to_no_name_mid_block_has_none_in_the_binary_file),
    };
    return cmocka_run_group_tests(tests, program_named, NULL);
}
