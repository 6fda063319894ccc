/*
 * error.h - what xlog says about itself: why a call failed, for
 * xlog_last_error(), and the words of its notices.
 *
 * Every part that checks a setting (filters, layouts, sinks, xlog_open)
 * says what is wrong here, so the text lives at the bottom and nobody calls
 * up into xlog.c for it.
 */
#ifndef XLOG_ERROR_H
#define XLOG_ERROR_H

/* Says why xlog_open (or another call that reports through
 * xlog_last_error) is failing; the text is the calling thread's. */
void xlog_set_error(const char *format, ...) __attribute__((format(printf, 1, 2)));
/* Forgets the error: xlog_last_error() gives "". */
void xlog_clear_error(void);
/* Puts "prefix: " before the error set last (naming the sink it is about). */
void xlog_prefix_error(const char *prefix);

/* one or many, as the count n asks: notices say "1 message was", "2
 * messages were". */
static inline const char *xlog_plural(unsigned long long n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

#endif
