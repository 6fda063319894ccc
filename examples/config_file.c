/*
 * config_file.c - settings an operator changes without a rebuild.  The
 * program's own configuration is the base; a configuration file (named by
 * the program, here its argument, or by XLOG_CONFIG in the environment,
 * which wins) changes what it names; XLOG_LEVEL and XLOG_DIR still have the
 * last word.  A mistake in the file stops the program with the file, line
 * and column.  examples/xlog.conf shows every key.
 *
 *   example_config_file [FILE]
 */
#include <stdio.h>

#include <xlog.h>

int main(int argc, char **argv)
{
    xlog_config cfg = xlog_defaults();
    cfg.dir = "logs";
    cfg.level = XLOG_INFO;
    cfg.config_file = argc > 1 ? argv[1] : NULL;
    int rc = xlog_open(&cfg);
    if (rc != 0) {
        fprintf(stderr, "xlog_open: %s\n", xlog_last_error());
        return 1;
    }
    xlog_info("service started");
    xlog_debug("cache of %d entries", 128);
    xlog_warn("disk %d%% full", 91);
    xlog_close();
    return 0;
}
