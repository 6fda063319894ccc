/*
 * layout.c - layout.h's calls, passed on to the kind of each layout
 * (kind.h): text.c for the default line and patterns, json.c for JSON lines.
 */
#include <errno.h>

#include "base/atomics.h"
#include "base/error.h"
#include "layouts/fields.h"
#include "layouts/kind.h"

int xlog_layout_create(xlog_layout **out, xlog_layout_kind kind, const char *pattern,
                       const char *default_pattern, const char *what)
{
    static const xlog_layout_ops *const kinds[] = {
        [XLOG_LAYOUT_TEXT] = &xlog_text_layout,
        [XLOG_LAYOUT_JSON] = &xlog_json_layout,
    };
    if ((unsigned)kind >= sizeof kinds / sizeof kinds[0]) {
        xlog_set_error("%s: layout %d is neither XLOG_LAYOUT_TEXT nor XLOG_LAYOUT_JSON", what,
                       (int)kind);
        return -EINVAL;
    }
    if (!pattern)
        pattern = default_pattern ? default_pattern : XLOG_DEFAULT_PATTERN;
    return kinds[kind]->create(out, pattern, what);
}

void xlog_layout_destroy(xlog_layout *layout)
{
    if (layout)
        layout->ops->destroy(layout);
}

size_t xlog_layout_max_line(const xlog_layout *layout, size_t message_length)
{
    return layout->ops->max_line(layout, message_length);
}

size_t xlog_layout_write(xlog_layout *layout, const xlog_line_event *event, char *out)
{
    return layout->ops->write(layout, event, out);
}
