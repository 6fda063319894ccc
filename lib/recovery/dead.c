/*
 * dead.c - a living process writes the lines of the dead processes of its
 * log directory, soon after they die, without waiting for a later
 * xlog_open or xlog-recover.
 *
 * Why: a forked worker that logs and _exit()s (the usual end of one) leaves
 * its lines in its rings; nothing else would write them until some process
 * opened the directory again, maybe days later.  The back end looks at the
 * process directories of its log directory about once a second and, when
 * one belongs to a process that is gone, runs recovery (recover.c) on the
 * directory: it takes the lock each process holds on its "process" file
 * while it lives (an flock, which a zombie has let go of and a reused pid
 * does not hold), so of several living processes that notice the same dead
 * one, one writes its lines and the others find nothing.
 *
 * Cheaply: once a second, an opendir and its getdents, and an openat, a
 * non-blocking flock and a close for each process directory there, its own
 * included (whose flock fails: it holds its lock).  xlog_close does it once more (xlog_survival_recover_dead), so
 * that the lines of children that died before it are in the files when it
 * returns, and nothing of theirs is left.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "recovery/recovery.h"
#include "shm/shm.h"

/* Ticks before which the back end does not look again. */
static uint64_t next_look;

/* Whether the key directory holds the directory of a process that has let
 * go of its lock: one that is gone, the recovery's to write. */
static int a_process_is_gone(const char *persistent, const char *log_dir)
{
    char key[PATH_MAX + 32];
    xlog_survival_key_dir(key, sizeof key, persistent, log_dir);
    int dir = open(key, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = dir >= 0 ? fdopendir(dir) : NULL;
    if (!d) {
        if (dir >= 0)
            close(dir);
        return 0;
    }
    int gone = 0;
    struct dirent *e;
    while (!gone && (e = readdir(d))) {
        /* A kept damaged directory's lock file is not locked, but
         * recovery leaves it alone: a pass for it would find nothing to do,
         * every second. */
        if (e->d_name[0] == '.' || strncmp(e->d_name, XLOG_SURVIVAL_DAMAGED_PREFIX,
                                           strlen(XLOG_SURVIVAL_DAMAGED_PREFIX)) == 0)
            continue;
        char name[NAME_MAX + 16];
        snprintf(name, sizeof name, "%s/process", e->d_name);
        int lock = openat(dir, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
        if (lock < 0)
            continue; /* being made or removed, or half made by a process that
                         died making it (an xlog_open's recovery removes it) */
        /* Ours too is locked (by another open of the file). */
        if (flock(lock, LOCK_SH | LOCK_NB) == 0)
            gone = 1;
        close(lock);
    }
    closedir(d);
    return gone;
}

void xlog_survival_recover_dead(void)
{
    char log_dir[PATH_MAX], persistent[PATH_MAX];
    if (xlog_survival_where(log_dir, sizeof log_dir, persistent, sizeof persistent) != 0)
        return;
    if (a_process_is_gone(persistent, log_dir))
        xlog_survival_recover(log_dir, persistent);
}

void xlog_survival_watch(uint64_t now, uint64_t period_ticks)
{
    if (now < next_look || !xlog_survival_active())
        return;
    next_look = now + period_ticks;
    xlog_survival_recover_dead();
}
