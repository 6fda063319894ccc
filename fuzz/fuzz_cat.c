/*
 * fuzz_cat.c - libFuzzer target for the reader of binary log files
 * (lib/binary/decode.c), as xlog-cat uses it.
 *
 * Input: the bytes of a file.  The first byte chooses where the bytes are
 * split: the reader is given the first part as a file that may grow (so a
 * block it ends inside waits), then the whole as a file that has ended, the
 * way xlog-cat reads a file in pieces or follows it.  Checked for every
 * input, under ASan and UBSan:
 *   - no crash, no read outside the bytes given, no leak;
 *   - every entry renders, and its line in the default text layout is at
 *     most xlog_layout_max_line bytes, ends in '\n' and is one whole line as
 *     tests/line_rule.h decides (valid UTF-8, no control character);
 *   - every damage message names the file;
 *   - the reader always comes to the end (each call moves on).
 */
#include <locale.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "binary/decode.h"
#include "layouts/layout.h"
#include "line_rule.h"

static xlog_layout *layout;
static char *line;
static size_t line_capacity;

int LLVMFuzzerInitialize(int *argc, char **argv[])
{
    (void)argc;
    (void)argv;
    if (!setlocale(LC_CTYPE, "C.UTF-8")) /* line_rule.h decodes with mbrtowc */
        abort();
    if (xlog_layout_create(&layout, XLOG_LAYOUT_TEXT, NULL, NULL, "fuzz") != 0)
        abort();
    return 0;
}

static void show(xlog_binary_reader *r)
{
    const xlog_line_event *ev = xlog_binary_event(r);
    if (!ev)
        abort();
    size_t max = xlog_layout_max_line(layout, ev->pub.message_length);
    if (max > line_capacity) {
        free(line);
        line = malloc(max);
        if (!line)
            abort();
        line_capacity = max;
    }
    size_t n = xlog_layout_write(layout, ev, line);
    if (n == 0 || n > max || line[n - 1] != '\n' || !line_rule_allows(line, n - 1))
        abort();
}

/* Reads until the reader wants more (or ends); how many calls it took. */
static void read_all(xlog_binary_reader *r, const uint8_t *data, size_t length, int eof)
{
    for (size_t calls = 0;; calls++) {
        if (calls > 4 * length + 16) /* each call reads a byte at least */
            abort();
        uint64_t keep = xlog_binary_keep_from(r);
        if (keep > length)
            abort();
        int rc = xlog_binary_next(r, data, 0, length, eof);
        if (rc == XLOG_BINARY_ENTRY)
            show(r);
        else if (rc == XLOG_BINARY_DAMAGE)
            if (strncmp(xlog_binary_error(r), "fuzz: byte ", 11) != 0)
                abort();
        if (rc == XLOG_BINARY_MORE) {
            if (eof)
                abort();
            return;
        }
        if (rc == XLOG_BINARY_END) {
            if (!eof)
                abort();
            return;
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    size_t split = (size_t)data[0] * (size - 1) / 255;
    data++;
    size--;
    xlog_binary_reader *r = xlog_binary_reader_new("fuzz");
    if (!r)
        abort();
    /* The first part in its own allocation, so that ASan sees a read past it. */
    uint8_t *part = malloc(split ? split : 1);
    if (!part)
        abort();
    memcpy(part, data, split);
    read_all(r, part, split, 0);
    free(part);
    read_all(r, data, size, 1);
    xlog_binary_reader_free(r);
    return 0;
}
