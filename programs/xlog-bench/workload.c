/*
 * workload.c - the default line as the baseline strategies build it, the
 * census that checks every strategy wrote exactly the lines it was asked to,
 * and the check of one numbers message (for the syslog rows' collector).
 *
 * The census reads each file once in large blocks and checks every whole
 * line by the shape its row says the files hold: a text line's first 37
 * bytes against the default line's prefix ("YYYY-MM-DD HH:MM:SS.nnnnnnnnn [INFO] ",
 * with a date and time that exist), a JSON line as a whole object of the
 * shape xlog.h documents, from its opening brace to its "}}".  A torn or
 * interleaved line is caught as well as a lost one.
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

void default_line_vfprintf(FILE *stream, const line_clock *clock, const char *file, int line,
                      const char *func, const char *format, va_list args)
{
    fprintf(stream, PREFIX_FORMAT, PREFIX_ARGS(clock, file, line, func));
    vfprintf(stream, format, args);
    fputc('\n', stream);
}

size_t default_line_vformat(char *buffer, size_t capacity, const char *file, int line,
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

/* ---- checking what was written ------------------------------------------------ */

/* What is left to check of a line or a message. */
typedef struct cursor {
    const char *next;
    const char *end;
} cursor;

static int take(cursor *c, const char *literal)
{
    size_t length = strlen(literal);
    if ((size_t)(c->end - c->next) < length || memcmp(c->next, literal, length) != 0)
        return 0;
    c->next += length;
    return 1;
}

/* The rest of a string whose opening quote is taken, closing quote included. */
static int take_string(cursor *c)
{
    while (c->next < c->end) {
        unsigned char byte = (unsigned char)*c->next++;
        if (byte == '"')
            return 1;
        if (byte < 0x20 || byte >= 0x7f)
            return 0;
        if (byte != '\\')
            continue;
        if (c->next == c->end || strchr("\"\\/bfnrtu", *c->next) == NULL)
            return 0;
        if (*c->next++ == 'u') {
            for (int i = 0; i < 4; i++, c->next++) {
                if (c->next == c->end || strchr("0123456789abcdefABCDEF", *c->next) == NULL)
                    return 0;
            }
        }
    }
    return 0;
}

/* A number as printf's %d writes one that is not negative, of at most 18
 * digits. */
static int take_number(cursor *c, uint64_t *value)
{
    const char *first = c->next;
    for (*value = 0; c->next < c->end && *c->next >= '0' && *c->next <= '9'; c->next++)
        *value = *value * 10 + (uint64_t)(*c->next - '0');
    size_t digits = (size_t)(c->next - first);
    return digits > 0 && digits <= 18 && (*first != '0' || digits == 1);
}

int numbers_message_ok(const char *text, size_t length, uint64_t limit)
{
    /* NUMBERS_ARGS(i): i, i % 1000, and i * 0.25, which %.3f writes exactly
     * as i / 4 and a fraction of .000, .250, .500 or .750. */
    static const char *const quarters[4] = {".000", ".250", ".500", ".750"};
    cursor c = {text, text + length};
    uint64_t i, filled, whole;
    if (!take(&c, "order ") || !take_number(&c, &i) || i >= limit || i > INT32_MAX)
        return 0;
    return take(&c, " filled ") && take_number(&c, &filled) && filled == i % 1000 &&
           take(&c, " units at ") && take_number(&c, &whole) && whole == i / 4 &&
           take(&c, quarters[i % 4]) && c.next == c.end;
}

/* Whether the first length bytes of text match pattern, where '#' stands for
 * any digit. */
static int matches(const char *text, const char *pattern, size_t length)
{
    for (size_t i = 0; i < length; i++) {
        if (pattern[i] == '#' ? text[i] < '0' || text[i] > '9' : text[i] != pattern[i])
            return 0;
    }
    return 1;
}

static int digits_value(const char *text, int count)
{
    int value = 0;
    for (int i = 0; i < count; i++)
        value = value * 10 + (text[i] - '0');
    return value;
}

int valid_date_time(const char *text, char separator)
{
    if (!matches(text, "####-##-##", 10) || text[10] != separator ||
        !matches(text + 11, "##:##:##", 8))
        return 0;
    static const int month_days[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int year = digits_value(text, 4), month = digits_value(text + 5, 2);
    int day = digits_value(text + 8, 2);
    if (month < 1 || month > 12 || day < 1 || day > month_days[month - 1])
        return 0;
    if (month == 2 && day == 29 && !(year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)))
        return 0;
    return digits_value(text + 11, 2) < 24 && digits_value(text + 14, 2) < 60 &&
           digits_value(text + 17, 2) <= 60; /* 60: a leap second */
}

/* ---- the text line: its prefix --------------------------------------------- */

static const char text_prefix[] = "####-##-## ##:##:##.######### [INFO] ";
#define TEXT_PREFIX_LENGTH (sizeof text_prefix - 1)

static int text_line_ok(const char *line, size_t length)
{
    return length >= TEXT_PREFIX_LENGTH && matches(line, text_prefix, TEXT_PREFIX_LENGTH) &&
           valid_date_time(line, ' ');
}

/* ---- the JSON line: the whole object ----------------------------------------
 * xlog.h's shape, field by field, with the values the workload gives: an
 * INFO message without a module (so no "xlog.module"), whose strings are
 * ASCII (so a byte outside printable ASCII, escaped or not, is damage);
 * "thread.name" is there when the thread's name is known (xlog.h). */

static const char json_head[] = "{\"timestamp\":\"####-##-##T##:##:##.#########Z\","
                                "\"severity_text\":\"INFO\",\"severity_number\":9,\"body\":\"";
#define JSON_HEAD_LENGTH (sizeof json_head - 1)
#define JSON_DATE_AT 14 /* where the timestamp's date begins */

static int json_line_ok(const char *line, size_t length)
{
    if (length < JSON_HEAD_LENGTH || !matches(line, json_head, JSON_HEAD_LENGTH) ||
        !valid_date_time(line + JSON_DATE_AT, 'T'))
        return 0;
    cursor c = {line + JSON_HEAD_LENGTH, line + length};
    uint64_t number;
    return take_string(&c) && take(&c, ",\"attributes\":{\"code.filepath\":\"") &&
           take_string(&c) && take(&c, ",\"code.lineno\":") && take_number(&c, &number) &&
           take(&c, ",\"code.function\":\"") && take_string(&c) &&
           take(&c, ",\"thread.id\":") && take_number(&c, &number) &&
           (!take(&c, ",\"thread.name\":\"") || take_string(&c)) &&
           take(&c, ",\"process.pid\":") && take_number(&c, &number) && take(&c, "}}") &&
           c.next == c.end;
}

/* ---- reading the files ------------------------------------------------------ */

typedef int (*line_check)(const char *line, size_t length); /* without its '\n' */

/* Counts and checks the whole lines of data[0 .. size); returns the bytes of
 * the unfinished line at its end. */
static size_t census_lines(const char *data, size_t size, line_check check, line_census *out)
{
    const char *line = data, *end = data + size;
    for (const char *newline; (newline = memchr(line, '\n', (size_t)(end - line))) != NULL;
         line = newline + 1) {
        out->lines++;
        if (!check(line, (size_t)(newline - line)))
            out->malformed++;
    }
    return (size_t)(end - line);
}

static int census_file(int dir_fd, const char *name, line_check check, char *block,
                       size_t block_size, line_census *out)
{
    int fd = openat(dir_fd, name, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    /* block[0 .. carried) is the start of a line that the last read cut; a
     * line longer than the block is malformed, and skipped to its end. */
    size_t carried = 0;
    int overlong = 0;
    for (;;) {
        ssize_t got = read(fd, block + carried, block_size - carried);
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
        size_t size = carried + (size_t)got;
        size_t start = 0;
        if (overlong) {
            const char *newline = memchr(block, '\n', size);
            if (newline == NULL) {
                carried = 0;
                continue;
            }
            out->lines++;
            out->malformed++;
            overlong = 0;
            start = (size_t)(newline - block) + 1;
        }
        carried = census_lines(block + start, size - start, check, out);
        memmove(block, block + size - carried, carried);
        if (carried == block_size) {
            overlong = 1;
            carried = 0;
        }
    }
    if (carried > 0 || overlong) /* a last line without its newline */
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
    line_shape shape;
    line_check check;
    char *block;
    size_t block_size;
    line_census *out;
} census_job;

static int census_visit(int dir_fd, const char *name, const struct stat *info, void *arg)
{
    (void)info;
    census_job *job = arg;
    if (job->shape == LINE_BINARY)
        return census_binary_file(dir_fd, name, job->out);
    return census_file(dir_fd, name, job->check, job->block, job->block_size, job->out);
}

int census_directory(const char *dir, line_shape shape, line_census *out)
{
    *out = (line_census){0};
    census_job job = {.shape = shape,
                      .check = shape == LINE_JSON ? json_line_ok : text_line_ok,
                      .block_size = 1 << 20,
                      .out = out};
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
