/*
 * test_shm_full.c - a persistent directory without room never crashes the
 * program (docs/RELIABILITY.md, "Survival").
 *
 * The rings and file buffers of cfg.persistent are files in shared memory;
 * a page of such a file written when the file system has no room for it is
 * answered with SIGBUS.  Here persistent_dir is a small tmpfs mounted in the
 * test's own directory, and a child logs far more than it holds: the child
 * must end normally, every line whose call returned must be in the log file
 * exactly once (or, with XLOG_FULL_DROP, be counted as dropped), the bytes
 * written must be those in the file, and xlog_stats must say what went to
 * ordinary memory (not_persistent).  Counts and bytes only, never timing.
 *
 * Mounting needs root: without it (or without tmpfs) each case says why
 * and is skipped.  The teardown unmounts whatever a case mounted, also when
 * a check failed in the middle of it.
 */
#include "testutil.h"

#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <cmocka.h>

#include <xlog.h>

#define MAX_WRITERS 16
#define PAYLOAD 40

/* ---- the case's directories ------------------------------------------------- */

static struct place {
    char *base;             /* the case's directory */
    char logs[PATH_MAX];    /* <base>/logs */
    char mount[PATH_MAX];   /* <base>/shm, a small tmpfs while mounted */
    char shm[PATH_MAX + 8]; /* <mount>/p: persistent_dir */
    int mounted;
} place;

/* Makes the directories and mounts a tmpfs of size bytes; 0, or -1 when it
 * cannot be mounted (the case is then skipped). */
static int place_make(const char *size)
{
    place.base = test_make_dir("shmfull");
    snprintf(place.logs, sizeof place.logs, "%s/logs", place.base);
    snprintf(place.mount, sizeof place.mount, "%s/shm", place.base);
    snprintf(place.shm, sizeof place.shm, "%s/p", place.mount);
    assert_int_equal(mkdir(place.logs, 0750), 0);
    assert_int_equal(mkdir(place.mount, 0700), 0);
    char options[64];
    snprintf(options, sizeof options, "size=%s,mode=0700", size);
    if (mount("tmpfs", place.mount, "tmpfs", 0, options) != 0) {
        print_message("cannot mount a tmpfs at %s (%s): skipped (it needs root)\n", place.mount,
                      strerror(errno));
        return -1;
    }
    place.mounted = 1;
    return 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

/* Every case's teardown, whether its checks passed or not. */
static int place_remove(void **state)
{
    (void)state;
    if (place.mounted && umount2(place.mount, MNT_DETACH) != 0)
        print_message("cannot unmount %s: %s\n", place.mount, strerror(errno));
    place.mounted = 0;
    if (place.base) {
        nftw(place.base, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
        free(place.base);
        place.base = NULL;
    }
    return 0;
}

static int exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* ---- the child ------------------------------------------------------------------ */

typedef struct run {
    int writers;           /* threads at once */
    int waves;             /* of them, one after the other (later waves take
                              pooled rings, whose pages were given back) */
    long lines;            /* per thread */
    size_t write_buffer;
    xlog_full_policy policy;
} run;

/* Shared with the child: what it did and what xlog said. */
typedef struct shared_page {
    long returned[MAX_WRITERS * 4]; /* atomic: calls of each writer that returned */
    xlog_counters stats;            /* after the last xlog_flush */
    int rings_in_files;             /* ring.* and file.* files while open */
    int buffers_in_files;
    int opened;
} shared_page;

static shared_page *page;
static const run *the_run;

/* Writer w's line seq has this payload: its bytes can be checked. */
static void payload(int w, long seq, char *out)
{
    for (int i = 0; i < PAYLOAD; i++)
        out[i] = (char)('a' + (w * 7 + seq + i) % 26);
    out[PAYLOAD] = '\0';
}

static void *writer(void *arg)
{
    int w = (int)(intptr_t)arg;
    char text[PAYLOAD + 1];
    for (long seq = 0; seq < the_run->lines; seq++) {
        payload(w, seq, text);
        xlog_info("writer %d seq %ld %s", w, seq, text);
        __atomic_store_n(&page->returned[w], seq + 1, __ATOMIC_RELEASE);
    }
    return NULL;
}

/* The files of the process's directory (<shm>/<key>/<pid>.<start>/). */
static void count_files(void)
{
    char key[PATH_MAX + 300];
    DIR *base = opendir(place.shm);
    struct dirent *k, *d, *f;
    while (base && (k = readdir(base))) {
        if (k->d_name[0] == '.')
            continue;
        snprintf(key, sizeof key, "%s/%s", place.shm, k->d_name);
        DIR *kd = opendir(key);
        while (kd && (d = readdir(kd))) {
            if (d->d_name[0] == '.')
                continue;
            char proc[PATH_MAX + 600];
            snprintf(proc, sizeof proc, "%s/%s", key, d->d_name);
            DIR *pd = opendir(proc);
            while (pd && (f = readdir(pd))) {
                page->rings_in_files += strncmp(f->d_name, "ring.", 5) == 0;
                page->buffers_in_files += strncmp(f->d_name, "file.", 5) == 0;
            }
            if (pd)
                closedir(pd);
        }
        if (kd)
            closedir(kd);
    }
    if (base)
        closedir(base);
}

static void child(const run *r)
{
    the_run = r;
    /* cmocka catches these in a test; the child must die of them, visibly. */
    signal(SIGBUS, SIG_DFL);
    signal(SIGSEGV, SIG_DFL);
    xlog_config cfg = xlog_defaults();
    cfg.dir = place.logs;
    cfg.persistent_dir = place.shm;
    cfg.full_policy = r->policy;
    cfg.write_buffer = r->write_buffer;
    cfg.crash_handlers = 0; /* a SIGBUS must end the child as it would end a program */
    if (xlog_open(&cfg) != 0)
        _exit(90);
    page->opened = 1;
    for (int wave = 0; wave < r->waves; wave++) {
        pthread_t t[MAX_WRITERS];
        for (int i = 0; i < r->writers; i++)
            if (pthread_create(&t[i], NULL, writer, (void *)(intptr_t)(wave * r->writers + i)))
                _exit(91);
        for (int i = 0; i < r->writers; i++)
            pthread_join(t[i], NULL);
        if (wave == 0)
            count_files(); /* the rings of ended threads keep their files in the pool */
    }
    if (xlog_flush() != 0)
        _exit(92);
    xlog_stats(&page->stats);
    xlog_close();
    _exit(0);
}

/* Runs the child and checks its log: each writer's lines in order, none
 * twice, each intact; with XLOG_FULL_BLOCK all of them, with
 * XLOG_FULL_DROP those missing counted as dropped. */
static void run_and_check(const run *r)
{
    page = mmap(NULL, sizeof *page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    assert_true(page != MAP_FAILED);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        child(r);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (WIFSIGNALED(status))
        fail_msg("the child died of signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    assert_int_equal(WEXITSTATUS(status), 0);

    int writers = r->writers * r->waves;
    long next[MAX_WRITERS * 4] = {0}, present = 0;
    size_t length = 0;
    char *text = test_read_dir(place.logs, &length);
    assert_non_null(text);
    for (char *s = text, *nl; (nl = strchr(s, '\n')); s = nl + 1) {
        test_line l;
        if (!test_parse_line(s, (size_t)(nl - s), &l))
            fail_msg("a line that does not parse: %.*s", (int)(nl - s), s);
        char msg[256], want[PAYLOAD + 1], got[PAYLOAD + 1];
        int w;
        long seq;
        test_message(&l, msg, sizeof msg);
        if (strcmp(l.level, "WARN") == 0 && strstr(l.where, "xlog:0"))
            continue; /* xlog's own notices (drops) */
        if (sscanf(msg, "writer %d seq %ld %40s", &w, &seq, got) != 3 || w < 0 || w >= writers)
            fail_msg("a line not logged by a writer: %s", msg);
        payload(w, seq, want);
        if (strcmp(got, want) != 0)
            fail_msg("writer %d seq %ld: payload %s", w, seq, got);
        if (r->policy == XLOG_FULL_BLOCK ? seq != next[w] : seq < next[w])
            fail_msg("writer %d: seq %ld where %ld was due", w, seq, next[w]);
        next[w] = seq + 1;
        present++;
    }
    xlog_counters *st = &page->stats;
    for (int w = 0; w < writers; w++)
        if (__atomic_load_n(&page->returned[w], __ATOMIC_ACQUIRE) != r->lines)
            fail_msg("writer %d: %ld calls returned", w, page->returned[w]);
    long total = (long)writers * r->lines;
    if (r->policy == XLOG_FULL_BLOCK && (present != total || st->dropped != 0))
        fail_msg("%ld of %ld lines, %llu dropped", present, total,
                 (unsigned long long)st->dropped);
    if (present + (long)st->dropped_full != total || st->dropped != st->dropped_full)
        fail_msg("%ld lines written + %llu dropped (full) != %ld logged (%llu dropped in all)",
                 present, (unsigned long long)st->dropped_full, total,
                 (unsigned long long)st->dropped);
    if (st->bytes != length || st->lost != 0 || st->write_errors != 0)
        fail_msg("%llu bytes written, %zu in the files, %llu lost, %llu write errors",
                 (unsigned long long)st->bytes, length, (unsigned long long)st->lost,
                 (unsigned long long)st->write_errors);
    free(text);
    /* xlog_close removed its files, and the directories it made. */
    if (exists(place.shm))
        fail_msg("%s is left", place.shm);
}

/* ---- the cases -------------------------------------------------------------------- */

/* A 512 KiB tmpfs: the process file and the file buffer (256 KiB) take most
 * of it; sixteen threads in two waves (the second takes pooled rings, whose
 * pages were given back) log far more than it holds into 1 MiB rings, which
 * cannot be reserved there (ordinary memory, counted).  Once as
 * XLOG_FULL_BLOCK (every line), once as XLOG_FULL_DROP. */
static void a_full_persistent_dir_never_crashes_the_program(void **state)
{
    (void)state;
    xlog_full_policy policies[] = {XLOG_FULL_BLOCK, XLOG_FULL_DROP};
    for (size_t i = 0; i < 2; i++) {
        if (place_make("512k") != 0)
            skip();
        run r = {.writers = 8, .waves = 2, .lines = test_scaled(40000),
                 .write_buffer = 256 * 1024, .policy = policies[i]};
        run_and_check(&r);
        if (page->stats.not_persistent == 0)
            fail_msg("every ring and buffer found room: the case shows nothing");
        print_message("%s: %llu rings or buffers in ordinary memory, %llu lines dropped\n",
                      i ? "drop" : "block", (unsigned long long)page->stats.not_persistent,
                      (unsigned long long)page->stats.dropped);
        munmap(page, sizeof *page);
        place_remove(NULL);
    }
}

/* A file buffer larger than the tmpfs cannot be reserved: it goes to
 * ordinary memory (counted), the rings (1 MiB each) stay in files, and
 * every line is written. */
static void a_file_buffer_without_room_goes_to_ordinary_memory(void **state)
{
    (void)state;
    if (place_make("4m") != 0)
        skip();
    run r = {.writers = 2, .waves = 1, .lines = test_scaled(20000),
             .write_buffer = 8 * 1024 * 1024, .policy = XLOG_FULL_BLOCK};
    run_and_check(&r);
    if (page->stats.not_persistent != 1 || page->buffers_in_files != 0 ||
        page->rings_in_files < 1)
        fail_msg("%llu in ordinary memory; %d buffers and %d rings in files",
                 (unsigned long long)page->stats.not_persistent, page->buffers_in_files,
                 page->rings_in_files);
    munmap(page, sizeof *page);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(a_full_persistent_dir_never_crashes_the_program, place_remove),
        cmocka_unit_test_teardown(a_file_buffer_without_room_goes_to_ordinary_memory,
                                  place_remove),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
