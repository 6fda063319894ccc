/*
 * test_binary_writer.c - the binary log files (XLOG_LAYOUT_BINARY) as the
 * library writes them, read back by a parser of this file's own that
 * follows docs/BINARY.md (not the library's encoder or decoder), and
 * checked value by value: the block headers, the Process, Site and Thread
 * entries, every argument of every record, the flags, the names, size
 * rotation, compression, two processes sharing a file, and that with only
 * binary files no message is rendered.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <wchar.h>
#include <zlib.h>

#include "testutil.h"

#include <sys/stat.h>

#include "binary/decode.h"
#include "leftovers.h"

/* ---- a reader of docs/BINARY.md, independent of the library -------------- */

enum { K_INT = 1, K_LONG, K_LLONG, K_INTMAX, K_SIZE, K_PTRDIFF, K_WINT, K_DOUBLE, K_LDOUBLE,
       K_PTR, K_STR, K_WSTR, K_ERRNO };

typedef struct bstring {
    int null;
    size_t len;
    char *bytes;        /* a copy, NUL-terminated */
} bstring;

typedef struct barg {
    int kind;
    int64_t i;          /* the integer kinds and errno (unzigzagged) */
    uint64_t u;         /* a pointer */
    double d;
    uint8_t ld[16];
    bstring s;
    int wnull;
    size_t wlen;
    uint32_t w[64];
} barg;

typedef struct bsite {
    int level;
    uint64_t line;
    unsigned nargs;
    uint8_t kinds[64];
    char *format, *file, *function, *module;
} bsite;

typedef struct bentry {
    int message;        /* a Message entry, else a Record */
    uint64_t writer;
    uint64_t pid;
    uint64_t tid;
    int64_t time_ns;
    int level;
    unsigned flags;     /* a record's tag & 0x7f */
    bsite site;         /* a record's site, copied */
    uint64_t site_number;
    unsigned nargs;
    barg *args;         /* nargs of them */
    uint64_t suppressed;
    /* a Message entry's */
    uint64_t line;
    char *file, *function, *module, *text;
    size_t text_len;
    /* its block's Process entry's */
    char *host, *program;
    char thread_name[64]; /* the block's Thread name entry for tid, or "" */
} bentry;

typedef struct bfile {
    size_t blocks;
    size_t entries_count;
    size_t entries_capacity;
    bentry *entries;
    /* the last block's Process entry */
    uint64_t pid, max_message, options;
    char *host, *program;
    double ns_per_tick;
} bfile;

typedef struct cursor {
    const uint8_t *p, *end;
} cursor;

static uint64_t get_varint(cursor *c)
{
    uint64_t v = 0;
    for (unsigned shift = 0;; shift += 7) {
        assert_true(c->p < c->end);
        assert_true(shift < 70);
        uint8_t b = *c->p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return v;
    }
}

static int64_t get_svarint(cursor *c)
{
    uint64_t v = get_varint(c);
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static uint8_t get_byte(cursor *c)
{
    assert_true(c->p < c->end);
    return *c->p++;
}

static void get_bytes(cursor *c, void *out, size_t n)
{
    assert_true((size_t)(c->end - c->p) >= n);
    memcpy(out, c->p, n);
    c->p += n;
}

static char *get_string(cursor *c, size_t *len)
{
    uint64_t n = get_varint(c);
    assert_true((uint64_t)(c->end - c->p) >= n);
    char *s = malloc(n + 1);
    memcpy(s, c->p, n);
    s[n] = '\0';
    c->p += n;
    if (len)
        *len = n;
    return s;
}

static uint64_t le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static bentry *new_entry(bfile *f)
{
    if (f->entries_count == f->entries_capacity) {
        f->entries_capacity = f->entries_capacity ? 2 * f->entries_capacity : 64;
        f->entries = realloc(f->entries, f->entries_capacity * sizeof *f->entries);
    }
    bentry *e = &f->entries[f->entries_count++];
    memset(e, 0, sizeof *e);
    e->host = strdup(f->host);
    e->program = strdup(f->program);
    return e;
}

static void get_args(cursor *c, bentry *e)
{
    for (unsigned i = 0; i < e->nargs; i++) {
        barg *a = &e->args[i];
        a->kind = e->site.kinds[i] & 0x0f;
        switch (a->kind) {
        case K_INT: case K_LONG: case K_LLONG: case K_INTMAX: case K_SIZE: case K_PTRDIFF:
        case K_WINT: case K_ERRNO:
            a->i = get_svarint(c);
            break;
        case K_DOUBLE: {
            uint8_t b[8];
            get_bytes(c, b, 8);
            uint64_t bits = le(b, 8);
            memcpy(&a->d, &bits, 8);
            break;
        }
        case K_LDOUBLE:
            get_bytes(c, a->ld, 16);
            break;
        case K_PTR:
            a->u = get_varint(c);
            break;
        case K_STR: {
            uint64_t n = get_varint(c);
            a->s.null = n == 0;
            if (n) {
                assert_true((uint64_t)(c->end - c->p) >= n - 1);
                a->s.len = n - 1;
                a->s.bytes = malloc(n);
                memcpy(a->s.bytes, c->p, n - 1);
                a->s.bytes[n - 1] = '\0';
                c->p += n - 1;
            }
            break;
        }
        case K_WSTR: {
            uint64_t n = get_varint(c);
            a->wnull = n == 0;
            if (n) {
                a->wlen = n - 1;
                assert_true(a->wlen <= 64);
                for (size_t k = 0; k < a->wlen; k++)
                    a->w[k] = (uint32_t)get_varint(c);
            }
            break;
        }
        default:
            fail_msg("kind %d", a->kind);
        }
    }
}

/* Parses a whole file: blocks back to back, every one whole and alone
 * (its sites and threads defined in it).  Returns the parsed file; fails
 * the test on anything docs/BINARY.md does not allow. */
static bfile parse(const uint8_t *data, size_t size)
{
    bfile f = {0};
    size_t at = 0;
    while (at < size) {
        assert_true(size - at >= 32);
        assert_memory_equal(data + at, "\x89XLOG\r\n\x1a", 8);
        assert_int_equal(le(data + at + 8, 2), 1);
        assert_int_equal(le(data + at + 10, 2), 32);
        uint64_t block_size = le(data + at + 12, 4);
        uint64_t writer = le(data + at + 16, 8);
        int64_t time = (int64_t)le(data + at + 24, 8);
        assert_true(block_size > 32 && block_size <= size - at);
        assert_true(writer != 0);
        cursor c = {data + at + 32, data + at + block_size};
        f.blocks++;
        /* the Process entry first */
        assert_int_equal(get_byte(&c), 0x01);
        f.pid = get_varint(&c);
        f.max_message = get_varint(&c);
        uint8_t rate[8];
        get_bytes(&c, rate, 8);
        uint64_t bits = le(rate, 8);
        memcpy(&f.ns_per_tick, &bits, 8);
        get_varint(&c);
        get_varint(&c);
        free(f.host);
        free(f.program);
        f.host = get_string(&c, NULL);
        f.program = get_string(&c, NULL);
        f.options = get_varint(&c);
        bsite sites[256];
        int defined[256] = {0};
        int64_t tid = -1;
        struct {
            uint64_t tid;
            char *name;
        } names[64];
        size_t name_count = 0;
        while (c.p < c.end) {
            uint8_t tag = get_byte(&c);
            if (tag == 0x02) {
                uint64_t n = get_varint(&c);
                assert_true(n < 256);
                assert_false(defined[n]); /* once per block */
                bsite *s = &sites[n];
                s->level = get_byte(&c);
                s->line = get_varint(&c);
                s->nargs = (unsigned)get_varint(&c);
                assert_true(s->nargs <= 64);
                get_bytes(&c, s->kinds, s->nargs);
                s->format = get_string(&c, NULL);
                s->file = get_string(&c, NULL);
                s->function = get_string(&c, NULL);
                s->module = get_string(&c, NULL);
                defined[n] = 1;
            } else if (tag == 0x03) {
                tid = (int64_t)get_varint(&c);
            } else if (tag == 0x06) { /* Thread name */
                uint64_t named = get_varint(&c);
                size_t i = 0;
                while (i < name_count && names[i].tid != named)
                    i++;
                assert_true(i < 64);
                if (i == name_count)
                    name_count++;
                else
                    free(names[i].name);
                names[i].tid = named;
                names[i].name = get_string(&c, NULL);
            } else if (tag == 0x04) {
                assert_true(tid >= 0);
                bentry *e = new_entry(&f);
                e->message = 1;
                e->writer = writer;
                e->pid = f.pid;
                e->tid = (uint64_t)tid;
                for (size_t i = 0; i < name_count; i++)
                    if (names[i].tid == e->tid)
                        snprintf(e->thread_name, sizeof e->thread_name, "%s", names[i].name);
                time += (int64_t)get_varint(&c);
                e->time_ns = time;
                e->level = get_byte(&c);
                e->line = get_varint(&c);
                e->file = get_string(&c, NULL);
                e->function = get_string(&c, NULL);
                e->module = get_string(&c, NULL);
                e->text = get_string(&c, &e->text_len);
            } else {
                assert_true(tag & 0x80);
                assert_int_equal(tag & 0x78, 0);
                assert_true(tid >= 0);
                bentry *e = new_entry(&f);
                e->writer = writer;
                e->pid = f.pid;
                e->tid = (uint64_t)tid;
                for (size_t i = 0; i < name_count; i++)
                    if (names[i].tid == e->tid)
                        snprintf(e->thread_name, sizeof e->thread_name, "%s", names[i].name);
                e->flags = tag & 0x7f;
                e->site_number = get_varint(&c);
                assert_true(e->site_number < 256 && defined[e->site_number]);
                e->site = sites[e->site_number];
                e->site.format = strdup(e->site.format);
                e->site.file = strdup(e->site.file);
                e->site.function = strdup(e->site.function);
                e->site.module = strdup(e->site.module);
                time += (int64_t)get_varint(&c);
                e->time_ns = time;
                e->level = e->flags & 0x04 ? get_byte(&c) : e->site.level;
                e->nargs = e->site.nargs;
                e->args = calloc(e->nargs ? e->nargs : 1, sizeof *e->args);
                get_args(&c, e);
                if (e->flags & 0x02)
                    e->suppressed = get_varint(&c);
            }
        }
        for (size_t i = 0; i < name_count; i++)
            free(names[i].name);
        for (int n = 0; n < 256; n++) {
            if (!defined[n])
                continue;
            free(sites[n].format);
            free(sites[n].file);
            free(sites[n].function);
            free(sites[n].module);
        }
        at += block_size;
    }
    return f;
}

static void bfile_free(bfile *f)
{
    for (size_t i = 0; i < f->entries_count; i++) {
        bentry *e = &f->entries[i];
        for (unsigned k = 0; k < e->nargs; k++)
            free(e->args[k].s.bytes);
        free(e->args);
        free(e->site.format);
        free(e->site.file);
        free(e->site.function);
        free(e->site.module);
        free(e->file);
        free(e->function);
        free(e->module);
        free(e->text);
        free(e->host);
        free(e->program);
    }
    free(f->entries);
    free(f->host);
    free(f->program);
    memset(f, 0, sizeof *f);
}

static bfile parse_path(const char *path)
{
    size_t len = 0;
    char *data = test_read_file(path, &len);
    assert_non_null(data);
    bfile f = parse((const uint8_t *)data, len);
    free(data);
    return f;
}

/* The records (not Message entries) of f whose format is format. */
static size_t records_of(const bfile *f, const char *format, const bentry **out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < f->entries_count; i++) {
        const bentry *e = &f->entries[i];
        if (!e->message && strcmp(e->site.format, format) == 0) {
            if (n < max)
                out[n] = e;
            n++;
        }
    }
    return n;
}

/* ---- set up -------------------------------------------------------------- */

static xlog_config binary_config(const test_place *place)
{
    xlog_config cfg = test_config_in(place->logs);
    cfg.persistent_dir = place->shm;
    cfg.file_layout = XLOG_LAYOUT_BINARY;
    cfg.level = XLOG_TRACE;
    return cfg;
}

/* The one file in dir whose name ends in suffix (fails unless exactly one). */
static char *only_file(const char *dir, const char *suffix)
{
    size_t n = 0;
    char **names = test_list_files(dir, &n);
    char *found = NULL;
    size_t count = 0;
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(names[i]), slen = strlen(suffix);
        if (len >= slen && strcmp(names[i] + len - slen, suffix) == 0) {
            count++;
            free(found);
            found = test_path(dir, names[i]);
        }
    }
    test_free_list(names, n);
    assert_int_equal(count, 1);
    return found;
}

static char *today(void)
{
    char *date = malloc(16);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(date, 16, "%Y-%m-%d", &tm);
    return date;
}

static int gettid_(void)
{
    return (int)syscall(SYS_gettid);
}

/* ---- what a record carries ------------------------------------------------- */

static void every_argument_is_written_exactly(void **state)
{
    (void)state;
    test_place place;
    test_place_make(&place, "bin-args");
    xlog_config cfg = binary_config(&place);
    assert_int_equal(xlog_open(&cfg), 0);
    int tid = gettid_();

    for (int i = -2; i <= 2; i++)
        xlog_info("int %d long %ld llong %lld", i, (long)i * 5000000000L, (long long)i * 3);
    xlog_warn("u64 %lu zu %zu max %llu", (unsigned long)UINT64_MAX, (size_t)SIZE_MAX,
              (unsigned long long)INT64_MAX);
    double doubles[] = {0.0, -0.0, 1.5, -2.25e300, DBL_MIN, NAN, INFINITY};
    for (size_t i = 0; i < sizeof doubles / sizeof doubles[0]; i++)
        xlog_info("double %f", doubles[i]);
    const char *volatile null_string = NULL;
    xlog_error("strings [%s] [%s] [%s]", null_string, "", "a\nb\x01\xff\"\\ end");
    long double ld = 1.0L / 3.0L;
    xlog_info("ld %Lf", ld);
    errno = ENOENT;
    xlog_info("errno %m");
    const wchar_t *volatile wnull = NULL;
    xlog_info("wide %ls %ls", L"h\u00e9\U0001F600", wnull);
    void *pointer = (void *)(uintptr_t)0xdeadbeefcafe;
    xlog_info("ptr %p char %c", pointer, 'x');
    assert_int_equal(xlog_close(), 0);

    char *date = today();
    char name[64];
    snprintf(name, sizeof name, "%s.xlog", date);
    char *path = only_file(place.logs, ".xlog");
    assert_string_equal(strrchr(path, '/') + 1, name);
    bfile f = parse_path(path);
    assert_int_equal(f.pid, (uint64_t)getpid());
    assert_int_equal(f.max_message, cfg.max_message);
    assert_int_equal(f.options, 0);
    char host[300] = "";
    gethostname(host, sizeof host);
    assert_string_equal(f.host, host);
    assert_string_equal(f.program, program_invocation_short_name);
    assert_true(f.ns_per_tick > 0);

    const bentry *r[16];
    assert_int_equal(records_of(&f, "int %d long %ld llong %lld", r, 16), 5);
    for (int i = 0; i < 5; i++) {
        assert_int_equal(r[i]->level, XLOG_INFO);
        assert_int_equal(r[i]->tid, (uint64_t)tid);
        assert_int_equal(r[i]->nargs, 3);
        assert_int_equal(r[i]->site.kinds[0], K_INT);
        assert_int_equal(r[i]->site.kinds[1], K_LONG);
        assert_int_equal(r[i]->site.kinds[2], K_LLONG);
        assert_int_equal(r[i]->args[0].i, i - 2);
        assert_int_equal(r[i]->args[1].i, (long)(i - 2) * 5000000000L);
        assert_int_equal(r[i]->args[2].i, (i - 2) * 3);
        assert_string_equal(r[i]->site.file, __FILE__);
        assert_string_equal(r[i]->site.function, "every_argument_is_written_exactly");
        assert_string_equal(r[i]->site.module, "");
        if (i)
            assert_true(r[i]->time_ns >= r[i - 1]->time_ns);
    }
    assert_int_equal(records_of(&f, "u64 %lu zu %zu max %llu", r, 16), 1);
    assert_int_equal(r[0]->level, XLOG_WARN);
    assert_int_equal((uint64_t)r[0]->args[0].i, UINT64_MAX);
    assert_int_equal((uint64_t)r[0]->args[1].i, (uint64_t)SIZE_MAX);
    assert_int_equal(r[0]->args[2].i, INT64_MAX);
    assert_int_equal(r[0]->site.kinds[1], K_SIZE);

    assert_int_equal(records_of(&f, "double %f", r, 16), 7);
    for (size_t i = 0; i < 7; i++) {
        assert_int_equal(r[i]->site.kinds[0], K_DOUBLE);
        assert_memory_equal(&r[i]->args[0].d, &doubles[i], 8);
    }
    assert_int_equal(records_of(&f, "strings [%s] [%s] [%s]", r, 16), 1);
    assert_int_equal(r[0]->level, XLOG_ERROR);
    assert_true(r[0]->args[0].s.null);
    assert_false(r[0]->args[1].s.null);
    assert_int_equal(r[0]->args[1].s.len, 0);
    const char hostile[] = "a\nb\x01\xff\"\\ end";
    assert_int_equal(r[0]->args[2].s.len, sizeof hostile - 1);
    assert_memory_equal(r[0]->args[2].s.bytes, hostile, sizeof hostile - 1);

    assert_int_equal(records_of(&f, "ld %Lf", r, 16), 1);
    assert_int_equal(r[0]->site.kinds[0], K_LDOUBLE);
    assert_memory_equal(r[0]->args[0].ld, &ld, 10);
    static const uint8_t zeros[6];
    assert_memory_equal(r[0]->args[0].ld + 10, zeros, 6);

    assert_int_equal(records_of(&f, "errno %m", r, 16), 1);
    assert_int_equal(r[0]->nargs, 1);
    assert_int_equal(r[0]->site.kinds[0], K_ERRNO);
    assert_int_equal(r[0]->args[0].i, ENOENT);

    assert_int_equal(records_of(&f, "wide %ls %ls", r, 16), 1);
    assert_int_equal(r[0]->site.kinds[0], K_WSTR);
    assert_int_equal(r[0]->args[0].wlen, 3);
    assert_int_equal(r[0]->args[0].w[0], 'h');
    assert_int_equal(r[0]->args[0].w[1], 0xe9);
    assert_int_equal(r[0]->args[0].w[2], 0x1F600);
    assert_true(r[0]->args[1].wnull);

    assert_int_equal(records_of(&f, "ptr %p char %c", r, 16), 1);
    assert_int_equal(r[0]->site.kinds[0], K_PTR);
    assert_int_equal(r[0]->args[0].u, 0xdeadbeefcafe);
    assert_int_equal(r[0]->site.kinds[1], K_INT);
    assert_int_equal(r[0]->args[1].i, 'x');

    /* Every record above, and nothing else but xlog's own lines. */
    size_t records = 0;
    for (size_t i = 0; i < f.entries_count; i++)
        records += !f.entries[i].message;
    assert_int_equal(records, 5 + 1 + 7 + 1 + 1 + 1 + 1 + 1);
    bfile_free(&f);
    free(path);
    free(date);
    test_place_remove(&place);
}

static void flags_say_level_truncation_and_suppressed_calls(void **state)
{
    (void)state;
    test_place place;
    test_place_make(&place, "bin-flags");
    xlog_config cfg = binary_config(&place);
    cfg.max_message = 256;
    assert_int_equal(xlog_open(&cfg), 0);
    static const int levels[] = {XLOG_INFO, XLOG_ERROR, XLOG_INFO, XLOG_DEBUG};
    for (int i = 0; i < 4; i++)
        XLOG(levels[i], "level %d", i);
    char long_string[1000];
    memset(long_string, 'x', sizeof long_string - 1);
    long_string[sizeof long_string - 1] = '\0';
    xlog_info("long %s", long_string);
    for (int i = 0; i < 7; i++)
        xlog_info_every_n(3, "rated %d", i);
    assert_int_equal(xlog_close(), 0);

    char *path = only_file(place.logs, ".xlog");
    bfile f = parse_path(path);
    const bentry *r[16];
    assert_int_equal(records_of(&f, "level %d", r, 16), 4);
    assert_int_equal(r[0]->site.level, XLOG_INFO); /* the level of the record that defined it */
    for (int i = 0; i < 4; i++) {
        assert_int_equal(r[i]->level, levels[i]);
        assert_int_equal(r[i]->flags, levels[i] == XLOG_INFO ? 0 : 0x04);
        assert_int_equal(r[i]->args[0].i, i);
    }
    assert_int_equal(records_of(&f, "long %s", r, 16), 1);
    assert_int_equal(r[0]->flags, 0x01);
    assert_int_equal(r[0]->args[0].s.len, 256); /* cut by the caller at max_message */
    for (size_t k = 0; k < r[0]->args[0].s.len; k++)
        assert_int_equal(r[0]->args[0].s.bytes[k], 'x');
    assert_int_equal(records_of(&f, "rated %d", r, 16), 3);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(r[i]->flags, 0x02);
        assert_int_equal(r[i]->args[0].i, 3 * i);
        assert_int_equal(r[i]->suppressed, i ? 2 : 0);
    }
    bfile_free(&f);
    free(path);
    test_place_remove(&place);
}

static void lines_without_a_site_go_as_messages(void **state)
{
    (void)state;
    test_place place;
    test_place_make(&place, "bin-messages");
    xlog_config cfg = binary_config(&place);
    cfg.backtrace_lines = 4;
    cfg.level = XLOG_INFO;
    assert_int_equal(xlog_open(&cfg), 0);
    const char *volatile dynamic = "dynamic %d [%s]";
    xlog_info(dynamic, 42, "x\ny");
    xlog_debug("kept %d", 1);
    xlog_debug("kept %d", 2);
    xlog_error("boom %d", 3);
    assert_int_equal(xlog_close(), 0);

    char *path = only_file(place.logs, ".xlog");
    bfile f = parse_path(path);
    /* the dynamic line, two lines of the backtrace, then the error */
    assert_int_equal(f.entries_count, 4);
    bentry *e = &f.entries[0];
    assert_true(e->message);
    assert_int_equal(e->level, XLOG_INFO);
    assert_string_equal(e->text, "dynamic 42 [x\ny]");
    assert_string_equal(e->file, __FILE__);
    assert_string_equal(e->function, "lines_without_a_site_go_as_messages");
    for (int i = 1; i <= 2; i++) {
        e = &f.entries[i];
        assert_true(e->message);
        assert_int_equal(e->level, XLOG_DEBUG);
        char want[32];
        snprintf(want, sizeof want, "[backtrace] kept %d", i);
        assert_string_equal(e->text, want);
        assert_true(e->time_ns <= f.entries[3].time_ns);
    }
    e = &f.entries[3];
    assert_false(e->message);
    assert_string_equal(e->site.format, "boom %d");
    assert_int_equal(e->args[0].i, 3);
    assert_int_equal(e->level, XLOG_ERROR);
    bfile_free(&f);
    free(path);
    test_place_remove(&place);
}

/* ---- a record no block can take, among records in runs ------------------- */

#define X10 "xxxxxxxxxx"
#define X100 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10
#define X1000 X100 X100 X100 X100 X100 X100 X100 X100 X100 X100
/* A format longer than the longest entry a block takes with max_message
 * 256 (about 6 KB): its site's records can only go as Message entries. */
#define FORMAT_NO_BLOCK_TAKES "%d " X1000 X1000 X1000 X1000 X1000 X1000 X1000 X1000

/* The back end hands the file the records of a ring in runs; a record of
 * a site whose Site entry no block can take is refused there and goes as
 * an event (a Message entry), in its place, with the time it had: every
 * record once, in the order logged, and times never going back. */
static void a_record_no_block_takes_goes_as_a_message_in_its_place(void **state)
{
    (void)state;
    test_place place;
    test_place_make(&place, "bin-refused");
    xlog_config cfg = binary_config(&place);
    cfg.max_message = 256;
    assert_int_equal(xlog_open(&cfg), 0);
    enum { rounds = 200 };
    for (int i = 0; i < rounds; i++) {
        xlog_info("before %d", i);
        xlog_info(FORMAT_NO_BLOCK_TAKES, i);
        xlog_info("after %d", i);
    }
    assert_int_equal(xlog_close(), 0);

    char *path = only_file(place.logs, ".xlog");
    bfile f = parse_path(path);
    assert_int_equal(f.entries_count, 3 * rounds);
    static char full[sizeof FORMAT_NO_BLOCK_TAKES + 16];
    char want[256 + sizeof XLOG_TRUNCATED_MARK];
    for (int i = 0; i < rounds; i++) {
        const bentry *e = &f.entries[3 * i];
        assert_false(e->message);
        assert_string_equal(e->site.format, "before %d");
        assert_int_equal(e->nargs, 1);
        assert_int_equal(e->args[0].i, i);
        e++;
        assert_true(e->message);
        assert_int_equal(e->level, XLOG_INFO);
        snprintf(full, sizeof full, FORMAT_NO_BLOCK_TAKES, i);
        /* cut to max_message bytes, the mark included */
        snprintf(want, sizeof want, "%.*s%s", (int)(256 - (sizeof XLOG_TRUNCATED_MARK - 1)), full,
                 XLOG_TRUNCATED_MARK);
        assert_string_equal(e->text, want);
        e++;
        assert_false(e->message);
        assert_string_equal(e->site.format, "after %d");
        assert_int_equal(e->nargs, 1);
        assert_int_equal(e->args[0].i, i);
    }
    for (size_t i = 1; i < f.entries_count; i++)
        assert_true(f.entries[i].time_ns >= f.entries[i - 1].time_ns);
    /* Each with its own call's time: two calls lie between a message and
     * the next round's first record, which is later then, but for a
     * clock resynchronisation, which may hold a few times back to the
     * last one written (at most a few rounds of these).  A refused record
     * given the time of the last record of its run would hold the rest of
     * the run back to that time too: almost no round would be later. */
    int later = 0;
    for (int i = 0; i + 1 < rounds; i++)
        later += f.entries[3 * i + 3].time_ns > f.entries[3 * i + 1].time_ns;
    assert_true(later >= rounds / 2);
    bfile_free(&f);
    free(path);
    test_place_remove(&place);
}

/* ---- no message rendered --------------------------------------------------- */

/* A message longer than max_message by its format's widths alone (no
 * string is cut on the caller): rendering it cuts it, which
 * xlog_counters.truncated counts.  With a text file it is counted; with
 * only a binary file it is not, because nothing renders it. */
static uint64_t truncated_count_for(xlog_layout_kind layout)
{
    test_place place;
    test_place_make(&place, "bin-render");
    xlog_config cfg = binary_config(&place);
    cfg.file_layout = layout;
    cfg.max_message = 256;
    assert_int_equal(xlog_open(&cfg), 0);
    xlog_counters before, after;
    xlog_stats(&before);
    for (int i = 0; i < 10; i++)
        xlog_info("%0300d %0300d", i, i);
    assert_int_equal(xlog_flush(), 0);
    xlog_stats(&after);
    assert_int_equal(xlog_close(), 0);
    test_place_remove(&place);
    return after.truncated - before.truncated;
}

static void only_binary_files_render_no_message(void **state)
{
    (void)state;
    assert_int_equal(truncated_count_for(XLOG_LAYOUT_TEXT), 10);
    assert_int_equal(truncated_count_for(XLOG_LAYOUT_BINARY), 0);
}

/* A text sink beside the binary file: the records go to the file through
 * the sinks' events (not the back end's shortest way, which only a lone
 * binary file takes), the same records, and the custom sink gets each
 * message rendered. */
typedef struct collected {
    int count;
    char messages[8][64];
} collected;

static void collect(void *context, const xlog_event *event, const char *bytes, size_t length)
{
    (void)bytes;
    (void)length;
    collected *c = context;
    if (c->count < 8)
        snprintf(c->messages[c->count], sizeof c->messages[0], "%s", event->message);
    c->count++;
}

static void a_binary_file_beside_a_text_sink_gets_the_same_records(void **state)
{
    (void)state;
    test_place place;
    test_place_make(&place, "bin-beside");
    xlog_config cfg = binary_config(&place);
    collected got = {0};
    xlog_custom_sink custom = xlog_custom_sink_defaults();
    custom.context = &got;
    custom.write = collect;
    const xlog_sink_config *sinks[] = {&custom.sink, NULL};
    cfg.sinks = sinks;
    assert_int_equal(xlog_open(&cfg), 0);
    for (int i = 0; i < 3; i++)
        xlog_info("beside %d [%s] %.1f", -i, i ? "x" : "", i * 0.5);
    assert_int_equal(xlog_close(), 0);

    assert_int_equal(got.count, 3);
    assert_string_equal(got.messages[0], "beside 0 [] 0.0");
    assert_string_equal(got.messages[1], "beside -1 [x] 0.5");
    assert_string_equal(got.messages[2], "beside -2 [x] 1.0");
    char *path = only_file(place.logs, ".xlog");
    bfile f = parse_path(path);
    const bentry *r[4];
    assert_int_equal(f.entries_count, 3);
    assert_int_equal(records_of(&f, "beside %d [%s] %.1f", r, 4), 3);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(r[i]->args[0].i, -i);
        assert_string_equal(r[i]->args[1].s.bytes, i ? "x" : "");
        double want = i * 0.5;
        assert_memory_equal(&r[i]->args[2].d, &want, 8);
    }
    bfile_free(&f);
    free(path);
    test_place_remove(&place);
}

static void binary_is_for_the_files_only(void **state)
{
    (void)state;
    test_place place;
    test_place_make(&place, "bin-console");
    xlog_config cfg = binary_config(&place);
    cfg.console = STDERR_FILENO;
    cfg.console_layout = XLOG_LAYOUT_BINARY;
    assert_int_equal(xlog_open(&cfg), -EINVAL);
    assert_string_equal(xlog_last_error(),
                        "cfg.console_pattern: XLOG_LAYOUT_BINARY is for the files only "
                        "(cfg.file_layout)");
    test_place_remove(&place);
}

/* ---- names ------------------------------------------------------------------- */

static void *log_three(void *arg)
{
    int *tid = arg;
    *tid = gettid_();
    for (int i = 0; i < 3; i++)
        xlog_info("thread line %d", i);
    return NULL;
}

static void per_thread_and_per_process_files_are_named_xlog(void **state)
{
    (void)state;
    char *date = today();
    for (int mode = XLOG_FILE_PER_THREAD; mode <= XLOG_FILE_PER_PROCESS; mode++) {
        test_place place;
        test_place_make(&place, "bin-names");
        xlog_config cfg = binary_config(&place);
        cfg.file_mode = (xlog_file_mode)mode;
        assert_int_equal(xlog_open(&cfg), 0);
        pthread_t t;
        int tid = 0;
        assert_int_equal(pthread_create(&t, NULL, log_three, &tid), 0);
        pthread_join(t, NULL);
        assert_int_equal(xlog_close(), 0);
        char want[64];
        if (mode == XLOG_FILE_PER_THREAD)
            snprintf(want, sizeof want, "%s-%d.xlog", date, tid);
        else
            snprintf(want, sizeof want, "%s-p%d.xlog", date, (int)getpid());
        char *path = test_path(place.logs, want);
        bfile f = parse_path(path);
        const bentry *r[4];
        assert_int_equal(records_of(&f, "thread line %d", r, 4), 3);
        for (int i = 0; i < 3; i++) {
            assert_int_equal(r[i]->tid, (uint64_t)tid);
            assert_int_equal(r[i]->args[0].i, i);
        }
        size_t n = 0;
        char **names = test_list_files(place.logs, &n);
        assert_int_equal(n, 1);
        test_free_list(names, n);
        bfile_free(&f);
        free(path);
        test_place_remove(&place);
    }
    free(date);
}

/* ---- rotation, compression, sharing -------------------------------------------- */

/* Marks seen[i] for every "seq %d" record of f; fails on one seen twice. */
static void mark_sequence(const bfile *f, unsigned char *seen, long count)
{
    for (size_t i = 0; i < f->entries_count; i++) {
        const bentry *e = &f->entries[i];
        if (e->message || strcmp(e->site.format, "seq %d %s") != 0)
            continue;
        assert_true(e->args[0].i >= 0 && e->args[0].i < count);
        assert_int_equal(seen[e->args[0].i], 0);
        seen[e->args[0].i] = 1;
    }
}

/* Marks seen[i] for every Message entry "seq %d some text to fill the
 * files" of f (a line of log_sequence rendered); fails on one seen twice,
 * or another message but xlog's own; returns how many. */
static size_t mark_sequence_messages(const bfile *f, unsigned char *seen, long count)
{
    size_t n = 0;
    for (size_t i = 0; i < f->entries_count; i++) {
        const bentry *e = &f->entries[i];
        if (!e->message || strcmp(e->file, "xlog") == 0)
            continue;
        int seq = -1;
        assert_int_equal(sscanf(e->text, "seq %d", &seq), 1);
        char want[80];
        snprintf(want, sizeof want, "seq %d some text to fill the files", seq);
        assert_string_equal(e->text, want);
        assert_true(seq >= 0 && seq < count);
        assert_int_equal(seen[seq], 0);
        seen[seq] = 1;
        n++;
    }
    return n;
}

static char *read_gzip(const char *path, size_t *len)
{
    gzFile gz = gzopen(path, "rb");
    assert_non_null(gz);
    size_t cap = 1 << 16, n = 0;
    char *data = malloc(cap);
    int got;
    while ((got = gzread(gz, data + n, (unsigned)(cap - n))) > 0) {
        n += (size_t)got;
        if (n == cap)
            data = realloc(data, cap *= 2);
    }
    gzclose(gz);
    *len = n;
    return data;
}

/* Decodes every file of dir alone; returns how many; marks the sequence. */
static size_t decode_dir(const char *dir, unsigned char *seen, long count, size_t rotate_size,
                         size_t *gzipped)
{
    size_t n = 0;
    char **names = test_list_files(dir, &n);
    *gzipped = 0;
    for (size_t i = 0; i < n; i++) {
        char *path = test_path(dir, names[i]);
        size_t len = 0;
        char *data;
        size_t nl = strlen(names[i]);
        if (nl > 3 && strcmp(names[i] + nl - 3, ".gz") == 0) {
            assert_true(nl > 8 && strcmp(names[i] + nl - 8, ".xlog.gz") == 0);
            data = read_gzip(path, &len);
            (*gzipped)++;
        } else {
            assert_true(nl > 5 && strcmp(names[i] + nl - 5, ".xlog") == 0);
            data = test_read_file(path, &len);
        }
        /* Blocks end early rather than pass rotate_size. */
        assert_true(len <= rotate_size);
        bfile f = parse((const uint8_t *)data, len);
        mark_sequence(&f, seen, count);
        bfile_free(&f);
        free(data);
        free(path);
    }
    test_free_list(names, n);
    return n;
}

static void log_sequence(long from, long to)
{
    for (long i = from; i < to; i++)
        xlog_info("seq %d %s", (int)i, "some text to fill the files");
}

static void size_rotation_makes_files_that_each_decode_alone(void **state)
{
    (void)state;
    for (int compress = 0; compress <= 1; compress++) {
        test_place place;
        test_place_make(&place, "bin-rotate");
        xlog_config cfg = binary_config(&place);
        cfg.rotate_size = 65536;
        cfg.rotate_keep = 1000;
        cfg.compress = compress ? XLOG_COMPRESS_GZIP : XLOG_COMPRESS_NONE;
        assert_int_equal(xlog_open(&cfg), 0);
        long count = 12000;
        log_sequence(0, count);
        assert_int_equal(xlog_close(), 0);
        unsigned char *seen = calloc((size_t)count, 1);
        size_t gzipped = 0;
        size_t files = decode_dir(place.logs, seen, count, cfg.rotate_size, &gzipped);
        assert_true(files >= 5);
        for (long i = 0; i < count; i++)
            assert_int_equal(seen[i], 1);
        if (compress)
            assert_int_equal(gzipped, files - 1); /* all but the live one */
        /* the chain's names: <date>.xlog, <date>.1.xlog, ... */
        char *date = today();
        for (size_t k = 1; k < files; k++) {
            char name[64];
            snprintf(name, sizeof name, "%s.%zu.xlog%s", date, k, compress ? ".gz" : "");
            char *path = test_path(place.logs, name);
            assert_int_equal(access(path, F_OK), 0);
            free(path);
        }
        free(date);
        free(seen);
        test_place_remove(&place);
    }
}

static void two_processes_share_a_file_block_by_block(void **state)
{
    (void)state;
    test_place place;
    test_place_make(&place, "bin-shared");
    xlog_config cfg = binary_config(&place);
    cfg.write_buffer = 4096; /* raised to hold a few of the longest entries */
    cfg.max_message = 256;
    long half = test_scaled(20000);
    pid_t child = fork();
    assert_true(child >= 0);
    assert_int_equal(xlog_open(&cfg), 0);
    if (child == 0) {
        log_sequence(half, 2 * half);
        xlog_close();
        _exit(0);
    }
    log_sequence(0, half);
    assert_int_equal(xlog_close(), 0);
    int status = 0;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);

    char *path = only_file(place.logs, ".xlog");
    bfile f = parse_path(path);
    unsigned char *seen = calloc((size_t)(2 * half), 1);
    mark_sequence(&f, seen, 2 * half);
    for (long i = 0; i < 2 * half; i++)
        assert_int_equal(seen[i], 1);
    /* two writers, each record from the process that logged it */
    uint64_t writers[2] = {0, 0};
    for (size_t i = 0; i < f.entries_count; i++) {
        const bentry *e = &f.entries[i];
        if (e->message)
            continue;
        int mine = e->args[0].i < half;
        assert_int_equal(e->pid, mine ? (uint64_t)getpid() : (uint64_t)child);
        if (!writers[mine])
            writers[mine] = e->writer;
        assert_int_equal(e->writer, writers[mine]);
    }
    assert_true(writers[0] && writers[1] && writers[0] != writers[1]);
    assert_true(f.blocks > 2);
    bfile_free(&f);
    free(seen);
    free(path);
    test_place_remove(&place);
}

/* ---- writing fails ------------------------------------------------------------- */

/* A child that logs count lines of log_sequence into cfg's binary file, the
 * file limited (RLIMIT_FSIZE, SIGXFSZ ignored) to cut bytes past its size
 * after the first 1000 lines, for lines 1000 to 3000, then unlimited;
 * returns what its xlog_counters.lost grew by. */
static uint64_t log_with_a_file_size_limit(const xlog_config *cfg, const char *logs, long count,
                                           off_t cut)
{
    int report[2];
    assert_int_equal(pipe(report), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        signal(SIGXFSZ, SIG_IGN);
        xlog_counters before, after;
        xlog_stats(&before);
        if (xlog_open(cfg) != 0)
            _exit(91);
        log_sequence(0, 1000);
        xlog_flush();
        char *path = only_file(logs, ".xlog");
        struct stat st;
        if (stat(path, &st) != 0)
            _exit(92);
        struct rlimit limit;
        getrlimit(RLIMIT_FSIZE, &limit);
        rlim_t unlimited = limit.rlim_cur;
        limit.rlim_cur = (rlim_t)(st.st_size + cut);
        setrlimit(RLIMIT_FSIZE, &limit);
        log_sequence(1000, 3000);
        xlog_flush();
        limit.rlim_cur = unlimited;
        setrlimit(RLIMIT_FSIZE, &limit);
        log_sequence(3000, count);
        xlog_close();
        xlog_stats(&after);
        uint64_t lost = after.lost - before.lost;
        _exit(write(report[1], &lost, sizeof lost) == sizeof lost ? 0 : 93);
    }
    close(report[1]);
    int status = 0;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    uint64_t lost = 0;
    assert_int_equal(read(report[0], &lost, sizeof lost), sizeof lost);
    close(report[0]);
    return lost;
}

/* A child whose file may not grow for a while (RLIMIT_FSIZE: every write
 * fails with EFBIG, nothing of it written): the blocks a failing disk held
 * back are given up when the buffer needs room, counted as lost, and once
 * writing works again a block starts with a loss notice (a Message entry)
 * saying how many.  The file stays whole blocks; the records missing from
 * it are exactly the ones the notices count, and xlog_counters.lost. */
static void a_failing_disk_costs_whole_blocks_and_a_notice_says_how_many(void **state)
{
    (void)state;
    test_place place;
    test_place_make(&place, "bin-full");
    xlog_config cfg = binary_config(&place);
    cfg.max_message = 256;
    cfg.write_buffer = 4096;
    const long count = 3200;
    uint64_t lost = log_with_a_file_size_limit(&cfg, place.logs, count, 0);

    char *path = only_file(place.logs, ".xlog");
    bfile f = parse_path(path);
    unsigned char *seen = calloc((size_t)count, 1);
    mark_sequence(&f, seen, count);
    long missing = 0;
    for (long i = 0; i < count; i++) {
        if (i < 1000 || i >= 3000)
            assert_int_equal(seen[i], 1);
        missing += !seen[i];
    }
    assert_true(missing > 0);
    unsigned long long noticed = 0;
    size_t notices = 0;
    for (size_t i = 0; i < f.entries_count; i++) {
        const bentry *e = &f.entries[i];
        if (!e->message)
            continue;
        unsigned long long lines = 0, bytes = 0;
        assert_int_equal(sscanf(e->text, "%llu %*s (%llu", &lines, &bytes), 2);
        char want[200];
        test_lost_notice(want, sizeof want, lines, bytes, strerror(EFBIG));
        assert_string_equal(e->text, want);
        assert_int_equal(e->level, XLOG_WARN);
        assert_string_equal(e->file, "xlog");
        noticed += lines;
        notices++;
    }
    assert_true(notices >= 1);
    assert_int_equal(noticed, (unsigned long long)missing);
    assert_int_equal(lost, (uint64_t)missing);
    bfile_free(&f);
    free(seen);
    free(path);
    test_place_remove(&place);
}

/* A write(2) that a file size limit cuts inside a block leaves the
 * block's first entries in the file, and a reader shows those whose
 * entries end before the cut: the loss notices count exactly the rest (they
 * counted the whole block, lines that xlog-cat shows).  Cuts inside the
 * block's header, its Process entry, and further in; read with the library's
 * reader, as xlog-cat reads: every line shown once, and lines shown plus
 * lines the notices report lost equals lines logged, and the lost counter. */
static void a_write_cut_by_a_file_size_limit_loses_only_what_a_reader_cannot_show(void **state)
{
    (void)state;
    static const off_t cuts[] = {10, 40, 200, 1501, 3000};
    for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
        print_message("a block cut after %lld bytes\n", (long long)cuts[c]);
        test_place place;
        test_place_make(&place, "bin-cut-limit");
        xlog_config cfg = binary_config(&place);
        cfg.max_message = 256;
        cfg.write_buffer = 4096;
        const long count = 3200;
        uint64_t lost = log_with_a_file_size_limit(&cfg, place.logs, count, cuts[c]);

        char *path = only_file(place.logs, ".xlog");
        size_t len = 0;
        char *data = test_read_file(path, &len);
        assert_non_null(data);
        xlog_binary_reader *r = xlog_binary_reader_new(path);
        assert_non_null(r);
        unsigned char *seen = calloc((size_t)count, 1);
        unsigned long long shown = 0, noticed = 0, notices = 0, damage = 0, shown_cut = 0;
        int rc;
        while ((rc = xlog_binary_next(r, (const uint8_t *)data, 0, len, 1)) != XLOG_BINARY_END) {
            if (rc == XLOG_BINARY_DAMAGE) {
                print_message("the reader: %s\n", xlog_binary_error(r));
                damage++;
                continue;
            }
            assert_int_equal(rc, XLOG_BINARY_ENTRY);
            const xlog_line_event *ev = xlog_binary_event(r);
            assert_non_null(ev);
            const char *text = ev->pub.message;
            int seq = -1;
            if (sscanf(text, "seq %d", &seq) == 1) {
                char want[80];
                snprintf(want, sizeof want, "seq %d some text to fill the files", seq);
                assert_string_equal(text, want);
                assert_true(seq >= 0 && seq < count);
                assert_int_equal(seen[seq], 0);
                seen[seq] = 1;
                shown++;
                shown_cut += seq >= 1000 && seq < 3000;
                continue;
            }
            unsigned long long lines = 0, bytes = 0;
            assert_int_equal(sscanf(text, "%llu %*s (%llu", &lines, &bytes), 2);
            char want[200];
            test_lost_notice(want, sizeof want, lines, bytes, strerror(EFBIG));
            assert_string_equal(text, want);
            noticed += lines;
            notices++;
        }
        print_message("shown %llu (%llu of the limited ones), notices %llu saying %llu lost, "
                      "damage %llu\n",
                      shown, shown_cut, notices, noticed, damage);
        for (long i = 0; i < count; i++)
            if (i < 1000 || i >= 3000)
                assert_int_equal(seen[i], 1);
        assert_int_equal(damage, 1); /* the cut block, where the next begins */
        if (cuts[c] >= 1501)
            assert_true(shown_cut > 0); /* the cut came after whole entries */
        assert_true(notices >= 1);
        assert_int_equal(shown + noticed, (unsigned long long)count);
        assert_int_equal(lost, (uint64_t)count - shown);
        xlog_binary_reader_free(r);
        free(seen);
        free(data);
        free(path);
        test_place_remove(&place);
    }
}

/* ---- a crash ---------------------------------------------------------------------- */

/* abort() with the crash handlers: every record logged before it is in the
 * file, in whole blocks, then the crash line as a FATAL Message entry. */
static void the_crash_flush_writes_whole_blocks(void **state)
{
    (void)state;
    test_place place;
    test_place_make(&place, "bin-crash");
    xlog_config cfg = binary_config(&place);
    const long count = 500;
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        /* cmocka's handler would carry on with the next test; no core. */
        signal(SIGABRT, SIG_DFL);
        struct rlimit none = {0, 0};
        setrlimit(RLIMIT_CORE, &none);
        if (xlog_open(&cfg) != 0)
            _exit(1);
        log_sequence(0, count);
        abort();
    }
    int status = 0;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);

    char *path = only_file(place.logs, ".xlog");
    bfile f = parse_path(path);
    unsigned char *seen = calloc((size_t)count, 1);
    mark_sequence(&f, seen, count);
    /* The records still in the rings at the crash come as Message entries:
     * in the crash handler the back end allocates nothing, so a site it
     * had not numbered yet gets no number. */
    mark_sequence_messages(&f, seen, count);
    for (long i = 0; i < count; i++)
        assert_int_equal(seen[i], 1);
    const bentry *last = &f.entries[f.entries_count - 1];
    assert_true(last->message);
    assert_int_equal(last->level, XLOG_FATAL);
    char want[128];
    snprintf(want, sizeof want,
             "caught SIGABRT (signal %d): every message logged before it is above this line",
             SIGABRT);
    assert_string_equal(last->text, want);
    assert_int_equal(f.entries_count, (size_t)count + 1);
    bfile_free(&f);
    free(seen);
    free(path);
    xlog_recover(place.logs, place.shm);
    test_place_remove(&place);
}

/* ---- kill -9 ------------------------------------------------------------------ */

/* kill -9 of a process writing binary files: the child logs, flushes
 * half, logs the rest (left in its rings and buffer) and is killed; then
 * recovery runs (as xlog_open would).  The file reads as whole blocks,
 * every record logged is in it exactly once (the recovered ones as
 * Message entries, rendered as the text layout's message: "seq N some
 * text..."), and no text file appears. */
static void recovery_writes_a_binary_process_records_as_blocks(void **state)
{
    (void)state;
    test_place place;
    test_place_make(&place, "bin-kill");
    xlog_config cfg = binary_config(&place);
    long count = 1000;
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        if (xlog_open(&cfg) != 0)
            _exit(1);
        log_sequence(0, count / 2);
        xlog_flush();
        log_sequence(count / 2, count);
        raise(SIGKILL);
        _exit(2);
    }
    int status = 0;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    xlog_recover(place.logs, place.shm);

    size_t n = 0;
    char **names = test_list_files(place.logs, &n);
    assert_int_equal(n, 1);
    size_t len = strlen(names[0]);
    assert_string_equal(names[0] + len - 5, ".xlog");
    test_free_list(names, n);
    char *path = only_file(place.logs, ".xlog");
    bfile f = parse_path(path);
    unsigned char *seen = calloc((size_t)count, 1);
    mark_sequence(&f, seen, count);
    size_t recovered = mark_sequence_messages(&f, seen, count);
    assert_true(recovered > 0);
    for (long i = 0; i < count; i++)
        assert_int_equal(seen[i], 1);
    bfile_free(&f);
    free(seen);
    free(path);
    test_place_remove(&place);
}


/* ---- a write cut by the kill ----------------------------------------------------- */

/* Recovery's blocks name the host and the program of the dead process, as
 * its own blocks do (they named none: ""), from the names its "process"
 * file keeps; a leftover whose room for a name holds no NUL (garbage)
 * names none.  Checked on every entry of the file. */
static void recovered_blocks_name_the_host_and_program_of_the_dead_process(void **state)
{
    (void)state;
    char host[XLOG_SURVIVAL_NAME_MAX + 1] = "";
    gethostname(host, sizeof host - 1);
    static const char *const cases[] = {"whole", "a program name without its NUL"};
    for (int k = 0; k < 2; k++) {
        print_message("%s\n", cases[k]);
        test_place place;
        test_place_make(&place, "bin-names");
        xlog_config cfg = binary_config(&place);
        long count = 3000;
        int ready[2], go[2];
        assert_int_equal(pipe(ready), 0);
        assert_int_equal(pipe(go), 0);
        pid_t child = fork();
        assert_true(child >= 0);
        if (child == 0) {
            if (xlog_open(&cfg) != 0)
                _exit(1);
            char c = 0;
            if (write(ready[1], &c, 1) != 1 || read(go[0], &c, 1) != 1)
                _exit(2);
            log_sequence(0, count); /* the last ones still in the rings */
            raise(SIGKILL);
            _exit(3);
        }
        char c = 0;
        assert_int_equal(read(ready[0], &c, 1), 1);
        char dir[PATH_MAX + 128];
        test_process_dir(&place, child, dir, sizeof dir);
        assert_true(dir[0] != '\0');
        size_t size = 0;
        xlog_survival_process *proc = test_map_leftover(dir, "process", &size);
        assert_non_null(proc);
        assert_string_equal(proc->host, host);
        assert_string_equal(proc->program, program_invocation_short_name);
        assert_int_equal(write(go[1], &c, 1), 1);
        int status = 0;
        assert_int_equal(waitpid(child, &status, 0), child);
        assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
        if (k == 1)
            memset(proc->program, 'x', sizeof proc->program);
        munmap(proc, size);
        assert_true(xlog_recover(place.logs, place.shm) > 0);

        char *path = only_file(place.logs, ".xlog");
        bfile f = parse_path(path);
        unsigned char *seen = calloc((size_t)count, 1);
        mark_sequence(&f, seen, count);
        size_t recovered = mark_sequence_messages(&f, seen, count);
        assert_true(recovered > 0);
        for (long i = 0; i < count; i++)
            assert_int_equal(seen[i], 1);
        for (size_t i = 0; i < f.entries_count; i++) {
            const bentry *e = &f.entries[i];
            /* recovery's blocks hold Message entries (its notices too);
             * the back end's, Records, naming the living process */
            int by_recovery = e->message;
            assert_string_equal(e->host, host);
            assert_string_equal(e->program,
                                k != 0 && by_recovery ? "" : program_invocation_short_name);
        }
        free(seen);
        bfile_free(&f);
        free(path);
        close(ready[0]);
        close(ready[1]);
        close(go[0]);
        close(go[1]);
        test_place_remove(&place);
    }
}

/* A child whose back end reads count lines of log_sequence into its file
 * buffer and writes none (a flush interval of ten minutes, a ring and a
 * buffer that hold them all), then waits to be killed. */
static pid_t child_buffers_then_waits(const test_place *place, long count, char *dir,
                                      size_t dir_size)
{
    int ready[2];
    assert_int_equal(pipe(ready), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        xlog_config cfg = binary_config(place);
        cfg.flush_interval_ms = 600000;
        cfg.ring_size = 1u << 20;
        cfg.write_buffer = 1u << 20;
        if (xlog_open(&cfg) != 0)
            _exit(1);
        log_sequence(0, count);
        if (write(ready[1], "x", 1) != 1)
            _exit(1);
        for (;;)
            pause();
    }
    close(ready[1]);
    char c;
    assert_int_equal(read(ready[0], &c, 1), 1);
    close(ready[0]);
    test_process_dir(place, child, dir, dir_size);
    assert_true(dir[0] != '\0');
    while (!test_rings_all_buffered(dir))
        usleep(1000);
    return child;
}

/* Another process appends a block of its own ("another process") to the
 * shared file of place's log directory, with a persistent directory of its
 * own (it must not recover the killed one). */
static void another_process_appends(const test_place *place)
{
    test_place other;
    test_place_make(&other, "bin-cut-other");
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        xlog_config cfg = binary_config(place);
        cfg.persistent_dir = other.shm;
        if (xlog_open(&cfg) != 0)
            _exit(1);
        xlog_info("another process");
        _exit(xlog_close() == 0 ? 0 : 1);
    }
    int status = 0;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    test_place_remove(&other);
}

/* Reads path as xlog-cat does (the library's reader): marks seen[N] for
 * each line "seq N some text to fill the files", fails on one shown twice;
 * counts the reader's damage reports and the lines "another process"; any
 * other line must be recovery's notice, whole, made by this process. */
static void read_as_xlog_cat(const char *path, unsigned char *seen, long count, size_t *damage,
                             size_t *others)
{
    size_t len = 0;
    char *data = test_read_file(path, &len);
    assert_non_null(data);
    xlog_binary_reader *r = xlog_binary_reader_new(path);
    assert_non_null(r);
    *damage = *others = 0;
    for (;;) {
        int rc = xlog_binary_next(r, (const uint8_t *)data, 0, len, 1);
        if (rc == XLOG_BINARY_END)
            break;
        if (rc == XLOG_BINARY_DAMAGE) {
            print_message("the reader: %s\n", xlog_binary_error(r));
            (*damage)++;
            continue;
        }
        assert_int_equal(rc, XLOG_BINARY_ENTRY);
        const xlog_line_event *ev = xlog_binary_event(r);
        assert_non_null(ev);
        const char *text = ev->pub.message;
        int seq = -1;
        if (strcmp(text, "another process") == 0) {
            (*others)++;
        } else if (sscanf(text, "seq %d", &seq) == 1) {
            char want[80];
            snprintf(want, sizeof want, "seq %d some text to fill the files", seq);
            assert_string_equal(text, want);
            assert_true(seq >= 0 && seq < count);
            assert_int_equal(seen[seq], 0);
            seen[seq] = 1;
        } else {
            /* recovery's notice, whole, made by this process */
            long lines = 0;
            int of = 0, by = 0;
            char want[256];
            assert_int_equal(sscanf(text, "%ld %*s of process %d %*s recovered by process %d",
                                    &lines, &of, &by), 3);
            assert_int_equal(by, getpid());
            test_recovery_notice(want, sizeof want, lines, of, by);
            assert_string_equal(text, want);
        }
    }
    xlog_binary_reader_free(r);
    free(data);
}

/* After recovery, each line of log_sequence(0, count) in path exactly
 * once for the library's reader (xlog-cat's); with another process's
 * block after a cut one, the reader reports that cut and shows the other
 * line; without, the reader reports nothing and the independent parser
 * finds whole blocks holding each line once too. */
static void expect_each_line_once(const char *path, long count, int another)
{
    unsigned char *seen = calloc((size_t)count, 1);
    size_t damage = 0, others = 0;
    read_as_xlog_cat(path, seen, count, &damage, &others);
    for (long i = 0; i < count; i++)
        assert_int_equal(seen[i], 1);
    assert_int_equal(others, another);
    assert_int_equal(damage, another); /* the cut, where the other block begins */
    if (!another) {
        memset(seen, 0, (size_t)count);
        bfile f = parse_path(path);
        mark_sequence(&f, seen, count);
        mark_sequence_messages(&f, seen, count);
        for (long i = 0; i < count; i++)
            assert_int_equal(seen[i], 1);
        bfile_free(&f);
    }
    free(seen);
}

/* The kernel stops a write(2) at a fatal signal, so a process killed while
 * its back end writes a block leaves the block's first bytes in the file
 * (or all, or none), and its buffer's `written` never moves; or a short
 * write moved it and the kill came before the next.  Recovery must make
 * each line readable exactly once: the rest of the block right after its
 * start when nothing followed it (the file is whole blocks again), or what
 * a reader could not read of the cut block as a block of its own when
 * another process appended after it (the reader then reports the cut, and
 * shows each line once).  It lost the cut block's rest (and all of it when
 * the cut was inside its header); CI's kill test found it under TSan. */
static void a_block_cut_by_the_kill_is_finished_each_line_once(void **state)
{
    (void)state;
    static const char *const cuts[] = {
        "none", "inside the header", "inside an entry", "all",
        "inside an entry, then another process's block", "by a short write, then the kill"};
    const long count = 300;
    for (int cut = 0; cut < 6; cut++) {
        print_message("a block cut %s\n", cuts[cut]);
        test_place place;
        test_place_make(&place, "bin-cut");
        char dir[PATH_MAX + 128];
        pid_t child = child_buffers_then_waits(&place, count, dir, sizeof dir);
        int status = 0;
        kill(child, SIGKILL);
        assert_int_equal(waitpid(child, &status, 0), child);
        size_t size = 0;
        xlog_survival_file *h = test_map_leftover(dir, "file.0", &size);
        assert_non_null(h);
        assert_true(h->written == 0 && h->length > 0);
        const char *bytes = (const char *)(h + 1);
        size_t k = cut == 0 ? 0 : cut == 1 ? 10 : cut == 3 ? (size_t)h->length
                                                           : (size_t)h->length / 2;
        int fd = open(h->path, O_WRONLY | O_CREAT | O_APPEND, 0640);
        struct stat st;
        assert_true(fd >= 0 && fstat(fd, &st) == 0);
        if (cut != 5) { /* a write(2) under way, announced */
            h->chunk_dev = st.st_dev;
            h->chunk_ino = st.st_ino;
            h->chunk_size = (uint64_t)st.st_size;
            snprintf(h->chunk_path, sizeof h->chunk_path, "%s", h->path);
            h->chunk = h->length;
        }
        assert_int_equal(write(fd, bytes, k), (ssize_t)k);
        close(fd);
        if (cut == 5)
            h->written = k;
        char *path = strdup(h->path);
        munmap(h, size);
        if (cut == 4)
            another_process_appends(&place);

        xlog_recover(place.logs, place.shm);
        expect_each_line_once(path, count, cut == 4);
        free(path);
        test_place_remove(&place);
    }
}

/* The back end sets its block's size before it counts the entry it adds: a
 * kill between the two leaves a buffer whose block says it is longer than
 * the buffer (the entry's record is still in its ring, recovered from
 * there).  Recovery wrote the block with that size: a reader found it cut
 * where recovery's next block began (CI's kill test, under TSan).  Made
 * here by hand: the size of the buffer's block one entry's worth too big. */
static void a_block_sized_past_its_buffer_by_the_kill_is_written_whole(void **state)
{
    (void)state;
    const long count = 300;
    test_place place;
    test_place_make(&place, "bin-size");
    char dir[PATH_MAX + 128];
    pid_t child = child_buffers_then_waits(&place, count, dir, sizeof dir);
    kill(child, SIGKILL);
    assert_int_equal(waitpid(child, NULL, 0), child);
    size_t size = 0;
    xlog_survival_file *h = test_map_leftover(dir, "file.0", &size);
    assert_non_null(h);
    assert_true(h->written == 0 && h->length > 0);
    uint8_t *block = (uint8_t *)(h + 1);
    assert_int_equal(le(block + 12, 4), h->length); /* one block, as the back end keeps it */
    uint32_t past = (uint32_t)h->length + 57;
    memcpy(block + 12, &past, 4);
    char *path = strdup(h->path);
    munmap(h, size);

    xlog_recover(place.logs, place.shm);
    expect_each_line_once(path, count, 0);
    free(path);
    test_place_remove(&place);
}

/* ---- a listed file sink of binary files ------------------------------------- */

/* A listed file sink (xlog_file_config) of XLOG_LAYOUT_BINARY beside text
 * main files: its <prefix>-<date>.xlog holds exactly the records its filter
 * lets through, as records of their sites; the main files their lines. */
static void a_listed_file_sink_writes_binary_files_under_its_prefix(void **state)
{
    (void)state;
    test_place place;
    test_place_make(&place, "bin-listed");
    xlog_file_config errors = xlog_file_defaults();
    errors.prefix = "errors";
    errors.sink.layout = XLOG_LAYOUT_BINARY;
    errors.sink.filter = "error";
    const xlog_sink_config *sinks[] = {&errors.sink, NULL};
    xlog_config cfg = test_config_in(place.logs);
    cfg.persistent_dir = place.shm;
    cfg.file_pattern = "{level} {message}";
    cfg.sinks = sinks;
    assert_int_equal(xlog_open(&cfg), 0);
    for (int i = 0; i < 3; i++) {
        xlog_info("info %d", i);
        xlog_error("error %d", i);
    }
    assert_int_equal(xlog_close(), 0);
    char *date = today(), name[64];
    snprintf(name, sizeof name, "errors-%s.xlog", date);
    char *path = only_file(place.logs, ".xlog");
    assert_string_equal(strrchr(path, '/') + 1, name);
    bfile f = parse_path(path);
    const bentry *found[4];
    assert_int_equal(records_of(&f, "error %d", found, 4), 3);
    assert_int_equal(records_of(&f, "info %d", found, 4), 0);
    assert_int_equal(f.entries_count, 3);
    for (int i = 0; i < 3; i++) {
        records_of(&f, "error %d", found, 4);
        assert_int_equal(found[i]->level, XLOG_ERROR);
        assert_int_equal(found[i]->nargs, 1);
        assert_int_equal(found[i]->args[0].i, i);
    }
    bfile_free(&f);
    free(path);
    path = only_file(place.logs, ".log");
    char *text = test_read_file(path, NULL);
    assert_string_equal(text, "INFO info 0\nERROR error 0\nINFO info 1\nERROR error 1\n"
                              "INFO info 2\nERROR error 2\n");
    free(text);
    free(path);
    free(date);
    test_place_remove(&place);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_argument_is_written_exactly),
        cmocka_unit_test(flags_say_level_truncation_and_suppressed_calls),
        cmocka_unit_test(lines_without_a_site_go_as_messages),
        cmocka_unit_test(a_record_no_block_takes_goes_as_a_message_in_its_place),
        cmocka_unit_test(only_binary_files_render_no_message),
        cmocka_unit_test(a_binary_file_beside_a_text_sink_gets_the_same_records),
        cmocka_unit_test(binary_is_for_the_files_only),
        cmocka_unit_test(per_thread_and_per_process_files_are_named_xlog),
        cmocka_unit_test(size_rotation_makes_files_that_each_decode_alone),
        cmocka_unit_test(two_processes_share_a_file_block_by_block),
        cmocka_unit_test(a_failing_disk_costs_whole_blocks_and_a_notice_says_how_many),
        cmocka_unit_test(a_write_cut_by_a_file_size_limit_loses_only_what_a_reader_cannot_show),
        cmocka_unit_test(the_crash_flush_writes_whole_blocks),
        cmocka_unit_test(recovery_writes_a_binary_process_records_as_blocks),
        cmocka_unit_test(recovered_blocks_name_the_host_and_program_of_the_dead_process),
        cmocka_unit_test(a_block_cut_by_the_kill_is_finished_each_line_once),
        cmocka_unit_test(a_block_sized_past_its_buffer_by_the_kill_is_written_whole),
        cmocka_unit_test(a_listed_file_sink_writes_binary_files_under_its_prefix),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
