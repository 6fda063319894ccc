/*
 * crash.h - the crash handlers (crash.c), installed by xlog_open.
 */
#ifndef XLOG_CRASH_H
#define XLOG_CRASH_H

void xlog_crash_install(void);
void xlog_crash_uninstall(void);

#endif
