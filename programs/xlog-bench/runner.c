/*
 * runner.c - the phased run described in runner.h, with threads or with
 * forked processes.
 *
 * Everything the workers and the main thread share (barriers, worker records,
 * the latency samples) is one MAP_SHARED anonymous mapping made before the
 * workers start, so forked workers report through the same memory as threads
 * and nothing is allocated while calls are being timed.  The samples are
 * touched once before the run so that no page fault lands in a timed call.
 */
#include "runner.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "malloc_count.h"
#include "proc_stats.h"
#include "progress.h"

/* Throughput-phase calls between two progress updates. */
#define THROUGHPUT_CHUNK 4096

struct phased_run {
    const phased_strategy *strategy;
    const bench_options *options;
    int worker_count;
    pthread_barrier_t warmed_up;     /* every worker made its first call */
    pthread_barrier_t latency_done;  /* every worker finished the latency phase */
    pthread_barrier_t throughput_go; /* the main thread started the clock */
};

static void pause_microseconds(unsigned microseconds)
{
    struct timespec pause = {.tv_sec = microseconds / 1000000,
                             .tv_nsec = (long)(microseconds % 1000000) * 1000};
    while (nanosleep(&pause, &pause) != 0 && errno == EINTR) {
    }
}

/* The timer's own cost, taken right after each burst on the same thread, so
 * that a row's calls and its reference are measured under the same conditions
 * (a busy sibling core or a frequency change moves both). */
static void time_empty_pairs(uint64_t *samples, uint64_t count)
{
    for (uint64_t i = 0; i < count; i++) {
        uint64_t start = bench_ticks();
        samples[i] = bench_ticks() - start;
    }
}

static void latency_phase(bench_worker *w, int audited)
{
    const phased_strategy *strategy = w->run->strategy;
    const bench_options *options = w->run->options;
    int counting_mallocs = malloc_calls_on_this_thread() >= 0;
    int64_t mallocs = 0;
    uint64_t syscalls = 0;
    for (uint64_t done = 0; done < options->messages;) {
        uint64_t count = options->messages - done;
        if (count > options->batch)
            count = options->batch;
        int64_t mallocs_before = malloc_calls_on_this_thread();
        uint64_t syscalls_before = audited ? syscall_audit_count(&w->audit) : 0;
        strategy->calls(w, 1 + done, count, w->samples + done);
        mallocs += malloc_calls_on_this_thread() - mallocs_before;
        if (audited)
            syscalls += syscall_audit_count(&w->audit) - syscalls_before;
        time_empty_pairs(w->pair_samples + done, count);
        progress_add(count);
        done += count;
        if (options->gap_us > 0 && done < options->messages)
            pause_microseconds(options->gap_us);
    }
    w->mallocs = counting_mallocs ? mallocs : -1;
    w->syscalls = audited ? (int64_t)syscalls : -1;
}

static void throughput_phase(bench_worker *w)
{
    const phased_strategy *strategy = w->run->strategy;
    uint64_t messages = w->run->options->messages;
    uint64_t first = 1 + messages;
    for (uint64_t done = 0; done < messages;) {
        uint64_t count = messages - done;
        if (count > THROUGHPUT_CHUNK)
            count = THROUGHPUT_CHUNK;
        strategy->calls(w, first + done, count, NULL);
        progress_add(count);
        done += count;
    }
    if (strategy->worker_end != NULL)
        strategy->worker_end(w);
}

static void *worker_main(void *arg)
{
    bench_worker *w = arg;
    phased_run *run = w->run;
    const phased_strategy *strategy = run->strategy;
    int audited = strategy->audit_syscalls && !strategy->workers_are_processes &&
                  syscall_audit_attach(&w->audit) == 0;
    if (strategy->worker_begin != NULL && strategy->worker_begin(w) != 0)
        w->failed = 1;
    if (!w->failed) {
        uint64_t first_call[1];
        int64_t mallocs_before = malloc_calls_on_this_thread();
        uint64_t syscalls_before = audited ? syscall_audit_count(&w->audit) : 0;
        strategy->calls(w, 0, 1, first_call);
        w->first_call_ticks = first_call[0];
        if (mallocs_before >= 0)
            w->first_call_mallocs = malloc_calls_on_this_thread() - mallocs_before;
        if (audited)
            w->first_call_syscalls = (int64_t)(syscall_audit_count(&w->audit) - syscalls_before);
    }
    pthread_barrier_wait(&run->warmed_up);
    if (!w->failed) {
        latency_phase(w, audited);
        if (strategy->worker_sync != NULL)
            strategy->worker_sync(w);
    }
    pthread_barrier_wait(&run->latency_done);
    pthread_barrier_wait(&run->throughput_go);
    if (!w->failed) {
        int64_t writes_before = strategy->workers_are_processes ? process_write_calls() : 0;
        throughput_phase(w);
        if (strategy->workers_are_processes)
            w->throughput_write_calls = process_write_calls() - writes_before;
    }
    return NULL;
}

static int init_barriers(phased_run *run, int processes)
{
    pthread_barrierattr_t attributes;
    pthread_barrierattr_init(&attributes);
    pthread_barrierattr_setpshared(&attributes, processes ? PTHREAD_PROCESS_SHARED
                                                          : PTHREAD_PROCESS_PRIVATE);
    unsigned parties = (unsigned)run->worker_count + 1; /* the workers and the main thread */
    int rc = pthread_barrier_init(&run->warmed_up, &attributes, parties);
    if (rc == 0)
        rc = pthread_barrier_init(&run->latency_done, &attributes, parties);
    if (rc == 0)
        rc = pthread_barrier_init(&run->throughput_go, &attributes, parties);
    pthread_barrierattr_destroy(&attributes);
    return rc;
}

static void destroy_barriers(phased_run *run)
{
    pthread_barrier_destroy(&run->warmed_up);
    pthread_barrier_destroy(&run->latency_done);
    pthread_barrier_destroy(&run->throughput_go);
}

/* Starts the workers; returns how many started. */
static int start_workers(phased_run *run, bench_worker *workers, pthread_t *threads,
                         pid_t *processes)
{
    for (int i = 0; i < run->worker_count; i++) {
        if (run->strategy->workers_are_processes) {
            fflush(NULL);
            pid_t child = fork();
            if (child == 0) {
                worker_main(&workers[i]);
                _exit(workers[i].failed ? 1 : 0);
            }
            if (child < 0)
                return i;
            processes[i] = child;
        } else if (pthread_create(&threads[i], NULL, worker_main, &workers[i]) != 0) {
            return i;
        }
    }
    return run->worker_count;
}

static void wait_workers(phased_run *run, int started, pthread_t *threads, pid_t *processes)
{
    for (int i = 0; i < started; i++) {
        if (run->strategy->workers_are_processes)
            waitpid(processes[i], NULL, 0);
        else
            pthread_join(threads[i], NULL);
    }
}

typedef struct shared_block {
    phased_run run;
    bench_worker workers[];
} shared_block;

static void collect_worker_figures(const phased_run *run, const bench_worker *workers,
                                   uint64_t *all_samples, uint64_t *all_pair_samples,
                                   bench_row *row)
{
    uint64_t first_call_max = 0;
    int64_t mallocs = 0, syscalls = 0;
    for (int i = 0; i < run->worker_count; i++) {
        if (workers[i].first_call_ticks > first_call_max)
            first_call_max = workers[i].first_call_ticks;
        if (workers[i].first_call_mallocs > row->first_call_mallocs)
            row->first_call_mallocs = workers[i].first_call_mallocs;
        if (workers[i].first_call_syscalls > row->first_call_syscalls)
            row->first_call_syscalls = workers[i].first_call_syscalls;
        mallocs = (mallocs < 0 || workers[i].mallocs < 0) ? -1 : mallocs + workers[i].mallocs;
        syscalls = (syscalls < 0 || workers[i].syscalls < 0) ? -1 : syscalls + workers[i].syscalls;
    }
    row->first_call_ns = ticks_to_ns(first_call_max);
    row->caller_mallocs = mallocs;
    row->caller_syscalls = syscalls;
    size_t count = (size_t)run->worker_count * run->options->messages;
    latency_stats_compute(all_samples, count, &row->latency);
    latency_stats pairs;
    latency_stats_compute(all_pair_samples, count, &pairs);
    row->timer_pair_p50_ns = pairs.p50_ns;
}

void run_phased(const phased_strategy *strategy, payload payload, const bench_options *options,
                const char *dir, bench_row *row)
{
    int worker_count = strategy->multi_worker ? options->threads : 1;
    uint64_t messages = options->messages;
    row->workers = worker_count;
    row->workers_are_processes = strategy->workers_are_processes;
    row->messages_sent = (uint64_t)worker_count * (1 + 2 * messages);
    row->writes_nothing = strategy->writes_nothing;
    row->throughput_messages = (uint64_t)worker_count * messages;

    size_t header = sizeof(shared_block) + (size_t)worker_count * sizeof(bench_worker);
    header = (header + 63) & ~(size_t)63;
    /* The calls' samples, then as many samples of the timer alone. */
    size_t sample_bytes = (size_t)worker_count * messages * sizeof(uint64_t);
    size_t mapping_size = header + 2 * sample_bytes;
    void *mapping = mmap(NULL, mapping_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                         -1, 0);
    if (mapping == MAP_FAILED) {
        snprintf(row->note, sizeof row->note, "no memory for %zu samples",
                 (size_t)worker_count * messages);
        return;
    }
    shared_block *block = mapping;
    uint64_t *all_samples = (uint64_t *)((char *)mapping + header);
    uint64_t *all_pair_samples = (uint64_t *)((char *)mapping + header + sample_bytes);
    memset(all_samples, 0, 2 * sample_bytes);

    phased_run *run = &block->run;
    run->strategy = strategy;
    run->options = options;
    run->worker_count = worker_count;
    void *shared = NULL;
    int rc = init_barriers(run, strategy->workers_are_processes);
    if (rc != 0) {
        snprintf(row->note, sizeof row->note, "barriers: %s", strerror(rc));
        munmap(mapping, mapping_size);
        return;
    }
    if (strategy->setup != NULL && (rc = strategy->setup(dir, &shared)) != 0) {
        snprintf(row->note, sizeof row->note, "setup failed: %s", strerror(-rc));
        destroy_barriers(run);
        munmap(mapping, mapping_size);
        return;
    }
    bench_worker *workers = block->workers;
    for (int i = 0; i < worker_count; i++) {
        workers[i] = (bench_worker){
            .index = i,
            .payload = payload,
            .run = run,
            .dir = dir,
            .shared = shared,
            .samples = all_samples + (size_t)i * messages,
            .pair_samples = all_pair_samples + (size_t)i * messages,
            .mallocs = -1,
            .syscalls = -1,
            .first_call_mallocs = -1,
            .first_call_syscalls = -1,
        };
        if (strategy->audit_syscalls && !strategy->workers_are_processes)
            syscall_audit_start(&workers[i].audit);
    }

    pthread_t threads[worker_count];
    pid_t processes[worker_count];
    int started = start_workers(run, workers, threads, processes);
    if (started < worker_count) {
        /* Cannot run short of a worker: the barriers count on all of them. */
        fprintf(stderr, "xlog-bench: could not start worker %d: %s\n", started, strerror(errno));
        _exit(2);
    }
    pthread_barrier_wait(&run->warmed_up);
    pthread_barrier_wait(&run->latency_done);

    int64_t progress_writes_before = progress_write_calls();
    int64_t writes_before = strategy->workers_are_processes ? 0 : process_write_calls();
    uint64_t bytes_before = directory_bytes(dir);
    uint64_t clock_start = bench_ticks();
    pthread_barrier_wait(&run->throughput_go);
    wait_workers(run, started, threads, processes);
    if (strategy->finish != NULL)
        strategy->finish(shared);
    uint64_t clock_end = bench_ticks();
    /* Reaped children's I/O counts are folded into the parent's, so forked
     * workers are counted by their own readings instead. */
    int64_t writes = 0;
    if (!strategy->workers_are_processes)
        writes = process_write_calls() - writes_before -
                 (progress_write_calls() - progress_writes_before);
    uint64_t bytes_after = directory_bytes(dir);

    if (strategy->teardown != NULL)
        strategy->teardown(shared, row);
    for (int i = 0; i < worker_count; i++) {
        if (strategy->audit_syscalls && !strategy->workers_are_processes)
            syscall_audit_finish(&workers[i].audit);
        if (strategy->workers_are_processes)
            writes += workers[i].throughput_write_calls;
        if (workers[i].failed)
            snprintf(row->note, sizeof row->note, "worker %d could not start its file", i);
    }
    if (row->note[0] == '\0') {
        row->available = 1;
        row->seconds = ticks_to_ns(clock_end - clock_start) * 1e-9;
        row->messages_per_s = (double)row->throughput_messages / row->seconds;
        row->write_calls = writes;
        row->bytes_written = (int64_t)(bytes_after - bytes_before);
        collect_worker_figures(run, workers, all_samples, all_pair_samples, row);
    }
    destroy_barriers(run);
    munmap(mapping, mapping_size);
}

void run_timer_pairs(const bench_options *options, bench_row *row)
{
    size_t count = options->messages;
    uint64_t *samples = mmap(NULL, count * sizeof *samples, PROT_READ | PROT_WRITE,
                             MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (samples == MAP_FAILED) {
        snprintf(row->note, sizeof row->note, "no memory for %zu samples", count);
        return;
    }
    memset(samples, 0, count * sizeof *samples);
    time_empty_pairs(samples, count);
    progress_add(count);
    row->workers = 1;
    row->available = 1;
    latency_stats_compute(samples, count, &row->latency);
    munmap(samples, count * sizeof *samples);
}
