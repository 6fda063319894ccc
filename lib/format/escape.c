/*
 * escape.c - the escaping rule of escape.h.
 *
 * Why it is written this way: the back end escapes every line it writes
 * (millions per second), and nearly all of them are printable ASCII.  So the
 * scan checks sixteen bytes at a time for anything that is not printable ASCII
 * (printable_ascii_span) and
 * copies each run of bytes that pass unchanged with one memcpy; valid
 * UTF-8 characters join the run, so text in other scripts is copied in bulk
 * too.  Only a byte that must be escaped ends a run.
 *
 * Output goes through a small writer that counts every byte of the escaped
 * text but stores only whole characters and escapes while they fit, which
 * gives the snprintf-like length and the clean prefix that escape.h promises.
 */
#include "escape.h"

#include <stdbool.h>
#include <string.h>

/* How many bytes at the start of p[0..n) are printable ASCII (0x20-0x7e),
 * which pass unchanged. */
static size_t printable_ascii_span(const char *p, size_t n)
{
    size_t i = 0;
    while (n - i >= 16 && xlog_printable16(p + i))
        i += 16;
    /* fewer than 16 left: the last 16 bytes, read again, cover them */
    if (i < n && n - i < 16 && n >= 16 && xlog_printable16(p + n - 16))
        return n;
    while (i < n && (unsigned char)(p[i] - 0x20) < 0x5f)
        i++;
    return i;
}

typedef struct writer {
    char *out;
    size_t cap;
    size_t len;    /* of the whole escaped text so far */
    size_t stored; /* bytes written to out: len until a unit did not fit */
    bool full;     /* a unit did not fit: nothing more is stored */
} writer;

/* Text that passes unchanged: printable ASCII and whole valid characters. */
static void pass(writer *w, const unsigned char *p, size_t n)
{
    w->len += n;
    if (w->full || n == 0)
        return;
    size_t room = w->cap - w->stored;
    if (n > room) {
        n = room;
        while (n > 0 && (p[n] & 0xc0) == 0x80) /* p[n] continues a character */
            n--;
        w->full = true;
        if (n == 0)
            return; /* out may be NULL */
    }
    memcpy(w->out + w->stored, p, n);
    w->stored += n;
}

/* The escape of the unit at s (a byte, or a forbidden character of n bytes). */
static void put_escape(writer *w, const unsigned char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    char esc[6] = { '\\', 'x', hex[s[0] >> 4], hex[s[0] & 15] };
    size_t esc_len = 4;
    if (s[0] == '\n' || s[0] == '\r' || s[0] == '\t') {
        esc[1] = s[0] == '\n' ? 'n' : s[0] == '\r' ? 'r' : 't';
        esc_len = 2;
    } else if (n == 2) { /* C1: U+0080 + (s[1] - 0x80), i.e. s[1] */
        memcpy(esc, "\\u00", 4);
        esc[4] = hex[s[1] >> 4];
        esc[5] = hex[s[1] & 15];
        esc_len = 6;
    } else if (n == 3) {
        memcpy(esc, s[2] == 0xa8 ? "\\u2028" : "\\u2029", 6);
        esc_len = 6;
    }
    w->len += esc_len;
    if (w->full)
        return;
    if (esc_len > w->cap - w->stored) {
        w->full = true;
        return;
    }
    memcpy(w->out + w->stored, esc, esc_len);
    w->stored += esc_len;
}

size_t xlog_escape_text(char *out, size_t cap, const char *in, size_t len, size_t *written)
{
    const unsigned char *s = (const unsigned char *)in, *end = s + len;
    s += printable_ascii_span(in, len);
    if (s == end) { /* the usual text: all of it passes, each byte a unit */
        size_t n = len < cap ? len : cap;
        if (n > 0) /* out may be NULL */
            memcpy(out, in, n);
        if (written)
            *written = n;
        return len;
    }
    writer w = { .out = out, .cap = cap };
    const unsigned char *run = (const unsigned char *)in; /* start of the bytes passing unchanged */
    while (s < end) {
        s += printable_ascii_span((const char *)s, (size_t)(end - s));
        if (s == end)
            break;
        size_t n = *s >= 0x80 ? xlog_utf8_sequence(s, (size_t)(end - s)) : 0;
        if (n > 0 && !xlog_utf8_forbidden(s, n)) {
            s += n;
            continue;
        }
        pass(&w, run, (size_t)(s - run));
        n += n == 0; /* an invalid byte, a control or DEL is one byte */
        put_escape(&w, s, n);
        s += n;
        run = s;
    }
    pass(&w, run, (size_t)(end - run));
    if (written)
        *written = w.stored;
    return w.len;
}

size_t xlog_utf8_cut(const char *text, size_t len, size_t limit)
{
    if (limit >= len)
        return len;
    const unsigned char *s = (const unsigned char *)text;
    /* Only a sequence starting at most 3 bytes back can reach past limit,
     * and its start is the nearest byte that is not a continuation byte. */
    for (size_t back = 1; back <= 3 && back <= limit; back++) {
        size_t start = limit - back;
        if ((s[start] & 0xc0) != 0x80)
            return start + xlog_utf8_sequence(s + start, len - start) > limit ? start : limit;
    }
    return limit;
}
