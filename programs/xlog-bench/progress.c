/*
 * progress.c - the drawing thread behind progress.h.
 *
 * The row description lives behind a mutex that only the main thread and the
 * drawing thread take; the work counter lives in a MAP_SHARED page so that
 * workers forked by the multi-process strategy add to the same counter.
 */
#include "progress.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "timing.h"

typedef struct shared_counters {
    atomic_uint_fast64_t units_done;
} shared_counters;

static shared_counters *counters;
static shared_counters local_counters; /* if the shared page cannot be mapped */
static atomic_int_fast64_t writes_made;
static pthread_mutex_t row_lock = PTHREAD_MUTEX_INITIALIZER;
static char row_label[96];
static int row_position, row_total;
static uint64_t row_units;
static double row_started;
static atomic_int stopping;
static pthread_t drawer;
static int drawing;

static void write_stderr(const char *text, size_t length)
{
    atomic_fetch_add(&writes_made, 1);
    while (write(STDERR_FILENO, text, length) < 0) {
    }
}

static void draw(void)
{
    char line[200];
    pthread_mutex_lock(&row_lock);
    uint64_t done = atomic_load(&counters->units_done);
    char percent[8] = "";
    if (row_units > 0)
        snprintf(percent, sizeof percent, "%3.0f%%",
                 done >= row_units ? 100.0 : 100.0 * (double)done / (double)row_units);
    int length = snprintf(line, sizeof line, "\r\033[K[%2d/%d] %-52.52s %4s  %5.1f s",
                          row_position, row_total, row_label, percent,
                          monotonic_seconds() - row_started);
    pthread_mutex_unlock(&row_lock);
    if (length > 0)
        write_stderr(line, (size_t)length < sizeof line ? (size_t)length : sizeof line - 1);
}

static void *drawing_loop(void *arg)
{
    (void)arg;
    const struct timespec pause = {.tv_nsec = 250 * 1000 * 1000};
    while (!atomic_load(&stopping)) {
        draw();
        nanosleep(&pause, NULL);
    }
    return NULL;
}

void progress_start(int enabled)
{
    void *page = mmap(NULL, sizeof(shared_counters), PROT_READ | PROT_WRITE,
                      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    counters = page == MAP_FAILED ? &local_counters : page;
    atomic_init(&counters->units_done, 0);
    if (enabled && isatty(STDERR_FILENO))
        drawing = pthread_create(&drawer, NULL, drawing_loop, NULL) == 0;
}

void progress_row(int position, int total, const char *label, uint64_t units)
{
    pthread_mutex_lock(&row_lock);
    snprintf(row_label, sizeof row_label, "%s", label);
    row_position = position;
    row_total = total;
    row_units = units;
    row_started = monotonic_seconds();
    atomic_store(&counters->units_done, 0);
    pthread_mutex_unlock(&row_lock);
}

void progress_add(uint64_t units)
{
    atomic_fetch_add_explicit(&counters->units_done, units, memory_order_relaxed);
}

int64_t progress_write_calls(void)
{
    return atomic_load(&writes_made);
}

void progress_stop(void)
{
    if (!drawing)
        return;
    atomic_store(&stopping, 1);
    pthread_join(drawer, NULL);
    drawing = 0;
    static const char clear[] = "\r\033[K";
    write_stderr(clear, sizeof clear - 1);
}
