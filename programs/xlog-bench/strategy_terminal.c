/*
 * strategy_terminal.c - the glog note: a terminal that stops reading.
 *
 * A real pseudo-terminal (openpty, raw mode) stands for the terminal; a reader
 * thread drains its master side like a terminal emulator would, except that
 * it stops reading for --stall-seconds, starting STALL_START_S into the run.
 * The caller logs one line every CALL_INTERVAL_S, to a file and to the
 * terminal, until RUN_AFTER_STALL_S after the stall:
 *
 *   tty-direct  each line goes to the file with write(2), then to the terminal
 *               with a blocking write(2), as glog does with a log file and
 *               logtostderr; once the terminal's buffer is full the caller
 *               waits for the reader, and the file waits with it;
 *   tty-xlog    each line goes through xlog with its console sink on the
 *               terminal (xlog_config.console).
 *
 * Reported: every call's latency, and the worst of the calls due during the
 * stall (the figure that matters), the lines the terminal received (and, for
 * xlog, the lines its console sink dropped), whether the file holds every
 * line at the end, and how many lines the file held when the reader resumed
 * against how many the caller should have logged by then: a sink that is not
 * delayed by the terminal is complete up to that moment.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <pty.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <termios.h>
#include <unistd.h>

#include <xlog.h>

#include "progress.h"
#include "runner.h"
#include "strategies.h"

#define CALL_INTERVAL_S 0.001
#define STALL_START_S 0.5
#define RUN_AFTER_STALL_S 1.0
/* The reader ends when the caller is done and the terminal has been quiet this long. */
#define QUIET_END_MS 200

typedef struct terminal_run {
    const char *dir;
    int master_fd;
    int slave_fd;
    double started;      /* monotonic seconds of the first call, set before the threads start */
    double stall_seconds;
    atomic_int caller_done;
    uint64_t lines_received;
    uint64_t file_lines_at_resume;
    uint64_t lines_due_at_resume;
} terminal_run;

static uint64_t count_newlines(const char *data, size_t size)
{
    uint64_t lines = 0;
    for (const char *end = data + size; (data = memchr(data, '\n', (size_t)(end - data))); data++)
        lines++;
    return lines;
}

static void drain_until(terminal_run *run, double deadline)
{
    char block[65536];
    for (;;) {
        double left = deadline - monotonic_seconds();
        int wait_ms = left <= 0 ? 0 : (int)(left * 1000) + 1;
        if (deadline < 0)
            wait_ms = QUIET_END_MS;
        struct pollfd ready = {.fd = run->master_fd, .events = POLLIN};
        int n = poll(&ready, 1, wait_ms);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            /* Timed out: the deadline passed, or (deadline < 0) the terminal
             * was quiet and the caller may be done. */
            if (deadline >= 0 || atomic_load(&run->caller_done))
                return;
            continue;
        }
        ssize_t got = read(run->master_fd, block, sizeof block);
        if (got <= 0)
            return; /* EIO: every slave descriptor is closed */
        run->lines_received += count_newlines(block, (size_t)got);
        if (deadline >= 0 && monotonic_seconds() >= deadline)
            return;
    }
}

static void *terminal_reader(void *arg)
{
    terminal_run *run = arg;
    double stall_begins = run->started + STALL_START_S;
    double stall_ends = stall_begins + run->stall_seconds;
    drain_until(run, stall_begins);
    sleep_until(stall_ends);
    line_census census;
    census_directory(run->dir, LINE_TEXT, &census);
    run->file_lines_at_resume = census.lines;
    run->lines_due_at_resume = 1 + (uint64_t)((stall_ends - run->started) / CALL_INTERVAL_S);
    drain_until(run, -1);
    return NULL;
}

static void direct_log(int file_fd, int tty_fd, const char *file, int line, const char *func,
                       const char *format, ...)
{
    char text[LINE_CAPACITY];
    va_list args;
    va_start(args, format);
    size_t length = default_line_vformat(text, sizeof text, file, line, func, format, args);
    va_end(args);
    write_all(file_fd, text, length);
    write_all(tty_fd, text, length);
}

#define DIRECT_LOG(file_fd, tty_fd, ...)                                                   \
    direct_log(file_fd, tty_fd, __FILE__, __LINE__, __func__, __VA_ARGS__)

typedef struct paced_caller {
    terminal_run *run;
    int use_xlog;
    int file_fd; /* tty-direct only */
    uint64_t calls;
    uint64_t *samples;
} paced_caller;

static void *paced_calls(void *arg)
{
    paced_caller *caller = arg;
    double started = caller->run->started;
    for (uint64_t i = 0; i < caller->calls; i++) {
        sleep_until(started + (double)i * CALL_INTERVAL_S);
        if (caller->use_xlog)
            BENCH_CALLS(caller->samples + i, i, 1,
                        xlog_info(NUMBERS_FORMAT, NUMBERS_ARGS(call_index)));
        else
            BENCH_CALLS(caller->samples + i, i, 1,
                        DIRECT_LOG(caller->file_fd, caller->run->slave_fd, NUMBERS_FORMAT,
                                   NUMBERS_ARGS(call_index)));
        if ((i & 63) == 63)
            progress_add(64);
    }
    return NULL;
}

static int open_terminal(terminal_run *run)
{
    if (openpty(&run->master_fd, &run->slave_fd, NULL, NULL, NULL) != 0)
        return -errno;
    struct termios mode;
    if (tcgetattr(run->slave_fd, &mode) == 0) {
        cfmakeraw(&mode);
        tcsetattr(run->slave_fd, TCSANOW, &mode);
    }
    return 0;
}

/* Starts the output side of a row: xlog with its console on the terminal, or
 * the direct file.  Returns 0 or -errno; on failure *why says what is missing. */
static int open_outputs(paced_caller *caller, const char **why)
{
    terminal_run *run = caller->run;
    if (caller->use_xlog) {
        xlog_config config = xlog_defaults();
        config.dir = run->dir;
        config.use_environment = 0;
        config.console = run->slave_fd;
        *why = "xlog_open failed";
        return bench_xlog_open(&config);
    }
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/tty-direct.log", run->dir);
    caller->file_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
    *why = "cannot open the log file";
    return caller->file_fd < 0 ? -errno : 0;
}

uint64_t terminal_calls(const bench_options *options)
{
    return (uint64_t)((STALL_START_S + options->stall_seconds + RUN_AFTER_STALL_S) /
                      CALL_INTERVAL_S);
}

/* The calls scheduled before `seconds` into the run (call i is due at i
 * intervals). */
static uint64_t calls_due_before(double seconds)
{
    return (uint64_t)ceil(seconds / CALL_INTERVAL_S - 1e-6);
}

/* The slowest of the calls due while the reader is stopped. */
static double stall_worst_ns(const uint64_t *samples, uint64_t calls, double stall_seconds)
{
    uint64_t end = calls_due_before(STALL_START_S + stall_seconds);
    uint64_t worst = 0;
    for (uint64_t i = calls_due_before(STALL_START_S); i < end && i < calls; i++)
        if (samples[i] > worst)
            worst = samples[i];
    return ticks_to_ns(worst);
}

static void close_outputs(paced_caller *caller, bench_row *row)
{
    if (caller->use_xlog)
        bench_xlog_close(row);
    else
        close(caller->file_fd);
}

static void run_terminal(int use_xlog, const bench_options *options, const char *dir,
                         bench_row *row)
{
    terminal_run run = {.dir = dir, .stall_seconds = options->stall_seconds};
    paced_caller caller = {.run = &run, .use_xlog = use_xlog, .file_fd = -1};
    caller.calls = terminal_calls(options);
    row->workers = 1;
    row->messages_sent = caller.calls;
    atomic_init(&run.caller_done, 0);

    int rc = open_terminal(&run);
    if (rc != 0) {
        snprintf(row->note, sizeof row->note, "openpty: %s", strerror(-rc));
        return;
    }
    const char *why = NULL;
    rc = open_outputs(&caller, &why);
    if (rc != 0) {
        snprintf(row->note, sizeof row->note, "%s", why);
        close(run.master_fd);
        close(run.slave_fd);
        return;
    }
    size_t sample_bytes = caller.calls * sizeof(uint64_t);
    caller.samples = mmap(NULL, sample_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                          -1, 0);
    int ready = caller.samples != MAP_FAILED;
    if (ready)
        memset(caller.samples, 0, sample_bytes);

    pthread_t reader, caller_thread;
    run.started = monotonic_seconds() + 0.01;
    int reader_started = ready && pthread_create(&reader, NULL, terminal_reader, &run) == 0;
    int caller_started =
        reader_started && pthread_create(&caller_thread, NULL, paced_calls, &caller) == 0;
    if (caller_started)
        pthread_join(caller_thread, NULL);
    close_outputs(&caller, row);
    atomic_store(&run.caller_done, 1);
    close(run.slave_fd);
    if (reader_started)
        pthread_join(reader, NULL);
    close(run.master_fd);
    if (!caller_started) {
        snprintf(row->note, sizeof row->note, "cannot start the caller and reader threads");
        if (ready)
            munmap(caller.samples, sample_bytes);
        return;
    }
    row->stall_worst_ns = stall_worst_ns(caller.samples, caller.calls, options->stall_seconds);
    latency_stats_compute(caller.samples, caller.calls, &row->latency);
    munmap(caller.samples, sample_bytes);
    row->terminal_lines = run.lines_received;
    row->file_lines_at_resume = (int64_t)run.file_lines_at_resume;
    row->lines_due_at_resume = (int64_t)run.lines_due_at_resume;
    row->available = 1;
}

void run_terminal_direct(const bench_options *options, const char *dir, bench_row *row)
{
    run_terminal(0, options, dir, row);
}

void run_terminal_xlog(const bench_options *options, const char *dir, bench_row *row)
{
    run_terminal(1, options, dir, row);
}
