/*
 * xlog.h - the whole public interface of xlog, and its reference manual.
 *
 * xlog is an asynchronous logging library for C11 and C++.  A log call costs
 * the caller a few nanoseconds: it checks the level, copies the raw arguments
 * (strings by value) and a TSC timestamp into a ring that belongs to the
 * calling thread, and returns.  It takes no lock, makes no system call, does
 * not allocate and does not format (after the thread's first message, which
 * gets its ring, and a call site's first call, which copies the site's file,
 * function, module and format into memory of xlog's, taken with mmap now
 * and then, never malloc, so a signal handler may make it; a persistent ring's
 * first burst may also reserve its pages, at most six times: see
 * xlog_config.persistent).  One back-end thread drains every ring, merges the
 * messages by time, formats them exactly as printf would, and writes them to
 * the files in large blocks.
 *
 *     ```c
 *     #include <stdio.h>
 *
 *     #include <xlog.h>
 *
 *     int main(void)
 *     {
 *         xlog_config cfg = xlog_defaults();
 *         cfg.dir = "logs";
 *         int rc = xlog_open(&cfg);
 *         if (rc != 0) {
 *             fprintf(stderr, "xlog_open: %s\n", xlog_strerror(rc));
 *             return 1;
 *         }
 *         xlog_info("user %s logged in, id %d", "alice", 42);
 *         xlog_close();
 *     }
 *     ```
 *
 * By default every line holds the time in UTC with nanoseconds, the level, the
 * call site and the kernel thread id (as ps, top and gdb show it); other
 * layouts (patterns, JSON lines) and other outputs (syslog, your own sink)
 * are described below:
 *
 *     ```text expected-log
 *     2026-11-22 14:45:25.123456789 [INFO] main.c:14 main 12345 user alice logged in, id 42
 *     ```
 *
 * Names: every public name starts with xlog_ or XLOG_ (and xlogout, kept for
 * existing callers).  Names that start with xlog_impl_ or XLOG_IMPL_
 * are the library's own and may change; they appear here only because the
 * call-site macros must be able to inline them.
 *
 * Thread safety: every function may be called from any thread.  xlog_open and
 * xlog_close must not race with each other.  Log calls are not
 * async-signal-safe: a call made by a signal handler that interrupted a log
 * call on the same thread is dropped (and counted in xlog_counters.dropped);
 * xlog_reopen() is the one function meant for signal handlers.
 *
 * Plugins: a shared library that logged may be unloaded (dlclose) at any
 * time, even with its lines not yet written: they are written as logged,
 * since xlog keeps its own copy of each call site (about 100 bytes and the
 * site's names and format, for the life of the process; a library loaded
 * again, even at the same address, gets new copies).  A string argument is
 * copied at the call, so it may live in the library too.
 *
 * Threads: xlog_open starts the back end, named "xlog", and, when they are
 * configured, "xlog-console" (the console), one "xlog-syslog" per syslog
 * sink and "xlog-gzip" (compression of rotated files), as top -H, ps -L and
 * gdb show them (/proc/<pid>/task/<tid>/comm); xlog_close ends them all.
 */
#ifndef XLOG_H
#define XLOG_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Version                                                                  */
/* ------------------------------------------------------------------------ */

/* The version of this header, MAJOR.MINOR.PATCH.  A program built against
 * one version works with a later library of the same MAJOR (and, while MAJOR
 * is 0, of the same MINOR).  These three lines are the one place the version
 * is kept: the build reads them for the shared library's name, the CMake
 * package and the pkg-config file; CHANGELOG.md says what each version
 * changed. */
#define XLOG_VERSION_MAJOR 0
#define XLOG_VERSION_MINOR 1
#define XLOG_VERSION_PATCH 0
/* The same as one string literal, "MAJOR.MINOR.PATCH". */
#define XLOG_VERSION_STRING                                                   \
    XLOG_IMPL_STRINGIFY(XLOG_VERSION_MAJOR) "."                               \
    XLOG_IMPL_STRINGIFY(XLOG_VERSION_MINOR) "."                               \
    XLOG_IMPL_STRINGIFY(XLOG_VERSION_PATCH)
#define XLOG_IMPL_STRINGIFY(x) XLOG_IMPL_STRINGIFY_TEXT(x)
#define XLOG_IMPL_STRINGIFY_TEXT(x) #x

/* The version of the library the program runs with, "MAJOR.MINOR.PATCH".
 * With the shared library it may be later than XLOG_VERSION_STRING, the
 * header the program was compiled with. */
const char *xlog_version(void);

/* ------------------------------------------------------------------------ */
/* Levels                                                                   */
/* ------------------------------------------------------------------------ */

/* Message levels, in increasing severity.  A message is written when its
 * level is at or above the threshold in force for the calling thread: the
 * thread's own (xlog_thread_level) if it has one, else the process-wide one
 * (xlog_set_level).  XLOG_OFF as a threshold disables everything. */
enum {
    XLOG_TRACE = 0,
    XLOG_DEBUG = 1,
    XLOG_INFO = 2,
    XLOG_WARN = 3,
    XLOG_ERROR = 4,
    XLOG_FATAL = 5,
    XLOG_OFF = 6
};

/* Passed to xlog_thread_level(): drop this thread's own threshold and follow
 * the process-wide one again. */
#define XLOG_LEVEL_PROCESS (-1)

/* ------------------------------------------------------------------------ */
/* Configuration                                                            */
/* ------------------------------------------------------------------------ */

/* How messages are spread over files. */
typedef enum xlog_file_mode {
    /* One file for every thread: <dir>/YYYY-MM-DD.log, lines in time order. */
    XLOG_FILE_SHARED = 0,
    /* One file per thread, as the in-house logger xlog replaces did:
     * <dir>/YYYY-MM-DD-<tid>.log, where tid is the kernel thread id. */
    XLOG_FILE_PER_THREAD = 1,
    /* One file per process: <dir>/YYYY-MM-DD-p<pid>.log. */
    XLOG_FILE_PER_PROCESS = 2
} xlog_file_mode;

/* What a log call does when its thread's ring is full (the back end is
 * behind, or the disk is slow). */
typedef enum xlog_full_policy {
    /* Wait until the back end has made room.  Nothing is ever lost; the wait
     * is counted in xlog_counters.blocked.  Unless room comes within a
     * microsecond or so, the thread sleeps (taking no CPU from the back
     * end) until the back end has read half its ring, so that it then logs
     * half a ring's worth without waiting again. */
    XLOG_FULL_BLOCK = 0,
    /* Drop the message and count it (xlog_counters.dropped).  The log later
     * gets a line saying how many messages the thread dropped. */
    XLOG_FULL_DROP = 1
} xlog_full_policy;

/* Compression of rotated files (xlog_config.compress). */
typedef enum xlog_compress {
    XLOG_COMPRESS_NONE = 0,
    /* gzip format: <name>.gz, read by gzip -d, zcat, zgrep, less. */
    XLOG_COMPRESS_GZIP = 1
} xlog_compress;

/* Colour on the console (xlog_config.console_color). */
typedef enum xlog_color {
    /* Colour when the console is a terminal and NO_COLOR is unset or empty. */
    XLOG_COLOR_AUTO = 0,
    XLOG_COLOR_NEVER = 1,
    XLOG_COLOR_ALWAYS = 2
} xlog_color;

/* This xlog has the console sink (xlog_config.console and what follows it). */
#define XLOG_HAS_CONSOLE 1

/* ------------------------------------------------------------------------ */
/* Layouts: how a message becomes a line                                    */
/* ------------------------------------------------------------------------ */

/* Every output (the files, the console, each extra sink) has a layout and a
 * minimum level of its own.
 *
 * XLOG_LAYOUT_TEXT writes one line of text per message: the default line
 *
 *     2026-11-22 14:45:25.123456789 [INFO] main.c:42 main 12345 message
 *
 * or, when a pattern is given, the pattern with its fields filled in.  A
 * pattern is text with fields in braces; every other character is copied as
 * it is ("{{" and "}}" give a brace), but for what a line may not hold,
 * which is escaped as in a field (see "One call, one line" below).  The
 * fields:
 *
 *     {time}           the time: 2026-11-22 14:45:25.123456789 (UTC)
 *     {time:OPTIONS}   the same, with OPTIONS separated by commas:
 *                        iso     ISO 8601: 2026-11-22T14:45:25.123456789Z
 *                        local   local time (TZ, read at xlog_open) and its
 *                                offset: 2026-11-22 20:15:25.123456789+05:30
 *                        s, ms, us, ns   how much of the second is shown
 *                                (default ns)
 *     {level}          TRACE, DEBUG, INFO, WARN, ERROR or FATAL
 *     {file}           the source file's name, without its directories
 *     {path}           the source file as the compiler named it (__FILE__)
 *     {line}           the line number
 *     {function}       the function
 *     {module}         the module (XLOG_MODULE); empty when none
 *     {pid}            the process id
 *     {tid}            the kernel thread id
 *     {thread}         the thread's name (see "Thread names" below)
 *     {context}        the thread's context: "key=value key2=value2", empty
 *                      when it has none (see "Context")
 *     {message}        the message
 *
 * The default line is the pattern
 * "{time} [{level}] {file}:{line} {function} {tid} {message}".  An unknown
 * field, an unknown option, an option given twice (or two precisions) or a
 * lone brace makes xlog_open fail with -EINVAL (xlog_last_error() says
 * what, and at which column).
 *
 * One call, one line: whatever a line is made of, it is valid UTF-8 with no
 * C0 or C1 control character and no Unicode line or paragraph separator.
 * Every other byte of a field (from the format, the arguments, or xlogout's
 * file and function) is escaped: \n \r \t, \xNN for another control
 * byte or a byte that is not part of valid UTF-8, \uNNNN for a C1 control,
 * U+2028 or U+2029.  A backslash is not escaped, so escapes cannot always be
 * told from the same characters in the message, but a line can never be
 * split or forged.
 *
 * XLOG_LAYOUT_JSON writes one JSON object (RFC 8259) per line, with the
 * names of the OpenTelemetry log data model:
 *
 *     {"timestamp":"2026-11-22T14:45:25.123456789Z","severity_text":"INFO",
 *      "severity_number":9,"body":"user alice logged in","attributes":{
 *      "code.filepath":"src/main.c","code.lineno":42,"code.function":"main",
 *      "thread.id":12345,"thread.name":"worker-1","process.pid":999,
 *      "xlog.module":"net.tls"}}
 *
 * (on one line).  severity_number is OpenTelemetry's: TRACE 1, DEBUG 5,
 * INFO 9, WARN 13, ERROR 17, FATAL 21.  xlog.module is present only for a
 * message with a module, thread.name only when the thread's name is known
 * and not empty (see "Thread names").  The thread's context (see "Context")
 * adds "trace_id" and "span_id" before "attributes" and its other keys as
 * attributes after xlog's own.  Strings are escaped as JSON requires (\" \\ \n \r \t \b \f, \u00XX for another control character),
 * and also DEL, the C1 controls, U+2028 and U+2029 as \uXXXX; each byte
 * that is not part of valid UTF-8 is replaced by U+FFFD.  The pattern is
 * not used.
 *
 * Thread names: {thread} and thread.name show the thread's name, as
 * pthread_setname_np (or prctl PR_SET_NAME) set it, by the thread itself or
 * by another: at most 15 bytes, any bytes but NUL, escaped like every field.
 * A thread that was never named has the name the kernel gave it: the name of
 * the thread that started it, which for a program that names no thread is
 * the program's name as ps shows it (cut to 15 bytes).  The caller pays
 * nothing for it per call: xlog cannot see a rename, so the name is read
 * when the thread takes its ring (its first message after xlog_open, or its
 * first after its ring was retired as idle), and again by the back end for
 * every living thread once a second and at the end of every xlog_flush(),
 * after the messages it writes.  So: a message written by an xlog_flush()
 * that returned before a rename has the old name; a message logged after an
 * xlog_flush() that was called after the rename has the new one; without a
 * flush, the new name appears within about a second, and the messages logged
 * just before the rename that the back end had not written yet when it read
 * the new name show the new name too.  A line of xlog's own (a notice) has
 * the name of the thread it is about; recovered lines (after a kill) have
 * the last name the back end had read.  An empty name gives an empty
 * {thread} and no thread.name.
 *
 * XLOG_LAYOUT_BINARY (the files only: cfg.file_layout) writes no text: each
 * message's arguments go to the file as the call left them, with a
 * dictionary of the call sites, and `xlog-cat` turns them into the lines
 * the text layout (or, with --json, the JSON layout) would have written.
 * The files are named as the text files with ".xlog" for ".log":
 * YYYY-MM-DD.xlog (shared), YYYY-MM-DD-<tid>.xlog (per thread),
 * YYYY-MM-DD-p<pid>.xlog (per process); a size rotation makes
 * YYYY-MM-DD.1.xlog, ... (so that the pattern *.xlog names them all), and
 * compression YYYY-MM-DD.1.xlog.gz.  Each write(2) is one self-contained
 * block (the process that wrote it, the call sites and threads its records
 * use), so several processes may share a file, any rotated file reads
 * alone, and a file cut by a kill reads up to the cut.  Rotation,
 * retention, compression, reopening, the crash flush work as for text; a
 * file passes rotate_size only by a block longer than it.  The format is
 * docs/BINARY.md.  The console and the extra sinks take no binary layout:
 * xlog_open fails with -EINVAL (xlog_last_error() says which setting).
 * Recovery after kill -9 (persistent_dir) writes what a binary process's
 * buffers held as they were, and each record left in its rings as a block
 * of its own holding the rendered line (a Message entry); xlog_recover
 * counts only the latter among the lines it returns. */
typedef enum xlog_layout_kind {
    XLOG_LAYOUT_TEXT = 0,
    XLOG_LAYOUT_JSON = 1,
    XLOG_LAYOUT_BINARY = 2
} xlog_layout_kind;

/* ------------------------------------------------------------------------ */
/* Extra sinks: syslog, and your own                                        */
/* ------------------------------------------------------------------------ */

/* What every sink's configuration starts with.  Each kind of sink has a
 * configuration of its own whose first member is this one; xlog_config.sinks
 * lists pointers to those members:
 *
 *     ```c fragment
 *     xlog_syslog_config to_rsyslog = xlog_syslog_defaults();
 *     to_rsyslog.transport = XLOG_SYSLOG_TCP;
 *     to_rsyslog.address = "127.0.0.1:514";
 *     to_rsyslog.sink.level = XLOG_WARN;
 *     const xlog_sink_config *sinks[] = {&to_rsyslog.sink, NULL};
 *     xlog_config cfg = xlog_defaults();
 *     cfg.sinks = sinks;
 *     ```
 *
 * xlog_open copies what it needs: the configurations (and their strings)
 * need not outlive the call. */
typedef struct xlog_sink_config {
    /* Which kind of sink this is; set by its defaults function (do not
     * change it). */
    int kind;
    /* Messages below this level are not sent to this sink.  Default
     * XLOG_TRACE. */
    int level;
    /* How a message becomes bytes for this sink, and the pattern of a text
     * layout (NULL for the sink's default).  See "Layouts" above. */
    xlog_layout_kind layout;
    const char *pattern;
    /* Which modules and levels this sink takes, as a filter string in the
     * syntax of XLOG_LEVEL ("Levels, modules and filters" below):
     * "off,http.access=info" (the access log only), "error" (every
     * module's errors), "warn,storage=debug".  Where it names no level
     * alone, the sink's level is its level for the modules no rule covers;
     * its module rules may go below that level.  NULL (the default): the
     * messages at or above the sink's level that the program's rules
     * (cfg.level, XLOG_LEVEL, xlog_set_filter, xlog_set_module_level) let
     * through, the rules in force when the message was logged.  A sink's filter is its own: the program's rules do not
     * narrow it, and a thread's own threshold (xlog_thread_level) does not
     * widen it.  A call is let through in the caller's code when any sink
     * may want it (the floor and each call site's cached decision follow
     * the most permissive of the program's rules and every sink's filter),
     * and the back end gives each sink its share: a filter costs the
     * caller nothing, but a line that only a sink's filter wants costs
     * what any written line costs, and while a sink has a filter, the
     * back end also looks each line's module up in the program's rules
     * (for the sinks without one).  A filter with a mistake makes xlog_open
     * fail with -EINVAL, and xlog_last_error() names the sink and the
     * column ("cfg.sinks[0] (syslog): filter=\"warn,net=loud\": \"loud\"
     * at column 10 is not a level ...").  The filters of all sinks may name
     * at most 192 modules in all. */
    const char *filter;
} xlog_sink_config;

/* The kinds of sink (xlog_sink_config.kind). */
enum { XLOG_SINK_SYSLOG = 1, XLOG_SINK_CUSTOM = 2, XLOG_SINK_FILE = 3 };

/* ---- syslog --------------------------------------------------------------
 * Messages go to a syslog collector (rsyslog, syslog-ng, journald, Fluent
 * Bit, Vector, the OpenTelemetry Collector) through the local socket, UDP or
 * TCP.  The sink has a buffer and a thread of its own: a collector that is
 * down or slow never makes a caller, the back end or the files wait.  What
 * does not fit in the buffer is dropped and counted
 * (xlog_counters.syslog_dropped); once delivery works again, the collector
 * gets a message saying how many were dropped.  A message that could not be
 * sent stays queued and is sent again once the connection is opened again
 * (after 100 ms, then waiting twice as long after each failure, up to 5 s),
 * so a short outage loses nothing.  Messages already handed to the kernel,
 * or inside the collector, when the collector dies may be lost without a
 * count, over every transport (a socket does not tell the sender what the
 * peer read).  At a crash, messages still queued for syslog are not sent.
 *
 * The header: RFC 5424 has the time in UTC with microseconds ("Z"), the
 * host name, APP-NAME and the pid; RFC 3164 has the local time without a
 * year, the host name over UDP and TCP (not over the local socket, as
 * syslog(3) does), and TAG[pid].  rsyslog reads RFC 5424 from its local
 * socket only with imuxsock's UseSpecialParser="off". */
typedef enum xlog_syslog_transport {
    XLOG_SYSLOG_UNIX = 0, /* a local datagram socket: address is its path */
    XLOG_SYSLOG_UDP = 1,  /* address is "host:port" */
    XLOG_SYSLOG_TCP = 2   /* address is "host:port"; RFC 6587 octet counting */
} xlog_syslog_transport;

typedef enum xlog_syslog_format {
    /* RFC 3164 on XLOG_SYSLOG_UNIX (what /dev/log readers expect: local
     * time, no year), RFC 5424 otherwise. */
    XLOG_SYSLOG_AUTO = 0,
    XLOG_SYSLOG_RFC5424 = 1,
    XLOG_SYSLOG_RFC3164 = 2
} xlog_syslog_format;

typedef struct xlog_syslog_config {
    /* kind XLOG_SINK_SYSLOG; the default layout is the pattern "{message}"
     * (time, host, program, pid and severity are in the syslog header). */
    xlog_sink_config sink;
    xlog_syslog_transport transport; /* default XLOG_SYSLOG_UNIX */
    /* The socket's path (default "/dev/log"), or "host:port" for UDP and TCP
     * (default "127.0.0.1:514"); NULL means the transport's default.  Plain
     * syslog is on port 514 over UDP and, by custom (rsyslog's imtcp,
     * syslog-ng), over TCP; 601 is IANA's port for syslog over TCP, which
     * some collectors use.  Not 6514: that is syslog over TLS, which this
     * sink does not speak.  A host name is resolved by the sink's own
     * thread: prefer a numeric address, which never waits for DNS. */
    const char *address;
    xlog_syslog_format format;       /* default XLOG_SYSLOG_AUTO */
    /* Facility, 0 to 23 (default 1, "user"); severity follows the level:
     * TRACE and DEBUG 7, INFO 6, WARN 4, ERROR 3, FATAL 2. */
    int facility;
    /* APP-NAME / TAG (default: the program's name); HOSTNAME (default:
     * gethostname()). */
    const char *app_name;
    const char *hostname;
    /* Bytes of messages kept while the collector is slow or down.  Default
     * 1 MiB; at least 64 KiB. */
    size_t buffer;
} xlog_syslog_config;

xlog_syslog_config xlog_syslog_defaults(void);

/* ---- more files -----------------------------------------------------------
 * Files of their own, beside the files of xlog_config: an access log, the
 * errors of every module, one module's debug lines, each with its
 * directory, prefix, layout, level, filter, rotation and retention.  They
 * are files as the main ones are (xlog_config's "Rotation" tells how they
 * rotate, are compressed, checked and reopened; file_mode how they are
 * shared), written by the back end in large blocks; their lines survive a
 * kill as the main files' do (cfg.persistent), recovered into these files
 * by their own layout, prefix and filter; several processes may share
 * them.  What they share with the main files: rotate_local_time,
 * follow_symlinks, write_buffer, flush_interval_ms, check_interval_ms and
 * max_message.
 *
 *     ```c fragment
 *     xlog_file_config access = xlog_file_defaults();
 *     access.sink.filter = "off,http.access=info";
 *     access.prefix = "access";             // access-2026-11-22.log
 *     xlog_file_config errors = xlog_file_defaults();
 *     errors.sink.filter = "error";         // every module's errors
 *     errors.prefix = "errors";
 *     errors.sink.layout = XLOG_LAYOUT_JSON;
 *     const xlog_sink_config *sinks[] = {&access.sink, &errors.sink, NULL};
 *     xlog_config cfg = xlog_defaults();
 *     cfg.sinks = sinks;
 *     ```
 *
 * Two sets of files (the main ones, or another listed file sink) may not
 * have the same directory and prefix: xlog_open refuses it, since each
 * would take the other's files for its own (names, retention). */
typedef struct xlog_file_config {
    /* kind XLOG_SINK_FILE; level and filter as every sink's; layout
     * XLOG_LAYOUT_TEXT (default: the default line, or pattern),
     * XLOG_LAYOUT_JSON or XLOG_LAYOUT_BINARY (.xlog files). */
    xlog_sink_config sink;
    /* The directory (created with its parents, mode 0750, if missing), or
     * NULL (the default) for the main files' (cfg.dir, after XLOG_DIR). */
    const char *dir;
    /* Before the date in every name, as cfg.file_prefix: "access" gives
     * access-2026-11-22.log.  NULL (the default): names start with the
     * date. */
    const char *prefix;
    /* As cfg.file_mode.  Default XLOG_FILE_SHARED. */
    xlog_file_mode mode;
    /* As cfg.rotate_hourly: non-zero for a file per hour.  Default 0. */
    int rotate_hourly;
    /* As cfg.rotate_size (0, the default: none; else at least 64 KiB),
     * cfg.rotate_keep (default 10), cfg.keep_days (default 0: keep every
     * day) and cfg.compress (default XLOG_COMPRESS_NONE). */
    size_t rotate_size;
    unsigned rotate_keep;
    unsigned keep_days;
    xlog_compress compress;
} xlog_file_config;

/* A file sink's defaults: every field as documented above (level
 * XLOG_TRACE, no filter: every line the program's rules let through). */
xlog_file_config xlog_file_defaults(void);

/* ---- your own sink ---------------------------------------------------------
 * A sink of your own gets every message at or above its level, as an event
 * and as the bytes of its layout.  Its functions run on xlog's back-end
 * thread, one at a time, so they need no lock of their own; but they must
 * not block (the back end writes every other output too: hand slow work to
 * a thread of your own) and must not log (a log call made from them is
 * dropped and counted in xlog_counters.dropped_nested).  Nor can they call
 * what waits for the back end or stops it: xlog_open, xlog_close,
 * xlog_flush and xlog_recover called from any of a sink's functions (open
 * and close included, which run on the thread of xlog_open and
 * xlog_close), or from cfg.wall_clock_ns on the back end, do nothing and
 * return -EDEADLK, counted in xlog_counters.backend_calls_refused
 * (xlog_reopen, which only sets a flag, works; xlog_context_set and
 * xlog_context_clear return -EBUSY, as a log call is dropped there; the
 * other functions may be called).
 * examples/custom_sink.c shows one. */

/* One message, as a sink receives it.  The pointers are valid during the
 * call only.  file, function and module are NUL-terminated; a name longer
 * than 1024 bytes is cut to its first 1024 bytes or fewer, ending between
 * two UTF-8 characters, as every line shows it, and as recovery writes it
 * for a process that was killed (xlogout's file and function too). */
typedef struct xlog_event {
    int64_t time_ns;      /* UTC, nanoseconds since 1970-01-01 */
    int level;            /* XLOG_TRACE ... XLOG_FATAL */
    int pid;
    int tid;              /* kernel thread id */
    const char *file;     /* as the call site named it (__FILE__, or xlogout's) */
    int line;
    const char *function;
    const char *module;   /* XLOG_MODULE of the call site, "" when none */
    const char *format;   /* the printf format */
    /* The message, exactly as printf would format it (cut at max_message,
     * then ending in XLOG_TRUNCATED_MARK): NOT escaped, so it may hold any
     * byte, newlines included; message[message_length] is 0. */
    const char *message;
    size_t message_length;
} xlog_event;

typedef struct xlog_custom_sink {
    xlog_sink_config sink;   /* kind XLOG_SINK_CUSTOM; default layout: the default line */
    void *context;           /* given to each function */
    /* At xlog_open (optional): 0, or a negative errno that makes xlog_open
     * fail. */
    int (*open)(void *context);
    /* Each message: the event, and the bytes of the sink's layout (a whole
     * line, ending in '\n'). */
    void (*write)(void *context, const xlog_event *event, const char *bytes, size_t length);
    /* xlog_flush() and xlog_close() (optional): make what was written
     * durable or visible. */
    void (*flush)(void *context);
    /* At xlog_close (optional), after the last write and flush. */
    void (*close)(void *context);
} xlog_custom_sink;

xlog_custom_sink xlog_custom_sink_defaults(void);

/* Everything xlog_open() can be told.  Always start from xlog_defaults() and
 * change the fields you need, so that fields added later keep their
 * defaults. */
typedef struct xlog_config {
    /* Directory of the log files; created (with its parents, mode 0750) if
     * missing.  Default "logs".  The environment variable XLOG_DIR, when set
     * and non-empty, overrides it (see use_environment). */
    const char *dir;

    /* How messages are spread over files.  Default XLOG_FILE_SHARED. */
    xlog_file_mode file_mode;

    /* Initial process-wide threshold (XLOG_TRACE ... XLOG_OFF).  Default
     * XLOG_INFO.  XLOG_LEVEL in the environment, a filter string such as
     * "warn" or "info,net=debug" (see "Levels, modules and filters"),
     * overrides it (see use_environment). */
    int level;

    /* Bytes in each thread's ring; rounded up to a power of two, at least
     * 64 KiB.  Default 1 MiB.  This bounds the memory a burst can take: a
     * thread never holds more than this much unwritten data. */
    size_t ring_size;

    /* What a call does when its ring is full.  Default XLOG_FULL_BLOCK. */
    xlog_full_policy full_policy;

    /* Longest message text, in bytes, after formatting (the line prefix is not
     * counted).  A longer message, or a string argument that alone is longer,
     * is cut and ends with XLOG_TRUNCATED_MARK.  At least 256, at most
     * ring_size / 4.  Default 16 KiB. */
    size_t max_message;

    /* Bytes the back end gathers for one file before it writes them with one
     * write(2).  At least 4 KiB.  Default 256 KiB.  When a write fails (a
     * full disk), its bytes stay in this buffer and are tried again at most
     * every 100 ms; only when newer lines need the room are they given up
     * (counted in xlog_counters.lost, and announced in the file once writing
     * works again). */
    size_t write_buffer;

    /* Longest time, in milliseconds, that a formatted line may wait in the
     * back end's buffer before it is written when the load is light.  Under
     * load, buffers are written as they fill.  Default 20.  However long,
     * the back end sleeps no longer than until a buffer falls due (see
     * idle_sleep_us). */
    unsigned flush_interval_ms;

    /* How long the back end sleeps, in microseconds, when it finds every ring
     * empty after it has found work.  The caller never waits for it.
     * Default 500.  Under light traffic (each pass finds every ring less than
     * a sixteenth full) each such sleep doubles the next, up to 8 ms or half
     * flush_interval_ms, whichever is shorter (never below idle_sleep_us):
     * the back end dozes, reading the rings, and so the lines the callers
     * write, less often.  A line then waits that long at most in its ring
     * before it is formatted, and flush_interval_ms at most after that.  A
     * pass that finds a ring a sixteenth full, xlog_flush(), xlog_reopen(),
     * or a thread whose ring gets half full ends the doze at once.  After
     * flush_interval_ms (at most 250) and 30 ms more with nothing to do,
     * the back end sleeps until its next timer instead (250 ms, or
     * check_interval_ms if shorter; the flush interval too where the kernel
     * lacks membarrier(2); or when a buffer falls due, if sooner), so an
     * idle program wakes a few times a second; the first message logged
     * then wakes it at once (one futex call, made only by that first
     * call). */
    unsigned idle_sleep_us;

    /* Non-zero: XLOG_LEVEL (a filter string: "Levels, modules and
     * filters" below) and XLOG_DIR in the environment override level (and
     * set module rules) and dir, for operators, and XLOG_CONFIG names the
     * configuration file (in place of config_file).  Default 1. */
    int use_environment;

    /* A configuration file read by xlog_open over this configuration (see
     * "Configuration file" below), or NULL (the default) for none.  A field
     * rather than a function of its own, so that a program keeps one way to
     * open xlog: what a file cannot say (wall_clock_ns, custom sinks) stays
     * in the configuration the file is applied over. */
    const char *config_file;

    /* Backtrace on error: with backtrace_lines > 0, each thread keeps its
     * last backtrace_lines messages that are below the level written but at
     * or above backtrace_level, and writes them (oldest first, each marked
     * "[backtrace] ", with their own times) just before its next ERROR or
     * FATAL message, or on xlog_dump_backtrace().  A kept message costs the
     * caller what a written one does; the back end keeps its text (memory:
     * up to backtrace_lines messages per thread that has kept any).
     * Default 0 (off); backtrace_level default XLOG_TRACE. */
    unsigned backtrace_lines;
    int backtrace_level;

    /* Flush on level: a message at or above flush_level makes the back end
     * write every buffer (files and the other sinks) as soon as it has
     * written that message, so that the line before a crash or an alert is
     * in the file; at or above sync_level, it also makes the files durable
     * (fdatasync).  The caller never waits for either.  Default XLOG_OFF
     * (neither). */
    int flush_level;
    int sync_level;

    /* The wall clock xlog calibrates its timestamps against, in nanoseconds
     * since the Unix epoch (UTC).  NULL (the default) means
     * clock_gettime(CLOCK_REALTIME).  For tests and simulations: the clock is
     * read again when the back end re-synchronises (about once a second and
     * on every xlog_flush()). */
    int64_t (*wall_clock_ns)(void);

    /* Non-zero: xlog_open installs handlers for SIGSEGV, SIGBUS, SIGFPE,
     * SIGILL and SIGABRT that write every message already logged, and a last
     * line naming the signal, before the program's own handler or the default
     * action (core dump) proceeds.  Every thread that logs also gets an
     * alternate signal stack (if it has none), so a stack overflow is caught
     * too.  exit() without xlog_close() loses nothing either way (atexit).
     * Default 1. */
    int crash_handlers;

    /* Non-zero: each thread's ring, and the files' buffers, are files in
     * shared memory (persistent_dir), so that the lines of a process that
     * ends without xlog_close -- kill -9, the OOM killer, a watchdog, exec,
     * _exit -- survive it: a process that has the same dir open writes
     * them within about a second of the death (its back end looks for the
     * processes of dir that are gone, forked children that _exit included,
     * and so does its xlog_close, which leaves nothing of them behind),
     * else the next xlog_open of the same dir (or xlog_recover(), or the
     * xlog-recover program) does; exactly once, with a line saying from
     * which process they come, and by which they were recovered.  A log call
     * costs what it costs without it; a ring's first burst may reserve its
     * longer laps' pages in the log call that lengthens them (at most six
     * times in a ring's life: docs/BENCHMARKS.md).  If the directory cannot be used, xlog works as
     * with 0 and its first line says why (for a directory that is not this
     * user's alone, exactly what was found: "<dir>: mode 0755 is open to
     * others (it must be 0700)", "<dir> belongs to uid 0, not to this user
     * (uid 1000)", "<dir> is a symbolic link").  When it is full, nothing
     * crashes: a page is reserved there before it is written (a file
     * buffer whole when it is made; a ring the pages of the laps its
     * thread has used, 36 KiB at first, up to ring_size during bursts),
     * and a ring or buffer that cannot have its first room is made in
     * ordinary memory (xlog_counters.not_persistent); a ring whose lap
     * cannot grow goes on in the lap it has (xlog_counters.laps_not_grown;
     * docs/RELIABILITY.md, "Survival").
     * A power loss takes shared memory with it.  xlog_close removes the
     * process's files.  Default 1. */
    int persistent;

    /* Where those files live: a directory of this user only (mode 0700;
     * made if missing; refused if it is a link, another user's, or open to
     * others).  NULL (the default): /dev/shm/xlog-<uid>. */
    const char *persistent_dir;

    /* Zero: refuse to write through a symbolic link: neither the log
     * directory itself (its last component as given, trailing slashes
     * ignored) nor a log file may be one.  Each file is opened in a
     * descriptor of the directory opened with O_NOFOLLOW, so no link can be
     * swapped in between a check and the open; xlog_open fails with -ELOOP
     * in every file_mode, and a later open that meets a link fails the same
     * way (its lines are counted in lost).  Links among the directory's
     * parents are followed: they must be trusted (owned by root or the
     * program's user, writable by no one else).  Default 1. */
    int follow_symlinks;

    /* ---- Rotation ---------------------------------------------------------
     * A file changes name when its day changes (see rotate_local_time) and,
     * with rotate_size, is renamed when it grows too big: 2026-11-22.log
     * becomes 2026-11-22.log.1 (the .1 becomes .2, and so on) and a new
     * 2026-11-22.log is created (binary files: 2026-11-22.xlog becomes
     * 2026-11-22.1.xlog).  Files are renamed, never copied and
     * truncated, so no line is lost.  Processes sharing a file (or directory)
     * coordinate with a lock on the directory held only around the renames;
     * a process that had the file open notices the rotation before its next
     * write(2) (or within check_interval_ms when idle).  docs/OUTPUTS.md
     * tells the whole story. */

    /* Size in bytes at which a file is rotated: a write that would take the
     * file past it is split at the last whole line that fits; the file is
     * renamed and a new one takes the rest.  A file is bigger only when it
     * holds a single line longer than rotate_size (alone), or when processes
     * sharing it looked at its size at the same moment.  0 (the default): no
     * size rotation; otherwise at least 64 KiB. */
    size_t rotate_size;

    /* Rotated files kept of each name: .1 (the newest) to .rotate_keep,
     * compressed or not; a rotation removes what would go beyond (and
     * anything already numbered beyond it).  1 to 100000.  Default 10. */
    unsigned rotate_keep;

    /* Days of old files kept: when a file moves to a new day (and at
     * xlog_open), the files of earlier days are removed, except those of the
     * keep_days most recent earlier dates that have files.  Only names that
     * xlog makes in this file_mode, with this file_prefix and rotate_hourly
     * are touched ([<prefix>-]YYYY-MM-DD[-HH][-<id>].log, with .N and
     * .gz).  0 (the default) keeps every day. */
    unsigned keep_days;

    /* Non-zero: the date in file names, and so the change of file at
     * midnight, follow local time (TZ, read at xlog_open) instead of UTC.
     * The times in the lines stay UTC.  Default 0. */
    int rotate_local_time;

    /* A name of the program's own for its files, before the date:
     * "myapp" gives myapp-2026-11-22.log (myapp-2026-11-22-<tid>.log per
     * thread, myapp-2026-11-22-p<pid>.log per process, myapp-2026-11-22.xlog
     * binary; rotated myapp-2026-11-22.log.1, compressed ...log.1.gz), so
     * that programs sharing a directory keep their files apart: retention
     * (keep_days) and recovery touch only the names of this prefix.
     * Letters, digits, '_', '-' and '.' (not first), at most 127 bytes.
     * NULL (the default): names start with the date. */
    const char *file_prefix;

    /* Non-zero: a file per hour, named with the hour after the date:
     * 2026-11-22-14.log (myapp-2026-11-22-14.log with file_prefix;
     * 2026-11-22-14-<tid>.log per thread), changing name on the hour (of
     * UTC, or of local time with rotate_local_time).  Size rotation,
     * compression and recovery work on these names as on daily ones;
     * keep_days still counts days (the hours of the keep_days most recent
     * earlier dates are kept).  Default 0: a file per day. */
    int rotate_hourly;

    /* Compression of rotated files (the .N files, and a day's file once the
     * next day's is begun): XLOG_COMPRESS_GZIP turns <name> into <name>.gz
     * on a thread of xlog's own, never on a caller or the back end.  With
     * XLOG_FILE_SHARED it starts 2 x check_interval_ms after the rotation,
     * when every process has moved to the new file; xlog_close waits for the
     * compressions queued.  A compression touches only the file it was
     * queued for (it holds that file open from its rotation); a file that
     * retention removes first is not compressed.  At most a quarter of
     * RLIMIT_NOFILE (at least 64) wait at a time; beyond that, rotated files
     * stay uncompressed.  Default XLOG_COMPRESS_NONE. */
    xlog_compress compress;

    /* How often, in milliseconds, the back end checks that each file's name
     * still leads to the file it writes: if logrotate, an operator or
     * another process's rotation renamed or deleted it, xlog opens the name
     * again (a stat and an fstat per file, never per line).  Each file's
     * name is also checked before every write(2); this interval is what
     * lets go of idle files.  1 to 86400000 (a day).  Default 1000. */
    unsigned check_interval_ms;

    /* ---- Console ----------------------------------------------------------
     * Lines can also be shown on a console: a terminal, a pipe, a socket, a
     * file.  It has a buffer and a thread of its own, so a console that
     * stops reading never makes a caller wait and never delays the files:
     * when its buffer is full, its lines are dropped and counted
     * (xlog_counters.console_dropped), and once there is room the console
     * shows "xlog: N console lines dropped" where they are missing.
     * xlog_flush does not wait for the console; xlog_close gives it up to a
     * second to take what is left.  Same line layout as the files. */

    /* Where lines are shown: 0 (the default) for nowhere, 1 (STDOUT_FILENO),
     * 2 (STDERR_FILENO), or any descriptor open for writing; xlog writes to
     * its own reopening of a terminal or a pipe (so O_NONBLOCK there does not
     * touch the application's descriptor) and never closes the one given. */
    int console;

    /* Lines below this level are not shown on the console (they still go to
     * the files).  Default XLOG_TRACE: every line written is shown. */
    int console_level;

    /* Bytes of the console's buffer; at least 64 KiB, raised to hold the
     * longest line.  Default 1 MiB. */
    size_t console_buffer;

    /* Colour by level (WARN yellow, ERROR red, FATAL bold red, TRACE and
     * DEBUG dim).  Default XLOG_COLOR_AUTO. */
    xlog_color console_color;

    /* The console's layout and pattern ("Layouts" above).  Default
     * XLOG_LAYOUT_TEXT with the default line. */
    xlog_layout_kind console_layout;
    const char *console_pattern;

    /* ---- The files' layout ------------------------------------------------ */

    /* Default XLOG_LAYOUT_TEXT with the default line; a pattern, JSON
     * lines, or XLOG_LAYOUT_BINARY (.xlog files, read with xlog-cat; the
     * pattern is not used).  Messages below file_level are not written to the files (they
     * may still go to the console or another sink).  Default XLOG_TRACE. */
    xlog_layout_kind file_layout;
    const char *file_pattern;
    int file_level;

    /* ---- Extra sinks ------------------------------------------------------ */

    /* A NULL-terminated list of the extra sinks (syslog, your own), or NULL
     * for none.  See "Extra sinks" above. */
    const xlog_sink_config *const *sinks;
} xlog_config;

/* Shown at the end of a message that was cut at max_message. */
#define XLOG_TRUNCATED_MARK "...[truncated]"

/* The default configuration (every field as documented above). */
xlog_config xlog_defaults(void);

/* ------------------------------------------------------------------------ */
/* Configuration file                                                       */
/* ------------------------------------------------------------------------ */

/* Operators can change xlog_config, the syslog sinks and the listed files
 * without a rebuild:
 * xlog_open reads a configuration file when XLOG_CONFIG=/path/to/file is in
 * the environment (and cfg.use_environment is set), else the file named by
 * cfg.config_file, if any.  examples/xlog.conf shows every key.
 *
 *     ```c fragment
 *     xlog_config cfg = xlog_defaults();
 *     cfg.dir = "logs";                              // the program's own
 *     cfg.config_file = "/etc/myservice/xlog.conf";  // applied over it
 *     if (xlog_open(&cfg) != 0)
 *         fprintf(stderr, "%s\n", xlog_last_error()); // file:line:column: what
 *     ```
 *
 * Precedence, lowest first: the program's xlog_config; the file, key by key
 * (a key the file does not name keeps the program's value); XLOG_DIR and
 * XLOG_LEVEL, which override dir and both level and filter.
 *
 * The format, line by line (lines end in LF or CR LF; a UTF-8 byte order
 * mark at the start is skipped; a line holds at most 4096 bytes):
 *
 *     # a comment: from '#' to the end of the line
 *     key = value           # blanks (spaces, tabs) around '=' are ignored
 *     [console]             # the keys below belong to the console
 *     [syslog central]      # a syslog sink named "central"
 *     [file access]         # a file sink (xlog_file_config) named "access"
 *
 * Keys given before the first section are xlog_config's; the keys of a
 * section belong to it, up to the next section.  Keys and section kinds are
 * lower case, as listed below.  A key may be given once per section; a
 * section once (by kind and name).  Section names: letters, digits, '_',
 * '-' and '.', at most 64 bytes; at most 30 sink sections ([syslog NAME]
 * and [file NAME] together).
 *
 * Values: a bare value runs from the first non-blank after '=' to the end
 * of the line or to a '#', without its trailing blanks; it may hold blanks
 * and quotes (pattern = {time} [{level}] "{message}").  A value that begins
 * with '"' is quoted: it ends at the next '"', and inside it \" is a quote
 * and \\ a backslash (no other escape); only blanks and a comment may
 * follow it.  Quote a value that holds a '#', begins or ends with a blank,
 * begins with '"', or is empty ("").  No value may hold a control character
 * other than a tab.  The kinds of value:
 *
 *     level     trace, debug, info, warn (or warning), error (or err),
 *               fatal, off; in any case
 *     boolean   true or false
 *     number    decimal digits
 *     size      a number of bytes, or a number followed by K, M or G
 *               (1K = 1024 bytes): 65536, 64K, 1M
 *     duration  a number in the key's unit (_ms: milliseconds, _us:
 *               microseconds), or followed by us, ms, s, m or h: 250ms,
 *               2s; it must come to a whole number of the key's unit
 *     string    any text (paths, addresses, names)
 *     pattern   a text layout's pattern ("Layouts" above), checked here
 *     filter    a filter string, as XLOG_LEVEL ("Levels, modules and
 *               filters" below), checked here
 *     a name    one of those listed, as written
 *
 * Keys before any section (xlog_config's field of the same name, which
 * documents it; the range is what xlog_open accepts):
 *
 *     dir                string
 *     file_mode          shared, per_thread or per_process
 *     level              level
 *     filter             a filter string, as XLOG_LEVEL ("Levels, modules
 *                        and filters" below): "info,net=debug"; it is made
 *                        the rules in force at xlog_open, with level as the
 *                        process-wide level where it names none (no field)
 *     ring_size          size, 64K to 1G
 *     full_policy        block or drop
 *     max_message        size, 256 to 256M (and ring_size / 4)
 *     write_buffer       size, at least 4K
 *     flush_interval_ms  duration
 *     idle_sleep_us      duration
 *     backtrace_lines    number, 0 to 100000
 *     backtrace_level    level
 *     flush_level        level
 *     sync_level         level
 *     crash_handlers     boolean
 *     persistent         boolean
 *     persistent_dir     string
 *     follow_symlinks    boolean
 *     rotate_size        size, 0 or at least 64K
 *     rotate_keep        number, 1 to 100000
 *     keep_days          number
 *     rotate_local_time  boolean
 *     file_prefix        string: letters, digits, '_', '-' and '.' (not
 *                        first), at most 127 bytes
 *     rotate_hourly      boolean
 *     compress           none or gzip
 *     check_interval_ms  duration, 1 to 86400000 (a day)
 *     file_layout        text, json or binary
 *     file_pattern       pattern
 *     file_level         level
 *
 * [console] (the console_* fields of xlog_config; the console is shown only
 * where output says, or the program's cfg.console):
 *
 *     output    off, stdout, stderr or a descriptor number (cfg.console)
 *     level     level (cfg.console_level)
 *     buffer    size, at least 64K (cfg.console_buffer)
 *     color     auto, never or always (cfg.console_color)
 *     layout    text or json (cfg.console_layout)
 *     pattern   pattern (cfg.console_pattern)
 *
 * [syslog NAME] (a syslog sink, added after the program's cfg.sinks; its
 * xlog_syslog_config starts from xlog_syslog_defaults(); NAME is only the
 * section's):
 *
 *     level      level (sink.level)
 *     filter     filter (sink.filter)
 *     layout     text or json (sink.layout)
 *     pattern    pattern (sink.pattern)
 *     transport  unix, udp or tcp
 *     address    string: a socket's path, or host:port
 *     format     auto, rfc5424 or rfc3164
 *     facility   0 to 23, or kern, user, mail, daemon, auth, syslog, lpr,
 *                news, uucp, cron, authpriv, ftp, local0 ... local7
 *     app_name   string
 *     hostname   string
 *     buffer     size, at least 64K
 *
 * [file NAME] (a file sink, added after the program's cfg.sinks in the
 * file's order with the [syslog NAME] sections; its xlog_file_config
 * starts from xlog_file_defaults(); NAME is only the section's):
 *
 *     level          level (sink.level)
 *     filter         filter (sink.filter)
 *     layout         text, json or binary (sink.layout)
 *     pattern        pattern (sink.pattern)
 *     dir            string (NULL, the main files' directory, if not given)
 *     prefix         string, as file_prefix
 *     mode           shared, per_thread or per_process
 *     rotate_hourly  boolean
 *     rotate_size    size, 0 or at least 64K
 *     rotate_keep    number, 1 to 100000
 *     keep_days      number
 *     compress       none or gzip
 *
 * Not in a file: use_environment and config_file (the operator's
 * environment always has the last word, and a file names no other file),
 * wall_clock_ns (a function) and custom sinks (xlog_custom_sink: code);
 * a program passes them in its xlog_config, and the file's settings are
 * applied over it.
 *
 * A file with a mistake is refused whole: nothing of it is applied and
 * xlog_open fails with -EINVAL; xlog_last_error() says where, as
 * "<path>:<line>:<column>: <what>" (columns count bytes from 1), e.g.
 *
 *     xlog.conf:3:1: unknown key "levle"
 *     xlog.conf:4:15: rotate_keep: "0" is not between 1 and 100000
 *     xlog.conf:5:13: ring_size: "32K" is not between 64K and 1G
 *     xlog.conf:6:1: level given twice (first on line 2)
 *     xlog.conf:7:2: unknown section [files] (console, syslog NAME or file
 *         NAME)
 *     xlog.conf:8:1: dir is not a key of a section: it goes before the
 *         first section
 *     xlog.conf:9:7: "=" missing after the key "level"
 *     xlog.conf:10:7: unterminated quoted string
 *     xlog.conf:11:4097: line longer than 4096 bytes
 *     xlog.conf:12:10: filter="warn,net=loud": "loud" at column 10 is not a
 *         level (trace, debug, info, warn or warning, error or err, fatal
 *         or off)
 *
 * and for a file that cannot be read, "<path>: cannot read: <the system's
 * reason>" ("No such file or directory", "Is a directory", "Permission
 * denied"; also "not a regular file"); a file longer than 1 MiB is
 * refused.  What only xlog_open or a sink can check (a directory that
 * cannot be made, max_message above ring_size / 4, a syslog address that is
 * not host:port) is reported as for a program's configuration.
 *
 * A path in a file is taken as the field takes it: a relative dir is
 * relative to the current directory at xlog_open, not to the file's.  The
 * strings and sinks the file gives are xlog's until xlog_close.
 *
 *     # /etc/myservice/xlog.conf
 *     dir = /var/log/myservice
 *     level = info
 *     filter = info,storage=debug
 *     rotate_size = 64M
 *     keep_days = 14
 *     compress = gzip
 *     file_pattern = "{time:iso} {level} [{module}] {message}"
 *
 *     [console]
 *     output = stderr
 *     level = warn
 *
 *     [syslog central]
 *     transport = tcp
 *     address = 10.0.0.5:514
 *     level = error
 *
 *     [file access]
 *     prefix = access
 *     filter = off,http.access=info
 *     pattern = "{time:iso} {message}"
 */

/* ------------------------------------------------------------------------ */
/* Life cycle                                                               */
/* ------------------------------------------------------------------------ */

/* Starts logging: applies the configuration file over cfg (NULL means the
 * defaults) if XLOG_CONFIG or cfg->config_file names one (see
 * "Configuration file"), checks the result, creates the directory, opens
 * the first file and starts the back-end thread.  Returns 0,
 * or a negative errno value: -EINVAL for a bad field (a cfg.console that
 * is not an open descriptor included) or a configuration file that cannot
 * be read or has a mistake (nothing of it applied), -EALREADY if xlog is already open,
 * or the error of mkdir/open (never -EBADF, which means "xlog is not
 * open" wherever it is returned).  xlog_strerror(rc) explains the
 * code and xlog_last_error() names the field or file.  A relative cfg.dir
 * is made absolute here, against the current directory: a later chdir()
 * does not move the logs.  Messages logged before xlog_open are not
 * written: those the level lets through (before the first xlog_open it is
 * XLOG_INFO, cfg.level's default) are counted in
 * xlog_counters.dropped_closing, and the first line after the open says how
 * many there were.
 *
 * -EDEADLK: called from a custom sink's function (see "your own sink"),
 * where it would wait for xlog itself.
 *
 * At exit: exit() (or a return from main) and quick_exit() write everything
 * logged before, also without xlog_close(), and xlog stays open while the
 * program's other exit handlers and destructors run, so what they log is
 * written too (xlog closes itself last, from a destructor of its own). */
int xlog_open(const xlog_config *cfg);

/* Writes every message logged before the call, stops the back end and closes
 * the files.  With xlog_config.persistent, it first writes the lines left by
 * processes of the same dir that have ended without xlog_close (a forked
 * child that _exit()ed), so that nothing of theirs waits for a later
 * process.  Messages logged after (or while) it runs are not written but
 * counted (xlog_counters.dropped_closing); a thread blocked on a full ring is
 * released.  xlog can be opened again, with another configuration: each
 * thread's next message then takes a ring made for it.  Returns 0, -EBADF
 * if xlog was not open, or -EDEADLK (nothing done) when called from a
 * custom sink's function: it would stop the back end that calls it, or wait
 * for its own lock. */
int xlog_close(void);

/* Returns when every message logged before the call, by any thread, has been
 * handed to the kernel with write(2).  Returns 0, -EBADF if xlog is not
 * open, or -EDEADLK (nothing done) when called from a custom sink's
 * function: the back end would wait for itself.  It does not
 * wait for the console (see xlog_config.console), which may be a terminal
 * that is not read.  Then the back end reads every thread's name again
 * ("Thread names", under "Layouts"). */
int xlog_flush(void);

/* Asks xlog to close every log file and open its name again, at the back
 * end's next pass (within idle_sleep_us): for logrotate's postrotate step or
 * an operator's SIGHUP.  Lines not yet written go to the new files.  Only
 * sets a flag and wakes the back end, so it is safe to call from a signal
 * handler.  xlog notices a renamed or deleted file by itself at its next
 * write, or within check_interval_ms; this is for those who want it at
 * once. */
void xlog_reopen(void);

/* Writes the lines that processes which logged into dir left behind when
 * they ended without xlog_close (see xlog_config.persistent), and removes
 * what they left; persistent_dir as in xlog_config (NULL for the default).
 * xlog_open does this by itself for its dir; this is for a program that
 * will not run again, and for tools (the xlog-recover program).  Processes
 * still alive are left alone.  Returns the number of lines recovered, or a
 * negative errno (xlog_last_error() says more); when writing fails (a full
 * disk), what could not be written is kept, and a later call writes it,
 * never a line twice.  -EDEADLK (nothing done) when called from a custom
 * sink's function.
 * What was left is memory the dead process could write to, so nothing in
 * it is trusted: a record, call site or file whose lengths, counts, kinds
 * or offsets do not fit what holds them is skipped, never followed, and a
 * WARN line in the log says what could not be read (e.g. "recovery could
 * not read 1 record and 0 bytes of thread 1234 of process 1200: they do
 * not fit their ring or the call sites; its files are kept in <path>");
 * those files are then kept, as <persistent_dir>/<key>/damaged.<pid>.<n>,
 * for a look (xlog-recover --list names them; remove them when done).
 * Without follow_symlinks, the files are opened as the process did (in an
 * O_NOFOLLOW descriptor of dir): a dir replaced by a symbolic link gives
 * -ELOOP and nothing is written there.  A persistent directory that is not
 * this user's alone is refused with -EPERM (or -ENOTDIR), and
 * xlog_last_error() says what was found, e.g. "<dir>: mode 0755 is open to
 * others (it must be 0700)". */
long xlog_recover(const char *dir, const char *persistent_dir);

/* A readable explanation of a value returned by an xlog function: one text
 * per code, and one meaning per code ("xlog is not open" for -EBADF). */
const char *xlog_strerror(int rc);

/* Why the calling thread's last xlog_open() failed, naming the field or the
 * file ("cfg.ring_size: 1000 is not between 64 KiB and 1 GiB", "cfg.console:
 * descriptor 99 is not open (Bad file descriptor)"); "" after a success.
 * After a call refused with -EDEADLK, which call and why. */
const char *xlog_last_error(void);

/* ------------------------------------------------------------------------ */
/* Levels at run time                                                       */
/* ------------------------------------------------------------------------ */

/* Levels, modules and filters.
 *
 * A message is written when its level is at or above the threshold of its
 * module: the level of the most specific module rule that covers it ("net"
 * covers "net" and "net.tls"; a rule for "net.tls" wins over one for "net"),
 * or the process-wide level when no rule does.  A translation unit names
 * its module by defining XLOG_MODULE before it includes xlog.h:
 *
 *     #define XLOG_MODULE "net.tls"
 *     #include <xlog.h>
 *
 * (none by default: such messages follow the process-wide level).  A
 * thread's own threshold (xlog_thread_level) wins over every rule.  A
 * disabled call costs a load and a compare: its level against the floor,
 * the lowest level any rule or any thread's own threshold lets through.  A
 * call at or above the floor that is then turned down (by a module rule, or
 * because the floor is low for another thread's sake) also reads the
 * thread's own threshold and its call site's cached decision (computed
 * again only after a rule changes).  Module names: letters, digits, '_', '-', and dots between
 * them; at most 63 bytes; at most 64 module rules.
 *
 * Operators set all of it with one string, like RUST_LOG: XLOG_LEVEL in the
 * environment (read at xlog_open), or xlog_set_filter() at run time:
 *
 *     warn,net=debug,net.tls=trace
 *
 * Items are separated by commas: a level alone sets the process-wide level;
 * module=level sets a module's rule.  Blanks (spaces and tabs) before and
 * after an item, and on either side of its '=', are ignored:
 * "WARNING, net.tls = TRACE" is "warn,net.tls=trace"; a blank inside a
 * module name or a level is a mistake.  Levels are trace, debug, info, warn
 * (or warning), error (or err), fatal and off, in any case (the module
 * names' case is kept).  A filter with a mistake is refused as a whole, and
 * xlog_last_error() says where ("filter=\"warn,net=loud\": \"loud\" at
 * column 10 is not a level ..."). */

/* Sets the process-wide level (XLOG_TRACE ... XLOG_OFF); module rules stay.
 * Takes effect for every thread at its next call.  Out-of-range values are
 * clamped. */
void xlog_set_level(int level);

/* The process-wide level: XLOG_INFO (cfg.level's default) until the first
 * xlog_open or xlog_set_level. */
int xlog_get_level(void);

/* Makes filter the rules in force: its level (if it names one) becomes the
 * process-wide level, its module rules replace all others.  0, or -EINVAL
 * (nothing changed; xlog_last_error() says where). */
int xlog_set_filter(const char *filter);

/* Sets the level of one module (and of the modules under it that have no
 * rule of their own), keeping the other rules.  0, or -EINVAL for a bad
 * module name or too many rules (xlog_last_error() says which). */
int xlog_set_module_level(const char *module, int level);

/* Whether a message of this level from this module ("" for none) would be
 * written, by the rules in force (a thread's own threshold aside): the
 * program's rules, or a sink's filter (xlog_sink_config.filter) while
 * xlog is open with one. */
int xlog_module_enabled(const char *module, int level);

/* Sets a threshold for the calling thread only, overriding the process-wide
 * level and every module rule (in either direction):
 * xlog_thread_level(XLOG_TRACE) at the start of a request and
 * xlog_thread_level(XLOG_LEVEL_PROCESS) at its end log exactly that one
 * request in full.  A threshold below every rule lowers the floor (see
 * "Levels, modules and filters") while the thread has it, so that other
 * threads' calls at those levels cost a few loads more until it is dropped
 * (or the thread ends).  It takes the lock of the rules: not for a signal
 * handler. */
void xlog_thread_level(int level);

/* Writes the calling thread's backtrace now (xlog_config.backtrace_lines):
 * the messages below the level written that it has kept, oldest first,
 * each marked "[backtrace] ". */
void xlog_dump_backtrace(void);

/* ------------------------------------------------------------------------ */
/* Context                                                                  */
/* ------------------------------------------------------------------------ */

/* A thread's context: key-value pairs that go with every line the thread
 * logs after they are set, until they are cleared (a request's id, its
 * user, the trace it belongs to), without passing them to every call:
 *
 *     xlog_context_set("request_id", "%llu", id);
 *     xlog_context_set("trace_id", "%s", trace);
 *     xlog_info("order %d filled", order);  // carries request_id and trace_id
 *     xlog_context_clear(NULL);            // the request is over
 *
 * The value is formatted by printf's rules (the C library's vsnprintf, in
 * the caller's locale) when it is set, and checked like a log call's
 * arguments (-Wformat).  Setting a key the thread has already replaces its
 * value where it stands; a new key goes after the others: lines show the
 * pairs in the order their keys were first set.
 *
 * Where it shows:
 *   - a text pattern's {context} field: "key=value key2=value2" (a space
 *     between pairs), empty when the thread has none.  Keys and values are
 *     escaped by the line rule ("One call, one line"), which leaves '=',
 *     spaces and quotes as they are: read the context back from JSON, not
 *     from text, when keys or values may hold them.  The default line does
 *     not show the context (it stays what it was: add {context} to a
 *     pattern to see it);
 *   - JSON: the keys trace_id and span_id are the record's own fields, as
 *     in OpenTelemetry's log data model, just before "attributes"
 *     ("trace_id":"4bf92f3577b34da6a3ce929d0e0e4736"); every other key is
 *     an attribute, after xlog's own, its value a string
 *     ("attributes":{...,"request_id":"42"}); keys and values escaped as
 *     JSON strings;
 *   - binary files carry it (docs/BINARY.md, "Context") and xlog-cat shows
 *     it as the text or JSON layout would have.
 * It goes with the thread's lines to every sink, to the crash flush, to a
 * backtrace (a kept line is replayed with the context it was logged with)
 * and to the lines recovered after a kill (persistent_dir: each line with
 * the context it was logged with).  Lines of xlog's own (drop and loss
 * notices, the crash line) have none.
 *
 * Limits: a key is 1 to XLOG_CONTEXT_MAX_KEY bytes, a value (as formatted)
 * at most XLOG_CONTEXT_MAX_VALUE bytes, a thread has at most
 * XLOG_CONTEXT_MAX_PAIRS keys.  A key may hold any bytes but NUL (it is a
 * C string), a value any bytes its format makes: both are escaped where
 * they are shown.  The keys
 * of xlog's own JSON attributes (code.filepath, code.lineno,
 * code.function, thread.id, thread.name, process.pid, xlog.module) are
 * refused, so that no JSON object has a key twice.
 *
 * xlog_context_set returns 0, or a negative errno and changes nothing:
 *   -EINVAL  key or fmt NULL, an empty key, a key of xlog's own;
 *   -E2BIG   a key longer than XLOG_CONTEXT_MAX_KEY, or a value longer
 *            than XLOG_CONTEXT_MAX_VALUE (nothing is cut);
 *   -ENOSPC  a new key while the thread has XLOG_CONTEXT_MAX_PAIRS;
 *   -EBUSY   called from a signal handler that interrupted an xlog call
 *            (a context change included) of the same thread, or from a
 *            custom sink's function (open included: see "your own sink").
 * xlog_context_clear(key) removes that key (0, or -ENOENT if the thread
 * has no such key); xlog_context_clear(NULL) removes every key of the
 * thread (0).  Either returns -EBUSY as xlog_context_set does.
 *
 * Cost: a log call costs the caller the same with a context as without:
 * the caller's code never reads it.  A change writes the whole new context
 * (at most about 1.3 KB) into the thread's ring as one record, and the
 * back end attaches the ring's current context to each of its lines
 * (docs/ARCHITECTURE.md, "Context").  A change costs more than a log call
 * (the value is formatted by vsnprintf and the whole context copied twice:
 * about 1,350 instructions for a context of two pairs) and takes room in
 * the ring like a message of its size; in a full ring it waits for room
 * whatever full_policy says (a change dropped would give the later lines a
 * wrong context).  It is meant for the start and end of a request, not for
 * every line.
 *
 * Threads: the context is the calling thread's alone; no lock is taken.
 * A new thread starts with none.  When a thread ends, its context ends
 * with it: a thread that later gets the same ring (or the same tid)
 * starts with none.  A signal handler's log call in a thread that is
 * inside xlog_context_set or _clear is dropped (counted in dropped_nested)
 * or logged with the context before the change, never with a part of it.
 * fork(): the child's one thread keeps the context its parent thread had
 * when it called fork (it is the thread's memory); its lines in the child
 * carry it.  The context is kept across xlog_close and xlog_open, and may
 * be set before xlog_open: it goes with the thread's lines once xlog is
 * open. */
#define XLOG_CONTEXT_MAX_KEY 32
#define XLOG_CONTEXT_MAX_VALUE 128
#define XLOG_CONTEXT_MAX_PAIRS 8

int xlog_context_set(const char *key, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* The same with a va_list (as vprintf to printf). */
int xlog_context_vset(const char *key, const char *fmt, va_list args)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 0)))
#endif
    ;
int xlog_context_clear(const char *key);

/* ------------------------------------------------------------------------ */
/* Counters                                                                 */
/* ------------------------------------------------------------------------ */

/* Totals since the process started (they survive xlog_close/xlog_open). */
typedef struct xlog_counters {
    uint64_t messages; /* lines formatted for the files (including xlog's own
                          notices, and lines later counted in lost) */
    uint64_t bytes;    /* bytes written to the files */
    uint64_t writes;   /* write(2) calls made on the files */
    uint64_t dropped;  /* messages not written, for one of the three reasons
                          below (their sum) */
    uint64_t dropped_full;    /* ... the thread's ring was full (XLOG_FULL_DROP),
                                 or no memory could be had for a ring */
    uint64_t dropped_nested;  /* ... logged by a signal handler that interrupted
                                 a log call (or an xlog function) of its thread */
    uint64_t dropped_closing; /* ... logged while xlog was closed or closing */
    uint64_t blocked;  /* calls that had to wait for room (XLOG_FULL_BLOCK) */
    uint64_t truncated;/* messages cut at max_message (when only binary
                          files take a message, which renders none: when
                          a string argument was cut on the caller) */
    uint64_t refused;  /* messages logged with a level outside XLOG_TRACE ..
                          XLOG_FATAL (XLOG(7, ...), xlogout(10, ...)):
                          never written */
    uint64_t write_errors; /* write(2) or open(2) calls that failed */
    uint64_t lost;     /* lines formatted but not written because writing failed
                          (full disk, I/O error, no file); the file later says
                          how many, and why, when writing works again; each
                          lost line is counted in exactly one notice, so the
                          notices add up to lost */
    uint64_t console_dropped; /* lines not shown on the console: its buffer
                          was full (the console said how many), writing to it
                          failed, or xlog_close gave up on it */
    uint64_t syslog_dropped;  /* messages not delivered to syslog collectors:
                          the sink's buffer was full, or sending failed (the
                          collector was then told how many) */
    uint64_t not_persistent;  /* rings and file buffers made in ordinary
                          memory although cfg.persistent was on, because
                          their file in persistent_dir could not be made or
                          could not have its memory reserved (a full
                          /dev/shm; docs/RELIABILITY.md, "Survival"), or
                          because persistent_dir itself could not be used
                          (then every one: the first line says why): their
                          lines are written as usual, but those still in
                          them when the process is killed are lost */
    uint64_t laps_not_grown;  /* times a burst found persistent_dir without
                          room for the pages of a longer lap of its
                          thread's ring: the lap stayed as it was, and the
                          call waited for room in it (XLOG_FULL_BLOCK; also
                          in blocked) or dropped (XLOG_FULL_DROP, or a
                          record longer than what is left of such a lap;
                          also in dropped_full) */
    uint64_t backend_calls_refused; /* calls of xlog_open, xlog_close,
                          xlog_flush or xlog_recover made from a custom
                          sink's function (or cfg.wall_clock_ns on the back
                          end), refused with -EDEADLK: they would have
                          waited for the back end, or stopped it */
} xlog_counters;

/* Fills *out with the current totals.  Counts of messages still in the rings
 * are not included until they are written; call xlog_flush() first for exact
 * figures. */
void xlog_stats(xlog_counters *out);

/* ------------------------------------------------------------------------ */
/* Logging                                                                  */
/* ------------------------------------------------------------------------ */

/* XLOG(level, format, ...) logs one message.  The format is checked at
 * compile time as a printf format (-Wformat).  When the level is disabled the
 * call costs a load and a compare (see "Levels, modules and filters"), and
 * the arguments are NOT evaluated.
 *
 * Conversions are those of C and glibc's printf, including glibc's
 * extensions: %b and %B (binary, as in C23), the ' flag (thousands grouping
 * by the LC_NUMERIC locale in force when the back end formats the line),
 * and %m (the text of errno as it was when the call was made; %#m its name,
 * "EINVAL").
 *
 * Arguments are copied when the call is made: strings by value (up to their
 * precision, for "%.*s", so they need not be NUL-terminated), pointers as
 * addresses.  Formatting happens later on the back end, byte-for-byte as
 * snprintf does, with these defined results for bad input:
 *   - "%n" is refused: nothing is written to memory, "%n" shows literally;
 *   - a NULL string prints "(null)", or nothing when a precision below 6
 *     would cut it ("%.3s"), as glibc does;
 *   - an unknown conversion (or a positional one, "%1$d") shows literally;
 *   - control characters (CR, LF, ESC, ...), invalid UTF-8 and the Unicode
 *     line separators, from the format or from string arguments, are
 *     escaped as \r \n \x1b ... ("One call, one line" above), so one call
 *     is one line; a single newline at the very end of the format is
 *     dropped;
 *   - a message longer than max_message is cut and ends with
 *     XLOG_TRUNCATED_MARK;
 *   - a NULL format logs "(null format)" instead of crashing.
 * A format that is not a string literal (a variable, a table entry) works
 * too: it is parsed at every call instead of once per call site.  At most
 * XLOG_MAX_ARGS arguments are captured the fast way; a call with more still
 * gives the right line, through the slower path.
 *
 * Compiled as C11 or later (gcc, clang), a call with a literal format and
 * at most XLOG_MAX_SLOTS arguments that are all integers, enums, floats,
 * doubles, pointers or strings (char *, signed or unsigned, const or not,
 * and char arrays) is captured at the call site: each argument's type
 * picks how it becomes one 8-byte value, or, for a string, its address and
 * its length (strlen at the call site), and the call passes them to a
 * function without a variable argument list, which copies each string
 * once.  On x86-64 (but not under ThreadSanitizer) such a call, once its
 * site is known (from its second or third call on), writes its record into
 * the thread's ring in the program's own code, in C and in C++: 31
 * instructions on the caller for three scalar arguments, 24 for none, 82
 * for two strings of 5 to 17 bytes, loop excluded, counted by callgrind
 * (docs/BENCHMARKS.md; NanoLog 40, fmtlog 42, quill 51 for the first, as
 * the issue that asked for this measured them), with no function call and
 * no atomic read-modify-write.  Timed in bursts of 20 calls on the
 * project's 2-core VM, such a call averages 10.0 to 10.5 ns, against 9.5
 * for fmtlog and quill, and its 99.9th percentile is 110 to 140 ns,
 * against 80 to 150 for fmtlog and 110 to 290 for quill
 * (docs/BENCHMARKS.md).  In that mode an
 * argument of a type printf has no conversion for (a struct, a union,
 * __int128, a complex number) does not compile.  Wide
 * strings, long doubles, more arguments, formats whose conversions do not
 * take the arguments as they are (%m, %.*s, a string for %p...) and C99
 * take the variable argument list; the lines are the same either way.
 *
 * From C++ (C++11 and later, g++ and clang++), the same macros classify
 * each argument by its type with templates, and a call of at most
 * XLOG_MAX_SLOTS arguments is captured as in C11.  What may be passed, and
 * what printf is given for it when the call takes the variable argument
 * list (%m, %.*s, a non-literal format, XLOG_EVERY_N/MS):
 *   - every integer type, bool and the char types (as the int they
 *     promote to: %d, %c, %u...), float and double;
 *   - enums, scoped (enum class) or not: their underlying integer;
 *   - pointers (void *, T *) and nullptr, for %p;
 *   - strings, for %s, by value: const char * and char * (NULL prints
 *     "(null)"), char arrays, std::string and (C++17) std::string_view,
 *     without c_str() and, for a string_view, without a NUL: its bytes
 *     only (printf stops at a NUL: so does the line);
 *   - long double and wchar_t * (%Lf, %ls): always the variable argument
 *     list.
 * A string_view that goes to the variable argument list is copied, for
 * that call, into a std::string (printf needs its NUL): an allocation a
 * captured call never makes.  Bit-fields, volatile values and arrays (as
 * their address) are read once, like every argument.
 * Anything else does not compile, and the error names the argument:
 * "xlog: argument 2 of this call has a type printf cannot print" (a
 * struct, a std::vector, __int128, a member pointer), or "xlog: argument
 * 1 of this call is a string object and its conversion is not %s" (a
 * std::string or string_view where a literal format reads something else,
 * or %ls).  -Wformat checks the format against each argument as printf
 * sees it (a std::string as a const char *), so a bad format warns in C++
 * as in C.  A call of more than XLOG_MAX_SLOTS arguments passes them as
 * they are to the variable argument list, as before: no string objects
 * there.
 *
 * For example (the case "the manual's example" of
 * tests/capture/capture_cpp.cpp):
 *
 *     ```cpp
 *     std::string user = "alice";
 *     std::string_view host = std::string_view("db1.example.org", 3);
 *     enum class state : unsigned char { up = 1 } now = state::up;
 *     xlog_info("user %s on %s: state %d, %zu B", user, host, now, user.size());
 *     ```
 *
 *     ```text
 *     2026-11-22 14:45:25.123456789 [INFO] main.cpp:9 main 12345 user alice on db1: state 1, 5 B
 *     ```
 */
#define XLOG(level, ...)                                                                     \
    XLOG_IMPL_AT(level, 1, 0, XLOG_IMPL_IN_CALLER, XLOG_IMPL_LITERAL_ENTRY, __VA_ARGS__)

#define xlog_trace(...) XLOG(XLOG_TRACE, __VA_ARGS__)
#define xlog_debug(...) XLOG(XLOG_DEBUG, __VA_ARGS__)
#define xlog_info(...) XLOG(XLOG_INFO, __VA_ARGS__)
#define xlog_warn(...) XLOG(XLOG_WARN, __VA_ARGS__)
#define xlog_error(...) XLOG(XLOG_ERROR, __VA_ARGS__)
/* xlog_fatal only logs, at level FATAL, like the others: the program goes
 * on (and the line is written as any other, flush_level aside).  To stop
 * the program when something that must hold does not, use XLOG_CHECK. */
#define xlog_fatal(...) XLOG(XLOG_FATAL, __VA_ARGS__)

/* XLOG_CHECK(cond, format, ...) evaluates cond (always: unlike assert(), it
 * is not compiled out by NDEBUG); when it is false, it logs at FATAL
 *
 *     check failed: <cond, as written>: <the message>
 *
 * (formatted at once, on the calling thread, exactly as printf would; with
 * the call's file, line and function, and no module), waits until
 * everything logged before, by every thread, has been handed to the kernel
 * (xlog_flush), and calls abort(): with cfg.crash_handlers, the crash
 * handler then adds its line naming SIGABRT, and a core dump follows as
 * the system is set up for.  In a custom sink's function, which cannot log,
 * the line is dropped (xlog_counters.dropped_nested) and the crash handler
 * writes what was logged before.  There are no
 * XLOG_CHECK_EQ-style forms: a C macro cannot know how to print any type,
 * so say what the values were in the message:
 *
 *     ```c fragment
 *     int expected = 3, got = 3;
 *     XLOG_CHECK(got == expected, "got %d, expected %d", got, expected);
 *     ```
 */
#define XLOG_CHECK(cond, ...)                                                              \
    do {                                                                                   \
        if (XLOG_IMPL_UNLIKELY(!(cond)))                                                   \
            xlog_impl_check_failed(#cond, __FILE__, __LINE__, __func__, __VA_ARGS__);      \
    } while (0)

/* Rate limits, per call site (across all threads): XLOG_EVERY_N(level, n,
 * format, ...) writes the 1st, (n+1)th, (2n+1)th ... call that its level
 * lets through; XLOG_EVERY_MS(level, ms, format, ...) writes a call when at
 * least ms milliseconds have passed since the last one it wrote.  The line
 * written says how many calls of the site were suppressed since the one
 * before: "disk 93% full (41 more suppressed)".  A suppressed call costs an
 * atomic add (EVERY_N), or a clock read and a compare (EVERY_MS); its
 * arguments are not evaluated.  Time is read from cfg.wall_clock_ns when it
 * is set, else from CLOCK_MONOTONIC_COARSE. */
#define XLOG_EVERY_N(level, n, ...)                                                          \
    XLOG_IMPL_AT(level, xlog_impl_every_n(&xlog_impl_site_var, (n)), XLOG_IMPL_RATED,         \
                 XLOG_IMPL_NOT_IN_CALLER, XLOG_IMPL_RATED_ENTRY, __VA_ARGS__)
#define XLOG_EVERY_MS(level, ms, ...)                                                        \
    XLOG_IMPL_AT(level, xlog_impl_every_ms(&xlog_impl_site_var, (ms)), XLOG_IMPL_RATED,       \
                 XLOG_IMPL_NOT_IN_CALLER, XLOG_IMPL_RATED_ENTRY, __VA_ARGS__)

#define xlog_trace_every_n(n, ...) XLOG_EVERY_N(XLOG_TRACE, n, __VA_ARGS__)
#define xlog_debug_every_n(n, ...) XLOG_EVERY_N(XLOG_DEBUG, n, __VA_ARGS__)
#define xlog_info_every_n(n, ...) XLOG_EVERY_N(XLOG_INFO, n, __VA_ARGS__)
#define xlog_warn_every_n(n, ...) XLOG_EVERY_N(XLOG_WARN, n, __VA_ARGS__)
#define xlog_error_every_n(n, ...) XLOG_EVERY_N(XLOG_ERROR, n, __VA_ARGS__)
#define xlog_fatal_every_n(n, ...) XLOG_EVERY_N(XLOG_FATAL, n, __VA_ARGS__)
#define xlog_trace_every_ms(ms, ...) XLOG_EVERY_MS(XLOG_TRACE, ms, __VA_ARGS__)
#define xlog_debug_every_ms(ms, ...) XLOG_EVERY_MS(XLOG_DEBUG, ms, __VA_ARGS__)
#define xlog_info_every_ms(ms, ...) XLOG_EVERY_MS(XLOG_INFO, ms, __VA_ARGS__)
#define xlog_warn_every_ms(ms, ...) XLOG_EVERY_MS(XLOG_WARN, ms, __VA_ARGS__)
#define xlog_error_every_ms(ms, ...) XLOG_EVERY_MS(XLOG_ERROR, ms, __VA_ARGS__)
#define xlog_fatal_every_ms(ms, ...) XLOG_EVERY_MS(XLOG_FATAL, ms, __VA_ARGS__)

/* The entry point of the field notes' logger, for existing callers: logs
 * format at level "type" (an XLOG_* level) as if from file:line in func,
 * with no module.  Slower than XLOG (the format is parsed and file and func
 * are copied at every call) but formatted the same way, on the back end. */
void xlogout(unsigned int type, const char *file, int line, const char *func,
             const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/* Non-zero when a message of this level with no module would be written by
 * this thread, to the files or to a sink whose filter wants it (see
 * xlog_module_enabled for a module).  Costs a thread-local load, maybe a
 * global load, and a compare. */
static inline int xlog_enabled(int level);

/* Arguments captured by the fast path per call site. */
#define XLOG_MAX_ARGS 16
/* Arguments a C11 call site captures itself, without a variable argument
 * list (see XLOG). */
#define XLOG_MAX_SLOTS 8

/* ------------------------------------------------------------------------ */
/* Library internals needed by the macros above (not for direct use)        */
/* ------------------------------------------------------------------------ */

/* One per XLOG call site, static, in the caller's code.  file, func, line
 * and module are constants; the library fills the rest: the argument kinds
 * parsed from the format on the first call, the cached thresholds, the rate
 * limit's state, and its own copy of the site.  Records name that copy,
 * never this descriptor, so a library that logged may be unloaded (dlclose)
 * while its lines still wait to be written; loaded again, even at the same
 * address, its descriptors start zeroed and get new copies. */
typedef struct xlog_impl_site {
    const char *file;
    const char *func;
    int line;
    int state;                 /* new, being parsed, parsed (with or without
                                  strings), or dynamic only: see frontend.c */
    const char *format;        /* the format the parse belongs to */
    const char *module;        /* XLOG_MODULE, or "" */
    uint64_t levels;           /* atomic: rules' generation << 32, the level
                                  kept for backtraces << 8, the level written */
    uint64_t rate_state;       /* atomic: calls counted (EVERY_N), or the time
                                  of the last call written (EVERY_MS) */
    uint64_t suppressed;       /* atomic: calls suppressed since the last written */
    struct xlog_impl_site_copy *copy; /* the library's copy of file, func,
                                  line, module, format and kinds, which
                                  records name (lib/record/record.h) */
    struct xlog_impl_site_copy *scalar_copy; /* the same, once the site takes
                                  the shortest path (state scalar) */
    unsigned short fixed_size; /* bytes of the record without its strings */
    unsigned char nargs;       /* arguments the format consumes */
    unsigned char kinds[XLOG_MAX_ARGS];
    const char *literal;       /* the format when the compiler knew it (a
                                  literal), else NULL: a site with a literal
                                  always has the same one */
    uint32_t pass;             /* atomic: xlog_impl_pass[level] of the rules
                                  under which a call of this level is written
                                  in the caller's code (see xlog_impl_put) */
    uint32_t captured_shape;   /* atomic: the shape of the arguments the call
                                  site captures (see "Strings captured at the
                                  call site") once the format's kinds take
                                  them one for one; 0 until the library
                                  knows, XLOG_IMPL_SHAPE_NEVER if they do not */
} xlog_impl_site;

#if defined(__GNUC__)
#define XLOG_IMPL_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define XLOG_IMPL_TLS __thread __attribute__((tls_model("initial-exec")))
#define XLOG_IMPL_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define XLOG_IMPL_NORETURN __attribute__((noreturn))
#else
#define XLOG_IMPL_UNLIKELY(x) (x)
#define XLOG_IMPL_TLS _Thread_local
#define XLOG_IMPL_PRINTF(f, a)
#define XLOG_IMPL_NORETURN
#endif

/* Whether a call may write its record in the caller's code
 * (xlog_impl_put): C11 or later, or C++, with gcc or clang on x86-64, where the
 * clock is the TSC, and not under ThreadSanitizer, which could not see
 * that the ring's room was handed over by the back end (the library's
 * paths tell it). */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__SANITIZE_THREAD__) &&              \
    (defined(__cplusplus) || (defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L))
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define XLOG_IMPL_PUT_INLINE 0
#endif
#endif
#ifndef XLOG_IMPL_PUT_INLINE
#define XLOG_IMPL_PUT_INLINE 1
#endif
#else
#define XLOG_IMPL_PUT_INLINE 0
#endif

/* The format of a site when the compiler knows it (a literal; gcc and
 * clang accept __builtin_constant_p in a static initializer and give 0
 * for anything else), else NULL. */
#if defined(__GNUC__)
#define XLOG_IMPL_LITERAL(...)                                                             \
    (__builtin_constant_p(XLOG_IMPL_FIRST(__VA_ARGS__)) ? XLOG_IMPL_FIRST(__VA_ARGS__)       \
                                                        : XLOG_IMPL_NULL)
#else
#define XLOG_IMPL_LITERAL(...) XLOG_IMPL_NULL
#endif
/* A call the library makes all of. */
#define XLOG_IMPL_NOT_IN_CALLER(site, level, ...) 0

#define XLOG_IMPL_FIRST(...) XLOG_IMPL_FIRST_(__VA_ARGS__, 0)
#define XLOG_IMPL_FIRST_(first, ...) first

#ifdef __cplusplus
#define XLOG_IMPL_NULL nullptr
#else
#define XLOG_IMPL_NULL ((void *)0)
#endif

/* A level outside TRACE..FATAL becomes this one, which every threshold lets
 * through to the library: it refuses the message and counts it
 * (xlog_counters.refused) rather than writing a false FATAL line.  For a
 * constant level the check costs nothing. */
#define XLOG_IMPL_LEVEL_INVALID 255
#define XLOG_IMPL_CHECKED_LEVEL(level)                                                     \
    ((unsigned)(level) <= (unsigned)XLOG_FATAL ? (int)(level) : XLOG_IMPL_LEVEL_INVALID)

#ifdef XLOG_MODULE
#define XLOG_IMPL_MODULE XLOG_MODULE
#else
#define XLOG_IMPL_MODULE ""
#endif

/* A call measures a string with strlen at the call site only where its
 * format takes the string whole (a %s without precision, as printf would
 * read it); gcc (11 and later) cannot see that, and would warn of a char
 * array without a NUL shown through "%.4s", which printf allows.  The
 * warning is silenced for the statement a call expands to, where gcc
 * places it. */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#define XLOG_IMPL_QUIET_BEGIN                                                              \
    _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wstringop-overread\"")
#define XLOG_IMPL_QUIET_END _Pragma("GCC diagnostic pop")
#else
#define XLOG_IMPL_QUIET_BEGIN
#define XLOG_IMPL_QUIET_END
#endif

/* What a call passes along with its level (bits above the level's). */
#define XLOG_IMPL_KEEP 0x200  /* below the level written: kept for a backtrace */
#define XLOG_IMPL_RATED 0x400 /* a rate-limited call */
#define XLOG_IMPL_OWN 0x800   /* let through by the thread's own threshold */
#define XLOG_IMPL_GO 0x1000   /* makes a decision for XLOG_TRACE non-zero */

#define XLOG_IMPL_AT(level, limit, rated, in_caller, literal_entry, ...)                     \
    do {                                                                                   \
        XLOG_IMPL_QUIET_BEGIN                                                              \
        int xlog_impl_level_var = XLOG_IMPL_CHECKED_LEVEL(level);                          \
        if (xlog_impl_level_var >= __atomic_load_n(&xlog_impl_floor, __ATOMIC_RELAXED)) {  \
            static xlog_impl_site xlog_impl_site_var = {__FILE__, __func__, __LINE__, 0,   \
                                                        XLOG_IMPL_NULL, XLOG_IMPL_MODULE,  \
                                                        0, 0, 0, XLOG_IMPL_NULL,           \
                                                        XLOG_IMPL_NULL, 0, 0, {0},         \
                                                        XLOG_IMPL_LITERAL(__VA_ARGS__), 0, 0}; \
            int xlog_impl_call_var = 0;                                                    \
            if (!in_caller(&xlog_impl_site_var, xlog_impl_level_var, __VA_ARGS__))         \
                xlog_impl_call_var = xlog_impl_decide(&xlog_impl_site_var,                 \
                                                      xlog_impl_level_var);                \
            if (xlog_impl_call_var && (limit)) {                                           \
                if (__builtin_constant_p(XLOG_IMPL_FIRST(__VA_ARGS__)))                    \
                    literal_entry(&xlog_impl_site_var, xlog_impl_call_var | (rated),       \
                                  __VA_ARGS__);                                            \
                else                                                                       \
                    XLOG_IMPL_DYNAMIC_ENTRY(&xlog_impl_site_var,                           \
                                            xlog_impl_call_var | (rated), __VA_ARGS__);    \
            }                                                                              \
        }                                                                                  \
        XLOG_IMPL_QUIET_END                                                                \
    } while (0)

/* Capture at the call site (C11 and later, gcc and clang; see XLOG).
 *
 * Each argument's type gives, at compile time, its slot class and the
 * function that turns it into 8 bytes (XLOG_IMPL_SLOT): exactly the bytes
 * the library's variable-argument path writes into a record for the
 * conversion that takes that type: an int or anything promoted to one
 * (char, short, _Bool, enums, unsigned int, bit-fields) sign-extended as
 * va_arg(ap, int) reads it for %d, %u, %x, %c; 64-bit integers and
 * pointers as they are; a float or a double as the double's bits.  A
 * string (char *, wchar_t * and their variants), a long double, or a type
 * printf has no conversion for has class 0: the call site then always
 * calls xlog_impl_log, decided at compile time.
 *
 * A call with all-scalar arguments calls xlog_impl_log_<count> only when
 * the site is ready for it: the library set scalar_copy, on the site's
 * first call, after checking that the kinds the format asks for are, one
 * for one, what the slots hold (no %m, no string, no %lc or %Lf, as many
 * conversions as arguments), and the site's format is this one (an inline
 * function's call site may be reached with several formats).  Otherwise
 * the call takes xlog_impl_log, whose level carries the slot classes for
 * that first check (XLOG_IMPL_SLOTTED).  Both calls stay in the code, so
 * -Wformat checks the call to xlog_impl_log as before. */
#define XLOG_IMPL_SLOT_INT 1    /* sign-extended int */
#define XLOG_IMPL_SLOT_64 2     /* a 64-bit integer or a pointer */
#define XLOG_IMPL_SLOT_DOUBLE 3 /* the bits of a double */
#define XLOG_IMPL_SLOTTED 0x2000 /* the level carries slot classes: 2 bits
                                    per argument from bit 14 up */
#define XLOG_IMPL_SLOT_SHIFT 14
/* What of the level a call of xlog_impl_log_<n> passes: the level and the
 * record's flags (KEEP, RATED, OWN), as the record's level and flags bytes. */
#define XLOG_IMPL_RECORD_BITS 0xeff

/* How many arguments follow the format: 0 to 8, or V (more, up to 111). */
#define XLOG_IMPL_COUNT(...)                                                               \
    XLOG_IMPL_COUNT_(__VA_ARGS__, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V,    \
    V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V,    \
    V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V,    \
    V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V, V,    \
    V, 8, 7, 6, 5, 4, 3, 2, 1, 0, ~)
#define XLOG_IMPL_COUNT_(f, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14,   \
    a15, a16, a17, a18, a19, a20, a21, a22, a23, a24, a25, a26, a27, a28, a29, a30, a31,   \
    a32, a33, a34, a35, a36, a37, a38, a39, a40, a41, a42, a43, a44, a45, a46, a47, a48,   \
    a49, a50, a51, a52, a53, a54, a55, a56, a57, a58, a59, a60, a61, a62, a63, a64, a65,   \
    a66, a67, a68, a69, a70, a71, a72, a73, a74, a75, a76, a77, a78, a79, a80, a81, a82,   \
    a83, a84, a85, a86, a87, a88, a89, a90, a91, a92, a93, a94, a95, a96, a97, a98, a99,   \
    a100, a101, a102, a103, a104, a105, a106, a107, a108, a109, a110, a111, n, ...) n
#define XLOG_IMPL_CAT(a, b) XLOG_IMPL_CAT_(a, b)
#define XLOG_IMPL_CAT_(a, b) a##b
#define XLOG_IMPL_LIST(...) __VA_ARGS__

/* Arguments captured at the call site with strings among them (see
 * "Strings captured at the call site" below, and the C++ block): one
 * element per argument, a scalar's slot (XLOG_IMPL_SLOT) or a string's
 * address and its length in bytes (a NULL string: address 0, length 0).
 * The shape of a call (an uint32_t) holds its arguments' classes, 4 bits
 * each, the first argument's lowest: XLOG_IMPL_SLOT_INT, _64, _DOUBLE, or
 * XLOG_IMPL_ARG_STRING, and 0 past the last. */
typedef struct xlog_impl_arg {
    uint64_t value;
    size_t length;
} xlog_impl_arg;
#define XLOG_IMPL_ARG_STRING 4
#define XLOG_IMPL_SHAPE_STRINGS 0x44444444u /* the bit of each class that says "string" */
#define XLOG_IMPL_SHAPE_NEVER 0xffffffffu   /* no call site has this shape */

#if defined(__GNUC__) && !defined(__cplusplus) && defined(__STDC_VERSION__) &&                \
    __STDC_VERSION__ >= 201112L
#define XLOG_IMPL_LITERAL_ENTRY XLOG_IMPL_TEXT_CAPTURED

/* The functions that make slots.  Their first parameter (0) lets
 * xlog_impl_slot_none, which must accept any argument, have the same
 * calling form as the others. */
static inline uint64_t xlog_impl_slot_int(int unused, int v)
{
    (void)unused;
    return (uint64_t)(int64_t)v;
}
static inline uint64_t xlog_impl_slot_uint(int unused, unsigned v)
{
    (void)unused;
    return (uint64_t)(int64_t)(int)v;
}
static inline uint64_t xlog_impl_slot_i64(int unused, long long v)
{
    (void)unused;
    return (uint64_t)v;
}
static inline uint64_t xlog_impl_slot_u64(int unused, unsigned long long v)
{
    (void)unused;
    return (uint64_t)v;
}
static inline uint64_t xlog_impl_slot_double(int unused, double v)
{
    (void)unused;
    uint64_t bits;
    __builtin_memcpy(&bits, &v, sizeof bits);
    return bits;
}
static inline uint64_t xlog_impl_slot_float(int unused, float v)
{
    return xlog_impl_slot_double(unused, (double)v);
}
static inline uint64_t xlog_impl_slot_pointer(int unused, const volatile void *p)
{
    (void)unused;
    return (uint64_t)(uintptr_t)p;
}
/* Class 0: never called (the site takes xlog_impl_log); takes anything so
 * that the call compiles. */
static inline uint64_t xlog_impl_slot_none(int unused, ...)
{
    (void)unused;
    return 0;
}

/* The argument as an rvalue: promoted, arrays and functions as pointers,
 * qualifiers and bit-field widths gone, without evaluating it. */
#define XLOG_IMPL_RVALUE(x) (0 ? (x) : (x))
#define XLOG_IMPL_IS_POINTER(x) (__builtin_classify_type(x) == 5)
#define XLOG_IMPL_STRING_TYPES(v)                                                          \
    char * : v, const char * : v, signed char * : v, const signed char * : v,              \
        unsigned char * : v, const unsigned char * : v, wchar_t * : v, const wchar_t * : v
#define XLOG_IMPL_CLASS(x)                                                                 \
    _Generic(XLOG_IMPL_RVALUE(x), int: XLOG_IMPL_SLOT_INT, unsigned: XLOG_IMPL_SLOT_INT,    \
             long: XLOG_IMPL_SLOT_64, unsigned long: XLOG_IMPL_SLOT_64,                    \
             long long: XLOG_IMPL_SLOT_64, unsigned long long: XLOG_IMPL_SLOT_64,          \
             float: XLOG_IMPL_SLOT_DOUBLE, double: XLOG_IMPL_SLOT_DOUBLE, long double: 0,  \
             XLOG_IMPL_STRING_TYPES(0),                                                    \
             default: (XLOG_IMPL_IS_POINTER(x) ? XLOG_IMPL_SLOT_64 : 0))
#define XLOG_IMPL_SLOT(x)                                                                  \
    _Generic(XLOG_IMPL_RVALUE(x), int: xlog_impl_slot_int, unsigned: xlog_impl_slot_uint,  \
             long: xlog_impl_slot_i64, unsigned long: xlog_impl_slot_u64,                  \
             long long: xlog_impl_slot_i64, unsigned long long: xlog_impl_slot_u64,        \
             float: xlog_impl_slot_float, double: xlog_impl_slot_double,                   \
             long double: xlog_impl_slot_none, XLOG_IMPL_STRING_TYPES(xlog_impl_slot_none), \
             default: __builtin_choose_expr(XLOG_IMPL_IS_POINTER(x), xlog_impl_slot_pointer, \
                                            xlog_impl_slot_none))(0, (x))

/* Whether the site takes xlog_impl_log_<count> (see above). */
static inline int xlog_impl_site_ready(xlog_impl_site *site, const char *format)
{
    return __atomic_load_n(&site->scalar_copy, __ATOMIC_ACQUIRE) != XLOG_IMPL_NULL &&
           site->format == format;
}

#define XLOG_IMPL_CAPTURED(site, level, ...)                                               \
    XLOG_IMPL_CAT(XLOG_IMPL_CAPTURE_, XLOG_IMPL_COUNT(__VA_ARGS__))(site, level, __VA_ARGS__)

/* The level with the slot classes, or alone when one argument is not a
 * scalar. */
#define XLOG_IMPL_SLOTS(level, scalar, classes)                                            \
    ((level) | ((scalar) ? XLOG_IMPL_SLOTTED | (classes) << XLOG_IMPL_SLOT_SHIFT : 0))
#define XLOG_IMPL_C(x, i) (XLOG_IMPL_CLASS(x) << (2 * (i)))
#define XLOG_IMPL_S(x) (XLOG_IMPL_CLASS(x) != 0)

/* The call of a site with n > 0 arguments after its format:
 * xlog_impl_log_<n> with the slots when they are all scalars (a constant)
 * and the site is ready, else xlog_impl_log with the slot classes on the
 * level (none when one argument is not a scalar). */
#define XLOG_IMPL_CAPTURE(site, level, fmt, scalar, classes, slot_call, ...)               \
    ((scalar) && xlog_impl_site_ready(site, fmt) ? slot_call :                             \
        xlog_impl_log(site, XLOG_IMPL_SLOTS(level, scalar, classes), fmt, __VA_ARGS__))
#define XLOG_IMPL_CAPTURE_V(site, level, ...) xlog_impl_log(site, level, __VA_ARGS__)
#define XLOG_IMPL_CAPTURE_0(site, level, fmt)                                              \
    (xlog_impl_site_ready(site, fmt) ?                                                     \
        xlog_impl_log_0(site, (level) & XLOG_IMPL_RECORD_BITS) :                           \
        xlog_impl_log(site, XLOG_IMPL_SLOTS(level, 1, 0), fmt))
#define XLOG_IMPL_CAPTURE_1(site, level, fmt, a)                                           \
    XLOG_IMPL_CAPTURE(site, level, fmt, XLOG_IMPL_S(a), XLOG_IMPL_C(a, 0),                 \
        xlog_impl_log_1(site, (level) & XLOG_IMPL_RECORD_BITS, XLOG_IMPL_SLOT(a)), a)
#define XLOG_IMPL_CAPTURE_2(site, level, fmt, a, b)                                        \
    XLOG_IMPL_CAPTURE(site, level, fmt, XLOG_IMPL_S(a) && XLOG_IMPL_S(b),                  \
        XLOG_IMPL_C(a, 0) | XLOG_IMPL_C(b, 1),                                             \
        xlog_impl_log_2(site, (level) & XLOG_IMPL_RECORD_BITS, XLOG_IMPL_SLOT(a),          \
        XLOG_IMPL_SLOT(b)), a, b)
#define XLOG_IMPL_CAPTURE_3(site, level, fmt, a, b, c)                                     \
    XLOG_IMPL_CAPTURE(site, level, fmt, XLOG_IMPL_S(a) && XLOG_IMPL_S(b) &&                \
        XLOG_IMPL_S(c), XLOG_IMPL_C(a, 0) | XLOG_IMPL_C(b, 1) | XLOG_IMPL_C(c, 2),         \
        xlog_impl_log_3(site, (level) & XLOG_IMPL_RECORD_BITS, XLOG_IMPL_SLOT(a),          \
        XLOG_IMPL_SLOT(b), XLOG_IMPL_SLOT(c)), a, b, c)
#define XLOG_IMPL_CAPTURE_4(site, level, fmt, a, b, c, d)                                  \
    XLOG_IMPL_CAPTURE(site, level, fmt, XLOG_IMPL_S(a) && XLOG_IMPL_S(b) &&                \
        XLOG_IMPL_S(c) && XLOG_IMPL_S(d), XLOG_IMPL_C(a, 0) | XLOG_IMPL_C(b, 1) |          \
        XLOG_IMPL_C(c, 2) | XLOG_IMPL_C(d, 3),                                             \
        xlog_impl_log_4(site, (level) & XLOG_IMPL_RECORD_BITS, XLOG_IMPL_SLOT(a),          \
        XLOG_IMPL_SLOT(b), XLOG_IMPL_SLOT(c), XLOG_IMPL_SLOT(d)), a, b, c, d)
#define XLOG_IMPL_CAPTURE_5(site, level, fmt, a, b, c, d, e)                               \
    XLOG_IMPL_CAPTURE(site, level, fmt, XLOG_IMPL_S(a) && XLOG_IMPL_S(b) &&                \
        XLOG_IMPL_S(c) && XLOG_IMPL_S(d) && XLOG_IMPL_S(e), XLOG_IMPL_C(a, 0) |            \
        XLOG_IMPL_C(b, 1) | XLOG_IMPL_C(c, 2) | XLOG_IMPL_C(d, 3) | XLOG_IMPL_C(e, 4),     \
        xlog_impl_log_5(site, (level) & XLOG_IMPL_RECORD_BITS, XLOG_IMPL_SLOT(a),          \
        XLOG_IMPL_SLOT(b), XLOG_IMPL_SLOT(c), XLOG_IMPL_SLOT(d), XLOG_IMPL_SLOT(e)), a,    \
        b, c, d, e)
#define XLOG_IMPL_CAPTURE_6(site, level, fmt, a, b, c, d, e, f)                            \
    XLOG_IMPL_CAPTURE(site, level, fmt, XLOG_IMPL_S(a) && XLOG_IMPL_S(b) &&                \
        XLOG_IMPL_S(c) && XLOG_IMPL_S(d) && XLOG_IMPL_S(e) && XLOG_IMPL_S(f),              \
        XLOG_IMPL_C(a, 0) | XLOG_IMPL_C(b, 1) | XLOG_IMPL_C(c, 2) | XLOG_IMPL_C(d, 3) |    \
        XLOG_IMPL_C(e, 4) | XLOG_IMPL_C(f, 5),                                             \
        xlog_impl_log_6(site, (level) & XLOG_IMPL_RECORD_BITS, XLOG_IMPL_SLOT(a),          \
        XLOG_IMPL_SLOT(b), XLOG_IMPL_SLOT(c), XLOG_IMPL_SLOT(d), XLOG_IMPL_SLOT(e),        \
        XLOG_IMPL_SLOT(f)), a, b, c, d, e, f)
#define XLOG_IMPL_CAPTURE_7(site, level, fmt, a, b, c, d, e, f, g)                         \
    XLOG_IMPL_CAPTURE(site, level, fmt, XLOG_IMPL_S(a) && XLOG_IMPL_S(b) &&                \
        XLOG_IMPL_S(c) && XLOG_IMPL_S(d) && XLOG_IMPL_S(e) && XLOG_IMPL_S(f) &&            \
        XLOG_IMPL_S(g), XLOG_IMPL_C(a, 0) | XLOG_IMPL_C(b, 1) | XLOG_IMPL_C(c, 2) |        \
        XLOG_IMPL_C(d, 3) | XLOG_IMPL_C(e, 4) | XLOG_IMPL_C(f, 5) | XLOG_IMPL_C(g, 6),     \
        xlog_impl_log_7(site, (level) & XLOG_IMPL_RECORD_BITS, XLOG_IMPL_SLOT(a),          \
        XLOG_IMPL_SLOT(b), XLOG_IMPL_SLOT(c), XLOG_IMPL_SLOT(d), XLOG_IMPL_SLOT(e),        \
        XLOG_IMPL_SLOT(f), XLOG_IMPL_SLOT(g)), a, b, c, d, e, f, g)
#define XLOG_IMPL_CAPTURE_8(site, level, fmt, a, b, c, d, e, f, g, h)                      \
    XLOG_IMPL_CAPTURE(site, level, fmt, XLOG_IMPL_S(a) && XLOG_IMPL_S(b) &&                \
        XLOG_IMPL_S(c) && XLOG_IMPL_S(d) && XLOG_IMPL_S(e) && XLOG_IMPL_S(f) &&            \
        XLOG_IMPL_S(g) && XLOG_IMPL_S(h), XLOG_IMPL_C(a, 0) | XLOG_IMPL_C(b, 1) |          \
        XLOG_IMPL_C(c, 2) | XLOG_IMPL_C(d, 3) | XLOG_IMPL_C(e, 4) | XLOG_IMPL_C(f, 5) |    \
        XLOG_IMPL_C(g, 6) | XLOG_IMPL_C(h, 7),                                             \
        xlog_impl_log_8(site, (level) & XLOG_IMPL_RECORD_BITS, XLOG_IMPL_SLOT(a),          \
        XLOG_IMPL_SLOT(b), XLOG_IMPL_SLOT(c), XLOG_IMPL_SLOT(d), XLOG_IMPL_SLOT(e),        \
        XLOG_IMPL_SLOT(f), XLOG_IMPL_SLOT(g), XLOG_IMPL_SLOT(h)), a, b, c, d, e, f, g, h)

/* The call written in the caller's code: a site whose arguments are all
 * scalars, once the library has set its pass for this level under the
 * rules in force, writes its record there (xlog_impl_put) and calls the
 * library only when that fails.  1 when the call is handled, arguments
 * evaluated once; 0 (nothing evaluated) for the library's way. */
#if XLOG_IMPL_PUT_INLINE
#define XLOG_IMPL_IN_CALLER(site, level, ...)                                              \
    XLOG_IMPL_CAT(XLOG_IMPL_SEND_, XLOG_IMPL_COUNT(__VA_ARGS__))(site, level, __VA_ARGS__)
#define XLOG_IMPL_SEND(site, level, ...)                                                   \
    (xlog_impl_passes(site, level) ?                                                       \
         (xlog_impl_send(site, level, (const uint64_t[]){__VA_ARGS__},                     \
                         sizeof((uint64_t[]){__VA_ARGS__}) / 8), 1) : 0)
#define XLOG_IMPL_SEND_V(site, level, ...) 0
#define XLOG_IMPL_SEND_0(site, level, fmt)                                                 \
    (xlog_impl_passes(site, level) ? (xlog_impl_send(site, level, XLOG_IMPL_NULL, 0), 1) : 0)
/* scalar: every argument a scalar (a constant), slots: their slots;
 * textual: every argument a scalar or a string, shape: their classes, args:
 * their xlog_impl_arg (see "Strings captured at the call site"); each list
 * in parentheses. */
#define XLOG_IMPL_SEND_ANY(site, level, n, scalar, slots, textual, shape, args)            \
    ((scalar) ? XLOG_IMPL_SEND(site, level, XLOG_IMPL_LIST slots)                         \
     : (textual) && xlog_impl_passes(site, level)                                         \
         ? (xlog_impl_send_text(site, level, shape,                                       \
                                (const xlog_impl_arg[]){XLOG_IMPL_LIST args}, n),         \
            1)                                                                            \
         : 0)
#define XLOG_IMPL_SEND_1(site, level, fmt, a)                                              \
    XLOG_IMPL_SEND_ANY(site, level, 1,                                                     \
                       XLOG_IMPL_S(a),                                                     \
                       (XLOG_IMPL_SLOT(a)),                                                \
                       XLOG_IMPL_TS(a),                                                    \
                       XLOG_IMPL_TK(a, 0),                                                 \
                       (XLOG_IMPL_ARG(a)))
#define XLOG_IMPL_SEND_2(site, level, fmt, a, b)                                           \
    XLOG_IMPL_SEND_ANY(site, level, 2,                                                     \
                       XLOG_IMPL_S(a) && XLOG_IMPL_S(b),                                   \
                       (XLOG_IMPL_SLOT(a), XLOG_IMPL_SLOT(b)),                             \
                       XLOG_IMPL_TS(a) && XLOG_IMPL_TS(b),                                 \
                       XLOG_IMPL_TK(a, 0) | XLOG_IMPL_TK(b, 1),                            \
                       (XLOG_IMPL_ARG(a), XLOG_IMPL_ARG(b)))
#define XLOG_IMPL_SEND_3(site, level, fmt, a, b, c)                                        \
    XLOG_IMPL_SEND_ANY(site, level, 3,                                                     \
                       XLOG_IMPL_S(a) && XLOG_IMPL_S(b) && XLOG_IMPL_S(c),                 \
                       (XLOG_IMPL_SLOT(a), XLOG_IMPL_SLOT(b), XLOG_IMPL_SLOT(c)),          \
                       XLOG_IMPL_TS(a) && XLOG_IMPL_TS(b) && XLOG_IMPL_TS(c),              \
                       XLOG_IMPL_TK(a, 0) | XLOG_IMPL_TK(b, 1) | XLOG_IMPL_TK(c, 2),       \
                       (XLOG_IMPL_ARG(a), XLOG_IMPL_ARG(b), XLOG_IMPL_ARG(c)))
#define XLOG_IMPL_SEND_4(site, level, fmt, a, b, c, d)                                     \
    XLOG_IMPL_SEND_ANY(site, level, 4,                                                     \
                       XLOG_IMPL_S(a) && XLOG_IMPL_S(b) && XLOG_IMPL_S(c) && XLOG_IMPL_S(d),\
                       (XLOG_IMPL_SLOT(a), XLOG_IMPL_SLOT(b), XLOG_IMPL_SLOT(c), XLOG_IMPL_SLOT(d)),\
                       XLOG_IMPL_TS(a) && XLOG_IMPL_TS(b) && XLOG_IMPL_TS(c) && XLOG_IMPL_TS(d),\
                       XLOG_IMPL_TK(a, 0) | XLOG_IMPL_TK(b, 1) | XLOG_IMPL_TK(c, 2) | XLOG_IMPL_TK(d, 3),\
                       (XLOG_IMPL_ARG(a), XLOG_IMPL_ARG(b), XLOG_IMPL_ARG(c), XLOG_IMPL_ARG(d)))
#define XLOG_IMPL_SEND_5(site, level, fmt, a, b, c, d, e)                                  \
    XLOG_IMPL_SEND_ANY(site, level, 5,                                                     \
                       XLOG_IMPL_S(a) && XLOG_IMPL_S(b) && XLOG_IMPL_S(c) && XLOG_IMPL_S(d) &&\
                           XLOG_IMPL_S(e),                                                 \
                       (XLOG_IMPL_SLOT(a), XLOG_IMPL_SLOT(b), XLOG_IMPL_SLOT(c), XLOG_IMPL_SLOT(d),\
                        XLOG_IMPL_SLOT(e)),                                                \
                       XLOG_IMPL_TS(a) && XLOG_IMPL_TS(b) && XLOG_IMPL_TS(c) && XLOG_IMPL_TS(d) &&\
                           XLOG_IMPL_TS(e),                                                \
                       XLOG_IMPL_TK(a, 0) | XLOG_IMPL_TK(b, 1) | XLOG_IMPL_TK(c, 2) | XLOG_IMPL_TK(d, 3) |\
                           XLOG_IMPL_TK(e, 4),                                             \
                       (XLOG_IMPL_ARG(a), XLOG_IMPL_ARG(b), XLOG_IMPL_ARG(c), XLOG_IMPL_ARG(d),\
                        XLOG_IMPL_ARG(e)))
#define XLOG_IMPL_SEND_6(site, level, fmt, a, b, c, d, e, f)                               \
    XLOG_IMPL_SEND_ANY(site, level, 6,                                                     \
                       XLOG_IMPL_S(a) && XLOG_IMPL_S(b) && XLOG_IMPL_S(c) && XLOG_IMPL_S(d) &&\
                           XLOG_IMPL_S(e) && XLOG_IMPL_S(f),                               \
                       (XLOG_IMPL_SLOT(a), XLOG_IMPL_SLOT(b), XLOG_IMPL_SLOT(c), XLOG_IMPL_SLOT(d),\
                        XLOG_IMPL_SLOT(e), XLOG_IMPL_SLOT(f)),                             \
                       XLOG_IMPL_TS(a) && XLOG_IMPL_TS(b) && XLOG_IMPL_TS(c) && XLOG_IMPL_TS(d) &&\
                           XLOG_IMPL_TS(e) && XLOG_IMPL_TS(f),                             \
                       XLOG_IMPL_TK(a, 0) | XLOG_IMPL_TK(b, 1) | XLOG_IMPL_TK(c, 2) | XLOG_IMPL_TK(d, 3) |\
                           XLOG_IMPL_TK(e, 4) | XLOG_IMPL_TK(f, 5),                        \
                       (XLOG_IMPL_ARG(a), XLOG_IMPL_ARG(b), XLOG_IMPL_ARG(c), XLOG_IMPL_ARG(d),\
                        XLOG_IMPL_ARG(e), XLOG_IMPL_ARG(f)))
#define XLOG_IMPL_SEND_7(site, level, fmt, a, b, c, d, e, f, g)                            \
    XLOG_IMPL_SEND_ANY(site, level, 7,                                                     \
                       XLOG_IMPL_S(a) && XLOG_IMPL_S(b) && XLOG_IMPL_S(c) && XLOG_IMPL_S(d) &&\
                           XLOG_IMPL_S(e) && XLOG_IMPL_S(f) && XLOG_IMPL_S(g),             \
                       (XLOG_IMPL_SLOT(a), XLOG_IMPL_SLOT(b), XLOG_IMPL_SLOT(c), XLOG_IMPL_SLOT(d),\
                        XLOG_IMPL_SLOT(e), XLOG_IMPL_SLOT(f), XLOG_IMPL_SLOT(g)),          \
                       XLOG_IMPL_TS(a) && XLOG_IMPL_TS(b) && XLOG_IMPL_TS(c) && XLOG_IMPL_TS(d) &&\
                           XLOG_IMPL_TS(e) && XLOG_IMPL_TS(f) && XLOG_IMPL_TS(g),          \
                       XLOG_IMPL_TK(a, 0) | XLOG_IMPL_TK(b, 1) | XLOG_IMPL_TK(c, 2) | XLOG_IMPL_TK(d, 3) |\
                           XLOG_IMPL_TK(e, 4) | XLOG_IMPL_TK(f, 5) | XLOG_IMPL_TK(g, 6),   \
                       (XLOG_IMPL_ARG(a), XLOG_IMPL_ARG(b), XLOG_IMPL_ARG(c), XLOG_IMPL_ARG(d),\
                        XLOG_IMPL_ARG(e), XLOG_IMPL_ARG(f), XLOG_IMPL_ARG(g)))
#define XLOG_IMPL_SEND_8(site, level, fmt, a, b, c, d, e, f, g, h)                         \
    XLOG_IMPL_SEND_ANY(site, level, 8,                                                     \
                       XLOG_IMPL_S(a) && XLOG_IMPL_S(b) && XLOG_IMPL_S(c) && XLOG_IMPL_S(d) &&\
                           XLOG_IMPL_S(e) && XLOG_IMPL_S(f) && XLOG_IMPL_S(g) && XLOG_IMPL_S(h),\
                       (XLOG_IMPL_SLOT(a), XLOG_IMPL_SLOT(b), XLOG_IMPL_SLOT(c), XLOG_IMPL_SLOT(d),\
                        XLOG_IMPL_SLOT(e), XLOG_IMPL_SLOT(f), XLOG_IMPL_SLOT(g), XLOG_IMPL_SLOT(h)),\
                       XLOG_IMPL_TS(a) && XLOG_IMPL_TS(b) && XLOG_IMPL_TS(c) && XLOG_IMPL_TS(d) &&\
                           XLOG_IMPL_TS(e) && XLOG_IMPL_TS(f) && XLOG_IMPL_TS(g) && XLOG_IMPL_TS(h),\
                       XLOG_IMPL_TK(a, 0) | XLOG_IMPL_TK(b, 1) | XLOG_IMPL_TK(c, 2) | XLOG_IMPL_TK(d, 3) |\
                           XLOG_IMPL_TK(e, 4) | XLOG_IMPL_TK(f, 5) | XLOG_IMPL_TK(g, 6) | XLOG_IMPL_TK(h, 7),\
                       (XLOG_IMPL_ARG(a), XLOG_IMPL_ARG(b), XLOG_IMPL_ARG(c), XLOG_IMPL_ARG(d),\
                        XLOG_IMPL_ARG(e), XLOG_IMPL_ARG(f), XLOG_IMPL_ARG(g), XLOG_IMPL_ARG(h)))
#else
#define XLOG_IMPL_IN_CALLER XLOG_IMPL_NOT_IN_CALLER
#endif

/* Strings captured at the call site (C11).  A call whose arguments are
 * all scalars or strings (char *, signed and unsigned char *, const or not,
 * char arrays), with at least one string, at most XLOG_MAX_SLOTS of them,
 * passes its arguments to xlog_impl_log_captured as an array of
 * xlog_impl_arg: a scalar's slot, or a string's address and its length
 * (strlen at the call site: a constant for a literal).  Each argument's
 * class is a constant (XLOG_IMPL_TEXT_CLASS), and the call's shape, one
 * class per 4 bits, tells the library what the array holds; the site takes
 * that path once the library has found that the format's kinds take the
 * arguments one for one (a %s for each string, the slot fits of "Capture
 * at the call site" for the scalars, as many conversions as arguments;
 * not %ls, %m, a '*' precision for a string, or a fixed one).  Until then,
 * and for ever if they do not, the call takes the branch of "Capture at
 * the call site", that is xlog_impl_log, whose -Wformat check is the same
 * as before. */
#define XLOG_IMPL_TEXT_TYPES(v)                                                            \
    char * : v, const char * : v, signed char * : v, const signed char * : v,              \
        unsigned char * : v, const unsigned char * : v
#define XLOG_IMPL_TEXT_CLASS(x)                                                            \
    _Generic(XLOG_IMPL_RVALUE(x), XLOG_IMPL_TEXT_TYPES(XLOG_IMPL_ARG_STRING),              \
             default: XLOG_IMPL_CLASS(x))
#define XLOG_IMPL_TK(x, i) ((uint32_t)XLOG_IMPL_TEXT_CLASS(x) << (4 * (i)))
#define XLOG_IMPL_TS(x) (XLOG_IMPL_TEXT_CLASS(x) != 0)

/* The array element of an argument: x is evaluated once, by the one
 * association _Generic selects. */
static inline xlog_impl_arg xlog_impl_arg_string(int unused, const void *s)
{
    (void)unused;
    xlog_impl_arg arg = {(uint64_t)(uintptr_t)s,
                         s ? __builtin_strlen((const char *)s) : 0};
    return arg;
}
static inline xlog_impl_arg xlog_impl_arg_none(int unused, ...)
{
    (void)unused;
    xlog_impl_arg arg = {0, 0};
    return arg;
}
static inline xlog_impl_arg xlog_impl_arg_slot(uint64_t slot)
{
    xlog_impl_arg arg = {slot, 0};
    return arg;
}
#define XLOG_IMPL_ARG(x)                                                                   \
    _Generic(XLOG_IMPL_RVALUE(x),                                                          \
             XLOG_IMPL_TEXT_TYPES(_Generic(XLOG_IMPL_RVALUE(x),                            \
                                           XLOG_IMPL_TEXT_TYPES(xlog_impl_arg_string),     \
                                           default: xlog_impl_arg_none)(0, (x))),          \
             default: xlog_impl_arg_slot(XLOG_IMPL_SLOT(x)))

#define XLOG_IMPL_TEXT_CAPTURED(site, level, ...)                                          \
    XLOG_IMPL_CAT(XLOG_IMPL_TEXT_, XLOG_IMPL_COUNT(__VA_ARGS__))(site, level, __VA_ARGS__)
/* textual: every argument a scalar or a string (a constant); shape: their
 * classes; args: their xlog_impl_arg, in parentheses; otherwise: the call
 * of "Capture at the call site". */
#define XLOG_IMPL_TEXT(site, level, fmt, textual, shape, args, otherwise)                 \
    ((textual) && ((shape) & XLOG_IMPL_SHAPE_STRINGS) &&                                   \
             xlog_impl_captured_ready(site, fmt, shape) ?                                  \
         xlog_impl_log_captured_args(site, (level) & XLOG_IMPL_RECORD_BITS, shape,         \
                                     (const xlog_impl_arg[]){XLOG_IMPL_LIST args}) :       \
         otherwise)
#define XLOG_IMPL_TEXT_V(site, level, ...) XLOG_IMPL_CAPTURE_V(site, level, __VA_ARGS__)
#define XLOG_IMPL_TEXT_0(site, level, fmt) XLOG_IMPL_CAPTURE_0(site, level, fmt)
#define XLOG_IMPL_TEXT_1(site, level, fmt, a)                                              \
    XLOG_IMPL_TEXT(site, level, fmt, XLOG_IMPL_TS(a), XLOG_IMPL_TK(a, 0), (XLOG_IMPL_ARG(a)), \
                   XLOG_IMPL_CAPTURE_1(site, level, fmt, a))
#define XLOG_IMPL_TEXT_2(site, level, fmt, a, b)                                           \
    XLOG_IMPL_TEXT(site, level, fmt, XLOG_IMPL_TS(a) && XLOG_IMPL_TS(b),                   \
                   XLOG_IMPL_TK(a, 0) | XLOG_IMPL_TK(b, 1),                                \
                   (XLOG_IMPL_ARG(a), XLOG_IMPL_ARG(b)),                                   \
                   XLOG_IMPL_CAPTURE_2(site, level, fmt, a, b))
#define XLOG_IMPL_TEXT_3(site, level, fmt, a, b, c)                                        \
    XLOG_IMPL_TEXT(site, level, fmt, XLOG_IMPL_TS(a) && XLOG_IMPL_TS(b) && XLOG_IMPL_TS(c), \
                   XLOG_IMPL_TK(a, 0) | XLOG_IMPL_TK(b, 1) | XLOG_IMPL_TK(c, 2),           \
                   (XLOG_IMPL_ARG(a), XLOG_IMPL_ARG(b), XLOG_IMPL_ARG(c)),                 \
                   XLOG_IMPL_CAPTURE_3(site, level, fmt, a, b, c))
#define XLOG_IMPL_TEXT_4(site, level, fmt, a, b, c, d)                                     \
    XLOG_IMPL_TEXT(site, level, fmt, XLOG_IMPL_TS(a) && XLOG_IMPL_TS(b) && XLOG_IMPL_TS(c) && \
                   XLOG_IMPL_TS(d),                                                        \
                   XLOG_IMPL_TK(a, 0) | XLOG_IMPL_TK(b, 1) | XLOG_IMPL_TK(c, 2) |          \
                   XLOG_IMPL_TK(d, 3),                                                     \
                   (XLOG_IMPL_ARG(a), XLOG_IMPL_ARG(b), XLOG_IMPL_ARG(c), XLOG_IMPL_ARG(d)), \
                   XLOG_IMPL_CAPTURE_4(site, level, fmt, a, b, c, d))
#define XLOG_IMPL_TEXT_5(site, level, fmt, a, b, c, d, e)                                  \
    XLOG_IMPL_TEXT(site, level, fmt, XLOG_IMPL_TS(a) && XLOG_IMPL_TS(b) && XLOG_IMPL_TS(c) && \
                   XLOG_IMPL_TS(d) && XLOG_IMPL_TS(e),                                     \
                   XLOG_IMPL_TK(a, 0) | XLOG_IMPL_TK(b, 1) | XLOG_IMPL_TK(c, 2) |          \
                   XLOG_IMPL_TK(d, 3) | XLOG_IMPL_TK(e, 4),                                \
                   (XLOG_IMPL_ARG(a), XLOG_IMPL_ARG(b), XLOG_IMPL_ARG(c), XLOG_IMPL_ARG(d), \
                    XLOG_IMPL_ARG(e)),                                                     \
                   XLOG_IMPL_CAPTURE_5(site, level, fmt, a, b, c, d, e))
#define XLOG_IMPL_TEXT_6(site, level, fmt, a, b, c, d, e, f)                               \
    XLOG_IMPL_TEXT(site, level, fmt, XLOG_IMPL_TS(a) && XLOG_IMPL_TS(b) && XLOG_IMPL_TS(c) && \
                   XLOG_IMPL_TS(d) && XLOG_IMPL_TS(e) && XLOG_IMPL_TS(f),                  \
                   XLOG_IMPL_TK(a, 0) | XLOG_IMPL_TK(b, 1) | XLOG_IMPL_TK(c, 2) |          \
                   XLOG_IMPL_TK(d, 3) | XLOG_IMPL_TK(e, 4) | XLOG_IMPL_TK(f, 5),           \
                   (XLOG_IMPL_ARG(a), XLOG_IMPL_ARG(b), XLOG_IMPL_ARG(c), XLOG_IMPL_ARG(d), \
                    XLOG_IMPL_ARG(e), XLOG_IMPL_ARG(f)),                                   \
                   XLOG_IMPL_CAPTURE_6(site, level, fmt, a, b, c, d, e, f))
#define XLOG_IMPL_TEXT_7(site, level, fmt, a, b, c, d, e, f, g)                            \
    XLOG_IMPL_TEXT(site, level, fmt, XLOG_IMPL_TS(a) && XLOG_IMPL_TS(b) && XLOG_IMPL_TS(c) && \
                   XLOG_IMPL_TS(d) && XLOG_IMPL_TS(e) && XLOG_IMPL_TS(f) && XLOG_IMPL_TS(g), \
                   XLOG_IMPL_TK(a, 0) | XLOG_IMPL_TK(b, 1) | XLOG_IMPL_TK(c, 2) |          \
                   XLOG_IMPL_TK(d, 3) | XLOG_IMPL_TK(e, 4) | XLOG_IMPL_TK(f, 5) |          \
                   XLOG_IMPL_TK(g, 6),                                                     \
                   (XLOG_IMPL_ARG(a), XLOG_IMPL_ARG(b), XLOG_IMPL_ARG(c), XLOG_IMPL_ARG(d), \
                    XLOG_IMPL_ARG(e), XLOG_IMPL_ARG(f), XLOG_IMPL_ARG(g)),                 \
                   XLOG_IMPL_CAPTURE_7(site, level, fmt, a, b, c, d, e, f, g))
#define XLOG_IMPL_TEXT_8(site, level, fmt, a, b, c, d, e, f, g, h)                         \
    XLOG_IMPL_TEXT(site, level, fmt, XLOG_IMPL_TS(a) && XLOG_IMPL_TS(b) && XLOG_IMPL_TS(c) && \
                   XLOG_IMPL_TS(d) && XLOG_IMPL_TS(e) && XLOG_IMPL_TS(f) && XLOG_IMPL_TS(g) && \
                   XLOG_IMPL_TS(h),                                                        \
                   XLOG_IMPL_TK(a, 0) | XLOG_IMPL_TK(b, 1) | XLOG_IMPL_TK(c, 2) |          \
                   XLOG_IMPL_TK(d, 3) | XLOG_IMPL_TK(e, 4) | XLOG_IMPL_TK(f, 5) |          \
                   XLOG_IMPL_TK(g, 6) | XLOG_IMPL_TK(h, 7),                                \
                   (XLOG_IMPL_ARG(a), XLOG_IMPL_ARG(b), XLOG_IMPL_ARG(c), XLOG_IMPL_ARG(d), \
                    XLOG_IMPL_ARG(e), XLOG_IMPL_ARG(f), XLOG_IMPL_ARG(g), XLOG_IMPL_ARG(h)), \
                   XLOG_IMPL_CAPTURE_8(site, level, fmt, a, b, c, d, e, f, g, h))
#elif defined(__cplusplus) && defined(__GNUC__)
#define XLOG_IMPL_LITERAL_ENTRY XLOG_IMPL_CPP_CAPTURED /* see "C++" at the end */
#if XLOG_IMPL_PUT_INLINE
#define XLOG_IMPL_IN_CALLER XLOG_IMPL_CPP_IN_CALLER
#else
#define XLOG_IMPL_IN_CALLER XLOG_IMPL_NOT_IN_CALLER
#endif
#else
#define XLOG_IMPL_LITERAL_ENTRY xlog_impl_log
#define XLOG_IMPL_IN_CALLER XLOG_IMPL_NOT_IN_CALLER
#endif

/* The process-wide level; the floor, the lowest level any rule lets through
 * (or keeps for a backtrace) or any thread's own threshold names; the
 * rules' generation; the calling thread's own threshold (or
 * XLOG_LEVEL_PROCESS).  Written by the library only. */
extern int xlog_impl_process_threshold;
extern int xlog_impl_floor;
extern uint32_t xlog_impl_generation;
extern XLOG_IMPL_TLS int xlog_impl_thread_threshold;

/* For each level, the pass of the rules in force: the rules' generation
 * times 8 plus the level.  A site whose pass for a level equals it writes
 * calls of that level in the caller's code; the library sets a site's pass
 * on a call it writes whole (the level written, not only kept for a
 * backtrace; the site ready for its slots; its format a literal).  A change
 * of the rules changes every entry, so no old pass matches. */
extern uint32_t xlog_impl_pass[XLOG_FATAL + 1];

/* The front of a thread's ring, as lib/rings/ring.h lays it out (the
 * library checks the offsets when it is built): what a call writes in the
 * caller's code.  Part of the library's binary interface: a change of it
 * changes the version's MINOR while MAJOR is 0 (hence the shared library's
 * name). */
typedef struct xlog_impl_ring {
    uint64_t write_pos;  /* where the next record goes (even), plus 1 while a
                            call of the thread writes: on this line, which
                            the back end leaves alone while records come,
                            so that the instruction setting it never waits
                            for another core */
    uint64_t room_end;   /* a record may end at or below this position
                            without the library looking at the ring's lap and
                            tail; 0 makes every call take the library's way
                            (a retired ring, another xlog_open, the back end
                            asleep: lib/frontend/frontend.c, "Room") */
    char *base;          /* one byte below the address of position 0 in
                            this lap's terms: a claimed call's record is at
                            base + write_pos (pos + 1), added as integers
                            (base may lie below the buffer by any multiple
                            of its size) */
    uint64_t text_budget; /* bytes of strings a record carries uncut
                            (cfg.max_message, at most a quarter of the ring) */
    uint64_t library_only[4];
    uint64_t head;       /* published end (even): what the back end polls,
                            which a call only stores to */
} xlog_impl_ring;

/* The calling thread's ring; a ring with no room when it has none. */
extern XLOG_IMPL_TLS xlog_impl_ring *xlog_impl_my_ring;

void xlog_impl_log(xlog_impl_site *site, int level, const char *format, ...) XLOG_IMPL_PRINTF(3, 4);
/* The call of a site ready for its slots (see "Capture at the call site"):
 * one per argument count. */
void xlog_impl_log_0(xlog_impl_site *site, int level);
void xlog_impl_log_1(xlog_impl_site *site, int level, uint64_t a0);
void xlog_impl_log_2(xlog_impl_site *site, int level, uint64_t a0, uint64_t a1);
void xlog_impl_log_3(xlog_impl_site *site, int level, uint64_t a0, uint64_t a1, uint64_t a2);
void xlog_impl_log_4(xlog_impl_site *site, int level, uint64_t a0, uint64_t a1, uint64_t a2,
                     uint64_t a3);
void xlog_impl_log_5(xlog_impl_site *site, int level, uint64_t a0, uint64_t a1, uint64_t a2,
                     uint64_t a3, uint64_t a4);
void xlog_impl_log_6(xlog_impl_site *site, int level, uint64_t a0, uint64_t a1, uint64_t a2,
                     uint64_t a3, uint64_t a4, uint64_t a5);
void xlog_impl_log_7(xlog_impl_site *site, int level, uint64_t a0, uint64_t a1, uint64_t a2,
                     uint64_t a3, uint64_t a4, uint64_t a5, uint64_t a6);
void xlog_impl_log_8(xlog_impl_site *site, int level, uint64_t a0, uint64_t a1, uint64_t a2,
                     uint64_t a3, uint64_t a4, uint64_t a5, uint64_t a6, uint64_t a7);
/* The call of a site ready for its arguments captured with strings among
 * them, or, from C++, all scalars too (see "Strings captured at the call
 * site"); level holds the level and the record flags only
 * (XLOG_IMPL_RECORD_BITS).  xlog_impl_prepare_captured prepares the site
 * with format on its first call and says whether the arguments of this
 * shape fit its format's kinds (then site->captured_shape is shape, else
 * it becomes XLOG_IMPL_SHAPE_NEVER once that is certain). */
void xlog_impl_log_captured(xlog_impl_site *site, int level, uint32_t shape,
                            const xlog_impl_arg *args, size_t bytes);
int xlog_impl_prepare_captured(xlog_impl_site *site, const char *format, uint32_t shape);
void xlog_impl_check_failed(const char *cond, const char *file, int line, const char *func,
                            const char *format, ...) XLOG_IMPL_PRINTF(5, 6) XLOG_IMPL_NORETURN;
void xlog_impl_log_dynamic(xlog_impl_site *site, int level, const char *format, ...)
    XLOG_IMPL_PRINTF(3, 4);
void xlog_impl_log_rated(xlog_impl_site *site, int level, const char *format, ...)
    XLOG_IMPL_PRINTF(3, 4);
uint64_t xlog_impl_site_refresh(xlog_impl_site *site);
int xlog_impl_every_ms(xlog_impl_site *site, unsigned long ms);

/* The second test, for a call at or above the floor (the first, in
 * XLOG_IMPL_AT): 0 to skip it, else the level and what to do with it, from
 * the thread's own threshold or the site's cached thresholds. */
static inline int xlog_impl_decide(xlog_impl_site *site, int level)
{
    int own = xlog_impl_thread_threshold;
    if (own >= 0)
        return level >= own ? level | XLOG_IMPL_GO | XLOG_IMPL_OWN : 0;
    uint64_t levels = __atomic_load_n(&site->levels, __ATOMIC_RELAXED);
    if (XLOG_IMPL_UNLIKELY((uint32_t)(levels >> 32) !=
                           __atomic_load_n(&xlog_impl_generation, __ATOMIC_RELAXED)))
        levels = xlog_impl_site_refresh(site);
    if (level >= (int)(levels & 0xff))
        return level | XLOG_IMPL_GO;
    if (level >= (int)((levels >> 8) & 0xff))
        return level | XLOG_IMPL_GO | XLOG_IMPL_KEEP;
    return 0;
}

/* The record header a call writes (lib/record/record.h: xlog_record, whose
 * layout the library checks against this one). */
typedef struct xlog_impl_record {
    uint32_t size;
    uint8_t type, level, flags, nargs;
    uint32_t tsc[2]; /* the 64-bit timestamp's low and high halves */
    const void *site;
} xlog_impl_record;
#define XLOG_IMPL_RECORD_SITE 1 /* XLOG_REC_SITE */

#if XLOG_IMPL_PUT_INLINE

/* A word the library changes and this thread reads once per call, where a
 * barrier (a signal fence) or a call in every path keeps the compiler from
 * reading it once for many calls: a plain load, which gcc folds into the
 * compare that uses it (it folds no atomic or volatile load), and which on
 * x86-64 is the instruction a relaxed atomic load is. */
#define XLOG_IMPL_PEEK(word) (word)

/* Whether the site writes calls of this level in the caller's code. */
static inline int xlog_impl_passes(xlog_impl_site *site, int level)
{
    return (unsigned)level <= (unsigned)XLOG_FATAL &&
           __atomic_load_n(&site->pass, __ATOMIC_ACQUIRE) == XLOG_IMPL_PEEK(xlog_impl_pass[level]);
}

/* Claims room for a call's record of size bytes in the thread's ring, and
 * its position, as the library's shortest path does
 * (lib/frontend/frontend.c, "Room"): sets bit 0 of write_pos and learns
 * whether it was set already in one instruction, which a signal cannot
 * cut in two: set, a call of this thread (the one a signal handler's call
 * interrupted) is under way, and the library drops and counts this one;
 * then checks the room, which the back end makes 0 before it sleeps or
 * retires the ring, after which it looks at every write_pos (membarrier):
 * either it sees this call under way or the call sees no room.  0, nothing
 * written and bit 0 as it was, when the call must take the library's way.
 * Else 1 with write_pos (the record's position plus 1) in *claimed: the
 * record goes to base + *claimed, added as integers (see xlog_impl_ring). */
static inline __attribute__((always_inline)) int xlog_impl_claim(xlog_impl_ring *r,
                                                                 uint64_t size, uint64_t *claimed)
{
    unsigned char under_way;
    __asm__ __volatile__("btsq $0, %0" : "+m"(r->write_pos), "=@ccc"(under_way) : : "memory");
    if (XLOG_IMPL_UNLIKELY(under_way))
        return 0;
    *claimed = r->write_pos;
    if (XLOG_IMPL_UNLIKELY(*claimed - 1 + size > XLOG_IMPL_PEEK(r->room_end))) {
        __atomic_store_n(&r->write_pos, *claimed - 1, __ATOMIC_RELAXED);
        return 0;
    }
    return 1;
}

/* The header of a claimed record, with the clock read now. */
static inline __attribute__((always_inline)) void
xlog_impl_header(xlog_impl_record *rec, uint64_t size, int level, unsigned n, const void *copy)
{
    rec->size = (uint32_t)size;
    rec->type = XLOG_IMPL_RECORD_SITE;
    rec->level = (uint8_t)level;
    rec->flags = 0;
    rec->nargs = (uint8_t)n;
    /* rdtsc's two halves, stored as they come. */
    __asm__ __volatile__("rdtsc" : "=a"(rec->tsc[0]), "=d"(rec->tsc[1]));
    rec->site = copy;
}

/* Publishes the records up to end, then clears bit 0 of write_pos: in
 * this order, so that the back end, which reads write_pos before head,
 * never finds the call over and its record not yet published. */
static inline __attribute__((always_inline)) void xlog_impl_publish(xlog_impl_ring *r,
                                                                    uint64_t end)
{
    __atomic_store_n(&r->head, end, __ATOMIC_RELEASE);
    __atomic_store_n(&r->write_pos, end, __ATOMIC_RELEASE);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/* Writes the record of a call with n slots into the thread's ring; 0,
 * nothing written, when the call must take the library's way. */
static inline __attribute__((always_inline)) int
xlog_impl_put(xlog_impl_site *site, int level, const uint64_t *slots, unsigned n)
{
    xlog_impl_ring *r = xlog_impl_my_ring;
    uint64_t claimed, size = sizeof(xlog_impl_record) + 8 * (uint64_t)n;
    if (!xlog_impl_claim(r, size, &claimed))
        return 0;
    xlog_impl_record *rec = (xlog_impl_record *)((uintptr_t)r->base + claimed);
    xlog_impl_header(rec, size, level, n, __atomic_load_n(&site->scalar_copy, __ATOMIC_RELAXED));
    uint64_t *args = (uint64_t *)(rec + 1);
    for (unsigned i = 0; i < n; i++)
        args[i] = slots[i];
    xlog_impl_publish(r, claimed - 1 + size);
    return 1;
}

/* A call of a site that passes: written here, or by the library after its
 * own decision (the thread's threshold, a full lap, a signal handler's
 * call inside another). */
static inline __attribute__((always_inline)) void
xlog_impl_send(xlog_impl_site *site, int level, const uint64_t *s, unsigned n)
{
    if (xlog_impl_put(site, level, s, n))
        return;
    int decided = xlog_impl_decide(site, level);
    if (!decided)
        return;
    int call = decided & XLOG_IMPL_RECORD_BITS;
    switch (n) {
    case 0: xlog_impl_log_0(site, call); break;
    case 1: xlog_impl_log_1(site, call, s[0]); break;
    case 2: xlog_impl_log_2(site, call, s[0], s[1]); break;
    case 3: xlog_impl_log_3(site, call, s[0], s[1], s[2]); break;
    case 4: xlog_impl_log_4(site, call, s[0], s[1], s[2], s[3]); break;
    case 5: xlog_impl_log_5(site, call, s[0], s[1], s[2], s[3], s[4]); break;
    case 6: xlog_impl_log_6(site, call, s[0], s[1], s[2], s[3], s[4], s[5]); break;
    case 7: xlog_impl_log_7(site, call, s[0], s[1], s[2], s[3], s[4], s[5], s[6]); break;
    default: xlog_impl_log_8(site, call, s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]);
    }
}
#endif

/* Whether the site takes xlog_impl_log_captured with arguments of this
 * shape: known at once after its first call (an inline function's site may
 * be reached with several formats: only its first is captured). */
static inline int xlog_impl_captured_ready(xlog_impl_site *site, const char *format,
                                           uint32_t shape)
{
    uint32_t known = __atomic_load_n(&site->captured_shape, __ATOMIC_ACQUIRE);
    if (known == shape && site->format == format)
        return 1;
    return known == 0 && xlog_impl_prepare_captured(site, format, shape);
}

/* The call of xlog_impl_log_captured, with the bytes the arguments take
 * uncut: 8 for a scalar, 4 and its length for a string.  The shape is a
 * constant: written out term by term, this folds into a sum of the
 * strings' lengths and a constant (a loop is not always unrolled). */
#define XLOG_IMPL_ARG_BYTES(shape, args, i)                                                \
    (((shape) >> (4 * (i)) & 15) == XLOG_IMPL_ARG_STRING ? 4 + (args)[i].length :           \
     ((shape) >> (4 * (i)) & 15) != 0                   ? 8 :                              \
                                                          0)
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void xlog_impl_log_captured_args(xlog_impl_site *site, int level, uint32_t shape,
                                               const xlog_impl_arg *args)
{
    xlog_impl_log_captured(site, level, shape, args,
                           XLOG_IMPL_ARG_BYTES(shape, args, 0) +
                               XLOG_IMPL_ARG_BYTES(shape, args, 1) +
                               XLOG_IMPL_ARG_BYTES(shape, args, 2) +
                               XLOG_IMPL_ARG_BYTES(shape, args, 3) +
                               XLOG_IMPL_ARG_BYTES(shape, args, 4) +
                               XLOG_IMPL_ARG_BYTES(shape, args, 5) +
                               XLOG_IMPL_ARG_BYTES(shape, args, 6) +
                               XLOG_IMPL_ARG_BYTES(shape, args, 7));
}

/* A string's bytes into a record: a call of memcpy costs more than most
 * strings of a log line, so 4 to 16 bytes are two loads and two stores
 * that may overlap. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void xlog_impl_copy_text(char *out, const char *in, size_t n)
{
    if (n - 8 <= 8) {
        uint64_t head, tail;
        __builtin_memcpy(&head, in, 8);
        __builtin_memcpy(&tail, in + n - 8, 8);
        __builtin_memcpy(out, &head, 8);
        __builtin_memcpy(out + n - 8, &tail, 8);
    } else if (n - 4 <= 3) {
        uint32_t head, tail;
        __builtin_memcpy(&head, in, 4);
        __builtin_memcpy(&tail, in + n - 4, 4);
        __builtin_memcpy(out, &head, 4);
        __builtin_memcpy(out + n - 4, &tail, 4);
    } else {
        __builtin_memcpy(out, in, n);
    }
}

#if XLOG_IMPL_PUT_INLINE
/* Writes the record of a call with strings (see "Strings captured at the
 * call site") into the thread's ring, as xlog_impl_put does for slots:
 * each string as its length (XLOG_NULL_STRING, all ones, for NULL) and
 * its bytes, each scalar as its slot.  0, nothing written, when the
 * library must write it: no room, or strings the library would cut
 * (more than the ring's text_budget). */
static inline __attribute__((always_inline)) int
xlog_impl_put_text(xlog_impl_site *site, int level, uint32_t shape, const xlog_impl_arg *args,
                   unsigned n)
{
    uint64_t bytes = XLOG_IMPL_ARG_BYTES(shape, args, 0) + XLOG_IMPL_ARG_BYTES(shape, args, 1) +
                     XLOG_IMPL_ARG_BYTES(shape, args, 2) + XLOG_IMPL_ARG_BYTES(shape, args, 3) +
                     XLOG_IMPL_ARG_BYTES(shape, args, 4) + XLOG_IMPL_ARG_BYTES(shape, args, 5) +
                     XLOG_IMPL_ARG_BYTES(shape, args, 6) + XLOG_IMPL_ARG_BYTES(shape, args, 7);
    xlog_impl_ring *r = xlog_impl_my_ring;
    if (XLOG_IMPL_UNLIKELY(bytes > XLOG_IMPL_PEEK(r->text_budget)))
        return 0;
    uint64_t claimed, size = (sizeof(xlog_impl_record) + bytes + 7) & ~(uint64_t)7;
    if (!xlog_impl_claim(r, size, &claimed))
        return 0;
    xlog_impl_record *rec = (xlog_impl_record *)((uintptr_t)r->base + claimed);
    xlog_impl_header(rec, size, level, n, __atomic_load_n(&site->copy, __ATOMIC_RELAXED));
    char *out = (char *)(rec + 1);
    /* Unrolled, each argument's class and a literal's address and length
     * are constants. */
#if defined(__clang__)
#pragma unroll
#else
#pragma GCC unroll 8
#endif
    for (unsigned i = 0; i < n; i++) {
        if ((shape >> (4 * i) & 15) == XLOG_IMPL_ARG_STRING) {
            uint32_t length = args[i].value ? (uint32_t)args[i].length : 0xffffffffu;
            __builtin_memcpy(out, &length, 4);
            out += 4;
            if (args[i].value) {
                xlog_impl_copy_text(out, (const char *)(uintptr_t)args[i].value, args[i].length);
                out += args[i].length;
            }
        } else {
            __builtin_memcpy(out, &args[i].value, 8);
            out += 8;
        }
    }
    xlog_impl_publish(r, claimed - 1 + size);
    return 1;
}

/* A call with strings of a site that passes: written here, or by the
 * library after its own decision. */
static inline __attribute__((always_inline)) void
xlog_impl_send_text(xlog_impl_site *site, int level, uint32_t shape, const xlog_impl_arg *args,
                    unsigned n)
{
    if (xlog_impl_put_text(site, level, shape, args, n))
        return;
    int decided = xlog_impl_decide(site, level);
    if (decided)
        xlog_impl_log_captured_args(site, decided & XLOG_IMPL_RECORD_BITS, shape, args);
}
#endif

static inline int xlog_impl_every_n(xlog_impl_site *site, unsigned long n)
{
    uint64_t count = __atomic_fetch_add(&site->rate_state, 1, __ATOMIC_RELAXED);
    if (n <= 1 || count % n == 0)
        return 1;
    __atomic_fetch_add(&site->suppressed, 1, __ATOMIC_RELAXED);
    return 0;
}

static inline int xlog_enabled(int level)
{
    int threshold = xlog_impl_thread_threshold;
    if (threshold < 0)
        threshold = __atomic_load_n(&xlog_impl_process_threshold, __ATOMIC_RELAXED);
    return (unsigned)level <= (unsigned)XLOG_FATAL && level >= threshold;
}

#ifdef __cplusplus
}
#endif

/* ------------------------------------------------------------------------ */
/* C++: arguments classified by templates (not for direct use)              */
/* ------------------------------------------------------------------------ */

/* In C++ (11 and later, g++ and clang++), XLOG's arguments are classified
 * at compile time by their types (see XLOG for what may be passed): a
 * call of at most XLOG_MAX_SLOTS arguments that are all scalars takes
 * xlog_impl_log_<n> with the slots C11 would pass, one with strings
 * (const char *, char arrays, std::string, std::string_view) takes
 * xlog_impl_log_captured as in C11, once the site is ready (the same
 * check: xlog_impl_captured_ready).  Until then, and for a site whose
 * format does not take its arguments as they are (%m, %.*s, a long double,
 * a wide string...), the call takes xlog_impl_log with each argument as
 * printf would see it (XLOG_IMPL_CPP_VA: a std::string's c_str(), an
 * enum's value...), and -Wformat checks that call as it checks a C call.
 * A call of more than XLOG_MAX_SLOTS arguments passes them as they are to
 * xlog_impl_log, as before. */
#if defined(__cplusplus) && defined(__GNUC__)
#include <cstring>
#include <string>
#include <type_traits>
#if __cplusplus >= 201703L && defined(__has_include)
#if __has_include(<string_view>)
#include <string_view>
#define XLOG_IMPL_STRING_VIEW 1
#endif
#endif

namespace xlog_impl_cpp {

/* An argument's class: a slot's (XLOG_IMPL_SLOT_*), a string
 * (XLOG_IMPL_ARG_STRING), one only the variable argument list carries
 * (a long double, a wide string), or none: a type printf cannot print. */
enum { cannot_print = 0, variadic_only = 8 };

/* traits<T>, for T an argument's type without reference, const or array:
 * its class; whether it is a string object (std::string, string_view),
 * which only %s may take; for a scalar its slot (slot); for what can be
 * captured its element of xlog_impl_arg (arg); and what printf takes for
 * it (vararg). */
template <class T, class Enable = void> struct traits {
    static const unsigned cls = cannot_print;
    static const bool object = false;
    static int vararg(const T &) { return 0; } /* the static_assert says why */
};

template <class T> struct scalar_arg {
    static const bool object = false;
    static xlog_impl_arg arg(T v) /* by value: a volatile argument is read once */
    {
        xlog_impl_arg a = {traits<T>::slot(v), 0};
        return a;
    }
};

/* Every integer promoted to int (bool, the char types, short, int,
 * unsigned): sign-extended as va_arg(ap, int) reads it. */
template <class T>
struct traits<T, typename std::enable_if<std::is_integral<T>::value &&
                                         sizeof(T) <= sizeof(int)>::type> : scalar_arg<T> {
    static const unsigned cls = XLOG_IMPL_SLOT_INT;
    static uint64_t slot(T v) { return (uint64_t)(int64_t)(int)v; }
    static T vararg(T v) { return v; }
};
template <class T>
struct traits<T, typename std::enable_if<std::is_integral<T>::value && sizeof(T) == 8>::type>
    : scalar_arg<T> {
    static const unsigned cls = XLOG_IMPL_SLOT_64;
    static uint64_t slot(T v) { return (uint64_t)v; }
    static T vararg(T v) { return v; }
};
template <class T>
struct traits<T, typename std::enable_if<std::is_same<T, float>::value ||
                                         std::is_same<T, double>::value>::type> : scalar_arg<T> {
    static const unsigned cls = XLOG_IMPL_SLOT_DOUBLE;
    static uint64_t slot(T v)
    {
        double d = v;
        uint64_t bits;
        std::memcpy(&bits, &d, sizeof bits);
        return bits;
    }
    static T vararg(T v) { return v; }
};
template <> struct traits<long double> {
    static const unsigned cls = variadic_only;
    static const bool object = false;
    static long double vararg(long double v) { return v; }
};
/* Enums, scoped or not: as their underlying integer. */
template <class T>
struct traits<T, typename std::enable_if<std::is_enum<T>::value>::type> : scalar_arg<T> {
    typedef typename std::underlying_type<T>::type underlying;
    static const unsigned cls = traits<underlying>::cls;
    static uint64_t slot(T v) { return traits<underlying>::slot(static_cast<underlying>(v)); }
    static underlying vararg(T v) { return static_cast<underlying>(v); }
};
/* Pointers other than strings, and nullptr: their address. */
template <class T> struct traits<T *, void> : scalar_arg<T *> {
    static const unsigned cls = XLOG_IMPL_SLOT_64;
    static uint64_t slot(T *p) { return (uint64_t)(uintptr_t)p; }
    static T *vararg(T *p) { return p; }
};
template <> struct traits<decltype(nullptr)> : scalar_arg<decltype(nullptr)> {
    static const unsigned cls = XLOG_IMPL_SLOT_64;
    static uint64_t slot(decltype(nullptr)) { return 0; }
    static const void *vararg(decltype(nullptr)) { return nullptr; }
};

/* Strings: the address and the length (strlen); NULL prints "(null)". */
template <class C> struct c_string {
    static const unsigned cls = XLOG_IMPL_ARG_STRING;
    static const bool object = false;
    static xlog_impl_arg arg(const C *s)
    {
        xlog_impl_arg a = {(uint64_t)(uintptr_t)s, s ? __builtin_strlen((const char *)s) : 0};
        return a;
    }
    static const C *vararg(const C *s) { return s; }
};
template <> struct traits<char *> : c_string<char> {};
template <> struct traits<const char *> : c_string<char> {};
template <> struct traits<signed char *> : c_string<signed char> {};
template <> struct traits<const signed char *> : c_string<signed char> {};
template <> struct traits<unsigned char *> : c_string<unsigned char> {};
template <> struct traits<const unsigned char *> : c_string<unsigned char> {};
/* Wide strings, for %ls: the variable argument list only. */
template <class W> struct wide_string {
    static const unsigned cls = variadic_only;
    static const bool object = false;
    static const W *vararg(const W *s) { return s; }
};
template <> struct traits<wchar_t *> : wide_string<wchar_t> {};
template <> struct traits<const wchar_t *> : wide_string<wchar_t> {};

/* String objects, by value: their bytes and their size (no NUL needed). */
template <> struct traits<std::string> {
    static const unsigned cls = XLOG_IMPL_ARG_STRING;
    static const bool object = true;
    static xlog_impl_arg arg(const std::string &s)
    {
        xlog_impl_arg a = {(uint64_t)(uintptr_t)s.data(), s.size()};
        return a;
    }
    static const char *vararg(const std::string &s) { return s.c_str(); }
};
#ifdef XLOG_IMPL_STRING_VIEW
template <> struct traits<std::string_view> {
    static const unsigned cls = XLOG_IMPL_ARG_STRING;
    static const bool object = true;
    static xlog_impl_arg arg(std::string_view s)
    {
        /* An empty view may have no address: "" rather than "(null)". */
        xlog_impl_arg a = {(uint64_t)(uintptr_t)(s.data() ? s.data() : ""), s.size()};
        return a;
    }
};
#endif

template <class T> struct of {
    typedef traits<typename std::decay<T>::type> type;
};

/* The argument as it is passed on: a scalar by value (a bit-field, a
 * volatile, an array as its pointer: read once, here), anything else by
 * reference. */
template <class T>
inline typename std::enable_if<std::is_scalar<T>::value, T>::type value_of(T v)
{
    return v;
}
template <class T>
inline typename std::enable_if<!std::is_scalar<typename std::decay<T>::type>::value,
                               const T &>::type
value_of(const T &v)
{
    return v;
}

/* What the variable argument list gets: hold keeps a string_view's bytes
 * with a NUL, in a std::string that lives until the end of the call's
 * statement (only a site that cannot capture its arguments, or a format
 * that is not a literal, gets there); vararg converts. */
template <class T> inline const T &hold(const T &x) { return x; }
#ifdef XLOG_IMPL_STRING_VIEW
inline std::string hold(std::string_view x) { return std::string(x); }
#endif
template <class T>
inline auto vararg(const T &x) -> decltype(of<T>::type::vararg(x))
{
    return of<T>::type::vararg(x);
}

/* A compile error for an argument printf cannot print, naming it. */
template <unsigned I, bool Printable> struct printable {
    static_assert(Printable || I != 1,
                  "xlog: argument 1 of this call has a type printf cannot print");
    static_assert(Printable || I != 2,
                  "xlog: argument 2 of this call has a type printf cannot print");
    static_assert(Printable || I != 3,
                  "xlog: argument 3 of this call has a type printf cannot print");
    static_assert(Printable || I != 4,
                  "xlog: argument 4 of this call has a type printf cannot print");
    static_assert(Printable || I != 5,
                  "xlog: argument 5 of this call has a type printf cannot print");
    static_assert(Printable || I != 6,
                  "xlog: argument 6 of this call has a type printf cannot print");
    static_assert(Printable || I != 7,
                  "xlog: argument 7 of this call has a type printf cannot print");
    static_assert(Printable || I != 8,
                  "xlog: argument 8 of this call has a type printf cannot print");
    static const bool value = Printable;
};

/* The call's arguments (their types as decltype((x)) gives them), from
 * the I-th: their shape, whether they can all be captured, and which are
 * string objects (bit i for argument i). */
template <unsigned I, class... Ts> struct call_from {
    static const uint32_t shape = 0;
    static const bool capturable = true;
    static const uint32_t objects = 0;
};
template <unsigned I, class T, class... Ts> struct call_from<I, T, Ts...> {
    typedef typename of<T>::type t;
    static const bool ok = printable<I + 1, t::cls != cannot_print>::value;
    typedef call_from<I + 1, Ts...> rest;
    static const uint32_t shape = (uint32_t)(t::cls & 7) << (4 * I) | rest::shape;
    static const bool capturable = ok && t::cls != variadic_only && rest::capturable;
    static const uint32_t objects = (t::object ? 1u << I : 0u) | rest::objects;
};
template <class... Ts> struct call : call_from<0, Ts...> {};

/* The conversion that reads argument i of a format (a constant
 * expression, for a literal): 's' for a plain %s, '*' for a '*' width or
 * precision, 0 for none, else the conversion's letter ('l' for %ls).
 * %% and %m read nothing.  Text is skipped 8 bytes at a time where it
 * can be, so that a long format stays within the compiler's constexpr
 * depth. */
constexpr bool plain8(const char *p)
{
    return p[0] && p[0] != '%' && p[1] && p[1] != '%' && p[2] && p[2] != '%' && p[3] &&
           p[3] != '%' && p[4] && p[4] != '%' && p[5] && p[5] != '%' && p[6] && p[6] != '%' &&
           p[7] && p[7] != '%';
}
constexpr const char *skip_flags(const char *p)
{
    return (*p == '-' || *p == '+' || *p == ' ' || *p == '#' || *p == '0' || *p == '\'' ||
            *p == 'I')
               ? skip_flags(p + 1)
               : p;
}
constexpr const char *skip_digits(const char *p)
{
    return *p >= '0' && *p <= '9' ? skip_digits(p + 1) : p;
}
constexpr const char *skip_length(const char *p)
{
    return (*p == 'h' || *p == 'l' || *p == 'L' || *p == 'q' || *p == 'j' || *p == 'z' ||
            *p == 'Z' || *p == 't')
               ? skip_length(p + 1)
               : p;
}
constexpr int conversion_of(const char *p, unsigned i);
constexpr int at_conversion(const char *c, const char *length, unsigned i)
{
    return *c == 0     ? 0
           : *c == 'm' ? conversion_of(c + 1, i)
           : i == 0    ? (*c == 's' && length != c ? 'l' : *c)
                       : conversion_of(c + 1, i - 1);
}
constexpr int after_width(const char *p, unsigned i)
{
    return *p != '.'     ? at_conversion(skip_length(p), p, i)
           : p[1] == '*' ? (i == 0 ? '*' : at_conversion(skip_length(p + 2), p + 2, i - 1))
                         : at_conversion(skip_length(skip_digits(p + 1)), skip_digits(p + 1), i);
}
constexpr int after_flags(const char *p, unsigned i)
{
    return *p == '*' ? (i == 0 ? '*' : after_width(p + 1, i - 1)) : after_width(skip_digits(p), i);
}
constexpr int conversion_of(const char *p, unsigned i)
{
    return plain8(p)     ? conversion_of(p + 8, i)
           : *p == 0     ? 0
           : *p != '%'   ? conversion_of(p + 1, i)
           : p[1] == '%' ? conversion_of(p + 2, i)
                         : after_flags(skip_flags(p + 1), i);
}
/* The first string object (objects: bit i for argument i) whose
 * conversion is not %s, counted from 1; 0 if none. */
constexpr unsigned misplaced_string(const char *format, uint32_t objects, unsigned i = 0)
{
    return objects == 0 ? 0
           : (objects & 1) && conversion_of(format, i) != 's'
               ? i + 1
               : misplaced_string(format, objects >> 1, i + 1);
}
template <unsigned I> struct string_for_s {
    static_assert(I != 1,
                  "xlog: argument 1 of this call is a string object and its conversion is not %s");
    static_assert(I != 2,
                  "xlog: argument 2 of this call is a string object and its conversion is not %s");
    static_assert(I != 3,
                  "xlog: argument 3 of this call is a string object and its conversion is not %s");
    static_assert(I != 4,
                  "xlog: argument 4 of this call is a string object and its conversion is not %s");
    static_assert(I != 5,
                  "xlog: argument 5 of this call is a string object and its conversion is not %s");
    static_assert(I != 6,
                  "xlog: argument 6 of this call is a string object and its conversion is not %s");
    static_assert(I != 7,
                  "xlog: argument 7 of this call is a string object and its conversion is not %s");
    static_assert(I != 8,
                  "xlog: argument 8 of this call is a string object and its conversion is not %s");
    static const int value = 0;
};

/* The calls of a ready site. */
inline void log_slots(xlog_impl_site *s, int l) { xlog_impl_log_0(s, l); }
inline void log_slots(xlog_impl_site *s, int l, uint64_t a) { xlog_impl_log_1(s, l, a); }
inline void log_slots(xlog_impl_site *s, int l, uint64_t a, uint64_t b)
{
    xlog_impl_log_2(s, l, a, b);
}
inline void log_slots(xlog_impl_site *s, int l, uint64_t a, uint64_t b, uint64_t c)
{
    xlog_impl_log_3(s, l, a, b, c);
}
inline void log_slots(xlog_impl_site *s, int l, uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    xlog_impl_log_4(s, l, a, b, c, d);
}
inline void log_slots(xlog_impl_site *s, int l, uint64_t a, uint64_t b, uint64_t c, uint64_t d,
                      uint64_t e)
{
    xlog_impl_log_5(s, l, a, b, c, d, e);
}
inline void log_slots(xlog_impl_site *s, int l, uint64_t a, uint64_t b, uint64_t c, uint64_t d,
                      uint64_t e, uint64_t f)
{
    xlog_impl_log_6(s, l, a, b, c, d, e, f);
}
inline void log_slots(xlog_impl_site *s, int l, uint64_t a, uint64_t b, uint64_t c, uint64_t d,
                      uint64_t e, uint64_t f, uint64_t g)
{
    xlog_impl_log_7(s, l, a, b, c, d, e, f, g);
}
inline void log_slots(xlog_impl_site *s, int l, uint64_t a, uint64_t b, uint64_t c, uint64_t d,
                      uint64_t e, uint64_t f, uint64_t g, uint64_t h)
{
    xlog_impl_log_8(s, l, a, b, c, d, e, f, g, h);
}

/* capturable: a constant; a call that cannot be captured never gets here,
 * but must compile. */
template <uint32_t Shape, class... A>
inline void log_captured(std::false_type, xlog_impl_site *, int, const A &...)
{
}
template <uint32_t Shape, class... A>
inline void log_with_strings(std::true_type, xlog_impl_site *site, int level, const A &...args)
{
    const xlog_impl_arg array[] = {of<A>::type::arg(args)...};
    xlog_impl_log_captured_args(site, level, Shape, array);
}
template <uint32_t Shape, class... A>
inline void log_with_strings(std::false_type, xlog_impl_site *site, int level, const A &...args)
{
    log_slots(site, level, of<A>::type::slot(args)...);
}
template <uint32_t Shape, class... A>
inline void log_captured(std::true_type, xlog_impl_site *site, int level, const A &...args)
{
    log_with_strings<Shape>(std::integral_constant<bool, (Shape & XLOG_IMPL_SHAPE_STRINGS) != 0>(),
                            site, level, args...);
}

#if XLOG_IMPL_PUT_INLINE
/* A call of scalars only, of a site that passes (XLOG_IMPL_CPP_IN_CALLER):
 * written in the caller's code, as C11's. */
template <class... A>
__attribute__((always_inline)) inline void send_slots(std::true_type, xlog_impl_site *site,
                                                      int level, const A &...args)
{
    const uint64_t slots[] = {of<A>::type::slot(args)...};
    xlog_impl_send(site, level, slots, sizeof...(A));
}
template <class... A> inline void send_slots(std::false_type, xlog_impl_site *, int, const A &...)
{
}
/* A call with strings, of a site that passes: written in the caller's code
 * (xlog_impl_put_text), as C11's. */
template <uint32_t Shape, class... A>
__attribute__((always_inline)) inline void send_text(std::true_type, xlog_impl_site *site,
                                                     int level, const A &...args)
{
    const xlog_impl_arg array[] = {of<A>::type::arg(args)...};
    xlog_impl_send_text(site, level, Shape, array, sizeof...(A));
}
template <uint32_t Shape, class... A>
inline void send_text(std::false_type, xlog_impl_site *, int, const A &...)
{
}
#endif

/* A call without arguments: its slots' site (as C11's XLOG_IMPL_CAPTURE_0). */
inline bool ready_without_arguments(xlog_impl_site *site, const char *format)
{
    return __atomic_load_n(&site->scalar_copy, __ATOMIC_ACQUIRE) != nullptr &&
           site->format == format;
}

} /* namespace xlog_impl_cpp */

#define XLOG_IMPL_CPP_CAPTURED(site, level, ...)                                           \
    XLOG_IMPL_CAT(XLOG_IMPL_CPP_, XLOG_IMPL_COUNT(__VA_ARGS__))(site, level, __VA_ARGS__)
#define XLOG_IMPL_CPP_V(site, level, ...) xlog_impl_log(site, level, __VA_ARGS__)
#define XLOG_IMPL_CPP_0(site, level, fmt)                                                  \
    (::xlog_impl_cpp::ready_without_arguments(site, fmt) ?                                 \
         xlog_impl_log_0(site, (level) & XLOG_IMPL_RECORD_BITS) :                          \
         xlog_impl_log(site, (level) | XLOG_IMPL_SLOTTED, fmt))
/* types: decltype((x)) of each argument, args: the arguments, in
 * parentheses.  The string objects' conversions are checked only for a
 * literal format (__builtin_constant_p: a constant expression either
 * way). */
#define XLOG_IMPL_CPP(site, level, fmt, types, args, varargs)                              \
    ((void)::xlog_impl_cpp::string_for_s<                                                  \
         ::xlog_impl_cpp::call<XLOG_IMPL_LIST types>::objects == 0 || !__builtin_constant_p(fmt) \
             ? 0                                                                           \
             : ::xlog_impl_cpp::misplaced_string(                                          \
                   fmt, ::xlog_impl_cpp::call<XLOG_IMPL_LIST types>::objects)>::value,     \
     ::xlog_impl_cpp::call<XLOG_IMPL_LIST types>::capturable &&                            \
             xlog_impl_captured_ready(site, fmt,                                           \
                                      ::xlog_impl_cpp::call<XLOG_IMPL_LIST types>::shape) ? \
         ::xlog_impl_cpp::log_captured<::xlog_impl_cpp::call<XLOG_IMPL_LIST types>::shape>( \
             ::std::integral_constant<bool,                                                \
                                    ::xlog_impl_cpp::call<XLOG_IMPL_LIST types>::capturable>(), \
             site, (level) & XLOG_IMPL_RECORD_BITS, XLOG_IMPL_LIST args) :                 \
         xlog_impl_log(site, level, fmt, XLOG_IMPL_LIST varargs))
/* What printf sees of x. */
#define XLOG_IMPL_VA(x) ::xlog_impl_cpp::vararg(::xlog_impl_cpp::hold(XLOG_IMPL_VALUE(x)))
#define XLOG_IMPL_VALUE(x) ::xlog_impl_cpp::value_of(x)
#define XLOG_IMPL_CPP_1(site, level, fmt, a)                                               \
    XLOG_IMPL_CPP(site, level, fmt,                                                        \
                  (decltype((a))),                                                         \
                  (XLOG_IMPL_VALUE(a)),                                                    \
                  (XLOG_IMPL_VA(a)))
#define XLOG_IMPL_CPP_2(site, level, fmt, a, b)                                            \
    XLOG_IMPL_CPP(site, level, fmt,                                                        \
                  (decltype((a)), decltype((b))),                                          \
                  (XLOG_IMPL_VALUE(a), XLOG_IMPL_VALUE(b)),                                \
                  (XLOG_IMPL_VA(a), XLOG_IMPL_VA(b)))
#define XLOG_IMPL_CPP_3(site, level, fmt, a, b, c)                                         \
    XLOG_IMPL_CPP(site, level, fmt,                                                        \
                  (decltype((a)), decltype((b)), decltype((c))),                           \
                  (XLOG_IMPL_VALUE(a), XLOG_IMPL_VALUE(b), XLOG_IMPL_VALUE(c)),            \
                  (XLOG_IMPL_VA(a), XLOG_IMPL_VA(b), XLOG_IMPL_VA(c)))
#define XLOG_IMPL_CPP_4(site, level, fmt, a, b, c, d)                                      \
    XLOG_IMPL_CPP(site, level, fmt,                                                        \
                  (decltype((a)), decltype((b)), decltype((c)), decltype((d))),            \
                  (XLOG_IMPL_VALUE(a), XLOG_IMPL_VALUE(b), XLOG_IMPL_VALUE(c),             \
                   XLOG_IMPL_VALUE(d)),                                                    \
                  (XLOG_IMPL_VA(a), XLOG_IMPL_VA(b), XLOG_IMPL_VA(c), XLOG_IMPL_VA(d)))
#define XLOG_IMPL_CPP_5(site, level, fmt, a, b, c, d, e)                                   \
    XLOG_IMPL_CPP(site, level, fmt,                                                        \
                  (decltype((a)), decltype((b)), decltype((c)), decltype((d)),             \
                   decltype((e))),                                                         \
                  (XLOG_IMPL_VALUE(a), XLOG_IMPL_VALUE(b), XLOG_IMPL_VALUE(c),             \
                   XLOG_IMPL_VALUE(d), XLOG_IMPL_VALUE(e)),                                \
                  (XLOG_IMPL_VA(a), XLOG_IMPL_VA(b), XLOG_IMPL_VA(c), XLOG_IMPL_VA(d),     \
                   XLOG_IMPL_VA(e)))
#define XLOG_IMPL_CPP_6(site, level, fmt, a, b, c, d, e, f)                                \
    XLOG_IMPL_CPP(site, level, fmt,                                                        \
                  (decltype((a)), decltype((b)), decltype((c)), decltype((d)),             \
                   decltype((e)), decltype((f))),                                          \
                  (XLOG_IMPL_VALUE(a), XLOG_IMPL_VALUE(b), XLOG_IMPL_VALUE(c),             \
                   XLOG_IMPL_VALUE(d), XLOG_IMPL_VALUE(e), XLOG_IMPL_VALUE(f)),            \
                  (XLOG_IMPL_VA(a), XLOG_IMPL_VA(b), XLOG_IMPL_VA(c), XLOG_IMPL_VA(d),     \
                   XLOG_IMPL_VA(e), XLOG_IMPL_VA(f)))
#define XLOG_IMPL_CPP_7(site, level, fmt, a, b, c, d, e, f, g)                             \
    XLOG_IMPL_CPP(site, level, fmt,                                                        \
                  (decltype((a)), decltype((b)), decltype((c)), decltype((d)),             \
                   decltype((e)), decltype((f)), decltype((g))),                           \
                  (XLOG_IMPL_VALUE(a), XLOG_IMPL_VALUE(b), XLOG_IMPL_VALUE(c),             \
                   XLOG_IMPL_VALUE(d), XLOG_IMPL_VALUE(e), XLOG_IMPL_VALUE(f),             \
                   XLOG_IMPL_VALUE(g)),                                                    \
                  (XLOG_IMPL_VA(a), XLOG_IMPL_VA(b), XLOG_IMPL_VA(c), XLOG_IMPL_VA(d),     \
                   XLOG_IMPL_VA(e), XLOG_IMPL_VA(f), XLOG_IMPL_VA(g)))
#define XLOG_IMPL_CPP_8(site, level, fmt, a, b, c, d, e, f, g, h)                          \
    XLOG_IMPL_CPP(site, level, fmt,                                                        \
                  (decltype((a)), decltype((b)), decltype((c)), decltype((d)),             \
                   decltype((e)), decltype((f)), decltype((g)), decltype((h))),            \
                  (XLOG_IMPL_VALUE(a), XLOG_IMPL_VALUE(b), XLOG_IMPL_VALUE(c),             \
                   XLOG_IMPL_VALUE(d), XLOG_IMPL_VALUE(e), XLOG_IMPL_VALUE(f),             \
                   XLOG_IMPL_VALUE(g), XLOG_IMPL_VALUE(h)),                                \
                  (XLOG_IMPL_VA(a), XLOG_IMPL_VA(b), XLOG_IMPL_VA(c), XLOG_IMPL_VA(d),     \
                   XLOG_IMPL_VA(e), XLOG_IMPL_VA(f), XLOG_IMPL_VA(g), XLOG_IMPL_VA(h)))

/* The call written in the caller's code (as C11's XLOG_IMPL_IN_CALLER): 1
 * when a site of scalars only passes and the call is handled, arguments
 * evaluated once; 0, nothing evaluated, for the library's way. */
#define XLOG_IMPL_CPP_IN_CALLER(site, level, ...)                                          \
    XLOG_IMPL_CAT(XLOG_IMPL_CPP_SEND_, XLOG_IMPL_COUNT(__VA_ARGS__))(site, level, __VA_ARGS__)
#define XLOG_IMPL_CPP_SCALARS(types)                                                       \
    (::xlog_impl_cpp::call<XLOG_IMPL_LIST types>::capturable &&                            \
     !(::xlog_impl_cpp::call<XLOG_IMPL_LIST types>::shape & XLOG_IMPL_SHAPE_STRINGS))
#define XLOG_IMPL_CPP_TEXT(types)                                                          \
    (::xlog_impl_cpp::call<XLOG_IMPL_LIST types>::capturable &&                            \
     (::xlog_impl_cpp::call<XLOG_IMPL_LIST types>::shape & XLOG_IMPL_SHAPE_STRINGS))
#define XLOG_IMPL_CPP_SEND(site, level, types, args)                                       \
    (XLOG_IMPL_CPP_SCALARS(types) && xlog_impl_passes(site, level)                         \
         ? (::xlog_impl_cpp::send_slots(                                                   \
                ::std::integral_constant<bool, XLOG_IMPL_CPP_SCALARS(types)>(), site,       \
                level, XLOG_IMPL_LIST args),                                               \
            1)                                                                             \
     : XLOG_IMPL_CPP_TEXT(types) && xlog_impl_passes(site, level)                          \
         ? (::xlog_impl_cpp::send_text<::xlog_impl_cpp::call<XLOG_IMPL_LIST types>::shape>( \
                ::std::integral_constant<bool, XLOG_IMPL_CPP_TEXT(types)>(), site, level,   \
                XLOG_IMPL_LIST args),                                                      \
            1)                                                                             \
         : 0)
#define XLOG_IMPL_CPP_SEND_V(site, level, ...) 0
#define XLOG_IMPL_CPP_SEND_0(site, level, fmt)                                             \
    (xlog_impl_passes(site, level) ? (xlog_impl_send(site, level, nullptr, 0), 1) : 0)
#define XLOG_IMPL_CPP_SEND_1(site, level, fmt, a)                                          \
    XLOG_IMPL_CPP_SEND(site, level,                                                        \
                       (decltype((a))),                                                    \
                       (XLOG_IMPL_VALUE(a)))
#define XLOG_IMPL_CPP_SEND_2(site, level, fmt, a, b)                                       \
    XLOG_IMPL_CPP_SEND(site, level,                                                        \
                       (decltype((a)), decltype((b))),                                     \
                       (XLOG_IMPL_VALUE(a), XLOG_IMPL_VALUE(b)))
#define XLOG_IMPL_CPP_SEND_3(site, level, fmt, a, b, c)                                    \
    XLOG_IMPL_CPP_SEND(site, level,                                                        \
                       (decltype((a)), decltype((b)), decltype((c))),                      \
                       (XLOG_IMPL_VALUE(a), XLOG_IMPL_VALUE(b), XLOG_IMPL_VALUE(c)))
#define XLOG_IMPL_CPP_SEND_4(site, level, fmt, a, b, c, d)                                 \
    XLOG_IMPL_CPP_SEND(site, level,                                                        \
                       (decltype((a)), decltype((b)), decltype((c)), decltype((d))),       \
                       (XLOG_IMPL_VALUE(a), XLOG_IMPL_VALUE(b), XLOG_IMPL_VALUE(c),        \
                        XLOG_IMPL_VALUE(d)))
#define XLOG_IMPL_CPP_SEND_5(site, level, fmt, a, b, c, d, e)                              \
    XLOG_IMPL_CPP_SEND(site, level,                                                        \
                       (decltype((a)), decltype((b)), decltype((c)), decltype((d)),        \
                        decltype((e))),                                                    \
                       (XLOG_IMPL_VALUE(a), XLOG_IMPL_VALUE(b), XLOG_IMPL_VALUE(c),        \
                        XLOG_IMPL_VALUE(d), XLOG_IMPL_VALUE(e)))
#define XLOG_IMPL_CPP_SEND_6(site, level, fmt, a, b, c, d, e, f)                           \
    XLOG_IMPL_CPP_SEND(site, level,                                                        \
                       (decltype((a)), decltype((b)), decltype((c)), decltype((d)),        \
                        decltype((e)), decltype((f))),                                     \
                       (XLOG_IMPL_VALUE(a), XLOG_IMPL_VALUE(b), XLOG_IMPL_VALUE(c),        \
                        XLOG_IMPL_VALUE(d), XLOG_IMPL_VALUE(e), XLOG_IMPL_VALUE(f)))
#define XLOG_IMPL_CPP_SEND_7(site, level, fmt, a, b, c, d, e, f, g)                        \
    XLOG_IMPL_CPP_SEND(site, level,                                                        \
                       (decltype((a)), decltype((b)), decltype((c)), decltype((d)),        \
                        decltype((e)), decltype((f)), decltype((g))),                      \
                       (XLOG_IMPL_VALUE(a), XLOG_IMPL_VALUE(b), XLOG_IMPL_VALUE(c),        \
                        XLOG_IMPL_VALUE(d), XLOG_IMPL_VALUE(e), XLOG_IMPL_VALUE(f),        \
                        XLOG_IMPL_VALUE(g)))
#define XLOG_IMPL_CPP_SEND_8(site, level, fmt, a, b, c, d, e, f, g, h)                     \
    XLOG_IMPL_CPP_SEND(site, level,                                                        \
                       (decltype((a)), decltype((b)), decltype((c)), decltype((d)),        \
                        decltype((e)), decltype((f)), decltype((g)), decltype((h))),       \
                       (XLOG_IMPL_VALUE(a), XLOG_IMPL_VALUE(b), XLOG_IMPL_VALUE(c),        \
                        XLOG_IMPL_VALUE(d), XLOG_IMPL_VALUE(e), XLOG_IMPL_VALUE(f),        \
                        XLOG_IMPL_VALUE(g), XLOG_IMPL_VALUE(h)))

/* Calls with a format that is not a literal, and rate-limited calls: the
 * variable argument list, each argument as printf sees it. */
#define XLOG_IMPL_CPP_MAPPED(entry, site, level, ...)                                      \
    XLOG_IMPL_CAT(XLOG_IMPL_CPP_MAPPED_, XLOG_IMPL_COUNT(__VA_ARGS__))(entry, site, level,  \
                                                                     __VA_ARGS__)
#define XLOG_IMPL_CPP_MAPPED_V(entry, site, level, ...) entry(site, level, __VA_ARGS__)
#define XLOG_IMPL_CPP_MAPPED_0(entry, site, level, fmt) entry(site, level, fmt)
#define XLOG_IMPL_CPP_MAPPED_1(entry, site, level, fmt, a) entry(site, level, fmt, XLOG_IMPL_VA(a))
#define XLOG_IMPL_CPP_MAPPED_2(entry, site, level, fmt, a, b)                              \
    entry(site, level, fmt, XLOG_IMPL_VA(a), XLOG_IMPL_VA(b))
#define XLOG_IMPL_CPP_MAPPED_3(entry, site, level, fmt, a, b, c)                           \
    entry(site, level, fmt, XLOG_IMPL_VA(a), XLOG_IMPL_VA(b), XLOG_IMPL_VA(c))
#define XLOG_IMPL_CPP_MAPPED_4(entry, site, level, fmt, a, b, c, d)                        \
    entry(site, level, fmt, XLOG_IMPL_VA(a), XLOG_IMPL_VA(b), XLOG_IMPL_VA(c), XLOG_IMPL_VA(d))
#define XLOG_IMPL_CPP_MAPPED_5(entry, site, level, fmt, a, b, c, d, e)                     \
    entry(site, level, fmt, XLOG_IMPL_VA(a), XLOG_IMPL_VA(b), XLOG_IMPL_VA(c), XLOG_IMPL_VA(d), \
          XLOG_IMPL_VA(e))
#define XLOG_IMPL_CPP_MAPPED_6(entry, site, level, fmt, a, b, c, d, e, f)                  \
    entry(site, level, fmt, XLOG_IMPL_VA(a), XLOG_IMPL_VA(b), XLOG_IMPL_VA(c), XLOG_IMPL_VA(d), \
          XLOG_IMPL_VA(e), XLOG_IMPL_VA(f))
#define XLOG_IMPL_CPP_MAPPED_7(entry, site, level, fmt, a, b, c, d, e, f, g)               \
    entry(site, level, fmt, XLOG_IMPL_VA(a), XLOG_IMPL_VA(b), XLOG_IMPL_VA(c), XLOG_IMPL_VA(d), \
          XLOG_IMPL_VA(e), XLOG_IMPL_VA(f), XLOG_IMPL_VA(g))
#define XLOG_IMPL_CPP_MAPPED_8(entry, site, level, fmt, a, b, c, d, e, f, g, h)            \
    entry(site, level, fmt, XLOG_IMPL_VA(a), XLOG_IMPL_VA(b), XLOG_IMPL_VA(c), XLOG_IMPL_VA(d), \
          XLOG_IMPL_VA(e), XLOG_IMPL_VA(f), XLOG_IMPL_VA(g), XLOG_IMPL_VA(h))
#define XLOG_IMPL_DYNAMIC_ENTRY(site, level, ...)                                          \
    XLOG_IMPL_CPP_MAPPED(xlog_impl_log_dynamic, site, level, __VA_ARGS__)
#define XLOG_IMPL_RATED_ENTRY(site, level, ...)                                            \
    XLOG_IMPL_CPP_MAPPED(xlog_impl_log_rated, site, level, __VA_ARGS__)
#else
#define XLOG_IMPL_DYNAMIC_ENTRY xlog_impl_log_dynamic
#define XLOG_IMPL_RATED_ENTRY xlog_impl_log_rated
#endif

#ifdef __cplusplus
/* C++: a context pair for a scope.  The constructor sets key (as
 * xlog_context_set), the destructor clears it (xlog_context_clear(key)):
 *
 *     {
 *         xlog_context_scope request("request_id", "%llu", id);
 *         xlog_info("start");   // carries request_id
 *     }                         // request_id is cleared here
 *
 * It restores nothing: a value the key had before the scope is gone after
 * it, and an inner scope of the same key clears it for the rest of the
 * outer one too.  When the set failed (status() is its negative errno:
 * too long, too many keys), the destructor clears nothing, so that the
 * key's earlier value, if any, stays.  It belongs to the thread that made
 * it: it must be destroyed there (neither copied nor moved). */
class xlog_context_scope {
  public:
    xlog_context_scope(const char *key, const char *fmt, ...) XLOG_IMPL_PRINTF(3, 4)
    {
        va_list args;
        va_start(args, fmt);
        status_ = xlog_context_vset(key, fmt, args);
        va_end(args);
        size_t n = 0;
        while (status_ == 0 && n < XLOG_CONTEXT_MAX_KEY && key[n]) {
            key_[n] = key[n];
            n++;
        }
        key_[n] = '\0';
    }
    ~xlog_context_scope()
    {
        if (status_ == 0)
            xlog_context_clear(key_);
    }
    /* 0, or what xlog_context_set returned. */
    int status() const { return status_; }
    xlog_context_scope(const xlog_context_scope &) = delete;
    xlog_context_scope &operator=(const xlog_context_scope &) = delete;

  private:
    int status_;
    char key_[XLOG_CONTEXT_MAX_KEY + 1];
};
#endif

#endif /* XLOG_H */
