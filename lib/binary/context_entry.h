/*
 * context_entry.h - the Context entry of the binary files (docs/BINARY.md,
 * "Context"): the pairs of a thread's context (xlog.h, "Context") for the
 * entries that follow it in its block.
 *
 * Apart from encode.c so that the writer of the other entries needs no
 * change for it: the file sink says a context only when it differs from
 * the one its block said last (by the context's id), and recovery says the
 * context of its one line.
 */
#ifndef XLOG_BINARY_CONTEXT_ENTRY_H
#define XLOG_BINARY_CONTEXT_ENTRY_H

#include <stdint.h>
#include <string.h>

#include "binary/binary.h"
#include "record/context.h"

/* The longest Context entry: tag, count, each key and value as a string
 * (a varint of at most 2 bytes and its bytes). */
#define XLOG_BINARY_CONTEXT_MAX \
    (2u + XLOG_CONTEXT_MAX_PAIRS * (4u + XLOG_CONTEXT_MAX_KEY + XLOG_CONTEXT_MAX_VALUE))

/* The Context entry of c (NULL: none, the entry then says no pairs). */
static inline uint8_t *xlog_binary_context(uint8_t *out, const xlog_context *c)
{
    uint32_t count = c ? c->count : 0;
    *out++ = XLOG_BINARY_CONTEXT;
    out = xlog_varint_put(out, count);
    for (uint32_t i = 0; i < count; i++) {
        out = xlog_varint_put(out, c->pairs[i].key_length);
        memcpy(out, c->pairs[i].key, c->pairs[i].key_length);
        out += c->pairs[i].key_length;
        out = xlog_varint_put(out, c->pairs[i].value_length);
        memcpy(out, c->pairs[i].value, c->pairs[i].value_length);
        out += c->pairs[i].value_length;
    }
    return out;
}

/* The id by which a block knows its context: 0 for none. */
static inline uint64_t xlog_binary_context_id(const xlog_context *c)
{
    return c && c->count ? c->id : 0;
}

#endif
