/*
 * decode.c - see decode.h; the format is docs/BINARY.md.
 *
 * How it reads: a block is read only once all its bytes are there (or the
 * file has ended), so between calls the reader's state is either "between
 * blocks" or a position inside a block whose bytes the caller keeps.  Each
 * entry is checked whole before anything of it is used; a Record is
 * rebuilt into the record the front end would have written (header, 8-byte
 * slots, strings with a u32 length, the suppressed count at the end) so that
 * message.h renders it exactly as the back end does.
 *
 * Call sites are kept per writer (a site number means the same in every
 * block of one writer, docs/BINARY.md "Reading"), so a record may also use
 * a site an earlier block of the file defined.
 */
#define _GNU_SOURCE /* memmem */
#include "binary/decode.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binary/binary.h"
#include "event/message.h"
#include "format/escape.h"
#include "record/record.h"

/* Bounds a garbled file could otherwise push into huge allocations: site
 * numbers are dense from 0 (a program has thousands, not millions), and
 * max_message is at most a quarter of a ring (xlog.h), which recovery also
 * takes as at most 2^28. */
#define MAX_SITES (1u << 20)
#define MIN_MESSAGE 256u
#define MAX_MESSAGE ((uint64_t)1 << 28)

typedef struct site {
    int level;
    int line;
    int nargs;
    unsigned char kinds[XLOG_RECORD_MAX_ARGS];
    const char *format; /* in text, NUL-terminated */
    size_t format_length;
    const char *module;
    xlog_event_names names; /* the event's names, made once */
    char *text;             /* format, file, function, module, each NUL-ended; the names' room */
} site;

/* What a reader keeps of one writing process (a block header's writer). */
typedef struct writer {
    uint64_t id;
    site **sites; /* by number; NULL for one not defined */
    size_t capacity;
    struct writer *next;
} writer;

struct xlog_binary_reader {
    char *name;
    writer *writers; /* the one used last first */
    uint64_t only_writer; /* 0, or the one writer whose blocks are read */
    int quiet;            /* damage is not reported (xlog_binary_only_writer) ... */
    int whole_block;      /* ... but a garbled entry of this whole block is */
    int blocks_only;      /* whole blocks are not read (xlog_binary_blocks_only) */

    uint64_t pos;      /* the next byte to read */
    int started;       /* the file's first bytes were checked: it is a binary log */
    int rejected;      /* it is not: nothing more is read */
    int scanning;      /* looking for the next magic from pos */
    int report_scan;   /* ... and say what was skipped when it is found */
    uint64_t scan_start;  /* where the scan began */

    /* The block being read (in_block), and what its entries have set. */
    int in_block;
    uint64_t block_start, block_end, readable_end;
    writer *w;
    uint64_t time;     /* of the last entry with a time, in UTC ns */
    int cut_by_magic; /* readable_end is where the next block begins */
    int have_process, have_thread;
    int pid, tid;
    char tid_text[XLOG_TID_TEXT_MAX];
    size_t tid_text_length;
    char pid_text[XLOG_TID_TEXT_MAX]; /* the tid of a Message before any Thread */
    /* The names the block's Thread name entries gave (a writer gives a
     * thread's before its first entry in the block, and again when it
     * changes), and the name of the thread of the entries being read. */
    struct thread_name {
        int tid;
        xlog_thread_name name;
    } *names;
    size_t name_count, name_capacity;
    xlog_thread_name thread;
    xlog_context context;   /* the last Context entry's, in context_bytes */
    char context_bytes[XLOG_CONTEXT_BYTES_MAX];

    /* The last entry, and its event once rendered. */
    xlog_binary_entry entry;
    int entry_is_record;
    const site *entry_site;
    int rendered;
    xlog_line_event event;
    xlog_record *rec; /* a Record rebuilt; 8-byte aligned */
    size_t rec_capacity;
    const uint8_t *message; /* a Message entry's text, in the caller's bytes */
    size_t message_length;
    char *message_copy;
    size_t message_copy_capacity;
    xlog_event_scratch scratch;
    size_t scratch_message_capacity;

    char error[640];
};

/* ---- reading fields ---------------------------------------------------------- */

/* A cursor over one entry; why says what was wrong when a read fails. */
typedef struct cursor {
    const uint8_t *p, *end;
    const char *why;
} cursor;

static const char PAST_END[] = "it runs past the end of the block";

static inline int get_varint(cursor *c, uint64_t *v)
{
    /* Most numbers are below 128 (a site, a delta of a busy thread, small
     * arguments): one byte, taken without the loop. */
    if (c->p < c->end && *c->p < 0x80) {
        *v = *c->p++;
        return 0;
    }
    const uint8_t *next = xlog_varint_get(c->p, c->end, v);
    if (!next) {
        /* Without an end in the bytes left, the block ended first; with
         * one, the number was too long. */
        size_t left = (size_t)(c->end - c->p);
        int ends = 0;
        for (size_t i = 0; i < left && i < XLOG_VARINT_MAX; i++)
            if (!(c->p[i] & 0x80)) {
                ends = 1;
                break;
            }
        c->why = ends || left >= XLOG_VARINT_MAX ? "a number of more than 64 bits" : PAST_END;
        return -1;
    }
    c->p = next;
    return 0;
}

static int get_bytes(cursor *c, uint64_t n, const uint8_t **at)
{
    if (n > (uint64_t)(c->end - c->p)) {
        c->why = PAST_END;
        return -1;
    }
    *at = c->p;
    c->p += n;
    return 0;
}

static int get_string(cursor *c, const uint8_t **at, size_t *length)
{
    uint64_t n;
    if (get_varint(c, &n) != 0 || get_bytes(c, n, at) != 0)
        return -1;
    *length = (size_t)n;
    return 0;
}

/* A varint that must fit an int (a pid, a line, a tid). */
static int get_int(cursor *c, int *v, const char *why)
{
    uint64_t u;
    if (get_varint(c, &u) != 0)
        return -1;
    if (u > INT_MAX) {
        c->why = why;
        return -1;
    }
    *v = (int)u;
    return 0;
}

static int get_level(cursor *c, int *level)
{
    const uint8_t *at;
    if (get_bytes(c, 1, &at) != 0)
        return -1;
    if (*at > XLOG_FATAL) {
        c->why = "a level above 5 (FATAL)";
        return -1;
    }
    *level = *at;
    return 0;
}

/* ---- writers and their sites ------------------------------------------------ */

static writer *writer_of(xlog_binary_reader *r, uint64_t id)
{
    for (writer **at = &r->writers; *at; at = &(*at)->next) {
        writer *w = *at;
        if (w->id == id) {
            *at = w->next; /* to the front: the next block is most likely its */
            w->next = r->writers;
            r->writers = w;
            return w;
        }
    }
    writer *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->id = id;
    w->next = r->writers;
    r->writers = w;
    return w;
}

static void site_free(site *s)
{
    if (s) {
        if (s->text) /* its format may have a parse kept by its address */
            xlog_message_forget_format(s->text);
        free(s->text);
        free(s);
    }
}

/* Copies n bytes and a NUL to out; returns the end. */
static char *put_text(char *out, const uint8_t *text, size_t n)
{
    if (n)
        memcpy(out, text, n);
    out[n] = '\0';
    return out + n + 1;
}

/* A Site entry (its tag read).  0, or -1 with c->why (or the reader's
 * error) set. */
static int read_site(xlog_binary_reader *r, cursor *c)
{
    uint64_t number, nargs;
    int level, line;
    const uint8_t *kinds, *format, *file, *function, *module;
    size_t format_length, file_length, function_length, module_length;
    if (get_varint(c, &number) != 0 || get_level(c, &level) != 0 ||
        get_int(c, &line, "a line number above 2^31") != 0 || get_varint(c, &nargs) != 0)
        return -1;
    if (number >= MAX_SITES) {
        c->why = "a site number above 2^20";
        return -1;
    }
    if (nargs > XLOG_RECORD_MAX_ARGS) {
        c->why = "more than 64 arguments";
        return -1;
    }
    if (get_bytes(c, nargs, &kinds) != 0 || get_string(c, &format, &format_length) != 0 ||
        get_string(c, &file, &file_length) != 0 ||
        get_string(c, &function, &function_length) != 0 ||
        get_string(c, &module, &module_length) != 0)
        return -1;
    /* The kinds must be those the format asks for, as the front end lists
     * them: the format engine reads each argument as its conversion's kind. */
    unsigned char expected[XLOG_RECORD_MAX_ARGS];
    int wanted = xlog_record_kinds((const char *)format, format_length, expected, NULL,
                                   XLOG_RECORD_MAX_ARGS, NULL);
    if (wanted > XLOG_RECORD_MAX_ARGS)
        wanted = XLOG_RECORD_MAX_ARGS;
    if ((uint64_t)wanted != nargs || memcmp(expected, kinds, nargs) != 0) {
        c->why = "its argument kinds are not those of its format";
        return -1;
    }
    writer *w = r->w;
    if (number >= w->capacity) {
        size_t capacity = w->capacity ? w->capacity : 64;
        while (capacity <= number)
            capacity *= 2;
        site **sites = realloc(w->sites, capacity * sizeof *sites);
        if (!sites) {
            c->why = "out of memory";
            return -1;
        }
        memset(sites + w->capacity, 0, (capacity - w->capacity) * sizeof *sites);
        w->sites = sites;
        w->capacity = capacity;
    }
    site *s = calloc(1, sizeof *s);
    size_t strings = format_length + file_length + function_length + module_length + 4;
    if (s)
        s->text = malloc(strings);
    if (!s || !s->text) {
        site_free(s);
        c->why = "out of memory";
        return -1;
    }
    char *at = s->text;
    s->format = at;
    at = put_text(at, format, format_length);
    const char *file_text = at;
    at = put_text(at, file, file_length);
    const char *function_text = at;
    at = put_text(at, function, function_length);
    const char *module_text = at;
    put_text(at, module, module_length);
    /* The names are made once, as the back end makes a site's: first in the
     * scratch room to learn their size, then in their own. */
    size_t room = xlog_event_names_make(&s->names, file_text, file_length, function_text,
                                        function_length, module_text, module_length, line, 1,
                                        r->scratch.room);
    char *text = realloc(s->text, strings + room);
    if (!text) {
        site_free(s);
        c->why = "out of memory";
        return -1;
    }
    s->text = text;
    s->format = text;
    file_text = text + format_length + 1;
    function_text = file_text + file_length + 1;
    module_text = function_text + function_length + 1;
    xlog_event_names_make(&s->names, file_text, file_length, function_text, function_length,
                          module_text, module_length, line, 1, text + strings);
    s->format_length = format_length;
    s->module = s->names.module;
    s->level = level;
    s->line = line;
    s->nargs = (int)nargs;
    memcpy(s->kinds, kinds, nargs);
    site_free(w->sites[number]);
    w->sites[number] = s;
    return 0;
}

static int read_process(xlog_binary_reader *r, cursor *c)
{
    uint64_t max_message, base_ticks, base_utc, options;
    const uint8_t *ns_per_tick, *host, *program;
    size_t host_length, program_length;
    int pid;
    if (get_int(c, &pid, "a pid above 2^31") != 0 || get_varint(c, &max_message) != 0 ||
        get_bytes(c, 8, &ns_per_tick) != 0 || get_varint(c, &base_ticks) != 0 ||
        get_varint(c, &base_utc) != 0 || get_string(c, &host, &host_length) != 0 ||
        get_string(c, &program, &program_length) != 0 || get_varint(c, &options) != 0)
        return -1;
    if (max_message < MIN_MESSAGE || max_message > MAX_MESSAGE) {
        c->why = "a max_message below 256 or above 2^28";
        return -1;
    }
    /* message.h renders into max_message bytes and room for a mark. */
    size_t need = (size_t)max_message + 64;
    if (need > r->scratch_message_capacity) {
        char *message = realloc(r->scratch.message, need);
        if (!message) {
            c->why = "out of memory";
            return -1;
        }
        r->scratch.message = message;
        r->scratch_message_capacity = need;
    }
    r->scratch.max_message = (size_t)max_message;
    r->pid = pid;
    r->have_process = 1;
    return 0;
}

static int read_thread(xlog_binary_reader *r, cursor *c)
{
    int tid;
    if (get_int(c, &tid, "a thread id above 2^31") != 0)
        return -1;
    r->tid = tid;
    r->tid_text_length = xlog_tid_text(r->tid_text, tid);
    r->have_thread = 1;
    r->thread.length = 0;
    for (size_t i = 0; i < r->name_count; i++)
        if (r->names[i].tid == tid)
            r->thread = r->names[i].name;
    return 0;
}

/* A Thread name entry: the thread's name from here on in the block; one
 * longer than a kernel's is cut (between two UTF-8 characters), as names
 * are, so that a line keeps its bound. */
static int read_thread_name(xlog_binary_reader *r, cursor *c)
{
    int tid;
    const uint8_t *text;
    size_t length;
    if (get_int(c, &tid, "a thread id above 2^31") != 0 || get_string(c, &text, &length) != 0)
        return -1;
    size_t i = 0;
    while (i < r->name_count && r->names[i].tid != tid)
        i++;
    if (i == r->name_capacity) {
        size_t capacity = r->name_capacity ? 2 * r->name_capacity : 8;
        struct thread_name *names = realloc(r->names, capacity * sizeof *names);
        if (!names) {
            c->why = "out of memory";
            return -1;
        }
        r->names = names;
        r->name_capacity = capacity;
    }
    struct thread_name *named = &r->names[i];
    r->name_count += i == r->name_count;
    named->tid = tid;
    length = length <= XLOG_THREAD_NAME_MAX
                 ? length
                 : xlog_utf8_cut((const char *)text, length, XLOG_THREAD_NAME_MAX);
    named->name.length = (uint32_t)length;
    named->name.id = 0;
    if (length)
        memcpy(named->name.text, text, length);
    if (r->have_thread && r->tid == tid)
        r->thread = named->name;
    return 0;
}

/* A Context entry: the pairs of the entries that follow in the block. */
static int read_context(xlog_binary_reader *r, cursor *c)
{
    uint64_t count;
    if (get_varint(c, &count) != 0)
        return -1;
    if (count > XLOG_CONTEXT_MAX_PAIRS) {
        c->why = "more pairs than a context holds";
        return -1;
    }
    xlog_context read;
    read.count = (uint32_t)count;
    for (uint32_t i = 0; i < read.count; i++) {
        uint64_t key_length, value_length;
        const uint8_t *key, *value;
        if (get_varint(c, &key_length) != 0 || get_bytes(c, key_length, &key) != 0 ||
            get_varint(c, &value_length) != 0 || get_bytes(c, value_length, &value) != 0)
            return -1;
        if (key_length == 0 || key_length > XLOG_CONTEXT_MAX_KEY ||
            value_length > XLOG_CONTEXT_MAX_VALUE) {
            c->why = "a key or value of a length a context cannot hold";
            return -1;
        }
        read.pairs[i] = (xlog_context_pair){(const char *)key, (const char *)value,
                                            (uint32_t)key_length, (uint32_t)value_length};
    }
    read.id = 0;
    xlog_context_copy(&r->context, &read, r->context_bytes);
    return 0;
}

/* The time of an entry delta after the last. */
static int get_time(xlog_binary_reader *r, cursor *c, int64_t *time_ns)
{
    uint64_t delta, t;
    if (get_varint(c, &delta) != 0)
        return -1;
    if (__builtin_add_overflow(r->time, delta, &t) || t > INT64_MAX) {
        c->why = "a time after the year 2262";
        return -1;
    }
    r->time = t;
    *time_ns = (int64_t)t;
    return 0;
}

/* Room for n more bytes at offset used of the record being rebuilt. */
static int rec_room(xlog_binary_reader *r, cursor *c, size_t used, uint64_t n)
{
    /* The record's size is a u32; the back end's are far smaller. */
    if (n > UINT32_MAX - 64 - used) {
        c->why = "a record too long to hold";
        return -1;
    }
    if (used + n <= r->rec_capacity)
        return 0;
    size_t capacity = r->rec_capacity ? r->rec_capacity : 4096;
    while (capacity < used + n)
        capacity *= 2;
    void *rec = realloc(r->rec, capacity); /* malloc's alignment is at least 8 */
    if (!rec) {
        c->why = "out of memory";
        return -1;
    }
    r->rec = rec;
    r->rec_capacity = capacity;
    return 0;
}

/* Room for the slots of n more arguments but the bytes of their strings,
 * and for the suppressed count after them (aligned). */
static inline int rest_room(xlog_binary_reader *r, cursor *c, size_t used, int n)
{
    return rec_room(r, c, used, (uint64_t)n * 16 + XLOG_RECORD_SUPPRESSED_SIZE + 8);
}

/* A Record entry (tag its first byte): rebuilt into r->rec as the front
 * end writes a site's record. */
static int read_record(xlog_binary_reader *r, cursor *c, unsigned tag)
{
    unsigned flags = tag & ~(unsigned)XLOG_BINARY_RECORD;
    if (flags & ~XLOG_BINARY_FLAGS) {
        c->why = "record flags 0x08 to 0x40 set";
        return -1;
    }
    uint64_t number;
    if (get_varint(c, &number) != 0)
        return -1;
    const site *s = number < r->w->capacity ? r->w->sites[number] : NULL;
    if (!s) {
        c->why = "its site was not defined before it";
        return -1;
    }
    if (!r->have_thread) {
        c->why = "a record before any Thread entry";
        return -1;
    }
    int level = s->level;
    if (get_time(r, c, &r->entry.time_ns) != 0 ||
        ((flags & XLOG_BINARY_LEVEL) && get_level(c, &level) != 0))
        return -1;
    size_t used = sizeof(xlog_record);
    if (rest_room(r, c, used, s->nargs) != 0)
        return -1;
    for (int i = 0; i < s->nargs; i++) {
        char *out = (char *)r->rec + used;
        uint64_t v;
        const uint8_t *bytes;
        switch (s->kinds[i] & XLOG_KIND_MASK) {
        case XLOG_ARG_DOUBLE:
            if (get_bytes(c, 8, &bytes) != 0)
                return -1;
            memcpy(out, bytes, 8);
            used += 8;
            break;
        case XLOG_ARG_LDOUBLE:
            if (get_bytes(c, 16, &bytes) != 0)
                return -1;
            memcpy(out, bytes, 16);
            used += 16;
            break;
        case XLOG_ARG_PTR:
            if (get_varint(c, &v) != 0)
                return -1;
            memcpy(out, &v, 8);
            used += 8;
            break;
        case XLOG_ARG_STR: {
            if (get_varint(c, &v) != 0)
                return -1;
            uint32_t n = XLOG_NULL_STRING;
            if (v) {
                if (get_bytes(c, v - 1, &bytes) != 0 || rec_room(r, c, used, 4 + v) != 0)
                    return -1;
                n = (uint32_t)(v - 1);
                out = (char *)r->rec + used;
                memcpy(out + 4, bytes, n);
            }
            memcpy(out, &n, 4);
            used += 4 + (n == XLOG_NULL_STRING ? 0 : n);
            if (rest_room(r, c, used, s->nargs - i - 1) != 0)
                return -1;
            break;
        }
        case XLOG_ARG_WSTR: {
            if (get_varint(c, &v) != 0)
                return -1;
            uint32_t n = XLOG_NULL_STRING;
            if (v) {
                /* Every character takes a byte at least: a count beyond the
                 * block is refused before any room is made for it. */
                if (v - 1 > (uint64_t)(c->end - c->p)) {
                    c->why = PAST_END;
                    return -1;
                }
                if (rec_room(r, c, used, 4 + (v - 1) * sizeof(wchar_t) + 8) != 0)
                    return -1;
                n = (uint32_t)(v - 1);
                out = (char *)r->rec + used;
                for (uint32_t k = 0; k < n; k++) {
                    uint64_t ch;
                    if (get_varint(c, &ch) != 0)
                        return -1;
                    /* A wchar_t is 32 bits: its value, as the caller held it. */
                    wchar_t w = (wchar_t)(uint32_t)ch;
                    memcpy(out + 4 + (size_t)k * sizeof w, &w, sizeof w);
                }
            }
            memcpy(out, &n, 4);
            used += 4 + (n == XLOG_NULL_STRING ? 0 : (size_t)n * sizeof(wchar_t));
            if (rest_room(r, c, used, s->nargs - i - 1) != 0)
                return -1;
            break;
        }
        default: /* the integers and %m: a signed varint of the 64 bits */
            if (get_varint(c, &v) != 0)
                return -1;
            int64_t value = xlog_unzigzag(v);
            memcpy(out, &value, 8);
            used += 8;
            break;
        }
    }
    uint8_t rec_flags = 0;
    if (flags & XLOG_BINARY_TRUNCATED)
        rec_flags |= XLOG_REC_TRUNCATED;
    if (flags & XLOG_BINARY_SUPPRESSED) {
        uint64_t suppressed;
        if (get_varint(c, &suppressed) != 0)
            return -1;
        used = (size_t)xlog_align8(used);
        memcpy((char *)r->rec + used, &suppressed, 8);
        used += XLOG_RECORD_SUPPRESSED_SIZE;
        rec_flags |= XLOG_REC_RATED;
    }
    xlog_record *rec = r->rec;
    rec->size = (uint32_t)xlog_align8(used);
    if (flags & XLOG_BINARY_SUPPRESSED) /* the count ends the record */
        rec->size = (uint32_t)used;
    rec->type = XLOG_REC_SITE;
    rec->level = (uint8_t)level;
    rec->flags = rec_flags;
    rec->nargs = (uint8_t)s->nargs;
    rec->tsc = 0;
    rec->site = NULL;
    r->entry.level = level;
    r->entry.module = s->module;
    r->entry_site = s;
    r->entry_is_record = 1;
    return 0;
}

static int read_message(xlog_binary_reader *r, cursor *c)
{
    int level, line;
    const uint8_t *file, *function, *module;
    size_t file_length, function_length, module_length;
    if (get_time(r, c, &r->entry.time_ns) != 0 || get_level(c, &level) != 0 ||
        get_int(c, &line, "a line number above 2^31") != 0 ||
        get_string(c, &file, &file_length) != 0 ||
        get_string(c, &function, &function_length) != 0 ||
        get_string(c, &module, &module_length) != 0 ||
        get_string(c, &r->message, &r->message_length) != 0)
        return -1;
    xlog_event_names_make(&r->scratch.names, (const char *)file, file_length,
                          (const char *)function, function_length, (const char *)module,
                          module_length, line, 0, r->scratch.room);
    r->entry.level = level;
    r->entry.module = r->scratch.names.module;
    r->entry_site = NULL;
    r->entry_is_record = 0;
    return 0;
}

/* ---- blocks ------------------------------------------------------------------ */

static int damage(xlog_binary_reader *r, uint64_t at, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

static int damage(xlog_binary_reader *r, uint64_t at, const char *format, ...)
{
    int n = snprintf(r->error, sizeof r->error, "%s: byte %llu: ", r->name,
                     (unsigned long long)at);
    if (n < 0 || (size_t)n >= sizeof r->error)
        n = 0;
    va_list ap;
    va_start(ap, format);
    vsnprintf(r->error + n, sizeof r->error - (size_t)n, format, ap);
    va_end(ap);
    return XLOG_BINARY_DAMAGE;
}

/* Goes on at the next magic from byte from (on), saying what was skipped
 * when report is set. */
static void scan_from(xlog_binary_reader *r, uint64_t from, int report)
{
    r->in_block = 0;
    r->scanning = 1;
    r->report_scan = report;
    r->scan_start = from;
    r->pos = from;
}

/* After a garbled entry at byte at: the block cannot be read further.  The
 * next block is at the block's end when a magic is there; otherwise it is
 * looked for from the block's second byte on, since a block that a kill
 * cut in a shared file runs past the magic of the block written after it
 * (docs/BINARY.md, "Reading"). */
static void leave_block(xlog_binary_reader *r, const uint8_t *data, uint64_t data_offset,
                        uint64_t data_end)
{
    uint64_t end = r->block_end;
    if (end <= data_end &&
        (end == data_end ||
         (data_end - end >= XLOG_BINARY_MAGIC_SIZE &&
          memcmp(data + (end - data_offset), XLOG_BINARY_MAGIC, XLOG_BINARY_MAGIC_SIZE) == 0))) {
        r->in_block = 0;
        r->pos = end;
        return;
    }
    scan_from(r, r->block_start + 1, 0);
}

/* The block ends at r->readable_end, before its size says: the entry at
 * byte at, if any, is not whole.  Goes on where the next block begins, or at
 * the end of the file. */
static int cut(xlog_binary_reader *r, uint64_t at, uint64_t data_end)
{
    if (r->cut_by_magic) {
        r->pos = r->readable_end;
        return damage(r, at, "the block at byte %llu is cut at byte %llu, where another block "
                             "begins (its whole entries were read)",
                      (unsigned long long)r->block_start, (unsigned long long)r->readable_end);
    }
    r->pos = data_end;
    return damage(r, at, "the block at byte %llu is cut: the file ends %llu bytes before its "
                         "end (its whole entries were read)",
                  (unsigned long long)r->block_start,
                  (unsigned long long)(r->block_end - r->readable_end));
}

static const char *const TAG_NAMES[] = {
    [XLOG_BINARY_PROCESS] = "Process", [XLOG_BINARY_SITE] = "Site",
    [XLOG_BINARY_THREAD] = "Thread", [XLOG_BINARY_MESSAGE] = "Message",
    [XLOG_BINARY_CONTEXT] = "Context", [XLOG_BINARY_THREAD_NAME] = "Thread name"};

/* Reads the block header at r->pos; XLOG_BINARY_* or -1 to go on. */
static int start_block(xlog_binary_reader *r, const uint8_t *data, uint64_t data_offset,
                       uint64_t data_end, int eof)
{
    uint64_t at = r->pos;
    const uint8_t *p = data + (at - data_offset);
    uint64_t left = data_end - at;
    size_t compared = left < XLOG_BINARY_MAGIC_SIZE ? (size_t)left : XLOG_BINARY_MAGIC_SIZE;
    int magic = memcmp(p, XLOG_BINARY_MAGIC, compared) == 0;
    if (!r->started) {
        if (compared < XLOG_BINARY_MAGIC_SIZE && !eof)
            return XLOG_BINARY_MORE;
        r->started = 1;
        if (!magic) {
            r->rejected = 1;
            return damage(r, at, "not a binary xlog file (it does not begin with the magic "
                                 "\\x89XLOG\\r\\n\\x1a)");
        }
    }
    if (!magic) {
        scan_from(r, at, 1);
        return -1;
    }
    if (left < XLOG_BINARY_HEADER_SIZE) {
        if (!eof)
            return XLOG_BINARY_MORE;
        r->pos = data_end;
        return damage(r, at, "the file ends inside a block header (%u of %u bytes)",
                      (unsigned)left, XLOG_BINARY_HEADER_SIZE);
    }
    xlog_binary_header h;
    memcpy(&h, p, sizeof h);
    if (h.version != XLOG_BINARY_VERSION) {
        /* A later version's header may not be this one: its sizes are not
         * trusted, the next magic is looked for. */
        scan_from(r, at + 1, 0);
        return damage(r, at, "a block of format version %u (this reader knows version %u): "
                             "skipped", (unsigned)h.version, XLOG_BINARY_VERSION);
    }
    if (h.header_size < XLOG_BINARY_HEADER_SIZE || h.block_size < h.header_size ||
        h.writer == 0) {
        scan_from(r, at + 1, 0);
        return damage(r, at, "a garbled block header (header size %u, block size %u, writer "
                             "%s): skipped", (unsigned)h.header_size, (unsigned)h.block_size,
                      h.writer ? "not 0" : "0");
    }
    uint64_t end = at + h.block_size;
    /* A block whose size leads to the end of the data or to another block's
     * magic is whole, whatever its strings hold (a message may carry the
     * magic's bytes).  Any other is cut where the next block begins: a
     * writer killed in the middle of its block, and another process's block
     * written after what it had written (docs/BINARY.md, "Reading"). */
    int whole;
    if (end > data_end) {
        if (!eof)
            return XLOG_BINARY_MORE;
        whole = 0;
    } else {
        uint64_t after = data_end - end;
        size_t seen = after < XLOG_BINARY_MAGIC_SIZE ? (size_t)after : XLOG_BINARY_MAGIC_SIZE;
        int magic_after = memcmp(data + (end - data_offset), XLOG_BINARY_MAGIC, seen) == 0;
        if (magic_after && seen < XLOG_BINARY_MAGIC_SIZE && after > 0 && !eof)
            return XLOG_BINARY_MORE; /* the next block's magic may be arriving */
        whole = after == 0 || (magic_after && seen == XLOG_BINARY_MAGIC_SIZE);
    }
    uint64_t there = end < data_end ? end : data_end;
    const uint8_t *next = NULL;
    if (!whole) {
        uint64_t window = end - 1 + XLOG_BINARY_MAGIC_SIZE < data_end
                              ? end - 1 + XLOG_BINARY_MAGIC_SIZE
                              : data_end; /* a magic that begins before the end */
        next = memmem(p + 1, (size_t)(window - at - 1), XLOG_BINARY_MAGIC,
                      XLOG_BINARY_MAGIC_SIZE);
    }
    if (r->blocks_only && whole) {
        r->entry.writer = h.writer;
        r->entry.offset = at;
        r->pos = end;
        return XLOG_BINARY_ENTRY;
    }
    if (r->only_writer && h.writer != r->only_writer) {
        /* Another writer's block: skipped whole, or up to where it is cut. */
        r->pos = next ? (uint64_t)(next - data) + data_offset : there;
        return -1;
    }
    r->w = writer_of(r, h.writer);
    if (!r->w) {
        r->pos = data_end;
        return damage(r, at, "out of memory");
    }
    r->in_block = 1;
    r->whole_block = whole;
    r->block_start = at;
    r->block_end = end;
    r->readable_end = next ? (uint64_t)(next - data) + data_offset : there;
    r->cut_by_magic = next != NULL;
    r->pos = at + h.header_size;
    r->time = h.base_ns;
    r->have_process = r->have_thread = 0;
    r->name_count = 0;
    r->thread.length = 0;
    r->context.count = 0;
    if (r->pos > r->readable_end) { /* cut inside a header longer than 32 bytes */
        r->in_block = 0;
        return cut(r, at, data_end);
    }
    return -1;
}

/* Reads the entry at r->pos of the block; XLOG_BINARY_* or -1 to go on. */
static int read_entry(xlog_binary_reader *r, const uint8_t *data, uint64_t data_offset,
                      uint64_t data_end)
{
    uint64_t at = r->pos;
    if (at >= r->readable_end) {
        r->in_block = 0;
        if (r->readable_end < r->block_end)
            return cut(r, at, data_end);
        return -1;
    }
    cursor c = {data + (at - data_offset) + 1, data + (r->readable_end - data_offset), NULL};
    unsigned tag = data[at - data_offset];
    const char *name = tag >= XLOG_BINARY_RECORD ? "Record"
                       : tag < sizeof TAG_NAMES / sizeof TAG_NAMES[0] && TAG_NAMES[tag]
                           ? TAG_NAMES[tag]
                           : NULL;
    if (!name) {
        leave_block(r, data, data_offset, data_end);
        return damage(r, at, "an entry of unknown tag 0x%02x: the rest of the block at byte "
                             "%llu is skipped", tag, (unsigned long long)r->block_start);
    }
    if (!r->have_process && tag != XLOG_BINARY_PROCESS) {
        leave_block(r, data, data_offset, data_end);
        return damage(r, at, "the block at byte %llu does not begin with a Process entry: "
                             "skipped", (unsigned long long)r->block_start);
    }
    int rc;
    switch (tag) {
    case XLOG_BINARY_PROCESS:
        rc = read_process(r, &c);
        break;
    case XLOG_BINARY_SITE:
        rc = read_site(r, &c);
        break;
    case XLOG_BINARY_THREAD:
        rc = read_thread(r, &c);
        break;
    case XLOG_BINARY_MESSAGE:
        rc = read_message(r, &c);
        break;
    case XLOG_BINARY_THREAD_NAME:
        rc = read_thread_name(r, &c);
        break;
    case XLOG_BINARY_CONTEXT:
        rc = read_context(r, &c);
        break;
    default:
        rc = read_record(r, &c, tag);
        break;
    }
    if (rc != 0) {
        if (c.why == PAST_END && r->readable_end < r->block_end) {
            r->in_block = 0; /* the cut is inside this entry */
            return cut(r, at, data_end);
        }
        leave_block(r, data, data_offset, data_end);
        return damage(r, at, "a garbled %s entry (%s): the rest of the block at byte %llu is "
                             "skipped", name, c.why, (unsigned long long)r->block_start);
    }
    r->pos = (uint64_t)(c.p - data) + data_offset;
    if (tag < XLOG_BINARY_RECORD && tag != XLOG_BINARY_MESSAGE)
        return -1;
    r->entry.writer = r->w->id;
    r->entry.pid = r->pid;
    /* A Message before any Thread entry is the process's own. */
    r->entry.tid = r->have_thread ? r->tid : r->pid;
    r->entry.offset = at;
    r->rendered = 0;
    return XLOG_BINARY_ENTRY;
}

/* Looks for the next magic from r->pos; XLOG_BINARY_* or -1 to go on. */
static int scan(xlog_binary_reader *r, const uint8_t *data, uint64_t data_offset,
                uint64_t data_end, int eof)
{
    const uint8_t *from = data + (r->pos - data_offset);
    const uint8_t *found = memmem(from, (size_t)(data_end - r->pos), XLOG_BINARY_MAGIC,
                                  XLOG_BINARY_MAGIC_SIZE);
    if (!found && !eof) {
        /* The magic may begin in the last 7 bytes. */
        if (data_end - r->pos >= XLOG_BINARY_MAGIC_SIZE)
            r->pos = data_end - (XLOG_BINARY_MAGIC_SIZE - 1);
        return XLOG_BINARY_MORE;
    }
    r->scanning = 0;
    r->pos = found ? (uint64_t)(found - data) + data_offset : data_end;
    if (!r->report_scan || r->pos == r->scan_start)
        return -1;
    uint64_t skipped = r->pos - r->scan_start;
    if (found)
        return damage(r, r->scan_start, "%llu bytes that are not a block: skipped to the "
                                       "next block, at byte %llu",
                      (unsigned long long)skipped, (unsigned long long)r->pos);
    return damage(r, r->scan_start, "%llu bytes that are not a block: skipped to the end of "
                                   "the file", (unsigned long long)skipped);
}

int xlog_binary_next(xlog_binary_reader *r, const uint8_t *data, uint64_t data_offset,
                     size_t length, int eof)
{
    uint64_t data_end = data_offset + length;
    for (;;) {
        if (r->rejected)
            return eof ? XLOG_BINARY_END : XLOG_BINARY_MORE;
        int rc, in_whole_block = 0;
        if (r->scanning) {
            rc = scan(r, data, data_offset, data_end, eof);
        } else if (r->in_block) {
            in_whole_block = r->whole_block;
            rc = read_entry(r, data, data_offset, data_end);
        } else if (r->pos >= data_end) {
            return eof ? XLOG_BINARY_END : XLOG_BINARY_MORE;
        } else {
            rc = start_block(r, data, data_offset, data_end, eof);
        }
        if (rc == XLOG_BINARY_DAMAGE && r->quiet && !in_whole_block)
            continue;
        if (rc >= 0)
            return rc;
    }
}

void xlog_binary_only_writer(xlog_binary_reader *r, uint64_t writer)
{
    r->only_writer = writer;
    r->quiet = 1;
}

void xlog_binary_blocks_only(xlog_binary_reader *r)
{
    r->blocks_only = 1;
}

uint64_t xlog_binary_keep_from(const xlog_binary_reader *r)
{
    return r->in_block ? r->block_start : r->pos;
}

const xlog_binary_entry *xlog_binary_entry_of(const xlog_binary_reader *r)
{
    return &r->entry;
}

const xlog_line_event *xlog_binary_event(xlog_binary_reader *r)
{
    xlog_line_event *ev = &r->event;
    if (r->rendered)
        return ev;
    ev->pub.pid = r->entry.pid;
    ev->pub.tid = r->entry.tid;
    /* A Message before any Thread entry is the process's own: no name. */
    ev->thread_name = r->have_thread ? &r->thread : NULL;
    ev->ring_slot = 0;
    ev->record_end = 0;
    ev->context = &r->context;
    if (r->entry_is_record) {
        const site *s = r->entry_site;
        xlog_record_view view;
        xlog_record_view_of(r->rec, s->format, s->format_length, s->kinds, &view);
        ev->tid_text = r->tid_text;
        ev->tid_text_length = r->tid_text_length;
        xlog_record_event(ev, r->rec, &view, &s->names, s->format, r->entry.time_ns,
                          &r->scratch);
        xlog_event_render(ev); /* now: view is this frame's */
    } else {
        /* A Message: its text as given, NUL-terminated as an event's is. */
        if (r->message_length + 1 > r->message_copy_capacity) {
            char *copy = realloc(r->message_copy, r->message_length + 1);
            if (!copy)
                return NULL;
            r->message_copy = copy;
            r->message_copy_capacity = r->message_length + 1;
        }
        if (r->message_length)
            memcpy(r->message_copy, r->message, r->message_length);
        r->message_copy[r->message_length] = '\0';
        if (r->have_thread) {
            ev->tid_text = r->tid_text;
            ev->tid_text_length = r->tid_text_length;
        } else {
            ev->tid_text = r->pid_text;
            ev->tid_text_length = xlog_tid_text(r->pid_text, r->entry.tid);
        }
        ev->pub.time_ns = r->entry.time_ns;
        ev->pub.level = r->entry.level;
        xlog_event_set_names(ev, &r->scratch.names);
        ev->pub.format = r->message_copy;
        ev->pub.message = r->message_copy;
        ev->pub.message_length = r->message_length;
        ev->pending = NULL; /* its message is the one given */
    }
    r->rendered = 1;
    return ev;
}

size_t xlog_binary_rest_of_cut_block(const uint8_t *block, size_t size, size_t cut, uint8_t *out)
{
    xlog_binary_header h;
    if (size < sizeof h)
        return 0;
    memcpy(&h, block, sizeof h);
    if (h.block_size != size)
        return 0;
    xlog_binary_reader *r = xlog_binary_reader_new("a cut block");
    if (!r)
        return 0;
    /* The bytes from `from` on are not yet copied: between two entries a
     * reader showed lie the definitions (Process, Site, Thread), kept. */
    size_t from = 0, length = 0;
    int rc;
    while ((rc = xlog_binary_next(r, block, 0, size, 1)) == XLOG_BINARY_ENTRY &&
           r->pos <= cut) {
        memcpy(out + length, block + from, r->entry.offset - from);
        length += r->entry.offset - from;
        from = r->pos;
        h.base_ns = (uint64_t)r->entry.time_ns;
    }
    xlog_binary_reader_free(r);
    if (rc != XLOG_BINARY_ENTRY && rc != XLOG_BINARY_END)
        return 0; /* damage: not a block this library wrote */
    memcpy(out + length, block + from, size - from);
    length += size - from;
    h.block_size = (uint32_t)length;
    memcpy(out, &h, sizeof h);
    return length;
}

const char *xlog_binary_error(const xlog_binary_reader *r)
{
    return r->error;
}

xlog_binary_reader *xlog_binary_reader_new(const char *name)
{
    xlog_binary_reader *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->name = strdup(name);
    if (!r->name) {
        free(r);
        return NULL;
    }
    return r;
}

void xlog_binary_reader_free(xlog_binary_reader *r)
{
    if (!r)
        return;
    while (r->writers) {
        writer *w = r->writers;
        r->writers = w->next;
        for (size_t i = 0; i < w->capacity; i++)
            site_free(w->sites[i]);
        free(w->sites);
        free(w);
    }
    free(r->rec);
    free(r->names);
    free(r->message_copy);
    free(r->scratch.message);
    free(r->name);
    free(r);
}
