/*
 * xlog-recover - writes the lines that processes which logged into a
 * directory left in shared memory when they ended without xlog_close (kill
 * -9, the OOM killer, exec, _exit), for a program that will not run again:
 * xlog_open does the same by itself for its directory.  A thin shell over
 * xlog_recover() (include/xlog.h), so that what it writes, and the notice
 * before it, are exactly what xlog_open would have written.
 *
 *   xlog-recover DIR [PERSISTENT_DIR]
 *
 * DIR is the log directory as the program gave it (a relative one is taken
 * from the current directory, as xlog_open does); PERSISTENT_DIR is the
 * program's cfg.persistent_dir, if it set one (default /dev/shm/xlog-<uid>).
 * DIR must exist (a mistyped one is an error, not "0 lines recovered").
 * Prints how many lines it recovered; exits 0, or 1 with the reason on
 * stderr (and whatever it could write is written: a later run does the rest,
 * never a line twice).  Processes still alive are left alone.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <xlog.h>

static const char usage[] =
    "usage: xlog-recover DIR [PERSISTENT_DIR]\n"
    "Writes into DIR the lines of processes that logged there and ended without\n"
    "xlog_close (kill -9, OOM killer, exec, _exit), and removes what they left in\n"
    "PERSISTENT_DIR (default /dev/shm/xlog-<uid>).  Exit status 0, or 1 on error.\n";

int main(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(usage, stdout);
        return 0;
    }
    if (argc < 2 || argc > 3 || argv[1][0] == '-') {
        fputs(usage, stderr);
        return 1;
    }
    /* A mistyped directory must not look like a recovery that found
     * nothing: the program's lines would be waiting elsewhere. */
    struct stat st;
    if (stat(argv[1], &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "xlog-recover: %s: %s: nothing was recovered\n", argv[1],
                stat(argv[1], &st) != 0 ? strerror(errno) : "not a directory");
        return 1;
    }
    long lines = xlog_recover(argv[1], argc == 3 ? argv[2] : NULL);
    if (lines < 0) {
        fprintf(stderr, "xlog-recover: %s\n", xlog_last_error());
        return 1;
    }
    printf("xlog-recover: %ld lines recovered into %s\n", lines, argv[1]);
    return 0;
}
