/*
 * proc_stats.c - reads /proc/self/io and /proc/self/status.
 *
 * The files are read with open/read into a stack buffer rather than stdio so
 * that taking a reading allocates nothing and writes nothing: it must not
 * disturb the counts it is taken around.
 */
#include "proc_stats.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The number after "key" in a "key: value" file, or -1. */
static int64_t read_field(const char *path, const char *key)
{
    char text[4096];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t got = read(fd, text, sizeof text - 1);
    close(fd);
    if (got <= 0)
        return -1;
    text[got] = '\0';
    size_t key_length = strlen(key);
    for (const char *line = text; line != NULL && *line != '\0';) {
        if (strncmp(line, key, key_length) == 0 && line[key_length] == ':')
            return strtoll(line + key_length + 1, NULL, 10);
        line = strchr(line, '\n');
        if (line != NULL)
            line++;
    }
    return -1;
}

int64_t process_write_calls(void)
{
    return read_field("/proc/self/io", "syscw");
}

int64_t process_rss_kib(void)
{
    return read_field("/proc/self/status", "VmRSS");
}

int64_t process_peak_rss_kib(void)
{
    return read_field("/proc/self/status", "VmHWM");
}

int64_t process_rss_shmem_kib(void)
{
    return read_field("/proc/self/status", "RssShmem");
}

/* The KiB the files of directory path take, or -1 if it cannot be read. */
static int64_t dir_kib(int parent, const char *path)
{
    int fd = openat(parent, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (d == NULL) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    int64_t kib = 0;
    struct stat st;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
            kib += (int64_t)st.st_blocks / 2;
    closedir(d);
    return kib;
}

int64_t process_shm_kib(void)
{
    char base[64], mine[32];
    snprintf(base, sizeof base, "/dev/shm/xlog-%u", (unsigned)getuid());
    int length = snprintf(mine, sizeof mine, "%d.", (int)getpid());
    DIR *keys = opendir(base);
    if (keys == NULL)
        return -1;
    int64_t kib = -1;
    for (struct dirent *k; (k = readdir(keys)) != NULL;) {
        if (k->d_name[0] == '.')
            continue;
        int fd = openat(dirfd(keys), k->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        DIR *processes = fd >= 0 ? fdopendir(fd) : NULL;
        if (processes == NULL) {
            if (fd >= 0)
                close(fd);
            continue;
        }
        for (struct dirent *p; (p = readdir(processes)) != NULL;) {
            int64_t here = strncmp(p->d_name, mine, (size_t)length) == 0 ? dir_kib(fd, p->d_name) : -1;
            if (here >= 0)
                kib = (kib < 0 ? 0 : kib) + here;
        }
        closedir(processes);
    }
    closedir(keys);
    return kib;
}
