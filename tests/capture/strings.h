/*
 * strings.h - the calls of test_capture with strings among their
 * arguments: compiled as C11 (capture_c11.c), where a call whose arguments
 * are scalars and strings passes them to xlog_impl_log_captured with their
 * lengths, and as C99 (capture_c99.c), where it takes the variable
 * argument list.  The lines must be the same; test_capture.c holds what
 * they must be.
 *
 * The includer defines STRING_CASES, the name of its table
 * (STRING_CASE_COUNT functions).  The logger runs with max_message 256.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <xlog.h>

static void string_two(void)
{
    xlog_info("user %s logged in from %s", "bob.smith.long", "10.0.0.1");
}

/* Lengths on each side of the copy's cases (below 4, 4 to 7, 8 to 16,
 * above). */
static void string_lengths(void)
{
    xlog_info("[%s|%s|%s|%s|%s|%s]", "abc", "abcd", "abcdefg", "abcdefgh", "0123456789abcdef",
              "0123456789abcdef0123456789abcdef0123456789");
}

static void string_null(void)
{
    const char *volatile hidden = NULL; /* so that -Wformat-overflow does not see it */
    const char *none = hidden;
    xlog_info("[%s|%s]", none, "after");
}

static void string_empty(void)
{
    xlog_info("[%s][%s]", "", "x");
}

/* 300 bytes: cut at the budget of 256, the record flagged truncated, and
 * the string after it cut to nothing. */
static void string_too_long(void)
{
    char text[301];
    for (int i = 0; i < 300; i++)
        text[i] = (char)('a' + i % 26);
    text[300] = '\0';
    xlog_info("%s|%s", text, "tail");
}

/* Longer than the ring (64 KiB): only a record cut at the budget fits. */
static void string_longer_than_the_ring(void)
{
    static char text[200001];
    memset(text, 'z', sizeof text - 1);
    xlog_info("%s", text);
}

static void string_with_scalars(void)
{
    char name[16] = "array";
    const unsigned char *bytes = (const unsigned char *)"bytes";
    xlog_info("%s=%d %s %.2f %p %ld %s %c", name, -42, "mid", 2.5, (void *)0x10, -7L,
              (const char *)bytes, 'q');
}

static void string_eight(void)
{
    xlog_info("%s %d %s %u %s %f %s %x", "a", 1, "bb", 2u, "ccc", 3.0, "dddd", 255);
}

/* Each argument evaluated once: test_capture.c counts the calls of
 * string_evaluated. */
extern int string_evaluations;
static const char *string_evaluated(void)
{
    string_evaluations++;
    return "once";
}

static void string_evaluated_once(void)
{
    xlog_info("%s %d", string_evaluated(), 7);
}

static void string_star_width(void)
{
    xlog_info("[%*s|%-*s]", 6, "ab", 4, "c");
}

/* Not taken at the call site: a '*' precision bounds the copy; %m reads
 * no argument; a string pointer for %p; more arguments than
 * conversions. */
static void string_star_precision(void)
{
    xlog_info("[%.*s]", 3, "abcdef");
}

static void string_errno(void)
{
    errno = ENOENT;
    xlog_info("%s: %m", "open");
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"
#pragma GCC diagnostic ignored "-Wformat-extra-args"
#pragma GCC diagnostic ignored "-Wpedantic"
static void string_for_pointer(void)
{
    xlog_info("%p", (char *)0x1234);
}

static void string_extra_argument(void)
{
    xlog_info("%s", "kept", "extra");
}
#pragma GCC diagnostic pop

#define STRING_CASE_COUNT 14
void (*const STRING_CASES[STRING_CASE_COUNT])(void) = {
    string_two,           string_null,           string_empty,
    string_too_long,      string_with_scalars,   string_eight,
    string_evaluated_once, string_star_width,    string_star_precision,
    string_errno,         string_for_pointer,    string_extra_argument, string_longer_than_the_ring,
    string_lengths,
};
