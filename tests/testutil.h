/*
 * testutil.h - what the tests share: temporary directories, reading log
 * files back, checking that a line has the default layout, and what the
 * sanitizer builds cannot do.
 */
#ifndef XLOG_TESTUTIL_H
#define XLOG_TESTUTIL_H

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <xlog.h>

/* The sanitizers' runtimes are not fork-safe in a multi-threaded process
 * (TSan refuses to start threads in such a child, ASan's allocator can be
 * left locked by a parent thread): tests that fork while threads run skip
 * under them, and run in the plain build. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZER_FORK_LIMIT 1
#else
#define SANITIZER_FORK_LIMIT 0
#endif

/* Skips a test that forks while threads run when SANITIZER_FORK_LIMIT says
 * so (cmocka's skip: the test file includes cmocka.h). */
#define SKIP_IF_SANITIZER_CANNOT_FORK()                                                    \
    do {                                                                                   \
        if (SANITIZER_FORK_LIMIT) {                                                        \
            print_message("skipped: the sanitizer runtime cannot fork a multi-threaded "   \
                          "process\n");                                                    \
            skip();                                                                        \
        }                                                                                  \
    } while (0)

/* Test sizes are multiplied by XLOG_TEST_SCALE (default 1); the sanitizer
 * runs use a smaller scale because they are 5-20 times slower. */
static inline long test_scaled(long n)
{
    const char *s = getenv("XLOG_TEST_SCALE");
    double scale = s ? atof(s) : 1.0;
    long v = (long)((double)n * scale);
    return v < 1 ? 1 : v;
}

/* A fresh empty directory under TMPDIR; the caller frees the string. */
static inline char *test_make_dir(const char *tag)
{
    const char *tmp = getenv("TMPDIR");
    char *path = NULL;
    if (asprintf(&path, "%s/xlog-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", tag) < 0)
        abort();
    if (!mkdtemp(path))
        abort();
    return path;
}

/* Removes a test's directory, and what processes that logged there and
 * did not close xlog (a child that crashed or was killed on purpose) left
 * in shared memory, so that a run leaves nothing behind. */
static inline void test_remove_dir(const char *dir)
{
    xlog_recover(dir, NULL);
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char *p = NULL;
        if (asprintf(&p, "%s/%s", dir, e->d_name) >= 0) {
            unlink(p);
            free(p);
        }
    }
    closedir(d);
    rmdir(dir);
}

/* Removes a test's directory (test_remove_dir) and frees its name. */
static inline void test_drop_dir(char *dir)
{
    test_remove_dir(dir);
    free(dir);
}

/* xlog's defaults, logging into dir, the environment ignored (the XLOG_*
 * variables of whoever runs the tests must not change them). */
static inline xlog_config test_config_in(const char *dir)
{
    xlog_config cfg = xlog_defaults();
    cfg.dir = dir;
    cfg.use_environment = 0;
    return cfg;
}

/* Removes dir and everything below it (a test's own tree: logs, a
 * persistent directory, a mount point once unmounted). */
static inline int test_remove_tree_entry(const char *path, const struct stat *st, int flag,
                                         struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

static inline void test_remove_tree(const char *dir)
{
    nftw(dir, test_remove_tree_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* How many times needle occurs in text. */
static inline size_t test_count_of(const char *text, const char *needle)
{
    size_t n = 0;
    for (const char *q = text; (q = strstr(q, needle)); q++)
        n++;
    return n;
}

/* How many times marker occurs in text, each followed by the next number
 * from 0 on (0, 1, 2, ...); -1 as soon as one is followed by another. */
static inline long test_numbered_in_order(const char *text, const char *marker)
{
    long next = 0;
    size_t skip = strlen(marker);
    for (const char *q = text; (q = strstr(q, marker)); q++)
        if (strtol(q + skip, NULL, 10) != next++)
            return -1;
    return next;
}

/* Names of the regular files in dir, sorted; count in *n. */
static inline char **test_list_files(const char *dir, size_t *n)
{
    struct dirent **names;
    int count = scandir(dir, &names, NULL, alphasort);
    char **out = calloc(count > 0 ? (size_t)count : 1, sizeof *out);
    size_t k = 0;
    for (int i = 0; i < count; i++) {
        if (names[i]->d_name[0] != '.')
            out[k++] = strdup(names[i]->d_name);
        free(names[i]);
    }
    free(names);
    *n = k;
    return out;
}

static inline void test_free_list(char **list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(list[i]);
    free(list);
}

/* Whole contents of a file, NUL-terminated; length in *len. */
static inline char *test_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)size + 1);
    size_t got = fread(buf, 1, (size_t)size, f);
    fclose(f);
    buf[got] = '\0';
    if (len)
        *len = got;
    return buf;
}

static inline char *test_path(const char *dir, const char *name)
{
    char *p = NULL;
    if (asprintf(&p, "%s/%s", dir, name) < 0)
        abort();
    return p;
}

/* All lines of all files in dir, concatenated in file-name order. */
static inline char *test_read_dir(const char *dir, size_t *len)
{
    size_t n, total = 0;
    char **files = test_list_files(dir, &n);
    char *all = malloc(1);
    all[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        char *p = test_path(dir, files[i]);
        size_t l;
        char *c = test_read_file(p, &l);
        free(p);
        if (!c)
            continue;
        all = realloc(all, total + l + 1);
        memcpy(all + total, c, l + 1);
        total += l;
        free(c);
    }
    test_free_list(files, n);
    if (len)
        *len = total;
    return all;
}

static inline size_t test_count_lines(const char *text)
{
    size_t n = 0;
    for (const char *p = text; (p = strchr(p, '\n')); p++)
        n++;
    return n;
}

/* one or many, as n asks: xlog's notices say "1 line was", "2 lines were",
 * and a test compares them whole. */
static inline const char *test_plural(unsigned long long n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

/* The message of recovery's notice before the lines of process `of` it
 * wrote, as process `by` (lib/recovery/recover.c); its length. */
static inline int test_recovery_notice(char *buf, size_t size, long lines, int of, int by)
{
    return snprintf(buf, size,
                    "%ld %s of process %d %s, recovered by process %d: it ended without "
                    "xlog_close",
                    lines, test_plural((unsigned long long)lines, "line", "lines"), of,
                    test_plural((unsigned long long)lines, "follows", "follow"), by);
}

/* The message of a file's notice of the lines it gave up, writing having
 * failed with the error why (lib/sinks/file_sink.c). */
static inline int test_lost_notice(char *buf, size_t size, unsigned long long lines,
                                   unsigned long long bytes, const char *why)
{
    return snprintf(buf, size, "%llu %s (%llu %s) %s lost: writing failed: %s", lines,
                    test_plural(lines, "line", "lines"), bytes, test_plural(bytes, "byte", "bytes"),
                    test_plural(lines, "was", "were"), why);
}

/* A test's own places: <base>/logs (made) for the log directory and
 * <base>/shm (not made: xlog makes it, private) for its persistent_dir, so
 * that "nothing left behind" is exact. */
typedef struct test_place {
    char *base;
    char logs[PATH_MAX];
    char shm[PATH_MAX];
} test_place;

static inline void test_place_make(test_place *p, const char *tag)
{
    p->base = test_make_dir(tag);
    snprintf(p->logs, sizeof p->logs, "%s/logs", p->base);
    snprintf(p->shm, sizeof p->shm, "%s/shm", p->base);
    if (mkdir(p->logs, 0750) != 0)
        abort();
}

/* Removes the place and all below it. */
static inline void test_place_remove(test_place *p)
{
    test_remove_tree(p->base);
    free(p->base);
    p->base = NULL;
}

/* A line split into its default line's fields. */
typedef struct test_line {
    int64_t ns;          /* nanoseconds since the epoch (UTC) */
    char level[8];
    char where[256];     /* "file:line" */
    char func[128];
    long tid;
    const char *message; /* points into the line */
    size_t message_len;
} test_line;

static inline int digits_at(const char *s, int n)
{
    for (int i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return 1;
}

/* Copies a parsed line's message into buf as a C string (cut to fit), so that
 * it can be scanned without running over the rest of the file. */
static inline const char *test_message(const test_line *l, char *buf, size_t size)
{
    size_t n = l->message_len < size - 1 ? l->message_len : size - 1;
    memcpy(buf, l->message, n);
    buf[n] = '\0';
    return buf;
}

/* Parses one line (without its '\n', len bytes); returns 1 if it has exactly
 * the layout "YYYY-MM-DD HH:MM:SS.nnnnnnnnn [LEVEL] file:line func tid message". */
static inline int test_parse_line(const char *s, size_t len, test_line *out)
{
    if (len < 31 || !digits_at(s, 4) || s[4] != '-' || !digits_at(s + 5, 2) || s[7] != '-' ||
        !digits_at(s + 8, 2) || s[10] != ' ' || !digits_at(s + 11, 2) || s[13] != ':' ||
        !digits_at(s + 14, 2) || s[16] != ':' || !digits_at(s + 17, 2) || s[19] != '.' ||
        !digits_at(s + 20, 9) || s[29] != ' ' || s[30] != '[')
        return 0;
    struct tm tm = {0};
    tm.tm_year = atoi(s) - 1900;
    tm.tm_mon = atoi(s + 5) - 1;
    tm.tm_mday = atoi(s + 8);
    tm.tm_hour = atoi(s + 11);
    tm.tm_min = atoi(s + 14);
    tm.tm_sec = atoi(s + 17);
    out->ns = (int64_t)timegm(&tm) * 1000000000 + atol(s + 20);
    const char *p = s + 31, *end = s + len;
    const char *close = memchr(p, ']', (size_t)(end - p));
    if (!close || close - p >= (long)sizeof out->level || close + 1 >= end || close[1] != ' ')
        return 0;
    memcpy(out->level, p, (size_t)(close - p));
    out->level[close - p] = '\0';
    p = close + 2;
    const char *sp = memchr(p, ' ', (size_t)(end - p));
    if (!sp || sp - p >= (long)sizeof out->where || !memchr(p, ':', (size_t)(sp - p)))
        return 0;
    memcpy(out->where, p, (size_t)(sp - p));
    out->where[sp - p] = '\0';
    p = sp + 1;
    sp = memchr(p, ' ', (size_t)(end - p));
    if (!sp || sp - p >= (long)sizeof out->func || sp == p)
        return 0;
    memcpy(out->func, p, (size_t)(sp - p));
    out->func[sp - p] = '\0';
    p = sp + 1;
    char *after;
    out->tid = strtol(p, &after, 10);
    if (after == p || after >= end || *after != ' ')
        return 0;
    out->message = after + 1;
    out->message_len = (size_t)(end - out->message);
    return 1;
}

#endif
