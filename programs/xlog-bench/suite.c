/*
 * suite.c - the strategies by name, the default and quick suites, and the
 * loop that runs a selection: one fresh directory per row, the row's own
 * runner, then the line census, then the directory is removed (unless
 * --keep).
 */
#include "suite.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "progress.h"
#include "runner.h"
#include "strategies.h"

typedef struct suite_entry {
    const char *name;
    const char *label;
    const char *source;
    row_kind kind;
    const phased_strategy *phased; /* ROW_PHASED */
    void (*run)(const bench_options *options, const char *dir, bench_row *row); /* the others */
    int volatile_variant; /* NAME:volatile runs it with cfg.persistent = 0 */
} suite_entry;

static const suite_entry entries[] = {
    {"timer", "timer: one " BENCH_TIMER_NAME " pair", "the timer's own cost", ROW_TIMER, NULL,
     NULL, 0},
    {"open-close", "open, append, close on every line", "field notes: open/close per line",
     ROW_PHASED, &open_close_strategy, NULL, 0},
    {"stdio-once", "stdio file opened once", "field notes: a file opened once", ROW_PHASED,
     &stdio_once_strategy, NULL, 0},
    {"thread-files", "one stdio file per thread, reopened on date change",
     "field notes: a file per thread", ROW_PHASED, &thread_files_strategy, NULL, 0},
    {"flush-each", "flush after every line", "field notes: flushing each line", ROW_PHASED,
     &flush_each_strategy, NULL, 0},
    {"flock-procs", "lock / write / unlock per line, processes on one file",
     "field notes: processes locking one file", ROW_PHASED, &flock_processes_strategy, NULL, 0},
    {"xlog-shared", "xlog, shared file", "xlog", ROW_PHASED, &xlog_shared_strategy, NULL, 1},
    {"xlog-per-thread", "xlog, per-thread files", "xlog", ROW_PHASED,
     &xlog_per_thread_strategy, NULL, 1},
    {"xlog-off-level", "xlog, call below the level (DEBUG under INFO)", "xlog: a disabled call",
     ROW_PHASED, &xlog_off_level_strategy, NULL, 0},
    {"xlog-off-module", "xlog, call below its module's level (another module at DEBUG)",
     "xlog: a call a module rule turns down", ROW_PHASED, &xlog_off_module_strategy, NULL, 0},
    {"xlog-module", "xlog, shared file, call from a module", "xlog: an enabled call with a module",
     ROW_PHASED, &xlog_module_strategy, NULL, 0},
    {"xlog-throughput", "xlog back end: one thread, back to back", "xlog: back-end throughput",
     ROW_THROUGHPUT, NULL, run_xlog_throughput, 1},
    {"xlog-json-throughput", "xlog back end, JSON lines: one thread, back to back", "xlog: JSON layout throughput",
     ROW_THROUGHPUT, NULL, run_xlog_json_throughput, 0},
    {"xlog-binary-throughput", "xlog back end, binary files: one thread, back to back",
     "xlog: binary layout throughput", ROW_THROUGHPUT, NULL, run_xlog_binary_throughput, 0},
    {"xlog-cat-one", "xlog-cat: one binary file to text", "xlog: reading binary files",
     ROW_THROUGHPUT, NULL, run_xlog_cat_one, 0},
    {"xlog-cat-merge", "xlog-cat: 8 per-thread binary files merged to text",
     "xlog: reading binary files", ROW_THROUGHPUT, NULL, run_xlog_cat_merge, 0},
    {"xlog-syslog-throughput", "xlog back end + syslog, local socket: one thread, back to back",
     "xlog: syslog sink throughput", ROW_THROUGHPUT, NULL, run_xlog_syslog_throughput, 0},
    {"xlog-syslog-udp-throughput", "xlog back end + syslog, UDP: one thread, back to back",
     "xlog: syslog sink throughput", ROW_THROUGHPUT, NULL, run_xlog_syslog_udp_throughput, 0},
    {"xlog-burst", "xlog burst in a fresh process (peak RSS)", "xlog: memory under a burst",
     ROW_THROUGHPUT, NULL, run_xlog_burst, 0},
    {"xlog-live-threads", "xlog, live threads, all alive at the reading",
     "xlog: memory per thread", ROW_THREADS, NULL, run_xlog_live_threads, 0},
    {"xlog-short-threads", "xlog, short-lived threads, one at a time", "xlog: cost per thread",
     ROW_THREADS, NULL, run_xlog_short_threads, 0},
    {"tty-direct", "direct write to a terminal that stops reading",
     "field notes: a terminal that stops reading", ROW_TERMINAL, NULL, run_terminal_direct, 0},
    {"tty-xlog", "xlog with a console sink, same terminal", "xlog: the same terminal",
     ROW_TERMINAL, NULL, run_terminal_xlog, 0},
};

#define ENTRY_COUNT (sizeof entries / sizeof entries[0])

static const char default_suite[] =
    "timer,open-close,stdio-once,stdio-once:string,thread-files,flush-each,flock-procs,"
    "xlog-shared,xlog-shared:string,xlog-per-thread,xlog-off-level,xlog-off-module,xlog-module,"
    "xlog-throughput,xlog-json-throughput,xlog-binary-throughput,xlog-cat-one,xlog-cat-merge,"
    "xlog-syslog-throughput,xlog-burst,"
    "xlog-live-threads,xlog-short-threads,tty-direct,tty-xlog";

/* What `make run` runs (--quick): the default suite without the rows of
 * xlog's JSON layout and syslog sink, which measure xlog against itself;
 * the binary files and xlog-cat stay, being the fastest way to a file. */
static const char quick_suite[] =
    "timer,open-close,stdio-once,stdio-once:string,thread-files,flush-each,flock-procs,"
    "xlog-shared,xlog-shared:string,xlog-per-thread,xlog-off-level,xlog-off-module,xlog-module,"
    "xlog-throughput,xlog-binary-throughput,xlog-cat-one,xlog-cat-merge,xlog-burst,"
    "xlog-live-threads,xlog-short-threads,tty-direct,tty-xlog";

void suite_print_list(FILE *out)
{
    fprintf(out, "Strategies (NAME:string runs a phased one with the string message;\n"
                 "NAME:volatile runs xlog-shared, xlog-per-thread or xlog-throughput with\n"
                 "cfg.persistent = 0, its rings and buffers in anonymous memory):\n");
    for (size_t i = 0; i < ENTRY_COUNT; i++)
        fprintf(out, "  %-22s %s (%s)\n", entries[i].name, entries[i].label, entries[i].source);
    fprintf(out, "Default suite: %s\n", default_suite);
    fprintf(out, "Quick suite (--quick): %s\n", quick_suite);
}

/* Finds the entry, payload and persistence of one item of a list ("name",
 * "name:string", "name:volatile"). */
static const suite_entry *find_entry(const char *item, size_t length, payload *payload_out,
                                     int *persistent_out)
{
    const char *colon = memchr(item, ':', length);
    size_t name_length = colon ? (size_t)(colon - item) : length;
    *payload_out = PAYLOAD_NUMBERS;
    *persistent_out = 1;
    if (colon != NULL) {
        size_t variant_length = length - name_length - 1;
        if (variant_length == 6 && strncmp(colon + 1, "string", 6) == 0)
            *payload_out = PAYLOAD_STRING;
        else if (variant_length == 8 && strncmp(colon + 1, "volatile", 8) == 0)
            *persistent_out = 0;
        else if (!(variant_length == 7 && strncmp(colon + 1, "numbers", 7) == 0))
            return NULL;
    }
    for (size_t i = 0; i < ENTRY_COUNT; i++) {
        if (strlen(entries[i].name) == name_length &&
            strncmp(entries[i].name, item, name_length) == 0) {
            if (*payload_out == PAYLOAD_STRING && entries[i].kind != ROW_PHASED)
                return NULL;
            if (!*persistent_out && !entries[i].volatile_variant)
                return NULL;
            return &entries[i];
        }
    }
    return NULL;
}

int suite_check_names(const char *list)
{
    for (const char *item = list; *item != '\0';) {
        size_t length = strcspn(item, ",");
        payload ignored;
        int ignored_too;
        if (length == 0 || find_entry(item, length, &ignored, &ignored_too) == NULL) {
            fprintf(stderr, "xlog-bench: unknown strategy '%.*s' (see --list)\n", (int)length,
                    item);
            return -1;
        }
        item += length;
        if (*item == ',')
            item++;
    }
    return 0;
}

static uint64_t work_units(const suite_entry *entry, const bench_options *options)
{
    switch (entry->kind) {
    case ROW_TIMER:
        return options->messages;
    case ROW_PHASED:
        return (uint64_t)(entry->phased->multi_worker ? options->threads : 1) * 2 *
               options->messages;
    case ROW_THROUGHPUT: /* the burst counts in a process of its own */
        return entry->run == run_xlog_burst ? 0 : options->throughput_messages;
    case ROW_TERMINAL:
        return terminal_calls(options);
    case ROW_THREADS:
        return 0; /* counted in a process of their own */
    }
    return 0;
}

static void run_entry(const suite_entry *entry, payload payload, const bench_options *options,
                      const char *dir, bench_row *row)
{
    switch (entry->kind) {
    case ROW_TIMER:
        run_timer_pairs(options, row);
        return;
    case ROW_PHASED:
        run_phased(entry->phased, payload, options, dir, row);
        return;
    case ROW_THROUGHPUT:
    case ROW_TERMINAL:
    case ROW_THREADS:
        entry->run(options, dir, row);
        return;
    }
}

int suite_run(const bench_options *options, const char *base_dir, bench_row **rows_out)
{
    const char *list = options->strategies ? options->strategies
                       : options->quick    ? quick_suite
                                           : default_suite;
    int total = 1;
    for (const char *c = list; *c != '\0'; c++)
        total += *c == ',';
    bench_row *rows = calloc((size_t)total, sizeof *rows);
    if (rows == NULL)
        return -ENOMEM;
    int count = 0;
    for (const char *item = list; *item != '\0' && count < total;) {
        size_t length = strcspn(item, ",");
        payload payload;
        int persistent;
        const suite_entry *entry = find_entry(item, length, &payload, &persistent);
        char name[48], label[96], dir[PATH_MAX];
        snprintf(name, sizeof name, "%.*s", (int)length, item);
        snprintf(label, sizeof label, "%s%s", entry->label,
                 payload == PAYLOAD_STRING ? " (string message)"
                 : persistent              ? ""
                                           : " (persistent off)");
        bench_row *row = &rows[count++];
        bench_row_init(row, name, label, entry->source, entry->kind);
        snprintf(dir, sizeof dir, "%s/%s", base_dir, name);
        char *colon = strchr(dir + strlen(base_dir), ':');
        if (colon != NULL)
            *colon = '-';
        progress_row(count, total, label, work_units(entry, options));
        /* A directory left from an earlier run would spoil the line count. */
        if (entry->kind != ROW_TIMER && mkdir(dir, 0750) != 0) {
            snprintf(row->note, sizeof row->note, "mkdir: %s", strerror(errno));
        } else {
            bench_xlog_persistent = persistent;
            run_entry(entry, payload, options, dir, row);
            bench_xlog_persistent = 1;
            if (entry->kind != ROW_TIMER && row->available)
                bench_row_check_lines(row, dir);
            if (entry->kind != ROW_TIMER && !options->keep_files)
                remove_directory(dir);
        }
        item += length;
        if (*item == ',')
            item++;
    }
    *rows_out = rows;
    return count;
}
