/*
 * encode.c - the entries of the binary log files (encode.h; the format is
 * docs/BINARY.md).
 */
#include "binary/encode.h"

#include <string.h>

/* The kinds the file carries are record.h's, by number (docs/BINARY.md,
 * "Arguments, by kind"): a reader in another language relies on these. */
_Static_assert(XLOG_ARG_INT == 1 && XLOG_ARG_LONG == 2 && XLOG_ARG_LLONG == 3 &&
                   XLOG_ARG_INTMAX == 4 && XLOG_ARG_SIZE == 5 && XLOG_ARG_PTRDIFF == 6 &&
                   XLOG_ARG_WINT == 7 && XLOG_ARG_DOUBLE == 8 && XLOG_ARG_LDOUBLE == 9 &&
                   XLOG_ARG_PTR == 10 && XLOG_ARG_STR == 11 && XLOG_ARG_WSTR == 12 &&
                   XLOG_ARG_ERRNO == 13,
               "docs/BINARY.md");
_Static_assert(XLOG_TRACE == 0 && XLOG_FATAL == 5, "docs/BINARY.md: levels");

static uint8_t *put_bytes(uint8_t *out, const void *bytes, size_t n)
{
    if (n)
        memcpy(out, bytes, n);
    return out + n;
}

static uint8_t *put_string(uint8_t *out, const char *s, size_t n)
{
    return put_bytes(xlog_varint_put(out, n), s, n);
}

static uint8_t *put_le64(uint8_t *out, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        out[i] = (uint8_t)(v >> (8 * i));
    return out + 8;
}

uint8_t *xlog_binary_process_entry(uint8_t *out, const xlog_binary_process *p)
{
    *out++ = XLOG_BINARY_PROCESS;
    out = xlog_varint_put(out, (uint64_t)p->pid);
    out = xlog_varint_put(out, p->max_message);
    uint64_t rate;
    memcpy(&rate, &p->ns_per_tick, 8);
    out = put_le64(out, rate);
    out = xlog_varint_put(out, p->base_ticks);
    out = xlog_varint_put(out, (uint64_t)p->base_utc_ns);
    out = put_string(out, p->host, strnlen(p->host, XLOG_BINARY_NAME_MAX));
    out = put_string(out, p->program, strnlen(p->program, XLOG_BINARY_NAME_MAX));
    return xlog_varint_put(out, p->options);
}

uint64_t xlog_binary_writer_id(int pid, int64_t start_ns)
{
    /* splitmix64's finaliser: the pid and the start time both change every
     * bit, so two processes (or two runs of one pid) are told apart. */
    uint64_t z = ((uint64_t)(uint32_t)pid << 32) ^ (uint64_t)start_ns;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    z ^= z >> 31;
    return z ? z : 1;
}

uint8_t *xlog_binary_block_header(uint8_t *out, uint64_t writer, int64_t base_ns)
{
    memcpy(out, XLOG_BINARY_MAGIC, XLOG_BINARY_MAGIC_SIZE);
    out[8] = XLOG_BINARY_VERSION;
    out[9] = 0;
    out[10] = XLOG_BINARY_HEADER_SIZE;
    out[11] = 0;
    memset(out + 12, 0, 4);
    put_le64(out + 16, writer);
    put_le64(out + 24, (uint64_t)base_ns);
    return out + XLOG_BINARY_HEADER_SIZE;
}

size_t xlog_binary_site_max(const xlog_site_copy *site, int nargs)
{
    return 2 + 4 * XLOG_VARINT_MAX + (size_t)nargs + strlen(site->format) + strlen(site->file) +
           strlen(site->func) + strlen(site->module) + 4 * XLOG_VARINT_MAX;
}

uint8_t *xlog_binary_site(uint8_t *out, uint32_t number, int level, const xlog_site_copy *site,
                          const unsigned char *kinds, int nargs)
{
    *out++ = XLOG_BINARY_SITE;
    out = xlog_varint_put(out, number);
    *out++ = (uint8_t)level;
    out = xlog_varint_put(out, (uint64_t)(unsigned)site->line);
    out = xlog_varint_put(out, (uint64_t)nargs);
    out = put_bytes(out, kinds, (size_t)nargs);
    out = put_string(out, site->format, strlen(site->format));
    out = put_string(out, site->file, strlen(site->file));
    out = put_string(out, site->func, strlen(site->func));
    return put_string(out, site->module, strlen(site->module));
}

uint8_t *xlog_binary_thread(uint8_t *out, int tid)
{
    *out++ = XLOG_BINARY_THREAD;
    return xlog_varint_put(out, (uint64_t)(unsigned)tid);
}

/* The kinds whose argument is 8 bytes of a signed integer in the ring and
 * a zigzag varint in the file. */
static int is_integer(unsigned kind)
{
    switch (kind) {
    case XLOG_ARG_INT:
    case XLOG_ARG_LONG:
    case XLOG_ARG_LLONG:
    case XLOG_ARG_INTMAX:
    case XLOG_ARG_SIZE:
    case XLOG_ARG_PTRDIFF:
    case XLOG_ARG_WINT:
    case XLOG_ARG_ERRNO:
        return 1;
    default:
        return 0;
    }
}

/* The arguments of a record as the file carries them, from their bytes in
 * the ring (record.h, "encoding: the caller's side"). */
static uint8_t *put_args(uint8_t *out, const char *in, const unsigned char *kinds, int nargs)
{
    for (int i = 0; i < nargs; i++) {
        unsigned kind = kinds[i] & XLOG_KIND_MASK;
        if (is_integer(kind)) {
            int64_t v;
            memcpy(&v, in, 8);
            in += 8;
            out = xlog_binary_varint(out, xlog_zigzag(v));
            continue;
        }
        switch (kind) {
        case XLOG_ARG_DOUBLE:
            memcpy(out, in, 8);
            out += 8;
            in += 8;
            break;
        case XLOG_ARG_LDOUBLE:
            /* The 80 bits of x86-64's long double; its padding is whatever
             * the caller's stack held, so the file gets zeros. */
            out = put_bytes(out, in, 10);
            memset(out, 0, 6);
            out += 6;
            in += 16;
            break;
        case XLOG_ARG_PTR: {
            uint64_t v;
            memcpy(&v, in, 8);
            in += 8;
            out = xlog_varint_put(out, v);
            break;
        }
        case XLOG_ARG_STR: {
            uint32_t n;
            memcpy(&n, in, 4);
            in += 4;
            if (n == XLOG_NULL_STRING) {
                *out++ = 0;
                break;
            }
            out = put_bytes(xlog_binary_varint(out, (uint64_t)n + 1), in, n);
            in += n;
            break;
        }
        case XLOG_ARG_WSTR: {
            uint32_t n;
            memcpy(&n, in, 4);
            in += 4;
            if (n == XLOG_NULL_STRING) {
                *out++ = 0;
                break;
            }
            out = xlog_binary_varint(out, (uint64_t)n + 1);
            for (uint32_t c = 0; c < n; c++, in += sizeof(wchar_t)) {
                wchar_t w;
                memcpy(&w, in, sizeof w);
                out = xlog_binary_varint(out, (uint64_t)(uint32_t)w);
            }
            break;
        }
        default: /* no other kind reaches a record (record.h) */
            break;
        }
    }
    return out;
}

void xlog_binary_shape_of(xlog_binary_shape *shape, const unsigned char *kinds, int nargs)
{
    shape->scalars = 1;
    shape->unrolled = -1;
    shape->doubles = 0;
    for (int i = 0; i < nargs; i++) {
        unsigned kind = kinds[i] & XLOG_KIND_MASK;
        if (is_integer(kind))
            continue;
        switch (kind) {
        case XLOG_ARG_DOUBLE:
            shape->doubles |= (uint64_t)1 << i;
            break;
        default:
            shape->scalars = 0;
            return;
        }
    }
    if (nargs <= 3)
        shape->unrolled = nargs << 3 | (int)shape->doubles;
}

uint8_t *xlog_binary_record_any(uint8_t *out, uint32_t number, int site_level, uint64_t delta_ns,
                                const xlog_record *rec, const unsigned char *kinds)
{
    unsigned flags = 0;
    if (rec->flags & XLOG_REC_TRUNCATED)
        flags |= XLOG_BINARY_TRUNCATED;
    if (rec->flags & XLOG_REC_RATED)
        flags |= XLOG_BINARY_SUPPRESSED;
    if (rec->level != site_level)
        flags |= XLOG_BINARY_LEVEL;
    *out++ = (uint8_t)(XLOG_BINARY_RECORD | flags);
    out = xlog_binary_varint(out, number);
    out = xlog_binary_varint(out, delta_ns);
    if (flags & XLOG_BINARY_LEVEL)
        *out++ = rec->level;
    out = put_args(out, (const char *)(rec + 1), kinds, rec->nargs);
    if (flags & XLOG_BINARY_SUPPRESSED)
        out = xlog_binary_varint(out, xlog_record_suppressed(rec));
    return out;
}

uint8_t *xlog_binary_message(uint8_t *out, uint64_t delta_ns, int level, int line,
                             const char *file, size_t file_length, const char *function,
                             size_t function_length, const char *module, size_t module_length,
                             const char *message, size_t message_length)
{
    *out++ = XLOG_BINARY_MESSAGE;
    out = xlog_varint_put(out, delta_ns);
    *out++ = (uint8_t)level;
    out = xlog_varint_put(out, (uint64_t)(unsigned)line);
    out = put_string(out, file, file_length);
    out = put_string(out, function, function_length);
    out = put_string(out, module, module_length);
    return put_string(out, message, message_length);
}

uint8_t *xlog_binary_thread_name(uint8_t *out, int tid, const char *name, size_t length)
{
    *out++ = XLOG_BINARY_THREAD_NAME;
    out = xlog_varint_put(out, (uint64_t)(unsigned)tid);
    return put_string(out, name, length);
}
