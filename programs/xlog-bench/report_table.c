/*
 * report_table.c - the human-readable report: what machine and settings, the
 * main table (one row per strategy), the back-end/memory table, what the
 * syslog rows' collector received, the threads and terminal tables, then
 * xlog against each strategy as ratios of this run's figures, and what
 * xlog's own rows show.
 *
 * Tables are Markdown so that the output of `make run` can be pasted into
 * README as it is; columns are padded so that it also reads well on a
 * terminal.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "report.h"

#define MAX_COLUMNS 13
#define CELL_SIZE 64

typedef char table_line[MAX_COLUMNS][CELL_SIZE];

typedef struct text_table {
    int columns;
    const char *const *headers;
    const char *alignment; /* one 'l' or 'r' per column */
    int lines;
    table_line *cells;
} text_table;

static void print_table(FILE *out, const text_table *table)
{
    size_t width[MAX_COLUMNS];
    for (int c = 0; c < table->columns; c++) {
        width[c] = strlen(table->headers[c]);
        for (int r = 0; r < table->lines; r++) {
            size_t length = strlen(table->cells[r][c]);
            if (length > width[c])
                width[c] = length;
        }
    }
    for (int c = 0; c < table->columns; c++)
        fprintf(out, "| %-*s ", (int)width[c], table->headers[c]);
    fprintf(out, "|\n");
    for (int c = 0; c < table->columns; c++) {
        fputs("|", out);
        for (size_t i = 0; i < width[c] + 2; i++)
            fputc(i == width[c] + 1 && table->alignment[c] == 'r' ? ':' : '-', out);
    }
    fprintf(out, "|\n");
    for (int r = 0; r < table->lines; r++) {
        for (int c = 0; c < table->columns; c++) {
            if (table->alignment[c] == 'r')
                fprintf(out, "| %*s ", (int)width[c], table->cells[r][c]);
            else
                fprintf(out, "| %-*s ", (int)width[c], table->cells[r][c]);
        }
        fprintf(out, "|\n");
    }
}

/* ---- cell formats -------------------------------------------------------- */

/* 1234567 -> "1,234,567" */
static void format_grouped(char *cell, uint64_t value)
{
    char digits[32];
    int length = snprintf(digits, sizeof digits, "%" PRIu64, value);
    int out = 0;
    for (int i = 0; i < length; i++) {
        if (i > 0 && (length - i) % 3 == 0)
            cell[out++] = ',';
        cell[out++] = digits[i];
    }
    cell[out] = '\0';
}

static void format_count(char *cell, int64_t value)
{
    if (value < 0)
        strcpy(cell, "-");
    else
        format_grouped(cell, (uint64_t)value);
}

static void format_ns(char *cell, double ns)
{
    if (ns < 0)
        strcpy(cell, "-");
    else if (ns < 100)
        snprintf(cell, CELL_SIZE, "%.1f", ns);
    else
        format_grouped(cell, (uint64_t)llround(ns));
}

static void format_fixed(char *cell, double value, int decimals)
{
    if (value < 0)
        strcpy(cell, "-");
    else
        snprintf(cell, CELL_SIZE, "%.*f", decimals, value);
}

static void format_lines_ok(char *cell, const bench_row *row)
{
    if (row->lines_ok < 0)
        strcpy(cell, "-");
    else if (row->lines_ok)
        strcpy(cell, "yes");
    else
        snprintf(cell, CELL_SIZE, "NO: %" PRIu64 "/%" PRIu64 ", %" PRIu64 " bad",
                 row->census.lines, row->messages_sent, row->census.malformed);
}

static void format_workers(char *cell, const bench_row *row)
{
    snprintf(cell, CELL_SIZE, "%d%s", row->workers, row->workers_are_processes ? " proc" : "");
}

/* ---- the tables ---------------------------------------------------------- */

typedef char (*row_cells)[CELL_SIZE];

typedef struct table_layout {
    int columns;
    const char *const *headers;
    const char *alignment;
    int (*shows)(const bench_row *row); /* the rows it has */
    /* Fills cells 1 .. columns - 1 of a row (cell 0 is its label). */
    void (*fill)(row_cells cell, const bench_row *row);
    /* A row that could not run shows "n/a: why" here, and "-" after it. */
    int note_column;
} table_layout;

static void print_rows(FILE *out, const table_layout *layout, const bench_row *rows, int count)
{
    text_table table = {
        .columns = layout->columns, .headers = layout->headers, .alignment = layout->alignment};
    table.cells = calloc((size_t)count, sizeof *table.cells);
    if (table.cells == NULL)
        return;
    for (int i = 0; i < count; i++) {
        const bench_row *row = &rows[i];
        if (!layout->shows(row))
            continue;
        row_cells cell = table.cells[table.lines++];
        snprintf(cell[0], CELL_SIZE, "%s", row->label);
        layout->fill(cell, row);
        if (!row->available) {
            snprintf(cell[layout->note_column], CELL_SIZE, "n/a: %s", row->note);
            for (int c = layout->note_column + 1; c < layout->columns; c++)
                strcpy(cell[c], "-");
        }
    }
    print_table(out, &table);
    free(table.cells);
}

static void fill_latency_cells(row_cells cell, const bench_row *row)
{
    format_workers(cell[1], row);
    format_ns(cell[2], row->latency.avg_ns);
    format_ns(cell[3], row->latency.min_ns);
    format_ns(cell[4], row->latency.p50_ns);
    format_ns(cell[5], row->latency.p99_ns);
    format_ns(cell[6], row->latency.p999_ns);
    format_ns(cell[7], row->latency.max_ns);
    format_count(cell[8], row->messages_per_s < 0 ? -1 : llround(row->messages_per_s));
    format_fixed(cell[9], bench_row_writes_per_1000(row), 2);
    format_lines_ok(cell[10], row);
    format_count(cell[11], row->caller_mallocs);
    format_count(cell[12], row->caller_syscalls);
}

static const char *const latency_headers[] = {
    "strategy", "workers", "avg ns", "min", "p50", "p99", "p99.9", "max",
    "msg/s to file", "writes/1k msg", "lines ok", "caller mallocs", "caller syscalls",
};

static int timed_calls(const bench_row *row)
{
    return row->kind == ROW_TIMER || row->kind == ROW_PHASED;
}

static const table_layout latency_table = {
    .columns = 13, .headers = latency_headers, .alignment = "lrrrrrrrrrlrr",
    .shows = timed_calls, .fill = fill_latency_cells, .note_column = 2,
};

/* Bytes in the files per line of a throughput row, or -1. */
static double bytes_per_line(const bench_row *row)
{
    if (row->bytes_written < 0 || row->throughput_messages == 0)
        return -1;
    return (double)row->bytes_written / (double)row->throughput_messages;
}

static void fill_throughput_cells(row_cells cell, const bench_row *row)
{
    format_count(cell[1], (int64_t)row->throughput_messages);
    format_fixed(cell[2], row->seconds, 3);
    format_count(cell[3], row->messages_per_s < 0 ? -1 : llround(row->messages_per_s));
    format_fixed(cell[4], bytes_per_line(row), 1);
    format_count(cell[5], row->write_calls);
    format_fixed(cell[6], row->write_calls > 0 ? (double)row->bytes_written / 1024.0 /
                                                     (double)row->write_calls
                                               : -1,
                 1);
    format_fixed(cell[7], bench_row_writes_per_64kib(row), 3);
    format_count(cell[8], row->peak_rss_kib);
    format_count(cell[9], row->rss_before_kib);
    format_count(cell[10], row->memory_bound_kib);
    format_count(cell[11], row->xlog_blocked);
    format_lines_ok(cell[12], row);
}

/* "bytes/line": what the files hold per line (xlog-cat rows: what they read). */
static const char *const throughput_headers[] = {
    "strategy", "lines", "seconds", "lines/s", "bytes/line", "write calls", "KiB/write",
    "writes/64 KiB", "peak RSS KiB", "RSS before KiB", "ring+buffer KiB", "blocked calls",
    "lines ok",
};

static int back_to_back(const bench_row *row)
{
    return row->kind == ROW_THROUGHPUT;
}

static const table_layout throughput_table = {
    .columns = 13, .headers = throughput_headers, .alignment = "lrrrrrrrrrrrl",
    .shows = back_to_back, .fill = fill_throughput_cells, .note_column = 1,
};

static void format_balance(char *cell, const bench_row *row)
{
    if (row->syslog_balanced < 0)
        strcpy(cell, "-");
    else if (row->syslog_balanced)
        strcpy(cell, "yes");
    else
        snprintf(cell, CELL_SIZE, "NO: %" PRId64 " + %" PRId64 " of %" PRIu64 "%s",
                 row->syslog_received, row->syslog_dropped, row->messages_sent,
                 row->syslog_malformed > 0 ? ", malformed" : "");
}

static void fill_syslog_cells(row_cells cell, const bench_row *row)
{
    format_count(cell[1], (int64_t)row->messages_sent);
    format_fixed(cell[2], row->files_seconds, 3);
    format_fixed(cell[3], row->messages_per_s < 0 ? -1 : row->seconds, 3);
    format_count(cell[4], row->syslog_received);
    format_count(cell[5], row->syslog_dropped);
    format_count(cell[6], row->syslog_lost_in_kernel);
    format_count(cell[7], row->syslog_malformed);
    format_balance(cell[8], row);
}

static const char *const syslog_headers[] = {
    "strategy", "messages", "files complete s", "collector complete s", "received",
    "dropped by xlog", "dropped by the kernel", "malformed", "received + dropped = sent",
};

/* The syslog rows that ran (one that could not says why in the throughput
 * table). */
static int has_collector(const bench_row *row)
{
    return row->syslog_balanced >= 0;
}

static const table_layout syslog_table = {
    .columns = 9, .headers = syslog_headers, .alignment = "lrrrrrrrl",
    .shows = has_collector, .fill = fill_syslog_cells, .note_column = 1,
};

static void fill_terminal_cells(row_cells cell, const bench_row *row)
{
    format_count(cell[1], (int64_t)row->messages_sent);
    format_ns(cell[2], row->latency.p50_ns);
    format_ns(cell[3], row->latency.max_ns);
    format_ns(cell[4], row->stall_worst_ns);
    format_count(cell[5], (int64_t)row->terminal_lines);
    format_count(cell[6], row->console_dropped);
    snprintf(cell[7], CELL_SIZE, "%" PRId64 " / %" PRId64, row->file_lines_at_resume,
             row->lines_due_at_resume);
    format_lines_ok(cell[8], row);
}

static const char *const terminal_headers[] = {
    "strategy", "calls", "p50 ns", "worst call ns", "worst during stall ns",
    "lines on terminal", "console lines dropped", "file lines when reader resumed / due",
    "file complete",
};

static int terminal(const bench_row *row)
{
    return row->kind == ROW_TERMINAL;
}

static const table_layout terminal_table = {
    .columns = 9, .headers = terminal_headers, .alignment = "lrrrrrrrl",
    .shows = terminal, .fill = fill_terminal_cells, .note_column = 1,
};

static void format_ms(char *cell, double seconds)
{
    format_fixed(cell, seconds < 0 ? -1 : seconds * 1e3, 1);
}

static void fill_threads_cells(row_cells cell, const bench_row *row)
{
    format_count(cell[1], row->workers);
    format_count(cell[2], (int64_t)row->messages_sent);
    format_count(cell[3], row->rss_before_kib);
    format_count(cell[4], row->rss_growth_kib);
    format_count(cell[5], row->rss_growth_off_kib);
    format_ns(cell[6], row->first_call_p50_ns);
    format_ns(cell[7], row->first_call_ns);
    format_ms(cell[8], row->wall_seconds);
    format_ms(cell[9], row->wall_seconds_off);
    format_fixed(cell[10], row->wall_ratio, 2);
    format_count(cell[11], row->peak_rss_kib);
    format_lines_ok(cell[12], row);
}

static const char *const threads_headers[] = {
    "strategy", "threads", "lines", "RSS before KiB", "RSS growth KiB",
    "growth, logging off KiB", "first call p50 ns", "first call max ns", "ms, logging on",
    "ms, logging off", "on / off, median of pairs", "peak RSS KiB", "lines ok",
};

static int many_threads(const bench_row *row)
{
    return row->kind == ROW_THREADS;
}

static const table_layout threads_table = {
    .columns = 13, .headers = threads_headers, .alignment = "lrrrrrrrrrrrl",
    .shows = many_threads, .fill = fill_threads_cells, .note_column = 1,
};

/* ---- header and summary -------------------------------------------------- */

static void cpu_model(char *model, size_t capacity)
{
    snprintf(model, capacity, "unknown CPU");
    FILE *info = fopen("/proc/cpuinfo", "r");
    if (info == NULL)
        return;
    char line[256];
    while (fgets(line, sizeof line, info) != NULL) {
        if (strncmp(line, "model name", 10) == 0 && strchr(line, ':') != NULL) {
            snprintf(model, capacity, "%s", strchr(line, ':') + 2);
            model[strcspn(model, "\n")] = '\0';
            break;
        }
    }
    fclose(info);
}

static void print_header(FILE *out, const bench_options *options)
{
    char model[128];
    cpu_model(model, sizeof model);
    struct utsname system;
    uname(&system);
    fprintf(out, "xlog-bench: %s, %ld cores, Linux %s; timer %s, %.3f ticks/ns\n", model,
            sysconf(_SC_NPROCESSORS_ONLN), system.release, BENCH_TIMER_NAME,
            timing_ticks_per_ns());
    fprintf(out,
            "workload: %" PRIu64 " calls per worker timed in bursts of %" PRIu64
            " (%u us apart), then %" PRIu64 " back to back for msg/s and writes; "
            "multi-worker rows: %d workers\n\n",
            options->messages, options->batch, options->gap_us, options->messages,
            options->threads);
}

static const bench_row *find_row(const bench_row *rows, int count, const char *name)
{
    for (int i = 0; i < count; i++)
        if (strcmp(rows[i].name, name) == 0 && rows[i].available)
            return &rows[i];
    return NULL;
}

/* The xlog row a strategy is compared with: the one that writes the same
 * files (one per thread for thread-files, one for every other strategy) with
 * the same message. */
static const bench_row *counterpart(const bench_row *rows, int count, const bench_row *row)
{
    const char *files = strncmp(row->name, "thread-files", 12) == 0 ? "xlog-per-thread"
                                                                    : "xlog-shared";
    const char *colon = strchr(row->name, ':');
    char name[sizeof row->name];
    snprintf(name, sizeof name, "%s%s", files, colon != NULL ? colon : "");
    return find_row(rows, count, name);
}

/* 2.5 -> "2.5x", 1234.5 -> "1,235x"; "-" when either figure is missing. */
static void format_ratio(char *cell, double theirs, double ours)
{
    if (theirs < 0 || ours <= 0) {
        strcpy(cell, "-");
        return;
    }
    double ratio = theirs / ours;
    if (ratio < 10) {
        snprintf(cell, CELL_SIZE, "%.1fx", ratio);
        return;
    }
    format_grouped(cell, (uint64_t)llround(ratio));
    strcat(cell, "x");
}

static const char *const comparison_headers[] = {
    "strategy", "compared with", "median call", "p99.9 call", "msg/s to file",
    "write calls per message",
};

/* One line per strategy: how many times better the matching xlog row's
 * figure is, every figure from this same run. */
static void print_comparison(FILE *out, const bench_row *rows, int count)
{
    if (count <= 0)
        return;
    text_table table = {.columns = 6, .headers = comparison_headers, .alignment = "llrrrr"};
    table.cells = calloc((size_t)count, sizeof *table.cells);
    if (table.cells == NULL)
        return;
    for (int i = 0; i < count; i++) {
        const bench_row *row = &rows[i];
        if (row->kind != ROW_PHASED || !row->available || strncmp(row->name, "xlog", 4) == 0)
            continue;
        const bench_row *xlog = counterpart(rows, count, row);
        if (xlog == NULL)
            continue;
        row_cells cell = table.cells[table.lines++];
        snprintf(cell[0], CELL_SIZE, "%.*s", CELL_SIZE - 1, row->label);
        snprintf(cell[1], CELL_SIZE, "%.*s", CELL_SIZE - 1, xlog->label);
        format_ratio(cell[2], row->latency.p50_ns, xlog->latency.p50_ns);
        format_ratio(cell[3], row->latency.p999_ns, xlog->latency.p999_ns);
        format_ratio(cell[4], xlog->messages_per_s, row->messages_per_s);
        format_ratio(cell[5], bench_row_writes_per_1000(row), bench_row_writes_per_1000(xlog));
    }
    if (table.lines > 0) {
        fprintf(out, "\nxlog against each strategy, in this run: how many times shorter "
                     "xlog's calls are, how many times more messages per second it gets into "
                     "the file, how many times fewer write calls it makes per message:\n\n");
        print_table(out, &table);
    }
    free(table.cells);
}

/* What xlog's own rows show, in a sentence each. */
static void print_xlog_facts(FILE *out, const bench_row *rows, int count, double stall_seconds)
{
    const bench_row *xlog = find_row(rows, count, "xlog-shared");
    const bench_row *per_thread = find_row(rows, count, "xlog-per-thread");
    const bench_row *backend = find_row(rows, count, "xlog-throughput");
    const bench_row *json = find_row(rows, count, "xlog-json-throughput");
    const bench_row *binary = find_row(rows, count, "xlog-binary-throughput");
    const bench_row *cat_one = find_row(rows, count, "xlog-cat-one");
    const bench_row *cat_merge = find_row(rows, count, "xlog-cat-merge");
    const bench_row *syslog[] = {find_row(rows, count, "xlog-syslog-throughput"),
                                 find_row(rows, count, "xlog-syslog-udp-throughput")};
    const char *const transports[] = {"a local socket", "UDP"};
    const bench_row *burst = find_row(rows, count, "xlog-burst");
    const bench_row *live = find_row(rows, count, "xlog-live-threads");
    const bench_row *short_lived = find_row(rows, count, "xlog-short-threads");
    const bench_row *tty_direct = find_row(rows, count, "tty-direct");
    const bench_row *tty_xlog = find_row(rows, count, "tty-xlog");
    if (xlog == NULL && backend == NULL && json == NULL && binary == NULL && cat_one == NULL &&
        cat_merge == NULL && syslog[0] == NULL &&
        syslog[1] == NULL && burst == NULL && live == NULL && short_lived == NULL &&
        tty_xlog == NULL)
        return;
    fprintf(out, "\nxlog in this run:\n");
    if (xlog != NULL && xlog->timer_pair_p50_ns > 0)
        fprintf(out, "- a call's median, %.1f ns, includes the %.1f ns of the timer around it\n",
                xlog->latency.p50_ns, xlog->timer_pair_p50_ns);
    if (xlog != NULL && xlog->caller_mallocs >= 0 && xlog->caller_syscalls >= 0) {
        int64_t mallocs = xlog->caller_mallocs, syscalls = xlog->caller_syscalls;
        if (per_thread != NULL && per_thread->caller_mallocs >= 0 &&
            per_thread->caller_syscalls >= 0) {
            mallocs += per_thread->caller_mallocs;
            syscalls += per_thread->caller_syscalls;
        }
        fprintf(out, "- the calling threads made %" PRId64 " mallocs and %" PRId64
                     " system calls during the timed calls",
                mallocs, syscalls);
        if (xlog->first_call_mallocs >= 0 && xlog->first_call_syscalls >= 0)
            fprintf(out, " (a thread's first call, not timed, sets up its ring: %" PRId64
                         " mallocs, %" PRId64 " system calls)",
                    xlog->first_call_mallocs, xlog->first_call_syscalls);
        fputc('\n', out);
    }
    if (backend != NULL) {
        double per_write = backend->write_calls > 0 ? (double)backend->bytes_written / 1024.0 /
                                                          (double)backend->write_calls
                                                    : 0;
        fprintf(out, "- the back end wrote %.2f M lines/s from one thread, until they were in "
                     "the file, %.0f KiB per write call\n",
                backend->messages_per_s / 1e6, per_write);
    }
    if (json != NULL) {
        fprintf(out, "- with the files in JSON lines it wrote %.2f M lines/s",
                json->messages_per_s / 1e6);
        if (backend != NULL)
            fprintf(out, ", %.2f times the text lines' rate, %.2f times their bytes per line",
                    json->messages_per_s / backend->messages_per_s,
                    ((double)json->bytes_written / (double)json->throughput_messages) /
                        ((double)backend->bytes_written / (double)backend->throughput_messages));
        fputc('\n', out);
    }
    if (binary != NULL) {
        fprintf(out, "- with binary files it wrote %.2f M lines/s, %.1f bytes per line",
                binary->messages_per_s / 1e6, bytes_per_line(binary));
        if (backend != NULL)
            fprintf(out, ", %.2f times the text lines' rate, %.2f times their bytes per line",
                    binary->messages_per_s / backend->messages_per_s,
                    bytes_per_line(binary) / bytes_per_line(backend));
        fputc('\n', out);
    }
    if (cat_one != NULL)
        fprintf(out, "- xlog-cat turned one binary file into text at %.2f M lines/s\n",
                cat_one->messages_per_s / 1e6);
    if (cat_merge != NULL) {
        fprintf(out, "- merging %d per-thread binary files into text, %.2f M lines/s",
                cat_merge->workers, cat_merge->messages_per_s / 1e6);
        if (cat_one != NULL)
            fprintf(out, ", %.2f times one file's time per line",
                    cat_one->messages_per_s / cat_merge->messages_per_s);
        fputc('\n', out);
    }
    for (int i = 0; i < 2; i++) {
        const bench_row *row = syslog[i];
        if (row == NULL)
            continue;
        char received[CELL_SIZE], dropped[CELL_SIZE];
        format_count(received, row->syslog_received);
        format_count(dropped, row->syslog_dropped);
        fprintf(out, "- with a syslog sink on %s, the files had every line after %.2f s and the "
                     "collector every message after %.2f s, %.2f M lines/s; it received %s, "
                     "xlog dropped %s",
                transports[i], row->files_seconds, row->seconds, row->messages_per_s / 1e6,
                received, dropped);
        if (row->syslog_lost_in_kernel >= 0) {
            char lost[CELL_SIZE];
            format_count(lost, row->syslog_lost_in_kernel);
            fprintf(out, ", the kernel dropped %s", lost);
        }
        fprintf(out, ": received + dropped by xlog %s sent\n",
                row->syslog_balanced ? "=" : "!=");
    }
    if (burst != NULL) {
        char lines[CELL_SIZE], growth[CELL_SIZE], bound[CELL_SIZE];
        format_count(lines, (int64_t)burst->throughput_messages);
        format_count(growth, burst->peak_rss_kib - burst->rss_before_kib);
        format_count(bound, burst->memory_bound_kib);
        fprintf(out, "- a burst of %s lines grew the process by %s KiB, %s KiB of it the ring "
                     "and write buffer: the caller waits for room instead of queueing more\n",
                lines, growth, bound);
    }
    if (live != NULL) {
        char threads[CELL_SIZE], growth[CELL_SIZE], growth_off[CELL_SIZE], p50[CELL_SIZE],
            max[CELL_SIZE];
        format_count(threads, live->workers);
        format_count(growth, live->rss_growth_kib);
        format_count(growth_off, live->rss_growth_off_kib);
        format_ns(p50, live->first_call_p50_ns);
        format_ns(max, live->first_call_ns);
        char shm[CELL_SIZE], shm_mapped[CELL_SIZE];
        format_count(shm, live->shm_kib);
        format_count(shm_mapped, live->rss_shmem_kib);
        fprintf(out, "- %s threads that had logged %d lines each, all still alive, grew the "
                     "process by %s KiB (%s KiB with logging off); its persistent files took "
                     "%s KiB of /dev/shm, %s KiB of shared memory mapped (in the RSS); a "
                     "thread's first call, which gets it a ring, took %s ns (median), %s ns "
                     "at most\n",
                threads, live->thread_lines, growth, growth_off, shm, shm_mapped, p50, max);
    }
    if (short_lived != NULL) {
        char threads[CELL_SIZE], growth[CELL_SIZE], growth_off[CELL_SIZE];
        format_count(threads, short_lived->workers);
        format_count(growth, short_lived->rss_growth_kib);
        format_count(growth_off, short_lived->rss_growth_off_kib);
        fprintf(out, "- %s short-lived threads logging %d lines each, created and joined one at "
                     "a time, took %.2fx the time of the same run with logging off (median of "
                     "%d pairs of runs; %.1f ms and %.1f ms, medians of each); the process's "
                     "peak RSS grew %s KiB (%s KiB with logging off)\n",
                threads, short_lived->thread_lines, short_lived->wall_ratio, short_lived->pairs,
                short_lived->wall_seconds * 1e3, short_lived->wall_seconds_off * 1e3, growth,
                growth_off);
    }
    if (tty_xlog != NULL) {
        char worst[CELL_SIZE];
        format_ns(worst, tty_xlog->stall_worst_ns);
        fprintf(out, "- a terminal stopped reading for %.1f s: the caller's worst call meanwhile "
                     "took %s ns with xlog's console sink",
                stall_seconds, worst);
        if (tty_direct != NULL)
            fprintf(out, ", %.3f s writing to it directly", tty_direct->stall_worst_ns * 1e-9);
        fprintf(out, "; the file was %s\n",
                tty_xlog->lines_ok == 1 ? "complete" : "NOT complete");
    }
}

static const table_layout *const layouts[] = {
    &latency_table, &throughput_table, &syslog_table, &threads_table, &terminal_table,
};

void report_table(FILE *out, const bench_options *options, const bench_row *rows, int count)
{
    print_header(out, options);
    int tables = 0;
    for (size_t t = 0; t < sizeof layouts / sizeof layouts[0]; t++) {
        int shown = 0;
        for (int i = 0; i < count; i++)
            shown += layouts[t]->shows(&rows[i]);
        if (shown == 0)
            continue;
        if (tables++ > 0)
            fputc('\n', out);
        print_rows(out, layouts[t], rows, count);
    }
    print_comparison(out, rows, count);
    print_xlog_facts(out, rows, count, options->stall_seconds);
}
