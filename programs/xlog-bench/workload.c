/*
 * workload.c - the note-000 line as the baseline strategies build it, and the
 * census that checks every strategy wrote exactly the lines it was asked to.
 *
 * The census reads each file once in large blocks and checks every line's
 * first 37 bytes against the note-000 prefix ("YYYY-MM-DD HH:MM:SS.nnnnnnnnn
 * [INFO] "), so a torn or interleaved line is caught as well as a lost one.
 */
#include "workload.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *const user_names[8] = {
    "alice", "bob.smith", "carol", "dave_the_operator",
    "eve", "frank.w", "grace.hopper", "heidi",
};
static const char *const user_hosts[8] = {
    "10.0.0.17", "192.168.1.120", "172.16.254.3", "10.20.30.40",
    "2001:db8::1", "127.0.0.1", "198.51.100.7", "203.0.113.99",
};

const char *workload_user_name(uint64_t i)
{
    return user_names[i % 8];
}

const char *workload_user_host(uint64_t i)
{
    return user_hosts[(i / 8) % 8];
}

pid_t workload_thread_id(void)
{
    static __thread pid_t cached;
    if (cached == 0)
        cached = (pid_t)syscall(SYS_gettid);
    return cached;
}

void line_clock_now(line_clock *clock)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    gmtime_r(&now.tv_sec, &clock->utc);
    clock->nanoseconds = now.tv_nsec;
    clock->date = (clock->utc.tm_year + 1900) * 10000 + (clock->utc.tm_mon + 1) * 100 +
                  clock->utc.tm_mday;
}

#define PREFIX_FORMAT "%04d-%02d-%02d %02d:%02d:%02d.%09ld [INFO] %s:%d %s %d "
#define PREFIX_ARGS(c, file, line, func)                                                   \
    (c)->utc.tm_year + 1900, (c)->utc.tm_mon + 1, (c)->utc.tm_mday, (c)->utc.tm_hour,     \
        (c)->utc.tm_min, (c)->utc.tm_sec, (c)->nanoseconds, file, line, func,             \
        (int)workload_thread_id()

void note000_vfprintf(FILE *stream, const line_clock *clock, const char *file, int line,
                      const char *func, const char *format, va_list args)
{
    fprintf(stream, PREFIX_FORMAT, PREFIX_ARGS(clock, file, line, func));
    vfprintf(stream, format, args);
    fputc('\n', stream);
}

size_t note000_vformat(char *buffer, size_t capacity, const char *file, int line,
                       const char *func, const char *format, va_list args)
{
    line_clock clock;
    line_clock_now(&clock);
    int prefix = snprintf(buffer, capacity, PREFIX_FORMAT, PREFIX_ARGS(&clock, file, line, func));
    size_t length = prefix < 0 ? 0 : (size_t)prefix;
    if (length < capacity) {
        int message = vsnprintf(buffer + length, capacity - length, format, args);
        if (message > 0)
            length += (size_t)message;
    }
    if (length > capacity - 2)
        length = capacity - 2;
    buffer[length++] = '\n';
    buffer[length] = '\0';
    return length;
}

int write_all(int fd, const void *data, size_t size)
{
    const char *next = data;
    for (size_t sent = 0; sent < size;) {
        ssize_t wrote = write(fd, next + sent, size - sent);
        if (wrote < 0 && errno == EINTR)
            continue;
        if (wrote <= 0)
            return -1;
        sent += (size_t)wrote;
    }
    return 0;
}

/* 'd' stands for any digit. */
static const char line_prefix_pattern[] = "dddd-dd-dd dd:dd:dd.ddddddddd [INFO] ";
#define PREFIX_LENGTH (sizeof line_prefix_pattern - 1)

typedef struct census_state {
    size_t column;    /* bytes of the current line seen so far, up to PREFIX_LENGTH */
    int line_is_good; /* the current line matches the pattern so far */
} census_state;

static void census_block(const char *data, size_t size, census_state *state, line_census *out)
{
    const char *end = data + size;
    while (data < end) {
        if (state->column < PREFIX_LENGTH) {
            char expected = line_prefix_pattern[state->column];
            char got = *data;
            if (got == '\n') {
                out->lines++;
                out->malformed++;
                *state = (census_state){0, 1};
                data++;
                continue;
            }
            int matches = expected == 'd' ? (got >= '0' && got <= '9') : got == expected;
            state->line_is_good &= matches;
            state->column++;
            data++;
            continue;
        }
        const char *newline = memchr(data, '\n', (size_t)(end - data));
        if (newline == NULL)
            return;
        out->lines++;
        if (!state->line_is_good)
            out->malformed++;
        *state = (census_state){0, 1};
        data = newline + 1;
    }
}

static int census_file(int dir_fd, const char *name, char *block, size_t block_size,
                       line_census *out)
{
    int fd = openat(dir_fd, name, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    census_state state = {0, 1};
    for (;;) {
        ssize_t got = read(fd, block, block_size);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            int error = -errno;
            close(fd);
            return error;
        }
        if (got == 0)
            break;
        out->bytes += (uint64_t)got;
        census_block(block, (size_t)got, &state, out);
    }
    if (state.column > 0) /* a last line without its newline */
        out->malformed++;
    close(fd);
    return 0;
}

typedef int (*file_visitor)(int dir_fd, const char *name, const struct stat *info, void *arg);

static int visit_regular_files(const char *dir, file_visitor visit, void *arg)
{
    DIR *listing = opendir(dir);
    if (listing == NULL)
        return -errno;
    int rc = 0;
    struct dirent *entry;
    while (rc == 0 && (entry = readdir(listing)) != NULL) {
        struct stat info;
        if (fstatat(dirfd(listing), entry->d_name, &info, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISREG(info.st_mode))
            continue;
        rc = visit(dirfd(listing), entry->d_name, &info, arg);
    }
    closedir(listing);
    return rc;
}

typedef struct census_job {
    char *block;
    size_t block_size;
    line_census *out;
} census_job;

static int census_visit(int dir_fd, const char *name, const struct stat *info, void *arg)
{
    (void)info;
    census_job *job = arg;
    return census_file(dir_fd, name, job->block, job->block_size, job->out);
}

int census_directory(const char *dir, line_census *out)
{
    *out = (line_census){0};
    census_job job = {.block_size = 1 << 20, .out = out};
    job.block = malloc(job.block_size);
    if (job.block == NULL)
        return -ENOMEM;
    int rc = visit_regular_files(dir, census_visit, &job);
    free(job.block);
    return rc;
}

static int add_size(int dir_fd, const char *name, const struct stat *info, void *arg)
{
    (void)dir_fd;
    (void)name;
    *(uint64_t *)arg += (uint64_t)info->st_size;
    return 0;
}

uint64_t directory_bytes(const char *dir)
{
    uint64_t total = 0;
    visit_regular_files(dir, add_size, &total);
    return total;
}

static int remove_file(int dir_fd, const char *name, const struct stat *info, void *arg)
{
    (void)info;
    (void)arg;
    unlinkat(dir_fd, name, 0);
    return 0;
}

void remove_directory(const char *dir)
{
    visit_regular_files(dir, remove_file, NULL);
    rmdir(dir);
}
