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
 * ordinary memory (not_persistent) and which laps could not grow
 * (laps_not_grown).  And a ring takes from the tmpfs only the pages of the
 * laps its thread has used.  Counts and bytes only, never timing.
 *
 * Mounting needs root: without it (or without tmpfs) each case says why
 * and is skipped.  The teardown unmounts whatever a case mounted, also when
 * a check failed in the middle of it.
 */
#include "testutil.h"

#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <cmocka.h>

#include <xlog.h>

#define MAX_WRITERS 64
#define PAYLOAD 40
/* Ring files the back end keeps ready for new threads beside those of the
 * threads (SPARES, lib/rings/rings.c, "Spares"), each with its first laps
 * reserved. */
#define SPARE_RINGS 4

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

/* Every case's teardown, whether its checks passed or not. */
static int place_remove(void **state)
{
    (void)state;
    if (place.mounted && umount2(place.mount, MNT_DETACH) != 0)
        print_message("cannot unmount %s: %s\n", place.mount, strerror(errno));
    place.mounted = 0;
    if (place.base) {
        test_remove_tree(place.base);
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
    int hold;              /* the writers stay alive while their rings are
                              measured (ring_bytes_most, shm_used) */
} run;

/* Shared with the child: what it did and what xlog said. */
typedef struct shared_page {
    long returned[MAX_WRITERS]; /* atomic: calls of each writer that returned */
    xlog_counters stats;        /* after the last xlog_flush */
    int rings_in_files;         /* ring.* and file.* files while open */
    int buffers_in_files;
    long long ring_bytes_most;  /* the most tmpfs bytes one ring file takes */
    long long shm_used;         /* bytes the tmpfs has in use */
    int opened;
} shared_page;

static shared_page *page;
static const run *the_run;
static pthread_barrier_t logged, measured; /* with run.hold */

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
    if (the_run->hold) {
        pthread_barrier_wait(&logged);
        pthread_barrier_wait(&measured);
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
            struct stat st;
            while (pd && (f = readdir(pd))) {
                int ring = strncmp(f->d_name, "ring.", 5) == 0;
                page->rings_in_files += ring;
                page->buffers_in_files += strncmp(f->d_name, "file.", 5) == 0;
                if (ring && fstatat(dirfd(pd), f->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                    (long long)st.st_blocks * 512 > page->ring_bytes_most)
                    page->ring_bytes_most = (long long)st.st_blocks * 512;
            }
            if (pd)
                closedir(pd);
        }
        if (kd)
            closedir(kd);
    }
    if (base)
        closedir(base);
    struct statvfs vfs;
    if (statvfs(place.mount, &vfs) == 0)
        page->shm_used = (long long)(vfs.f_blocks - vfs.f_bfree) * (long long)vfs.f_frsize;
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
    if (r->hold) {
        pthread_barrier_init(&logged, NULL, (unsigned)r->writers + 1);
        pthread_barrier_init(&measured, NULL, (unsigned)r->writers + 1);
    }
    for (int wave = 0; wave < r->waves; wave++) {
        pthread_t t[MAX_WRITERS];
        for (int i = 0; i < r->writers; i++)
            if (pthread_create(&t[i], NULL, writer, (void *)(intptr_t)(wave * r->writers + i)))
                _exit(91);
        if (r->hold) {
            /* Every ring still its thread's, written out, and the back end
             * past it (it populates ahead at its passes). */
            pthread_barrier_wait(&logged);
            if (xlog_flush() != 0 || xlog_flush() != 0)
                _exit(93);
            count_files();
            pthread_barrier_wait(&measured);
        }
        for (int i = 0; i < r->writers; i++)
            pthread_join(t[i], NULL);
        if (wave == 0 && !r->hold)
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
    long next[MAX_WRITERS] = {0}, present = 0;
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
 * cannot be reserved there (ordinary memory, counted), or whose laps
 * cannot grow there (counted).  Once as XLOG_FULL_BLOCK (every line), once
 * as XLOG_FULL_DROP. */
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
        print_message("%s: %llu rings or buffers in ordinary memory, %llu laps not grown, "
                      "%llu lines dropped\n",
                      i ? "drop" : "block", (unsigned long long)page->stats.not_persistent,
                      (unsigned long long)page->stats.laps_not_grown,
                      (unsigned long long)page->stats.dropped);
        /* The full directory shows as rings or buffers in ordinary memory,
         * or as laps that could not grow: with XLOG_FULL_DROP the rings stay
         * small, and the fewer go to ordinary memory the more laps stay
         * short (eight ASan runs: from 15 rings and 1 lap to 0 rings and
         * 17 laps; 0 rings failed the check when it counted rings only). */
        if (page->stats.not_persistent + page->stats.laps_not_grown == 0)
            fail_msg("every ring, buffer and lap found room: the case shows nothing");
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

/* Sixty-four threads each log a few short lines into 1 MiB rings, in a
 * tmpfs with room for only a few rings were they reserved whole: each ring
 * takes the pages of its first laps alone (its header page, and twice the
 * first lap and the page after it, see lib/rings/rings.c, "Room"), all of
 * them are in files (with the back end's spares), and the tmpfs holds far
 * less than 64 rings. */
static void a_rings_memory_follows_what_its_thread_logged(void **state)
{
    (void)state;
    if (place_make("8m") != 0)
        skip();
    run r = {.writers = 64, .waves = 1, .lines = 5, .write_buffer = 256 * 1024,
             .policy = XLOG_FULL_BLOCK, .hold = 1};
    run_and_check(&r);
    long long page_bytes = sysconf(_SC_PAGESIZE);
    long long most = page_bytes + 2 * 16 * 1024 + page_bytes;
    print_message("%d rings in files, the largest %lld bytes; the tmpfs %lld bytes in use\n",
                  page->rings_in_files, page->ring_bytes_most, page->shm_used);
    if (page->stats.not_persistent != 0 || page->rings_in_files < 64 ||
        page->rings_in_files > 64 + SPARE_RINGS)
        fail_msg("%d rings in files, %llu in ordinary memory", page->rings_in_files,
                 (unsigned long long)page->stats.not_persistent);
    if (page->ring_bytes_most > most)
        fail_msg("a ring takes %lld bytes of the tmpfs (at most %lld)", page->ring_bytes_most, most);
    if (page->shm_used > (64 + SPARE_RINGS) * most + 512 * 1024)
        fail_msg("the tmpfs has %lld bytes in use", page->shm_used);
    munmap(page, sizeof *page);
}

/* One thread bursts in a tmpfs with room for its ring's first laps (and
 * the back end's spare rings') and not much more: its laps cannot grow as
 * far as the burst would make them (counted), the ring stays in its file,
 * nothing crashes, and every line is written (XLOG_FULL_BLOCK) or counted
 * dropped (XLOG_FULL_DROP). */
static void a_burst_without_room_for_longer_laps_stays_in_its_lap(void **state)
{
    (void)state;
    xlog_full_policy policies[] = {XLOG_FULL_BLOCK, XLOG_FULL_DROP};
    for (size_t i = 0; i < 2; i++) {
        if (place_make("608k") != 0) /* 448 KiB, and 40 KiB for each spare ring */
            skip();
        run r = {.writers = 1, .waves = 1, .lines = test_scaled(200000),
                 .write_buffer = 64 * 1024, .policy = policies[i]};
        run_and_check(&r);
        print_message("%s: %llu laps not grown, %llu calls waited, %llu lines dropped\n",
                      i ? "drop" : "block", (unsigned long long)page->stats.laps_not_grown,
                      (unsigned long long)page->stats.blocked,
                      (unsigned long long)page->stats.dropped);
        if (page->stats.not_persistent != 0 || page->rings_in_files < 1 ||
            page->rings_in_files > 1 + SPARE_RINGS)
            fail_msg("%d rings in files, %llu in ordinary memory", page->rings_in_files,
                     (unsigned long long)page->stats.not_persistent);
        if (page->stats.laps_not_grown == 0)
            fail_msg("every lap found room: the case shows nothing");
        munmap(page, sizeof *page);
        place_remove(NULL);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(a_full_persistent_dir_never_crashes_the_program, place_remove),
        cmocka_unit_test_teardown(a_file_buffer_without_room_goes_to_ordinary_memory,
                                  place_remove),
        cmocka_unit_test_teardown(a_rings_memory_follows_what_its_thread_logged, place_remove),
        cmocka_unit_test_teardown(a_burst_without_room_for_longer_laps_stays_in_its_lap,
                                  place_remove),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
