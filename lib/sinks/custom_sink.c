/*
 * custom_sink.c - a sink of the program's own (xlog_custom_sink in xlog.h):
 * its functions are called on the back end with each event and the bytes of
 * the sink's layout.
 *
 * The back end thread is marked as inside xlog for its whole life, so a log
 * call from these functions is dropped and counted rather than feeding the
 * back end its own output.  Each call of the user's code is also marked as
 * a sink's (xlog_sink_code_enter), wherever it runs, so that what would wait
 * for the back end or stop it is refused there (xlog.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/atomics.h"
#include "base/error.h"
#include "base/guard.h"
#include "sinks/sink.h"

typedef struct custom_state {
    xlog_custom_sink user;
    char *line; /* the layout's bytes for the current event */
} custom_state;

XLOG_API xlog_custom_sink xlog_custom_sink_defaults(void)
{
    xlog_custom_sink sink;
    memset(&sink, 0, sizeof sink);
    sink.sink.kind = XLOG_SINK_CUSTOM;
    sink.sink.level = XLOG_TRACE;
    sink.sink.layout = XLOG_LAYOUT_TEXT;
    return sink;
}

static int custom_start(xlog_sink *s, const xlog_config *cfg, const xlog_sink_config *own)
{
    const xlog_custom_sink *user = (const xlog_custom_sink *)own;
    if (!user->write) {
        xlog_set_error("its write function is NULL");
        return -EINVAL;
    }
    custom_state *state = calloc(1, sizeof *state);
    size_t longest = xlog_layout_max_line(s->layout, cfg->max_message + XLOG_TRUNCATED_MARK_LENGTH);
    if (state)
        state->line = malloc(longest);
    if (!state || !state->line) {
        free(state);
        return -ENOMEM;
    }
    state->user = *user;
    xlog_sink_code_enter();
    int rc = user->open ? user->open(user->context) : 0;
    xlog_sink_code_leave();
    if (rc != 0) {
        xlog_set_error("its open function failed: %s", strerror(rc < 0 ? -rc : rc));
        free(state->line);
        free(state);
        return rc < 0 ? rc : -rc;
    }
    s->state = state;
    return 0;
}

static void custom_write(xlog_sink *s, const xlog_line_event *event)
{
    custom_state *state = s->state;
    size_t length = xlog_layout_write(s->layout, event, state->line);
    xlog_sink_code_enter();
    state->user.write(state->user.context, &event->pub, state->line, length);
    xlog_sink_code_leave();
}

static void custom_flush(xlog_sink *s, int durable)
{
    (void)durable;
    custom_state *state = s->state;
    xlog_sink_code_enter();
    if (state->user.flush)
        state->user.flush(state->user.context);
    xlog_sink_code_leave();
}

static void custom_stop(xlog_sink *s)
{
    custom_state *state = s->state;
    custom_flush(s, 0);
    xlog_sink_code_enter();
    if (state->user.close)
        state->user.close(state->user.context);
    xlog_sink_code_leave();
    free(state->line);
    free(state);
    s->state = NULL;
}

/* The child of a fork does not call the parent's functions for the events
 * it had not yet written: they are the parent's. */
static void custom_after_fork(xlog_sink *s)
{
    s->state = NULL;
}

const xlog_sink_ops xlog_custom_sink_ops = {
    .name = "custom",
    .start = custom_start,
    .write = custom_write,
    .flush = custom_flush,
    .after_fork = custom_after_fork,
    .stop = custom_stop,
};
