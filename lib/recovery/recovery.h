/*
 * recovery.h - writing the lines of processes that ended without
 * xlog_close, from what they left in shared memory (shm/shm.h): on demand
 * (recover.c) and by a living process that watches for dead ones (dead.c).
 */
#ifndef XLOG_RECOVERY_H
#define XLOG_RECOVERY_H

#include <stdint.h>

/* ---- the dead processes of the log directory (dead.c) -------------------- */

/* Recovers the processes of this process's log directory that are gone
 * (their lock is free), if there are any: xlog_close, before the directory
 * goes. */
void xlog_survival_recover_dead(void);

/* The back end, once a pass: the same, at most once every period_ticks. */
void xlog_survival_watch(uint64_t now, uint64_t period_ticks);

/* ---- recovery (recover.c) ------------------------------------------------ */

/* Writes the lines of every process that used dir and ended without
 * xlog_close, and removes what they left; cfg gives the persistent
 * directory.  Returns the number of lines recovered, or a negative errno:
 * then what could not be written (a full disk) is kept, marked so that a
 * later recovery writes only the rest. */
long xlog_survival_recover(const char *dir, const char *persistent_dir);

#endif
