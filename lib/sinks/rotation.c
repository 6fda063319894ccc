/*
 * rotation.c - names in the log directory: the day a file is named for, the
 * directory lock, the rename chain of size rotation, removal of old days.
 *
 * Why renames: copying a file and truncating it loses every line written
 * between the copy and the truncation; a rename is atomic and a descriptor
 * that still points at the renamed file keeps writing into it, so nothing is
 * lost.  Why a lock: processes that share a file must not both rotate it;
 * each one re-checks under the lock that the name still leads to the file it
 * wants to rotate.  The lock is held only around the renames, never around a
 * write (file_sink.c), so a process waits at most for another's few renames.
 */
#define _GNU_SOURCE
#include "sinks/rotation.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "base/date.h"

static int64_t floor_div(int64_t a, int64_t b)
{
    return a / b - (a % b < 0);
}

int64_t xlog_name_day(int64_t utc_ns, int local, int64_t *start, int64_t *end)
{
    if (!local) {
        int64_t day = xlog_utc_day(utc_ns);
        *start = day * XLOG_NS_PER_DAY;
        *end = *start + XLOG_NS_PER_DAY;
        return day;
    }
    time_t seconds = (time_t)floor_div(utc_ns, XLOG_NS_PER_SEC);
    struct tm tm;
    localtime_r(&seconds, &tm);
    /* Local civil time is UTC plus the offset in force; its day number is
     * counted like a UTC day, so the date of the name comes out right. */
    int64_t day = floor_div((int64_t)seconds + tm.tm_gmtoff, 86400);
    /* The day's bounds from mktime, which knows the daylight-saving days that
     * last 23 or 25 hours. */
    struct tm midnight = {.tm_year = tm.tm_year, .tm_mon = tm.tm_mon, .tm_mday = tm.tm_mday,
                          .tm_isdst = -1};
    time_t first = mktime(&midnight);
    struct tm next = {.tm_year = tm.tm_year, .tm_mon = tm.tm_mon, .tm_mday = tm.tm_mday + 1,
                      .tm_isdst = -1};
    time_t last = mktime(&next);
    *start = (int64_t)first * XLOG_NS_PER_SEC;
    *end = (int64_t)last * XLOG_NS_PER_SEC;
    /* Time-zone data that mktime cannot map back (a day that starts inside a
     * gap) must not give bounds that exclude the line itself: then no bounds
     * are cached and the next line asks again. */
    if (first == (time_t)-1 || last == (time_t)-1 || utc_ns < *start || utc_ns >= *end) {
        *start = utc_ns;
        *end = utc_ns + 1;
    }
    return day;
}

int64_t xlog_name_period(int64_t utc_ns, int local, int hourly, int64_t *start, int64_t *end)
{
    int64_t day = xlog_name_day(utc_ns, local, start, end);
    if (!hourly)
        return day;
    /* The hour of the day's clock: UTC's, or the local one, whose offset
     * (a whole number of minutes, maybe not of hours) is the one in force
     * at the line. */
    int64_t seconds = floor_div(utc_ns, XLOG_NS_PER_SEC), offset = 0;
    if (local) {
        time_t t = (time_t)seconds;
        struct tm tm;
        localtime_r(&t, &tm);
        offset = tm.tm_gmtoff;
    }
    int64_t clock_seconds = seconds + offset;
    int64_t hour = floor_div(clock_seconds, 3600);
    int64_t hour_start = (hour * 3600 - offset) * XLOG_NS_PER_SEC;
    int64_t hour_end = hour_start + 3600 * XLOG_NS_PER_SEC;
    if (hour_start > *start)
        *start = hour_start;
    if (hour_end < *end)
        *end = hour_end;
    if (utc_ns < *start || utc_ns >= *end) { /* the stop-gap of xlog_name_day */
        *start = utc_ns;
        *end = utc_ns + 1;
    }
    return day * 24 + (hour - floor_div(clock_seconds, 86400) * 24);
}

int xlog_period_name(char *out, size_t size, const char *prefix, int hourly, int64_t period)
{
    int year, month, mday;
    xlog_date_of_day(hourly ? floor_div(period, 24) : period, &year, &month, &mday);
    int has_prefix = prefix && *prefix;
    int n = hourly ? snprintf(out, size, "%s%s%04d-%02d-%02d-%02d", has_prefix ? prefix : "",
                              has_prefix ? "-" : "", year, month, mday,
                              (int)(period - floor_div(period, 24) * 24))
                   : snprintf(out, size, "%s%s%04d-%02d-%02d", has_prefix ? prefix : "",
                              has_prefix ? "-" : "", year, month, mday);
    return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int xlog_dir_lock(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    while (flock(fd, LOCK_EX) != 0) {
        if (errno != EINTR) {
            close(fd);
            return -1;
        }
    }
    return fd;
}

void xlog_dir_unlock(int lock)
{
    if (lock >= 0)
        close(lock); /* closing the last descriptor releases the flock */
}

/* Unlinks dir/name (a name too long for a path cannot be one of ours). */
static void remove_in(const char *dir, const char *name)
{
    char path[PATH_MAX];
    int n = snprintf(path, sizeof path, "%s/%s", dir, name);
    if (n > 0 && (size_t)n < sizeof path)
        unlink(path);
}

#define BINARY_EXTENSION ".xlog"
#define BINARY_EXTENSION_LENGTH (sizeof BINARY_EXTENSION - 1)

/* The length of path's stem, before ".xlog", when it is a binary file's
 * name; 0 for a text file's. */
static size_t binary_stem(const char *path, size_t length)
{
    if (length > BINARY_EXTENSION_LENGTH &&
        strcmp(path + length - BINARY_EXTENSION_LENGTH, BINARY_EXTENSION) == 0)
        return length - BINARY_EXTENSION_LENGTH;
    return 0;
}

int xlog_numbered_path(char *out, size_t size, const char *path, unsigned n)
{
    size_t length = strlen(path), stem = binary_stem(path, length);
    int written = stem ? snprintf(out, size, "%.*s.%u%s", (int)stem, path, n, BINARY_EXTENSION)
                       : snprintf(out, size, "%s.%u", path, n);
    return written < 0 || (size_t)written >= size ? -ENAMETOOLONG : 0;
}

/* If name is number N of base's chain (xlog_numbered_path), maybe with
 * ".gz", returns N (and sets *gz); otherwise 0. */
static unsigned long numbered(const char *name, const char *base, size_t base_len, int *gz)
{
    size_t stem = binary_stem(base, base_len);
    size_t prefix = stem ? stem : base_len;
    if (strncmp(name, base, prefix) != 0 || name[prefix] != '.')
        return 0;
    const char *p = name + prefix + 1;
    if (*p < '1' || *p > '9')
        return 0;
    char *after;
    errno = 0;
    unsigned long n = strtoul(p, &after, 10);
    if (errno != 0)
        return 0;
    if (stem) {
        if (strncmp(after, BINARY_EXTENSION, BINARY_EXTENSION_LENGTH) != 0)
            return 0;
        after += BINARY_EXTENSION_LENGTH;
    }
    if (*after == '\0')
        *gz = 0;
    else if (strcmp(after, ".gz") == 0)
        *gz = 1;
    else
        return 0;
    return n;
}

static void rename_numbered(const char *path, unsigned from, unsigned to, const char *suffix)
{
    char a[PATH_MAX], b[PATH_MAX];
    if (xlog_numbered_path(a, sizeof a - 3, path, from) != 0 ||
        xlog_numbered_path(b, sizeof b - 3, path, to) != 0)
        return;
    strcat(a, suffix);
    strcat(b, suffix);
    rename(a, b);
}

int xlog_rotate_chain(const char *path, unsigned keep)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t base_len = strlen(base);
    char dir[PATH_MAX];
    if (slash)
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    else
        snprintf(dir, sizeof dir, ".");

    /* One look at the directory: what is numbered at or beyond keep goes
     * (it would become keep+1 or more), the rest is noted so that only names
     * that exist are renamed. */
    unsigned char *present = calloc((size_t)keep + 1, 1);
    if (!present)
        return -ENOMEM;
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            int gz;
            unsigned long n = numbered(e->d_name, base, base_len, &gz);
            if (n == 0)
                continue;
            if (n >= keep)
                remove_in(dir, e->d_name);
            else
                present[n] |= (unsigned char)(gz ? 2 : 1);
        }
        closedir(d);
    }
    for (unsigned k = keep - 1; k >= 1; k--) {
        if (present[k] & 1)
            rename_numbered(path, k, k + 1, "");
        if (present[k] & 2)
            rename_numbered(path, k, k + 1, ".gz");
    }
    free(present);
    char first[PATH_MAX];
    if (xlog_numbered_path(first, sizeof first, path, 1) != 0)
        return -ENAMETOOLONG;
    return rename(path, first) == 0 ? 0 : -errno;
}

/* p past a rotation's ".N", if it starts with one. */
static const char *skip_number(const char *p)
{
    if (*p == '.' && p[1] >= '1' && p[1] <= '9') {
        p++;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    return p;
}

/* If name is one xlog makes for prefix (NULL or "" for none), hourly and
 * mode: [<prefix>-]YYYY-MM-DD, "-HH" with hourly, the mode's part ("",
 * "-<tid>" or "-p<pid>"), then ".log" and maybe ".N", or maybe ".N" and
 * ".xlog" (a binary file), then maybe ".gz": its date ("YYYY-MM-DD", not
 * terminated); else NULL. */
static const char *log_name_date(const char *name, const char *prefix, int hourly,
                                 xlog_file_mode mode)
{
    const char *date = name;
    if (prefix && *prefix) {
        size_t length = strlen(prefix);
        if (strncmp(name, prefix, length) != 0 || name[length] != '-')
            return NULL;
        date = name + length + 1;
    }
    static const char digit_at[] = "dddd-dd-dd";
    for (int i = 0; i < 10; i++) {
        if (digit_at[i] == 'd' ? (date[i] < '0' || date[i] > '9') : date[i] != '-')
            return NULL;
    }
    const char *p = date + 10;
    if (hourly) {
        if (p[0] != '-' || p[1] < '0' || p[1] > '2' || p[2] < '0' || p[2] > '9')
            return NULL;
        p += 3;
    }
    if (mode != XLOG_FILE_SHARED) {
        if (*p++ != '-')
            return NULL;
        if (mode == XLOG_FILE_PER_PROCESS && *p++ != 'p')
            return NULL;
        if (*p < '0' || *p > '9')
            return NULL;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    if (strncmp(p, ".log", 4) == 0) {
        p += 4;
        p = skip_number(p);
    } else {
        p = skip_number(p);
        if (strncmp(p, BINARY_EXTENSION, BINARY_EXTENSION_LENGTH) != 0)
            return NULL;
        p += BINARY_EXTENSION_LENGTH;
    }
    if (strcmp(p, ".gz") == 0)
        p += 3;
    return *p == '\0' ? date : NULL;
}

static int newest_first(const void *a, const void *b)
{
    return -memcmp(a, b, 10);
}

void xlog_remove_old_days(const char *dir, const char *prefix, int hourly, xlog_file_mode mode,
                          const char *current_date, unsigned keep)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    /* The distinct earlier dates, newest first: the keep-th is the oldest
     * kept. */
    char (*dates)[10] = NULL;
    size_t count = 0, capacity = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *date = log_name_date(e->d_name, prefix, hourly, mode);
        if (!date || memcmp(date, current_date, 10) >= 0)
            continue;
        size_t i = 0;
        while (i < count && memcmp(dates[i], date, 10) != 0)
            i++;
        if (i < count)
            continue;
        if (count == capacity) {
            size_t grown = capacity ? capacity * 2 : 16;
            char (*more)[10] = realloc(dates, grown * sizeof *dates);
            if (!more)
                goto out;
            dates = more;
            capacity = grown;
        }
        memcpy(dates[count++], date, 10);
    }
    if (count > keep) {
        qsort(dates, count, sizeof *dates, newest_first);
        const char *oldest_kept = dates[keep - 1];
        rewinddir(d);
        while ((e = readdir(d))) {
            const char *date = log_name_date(e->d_name, prefix, hourly, mode);
            if (date && memcmp(date, oldest_kept, 10) < 0)
                remove_in(dir, e->d_name);
        }
    }
out:
    free(dates);
    closedir(d);
}
