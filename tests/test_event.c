/*
 * test_event.c - a record becomes the same event, and so the same line,
 * whether the living back end writes it or recovery writes it for a
 * process killed before its back end read it: names longer than an event
 * carries (XLOG_MAX_NAME, 1024 bytes) are cut alike, between two UTF-8
 * characters, in every layout.
 *
 * A child logs three records from call sites whose file, function and
 * module names are over 1024 bytes of multi-byte characters, placed so that
 * byte 1024 falls inside a character: a site record (literal format), a
 * dynamic record of a site (a format in a variable), and an xlogout record
 * (its names in the record).  Its back end writes them (xlog_flush).  Then
 * a custom sink holds the back end (it never returns from one message), the
 * child makes the same three calls again, whose records stay unread in its
 * ring, and is killed with kill -9; xlog_recover writes them.  The file
 * must then hold exactly: the three live lines, recovery's notice, the
 * held line (from the file's buffer), the three recovered lines; each
 * recovered line the same bytes as its live one but for the time, and the
 * lines what the names cut between characters make (the xlogout record's
 * cut by the call, which copies them into the record, the others by the
 * back end or recovery).  The custom sink also sees the live events'
 * names: cut the same way, NUL-terminated.
 */
#include "testutil.h"

#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include <cmocka.h>

#include <xlog.h>

#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            print_error(__VA_ARGS__);                                                      \
            print_error("\n");                                                             \
            fail_msg("check failed: %s", #cond);                                           \
        }                                                                                  \
    } while (0)

/* ---- the names --------------------------------------------------------------- */

/* Each name is a short ASCII head and then a character of n bytes repeated
 * past 1024 bytes; the head's length puts byte 1024 inside a character. */
#define NAME_MAX_BYTES 1024
#define NAME_BUFFER 1400

static char long_file[NAME_BUFFER];     /* "d/" then U+20AC (3 bytes) */
static char long_function[NAME_BUFFER]; /* "f_" then U+1D11E (4 bytes) */
static char long_module[NAME_BUFFER];   /* "m" then U+00E9 (2 bytes) */
/* The same, cut at the last character boundary within 1024 bytes. */
static char cut_file[NAME_BUFFER], cut_function[NAME_BUFFER], cut_module[NAME_BUFFER];

static void make_name(char *name, char *cut, const char *head, const char *character)
{
    size_t head_length = strlen(head), n = strlen(character);
    size_t whole = (NAME_MAX_BYTES - head_length) / n; /* characters within 1024 bytes */
    /* byte 1024 is inside character whole (counting from 0), not after it */
    assert_true(head_length + whole * n < NAME_MAX_BYTES);
    strcpy(name, head);
    for (size_t i = 0; i < whole + 60; i++)
        strcat(name, character);
    assert_true(strlen(name) > NAME_MAX_BYTES && strlen(name) < NAME_BUFFER);
    memcpy(cut, name, head_length + whole * n);
    cut[head_length + whole * n] = '\0';
}

static int make_names(void **state)
{
    (void)state;
    make_name(long_file, cut_file, "d/", "\xe2\x82\xac");
    make_name(long_function, cut_function, "f_", "\xf0\x9d\x84\x9e");
    make_name(long_module, cut_module, "m", "\xc3\xa9");
    return 0;
}

/* ---- the child ------------------------------------------------------------- */

#define SITE_LINE 4242
#define DYNAMIC_LINE 4243
#define XLOGOUT_LINE 4244
#define SITE_MESSAGE "site record na\xc3\xafve 1 \xc3\xbc"
#define DYNAMIC_MESSAGE "dynamic record 2 \xc3\xbf"
#define HOLD_MESSAGE "hold the back end"
enum { RECORDS = 3 };

/* Call sites as XLOG's makes them, but with the test's names: no compiler
 * gives __FILE__ and __func__ this long. */
static xlog_impl_site site_of_literal, site_of_dynamic;

#define LOG_FROM(site, level, entry, ...)                                                  \
    do {                                                                                   \
        int call = xlog_impl_decide(&(site), (level));                                     \
        if (call)                                                                          \
            entry(&(site), call, __VA_ARGS__);                                             \
    } while (0)

static void log_records(void)
{
    static const char *volatile dynamic_format = "dynamic record %d %s";
    LOG_FROM(site_of_literal, XLOG_INFO, xlog_impl_log, "site record na\xc3\xafve %d %s", 1,
             "\xc3\xbc");
    LOG_FROM(site_of_dynamic, XLOG_WARN, xlog_impl_log_dynamic, dynamic_format, 2, "\xc3\xbf");
    xlogout(XLOG_ERROR, long_file, XLOGOUT_LINE, long_function, "xlogout record %d", 3);
}

/* What the child tells the parent. */
typedef struct shared_page {
    int held;   /* the back end is held */
    int logged; /* the second records are in the ring */
    int seen;   /* live events the custom sink saw (at most RECORDS) */
    int hold_line; /* the line of the call the custom sink does not return from */
    /* Each live event's file, function and module, as the sink saw them. */
    char names[RECORDS][3][NAME_BUFFER];
} shared_page;

static shared_page *page;

static void hold_the_back_end(void)
{
    page->hold_line = __LINE__ + 1;
    xlog_info(HOLD_MESSAGE);
}

static void copy_name(char *to, const char *name)
{
    size_t n = strnlen(name, NAME_BUFFER - 1);
    memcpy(to, name, n);
    to[n] = '\0';
}

static void sink_write(void *context, const xlog_event *event, const char *bytes, size_t length)
{
    (void)context;
    (void)bytes;
    (void)length;
    if (strcmp(event->message, HOLD_MESSAGE) == 0) {
        __atomic_store_n(&page->held, 1, __ATOMIC_RELEASE);
        for (;;)
            pause();
    }
    int seen = page->seen;
    if (seen < RECORDS) {
        copy_name(page->names[seen][0], event->file);
        copy_name(page->names[seen][1], event->function);
        copy_name(page->names[seen][2], event->module);
    }
    __atomic_store_n(&page->seen, seen + 1, __ATOMIC_RELEASE);
}

typedef enum layout { DEFAULT_LINE, PATTERN, JSON } layout;

#define PATTERN_TEXT                                                                       \
    "{time} [{level}] {path} {file}:{line} {function} {module} {pid} {tid} {message}"

static void pause_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000};
    while (nanosleep(&t, &t) != 0 && errno == EINTR) {
    }
}

static void child(const test_place *p, layout kind)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    alarm(60);
    site_of_literal = (xlog_impl_site){.file = long_file, .func = long_function,
                                       .line = SITE_LINE, .module = long_module};
    site_of_dynamic = (xlog_impl_site){.file = long_file, .func = long_function,
                                       .line = DYNAMIC_LINE, .module = long_module};
    xlog_custom_sink sink = xlog_custom_sink_defaults();
    sink.write = sink_write;
    const xlog_sink_config *sinks[] = {&sink.sink, NULL};
    xlog_config cfg = xlog_defaults();
    cfg.dir = p->logs;
    cfg.persistent_dir = p->shm;
    cfg.use_environment = 0;
    cfg.flush_interval_ms = 600000; /* the held line stays in the file's buffer */
    cfg.file_layout = kind == JSON ? XLOG_LAYOUT_JSON : XLOG_LAYOUT_TEXT;
    cfg.file_pattern = kind == PATTERN ? PATTERN_TEXT : NULL;
    cfg.sinks = sinks;
    if (xlog_open(&cfg) != 0)
        _exit(90);
    log_records();
    if (xlog_flush() != 0)
        _exit(91);
    hold_the_back_end();
    while (!__atomic_load_n(&page->held, __ATOMIC_ACQUIRE))
        pause_ms(1);
    log_records();
    __atomic_store_n(&page->logged, 1, __ATOMIC_RELEASE);
    for (;;)
        pause();
}

/* ---- the lines --------------------------------------------------------------- */

typedef struct buffer {
    char text[16384];
    size_t length;
} buffer;

static void put(buffer *b, const char *text)
{
    size_t n = strlen(text);
    assert_true(b->length + n < sizeof b->text);
    memcpy(b->text + b->length, text, n + 1);
    b->length += n;
}

static void put_int(buffer *b, long value)
{
    char text[32];
    snprintf(text, sizeof text, "%ld", value);
    put(b, text);
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The child's thread never names itself: it has its program's name. */
#define CHILD_THREAD_NAME "test_event"

/* A line of the layout without its time (a live line and its recovered
 * one are of two calls, made at different times), from names that need
 * no escaping; thread is the thread's name, NULL for a line of no thread
 * (recovery's notice). */
static void expected_line(buffer *b, layout kind, const char *level, int severity,
                          const char *file, int line, const char *function,
                          const char *module, int pid, int tid, const char *thread,
                          const char *message)
{
    b->length = 0;
    b->text[0] = '\0';
    if (kind == JSON) {
        put(b, "{\"timestamp\":\"\",\"severity_text\":\"");
        put(b, level);
        put(b, "\",\"severity_number\":");
        put_int(b, severity);
        put(b, ",\"body\":\"");
        put(b, message);
        put(b, "\",\"attributes\":{\"code.filepath\":\"");
        put(b, file);
        put(b, "\",\"code.lineno\":");
        put_int(b, line);
        put(b, ",\"code.function\":\"");
        put(b, function);
        put(b, "\",\"thread.id\":");
        put_int(b, tid);
        if (thread) {
            put(b, ",\"thread.name\":\"");
            put(b, thread);
            put(b, "\"");
        }
        put(b, ",\"process.pid\":");
        put_int(b, pid);
        if (module[0]) {
            put(b, ",\"xlog.module\":\"");
            put(b, module);
            put(b, "\"");
        }
        put(b, "}}");
        return;
    }
    put(b, " [");
    put(b, level);
    put(b, "] ");
    if (kind == PATTERN) {
        put(b, file);
        put(b, " ");
    }
    put(b, base_name(file));
    put(b, ":");
    put_int(b, line);
    put(b, " ");
    put(b, function);
    put(b, " ");
    if (kind == PATTERN) {
        put(b, module);
        put(b, " ");
        put_int(b, pid);
        put(b, " ");
    }
    put_int(b, tid);
    put(b, " ");
    put(b, message);
}

/* line (len bytes, no '\n') without the text of its time, into b; 0 when
 * it has no time where the layout puts it. */
static int without_time(buffer *b, layout kind, const char *line, size_t len)
{
    static const char json_head[] = "{\"timestamp\":\"";
    size_t head = kind == JSON ? sizeof json_head - 1 : 0;
    size_t time_length = kind == JSON ? 30 : 29; /* ...T14:45:25.123456789Z, or a space */
    if (len < head + time_length || len - head - time_length >= sizeof b->text - head ||
        memcmp(line, json_head, head) != 0)
        return 0;
    const char *t = line + head;
    for (size_t i = 0; i < time_length; i++) {
        char c = t[i], want = "0000-00-00 00:00:00.000000000Z"[i];
        if (i == 10 && kind == JSON)
            want = 'T';
        if (want == '0' ? c < '0' || c > '9' : c != want)
            return 0;
    }
    memcpy(b->text, line, head);
    memcpy(b->text + head, t + time_length, len - head - time_length);
    b->length = len - time_length;
    b->text[b->length] = '\0';
    return 1;
}

/* Where a and b first differ (the shorter's length if one begins the other);
 * the messages show what is around it, a line being too long to show. */
static size_t first_difference(const buffer *a, const buffer *b)
{
    size_t at = 0;
    while (at < a->length && at < b->length && a->text[at] == b->text[at])
        at++;
    return at;
}

/* ---- the case ---------------------------------------------------------------- */

static void recovery_writes_the_line_the_back_end_wrote(layout kind)
{
    test_place p;
    test_place_make(&p, "event");
    page = mmap(NULL, sizeof *page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    assert_true(page != MAP_FAILED);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        child(&p, kind);
    while (!__atomic_load_n(&page->logged, __ATOMIC_ACQUIRE)) {
        CHECK(waitpid(pid, NULL, WNOHANG) != pid, "the child ended before logging");
        pause_ms(1);
    }
    kill(pid, SIGKILL);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "the child ended otherwise: %d",
          status);
    long recovered = xlog_recover(p.logs, p.shm);
    CHECK(recovered == RECORDS + 1, "%ld lines recovered (%s)", recovered, xlog_last_error());

    size_t size;
    char *text = test_read_dir(p.logs, &size);
    enum { LINES = 2 * RECORDS + 2 };
    const char *line[LINES + 1];
    size_t length[LINES + 1];
    size_t count = 0;
    for (const char *at = text, *end; (end = memchr(at, '\n', size - (size_t)(at - text)));
         at = end + 1) {
        CHECK(count < LINES, "more than %d lines:\n%s", LINES, text);
        line[count] = at;
        length[count++] = (size_t)(end - at);
    }
    CHECK(count == LINES && text[size - 1] == '\n', "%zu lines:\n%s", count, text);

    /* Live lines 0-2, the notice, the held line, recovered lines 5-7. */
    static buffer live, dead, want;
    int tid = pid; /* the child's main thread */
    char notice[256];
    test_recovery_notice(notice, sizeof notice, RECORDS + 1, pid, getpid());
    expected_line(&want, kind, "WARN", 13, "xlog", 0, "xlog", "", pid, tid, NULL,
                  notice);
    CHECK(without_time(&dead, kind, line[RECORDS], length[RECORDS]) &&
              strcmp(dead.text, want.text) == 0,
          "the notice:\n%.*s\nnot\n%s", (int)length[RECORDS], line[RECORDS], want.text);
    expected_line(&want, kind, "INFO", 9, __FILE__, page->hold_line, "hold_the_back_end", "", pid,
                  tid, CHILD_THREAD_NAME, HOLD_MESSAGE);
    CHECK(without_time(&dead, kind, line[RECORDS + 1], length[RECORDS + 1]) &&
              strcmp(dead.text, want.text) == 0,
          "the held line:\n%.*s\nnot\n%s", (int)length[RECORDS + 1], line[RECORDS + 1],
          want.text);
    for (int i = 0; i < RECORDS; i++) {
        int j = RECORDS + 2 + i;
        CHECK(without_time(&live, kind, line[i], length[i]), "live line %d has no time:\n%.*s", i,
              (int)length[i], line[i]);
        CHECK(without_time(&dead, kind, line[j], length[j]), "recovered line %d has no time:\n%.*s",
              i, (int)length[j], line[j]);
        size_t at = first_difference(&live, &dead);
        CHECK(live.length == dead.length && at == live.length,
              "record %d differs from byte %zu on; written live:\n...%.80s\nrecovered:\n...%.80s",
              i, at, live.text + (at > 40 ? at - 40 : 0), dead.text + (at > 40 ? at - 40 : 0));
    }
    without_time(&live, kind, line[0], length[0]);
    expected_line(&want, kind, "INFO", 9, cut_file, SITE_LINE, cut_function, cut_module, pid, tid,
                  CHILD_THREAD_NAME, SITE_MESSAGE);
    size_t at = first_difference(&live, &want);
    CHECK(strcmp(live.text, want.text) == 0,
          "the site record's line differs from byte %zu on:\n...%.80s\nnot\n...%.80s", at,
          live.text + (at > 40 ? at - 40 : 0), want.text + (at > 40 ? at - 40 : 0));
    without_time(&live, kind, line[1], length[1]);
    expected_line(&want, kind, "WARN", 13, cut_file, DYNAMIC_LINE, cut_function, cut_module, pid,
                  tid, CHILD_THREAD_NAME, DYNAMIC_MESSAGE);
    at = first_difference(&live, &want);
    CHECK(strcmp(live.text, want.text) == 0,
          "the dynamic record's line differs from byte %zu on:\n...%.80s\nnot\n...%.80s", at,
          live.text + (at > 40 ? at - 40 : 0), want.text + (at > 40 ? at - 40 : 0));
    without_time(&live, kind, line[2], length[2]);
    expected_line(&want, kind, "ERROR", 17, cut_file, XLOGOUT_LINE, cut_function, "", pid, tid,
                  CHILD_THREAD_NAME, "xlogout record 3");
    at = first_difference(&live, &want);
    CHECK(strcmp(live.text, want.text) == 0,
          "the xlogout record's line differs from byte %zu on:\n...%.80s\nnot\n...%.80s", at,
          live.text + (at > 40 ? at - 40 : 0), want.text + (at > 40 ? at - 40 : 0));
    free(text);

    /* The names of the live events: cut between characters, NUL-terminated
     * (xlogout names no module). */
    CHECK(page->seen == RECORDS, "the custom sink saw %d events", page->seen);
    for (int i = 0; i < RECORDS; i++) {
        CHECK(strcmp(page->names[i][0], cut_file) == 0, "event %d's file: %zu bytes", i,
              strlen(page->names[i][0]));
        CHECK(strcmp(page->names[i][1], cut_function) == 0, "event %d's function: %zu bytes", i,
              strlen(page->names[i][1]));
        CHECK(strcmp(page->names[i][2], i < 2 ? cut_module : "") == 0,
              "event %d's module: %zu bytes", i,
              strlen(page->names[i][2]));
    }

    CHECK(xlog_recover(p.logs, p.shm) == 0, "recovered twice: %s", xlog_last_error());
    munmap(page, sizeof *page);
    test_place_remove(&p);
}

static void over_long_names_are_recovered_as_the_back_end_wrote_them_in_the_default_line(
    void **state)
{
    (void)state;
    recovery_writes_the_line_the_back_end_wrote(DEFAULT_LINE);
}

static void over_long_names_are_recovered_as_the_back_end_wrote_them_in_a_pattern(void **state)
{
    (void)state;
    recovery_writes_the_line_the_back_end_wrote(PATTERN);
}

static void over_long_names_are_recovered_as_the_back_end_wrote_them_in_json(void **state)
{
    (void)state;
    recovery_writes_the_line_the_back_end_wrote(JSON);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(
            over_long_names_are_recovered_as_the_back_end_wrote_them_in_the_default_line),
        cmocka_unit_test(over_long_names_are_recovered_as_the_back_end_wrote_them_in_a_pattern),
        cmocka_unit_test(over_long_names_are_recovered_as_the_back_end_wrote_them_in_json),
    };
    return cmocka_run_group_tests(tests, make_names, NULL);
}
