/*
 * test_layouts.c - layouts (lib/layouts/): how an event becomes a line.
 *
 * The default line is compared byte for byte with the line the back end
 * wrote before layouts existed, rebuilt here from the C library (gmtime_r,
 * strftime) and escape.h's rule, for hostile names and
 * messages too.  Each field of a pattern is compared with what the C library
 * gives: the time with strftime, gmtime_r and localtime_r under several TZ
 * (half-hour offsets and a half-hour daylight saving time among them), at
 * random instants, around every change of offset and at leap days, with
 * every option.  The pattern language's errors give their exact messages.
 * xlog_layout_max_line is checked as a true, tight bound with the worst
 * bytes there are.  JSON lines are checked byte for byte here; run as
 * "test_layouts --json DIR", this program also writes JSON lines and the
 * events they came from for check_json_layout.py, which parses them with
 * Python's json.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "format/escape.h"
#include "layouts/fields.h"
#include "layouts/layout.h"
#include "line_rule.h"
#include "testutil.h"

#define S(literal) literal, sizeof literal - 1

static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint64_t rand64(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Shows bytes readably in failure messages. */
static const char *visible(const char *p, size_t n)
{
    static char text[2][4096];
    static int which;
    char *v = text[which++ & 1];
    size_t o = 0;
    for (size_t i = 0; i < n && o + 8 < sizeof text[0]; i++) {
        unsigned char b = (unsigned char)p[i];
        o += (size_t)(b >= 0x20 && b < 0x7f ? sprintf(v + o, "%c", b)
                                             : sprintf(v + o, "<%02x>", b));
    }
    v[o] = '\0';
    return v;
}

/* ---- events --------------------------------------------------------------- */

/* An event with the parts the back end makes ready for the default line. */
typedef struct test_event {
    xlog_line_event e;
    char where[XLOG_WHERE_TEXT_MAX];
    char tid_text[XLOG_TID_TEXT_MAX];
} test_event;

/* message[message_len] must be 0, as in the back end's events. */
static void make_event(test_event *t, int64_t ns, int level, int pid, int tid, const char *file,
                       size_t file_len, int line, const char *function, size_t function_len,
                       const char *module, size_t module_len, const char *message,
                       size_t message_len)
{
    memset(t, 0, sizeof *t);
    xlog_event *pub = &t->e.pub;
    pub->time_ns = ns;
    pub->level = level;
    pub->pid = pid;
    pub->tid = tid;
    pub->file = file;
    pub->line = line;
    pub->function = function;
    pub->module = module;
    pub->format = "%s";
    pub->message = message;
    pub->message_length = message_len;
    t->e.file_length = file_len;
    t->e.function_length = function_len;
    t->e.module_length = module_len;
    t->e.where_length = xlog_where_text(t->where, file, file_len, line, function, function_len);
    t->e.where = t->where;
    t->e.tid_text_length = xlog_tid_text(t->tid_text, tid);
    t->e.tid_text = t->tid_text;
}

static xlog_layout *layout(xlog_layout_kind kind, const char *pattern)
{
    xlog_layout *l = NULL;
    int rc = xlog_layout_create(&l, kind, pattern, XLOG_DEFAULT_PATTERN, "cfg.file_pattern");
    if (rc != 0)
        fail_msg("pattern [%s]: %d %s", pattern ? pattern : "(default)", rc, xlog_last_error());
    return l;
}

/* ---- writing a line, checked ---------------------------------------------- */

#define CANARY 64
static char *line_buffer;
static size_t line_capacity;

/* Writes the event's line and checks what every line must be: within
 * xlog_layout_max_line (nothing written beyond it), one '\n' at its end and
 * none before, valid UTF-8 with no control character and no line separator.
 * Returns its length; *line points to it until the next call. */
static size_t render(xlog_layout *l, const test_event *t, const char **line)
{
    size_t max = xlog_layout_max_line(l, t->e.pub.message_length);
    if (max + CANARY > line_capacity) {
        free(line_buffer);
        line_capacity = max + CANARY;
        line_buffer = malloc(line_capacity);
        assert_non_null(line_buffer);
    }
    memset(line_buffer, 0xa5, max + CANARY);
    size_t n = xlog_layout_write(l, &t->e, line_buffer);
    assert_true(n >= 1 && n <= max);
    for (size_t i = max; i < max + CANARY; i++)
        if ((unsigned char)line_buffer[i] != 0xa5)
            fail_msg("byte %zu written beyond the bound %zu", i, max);
    assert_int_equal(line_buffer[n - 1], '\n');
    if (memchr(line_buffer, '\n', n - 1) || !line_rule_allows(line_buffer, n - 1))
        fail_msg("line not allowed: [%s]", visible(line_buffer, n));
    *line = line_buffer;
    return n;
}

static void expect_line(xlog_layout *l, const test_event *t, const char *expected, size_t len)
{
    const char *line;
    size_t n = render(l, t, &line);
    if (n != len || memcmp(line, expected, len) != 0)
        fail_msg("expected [%s]\n     got [%s]", visible(expected, len), visible(line, n));
}

/* ---- what the C library and the format engine say ---------------------------- */

static int64_t floor_seconds(int64_t ns, int64_t *nanos)
{
    int64_t s = ns / 1000000000, r = ns % 1000000000;
    if (r < 0) {
        r += 1000000000;
        s--;
    }
    *nanos = r;
    return s;
}

/* text escaped as the back end escaped it before layouts: by escape.h's
 * rule, which the format engine applied then to text without conversions. */
static size_t old_escape(char *out, size_t cap, const char *text, size_t len)
{
    size_t n = xlog_escape_text(out, cap, text, len, NULL);
    assert_true(n <= cap);
    return n;
}

static const char *const level_names[] = {"TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"};

/* The time as strftime shows it: local or UTC, ISO 8601 or not, digits of
 * the fraction (truncated), then the offset (+HH:MM from %z) or 'Z'. */
static size_t c_library_time(char *out, int64_t ns, int local, int iso, int digits)
{
    int64_t nanos;
    time_t s = (time_t)floor_seconds(ns, &nanos);
    struct tm tm;
    assert_non_null(local ? localtime_r(&s, &tm) : gmtime_r(&s, &tm));
    size_t n = strftime(out, 64, iso ? "%Y-%m-%dT%H:%M:%S" : "%Y-%m-%d %H:%M:%S", &tm);
    if (digits) {
        char fraction[16];
        snprintf(fraction, sizeof fraction, ".%09lld", (long long)nanos);
        memcpy(out + n, fraction, 1 + (size_t)digits);
        n += 1 + (size_t)digits;
    }
    if (local) {
        char z[16];
        assert_int_equal(strftime(z, sizeof z, "%z", &tm), 5); /* +0530 */
        n += (size_t)sprintf(out + n, "%.3s:%.2s", z, z + 3);
    } else if (iso) {
        out[n++] = 'Z';
    }
    out[n] = '\0';
    return n;
}

/* The line the back end wrote before layouts, with file and function
 * escaped like the message. */
static size_t old_line(char *out, const test_event *t)
{
    const xlog_event *pub = &t->e.pub;
    char *p = out;
    p += c_library_time(p, pub->time_ns, 0, 0, 9);
    p += sprintf(p, " [%s] ", level_names[pub->level]);
    const char *slash = memrchr(pub->file, '/', t->e.file_length);
    const char *base = slash ? slash + 1 : pub->file;
    size_t base_len = t->e.file_length - (size_t)(base - pub->file);
    p += old_escape(p, 4 * base_len, base, base_len);
    p += sprintf(p, ":%d ", pub->line);
    p += old_escape(p, 4 * t->e.function_length, pub->function, t->e.function_length);
    p += sprintf(p, " %d ", pub->tid);
    p += old_escape(p, 4 * pub->message_length, pub->message, pub->message_length);
    *p++ = '\n';
    return (size_t)(p - out);
}

/* ---- the events of the comparisons ------------------------------------------- */

typedef struct bytes {
    const char *p;
    size_t n;
} bytes;

static const bytes files[] = {
    {S("main.c")}, {S("src/net/tls.c")}, {S("/abs/dir/x.c")}, {S("")}, {S("dir/")},
    {S("a/b\nc.c")}, {S("x\r.c")}, {S("\x1b[31mred.c")}, {S("c1\xc2\x85.c")},
    {S("ls\xe2\x80\xa8.c")}, {S("bad\xff\xfe.c")}, {S("dir\xff/cut\xe2\x82")},
    {S("\xc0\x80overlong")}, {S("nul\0inside.c")}, {S("caf\xc3\xa9/\xe6\x97\xa5.c")},
};
static const bytes functions[] = {
    {S("main")}, {S("")}, {S("f\nx")}, {S("\x1b]0;title\x07")}, {S("\xc2\x9b")},
    {S("\xe2\x80\xa9")}, {S("\xed\xa0\x80surrogate")}, {S("operator()")},
};
static const bytes modules[] = {{S("")}, {S("net.tls")}, {S("m\no\xff")}};
static const bytes messages[] = {
    {S("user alice logged in, id 42")}, {S("")}, {S("100% done %d %s %%")},
    {S("line1\nline2\r\n")}, {S("tab\there\\not an escape")}, {S("\0\x01\x1f\x7f")},
    {S("\xc2\x80\xc2\x9f\xc2\xa0")}, {S("\xe2\x80\xa8\xe2\x80\xa9")}, {S("\xf4\x90\x80\x80")},
    {S("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e \xf0\x9f\x98\x80")}, {S("cut \xf0\x9f\x98")},
    {S("\"quoted\" {braces}")},
};
static const int64_t times[] = {
    0, 1795358725123456789, -1, 1, INT64_MIN, INT64_MAX,
    951868799999999999,   /* 2000-02-29 23:59:59.999999999 */
    951868800000000000,   /* 2000-03-01 */
    -2208988800000000000, /* 1900-01-01 */
    4107542399999999999,  /* 2100-02-28 23:59:59 */
};
static const int lines[] = {42, 0, -1, INT_MAX, INT_MIN, 7};

/* The i-th event of the comparisons (the lists' lengths are coprime enough
 * that every name meets every message). */
static void nth_event(test_event *t, size_t i)
{
    const bytes *f = &files[i % (sizeof files / sizeof files[0])];
    const bytes *fn = &functions[i / 3 % (sizeof functions / sizeof functions[0])];
    const bytes *m = &messages[i / 7 % (sizeof messages / sizeof messages[0])];
    const bytes *mod = &modules[i % 3];
    make_event(t, times[i % (sizeof times / sizeof times[0])], (int)(i % 6), 999 + (int)i,
               i % 5 == 4 ? INT_MIN : 12345 + (int)i, f->p, f->n,
               lines[i % (sizeof lines / sizeof lines[0])], fn->p, fn->n, mod->p, mod->n, m->p,
               m->n);
}

#define EVENT_COUNT 1500

/* ---- the default line ------------------------------------------------------- */

static void default_line_is_the_old_line_byte_for_byte(void **state)
{
    (void)state;
    xlog_layout *by_null = layout(XLOG_LAYOUT_TEXT, NULL);
    xlog_layout *by_text = layout(XLOG_LAYOUT_TEXT, XLOG_DEFAULT_PATTERN);
    char *expected = malloc(1 << 20);
    for (size_t i = 0; i < EVENT_COUNT; i++) {
        test_event t;
        nth_event(&t, i);
        size_t n = old_line(expected, &t);
        expect_line(by_null, &t, expected, n);
        expect_line(by_text, &t, expected, n);
    }
    /* the documented line */
    test_event t;
    make_event(&t, 1795358725123456789, XLOG_INFO, 999, 12345, S("main.c"), 42, S("main"), S(""),
               S("message"));
    expect_line(by_null, &t,
                S("2026-11-22 14:45:25.123456789 [INFO] main.c:42 main 12345 message\n"));
    /* a message of 1 MiB, hostile bytes throughout */
    size_t big = 1 << 20;
    char *message = malloc(big + 1);
    for (size_t i = 0; i < big; i++)
        message[i] = (char)(i % 7 == 0 ? rand64() : 'a' + i % 26);
    message[big] = '\0';
    make_event(&t, 1, XLOG_WARN, 1, 2, S("big.c"), 3, S("f"), S(""), message, big);
    char *huge = malloc(4 * big + 4096);
    size_t n = old_line(huge, &t);
    expect_line(by_null, &t, huge, n);
    free(huge);
    free(message);
    free(expected);
    xlog_layout_destroy(by_null);
    xlog_layout_destroy(by_text);
}

static void set_tz(const char *tz)
{
    setenv("TZ", tz, 1);
    tzset();
}

/* The time's text is made once per second of log time and reused (only the
 * fraction is written per line): one layout writes a run of lines whose
 * times cross a second, a minute, an hour, a day, a month and a year, go
 * back (a clock set back, a line from a slower thread), come back to a
 * second it left, and jump by decades; each whole line is what the C
 * library makes of that time.  In UTC (the default line) and in local time
 * (Asia/Kolkata, +05:30: its days start at 18:30 UTC). */
static void time_text_reused_across_boundaries_and_backwards(void **state)
{
    (void)state;
    static const int64_t s = 1000000000;
    const int64_t new_year = 1704067200; /* 2024-01-01 00:00:00 UTC */
    const int64_t kolkata_day = 1704047400; /* 2024-01-01 00:00:00 +05:30 */
    int64_t times[64];
    size_t n = 0;
    const int64_t bases[] = {new_year, kolkata_day};
    for (size_t b = 0; b < 2; b++) {
        int64_t at = bases[b] * s;
        times[n++] = at - 3600 * s - 1;      /* an hour before, its last ns */
        times[n++] = at - 60 * s - 1;        /* a minute before */
        times[n++] = at - s - 1;             /* 23:59:58.999999999 */
        times[n++] = at - s;                 /* the last second */
        times[n++] = at - 1;                 /* its last ns */
        times[n++] = at;                     /* the new year, month, day */
        times[n++] = at + 1;
        times[n++] = at - 2;                 /* back by 3 ns, across the boundary */
        times[n++] = at + 999999999;         /* forward again, the same second as at */
        times[n++] = at + s;                 /* the next second */
        times[n++] = at - 86400 * s;         /* back a day: the cache's second is not it */
        times[n++] = at + s;                 /* and back to the second cached before */
        times[n++] = at + 60 * s + 123;      /* the next minute */
        times[n++] = at + 3600 * s + 456789; /* the next hour */
        times[n++] = at + 31 * 86400 * s;    /* a month on */
        times[n++] = at + 31 * 86400 * s;    /* the same time twice */
        times[n++] = at - 40 * 365 * 86400 * s; /* decades back */
        times[n++] = at;
    }
    xlog_layout *utc = layout(XLOG_LAYOUT_TEXT, NULL);
    set_tz("Asia/Kolkata");
    xlog_layout *local = layout(XLOG_LAYOUT_TEXT, "{time:local} {message}");
    for (size_t i = 0; i < n; i++) {
        test_event t;
        make_event(&t, times[i], XLOG_INFO, 7, 4242, S("a.c"), 12, S("f"), S(""), S("m"));
        char expected[128];
        size_t len = old_line(expected, &t);
        expect_line(utc, &t, expected, len);
        len = c_library_time(expected, times[i], 1, 0, 9);
        len += (size_t)sprintf(expected + len, " m\n");
        expect_line(local, &t, expected, len);
    }
    /* Two of the lines spelt out, so that the reference itself is checked. */
    test_event t;
    make_event(&t, new_year * s - 1, XLOG_INFO, 7, 4242, S("a.c"), 12, S("f"), S(""), S("m"));
    expect_line(utc, &t, S("2023-12-31 23:59:59.999999999 [INFO] a.c:12 f 4242 m\n"));
    expect_line(local, &t, S("2024-01-01 05:29:59.999999999+05:30 m\n"));
    make_event(&t, kolkata_day * s, XLOG_INFO, 7, 4242, S("a.c"), 12, S("f"), S(""), S("m"));
    expect_line(utc, &t, S("2023-12-31 18:30:00.000000000 [INFO] a.c:12 f 4242 m\n"));
    expect_line(local, &t, S("2024-01-01 00:00:00.000000000+05:30 m\n"));
    set_tz("UTC");
    xlog_layout_destroy(utc);
    xlog_layout_destroy(local);
}

/* The field-by-field path, given the default pattern behind one more
 * character, writes what the default line's own path writes. */
static void default_line_equals_its_pattern_written_field_by_field(void **state)
{
    (void)state;
    xlog_layout *fast = layout(XLOG_LAYOUT_TEXT, NULL);
    xlog_layout *general = layout(XLOG_LAYOUT_TEXT, ">" XLOG_DEFAULT_PATTERN);
    char *expected = malloc(1 << 16);
    for (size_t i = 0; i < EVENT_COUNT; i++) {
        test_event t;
        nth_event(&t, i);
        const char *line;
        size_t n = render(fast, &t, &line);
        memcpy(expected, ">", 1);
        memcpy(expected + 1, line, n);
        expect_line(general, &t, expected, n + 1);
    }
    free(expected);
    xlog_layout_destroy(fast);
    xlog_layout_destroy(general);
}

/* A pattern that means the default line takes its path (which writes the
 * event's where and tid_text as they are); any other does not. */
static void default_line_is_recognised_by_meaning(void **state)
{
    (void)state;
    static const struct {
        const char *pattern;
        int is_default;
    } cases[] = {
        {NULL, 1},
        {XLOG_DEFAULT_PATTERN, 1},
        {"{time:ns} [{level}] {file}:{line} {function} {tid} {message}", 1},
        {"{time:us} [{level}] {file}:{line} {function} {tid} {message}", 0},
        {"{time:iso} [{level}] {file}:{line} {function} {tid} {message}", 0},
        {"{time} [{level}] {path}:{line} {function} {tid} {message}", 0},
        {"{time} [{level}] {file}:{line} {function} {tid}  {message}", 0},
        {"{time} [{level}] {file}:{line} {function} {tid} {message}.", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        xlog_layout *l = layout(XLOG_LAYOUT_TEXT, cases[i].pattern);
        test_event t;
        make_event(&t, 0, XLOG_INFO, 1, 2, S("a.c"), 1, S("f"), S(""), S("m"));
        t.e.where = "WHERE ";
        t.e.where_length = 6;
        const char *line;
        size_t n = render(l, &t, &line);
        assert_int_equal(memmem(line, n, "WHERE ", 6) != NULL, cases[i].is_default);
        xlog_layout_destroy(l);
    }
}

/* ---- each field of a pattern -------------------------------------------------- */

static void each_field_matches_the_c_library(void **state)
{
    (void)state;
    static const char *const patterns[] = {"{level}", "{file}", "{path}",   "{line}", "{function}",
                                           "{module}", "{pid}", "{tid}", "{message}"};
    enum { COUNT = sizeof patterns / sizeof patterns[0] };
    xlog_layout *layouts[COUNT];
    for (int k = 0; k < COUNT; k++)
        layouts[k] = layout(XLOG_LAYOUT_TEXT, patterns[k]);
    char expected[1 << 12];
    for (size_t i = 0; i < EVENT_COUNT; i++) {
        test_event t;
        nth_event(&t, i);
        const xlog_event *pub = &t.e.pub;
        for (int k = 0; k < COUNT; k++) {
            size_t n = 0;
            const char *base;
            switch (k) {
            case 0:
                n = (size_t)sprintf(expected, "%s", level_names[pub->level]);
                break;
            case 1:
                base = memrchr(pub->file, '/', t.e.file_length);
                base = base ? base + 1 : pub->file;
                n = old_escape(expected, 1024, base, t.e.file_length - (size_t)(base - pub->file));
                break;
            case 2:
                n = old_escape(expected, 1024, pub->file, t.e.file_length);
                break;
            case 3:
                n = (size_t)sprintf(expected, "%d", pub->line);
                break;
            case 4:
                n = old_escape(expected, 1024, pub->function, t.e.function_length);
                break;
            case 5:
                n = old_escape(expected, 1024, pub->module, t.e.module_length);
                break;
            case 6:
                n = (size_t)sprintf(expected, "%d", pub->pid);
                break;
            case 7:
                n = (size_t)sprintf(expected, "%d", pub->tid);
                break;
            case 8:
                n = old_escape(expected, 1024, pub->message, pub->message_length);
                break;
            }
            expected[n++] = '\n';
            expect_line(layouts[k], &t, expected, n);
        }
    }
    for (int k = 0; k < COUNT; k++)
        xlog_layout_destroy(layouts[k]);
}

/* The instants at which the offset of the current TZ changes between 1900
 * and 2100, found by localtime_r a day apart and then to the second. */
static size_t offset_changes(time_t *out, size_t max)
{
    size_t count = 0;
    struct tm tm;
    time_t day = -2208988800; /* 1900-01-01 */
    localtime_r(&day, &tm);
    long offset = tm.tm_gmtoff;
    for (; day < 4102444800 /* 2100-01-01 */ && count < max; day += 86400) {
        time_t next = day + 86400;
        localtime_r(&next, &tm);
        if (tm.tm_gmtoff == offset)
            continue;
        time_t lo = day, hi = next; /* offset(lo) is the old one, offset(hi) the new */
        while (hi - lo > 1) {
            time_t mid = lo + (hi - lo) / 2;
            localtime_r(&mid, &tm);
            if (tm.tm_gmtoff == offset)
                lo = mid;
            else
                hi = mid;
        }
        out[count++] = hi;
        localtime_r(&next, &tm);
        offset = tm.tm_gmtoff;
    }
    return count;
}

/* {time} with every combination of its options, under five TZ, against
 * strftime of gmtime_r or localtime_r. */
static void time_matches_strftime_in_every_zone_and_option(void **state)
{
    (void)state;
    static const char *const zones[] = {"UTC", "Europe/Berlin", "America/St_Johns", "Asia/Kolkata",
                                        "Australia/Lord_Howe"};
    static const char *const precisions[] = {"s", "ms", "us", "ns"};
    static const int digits[] = {0, 3, 6, 9};
    enum { MAX_CHANGES = 1000, PER_CHANGE = 9, FIXED = 64 };
    size_t randoms = (size_t)test_scaled(3000);
    int64_t *instants = malloc((MAX_CHANGES * PER_CHANGE + FIXED + 3 * randoms) * sizeof *instants);
    time_t *changes = malloc(MAX_CHANGES * sizeof *changes);
    for (size_t z = 0; z < sizeof zones / sizeof zones[0]; z++) {
        set_tz(zones[z]);
        size_t n = 0;
        size_t change_count = offset_changes(changes, MAX_CHANGES);
        if (strcmp(zones[z], "UTC") != 0)
            assert_true(change_count >= 2);
        static const int64_t around[] = {-3600, -1800, -1, 0, 1, 1800, 3600};
        for (size_t c = 0; c < change_count; c++) {
            for (size_t a = 0; a < sizeof around / sizeof around[0]; a++)
                instants[n++] = ((int64_t)changes[c] + around[a]) * 1000000000;
            instants[n++] = (int64_t)changes[c] * 1000000000 - 1;
            instants[n++] = (int64_t)changes[c] * 1000000000 + 999999999;
        }
        static const int64_t fixed[] = {
            951782400, 951868799, 951868800,        /* 2000-02-29, its end, 2000-03-01 */
            1709164800, 1709251199, 1709251200,     /* 2024-02-29 */
            -2203977600, -2203891201, -2203891200,  /* 1900-02-28: 1900 is not a leap year */
            4107456000, 4107542399, 4107542400,     /* 2100-02-28, 2100-03-01 */
            68169600,                               /* 1972-02-29 */
            0, -1,
        };
        for (size_t f = 0; f < sizeof fixed / sizeof fixed[0]; f++) {
            instants[n++] = fixed[f] * 1000000000;
            instants[n++] = fixed[f] * 1000000000 + 999999999;
        }
        instants[n++] = INT64_MIN;
        instants[n++] = INT64_MAX;
        for (size_t r = 0; r < randoms; r++) {
            instants[n++] = (int64_t)rand64();
            /* 1900 to 2100, and within the same second as the last one */
            instants[n++] = (int64_t)(rand64() % 6311433600ull) * 1000000000 - 2208988800000000000 +
                            (int64_t)(rand64() % 1000000000);
            instants[n] = instants[n - 1] + (int64_t)(rand64() % 1000);
            n++;
        }
        for (int local = 0; local <= 1; local++) {
            for (int iso = 0; iso <= 1; iso++) {
                for (int p = 0; p < 4; p++) {
                    char pattern[64];
                    snprintf(pattern, sizeof pattern, "{time:%s%s%s}", local ? "local," : "",
                             iso ? "iso," : "", precisions[p]);
                    xlog_layout *l = layout(XLOG_LAYOUT_TEXT, pattern);
                    for (size_t i = 0; i < n; i++) {
                        test_event t;
                        make_event(&t, instants[i], XLOG_INFO, 1, 2, S("a.c"), 1, S("f"), S(""),
                                   S("m"));
                        char expected[80];
                        size_t len = c_library_time(expected, instants[i], local, iso, digits[p]);
                        expected[len++] = '\n';
                        const char *line;
                        size_t got = render(l, &t, &line);
                        if (got != len || memcmp(line, expected, len) != 0)
                            fail_msg("TZ=%s %s at %lld: expected [%.*s] got [%.*s]", zones[z],
                                     pattern, (long long)instants[i], (int)len - 1, expected,
                                     (int)got - 1, line);
                    }
                    xlog_layout_destroy(l);
                }
            }
        }
    }
    set_tz("UTC");
    free(changes);
    free(instants);
}

/* The default {time} is UTC whatever TZ says; options may come in any
 * order. */
static void time_options_in_any_order(void **state)
{
    (void)state;
    set_tz("Asia/Kolkata");
    xlog_layout *plain = layout(XLOG_LAYOUT_TEXT, "{time}");
    xlog_layout *a = layout(XLOG_LAYOUT_TEXT, "{time:ms,iso,local}");
    xlog_layout *b = layout(XLOG_LAYOUT_TEXT, "{time:local,ms,iso}");
    test_event t;
    make_event(&t, 1795358725123456789, XLOG_INFO, 1, 2, S("a.c"), 1, S("f"), S(""), S("m"));
    expect_line(plain, &t, S("2026-11-22 14:45:25.123456789\n"));
    expect_line(a, &t, S("2026-11-22T20:15:25.123+05:30\n"));
    expect_line(b, &t, S("2026-11-22T20:15:25.123+05:30\n"));
    xlog_layout_destroy(plain);
    xlog_layout_destroy(a);
    xlog_layout_destroy(b);
    set_tz("UTC");
}

/* ---- the pattern language ------------------------------------------------------ */

static void braces_literals_and_several_fields(void **state)
{
    (void)state;
    static const struct {
        const char *pattern;
        const char *expected;
    } cases[] = {
        {"", "\n"},
        {"{{}}", "{}\n"},
        {"{{{level}}}", "{WARN}\n"},
        {"a{{b}}c", "a{b}c\n"},
        {"{level}{level}", "WARNWARN\n"},
        {"pid={pid} tid={tid} {module}|{message}{message}", "pid=77 tid=88 net|m1m1\n"},
        /* a pattern is held to the one-line rule too */
        {"tab\there\nnew \x1b \xff \xc2\x85 \xe2\x80\xa8 caf\xc3\xa9",
         "tab\\there\\nnew \\x1b \\xff \\u0085 \\u2028 caf\xc3\xa9\n"},
        {"{time:s}|{time:iso,s}", "1970-01-01 00:00:01|1970-01-01T00:00:01Z\n"},
    };
    test_event t;
    make_event(&t, 1000000000, XLOG_WARN, 77, 88, S("a.c"), 1, S("f"), S("net"), S("m1"));
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        xlog_layout *l = layout(XLOG_LAYOUT_TEXT, cases[i].pattern);
        expect_line(l, &t, cases[i].expected, strlen(cases[i].expected));
        xlog_layout_destroy(l);
    }
}

static void pattern_errors_say_what_and_where(void **state)
{
    (void)state;
    static const struct {
        const char *pattern;
        const char *message;
    } cases[] = {
        {"{foo}", "cfg.file_pattern: unknown field {foo} at column 1"},
        {"ab {time} {Level}", "cfg.file_pattern: unknown field {Level} at column 11"},
        {"{}", "cfg.file_pattern: unknown field {} at column 1"},
        {"{ time}", "cfg.file_pattern: unknown field { time} at column 1"},
        {"{foo:iso}", "cfg.file_pattern: unknown field {foo} at column 1"},
        {"{time:iso,utc}",
         "cfg.file_pattern: unknown option \"utc\" in {time:iso,utc} at column 11"},
        {"{time:}", "cfg.file_pattern: unknown option \"\" in {time:} at column 7"},
        {"{time:iso,}", "cfg.file_pattern: unknown option \"\" in {time:iso,} at column 11"},
        {"{time:NS}", "cfg.file_pattern: unknown option \"NS\" in {time:NS} at column 7"},
        {"x{level:x}", "cfg.file_pattern: unknown option \"x\" in {level:x} at column 9"},
        {"{message:}", "cfg.file_pattern: unknown option \"\" in {message:} at column 10"},
        {"{time:ms,us}", "cfg.file_pattern: option \"us\" repeats or contradicts another in "
                         "{time:ms,us} at column 10"},
        {"{time:iso,local,iso}", "cfg.file_pattern: option \"iso\" repeats or contradicts another "
                                 "in {time:iso,local,iso} at column 17"},
        {"x {level", "cfg.file_pattern: unterminated { at column 3"},
        {"{level} {", "cfg.file_pattern: unterminated { at column 9"},
        {"x } y", "cfg.file_pattern: lone } at column 3"},
        {"{{level}", "cfg.file_pattern: lone } at column 8"},
        {"}}}", "cfg.file_pattern: lone } at column 3"},
        /* long names and options are quoted in part: the column still fits */
        {"{abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij} {level}",
         "cfg.file_pattern: unknown field {abcdefghijabcdefghijabcdefghijabcdefghij...} at column 1"},
        {"{time:abcdefghijabcdefghijabcdefghijabcdefghijabcdefghij}",
         "cfg.file_pattern: unknown option \"abcdefghijabcdefghijabcdefghijabcdefghij...\" in "
         "{time:abcdefghijabcdefghijabcdefghijabcde...} at column 7"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        static char untouched;
        xlog_layout *l = (xlog_layout *)&untouched;
        int rc = xlog_layout_create(&l, XLOG_LAYOUT_TEXT, cases[i].pattern, NULL,
                                    "cfg.file_pattern");
        assert_int_equal(rc, -EINVAL);
        assert_ptr_equal(l, (xlog_layout *)&untouched);
        if (strcmp(xlog_last_error(), cases[i].message) != 0)
            fail_msg("pattern [%s]: expected \"%s\", got \"%s\"", cases[i].pattern,
                     cases[i].message, xlog_last_error());
    }
    xlog_layout *l;
    assert_int_equal(xlog_layout_create(&l, (xlog_layout_kind)7, NULL, NULL, "cfg.console_layout"),
                     -EINVAL);
    assert_string_equal(xlog_last_error(), "cfg.console_layout: layout 7 is neither "
                                           "XLOG_LAYOUT_TEXT nor XLOG_LAYOUT_JSON");
    xlog_layout_destroy(NULL);
}

/* ---- the bound ----------------------------------------------------------------- */

/* Every layout's line stays within xlog_layout_max_line for the worst bytes
 * there are, and reaches it exactly for the worst event: names of
 * XLOG_MAX_NAME bytes (a thread name of XLOG_THREAD_NAME_MAX) that each
 * grow the most, the longest numbers, a five-letter level, a module. */
static void max_line_is_a_true_and_tight_bound(void **state)
{
    (void)state;
    static const struct {
        xlog_layout_kind kind;
        const char *pattern;
    } cases[] = {
        {XLOG_LAYOUT_TEXT, NULL},
        {XLOG_LAYOUT_TEXT, "{time:local,iso,ns} {level} {path} {file} {line} {function} "
                           "{module} {pid} {tid} {thread} {message}"},
        {XLOG_LAYOUT_TEXT, "{message}{message}{time:s}"},
        {XLOG_LAYOUT_TEXT, ""},
        {XLOG_LAYOUT_TEXT, "{context}{message}"},
        {XLOG_LAYOUT_JSON, NULL},
    };
    /* The longest context, every byte of it escaped (xlog.h, "Context"). */
    char context_bytes[XLOG_CONTEXT_MAX_KEY + XLOG_CONTEXT_MAX_VALUE];
    memset(context_bytes, 0x01, sizeof context_bytes);
    xlog_context context = {.count = XLOG_CONTEXT_MAX_PAIRS};
    for (int i = 0; i < XLOG_CONTEXT_MAX_PAIRS; i++)
        context.pairs[i] = (xlog_context_pair){context_bytes, context_bytes + XLOG_CONTEXT_MAX_KEY,
                                               XLOG_CONTEXT_MAX_KEY, XLOG_CONTEXT_MAX_VALUE};
    /* grows most in both: \x01 is 4 bytes of text, \u0001 6 of JSON */
    const char worst = 0x01;
    set_tz("America/St_Johns");
    size_t big = 3 * 256 * 64;
    char *message = malloc(big + 1);
    char *name = malloc(XLOG_MAX_NAME + 1);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        xlog_layout *l = layout(cases[c].kind, cases[c].pattern);
        for (int round = 0; round < 8; round++) {
            size_t len = big;
            switch (round) {
            case 0: /* every byte value, repeated */
                for (size_t i = 0; i < len; i++)
                    message[i] = (char)i;
                break;
            case 1: /* every byte value, each alone between letters */
                for (size_t i = 0; i < len; i++)
                    message[i] = (char)(i & 1 ? i / 2 : 'a');
                break;
            case 2: /* invalid UTF-8 only */
                memset(message, 0xff, len);
                break;
            case 3: /* C1 controls */
                for (size_t i = 0; i + 1 < len; i += 2)
                    memcpy(message + i, "\xc2\x9b", 2);
                break;
            case 4: /* line separators */
                for (size_t i = 0; i + 2 < len; i += 3)
                    memcpy(message + i, "\xe2\x80\xa8", 3);
                break;
            case 5: /* random bytes */
                for (size_t i = 0; i < len; i++)
                    message[i] = (char)rand64();
                break;
            case 6:
                len = 0;
                break;
            default: /* the worst */
                memset(message, worst, len);
                break;
            }
            message[len] = '\0';
            memset(name, worst, XLOG_MAX_NAME);
            name[XLOG_MAX_NAME] = '\0';
            static const int64_t extremes[] = {INT64_MIN, INT64_MAX, -1};
            for (size_t x = 0; x < sizeof extremes / sizeof extremes[0]; x++) {
                test_event t;
                make_event(&t, extremes[x], XLOG_FATAL, INT_MIN, INT_MIN, name, XLOG_MAX_NAME,
                           INT_MIN, name, XLOG_MAX_NAME, name, XLOG_MAX_NAME, message, len);
                xlog_thread_name thread = {.length = XLOG_THREAD_NAME_MAX};
                memset(thread.text, worst, XLOG_THREAD_NAME_MAX);
                t.e.thread_name = &thread;
                t.e.context = &context;
                const char *line;
                size_t n = render(l, &t, &line);
                if (round == 7)
                    assert_int_equal(n, xlog_layout_max_line(l, len));
            }
        }
        xlog_layout_destroy(l);
    }
    free(name);
    free(message);
    set_tz("UTC");
}

/* ---- JSON ---------------------------------------------------------------------- */

/* The attributes of an event of file "f.c", line 3, function "g", tid 2,
 * pid 1, no module. */
#define SMALL_ATTRIBUTES                                                                  \
    "\"code.filepath\":\"f.c\",\"code.lineno\":3,\"code.function\":\"g\",\"thread.id\":2," \
    "\"process.pid\":1"

/* A JSON line as xlog.h documents it, from the JSON text of its parts. */
static size_t json_line(char *out, size_t size, const char *timestamp, int level,
                        const char *body, const char *attributes)
{
    static const int numbers[] = {1, 5, 9, 13, 17, 21};
    int n = snprintf(out, size,
                     "{\"timestamp\":\"%s\",\"severity_text\":\"%s\",\"severity_number\":%d,"
                     "\"body\":\"%s\",\"attributes\":{%s}}\n",
                     timestamp, level_names[level], numbers[level], body, attributes);
    assert_true(n > 0 && (size_t)n < size);
    return (size_t)n;
}

static void json_object_is_as_documented(void **state)
{
    (void)state;
    xlog_layout *l = layout(XLOG_LAYOUT_JSON, NULL);
    test_event t;
    make_event(&t, 1795358725123456789, XLOG_INFO, 999, 12345, S("src/main.c"), 42, S("main"),
               S("net.tls"), S("user alice logged in"));
    expect_line(l, &t, S("{\"timestamp\":\"2026-11-22T14:45:25.123456789Z\","
                         "\"severity_text\":\"INFO\",\"severity_number\":9,"
                         "\"body\":\"user alice logged in\",\"attributes\":{"
                         "\"code.filepath\":\"src/main.c\",\"code.lineno\":42,"
                         "\"code.function\":\"main\",\"thread.id\":12345,\"process.pid\":999,"
                         "\"xlog.module\":\"net.tls\"}}\n"));
    for (int level = XLOG_TRACE; level <= XLOG_FATAL; level++) {
        make_event(&t, -1, level, -5, INT_MIN, S("a\"b\\c.c"), -7, S(""), S(""), S(""));
        char expected[512];
        size_t n = json_line(expected, sizeof expected, "1969-12-31T23:59:59.999999999Z", level, "",
                             "\"code.filepath\":\"a\\\"b\\\\c.c\",\"code.lineno\":-7,"
                             "\"code.function\":\"\",\"thread.id\":-2147483648,\"process.pid\":-5");
        expect_line(l, &t, expected, n);
    }
    xlog_layout_destroy(l);
    /* a pattern does not change a JSON layout */
    l = layout(XLOG_LAYOUT_JSON, "{level}");
    make_event(&t, 0, XLOG_INFO, 1, 2, S("f.c"), 3, S("g"), S(""), S("m"));
    char expected[512];
    size_t n = json_line(expected, sizeof expected, "1970-01-01T00:00:00.000000000Z", XLOG_INFO,
                         "m", SMALL_ATTRIBUTES);
    expect_line(l, &t, expected, n);
    xlog_layout_destroy(l);
}

/* A string is copied as it is checked, sixteen bytes at a time (a short
 * one a byte at a time), and handed whole to the escaping loop at the
 * first byte that needs it: every length to 80, plain or with one byte or
 * character to escape (or a valid one to keep) at every offset, so that
 * the check fails in each step, the last overlapping one included.  Whole
 * lines against the documented escapes. */
static void json_strings_of_every_length_with_an_escape_anywhere(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out;
    } offenders[] = {
        {"\"", "\\\""}, {"\\", "\\\\"}, {"\n", "\\n"}, {"\x01", "\\u0001"},
        {"\x7f", "\\u007f"}, {"\xc2\x85", "\\u0085"}, {"\xff", "\xef\xbf\xbd"},
        {"\xc3\xa9", "\xc3\xa9"},
    };
    xlog_layout *l = layout(XLOG_LAYOUT_JSON, NULL);
    for (size_t len = 0; len <= 80; len++) {
        for (size_t o = 0; o <= sizeof offenders / sizeof offenders[0]; o++) {
            for (size_t at = 0; at < (o == 0 ? 1 : len); at++) {
                char message[96], body[128];
                size_t bad_len = o ? strlen(offenders[o - 1].in) : 0;
                if (at + bad_len > len)
                    continue;
                for (size_t i = 0; i < len; i++)
                    message[i] = (char)('a' + (i * 7 + len) % 26);
                message[len] = '\0';
                memcpy(body, message, at);
                size_t b = at;
                if (o) {
                    memcpy(message + at, offenders[o - 1].in, bad_len);
                    size_t out_len = strlen(offenders[o - 1].out);
                    memcpy(body + b, offenders[o - 1].out, out_len);
                    b += out_len;
                }
                memcpy(body + b, message + at + bad_len, len - at - bad_len);
                body[b + len - at - bad_len] = '\0';
                test_event t;
                make_event(&t, 0, XLOG_INFO, 1, 2, S("f.c"), 3, S("g"), S(""), message, len);
                char expected[512];
                size_t n = json_line(expected, sizeof expected, "1970-01-01T00:00:00.000000000Z",
                                     XLOG_INFO, body, SMALL_ATTRIBUTES);
                expect_line(l, &t, expected, n);
            }
        }
    }
    xlog_layout_destroy(l);
}

static void json_strings_are_escaped_as_documented(void **state)
{
    (void)state;
    static const struct {
        const char *in;
        size_t len;
        const char *body;
    } cases[] = {
        {S("plain / text"), "plain / text"},
        {S("\""), "\\\""},
        {S("\\"), "\\\\"},
        {S("\\\"\\\""), "\\\\\\\"\\\\\\\""},
        {S("\n\r\t\b\f"), "\\n\\r\\t\\b\\f"},
        {S("\0\x01\x1b\x1f"), "\\u0000\\u0001\\u001b\\u001f"},
        {S("\x7f"), "\\u007f"},
        {S("\xc2\x80\xc2\x85\xc2\x9f"), "\\u0080\\u0085\\u009f"},
        {S("\xc2\xa0\xc3\xa9"), "\xc2\xa0\xc3\xa9"},
        {S("\xe2\x80\xa8\xe2\x80\xa9\xe2\x80\xaa"), "\\u2028\\u2029\xe2\x80\xaa"},
        {S("\xf0\x9f\x98\x80\xe6\x97\xa5"), "\xf0\x9f\x98\x80\xe6\x97\xa5"},
        {S("\xff"), "\xef\xbf\xbd"},
        {S("\x80"), "\xef\xbf\xbd"},
        {S("\xe2\x82"), "\xef\xbf\xbd\xef\xbf\xbd"},
        {S("\xc0\x80"), "\xef\xbf\xbd\xef\xbf\xbd"},
        {S("\xed\xa0\x80"), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},
        {S("\xf4\x90\x80\x80"), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},
        {S("\xf0\x9f\x98" "\""), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\\\""},
        {S("\xe2\x82" "\xe2\x82\xac"), "\xef\xbf\xbd\xef\xbf\xbd\xe2\x82\xac"},
        {S("0123456789abcde\"0123456789abcdef\\"), "0123456789abcde\\\"0123456789abcdef\\\\"},
        {S("0123456789\\abcdef0123456789\"abcdef"), "0123456789\\\\abcdef0123456789\\\"abcdef"},
        {S("0123456789abcdef\x01\x7f" "123456789abcdef"),
         "0123456789abcdef\\u0001\\u007f123456789abcdef"},
    };
    xlog_layout *l = layout(XLOG_LAYOUT_JSON, NULL);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char message[64];
        memcpy(message, cases[i].in, cases[i].len);
        message[cases[i].len] = '\0';
        test_event t;
        make_event(&t, 0, XLOG_INFO, 1, 2, S("f.c"), 3, S("g"), S(""), message, cases[i].len);
        char expected[512];
        size_t n = json_line(expected, sizeof expected, "1970-01-01T00:00:00.000000000Z", XLOG_INFO,
                             cases[i].body, SMALL_ATTRIBUTES);
        expect_line(l, &t, expected, n);
    }
    xlog_layout_destroy(l);
}

/* ---- JSON lines for check_json_layout.py --------------------------------------- */

static void put_hex(FILE *f, const char *p, size_t n)
{
    if (n == 0)
        fputc('-', f);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%02x", (unsigned char)p[i]);
}

/* A string of hostile pieces: quotes, backslashes, every control, C1
 * controls, line separators, every kind of invalid UTF-8, other scripts. */
static size_t hostile_text(char *out, size_t len)
{
    static const bytes pieces[] = {
        {S("\"")}, {S("\\")}, {S("\\u0041")}, {S("\",\"forged\":\"")}, {S("}}\n{")}, {S("\x7f")},
        {S("\xc2\x85")}, {S("\xc2\x9b")}, {S("\xe2\x80\xa8")}, {S("\xe2\x80\xa9")},
        {S("\xc3\xa9")}, {S("\xe6\x97\xa5")}, {S("\xf0\x9f\x98\x80")}, {S("\xef\xbf\xbd")},
        {S("\xff")}, {S("\xfe")}, {S("\x80")}, {S("\xbf")}, {S("\xc0\xaf")}, {S("\xc1\xbf")},
        {S("\xe0\x80\xaf")}, {S("\xed\xa0\x80")}, {S("\xed\xbf\xbf")}, {S("\xf4\x90\x80\x80")},
        {S("\xf5\x80\x80\x80")}, {S("\xf8\x88\x80\x80\x80")}, {S("\xe2\x82")}, {S("\xf0\x9f\x98")},
        {S("\xc2")}, {S("plain ascii text ")},
    };
    size_t n = 0;
    while (n < len) {
        if (rand64() % 4 == 0) {
            out[n++] = (char)(rand64() % 0x20);
            continue;
        }
        const bytes *b = &pieces[rand64() % (sizeof pieces / sizeof pieces[0])];
        size_t take = b->n < len - n ? b->n : len - n;
        memcpy(out + n, b->p, take);
        n += take;
    }
    return n;
}

/* Writes DIR/lines.jsonl and DIR/events.txt: one event a line, "time level
 * pid tid line" and then file, function, module and message in hex ("-"
 * when empty). */
static int write_json_cases(const char *dir)
{
    xlog_layout *l;
    if (xlog_layout_create(&l, XLOG_LAYOUT_JSON, NULL, NULL, "json") != 0)
        return 1;
    char *path = test_path(dir, "lines.jsonl");
    FILE *lines = fopen(path, "wb");
    free(path);
    path = test_path(dir, "events.txt");
    FILE *events = fopen(path, "w");
    free(path);
    if (!lines || !events)
        return 1;
    size_t big = 1 << 20;
    char *message = malloc(big + 1);
    char file[XLOG_MAX_NAME], function[XLOG_MAX_NAME], module[64];
    char *out = malloc(xlog_layout_max_line(l, big));
    size_t count = (size_t)test_scaled(3000);
    for (size_t i = 0; i < count + 4; i++) {
        test_event t;
        size_t message_len;
        if (i < 4) { /* a message of 1 MiB: hostile, then valid UTF-8 */
            message_len = i % 2 ? hostile_text(message, big) : 0;
            const char *piece = i == 0 ? "\xe6\x97\xa5" : "\xf0\x9f\x98\x80\"\\";
            while (i % 2 == 0 && message_len + strlen(piece) <= big) {
                memcpy(message + message_len, piece, strlen(piece));
                message_len += strlen(piece);
            }
        } else {
            message_len = hostile_text(message, rand64() % 300);
        }
        message[message_len] = '\0';
        size_t file_len = i % 5 ? hostile_text(file, rand64() % 100) : 0;
        size_t function_len = hostile_text(function, i % 7 ? rand64() % 60 : XLOG_MAX_NAME);
        size_t module_len = i % 2 ? hostile_text(module, rand64() % 20) : 0;
        int64_t ns = (int64_t)rand64();
        if (i % 3 == 0)
            ns = i % 2 ? INT64_MIN : INT64_MAX;
        make_event(&t, ns, (int)(i % 6), (int)rand64(), (int)rand64(), file, file_len,
                   (int)rand64(), function, function_len, module, module_len, message,
                   message_len);
        size_t n = xlog_layout_write(l, &t.e, out);
        fwrite(out, 1, n, lines);
        fprintf(events, "%lld %d %d %d %d ", (long long)ns, t.e.pub.level, t.e.pub.pid, t.e.pub.tid,
                t.e.pub.line);
        put_hex(events, file, file_len);
        fputc(' ', events);
        put_hex(events, function, function_len);
        fputc(' ', events);
        put_hex(events, module, module_len);
        fputc(' ', events);
        put_hex(events, message, message_len);
        fputc('\n', events);
    }
    free(out);
    free(message);
    xlog_layout_destroy(l);
    return fclose(lines) != 0 || fclose(events) != 0;
}

int main(int argc, char **argv)
{
    if (!setlocale(LC_CTYPE, "C.UTF-8")) { /* line_rule.h decodes with mbrtowc */
        fprintf(stderr, "test_layouts: the C.UTF-8 locale is missing\n");
        return 1;
    }
    set_tz("UTC");
    if (argc == 3 && strcmp(argv[1], "--json") == 0)
        return write_json_cases(argv[2]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(default_line_is_the_old_line_byte_for_byte),
        cmocka_unit_test(time_text_reused_across_boundaries_and_backwards),
        cmocka_unit_test(default_line_equals_its_pattern_written_field_by_field),
        cmocka_unit_test(default_line_is_recognised_by_meaning),
        cmocka_unit_test(each_field_matches_the_c_library),
        cmocka_unit_test(time_matches_strftime_in_every_zone_and_option),
        cmocka_unit_test(time_options_in_any_order),
        cmocka_unit_test(braces_literals_and_several_fields),
        cmocka_unit_test(pattern_errors_say_what_and_where),
        cmocka_unit_test(max_line_is_a_true_and_tight_bound),
        cmocka_unit_test(json_object_is_as_documented),
        cmocka_unit_test(json_strings_are_escaped_as_documented),
        cmocka_unit_test(json_strings_of_every_length_with_an_escape_anywhere),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    free(line_buffer);
    return failed;
}
