/*
 * fresh_process.c - the re-executed xlog-bench described in fresh_process.h:
 * the parent's side (start it, read its row) and the child's (look up what
 * to run, run it, send the row back through a pipe).
 */
#include "fresh_process.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "progress.h"
#include "strategies.h"
#include "workload.h"

typedef struct fresh_process_child {
    const char *name;
    row_kind kind;
    void (*run)(const bench_options *options, const char *dir, bench_row *row);
} fresh_process_child;

static const fresh_process_child children[] = {
    {"burst", ROW_THROUGHPUT, xlog_burst_process},
    {"live-threads", ROW_THREADS, xlog_live_threads_process},
    {"live-threads-off", ROW_THREADS, xlog_live_threads_off_process},
    {"short-threads", ROW_THREADS, xlog_short_threads_process},
};

#define CHILD_COUNT (sizeof children / sizeof children[0])

/* Reads the child's row; returns 0 when all of it arrived. */
static int read_child_row(int fd, bench_row *child_row)
{
    char *data = (char *)child_row;
    size_t got = 0;
    while (got < sizeof *child_row) {
        ssize_t n = read(fd, data + got, sizeof *child_row - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        got += (size_t)n;
    }
    return 0;
}

void run_in_fresh_process(const char *child, const bench_options *options, const char *dir,
                          bench_row *row)
{
    int result_pipe[2];
    if (pipe(result_pipe) != 0) {
        snprintf(row->note, sizeof row->note, "pipe: %s", strerror(errno));
        return;
    }
    /* Every figure any child reads, so that a child sees the run's options. */
    char fd_text[16], burst[32], live[16], short_threads[16], lines[16], pairs[16];
    snprintf(fd_text, sizeof fd_text, "%d", result_pipe[1]);
    snprintf(burst, sizeof burst, "%" PRIu64, options->burst_messages);
    snprintf(live, sizeof live, "%d", options->live_threads);
    snprintf(short_threads, sizeof short_threads, "%d", options->short_threads);
    snprintf(lines, sizeof lines, "%d", options->thread_lines);
    snprintf(pairs, sizeof pairs, "%d", options->thread_pairs);
    char *const argv[] = {
        "xlog-bench", "--child", (char *)child, "--result-fd", fd_text, "--dir", (char *)dir,
        "--burst-messages", burst, "--live-threads", live, "--short-threads", short_threads,
        "--thread-lines", lines, "--thread-pairs", pairs, "--no-progress", NULL,
    };
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(result_pipe[0]);
        execv("/proc/self/exe", argv);
        _exit(127);
    }
    close(result_pipe[1]);
    bench_row child_row;
    int received = pid >= 0 && read_child_row(result_pipe[0], &child_row) == 0;
    close(result_pipe[0]);
    int status = 0;
    if (pid >= 0)
        waitpid(pid, &status, 0);
    if (!received) {
        snprintf(row->note, sizeof row->note, "%s process failed (status %d)", child, status);
        return;
    }
    bench_row parent_row = *row;
    *row = child_row;
    memcpy(row->name, parent_row.name, sizeof row->name);
    memcpy(row->label, parent_row.label, sizeof row->label);
    memcpy(row->source, parent_row.source, sizeof row->source);
}

int fresh_process_main(const bench_options *options)
{
    const fresh_process_child *child = NULL;
    for (size_t i = 0; i < CHILD_COUNT && child == NULL; i++)
        if (strcmp(children[i].name, options->child) == 0)
            child = &children[i];
    if (child == NULL || options->dir == NULL) {
        fprintf(stderr, "xlog-bench: no fresh-process row '%s'\n", options->child);
        return 2;
    }
    bench_row row;
    bench_row_init(&row, child->name, "", "", child->kind);
    timing_calibrate(50);
    progress_start(0);
    child->run(options, options->dir, &row);
    if (write_all(options->result_fd, &row, sizeof row) != 0)
        return 1;
    return row.available ? 0 : 1;
}
