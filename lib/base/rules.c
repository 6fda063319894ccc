/*
 * rules.c - the filter string's parser and the lookup of a module's level
 * (rules.h).
 */
#include "base/rules.h"

#include <errno.h>
#include <sched.h>
#include <string.h>
#include <strings.h>

#include "base/error.h"
#include "xlog.h"

int xlog_valid_module(const char *name, size_t length)
{
    if (length == 0 || length >= XLOG_MODULE_MAX || name[0] == '.' || name[length - 1] == '.')
        return 0;
    for (size_t i = 0; i < length; i++) {
        char c = name[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '_' || c == '-' || (c == '.' && name[i + 1] != '.');
        if (!ok)
            return 0;
    }
    return 1;
}

int xlog_rules_put(xlog_rule *list, size_t *count, size_t max, const char *module, size_t length,
                   int level)
{
    for (size_t i = 0; i < *count; i++) {
        if (list[i].length == length && memcmp(list[i].module, module, length) == 0) {
            list[i].level = level;
            return 0;
        }
    }
    if (*count == max)
        return -ENOSPC;
    memcpy(list[*count].module, module, length);
    list[*count].module[length] = '\0';
    list[*count].length = length;
    list[*count].level = level;
    ++*count;
    return 0;
}

int xlog_rules_lookup(int process, const xlog_rule *list, size_t count, const char *module,
                      size_t length)
{
    int level = process;
    size_t best = 0;
    for (size_t i = 0; i < count; i++) {
        const xlog_rule *r = &list[i];
        if (r->length > best && xlog_rule_covers(r->module, r->length, module, length)) {
            best = r->length;
            level = r->level;
        }
    }
    return level;
}

int xlog_rules_level(const xlog_rules *rules, const char *module, size_t length)
{
    return xlog_rules_lookup(rules->process, rules->list, rules->count, module, length);
}

int xlog_rules_merge(int a_process, const xlog_rule *a, size_t a_count, int b_process,
                     const xlog_rule *b, size_t b_count, int *process, xlog_rule *out,
                     size_t *count, size_t max)
{
    *process = a_process < b_process ? a_process : b_process;
    *count = 0;
    for (size_t i = 0; i < a_count + b_count; i++) {
        const xlog_rule *r = i < a_count ? &a[i] : &b[i - a_count];
        int in_a = xlog_rules_lookup(a_process, a, a_count, r->module, r->length);
        int in_b = xlog_rules_lookup(b_process, b, b_count, r->module, r->length);
        if (xlog_rules_put(out, count, max, r->module, r->length, in_a < in_b ? in_a : in_b) != 0)
            return -ENOSPC;
    }
    return 0;
}

#define READ(field) __atomic_load_n(&(field), __ATOMIC_ACQUIRE)
#define WRITE(field, value) __atomic_store_n(&(field), (value), __ATOMIC_RELEASE)

/* xlog_rule_covers, each of the rule's bytes read with READ. */
static int shared_covers(const xlog_rule *r, size_t r_length, const char *module, size_t length)
{
    if (r_length > length)
        return 0;
    for (size_t i = 0; i < r_length; i++)
        if (module[i] != READ(r->module[i]))
            return 0;
    return length == r_length || module[r_length] == '.';
}

int xlog_shared_rules_level(const xlog_shared_rules *t, const char *module, size_t length,
                            int *backtrace)
{
    for (;;) {
        uint64_t before = READ(t->sequence);
        if (before & 1) {
            sched_yield(); /* another thread is changing them */
            continue;
        }
        int level = READ(t->process);
        size_t best = 0;
        size_t count = READ(t->count);
        for (size_t i = 0; i < count && i < XLOG_SHARED_RULES_MAX && length; i++) {
            const xlog_rule *r = &t->list[i];
            size_t r_length = READ(r->length);
            if (r_length > best && r_length < XLOG_MODULE_MAX &&
                shared_covers(r, r_length, module, length)) {
                best = r_length;
                level = READ(r->level);
            }
        }
        *backtrace = READ(t->backtrace);
        if (READ(t->sequence) == before)
            return level;
    }
}

uint64_t xlog_shared_rules_copy(const xlog_shared_rules *t, xlog_rules *out)
{
    for (;;) {
        uint64_t before = READ(t->sequence);
        if (before & 1) {
            sched_yield();
            continue;
        }
        out->process = READ(t->process);
        size_t count = READ(t->count);
        out->count = count < XLOG_RULES_MAX ? count : XLOG_RULES_MAX;
        for (size_t i = 0; i < out->count; i++) {
            for (size_t c = 0; c < XLOG_MODULE_MAX; c++)
                out->list[i].module[c] = READ(t->list[i].module[c]);
            out->list[i].length = READ(t->list[i].length);
            out->list[i].level = READ(t->list[i].level);
        }
        if (READ(t->sequence) == before)
            return before;
    }
}

void xlog_shared_rules_store(xlog_shared_rules *t, int process, int backtrace,
                             const xlog_rule *list, size_t count)
{
    WRITE(t->sequence, t->sequence + 1);
    WRITE(t->process, process);
    WRITE(t->backtrace, backtrace);
    for (size_t i = 0; i < count; i++) {
        xlog_rule *r = &t->list[i];
        for (size_t c = 0; c < XLOG_MODULE_MAX; c++)
            WRITE(r->module[c], list[i].module[c]);
        WRITE(r->length, list[i].length);
        WRITE(r->level, list[i].level);
    }
    WRITE(t->count, count);
    WRITE(t->sequence, t->sequence + 1);
}

int xlog_parse_level(const char *text, size_t length)
{
    /* The names xlog prints, and the other spellings operators type
     * (syslog's "warning" and "err"). */
    static const struct {
        const char *name;
        int level;
    } names[] = {{"trace", XLOG_TRACE}, {"debug", XLOG_DEBUG}, {"info", XLOG_INFO},
                 {"warn", XLOG_WARN},   {"warning", XLOG_WARN}, {"error", XLOG_ERROR},
                 {"err", XLOG_ERROR},   {"fatal", XLOG_FATAL},  {"off", XLOG_OFF}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i].name) == length && strncasecmp(text, names[i].name, length) == 0)
            return names[i].level;
    return -1;
}

static int blank(char c)
{
    return c == ' ' || c == '\t';
}

/* How much of a filter, and of one of its items, an error message quotes. */
#define SHOWN 64
#define SHOWN_ITEM(length) ((length) > 32 ? 32 : (length))

int xlog_rules_parse(const char *filter, const char *what, xlog_rules *out)
{
    /* A long filter is quoted in part, so that the reason fits the message. */
    int shown = strlen(filter) > SHOWN ? SHOWN : (int)strlen(filter);
    const char *cut = strlen(filter) > SHOWN ? "..." : "";
    out->count = 0;
    const char *p = filter;
    for (;;) {
        /* Blanks (spaces, tabs) around an item and around its '=' are not
         * part of it. */
        while (blank(*p))
            p++;
        const char *item = p;
        size_t length = strcspn(p, ",");
        while (length && blank(p[length - 1]))
            length--;
        const char *equals = memchr(item, '=', length);
        int column = (int)(item - filter) + 1;
        if (length == 0) {
            xlog_set_error("%s=\"%.*s%s\": empty item at column %d", what, shown, filter, cut,
                           column);
            return -EINVAL;
        }
        const char *level_text = equals ? equals + 1 : item;
        while (equals && blank(*level_text) && level_text < item + length)
            level_text++;
        size_t level_length = (size_t)(item + length - level_text);
        size_t module_length = equals ? (size_t)(equals - item) : 0;
        while (module_length && blank(item[module_length - 1]))
            module_length--;
        int level = xlog_parse_level(level_text, level_length);
        if (level < 0) {
            xlog_set_error("%s=\"%.*s%s\": \"%.*s\" at column %d is not a level (trace, debug, "
                           "info, warn or warning, error or err, fatal or off)",
                           what, shown, filter, cut, (int)SHOWN_ITEM(level_length), level_text,
                           (int)(level_text - filter) + 1);
            return -EINVAL;
        }
        if (!equals) {
            out->process = level;
        } else if (!xlog_valid_module(item, module_length)) {
            xlog_set_error("%s=\"%.*s%s\": \"%.*s\" at column %d is not a module name (letters, "
                           "digits, '_', '-' and dots between them, at most %d bytes)",
                           what, shown, filter, cut, (int)SHOWN_ITEM(module_length), item,
                           column, XLOG_MODULE_MAX - 1);
            return -EINVAL;
        } else if (xlog_rules_put(out->list, &out->count, XLOG_RULES_MAX, item, module_length,
                                  level) != 0) {
            xlog_set_error("%s=\"%.*s%s\": more than %d module rules", what, shown, filter, cut,
                           XLOG_RULES_MAX);
            return -EINVAL;
        }
        p += strcspn(p, ",");
        if (*p == '\0')
            return 0;
        p++;
    }
}
