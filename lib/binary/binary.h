/*
 * binary.h - the constants and numbers of the binary log files (.xlog),
 * whose whole format docs/BINARY.md describes: the block header, the entry
 * tags, the record flags, and the varints every field is made of, encoder
 * and decoder side by side so that they cannot drift apart.
 *
 * The back end's writer (the binary layout of the file sink) and every
 * reader (xlog-cat, recovery's check of a cut file) include this file.
 */
#ifndef XLOG_BINARY_H
#define XLOG_BINARY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Every block starts with these 8 bytes: "\x89XLOG\r\n\x1a".  The first
 * byte is not ASCII and the CR LF and ^Z catch a transfer that changed line
 * ends or stopped at a DOS end of file, as PNG's signature does. */
#define XLOG_BINARY_MAGIC "\x89XLOG\r\n\x1a"
#define XLOG_BINARY_MAGIC_SIZE 8u
#define XLOG_BINARY_VERSION 1u

/* The block header as it is in the file (little-endian; 32 bytes). */
#define XLOG_BINARY_HEADER_SIZE 32u
typedef struct xlog_binary_header {
    uint8_t magic[XLOG_BINARY_MAGIC_SIZE];
    uint16_t version;
    uint16_t header_size;
    uint32_t block_size;  /* header included */
    uint64_t writer;      /* names the writing process while it runs; never 0 */
    uint64_t base_ns;     /* UTC ns the block's first time delta counts from */
} xlog_binary_header;
_Static_assert(sizeof(xlog_binary_header) == XLOG_BINARY_HEADER_SIZE, "docs/BINARY.md");

/* Entry tags. */
enum {
    XLOG_BINARY_PROCESS = 0x01,
    XLOG_BINARY_SITE = 0x02,
    XLOG_BINARY_THREAD = 0x03,
    XLOG_BINARY_MESSAGE = 0x04,
    XLOG_BINARY_CONTEXT = 0x05, /* binary/context_entry.h */
    XLOG_BINARY_THREAD_NAME = 0x06,
    XLOG_BINARY_RECORD = 0x80 /* 0x80 | flags */
};

/* A record tag's flags. */
#define XLOG_BINARY_TRUNCATED 0x01u  /* a string was cut on the caller */
#define XLOG_BINARY_SUPPRESSED 0x02u /* a count of suppressed calls follows */
#define XLOG_BINARY_LEVEL 0x04u      /* a level byte follows */
#define XLOG_BINARY_FLAGS 0x07u      /* every flag version 1 knows */

/* The Process entry's options. */
#define XLOG_BINARY_LOCAL_DATES 0x01u

/* The longest varint: 64 bits in groups of 7. */
#define XLOG_VARINT_MAX 10u

/* Writes v as a varint at out; returns the end. */
static inline uint8_t *xlog_varint_put(uint8_t *out, uint64_t v)
{
    while (v >= 0x80) {
        *out++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *out++ = (uint8_t)v;
    return out;
}

static inline uint64_t xlog_zigzag(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t xlog_unzigzag(uint64_t v)
{
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* Reads a varint from in[0, end) into *v; returns the byte after it, or
 * NULL when it runs past end, is longer than XLOG_VARINT_MAX bytes, or holds
 * more than 64 bits. */
static inline const uint8_t *xlog_varint_get(const uint8_t *in, const uint8_t *end, uint64_t *v)
{
    uint64_t value = 0;
    for (unsigned shift = 0; in < end && shift < 7 * XLOG_VARINT_MAX; shift += 7) {
        uint8_t byte = *in++;
        if (shift == 63 && byte > 1)
            return NULL;
        value |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80)) {
            *v = value;
            return in;
        }
    }
    return NULL;
}

#endif
