/*
 * decode.h - the reader of binary log files (docs/BINARY.md): blocks and
 * their entries out of the bytes of one file, each Record turned into the
 * event the back end would have made of it (the record rebuilt as the front
 * end writes it, record/record.h, and rendered by event/message.h, the
 * library's own code), each Message into an event with its message as given.
 *
 * The reader never holds the file: its caller passes the bytes it has, from
 * some file offset on, and keeps them from xlog_binary_keep_from() on
 * (the start of the block being read), so that a file can be read in
 * pieces, decompressed on the way, or followed as it grows.  Every length is
 * checked against the block's end; damage (a cut file, garbage between
 * blocks, a garbled entry, a file of another kind) gives a message naming
 * the file and the byte, and the reader goes on where it can: at the next
 * block's magic.
 */
#ifndef XLOG_BINARY_DECODE_H
#define XLOG_BINARY_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "event/event.h"

typedef struct xlog_binary_reader xlog_binary_reader;

/* What xlog_binary_next found. */
enum {
    XLOG_BINARY_MORE = 0,    /* the bytes end inside a block: pass more (or eof) */
    XLOG_BINARY_ENTRY = 1,   /* an entry to show: xlog_binary_entry_of, xlog_binary_event */
    XLOG_BINARY_DAMAGE = 2,  /* xlog_binary_error says what and where; call again */
    XLOG_BINARY_END = 3      /* eof, and every byte read */
};

/* What is known of an entry before its message is rendered, for merging
 * and filters. */
typedef struct xlog_binary_entry {
    int64_t time_ns;        /* UTC */
    int level;
    int pid;
    int tid;
    const char *module;     /* "" for none; NUL-terminated */
    uint64_t offset;        /* in the file, of its tag byte */
    uint64_t writer;        /* its block's writer (docs/BINARY.md) */
} xlog_binary_entry;

/* A reader of the file called name (for messages); NULL without memory. */
xlog_binary_reader *xlog_binary_reader_new(const char *name);
void xlog_binary_reader_free(xlog_binary_reader *r);

/* Reads on from where the last call stopped.  data holds the file's bytes
 * from offset data_offset for length bytes, at least from
 * xlog_binary_keep_from() on, and they must not change while they are
 * kept; eof says that the file has no more.  Returns XLOG_BINARY_*. */
int xlog_binary_next(xlog_binary_reader *r, const uint8_t *data, uint64_t data_offset,
                     size_t length, int eof);

/* The first byte of the file the reader may still read (the bytes before
 * it may be dropped). */
uint64_t xlog_binary_keep_from(const xlog_binary_reader *r);

/* The entry of the last XLOG_BINARY_ENTRY, until the next call of
 * xlog_binary_next. */
const xlog_binary_entry *xlog_binary_entry_of(const xlog_binary_reader *r);

/* The event of that entry, its message rendered (once); valid until the
 * next call of xlog_binary_next, and while the bytes are kept.  NULL
 * without memory. */
const xlog_line_event *xlog_binary_event(xlog_binary_reader *r);

/* From now on, reads only the blocks of writer (a block header's writer,
 * as entries give it), skipping every other one whole, and reports only
 * the damage of the entries of its writer's whole blocks: for a reader that
 * takes the lines of a file shared by several processes apart, one writer
 * each, to put them back in time order (each writer's own are), while a
 * reader of the file's blocks (xlog_binary_blocks_only) reports the rest. */
void xlog_binary_only_writer(xlog_binary_reader *r, uint64_t writer);

/* From now on, gives one XLOG_BINARY_ENTRY per whole block (a block whose
 * size leads to the next block or the end), with only the entry's writer
 * and offset (the block's), without reading its entries; a block that is
 * not whole is read entry by entry as ever.  So its damage reports are
 * every reader's but for the garbled entries of whole blocks (which the
 * readers of xlog_binary_only_writer report): for learning a file's
 * writers without decoding it.  Such a reader's entries have no event:
 * xlog_binary_event is not for them. */
void xlog_binary_blocks_only(xlog_binary_reader *r);

/* What a reader could not read of a block (block, size bytes, whole) that
 * a write(2) cut after its first cut bytes, made a block of its own, at out
 * (size bytes of room): the same header and writer, the Process, Site and
 * Thread entries that come before the cut, then every entry from the first
 * one not whole before the cut to the block's end, the header's time moved
 * to the last entry before it (docs/BINARY.md, "Reading").  Its size, or 0
 * when the block is not a whole block (recovery gives its rest up). */
size_t xlog_binary_rest_of_cut_block(const uint8_t *block, size_t size, size_t cut, uint8_t *out);

/* The message of the last XLOG_BINARY_DAMAGE: "FILE: byte N: what". */
const char *xlog_binary_error(const xlog_binary_reader *r);

#endif
