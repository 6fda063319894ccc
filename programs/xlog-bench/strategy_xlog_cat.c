/*
 * strategy_xlog_cat.c - xlog-cat, the reader of binary log files, turning
 * them into the text layout's lines (to /dev/null: the decoding and the
 * rendering, not a terminal's speed):
 *
 *   xlog-cat-one    the file of one thread's lines, back to back, as the
 *                   xlog-binary-throughput row writes it;
 *   xlog-cat-merge  the same number of lines from 8 threads, one file each
 *                   (XLOG_FILE_PER_THREAD), merged by time.
 *
 * The time is the xlog-cat process's, from its start until it exited; the
 * files are written before, untimed.  xlog-cat is the program next to
 * xlog-bench (the same bin/ when installed, programs/xlog-cat/ in the build
 * tree), or the one the environment variable XLOG_CAT names.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <xlog.h>

#include "progress.h"
#include "strategies.h"

#define MERGED_FILES 8

extern char **environ;

/* Where xlog-cat is, into path; 0, or -1 when it is nowhere to be found. */
static int find_xlog_cat(char *path, size_t size)
{
    const char *given = getenv("XLOG_CAT");
    if (given != NULL && *given != '\0') {
        snprintf(path, size, "%s", given);
        return access(path, X_OK) == 0 ? 0 : -1;
    }
    char self[PATH_MAX];
    ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
    if (length <= 0)
        return -1;
    self[length] = '\0';
    char *slash = strrchr(self, '/');
    if (slash == NULL)
        return -1;
    *slash = '\0';
    static const char *const beside[] = {"/xlog-cat", "/../xlog-cat/xlog-cat"};
    for (size_t i = 0; i < sizeof beside / sizeof beside[0]; i++) {
        int length_of_path = snprintf(path, size, "%s%s", self, beside[i]);
        if (length_of_path > 0 && (size_t)length_of_path < size && access(path, X_OK) == 0)
            return 0;
    }
    return -1;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs xlog-cat on every regular file of dir (in the order of their names),
 * its output to /dev/null, and fills the row's time and rate for `lines`.
 * Returns 0, or -1 with row->note set. */
static int time_xlog_cat(const char *dir, uint64_t lines, bench_row *row)
{
    char program[PATH_MAX];
    if (find_xlog_cat(program, sizeof program) != 0) {
        snprintf(row->note, sizeof row->note, "xlog-cat not found (set XLOG_CAT)");
        return -1;
    }
    char *argv[MERGED_FILES + 2] = {program};
    int files = 0;
    DIR *listing = opendir(dir);
    if (listing == NULL) {
        snprintf(row->note, sizeof row->note, "opendir: %s", strerror(errno));
        return -1;
    }
    int too_many = 0, out_of_memory = 0;
    for (struct dirent *entry; (entry = readdir(listing)) != NULL;) {
        if (entry->d_name[0] == '.')
            continue;
        if (files == MERGED_FILES) {
            too_many = 1; /* more files than any row writes */
            break;
        }
        if (asprintf(&argv[1 + files], "%s/%s", dir, entry->d_name) < 0) {
            argv[1 + files] = NULL;
            out_of_memory = 1;
            break;
        }
        files++;
    }
    closedir(listing);
    int rc = -1;
    if (out_of_memory) {
        snprintf(row->note, sizeof row->note, "asprintf: out of memory");
        goto done;
    }
    if (files == 0 || too_many) {
        snprintf(row->note, sizeof row->note, "%s files in the directory",
                 too_many ? "too many" : "no");
        goto done;
    }
    qsort(argv + 1, (size_t)files, sizeof argv[1], by_name);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    uint64_t started = bench_ticks();
    pid_t child;
    int spawned = posix_spawn(&child, program, &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0) {
        snprintf(row->note, sizeof row->note, "posix_spawn: %s", strerror(spawned));
        goto done;
    }
    int status;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    uint64_t finished = bench_ticks();
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        snprintf(row->note, sizeof row->note, "xlog-cat failed (status %d)", status);
        goto done;
    }
    row->seconds = ticks_to_ns(finished - started) * 1e-9;
    row->messages_per_s = (double)lines / row->seconds;
    rc = 0;
done:
    for (int i = 1; i <= files; i++)
        free(argv[i]);
    return rc;
}

/* The row's figures once its files are written and read. */
static void finish_row(const char *dir, uint64_t lines, int workers, bench_row *row)
{
    row->line_shape = LINE_BINARY;
    row->throughput_messages = lines;
    row->messages_sent = lines;
    row->workers = workers;
    row->bytes_written = (int64_t)directory_bytes(dir);
    if (time_xlog_cat(dir, lines, row) == 0)
        row->available = 1;
}

void run_xlog_cat_one(const bench_options *options, const char *dir, bench_row *row)
{
    xlog_config config = bench_xlog_config(dir, XLOG_FILE_SHARED);
    config.file_layout = XLOG_LAYOUT_BINARY;
    bench_row writing;
    bench_row_init(&writing, row->name, row->label, row->source, row->kind);
    int rc = measure_back_to_back(&config, options->throughput_messages, NULL, NULL, &writing);
    if (rc != 0) {
        snprintf(row->note, sizeof row->note, "xlog_open: %s", xlog_strerror(rc));
        return;
    }
    finish_row(dir, options->throughput_messages, 1, row);
}

typedef struct merge_writer {
    uint64_t first, count;
} merge_writer;

static void *write_share(void *arg)
{
    const merge_writer *share = arg;
    for (uint64_t i = share->first; i < share->first + share->count; i++)
        xlog_info(NUMBERS_FORMAT, NUMBERS_ARGS(i));
    progress_add(share->count);
    return NULL;
}

void run_xlog_cat_merge(const bench_options *options, const char *dir, bench_row *row)
{
    xlog_config config = bench_xlog_config(dir, XLOG_FILE_PER_THREAD);
    config.file_layout = XLOG_LAYOUT_BINARY;
    int rc = bench_xlog_open(&config);
    if (rc != 0) {
        snprintf(row->note, sizeof row->note, "xlog_open: %s", xlog_strerror(rc));
        return;
    }
    uint64_t share = options->throughput_messages / MERGED_FILES;
    merge_writer shares[MERGED_FILES];
    pthread_t threads[MERGED_FILES];
    int started = 0;
    for (; started < MERGED_FILES; started++) {
        shares[started] = (merge_writer){.first = (uint64_t)started * share, .count = share};
        if (pthread_create(&threads[started], NULL, write_share, &shares[started]) != 0)
            break;
    }
    for (int i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    bench_row writing;
    bench_row_init(&writing, row->name, row->label, row->source, row->kind);
    bench_xlog_close(&writing);
    if (started < MERGED_FILES) {
        snprintf(row->note, sizeof row->note, "pthread_create failed");
        return;
    }
    finish_row(dir, share * MERGED_FILES, MERGED_FILES, row);
}
