/*
 * test_capture.c - a C11 call site captures its scalar arguments itself
 * (xlog.h, "Capture at the call site"; lib/frontend/frontend.c, "the call
 * captured at its site"), and its lines are those of the variable argument
 * list, byte for byte, whatever the types and the format say.
 *
 * Each call of capture/cases.h is made four times from its C11 site (the
 * first call prepares the site, through the variable argument list; the
 * second takes the slots if the site is ready for them; the later ones are
 * written in the calling code) and once from the same statement compiled
 * as C99.  The five lines must be whole and the same (level, file:line,
 * function, message) and the message what printf writes; and the C11 site
 * must have called xlog_impl_log_<n> exactly once (SLOT_CALLS) when the format's
 * conversions take its arguments as they are, never otherwise: the link
 * wraps those functions (-Wl,--wrap) to count their calls.
 */
#include "testutil.h"

#include <limits.h>
#include <pthread.h>
#include <sys/types.h>
#include <wchar.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "record/record.h"

#define CAPTURE_CASE_COUNT 17
extern void (*const capture_cases_c11[CAPTURE_CASE_COUNT])(void);
extern void (*const capture_cases_c99[CAPTURE_CASE_COUNT])(void);

/* Calls of xlog_impl_log_<n>, counted on their way to the library. */
static int slot_calls;

/* __wrap_xlog_impl_log_<n> counts the call and hands it on; parameters in
 * parentheses, then the arguments that name them. */
#define LIST(...) __VA_ARGS__
#define COUNTED(n, parameters, ...)                                                            \
    void __real_xlog_impl_log_##n(xlog_impl_site *site, int level, LIST parameters);           \
    void __wrap_xlog_impl_log_##n(xlog_impl_site *site, int level, LIST parameters);           \
    void __wrap_xlog_impl_log_##n(xlog_impl_site *site, int level, LIST parameters)            \
    {                                                                                          \
        slot_calls++;                                                                          \
        __real_xlog_impl_log_##n(site, level, __VA_ARGS__);                                    \
    }
void __real_xlog_impl_log_0(xlog_impl_site *site, int level);
void __wrap_xlog_impl_log_0(xlog_impl_site *site, int level);
void __wrap_xlog_impl_log_0(xlog_impl_site *site, int level)
{
    slot_calls++;
    __real_xlog_impl_log_0(site, level);
}
COUNTED(1, (uint64_t a0), a0)
COUNTED(2, (uint64_t a0, uint64_t a1), a0, a1)
COUNTED(3, (uint64_t a0, uint64_t a1, uint64_t a2), a0, a1, a2)
COUNTED(4, (uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3), a0, a1, a2, a3)
COUNTED(5, (uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4), a0, a1, a2, a3, a4)
COUNTED(6, (uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5), a0, a1, a2, a3, a4, a5)
COUNTED(7, (uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5, uint64_t a6), a0, a1, a2, a3, a4, a5, a6)
COUNTED(8, (uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5, uint64_t a6, uint64_t a7), a0, a1, a2, a3, a4, a5, a6, a7)

/* Each C11 call site is called this many times: the first call prepares
 * the site (xlog_impl_log), the second, if the site takes slots, calls
 * xlog_impl_log_<n>, which sets the site's pass; the later ones are
 * written in the calling code (xlog_impl_put) and call no xlog_impl_log_<n>
 * (a ready site that did not write in the calling code would call one). */
#define C11_CALLS 4
/* Calls of xlog_impl_log_<n> a site that takes slots makes: one, or, where
 * calls are not written in the calling code (ThreadSanitizer, not
 * x86-64), every call after the first. */
#define SLOT_CALLS (XLOG_IMPL_PUT_INLINE ? 1 : C11_CALLS - 1)
/* Calls of xlog_impl_log_captured (strings captured at the call site). */
static int captured_calls;
void __real_xlog_impl_log_captured(xlog_impl_site *site, int level, uint32_t shape,
                                   const xlog_impl_arg *args, size_t bytes);
void __wrap_xlog_impl_log_captured(xlog_impl_site *site, int level, uint32_t shape,
                                   const xlog_impl_arg *args, size_t bytes);
void __wrap_xlog_impl_log_captured(xlog_impl_site *site, int level, uint32_t shape,
                                   const xlog_impl_arg *args, size_t bytes)
{
    __atomic_fetch_add(&captured_calls, 1, __ATOMIC_RELAXED); /* racers call it too */
    __real_xlog_impl_log_captured(site, level, shape, args, bytes);
}

/* The lines of one case from p (its C11 calls', then its C99 call's): each
 * whole, INFO, all from the same file:line and function; their messages in
 * messages.  Where the next case's lines start. */
#define CASE_MESSAGE 1024
static const char *read_case_lines(const char *p, char messages[C11_CALLS + 1][CASE_MESSAGE])
{
    test_line lines[C11_CALLS + 1];
    for (int k = 0; k < C11_CALLS + 1; k++) {
        const char *nl = strchr(p, '\n');
        assert_non_null(nl);
        assert_true(test_parse_line(p, (size_t)(nl - p), &lines[k]));
        test_message(&lines[k], messages[k], CASE_MESSAGE);
        assert_string_equal(lines[k].level, "INFO");
        assert_string_equal(lines[k].where, lines[0].where);
        assert_string_equal(lines[k].func, lines[0].func);
        p = nl + 1;
    }
    return p;
}

/* What each case of cases.h must write, in its order, and whether its C11
 * site takes the slots.  NULL for the call with more conversions than
 * arguments, whose second number is whatever the variable argument list
 * finds, call by call (each line is checked to be "1 " and one number). */
static const struct {
    const char *message;
    int slots;
} expected[CAPTURE_CASE_COUNT] = {
    {"no argument", 1},
    {"open: Permission denied", 0}, /* %m reads no argument */
    {"   42|7   |3.14", 1},         /* '*' ints are slots like any other */
    {"-5 -300 z -7 4294967288 fffffff7 37777777766 FFFFFFF0", 1},
    {"200 65000 1 2 5 -1", 1},
    {"18446744073709551615 -9223372036854775808 18446744073709551615 -9223372036854775808 "
     "18446744073709551615 -1 -2 -3",
     1},
    {"0x1234 (nil) 1.500000 1.234568e+04 0.0001 0x1p+0 -0.667", 1},
    {"abc%n", 0},  /* an int * is a wchar_t *: a wide string to the call site */
    {"def%ln", 1}, /* a long *: a pointer slot */
    {"1 2 3 4 5 6 7 8", 1},
    {"1 2 3 4 5 6 7 8 9", 0},  /* more than XLOG_MAX_SLOTS */
    {"answer=42", 0},          /* a string */
    {"2.250000", 0},           /* a long double */
    {"A!", 0},                 /* %lc: a wint_t is zero-extended, an int slot is not */
    {"1", 0},                  /* fewer conversions than arguments */
    {NULL, 0},                 /* more conversions than arguments */
    {"5", 0},                  /* %d reads the int of a long */
};

/* The one-number check of the call with more conversions than arguments:
 * "1 " then an int and nothing else. */
static int is_one_then_a_number(const char *message)
{
    int first, consumed = 0;
    long second;
    return sscanf(message, "%d %ld%n", &first, &second, &consumed) == 2 && first == 1 &&
           message[consumed] == '\0' && second >= INT_MIN && second <= INT_MAX;
}

static void a_call_site_captures_its_scalars_and_writes_the_lines_of_the_variable_arguments(
    void **state)
{
    (void)state;
    char *dir = test_make_dir("capture");
    xlog_config cfg = test_config_in(dir);
    assert_int_equal(xlog_open(&cfg), 0);
    int slot_calls_of[CAPTURE_CASE_COUNT];
    for (int i = 0; i < CAPTURE_CASE_COUNT; i++) {
        int before = slot_calls;
        for (int call = 0; call < C11_CALLS; call++)
            capture_cases_c11[i]();
        slot_calls_of[i] = slot_calls - before;
        before = slot_calls;
        capture_cases_c99[i]();
        assert_int_equal(slot_calls - before, 0);
    }
    assert_int_equal(xlog_close(), 0);

    char *text = test_read_dir(dir, NULL);
    assert_int_equal(test_count_lines(text), (C11_CALLS + 1) * CAPTURE_CASE_COUNT);
    const char *p = text;
    for (int i = 0; i < CAPTURE_CASE_COUNT; i++) {
        char messages[C11_CALLS + 1][CASE_MESSAGE];
        p = read_case_lines(p, messages);
        print_message("case %d: %s\n", i, messages[0]);
        for (int k = 0; k < C11_CALLS + 1; k++) {
            if (expected[i].message)
                assert_string_equal(messages[k], expected[i].message);
            else
                assert_true(is_one_then_a_number(messages[k]));
        }
        assert_int_equal(slot_calls_of[i], expected[i].slots ? SLOT_CALLS : 0);
    }
    free(text);
    test_drop_dir(dir);
}

#define STRING_CASE_COUNT 14
extern void (*const capture_string_cases_c11[STRING_CASE_COUNT])(void);
extern void (*const capture_string_cases_c99[STRING_CASE_COUNT])(void);
int string_evaluations;

/* 300 bytes of the alphabet, as strings.h's string_too_long makes them. */
static void alphabet(char *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = (char)('a' + i % 26);
    out[n] = '\0';
}

/* Calls of xlog_impl_log_captured that C11_CALLS calls of a string case
 * make: want 2, every call (strings the library cuts); 1, the first, then
 * the calls are written in the calling code (xlog_impl_put_text), where
 * that is done, else every call; 0, none. */
#define CAPTURED_CALLS(want)                                                               \
    ((want) == 2 ? C11_CALLS : (want) == 1 ? (XLOG_IMPL_PUT_INLINE ? 1 : C11_CALLS) : 0)

/* What each case of strings.h must write, and which of its C11 calls take
 * xlog_impl_log_captured (CAPTURED_CALLS): when the format takes the
 * arguments as they are, the first call (which prepares the site on its
 * way) and, if they are not written in the calling code, the others; none
 * otherwise. */
static const struct {
    const char *message; /* NULL: a cut string, checked apart */
    int captured;
} string_expected[STRING_CASE_COUNT] = {
    {"user bob.smith.long logged in from 10.0.0.1", 1},
    {"[(null)|after]", 1},
    {"[][x]", 1},
    {NULL, 2}, /* cut at max_message: always the library */
    {"array=-42 mid 2.50 0x10 -7 bytes q", 1},
    {"a 1 bb 2 ccc 3.000000 dddd ff", 1},
    {"once 7", 1},
    {"[    ab|c   ]", 1}, /* a '*' width is an int like any other */
    {"[abc]", 0},         /* a '*' precision bounds the copy */
    {"open: No such file or directory", 0},
    {"0x1234", 0}, /* a string where %p reads a pointer */
    {"kept", 0},   /* an argument without its conversion */
    {NULL, 2},     /* 200,000 bytes: cut in the record, as the ring is 64 KiB */
    {"[abc|abcd|abcdefg|abcdefgh|0123456789abcdef|0123456789abcdef0123456789abcdef0123456789]", 1},
};

static void a_call_site_captures_its_strings_and_writes_the_lines_of_the_variable_arguments(
    void **state)
{
    (void)state;
    char *dir = test_make_dir("capture-strings");
    xlog_config cfg = test_config_in(dir);
    cfg.max_message = 256;
    cfg.ring_size = (size_t)64 << 10;
    assert_int_equal(xlog_open(&cfg), 0);
    int captured_of[STRING_CASE_COUNT];
    for (int i = 0; i < STRING_CASE_COUNT; i++) {
        int before = captured_calls, slots_before = slot_calls;
        string_evaluations = 0;
        for (int call = 0; call < C11_CALLS; call++)
            capture_string_cases_c11[i]();
        captured_of[i] = captured_calls - before;
        before = captured_calls;
        capture_string_cases_c99[i]();
        assert_int_equal(captured_calls - before, 0);
        assert_int_equal(slot_calls - slots_before, 0);
        if (i == 6) /* string_evaluated_once: one evaluation per call */
            assert_int_equal(string_evaluations, C11_CALLS + 1);
    }
    assert_int_equal(xlog_close(), 0);

    /* The cut line: the 300 bytes cut at max_message with the mark, the
     * string after them lost. */
    char cut[512];
    alphabet(cut, 256 - strlen(XLOG_TRUNCATED_MARK));
    strcat(cut, XLOG_TRUNCATED_MARK);

    char zs[512];
    memset(zs, 'z', 256 - strlen(XLOG_TRUNCATED_MARK));
    strcpy(zs + 256 - strlen(XLOG_TRUNCATED_MARK), XLOG_TRUNCATED_MARK);

    char *text = test_read_dir(dir, NULL);
    assert_int_equal(test_count_lines(text), (C11_CALLS + 1) * STRING_CASE_COUNT);
    const char *p = text;
    for (int i = 0; i < STRING_CASE_COUNT; i++) {
        char messages[C11_CALLS + 1][CASE_MESSAGE];
        p = read_case_lines(p, messages);
        print_message("string case %d: %s\n", i, messages[0]);
        for (int k = 0; k < C11_CALLS + 1; k++) {
            assert_string_equal(messages[k], string_expected[i].message ? string_expected[i].message
                                             : i == 3                   ? cut
                                                                        : zs);
        }
        assert_int_equal(captured_of[i], CAPTURED_CALLS(string_expected[i].captured));
    }
    free(text);
    test_drop_dir(dir);
}

/* Threads that make the first calls of string sites at the same time:
 * one prepares each site while the others find it being prepared (they take
 * the variable argument list) or ready (they capture); every call is
 * written once, whole.  16 sites (each expansion of RACE_SITE is one), so
 * that 16 first calls race per run. */
#define RACERS 4
#define RACE_SITES 16
#define RACE_SITE(k) xlog_info("racer %s site %d round %d", racer_names[racer], k, round)
static const char *const racer_names[RACERS] = {"ann", "bob.smith.long", "", "dee"};
static pthread_barrier_t racers_start;
static long race_rounds;

static void *race_string_sites(void *arg)
{
    int racer = (int)(intptr_t)arg;
    pthread_barrier_wait(&racers_start);
    for (int round = 0; round < race_rounds; round++) {
        RACE_SITE(0);
        RACE_SITE(1);
        RACE_SITE(2);
        RACE_SITE(3);
        RACE_SITE(4);
        RACE_SITE(5);
        RACE_SITE(6);
        RACE_SITE(7);
        RACE_SITE(8);
        RACE_SITE(9);
        RACE_SITE(10);
        RACE_SITE(11);
        RACE_SITE(12);
        RACE_SITE(13);
        RACE_SITE(14);
        RACE_SITE(15);
    }
    return NULL;
}

static void threads_that_race_to_a_string_site_write_each_call_once(void **state)
{
    (void)state;
    char *dir = test_make_dir("capture-race");
    xlog_config cfg = test_config_in(dir);
    assert_int_equal(xlog_open(&cfg), 0);
    race_rounds = test_scaled(200) > 2 ? test_scaled(200) : 2;
    int captured_before = captured_calls;
    pthread_barrier_init(&racers_start, NULL, RACERS);
    pthread_t threads[RACERS];
    for (int i = 0; i < RACERS; i++)
        assert_int_equal(pthread_create(&threads[i], NULL, race_string_sites, (void *)(intptr_t)i), 0);
    for (int i = 0; i < RACERS; i++)
        pthread_join(threads[i], NULL);
    pthread_barrier_destroy(&racers_start);
    assert_int_equal(xlog_close(), 0);
    /* After its first calls each site captures (not counted exactly: the
     * racers' first calls may go either way). */
    if (XLOG_IMPL_PUT_INLINE) /* each site's first captured call sets its pass */
        assert_true(captured_calls - captured_before >= RACE_SITES);
    else
        assert_true(captured_calls - captured_before >= RACERS * RACE_SITES * (race_rounds - 1));

    /* Each (racer, site, round) once: every line is one of those, seen
     * for the first time. */
    static unsigned char seen[RACERS][RACE_SITES][200];
    memset(seen, 0, sizeof seen);
    char *text = test_read_dir(dir, NULL);
    assert_int_equal(test_count_lines(text), RACERS * RACE_SITES * race_rounds);
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        test_line line;
        char message[256];
        assert_true(test_parse_line(p, (size_t)(nl - p), &line));
        test_message(&line, message, sizeof message);
        int found = 0;
        for (int r = 0; r < RACERS && !found; r++) {
            char head[64];
            int n = snprintf(head, sizeof head, "racer %s site ", racer_names[r]);
            int site, round, end = 0;
            if (strncmp(message, head, (size_t)n) == 0 &&
                sscanf(message + n, "%d round %d%n", &site, &round, &end) == 2 &&
                message[n + end] == '\0' && site >= 0 && site < RACE_SITES && round >= 0 &&
                round < race_rounds) {
                char whole[256];
                snprintf(whole, sizeof whole, "racer %s site %d round %d", racer_names[r], site,
                         round);
                assert_string_equal(message, whole);
                assert_int_equal(seen[r][site][round], 0);
                seen[r][site][round] = 1;
                found = 1;
            }
        }
        if (!found)
            fail_msg("a line of no call: %s", message);
        p = nl + 1;
    }
    free(text);
    test_drop_dir(dir);
}

/* The 8 bytes xlog_impl_log's encoder writes for the one conversion of
 * format, reading its argument from the variable argument list. */
static uint64_t variadic_bytes(const char *format, ...)
{
    unsigned char kinds[2];
    assert_int_equal(xlog_record_kinds(format, strlen(format), kinds, NULL, 2, NULL), 1);
    char out[16] = {0};
    va_list ap;
    va_start(ap, format);
    xlog_record_encode_args(out, kinds, 1, NULL, 0, ap);
    va_end(ap);
    uint64_t bytes;
    memcpy(&bytes, out, sizeof bytes);
    return bytes;
}

/* The kind of format's one conversion. */
static int kind_of(const char *format)
{
    unsigned char kind;
    assert_int_equal(xlog_record_kinds(format, strlen(format), &kind, NULL, 1, NULL), 1);
    return kind;
}

/* value's slot fits format's kind (xlog_record_slot_fits), and holds the
 * bytes the variable argument list gives. */
#define SAME_BYTES(format, value)                                                          \
    do {                                                                                   \
        assert_true(xlog_record_slot_fits(kind_of(format), XLOG_IMPL_CLASS(value)));       \
        assert_int_equal(XLOG_IMPL_SLOT(value), variadic_bytes(format, value));            \
    } while (0)

/* value's slot does not fit format's kind: the site keeps the variable
 * argument list. */
#define NOT_A_SLOT_FOR(format, value)                                                      \
    assert_false(xlog_record_slot_fits(kind_of(format), XLOG_IMPL_CLASS(value)))

static void a_slot_holds_the_bytes_the_variable_arguments_give_for_its_kind(void **state)
{
    (void)state;
    enum capture_color { RED, GREEN, BLUE } color = BLUE;
    struct {
        unsigned three : 3;
        int two : 2;
        unsigned long wide : 40;
    } bits = {5, -1, 7};
    int x = 0;
    SAME_BYTES("%d", -7);
    SAME_BYTES("%u", -8);
    SAME_BYTES("%x", 0xfffffff0u);
    SAME_BYTES("%c", 'z');
    SAME_BYTES("%hhd", (char)-5);
    SAME_BYTES("%hd", (short)-300);
    SAME_BYTES("%hhu", (unsigned char)200);
    SAME_BYTES("%hu", (unsigned short)65000);
    SAME_BYTES("%d", (_Bool)1);
    SAME_BYTES("%d", color);
    SAME_BYTES("%u", bits.three);
    SAME_BYTES("%d", bits.two);
    SAME_BYTES("%ld", LONG_MIN);
    SAME_BYTES("%lu", ULONG_MAX);
    SAME_BYTES("%lld", LLONG_MIN);
    SAME_BYTES("%llu", ULLONG_MAX);
    SAME_BYTES("%zu", SIZE_MAX);
    SAME_BYTES("%zd", (ssize_t)-1);
    SAME_BYTES("%td", (ptrdiff_t)-2);
    SAME_BYTES("%jd", (intmax_t)-3);
    SAME_BYTES("%ju", UINTMAX_MAX);
    SAME_BYTES("%p", (void *)0x1234);
    SAME_BYTES("%p", (const void *)&x);
    SAME_BYTES("%ln", (long *)0);
    SAME_BYTES("%f", 1.5f);
    SAME_BYTES("%f", -2.0 / 3);
    SAME_BYTES("%a", 1e300);
    NOT_A_SLOT_FOR("%lc", (wint_t)L'A'); /* zero-extended by the variable arguments */
    NOT_A_SLOT_FOR("%ld", 5);             /* an int where a long is read */
    NOT_A_SLOT_FOR("%d", 5L);             /* a long where an int is read */
    NOT_A_SLOT_FOR("%f", 5);              /* an int where a double is read */
    NOT_A_SLOT_FOR("%d", 5.0);
    NOT_A_SLOT_FOR("%s", (void *)0);      /* a pointer where a string is read */
    NOT_A_SLOT_FOR("%lu", bits.wide);     /* a wide bit-field: not a slot at all */
    assert_int_equal(XLOG_IMPL_CLASS(bits.wide), 0);
    assert_int_equal(XLOG_IMPL_CLASS("text"), 0);
    assert_int_equal(XLOG_IMPL_CLASS(L"text"), 0);
    assert_int_equal(XLOG_IMPL_CLASS((long double)1), 0);
}

/* One call site, called from everywhere below. */
static void log_step(int step)
{
    xlog_info("%d from the site", step);
}

/* The steps' messages must be these, whole, in this order. */
static void expect_steps(const char *dir, const int *steps, int count)
{
    char *text = test_read_dir(dir, NULL);
    assert_int_equal(test_count_lines(text), count);
    const char *p = text;
    for (int i = 0; i < count; i++) {
        const char *nl = strchr(p, '\n');
        test_line l;
        assert_true(test_parse_line(p, (size_t)(nl - p), &l));
        char message[64], expected[64];
        test_message(&l, message, sizeof message);
        snprintf(expected, sizeof expected, "%d from the site", steps[i]);
        assert_string_equal(message, expected);
        assert_string_equal(l.level, "INFO");
        p = nl + 1;
    }
    free(text);
}

static void *log_steps_with_own_threshold(void *arg)
{
    int *step = arg;
    log_step((*step)++); /* the thread's ring, with room */
    xlog_thread_level(XLOG_WARN); /* above the site's INFO: nothing written */
    for (int i = 0; i < 3; i++)
        log_step((*step)++);
    xlog_thread_level(XLOG_DEBUG); /* below it: written */
    for (int i = 0; i < 3; i++)
        log_step(100 + (*step)++);
    xlog_thread_level(XLOG_LEVEL_PROCESS);
    return NULL;
}

/* A site that writes its calls in the calling code (its pass set by the
 * rules in force) still obeys a change of the rules, and a thread's own
 * threshold, which its pass does not know: calls the level no longer lets
 * through write nothing, and write again once it does. */
static void a_site_written_in_the_calling_code_obeys_the_level_and_a_threads_own(void **state)
{
    (void)state;
    char *dir = test_make_dir("capture-levels");
    xlog_config cfg = test_config_in(dir);
    assert_int_equal(xlog_open(&cfg), 0);
    int step = 0;
    for (int i = 0; i < 4; i++) /* prepare, pass, then in the calling code */
        log_step(step++);
    xlog_set_level(XLOG_WARN);
    for (int i = 0; i < 3; i++)
        log_step(step++); /* not written */
    xlog_set_level(XLOG_INFO);
    for (int i = 0; i < 3; i++)
        log_step(step++);
    pthread_t t;
    int thread_step = 1000;
    assert_int_equal(pthread_create(&t, NULL, log_steps_with_own_threshold, &thread_step), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    xlog_thread_level(XLOG_ERROR);
    log_step(step++); /* not written */
    xlog_thread_level(XLOG_LEVEL_PROCESS);
    log_step(step++);
    assert_int_equal(xlog_close(), 0);
    /* The thread's lines come after main's first ten, before its last. */
    const int steps[] = {0, 1, 2, 3, 7, 8, 9, 1000, 1104, 1105, 1106, 11};
    expect_steps(dir, steps, (int)(sizeof steps / sizeof steps[0]));
    test_drop_dir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_slot_holds_the_bytes_the_variable_arguments_give_for_its_kind),
        cmocka_unit_test(
            a_call_site_captures_its_scalars_and_writes_the_lines_of_the_variable_arguments),
        cmocka_unit_test(a_site_written_in_the_calling_code_obeys_the_level_and_a_threads_own),
        cmocka_unit_test(
            a_call_site_captures_its_strings_and_writes_the_lines_of_the_variable_arguments),
        cmocka_unit_test(threads_that_race_to_a_string_site_write_each_call_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
