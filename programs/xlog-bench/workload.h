/*
 * workload.h - what every strategy logs, and how the result is checked.
 *
 * The message is the same for every strategy: two integers and a double
 * ("numbers"), or two strings ("string"), always at INFO level, always as the
 * default line
 *
 *     YYYY-MM-DD HH:MM:SS.nnnnnnnnn [INFO] file.c:NN func TID message
 *
 * with TID the kernel thread id.  The strategies that do not use xlog build
 * that line the way the in-house logger did: clock_gettime(CLOCK_REALTIME) and gmtime_r
 * at every call, then printf-family formatting on the calling thread.
 */
#ifndef XLOG_BENCH_WORKLOAD_H
#define XLOG_BENCH_WORKLOAD_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

typedef enum payload { PAYLOAD_NUMBERS = 0, PAYLOAD_STRING = 1 } payload;

/* The two messages.  Call index i chooses the argument values. */
#define NUMBERS_FORMAT "order %d filled %d units at %.3f"
#define NUMBERS_ARGS(i) (int)(i), (int)((i) % 1000), (double)(i) * 0.25
#define STRING_FORMAT "user %s logged in from %s"
#define STRING_ARGS(i) workload_user_name(i), workload_user_host(i)

/* Whether text[0 .. length) is exactly the numbers message of a call index
 * below limit, as printf writes it. */
int numbers_message_ok(const char *text, size_t length, uint64_t limit);

const char *workload_user_name(uint64_t i);
const char *workload_user_host(uint64_t i);

/* The kernel id of the calling thread, asked once per thread and cached. */
pid_t workload_thread_id(void);

/* The wall-clock part of a line, read at the call as the in-house logger does. */
typedef struct line_clock {
    struct tm utc;
    long nanoseconds;
    int date; /* YYYYMMDD, to notice a change of day */
} line_clock;

void line_clock_now(line_clock *clock);

/* Writes one default line to a stdio stream: prefix, message, newline. */
void default_line_vfprintf(FILE *stream, const line_clock *clock, const char *file, int line,
                      const char *func, const char *format, va_list args);

/* Reads the clock (line_clock_now) and formats one default line, newline
 * included, into buffer.  Returns its length (cut at capacity - 1 if it does
 * not fit). */
size_t default_line_vformat(char *buffer, size_t capacity, const char *file, int line,
                       const char *func, const char *format, va_list args);

/* Writes all of data to fd, again after EINTR or a short write.  Returns 0,
 * or -1 (errno set, or 0 after a write that wrote nothing). */
int write_all(int fd, const void *data, size_t size);

/* Longest line a strategy formats into its own buffer. */
#define LINE_CAPACITY 512

/* The lines a row's files hold, as the census checks them. */
typedef enum line_shape {
    LINE_TEXT = 0, /* the default line (xlog's default line): its prefix */
    LINE_JSON = 1, /* XLOG_LAYOUT_JSON: the whole object, as xlog.h shows it */
    LINE_BINARY = 2, /* XLOG_LAYOUT_BINARY: the files' entries, decoded; each is a "line" */
} line_shape;

/* What a strategy left in its directory. */
typedef struct line_census {
    uint64_t lines;     /* newline characters in all regular files */
    uint64_t malformed; /* lines not of the expected shape, or without a newline */
    uint64_t bytes;
} line_census;

/* Counts the lines in every regular file of dir and checks each against
 * shape.  Returns 0 or -errno. */
int census_directory(const char *dir, line_shape shape, line_census *out);

/* The census of one binary log file (binary_census.c): its entries, each
 * with the numbers message at INFO, added to *out.  Returns 0 or -errno. */
int census_binary_file(int dir_fd, const char *name, line_census *out);

/* Whether text starts with "YYYY-MM-DD<separator>HH:MM:SS" naming a day that
 * exists and a time of it (second 60 allowed). */
int valid_date_time(const char *text, char separator);

/* Total size of the regular files in dir (0 if it cannot be read). */
uint64_t directory_bytes(const char *dir);

/* Removes the regular files of dir, then dir itself. */
void remove_directory(const char *dir);

#endif
