/*
 * test_outputs.c - where lines go besides one file that never changes: size
 * and daily rotation with retention and compression, files renamed or
 * deleted by someone else, xlog_reopen, several processes sharing a rotating
 * file, per-process files, a file that cannot grow, a linked log directory
 * or file, and a console that stops reading.
 *
 * Every test checks bytes and counts: each line intact and present exactly
 * once, in order.  Time enters only through an injected wall clock (the date
 * in names), the compression delay (2 x check_interval_ms) and the 5 s stall
 * of the terminal test, none of which assertions measure: whichever comes
 * first, the outcome must be the same.
 */
#include "testutil.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <pty.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <setjmp.h>
#include <stdarg.h>
#include <cmocka.h>

#include <xlog.h>

#include "sinks/sink.h"

extern char **environ;

/* 2026-11-22 12:00:00 UTC */
#define NOON_NS ((int64_t)1795348800 * 1000000000)

/* ---- a wall clock the test moves ------------------------------------------ */

static int64_t clock_offset_ns;

static int64_t real_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The real clock moved to a chosen moment: it still advances, so xlog's
 * calibration works as it does in production. */
static int64_t moved_clock(void)
{
    return real_ns() + __atomic_load_n(&clock_offset_ns, __ATOMIC_RELAXED);
}

static void set_clock(int64_t utc_ns)
{
    __atomic_store_n(&clock_offset_ns, utc_ns - real_ns(), __ATOMIC_RELAXED);
}

/* ---- helpers --------------------------------------------------------------- */

static xlog_config config_in(const char *dir)
{
    xlog_config cfg = test_config_in(dir);
    cfg.max_message = 1024;
    cfg.write_buffer = 16384;
    cfg.wall_clock_ns = moved_clock;
    set_clock(NOON_NS);
    return cfg;
}

static void open_with(const xlog_config *cfg)
{
    int rc = xlog_open(cfg);
    if (rc != 0)
        fail_msg("xlog_open: %s", xlog_strerror(rc));
}

static int file_exists(const char *dir, const char *name)
{
    char *p = test_path(dir, name);
    struct stat st;
    int found = stat(p, &st) == 0;
    free(p);
    return found;
}

static off_t file_size(const char *dir, const char *name)
{
    char *p = test_path(dir, name);
    struct stat st;
    assert_int_equal(stat(p, &st), 0);
    free(p);
    return st.st_size;
}

/* Every name in dir, hidden ones too, sorted, joined by ' ' (for exact
 * comparisons of what a directory holds). */
static char *dir_listing(const char *dir)
{
    struct dirent **names;
    int count = scandir(dir, &names, NULL, alphasort);
    assert_true(count >= 0);
    char *out = calloc(1, 1);
    size_t len = 0;
    for (int i = 0; i < count; i++) {
        const char *n = names[i]->d_name;
        if (strcmp(n, ".") != 0 && strcmp(n, "..") != 0) {
            out = realloc(out, len + strlen(n) + 2);
            len += (size_t)sprintf(out + len, "%s%s", len ? " " : "", n);
        }
        free(names[i]);
    }
    free(names);
    return out;
}

/* The decompressed bytes of a .gz file, by the standard gzip tool. */
static char *gunzip(const char *dir, const char *name, size_t *len)
{
    char *p = test_path(dir, name);
    char *cmd = NULL;
    assert_true(asprintf(&cmd, "gzip -dc '%s'", p) > 0);
    FILE *f = popen(cmd, "r");
    assert_non_null(f);
    size_t size = 0, cap = 65536;
    char *buf = malloc(cap + 1);
    size_t n;
    while ((n = fread(buf + size, 1, cap - size, f)) > 0) {
        size += n;
        if (size == cap)
            buf = realloc(buf, (cap *= 2) + 1);
    }
    assert_int_equal(pclose(f), 0); /* gzip found the file whole */
    buf[size] = '\0';
    free(cmd);
    free(p);
    *len = size;
    return buf;
}

/* Checks that text is whole lines of the default layout whose messages are
 * "<prefix><n>" with n counting up by one from *next; advances *next.
 * Returns the number of lines. */
static size_t expect_sequence(const char *text, const char *prefix, long *next)
{
    size_t lines = 0, plen = strlen(prefix);
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        assert_non_null(nl);
        test_line l;
        if (!test_parse_line(p, (size_t)(nl - p), &l))
            fail_msg("bad line: %.*s", (int)(nl - p), p);
        if (l.message_len <= plen || strncmp(l.message, prefix, plen) != 0)
            fail_msg("unexpected message: %.*s", (int)l.message_len, l.message);
        long seq = strtol(l.message + plen, NULL, 10);
        if (seq != *next)
            fail_msg("expected %s%ld, found %ld", prefix, *next, seq);
        (*next)++;
        lines++;
        p = nl + 1;
    }
    return lines;
}

static void log_sequence(long from, long to)
{
    for (long i = from; i < to; i++)
        xlog_info("seq %ld", i);
}

static void spawn_and_wait(char *const argv[])
{
    pid_t pid;
    assert_int_equal(posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ), 0);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* Names of a rotated set, oldest first: by date, then .N from the highest
 * down, then the live file. */
static int oldest_first(const void *pa, const void *pb)
{
    const char *a = *(const char *const *)pa, *b = *(const char *const *)pb;
    int by_date = strncmp(a, b, 10);
    if (by_date)
        return by_date;
    const char *na = strstr(a, ".log."), *nb = strstr(b, ".log.");
    long ka = na ? atol(na + 5) : 0, kb = nb ? atol(nb + 5) : 0;
    return (kb > ka) - (kb < ka);
}

/* Whether name is a shared file's: YYYY-MM-DD.log, then maybe .N with N from
 * 1 to keep, then maybe .gz; or a compressor's hidden temporary file. */
static int in_scheme(const char *name, unsigned keep)
{
    unsigned pid, seq;
    int end = 0;
    if (sscanf(name, ".xlog-%u-%u.gz.tmp%n", &pid, &seq, &end) == 2 && end > 0 &&
        name[end] == '\0')
        return 1;
    for (int i = 0; i < 10; i++) {
        if (i == 4 || i == 7 ? name[i] != '-' : (name[i] < '0' || name[i] > '9'))
            return 0;
    }
    if (strncmp(name + 10, ".log", 4) != 0)
        return 0;
    const char *p = name + 14;
    if (*p == '\0')
        return 1;
    if (*p++ != '.' || *p < '1' || *p > '9')
        return 0;
    char *after;
    unsigned long n = strtoul(p, &after, 10);
    return n <= keep && (*after == '\0' || strcmp(after, ".gz") == 0);
}

/* Fails unless every name in dir is in the scheme (temporary files only
 * while allow_temp). */
static void expect_names_in_scheme(const char *dir, unsigned keep, int allow_temp)
{
    struct dirent **names;
    int count = scandir(dir, &names, NULL, alphasort);
    assert_true(count >= 0);
    char bad[256] = "";
    for (int i = 0; i < count; i++) {
        const char *n = names[i]->d_name;
        if (strcmp(n, ".") != 0 && strcmp(n, "..") != 0 && !bad[0] &&
            (!in_scheme(n, keep) || (!allow_temp && n[0] == '.')))
            snprintf(bad, sizeof bad, "%s", n);
        free(names[i]);
    }
    free(names);
    if (bad[0])
        fail_msg("%s is not a name of the rotation scheme (keep %u)", bad, keep);
}

/* The text of a log file, decompressed by gzip if it is a .gz (gzip checks
 * its integrity). */
static char *read_log(const char *dir, const char *name)
{
    size_t len = strlen(name), n;
    if (len > 3 && strcmp(name + len - 3, ".gz") == 0)
        return gunzip(dir, name, &n);
    char *p = test_path(dir, name);
    char *text = test_read_file(p, NULL);
    assert_non_null(text);
    free(p);
    return text;
}

/* ---- size rotation ----------------------------------------------------------- */

static void size_rotation_keeps_exactly_rotate_keep_files(void **state)
{
    (void)state;
    char *dir = test_make_dir("rotate");
    xlog_config cfg = config_in(dir);
    cfg.rotate_size = 65536;
    cfg.rotate_keep = 3;
    open_with(&cfg);
    const long messages = 20000; /* about 1.4 MB: some 20 rotations */
    log_sequence(0, messages);
    assert_int_equal(xlog_close(), 0);

    char *listing = dir_listing(dir);
    assert_string_equal(listing, "2026-11-22.log 2026-11-22.log.1 2026-11-22.log.2 "
                                 "2026-11-22.log.3");
    free(listing);
    /* Oldest first: .3 .2 .1 and the live file continue one another up to
     * the last message; what came before .3 was removed. */
    const char *order[] = {"2026-11-22.log.3", "2026-11-22.log.2", "2026-11-22.log.1",
                           "2026-11-22.log"};
    long next = -1;
    for (int i = 0; i < 4; i++) {
        assert_true(file_size(dir, order[i]) <= 65536);
        char *p = test_path(dir, order[i]);
        char *text = test_read_file(p, NULL);
        if (next < 0)
            next = strtol(strstr(text, " seq ") + 5, NULL, 10);
        assert_true(expect_sequence(text, "seq ", &next) > 0);
        free(text);
        free(p);
    }
    assert_int_equal(next, messages);
    test_drop_dir(dir);
}

static void compressed_rotations_gunzip_to_the_original_bytes(void **state)
{
    (void)state;
    xlog_counters before, after;
    xlog_stats(&before);
    char *dir = test_make_dir("gzip");
    xlog_config cfg = config_in(dir);
    cfg.rotate_size = 65536;
    cfg.rotate_keep = 1000;
    cfg.compress = XLOG_COMPRESS_GZIP;
    cfg.check_interval_ms = 10;
    open_with(&cfg);
    const long messages = 20000;
    log_sequence(0, messages);
    assert_int_equal(xlog_close(), 0); /* waits for the queued compressions */
    xlog_stats(&after);

    /* Only the live file and .N.gz, numbered without a gap, and no
     * temporary file left behind. */
    size_t n;
    char **files = test_list_files(dir, &n);
    char *listing = dir_listing(dir);
    assert_null(strstr(listing, ".tmp"));
    free(listing);
    assert_true(n >= 10);
    long next = 0;
    uint64_t bytes = 0;
    for (size_t k = n - 1; k >= 1; k--) {
        char name[64];
        snprintf(name, sizeof name, "2026-11-22.log.%zu.gz", k);
        assert_true(file_exists(dir, name));
        size_t len;
        char *text = gunzip(dir, name, &len);
        bytes += len;
        assert_true(expect_sequence(text, "seq ", &next) > 0);
        free(text);
    }
    char *p = test_path(dir, "2026-11-22.log");
    size_t len = 0;
    char *text = test_read_file(p, &len);
    bytes += len;
    expect_sequence(text, "seq ", &next);
    assert_int_equal(next, messages);
    /* Byte for byte: what xlog wrote is what gzip gives back. */
    assert_int_equal(bytes, after.bytes - before.bytes);
    free(text);
    free(p);
    test_free_list(files, n);
    test_drop_dir(dir);
}

/* Checks that the live file and the rotated ones, oldest first, hold "seq
 * <n>" lines that run without a gap or a repeat up to last. */
static void expect_newest_run(const char *dir, const char *const *oldest_first_names,
                              size_t count, long last)
{
    long next = -1;
    for (size_t i = 0; i < count; i++) {
        char *text = read_log(dir, oldest_first_names[i]);
        if (next < 0 && strstr(text, " seq "))
            next = strtol(strstr(text, " seq ") + 5, NULL, 10);
        expect_sequence(text, "seq ", &next);
        free(text);
    }
    assert_int_equal(next, last + 1);
}

/* One thread rotates every 64 KiB, keeping 3, many times within the
 * compression delay (2 x check_interval_ms): retention removes most rotated
 * files before their compression is due, and new files take the numbers of
 * the removed ones.  A compression job must still touch only its own file:
 * never the live one, never another rotated one. */
static void compression_never_touches_the_live_file(void **state)
{
    (void)state;
    xlog_counters before, after;
    xlog_stats(&before);
    char *dir = test_make_dir("gzlive");
    xlog_config cfg = config_in(dir);
    cfg.rotate_size = 65536;
    cfg.rotate_keep = 3;
    cfg.compress = XLOG_COMPRESS_GZIP;
    cfg.check_interval_ms = 50;
    open_with(&cfg);
    const long messages = 40000, batch = 500; /* about 45 rotations */
    for (long i = 0; i < messages; i += batch) {
        log_sequence(i, i + batch);
        assert_int_equal(xlog_flush(), 0);
        expect_names_in_scheme(dir, cfg.rotate_keep, 1);
    }
    assert_int_equal(xlog_close(), 0); /* waits for the queued compressions */
    xlog_stats(&after);
    assert_int_equal(after.lost, before.lost);
    char *listing = dir_listing(dir);
    assert_string_equal(listing, "2026-11-22.log 2026-11-22.log.1.gz 2026-11-22.log.2.gz "
                                 "2026-11-22.log.3.gz");
    free(listing);
    const char *order[] = {"2026-11-22.log.3.gz", "2026-11-22.log.2.gz",
                           "2026-11-22.log.1.gz", "2026-11-22.log"};
    expect_newest_run(dir, order, 4, messages - 1);
    test_drop_dir(dir);
}

/* Descriptors of this process that lead into dir. */
static int descriptors_into(const char *dir)
{
    char *real = realpath(dir, NULL);
    assert_non_null(real);
    size_t len = strlen(real);
    DIR *d = opendir("/proc/self/fd");
    assert_non_null(d);
    int count = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char target[PATH_MAX];
        ssize_t n = readlinkat(dirfd(d), e->d_name, target, sizeof target - 1);
        if (n > (ssize_t)len && strncmp(target, real, len) == 0 && target[len] == '/')
            count++;
    }
    closedir(d);
    free(real);
    return count;
}

/* Waiting compression jobs hold descriptors on their files; the child of a
 * fork must not keep them (they would pin the space of files removed later,
 * for as long as the child lives). */
static void forked_child_keeps_no_descriptor_of_rotated_files(void **state)
{
    (void)state;
    char *dir = test_make_dir("gzfork");
    xlog_config cfg = config_in(dir);
    cfg.rotate_size = 65536;
    cfg.compress = XLOG_COMPRESS_GZIP;
    cfg.check_interval_ms = 1000; /* the jobs wait 2 s */
    open_with(&cfg);
    log_sequence(0, 5000); /* about 5 rotations */
    assert_int_equal(xlog_flush(), 0);
    int in_parent = descriptors_into(dir);
    pid_t child = fork();
    if (child == 0)
        _exit(descriptors_into(dir));
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status));
    if (in_parent > 1) /* else the jobs were done already: nothing to see */
        assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_equal(xlog_close(), 0);
    test_drop_dir(dir);
}

/* With a write buffer four times rotate_size, a file still ends at the last
 * whole line that fits in rotate_size; only a line longer than rotate_size
 * makes a file bigger, and then that line is the file's only one. */
static void rotate_size_holds_under_a_larger_write_buffer(void **state)
{
    (void)state;
    char *dir = test_make_dir("split");
    xlog_config cfg = config_in(dir);
    cfg.rotate_size = 65536;
    cfg.rotate_keep = 1000;
    cfg.write_buffer = 262144;
    cfg.max_message = 100000;
    cfg.flush_interval_ms = 3600000; /* buffers are written when full */
    open_with(&cfg);
    const long messages = 20000; /* about 1.4 MB */
    char *long_text = malloc(80001);
    memset(long_text, 'x', 80000);
    long_text[80000] = '\0';
    log_sequence(0, messages / 2);
    xlog_info("seq %ld %s", messages / 2, long_text);
    log_sequence(messages / 2 + 1, messages);
    assert_int_equal(xlog_close(), 0);
    free(long_text);

    size_t n;
    char **files = test_list_files(dir, &n);
    assert_true(n >= 20);
    qsort(files, n, sizeof *files, oldest_first);
    int long_ones = 0;
    for (size_t i = 0; i < n; i++) {
        char *text = read_log(dir, files[i]);
        size_t len = strlen(text);
        if (len > 65536) {
            assert_int_equal(test_count_lines(text), 1);
            long_ones++;
        } else if (i + 1 < n && !strstr(text, " seq 9999\n")) {
            /* Full: the next line (about 70 bytes) would not have fitted. */
            assert_true(len > 65536 - 100);
        }
        free(text);
    }
    assert_int_equal(long_ones, 1);
    expect_newest_run(dir, (const char *const *)files, n, messages - 1);
    test_free_list(files, n);
    test_drop_dir(dir);
}

/* ---- daily rotation ------------------------------------------------------------ */

static void touch(const char *dir, const char *name)
{
    char *p = test_path(dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs("old\n", f);
    fclose(f);
    free(p);
}

static void daily_rotation_at_local_midnight_with_retention(void **state)
{
    (void)state;
    setenv("TZ", "XST-9", 1); /* UTC+9, no daylight saving */
    tzset();
    char *dir = test_make_dir("daily");
    /* Earlier days, and names that are not this mode's or not xlog's. */
    touch(dir, "2026-11-01.log");
    touch(dir, "2026-11-01.log.1.gz");
    touch(dir, "2026-11-20.log");
    touch(dir, "2026-11-21.log.1");
    touch(dir, "2026-11-21.log.gz");
    touch(dir, "2026-11-19-4242.log");
    touch(dir, "notes.txt");
    xlog_config cfg = config_in(dir);
    cfg.rotate_local_time = 1;
    cfg.keep_days = 2;
    cfg.compress = XLOG_COMPRESS_GZIP;
    cfg.check_interval_ms = 10;
    set_clock(NOON_NS + ((int64_t)2 * 3600 + 59 * 60 + 59) * 1000000000); /* 14:59:59 UTC */
    open_with(&cfg);
    /* At open, 22 November (local) is the current day: 21 and 20 are kept. */
    char *listing = dir_listing(dir);
    assert_string_equal(listing, "2026-11-19-4242.log 2026-11-20.log 2026-11-21.log.1 "
                                 "2026-11-21.log.gz 2026-11-22.log notes.txt");
    free(listing);
    xlog_info("before local midnight");
    assert_int_equal(xlog_flush(), 0);
    set_clock(NOON_NS + ((int64_t)3 * 3600 + 1) * 1000000000); /* 15:00:01 UTC */
    assert_int_equal(xlog_flush(), 0); /* the back end reads the clock again */
    xlog_info("after local midnight");
    assert_int_equal(xlog_close(), 0);

    /* 23 November began at 15:00 UTC: 20 November went, 22 was compressed. */
    listing = dir_listing(dir);
    assert_string_equal(listing, "2026-11-19-4242.log 2026-11-21.log.1 2026-11-21.log.gz "
                                 "2026-11-22.log.gz 2026-11-23.log notes.txt");
    free(listing);
    size_t len = 0;
    char *old = gunzip(dir, "2026-11-22.log.gz", &len);
    assert_int_equal(test_count_lines(old), 1);
    assert_true(strncmp(old, "2026-11-22 14:59:59.", 20) == 0); /* lines stay UTC */
    assert_non_null(strstr(old, " before local midnight\n"));
    char *p = test_path(dir, "2026-11-23.log");
    char *now = test_read_file(p, NULL);
    assert_int_equal(test_count_lines(now), 1);
    assert_true(strncmp(now, "2026-11-22 15:00:01.", 20) == 0);
    assert_non_null(strstr(now, " after local midnight\n"));
    free(now);
    free(p);
    free(old);
    unsetenv("TZ");
    tzset();
    test_drop_dir(dir);
}

/* The text of dir/name, which must exist. */
static char *contents_of(const char *dir, const char *name)
{
    char *p = test_path(dir, name);
    char *text = test_read_file(p, NULL);
    free(p);
    assert_non_null(text);
    return text;
}

/* A prefix and hourly files: the name changes on the hour, between two
 * lines; retention removes the earlier dates of this prefix's hourly names
 * only (another prefix's, no prefix's and daily names stay); the old
 * hour's file is compressed under its own name. */
static void prefixed_hourly_files_change_name_on_the_hour(void **state)
{
    (void)state;
    char *dir = test_make_dir("hourly");
    touch(dir, "myapp-2026-11-20-10.log");
    touch(dir, "myapp-2026-11-20-11.log.2.gz");
    touch(dir, "myapp-2026-11-21-23.log.1");
    touch(dir, "myapp-2026-11-20.log");
    touch(dir, "other-2026-11-19-05.log");
    touch(dir, "2026-11-19-05.log");
    xlog_config cfg = config_in(dir);
    cfg.file_prefix = "myapp";
    cfg.rotate_hourly = 1;
    cfg.keep_days = 1;
    cfg.compress = XLOG_COMPRESS_GZIP;
    cfg.check_interval_ms = 10;
    cfg.file_pattern = "{message}";
    set_clock(NOON_NS + ((int64_t)3600 + 30 * 60) * 1000000000); /* 13:30:00 UTC */
    open_with(&cfg);
    char *listing = dir_listing(dir);
    assert_string_equal(listing, "2026-11-19-05.log myapp-2026-11-20.log "
                                 "myapp-2026-11-21-23.log.1 myapp-2026-11-22-13.log "
                                 "other-2026-11-19-05.log");
    free(listing);
    xlog_info("before the hour");
    assert_int_equal(xlog_flush(), 0);
    set_clock(NOON_NS + ((int64_t)2 * 3600 + 1) * 1000000000); /* 14:00:01 UTC */
    assert_int_equal(xlog_flush(), 0); /* the back end reads the clock again */
    xlog_info("after the hour");
    assert_int_equal(xlog_close(), 0);
    listing = dir_listing(dir);
    assert_string_equal(listing, "2026-11-19-05.log myapp-2026-11-20.log "
                                 "myapp-2026-11-21-23.log.1 myapp-2026-11-22-13.log.gz "
                                 "myapp-2026-11-22-14.log other-2026-11-19-05.log");
    free(listing);
    size_t len = 0;
    char *old = gunzip(dir, "myapp-2026-11-22-13.log.gz", &len);
    assert_string_equal(old, "before the hour\n");
    char *now = contents_of(dir, "myapp-2026-11-22-14.log");
    assert_string_equal(now, "after the hour\n");
    free(now);
    free(old);
    test_drop_dir(dir);
}

/* The main files and a listed file sink both compress: one compressor
 * serves both (it counts its users: a second start made a second thread
 * over the first one's queue), each old hour's file is compressed under
 * its own name, and the sink's filter and prefix hold across the hour. */
static void two_sets_of_files_rotate_and_compress_on_the_hour(void **state)
{
    (void)state;
    char *dir = test_make_dir("hourly-two");
    xlog_file_config side = xlog_file_defaults();
    side.prefix = "side";
    side.rotate_hourly = 1;
    side.compress = XLOG_COMPRESS_GZIP;
    side.sink.filter = "warn";
    side.sink.pattern = "{level} {message}";
    const xlog_sink_config *sinks[] = {&side.sink, NULL};
    xlog_config cfg = config_in(dir);
    cfg.file_prefix = "main";
    cfg.rotate_hourly = 1;
    cfg.compress = XLOG_COMPRESS_GZIP;
    cfg.check_interval_ms = 10;
    cfg.file_pattern = "{message}";
    cfg.sinks = sinks;
    set_clock(NOON_NS + ((int64_t)3600 + 30 * 60) * 1000000000); /* 13:30:00 UTC */
    open_with(&cfg);
    xlog_info("info before");
    xlog_warn("warn before");
    assert_int_equal(xlog_flush(), 0);
    set_clock(NOON_NS + ((int64_t)2 * 3600 + 1) * 1000000000); /* 14:00:01 UTC */
    assert_int_equal(xlog_flush(), 0);
    xlog_info("info after");
    xlog_warn("warn after");
    assert_int_equal(xlog_close(), 0);
    char *listing = dir_listing(dir);
    assert_string_equal(listing, "main-2026-11-22-13.log.gz main-2026-11-22-14.log "
                                 "side-2026-11-22-13.log.gz side-2026-11-22-14.log");
    free(listing);
    size_t len;
    const struct {
        const char *name, *text;
        int gz;
    } files[] = {{"main-2026-11-22-13.log.gz", "info before\nwarn before\n", 1},
                 {"main-2026-11-22-14.log", "info after\nwarn after\n", 0},
                 {"side-2026-11-22-13.log.gz", "WARN warn before\n", 1},
                 {"side-2026-11-22-14.log", "WARN warn after\n", 0}};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char *text = files[i].gz ? gunzip(dir, files[i].name, &len) : contents_of(dir, files[i].name);
        assert_string_equal(text, files[i].text);
        free(text);
    }
    test_drop_dir(dir);
}

/* Hourly names of local time, per thread and without a prefix: the hour
 * is the local clock's (an offset of hours and a half), size rotation
 * numbers the hour's name. */
static void hourly_files_of_local_time_per_thread_without_a_prefix(void **state)
{
    (void)state;
    setenv("TZ", "XST-5:30", 1); /* UTC+5:30, no daylight saving */
    tzset();
    char *dir = test_make_dir("hourly-local");
    xlog_config cfg = config_in(dir);
    cfg.rotate_hourly = 1;
    cfg.rotate_local_time = 1;
    cfg.file_mode = XLOG_FILE_PER_THREAD;
    cfg.file_pattern = "{message}";
    set_clock(NOON_NS + ((int64_t)29 * 60) * 1000000000); /* 12:29 UTC, 17:59 local */
    open_with(&cfg);
    xlog_info("before the local hour");
    assert_int_equal(xlog_flush(), 0);
    set_clock(NOON_NS + ((int64_t)30 * 60 + 1) * 1000000000); /* 12:30:01 UTC, 18:00:01 local */
    assert_int_equal(xlog_flush(), 0);
    xlog_info("after the local hour");
    assert_int_equal(xlog_close(), 0);
    char names[2][64];
    long tid = (long)syscall(SYS_gettid);
    snprintf(names[0], sizeof names[0], "2026-11-22-17-%ld.log", tid);
    snprintf(names[1], sizeof names[1], "2026-11-22-18-%ld.log", tid);
    char want[160];
    snprintf(want, sizeof want, "%s %s", names[0], names[1]);
    char *listing = dir_listing(dir);
    assert_string_equal(listing, want);
    free(listing);
    char *before = contents_of(dir, names[0]), *after = contents_of(dir, names[1]);
    assert_string_equal(before, "before the local hour\n");
    assert_string_equal(after, "after the local hour\n");
    free(before);
    free(after);
    unsetenv("TZ");
    tzset();
    test_drop_dir(dir);
}

/* A prefix that is not a file name's part is refused by xlog_open. */
static void a_bad_file_prefix_fails_xlog_open(void **state)
{
    (void)state;
    static const char *const bad[] = {"a/b", "", ".hidden", "two words"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *dir = test_make_dir("bad-prefix");
        xlog_config cfg = config_in(dir);
        cfg.file_prefix = bad[i];
        assert_int_equal(xlog_open(&cfg), -EINVAL);
        char want[256];
        snprintf(want, sizeof want,
                 "cfg.file_prefix: \"%s\" is not a file name prefix (letters, digits, '_', '-' "
                 "and '.', not first; 1 to 127 bytes)", bad[i]);
        assert_string_equal(xlog_last_error(), want);
        test_drop_dir(dir);
    }
}

/* ---- files renamed or deleted by someone else -------------------------------- */

/* A log whose live file someone else moves or deletes: its directory, the
 * live file's path and the path it is moved to (if it is). */
typedef struct moved_log {
    char *dir, *live, *moved;
} moved_log;

/* xlog opened in a fresh directory, checking its file every
 * check_interval_ms, and seq 0 .. lines-1 logged and written. */
static moved_log log_before_the_move(const char *tag, unsigned check_interval_ms, long lines)
{
    moved_log m = {test_make_dir(tag), NULL, NULL};
    xlog_config cfg = config_in(m.dir);
    cfg.check_interval_ms = check_interval_ms;
    open_with(&cfg);
    log_sequence(0, lines);
    assert_int_equal(xlog_flush(), 0);
    m.live = test_path(m.dir, "2026-11-22.log");
    m.moved = test_path(m.dir, "2026-11-22.log.moved");
    return m;
}

/* The moved file holds seq 0 .. in_moved-1, the live one the in_live after. */
static void expect_moved_then_live(const moved_log *m, long in_moved, long in_live)
{
    long next = 0;
    char *a = test_read_file(m->moved, NULL), *b = test_read_file(m->live, NULL);
    assert_non_null(b);
    assert_int_equal(expect_sequence(a, "seq ", &next), in_moved);
    assert_int_equal(expect_sequence(b, "seq ", &next), in_live);
    free(a);
    free(b);
}

static void moved_log_remove(moved_log *m)
{
    unlink(m->moved);
    free(m->live);
    free(m->moved);
    test_drop_dir(m->dir);
}

static void on_sighup(int sig)
{
    (void)sig;
    xlog_reopen();
}

static void reopen_from_a_signal_handler(void **state)
{
    (void)state;
    /* Only the request can reopen here. */
    moved_log m = log_before_the_move("reopen", 3600000, 100);
    assert_int_equal(rename(m.live, m.moved), 0); /* as logrotate does */
    struct sigaction sa = {.sa_handler = on_sighup}, old;
    sigaction(SIGHUP, &sa, &old);
    raise(SIGHUP);
    sigaction(SIGHUP, &old, NULL);
    log_sequence(100, 200);
    assert_int_equal(xlog_close(), 0);
    expect_moved_then_live(&m, 100, 100);
    moved_log_remove(&m);
}

/* Logs, 100 lines at a time, until the live file exists again (xlog has
 * noticed); returns the next sequence number. */
static long log_until_reopened(const char *live, long next)
{
    struct stat st;
    for (int round = 0; stat(live, &st) != 0; round++) {
        if (round == 1000000)
            fail_msg("xlog never opened %s again", live);
        log_sequence(next, next + 100);
        next += 100;
        assert_int_equal(xlog_flush(), 0);
    }
    return next;
}

static void rename_by_another_process_is_noticed(void **state)
{
    (void)state;
    moved_log m = log_before_the_move("renamed", 20, 1000);
    char *mv[] = {"mv", m.live, m.moved, NULL};
    spawn_and_wait(mv);
    long noticed = log_until_reopened(m.live, 1000);
    log_sequence(noticed, noticed + 1000);
    assert_int_equal(xlog_close(), 0);

    /* The renamed file holds 0..k, the new one k+1..the end: nothing lost or
     * repeated, and everything logged once the new file was there is in it. */
    char *a = test_read_file(m.moved, NULL), *b = test_read_file(m.live, NULL);
    long next = 0;
    expect_sequence(a, "seq ", &next);
    assert_true(next >= 1000 && next <= noticed);
    expect_sequence(b, "seq ", &next);
    assert_int_equal(next, noticed + 1000);
    free(a);
    free(b);
    moved_log_remove(&m);
}

/* After the live file (or its directory) was deleted at sequence 1000 and
 * xlog noticed by `noticed`, followed by 1000 more: lines written to the
 * deleted file before xlog noticed are gone with it; the new file continues
 * without a gap from where it begins to the end. */
static void expect_new_file_continues(const char *live, long noticed)
{
    char *text = test_read_file(live, NULL);
    const char *first = strstr(text, " seq ");
    assert_non_null(first);
    long next = strtol(first + 5, NULL, 10);
    assert_true(next >= 1000 && next <= noticed);
    expect_sequence(text, "seq ", &next);
    assert_int_equal(next, noticed + 1000);
    free(text);
}

/* The whole directory removed (a clean-up script, say): xlog_reopen()
 * creates it again, and the lines go on in a new file. */
static void deleted_directory_is_created_again(void **state)
{
    (void)state;
    char *dir = test_make_dir("nodir");
    xlog_config cfg = config_in(dir);
    open_with(&cfg);
    log_sequence(0, 1000);
    assert_int_equal(xlog_flush(), 0);
    char *live = test_path(dir, "2026-11-22.log");
    assert_int_equal(unlink(live), 0);
    assert_int_equal(rmdir(dir), 0);
    xlog_reopen();
    long noticed = log_until_reopened(live, 1000);
    log_sequence(noticed, noticed + 1000);
    assert_int_equal(xlog_close(), 0);
    struct stat st;
    assert_int_equal(stat(dir, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    expect_new_file_continues(live, noticed);
    free(live);
    test_drop_dir(dir);
}

static void deleted_file_is_created_again(void **state)
{
    (void)state;
    xlog_counters before, after;
    xlog_stats(&before);
    moved_log m = log_before_the_move("deleted", 20, 1000);
    assert_int_equal(unlink(m.live), 0);
    long noticed = log_until_reopened(m.live, 1000);
    log_sequence(noticed, noticed + 1000);
    assert_int_equal(xlog_close(), 0);
    xlog_stats(&after);
    expect_new_file_continues(m.live, noticed);
    assert_int_equal(after.lost, before.lost);
    moved_log_remove(&m);
}

/* The live file renamed by someone else, with the periodic check far away:
 * the next write already goes to a new file under the name, not into the
 * renamed one (the back end looks at the name before each write). */
static void writes_follow_the_name_without_waiting_for_the_check(void **state)
{
    (void)state;
    moved_log m = log_before_the_move("follow", 3600000, 100);
    assert_int_equal(rename(m.live, m.moved), 0);
    log_sequence(100, 200);
    assert_int_equal(xlog_flush(), 0);
    expect_moved_then_live(&m, 100, 100);
    assert_int_equal(xlog_close(), 0);
    moved_log_remove(&m);
}

/* ---- writing fails ---------------------------------------------------------- */

static void limit_file_size(rlim_t bytes)
{
    struct rlimit limit;
    getrlimit(RLIMIT_FSIZE, &limit);
    limit.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &limit);
}

/* In a child that will limit its file's size: xlog opened in dir with a
 * buffer of a few of the longest lines (so that what a full file cannot
 * take is soon given up), and "before 0" .. "before 999" written into
 * live.  Returns live's size; _exits 91 if xlog_open fails, 92 if live is
 * not there. */
static off_t open_small_and_write_before(const char *dir, const char *live)
{
    signal(SIGXFSZ, SIG_IGN); /* a write past the limit fails with EFBIG */
    xlog_config cfg = config_in(dir);
    cfg.max_message = 256;
    cfg.write_buffer = 4096;
    if (xlog_open(&cfg) != 0)
        _exit(91);
    for (int i = 0; i < 1000; i++)
        xlog_info("before %d", i);
    xlog_flush();
    struct stat st;
    if (stat(live, &st) != 0)
        _exit(92);
    return st.st_size;
}

/* Waits for the child, which must exit 0, and reads the report of size
 * bytes it wrote to report[1]. */
static void child_report(pid_t child, const int report[2], void *out, size_t size)
{
    close(report[1]);
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_equal(read(report[0], out, size), (ssize_t)size);
    close(report[0]);
}

/* The file may not grow at all, then by 4 KiB (a loss notice goes out, then
 * part of the batch behind it, then writing fails again), then freely: the
 * notices in the file add up to xlog_stats().lost, and every line of the
 * batches that failed is either in the file, whole, or counted.  A child
 * process, because the file size limit is the process's. */
/* Item: the notices must add up to lost.  A small buffer, so that lines a
 * full file cannot take are given up (and counted) while the limit holds,
 * twice over; what was kept is written once there is room again. */
static void loss_notices_add_up_to_lost(void **state)
{
    (void)state;
    char *dir = test_make_dir("notices");
    char *live = test_path(dir, "2026-11-22.log");
    const int while_full = 3000;
    int report[2];
    assert_int_equal(pipe(report), 0);
    pid_t child = fork();
    if (child == 0) {
        xlog_counters before, after;
        xlog_stats(&before);
        off_t size = open_small_and_write_before(dir, live);
        limit_file_size((rlim_t)size);
        for (int i = 0; i < while_full / 2; i++)
            xlog_info("while full %d", i);
        xlog_flush();
        limit_file_size((rlim_t)size + 4096);
        for (int i = while_full / 2; i < while_full; i++)
            xlog_info("while full %d", i);
        xlog_flush();
        limit_file_size(RLIM_INFINITY);
        for (int i = 0; i < 200; i++)
            xlog_info("after %d", i);
        xlog_close();
        xlog_stats(&after);
        uint64_t out[1] = {after.lost - before.lost};
        _exit(write(report[1], out, sizeof out) == sizeof out ? 0 : 93);
    }
    uint64_t lost;
    child_report(child, report, &lost, sizeof lost);

    char *text = test_read_file(live, NULL);
    int before = 0, full_whole = 0, last_full = -1, cut = 0, after = 0, notices = 0;
    unsigned long long noticed = 0;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        test_line l;
        char msg[256];
        int n = 0;
        unsigned long long lines, bytes;
        if (!test_parse_line(p, (size_t)(nl - p), &l)) {
            cut++; /* a line cut by the limit whose rest was given up */
        } else if (l.message_len < 8 && memcmp(l.message, "while full", l.message_len) == 0) {
            cut++; /* the same, cut after its prefix */
        } else if (sscanf(test_message(&l, msg, sizeof msg), "before %d", &n) == 1) {
            assert_int_equal(n, before++);
        } else if (sscanf(msg, "while full %d", &n) == 1) {
            assert_true(n > last_full); /* in order, each at most once */
            last_full = n;
            full_whole++;
        } else if (sscanf(msg, "after %d", &n) == 1) {
            assert_int_equal(n, after++);
        } else if (sscanf(msg, "%llu %*s (%llu", &lines, &bytes) == 2) {
            char notice[256];
            test_lost_notice(notice, sizeof notice, lines, bytes, strerror(EFBIG));
            assert_string_equal(msg, notice);
            noticed += lines;
            notices++;
        } else {
            fail_msg("unexpected line: %.*s", (int)(nl - p), p);
        }
        p = nl + 1;
    }
    assert_int_equal(before, 1000);
    assert_int_equal(after, 200);
    assert_true(full_whole > 0 && cut <= 2);
    assert_true(lost > 0 && notices >= 1);
    assert_int_equal(noticed, lost); /* every lost line in exactly one notice */
    assert_int_equal(full_whole + (long)noticed, while_full);
    free(text);
    free(live);
    test_drop_dir(dir);
}

/* What a custom sink sees of the back end when "probe" comes: how long
 * the back end may sleep for the file sink (xlog_sinks_ms_to_due), and the
 * coarse clock after that was asked. */
typedef struct due_probe {
    int64_t ms_to_due;
    int64_t asked_at_ms;
} due_probe;

static int64_t coarse_now_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

static void probe_due(void *context, const xlog_event *event, const char *bytes, size_t len)
{
    (void)bytes;
    (void)len;
    if (strcmp(event->message, "probe") != 0)
        return;
    due_probe *probe = context;
    probe->ms_to_due = xlog_sinks_ms_to_due(); /* on the back end, as idle_wait asks */
    probe->asked_at_ms = coarse_now_ms();
}

/* A write that failed is tried again 100 ms later, no sooner (never a loop
 * on a broken disk): the line it holds back is not due before then, though
 * its flush interval (0 here) has passed, so the back end may doze until
 * that retry rather than wake every idle_sleep_us to find nothing it may
 * write.  Exactly: due no sooner than 100 ms after the coarse clock read
 * before the write failed, counted from the clock read after the back end
 * was asked (the failure and the question come between the two).  Then
 * the file takes every line once the limit is lifted. */
static void a_buffer_the_disk_refused_falls_due_at_its_retry_not_before(void **state)
{
    (void)state;
    char *dir = test_make_dir("retry-due");
    char *live = test_path(dir, "2026-11-22.log");
    int report[2];
    assert_int_equal(pipe(report), 0);
    pid_t child = fork();
    if (child == 0) {
        signal(SIGXFSZ, SIG_IGN); /* a write past the limit fails with EFBIG */
        due_probe probe = {-2, 0};
        xlog_custom_sink sink = xlog_custom_sink_defaults();
        sink.context = &probe;
        sink.write = probe_due;
        const xlog_sink_config *sinks[] = {&sink.sink, NULL};
        xlog_config cfg = config_in(dir);
        cfg.flush_interval_ms = 0;
        cfg.sinks = sinks;
        if (xlog_open(&cfg) != 0)
            _exit(91);
        xlog_info("before");
        xlog_flush();
        struct stat st;
        if (stat(live, &st) != 0)
            _exit(92);
        limit_file_size((rlim_t)st.st_size);
        int64_t before_failure_ms = coarse_now_ms();
        xlog_info("held back");
        xlog_flush(); /* the write fails */
        xlog_info("probe");
        xlog_flush(); /* the probe has been asked */
        limit_file_size(RLIM_INFINITY);
        xlog_close();
        int64_t out[3] = {probe.ms_to_due, probe.asked_at_ms, before_failure_ms};
        _exit(write(report[1], out, sizeof out) == sizeof out ? 0 : 93);
    }
    int64_t got[3];
    child_report(child, report, got, sizeof got);
    int64_t ms_to_due = got[0], asked_at = got[1], before_failure = got[2];
    int64_t least = before_failure + 100 - asked_at;
    if (ms_to_due < least || ms_to_due > 100)
        fail_msg("ms_to_due %lld, must be within [%lld, 100]", (long long)ms_to_due,
                 (long long)least);

    char *text = test_read_file(live, NULL);
    const char *expected[] = {"before", "held back", "probe"};
    size_t count = 0;
    for (const char *p = text; *p; count++) {
        const char *nl = strchr(p, '\n');
        assert_non_null(nl);
        test_line l;
        char msg[256];
        assert_true(test_parse_line(p, (size_t)(nl - p), &l));
        assert_true(count < sizeof expected / sizeof *expected);
        assert_string_equal(test_message(&l, msg, sizeof msg), expected[count]);
        p = nl + 1;
    }
    assert_int_equal(count, 3);
    free(text);
    free(live);
    test_drop_dir(dir);
}

/* A file that cannot grow: what it cannot take stays in the buffer for a
 * later try, and is given up (counted, and announced once writing works
 * again) only when the buffer is needed for newer lines.  A small buffer
 * makes that happen here. */
static void full_disk_loses_only_what_it_must_and_says_so(void **state)
{
    (void)state;
    char *dir = test_make_dir("full");
    char *live = test_path(dir, "2026-11-22.log");
    const int while_full = 2000;
    pid_t child = fork();
    if (child == 0) {
        off_t size = open_small_and_write_before(dir, live);
        /* The file may grow by 100 more bytes: a line will be cut. */
        struct rlimit limit, small;
        getrlimit(RLIMIT_FSIZE, &limit);
        small = limit;
        small.rlim_cur = (rlim_t)size + 100;
        setrlimit(RLIMIT_FSIZE, &small);
        for (int i = 0; i < while_full; i++)
            xlog_info("while full %d", i);
        xlog_flush();
        setrlimit(RLIMIT_FSIZE, &limit);
        for (int i = 0; i < 200; i++)
            xlog_info("after %d", i);
        xlog_counters c;
        xlog_stats(&c);
        xlog_close();
        _exit(c.write_errors > 0 && c.lost > 0 ? 0 : 93);
    }
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);

    char *text = test_read_dir(dir, NULL);
    int before = 0, full_whole = 0, last_full = -1, cut = 0, after = 0;
    unsigned long long noticed_lines = 0, noticed_bytes = 0;
    int notice_at = -1, line_no = 0, first_after = -1;
    for (const char *p = text; *p; line_no++) {
        const char *nl = strchr(p, '\n');
        test_line l;
        if (!test_parse_line(p, (size_t)(nl - p), &l)) {
            cut++; /* the line the file limit cut short, whose rest was given up */
        } else if (strncmp(l.message, "before ", 7) == 0) {
            assert_int_equal(atoi(l.message + 7), before);
            before++;
        } else if (strncmp(l.message, "while full ", 11) == 0) {
            assert_true(atoi(l.message + 11) > last_full); /* in order, each once */
            last_full = atoi(l.message + 11);
            full_whole++;
        } else if (strncmp(l.message, "after ", 6) == 0) {
            if (first_after < 0)
                first_after = line_no;
            assert_int_equal(atoi(l.message + 6), after);
            after++;
        } else {
            char msg[256], notice[256];
            unsigned long long lines, bytes;
            assert_int_equal(sscanf(test_message(&l, msg, sizeof msg), "%llu %*s (%llu", &lines,
                                    &bytes),
                             2);
            test_lost_notice(notice, sizeof notice, lines, bytes, strerror(EFBIG));
            assert_string_equal(msg, notice);
            noticed_lines += lines;
            noticed_bytes += bytes;
            notice_at = line_no;
        }
        p = nl + 1;
    }
    assert_int_equal(before, 1000);
    assert_int_equal(after, 200);
    assert_true(cut <= 1);
    assert_true(notice_at >= 0 && notice_at < first_after); /* reported before what follows */
    assert_int_equal(full_whole + (long)noticed_lines, while_full); /* written once or counted */
    assert_true(full_whole > 0 && noticed_bytes > 0);
    free(text);
    char *listing = dir_listing(dir);
    assert_string_equal(listing, "2026-11-22.log"); /* one file, as it was when limited */
    free(listing);
    free(live);
    test_drop_dir(dir);
}

/* ---- symbolic links ----------------------------------------------------------- */

/* follow_symlinks = 0 refuses a log directory that is itself a link (with
 * or without a trailing slash, in every file mode), as it refuses a link
 * for the file; links among the directory's parents are followed (only the
 * directory and its files are checked, see docs/OUTPUTS.md). */
static void symlinked_directory_is_refused_without_follow_symlinks(void **state)
{
    (void)state;
    char *top = test_make_dir("linkdir");
    char *real = test_path(top, "real");
    char *link = test_path(top, "link");
    char *link_slash = test_path(top, "link/");
    char *below_link = test_path(top, "link/below");
    assert_int_equal(mkdir(real, 0750), 0);
    assert_int_equal(symlink("real", link), 0);
    xlog_config cfg = config_in(link);
    cfg.follow_symlinks = 0;
    assert_int_equal(xlog_open(&cfg), -ELOOP);
    cfg.dir = link_slash;
    assert_int_equal(xlog_open(&cfg), -ELOOP);
    cfg.file_mode = XLOG_FILE_PER_THREAD;
    assert_int_equal(xlog_open(&cfg), -ELOOP);
    cfg.file_mode = XLOG_FILE_PER_PROCESS;
    assert_int_equal(xlog_open(&cfg), -ELOOP);
    char *listing = dir_listing(real);
    assert_string_equal(listing, ""); /* nothing was written through the link */
    free(listing);

    cfg.file_mode = XLOG_FILE_SHARED;
    cfg.dir = below_link;
    open_with(&cfg);
    xlog_info("through a linked parent");
    assert_int_equal(xlog_close(), 0);
    cfg.dir = link;
    cfg.follow_symlinks = 1;
    open_with(&cfg);
    xlog_info("through the link, as asked");
    assert_int_equal(xlog_close(), 0);
    char *below = test_path(real, "below");
    test_drop_dir(below);
    listing = dir_listing(real);
    assert_string_equal(listing, "2026-11-22.log");
    free(listing);
    test_remove_dir(real);
    unlink(link);
    test_remove_dir(top);
    free(real);
    free(link);
    free(link_slash);
    free(below_link);
    free(top);
}

/* follow_symlinks = 0 refuses today's file when it is a link (xlog_open
 * fails with -ELOOP); with follow_symlinks = 1 the link is followed. */
static void symlinks_refused_when_asked(void **state)
{
    (void)state;
    char *dir = test_make_dir("symlink");
    char *target = test_path(dir, "elsewhere");
    /* Today's file name (the injected clock's day) as a link. */
    char *link_path = test_path(dir, "2026-11-22.log");
    assert_int_equal(symlink(target, link_path), 0);
    xlog_config cfg = config_in(dir);
    cfg.follow_symlinks = 0;
    assert_int_equal(xlog_open(&cfg), -ELOOP);
    cfg.follow_symlinks = 1;
    assert_int_equal(xlog_open(&cfg), 0);
    xlog_close();
    unlink(link_path);
    unlink(target);
    free(link_path);
    free(target);
    test_drop_dir(dir);
}

/* ---- many processes, one file ---------------------------------------------- */

#define PROCESSES 4
#define THREADS 4

/* A run of outputs_writer processes (tests/outputs/outputs_writer.c). */
typedef struct writers {
    int processes;
    int threads;
    long messages;
    long rotate;
    long buffer;
    unsigned check_ms;
    unsigned keep;
    int gzip;
} writers;

/* Runs the writers to their end; meanwhile, looks at the directory again
 * and again: only names of the scheme may appear, at any moment. */
static void run_writers(const char *dir, const writers *w)
{
    char args[8][32];
    snprintf(args[0], sizeof args[0], "%d", w->threads);
    snprintf(args[1], sizeof args[1], "%ld", w->messages);
    snprintf(args[2], sizeof args[2], "%ld", w->rotate);
    snprintf(args[3], sizeof args[3], "%ld", w->buffer);
    snprintf(args[4], sizeof args[4], "%u", w->check_ms);
    snprintf(args[5], sizeof args[5], "%u", w->keep);
    snprintf(args[6], sizeof args[6], "%d", w->gzip);
    pid_t pids[PROCESSES];
    assert_true(w->processes <= PROCESSES);
    for (int i = 0; i < w->processes; i++) {
        char process[16];
        snprintf(process, sizeof process, "%d", i);
        char *argv[] = {OUTPUTS_WRITER, (char *)dir, process, args[0], args[1], args[2],
                        args[3], args[4], args[5], args[6], NULL};
        assert_int_equal(posix_spawn(&pids[i], OUTPUTS_WRITER, NULL, NULL, argv, environ), 0);
    }
    for (int running = w->processes; running;) {
        expect_names_in_scheme(dir, w->keep, 1);
        for (int i = 0; i < w->processes; i++) {
            int status;
            if (pids[i] < 0 || waitpid(pids[i], &status, WNOHANG) == 0)
                continue;
            if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                fail_msg("writer %d failed (status %#x): it lost or dropped lines", i, status);
            pids[i] = -1;
            running--;
        }
        struct timespec pause = {0, 1000000};
        nanosleep(&pause, NULL);
    }
}

/* Reads the files of dir oldest first and checks that every line is intact
 * and that each writer thread's lines form one run, in order, with no gap
 * and no repeat, that ends with its last message; with whole, the run also
 * begins with its first.  Returns the number of lines. */
static size_t expect_writer_runs(const char *dir, const writers *w, int whole)
{
    size_t n;
    char **files = test_list_files(dir, &n);
    qsort(files, n, sizeof *files, oldest_first);
    long next[PROCESSES][THREADS];
    for (int p = 0; p < PROCESSES; p++)
        for (int t = 0; t < THREADS; t++)
            next[p][t] = whole ? 0 : -1; /* -1: not seen yet */
    size_t lines = 0;
    for (size_t f = 0; f < n; f++) {
        char *text = read_log(dir, files[f]);
        /* Each process may add one buffer by a stale look at the size, and
         * one it forces in after finding the file full twice (OUTPUTS.md,
         * "Rotation by size"): a slow run (TSan) exceeded one per process. */
        if (strlen(text) > (size_t)(w->rotate + 2 * w->processes * w->buffer))
            fail_msg("%s holds %zu bytes: more than rotate_size %ld + 2 x %d processes x "
                     "buffer %ld",
                     files[f], strlen(text), w->rotate, w->processes, w->buffer);
        for (char *s = text; *s;) {
            char *nl = strchr(s, '\n');
            assert_non_null(nl);
            test_line l;
            if (!test_parse_line(s, (size_t)(nl - s), &l))
                fail_msg("torn line in %s: %.*s", files[f], (int)(nl - s), s);
            char *end;
            long proc = strtol(l.message + 1, &end, 10);
            long thread = strtol(end + 2, &end, 10);
            long seq = strtol(end + 5, &end, 10);
            assert_true(l.message[0] == 'p' && end == nl);
            assert_true(proc >= 0 && proc < w->processes && thread >= 0 && thread < w->threads);
            long *expected = &next[proc][thread];
            if (*expected < 0)
                *expected = seq;
            if (seq != *expected)
                fail_msg("p%ld t%ld: expected seq %ld, found %ld in %s", proc, thread, *expected,
                         seq, files[f]);
            (*expected)++;
            lines++;
            s = nl + 1;
        }
        free(text);
    }
    for (int p = 0; p < w->processes; p++)
        for (int t = 0; t < w->threads; t++)
            if (next[p][t] >= 0 && next[p][t] != w->messages)
                fail_msg("p%d t%d: its lines end at %ld of %ld", p, t, next[p][t], w->messages);
    test_free_list(files, n);
    return lines;
}

static void many_processes_share_one_rotating_file(void **state)
{
    (void)state;
    char *dir = test_make_dir("processes");
    writers w = {PROCESSES, THREADS, test_scaled(100000), test_scaled(1 << 20), 0, 50, 100000, 0};
    if (w.rotate < 65536)
        w.rotate = 65536;
    w.buffer = w.rotate / 4;
    run_writers(dir, &w);
    size_t n;
    char **files = test_list_files(dir, &n);
    test_free_list(files, n);
    assert_true(n >= 4); /* the file did rotate, several times */
    assert_int_equal(expect_writer_runs(dir, &w, 1), (size_t)(PROCESSES * THREADS * w.messages));
    test_drop_dir(dir);
}

/* Four processes rotate a shared file every 64 KiB, many times within the
 * compression delay (2 x check_ms), keeping 5: retention removes most files
 * before their compression is due.  Whatever the order of the two, the
 * files that are left hold the newest lines of every process without a
 * hole, every .gz is whole, only names of the scheme ever appear, there is
 * a live file at the end, and no writer counted a loss. */
static void processes_rotating_faster_than_compression_keep_the_newest_lines(void **state)
{
    (void)state;
    char *dir = test_make_dir("gzprocesses");
    writers w = {PROCESSES, 1, test_scaled(50000), 65536, 16384, 250, 5, 1};
    run_writers(dir, &w);
    expect_names_in_scheme(dir, w.keep, 0);
    size_t n;
    char **files = test_list_files(dir, &n);
    int live = 0;
    for (size_t i = 0; i < n; i++)
        live += strlen(files[i]) == 14;
    assert_true(live >= 1);
    test_free_list(files, n);
    assert_true(expect_writer_runs(dir, &w, 0) > 0);
    test_drop_dir(dir);
}

static void per_process_files_carry_the_pid(void **state)
{
    (void)state;
    char *dir = test_make_dir("perprocess");
    xlog_config cfg = config_in(dir);
    cfg.file_mode = XLOG_FILE_PER_PROCESS;
    cfg.rotate_size = 65536;
    open_with(&cfg);
    log_sequence(0, 1000); /* about 84 KB: one rotation at 64 KiB */
    assert_int_equal(xlog_close(), 0);
    char expect[128];
    snprintf(expect, sizeof expect, "2026-11-22-p%d.log 2026-11-22-p%d.log.1", (int)getpid(),
             (int)getpid());
    char *listing = dir_listing(dir);
    assert_string_equal(listing, expect);
    free(listing);
    long next = 0;
    char name[64];
    snprintf(name, sizeof name, "2026-11-22-p%d.log.1", (int)getpid());
    char *p = test_path(dir, name);
    char *text = test_read_file(p, NULL);
    expect_sequence(text, "seq ", &next);
    free(text);
    free(p);
    snprintf(name, sizeof name, "2026-11-22-p%d.log", (int)getpid());
    p = test_path(dir, name);
    text = test_read_file(p, NULL);
    expect_sequence(text, "seq ", &next);
    assert_int_equal(next, 1000);
    free(text);
    free(p);
    test_drop_dir(dir);
}

/* ---- the console ---------------------------------------------------------------- */

/* Reads the master side of a pseudo-terminal as a terminal emulator would,
 * except while told to stall, and tallies what it sees. */
typedef struct terminal {
    int master;
    int stalled;        /* atomic: do not read */
    long shown;         /* atomic: log lines received */
    long announced;     /* atomic: sum of the "N console lines dropped" notices */
    long next[THREADS]; /* next sequence number expected from each thread */
    int errors;         /* atomic: lines that were not as expected */
    char first_error[256];
    char partial[4096];
    size_t partial_len;
} terminal;

/* Removes colour sequences (ESC [ ... m) in place; returns the new length. */
static size_t strip_colour(char *s, size_t len)
{
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '\x1b') {
            while (i < len && s[i] != 'm')
                i++;
            continue;
        }
        s[o++] = s[i];
    }
    return o;
}

/* Counts a line of the terminal (cmocka's asserts belong to the main thread:
 * a bad line is noted for it). */
static void tally_line(terminal *t, char *line, size_t len)
{
    len = strip_colour(line, len);
    line[len] = '\0';
    unsigned long long dropped;
    test_line l;
    char *end = NULL;
    long thread = -1, seq = -1;
    char notice[64];
    if (strncmp(line, "xlog: ", 6) == 0 && sscanf(line, "xlog: %llu console", &dropped) == 1 &&
        snprintf(notice, sizeof notice, "xlog: %llu console %s dropped", dropped,
                 test_plural(dropped, "line", "lines")) > 0 &&
        strcmp(line, notice) == 0) {
        __atomic_add_fetch(&t->announced, (long)dropped, __ATOMIC_RELAXED);
        return;
    }
    if (test_parse_line(line, len, &l) && strncmp(l.message, "console t", 9) == 0) {
        thread = strtol(l.message + 9, &end, 10); /* "console t<thread> seq <n>" */
        seq = strtol(end + 5, NULL, 10);
    }
    /* In order, never twice. */
    if (thread < 0 || thread >= THREADS || seq < t->next[thread]) {
        if (__atomic_fetch_add(&t->errors, 1, __ATOMIC_RELAXED) == 0)
            snprintf(t->first_error, sizeof t->first_error, "%.200s", line);
        return;
    }
    t->next[thread] = seq + 1;
    __atomic_add_fetch(&t->shown, 1, __ATOMIC_RELAXED);
}

static void *terminal_reader(void *p)
{
    terminal *t = p;
    char buf[65536];
    for (;;) {
        if (__atomic_load_n(&t->stalled, __ATOMIC_ACQUIRE)) {
            struct timespec pause = {0, 1000000};
            nanosleep(&pause, NULL);
            continue;
        }
        ssize_t n = read(t->master, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return NULL; /* EIO: the slave side is closed and drained */
        for (ssize_t i = 0; i < n; i++) {
            if (buf[i] == '\n') {
                tally_line(t, t->partial, t->partial_len);
                t->partial_len = 0;
            } else if (t->partial_len < sizeof t->partial - 1) {
                t->partial[t->partial_len++] = buf[i];
            }
        }
    }
}

typedef struct console_writer {
    int index;
    long messages;
} console_writer;

/* Logs in batches that fit the thread's ring, each written before the next
 * begins (xlog_flush): so a caller can only wait for room if the back end
 * itself is held up, by the console or anything else. */
static void *log_to_console(void *p)
{
    const console_writer *w = p;
    const long batch = 5000;
    for (long i = 0; i < w->messages; i += batch) {
        for (long j = i; j < i + batch && j < w->messages; j++)
            xlog_info("console t%d seq %ld", w->index, j);
        xlog_flush();
    }
    return NULL;
}

static int open_raw_pty(int *master, int *slave)
{
    if (openpty(master, slave, NULL, NULL, NULL) != 0)
        return -1;
    struct termios raw;
    tcgetattr(*slave, &raw);
    cfmakeraw(&raw); /* no "\n" to "\r\n" */
    tcsetattr(*slave, TCSANOW, &raw);
    return 0;
}

static double monotonic_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void stalled_terminal_never_holds_up_callers_or_files(void **state)
{
    (void)state;
    terminal t = {0};
    int slave;
    assert_int_equal(open_raw_pty(&t.master, &slave), 0);
    t.stalled = 1;
    pthread_t reader;
    pthread_create(&reader, NULL, terminal_reader, &t);

    char *dir = test_make_dir("console");
    xlog_config cfg = config_in(dir);
    cfg.console = slave;
    cfg.console_buffer = 256 * 1024;
    xlog_counters before, mid, after;
    xlog_stats(&before);
    open_with(&cfg);
    double stall_began = monotonic_s();
    const long messages = test_scaled(100000);
    console_writer w[THREADS];
    pthread_t threads[THREADS];
    for (int i = 0; i < THREADS; i++) {
        w[i] = (console_writer){i, messages};
        pthread_create(&threads[i], NULL, log_to_console, &w[i]);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(threads[i], NULL);
    assert_int_equal(xlog_flush(), 0);

    /* The terminal is still not reading, yet the file is complete. */
    assert_true(__atomic_load_n(&t.stalled, __ATOMIC_RELAXED));
    char *text = test_read_dir(dir, NULL);
    long next[THREADS] = {0};
    for (const char *s = text; *s;) {
        const char *nl = strchr(s, '\n');
        test_line l;
        assert_true(test_parse_line(s, (size_t)(nl - s), &l));
        char *end;
        long thread = strtol(l.message + 9, &end, 10);
        assert_int_equal(strtol(end + 5, NULL, 10), next[thread]);
        next[thread]++;
        s = nl + 1;
    }
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(next[i], messages);
    free(text);
    xlog_stats(&mid);
    assert_int_equal(mid.blocked, before.blocked); /* no caller waited */
    assert_true(mid.console_dropped > before.console_dropped);

    /* The reader stalls 5 s in all (2 s in the slower sanitizer builds). */
    double stall = test_scaled(10) < 10 ? 2.0 : 5.0;
    double left = stall_began + stall - monotonic_s();
    if (left > 0) {
        struct timespec pause = {(time_t)left, (long)((left - (double)(time_t)left) * 1e9)};
        nanosleep(&pause, NULL);
    }
    __atomic_store_n(&t.stalled, 0, __ATOMIC_RELEASE);

    /* Every line is either shown or announced as dropped. */
    const long total = THREADS * messages;
    for (int i = 0; __atomic_load_n(&t.shown, __ATOMIC_RELAXED) +
                            __atomic_load_n(&t.announced, __ATOMIC_RELAXED) <
                        total &&
                    !__atomic_load_n(&t.errors, __ATOMIC_RELAXED);
         i++) {
        if (i == 120000)
            fail_msg("the console showed %ld and announced %ld of %ld lines", t.shown,
                     t.announced, total);
        struct timespec pause = {0, 1000000};
        nanosleep(&pause, NULL);
    }
    assert_int_equal(xlog_close(), 0);
    close(slave);
    pthread_join(reader, NULL);
    close(t.master);
    xlog_stats(&after);
    if (t.errors)
        fail_msg("%d bad console lines, the first: %s", t.errors, t.first_error);
    assert_int_equal(after.console_dropped - before.console_dropped, (uint64_t)t.announced);
    assert_int_equal(t.shown + t.announced, total);
    assert_true(t.shown > 0);
    test_drop_dir(dir);
}

/* What a pipe or a terminal received after xlog_close: lines lines (a
 * terminal passes them on from a kernel worker, so they may need a moment),
 * then whatever else is already there. */
static char *drain(int fd, size_t lines)
{
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    char *out = malloc(65537);
    size_t len = 0;
    for (;;) {
        ssize_t n = read(fd, out + len, 65536 - len);
        if (n > 0) {
            len += (size_t)n;
            continue;
        }
        out[len] = '\0';
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (test_count_lines(out) >= lines || poll(&p, 1, 10000) <= 0)
            return out;
    }
}

/* Logs an INFO and a WARN line with console on fd; returns what fd's other
 * end (reader) received: lines lines are expected. */
static char *console_output(int fd, int reader, int level, xlog_color color, size_t lines)
{
    char *dir = test_make_dir("colour");
    xlog_config cfg = config_in(dir);
    cfg.console = fd;
    cfg.console_level = level;
    cfg.console_color = color;
    open_with(&cfg);
    xlog_info("plain %d", 1);
    xlog_warn("careful %d", 2);
    assert_int_equal(xlog_close(), 0);
    char *file = test_read_dir(dir, NULL);
    assert_int_equal(test_count_lines(file), 2); /* the files have every level */
    free(file);
    test_drop_dir(dir);
    return drain(reader, lines);
}

static void console_colour_and_level(void **state)
{
    (void)state;
    unsetenv("NO_COLOR");
    int master, slave;
    assert_int_equal(open_raw_pty(&master, &slave), 0);
    /* A terminal: colour for WARN, none for INFO. */
    char *out = console_output(slave, master, XLOG_TRACE, XLOG_COLOR_AUTO, 2);
    assert_int_equal(test_count_lines(out), 2);
    assert_null(strstr(out, "\x1b[2m"));
    assert_non_null(strstr(out, " plain 1\n"));
    assert_non_null(strstr(out, "\x1b[33m"));
    assert_non_null(strstr(out, " careful 2\x1b[0m\n"));
    free(out);
    /* NO_COLOR turns it off. */
    setenv("NO_COLOR", "1", 1);
    out = console_output(slave, master, XLOG_TRACE, XLOG_COLOR_AUTO, 2);
    assert_null(strchr(out, '\x1b'));
    assert_int_equal(test_count_lines(out), 2);
    free(out);
    unsetenv("NO_COLOR");
    close(slave);
    close(master);

    int p[2];
    assert_int_equal(pipe(p), 0);
    /* A pipe gets no colour unless asked, and only lines at console_level. */
    out = console_output(p[1], p[0], XLOG_WARN, XLOG_COLOR_AUTO, 1);
    assert_int_equal(test_count_lines(out), 1);
    assert_null(strchr(out, '\x1b'));
    assert_non_null(strstr(out, " [WARN] "));
    assert_non_null(strstr(out, " careful 2\n"));
    free(out);
    out = console_output(p[1], p[0], XLOG_WARN, XLOG_COLOR_ALWAYS, 1);
    assert_non_null(strstr(out, "\x1b[33m"));
    free(out);
    /* The application's descriptor kept its flags (xlog wrote through its
     * own). */
    assert_int_equal(fcntl(p[1], F_GETFL) & O_NONBLOCK, 0);
    close(p[0]);
    close(p[1]);
}

/* Lines a terminal's master side receives until its slave side is closed. */
static long lines_until_closed(int master)
{
    char buf[65536];
    long lines = 0;
    for (;;) {
        ssize_t n = read(master, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return lines; /* EIO: the slave side is closed and drained */
        for (ssize_t i = 0; i < n; i++)
            lines += buf[i] == '\n';
    }
}

/* xlog_close gives a terminal that never reads about a second, then counts
 * the lines it still held; a console that is gone has its lines counted as
 * they fail, and no notice of them follows (it would fail the same way). */
static void close_gives_up_on_a_console_that_never_reads_or_is_gone(void **state)
{
    (void)state;
    int master, slave;
    assert_int_equal(open_raw_pty(&master, &slave), 0);
    char *dir = test_make_dir("giveup");
    xlog_config cfg = config_in(dir);
    cfg.console = slave;
    xlog_counters before, after;
    xlog_stats(&before);
    open_with(&cfg);
    /* About 300 KB: more than a terminal holds, less than console_buffer
     * (so that no line is dropped before the close). */
    const long messages = 3000;
    log_sequence(0, messages);
    assert_int_equal(xlog_flush(), 0);
    double began = monotonic_s();
    assert_int_equal(xlog_close(), 0);
    double took = monotonic_s() - began;
    xlog_stats(&after);
    close(slave);
    long shown = lines_until_closed(master);
    close(master);
    uint64_t dropped = after.console_dropped - before.console_dropped;
    if (took < 0.9 || took > 3.0)
        fail_msg("xlog_close took %.3f s", took);
    assert_true(dropped > 0);
    assert_int_equal((uint64_t)shown + dropped, (uint64_t)messages);

    int p[2];
    assert_int_equal(pipe(p), 0);
    close(p[0]); /* writing gives EPIPE */
    cfg.console = p[1];
    xlog_stats(&before);
    open_with(&cfg);
    log_sequence(0, 100);
    assert_int_equal(xlog_flush(), 0);
    for (int i = 0;; i++) {
        xlog_stats(&after);
        if (after.console_dropped - before.console_dropped >= 100)
            break;
        if (i == 10000)
            fail_msg("%llu of 100 lines counted",
                     (unsigned long long)(after.console_dropped - before.console_dropped));
        struct timespec pause = {0, 1000000};
        nanosleep(&pause, NULL);
    }
    struct timespec pause = {0, 100000000}; /* many back-end passes */
    nanosleep(&pause, NULL);
    assert_int_equal(xlog_close(), 0);
    xlog_stats(&after);
    assert_int_equal(after.console_dropped - before.console_dropped, 100);
    close(p[1]);
    test_drop_dir(dir);
}


/* Every line of text, parsed, is "<first> 0" ... "<first> <first_count - 1>"
 * at INFO, then the same for then, and nothing else. */
static void expect_numbered_lines(const char *text, const char *first, long first_count,
                                  const char *then, long then_count)
{
    const char *at = text;
    for (long n = 0; n < first_count + then_count; n++) {
        const char *nl = strchr(at, '\n');
        test_line l;
        if (!nl || !test_parse_line(at, (size_t)(nl - at), &l))
            fail_msg("line %ld is missing or not a line: %.200s", n + 1, at);
        char want[64];
        snprintf(want, sizeof want, "%s %ld", n < first_count ? first : then,
                 n < first_count ? n : n - first_count);
        if (strcmp(l.level, "INFO") != 0 || l.message_len != strlen(want) ||
            memcmp(l.message, want, l.message_len) != 0)
            fail_msg("line %ld is '%.*s' at %s, not '%s' at INFO", n + 1, (int)l.message_len,
                     l.message, l.level, want);
        at = nl + 1;
    }
    if (*at)
        fail_msg("more lines than expected: %.200s", at);
}

typedef struct pipe_reader {
    int fd;
    int held;   /* atomic: do not read yet */
    char *text; /* what came through the pipe until every writer closed it */
    size_t length;
} pipe_reader;

static void *read_pipe(void *p)
{
    pipe_reader *r = p;
    while (__atomic_load_n(&r->held, __ATOMIC_ACQUIRE)) {
        struct timespec pause = {0, 1000000};
        nanosleep(&pause, NULL);
    }
    size_t capacity = 65536;
    r->text = malloc(capacity + 1);
    for (;;) {
        if (r->length == capacity)
            r->text = realloc(r->text, (capacity *= 2) + 1);
        ssize_t n = read(r->fd, r->text + r->length, capacity - r->length);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        r->length += (size_t)n;
    }
    r->text[r->length] = '\0';
    return NULL;
}

/* fork() while the console holds lines the parent's pipe has no room for:
 * the child's console (its descriptor now another pipe) has a writer of its
 * own and shows only the child's lines, never the parent's queued ones; the
 * parent's shows all of its own. */
static void forked_child_shows_only_its_own_console_lines(void **state)
{
    (void)state;
    SKIP_IF_SANITIZER_CANNOT_FORK();
    int p[2], q[2];
    assert_int_equal(pipe(p), 0);
    assert_int_equal(pipe(q), 0);
    pipe_reader parent_side = {.fd = p[0], .held = 1}, child_side = {.fd = q[0]};
    pthread_t thread;
    pthread_create(&thread, NULL, read_pipe, &parent_side);
    char *dir = test_make_dir("consolefork");
    xlog_config cfg = config_in(dir);
    cfg.console = p[1];
    open_with(&cfg);
    for (int i = 0; i < 2000; i++) /* about 180 KB: more than the pipe holds */
        xlog_info("parent before %d", i);
    assert_int_equal(xlog_flush(), 0);
    pid_t child = fork();
    if (child == 0) {
        dup2(q[1], p[1]);
        for (int i = 0; i < 10; i++)
            xlog_info("child %d", i);
        _exit(xlog_close() == 0 ? 0 : 1);
    }
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    close(q[1]);
    read_pipe(&child_side);
    __atomic_store_n(&parent_side.held, 0, __ATOMIC_RELEASE);
    for (int i = 0; i < 10; i++)
        xlog_info("parent after %d", i);
    assert_int_equal(xlog_close(), 0);
    close(p[1]);
    pthread_join(thread, NULL);
    close(p[0]);
    close(q[0]);
    expect_numbered_lines(child_side.text, "child", 10, NULL, 0);
    expect_numbered_lines(parent_side.text, "parent before", 2000, "parent after", 10);
    free(child_side.text);
    free(parent_side.text);
    test_drop_dir(dir);
}

/* ---- configuration ---------------------------------------------------------------- */

static void bad_output_settings_are_refused(void **state)
{
    (void)state;
    char *dir = test_make_dir("badcfg");
    xlog_config good = config_in(dir), cfg;
    cfg = good;
    cfg.rotate_size = 1000;
    assert_int_equal(xlog_open(&cfg), -EINVAL);
    cfg = good;
    cfg.rotate_keep = 0;
    assert_int_equal(xlog_open(&cfg), -EINVAL);
    cfg = good;
    cfg.compress = (xlog_compress)7;
    assert_int_equal(xlog_open(&cfg), -EINVAL);
    cfg = good;
    cfg.check_interval_ms = 0;
    assert_int_equal(xlog_open(&cfg), -EINVAL);
    cfg.check_interval_ms = 86400001;
    assert_int_equal(xlog_open(&cfg), -EINVAL);
    cfg = good;
    cfg.console = -1;
    assert_int_equal(xlog_open(&cfg), -EINVAL);
    cfg = good;
    cfg.console_level = 9;
    assert_int_equal(xlog_open(&cfg), -EINVAL);
    cfg = good;
    cfg.console_color = (xlog_color)5;
    assert_int_equal(xlog_open(&cfg), -EINVAL);
    cfg = good;
    cfg.console_buffer = 1000;
    assert_int_equal(xlog_open(&cfg), -EINVAL);
    cfg = good;
    cfg.console = 987; /* not an open descriptor */
    assert_int_equal(xlog_open(&cfg), -EINVAL);
    assert_int_equal(xlog_open(&good), 0); /* nothing was left half open */
    assert_int_equal(xlog_close(), 0);
    test_drop_dir(dir);
}

/* A failed check leaves its test early: do not leave xlog open for the next. */
static int close_if_open(void **state)
{
    (void)state;
    xlog_close();
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(size_rotation_keeps_exactly_rotate_keep_files, close_if_open),
        cmocka_unit_test_teardown(compressed_rotations_gunzip_to_the_original_bytes, close_if_open),
        cmocka_unit_test_teardown(compression_never_touches_the_live_file, close_if_open),
        cmocka_unit_test_teardown(forked_child_keeps_no_descriptor_of_rotated_files, close_if_open),
        cmocka_unit_test_teardown(rotate_size_holds_under_a_larger_write_buffer, close_if_open),
        cmocka_unit_test_teardown(daily_rotation_at_local_midnight_with_retention, close_if_open),
        cmocka_unit_test_teardown(prefixed_hourly_files_change_name_on_the_hour, close_if_open),
        cmocka_unit_test_teardown(hourly_files_of_local_time_per_thread_without_a_prefix,
                                  close_if_open),
        cmocka_unit_test_teardown(two_sets_of_files_rotate_and_compress_on_the_hour,
                                  close_if_open),
        cmocka_unit_test_teardown(a_bad_file_prefix_fails_xlog_open, close_if_open),
        cmocka_unit_test_teardown(reopen_from_a_signal_handler, close_if_open),
        cmocka_unit_test_teardown(rename_by_another_process_is_noticed, close_if_open),
        cmocka_unit_test_teardown(deleted_file_is_created_again, close_if_open),
        cmocka_unit_test_teardown(deleted_directory_is_created_again, close_if_open),
        cmocka_unit_test_teardown(writes_follow_the_name_without_waiting_for_the_check, close_if_open),
        cmocka_unit_test_teardown(loss_notices_add_up_to_lost, close_if_open),
        cmocka_unit_test_teardown(a_buffer_the_disk_refused_falls_due_at_its_retry_not_before,
                                  close_if_open),
        cmocka_unit_test_teardown(full_disk_loses_only_what_it_must_and_says_so, close_if_open),
        cmocka_unit_test_teardown(symlinked_directory_is_refused_without_follow_symlinks, close_if_open),
        cmocka_unit_test_teardown(symlinks_refused_when_asked, close_if_open),
        cmocka_unit_test_teardown(many_processes_share_one_rotating_file, close_if_open),
        cmocka_unit_test_teardown(processes_rotating_faster_than_compression_keep_the_newest_lines, close_if_open),
        cmocka_unit_test_teardown(per_process_files_carry_the_pid, close_if_open),
        cmocka_unit_test_teardown(stalled_terminal_never_holds_up_callers_or_files, close_if_open),
        cmocka_unit_test_teardown(console_colour_and_level, close_if_open),
        cmocka_unit_test_teardown(close_gives_up_on_a_console_that_never_reads_or_is_gone, close_if_open),
        cmocka_unit_test_teardown(forked_child_shows_only_its_own_console_lines, close_if_open),
        cmocka_unit_test_teardown(bad_output_settings_are_refused, close_if_open),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
