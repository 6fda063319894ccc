/*
 * test_config_file.c - the configuration file (lib/config/config_file.c;
 * xlog.h, "Configuration file"): every key sets its field, the example
 * file examples/xlog.conf does what it says, the environment overrides the
 * file, and every kind of mistake is refused whole with its exact message.
 */
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <stdarg.h>
#include <cmocka.h>

#include <xlog.h>

#include "config/config_file.h"
#include "filters/modules.h"

/* Parses text (NUL-terminated, or length bytes) over *cfg as a file named
 * "test.conf"; the file's memory is freed at once unless kept is given. */
static int parse_n(const char *text, size_t length, xlog_config *cfg, xlog_config_file **kept)
{
    xlog_config_file *file = NULL;
    int rc = xlog_config_file_parse("test.conf", text, length, cfg, &file);
    if (rc != 0)
        assert_null(file);
    if (kept)
        *kept = file;
    else
        xlog_config_file_free(file);
    return rc;
}

static int parse(const char *text, xlog_config *cfg, xlog_config_file **kept)
{
    return parse_n(text, strlen(text), cfg, kept);
}

/* Writes text into <dir>/<name>; returns the path (the caller frees it). */
static char *write_file(const char *dir, const char *name, const char *text, size_t length)
{
    char *path = test_path(dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, length), (ssize_t)length);
    close(fd);
    return path;
}

/* The whole of what xlog wrote to dir: one file expected. */
static char *read_log(const char *dir)
{
    size_t n;
    char **files = test_list_files(dir, &n);
    assert_int_equal(n, 1);
    test_free_list(files, n);
    return test_read_dir(dir, NULL);
}

/* ---- every key ------------------------------------------------------------- */

static void every_top_level_key_sets_its_field(void **state)
{
    (void)state;
    xlog_config cfg = xlog_defaults();
    xlog_config_file *file;
    assert_int_equal(parse("# every key of the top, none at its default\n"
                           "dir = /var/log/svc\n"
                           "file_mode = per_thread\n"
                           "level = debug\n"
                           "filter = warn,net=trace\n"
                           "ring_size = 4M\n"
                           "full_policy = drop\n"
                           "max_message = 1K\n"
                           "write_buffer = 64K\n"
                           "flush_interval_ms = 2s\n"
                           "idle_sleep_us = 3ms\n"
                           "backtrace_lines = 12\n"
                           "backtrace_level = info\n"
                           "flush_level = warn\n"
                           "sync_level = error\n"
                           "crash_handlers = false\n"
                           "persistent = false\n"
                           "persistent_dir = /run/svc/shm\n"
                           "follow_symlinks = false\n"
                           "rotate_size = 100000\n"
                           "rotate_keep = 100000\n"
                           "keep_days = 7\n"
                           "rotate_local_time = true\n"
                           "file_prefix = svc-1.a\n"
                           "rotate_hourly = true\n"
                           "compress = gzip\n"
                           "check_interval_ms = 86400000\n"
                           "file_layout = json\n"
                           "file_pattern = {level} {message}\n"
                           "file_level = fatal\n",
                           &cfg, &file),
                     0);
    assert_string_equal(cfg.dir, "/var/log/svc");
    assert_int_equal(cfg.file_mode, XLOG_FILE_PER_THREAD);
    assert_int_equal(cfg.level, XLOG_DEBUG);
    assert_string_equal(xlog_config_file_filter(file), "warn,net=trace");
    assert_int_equal(cfg.ring_size, 4 << 20);
    assert_int_equal(cfg.full_policy, XLOG_FULL_DROP);
    assert_int_equal(cfg.max_message, 1024);
    assert_int_equal(cfg.write_buffer, 65536);
    assert_int_equal(cfg.flush_interval_ms, 2000);
    assert_int_equal(cfg.idle_sleep_us, 3000);
    assert_int_equal(cfg.backtrace_lines, 12);
    assert_int_equal(cfg.backtrace_level, XLOG_INFO);
    assert_int_equal(cfg.flush_level, XLOG_WARN);
    assert_int_equal(cfg.sync_level, XLOG_ERROR);
    assert_int_equal(cfg.crash_handlers, 0);
    assert_int_equal(cfg.persistent, 0);
    assert_string_equal(cfg.persistent_dir, "/run/svc/shm");
    assert_int_equal(cfg.follow_symlinks, 0);
    assert_int_equal(cfg.rotate_size, 100000);
    assert_int_equal(cfg.rotate_keep, 100000);
    assert_int_equal(cfg.keep_days, 7);
    assert_int_equal(cfg.rotate_local_time, 1);
    assert_string_equal(cfg.file_prefix, "svc-1.a");
    assert_int_equal(cfg.rotate_hourly, 1);
    assert_int_equal(cfg.compress, XLOG_COMPRESS_GZIP);
    assert_int_equal(cfg.check_interval_ms, 86400000);
    assert_int_equal(cfg.file_layout, XLOG_LAYOUT_JSON);
    assert_string_equal(cfg.file_pattern, "{level} {message}");
    assert_int_equal(cfg.file_level, XLOG_FATAL);
    /* What no key names stays as it was. */
    xlog_config defaults = xlog_defaults();
    assert_int_equal(cfg.console, defaults.console);
    assert_int_equal(cfg.use_environment, defaults.use_environment);
    assert_null(cfg.sinks);
    assert_null(cfg.config_file);
    xlog_config_file_free(file);
}

static void console_keys_set_the_console_fields(void **state)
{
    (void)state;
    xlog_config cfg = xlog_defaults();
    xlog_config_file *file;
    assert_int_equal(parse("level = warn\n"
                           "[console]\n"
                           "output = stdout\n"
                           "level = error\n"
                           "buffer = 2M\n"
                           "color = always\n"
                           "layout = json\n"
                           "pattern = {message}\n",
                           &cfg, &file),
                     0);
    assert_int_equal(cfg.level, XLOG_WARN); /* [console]'s level is the console's */
    assert_int_equal(cfg.console, 1);
    assert_int_equal(cfg.console_level, XLOG_ERROR);
    assert_int_equal(cfg.console_buffer, 2 << 20);
    assert_int_equal(cfg.console_color, XLOG_COLOR_ALWAYS);
    assert_int_equal(cfg.console_layout, XLOG_LAYOUT_JSON);
    assert_string_equal(cfg.console_pattern, "{message}");
    assert_null(xlog_config_file_filter(file));
    xlog_config_file_free(file);

    const struct {
        const char *text;
        int descriptor;
    } outputs[] = {{"off", 0}, {"stdout", 1}, {"stderr", 2}, {"7", 7}, {"2147483647", 2147483647}};
    for (size_t i = 0; i < sizeof outputs / sizeof outputs[0]; i++) {
        char text[64];
        snprintf(text, sizeof text, "[console]\noutput = %s\n", outputs[i].text);
        cfg = xlog_defaults();
        cfg.console = 5;
        assert_int_equal(parse(text, &cfg, NULL), 0);
        assert_int_equal(cfg.console, outputs[i].descriptor);
    }
    const struct {
        const char *name;
        xlog_color color;
    } colors[] = {{"auto", XLOG_COLOR_AUTO}, {"never", XLOG_COLOR_NEVER}};
    for (size_t i = 0; i < 2; i++) {
        char text[64];
        snprintf(text, sizeof text, "[console]\ncolor = %s\n", colors[i].name);
        cfg = xlog_defaults();
        cfg.console_color = XLOG_COLOR_ALWAYS;
        assert_int_equal(parse(text, &cfg, NULL), 0);
        assert_int_equal(cfg.console_color, colors[i].color);
    }
}

static void every_name_of_every_list_is_read(void **state)
{
    (void)state;
    const struct {
        const char *line;
        size_t offset;
        int value;
    } cases[] = {
        {"file_mode = shared", offsetof(xlog_config, file_mode), XLOG_FILE_SHARED},
        {"file_mode = per_process", offsetof(xlog_config, file_mode), XLOG_FILE_PER_PROCESS},
        {"full_policy = block", offsetof(xlog_config, full_policy), XLOG_FULL_BLOCK},
        {"compress = none", offsetof(xlog_config, compress), XLOG_COMPRESS_NONE},
        {"file_layout = text", offsetof(xlog_config, file_layout), XLOG_LAYOUT_TEXT},
        {"file_layout = binary", offsetof(xlog_config, file_layout), XLOG_LAYOUT_BINARY},
        {"level = trace", offsetof(xlog_config, level), XLOG_TRACE},
        {"level = DEBUG", offsetof(xlog_config, level), XLOG_DEBUG},
        {"level = Info", offsetof(xlog_config, level), XLOG_INFO},
        {"level = warning", offsetof(xlog_config, level), XLOG_WARN},
        {"level = err", offsetof(xlog_config, level), XLOG_ERROR},
        {"level = fatal", offsetof(xlog_config, level), XLOG_FATAL},
        {"level = off", offsetof(xlog_config, level), XLOG_OFF},
        {"crash_handlers = true", offsetof(xlog_config, crash_handlers), 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        xlog_config cfg = xlog_defaults();
        memset((char *)&cfg + cases[i].offset, 0x55, sizeof(int));
        char text[128];
        snprintf(text, sizeof text, "%s\n", cases[i].line);
        assert_int_equal(parse(text, &cfg, NULL), 0);
        int got;
        memcpy(&got, (char *)&cfg + cases[i].offset, sizeof got);
        if (got != cases[i].value)
            fail_msg("%s: %d, not %d", cases[i].line, got, cases[i].value);
    }
}

static void sizes_and_durations_are_read_in_their_units(void **state)
{
    (void)state;
    const struct {
        const char *line;
        size_t offset;
        int is_size;
        uint64_t value;
    } cases[] = {
        {"ring_size = 65536", offsetof(xlog_config, ring_size), 1, 65536},
        {"ring_size = 64K", offsetof(xlog_config, ring_size), 1, 65536},
        {"ring_size = 1G", offsetof(xlog_config, ring_size), 1, (uint64_t)1 << 30},
        {"rotate_size = 0", offsetof(xlog_config, rotate_size), 1, 0},
        {"rotate_size = 3G", offsetof(xlog_config, rotate_size), 1, (uint64_t)3 << 30},
        {"max_message = 256", offsetof(xlog_config, max_message), 1, 256},
        {"flush_interval_ms = 250", offsetof(xlog_config, flush_interval_ms), 0, 250},
        {"flush_interval_ms = 250ms", offsetof(xlog_config, flush_interval_ms), 0, 250},
        {"flush_interval_ms = 3000us", offsetof(xlog_config, flush_interval_ms), 0, 3},
        {"flush_interval_ms = 2s", offsetof(xlog_config, flush_interval_ms), 0, 2000},
        {"flush_interval_ms = 2m", offsetof(xlog_config, flush_interval_ms), 0, 120000},
        {"flush_interval_ms = 1h", offsetof(xlog_config, flush_interval_ms), 0, 3600000},
        {"flush_interval_ms = 0", offsetof(xlog_config, flush_interval_ms), 0, 0},
        {"check_interval_ms = 1", offsetof(xlog_config, check_interval_ms), 0, 1},
        {"idle_sleep_us = 1500", offsetof(xlog_config, idle_sleep_us), 0, 1500},
        {"idle_sleep_us = 7us", offsetof(xlog_config, idle_sleep_us), 0, 7},
        {"idle_sleep_us = 2ms", offsetof(xlog_config, idle_sleep_us), 0, 2000},
        {"idle_sleep_us = 1s", offsetof(xlog_config, idle_sleep_us), 0, 1000000},
        {"idle_sleep_us = 4294967295", offsetof(xlog_config, idle_sleep_us), 0, 4294967295u},
        {"keep_days = 4294967295", offsetof(xlog_config, keep_days), 0, 4294967295u},
        {"backtrace_lines = 0", offsetof(xlog_config, backtrace_lines), 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        xlog_config cfg = xlog_defaults();
        char text[128];
        snprintf(text, sizeof text, "%s\n", cases[i].line);
        assert_int_equal(parse(text, &cfg, NULL), 0);
        uint64_t got;
        if (cases[i].is_size) {
            size_t v;
            memcpy(&v, (char *)&cfg + cases[i].offset, sizeof v);
            got = v;
        } else {
            unsigned v;
            memcpy(&v, (char *)&cfg + cases[i].offset, sizeof v);
            got = v;
        }
        if (got != cases[i].value)
            fail_msg("%s: %llu, not %llu", cases[i].line, (unsigned long long)got,
                     (unsigned long long)cases[i].value);
    }
}

static int custom_write_calls;
static void custom_write(void *context, const xlog_event *event, const char *bytes, size_t len)
{
    (void)context, (void)event, (void)bytes, (void)len;
    custom_write_calls++;
}

static void syslog_sections_are_added_after_the_programs_sinks(void **state)
{
    (void)state;
    xlog_custom_sink mine = xlog_custom_sink_defaults();
    mine.write = custom_write;
    const xlog_sink_config *given[] = {&mine.sink, NULL};
    xlog_config cfg = xlog_defaults();
    cfg.sinks = given;
    xlog_config_file *file;
    assert_int_equal(parse("[syslog central]\n"
                           "level = warn\n"
                           "layout = json\n"
                           "pattern = <{level}> {message}\n"
                           "transport = tcp\n"
                           "address = 10.0.0.5:601\n"
                           "format = rfc3164\n"
                           "facility = local7\n"
                           "app_name = svc\n"
                           "hostname = web-1\n"
                           "buffer = 64K\n"
                           "\n"
                           "[syslog local-2.b]\n"
                           "facility = 13\n",
                           &cfg, &file),
                     0);
    assert_ptr_equal(cfg.sinks[0], &mine.sink);
    assert_non_null(cfg.sinks[1]);
    assert_non_null(cfg.sinks[2]);
    assert_null(cfg.sinks[3]);
    assert_ptr_equal(given[1], NULL); /* the program's list is not touched */
    const xlog_syslog_config *central = (const xlog_syslog_config *)cfg.sinks[1];
    assert_int_equal(central->sink.kind, XLOG_SINK_SYSLOG);
    assert_int_equal(central->sink.level, XLOG_WARN);
    assert_int_equal(central->sink.layout, XLOG_LAYOUT_JSON);
    assert_string_equal(central->sink.pattern, "<{level}> {message}");
    assert_int_equal(central->transport, XLOG_SYSLOG_TCP);
    assert_string_equal(central->address, "10.0.0.5:601");
    assert_int_equal(central->format, XLOG_SYSLOG_RFC3164);
    assert_int_equal(central->facility, 23);
    assert_string_equal(central->app_name, "svc");
    assert_string_equal(central->hostname, "web-1");
    assert_int_equal(central->buffer, 65536);
    /* The second starts from xlog_syslog_defaults(). */
    xlog_syslog_config expected = xlog_syslog_defaults();
    expected.facility = 13;
    assert_memory_equal(cfg.sinks[2], &expected, sizeof expected);
    xlog_config_file_free(file);

    const char *names[] = {"kern", "user", "mail", "daemon", "auth", "syslog", "lpr", "news",
                           "uucp", "cron", "authpriv", "ftp", "local0", "local1", "local2",
                           "local3", "local4", "local5", "local6", "local7"};
    const int numbers[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 16, 17, 18, 19, 20, 21, 22, 23};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char text[128];
        snprintf(text, sizeof text, "[syslog s]\nfacility = %s\ntransport = %s\nformat = %s\n",
                 names[i], i % 3 == 0 ? "unix" : i % 3 == 1 ? "udp" : "tcp",
                 i % 3 == 0 ? "auto" : i % 3 == 1 ? "rfc5424" : "rfc3164");
        cfg = xlog_defaults();
        assert_int_equal(parse(text, &cfg, &file), 0);
        const xlog_syslog_config *s = (const xlog_syslog_config *)cfg.sinks[0];
        assert_int_equal(s->facility, numbers[i]);
        assert_int_equal(s->transport, (int)(i % 3));
        assert_int_equal(s->format, (int)(i % 3));
        assert_null(cfg.sinks[1]);
        xlog_config_file_free(file);
    }
}

/* Every key of [file NAME], a filter in [syslog NAME], and the sinks in
 * the file's order after the program's; a section without keys is
 * xlog_file_defaults(). */
static void file_sections_set_every_key_of_a_listed_file_sink(void **state)
{
    (void)state;
    xlog_custom_sink mine = xlog_custom_sink_defaults();
    mine.write = custom_write;
    const xlog_sink_config *given[] = {&mine.sink, NULL};
    xlog_config cfg = xlog_defaults();
    cfg.sinks = given;
    xlog_config_file *file;
    assert_int_equal(parse("[file access]\n"
                           "level = debug\n"
                           "filter = \"off, http.access = info\"\n"
                           "layout = binary\n"
                           "pattern = {level} {message}\n"
                           "dir = /var/log/access\n"
                           "prefix = access\n"
                           "mode = per_process\n"
                           "rotate_hourly = true\n"
                           "rotate_size = 1M\n"
                           "rotate_keep = 3\n"
                           "keep_days = 2\n"
                           "compress = gzip\n"
                           "[syslog central]\n"
                           "filter = error,storage=warn\n"
                           "[file plain]\n",
                           &cfg, &file),
                     0);
    assert_ptr_equal(cfg.sinks[0], &mine.sink);
    assert_null(cfg.sinks[4]);
    const xlog_file_config *access = (const xlog_file_config *)cfg.sinks[1];
    assert_int_equal(access->sink.kind, XLOG_SINK_FILE);
    assert_int_equal(access->sink.level, XLOG_DEBUG);
    assert_string_equal(access->sink.filter, "off, http.access = info");
    assert_int_equal(access->sink.layout, XLOG_LAYOUT_BINARY);
    assert_string_equal(access->sink.pattern, "{level} {message}");
    assert_string_equal(access->dir, "/var/log/access");
    assert_string_equal(access->prefix, "access");
    assert_int_equal(access->mode, XLOG_FILE_PER_PROCESS);
    assert_int_equal(access->rotate_hourly, 1);
    assert_int_equal(access->rotate_size, 1 << 20);
    assert_int_equal(access->rotate_keep, 3);
    assert_int_equal(access->keep_days, 2);
    assert_int_equal(access->compress, XLOG_COMPRESS_GZIP);
    const xlog_syslog_config *central = (const xlog_syslog_config *)cfg.sinks[2];
    assert_int_equal(central->sink.kind, XLOG_SINK_SYSLOG);
    assert_string_equal(central->sink.filter, "error,storage=warn");
    xlog_file_config plain = xlog_file_defaults();
    assert_memory_equal(cfg.sinks[3], &plain, sizeof plain);
    xlog_config_file_free(file);
}

/* A file's [file NAME] section through xlog_open: its file holds exactly
 * the lines its filter lets through, in its pattern, under its prefix. */
static void a_file_section_routes_its_modules_to_its_file(void **state)
{
    (void)state;
    char *dir = test_make_dir("cfgroute");
    char *conf = test_path(dir, "route.conf");
    FILE *f = fopen(conf, "w");
    assert_non_null(f);
    fputs("level = info\nfile_pattern = {level} {message}\nfile_prefix = main\n"
          "[file storage]\nprefix = storage\nfilter = off,storage=debug\npattern = {message}\n",
          f);
    fclose(f);
    xlog_config cfg = test_config_in(dir);
    cfg.config_file = conf;
    if (xlog_open(&cfg) != 0)
        fail_msg("%s", xlog_last_error());
    log_in_storage(XLOG_DEBUG, 1);
    log_in_storage(XLOG_INFO, 2);
    xlog_debug("debug: nowhere");
    xlog_info("info: the main files");
    assert_int_equal(xlog_close(), 0);
    size_t n;
    char **names = test_list_files(dir, &n);
    assert_int_equal(n, 3);
    assert_true(strncmp(names[0], "main-", 5) == 0);
    assert_string_equal(names[1], "route.conf");
    assert_true(strncmp(names[2], "storage-", 8) == 0);
    char *main_path = test_path(dir, names[0]), *storage_path = test_path(dir, names[2]);
    char *main_text = test_read_file(main_path, NULL);
    char *storage_text = test_read_file(storage_path, NULL);
    assert_string_equal(main_text, "INFO storage 2\nINFO info: the main files\n");
    assert_string_equal(storage_text, "storage 1\nstorage 2\n");
    free(main_text);
    free(storage_text);
    free(main_path);
    free(storage_path);
    test_free_list(names, n);
    free(conf);
    test_remove_tree(dir);
    free(dir);
}

/* ---- the quoting rule and hostile bytes ---------------------------------- */

static void values_are_quoted_as_documented(void **state)
{
    (void)state;
    const struct {
        const char *line;
        const char *value;
    } cases[] = {
        {"dir = /a b/c d   ", "/a b/c d"},
        {"dir=/x#comment", "/x"},
        {"dir \t=\t /x \t # comment", "/x"},
        {"dir = a\"b\"", "a\"b\""},
        {"dir = \"  spaced # not a comment  \"", "  spaced # not a comment  "},
        {"dir = \"say \\\"hi\\\" \\\\o/\"  # after", "say \"hi\" \\o/"},
        {"dir = \"\"", ""},
        {"dir = \"a\"\"", NULL}, /* text after the closing quote */
        {"dir = caf\xc3\xa9", "caf\xc3\xa9"},
        {"   dir = indented", "indented"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        xlog_config cfg = xlog_defaults();
        char text[256];
        snprintf(text, sizeof text, "%s\n", cases[i].line);
        xlog_config_file *file;
        int rc = parse(text, &cfg, &file);
        if (!cases[i].value) {
            assert_int_equal(rc, -EINVAL);
            continue;
        }
        if (rc != 0)
            fail_msg("%s: %s", cases[i].line, xlog_last_error());
        assert_string_equal(cfg.dir, cases[i].value);
        xlog_config_file_free(file);
    }
}

static void crlf_a_byte_order_mark_and_no_last_newline_are_read(void **state)
{
    (void)state;
    xlog_config cfg = xlog_defaults();
    const char text[] = "\xef\xbb\xbf# from an editor on Windows\r\nlevel = error\r\n"
                        "dir = \"/q\"\r\n[console]\r\nlevel = debug";
    assert_int_equal(parse(text, &cfg, NULL), 0);
    assert_int_equal(cfg.level, XLOG_ERROR);
    assert_int_equal(cfg.console_level, XLOG_DEBUG);
    /* the dir's string was freed with the file: compare before */
    cfg = xlog_defaults();
    xlog_config_file *file;
    assert_int_equal(parse(text, &cfg, &file), 0);
    assert_string_equal(cfg.dir, "/q");
    xlog_config_file_free(file);
}

static void an_empty_file_changes_nothing(void **state)
{
    (void)state;
    const char *texts[] = {"", "\n\n", "# only a comment", "\xef\xbb\xbf", "  \t \r\n"};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        xlog_config cfg = xlog_defaults(), before = cfg;
        xlog_config_file *file;
        assert_int_equal(parse(texts[i], &cfg, &file), 0);
        assert_memory_equal(&cfg, &before, sizeof cfg);
        assert_null(xlog_config_file_filter(file));
        xlog_config_file_free(file);
    }
}

static void a_line_of_4096_bytes_is_read_and_one_longer_is_refused(void **state)
{
    (void)state;
    char text[4200];
    int n = snprintf(text, sizeof text, "dir = ");
    memset(text + n, 'd', 4096 - (size_t)n);
    strcpy(text + 4096, "\r\n"); /* the CR is not counted */
    xlog_config cfg = xlog_defaults();
    xlog_config_file *file;
    assert_int_equal(parse(text, &cfg, &file), 0);
    assert_int_equal(strlen(cfg.dir), 4096 - n);
    xlog_config_file_free(file);

    memset(text + n, 'd', 4097 - (size_t)n);
    strcpy(text + 4097, "\n");
    cfg = xlog_defaults();
    xlog_config before = cfg;
    assert_int_equal(parse(text, &cfg, NULL), -EINVAL);
    assert_string_equal(xlog_last_error(), "test.conf:1:4097: line longer than 4096 bytes");
    assert_memory_equal(&cfg, &before, sizeof cfg);
}

static void nul_bytes_and_control_characters_are_refused(void **state)
{
    (void)state;
    xlog_config cfg = xlog_defaults(), before = cfg;
    const char with_nul[] = "level = warn\ndir = /a\0b\n";
    assert_int_equal(parse_n(with_nul, sizeof with_nul - 1, &cfg, NULL), -EINVAL);
    assert_string_equal(xlog_last_error(), "test.conf:2:9: a NUL byte");
    assert_memory_equal(&cfg, &before, sizeof cfg);

    const char nul_in_comment[] = "# \0\n";
    assert_int_equal(parse_n(nul_in_comment, sizeof nul_in_comment - 1, &cfg, NULL), -EINVAL);
    assert_string_equal(xlog_last_error(), "test.conf:1:3: a NUL byte");

    assert_int_equal(parse("dir = a\rb\n", &cfg, NULL), -EINVAL);
    assert_string_equal(xlog_last_error(), "test.conf:1:8: control character 0x0d");
    assert_int_equal(parse("dir = \x1b[31m\n", &cfg, NULL), -EINVAL);
    assert_string_equal(xlog_last_error(), "test.conf:1:7: control character 0x1b");
    assert_int_equal(parse("dir = \"a\x7f\"\n", &cfg, NULL), -EINVAL);
    assert_string_equal(xlog_last_error(), "test.conf:1:9: control character 0x7f");
    assert_memory_equal(&cfg, &before, sizeof cfg);
}

/* ---- mistakes ------------------------------------------------------------- */

static void malformed_files_are_refused_whole_with_the_exact_message(void **state)
{
    (void)state;
    const struct {
        const char *text;
        const char *error;
    } cases[] = {
        {"level = warn\nlevle = info\n", "test.conf:2:1: unknown key \"levle\""},
        {"[console]\ncolour = never\n", "test.conf:2:1: unknown key \"colour\" in [console]"},
        {"[syslog central]\nport = 514\n",
         "test.conf:2:1: unknown key \"port\" in [syslog central]"},
        {"[console]\ndir = /x\n",
         "test.conf:2:1: dir is not a key of a section: it goes before the first section"},
        {"[syslog a]\nfilter = warn,net=loud\n",
         "test.conf:2:10: filter=\"warn,net=loud\": \"loud\" at column 10 is not a level (trace, "
         "debug, info, warn or warning, error or err, fatal or off)"},
        {"[file a]\nfilter = ,x\n", "test.conf:2:10: filter=\",x\": empty item at column 1"},
        {"[file a]\nfilter = off,ne t=info\n",
         "test.conf:2:10: filter=\"off,ne t=info\": \"ne t\" at column 5 is not a module name "
         "(letters, digits, '_', '-' and dots between them, at most 63 bytes)"},
        {"[file a]\nprefix = a/b\n",
         "test.conf:2:10: prefix: \"a/b\" is not a file name prefix (letters, digits, '_', '-' "
         "and '.', not first; 1 to 127 bytes)"},
        {"file_prefix = .x\n",
         "test.conf:1:15: file_prefix: \".x\" is not a file name prefix (letters, digits, '_', "
         "'-' and '.', not first; 1 to 127 bytes)"},
        {"rotate_hourly = yes\n", "test.conf:1:17: rotate_hourly: \"yes\" is not true or false"},
        {"[file a]\nlayout = xml\n",
         "test.conf:2:10: layout: \"xml\" is not text, json or binary"},
        {"[file a]\nmode = all\n",
         "test.conf:2:8: mode: \"all\" is not shared, per_thread or per_process"},
        {"[file a]\nrotate_size = 1000\n",
         "test.conf:2:15: rotate_size: \"1000\" is neither 0 nor at least 64K"},
        {"[file a]\nrotate_keep = 0\n",
         "test.conf:2:15: rotate_keep: \"0\" is not between 1 and 100000"},
        {"[file a]\ncompress = xz\n", "test.conf:2:12: compress: \"xz\" is not none or gzip"},
        {"[file a]\nport = 1\n", "test.conf:2:1: unknown key \"port\" in [file a]"},
        {"[file a]\nfile_level = warn\n",
         "test.conf:2:1: file_level is not a key of a section: it goes before the first section"},
        {"[file a]\n[syslog a]\n[file a]\n",
         "test.conf:3:1: [file a] given twice (first on line 1)"},
        {"[file]\n", "test.conf:1:6: [file] needs a name: [file NAME]"},
        {"level = warn\n\n  level = info\n", "test.conf:3:3: level given twice (first on line 1)"},
        {"[console]\nlevel = warn\n[syslog a]\nlevel = warn\nlevel = info\n",
         "test.conf:5:1: level given twice (first on line 4)"},
        {"[files]\n",
         "test.conf:1:2: unknown section [files] (console, syslog NAME or file NAME)"},
        {"[ files  logs ]\n",
         "test.conf:1:3: unknown section [files  logs] (console, syslog NAME or file NAME)"},
        {"[console]\n[console]\n", "test.conf:2:1: [console] given twice (first on line 1)"},
        {"[syslog a]\n[syslog b]\n  [syslog a]\n",
         "test.conf:3:3: [syslog a] given twice (first on line 1)"},
        {"[syslog]\n", "test.conf:1:8: [syslog] needs a name: [syslog NAME]"},
        {"[console stderr]\n", "test.conf:1:10: [console] takes no name"},
        {"[syslog a b]\n",
         "test.conf:1:9: \"a b\" is not a section name (letters, digits, '_', '-' and '.', at "
         "most 64 bytes)"},
        {"[console\n", "test.conf:1:9: \"]\" missing at the end of the section's header"},
        {"[console] level = warn\n", "test.conf:1:11: text after the section's header"},
        {"[console] # the console\nlevel = warn\n", NULL},
        {"level warn\n", "test.conf:1:7: \"=\" missing after the key \"level\""},
        {"level: warn\n", "test.conf:1:6: \"=\" missing after the key \"level\""},
        {"level\n", "test.conf:1:6: \"=\" missing after the key \"level\""},
        {"= warn\n", "test.conf:1:1: expected a key = value, a [section] or a # comment"},
        {"level =\n", "test.conf:1:8: level has no value (\"\" is the empty string)"},
        {"level = # none\n", "test.conf:1:9: level has no value (\"\" is the empty string)"},
        {"dir = \"/var/log\n", "test.conf:1:7: unterminated quoted string"},
        {"dir = \"/var/log\\\"\n", "test.conf:1:7: unterminated quoted string"},
        {"dir = \"a\\nb\"\n", "test.conf:1:9: unknown escape in a quoted string (only \\\" and \\\\)"},
        {"dir = \"a\" b\n", "test.conf:1:11: text after the closing quote"},
        {"level = loud\n",
         "test.conf:1:9: level: \"loud\" is not a level (trace, debug, info, warn or warning, "
         "error or err, fatal or off)"},
        {"persistent = yes\n", "test.conf:1:14: persistent: \"yes\" is not true or false"},
        {"persistent = TRUE\n", "test.conf:1:14: persistent: \"TRUE\" is not true or false"},
        {"file_mode = shard\n",
         "test.conf:1:13: file_mode: \"shard\" is not shared, per_thread or per_process"},
        {"full_policy = wait\n", "test.conf:1:15: full_policy: \"wait\" is not block or drop"},
        {"compress = zstd\n", "test.conf:1:12: compress: \"zstd\" is not none or gzip"},
        {"file_layout = xml\n", "test.conf:1:15: file_layout: \"xml\" is not text, json or binary"},
        {"[console]\nlayout = binary\n",
         "test.conf:2:10: layout: \"binary\" is not text or json"},
        {"[console]\ncolor = red\n",
         "test.conf:2:9: color: \"red\" is not auto, never or always"},
        {"[console]\noutput = tty\n",
         "test.conf:2:10: output: \"tty\" is not off, stdout or stderr, or a number"},
        {"[console]\noutput = 2147483648\n",
         "test.conf:2:10: output: \"2147483648\" is not between 0 and 2147483647"},
        {"[syslog a]\ntransport = tls\n",
         "test.conf:2:13: transport: \"tls\" is not unix, udp or tcp"},
        {"[syslog a]\nformat = rfc9999\n",
         "test.conf:2:10: format: \"rfc9999\" is not auto, rfc5424 or rfc3164"},
        {"[syslog a]\nfacility = local8\n",
         "test.conf:2:12: facility: \"local8\" is not kern, user, mail, daemon, auth, syslog, "
         "lpr, news, uucp, cron, authpriv, ftp, local0, local1, local2, local3, local4, local5, "
         "local6 or local7, or a number"},
        {"[syslog a]\nfacility = 24\n",
         "test.conf:2:12: facility: \"24\" is not between 0 and 23"},
        {"ring_size = 64X\n",
         "test.conf:1:13: ring_size: \"64X\" is not a size (a number of bytes, or of K, M or G: "
         "1K is 1024 bytes)"},
        {"ring_size = 64 K\n",
         "test.conf:1:13: ring_size: \"64 K\" is not a size (a number of bytes, or of K, M or G: "
         "1K is 1024 bytes)"},
        {"ring_size = -1\n",
         "test.conf:1:13: ring_size: \"-1\" is not a size (a number of bytes, or of K, M or G: "
         "1K is 1024 bytes)"},
        {"ring_size = 64k\n",
         "test.conf:1:13: ring_size: \"64k\" is not a size (a number of bytes, or of K, M or G: "
         "1K is 1024 bytes)"},
        {"ring_size = 32K\n", "test.conf:1:13: ring_size: \"32K\" is not between 64K and 1G"},
        {"ring_size = 2G\n", "test.conf:1:13: ring_size: \"2G\" is not between 64K and 1G"},
        {"ring_size = 99999999999999999999\n",
         "test.conf:1:13: ring_size: \"99999999999999999999\" is not between 64K and 1G"},
        {"ring_size = 17179869184G\n",
         "test.conf:1:13: ring_size: \"17179869184G\" is not between 64K and 1G"},
        {"max_message = 255\n", "test.conf:1:15: max_message: \"255\" is not between 256 and 256M"},
        {"write_buffer = 4095\n", "test.conf:1:16: write_buffer: \"4095\" is below 4K"},
        {"rotate_size = 1K\n", "test.conf:1:15: rotate_size: \"1K\" is neither 0 nor at least 64K"},
        {"rotate_keep = 0\n", "test.conf:1:15: rotate_keep: \"0\" is not between 1 and 100000"},
        {"rotate_keep = ten\n", "test.conf:1:15: rotate_keep: \"ten\" is not a number"},
        {"rotate_keep = 10.5\n", "test.conf:1:15: rotate_keep: \"10.5\" is not a number"},
        {"keep_days = 4294967296\n", "test.conf:1:13: keep_days: \"4294967296\" is above 4294967295"},
        {"backtrace_lines = 100001\n",
         "test.conf:1:19: backtrace_lines: \"100001\" is not between 0 and 100000"},
        {"check_interval_ms = 0\n",
         "test.conf:1:21: check_interval_ms: \"0\" is not between 1 and 86400000"},
        {"check_interval_ms = 2d\n",
         "test.conf:1:21: check_interval_ms: \"2d\" is not a duration (milliseconds, or a number "
         "followed by us, ms, s, m or h)"},
        {"check_interval_ms = 25h\n",
         "test.conf:1:21: check_interval_ms: \"25h\" is not between 1 and 86400000"},
        {"flush_interval_ms = 1500us\n",
         "test.conf:1:21: flush_interval_ms: \"1500us\" is not a whole number of milliseconds"},
        {"flush_interval_ms = 5000000s\n",
         "test.conf:1:21: flush_interval_ms: \"5000000s\" is above 4294967295"},
        {"idle_sleep_us = 1 ms\n",
         "test.conf:1:17: idle_sleep_us: \"1 ms\" is not a duration (microseconds, or a number "
         "followed by us, ms, s, m or h)"},
        {"[console]\nbuffer = 1K\n", "test.conf:2:10: buffer: \"1K\" is below 64K"},
        {"[syslog a]\nbuffer = 65535\n", "test.conf:2:10: buffer: \"65535\" is below 64K"},
        {"filter = warn,net=loud\n",
         "test.conf:1:10: filter=\"warn,net=loud\": \"loud\" at column 10 is not a level (trace, "
         "debug, info, warn or warning, error or err, fatal or off)"},
        {"filter = warn,,net=info\n", "test.conf:1:10: filter=\"warn,,net=info\": empty item at column 6"},
        {"file_pattern = {time} {lvl}\n",
         "test.conf:1:16: file_pattern: unknown field {lvl} at column 8"},
        {"[console]\npattern = \"{message\"\n",
         "test.conf:2:11: pattern: unterminated { at column 1"},
        {"[syslog a]\npattern = }\n", "test.conf:2:11: pattern: lone } at column 1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        xlog_config cfg = xlog_defaults();
        xlog_custom_sink mine = xlog_custom_sink_defaults();
        const xlog_sink_config *given[] = {&mine.sink, NULL};
        cfg.sinks = given;
        xlog_config before = cfg;
        /* Good lines first: nothing of them may be applied either. */
        char text[1024];
        snprintf(text, sizeof text, "%s", cases[i].text);
        int rc = parse(text, &cfg, NULL);
        if (!cases[i].error) {
            if (rc != 0)
                fail_msg("%s: %s", cases[i].text, xlog_last_error());
            continue;
        }
        if (rc != -EINVAL || strcmp(xlog_last_error(), cases[i].error) != 0)
            fail_msg("case %zu: %d, \"%s\", not \"%s\"", i, rc, xlog_last_error(),
                     cases[i].error);
        assert_memory_equal(&cfg, &before, sizeof cfg);
    }
}

static void more_than_30_syslog_sections_are_refused(void **state)
{
    (void)state;
    char text[2048] = "";
    for (int i = 0; i < 31; i++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "[syslog s%d]\n", i);
    xlog_config cfg = xlog_defaults();
    assert_int_equal(parse(text, &cfg, NULL), -EINVAL);
    assert_string_equal(xlog_last_error(), "test.conf:31:1: more than 30 sink sections "
                                           "([syslog NAME] and [file NAME])");
    *strrchr(text, '[') = '\0';
    xlog_config_file *file;
    assert_int_equal(parse(text, &cfg, &file), 0);
    size_t n = 0;
    while (cfg.sinks[n])
        n++;
    assert_int_equal(n, 30);
    xlog_config_file_free(file);
}

/* ---- through xlog_open ------------------------------------------------------ */

static void unreadable_files_are_refused_with_the_reason(void **state)
{
    (void)state;
    char *dir = test_make_dir("cfgfile");
    char *logs = test_path(dir, "logs");
    xlog_config cfg = test_config_in(logs);
    char expected[1024];

    char *missing = test_path(dir, "missing.conf");
    cfg.config_file = missing;
    assert_int_equal(xlog_open(&cfg), -EINVAL);
    snprintf(expected, sizeof expected, "%s: cannot read: No such file or directory", missing);
    assert_string_equal(xlog_last_error(), expected);

    cfg.config_file = dir; /* a directory */
    assert_int_equal(xlog_open(&cfg), -EINVAL);
    snprintf(expected, sizeof expected, "%s: cannot read: Is a directory", dir);
    assert_string_equal(xlog_last_error(), expected);

    /* Any errno of open(2): a path through a file (as root, who reads a
     * file of mode 0, this is the case that always runs). */
    char *through = test_path(missing, "x");
    char *plain = write_file(dir, "missing.conf", "", 0);
    cfg.config_file = through;
    assert_int_equal(xlog_open(&cfg), -EINVAL);
    snprintf(expected, sizeof expected, "%s: cannot read: Not a directory", through);
    assert_string_equal(xlog_last_error(), expected);
    unlink(plain);
    free(plain);
    free(through);

    char *fifo = test_path(dir, "fifo.conf");
    assert_int_equal(mkfifo(fifo, 0600), 0);
    cfg.config_file = fifo;
    assert_int_equal(xlog_open(&cfg), -EINVAL);
    snprintf(expected, sizeof expected, "%s: cannot read: not a regular file", fifo);
    assert_string_equal(xlog_last_error(), expected);
    unlink(fifo);

    if (geteuid() != 0) { /* root reads a file of mode 0 */
        char *secret = write_file(dir, "secret.conf", "level = warn\n", 13);
        chmod(secret, 0);
        cfg.config_file = secret;
        assert_int_equal(xlog_open(&cfg), -EINVAL);
        snprintf(expected, sizeof expected, "%s: cannot read: Permission denied", secret);
        assert_string_equal(xlog_last_error(), expected);
        unlink(secret);
        free(secret);
    }

    /* Longer than 1 MiB: refused whatever it holds. */
    size_t big = 1024 * 1024 + 1;
    char *text = malloc(big);
    memset(text, '\n', big);
    char *large = write_file(dir, "large.conf", text, big);
    cfg.config_file = large;
    assert_int_equal(xlog_open(&cfg), -EINVAL);
    snprintf(expected, sizeof expected, "%s: longer than 1048576 bytes: not a configuration file",
             large);
    assert_string_equal(xlog_last_error(), expected);
    /* 1 MiB exactly is read. */
    assert_int_equal(truncate(large, (off_t)big - 1), 0);
    cfg.persistent = 0;
    assert_int_equal(xlog_open(&cfg), 0);
    xlog_close();
    unlink(large);
    free(large);
    free(text);

    test_remove_dir(logs);
    free(fifo);
    free(missing);
    free(logs);
    test_drop_dir(dir);
}

static void a_bad_file_fails_xlog_open_and_applies_nothing(void **state)
{
    (void)state;
    char *dir = test_make_dir("cfgfile");
    char *logs = test_path(dir, "logs");
    const char text[] = "dir = elsewhere-unused\nlevel = debug\nrotate_keep = 0\n";
    char *conf = write_file(dir, "bad.conf", text, sizeof text - 1);
    xlog_config cfg = test_config_in(logs);
    cfg.config_file = conf;
    cfg.persistent = 0;
    assert_int_equal(xlog_open(&cfg), -EINVAL);
    char expected[1024];
    snprintf(expected, sizeof expected, "%s:3:15: rotate_keep: \"0\" is not between 1 and 100000",
             conf);
    assert_string_equal(xlog_last_error(), expected);
    assert_int_equal(xlog_flush(), -EBADF);
    struct stat st;
    assert_int_equal(stat(logs, &st), -1);
    assert_int_equal(stat("elsewhere-unused", &st), -1);
    unlink(conf);
    free(conf);
    free(logs);
    test_drop_dir(dir);
}

static void the_files_pattern_and_levels_decide_the_lines_written(void **state)
{
    (void)state;
    char *dir = test_make_dir("cfgfile");
    char *logs = test_path(dir, "logs"), *shm = test_path(dir, "shm");
    char text[1024];
    int n = snprintf(text, sizeof text,
                     "# the file's own directory, pattern and levels\n"
                     "dir = \"%s\"\n"
                     "level = warn\n"
                     "filter = warn,storage=debug\n"
                     "file_pattern = \"{level} {module} {message} #{line}\"  # '#' quoted\n"
                     "persistent_dir = %s\n",
                     logs, shm);
    char *conf = write_file(dir, "xlog.conf", text, (size_t)n);
    xlog_config cfg = test_config_in("unused-by-the-program");
    cfg.config_file = conf;
    assert_int_equal(xlog_open(&cfg), 0);
    int line = __LINE__ + 1;
    xlog_info("info: below the level");
    xlog_warn("warn: written");
    log_in_storage(XLOG_DEBUG, 1);
    log_in_storage(XLOG_TRACE, 2);
    xlog_error("error: written %d", 3);
    assert_int_equal(xlog_get_level(), XLOG_WARN);
    assert_true(xlog_module_enabled("storage", XLOG_DEBUG));
    assert_false(xlog_module_enabled("net", XLOG_INFO));
    assert_int_equal(xlog_close(), 0);
    char *got = read_log(logs);
    char expected[256];
    snprintf(expected, sizeof expected,
             "WARN  warn: written #%d\n"
             "DEBUG storage storage 1 #9\n"
             "ERROR  error: written 3 #%d\n",
             line + 1, line + 4);
    assert_string_equal(got, expected);
    free(got);
    struct stat st;
    assert_int_equal(stat("unused-by-the-program", &st), -1);
    test_remove_tree(dir);
    free(dir);
    free(conf);
    free(logs);
    free(shm);
}

static void the_environment_overrides_the_file_and_the_file_the_program(void **state)
{
    (void)state;
    char *dir = test_make_dir("cfgfile");
    char *logs = test_path(dir, "logs"), *env_logs = test_path(dir, "env-logs");
    char *file_logs = test_path(dir, "file-logs");
    char text[1024];
    int n = snprintf(text, sizeof text,
                     "dir = %s\nlevel = error\nfilter = error,storage=warn\n"
                     "file_pattern = {level} {message}\npersistent = false\n",
                     file_logs);
    char *conf = write_file(dir, "xlog.conf", text, (size_t)n);
    char *broken = write_file(dir, "broken.conf", "levle = x\n", 10);

    /* XLOG_CONFIG names the file in place of cfg.config_file; XLOG_DIR and
     * XLOG_LEVEL override what it says. */
    xlog_config cfg = test_config_in(logs);
    cfg.use_environment = 1;
    cfg.config_file = broken;
    cfg.level = XLOG_TRACE;
    setenv("XLOG_CONFIG", conf, 1);
    setenv("XLOG_DIR", env_logs, 1);
    setenv("XLOG_LEVEL", "info", 1);
    assert_int_equal(xlog_open(&cfg), 0);
    xlog_debug("debug: below XLOG_LEVEL");
    xlog_info("info: XLOG_LEVEL's");
    log_in_storage(XLOG_INFO, 1); /* the file's storage rule is gone too */
    assert_int_equal(xlog_close(), 0);
    char *got = read_log(env_logs);
    assert_string_equal(got, "INFO info: XLOG_LEVEL's\nINFO storage 1\n");
    free(got);

    /* Without XLOG_LEVEL and XLOG_DIR, the file's filter and dir hold over
     * the program's level and dir. */
    unsetenv("XLOG_DIR");
    unsetenv("XLOG_LEVEL");
    assert_int_equal(xlog_open(&cfg), 0);
    xlog_warn("warn: below the file's level");
    xlog_error("error: the file's level");
    log_in_storage(XLOG_WARN, 2);
    log_in_storage(XLOG_INFO, 3);
    assert_int_equal(xlog_close(), 0);
    got = read_log(file_logs);
    assert_string_equal(got, "ERROR error: the file's level\nWARN storage 2\n");
    free(got);

    /* XLOG_LEVEL with only a module rule: the file's level stays the
     * process-wide one. */
    setenv("XLOG_LEVEL", "storage=trace", 1);
    assert_int_equal(xlog_open(&cfg), 0);
    assert_int_equal(xlog_get_level(), XLOG_ERROR);
    assert_true(xlog_module_enabled("storage", XLOG_TRACE));
    assert_int_equal(xlog_close(), 0);
    unsetenv("XLOG_LEVEL");

    /* An empty XLOG_CONFIG is not set: cfg.config_file is read (here: its
     * mistake). */
    setenv("XLOG_CONFIG", "", 1);
    assert_int_equal(xlog_open(&cfg), -EINVAL);
    char expected[1024];
    snprintf(expected, sizeof expected, "%s:1:1: unknown key \"levle\"", broken);
    assert_string_equal(xlog_last_error(), expected);

    /* Without use_environment, XLOG_CONFIG is not read. */
    setenv("XLOG_CONFIG", conf, 1);
    cfg.use_environment = 0;
    assert_int_equal(xlog_open(&cfg), -EINVAL);
    assert_string_equal(xlog_last_error(), expected);
    cfg.config_file = NULL;
    cfg.persistent = 0;
    assert_int_equal(xlog_open(&cfg), 0);
    xlog_debug("debug: the program's own level");
    assert_int_equal(xlog_close(), 0);
    unsetenv("XLOG_CONFIG");
    got = read_log(logs);
    char *nl = strchr(got, '\n');
    assert_non_null(nl);
    assert_string_equal(nl + 1, "");
    test_line parsed;
    assert_true(test_parse_line(got, (size_t)(nl - got), &parsed));
    assert_string_equal(parsed.level, "DEBUG");
    char message[128];
    assert_string_equal(test_message(&parsed, message, sizeof message),
                        "debug: the program's own level");
    free(got);

    test_remove_tree(dir);
    free(dir);
    free(conf);
    free(broken);
    free(logs);
    free(env_logs);
    free(file_logs);
}

/* The text after an RFC 5424 header's time, of the next datagram on fd
 * (within 20 s), its PRI and version checked against pri. */
static void receive_after_time(int fd, const char *pri, char *out, size_t size)
{
    struct pollfd waiting = {.fd = fd, .events = POLLIN};
    assert_int_equal(poll(&waiting, 1, 20000), 1);
    char datagram[4096];
    ssize_t n = recv(fd, datagram, sizeof datagram - 1, 0);
    assert_true(n > 0);
    datagram[n] = '\0';
    assert_memory_equal(datagram, pri, strlen(pri));
    const char *after = strchr(datagram + strlen(pri), ' ');
    assert_non_null(after);
    snprintf(out, size, "%s", after + 1);
}

static void a_syslog_section_sends_its_lines_to_its_collector(void **state)
{
    (void)state;
    char *dir = test_make_dir("cfgfile");
    char *logs = test_path(dir, "logs"), *socket_path = test_path(dir, "collector.sock");
    int collector = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0);
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    snprintf(address.sun_path, sizeof address.sun_path, "%s", socket_path);
    assert_int_equal(bind(collector, (struct sockaddr *)&address, sizeof address), 0);
    char text[1024];
    int n = snprintf(text, sizeof text,
                     "dir = %s\npersistent = false\n"
                     "[syslog local]\n"
                     "transport = unix\naddress = %s\nformat = rfc5424\nfacility = local3\n"
                     "app_name = cfgtest\nhostname = host-1\nlevel = warn\n"
                     "pattern = {level} {message}\n",
                     logs, socket_path);
    char *conf = write_file(dir, "xlog.conf", text, (size_t)n);
    xlog_config cfg = test_config_in("unused");
    cfg.config_file = conf;
    assert_int_equal(xlog_open(&cfg), 0);
    xlog_info("info: the files only");
    xlog_warn("warn: sent");
    xlog_error("error: sent %d", 2);
    assert_int_equal(xlog_close(), 0);
    /* local3 is facility 19: PRI 19 * 8 + 4 (WARN), + 3 (ERROR). */
    char got[4096], want[256];
    receive_after_time(collector, "<156>1 ", got, sizeof got);
    snprintf(want, sizeof want, "host-1 cfgtest %d - - WARN warn: sent", (int)getpid());
    assert_string_equal(got, want);
    receive_after_time(collector, "<155>1 ", got, sizeof got);
    snprintf(want, sizeof want, "host-1 cfgtest %d - - ERROR error: sent 2", (int)getpid());
    assert_string_equal(got, want);
    char more;
    assert_int_equal(recv(collector, &more, 1, 0), -1); /* nothing else was sent */
    assert_int_equal(errno, EAGAIN);
    close(collector);
    char *files = read_log(logs);
    assert_int_equal(test_count_lines(files), 3);
    free(files);
    test_remove_tree(dir);
    free(dir);
    free(logs);
    free(socket_path);
    free(conf);
}

/* What examples/xlog.conf says, field by field. */
static void the_example_file_says_what_its_comments_say(void **state)
{
    (void)state;
    xlog_config cfg = xlog_defaults();
    xlog_config_file *file;
    if (xlog_config_file_load(XLOG_EXAMPLE_CONF, &cfg, &file) != 0)
        fail_msg("%s", xlog_last_error());
    assert_string_equal(cfg.dir, "logs");
    assert_int_equal(cfg.file_mode, XLOG_FILE_SHARED);
    assert_int_equal(cfg.level, XLOG_INFO);
    assert_string_equal(xlog_config_file_filter(file), "info,storage=debug");
    assert_int_equal(cfg.file_layout, XLOG_LAYOUT_TEXT);
    assert_string_equal(cfg.file_pattern, "{time:iso,ms} {level} [{module}] {message}");
    assert_int_equal(cfg.file_level, XLOG_TRACE);
    assert_int_equal(cfg.rotate_size, 64 << 20);
    assert_int_equal(cfg.rotate_keep, 5);
    assert_int_equal(cfg.keep_days, 14);
    assert_int_equal(cfg.rotate_local_time, 0);
    assert_int_equal(cfg.compress, XLOG_COMPRESS_GZIP);
    assert_int_equal(cfg.check_interval_ms, 1000);
    assert_int_equal(cfg.ring_size, 1 << 20);
    assert_int_equal(cfg.full_policy, XLOG_FULL_BLOCK);
    assert_int_equal(cfg.max_message, 16384);
    assert_int_equal(cfg.write_buffer, 256 * 1024);
    assert_int_equal(cfg.flush_interval_ms, 20);
    assert_int_equal(cfg.idle_sleep_us, 500);
    assert_int_equal(cfg.flush_level, XLOG_ERROR);
    assert_int_equal(cfg.sync_level, XLOG_FATAL);
    assert_int_equal(cfg.backtrace_lines, 32);
    assert_int_equal(cfg.backtrace_level, XLOG_DEBUG);
    assert_int_equal(cfg.crash_handlers, 1);
    assert_int_equal(cfg.persistent, 1);
    assert_null(cfg.persistent_dir); /* commented out */
    assert_int_equal(cfg.follow_symlinks, 1);
    assert_int_equal(cfg.console, 2);
    assert_int_equal(cfg.console_level, XLOG_WARN);
    assert_int_equal(cfg.console_buffer, 1 << 20);
    assert_int_equal(cfg.console_color, XLOG_COLOR_NEVER);
    assert_int_equal(cfg.console_layout, XLOG_LAYOUT_TEXT);
    assert_string_equal(cfg.console_pattern, "{level}: {message}");
    assert_null(cfg.file_prefix);     /* commented out */
    assert_int_equal(cfg.rotate_hourly, 0);
    assert_non_null(cfg.sinks);
    assert_null(cfg.sinks[2]);
    const xlog_syslog_config *central = (const xlog_syslog_config *)cfg.sinks[0];
    assert_int_equal(central->sink.kind, XLOG_SINK_SYSLOG);
    assert_int_equal(central->transport, XLOG_SYSLOG_UDP);
    assert_string_equal(central->address, "127.0.0.1:514");
    assert_int_equal(central->format, XLOG_SYSLOG_RFC5424);
    assert_int_equal(central->facility, 16);
    assert_string_equal(central->app_name, "myservice");
    assert_null(central->hostname); /* commented out */
    assert_int_equal(central->sink.level, XLOG_ERROR);
    assert_int_equal(central->sink.layout, XLOG_LAYOUT_TEXT);
    assert_string_equal(central->sink.pattern, "{message}");
    assert_null(central->sink.filter); /* commented out */
    assert_int_equal(central->buffer, 1 << 20);
    const xlog_file_config *errors = (const xlog_file_config *)cfg.sinks[1];
    assert_int_equal(errors->sink.kind, XLOG_SINK_FILE);
    assert_string_equal(errors->prefix, "errors");
    assert_null(errors->dir); /* commented out */
    assert_string_equal(errors->sink.filter, "error");
    assert_int_equal(errors->sink.level, XLOG_TRACE);
    assert_int_equal(errors->sink.layout, XLOG_LAYOUT_TEXT);
    assert_string_equal(errors->sink.pattern, "{level} {message}");
    assert_int_equal(errors->mode, XLOG_FILE_SHARED);
    assert_int_equal(errors->rotate_hourly, 0);
    assert_int_equal(errors->rotate_size, 0);
    assert_int_equal(errors->rotate_keep, 10);
    assert_int_equal(errors->keep_days, 30);
    assert_int_equal(errors->compress, XLOG_COMPRESS_NONE);
    xlog_config_file_free(file);
}

/* The example through xlog_open (XLOG_CONFIG, XLOG_DIR for the test's own
 * directory): the files hold its pattern and filter, the console (stderr,
 * redirected to a file here) its WARN lines and above, in its pattern. */
static void the_example_file_does_what_it_says(void **state)
{
    (void)state;
    char *dir = test_make_dir("cfgfile");
    char *logs = test_path(dir, "logs"), *shm = test_path(dir, "shm");
    char *console = test_path(dir, "console.txt");
    xlog_config cfg = test_config_in("unused");
    cfg.use_environment = 1;
    cfg.persistent_dir = shm; /* the file leaves it to the program */
    setenv("XLOG_CONFIG", XLOG_EXAMPLE_CONF, 1);
    setenv("XLOG_DIR", logs, 1);
    unsetenv("XLOG_LEVEL");
    fflush(stderr);
    int saved = dup(2);
    int fd = open(console, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    dup2(fd, 2);
    close(fd);
    int rc = xlog_open(&cfg);
    if (rc == 0) {
        xlog_debug("debug: not written");
        log_in_storage(XLOG_DEBUG, 1);
        xlog_info("info: the files only");
        xlog_warn("warn: the console too");
        xlog_error("error: the error log too");
        assert_int_equal(xlog_close(), 0);
    }
    dup2(saved, 2);
    close(saved);
    unsetenv("XLOG_CONFIG");
    unsetenv("XLOG_DIR");
    if (rc != 0)
        fail_msg("%s", xlog_last_error());

    char *shown = test_read_file(console, NULL);
    assert_string_equal(shown, "WARN: warn: the console too\nERROR: error: the error log too\n");
    free(shown);
    /* The main files' one file, and the error log's beside it. */
    size_t n;
    char **names = test_list_files(logs, &n);
    assert_int_equal(n, 2);
    assert_true(digits_at(names[0], 4) && strcmp(names[0] + 10, ".log") == 0);
    assert_string_equal(names[1] + 7, names[0]);
    names[1][7] = '\0';
    assert_string_equal(names[1], "errors-");
    char *main_path = test_path(logs, names[0]);
    char *got = test_read_file(main_path, NULL);
    names[1][7] = names[0][0]; /* errors-<the main file's name> again */
    char *errors_path = test_path(logs, names[1]);
    char *errors = test_read_file(errors_path, NULL);
    assert_string_equal(errors, "ERROR error: the error log too\n");
    free(errors);
    free(errors_path);
    free(main_path);
    test_free_list(names, n);
    /* {time:iso,ms}: 2026-11-27T06:20:37.123Z, then the rest exactly. */
    /* The ERROR line comes after the backtrace it brings (backtrace_lines). */
    const char *expected[] = {"DEBUG [storage] storage 1", "INFO [] info: the files only",
                              "WARN [] warn: the console too",
                              "DEBUG [] [backtrace] debug: not written",
                              "ERROR [] error: the error log too"};
    char *line = got;
    for (size_t i = 0; i < 5; i++) {
        char *nl = strchr(line, '\n');
        assert_non_null(nl);
        *nl = '\0';
        assert_true(strlen(line) > 25);
        assert_true(digits_at(line, 4) && line[4] == '-' && line[10] == 'T' && line[19] == '.' &&
                    digits_at(line + 20, 3) && line[23] == 'Z' && line[24] == ' ');
        assert_string_equal(line + 25, expected[i]);
        line = nl + 1;
    }
    assert_string_equal(line, "");
    free(got);
    test_remove_tree(dir);
    free(dir);
    free(logs);
    free(shm);
    free(console);
}

int main(void)
{
    unsetenv("XLOG_CONFIG");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_top_level_key_sets_its_field),
        cmocka_unit_test(console_keys_set_the_console_fields),
        cmocka_unit_test(every_name_of_every_list_is_read),
        cmocka_unit_test(sizes_and_durations_are_read_in_their_units),
        cmocka_unit_test(syslog_sections_are_added_after_the_programs_sinks),
        cmocka_unit_test(file_sections_set_every_key_of_a_listed_file_sink),
        cmocka_unit_test(a_file_section_routes_its_modules_to_its_file),
        cmocka_unit_test(values_are_quoted_as_documented),
        cmocka_unit_test(crlf_a_byte_order_mark_and_no_last_newline_are_read),
        cmocka_unit_test(an_empty_file_changes_nothing),
        cmocka_unit_test(a_line_of_4096_bytes_is_read_and_one_longer_is_refused),
        cmocka_unit_test(nul_bytes_and_control_characters_are_refused),
        cmocka_unit_test(malformed_files_are_refused_whole_with_the_exact_message),
        cmocka_unit_test(more_than_30_syslog_sections_are_refused),
        cmocka_unit_test(unreadable_files_are_refused_with_the_reason),
        cmocka_unit_test(a_bad_file_fails_xlog_open_and_applies_nothing),
        cmocka_unit_test(the_files_pattern_and_levels_decide_the_lines_written),
        cmocka_unit_test(the_environment_overrides_the_file_and_the_file_the_program),
        cmocka_unit_test(a_syslog_section_sends_its_lines_to_its_collector),
        cmocka_unit_test(the_example_file_says_what_its_comments_say),
        cmocka_unit_test(the_example_file_does_what_it_says),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
