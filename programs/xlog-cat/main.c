/*
 * xlog-cat - shows binary log files (.xlog, docs/BINARY.md) as the lines the
 * text layout would have written, byte for byte (or a pattern's, or JSON
 * objects): the decoder (lib/binary/decode.h) makes each entry the event the
 * back end would have made, and the library's own layouts write it.
 *
 *   xlog-cat [OPTIONS] FILE...
 *
 * Several files are merged by time (a k-way merge: each file's own order is
 * kept, and of entries with the same time the earlier file on the command
 * line comes first).  A file may be gzip-compressed (read through zlib,
 * which reads a file that is not compressed as it is).  The usage text below
 * says the rest.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include <xlog.h>

#include "binary/decode.h"
#include "frontend/filter.h"
#include "layouts/layout.h"

static const char usage[] =
    "usage: xlog-cat [OPTIONS] FILE...\n"
    "Shows binary xlog files (.xlog, also gzip-compressed .xlog.gz) as the lines\n"
    "the text layout writes, merged by time (of equal times, the earlier FILE's\n"
    "first; each file's own order is kept, and within a file each process's:\n"
    "the lines of processes sharing a file are put back in time order; with -f,\n"
    "a file's lines come in the order they were written).\n"
    "\n"
    "  --pattern P     lines by the text pattern P (xlog.h, \"Layouts\"), e.g.\n"
    "                  '{time:iso,ms} {level} {module} {message}'\n"
    "  --json          JSON objects, as the JSON layout writes them\n"
    "  --level F       only what the filter F lets through, in the syntax of\n"
    "                  XLOG_LEVEL: 'warn', 'info,net=debug' (a module without a\n"
    "                  rule of its own shows every level unless F names a level)\n"
    "  --module M      only the module M and the modules under it (net: net,\n"
    "                  net.tls); may be given several times\n"
    "  --since T       only entries at time T or later (UTC)\n"
    "  --until T       only entries before time T (UTC)\n"
    "                  T is YYYY-MM-DD, YYYY-MM-DD HH:MM, YYYY-MM-DD HH:MM:SS or\n"
    "                  YYYY-MM-DD HH:MM:SS.fraction (up to 9 digits), with 'T'\n"
    "                  for the space if you like and an optional final 'Z'\n"
    "  --tid N         only the thread N\n"
    "  --pid N         only the process N\n"
    "  --grep TEXT     only messages that contain TEXT (the message as logged,\n"
    "                  before escaping)\n"
    "  -f, --follow    keep reading the files as they grow, and follow each name\n"
    "                  to a new file when it is rotated (like tail -F; a NAME.xlog\n"
    "                  rotated several times between two looks, every 0.1 s, to\n"
    "                  NAME.1.xlog, NAME.2.xlog, ..., is read file after file);\n"
    "                  a name that leads nowhere yet is waited for, a .gz is read\n"
    "                  once; stop with Ctrl-C\n"
    "  --locale        render as a program that called setlocale(LC_ALL, \"\")\n"
    "                  in this environment does (%ls and %lc of characters\n"
    "                  beyond ASCII, the ' flag, the decimal point); without it,\n"
    "                  as a program that did not (the C locale)\n"
    "  --help          this text\n"
    "\n"
    "Damage (a file that is not a binary log, a cut or garbled block, garbage\n"
    "between blocks) is reported on stderr with the file and the byte, and the\n"
    "rest is read.  Exit status: 0, or 1 after any such report or a usage error.\n";

/* ---- options ----------------------------------------------------------------- */

static struct options {
    int follow;
    int json;
    const char *pattern;
    int level_filter; /* --level given */
    const char **modules;
    size_t module_count;
    int64_t since, until;
    long tid, pid; /* -1: any */
    const char *grep;
    size_t grep_length;
} opt = {.since = INT64_MIN, .until = INT64_MAX, .tid = -1, .pid = -1};

static int status; /* the exit status: 1 once anything was reported */

static void flush_output(void);

/* A message on stderr after the lines before it (on a terminal, or both
 * streams into one file, it stands where the damage is). */
static void report(const char *format, ...) __attribute__((format(printf, 1, 2)));
/* While a file is read only to learn its writers, its messages are held
 * here: said once, by the reading that shows its lines. */
static FILE *held_reports;

static void report(const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    if (held_reports) {
        fputs("xlog-cat: ", held_reports);
        vfprintf(held_reports, format, ap);
        fputc('\n', held_reports);
        va_end(ap);
        return;
    }
    flush_output();
    fputs("xlog-cat: ", stderr);
    vfprintf(stderr, format, ap);
    fputc('\n', stderr);
    va_end(ap);
    status = 1;
}

/* Reads digits [min, max] of them into *v; the end, or NULL. */
static const char *digits(const char *p, int min, int max, long *v, int *count)
{
    long value = 0;
    int n = 0;
    while (n < max && *p >= '0' && *p <= '9') {
        value = value * 10 + (*p++ - '0');
        n++;
    }
    if (n < min)
        return NULL;
    *v = value;
    if (count)
        *count = n;
    return p;
}

/* A time as the usage says, into UTC nanoseconds; 0 or -1. */
static int parse_time(const char *text, int64_t *ns)
{
    long year, month, day, hour = 0, minute = 0, second = 0, fraction = 0;
    int fraction_digits = 0;
    const char *p = text;
    if (!(p = digits(p, 4, 4, &year, NULL)) || *p++ != '-' ||
        !(p = digits(p, 2, 2, &month, NULL)) || *p++ != '-' ||
        !(p = digits(p, 2, 2, &day, NULL)))
        return -1;
    if (*p == ' ' || *p == 'T') {
        p++;
        if (!(p = digits(p, 2, 2, &hour, NULL)) || *p++ != ':' ||
            !(p = digits(p, 2, 2, &minute, NULL)))
            return -1;
        if (*p == ':') {
            if (!(p = digits(p + 1, 2, 2, &second, NULL)))
                return -1;
            if (*p == '.' && !(p = digits(p + 1, 1, 9, &fraction, &fraction_digits)))
                return -1;
        }
    }
    if (*p == 'Z')
        p++;
    if (*p || month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 ||
        second > 60)
        return -1;
    struct tm tm = {.tm_year = (int)year - 1900, .tm_mon = (int)month - 1, .tm_mday = (int)day,
                    .tm_hour = (int)hour, .tm_min = (int)minute, .tm_sec = (int)second};
    time_t t = timegm(&tm);
    if (tm.tm_mday != day) /* 2026-02-30 */
        return -1;
    for (int i = fraction_digits; i < 9; i++)
        fraction *= 10;
    *ns = (int64_t)t * 1000000000 + fraction;
    return 0;
}

static int parse_id(const char *text, long *id)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end || v < 0 || v > INT_MAX)
        return -1;
    *id = v;
    return 0;
}

/* ---- output ------------------------------------------------------------------ */

static struct output {
    char *buf;
    size_t length, capacity;
    xlog_layout *layout;
} out;

static void flush_output(void)
{
    size_t done = 0;
    while (done < out.length) {
        ssize_t n = write(STDOUT_FILENO, out.buf + done, out.length - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (errno != EPIPE)
                fprintf(stderr, "xlog-cat: writing: %s\n", strerror(errno));
            exit(1);
        }
        done += (size_t)n;
    }
    out.length = 0;
}

static void write_line(const xlog_line_event *ev)
{
    size_t need = xlog_layout_max_line(out.layout, ev->pub.message_length);
    if (out.capacity - out.length < need) {
        flush_output();
        if (need > out.capacity) {
            char *buf = realloc(out.buf, need);
            if (!buf) {
                report("out of memory");
                exit(1);
            }
            out.buf = buf;
            out.capacity = need;
        }
    }
    out.length += xlog_layout_write(out.layout, ev, out.buf + out.length);
}

/* ---- inputs ------------------------------------------------------------------ */

/* Bytes read at a time: every file of a merge holds a buffer of at least
 * twice this, and zlib one of ZLIB_BUFFER. */
#define READ_SIZE (256u << 10)
#define ZLIB_BUFFER (64u << 10)

typedef struct input {
    const char *path;
    int order;              /* on the command line: equal times come in this order */
    int follow;             /* -f, and not a .gz (which does not grow) */
    gzFile gz;              /* when not following */
    int stream_fd;          /* ... the descriptor it reads (zlib closes it) */
    int fd;                 /* when following; -1 while the name leads nowhere */
    dev_t dev;
    ino_t ino;
    uint8_t *buf;           /* the file's bytes from offset on */
    uint64_t offset;
    size_t length, capacity;
    int eof;
    xlog_binary_reader *reader;
    const xlog_binary_entry *entry; /* the next one to show, or NULL */
} input;

/* A new reader, for the file's start. */
static void restart(input *in)
{
    xlog_binary_reader_free(in->reader);
    in->reader = xlog_binary_reader_new(in->path);
    if (!in->reader) {
        report("out of memory");
        exit(1);
    }
    in->offset = 0;
    in->length = 0;
    in->eof = 0;
    in->entry = NULL;
}

/* Reads the input through zlib from fd (the result of an open: -1 fails
 * with its errno); 0 or -1. */
static int open_stream(input *in, int fd)
{
    if (fd < 0)
        return -1;
    in->gz = gzdopen(fd, "rb");
    if (!in->gz) {
        close(fd);
        errno = ENOMEM;
        return -1;
    }
    gzbuffer(in->gz, ZLIB_BUFFER);
    in->stream_fd = fd;
    return 0;
}

/* A descriptor of the file that from's stream reads, at its start, with an
 * offset of its own, whatever its name leads to by now (renamed, removed,
 * another file in its place): through /proc; without /proc, through its
 * name if that still leads to it (else ESTALE).  -1 with errno set. */
static int open_same_file(const input *from)
{
    char proc[48];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", from->stream_fd);
    int fd = open(proc, O_RDONLY | O_CLOEXEC);
    if (fd >= 0 || errno != ENOENT)
        return fd;
    fd = open(from->path, O_RDONLY | O_CLOEXEC);
    struct stat was, now;
    if (fd >= 0 && (fstat(from->stream_fd, &was) != 0 || fstat(fd, &now) != 0 ||
                    was.st_dev != now.st_dev || was.st_ino != now.st_ino)) {
        close(fd);
        errno = ESTALE;
        return -1;
    }
    return fd;
}

/* Opens the input's name (when following, for reading as it grows). */
static int open_input(input *in)
{
    restart(in);
    if (in->follow) {
        in->fd = open(in->path, O_RDONLY | O_CLOEXEC);
        struct stat st;
        if (in->fd < 0 || fstat(in->fd, &st) != 0)
            return -1;
        in->dev = st.st_dev;
        in->ino = st.st_ino;
        return 0;
    }
    return open_stream(in, open(in->path, O_RDONLY | O_CLOEXEC));
}

/* Reads more of the file; the bytes read (0 at its end, for now). */
static size_t fill(input *in)
{
    uint64_t keep = xlog_binary_keep_from(in->reader);
    if (keep > in->offset) {
        size_t drop = (size_t)(keep - in->offset);
        memmove(in->buf, in->buf + drop, in->length - drop);
        in->length -= drop;
        in->offset = keep;
    }
    if (in->capacity - in->length < READ_SIZE / 2) {
        size_t capacity = in->capacity ? in->capacity * 2 : READ_SIZE;
        while (capacity - in->length < READ_SIZE / 2)
            capacity *= 2;
        uint8_t *buf = realloc(in->buf, capacity);
        if (!buf) {
            report("out of memory");
            exit(1);
        }
        in->buf = buf;
        in->capacity = capacity;
    }
    size_t room = in->capacity - in->length;
    if (room > INT_MAX)
        room = INT_MAX;
    if (in->fd >= 0) {
        ssize_t n;
        do
            n = read(in->fd, in->buf + in->length, room);
        while (n < 0 && errno == EINTR);
        if (n < 0) {
            report("%s: %s", in->path, strerror(errno));
            n = 0;
        }
        in->length += (size_t)n;
        return (size_t)n;
    }
    int n = gzread(in->gz, in->buf + in->length, (unsigned)room);
    int code = Z_OK;
    const char *why = n <= 0 ? gzerror(in->gz, &code) : NULL;
    if (code != Z_OK) { /* a read error, or a compressed stream garbled or cut */
        /* zlib puts the stream's name first: "<fd:N>" (gzdopen). */
        char stream[32];
        size_t stream_length = (size_t)snprintf(stream, sizeof stream, "<fd:%d>", in->stream_fd);
        if (strncmp(why, stream, stream_length) == 0 && strncmp(why + stream_length, ": ", 2) == 0)
            why += stream_length + 2;
        report("%s: byte %llu%s: %s", in->path, (unsigned long long)(in->offset + in->length),
               gzdirect(in->gz) ? "" : " of the decompressed data",
               code == Z_ERRNO ? strerror(errno) : why);
        n = 0;
    }
    if (n == 0)
        in->eof = 1;
    in->length += (size_t)n;
    return (size_t)n;
}

static int wanted(const xlog_binary_entry *e)
{
    if (e->time_ns < opt.since || e->time_ns >= opt.until)
        return 0;
    if ((opt.tid >= 0 && e->tid != opt.tid) || (opt.pid >= 0 && e->pid != opt.pid))
        return 0;
    if (opt.module_count) {
        size_t i = 0;
        for (; i < opt.module_count; i++) {
            size_t n = strlen(opt.modules[i]);
            if (strncmp(e->module, opt.modules[i], n) == 0 &&
                (e->module[n] == '\0' || e->module[n] == '.'))
                break;
        }
        if (i == opt.module_count)
            return 0;
    }
    return !opt.level_filter || xlog_module_enabled(e->module, e->level);
}

/* Finds the input's next entry to show (in->entry); 0 when there is none
 * for now (its end, or in follow mode the end of what was written). */
static int advance(input *in)
{
    in->entry = NULL;
    if (!in->reader || (in->follow && in->fd < 0))
        return 0;
    for (;;) {
        int rc = xlog_binary_next(in->reader, in->buf, in->offset, in->length, in->eof);
        switch (rc) {
        case XLOG_BINARY_ENTRY: {
            const xlog_binary_entry *e = xlog_binary_entry_of(in->reader);
            if (wanted(e)) {
                in->entry = e;
                return 1;
            }
            break;
        }
        case XLOG_BINARY_DAMAGE:
            report("%s", xlog_binary_error(in->reader));
            break;
        case XLOG_BINARY_END:
            return 0;
        default: /* XLOG_BINARY_MORE */
            if (fill(in) == 0 && !in->eof)
                return 0; /* following: nothing more yet */
            break;
        }
    }
}

static void show(input *in)
{
    const xlog_line_event *ev = xlog_binary_event(in->reader);
    if (!ev) {
        report("out of memory");
        exit(1);
    }
    if (opt.grep && !memmem(ev->pub.message, ev->pub.message_length, opt.grep, opt.grep_length))
        return;
    write_line(ev);
}

/* ---- merging by time ------------------------------------------------------------ */

/* A binary heap of the inputs with an entry, the earliest first. */
static input **heap;
static size_t heap_count;

static int before(const input *a, const input *b)
{
    if (a->entry->time_ns != b->entry->time_ns)
        return a->entry->time_ns < b->entry->time_ns;
    return a->order < b->order;
}

static void heap_down(size_t i)
{
    for (;;) {
        size_t least = i, l = 2 * i + 1, r = l + 1;
        if (l < heap_count && before(heap[l], heap[least]))
            least = l;
        if (r < heap_count && before(heap[r], heap[least]))
            least = r;
        if (least == i)
            return;
        input *t = heap[i];
        heap[i] = heap[least];
        heap[least] = t;
        i = least;
    }
}

static void heap_push(input *in)
{
    size_t i = heap_count++;
    heap[i] = in;
    while (i && before(heap[i], heap[(i - 1) / 2])) {
        input *t = heap[i];
        heap[i] = heap[(i - 1) / 2];
        heap[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
}

/* Shows every entry the inputs have now, merged by time. */
static void merge(input *inputs, size_t count)
{
    heap_count = 0;
    for (size_t i = 0; i < count; i++)
        if (advance(&inputs[i]))
            heap_push(&inputs[i]);
    while (heap_count) {
        input *in = heap[0];
        show(in);
        if (advance(in)) {
            heap_down(0);
        } else {
            heap[0] = heap[--heap_count];
            heap_down(0);
        }
    }
}

/* ---- files that several processes share -------------------------------------------
 * Each process's back end writes its own lines in time order, but the
 * blocks of processes sharing a file follow each other in the order of
 * their write(2)s, a few milliseconds apart.  So such a file's block
 * headers are read once to learn its writers (reporting its damage but the
 * garbled entries of whole blocks, which are not decoded then), then the
 * file is read once per writer with a reader that skips the others' blocks
 * (reporting the garbled entries of its own whole blocks), and the merge
 * puts all of them in order. */

/* The writers of the input's file, in the order of their first block.  The
 * input's blocks are read to its end and it is opened again; what was wrong
 * with it is said now when it has several writers, and left to the reading
 * that shows its lines when it has one. */
static size_t writers_of(input *in, uint64_t **out)
{
    size_t count = 0, capacity = 0;
    uint64_t *writers = NULL;
    char *said = NULL;
    size_t said_length = 0;
    held_reports = open_memstream(&said, &said_length);
    if (!held_reports) {
        report("out of memory");
        exit(1);
    }
    xlog_binary_blocks_only(in->reader);
    for (;;) {
        int rc = xlog_binary_next(in->reader, in->buf, in->offset, in->length, in->eof);
        if (rc == XLOG_BINARY_END)
            break;
        if (rc == XLOG_BINARY_DAMAGE) {
            report("%s", xlog_binary_error(in->reader));
        } else if (rc == XLOG_BINARY_MORE) {
            fill(in);
        } else {
            uint64_t w = xlog_binary_entry_of(in->reader)->writer;
            size_t i = 0;
            while (i < count && writers[i] != w)
                i++;
            if (i == count) {
                if (count == capacity) {
                    capacity = capacity ? 2 * capacity : 8;
                    writers = realloc(writers, capacity * sizeof *writers);
                    if (!writers) {
                        report("out of memory");
                        exit(1);
                    }
                }
                writers[count++] = w;
            }
        }
    }
    fclose(held_reports);
    held_reports = NULL;
    if (count > 1 && said_length) {
        flush_output();
        fwrite(said, 1, said_length, stderr);
        status = 1;
    }
    free(said);
    /* Read again from its start through the same stream, as the name may
     * lead elsewhere by now (rotated, removed); a stream zlib found broken
     * cannot rewind, and the same file is opened again to say so in its
     * place. */
    restart(in);
    if (gzrewind(in->gz) != 0) {
        int fd = open_same_file(in);
        int error = errno;
        gzclose(in->gz);
        in->gz = NULL;
        errno = error;
        if (open_stream(in, fd) != 0) { /* an input that gives nothing */
            report("%s: %s", in->path, strerror(errno));
            xlog_binary_reader_free(in->reader);
            in->reader = NULL;
        }
    }
    *out = writers;
    return count;
}

/* The inputs, one per writer of a file that several share (not when
 * following, where a file is shown as it grows); *count is updated. */
static input *per_writer(input *inputs, size_t *count)
{
    size_t total = 0, capacity = *count;
    input *all = calloc(capacity, sizeof *all);
    if (!all) {
        report("out of memory");
        exit(1);
    }
    for (size_t i = 0; i < *count; i++) {
        input *in = &inputs[i];
        uint64_t *writers = NULL;
        size_t n = in->reader && !in->follow ? writers_of(in, &writers) : 0;
        if (total + (n > 1 ? n : 1) > capacity) {
            capacity = 2 * (total + (n > 1 ? n : 1));
            input *more = realloc(all, capacity * sizeof *all);
            if (!more) {
                report("out of memory");
                exit(1);
            }
            all = more;
        }
        all[total] = *in;
        all[total].order = (int)total;
        total++;
        for (size_t w = 1; w < n; w++) {
            input *copy = &all[total];
            *copy = *in;
            copy->order = (int)total++;
            copy->reader = NULL;
            copy->buf = NULL;
            copy->capacity = 0;
            restart(copy);
            /* The file just read, not what its name may lead to by now. */
            if (open_stream(copy, open_same_file(in)) != 0) {
                report("%s: %s", copy->path, strerror(errno));
                xlog_binary_reader_free(copy->reader);
                copy->reader = NULL;
            }
        }
        if (n > 1)
            for (size_t w = 0; w < n; w++)
                if (all[total - n + w].reader)
                    xlog_binary_only_writer(all[total - n + w].reader, writers[w]);
        free(writers);
    }
    free(inputs);
    *count = total;
    return all;
}

/* ---- following ------------------------------------------------------------------ */

/* Shows the whole of the file open as fd (plain or gzip-compressed), called
 * name; closes fd. */
static void show_whole(const char *name, int fd)
{
    input in = {.path = name, .fd = -1};
    restart(&in);
    if (open_stream(&in, fd) != 0) {
        report("out of memory");
        exit(1);
    }
    while (advance(&in))
        show(&in);
    gzclose(in.gz);
    xlog_binary_reader_free(in.reader);
    free(in.buf);
}

/* The name of number n of the chain the library rotates a binary file's
 * name into (<stem>.xlog to <stem>.N.xlog, later compressed to
 * <stem>.N.xlog.gz; sinks/rotation.c), suffix "" or ".gz", into out. */
static void numbered_name(const char *path, unsigned n, const char *suffix, char *out,
                          size_t size)
{
    snprintf(out, size, "%.*s.%u.xlog%s", (int)(strlen(path) - 5), path, n, suffix);
}

/* The followed name led to the file dev:ino until it was rotated; if it was
 * rotated more than once since the last look, that file is number K of the
 * chain now, and the files that had the name after it are numbers K-1 to 1:
 * those are shown whole, the oldest first (compressed ones too), before the
 * file that has the name now.  They are all opened before any is read, as a
 * rotation while they are read renames them.  Without that file in the
 * chain (a name that is not <stem>.xlog, a file removed or compressed
 * already), nothing more can be known. */
static void show_rotated_after(const char *path, dev_t dev, ino_t ino)
{
    size_t length = strlen(path);
    if (length < 5 || strcmp(path + length - 5, ".xlog") != 0)
        return;
    size_t size = length + 32;
    char *name = malloc(size);
    if (!name) {
        report("out of memory");
        exit(1);
    }
    unsigned k = 1;
    for (;; k++) {
        struct stat st;
        numbered_name(path, k, "", name, size);
        if (stat(name, &st) == 0) {
            if (st.st_dev == dev && st.st_ino == ino)
                break;
            continue;
        }
        numbered_name(path, k, ".gz", name, size);
        if (stat(name, &st) != 0) {
            free(name);
            return; /* the end of the chain */
        }
    }
    char **names = calloc(k, sizeof *names);
    int *fds = calloc(k, sizeof *fds);
    if (!names || !fds) {
        report("out of memory");
        exit(1);
    }
    for (unsigned n = k - 1; n >= 1; n--) {
        names[n] = malloc(size);
        if (!names[n]) {
            report("out of memory");
            exit(1);
        }
        numbered_name(path, n, "", names[n], size);
        fds[n] = open(names[n], O_RDONLY | O_CLOEXEC);
        if (fds[n] < 0 && errno == ENOENT) {
            numbered_name(path, n, ".gz", names[n], size);
            fds[n] = open(names[n], O_RDONLY | O_CLOEXEC);
        }
        if (fds[n] < 0)
            report("%s: %s", names[n], strerror(errno));
    }
    for (unsigned n = k - 1; n >= 1; n--) {
        if (fds[n] >= 0)
            show_whole(names[n], fds[n]);
        free(names[n]);
    }
    free(names);
    free(fds);
    free(name);
}

/* tail -F: when the name leads to another file (rotated: renamed, and a new
 * one made), the old one is read to its end, then the files rotated after
 * it (show_rotated_after: the name was rotated more than once since the
 * last look), and the new one from its start; a file cut shorter
 * (copytruncate) is read again from its start. */
static void check_name(input *in)
{
    struct stat st;
    if (!in->follow || stat(in->path, &st) != 0)
        return; /* between a rename and the new file: keep reading the old */
    if (in->fd >= 0 && st.st_dev == in->dev && st.st_ino == in->ino) {
        struct stat now;
        if (fstat(in->fd, &now) == 0 && (uint64_t)now.st_size < in->offset + in->length) {
            close(in->fd);
            in->fd = -1;
            if (open_input(in) != 0)
                in->fd = -1;
        }
        return;
    }
    if (in->fd >= 0) {
        /* Finish the old file: what was written to it before the new one
         * took its name, and a block it ends inside is reported as cut. */
        while (advance(in))
            show(in);
        in->eof = 1;
        while (advance(in))
            show(in);
        close(in->fd);
        in->fd = -1;
        show_rotated_after(in->path, in->dev, in->ino);
    }
    if (open_input(in) != 0) {
        if (in->fd >= 0)
            close(in->fd);
        in->fd = -1;
    }
}

static void follow(input *inputs, size_t count)
{
    const struct timespec pause = {0, 100 * 1000 * 1000};
    for (;;) {
        flush_output();
        nanosleep(&pause, NULL);
        for (size_t i = 0; i < count; i++)
            check_name(&inputs[i]);
        merge(inputs, count);
    }
}

/* ---- main ------------------------------------------------------------------------ */

int main(int argc, char **argv)
{
    enum { PATTERN = 256, JSON, LEVEL, MODULE, SINCE, UNTIL, TID, PID, GREP, LOCALE, HELP };
    static const struct option longs[] = {
        {"pattern", required_argument, NULL, PATTERN}, {"json", no_argument, NULL, JSON},
        {"level", required_argument, NULL, LEVEL},     {"module", required_argument, NULL, MODULE},
        {"since", required_argument, NULL, SINCE},     {"until", required_argument, NULL, UNTIL},
        {"tid", required_argument, NULL, TID},         {"pid", required_argument, NULL, PID},
        {"grep", required_argument, NULL, GREP},       {"follow", no_argument, NULL, 'f'},
        {"locale", no_argument, NULL, LOCALE},         {"help", no_argument, NULL, HELP},
        {NULL, 0, NULL, 0}};
    opt.modules = calloc((size_t)argc, sizeof *opt.modules);
    if (!opt.modules)
        return 1;
    int c;
    while ((c = getopt_long(argc, argv, "f", longs, NULL)) != -1) {
        switch (c) {
        case 'f':
            opt.follow = 1;
            break;
        case PATTERN:
            opt.pattern = optarg;
            break;
        case JSON:
            opt.json = 1;
            break;
        case LEVEL:
            /* The filter syntax of XLOG_LEVEL, by its own parser; what it
             * names no level for shows every level. */
            if (xlog_apply_filter(optarg, "--level", XLOG_TRACE, 0) != 0) {
                fprintf(stderr, "xlog-cat: %s\n", xlog_last_error());
                return 1;
            }
            opt.level_filter = 1;
            break;
        case MODULE:
            opt.modules[opt.module_count++] = optarg;
            break;
        case SINCE:
        case UNTIL:
            if (parse_time(optarg, c == SINCE ? &opt.since : &opt.until) != 0) {
                fprintf(stderr, "xlog-cat: --%s \"%s\": not a time (YYYY-MM-DD[ HH:MM[:SS[.fraction]]], "
                                "UTC)\n", c == SINCE ? "since" : "until", optarg);
                return 1;
            }
            break;
        case TID:
        case PID:
            if (parse_id(optarg, c == TID ? &opt.tid : &opt.pid) != 0) {
                fprintf(stderr, "xlog-cat: --%s \"%s\": not a number\n", c == TID ? "tid" : "pid",
                        optarg);
                return 1;
            }
            break;
        case GREP:
            opt.grep = optarg;
            opt.grep_length = strlen(optarg);
            break;
        case LOCALE:
            /* The file does not say which locale its writer rendered in. */
            setlocale(LC_ALL, "");
            break;
        case HELP:
            fputs(usage, stdout);
            return 0;
        default:
            fputs(usage, stderr);
            return 1;
        }
    }
    if (optind == argc) {
        fprintf(stderr, "xlog-cat: no file given\n%s", usage);
        return 1;
    }
    if (opt.json && opt.pattern) {
        fprintf(stderr, "xlog-cat: --json and --pattern do not go together\n");
        return 1;
    }
    tzset(); /* {time:local} */
    if (xlog_layout_create(&out.layout, opt.json ? XLOG_LAYOUT_JSON : XLOG_LAYOUT_TEXT,
                           opt.pattern, NULL, "--pattern") != 0) {
        fprintf(stderr, "xlog-cat: %s\n", xlog_last_error());
        return 1;
    }
    out.capacity = 1u << 20;
    out.buf = malloc(out.capacity);
    size_t count = (size_t)(argc - optind);
    input *inputs = calloc(count, sizeof *inputs);
    heap = calloc(count, sizeof *heap);
    if (!out.buf || !inputs || !heap) {
        fprintf(stderr, "xlog-cat: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < count; i++) {
        input *in = &inputs[i];
        in->path = argv[optind + (int)i];
        in->order = (int)i;
        in->fd = -1;
        size_t length = strlen(in->path);
        in->follow = opt.follow && !(length >= 3 && strcmp(in->path + length - 3, ".gz") == 0);
        if (open_input(in) != 0) {
            report("%s: %s", in->path, strerror(errno ? errno : ENOMEM));
            if (!in->follow) { /* an input that gives nothing */
                xlog_binary_reader_free(in->reader);
                in->reader = NULL;
            }
        }
    }
    if (!opt.follow) {
        inputs = per_writer(inputs, &count);
        free(heap);
        heap = calloc(count, sizeof *heap);
        if (!heap) {
            report("out of memory");
            return 1;
        }
    }
    merge(inputs, count);
    if (opt.follow)
        follow(inputs, count);
    flush_output();
    for (size_t i = 0; i < count; i++) {
        if (inputs[i].gz)
            gzclose(inputs[i].gz);
        xlog_binary_reader_free(inputs[i].reader);
        free(inputs[i].buf);
    }
    free(inputs);
    free(heap);
    free(out.buf);
    free(opt.modules);
    xlog_layout_destroy(out.layout);
    return status;
}
