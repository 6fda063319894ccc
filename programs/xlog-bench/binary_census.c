/*
 * binary_census.c - the census of a binary log file (XLOG_LAYOUT_BINARY): its
 * entries, read with the library's own decoder (lib/binary/decode.h, the one
 * xlog-cat uses), each message rendered and checked against the workload's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "binary/decode.h"
#include "workload.h"

/* An entry is well-formed when its message is the numbers message, as
 * printf writes it, and its level INFO: what every binary row logs. */
static int entry_ok(xlog_binary_reader *reader)
{
    const xlog_binary_entry *entry = xlog_binary_entry_of(reader);
    const xlog_line_event *event = xlog_binary_event(reader);
    return entry != NULL && event != NULL && entry->level == XLOG_INFO &&
           numbers_message_ok(event->pub.message, event->pub.message_length, UINT64_MAX);
}

int census_binary_file(int dir_fd, const char *name, line_census *out)
{
    int fd = openat(dir_fd, name, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    struct stat info;
    if (fstat(fd, &info) != 0) {
        int rc = -errno;
        close(fd);
        return rc;
    }
    size_t size = (size_t)info.st_size;
    out->bytes += size;
    const uint8_t *data = NULL;
    if (size > 0) {
        void *mapped = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (mapped == MAP_FAILED) {
            int rc = -errno;
            close(fd);
            return rc;
        }
        data = mapped;
    }
    close(fd);
    xlog_binary_reader *reader = xlog_binary_reader_new(name);
    if (reader == NULL) {
        if (data != NULL)
            munmap((void *)data, size);
        return -ENOMEM;
    }
    /* The whole file is mapped: the reader never waits for more bytes. */
    for (int found; (found = xlog_binary_next(reader, data, 0, size, 1)) != XLOG_BINARY_END;) {
        if (found == XLOG_BINARY_ENTRY) {
            out->lines++;
            if (!entry_ok(reader))
                out->malformed++;
        } else if (found == XLOG_BINARY_DAMAGE) {
            out->malformed++;
        } else {
            break; /* XLOG_BINARY_MORE with eof given: cannot happen */
        }
    }
    xlog_binary_reader_free(reader);
    if (data != NULL)
        munmap((void *)data, size);
    return 0;
}
