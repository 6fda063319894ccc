/*
 * context.h - a thread's context (xlog.h, "Context") as bytes: what a
 * context record carries in the ring, what the back end keeps of each
 * ring's current context in the ring's header (where recovery finds it),
 * and the view every reader makes of those bytes.
 *
 * Why one encoding for all: the caller writes it once per change, the back
 * end copies it as it is into the ring's header, recovery reads either, and
 * they all parse it with xlog_context_read, which checks every length, so
 * that a dead process's damaged header cannot make a reader run past it.
 *
 * The bytes (little-endian, no alignment): u32 count, then per pair u32 key
 * length, the key, u32 value length, the value.  Pairs in the order they
 * were first set.  A context record may end in padding after them.
 */
#ifndef XLOG_RECORD_CONTEXT_H
#define XLOG_RECORD_CONTEXT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "xlog.h"

/* The longest encoding of a context. */
#define XLOG_CONTEXT_BYTES_MAX \
    (4u + XLOG_CONTEXT_MAX_PAIRS * (8u + XLOG_CONTEXT_MAX_KEY + XLOG_CONTEXT_MAX_VALUE))

typedef struct xlog_context_pair {
    const char *key;
    const char *value;
    uint32_t key_length;
    uint32_t value_length;
} xlog_context_pair;

/* A context read from its bytes: the pairs point into them.  id names
 * this context among those of the process (0: the empty one), so that a
 * binary file says it again only when it changed. */
typedef struct xlog_context {
    uint64_t id;
    uint32_t count;
    xlog_context_pair pairs[XLOG_CONTEXT_MAX_PAIRS];
} xlog_context;

static inline uint32_t xlog_context_u32(const char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* Reads the context in bytes[0..length) into out (id left as it is);
 * 0, or -1 when the bytes are not a context within the limits (out then
 * holds none). */
static inline int xlog_context_read(const char *bytes, size_t length, xlog_context *out)
{
    out->count = 0;
    if (length < 4)
        return -1;
    uint32_t count = xlog_context_u32(bytes);
    if (count > XLOG_CONTEXT_MAX_PAIRS)
        return -1;
    size_t at = 4;
    for (uint32_t i = 0; i < count; i++) {
        xlog_context_pair *pair = &out->pairs[i];
        if (length - at < 4)
            return -1;
        pair->key_length = xlog_context_u32(bytes + at);
        at += 4;
        if (pair->key_length == 0 || pair->key_length > XLOG_CONTEXT_MAX_KEY ||
            length - at < (size_t)pair->key_length + 4)
            return -1;
        pair->key = bytes + at;
        at += pair->key_length;
        pair->value_length = xlog_context_u32(bytes + at);
        at += 4;
        if (pair->value_length > XLOG_CONTEXT_MAX_VALUE || length - at < pair->value_length)
            return -1;
        pair->value = bytes + at;
        at += pair->value_length;
    }
    out->count = count;
    return 0;
}

/* The length of c's bytes. */
static inline size_t xlog_context_size(const xlog_context *c)
{
    size_t n = 4;
    for (uint32_t i = 0; i < c->count; i++)
        n += 8 + c->pairs[i].key_length + c->pairs[i].value_length;
    return n;
}

/* Writes c's bytes at out (xlog_context_size of them); returns the end. */
static inline char *xlog_context_write(char *out, const xlog_context *c)
{
    memcpy(out, &c->count, 4);
    out += 4;
    for (uint32_t i = 0; i < c->count; i++) {
        const xlog_context_pair *pair = &c->pairs[i];
        memcpy(out, &pair->key_length, 4);
        memcpy(out + 4, pair->key, pair->key_length);
        out += 4 + pair->key_length;
        memcpy(out, &pair->value_length, 4);
        memcpy(out + 4, pair->value, pair->value_length);
        out += 4 + pair->value_length;
    }
    return out;
}

/* Copies c into *copy with its strings in room (XLOG_CONTEXT_BYTES_MAX
 * bytes), so that it outlives the bytes c points into. */
static inline void xlog_context_copy(xlog_context *copy, const xlog_context *c, char *room)
{
    char *end = xlog_context_write(room, c);
    xlog_context_read(room, (size_t)(end - room), copy);
    copy->id = c->id;
}

#endif
