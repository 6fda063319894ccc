/*
 * xlog-recover - writes the lines that processes which logged into a
 * directory left in shared memory when they ended without xlog_close (kill
 * -9, the OOM killer, exec, _exit), for a program that will not run again:
 * xlog_open does the same by itself for its directory.  A thin shell over
 * xlog_recover() (include/xlog.h), so that what it writes, and the notice
 * before it, are exactly what xlog_open would have written.
 *
 *   xlog-recover DIR [PERSISTENT_DIR]
 *   xlog-recover --config FILE
 *   xlog-recover --list [PERSISTENT_DIR]
 *
 * DIR is the log directory as the program gave it (a relative one is taken
 * from the current directory, as xlog_open does); PERSISTENT_DIR is the
 * program's cfg.persistent_dir, if it set one (default /dev/shm/xlog-<uid>).
 * DIR must exist (a mistyped one is an error, not "0 lines recovered").
 * --config takes both from the program's configuration file (include/
 * xlog.h, "Configuration file": its dir and persistent_dir keys, over the
 * defaults), so that an operator who configured the program by its file
 * recovers its lines without retyping its directories; a file with a
 * mistake is refused with xlog_open's message.  The environment (XLOG_DIR)
 * is not read: it is the program's, not the operator's shell's.
 * Prints how many lines it recovered; exits 0, or 1 with the reason on
 * stderr (and whatever it could write is written: a later run does the rest,
 * never a line twice).  Processes still alive are left alone.
 *
 * --list says what is left in the persistent directory, for which log
 * directory, and what to do with each (leftovers of a log directory that
 * nobody opens again stay there until someone recovers or removes them).
 * It reads the "process" file's header (lib/shm/shm.h: the
 * program is linked with the static library it belongs to, whose names of
 * the default persistent directory and of kept damaged directories it
 * uses) and writes nothing.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xlog.h>

#include "config/config_file.h"
#include "shm/shm.h"

static const char usage[] =
    "usage: xlog-recover DIR [PERSISTENT_DIR]\n"
    "       xlog-recover --config FILE\n"
    "       xlog-recover --list [PERSISTENT_DIR]\n"
    "Writes into DIR the lines of processes that logged there and ended without\n"
    "xlog_close (kill -9, OOM killer, exec, _exit), and removes what they left in\n"
    "PERSISTENT_DIR (default /dev/shm/xlog-<uid>).  --config takes DIR and\n"
    "PERSISTENT_DIR from the program's configuration file (dir, persistent_dir).\n"
    "--list says what is left in PERSISTENT_DIR, for which DIR, and what to do\n"
    "with it.  Exit status 0, or 1 on error.\n";

/* Prints name as one shell word in single quotes: a quote in it ends the
 * quoted part, is written as \', and a new part starts, so that the
 * command --list suggests never runs what a directory name holds. */
static void print_shell_word(const char *name)
{
    putchar('\'');
    for (const char *c = name; *c; c++) {
        if (*c == '\'')
            fputs("'\\''", stdout);
        else
            putchar(*c);
    }
    putchar('\'');
}

/* One process directory left in persistent/key: whose, and what to do. */
static void list_one(const char *persistent, const char *path, const char *name)
{
    xlog_survival_process header;
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int lock = fd >= 0 ? openat(fd, "process", O_RDONLY | O_NOFOLLOW | O_CLOEXEC) : -1;
    int whole = lock >= 0 && pread(lock, &header, sizeof header, 0) == (ssize_t)sizeof header &&
                memcmp(header.magic, XLOG_SURVIVAL_MAGIC, sizeof header.magic) == 0 &&
                memchr(header.log_dir, '\0', sizeof header.log_dir);
    if (!whole) {
        printf("%s: unreadable (no process header): remove it: rm -r ", path);
        print_shell_word(path);
    } else if (strncmp(name, XLOG_SURVIVAL_DAMAGED_PREFIX, strlen(XLOG_SURVIVAL_DAMAGED_PREFIX)) == 0) {
        printf("%s: process %d, log directory %s: damaged, kept by recovery (its notice in the "
               "log says what could not be read): look, then remove it: rm -r ",
               path, (int)header.pid, header.log_dir);
        print_shell_word(path);
    } else if (flock(lock, LOCK_SH | LOCK_NB) != 0) {
        printf("%s: process %d, log directory %s: still running", path, (int)header.pid,
               header.log_dir);
    } else {
        struct stat st;
        if (stat(header.log_dir, &st) == 0) {
            printf("%s: process %d, log directory %s: ended without xlog_close: write its lines "
                   "with: xlog-recover ",
                   path, (int)header.pid, header.log_dir);
        } else {
            printf("%s: process %d, log directory %s (no longer there): ended without "
                   "xlog_close: drop its lines with: rm -r ",
                   path, (int)header.pid, header.log_dir);
            print_shell_word(path);
            printf(", or make the directory and run: xlog-recover ");
        }
        print_shell_word(header.log_dir);
        putchar(' ');
        print_shell_word(persistent);
    }
    putchar('\n');
    if (lock >= 0)
        close(lock);
    if (fd >= 0)
        close(fd);
}

/* Lists every process directory left under persistent; 0, or 1 when it
 * cannot be read. */
static int list_leftovers(const char *persistent)
{
    DIR *top = opendir(persistent);
    if (!top) {
        if (errno == ENOENT) {
            printf("%s: nothing is left\n", persistent);
            return 0;
        }
        fprintf(stderr, "xlog-recover: %s: %s\n", persistent, strerror(errno));
        return 1;
    }
    size_t count = 0;
    struct dirent *k;
    while ((k = readdir(top))) {
        if (k->d_name[0] == '.')
            continue;
        char key[PATH_MAX];
        if (snprintf(key, sizeof key, "%s/%s", persistent, k->d_name) >= (int)sizeof key)
            continue;
        DIR *d = opendir(key);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            if (e->d_name[0] == '.')
                continue;
            char path[PATH_MAX + 256];
            snprintf(path, sizeof path, "%s/%s", key, e->d_name);
            list_one(persistent, path, e->d_name);
            count++;
        }
        if (d)
            closedir(d);
    }
    closedir(top);
    printf("%zu left in %s\n", count, persistent);
    return 0;
}

/* Recovers into dir from persistent (NULL: the default); the exit status. */
static int recover_into(const char *dir, const char *persistent)
{
    /* A mistyped directory must not look like a recovery that found
     * nothing: the program's lines would be waiting elsewhere. */
    struct stat st;
    int found = stat(dir, &st) == 0;
    if (!found || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "xlog-recover: %s: %s: nothing was recovered\n", dir,
                found ? "not a directory" : strerror(errno));
        return 1;
    }
    long lines = xlog_recover(dir, persistent);
    if (lines < 0) {
        fprintf(stderr, "xlog-recover: %s\n", xlog_last_error());
        return 1;
    }
    printf("xlog-recover: %ld %s recovered into %s\n", lines, lines == 1 ? "line" : "lines", dir);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(usage, stdout);
        return 0;
    }
    if ((argc == 2 || argc == 3) && strcmp(argv[1], "--list") == 0) {
        char persistent[PATH_MAX];
        if (argc == 3)
            snprintf(persistent, sizeof persistent, "%s", argv[2]);
        else
            xlog_survival_default_dir(persistent, sizeof persistent);
        return list_leftovers(persistent);
    }
    if (argc == 3 && strcmp(argv[1], "--config") == 0) {
        xlog_config cfg = xlog_defaults();
        xlog_config_file *file = NULL;
        if (xlog_config_file_load(argv[2], &cfg, &file) != 0) {
            fprintf(stderr, "xlog-recover: %s: nothing was recovered\n", xlog_last_error());
            return 1;
        }
        int status = recover_into(cfg.dir, cfg.persistent_dir);
        xlog_config_file_free(file);
        return status;
    }
    if (argc < 2 || argc > 3 || argv[1][0] == '-') {
        fputs(usage, stderr);
        return 1;
    }
    return recover_into(argv[1], argc == 3 ? argv[2] : NULL);
}
