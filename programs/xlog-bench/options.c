/*
 * options.c - parses the command line, and fills in the defaults of the full
 * run or of --quick (the suite `make run` uses, under a minute on 2 cores)
 * for every figure the command line did not set.
 */
#include "options.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suite.h"

static const char usage_text[] =
    "usage: xlog-bench [options]\n"
    "\n"
    "Runs common ways of logging to a file, and xlog, over the same workload and\n"
    "prints one table: per-call latency, messages per second until the data is in\n"
    "the file, write calls per 1,000 messages, and whether every line arrived; then\n"
    "xlog against each strategy, as ratios of the figures of this run.\n"
    "\n"
    "  --quick                 the short suite (what `make run` runs; see --list)\n"
    "  --strategies LIST       comma-separated strategy names (see --list);\n"
    "                          NAME:string runs a strategy with the string message,\n"
    "                          NAME:volatile an xlog row with persistent rings off\n"
    "  --list                  list the strategies and exit\n"
    "  --threads N             threads (or processes) of the multi-worker rows [2]\n"
    "  --messages N            calls per worker in each phase [1000000; quick 100000]\n"
    "  --batch N               calls per burst in the latency phase [1000]\n"
    "  --gap-us N              pause between bursts, microseconds [1000]\n"
    "  --throughput-messages N lines of the xlog back-end rows (text, JSON, syslog)\n"
    "                          [4000000]\n"
    "  --burst-messages N      lines of the xlog burst row [10000000]\n"
    "  --live-threads N        threads of the xlog live-threads row [300]\n"
    "  --short-threads N       threads of each run of the short-threads row [2000]\n"
    "  --thread-lines N        lines each thread of those two rows logs [10]\n"
    "  --thread-pairs N        short-threads: runs with logging off then on [5; quick 3]\n"
    "  --stall-seconds S       how long the terminal stops reading [5; quick 2]\n"
    "  --json                  print a JSON array, one object per strategy\n"
    "  --chart FILE.svg        draw the latency percentiles per strategy\n"
    "  --dir DIR               write the log files under DIR [a new /tmp/xlog-bench.*]\n"
    "  --keep                  keep the log files\n"
    "  --no-progress           no progress line on stderr\n"
    "  --help                  this text\n";

enum {
    OPT_QUICK = 1000,
    OPT_STRATEGIES,
    OPT_LIST,
    OPT_THREADS,
    OPT_MESSAGES,
    OPT_BATCH,
    OPT_GAP,
    OPT_THROUGHPUT,
    OPT_BURST,
    OPT_LIVE_THREADS,
    OPT_SHORT_THREADS,
    OPT_THREAD_LINES,
    OPT_THREAD_PAIRS,
    OPT_CHILD,
    OPT_RESULT_FD,
    OPT_STALL,
    OPT_JSON,
    OPT_CHART,
    OPT_DIR,
    OPT_KEEP,
    OPT_NO_PROGRESS,
    OPT_HELP,
};

static const struct option long_options[] = {
    {"quick", no_argument, NULL, OPT_QUICK},
    {"strategies", required_argument, NULL, OPT_STRATEGIES},
    {"list", no_argument, NULL, OPT_LIST},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"messages", required_argument, NULL, OPT_MESSAGES},
    {"batch", required_argument, NULL, OPT_BATCH},
    {"gap-us", required_argument, NULL, OPT_GAP},
    {"throughput-messages", required_argument, NULL, OPT_THROUGHPUT},
    {"burst-messages", required_argument, NULL, OPT_BURST},
    {"live-threads", required_argument, NULL, OPT_LIVE_THREADS},
    {"short-threads", required_argument, NULL, OPT_SHORT_THREADS},
    {"thread-lines", required_argument, NULL, OPT_THREAD_LINES},
    {"thread-pairs", required_argument, NULL, OPT_THREAD_PAIRS},
    /* Not in the usage: how a row's fresh process is started (fresh_process.h). */
    {"child", required_argument, NULL, OPT_CHILD},
    {"result-fd", required_argument, NULL, OPT_RESULT_FD},
    {"stall-seconds", required_argument, NULL, OPT_STALL},
    {"json", no_argument, NULL, OPT_JSON},
    {"chart", required_argument, NULL, OPT_CHART},
    {"dir", required_argument, NULL, OPT_DIR},
    {"keep", no_argument, NULL, OPT_KEEP},
    {"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
    {"help", no_argument, NULL, OPT_HELP},
    {NULL, 0, NULL, 0},
};

/* A whole number in [minimum, maximum]; 0 on success. */
static int parse_count(const char *text, const char *option, uint64_t minimum, uint64_t maximum,
                       uint64_t *out)
{
    char *end;
    unsigned long long value = strtoull(text, &end, 10);
    if (*text == '\0' || *end != '\0' || text[0] == '-' || value < minimum || value > maximum) {
        fprintf(stderr, "xlog-bench: %s wants a whole number from %" PRIu64 " to %" PRIu64
                        ", not '%s'\n",
                option, minimum, maximum, text);
        return -1;
    }
    *out = value;
    return 0;
}

options_outcome parse_options(int argc, char **argv, bench_options *options)
{
    /* 0 means "not given": the defaults depend on --quick. */
    uint64_t threads = 0, messages = 0, batch = 0, gap = UINT64_MAX, throughput = 0, burst = 0;
    uint64_t live_threads = 0, short_threads = 0, thread_lines = 0, thread_pairs = 0;
    uint64_t result_fd = 0;
    double stall = 0;
    *options = (bench_options){.progress = 1};
    int option;
    while ((option = getopt_long(argc, argv, "", long_options, NULL)) != -1) {
        int bad = 0;
        switch (option) {
        case OPT_QUICK: options->quick = 1; break;
        case OPT_STRATEGIES: options->strategies = optarg; break;
        case OPT_LIST: suite_print_list(stdout); return OPTIONS_DONE;
        case OPT_THREADS: bad = parse_count(optarg, "--threads", 1, 256, &threads); break;
        case OPT_MESSAGES: bad = parse_count(optarg, "--messages", 1, 100000000, &messages); break;
        case OPT_BATCH: bad = parse_count(optarg, "--batch", 1, 100000000, &batch); break;
        case OPT_GAP: bad = parse_count(optarg, "--gap-us", 0, 10000000, &gap); break;
        case OPT_THROUGHPUT:
            bad = parse_count(optarg, "--throughput-messages", 1, 1000000000, &throughput);
            break;
        case OPT_BURST:
            bad = parse_count(optarg, "--burst-messages", 1, 1000000000, &burst);
            break;
        case OPT_LIVE_THREADS:
            bad = parse_count(optarg, "--live-threads", 1, 100000, &live_threads);
            break;
        case OPT_SHORT_THREADS:
            bad = parse_count(optarg, "--short-threads", 1, 10000000, &short_threads);
            break;
        case OPT_THREAD_LINES:
            bad = parse_count(optarg, "--thread-lines", 1, 1000000, &thread_lines);
            break;
        case OPT_THREAD_PAIRS:
            bad = parse_count(optarg, "--thread-pairs", 1, 100, &thread_pairs);
            break;
        case OPT_CHILD: options->child = optarg; break;
        case OPT_RESULT_FD:
            bad = parse_count(optarg, "--result-fd", 0, INT32_MAX, &result_fd);
            break;
        case OPT_STALL: {
            char *end;
            stall = strtod(optarg, &end);
            if (*optarg == '\0' || *end != '\0' || !(stall > 0 && stall <= 600)) {
                fprintf(stderr, "xlog-bench: --stall-seconds wants seconds in (0, 600], "
                                "not '%s'\n", optarg);
                bad = 1;
            }
            break;
        }
        case OPT_JSON: options->json = 1; break;
        case OPT_CHART: options->chart_path = optarg; break;
        case OPT_DIR: options->dir = optarg; break;
        case OPT_KEEP: options->keep_files = 1; break;
        case OPT_NO_PROGRESS: options->progress = 0; break;
        case OPT_HELP: fputs(usage_text, stdout); return OPTIONS_DONE;
        default: fputs(usage_text, stderr); return OPTIONS_ERROR;
        }
        if (bad)
            return OPTIONS_ERROR;
    }
    if (optind < argc) {
        fprintf(stderr, "xlog-bench: unexpected argument '%s'\n", argv[optind]);
        return OPTIONS_ERROR;
    }
    options->threads = threads ? (int)threads : 2;
    options->messages = messages ? messages : options->quick ? 100000 : 1000000;
    options->batch = batch ? batch : 1000;
    options->gap_us = gap != UINT64_MAX ? (unsigned)gap : 1000;
    options->throughput_messages = throughput ? throughput : 4000000;
    options->burst_messages = burst ? burst : 10000000;
    options->live_threads = live_threads ? (int)live_threads : 300;
    options->short_threads = short_threads ? (int)short_threads : 2000;
    options->thread_lines = thread_lines ? (int)thread_lines : 10;
    options->thread_pairs = thread_pairs ? (int)thread_pairs : options->quick ? 3 : 5;
    options->result_fd = (int)result_fd;
    options->stall_seconds = stall > 0 ? stall : options->quick ? 2.0 : 5.0;
    if (options->strategies != NULL && suite_check_names(options->strategies) != 0)
        return OPTIONS_ERROR;
    return OPTIONS_RUN;
}
