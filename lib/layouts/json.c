/*
 * json.c - JSON lines: one RFC 8259 object per line, with the names of the
 * OpenTelemetry log data model (the object is documented in xlog.h,
 * "Layouts").
 *
 * Why strings are escaped here and not by escape.h's rule: a JSON reader
 * must get the text back, so quotes and backslashes are escaped too, and
 * what cannot be shown is written as JSON's own escapes.  The output is
 * always valid UTF-8 (a byte that is not part of valid UTF-8 becomes
 * U+FFFD, as a replacement character that readers know) and never holds a
 * raw control character, C1 control or U+2028/U+2029 (which some
 * JavaScript readers take as line ends), so one message is one line and no
 * string can close its quotes early and forge fields.
 *
 * How it works: as escape.c, runs of bytes that pass unchanged (checked
 * sixteen at a time) are copied with one memcpy; UTF-8 is decoded by
 * escape.h's xlog_utf8_sequence, so that both escapings agree on what is
 * valid.  The timestamp is cached per second like a text layout's time.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "layouts/fields.h"
#include "layouts/kind.h"

/* A string's JSON text is at most this many times as long as its bytes
 * ("\u0001" for one control byte). */
#define JSON_GROWTH 6

typedef struct json_layout {
    xlog_layout base;
    xlog_time_text timestamp; /* ISO 8601, UTC, nanoseconds */
} json_layout;

/* The object's fixed text, in order; each string is followed by a field. */
#define JSON_TIMESTAMP "{\"timestamp\":\""
#define JSON_SEVERITY_TEXT "\",\"severity_text\":\""
#define JSON_SEVERITY_NUMBER "\",\"severity_number\":"
#define JSON_BODY ",\"body\":\""
#define JSON_FILEPATH "\",\"attributes\":{\"code.filepath\":\""
#define JSON_LINENO "\",\"code.lineno\":"
#define JSON_FUNCTION ",\"code.function\":\""
#define JSON_THREAD "\",\"thread.id\":"
#define JSON_THREAD_NAME ",\"thread.name\":\""
#define JSON_THREAD_NAME_END "\""
#define JSON_PID ",\"process.pid\":"
#define JSON_MODULE ",\"xlog.module\":\""
#define JSON_MODULE_END "\""
#define JSON_END "}}\n"

#define PUT(p, literal) (memcpy((p), literal, sizeof literal - 1), (p) += sizeof literal - 1)

/* Whether sixteen bytes are all printable ASCII other than '"' and '\'. */
static inline int json_plain16(const char *p)
{
    xlog_bytes16 v;
    memcpy(&v, p, sizeof v);
    xlog_bytes16 bad = (v < 0x20) | (v == 0x7f) | (v == '"') | (v == '\\');
    uint64_t half[2];
    memcpy(half, &bad, sizeof half);
    return (half[0] | half[1]) == 0;
}

static inline int json_plain(unsigned char c)
{
    return c >= 0x20 && c != 0x7f && c != '"' && c != '\\' && c < 0x80;
}

/* Writes the escape of the unit at s (n bytes: 1, or a forbidden character
 * of 2 or 3) and returns the new end. */
static char *put_escape(char *p, const unsigned char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    unsigned code = n == 2   ? s[1] /* C1: U+0080 + (s[1] - 0x80) */
                    : n == 3 ? (s[2] == 0xa8 ? 0x2028u : 0x2029u)
                             : s[0];
    char letter = 0; /* of a two-character escape */
    switch (code) {
    case '"': letter = '"'; break;
    case '\\': letter = '\\'; break;
    case '\n': letter = 'n'; break;
    case '\r': letter = 'r'; break;
    case '\t': letter = 't'; break;
    case '\b': letter = 'b'; break;
    case '\f': letter = 'f'; break;
    }
    if (letter) {
        *p++ = '\\';
        *p++ = letter;
        return p;
    }
    memcpy(p, "\\u", 2);
    p[2] = hex[code >> 12];
    p[3] = hex[code >> 8 & 15];
    p[4] = hex[code >> 4 & 15];
    p[5] = hex[code & 15];
    return p + 6;
}

/* Writes the JSON string body (no quotes) of text[0..len); returns the new
 * end.  At most JSON_GROWTH * len bytes. */
static char *put_string(char *p, const char *text, size_t len)
{
    /* The usual string, all plain: copied as it is checked, sixteen bytes
     * at a time (a short one a byte at a time), with no call.  Any other
     * is written whole again below. */
    if (len < 16) {
        size_t i = 0;
        while (i < len && json_plain((unsigned char)text[i])) {
            p[i] = text[i];
            i++;
        }
        if (i == len)
            return p + len;
    } else {
        size_t i = 0;
        for (; len - i >= 16 && json_plain16(text + i); i += 16)
            memcpy(p + i, text + i, 16);
        if (i == len)
            return p + len;
        /* fewer than 16 left: the last 16 bytes, read again, cover them */
        if (len - i < 16 && json_plain16(text + len - 16)) {
            memcpy(p + len - 16, text + len - 16, 16);
            return p + len;
        }
    }
    const unsigned char *s = (const unsigned char *)text, *end = s + len;
    const unsigned char *run = s; /* start of the bytes passing unchanged */
    while (s < end) {
        while (end - s >= 16 && json_plain16((const char *)s))
            s += 16;
        while (s < end && json_plain(*s))
            s++;
        if (s == end)
            break;
        size_t n = *s >= 0x80 ? xlog_utf8_sequence(s, (size_t)(end - s)) : 0;
        if (n > 0 && !xlog_utf8_forbidden(s, n)) {
            s += n;
            continue;
        }
        memcpy(p, run, (size_t)(s - run));
        p += s - run;
        if (n == 0 && *s >= 0x80) { /* not part of valid UTF-8 */
            memcpy(p, "\xef\xbf\xbd", 3); /* U+FFFD */
            p += 3;
            n = 1;
        } else {
            n += n == 0; /* a control, '"', '\' or DEL is one byte */
            p = put_escape(p, s, n);
        }
        s += n;
        run = s;
    }
    memcpy(p, run, (size_t)(end - run));
    return p + (end - run);
}

static char *put_int(char *p, int value)
{
    return xlog_put_int_field(p, value);
}

/* The thread's context (xlog.h, "Context"): OpenTelemetry's own fields
 * of a record, trace_id and span_id, go before "attributes" (top, after
 * the body, whose closing quote is the caller's to write); the other keys
 * are attributes, after xlog's own (top 0).  Each pair is
 * ,"key":"value" (top: ","key":"value, the quotes around it the body's). */
static int otel_field(const xlog_context_pair *pair)
{
    return (pair->key_length == 8 && memcmp(pair->key, "trace_id", 8) == 0) ||
           (pair->key_length == 7 && memcmp(pair->key, "span_id", 7) == 0);
}

static char *put_context(char *p, const xlog_context *c, int top)
{
    for (uint32_t i = 0; c && i < c->count; i++) {
        const xlog_context_pair *pair = &c->pairs[i];
        if (otel_field(pair) != top)
            continue;
        if (top)
            PUT(p, "\",\"");
        else
            PUT(p, ",\"");
        p = put_string(p, pair->key, pair->key_length);
        PUT(p, "\":\"");
        p = put_string(p, pair->value, pair->value_length);
        if (!top)
            *p++ = '"';
    }
    return p;
}

/* The longest context: every pair escaped, with its quotes, colon, comma. */
#define JSON_CONTEXT_MAX \
    (XLOG_CONTEXT_MAX_PAIRS * (JSON_GROWTH * (XLOG_CONTEXT_MAX_KEY + XLOG_CONTEXT_MAX_VALUE) + 6))

static size_t json_write(xlog_layout *layout, const xlog_line_event *e, char *out)
{
    /* OpenTelemetry's SeverityNumber: the first of each range of four */
    static const char severity_numbers[][3] = {"1", "5", "9", "13", "17", "21"};
    json_layout *l = (json_layout *)layout;
    const xlog_event *pub = &e->pub;
    char *p = out;
    PUT(p, JSON_TIMESTAMP);
    p += xlog_time_text_write(&l->timestamp, pub->time_ns, p);
    PUT(p, JSON_SEVERITY_TEXT);
    size_t len;
    const char *name = xlog_level_name(pub->level, &len);
    memcpy(p, name, len);
    p += len;
    PUT(p, JSON_SEVERITY_NUMBER);
    const char *number = severity_numbers[xlog_level_clamp(pub->level)];
    len = strlen(number);
    memcpy(p, number, len);
    p += len;
    PUT(p, JSON_BODY);
    p = put_string(p, pub->message, pub->message_length);
    p = put_context(p, e->context, 1);
    PUT(p, JSON_FILEPATH);
    p = put_string(p, pub->file, e->file_length);
    PUT(p, JSON_LINENO);
    p = put_int(p, pub->line);
    PUT(p, JSON_FUNCTION);
    p = put_string(p, pub->function, e->function_length);
    PUT(p, JSON_THREAD);
    p = put_int(p, pub->tid);
    if (e->thread_name && e->thread_name->length) { /* OpenTelemetry's; none when unknown */
        PUT(p, JSON_THREAD_NAME);
        p = put_string(p, e->thread_name->text, e->thread_name->length);
        PUT(p, JSON_THREAD_NAME_END);
    }
    PUT(p, JSON_PID);
    p = put_int(p, pub->pid);
    if (e->module_length) {
        PUT(p, JSON_MODULE);
        p = put_string(p, pub->module, e->module_length);
        PUT(p, JSON_MODULE_END);
    }
    p = put_context(p, e->context, 0);
    PUT(p, JSON_END);
    return (size_t)(p - out);
}

static size_t json_max_line(const xlog_layout *layout, size_t message_length)
{
    const json_layout *l = (const json_layout *)layout;
    size_t fixed =
        sizeof JSON_TIMESTAMP - 1 + xlog_time_text_length(&l->timestamp) +
        sizeof JSON_SEVERITY_TEXT - 1 +
        XLOG_LEVEL_NAME_MAX + sizeof JSON_SEVERITY_NUMBER - 1 + 2 + sizeof JSON_BODY - 1 +
        sizeof JSON_FILEPATH - 1 + sizeof JSON_LINENO - 1 + XLOG_INT_TEXT_MAX +
        sizeof JSON_FUNCTION - 1 + sizeof JSON_THREAD - 1 + XLOG_INT_TEXT_MAX +
        sizeof JSON_THREAD_NAME - 1 + JSON_GROWTH * XLOG_THREAD_NAME_MAX +
        sizeof JSON_THREAD_NAME_END - 1 + sizeof JSON_PID - 1 + XLOG_INT_TEXT_MAX +
        sizeof JSON_MODULE - 1 + sizeof JSON_MODULE_END - 1 + sizeof JSON_END - 1 +
        3 * JSON_GROWTH * XLOG_MAX_NAME /* file, function, module */ + JSON_CONTEXT_MAX;
    return fixed + JSON_GROWTH * message_length;
}

static void json_destroy(xlog_layout *layout)
{
    free(layout);
}

static int json_create(xlog_layout **out, const char *pattern, const char *what)
{
    (void)pattern;
    (void)what;
    json_layout *l = calloc(1, sizeof *l);
    if (!l)
        return -ENOMEM;
    l->base.ops = &xlog_json_layout;
    xlog_time_text_init(&l->timestamp, false, true, 9);
    *out = &l->base;
    return 0;
}

const xlog_layout_ops xlog_json_layout = {
    .create = json_create,
    .destroy = json_destroy,
    .max_line = json_max_line,
    .write = json_write,
};
