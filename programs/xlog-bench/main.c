/*
 * main.c - xlog-bench: measures common ways of logging to a file (the ones
 * the field notes on logging I/O that motivated xlog measured) side by side
 * with xlog, on the machine at hand, and prints them as one table (or JSON,
 * or an SVG chart).
 *
 * The flow: parse the options, calibrate the timer, make a fresh directory,
 * run the suite (suite.c) with a progress line on stderr, print the report,
 * clean up.  The exit status is 1 when a strategy lost or mangled lines, so
 * that `make run` and the tests notice.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fresh_process.h"
#include "options.h"
#include "progress.h"
#include "report.h"
#include "suite.h"

/* Makes the directory the strategies write under; sets *created when it is
 * ours to remove.  Returns 0 or -1 (with a message). */
static int prepare_directory(const bench_options *options, char *dir, size_t capacity,
                             int *created)
{
    *created = 0;
    if (options->dir != NULL) {
        snprintf(dir, capacity, "%s", options->dir);
        if (mkdir(dir, 0750) != 0 && errno != EEXIST) {
            fprintf(stderr, "xlog-bench: cannot create %s: %s\n", dir, strerror(errno));
            return -1;
        }
        return 0;
    }
    snprintf(dir, capacity, "/tmp/xlog-bench.XXXXXX");
    if (mkdtemp(dir) == NULL) {
        fprintf(stderr, "xlog-bench: cannot create a directory in /tmp: %s\n", strerror(errno));
        return -1;
    }
    *created = 1;
    return 0;
}

int main(int argc, char **argv)
{
    bench_options options;
    switch (parse_options(argc, argv, &options)) {
    case OPTIONS_RUN: break;
    case OPTIONS_DONE: return 0;
    case OPTIONS_ERROR: return 2;
    }
    if (options.child != NULL)
        return fresh_process_main(&options);
    char dir[PATH_MAX];
    int created;
    if (prepare_directory(&options, dir, sizeof dir, &created) != 0)
        return 2;

    timing_calibrate(200);
    progress_start(options.progress);
    bench_row *rows;
    int count = suite_run(&options, dir, &rows);
    progress_stop();
    if (count < 0) {
        fprintf(stderr, "xlog-bench: %s\n", strerror(-count));
        return 2;
    }
    if (options.keep_files)
        fprintf(stderr, "xlog-bench: log files kept in %s\n", dir);
    else if (created)
        rmdir(dir);

    if (options.json)
        report_json(stdout, &options, rows, count);
    else
        report_table(stdout, &options, rows, count);
    int status = 0;
    if (options.chart_path != NULL) {
        int rc = report_svg(options.chart_path, rows, count);
        if (rc != 0) {
            fprintf(stderr, "xlog-bench: cannot write %s: %s\n", options.chart_path,
                    strerror(-rc));
            status = 2;
        }
    }
    for (int i = 0; i < count; i++) {
        if (rows[i].available && rows[i].lines_ok == 0) {
            fprintf(stderr, "xlog-bench: %s: the files hold %llu lines (%llu malformed) for "
                            "%llu messages sent\n",
                    rows[i].name, (unsigned long long)rows[i].census.lines,
                    (unsigned long long)rows[i].census.malformed,
                    (unsigned long long)rows[i].messages_sent);
            if (status == 0)
                status = 1;
        }
    }
    free(rows);
    return status;
}
