/*
 * text_twin.c - logs through the library, in the text layout (or JSON),
 * the calls that tests/cat/test_cat.py also writes by hand into a binary
 * file (TWIN_CASES there, in the same order), so that xlog-cat's lines can
 * be compared with the library's own, byte for byte.  The pattern leaves
 * out the time and the thread id, which a test cannot pin (test_cat.py
 * checks those against hand-written lines), but shows the thread's name,
 * which this program sets (TWIN_THREAD, hostile bytes: a quote, a
 * backslash, a control byte, a byte that is not UTF-8, U+2028); xlogout
 * names the file, line and function, so both sides give the same.
 *
 *   text_twin DIR PERSISTENT_DIR pattern|default|json
 */
#define _GNU_SOURCE /* pthread_setname_np */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include <xlog.h>

#define TWIN_PATTERN "[{level}] {path}:{line} {function} {module} {thread}|{message}"
#define TWIN_THREAD "tw\"in\\\x01\xff\xe2\x80\xa8"

int main(int argc, char **argv)
{
    if (argc != 4)
        return 2;
    xlog_config cfg = xlog_defaults();
    cfg.dir = argv[1];
    cfg.persistent_dir = argv[2];
    cfg.level = XLOG_TRACE;
    cfg.use_environment = 0;
    if (strcmp(argv[3], "json") == 0)
        cfg.file_layout = XLOG_LAYOUT_JSON;
    else if (strcmp(argv[3], "pattern") == 0)
        cfg.file_pattern = TWIN_PATTERN;
    if (pthread_setname_np(pthread_self(), TWIN_THREAD) != 0)
        return 1;
    int rc = xlog_open(&cfg);
    if (rc != 0) {
        fprintf(stderr, "xlog_open: %s\n", xlog_last_error());
        return 1;
    }
    const char *f = "src/twin.c", *fn = "twin";
    static char big[20001];
    memset(big, 'x', sizeof big - 1);
    xlogout(XLOG_INFO, f, 1, fn, "Logging int: %lu, int: %lu, double: %f", 1UL, 2UL, 0.5);
    xlogout(XLOG_DEBUG, f, 2, fn, "%d %i %u %x %c|%ld %lu|%lld %jd %zu %td|%hhd %hd", -5,
            INT_MAX, -1, 255, 65, LONG_MIN, ULONG_MAX, LLONG_MIN, INTMAX_MAX, SIZE_MAX,
            (ptrdiff_t)-7, (signed char)300, (short)70000);
    xlogout(XLOG_WARN, f, 3, fn, "%f %.2e %g %a|%Lf %.3Lg|%5.1f%%", 3.25, 12345.678, 1e-5, 1.0,
            2.5L, -1234.5L, 99.44);
    const char *volatile null_string = NULL; /* not a NULL the compiler can see */
    errno = ENOENT;
    xlogout(XLOG_ERROR, f, 4, fn, "[%s][%s][%s][%.*s][%p][%p][%ls][%ls][%m][%lc]", null_string, "",
            "a\nb\r\tc\x01\x7f\xff\xc3(\xe2\x80\xa8\xc2\x85\xe9\x80\x80" "end", 3, "abcdef",
            (void *)0x1234, (void *)NULL, (const wchar_t *)NULL, L"Hi!", (wint_t)'A');
    xlogout(XLOG_FATAL, f, 5, fn, "%s", big);
    xlogout(XLOG_TRACE, f, 6, fn, "plain\n");
    xlogout(XLOG_INFO, f, 7, fn, "100%% done %5s|%-5d|%+d|% d|%05.1f|%#o|%#x", "ab", 42, 7, 7,
            2.25, 8, 255);
    xlogout(XLOG_INFO, f, 8, fn, "%s and %s", "\xe2\x80\xa9", "\x1b[31mred");
    xlog_close();
    return 0;
}
