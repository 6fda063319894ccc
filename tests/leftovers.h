/*
 * leftovers.h - what a test reads of a process's leftovers in the
 * persistent directory (lib/shm/shm.h): the directory of one process, a
 * ring or a file buffer mapped to be read or edited by hand (a kill in the
 * middle of a write, made on purpose), and whether the back end has read
 * every record of the rings.  Shared by test_survival.c and
 * test_binary_writer.c.
 */
#ifndef XLOG_TEST_LEFTOVERS_H
#define XLOG_TEST_LEFTOVERS_H

#include "testutil.h" /* first: it defines _GNU_SOURCE */

#include <fcntl.h>
#include <sys/mman.h>

#include "rings/ring.h"
#include "shm/shm.h"

/* The directory of process pid under p's persistent directory, or "". */
static inline void test_process_dir(const test_place *p, pid_t pid, char *out, size_t size)
{
    char key[PATH_MAX + 64], prefix[32];
    xlog_survival_key_dir(key, sizeof key, p->shm, p->logs);
    snprintf(prefix, sizeof prefix, "%d.", (int)pid);
    size_t n;
    char **names = test_list_files(key, &n);
    out[0] = '\0';
    for (size_t i = 0; i < n; i++)
        if (strncmp(names[i], prefix, strlen(prefix)) == 0)
            if (snprintf(out, size, "%s/%s", key, names[i]) >= (int)size)
                out[0] = '\0';
    test_free_list(names, n);
}

/* Maps dir/name (a ring or a file buffer of the process) to be read and
 * written, or NULL. */
static inline void *test_map_leftover(const char *dir, const char *name, size_t *size)
{
    *size = 0;
    char *path = test_path(dir, name);
    int fd = open(path, O_RDWR);
    free(path);
    struct stat st;
    void *p = MAP_FAILED;
    if (fd >= 0 && fstat(fd, &st) == 0) {
        *size = (size_t)st.st_size;
        p = mmap(NULL, *size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    }
    if (fd >= 0)
        close(fd);
    return p == MAP_FAILED ? NULL : p;
}

/* Whether the back end of the process whose directory is dir has read
 * every record of every ring into a file buffer. */
static inline int test_rings_all_buffered(const char *dir)
{
    size_t n;
    char **names = test_list_files(dir, &n);
    int all = 1;
    for (size_t i = 0; i < n; i++) {
        size_t size;
        xlog_ring *r = strncmp(names[i], "ring.", 5) == 0 ? test_map_leftover(dir, names[i], &size)
                                                         : NULL;
        if (r) {
            all &= __atomic_load_n(&r->buffered, __ATOMIC_ACQUIRE) ==
                   (__atomic_load_n(&r->head, __ATOMIC_ACQUIRE) & ~(uint64_t)1);
            munmap(r, size);
        }
    }
    test_free_list(names, n);
    return all;
}

#endif
