/*
 * shm.h - what a process leaves in shared memory so that its lines
 * outlive it (kill -9, the OOM killer, exec, _exit), and what the next
 * xlog_open of the same log directory (or xlog-recover) reads back.
 *
 * Layout, under the persistent directory (default /dev/shm/xlog-<uid>,
 * mode 0700, files 0600):
 *
 *   <key>/                 one per log directory (key: a hash of its path)
 *     <pid>.<start>/       one per process (start: its start time, so that
 *                          a reused pid is another directory; .<n> after
 *                          it when the process's image before an exec
 *                          still has its own there)
 *       process            xlog_survival_process, then the site dictionary
 *       ring.<n>           a thread's ring: the xlog_ring page, then the buffer
 *       file.<n>           a file's buffer: xlog_survival_file, then the bytes
 *
 * The owner holds an flock on its "process" file (opened O_CLOEXEC, so exec
 * lets go of it as death does) through a descriptor that is never mapped
 * (a mapping would hold the lock after death: shm.c, xlog_survival_start);
 * a directory whose lock can be taken belongs to a process that is gone.
 *
 * Exactly once: a record is "buffered" (its line is in a file buffer here,
 * or it makes none) when its ring's buffered position is past it; a
 * buffer's bytes [written, length) are not yet in the file.  Recovery
 * appends those bytes, then renders every record past each ring's buffered
 * position.  Two places where a kill can fall between two stores are
 * journaled:
 *   - a line appended to a buffer, then its ring's buffered position moved:
 *     the buffer's header names the last line's ring, record end and the
 *     buffer length after it, before the length is stored, so recovery can
 *     finish the move (file_sink.c);
 *   - a write(2) of a buffer's bytes, then `written` moved: the header holds
 *     the file and its size before the write, so recovery can look in the
 *     file for those very bytes (file.c).
 * The times in the records are converted with the last calibration of the
 * clock, which the back end stores here at each resynchronisation.
 */
#ifndef XLOG_SURVIVAL_H
#define XLOG_SURVIVAL_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/clock.h"
#include "base/rules.h"
#include "xlog.h"

#define XLOG_SURVIVAL_MAGIC "xlogsrv1"
#define XLOG_SURVIVAL_PATTERN_MAX 1024
#define XLOG_SURVIVAL_PREFIX_MAX 128 /* a file name prefix with its NUL */
#define XLOG_SURVIVAL_DICTIONARY (4u << 20) /* bytes of call sites, at most */
#define XLOG_SURVIVAL_NAME_MAX 256 /* a host or program name's bytes, at most (as
                                      a binary Process entry carries) */

/* The clock's calibration: two copies, so that a process killed while
 * writing one leaves the other whole. */
typedef struct xlog_survival_clock {
    uint64_t base_ticks;
    int64_t base_utc_ns;
    double ns_per_tick;
} xlog_survival_clock;

/* The "process" file's header. */
typedef struct xlog_survival_process {
    char magic[8];
    uint32_t header_size;           /* where the dictionary starts */
    int32_t pid;
    uint64_t start_time;
    char log_dir[PATH_MAX];
    /* What recovery needs to write this process's lines as it would have. */
    int32_t file_mode;
    int32_t file_layout;
    int32_t file_level;
    int32_t follow_symlinks;
    int32_t local_time;
    uint32_t rotate_keep;
    uint64_t rotate_size;
    uint64_t max_message;
    char file_pattern[XLOG_SURVIVAL_PATTERN_MAX]; /* "" for the default */
    char file_prefix[XLOG_SURVIVAL_PREFIX_MAX];   /* "" for none */
    int32_t hourly;
    uint32_t sink_count;            /* listed file sinks: sinks[] after the header */
    /* While some sink has a filter (routing), the main files (and the
     * listed ones without a filter) take what the program's rules let
     * through: the back end stores them here when they change, two copies
     * as the clock's. */
    uint32_t routing;
    uint32_t rules_slot;            /* atomic: which copy is whole */
    xlog_rules rules[2];
    xlog_survival_clock clock[2];
    uint32_t clock_slot;            /* atomic: which copy is whole */
    uint32_t unused;
    uint64_t dictionary_used;       /* atomic: bytes reserved after the header */
    /* The host's and the program's names (gethostname,
     * program_invocation_short_name), cut at XLOG_SURVIVAL_NAME_MAX bytes,
     * for the Process entries of recovery's binary blocks.  A leftover
     * whose room holds no NUL (garbage) has none: recovery writes "". */
    char host[XLOG_SURVIVAL_NAME_MAX + 1];
    char program[XLOG_SURVIVAL_NAME_MAX + 1];
} xlog_survival_process;

/* A listed file sink (xlog_file_config), as recovery writes its lines:
 * sinks[i - 1] of the header is the one whose buffers say sink i. */
typedef struct xlog_survival_sink {
    char dir[PATH_MAX];             /* absolute */
    char prefix[XLOG_SURVIVAL_PREFIX_MAX]; /* "" for none */
    char pattern[XLOG_SURVIVAL_PATTERN_MAX]; /* "" for the default */
    int32_t mode;
    int32_t layout;
    int32_t level;
    int32_t hourly;
    int32_t has_filter;
    uint32_t unused;
    xlog_rules filter;              /* its process level the sink's where it names none */
} xlog_survival_sink;

/* The listed file sinks, after the process file's header. */
static inline const xlog_survival_sink *xlog_survival_sinks(const xlog_survival_process *p)
{
    return (const xlog_survival_sink *)(const void *)(p + 1);
}

/* One call site in the dictionary: records of a dead process point to their
 * site by the address of its copy (xlog_site_copy, record/record.h) in
 * that process, which no other site of the process ever had. */
typedef struct xlog_survival_site {
    uint32_t size;                  /* whole entry, a multiple of 8 */
    uint32_t ready;                 /* atomic: 1 once written whole */
    uint64_t site;                  /* the site copy's address */
    int32_t line;
    uint32_t file_length;
    uint32_t function_length;
    uint32_t module_length;
    uint32_t format_length;         /* 0 for a site whose format varies */
    uint8_t nargs;
    uint8_t kinds[XLOG_MAX_ARGS];
    uint8_t pad[7];
    /* then file, function, module, format bytes */
} xlog_survival_site;

/* A file buffer's header ("file.<n>"). */
typedef struct xlog_survival_file {
    char magic[8];
    char path[PATH_MAX];            /* the file the buffer is for */
    int32_t id;                     /* its tid or pid (per-thread, per-process) */
    uint32_t sink;                  /* its files: 0 the main ones, i the process's
                                       i-th listed file sink (sinks[i - 1]) */
    uint64_t capacity;
    uint64_t length;                /* atomic: bytes of whole lines in the buffer */
    uint64_t written;               /* atomic: of those, how many are in the file */
    /* The last line appended: its ring (slot), the end of its record, and
     * length once it is in (stored before length). */
    uint64_t last_ring;
    uint64_t last_record_end;
    uint64_t last_length;           /* atomic, stored last */
    /* A write(2) under way: bytes [written, written + chunk) into the file
     * (chunk_dev, chunk_ino) at chunk_path, which had chunk_size bytes. */
    uint64_t chunk;                 /* atomic: 0 when none */
    uint64_t chunk_dev;
    uint64_t chunk_ino;
    uint64_t chunk_size;
    char chunk_path[PATH_MAX];
} xlog_survival_file;

/* ---- the live process (shm.c) ---------------------------------------- */

/* Makes this process's directory for cfg (its dir absolute), locks it, and
 * writes what recovery needs.  0, or a negative errno: the rings are then
 * kept in anonymous memory (xlog_survival_active() says which). */
int xlog_survival_start(const xlog_config *cfg);

/* Removes the process's directory (xlog_close: nothing is left behind). */
void xlog_survival_stop(void);

/* The same, for a process about to end with every line written (a crash
 * whose lines the crash handler wrote, quick_exit): async-signal-safe,
 * keeps the mappings. */
void xlog_survival_remove(void);

/* In the child of fork(): lets go of the parent's directory without
 * touching it; the child makes its own when xlog starts again there. */
void xlog_survival_after_fork(void);

int xlog_survival_active(void);

/* The start time since boot of process pid (field 22 of /proc/<pid>/stat),
 * which tells a process from a later one with the same pid; 0 if there is
 * no such process. */
uint64_t xlog_survival_start_time(int pid);

/* A new file "<kind>.<n>" of size bytes in the process's directory, mapped
 * shared, its first *reserve bytes reserved (they may be written at once;
 * see shm.c, "Room"): the whole file with posix_fallocate when *reserve is
 * size, else that part with MADV_POPULATE_WRITE, which also maps it (its
 * owner reserves the rest as it needs it, xlog_survival_reserve); a kernel
 * without that reserves the whole file, and sets *reserve to size.  NULL
 * when there is no directory or that room cannot be had (the caller then
 * uses anonymous memory; counted in xlog_survival_fallbacks when
 * cfg.persistent is on, the directory usable or not).  *slot receives n and *generation the
 * directory's (never 0). */
void *xlog_survival_map(const char *kind, size_t size, size_t *reserve, uint32_t *slot,
                        uint32_t *generation);

/* The same, counting nothing: for a file that is only made ahead of need
 * (a spare ring, rings.c), whose owner makes none when it fails. */
void *xlog_survival_try_map(const char *kind, size_t size, size_t *reserve, uint32_t *slot,
                            uint32_t *generation);

/* Counts a ring given to a thread in anonymous memory (a pooled spare)
 * when cfg.persistent is on: its directory could not be used. */
void xlog_survival_note_anonymous(void);

/* Files made anonymous memory instead (atomic): xlog_counters.not_persistent. */
extern uint64_t xlog_survival_fallbacks;

/* Makes the pages of [p, p + size) of a shared mapping part of its file,
 * without changing their bytes (MADV_POPULATE_WRITE): 0 once they may be
 * written, or -errno: -EFAULT when the file system has no room (a write
 * would have raised SIGBUS), -EINVAL before Linux 5.14. */
int xlog_survival_reserve(void *p, size_t size);

/* The back end, once a pass: keeps the dictionary's reserved pages ahead
 * of the sites that fill it (shm.c, "Room"); after a failure, tries again
 * retry_ticks later. */
void xlog_survival_tend(uint64_t now, uint64_t retry_ticks);

/* Unmaps it, and removes its file if its directory is still the one in use
 * (a directory that xlog_close removed is gone with its files). */
void xlog_survival_unmap(void *p, size_t size, const char *kind, uint32_t slot,
                         uint32_t generation);

/* Gives back the pages of [p, p + size) of a shared mapping (a hole in its
 * file: they must be reserved again before they are written). */
void xlog_survival_discard(void *p, size_t size);

/* Adds a call site to the dictionary, now and in every later directory of
 * this process: once per site, by the thread that prepared it, before its
 * state lets any record name it (its format, if it has one, is set). */
void xlog_survival_add_site(struct xlog_impl_site_copy *site);

/* Adds the site's names only, to this directory's dictionary: for a record
 * that names a site another thread is still preparing (the dictionary must
 * hold every site a published record names). */
void xlog_survival_add_site_names(const struct xlog_impl_site_copy *site);

/* Stores the clock's calibration (the back end, after each resync). */
void xlog_survival_set_clock(const xlog_clock *c);

/* Stores the program's rules, and whether some sink has a filter (the back
 * end, when either changes). */
void xlog_survival_set_rules(int routing, const xlog_rules *rules);

/* The default persistent directory, /dev/shm/xlog-<uid>; the directory of
 * one log directory's processes under persistent; whether dir is private (a
 * directory, not a link, this user's, open to nobody else: what is in it
 * was put there by this user), 0 or -errno; the same for a directory made
 * if missing (mode 0700). */
void xlog_survival_default_dir(char *out, size_t size);
void xlog_survival_key_dir(char *out, size_t size, const char *persistent, const char *log_dir);
int xlog_survival_is_private(const char *dir);
int xlog_survival_private_dir(const char *dir);

/* What the last refusal of xlog_survival_is_private (or _private_dir) by
 * this thread found, e.g. "<dir>: mode 0755 is open to others (it must be
 * 0700)"; strerror(error) when it gave no reason (the directory could not
 * be looked at). */
const char *xlog_survival_refusal(int error);

/* This process's log directory and persistent directory, while its
 * directory is active: 0, or -1. */
int xlog_survival_where(char *log_dir, size_t log_size, char *persistent, size_t persistent_size);

/* The name a process directory recovery could not read whole is kept under
 * (damaged.<its name>): recovery and the watch on dead processes leave it
 * alone, although its "process" file is not locked. */
#define XLOG_SURVIVAL_DAMAGED_PREFIX "damaged."

#endif
