/*
 * format.h - the printf-compatible format engine, shared by both ends.
 *
 * Why it exists: xlog never formats on the calling thread.  The caller only
 * needs to know which argument kinds a format consumes (so it can copy the raw
 * values into its ring); the back end later turns the format plus those raw
 * values into text that is byte-for-byte what snprintf would have produced.
 * Both needs are served by one parser so the two ends can never disagree about
 * what a format means.
 *
 * How it works: xlog_fmt_next() walks a format one conversion at a time and
 * describes it (flags, width, precision, length, conversion, argument kind).
 * The record lists the argument kinds in va_arg order with it (for the
 * caller: xlog_record_kinds, record/record.h); xlog_fmt_render() uses it with
 * an array of decoded arguments (for the back end).  Formats are given with an explicit length and need not be
 * NUL-terminated.
 *
 * The output is raw bytes, as snprintf's is: control characters, NUL bytes
 * (from "%c" of 0, for one), invalid UTF-8 and line separators come out as
 * the format and the arguments hold them.  Making a message fit a line is
 * the layouts' work: escape.h's rule for text, RFC 8259 for JSON.
 *
 * Defined results for bad input (never undefined behaviour):
 *   - "%n" consumes its pointer argument (so later arguments stay aligned),
 *     writes nothing to memory, and is shown literally as "%n" (its whole
 *     text: "%hhn", "%*n" - a '*' consumes its int too);
 *   - a NULL "%s" (or "%ls") argument prints what glibc prints: "(null)",
 *     or nothing when a precision below 6 leaves no room for all of it
 *     ("%.3s"), padded to the width;
 *   - an unknown or incomplete conversion ("%y", "%5", a trailing "%", or a
 *     POSIX positional "%1$d") is shown literally and consumes no argument;
 *     so is a length modifier C99 does not define for its conversion ("%Ld",
 *     "%Lb", "%hs", "%lp", "%hf", "%l%"), a glibc extension other than those
 *     below ("%qd", "%Zd", "%Id", "%C", "%S"), and a width or precision that
 *     does not fit an int;
 *   - a conversion whose argument is missing (nargs too small) is shown
 *     literally, and so is every later conversion that takes an argument;
 *   - a %lc or %ls character with no multibyte form in the current locale
 *     makes that conversion shown literally (glibc's snprintf fails whole);
 *   - a NUL byte within fmt_len is literal text, where snprintf's format
 *     would end.
 *
 * Like glibc (2.35 and later): "%%" ignores flags, width and precision ("%5%"
 * prints "%"), but a '*' in it still consumes its int; "%p" of NULL prints
 * "(nil)"; a %s string ends at its first NUL byte if one comes before len;
 * %f %e %g count their width in characters (a decimal point or separator of
 * several bytes counts once), %a and the integers in bytes.
 * glibc extensions that are rendered as glibc does:
 *   - "%m" prints strerror(errno) for the errno saved when the message was
 *     logged (XLOG_ARG_ERRNO: no va_arg is read); width, precision and '-'
 *     apply as to a string; "%#m" prints the error's name ("EINVAL"), or the
 *     number when it has none; a length modifier is ignored;
 *   - the ' flag groups digits with LC_NUMERIC's thousands separator: on
 *     %d %i %u, and as glibc 2.36 does, also on %o %x %X %b %B (not %p), and
 *     on the integer part of %f %F %g %G (not %e %a); other conversions
 *     ignore it;
 *   - C23's "%b" / "%B": binary, "0b" / "0B" with '#' for a value that is
 *     not 0, with every length modifier of the other integer conversions.
 * Output depends on the calling thread's locale as snprintf's does
 * (LC_NUMERIC for the decimal point and grouping, LC_CTYPE for %lc and %ls,
 * LC_MESSAGES for %m).
 */
#ifndef XLOG_FORMAT_H
#define XLOG_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <wchar.h>

/* The C type an argument is read with (va_arg type), in the order consumed. */
typedef enum xlog_arg_kind {
    XLOG_ARG_NONE = 0,
    XLOG_ARG_INT,     /* int: %d %i %c %o %u %x %X %b %B with no, hh or h length; '*' */
    XLOG_ARG_LONG,    /* long / unsigned long: 'l' integers */
    XLOG_ARG_LLONG,   /* long long: 'll' integers */
    XLOG_ARG_INTMAX,  /* intmax_t / uintmax_t: 'j' */
    XLOG_ARG_SIZE,    /* size_t / ssize_t: 'z' */
    XLOG_ARG_PTRDIFF, /* ptrdiff_t: 't' */
    XLOG_ARG_WINT,    /* wint_t: %lc */
    XLOG_ARG_DOUBLE,  /* double: %f %F %e %E %g %G %a %A (and 'l' on those) */
    XLOG_ARG_LDOUBLE, /* long double: 'L' on the floating conversions */
    XLOG_ARG_PTR,     /* void *: %p, and the pointer of a refused %n */
    XLOG_ARG_STR,     /* const char *: %s */
    XLOG_ARG_WSTR,    /* const wchar_t *: %ls */
    XLOG_ARG_ERRNO,   /* no va_arg: errno as it was at the call, held as an int; %m */
    XLOG_ARG_KIND_COUNT
} xlog_arg_kind;

/* One decoded argument.  Integer kinds hold the value read with its own C type,
 * converted to 64 bits (sign-extended for signed types); the renderer narrows
 * it again according to the conversion and length modifier, as printf does. */
typedef union xlog_arg {
    uint64_t u;
    int64_t i;          /* also the errno of XLOG_ARG_ERRNO */
    double d;
    long double ld;
    const void *p;
    struct {
        const char *ptr;    /* NULL prints "(null)" */
        size_t len;         /* bytes available at ptr; no NUL needed (one
                               within len ends the string, as in C) */
    } s;
    struct {
        const wchar_t *ptr; /* NULL prints "(null)" */
        size_t len;         /* wide characters available at ptr */
    } ws;
} xlog_arg;

/* Conversion flags. */
#define XLOG_FMT_FLAG_MINUS 0x01u
#define XLOG_FMT_FLAG_PLUS  0x02u
#define XLOG_FMT_FLAG_SPACE 0x04u
#define XLOG_FMT_FLAG_HASH  0x08u
#define XLOG_FMT_FLAG_ZERO  0x10u
#define XLOG_FMT_FLAG_GROUP 0x20u /* ' */

#define XLOG_FMT_NONE (-1) /* width or precision not given */
#define XLOG_FMT_STAR (-2) /* width or precision taken from an int argument */

/* Length modifiers, as stored in xlog_conv.length. */
enum {
    XLOG_LEN_NONE = 0,
    XLOG_LEN_HH,
    XLOG_LEN_H,
    XLOG_LEN_L,
    XLOG_LEN_LL,
    XLOG_LEN_J,
    XLOG_LEN_Z,
    XLOG_LEN_T,
    XLOG_LEN_BIG_L
};

/* One step of a format: literal text, then (optionally) one conversion. */
typedef struct xlog_conv {
    const char *lit;     /* literal text before the conversion, shown as is */
    size_t lit_len;
    char conv;           /* one of "diouxXbBfFeEgGaAcspm%", 'n' for a refused %n,
                            '?' for a conversion shown literally, or 0 when
                            there is no conversion (the end of the format) */
    const char *spec;    /* the whole conversion text, from '%' on */
    size_t spec_len;
    unsigned flags;      /* XLOG_FMT_FLAG_* */
    int width;           /* >= 0, XLOG_FMT_NONE or XLOG_FMT_STAR */
    int precision;       /* >= 0, XLOG_FMT_NONE or XLOG_FMT_STAR */
    unsigned char length;/* XLOG_LEN_* */
    unsigned char kind;  /* xlog_arg_kind of the value argument, or XLOG_ARG_NONE */
} xlog_conv;

/* Parses the next step of the format between *cursor and end.  Returns 1 and
 * fills *c (advancing *cursor) while anything is left, 0 at the end.  Arguments
 * are consumed in this order: a '*' width, a '*' precision, then the value. */
int xlog_fmt_next(const char **cursor, const char *end, xlog_conv *c);

/* Renders fmt with args into out (at most cap bytes, no NUL terminator added).
 * Returns the length the complete output has, which may exceed cap (as
 * snprintf does); the bytes written are a prefix of that output.  args[i] must
 * hold the kind that xlog_record_kinds() lists at position i. */
size_t xlog_fmt_render(const char *fmt, size_t fmt_len, const xlog_arg *args, size_t nargs,
                       char *out, size_t cap);

/* ---- formats parsed once ----------------------------------------------------
 *
 * A call site's format is rendered for every line the site logs, so the back
 * end parses it once and keeps the result: a list of steps, each the
 * literal text before a conversion and how to render that conversion.  The
 * commonest conversions (integers, "%s" and "%f" / "%.Nf" with no flags and
 * no width) have steps of their own; every other one is rendered by the code
 * that renders it in xlog_fmt_render, so the bytes are the same in every
 * case (tests/test_format.c and fuzz/fuzz_format.c compare them).
 *
 * The steps hold offsets into the format, not pointers: they are used with
 * the format's own bytes, which the caller passes again. */

/* Conversions a parsed format holds; a format with more is not parsed
 * (xlog_fmt_render renders it as before). */
#define XLOG_FMT_PARSED_CONVERSIONS 8
/* The longest format parsed (its offsets are 16 bits). */
#define XLOG_FMT_PARSED_MAX_LENGTH UINT16_MAX

typedef struct xlog_fmt_step {
    uint16_t lit_at, lit_len;   /* the literal before the conversion */
    uint16_t spec_at, spec_len; /* the conversion's text, from '%' on */
    unsigned char op;           /* how it is rendered (format.c) */
    unsigned char shift;        /* integers: 64 - the bits printf reads */
    char conv;                  /* as xlog_conv's */
    unsigned char flags, length, kind;
    int width, precision;       /* as xlog_conv's */
} xlog_fmt_step;

typedef struct xlog_fmt_parsed {
    uint16_t fmt_len;
    unsigned char usable;       /* 0: the format could not be parsed */
    unsigned char args_needed;  /* fewer arguments: xlog_fmt_render's path */
    /* the conversions, then a last step with the text after them */
    xlog_fmt_step steps[XLOG_FMT_PARSED_CONVERSIONS + 1];
} xlog_fmt_parsed;

/* Parses fmt[0..fmt_len) into *out.  Returns out->usable: 0 when the format
 * is longer than XLOG_FMT_PARSED_MAX_LENGTH or has more than
 * XLOG_FMT_PARSED_CONVERSIONS conversions. */
int xlog_fmt_parse(const char *fmt, size_t fmt_len, xlog_fmt_parsed *out);

/* xlog_fmt_render(fmt, parsed->fmt_len, args, nargs, out, cap), from the
 * format parsed (usable) from those bytes: the same bytes and the same
 * length. */
size_t xlog_fmt_render_parsed(const xlog_fmt_parsed *parsed, const char *fmt,
                              const xlog_arg *args, size_t nargs, char *out, size_t cap);

/* Parsed formats, keyed by their address: a format's slot is chosen by its
 * address, and a format parsed in a slot stays there until another format
 * lands in that slot.  Fixed in size, so that it never allocates (the back
 * end renders lines from a crash handler too).  Whoever keeps one promises
 * that an address names the same bytes for as long as the cache lives (a
 * call site's copy: never freed), and that one thread uses it at a time; a
 * signal handler on that thread may use it too, also between a get and its
 * release: slots are written only by a get that no other one encloses.  A
 * keeper that frees a format calls xlog_fmt_cache_forget first. */
#define XLOG_FMT_CACHE_SLOTS 512

typedef struct xlog_fmt_cache_slot {
    const char *fmt; /* NULL: an empty slot */
    xlog_fmt_parsed parsed;
} xlog_fmt_cache_slot;

typedef struct xlog_fmt_cache {
    int held; /* gets not released yet */
    xlog_fmt_cache_slot slots[XLOG_FMT_CACHE_SLOTS];
} xlog_fmt_cache;

/* The parsed form of fmt[0..fmt_len), from cache or parsed into it, valid
 * until xlog_fmt_cache_release (every get is released, NULL or not).  NULL
 * when the format cannot be parsed: render it with xlog_fmt_render.  local
 * is room for a parse that the cache cannot take (when this get interrupts
 * another). */
const xlog_fmt_parsed *xlog_fmt_cache_get(xlog_fmt_cache *cache, const char *fmt,
                                          size_t fmt_len, xlog_fmt_parsed *local);

/* The bytes at fmt are about to be freed: a parse kept for that address is
 * dropped, so that a format later given the same address is parsed again
 * (a reader of binary files frees a site's format when a block defines the
 * site anew). */
void xlog_fmt_cache_forget(xlog_fmt_cache *cache, const char *fmt);

static inline void xlog_fmt_cache_release(xlog_fmt_cache *cache)
{
    __atomic_signal_fence(__ATOMIC_SEQ_CST); /* reads of the slot come before */
    cache->held--;
}

#endif
