/*
 * config_file.c - the configuration file: `key = value` lines, `#`
 * comments, a section per sink ([console], [syslog NAME], [file NAME]); xlog.h
 * ("Configuration file") is the reference for operators.
 *
 * Why it exists: operators change where and what a service logs without a
 * rebuild, and xlog_config has some 40 fields a program would otherwise map
 * from its own file.  Every field that a file can sensibly hold has a key
 * named after it; function pointers and custom sinks stay the program's.
 *
 * How it works: the file is read whole (at most MAX_FILE bytes) and parsed
 * line by line into a copy of the caller's configuration; each key of a
 * section's table says which field it sets (an offset), how its value is
 * read (a level, a size, a duration, a name from a list...) and the range
 * xlog_open would accept.  The first mistake stops the parse with
 * "file:line:column: what" and the caller's configuration is left as it
 * was: a file is applied whole or not at all.  Patterns and the filter are
 * checked here by the code that will use them, so that their errors, too,
 * point into the file.  Every string the configuration keeps (paths,
 * patterns, the sinks and the list of them) is owned by the returned
 * xlog_config_file, freed when xlog closes.
 */
#define _GNU_SOURCE
#include "config/config_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "frontend/filter.h"
#include "layouts/layout.h"
#include "sinks/sink.h"

/* A configuration file is a page or two; these bound what a wrong path
 * (a log, a core file) can cost before it is refused. */
#define MAX_FILE (1024 * 1024)
#define MAX_LINE 4096
/* xlog_open takes at most this many extra sinks (sinks.c's MAX_SINKS less
 * the files and the console). */
#define MAX_SINK_SECTIONS 30
#define MAX_SECTION_NAME 64
/* How much of a value an error message quotes. */
#define SHOWN 64

/* ---- how a value is read ------------------------------------------------ */

typedef enum value_kind {
    VALUE_STRING,   /* const char *, owned by the file */
    VALUE_PATTERN,  /* const char *, a text layout's pattern (checked) */
    VALUE_FILTER,   /* the file's filter string (not a field) */
    VALUE_SINK_FILTER, /* const char *, a sink's filter string (checked) */
    VALUE_PREFIX,   /* const char *, a file name prefix (checked) */
    VALUE_LEVEL,    /* int: trace ... off */
    VALUE_BOOL,     /* int: true 1, false 0 */
    VALUE_UNSIGNED, /* unsigned: a plain number */
    VALUE_SIZE,     /* size_t: bytes, or with K, M, G */
    VALUE_MS,       /* unsigned milliseconds: a duration */
    VALUE_US,       /* unsigned microseconds: a duration */
    VALUE_CHOICE,   /* int (an enum): one of the key's names */
    VALUE_OUTPUT,   /* int: the console's descriptor */
    VALUE_FACILITY  /* int: a syslog facility */
} value_kind;

typedef struct choice {
    const char *name;
    int value;
    int files_only; /* a name only a file's key takes (key.files) */
} choice;

/* The names of each enum; a NULL name ends a list. */
static const choice file_modes[] = {{"shared", XLOG_FILE_SHARED, 0},
                                    {"per_thread", XLOG_FILE_PER_THREAD, 0},
                                    {"per_process", XLOG_FILE_PER_PROCESS, 0},
                                    {NULL, 0, 0}};
static const choice full_policies[] = {
    {"block", XLOG_FULL_BLOCK, 0}, {"drop", XLOG_FULL_DROP, 0}, {NULL, 0, 0}};
static const choice compressions[] = {
    {"none", XLOG_COMPRESS_NONE, 0}, {"gzip", XLOG_COMPRESS_GZIP, 0}, {NULL, 0, 0}};
static const choice colors[] = {{"auto", XLOG_COLOR_AUTO, 0},
                                {"never", XLOG_COLOR_NEVER, 0},
                                {"always", XLOG_COLOR_ALWAYS, 0},
                                {NULL, 0, 0}};
/* A new kind of layout is one line here (and in xlog.h's list of keys).
 * Binary is for the files only (xlog.h, XLOG_LAYOUT_BINARY): the other
 * sinks' layout keys neither take nor name it. */
static const choice layouts[] = {{"text", XLOG_LAYOUT_TEXT, 0},
                                 {"json", XLOG_LAYOUT_JSON, 0},
                                 {"binary", XLOG_LAYOUT_BINARY, 1},
                                 {NULL, 0, 0}};
static const choice transports[] = {{"unix", XLOG_SYSLOG_UNIX, 0},
                                    {"udp", XLOG_SYSLOG_UDP, 0},
                                    {"tcp", XLOG_SYSLOG_TCP, 0},
                                    {NULL, 0, 0}};
static const choice syslog_formats[] = {{"auto", XLOG_SYSLOG_AUTO, 0},
                                        {"rfc5424", XLOG_SYSLOG_RFC5424, 0},
                                        {"rfc3164", XLOG_SYSLOG_RFC3164, 0},
                                        {NULL, 0, 0}};
/* RFC 5424's facilities that have a usual name (the others by number). */
static const choice facilities[] = {
    {"kern", 0, 0},    {"user", 1, 0},    {"mail", 2, 0},    {"daemon", 3, 0},  {"auth", 4, 0},
    {"syslog", 5, 0},  {"lpr", 6, 0},     {"news", 7, 0},    {"uucp", 8, 0},    {"cron", 9, 0},
    {"authpriv", 10, 0}, {"ftp", 11, 0},  {"local0", 16, 0}, {"local1", 17, 0}, {"local2", 18, 0},
    {"local3", 19, 0}, {"local4", 20, 0}, {"local5", 21, 0}, {"local6", 22, 0}, {"local7", 23, 0},
    {NULL, 0, 0}};
static const choice outputs[] = {{"off", 0, 0}, {"stdout", 1, 0}, {"stderr", 2, 0}, {NULL, 0, 0}};

#define KIB ((uint64_t)1024)
#define MIB (KIB * 1024)
#define GIB (MIB * 1024)

typedef struct key {
    const char *name;
    value_kind kind;
    size_t offset; /* of the field in the section's structure */
    /* Numbers: the range xlog_open (or the sink) accepts, in the field's
     * unit; zero_too: 0 is accepted below min (it means "none"). */
    uint64_t min, max;
    int zero_too;
    const choice *choices; /* VALUE_CHOICE */
    int files;             /* a file's key: takes the files_only choices */
} key;

#define FIELD(name) offsetof(xlog_config, name)
#define SYSLOG(name) offsetof(xlog_syslog_config, name)
#define FILES(name) offsetof(xlog_file_config, name)

/* The ranges repeat xlog.c's settle_config (and the syslog sink's
 * checks), so that a value out of range is refused with its place in the
 * file; max_message's upper bound there also depends on ring_size, which
 * only xlog_open checks. */
static const key top_keys[] = {
    {"dir", VALUE_STRING, FIELD(dir), 0, 0, 0, NULL, 0},
    {"file_mode", VALUE_CHOICE, FIELD(file_mode), 0, 0, 0, file_modes, 0},
    {"level", VALUE_LEVEL, FIELD(level), 0, 0, 0, NULL, 0},
    {"filter", VALUE_FILTER, 0, 0, 0, 0, NULL, 0},
    {"ring_size", VALUE_SIZE, FIELD(ring_size), 64 * KIB, GIB, 0, NULL, 0},
    {"full_policy", VALUE_CHOICE, FIELD(full_policy), 0, 0, 0, full_policies, 0},
    {"max_message", VALUE_SIZE, FIELD(max_message), 256, GIB / 4, 0, NULL, 0},
    {"write_buffer", VALUE_SIZE, FIELD(write_buffer), 4 * KIB, SIZE_MAX, 0, NULL, 0},
    {"flush_interval_ms", VALUE_MS, FIELD(flush_interval_ms), 0, UINT_MAX, 0, NULL, 0},
    {"idle_sleep_us", VALUE_US, FIELD(idle_sleep_us), 0, UINT_MAX, 0, NULL, 0},
    {"backtrace_lines", VALUE_UNSIGNED, FIELD(backtrace_lines), 0, 100000, 0, NULL, 0},
    {"backtrace_level", VALUE_LEVEL, FIELD(backtrace_level), 0, 0, 0, NULL, 0},
    {"flush_level", VALUE_LEVEL, FIELD(flush_level), 0, 0, 0, NULL, 0},
    {"sync_level", VALUE_LEVEL, FIELD(sync_level), 0, 0, 0, NULL, 0},
    {"crash_handlers", VALUE_BOOL, FIELD(crash_handlers), 0, 0, 0, NULL, 0},
    {"persistent", VALUE_BOOL, FIELD(persistent), 0, 0, 0, NULL, 0},
    {"persistent_dir", VALUE_STRING, FIELD(persistent_dir), 0, 0, 0, NULL, 0},
    {"follow_symlinks", VALUE_BOOL, FIELD(follow_symlinks), 0, 0, 0, NULL, 0},
    {"rotate_size", VALUE_SIZE, FIELD(rotate_size), 64 * KIB, SIZE_MAX, 1, NULL, 0},
    {"rotate_keep", VALUE_UNSIGNED, FIELD(rotate_keep), 1, 100000, 0, NULL, 0},
    {"keep_days", VALUE_UNSIGNED, FIELD(keep_days), 0, UINT_MAX, 0, NULL, 0},
    {"rotate_local_time", VALUE_BOOL, FIELD(rotate_local_time), 0, 0, 0, NULL, 0},
    {"file_prefix", VALUE_PREFIX, FIELD(file_prefix), 0, 0, 0, NULL, 0},
    {"rotate_hourly", VALUE_BOOL, FIELD(rotate_hourly), 0, 0, 0, NULL, 0},
    {"compress", VALUE_CHOICE, FIELD(compress), 0, 0, 0, compressions, 0},
    {"check_interval_ms", VALUE_MS, FIELD(check_interval_ms), 1, 86400000, 0, NULL, 0},
    {"file_layout", VALUE_CHOICE, FIELD(file_layout), 0, 0, 0, layouts, 1},
    {"file_pattern", VALUE_PATTERN, FIELD(file_pattern), 0, 0, 0, NULL, 0},
    {"file_level", VALUE_LEVEL, FIELD(file_level), 0, 0, 0, NULL, 0},
};

/* [console]: the console_* fields, named as a sink's own fields are. */
static const key console_keys[] = {
    {"output", VALUE_OUTPUT, FIELD(console), 0, INT_MAX, 0, outputs, 0},
    {"level", VALUE_LEVEL, FIELD(console_level), 0, 0, 0, NULL, 0},
    {"buffer", VALUE_SIZE, FIELD(console_buffer), 64 * KIB, SIZE_MAX, 0, NULL, 0},
    {"color", VALUE_CHOICE, FIELD(console_color), 0, 0, 0, colors, 0},
    {"layout", VALUE_CHOICE, FIELD(console_layout), 0, 0, 0, layouts, 0},
    {"pattern", VALUE_PATTERN, FIELD(console_pattern), 0, 0, 0, NULL, 0},
};

/* [syslog NAME]: xlog_syslog_config, its sink's fields by their own names. */
static const key syslog_keys[] = {
    {"level", VALUE_LEVEL, SYSLOG(sink.level), 0, 0, 0, NULL, 0},
    {"filter", VALUE_SINK_FILTER, SYSLOG(sink.filter), 0, 0, 0, NULL, 0},
    {"layout", VALUE_CHOICE, SYSLOG(sink.layout), 0, 0, 0, layouts, 0},
    {"pattern", VALUE_PATTERN, SYSLOG(sink.pattern), 0, 0, 0, NULL, 0},
    {"transport", VALUE_CHOICE, SYSLOG(transport), 0, 0, 0, transports, 0},
    {"address", VALUE_STRING, SYSLOG(address), 0, 0, 0, NULL, 0},
    {"format", VALUE_CHOICE, SYSLOG(format), 0, 0, 0, syslog_formats, 0},
    {"facility", VALUE_FACILITY, SYSLOG(facility), 0, 23, 0, facilities, 0},
    {"app_name", VALUE_STRING, SYSLOG(app_name), 0, 0, 0, NULL, 0},
    {"hostname", VALUE_STRING, SYSLOG(hostname), 0, 0, 0, NULL, 0},
    {"buffer", VALUE_SIZE, SYSLOG(buffer), 64 * KIB, SIZE_MAX, 0, NULL, 0},
};

/* [file NAME]: xlog_file_config, its sink's fields by their own names,
 * the others as the main files' keys name them without "file_". */
static const key file_keys[] = {
    {"level", VALUE_LEVEL, FILES(sink.level), 0, 0, 0, NULL, 0},
    {"filter", VALUE_SINK_FILTER, FILES(sink.filter), 0, 0, 0, NULL, 0},
    {"layout", VALUE_CHOICE, FILES(sink.layout), 0, 0, 0, layouts, 1},
    {"pattern", VALUE_PATTERN, FILES(sink.pattern), 0, 0, 0, NULL, 0},
    {"dir", VALUE_STRING, FILES(dir), 0, 0, 0, NULL, 0},
    {"prefix", VALUE_PREFIX, FILES(prefix), 0, 0, 0, NULL, 0},
    {"mode", VALUE_CHOICE, FILES(mode), 0, 0, 0, file_modes, 0},
    {"rotate_hourly", VALUE_BOOL, FILES(rotate_hourly), 0, 0, 0, NULL, 0},
    {"rotate_size", VALUE_SIZE, FILES(rotate_size), 64 * KIB, SIZE_MAX, 1, NULL, 0},
    {"rotate_keep", VALUE_UNSIGNED, FILES(rotate_keep), 1, 100000, 0, NULL, 0},
    {"keep_days", VALUE_UNSIGNED, FILES(keep_days), 0, UINT_MAX, 0, NULL, 0},
    {"compress", VALUE_CHOICE, FILES(compress), 0, 0, 0, compressions, 0},
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
/* The most keys a section has (parser.seen has a slot for each). */
#define MAX_KEYS COUNT(top_keys)
_Static_assert(COUNT(console_keys) <= MAX_KEYS && COUNT(syslog_keys) <= MAX_KEYS &&
                   COUNT(file_keys) <= MAX_KEYS,
               "MAX_KEYS must be the largest section's count");

typedef enum section_id { SECTION_TOP, SECTION_CONSOLE, SECTION_SYSLOG, SECTION_FILE } section_id;

/* The kinds of section: [kind] or [kind NAME]. */
static const struct section_kind {
    const char *name;
    int named;
    const key *keys;
    size_t count;
} sections[] = {
    [SECTION_TOP] = {"", 0, top_keys, COUNT(top_keys)},
    [SECTION_CONSOLE] = {"console", 0, console_keys, COUNT(console_keys)},
    [SECTION_SYSLOG] = {"syslog", 1, syslog_keys, COUNT(syslog_keys)},
    [SECTION_FILE] = {"file", 1, file_keys, COUNT(file_keys)},
};

/* ---- what a file owns --------------------------------------------------- */

/* A [syslog NAME] or [file NAME] section: its sink's configuration, which
 * starts with its xlog_sink_config either way. */
typedef struct sink_section {
    section_id kind;
    char *name;
    unsigned line;
    union {
        xlog_syslog_config syslog;
        xlog_file_config file;
    } config;
} sink_section;

struct xlog_config_file {
    char *filter;
    sink_section *sections;
    size_t section_count;
    const xlog_sink_config **sinks; /* what cfg.sinks points to, or NULL */
    char **strings;
    size_t string_count, string_room;
};

void xlog_config_file_free(xlog_config_file *file)
{
    if (!file)
        return;
    for (size_t i = 0; i < file->string_count; i++)
        free(file->strings[i]);
    free(file->strings);
    free(file->sections);
    free(file->sinks);
    free(file);
}

const char *xlog_config_file_filter(const xlog_config_file *file)
{
    return file->filter;
}

/* A copy of text[0..length) that the file owns, or NULL (no memory). */
static char *keep(xlog_config_file *file, const char *text, size_t length)
{
    if (file->string_count == file->string_room) {
        size_t room = file->string_room ? 2 * file->string_room : 16;
        char **grown = realloc(file->strings, room * sizeof *grown);
        if (!grown)
            return NULL;
        file->strings = grown;
        file->string_room = room;
    }
    char *copy = malloc(length + 1);
    if (!copy)
        return NULL;
    memcpy(copy, text, length);
    copy[length] = '\0';
    file->strings[file->string_count++] = copy;
    return copy;
}

/* ---- the parse ---------------------------------------------------------- */

typedef struct parser {
    const char *name; /* the path, for messages */
    unsigned line;
    xlog_config cfg; /* the caller's, as the file changes it */
    xlog_config_file *file;
    section_id section;
    unsigned seen[MAX_KEYS]; /* line of each key of the section, 0: not yet */
    unsigned console_line;   /* where [console] began, 0: nowhere */
} parser;

/* Fails the parse: "name:line:column: what". */
static int fail(const parser *p, size_t column, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(const parser *p, size_t column, const char *format, ...)
{
    char what[400];
    va_list ap;
    va_start(ap, format);
    vsnprintf(what, sizeof what, format, ap);
    va_end(ap);
    xlog_set_error("%.200s:%u:%zu: %s", p->name, p->line, column, what);
    return -EINVAL;
}

static int no_memory(const parser *p)
{
    xlog_set_error("%.200s: out of memory", p->name);
    return -ENOMEM;
}

static int blank(char c)
{
    return c == ' ' || c == '\t';
}

static int key_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static int name_char(char c)
{
    return key_char(c) || c == '-' || c == '.';
}

/* Whether key k takes choice c. */
static int takes(const key *k, const choice *c)
{
    return !c->files_only || (k && k->files);
}

/* "a, b or c": the names of a list that k takes, for messages. */
static void list_names(const key *k, const choice *choices, char *out, size_t size)
{
    size_t n = 0, used = 0, shown = 0;
    for (const choice *c = choices; c->name; c++)
        n += takes(k, c);
    out[0] = '\0';
    for (const choice *c = choices; c->name && used < size; c++) {
        if (!takes(k, c))
            continue;
        shown++;
        used += (size_t)snprintf(out + used, size - used, "%s%s",
                                 shown == 1 ? "" : shown == n ? " or " : ", ", c->name);
    }
}

static const choice *find_choice(const key *k, const choice *choices, const char *text,
                                 size_t length)
{
    for (const choice *c = choices; c->name; c++)
        if (takes(k, c) && strlen(c->name) == length && memcmp(c->name, text, length) == 0)
            return c;
    return NULL;
}

/* A number of decimal digits only: 0 and *out, or -1 (not one) or -2
 * (beyond 2^64 - 1); *end is where its digits stop. */
static int read_digits(const char *text, size_t length, uint64_t *out, size_t *end)
{
    size_t i = 0;
    uint64_t n = 0;
    while (i < length && text[i] >= '0' && text[i] <= '9') {
        unsigned digit = (unsigned)(text[i] - '0');
        if (n > (UINT64_MAX - digit) / 10)
            return -2;
        n = n * 10 + digit;
        i++;
    }
    if (i == 0)
        return -1;
    *out = n;
    *end = i;
    return 0;
}

/* A size: "65536", "64K", "1M", "2G" (K = 1024 bytes). */
static int read_size(const char *text, size_t length, uint64_t *out)
{
    size_t end;
    int rc = read_digits(text, length, out, &end);
    if (rc != 0)
        return rc;
    if (end == length)
        return 0;
    if (end + 1 != length)
        return -1;
    uint64_t unit = text[end] == 'K' ? KIB : text[end] == 'M' ? MIB : text[end] == 'G' ? GIB : 0;
    if (unit == 0)
        return -1;
    if (*out > UINT64_MAX / unit)
        return -2;
    *out *= unit;
    return 0;
}

/* A duration in the field's unit (microseconds per unit): a plain number
 * is in that unit; "250ms", "2s", "500us", "1m", "1h" are converted, and
 * must come to a whole number of it.  -3: not whole. */
static int read_duration(const char *text, size_t length, uint64_t field_us, uint64_t *out)
{
    static const struct {
        const char *suffix;
        uint64_t us;
    } units[] = {{"us", 1}, {"ms", 1000}, {"s", 1000000}, {"m", 60000000}, {"h", 3600000000}};
    size_t end;
    int rc = read_digits(text, length, out, &end);
    if (rc != 0 || end == length)
        return rc;
    for (size_t i = 0; i < COUNT(units); i++) {
        if (strlen(units[i].suffix) != length - end ||
            memcmp(units[i].suffix, text + end, length - end) != 0)
            continue;
        if (*out > UINT64_MAX / units[i].us)
            return -2;
        uint64_t us = *out * units[i].us;
        if (us % field_us != 0)
            return -3;
        *out = us / field_us;
        return 0;
    }
    return -1;
}

/* A bound of a size for messages: "64K" when it is whole in K, M or G. */
static void show_size(uint64_t n, char *out, size_t size)
{
    if (n >= GIB && n % GIB == 0)
        snprintf(out, size, "%lluG", (unsigned long long)(n / GIB));
    else if (n >= MIB && n % MIB == 0)
        snprintf(out, size, "%lluM", (unsigned long long)(n / MIB));
    else if (n >= KIB && n % KIB == 0)
        snprintf(out, size, "%lluK", (unsigned long long)(n / KIB));
    else
        snprintf(out, size, "%llu", (unsigned long long)n);
}

static void store_int(void *target, const key *k, int value)
{
    memcpy((char *)target + k->offset, &value, sizeof value);
}

/* Reads value (length bytes, at column) for key k into target (the
 * section's structure). */
static int set_value(parser *p, void *target, const key *k, const char *value, size_t length,
                     size_t column)
{
    int shown = length > SHOWN ? SHOWN : (int)length;
    const char *cut = length > SHOWN ? "..." : "";
    char names[256];
    switch (k->kind) {
    case VALUE_STRING:
    case VALUE_PATTERN:
    case VALUE_FILTER:
    case VALUE_SINK_FILTER:
    case VALUE_PREFIX: {
        char *copy = keep(p->file, value, length);
        if (!copy)
            return no_memory(p);
        if (k->kind == VALUE_FILTER) {
            if (xlog_apply_filter(copy, "filter", XLOG_INFO, 1) != 0)
                goto prefixed;
            p->file->filter = copy;
            return 0;
        }
        xlog_rules rules = {.process = XLOG_TRACE};
        if (k->kind == VALUE_SINK_FILTER && xlog_rules_parse(copy, "filter", &rules) != 0)
            goto prefixed;
        if (k->kind == VALUE_PREFIX && xlog_file_prefix_check(copy, k->name) != 0)
            goto prefixed;
        if (k->kind == VALUE_PATTERN) {
            xlog_layout *layout;
            int rc = xlog_layout_create(&layout, XLOG_LAYOUT_TEXT, copy, NULL, k->name);
            if (rc == -ENOMEM)
                return no_memory(p);
            if (rc != 0)
                goto prefixed;
            xlog_layout_destroy(layout);
        }
        const char *stored = copy;
        memcpy((char *)target + k->offset, &stored, sizeof stored);
        return 0;
    prefixed: {
        char where[300];
        snprintf(where, sizeof where, "%.200s:%u:%zu", p->name, p->line, column);
        xlog_prefix_error(where);
        return -EINVAL;
    }
    }
    case VALUE_LEVEL: {
        int level = xlog_parse_level(value, length);
        if (level < 0)
            return fail(p, column,
                        "%s: \"%.*s%s\" is not a level (trace, debug, info, warn or warning, "
                        "error or err, fatal or off)",
                        k->name, shown, value, cut);
        store_int(target, k, level);
        return 0;
    }
    case VALUE_BOOL: {
        const choice *c = find_choice(k, (const choice[]){{"false", 0, 0}, {"true", 1, 0},
                                                          {NULL, 0, 0}},
                                      value, length);
        if (!c)
            return fail(p, column, "%s: \"%.*s%s\" is not true or false", k->name, shown, value,
                        cut);
        store_int(target, k, c->value);
        return 0;
    }
    case VALUE_CHOICE:
    case VALUE_OUTPUT:
    case VALUE_FACILITY: {
        const choice *c = find_choice(k, k->choices, value, length);
        if (c) {
            store_int(target, k, c->value);
            return 0;
        }
        list_names(k, k->choices, names, sizeof names);
        if (k->kind == VALUE_CHOICE)
            return fail(p, column, "%s: \"%.*s%s\" is not %s", k->name, shown, value, cut, names);
        uint64_t n;
        size_t end;
        int rc = read_digits(value, length, &n, &end);
        if (rc == -1 || (rc == 0 && end != length))
            return fail(p, column, "%s: \"%.*s%s\" is not %s, or a number", k->name, shown,
                        value, cut, names);
        if (rc == -2 || n > k->max)
            return fail(p, column, "%s: \"%.*s%s\" is not between 0 and %llu", k->name, shown,
                        value, cut, (unsigned long long)k->max);
        store_int(target, k, (int)n);
        return 0;
    }
    case VALUE_UNSIGNED:
    case VALUE_SIZE:
    case VALUE_MS:
    case VALUE_US: {
        uint64_t n = 0;
        size_t end;
        int rc;
        const char *expected;
        if (k->kind == VALUE_SIZE) {
            rc = read_size(value, length, &n);
            expected = "a size (a number of bytes, or of K, M or G: 1K is 1024 bytes)";
        } else if (k->kind == VALUE_UNSIGNED) {
            rc = read_digits(value, length, &n, &end);
            if (rc == 0 && end != length)
                rc = -1;
            expected = "a number";
        } else {
            int ms = k->kind == VALUE_MS;
            rc = read_duration(value, length, ms ? 1000 : 1, &n);
            expected = ms ? "a duration (milliseconds, or a number followed by us, ms, s, m or h)"
                          : "a duration (microseconds, or a number followed by us, ms, s, m or "
                            "h)";
            if (rc == -3)
                return fail(p, column, "%s: \"%.*s%s\" is not a whole number of %s", k->name,
                            shown, value, cut, ms ? "milliseconds" : "microseconds");
        }
        if (rc == -1)
            return fail(p, column, "%s: \"%.*s%s\" is not %s", k->name, shown, value, cut,
                        expected);
        char low[32], high[32];
        if (k->kind == VALUE_SIZE) {
            show_size(k->min, low, sizeof low);
            show_size(k->max, high, sizeof high);
        } else {
            snprintf(low, sizeof low, "%llu", (unsigned long long)k->min);
            snprintf(high, sizeof high, "%llu", (unsigned long long)k->max);
        }
        int beyond = rc == -2 || n > k->max;
        if (beyond || (n < k->min && !(k->zero_too && n == 0))) {
            if (k->zero_too)
                return fail(p, column, "%s: \"%.*s%s\" is neither 0 nor at least %s", k->name,
                            shown, value, cut, low);
            if (k->max == SIZE_MAX || (k->max == UINT_MAX && k->kind != VALUE_SIZE)) {
                if (!beyond)
                    return fail(p, column, "%s: \"%.*s%s\" is below %s", k->name, shown, value,
                                cut, low);
                return fail(p, column, "%s: \"%.*s%s\" is above %s", k->name, shown, value,
                            cut, high);
            }
            return fail(p, column, "%s: \"%.*s%s\" is not between %s and %s", k->name, shown,
                        value, cut, low, high);
        }
        if (k->kind == VALUE_SIZE) {
            size_t stored = (size_t)n;
            memcpy((char *)target + k->offset, &stored, sizeof stored);
        } else {
            unsigned stored = (unsigned)n;
            memcpy((char *)target + k->offset, &stored, sizeof stored);
        }
        return 0;
    }
    }
    __builtin_unreachable(); /* every kind returns above */
}

/* "[kind]" or "[kind NAME]" at line[open], up to a comment. */
static int begin_section(parser *p, const char *line, size_t length, size_t open)
{
    size_t i = open + 1;
    while (i < length && blank(line[i]))
        i++;
    size_t kind_at = i;
    while (i < length && key_char(line[i]))
        i++;
    size_t kind_length = i - kind_at;
    while (i < length && blank(line[i]))
        i++;
    size_t name_at = i;
    while (i < length && line[i] != ']' && line[i] != '#')
        i++;
    size_t name_length = i - name_at;
    while (name_length && blank(line[name_at + name_length - 1]))
        name_length--;
    if (i == length || line[i] != ']')
        return fail(p, i + 1, "\"]\" missing at the end of the section's header");
    size_t close = i++;
    while (i < length && blank(line[i]))
        i++;
    if (i < length && line[i] != '#')
        return fail(p, i + 1, "text after the section's header");
    const char *kind = line + kind_at;
    section_id id = SECTION_TOP;
    for (size_t s = 1; s < COUNT(sections); s++)
        if (strlen(sections[s].name) == kind_length &&
            memcmp(sections[s].name, kind, kind_length) == 0)
            id = (section_id)s;
    if (id == SECTION_TOP)
    {
        size_t shown = (name_length ? name_at + name_length : kind_at + kind_length) - kind_at;
        return fail(p, kind_at + 1, "unknown section [%.*s] (console, syslog NAME or file NAME)",
                    (int)(shown > SHOWN ? SHOWN : shown), kind);
    }
    const char *name = line + name_at;
    if (!sections[id].named && name_length)
        return fail(p, name_at + 1, "[%s] takes no name", sections[id].name);
    if (sections[id].named && !name_length)
        return fail(p, close + 1, "[%s] needs a name: [%s NAME]", sections[id].name,
                    sections[id].name);
    for (size_t j = 0; j < name_length; j++)
        if (!name_char(name[j]) || name_length > MAX_SECTION_NAME)
            return fail(p, name_at + 1,
                        "\"%.*s\" is not a section name (letters, digits, '_', '-' and '.', at "
                        "most %d bytes)",
                        (int)(name_length > SHOWN ? SHOWN : name_length), name, MAX_SECTION_NAME);
    memset(p->seen, 0, sizeof p->seen);
    p->section = id;
    if (id == SECTION_CONSOLE) {
        if (p->console_line)
            return fail(p, open + 1, "[console] given twice (first on line %u)", p->console_line);
        p->console_line = p->line;
        return 0;
    }
    xlog_config_file *f = p->file;
    for (size_t s = 0; s < f->section_count; s++)
        if (f->sections[s].kind == id && strlen(f->sections[s].name) == name_length &&
            memcmp(f->sections[s].name, name, name_length) == 0)
            return fail(p, open + 1, "[%s %.*s] given twice (first on line %u)", sections[id].name,
                        (int)name_length, name, f->sections[s].line);
    if (f->section_count == MAX_SINK_SECTIONS)
        return fail(p, open + 1, "more than %d sink sections ([syslog NAME] and [file NAME])",
                    MAX_SINK_SECTIONS);
    sink_section *grown = realloc(f->sections, (f->section_count + 1) * sizeof *grown);
    if (!grown)
        return no_memory(p);
    f->sections = grown;
    char *kept = keep(f, name, name_length);
    if (!kept)
        return no_memory(p);
    sink_section *section = &f->sections[f->section_count++];
    memset(section, 0, sizeof *section);
    section->kind = id;
    section->name = kept;
    section->line = p->line;
    if (id == SECTION_SYSLOG)
        section->config.syslog = xlog_syslog_defaults();
    else
        section->config.file = xlog_file_defaults();
    return 0;
}

/* "key = value" (a comment may follow). */
static int set_key(parser *p, const char *line, size_t length, size_t key_at, char *unquoted)
{
    size_t i = key_at;
    while (i < length && key_char(line[i]))
        i++;
    size_t key_length = i - key_at;
    if (key_length == 0)
        return fail(p, key_at + 1, "expected a key = value, a [section] or a # comment");
    const char *name = line + key_at;
    while (i < length && blank(line[i]))
        i++;
    if (i == length || line[i] != '=')
        return fail(p, i + 1, "\"=\" missing after the key \"%.*s\"", (int)key_length, name);
    i++;
    while (i < length && blank(line[i]))
        i++;
    size_t value_at = i;
    const char *value;
    size_t value_length;
    if (i < length && line[i] == '"') {
        /* Quoted: up to the next '"' not escaped; \" and \\ are the only
         * escapes. */
        size_t n = 0;
        for (i++;; i++) {
            if (i == length)
                return fail(p, value_at + 1, "unterminated quoted string");
            if (line[i] == '"')
                break;
            if (line[i] == '\\') {
                if (i + 1 < length && (line[i + 1] == '"' || line[i + 1] == '\\'))
                    i++;
                else
                    return fail(p, i + 1, "unknown escape in a quoted string (only \\\" and \\\\)");
            }
            unquoted[n++] = line[i];
        }
        i++;
        while (i < length && blank(line[i]))
            i++;
        if (i < length && line[i] != '#')
            return fail(p, i + 1, "text after the closing quote");
        value = unquoted;
        value_length = n;
    } else {
        size_t end = i;
        while (end < length && line[end] != '#')
            end++;
        while (end > i && blank(line[end - 1]))
            end--;
        value = line + i;
        value_length = end - i;
        if (value_length == 0)
            return fail(p, value_at + 1, "%.*s has no value (\"\" is the empty string)",
                        (int)key_length, name);
    }
    const struct section_kind *s = &sections[p->section];
    const key *k = NULL;
    size_t index = 0;
    for (; index < s->count; index++)
        if (strlen(s->keys[index].name) == key_length &&
            memcmp(s->keys[index].name, name, key_length) == 0) {
            k = &s->keys[index];
            break;
        }
    if (!k) {
        int shown = key_length > SHOWN ? SHOWN : (int)key_length;
        if (p->section == SECTION_TOP)
            return fail(p, key_at + 1, "unknown key \"%.*s\"", shown, name);
        for (size_t t = 0; t < COUNT(top_keys); t++)
            if (strlen(top_keys[t].name) == key_length &&
                memcmp(top_keys[t].name, name, key_length) == 0)
                return fail(p, key_at + 1, "%s is not a key of a section: it goes before the "
                            "first section", top_keys[t].name);
        if (p->section == SECTION_CONSOLE)
            return fail(p, key_at + 1, "unknown key \"%.*s\" in [console]", shown, name);
        return fail(p, key_at + 1, "unknown key \"%.*s\" in [%s %s]", shown, name,
                    sections[p->section].name,
                    p->file->sections[p->file->section_count - 1].name);
    }
    if (p->seen[index])
        return fail(p, key_at + 1, "%s given twice (first on line %u)", k->name, p->seen[index]);
    p->seen[index] = p->line;
    void *target = p->section == SECTION_SYSLOG || p->section == SECTION_FILE
                       ? (void *)&p->file->sections[p->file->section_count - 1].config
                       : (void *)&p->cfg;
    return set_value(p, target, k, value, value_length, value_at + 1);
}

/* One line (without its end), at most MAX_LINE bytes. */
static int parse_line(parser *p, const char *line, size_t length, char *unquoted)
{
    for (size_t i = 0; i < length; i++) {
        unsigned char c = (unsigned char)line[i];
        if (c == '\0')
            return fail(p, i + 1, "a NUL byte");
        if ((c < 0x20 && c != '\t') || c == 0x7f)
            return fail(p, i + 1, "control character 0x%02x", c);
    }
    size_t i = 0;
    while (i < length && blank(line[i]))
        i++;
    if (i == length || line[i] == '#')
        return 0;
    if (line[i] == '[')
        return begin_section(p, line, length, i);
    return set_key(p, line, length, i, unquoted);
}

int xlog_config_file_parse(const char *name, const char *text, size_t length, xlog_config *cfg,
                           xlog_config_file **out)
{
    parser p;
    memset(&p, 0, sizeof p);
    p.name = name;
    p.cfg = *cfg;
    p.section = SECTION_TOP;
    p.file = calloc(1, sizeof *p.file);
    char *unquoted = malloc(MAX_LINE);
    int rc = 0;
    if (!p.file || !unquoted)
        rc = no_memory(&p);
    /* A UTF-8 byte order mark, as some editors write, is not text. */
    size_t at = 0;
    if (length >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
        at = 3;
    while (rc == 0 && at < length) {
        p.line++;
        const char *line = text + at;
        const char *newline = memchr(line, '\n', length - at);
        size_t line_length = newline ? (size_t)(newline - line) : length - at;
        at += line_length + (newline ? 1 : 0);
        if (line_length && line[line_length - 1] == '\r') /* CRLF */
            line_length--;
        if (line_length > MAX_LINE)
            rc = fail(&p, MAX_LINE + 1, "line longer than %d bytes", MAX_LINE);
        else
            rc = parse_line(&p, line, line_length, unquoted);
    }
    free(unquoted);
    if (rc == 0 && p.file->section_count) {
        /* The program's sinks, then the file's, in the file's order. */
        size_t given = 0;
        while (cfg->sinks && cfg->sinks[given])
            given++;
        p.file->sinks = calloc(given + p.file->section_count + 1, sizeof *p.file->sinks);
        if (!p.file->sinks) {
            rc = no_memory(&p);
        } else {
            for (size_t i = 0; i < given; i++)
                p.file->sinks[i] = cfg->sinks[i];
            for (size_t i = 0; i < p.file->section_count; i++) {
                sink_section *section = &p.file->sections[i];
                p.file->sinks[given + i] = section->kind == SECTION_SYSLOG
                                               ? &section->config.syslog.sink
                                               : &section->config.file.sink;
            }
            p.cfg.sinks = p.file->sinks;
        }
    }
    if (rc != 0) {
        xlog_config_file_free(p.file);
        return rc == -ENOMEM ? -ENOMEM : -EINVAL;
    }
    *cfg = p.cfg;
    *out = p.file;
    return 0;
}

int xlog_config_file_load(const char *path, xlog_config *cfg, xlog_config_file **out)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        xlog_set_error("%.200s: cannot read: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -EINVAL;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        xlog_set_error("%.200s: cannot read: %s", path,
                       S_ISDIR(st.st_mode) ? strerror(EISDIR) : "not a regular file");
        return -EINVAL;
    }
    /* One byte more than allowed tells a file that is too long. */
    char *text = malloc(MAX_FILE + 1);
    if (!text) {
        close(fd);
        xlog_set_error("%.200s: out of memory", path);
        return -ENOMEM;
    }
    size_t length = 0;
    while (length <= MAX_FILE) {
        ssize_t n = read(fd, text + length, MAX_FILE + 1 - length);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            xlog_set_error("%.200s: cannot read: %s", path, strerror(errno));
            close(fd);
            free(text);
            return -EINVAL;
        }
        if (n == 0)
            break;
        length += (size_t)n;
    }
    close(fd);
    int rc;
    if (length > MAX_FILE) {
        xlog_set_error("%.200s: longer than %d bytes: not a configuration file", path, MAX_FILE);
        rc = -EINVAL;
    } else {
        rc = xlog_config_file_parse(path, text, length, cfg, out);
    }
    free(text);
    return rc;
}
