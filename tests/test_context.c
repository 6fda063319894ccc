/*
 * test_context.c - a thread's context (xlog.h, "Context"): the pairs each
 * line carries in text ({context}), in JSON (trace_id and span_id on the
 * record, the other keys as attributes) and in binary files (read back by
 * the library's reader and shown by both layouts), line by line and byte
 * for byte: two threads serving different requests, values replaced and
 * cleared, hostile keys and values, the limits and what is refused, a
 * thread's end and the next thread on its ring, laps of a small ring, a
 * backtrace, fork, signal handlers, the crash flush and kill -9.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "testutil.h"

#include "binary/decode.h"
#include "layouts/layout.h"

/* Every line of the tests but the JSON ones: the thread, its context, the
 * message. */
#define PATTERN "{tid} {context}|{message}"

static int gettid_(void)
{
    return (int)syscall(SYS_gettid);
}

/* The one call of the tests whose place JSON shows. */
static const int say_line = __LINE__ + 3;
static void say(const char *message)
{
    xlog_info("%s", message);
}

/* ---- reading what was written ------------------------------------------------ */

typedef struct lines {
    char **line;
    size_t count;
} lines;

static void lines_add(lines *l, const char *text, size_t length)
{
    l->line = realloc(l->line, (l->count + 1) * sizeof *l->line);
    l->line[l->count++] = strndup(text, length);
}

static void lines_free(lines *l)
{
    for (size_t i = 0; i < l->count; i++)
        free(l->line[i]);
    free(l->line);
    l->line = NULL;
    l->count = 0;
}

/* The lines of every file of dir, without their '\n'. */
static lines text_lines(const char *dir)
{
    lines l = {0};
    size_t length;
    char *all = test_read_dir(dir, &length);
    for (char *p = all, *nl; (nl = memchr(p, '\n', length - (size_t)(p - all))); p = nl + 1)
        lines_add(&l, p, (size_t)(nl - p));
    free(all);
    return l;
}

/* The one file of dir whose name ends in suffix. */
static char *only_file(const char *dir, const char *suffix)
{
    size_t n = 0;
    char **names = test_list_files(dir, &n);
    char *found = NULL;
    for (size_t i = 0; i < n; i++) {
        size_t length = strlen(names[i]);
        if (length >= strlen(suffix) && strcmp(names[i] + length - strlen(suffix), suffix) == 0) {
            assert_null(found);
            found = test_path(dir, names[i]);
        }
    }
    test_free_list(names, n);
    assert_non_null(found);
    return found;
}

/* The entries of the binary file of dir, each shown by a layout (kind,
 * pattern), through the library's reader, as xlog-cat shows them. */
static lines binary_lines(const char *dir, xlog_layout_kind kind, const char *pattern)
{
    char *path = only_file(dir, ".xlog");
    size_t length = 0;
    char *data = test_read_file(path, &length);
    assert_non_null(data);
    xlog_binary_reader *r = xlog_binary_reader_new(path);
    xlog_layout *layout;
    assert_int_equal(xlog_layout_create(&layout, kind, pattern, XLOG_DEFAULT_LINE, "test"), 0);
    char *out = malloc(xlog_layout_max_line(layout, 4096));
    lines l = {0};
    for (;;) {
        int rc = xlog_binary_next(r, (const uint8_t *)data, 0, length, 1);
        if (rc == XLOG_BINARY_DAMAGE)
            fail_msg("%s", xlog_binary_error(r));
        if (rc != XLOG_BINARY_ENTRY)
            break;
        size_t n = xlog_layout_write(layout, xlog_binary_event(r), out);
        lines_add(&l, out, n - 1);
    }
    free(out);
    xlog_layout_destroy(layout);
    xlog_binary_reader_free(r);
    free(data);
    free(path);
    return l;
}

/* The lines of thread tid (PATTERN, or JSON's "thread.id"), in order. */
static lines of_thread(const lines *all, int tid, int json)
{
    char mark[64];
    snprintf(mark, sizeof mark, json ? "\"thread.id\":%d," : "%d ", tid);
    lines l = {0};
    for (size_t i = 0; i < all->count; i++)
        if (json ? strstr(all->line[i], mark) != NULL
                 : strncmp(all->line[i], mark, strlen(mark)) == 0)
            lines_add(&l, all->line[i], strlen(all->line[i]));
    return l;
}

/* A JSON line without its timestamp's value, which the test cannot know:
 * checked to be one, the rest returned. */
static const char *after_timestamp(const char *line)
{
    static const char head[] = "{\"timestamp\":\"";
    assert_memory_equal(line, head, sizeof head - 1);
    const char *end = strchr(line + sizeof head - 1, '"');
    assert_non_null(end);
    assert_int_equal(end - line - (long)(sizeof head - 1), 30); /* 2026-11-27T09:00:00.123456789Z */
    return end;
}

/* The JSON line of say(message) by tid, from the quote that ends its
 * timestamp: top are the record's own fields from the context (",..."),
 * attributes its other keys (",...").  The test names no thread: each has
 * the program's name (xlog.h, "Thread names"). */
static char *json_of(const char *message, int tid, const char *top, const char *attributes)
{
    char *line;
    if (asprintf(&line,
                 "\",\"severity_text\":\"INFO\",\"severity_number\":9,\"body\":\"%s\"%s,"
                 "\"attributes\":{\"code.filepath\":\"%s\",\"code.lineno\":%d,"
                 "\"code.function\":\"say\",\"thread.id\":%d,\"thread.name\":\"%.15s\","
                 "\"process.pid\":%d%s}}",
                 message, top, __FILE__, say_line, tid, program_invocation_short_name,
                 (int)getpid(), attributes) < 0)
        abort();
    return line;
}

static xlog_config config_in(const test_place *place, xlog_layout_kind layout)
{
    xlog_config cfg = test_config_in(place->logs);
    cfg.persistent_dir = place->shm;
    cfg.file_layout = layout;
    cfg.file_pattern = PATTERN;
    return cfg;
}

/* Whether line is the notice of a thread tid's messages dropped for why
 * (lib/backend/backend.c, report_drops), exactly. */
static int is_drop_notice(const char *line, int tid, const char *why)
{
    unsigned long long dropped;
    int line_tid;
    if (sscanf(line, "%d |%llu ", &line_tid, &dropped) != 2)
        return 0;
    char *notice;
    assert_true(asprintf(&notice, "%d |%llu %s of this thread %s not written: %llu %s", tid,
                         dropped, test_plural(dropped, "message", "messages"),
                         test_plural(dropped, "was", "were"), dropped, why) > 0);
    int same = strcmp(line, notice) == 0;
    free(notice);
    return same;
}

/* ---- two threads, each serving its own request ----------------------------------- */

/* What each step of a request sets, and what its line then carries. */
typedef struct step {
    const char *message;
    const char *text;       /* {context} */
    const char *top;        /* JSON: the record's own fields */
    const char *attributes; /* JSON: the other keys */
} step;

/* Thread 0's steps; thread 1's are the same with 'b' for 'a' and "bob"
 * for "alice" (request_for). */
static const step request_steps[] = {
    {"a one", "request_id=a-1 trace_id=4bf92f3577b34da6a3ce929d0e0e473a user=alice",
     ",\"trace_id\":\"4bf92f3577b34da6a3ce929d0e0e473a\"",
     ",\"request_id\":\"a-1\",\"user\":\"alice\""},
    {"a two", "request_id=a-2 trace_id=4bf92f3577b34da6a3ce929d0e0e473a user=alice",
     ",\"trace_id\":\"4bf92f3577b34da6a3ce929d0e0e473a\"",
     ",\"request_id\":\"a-2\",\"user\":\"alice\""},
    {"a three", "request_id=a-2 trace_id=4bf92f3577b34da6a3ce929d0e0e473a",
     ",\"trace_id\":\"4bf92f3577b34da6a3ce929d0e0e473a\"", ",\"request_id\":\"a-2\""},
    {"a four", "request_id=a-2 trace_id=4bf92f3577b34da6a3ce929d0e0e473a span_id=00f067aa0ba902ba",
     ",\"trace_id\":\"4bf92f3577b34da6a3ce929d0e0e473a\",\"span_id\":\"00f067aa0ba902ba\"",
     ",\"request_id\":\"a-2\""},
    {"a five", "", "", ""},
};
#define STEPS (sizeof request_steps / sizeof request_steps[0])

/* s with thread t's letters: every 'a' of an id or message and "alice". */
static char *request_for(const char *s, int t)
{
    char *out = malloc(strlen(s) + 1);
    const char *user = strstr(s, "alice");
    size_t i = 0;
    for (; *s; s++) {
        if (t == 1 && user && s >= user && s < user + 5) {
            if (s == user) {
                memcpy(out + i, "bob", 3);
                i += 3;
            }
            continue;
        }
        /* a message's or request id's letter: "a one", "a-1", the ids' last digit */
        int is_letter = *s == 'a' && (s[1] == ' ' || s[1] == '-' || s[1] == '"' || s[1] == '\0');
        out[i++] = t == 1 && is_letter ? 'b' : *s;
    }
    out[i] = '\0';
    return out;
}

typedef struct request {
    int t;
    int tid;
    pthread_barrier_t *barrier;
} request;

static void *serve(void *arg)
{
    request *q = arg;
    char letter = q->t ? 'b' : 'a';
    char id[8], trace[40], span[20], message[16];
    q->tid = gettid_();
    snprintf(trace, sizeof trace, "4bf92f3577b34da6a3ce929d0e0e473%c", letter);
    snprintf(span, sizeof span, "00f067aa0ba902b%c", letter);
    for (size_t i = 0; i < STEPS; i++) {
        pthread_barrier_wait(q->barrier);
        switch (i) {
        case 0:
            snprintf(id, sizeof id, "%c-%d", letter, 1);
            assert_int_equal(xlog_context_set("request_id", "%s", id), 0);
            assert_int_equal(xlog_context_set("trace_id", "%s", trace), 0);
            assert_int_equal(xlog_context_set("user", "%s", q->t ? "bob" : "alice"), 0);
            break;
        case 1:
            assert_int_equal(xlog_context_set("request_id", "%c-%d", letter, 2), 0);
            break;
        case 2:
            assert_int_equal(xlog_context_clear("user"), 0);
            break;
        case 3:
            assert_int_equal(xlog_context_set("span_id", "%s", span), 0);
            break;
        case 4:
            assert_int_equal(xlog_context_clear(NULL), 0);
            break;
        }
        char *m = request_for(request_steps[i].message, q->t);
        snprintf(message, sizeof message, "%s", m);
        free(m);
        say(message);
    }
    return NULL;
}

/* Runs the two requests; their threads' ids in tids. */
static void serve_two_requests(int tids[2])
{
    pthread_barrier_t barrier;
    pthread_barrier_init(&barrier, NULL, 2);
    request q[2] = {{0, 0, &barrier}, {1, 0, &barrier}};
    pthread_t th[2];
    for (int t = 0; t < 2; t++)
        pthread_create(&th[t], NULL, serve, &q[t]);
    for (int t = 0; t < 2; t++) {
        pthread_join(th[t], NULL);
        tids[t] = q[t].tid;
    }
    pthread_barrier_destroy(&barrier);
}

static void check_text_requests(const lines *all, const int tids[2])
{
    assert_int_equal(all->count, 2 * STEPS);
    for (int t = 0; t < 2; t++) {
        lines mine = of_thread(all, tids[t], 0);
        assert_int_equal(mine.count, STEPS);
        for (size_t i = 0; i < STEPS; i++) {
            char *text = request_for(request_steps[i].text, t);
            char *message = request_for(request_steps[i].message, t);
            char *want;
            assert_true(asprintf(&want, "%d %s|%s", tids[t], text, message) > 0);
            assert_string_equal(mine.line[i], want);
            free(want);
            free(text);
            free(message);
        }
        lines_free(&mine);
    }
}

static void check_json_requests(const lines *all, const int tids[2])
{
    assert_int_equal(all->count, 2 * STEPS);
    for (int t = 0; t < 2; t++) {
        lines mine = of_thread(all, tids[t], 1);
        assert_int_equal(mine.count, STEPS);
        for (size_t i = 0; i < STEPS; i++) {
            char *message = request_for(request_steps[i].message, t);
            char *top = request_for(request_steps[i].top, t);
            char *attributes = request_for(request_steps[i].attributes, t);
            char *want = json_of(message, tids[t], top, attributes);
            assert_string_equal(after_timestamp(mine.line[i]), want);
            free(want);
            free(message);
            free(top);
            free(attributes);
        }
        lines_free(&mine);
    }
}

/* Two threads serve their requests (serve_two_requests) into files of
 * layout in a new place (tag), opened and closed around them. */
static void two_requests_logged(test_place *place, const char *tag, xlog_layout_kind layout,
                                int tids[2])
{
    test_place_make(place, tag);
    xlog_config cfg = config_in(place, layout);
    assert_int_equal(xlog_open(&cfg), 0);
    serve_two_requests(tids);
    assert_int_equal(xlog_close(), 0);
}

static void two_threads_serving_requests_each_carry_their_own_context_in_text(void **state)
{
    (void)state;
    test_place place;
    int tids[2];
    two_requests_logged(&place, "ctx-text", XLOG_LAYOUT_TEXT, tids);
    lines all = text_lines(place.logs);
    check_text_requests(&all, tids);
    lines_free(&all);
    test_place_remove(&place);
}

static void two_threads_serving_requests_each_carry_their_own_context_in_json(void **state)
{
    (void)state;
    test_place place;
    int tids[2];
    two_requests_logged(&place, "ctx-json", XLOG_LAYOUT_JSON, tids);
    lines all = text_lines(place.logs);
    check_json_requests(&all, tids);
    lines_free(&all);
    test_place_remove(&place);
}

static void binary_files_carry_each_threads_context_for_both_layouts(void **state)
{
    (void)state;
    test_place place;
    int tids[2];
    two_requests_logged(&place, "ctx-binary", XLOG_LAYOUT_BINARY, tids);
    lines text = binary_lines(place.logs, XLOG_LAYOUT_TEXT, PATTERN);
    check_text_requests(&text, tids);
    lines_free(&text);
    lines json = binary_lines(place.logs, XLOG_LAYOUT_JSON, NULL);
    check_json_requests(&json, tids);
    lines_free(&json);
    test_place_remove(&place);
}

/* ---- the default line, hostile keys and values, limits --------------------------- */

static void the_default_line_does_not_show_the_context(void **state)
{
    (void)state;
    test_place place;
    test_place_make(&place, "ctx-default");
    xlog_config cfg = test_config_in(place.logs);
    cfg.file_pattern = "{level} {function} {message}"; /* the default line but its time */
    assert_int_equal(xlog_open(&cfg), 0);
    assert_int_equal(xlog_context_set("request_id", "%d", 7), 0);
    say("plain");
    assert_int_equal(xlog_close(), 0);
    xlog_context_clear(NULL);
    lines all = text_lines(place.logs);
    assert_int_equal(all.count, 1);
    assert_string_equal(all.line[0], "INFO say plain");
    lines_free(&all);
    test_place_remove(&place);
}

static void a_context_set_before_xlog_open_stays_across_close_and_open(void **state)
{
    (void)state;
    test_place place;
    test_place_make(&place, "ctx-reopen");
    xlog_config cfg = config_in(&place, XLOG_LAYOUT_TEXT);
    assert_int_equal(xlog_context_set("request_id", "%s", "early"), 0);
    assert_int_equal(xlog_open(&cfg), 0);
    say("first open");
    assert_int_equal(xlog_close(), 0);
    assert_int_equal(xlog_open(&cfg), 0);
    say("second open");
    assert_int_equal(xlog_context_clear("request_id"), 0);
    say("cleared");
    assert_int_equal(xlog_close(), 0);
    lines all = text_lines(place.logs);
    const char *want[] = {"request_id=early|first open", "request_id=early|second open",
                          "|cleared"};
    assert_int_equal(all.count, 3);
    for (size_t i = 0; i < 3; i++) {
        char *line;
        assert_true(asprintf(&line, "%d %s", gettid_(), want[i]) > 0);
        assert_string_equal(all.line[i], line);
        free(line);
    }
    lines_free(&all);
    test_place_remove(&place);
}

static void hostile_keys_and_values_are_escaped_by_each_layouts_rule(void **state)
{
    (void)state;
    static const struct {
        const char *key, *value;
    } pairs[] = {
        {"a b", "two words"},
        {"k=v", "x=y"},
        {"q\"uote", "say \"hi\"\\"},
        {"new\nline", "cr\rtab\t"},
        {"\x01\x7f", "\x1b[31mred"},
        {"\xff\xfe", "\xc3\x28 \xe2\x80\xa8"},
        {"ok", "caf\xc3\xa9"},
    };
    static const char text[] =
        "a b=two words k=v=x=y q\"uote=say \"hi\"\\ new\\nline=cr\\rtab\\t "
        "\\x01\\x7f=\\x1b[31mred \\xff\\xfe=\\xc3( \\u2028 ok=caf\xc3\xa9";
    static const char attributes[] =
        ",\"a b\":\"two words\",\"k=v\":\"x=y\",\"q\\\"uote\":\"say \\\"hi\\\"\\\\\","
        "\"new\\nline\":\"cr\\rtab\\t\",\"\\u0001\\u007f\":\"\\u001b[31mred\","
        "\"\xef\xbf\xbd\xef\xbf\xbd\":\"\xef\xbf\xbd( \\u2028\",\"ok\":\"caf\xc3\xa9\"";
    for (int layout = 0; layout < 3; layout++) {
        test_place place;
        test_place_make(&place, "ctx-hostile");
        xlog_config cfg = config_in(&place, (xlog_layout_kind)layout);
        assert_int_equal(xlog_open(&cfg), 0);
        for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
            assert_int_equal(xlog_context_set(pairs[i].key, "%s", pairs[i].value), 0);
        say("hostile");
        assert_int_equal(xlog_context_clear(NULL), 0);
        assert_int_equal(xlog_close(), 0);
        for (int shown = 0; shown < 2; shown++) {
            lines all = layout == XLOG_LAYOUT_BINARY
                            ? binary_lines(place.logs, shown ? XLOG_LAYOUT_JSON : XLOG_LAYOUT_TEXT,
                                           shown ? NULL : PATTERN)
                            : text_lines(place.logs);
            int json = layout == XLOG_LAYOUT_BINARY ? shown : layout == XLOG_LAYOUT_JSON;
            assert_int_equal(all.count, 1);
            if (json) {
                char *want = json_of("hostile", gettid_(), "", attributes);
                assert_string_equal(after_timestamp(all.line[0]), want);
                free(want);
            } else {
                char *want;
                assert_true(asprintf(&want, "%d %s|hostile", gettid_(), text) > 0);
                assert_string_equal(all.line[0], want);
                free(want);
            }
            lines_free(&all);
            if (layout != XLOG_LAYOUT_BINARY)
                break;
        }
        test_place_remove(&place);
    }
}

static void refused_keys_and_values_past_the_limits_change_nothing(void **state)
{
    (void)state;
    test_place place;
    test_place_make(&place, "ctx-limits");
    xlog_config cfg = config_in(&place, XLOG_LAYOUT_TEXT);
    assert_int_equal(xlog_open(&cfg), 0);
    char key[XLOG_CONTEXT_MAX_KEY + 2], value[XLOG_CONTEXT_MAX_VALUE + 2];
    memset(key, 'k', sizeof key - 1);
    key[sizeof key - 1] = '\0';
    memset(value, 'v', sizeof value - 1);
    value[sizeof value - 1] = '\0';

    assert_int_equal(xlog_context_set("", "%d", 1), -EINVAL);
    assert_int_equal(xlog_context_set(NULL, "%d", 1), -EINVAL);
    assert_int_equal(xlog_context_set("thread.id", "%d", 1), -EINVAL);
    assert_int_equal(xlog_context_set("code.lineno", "%d", 1), -EINVAL);
    assert_int_equal(xlog_context_set(key, "%d", 1), -E2BIG); /* 33 bytes */
    assert_int_equal(xlog_context_clear("nothing"), -ENOENT);
    key[XLOG_CONTEXT_MAX_KEY] = '\0';
    assert_int_equal(xlog_context_set(key, "%s", "longest key"), 0);
    assert_int_equal(xlog_context_set("v", "%s", value), -E2BIG); /* 129 bytes */
    value[XLOG_CONTEXT_MAX_VALUE] = '\0';
    assert_int_equal(xlog_context_set("v", "%s", value), 0);
    assert_int_equal(xlog_context_set("v", "%s%s", value, "x"), -E2BIG); /* kept as it was */
    for (int i = 2; i < XLOG_CONTEXT_MAX_PAIRS; i++) {
        char name[8];
        snprintf(name, sizeof name, "k%d", i);
        assert_int_equal(xlog_context_set(name, "%d", i), 0);
    }
    assert_int_equal(xlog_context_set("ninth", "%d", 9), -ENOSPC);
    assert_int_equal(xlog_context_set("k2", "%s", "two"), 0); /* a replaced value needs no room */
    say("full");
    assert_int_equal(xlog_context_clear(NULL), 0);
    assert_int_equal(xlog_context_clear(NULL), 0);
    say("none");
    assert_int_equal(xlog_close(), 0);

    lines all = text_lines(place.logs);
    assert_int_equal(all.count, 2);
    char *want;
    assert_true(asprintf(&want, "%d %s=longest key v=%s k2=two k3=3 k4=4 k5=5 k6=6 k7=7|full",
                         gettid_(), key, value) > 0);
    assert_string_equal(all.line[0], want);
    free(want);
    assert_true(asprintf(&want, "%d |none", gettid_()) > 0);
    assert_string_equal(all.line[1], want);
    free(want);
    lines_free(&all);
    test_place_remove(&place);
}

/* ---- threads that end, rings reused, laps ----------------------------------------- */

/* The rings' files under a persistent directory (one directory per
 * process in it). */
static size_t ring_files(const char *persistent_dir)
{
    size_t count = 0, n;
    char **processes = test_list_files(persistent_dir, &n);
    for (size_t i = 0; i < n; i++) {
        char *dir = test_path(persistent_dir, processes[i]);
        size_t m;
        char **files = test_list_files(dir, &m);
        for (size_t j = 0; j < m; j++)
            count += strncmp(files[j], "ring.", 5) == 0;
        test_free_list(files, m);
        free(dir);
    }
    test_free_list(processes, n);
    return count;
}

typedef struct short_thread {
    int with_context;
    int tid;
} short_thread;

static void *short_lived(void *arg)
{
    short_thread *s = arg;
    s->tid = gettid_();
    if (s->with_context)
        assert_int_equal(xlog_context_set("left", "by %d", s->tid), 0);
    say("short");
    xlog_flush(); /* its ring empty, the back end may give it to the next thread */
    return NULL; /* ends without clearing */
}

static void a_thread_that_ends_leaves_no_context_to_the_next_on_its_ring(void **state)
{
    (void)state;
    test_place place;
    test_place_make(&place, "ctx-reuse");
    xlog_config cfg = config_in(&place, XLOG_LAYOUT_TEXT);
    assert_int_equal(xlog_open(&cfg), 0);
    enum { THREADS = 24 };
    short_thread s[THREADS];
    for (int i = 0; i < THREADS; i++) {
        s[i] = (short_thread){i % 2 == 0, 0};
        pthread_t th;
        pthread_create(&th, NULL, short_lived, &s[i]);
        pthread_join(th, NULL);
        /* the ended thread's ring is retired and pooled at the back end's
         * next pass: a flush makes one */
        xlog_flush();
    }
    /* The case is about reuse: the pool gave the later threads rings the
     * ended ones had (a ring is a file "ring.<n>" of the survival
     * directory). */
    assert_true(ring_files(place.shm) < THREADS);
    assert_int_equal(xlog_close(), 0);
    lines all = text_lines(place.logs);
    assert_int_equal(all.count, THREADS);
    for (int i = 0; i < THREADS; i++) {
        char *want;
        if (s[i].with_context)
            assert_true(asprintf(&want, "%d left=by %d|short", s[i].tid, s[i].tid) > 0);
        else
            assert_true(asprintf(&want, "%d |short", s[i].tid) > 0);
        assert_string_equal(all.line[i], want);
        free(want);
    }
    lines_free(&all);
    test_place_remove(&place);
}

/* 20,000 lines (at scale 1) in a 64 KiB ring: many laps and wraps, with a
 * change every 10 lines (a 100-byte value) and a clear every 30, logged as
 * fast as the thread can; under full_policy.  Returns the lines, and in
 * *count how many were logged. */
static lines log_in_batches(int full_policy, long *count)
{
    test_place place;
    test_place_make(&place, "ctx-laps");
    xlog_config cfg = config_in(&place, XLOG_LAYOUT_TEXT);
    cfg.ring_size = 64 * 1024;
    cfg.full_policy = full_policy;
    assert_int_equal(xlog_open(&cfg), 0);
    long n = test_scaled(20000);
    if (n < 2000)
        n = 2000;
    for (long i = 0; i < n; i++) {
        if (i % 10 == 0)
            assert_int_equal(xlog_context_set("batch", "%ld%0100d", i / 10, 0), 0);
        if (i % 30 == 0)
            assert_int_equal(xlog_context_clear(NULL), 0);
        xlog_info("line %ld", i);
    }
    assert_int_equal(xlog_context_clear(NULL), 0);
    assert_int_equal(xlog_close(), 0);
    *count = n;
    lines all = text_lines(place.logs);
    test_place_remove(&place);
    return all;
}

/* Line i of log_in_batches as it must be. */
static char *batch_line(long i)
{
    char *want;
    if (i % 30 < 10)
        assert_true(asprintf(&want, "%d |line %ld", gettid_(), i) > 0);
    else
        assert_true(asprintf(&want, "%d batch=%ld%0100d|line %ld", gettid_(), i / 10, 0, i) > 0);
    return want;
}

static void changes_across_the_laps_of_a_small_ring_go_with_their_lines(void **state)
{
    (void)state;
    long count;
    lines all = log_in_batches(XLOG_FULL_BLOCK, &count); /* every line, to compare all */
    assert_int_equal(all.count, count);
    for (size_t k = 0; k < all.count; k++) {
        char *want = batch_line((long)k);
        assert_string_equal(all.line[k], want);
        free(want);
    }
    lines_free(&all);
}

/* One round of log_in_batches under XLOG_FULL_DROP: each line that is
 * there has its batch's context, the others are in drop notices. */
static void check_one_round_with_drops(void)
{
    long count;
    lines all = log_in_batches(XLOG_FULL_DROP, &count);
    long previous = -1, written = 0;
    for (size_t k = 0; k < all.count; k++) {
        if (is_drop_notice(all.line[k], gettid_(), "its ring was full (XLOG_FULL_DROP)"))
            continue;
        long i;
        char *bar = strchr(all.line[k], '|');
        assert_non_null(bar);
        assert_int_equal(sscanf(bar, "|line %ld", &i), 1);
        assert_true(i > previous && i < count);
        previous = i;
        written++;
        char *want = batch_line(i);
        assert_string_equal(all.line[k], want);
        free(want);
    }
    assert_true(written > 0);
    lines_free(&all);
}

/* A change dropped for want of room would give the lines after it the
 * context before it: a change waits for room instead, whatever
 * full_policy says, and only messages are dropped (and said to be).
 * Without that rule a round drops a change now and then: 30 rounds failed
 * in each of 10 runs. */
static void a_full_ring_drops_messages_never_a_change(void **state)
{
    (void)state;
    for (int round = 0; round < 30; round++)
        check_one_round_with_drops();
}

/* ---- a backtrace, fork, signal handlers ---------------------------------------------- */

static void a_backtrace_replays_each_line_with_the_context_it_was_logged_with(void **state)
{
    (void)state;
    test_place place;
    test_place_make(&place, "ctx-backtrace");
    xlog_config cfg = config_in(&place, XLOG_LAYOUT_TEXT);
    cfg.level = XLOG_INFO;
    cfg.backtrace_lines = 4;
    cfg.backtrace_level = XLOG_DEBUG;
    assert_int_equal(xlog_open(&cfg), 0);
    assert_int_equal(xlog_context_set("step", "%d", 1), 0);
    xlog_debug("kept one");
    assert_int_equal(xlog_context_set("step", "%d", 2), 0);
    xlog_debug("kept two");
    assert_int_equal(xlog_context_clear(NULL), 0);
    xlog_debug("kept three");
    assert_int_equal(xlog_context_set("step", "%d", 4), 0);
    xlog_error("failed");
    assert_int_equal(xlog_context_clear(NULL), 0);
    assert_int_equal(xlog_close(), 0);
    lines all = text_lines(place.logs);
    const char *want[] = {"step=1|[backtrace] kept one", "step=2|[backtrace] kept two",
                          "|[backtrace] kept three", "step=4|failed"};
    assert_int_equal(all.count, 4);
    for (size_t i = 0; i < 4; i++) {
        char *line;
        assert_true(asprintf(&line, "%d %s", gettid_(), want[i]) > 0);
        assert_string_equal(all.line[i], line);
        free(line);
    }
    lines_free(&all);
    test_place_remove(&place);
}

static void the_child_of_a_fork_keeps_the_context_of_the_thread_that_forked(void **state)
{
    (void)state;
    SKIP_IF_SANITIZER_CANNOT_FORK();
    test_place place;
    test_place_make(&place, "ctx-fork");
    xlog_config cfg = config_in(&place, XLOG_LAYOUT_TEXT);
    cfg.file_pattern = "{pid} {context}|{message}";
    assert_int_equal(xlog_open(&cfg), 0);
    assert_int_equal(xlog_context_set("request_id", "%s", "forked"), 0);
    say("parent");
    xlog_flush();
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        say("child");
        xlog_close();
        _exit(0);
    }
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_int_equal(xlog_context_clear(NULL), 0);
    say("parent again");
    assert_int_equal(xlog_close(), 0);
    lines all = text_lines(place.logs);
    assert_int_equal(all.count, 3);
    char *want[3];
    assert_true(asprintf(&want[0], "%d request_id=forked|parent", (int)getpid()) > 0);
    assert_true(asprintf(&want[1], "%d request_id=forked|child", (int)child) > 0);
    assert_true(asprintf(&want[2], "%d |parent again", (int)getpid()) > 0);
    for (int i = 0; i < 3; i++) {
        assert_string_equal(all.line[i], want[i]);
        free(want[i]);
    }
    lines_free(&all);
    test_place_remove(&place);
}

static volatile sig_atomic_t handler_calls;

static void log_from_handler(int sig)
{
    (void)sig;
    xlog_info("handler");
    handler_calls++;
}

static void *interrupt(void *arg)
{
    pthread_t *target = arg;
    for (int i = 0; i < test_scaled(2000) + 100; i++) {
        pthread_kill(*target, SIGUSR1);
        struct timespec pause = {0, 20000};
        nanosleep(&pause, NULL);
    }
    return NULL;
}

static void a_signal_handler_never_sees_half_a_change(void **state)
{
    (void)state;
    test_place place;
    test_place_make(&place, "ctx-signal");
    xlog_config cfg = config_in(&place, XLOG_LAYOUT_TEXT);
    assert_int_equal(xlog_open(&cfg), 0);
    struct sigaction sa = {0};
    sa.sa_handler = log_from_handler;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
    handler_calls = 0;
    pthread_t self = pthread_self(), other;
    pthread_create(&other, NULL, interrupt, &self);
    static const char *const values[] = {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
                                         "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"};
    for (long changes = 0;; changes++) {
        assert_int_equal(xlog_context_set("k", "%s", values[changes % 2]), 0);
        assert_int_equal(xlog_context_set("second", "%ld", changes % 2), 0);
        if (pthread_tryjoin_np(other, NULL) == 0)
            break;
    }
    signal(SIGUSR1, SIG_DFL);
    assert_int_equal(xlog_close(), 0);
    xlog_context_clear(NULL);
    lines all = text_lines(place.logs);
    assert_true(handler_calls > 0);
    /* Every context the thread had: none, the first value alone, then
     * either value with either second. */
    char *whole[6];
    assert_true(asprintf(&whole[4], "%d k=%s|handler", gettid_(), values[0]) > 0);
    assert_true(asprintf(&whole[5], "%d |handler", gettid_()) > 0);
    for (int i = 0; i < 4; i++)
        assert_true(asprintf(&whole[i], "%d k=%s second=%d|handler", gettid_(), values[i / 2],
                             i % 2) > 0);
    assert_true(all.count > 0);
    for (size_t i = 0; i < all.count; i++) {
        int known = 0;
        for (int w = 0; w < 6; w++)
            known |= strcmp(all.line[i], whole[w]) == 0;
        /* The handler's calls inside a change are dropped, and said so. */
        known |= is_drop_notice(all.line[i], gettid_(),
                                "logged by a signal handler inside a log call");
        if (!known)
            fail_msg("a handler's line with a torn context: %s", all.line[i]);
    }
    for (int w = 0; w < 6; w++)
        free(whole[w]);
    lines_free(&all);
    test_place_remove(&place);
}

/* ---- the crash flush, kill -9 ------------------------------------------------------- */

static void the_crash_flush_writes_each_line_with_its_context(void **state)
{
    (void)state; /* xlog is closed here: the test forks with no thread running */
    test_place place;
    test_place_make(&place, "ctx-crash");
    xlog_config cfg = config_in(&place, XLOG_LAYOUT_TEXT);
    cfg.file_pattern = "{context}|{message}";
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        signal(SIGSEGV, SIG_DFL); /* not cmocka's: xlog's handler then ends the child */
        if (xlog_open(&cfg) != 0)
            _exit(1);
        xlog_context_set("request_id", "%d", 41);
        say("before");
        xlog_context_set("request_id", "%d", 42);
        say("last");
        raise(SIGSEGV);
        _exit(2);
    }
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV);
    lines all = text_lines(place.logs);
    assert_int_equal(all.count, 3);
    assert_string_equal(all.line[0], "request_id=41|before");
    assert_string_equal(all.line[1], "request_id=42|last");
    assert_string_equal(all.line[2], "|caught SIGSEGV (signal 11): every message logged before "
                                     "it is above this line");
    lines_free(&all);
    test_place_remove(&place);
}

/* A sink that stops the back end for good at the line "gate", so that the
 * lines after it stay in the ring for recovery. */
static volatile int gate_reached;

static void stop_at_gate(void *context, const xlog_event *event, const char *bytes,
                         size_t length)
{
    (void)context;
    (void)bytes;
    (void)length;
    if (strcmp(event->message, "gate") != 0)
        return;
    __atomic_store_n(&gate_reached, 1, __ATOMIC_SEQ_CST);
    for (;;)
        pause();
}

static void recovery_after_kill_gives_each_line_the_context_it_was_logged_with(void **state)
{
    (void)state; /* xlog is closed here: the test forks with no thread running */
    for (int layout = 0; layout < 3; layout += 2) { /* text, binary */
        test_place place;
        test_place_make(&place, "ctx-kill");
        xlog_config cfg = config_in(&place, (xlog_layout_kind)layout);
        cfg.file_pattern = "{context}|{message}";
        xlog_custom_sink gate = xlog_custom_sink_defaults();
        gate.write = stop_at_gate;
        const xlog_sink_config *sinks[] = {&gate.sink, NULL};
        cfg.sinks = sinks;
        pid_t child = fork();
        assert_true(child >= 0);
        if (child == 0) {
            if (xlog_open(&cfg) != 0)
                _exit(1);
            /* Consumed long before the kill: the back end keeps it. */
            xlog_context_set("request_id", "%d", 1);
            xlog_context_set("user", "%s", "alice");
            say("before");
            xlog_flush();
            say("gate");
            while (!__atomic_load_n(&gate_reached, __ATOMIC_SEQ_CST))
                usleep(1000);
            say("after one");
            say("after two");
            xlog_context_set("request_id", "%d", 2);
            say("after three");
            xlog_context_clear("user");
            say("after four");
            raise(SIGKILL);
            _exit(2);
        }
        int status;
        assert_int_equal(waitpid(child, &status, 0), child);
        assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
        long recovered = xlog_recover(place.logs, place.shm);
        /* The gate's line is in the file's buffer (the back end stopped
         * after writing it there): xlog_recover counts it among the text
         * lines, not among a binary file's (xlog.h, "Layouts"). */
        long count = layout == XLOG_LAYOUT_BINARY ? 4 : 5;
        assert_int_equal(recovered, count);
        lines all = layout == XLOG_LAYOUT_BINARY
                        ? binary_lines(place.logs, XLOG_LAYOUT_TEXT, "{context}|{message}")
                        : text_lines(place.logs);
        char notice[256];
        test_recovery_notice(notice, sizeof notice, count, (int)child, (int)getpid());
        char *notice_line;
        assert_true(asprintf(&notice_line, "|%s", notice) > 0);
        const char *want[] = {"request_id=1 user=alice|before",
                              notice_line,
                              "request_id=1 user=alice|gate",
                              "request_id=1 user=alice|after one",
                              "request_id=1 user=alice|after two",
                              "request_id=2 user=alice|after three",
                              "request_id=2|after four"};
        assert_int_equal(all.count, 7);
        for (size_t i = 0; i < 7; i++)
            assert_string_equal(all.line[i], want[i]);
        free(notice_line);
        lines_free(&all);
        test_place_remove(&place);
    }
}

/* Each case starts with no context, whatever the last one left. */
static int no_context(void **state)
{
    (void)state;
    return xlog_context_clear(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(two_threads_serving_requests_each_carry_their_own_context_in_text, no_context),
        cmocka_unit_test_setup(two_threads_serving_requests_each_carry_their_own_context_in_json, no_context),
        cmocka_unit_test_setup(binary_files_carry_each_threads_context_for_both_layouts, no_context),
        cmocka_unit_test_setup(the_default_line_does_not_show_the_context, no_context),
        cmocka_unit_test_setup(a_context_set_before_xlog_open_stays_across_close_and_open,
                               no_context),
        cmocka_unit_test_setup(hostile_keys_and_values_are_escaped_by_each_layouts_rule, no_context),
        cmocka_unit_test_setup(refused_keys_and_values_past_the_limits_change_nothing, no_context),
        cmocka_unit_test_setup(a_thread_that_ends_leaves_no_context_to_the_next_on_its_ring, no_context),
        cmocka_unit_test_setup(changes_across_the_laps_of_a_small_ring_go_with_their_lines, no_context),
        cmocka_unit_test_setup(a_full_ring_drops_messages_never_a_change, no_context),
        cmocka_unit_test_setup(a_backtrace_replays_each_line_with_the_context_it_was_logged_with, no_context),
        cmocka_unit_test_setup(the_child_of_a_fork_keeps_the_context_of_the_thread_that_forked, no_context),
        cmocka_unit_test_setup(a_signal_handler_never_sees_half_a_change, no_context),
        cmocka_unit_test_setup(the_crash_flush_writes_each_line_with_its_context, no_context),
        cmocka_unit_test_setup(recovery_after_kill_gives_each_line_the_context_it_was_logged_with, no_context),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
