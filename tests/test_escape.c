/*
 * test_escape.c - the escaping rule of a log line (lib/format/escape.h).
 *
 * Fixed cases give the exact bytes expected for every byte value alone, for
 * each kind of invalid UTF-8, for the characters the rule forbids and for
 * those it lets through.  Exhaustive and random cases check the rule itself
 * against line_rule.h, which decodes with glibc instead of escape.c: whatever
 * the input, the output is allowed in a line, and an input that is already
 * allowed comes out unchanged.  Capacity, cut points and the worst-case
 * growth are checked byte for byte.  Messages are escaped as the back end
 * and the text layout do it: rendered raw by the format engine, then
 * escaped whole.
 */
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "format/escape.h"
#include "format/format.h"
#include "line_rule.h"

static char out[1 << 16];

/* Shows bytes readably in failure messages, up to three in one message. */
static const char *visible(const char *p, size_t n)
{
    static char text[3][4096];
    static unsigned which;
    char *v = text[which++ % 3];
    size_t o = 0;
    for (size_t i = 0; i < n && o + 8 < sizeof text[0]; i++) {
        unsigned char b = (unsigned char)p[i];
        o += (size_t)(b >= 0x20 && b < 0x7f ? sprintf(v + o, "%c", b) : sprintf(v + o, "<%02x>", b));
    }
    v[o] = '\0';
    return v;
}

static void expect_escape(const char *in, size_t len, const char *expected)
{
    size_t written;
    memset(out, '#', 64);
    size_t n = xlog_escape_text(out, sizeof out, in, len, &written);
    if (n != strlen(expected) || written != n || memcmp(out, expected, n) != 0)
        fail_msg("escaping [%s]: expected [%s], got [%s] (%zu, written %zu)", visible(in, len),
                 visible(expected, strlen(expected)), visible(out, n < 64 ? n : 64), n, written);
    assert_int_equal(xlog_escape_text(NULL, 0, in, len, NULL), n);
}

#define EXPECT(in, expected) expect_escape(in, sizeof in - 1, expected)

static uint64_t rng = 0x2545f4914f6cdd1du;

static uint64_t rand64(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void every_byte_alone_is_escaped_or_passes(void **state)
{
    (void)state;
    for (unsigned b = 0; b < 256; b++) {
        char in = (char)b, expected[8];
        if (b == '\n')
            strcpy(expected, "\\n");
        else if (b == '\r')
            strcpy(expected, "\\r");
        else if (b == '\t')
            strcpy(expected, "\\t");
        else if (b >= 0x20 && b < 0x7f)
            sprintf(expected, "%c", b);
        else /* other C0, DEL, and any byte >= 0x80 alone (never valid UTF-8) */
            sprintf(expected, "\\x%02x", b);
        expect_escape(&in, 1, expected);
    }
    /* a backslash is not escaped: the text stays readable */
    EXPECT("a\\nb\\x41", "a\\nb\\x41");
    EXPECT("", "");
}

static void every_kind_of_invalid_utf8_is_escaped_byte_by_byte(void **state)
{
    (void)state;
    /* overlong forms */
    EXPECT("\xc0\x80", "\\xc0\\x80");
    EXPECT("\xc1\xbf", "\\xc1\\xbf");
    EXPECT("\xe0\x80\x80", "\\xe0\\x80\\x80");
    EXPECT("\xe0\x9f\xbf", "\\xe0\\x9f\\xbf");
    EXPECT("\xf0\x80\x80\x80", "\\xf0\\x80\\x80\\x80");
    EXPECT("\xf0\x8f\xbf\xbf", "\\xf0\\x8f\\xbf\\xbf");
    /* UTF-16 surrogates encoded as UTF-8 (CESU-8), alone and in a pair */
    EXPECT("\xed\xa0\x80", "\\xed\\xa0\\x80");
    EXPECT("\xed\xbf\xbf", "\\xed\\xbf\\xbf");
    EXPECT("\xed\xa0\xbd\xed\xb8\x80", "\\xed\\xa0\\xbd\\xed\\xb8\\x80");
    /* beyond U+10FFFF, and the old 5- and 6-byte forms */
    EXPECT("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80");
    EXPECT("\xf5\x80\x80\x80", "\\xf5\\x80\\x80\\x80");
    EXPECT("\xf7\xbf\xbf\xbf", "\\xf7\\xbf\\xbf\\xbf");
    EXPECT("\xf8\x88\x80\x80\x80", "\\xf8\\x88\\x80\\x80\\x80");
    EXPECT("\xfc\x84\x80\x80\x80\x80", "\\xfc\\x84\\x80\\x80\\x80\\x80");
    EXPECT("\xfe\xff", "\\xfe\\xff");
    /* cut sequences: at the end, before ASCII, before a valid character */
    EXPECT("\xc3", "\\xc3");
    EXPECT("\xe2\x82", "\\xe2\\x82");
    EXPECT("\xf0\x9f\x98", "\\xf0\\x9f\\x98");
    EXPECT("\xe2\x82" "A", "\\xe2\\x82" "A");
    EXPECT("\xe2\xc3\xa9", "\\xe2\xc3\xa9");
    EXPECT("\xf0\x9f\xf0\x9f\x98\x80", "\\xf0\\x9f\xf0\x9f\x98\x80");
    /* stray continuation bytes */
    EXPECT("\x80", "\\x80");
    EXPECT("a\xbf" "b", "a\\xbf" "b");
    EXPECT("\xc3\xa9\xa9", "\xc3\xa9\\xa9");
    /* the edges of the valid ranges pass */
    EXPECT("\xed\x9f\xbf", "\xed\x9f\xbf");         /* U+D7FF */
    EXPECT("\xee\x80\x80", "\xee\x80\x80");         /* U+E000 */
    EXPECT("\xef\xbf\xbf", "\xef\xbf\xbf");         /* U+FFFF */
    EXPECT("\xe0\xa0\x80", "\xe0\xa0\x80");         /* U+0800 */
    EXPECT("\xc2\xa0", "\xc2\xa0");                 /* U+00A0, just after C1 */
}

static void c1_controls_and_line_separators_are_escaped_as_code_points(void **state)
{
    (void)state;
    EXPECT("\xc2\x80", "\\u0080");
    EXPECT("\xc2\x85", "\\u0085"); /* NEL */
    EXPECT("\xc2\x9b" "31m", "\\u009b" "31m"); /* CSI */
    EXPECT("\xc2\x9f", "\\u009f");
    EXPECT("a\xe2\x80\xa8" "b", "a\\u2028b");
    EXPECT("a\xe2\x80\xa9" "b", "a\\u2029b");
    /* their neighbours, and other format characters, pass */
    EXPECT("\xe2\x80\xa7\xe2\x80\xaa\xe2\x80\x8b", "\xe2\x80\xa7\xe2\x80\xaa\xe2\x80\x8b");
    /* a raw C1 byte is not UTF-8: a byte escape */
    EXPECT("\x9b" "31m", "\\x9b" "31m");
    EXPECT("\x1b[31m\x7f", "\\x1b[31m\\x7f");
    EXPECT("a\r\nb\tc", "a\\r\\nb\\tc");
}

static void four_byte_characters_and_other_scripts_pass(void **state)
{
    (void)state;
    EXPECT("\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80");         /* U+1F600 */
    EXPECT("\xf0\x90\x80\x80", "\xf0\x90\x80\x80");         /* U+10000 */
    EXPECT("\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf");         /* U+10FFFF */
    EXPECT("\xed\x95\x9c\xea\xb8\x80 caf\xc3\xa9 \xe4\xb8\xad", /* Korean, Latin, CJK */
           "\xed\x95\x9c\xea\xb8\x80 caf\xc3\xa9 \xe4\xb8\xad");
    EXPECT("\xf0\x9f\x98\x80\n\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80\\n\xf0\x9f\x98\x80");
}

/* An offender at every offset of ASCII texts of every length up to 48: the
 * scan that checks sixteen bytes at a time (and the last sixteen again for
 * a shorter tail) must see it wherever it is. */
static void offenders_are_found_at_every_offset(void **state)
{
    (void)state;
    static const struct { const char *bytes; const char *escaped; } offenders[] = {
        { "\x01", "\\x01" }, { "\x1f", "\\x1f" }, { "\x7f", "\\x7f" }, { "\x80", "\\x80" },
        { "\xff", "\\xff" }, { "\n", "\\n" }, { "\xc2\x85", "\\u0085" },
        { "\xc3\xa9", "\xc3\xa9" }, { "\x20", " " }, { "\x7e", "~" },
    };
    for (size_t k = 0; k < sizeof offenders / sizeof offenders[0]; k++) {
        size_t blen = strlen(offenders[k].bytes), elen = strlen(offenders[k].escaped);
        for (size_t len = 0; len <= 48; len++) { /* ASCII around the offender */
            for (size_t at = 0; at <= len; at++) {
                char in[64], expected[64];
                memset(in, 'a', sizeof in);
                memset(expected, 'a', sizeof expected);
                memcpy(in + at, offenders[k].bytes, blen);
                memcpy(expected + at, offenders[k].escaped, elen);
                expected[elen + len] = '\0';
                expect_escape(in, blen + len, expected);
            }
        }
    }
}

/* Checks the rule on one input: the output is allowed in a line; an input
 * that is allowed comes out as it is; the growth bound holds. */
static void check_rule(const char *in, size_t len)
{
    size_t n = xlog_escape_text(out, sizeof out, in, len, NULL);
    assert_true(n <= XLOG_ESCAPE_GROWTH * len);
    if (!line_rule_allows(out, n))
        fail_msg("escaped [%s] gives [%s], which a line may not hold", visible(in, len),
                 visible(out, n));
    if (line_rule_allows(in, len) && (n != len || memcmp(out, in, len) != 0))
        fail_msg("[%s] is allowed but was changed to [%s]", visible(in, len), visible(out, n));
}

static void every_code_point_and_every_short_sequence_follow_the_rule(void **state)
{
    (void)state;
    /* every code point, encoded, alone and between ASCII */
    for (uint32_t cp = 0; cp <= 0x10ffff; cp++) {
        if (cp >= 0xd800 && cp <= 0xdfff)
            continue;
        char in[8];
        size_t n;
        if (cp < 0x80) {
            in[1] = (char)cp;
            n = 1;
        } else if (cp < 0x800) {
            in[1] = (char)(0xc0 | cp >> 6);
            in[2] = (char)(0x80 | (cp & 0x3f));
            n = 2;
        } else if (cp < 0x10000) {
            in[1] = (char)(0xe0 | cp >> 12);
            in[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
            in[3] = (char)(0x80 | (cp & 0x3f));
            n = 3;
        } else {
            in[1] = (char)(0xf0 | cp >> 18);
            in[2] = (char)(0x80 | ((cp >> 12) & 0x3f));
            in[3] = (char)(0x80 | ((cp >> 6) & 0x3f));
            in[4] = (char)(0x80 | (cp & 0x3f));
            n = 4;
        }
        in[0] = 'x';
        in[n + 1] = 'y';
        check_rule(in, n + 2);
        size_t len = xlog_escape_text(out, sizeof out, in + 1, n, NULL);
        int forbidden = cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029;
        if (forbidden != (len != n || memcmp(out, in + 1, n) != 0))
            fail_msg("U+%04X was %s", (unsigned)cp, forbidden ? "not escaped" : "escaped");
    }
    /* every 1- and 2-byte string, and every 3-byte string with a lead byte
     * of a 3- or 4-byte sequence first */
    for (unsigned a = 0; a < 256; a++) {
        for (unsigned b = 0; b < 256; b++) {
            char in[3] = { (char)a, (char)b };
            check_rule(in, 2);
            if (a < 0xe0 || a > 0xf4)
                continue;
            for (unsigned c = 0; c < 256; c++) {
                in[2] = (char)c;
                check_rule(in, 3);
            }
        }
    }
}

/* Random bytes, mostly near UTF-8: the rule, and cutting anywhere. */
static void random_texts_follow_the_rule(void **state)
{
    (void)state;
    static const unsigned char pieces[] = { 0x80, 0xbf, 0xc2, 0xc3, 0xe0, 0xe2, 0xed, 0xf0,
                                            0xf4, 0x9b, 0x85, 0xa8, 0xa9, 0x0a, 0x7f, 'a' };
    for (int round = 0; round < 100000; round++) {
        char in[48];
        size_t len = rand64() % sizeof in;
        for (size_t i = 0; i < len; i++)
            in[i] = (char)(rand64() % 3 ? pieces[rand64() % sizeof pieces] : rand64());
        check_rule(in, len);
    }
}

/* Whatever the capacity: the full length is returned, and what is written is
 * a prefix of the full output ending between two units, with no room left
 * for the next one, and nothing past it is touched. */
static void a_small_capacity_keeps_whole_characters_and_escapes(void **state)
{
    (void)state;
    static const char text[] = "ab\xc3\xa9\n\xf0\x9f\x98\x80\xc2\x85\xff" "c\xe2\x80\xa8" "d";
    size_t len = sizeof text - 1;
    char full[128];
    size_t full_len = xlog_escape_text(full, sizeof full, text, len, NULL);
    assert_string_equal(visible(full, full_len),
                        visible("ab\xc3\xa9\\n\xf0\x9f\x98\x80\\u0085\\xff" "c\\u2028d", full_len));
    /* the unit boundaries of the full output */
    static const size_t ends[] = { 0, 1, 2, 4, 6, 10, 16, 20, 21, 27, 28 };
    size_t nends = sizeof ends / sizeof ends[0];
    assert_int_equal(ends[nends - 1], full_len);
    for (size_t cap = 0; cap <= full_len + 1; cap++) {
        char part[128];
        memset(part, '#', sizeof part);
        size_t written = 999;
        assert_int_equal(xlog_escape_text(part, cap, text, len, &written), full_len);
        size_t want = 0;
        for (size_t i = 0; i < nends; i++)
            if (ends[i] <= cap)
                want = ends[i];
        assert_int_equal(written, want);
        assert_memory_equal(part, full, written);
        for (size_t i = written; i < sizeof part; i++)
            assert_int_equal(part[i], '#');
    }
}

static void utf8_cut_never_splits_a_character(void **state)
{
    (void)state;
    static const char text[] = "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80z";
    size_t len = sizeof text - 1; /* a, e-acute, euro, emoji, z: 1+2+3+4+1 */
    static const size_t want[] = { 0, 1, 1, 3, 3, 3, 6, 6, 6, 6, 10, 11, 11, 11 };
    for (size_t limit = 0; limit < sizeof want / sizeof want[0]; limit++)
        assert_int_equal(xlog_utf8_cut(text, len, limit), want[limit]);

    /* invalid bytes are units of their own: a cut may fall between them */
    static const char invalid[] = "\xe2\x82" "A\x80\x80\xf0\x9f\x98";
    for (size_t limit = 0; limit <= 9; limit++)
        assert_int_equal(xlog_utf8_cut(invalid, 8, limit), limit < 8 ? limit : 8);
    assert_int_equal(xlog_utf8_cut("", 0, 5), 0);
}

/* Cutting at xlog_utf8_cut and escaping both parts gives the escaped whole,
 * and every longer cut up to the limit falls inside a character. */
static void utf8_cut_points_escape_like_the_whole(void **state)
{
    (void)state;
    static const unsigned char pieces[] = { 0x80, 0xa9, 0xc3, 0xe2, 0x82, 0xac, 0xf0, 0x9f,
                                            0x98, 0xed, 0xf4, 0x8f, 'a', '\n' };
    for (int round = 0; round < 20000; round++) {
        char in[24], whole[128], parts[128];
        size_t len = rand64() % sizeof in;
        for (size_t i = 0; i < len; i++)
            in[i] = (char)pieces[rand64() % sizeof pieces];
        size_t whole_len = xlog_escape_text(whole, sizeof whole, in, len, NULL);
        for (size_t limit = 0; limit <= len; limit++) {
            size_t cut = xlog_utf8_cut(in, len, limit);
            assert_true(cut <= limit && cut + 3 >= limit);
            size_t a = xlog_escape_text(parts, sizeof parts, in, cut, NULL);
            size_t b = xlog_escape_text(parts + a, sizeof parts - a, in + cut, len - cut, NULL);
            if (a + b != whole_len || memcmp(parts, whole, whole_len) != 0)
                fail_msg("cut of [%s] at %zu (limit %zu) escapes differently",
                         visible(in, len), cut, limit);
            for (size_t longer = cut + 1; longer <= limit; longer++) {
                a = xlog_escape_text(parts, sizeof parts, in, longer, NULL);
                b = xlog_escape_text(parts + a, sizeof parts - a, in + longer, len - longer, NULL);
                assert_false(a + b == whole_len && memcmp(parts, whole, whole_len) == 0);
            }
        }
    }
}

static void growth_is_at_most_four_bytes_per_byte(void **state)
{
    (void)state;
    assert_int_equal(XLOG_ESCAPE_GROWTH, 4);
    char in[1000];
    memset(in, 0xff, sizeof in); /* the worst case: every byte invalid */
    assert_int_equal(xlog_escape_text(NULL, 0, in, sizeof in, NULL), 4 * sizeof in);
    memset(in, 0x01, sizeof in);
    assert_int_equal(xlog_escape_text(NULL, 0, in, sizeof in, NULL), 4 * sizeof in);
    for (size_t i = 0; i + 1 < sizeof in; i += 2) { /* C1: 6 bytes for 2 */
        in[i] = (char)0xc2;
        in[i + 1] = (char)0x9b;
    }
    assert_int_equal(xlog_escape_text(NULL, 0, in, sizeof in, NULL), 3 * sizeof in);
    /* a buffer of the bound always holds the whole output */
    size_t written;
    memset(in, 0xfe, sizeof in);
    size_t len = xlog_escape_text(out, XLOG_ESCAPE_GROWTH * sizeof in, in, sizeof in, &written);
    assert_int_equal(written, len);
}

/* A message as a text line holds it: rendered raw, then escaped whole. */
static void expect_rendered(const char *fmt, const xlog_arg *args, size_t nargs,
                            const char *expected)
{
    char raw[256];
    size_t raw_len = xlog_fmt_render(fmt, strlen(fmt), args, nargs, raw, sizeof raw);
    assert_true(raw_len <= sizeof raw);
    expect_escape(raw, raw_len, expected);
}

/* A line's field (xlog_escape_field: printable ASCII copied sixteen bytes
 * at a time as it is checked) is escaped as xlog_escape_text escapes it:
 * every length to 80, printable, or with one byte to escape (a control, a
 * C1 character, a cut sequence, DEL) or a valid character at each offset,
 * so that the check fails in each sixteen-byte step and in the last,
 * overlapping one. */
static void a_field_is_escaped_as_the_text(void **state)
{
    (void)state;
    static const char *const offenders[] = {"\n", "\x01", "\xc2\x85", "\xe2\x80", "\x7f",
                                            "\xc3\xa9", "\xf0\x9f\x98\x80"};
    char in[96] = {0}, expected[4 * sizeof in], field[4 * sizeof in];
    for (size_t len = 0; len <= 80; len++) {
        for (size_t o = 0; o <= sizeof offenders / sizeof offenders[0]; o++) {
            for (size_t at = 0; at < (o == 0 ? 1 : len); at++) {
                for (size_t i = 0; i < len; i++)
                    in[i] = (char)(' ' + (i * 7 + len) % 95);
                size_t n = len;
                if (o > 0) {
                    const char *bad = offenders[o - 1];
                    size_t bad_len = strlen(bad);
                    if (at + bad_len > len)
                        continue;
                    memcpy(in + at, bad, bad_len);
                }
                size_t e = xlog_escape_text(expected, sizeof expected, in, n, NULL);
                memset(field, '#', sizeof field);
                size_t f = xlog_escape_field(field, in, n);
                if (f != e || memcmp(field, expected, e) != 0)
                    fail_msg("[%s]: expected [%s], got [%s]", visible(in, n), visible(expected, e),
                             visible(field, f));
                /* nothing beyond the escaped text */
                assert_int_equal(field[f], '#');
            }
        }
    }
}

/* Widths and precisions count raw bytes, as snprintf's do, so an escape can
 * make a padded field wider than its width; and the whole message is escaped
 * at once, so a character made by two conversions ("%c%c") passes whole. */
static void rendered_messages_are_escaped_whole(void **state)
{
    (void)state;
    expect_rendered("a\nb", NULL, 0, "a\\nb");
    expect_rendered("\r\t\x1b[0m\x7f\x01 caf\xc3\xa9", NULL, 0,
                    "\\r\\t\\x1b[0m\\x7f\\x01 caf\xc3\xa9");
    expect_rendered("\xc2\x9b[31m|\xc2\x85|a\xe2\x80\xa8" "b\xe2\x80\xa9|\xff\xc3(|\xed\xa0\x80|"
                    "\xc3\xa9", NULL, 0,
                    "\\u009b[31m|\\u0085|a\\u2028b\\u2029|\\xff\\xc3(|\\xed\\xa0\\x80|\xc3\xa9");

    xlog_arg str = { .s = { "line1\r\nline2", 12 } };
    expect_rendered("got: %s.", &str, 1, "got: line1\\r\\nline2.");
    expect_rendered("[%.6s]", &str, 1, "[line1\\r]");
    xlog_arg tab = { .s = { "\tx", 2 } };
    expect_rendered("[%5s|%-5s|%3s]", (xlog_arg[]){ tab, tab, tab }, 3, "[   \\tx|\\tx   | \\tx]");
    xlog_arg csi = { .s = { "\x9b" "2J\xe2\x80\xa8", 6 } };
    expect_rendered("[%s|%9s|%-12.4s]", (xlog_arg[]){ csi, csi, csi }, 3,
                    "[\\x9b2J\\u2028|   \\x9b2J\\u2028|\\x9b2J\\xe2        ]");

    xlog_arg ch = { .i = '\n' }, esc = { .i = 0x1b }, nul = { .i = 0 }, c1 = { .i = 0x85 };
    expect_rendered("[%c|%4c|%-5c]", (xlog_arg[]){ ch, ch, esc }, 3, "[\\n|   \\n|\\x1b    ]");
    expect_rendered("[%c]", &nul, 1, "[\\x00]");
    expect_rendered("[%c]", &c1, 1, "[\\x85]");
    xlog_arg lead = { .i = 0xc3 }, trail = { .i = 0xa9 };
    expect_rendered("%c%c", (xlog_arg[]){ lead, trail }, 2, "\xc3\xa9");
    /* numbers need nothing; an unknown conversion, shown literally, does */
    xlog_arg num = { .i = -5 };
    expect_rendered("%d%\n", &num, 1, "-5%\\n");

    /* main() set LC_CTYPE to C.UTF-8, which %ls and %lc convert with */
    xlog_arg ws = { .ws = { L"a\n\xe9", 3 } };
    expect_rendered("[%ls|%6ls]", (xlog_arg[]){ ws, ws }, 2, "[a\\n\xc3\xa9|  a\\n\xc3\xa9]");
    xlog_arg wc = { .u = L'\t' };
    expect_rendered("[%3lc]", &wc, 1, "[  \\t]");
    xlog_arg separators = { .ws = { L"\x85|\x2028|\x1f600", 5 } };
    expect_rendered("%ls", &separators, 1, "\\u0085|\\u2028|\xf0\x9f\x98\x80");

    xlog_arg args[3] = { { .s = { "alice", 5 } }, { .i = 42 }, { .d = 1.25 } };
    expect_rendered("user %s logged in, id %d, took %f ms", args, 3,
                    "user alice logged in, id 42, took 1.250000 ms");

    /* at a capacity the escaped text ends before the escape that does not fit */
    static const struct { const char *fmt; size_t cap, written, full; } cuts[] = {
        { "ab\xe2\x80\xa8", 5, 2, 8 }, /* "ab\u2028" */
        { "a\x01", 3, 1, 5 },          /* "a\x01" */
    };
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        char raw[8];
        size_t raw_len = xlog_fmt_render(cuts[i].fmt, strlen(cuts[i].fmt), NULL, 0, raw,
                                         sizeof raw);
        size_t written;
        memset(out, '#', 16);
        assert_int_equal(xlog_escape_text(out, cuts[i].cap, raw, raw_len, &written), cuts[i].full);
        assert_int_equal(written, cuts[i].written);
        assert_memory_equal(out, cuts[i].fmt, written);
        assert_int_equal(out[written], '#');
    }
}

int main(void)
{
    if (!setlocale(LC_CTYPE, "C.UTF-8")) { /* line_rule.h decodes with mbrtowc */
        fprintf(stderr, "test_escape: the C.UTF-8 locale is missing\n");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_byte_alone_is_escaped_or_passes),
        cmocka_unit_test(every_kind_of_invalid_utf8_is_escaped_byte_by_byte),
        cmocka_unit_test(c1_controls_and_line_separators_are_escaped_as_code_points),
        cmocka_unit_test(four_byte_characters_and_other_scripts_pass),
        cmocka_unit_test(offenders_are_found_at_every_offset),
        cmocka_unit_test(every_code_point_and_every_short_sequence_follow_the_rule),
        cmocka_unit_test(random_texts_follow_the_rule),
        cmocka_unit_test(a_small_capacity_keeps_whole_characters_and_escapes),
        cmocka_unit_test(utf8_cut_never_splits_a_character),
        cmocka_unit_test(utf8_cut_points_escape_like_the_whole),
        cmocka_unit_test(growth_is_at_most_four_bytes_per_byte),
        cmocka_unit_test(rendered_messages_are_escaped_whole),
        cmocka_unit_test(a_field_is_escaped_as_the_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
