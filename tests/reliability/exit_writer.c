/*
 * exit_writer.c - a program that ends in one of the ways a program can end
 * without xlog_close(), for test_reliability.  It is a program of its own
 * (not a fork of the test) so that the order in which it registers its exit
 * handlers, and its destructors, are its own.
 *
 *   exit_writer atexit-before-open DIR   an atexit handler registered before
 *                                        xlog_open logs; main returns
 *   exit_writer destructor DIR           a destructor logs; main returns
 *   exit_writer quick-exit DIR N         logs N lines, then quick_exit(0)
 *
 * Every line it logs must be in DIR's file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xlog.h>

static int destructor_logs;

static void log_at_exit(void)
{
    xlog_info("from an atexit handler registered before xlog_open");
}

__attribute__((destructor)) static void log_in_destructor(void)
{
    if (destructor_logs)
        xlog_info("from a destructor");
}

static void open_in(const char *dir)
{
    xlog_config cfg = xlog_defaults();
    cfg.dir = dir;
    cfg.use_environment = 0;
    if (xlog_open(&cfg) != 0) {
        fprintf(stderr, "exit_writer: %s\n", xlog_last_error());
        exit(90);
    }
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    const char *mode = argv[1], *dir = argv[2];
    if (strcmp(mode, "atexit-before-open") == 0) {
        atexit(log_at_exit);
        open_in(dir);
        xlog_info("from main");
        return 0;
    }
    if (strcmp(mode, "destructor") == 0) {
        destructor_logs = 1;
        open_in(dir);
        xlog_info("from main");
        return 0;
    }
    if (strcmp(mode, "quick-exit") == 0 && argc == 4) {
        open_in(dir);
        long n = atol(argv[3]);
        for (long i = 0; i < n; i++)
            xlog_info("line %ld", i);
        quick_exit(0);
    }
    return 2;
}
