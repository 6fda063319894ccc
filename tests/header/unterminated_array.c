/* A char array without a terminating NUL, shown through a fixed precision,
 * as printf allows (gcc warns of a '*' precision for printf too): it
 * compiles without a warning at -O2, where gcc's -Wstringop-overread looks
 * (xlog.h's call-site capture measures a string with strlen only where the
 * format takes it whole, which gcc cannot see). */
#include <xlog.h>

static const char tag[4] = {'w', 'x', 'y', 'z'};

void show_tag(int n);
void show_tag(int n)
{
    xlog_info("%.2s", tag);
    xlog_info("tag %.4s and %d", tag, n);
}
