/*
 * exec_target.c - the program test_survival's exec case runs in place of a
 * child that was logging from 4 threads.  Exec must count as the end of that
 * process: this program checks that it inherited nothing of its survival
 * files (no descriptor, no mapping under the persistent directory) and that
 * the lock on its "process" file is free, so that recovery sees it as gone.
 * With "recover" it then opens xlog on the same log directory, as the same
 * process (exec keeps the pid), which recovers the lines of the image before
 * exec, and logs one line of its own ("after exec").  "wait" does the same
 * after a handshake: it writes a byte to descriptor 4 once its checks are
 * done, and reads one from descriptor 3 before xlog_open (the test takes the
 * old image's lock in between, as a recovery under way would).
 *
 *   exec_target check|recover|wait LOGS SHM MODE
 *
 * Exit status: 0, or the check that failed: 10 a descriptor, 11 a mapping,
 * 12 the lock is held, 13 no directory of this pid, 14 xlog_open failed, 15
 * the handshake.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include <xlog.h>

static int has_prefix(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int descriptor_under(const char *dir)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    int found = 0;
    while (d && (e = readdir(d))) {
        char link[300], target[PATH_MAX];
        snprintf(link, sizeof link, "/proc/self/fd/%s", e->d_name);
        ssize_t n = readlink(link, target, sizeof target - 1);
        if (n > 0) {
            target[n] = '\0';
            found |= has_prefix(target, dir);
        }
    }
    if (d)
        closedir(d);
    return found;
}

static int mapping_under(const char *dir)
{
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[PATH_MAX + 256];
    int found = 0;
    while (maps && fgets(line, sizeof line, maps))
        found |= strstr(line, dir) != NULL;
    if (maps)
        fclose(maps);
    return found;
}

/* 0 if the "process" file of this pid's directory (under any key) can be
 * locked, 12 if it is held, 13 if there is none. */
static int lock_is_free(const char *shm)
{
    char prefix[32];
    snprintf(prefix, sizeof prefix, "%d.", (int)getpid());
    DIR *keys = opendir(shm);
    struct dirent *k;
    int result = 13;
    while (keys && result == 13 && (k = readdir(keys))) {
        char key[PATH_MAX];
        if (k->d_name[0] == '.' || snprintf(key, sizeof key, "%s/%s", shm, k->d_name) >=
                                       (int)sizeof key)
            continue;
        DIR *procs = opendir(key);
        struct dirent *p;
        while (procs && result == 13 && (p = readdir(procs))) {
            char path[PATH_MAX];
            if (!has_prefix(p->d_name, prefix) ||
                snprintf(path, sizeof path, "%s/%s/process", key, p->d_name) >= (int)sizeof path)
                continue;
            int fd = open(path, O_RDWR | O_CLOEXEC);
            if (fd < 0)
                continue;
            result = flock(fd, LOCK_EX | LOCK_NB) == 0 ? 0 : 12;
            close(fd); /* lets the lock go again */
        }
        if (procs)
            closedir(procs);
    }
    if (keys)
        closedir(keys);
    return result;
}

int main(int argc, char **argv)
{
    if (argc != 5)
        return 2;
    const char *logs = argv[2], *shm = argv[3];
    if (descriptor_under(shm))
        return 10;
    if (mapping_under(shm))
        return 11;
    int lock = lock_is_free(shm);
    if (lock)
        return lock;
    if (strcmp(argv[1], "wait") == 0) {
        char byte = 1;
        if (write(4, &byte, 1) != 1 || read(3, &byte, 1) != 1)
            return 15;
    } else if (strcmp(argv[1], "recover") != 0) {
        return 0;
    }
    xlog_config cfg = xlog_defaults();
    cfg.dir = logs;
    cfg.persistent_dir = shm;
    cfg.use_environment = 0;
    cfg.file_mode = (xlog_file_mode)atoi(argv[4]);
    if (xlog_open(&cfg) != 0)
        return 14;
    xlog_info("after exec");
    return xlog_close() == 0 ? 0 : 14;
}
