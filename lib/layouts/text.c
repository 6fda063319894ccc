/*
 * text.c - text layouts: the default line, and the patterns a user sets
 * (the language is documented in xlog.h, "Layouts").
 *
 * How it works: xlog_layout_create compiles the pattern once into a list of
 * steps, each a field or a piece of literal text (already escaped, so that
 * a pattern cannot break the one-line rule either); a line runs the steps.
 * Every field is escaped by escape.h's rule as it is written.
 *
 * The default line is most of what xlog writes, so a pattern that compiles
 * to the same steps as XLOG_DEFAULT_PATTERN takes a path of its own: the
 * time from its per-second cache, a level tag made at creation, and the
 * event's where and tid_text, which the back end makes once per call site
 * and per thread; then the message.  Only the message is escaped per line.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/atomics.h"
#include "base/error.h"
#include "layouts/fields.h"
#include "layouts/kind.h"

enum field {
    FIELD_LITERAL,
    FIELD_TIME,
    FIELD_LEVEL,
    FIELD_FILE,
    FIELD_PATH,
    FIELD_LINE,
    FIELD_FUNCTION,
    FIELD_MODULE,
    FIELD_PID,
    FIELD_TID,
    FIELD_THREAD,
    FIELD_MESSAGE,
    FIELD_CONTEXT
};

/* The longest {context}: every pair escaped, with its '=', and a space
 * between two. */
#define CONTEXT_TEXT_MAX                                                                  \
    (XLOG_CONTEXT_MAX_PAIRS *                                                             \
         (XLOG_ESCAPE_GROWTH * (XLOG_CONTEXT_MAX_KEY + XLOG_CONTEXT_MAX_VALUE) + 2) -    \
     1)

static const struct {
    const char *name;
    enum field field;
    size_t max; /* the longest text, but for the time and the message */
} field_names[] = {
    {"time", FIELD_TIME, 0},
    {"level", FIELD_LEVEL, XLOG_LEVEL_NAME_MAX},
    {"file", FIELD_FILE, XLOG_ESCAPE_GROWTH * XLOG_MAX_NAME},
    {"path", FIELD_PATH, XLOG_ESCAPE_GROWTH * XLOG_MAX_NAME},
    {"line", FIELD_LINE, XLOG_INT_TEXT_MAX},
    {"function", FIELD_FUNCTION, XLOG_ESCAPE_GROWTH * XLOG_MAX_NAME},
    {"module", FIELD_MODULE, XLOG_ESCAPE_GROWTH * XLOG_MAX_NAME},
    {"pid", FIELD_PID, XLOG_INT_TEXT_MAX},
    {"tid", FIELD_TID, XLOG_INT_TEXT_MAX},
    {"thread", FIELD_THREAD, XLOG_ESCAPE_GROWTH * XLOG_THREAD_NAME_MAX},
    {"message", FIELD_MESSAGE, 0},
    {"context", FIELD_CONTEXT, CONTEXT_TEXT_MAX},
};

typedef struct step {
    enum field field;
    size_t offset, length; /* FIELD_LITERAL: its escaped text in literals */
    xlog_time_text time;   /* FIELD_TIME: how it is shown, and its cache */
} step;

/* The default line's " [INFO] ", for each level. */
typedef struct level_tag {
    size_t length;
    char text[16];
} level_tag;

typedef struct text_layout {
    xlog_layout base;
    step *steps;
    size_t step_count;
    char *literals;
    size_t fixed_max;      /* the longest line, '\n' included, but its messages */
    size_t message_count;  /* {message} steps */
    int default_line;      /* write it from the event's ready-made parts */
    level_tag tags[XLOG_FATAL + 1];
} text_layout;

/* ---- compiling a pattern ---------------------------------------------------- */

static step *add_step(text_layout *l, size_t *capacity)
{
    if (l->step_count == *capacity) {
        size_t more = *capacity ? *capacity * 2 : 16;
        step *steps = realloc(l->steps, more * sizeof *steps);
        if (!steps)
            return NULL;
        l->steps = steps;
        *capacity = more;
    }
    step *s = &l->steps[l->step_count++];
    memset(s, 0, sizeof *s);
    return s;
}

/* An error message quotes at most 40 bytes of a field or an option (then
 * "..."), so that the column after it always fits: "%.*s%s" takes
 * QUOTED(length, text). */
#define QUOTED(length, text)                                                          \
    (int)((length) > 40 ? 40 : (length)), (text), (length) > 40 ? "..." : ""

/* Reads the options of {time:...}: text[0..len) is "iso,local,ms" and the
 * like; field names the whole field and column where text starts, for the
 * error. */
static int time_options(xlog_time_text *t, const char *text, size_t len, const char *field,
                        size_t field_len, int column, const char *what)
{
    static const struct {
        const char *name;
        int digits; /* -1: not a precision */
    } options[] = {{"iso", -1}, {"local", -1}, {"s", 0}, {"ms", 3}, {"us", 6}, {"ns", 9}};
    bool local = false, iso = false, precision = false;
    int digits = 9;
    for (size_t at = 0;;) {
        const char *comma = memchr(text + at, ',', len - at);
        size_t end = comma ? (size_t)(comma - text) : len;
        const char *option = text + at;
        size_t option_len = end - at;
        size_t i = 0;
        while (i < sizeof options / sizeof options[0] &&
               (strlen(options[i].name) != option_len ||
                memcmp(options[i].name, option, option_len) != 0))
            i++;
        if (i == sizeof options / sizeof options[0]) {
            xlog_set_error("%s: unknown option \"%.*s%s\" in {%.*s%s} at column %d", what,
                           QUOTED(option_len, option), QUOTED(field_len, field),
                           column + (int)at);
            return -EINVAL;
        }
        bool *seen = options[i].digits >= 0 ? &precision : i == 0 ? &iso : &local;
        if (*seen) {
            xlog_set_error("%s: option \"%.*s%s\" repeats or contradicts another in {%.*s%s} "
                           "at column %d",
                           what, QUOTED(option_len, option), QUOTED(field_len, field),
                           column + (int)at);
            return -EINVAL;
        }
        *seen = true;
        if (options[i].digits >= 0)
            digits = options[i].digits;
        if (!comma)
            break;
        at = end + 1;
    }
    xlog_time_text_init(t, local, iso, digits);
    return 0;
}

/* Adds the step of the field pattern[open..close] ("{name}" or
 * "{name:options}"). */
static int add_field(text_layout *l, size_t *capacity, const char *pattern, size_t open,
                     size_t close, const char *what)
{
    const char *body = pattern + open + 1;
    size_t len = close - open - 1;
    const char *colon = memchr(body, ':', len);
    size_t name_len = colon ? (size_t)(colon - body) : len;
    size_t i = 0;
    while (i < sizeof field_names / sizeof field_names[0] &&
           (strlen(field_names[i].name) != name_len ||
            memcmp(field_names[i].name, body, name_len) != 0))
        i++;
    if (i == sizeof field_names / sizeof field_names[0]) {
        xlog_set_error("%s: unknown field {%.*s%s} at column %d", what, QUOTED(name_len, body),
                       (int)open + 1);
        return -EINVAL;
    }
    step *s = add_step(l, capacity);
    if (!s)
        return -ENOMEM;
    s->field = field_names[i].field;
    l->fixed_max += field_names[i].max;
    l->message_count += s->field == FIELD_MESSAGE;
    int column = (int)(open + 1 + name_len + 2); /* of the first option */
    if (s->field == FIELD_TIME) {
        int rc = 0;
        if (colon)
            rc = time_options(&s->time, colon + 1, len - name_len - 1, body, len, column, what);
        else
            xlog_time_text_init(&s->time, false, false, 9);
        l->fixed_max += xlog_time_text_length(&s->time);
        return rc;
    }
    if (colon) {
        xlog_set_error("%s: unknown option \"%.*s%s\" in {%.*s%s} at column %d", what,
                       QUOTED(len - name_len - 1, colon + 1), QUOTED(len, body), column);
        return -EINVAL;
    }
    return 0;
}

/* Adds the literal raw[0..*raw_len) (braces already undoubled), escaped. */
static int add_literal(text_layout *l, size_t *capacity, size_t *literals_len, const char *raw,
                       size_t *raw_len)
{
    if (*raw_len == 0)
        return 0;
    step *s = add_step(l, capacity);
    if (!s)
        return -ENOMEM;
    s->field = FIELD_LITERAL;
    s->offset = *literals_len;
    s->length = xlog_escape_text(l->literals + s->offset, XLOG_ESCAPE_GROWTH * *raw_len, raw,
                                 *raw_len, NULL);
    *literals_len += s->length;
    l->fixed_max += s->length;
    *raw_len = 0;
    return 0;
}

/* Compiles pattern into l's steps; 0, -ENOMEM or -EINVAL (after
 * xlog_set_error). */
static int compile(text_layout *l, const char *pattern, const char *what)
{
    size_t len = strlen(pattern), capacity = 0, literals_len = 0, raw_len = 0;
    char *raw = malloc(len + 1);
    l->literals = malloc(XLOG_ESCAPE_GROWTH * len + 1);
    l->fixed_max = 1; /* the '\n' */
    if (!raw || !l->literals) {
        free(raw);
        return -ENOMEM;
    }
    int rc = 0;
    for (size_t i = 0; i < len && rc == 0; i++) {
        char c = pattern[i];
        if ((c == '{' || c == '}') && pattern[i + 1] == c) {
            raw[raw_len++] = c;
            i++;
        } else if (c == '}') {
            xlog_set_error("%s: lone } at column %d", what, (int)i + 1);
            rc = -EINVAL;
        } else if (c == '{') {
            const char *close = strchr(pattern + i, '}');
            if (!close) {
                xlog_set_error("%s: unterminated { at column %d", what, (int)i + 1);
                rc = -EINVAL;
                break;
            }
            rc = add_literal(l, &capacity, &literals_len, raw, &raw_len);
            if (rc == 0)
                rc = add_field(l, &capacity, pattern, i, (size_t)(close - pattern), what);
            i = (size_t)(close - pattern);
        } else {
            raw[raw_len++] = c;
        }
    }
    if (rc == 0)
        rc = add_literal(l, &capacity, &literals_len, raw, &raw_len);
    free(raw);
    return rc;
}

/* Whether two compiled patterns write the same lines. */
static bool same_steps(const text_layout *a, const text_layout *b)
{
    if (a->step_count != b->step_count)
        return false;
    for (size_t i = 0; i < a->step_count; i++) {
        const step *x = &a->steps[i], *y = &b->steps[i];
        if (x->field != y->field)
            return false;
        if (x->field == FIELD_LITERAL &&
            (x->length != y->length ||
             memcmp(a->literals + x->offset, b->literals + y->offset, x->length) != 0))
            return false;
        if (x->field == FIELD_TIME && (x->time.local != y->time.local ||
                                       x->time.iso != y->time.iso ||
                                       x->time.digits != y->time.digits))
            return false;
    }
    return true;
}

static void text_destroy(xlog_layout *layout)
{
    text_layout *l = (text_layout *)layout;
    free(l->steps);
    free(l->literals);
    free(l);
}

/* Whether l is the default line; if so, makes its level tags from its own
 * steps (time, " [", level, "] ", ...). */
static int recognise_default_line(text_layout *l)
{
    text_layout *reference = calloc(1, sizeof *reference);
    if (!reference)
        return -ENOMEM;
    int rc = compile(reference, XLOG_DEFAULT_PATTERN, "");
    if (rc == 0 && same_steps(l, reference)) {
        l->default_line = 1;
        const step *before = &l->steps[1], *after = &l->steps[3];
        for (int level = XLOG_TRACE; level <= XLOG_FATAL; level++) {
            level_tag *tag = &l->tags[level];
            size_t name_len;
            const char *name = xlog_level_name(level, &name_len);
            memcpy(tag->text, l->literals + before->offset, before->length);
            memcpy(tag->text + before->length, name, name_len);
            memcpy(tag->text + before->length + name_len, l->literals + after->offset,
                   after->length);
            tag->length = before->length + name_len + after->length;
        }
    }
    text_destroy(&reference->base);
    return rc;
}

static int text_create(xlog_layout **out, const char *pattern, const char *what)
{
    text_layout *l = calloc(1, sizeof *l);
    if (!l)
        return -ENOMEM;
    l->base.ops = &xlog_text_layout;
    int rc = compile(l, pattern, what);
    if (rc == 0)
        rc = recognise_default_line(l);
    if (rc != 0) {
        text_destroy(&l->base);
        return rc;
    }
    *out = &l->base;
    return 0;
}

/* ---- writing a line --------------------------------------------------------- */

static size_t text_max_line(const xlog_layout *layout, size_t message_length)
{
    const text_layout *l = (const text_layout *)layout;
    return l->fixed_max + l->message_count * XLOG_ESCAPE_GROWTH * message_length;
}

static inline char *put_escaped(char *p, const char *text, size_t len)
{
    return p + xlog_escape_field(p, text, len);
}

/* {context}: "key=value key2=value2", each part escaped; nothing for none. */
static char *put_context(char *p, const xlog_context *c)
{
    for (uint32_t i = 0; c && i < c->count; i++) {
        if (i)
            *p++ = ' ';
        p = put_escaped(p, c->pairs[i].key, c->pairs[i].key_length);
        *p++ = '=';
        p = put_escaped(p, c->pairs[i].value, c->pairs[i].value_length);
    }
    return p;
}

static size_t write_default_line(text_layout *l, const xlog_line_event *e, char *out)
{
    char *p = out;
    p += xlog_time_text_write(&l->steps[0].time, e->pub.time_ns, p);
    const level_tag *tag = &l->tags[xlog_level_clamp(e->pub.level)];
    memcpy(p, tag->text, tag->length);
    p += tag->length;
    memcpy(p, e->where, e->where_length);
    p += e->where_length;
    memcpy(p, e->tid_text, e->tid_text_length);
    p += e->tid_text_length;
    p = put_escaped(p, e->pub.message, e->pub.message_length);
    *p++ = '\n';
    return (size_t)(p - out);
}

static size_t text_write(xlog_layout *layout, const xlog_line_event *e, char *out)
{
    text_layout *l = (text_layout *)layout;
    if (l->default_line)
        return write_default_line(l, e, out);
    const xlog_event *pub = &e->pub;
    char *p = out;
    for (step *s = l->steps, *end = s + l->step_count; s < end; s++) {
        const char *text;
        size_t len;
        switch (s->field) {
        case FIELD_LITERAL:
            memcpy(p, l->literals + s->offset, s->length);
            p += s->length;
            break;
        case FIELD_TIME:
            p += xlog_time_text_write(&s->time, pub->time_ns, p);
            break;
        case FIELD_LEVEL:
            text = xlog_level_name(pub->level, &len);
            memcpy(p, text, len);
            p += len;
            break;
        case FIELD_FILE:
            text = xlog_base_name(pub->file, e->file_length, &len);
            p = put_escaped(p, text, len);
            break;
        case FIELD_PATH:
            p = put_escaped(p, pub->file, e->file_length);
            break;
        case FIELD_LINE:
            p = xlog_put_int_field(p, pub->line);
            break;
        case FIELD_FUNCTION:
            p = put_escaped(p, pub->function, e->function_length);
            break;
        case FIELD_MODULE:
            p = put_escaped(p, pub->module, e->module_length);
            break;
        case FIELD_PID:
            p = xlog_put_int_field(p, pub->pid);
            break;
        case FIELD_TID:
            p = xlog_put_int_field(p, pub->tid);
            break;
        case FIELD_THREAD: /* an event of no thread's has none */
            if (e->thread_name && e->thread_name->length)
                p = put_escaped(p, e->thread_name->text, e->thread_name->length);
            break;
        case FIELD_MESSAGE:
            p = put_escaped(p, pub->message, pub->message_length);
            break;
        case FIELD_CONTEXT:
            p = put_context(p, e->context);
            break;
        }
    }
    *p++ = '\n';
    return (size_t)(p - out);
}

const xlog_layout_ops xlog_text_layout = {
    .create = text_create,
    .destroy = text_destroy,
    .max_line = text_max_line,
    .write = text_write,
};
