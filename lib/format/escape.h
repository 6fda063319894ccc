/*
 * escape.h - what a log line may contain, and how any text is made to fit.
 *
 * Why it exists: a message, a file name or a function name can hold any
 * bytes, and a reader of the log (a terminal, a viewer, a collector) must
 * still see one call as one line that nobody could have forged.  So the text
 * that goes into a line is valid UTF-8 with no C0 control (0x00-0x1f), no DEL
 * (0x7f), no C1 control (U+0080-U+009f, NEL U+0085 among them) and no Unicode
 * line or paragraph separator (U+2028, U+2029).  Every other byte is escaped:
 *   - printable ASCII and every other valid UTF-8 character pass unchanged;
 *   - "\n", "\r" and "\t" become the two characters \n \r \t;
 *   - any other C0 control, DEL, and every byte that is not part of a valid
 *     UTF-8 sequence (an overlong form, a surrogate encoded in UTF-8, a value
 *     above U+10FFFF, a cut sequence, a stray continuation byte, 0xc0, 0xc1,
 *     0xf5-0xff) becomes \xNN, two lowercase hex digits;
 *   - a valid but forbidden character (C1, U+2028, U+2029) becomes \uNNNN,
 *     four lowercase hex digits: \u009b, \u2028.
 * A backslash is not escaped, so that printf output stays readable; escapes
 * are therefore not reversible (a message may itself contain "\x41"), but no
 * line can be split or forged.  Invalid UTF-8 is read left to right: where a
 * valid sequence starts it is taken whole, else one byte is escaped and the
 * next byte is looked at afresh.
 *
 * How it works: escape.c copies runs of bytes that pass unchanged in bulk
 * (sixteen ASCII bytes are checked at a time) and
 * decodes only what is not printable ASCII.  This one rule is used by the
 * text layouts (layouts/) for every field of a line, the message included
 * (format.c renders it raw); JSON lines (layouts/json.c) decode UTF-8 with the
 * same xlog_utf8_sequence.
 */
#ifndef XLOG_ESCAPE_H
#define XLOG_ESCAPE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The escaped text is at most this many times as long as its input ("\xNN"
 * for one byte), so a buffer of XLOG_ESCAPE_GROWTH * len bytes always fits. */
#define XLOG_ESCAPE_GROWTH 4

/* Escapes in[0..len) into out (at most cap bytes, no NUL added).  Returns the
 * length of the whole escaped text, as snprintf does, whatever cap is.  When
 * that is more than cap, out holds the longest prefix of it that fits and
 * ends between two characters or escapes, never inside one.  *written (if
 * written is not NULL) receives how many bytes were written.  out may be NULL
 * when cap is 0. */
size_t xlog_escape_text(char *out, size_t cap, const char *in, size_t len, size_t *written);

/* The longest prefix length of text[0..len), at most limit, that does not
 * end inside a valid UTF-8 sequence of text.  Cutting there and escaping the
 * two parts separately gives exactly the escaped whole; a cut sequence would
 * instead show as \xNN escapes.  The result is limit, or less by at most 3. */
size_t xlog_utf8_cut(const char *text, size_t len, size_t limit);

/* Length of the valid UTF-8 sequence at s (avail bytes readable), or 0 when
 * none starts there.  The ranges are Unicode's well-formed byte sequences:
 * they exclude overlong forms, surrogates and values above U+10FFFF.  Inline
 * and shared, so that every escaping (this rule, JSON's) decodes alike. */
static inline size_t xlog_utf8_sequence(const unsigned char *s, size_t avail)
{
    unsigned b = s[0];
    if (b < 0x80)
        return 1;
    if (b < 0xc2 || b > 0xf4)
        return 0;
    unsigned lo = 0x80, hi = 0xbf; /* the second byte's range */
    if (b == 0xe0)
        lo = 0xa0;
    else if (b == 0xed)
        hi = 0x9f;
    else if (b == 0xf0)
        lo = 0x90;
    else if (b == 0xf4)
        hi = 0x8f;
    size_t n = b < 0xe0 ? 2 : b < 0xf0 ? 3 : 4;
    if (avail < n || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    return n;
}

/* Whether a valid sequence of n bytes is a character lines may not hold: C1
 * controls (U+0080-U+009F: c2 80 to c2 9f) and U+2028, U+2029 (e2 80 a8,
 * e2 80 a9). */
static inline int xlog_utf8_forbidden(const unsigned char *s, size_t n)
{
    if (n == 2)
        return s[0] == 0xc2 && s[1] < 0xa0;
    return n == 3 && s[0] == 0xe2 && s[1] == 0x80 && (s[2] == 0xa8 || s[2] == 0xa9);
}

/* Sixteen bytes checked at once (escape.c, json.c): GCC's and Clang's
 * vector extension compiles to a few SSE2 (or NEON) instructions.  As
 * signed bytes, 0x80-0xff are negative, so "below 0x20" also finds every
 * byte that is not ASCII. */
typedef signed char xlog_bytes16 __attribute__((vector_size(16)));

/* Whether the sixteen bytes at p are all printable ASCII (0x20-0x7e), the
 * bytes that pass unchanged. */
static inline int xlog_printable16(const char *p)
{
    xlog_bytes16 v;
    memcpy(&v, p, sizeof v);
    xlog_bytes16 bad = (v < 0x20) | (v == 0x7f);
    uint64_t half[2];
    memcpy(half, &bad, sizeof half);
    return (half[0] | half[1]) == 0;
}

/* xlog_escape_text(out, XLOG_ESCAPE_GROWTH * len, in, len, NULL), for an
 * out with that much room (a line's field): text of printable ASCII, the
 * usual message, is copied sixteen bytes at a time as it is checked (a
 * short text a byte at a time), with no call; any other goes to
 * xlog_escape_text, which writes it all again. */
static inline size_t xlog_escape_field(char *out, const char *in, size_t len)
{
    if (len < 16) { /* a short name ("main.c"): a byte at a time */
        for (size_t i = 0; i < len; i++) {
            if ((unsigned char)(in[i] - 0x20) >= 0x5f) /* not 0x20-0x7e */
                return xlog_escape_text(out, XLOG_ESCAPE_GROWTH * len, in, len, NULL);
            out[i] = in[i];
        }
        return len;
    } else {
        size_t i = 0;
        for (; len - i >= 16 && xlog_printable16(in + i); i += 16)
            memcpy(out + i, in + i, 16);
        if (i == len)
            return len;
        /* fewer than 16 left: the last 16 bytes, read again, cover them */
        if (len - i < 16 && xlog_printable16(in + len - 16)) {
            memcpy(out + len - 16, in + len - 16, 16);
            return len;
        }
    }
    return xlog_escape_text(out, XLOG_ESCAPE_GROWTH * len, in, len, NULL);
}

#endif
