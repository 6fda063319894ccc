/*
 * record.c - see record.h: the kinds a format asks for, and the parts of a
 * record read back.
 */
#include "record/record.h"

int xlog_record_kinds(const char *fmt, size_t len, unsigned char *kinds, int *precision, int max,
                      int *strings)
{
    int n = 0, has_strings = 0;
    if (len == 0) /* fmt may be NULL then */
        fmt = "";
    const char *cursor = fmt;
    xlog_conv conv;
    while (xlog_fmt_next(&cursor, fmt + len, &conv)) {
        unsigned char step[3];
        int fixed[3] = {-1, -1, -1};
        int k = 0;
        if (conv.width == XLOG_FMT_STAR)
            step[k++] = XLOG_ARG_INT;
        if (conv.precision == XLOG_FMT_STAR)
            step[k++] = XLOG_ARG_INT;
        if (conv.kind != XLOG_ARG_NONE) {
            has_strings |= conv.kind == XLOG_ARG_STR || conv.kind == XLOG_ARG_WSTR ||
                           conv.kind == XLOG_ARG_ERRNO;
            fixed[k] = conv.precision;
            int is_string = conv.kind == XLOG_ARG_STR || conv.kind == XLOG_ARG_WSTR;
            step[k++] = (unsigned char)(conv.kind | (is_string && conv.precision == XLOG_FMT_STAR
                                                         ? XLOG_KIND_STAR_PRECISION
                                                         : 0));
        }
        for (int i = 0; i < k; i++, n++) {
            if (n < max) {
                kinds[n] = step[i];
                if (precision)
                    precision[n] = fixed[i];
            }
        }
    }
    if (strings)
        *strings = has_strings;
    return n;
}

void xlog_record_view_of(const xlog_record *rec, const char *site_format,
                         size_t site_format_length, const unsigned char *site_kinds,
                         xlog_record_view *view)
{
    const char *body = (const char *)(rec + 1);
    memset(view, 0, sizeof *view);
    view->nargs = rec->nargs;
    if (rec->type == XLOG_REC_SITE) {
        view->kinds = site_kinds;
        view->args = body;
        view->format = site_format;
        view->format_length = site_format_length;
        return;
    }
    uint32_t head[4]; /* format length, line, file length, function length */
    memcpy(head, body, sizeof head);
    view->kinds = (const unsigned char *)body + sizeof head;
    view->format = (const char *)view->kinds + rec->nargs;
    view->format_length = head[0];
    view->line = (int)head[1];
    view->file = view->format + head[0];
    view->file_length = head[2];
    view->function = view->file + head[2];
    view->function_length = head[3];
    view->args = view->function + head[3];
}
