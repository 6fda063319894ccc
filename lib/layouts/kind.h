/*
 * kind.h - what each kind of layout provides to layout.c, which answers
 * layout.h's calls by passing them on to the layout's kind.
 *
 * Adding a kind of layout: write its file with an xlog_layout_ops, give it
 * a value in xlog.h (XLOG_LAYOUT_*) and add it to the list in layout.c.
 */
#ifndef XLOG_LAYOUT_KIND_H
#define XLOG_LAYOUT_KIND_H

#include "layouts/layout.h"

typedef struct xlog_layout_ops {
    /* As xlog_layout_create, with the pattern already chosen (never NULL);
     * a kind without patterns ignores it. */
    int (*create)(xlog_layout **out, const char *pattern, const char *what);
    void (*destroy)(xlog_layout *layout);
    size_t (*max_line)(const xlog_layout *layout, size_t message_length);
    size_t (*write)(xlog_layout *layout, const xlog_line_event *event, char *out);
} xlog_layout_ops;

/* What every layout starts with: each kind's own struct has it first. */
struct xlog_layout {
    const xlog_layout_ops *ops;
};

extern const xlog_layout_ops xlog_text_layout;
extern const xlog_layout_ops xlog_json_layout;

#endif
