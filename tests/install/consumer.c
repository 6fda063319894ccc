/* consumer.c - a program built against an installed xlog (pkg-config or
 * find_package), as a user would. */
#include <stdio.h>
#include <string.h>

#include <xlog.h>

int main(int argc, char **argv)
{
    xlog_config cfg = xlog_defaults();
    cfg.dir = argc > 1 ? argv[1] : "logs";
    cfg.use_environment = 0;
    int rc = xlog_open(&cfg);
    if (rc != 0) {
        fprintf(stderr, "xlog_open: %s\n", xlog_strerror(rc));
        return 1;
    }
    xlog_info("installed xlog works: %d", 42);
    xlog_close();
    xlog_counters c;
    xlog_stats(&c);
    return c.messages == 1 ? 0 : 1;
}
