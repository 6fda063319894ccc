/* hello.c - the smallest complete use of xlog. */
#include <stdio.h>

#include <xlog.h>

int main(void)
{
    xlog_config cfg = xlog_defaults();
    cfg.dir = "logs";
    int rc = xlog_open(&cfg);
    if (rc != 0) {
        fprintf(stderr, "xlog_open: %s\n", xlog_strerror(rc));
        return 1;
    }
    xlog_info("hello from xlog, %d + %d = %d", 2, 2, 4);
    XLOG(XLOG_WARN, "disk %d%% full", 93);
    xlog_debug("not written: the default level is INFO");
    xlog_close();
    printf("wrote to %s/\n", cfg.dir);
    return 0;
}
