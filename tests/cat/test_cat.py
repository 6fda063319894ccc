"""xlog-cat against files written byte by byte from docs/BINARY.md
(xlogbin.py, which shares no code with the decoder): whole output lines,
whole messages on stderr, exit statuses.

    test_cat.py XLOG_CAT TEXT_TWIN WORK_DIR [TEST_NAME...]

TEXT_TWIN is tests/cat/text_twin.c built: it logs TWIN_CASES through the
library, whose own lines xlog-cat's must equal.
"""

import calendar
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import xlogbin as x  # noqa: E402
from follow import Follower  # noqa: E402

CAT = sys.argv[1]
TWIN = sys.argv[2]
WORK = sys.argv[3]

# 2026-11-22 14:45:25.123456789 UTC
BASE = calendar.timegm((2026, 11, 22, 14, 45, 25)) * 10**9 + 123456789
STAMP = "2026-11-22 14:45:25."
THREE = [x.LONG, x.LONG, x.DOUBLE]
THREE_FORMAT = b"Logging int: %lu, int: %lu, double: %f"


def path(name):
    return os.path.join(WORK, name)


def write(name, data):
    with open(path(name), "wb") as f:
        f.write(data)
    return path(name)


def cat(*args, env=None):
    p = subprocess.run([CAT, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=120, env=env)
    return p.returncode, p.stdout.decode("utf-8"), p.stderr.decode("utf-8")


def expect(got, want, what):
    if got != want:
        raise AssertionError("%s:\n got: %r\nwant: %r" % (what, got, want))


def expect_run(args, out, err="", status=0, env=None):
    rc, got_out, got_err = cat(*args, env=env)
    expect(got_out, out, "stdout of xlog-cat %s" % " ".join(args))
    expect(got_err, err, "stderr")
    expect(rc, status, "exit status")


def three_block(base=BASE, tid=777, pid=4321, writer=0x1234, values=((1, 2, 0.5),), delta=0):
    b = x.Block(writer=writer, base_ns=base, pid=pid)
    b.site(0, x.INFO, 42, THREE_FORMAT, kinds=THREE).thread(tid)
    for v in values:
        b.record(0, delta, THREE, v)
    return b


def three_line(ns_digits, tid, i, j, d, level="INFO"):
    return "%s%s [%s] main.c:42 main %d Logging int: %d, int: %d, double: %s\n" % (
        STAMP, ns_digits, level, tid, i, j, d)


# ---- the default line ---------------------------------------------------------------


def every_argument_kind_renders_as_printf_and_the_text_layout_escapes_it():
    b = x.Block(base_ns=BASE)
    b.site(0, x.INFO, 42, THREE_FORMAT, kinds=THREE).thread(777)
    b.record(0, 0, THREE, [1, 2, 0.5])
    b.record(0, 1000, THREE, [2**64 - 1, -5, -1.25])
    ints = b"%d %i %u %x %c|%ld %lu|%lld %jd %zu %td|%hhd %hd"
    b.site(1, x.DEBUG, 7, ints, file=b"/a/b/ints.c", function=b"ints",
           kinds=[x.INT] * 5 + [x.LONG, x.LONG, x.LLONG, x.INTMAX, x.SIZE, x.PTRDIFF, x.INT,
                                x.INT])
    b.record(1, 1, [x.INT] * 5 + [x.LONG, x.LONG, x.LLONG, x.INTMAX, x.SIZE, x.PTRDIFF, x.INT,
                                  x.INT],
             [-5, 2147483647, -1, 255, 65, -2**63, 2**64 - 1, -2**63, 2**63 - 1, 2**64 - 1, -7,
              300, 70000])
    floats = b"%f %.2e %g %a|%Lf %.3Lg|%5.1f%%"
    b.site(2, x.INFO, 8, floats, kinds=[x.DOUBLE] * 4 + [x.LDOUBLE, x.LDOUBLE, x.DOUBLE])
    b.record(2, 1, [x.DOUBLE] * 4 + [x.LDOUBLE, x.LDOUBLE, x.DOUBLE],
             [3.25, 12345.678, 1e-5, 1.0, 2.5, -1234.5, 99.44])
    strings = b"[%s][%s][%s][%.*s][%p][%p][%ls][%ls][%m][%#m][%lc]"
    kinds = [x.STR, x.STR, x.STR, x.INT, x.STR | x.STAR, x.PTR, x.PTR, x.WSTR, x.WSTR, x.ERRNO,
             x.ERRNO, x.WINT]
    b.site(3, x.WARN, 9, strings, file=b"s.c", function=b"strings", kinds=kinds)
    hostile = b"a\nb\r\tc\x01\x7f\xff\xc3(\xe2\x80\xa8\xc2\x85\xe9\x80\x80end"
    b.record(3, 1, kinds, [None, b"", hostile, 3, b"abc", 0x1234, 0, None, "Hi!", 2, 22,
                           ord("A")])
    path_ = write("kinds.xlog", b.bytes())
    hostile_text = "a\\nb\\r\\tc\\x01\\x7f\\xff\\xc3(\\u2028\\u0085\u9000end"
    want = [
        three_line("123456789", 777, 1, 2, "0.500000"),
        three_line("123457789", 777, 18446744073709551615, 18446744073709551611, "-1.250000"),
        STAMP + "123457790 [DEBUG] ints.c:7 ints 777 "
        "-5 2147483647 4294967295 ff A|-9223372036854775808 18446744073709551615|"
        "-9223372036854775808 9223372036854775807 18446744073709551615 -7|44 4464\n",
        STAMP + "123457791 [INFO] main.c:8 main 777 "
        "3.250000 1.23e+04 1e-05 0x1p+0|2.500000 -1.23e+03| 99.4%\n",
        STAMP + "123457792 [WARN] s.c:9 strings 777 "
        "[(null)][][%s][abc][0x1234][(nil)][(null)][Hi!][No such file or directory][EINVAL][A]\n"
        % hostile_text,
    ]
    expect_run([path_], "".join(want))


def wide_characters_beyond_ascii_need_the_locale_option():
    b = x.Block(base_ns=BASE)
    b.site(0, x.INFO, 1, b"%ls %lc", kinds=[x.WSTR, x.WINT]).thread(5)
    b.record(0, 0, [x.WSTR, x.WINT], ["h\u00e9", 0x263A])
    p = write("wide.xlog", b.bytes())
    # In the C locale (a program that never called setlocale), glibc cannot
    # convert them: the conversions show literally, as the library writes them.
    expect_run([p], STAMP + "123456789 [INFO] main.c:1 main 5 %ls %lc\n")
    env = dict(os.environ, LC_ALL="C.UTF-8")
    expect_run(["--locale", p], STAMP + "123456789 [INFO] main.c:1 main 5 h\u00e9 \u263a\n",
               env=env)


def truncation_suppressed_count_and_level_flags_show_as_the_back_end_writes_them():
    b = x.Block(base_ns=BASE, max_message=256)
    b.site(0, x.INFO, 42, THREE_FORMAT, kinds=THREE).thread(777)
    b.record(0, 0, THREE, [1, 2, 0.5], truncated=True)
    b.record(0, 1, THREE, [1, 2, 0.5], suppressed=12)
    b.record(0, 1, THREE, [1, 2, 0.5], level=x.ERROR)
    b.record(0, 1, THREE, [1, 2, 0.5], level=x.FATAL, truncated=True, suppressed=3)
    b.site(1, x.INFO, 43, b"%s", kinds=[x.STR])
    b.record(1, 1, [x.STR], [b"x" * 300])
    p = write("flags.xlog", b.bytes())
    msg = "Logging int: 1, int: 2, double: 0.500000"
    pre = STAMP + "1234567%s [%s] main.c:%d main 777 "
    want = [
        pre % ("89", "INFO", 42) + msg + "...[truncated]\n",
        pre % ("90", "INFO", 42) + msg + " (12 more suppressed)\n",
        pre % ("91", "ERROR", 42) + msg + "\n",
        pre % ("92", "FATAL", 42) + msg + "...[truncated] (3 more suppressed)\n",
        # cut at max_message (256) with the mark inside it
        pre % ("93", "INFO", 43) + "x" * (256 - 14) + "...[truncated]\n",
    ]
    expect_run([p], "".join(want))


def message_entries_show_as_given_escaped_and_before_a_thread_as_the_process():
    b = x.Block(base_ns=BASE, pid=999)
    b.message(0, x.WARN, 0, b"xlog", b"xlog", b"", b"3 messages were lost")
    b.thread(12)
    b.message(5, x.ERROR, 77, b"dir/f\nile.c", b"fu\x1bnc", b"net", b"two\nlines\xff")
    p = write("messages.xlog", b.bytes())
    want = [
        STAMP + "123456789 [WARN] xlog:0 xlog 999 3 messages were lost\n",
        STAMP + "123456794 [ERROR] f\\nile.c:77 fu\\x1bnc 12 two\\nlines\\xff\n",
    ]
    expect_run([p], "".join(want))


def pattern_and_json_are_the_library_layouts():
    b = x.Block(base_ns=BASE, pid=999)
    b.site(0, x.WARN, 5, b"v=%d \"q\"", file=b"src/net/tls.c", function=b"hs",
           module=b"net.tls", kinds=[x.INT]).thread(31)
    b.record(0, 0, [x.INT], [-3])
    b.site(1, x.INFO, 6, b"plain\n", kinds=[])
    b.record(1, 10, [], [])
    p = write("layouts.xlog", b.bytes())
    expect_run(["--pattern", "{time:iso,ms} {level} {module} {pid}/{tid} {path} {message}", p],
               "2026-11-22T14:45:25.123Z WARN net.tls 999/31 src/net/tls.c v=-3 \"q\"\n"
               "2026-11-22T14:45:25.123Z INFO  999/31 src/main.c plain\n")
    rc, out, err = cat("--json", p)
    expect((rc, err), (0, ""), "status and stderr")
    objects = [json.loads(line) for line in out.splitlines()]
    expect(objects, [
        {"timestamp": "2026-11-22T14:45:25.123456789Z", "severity_text": "WARN",
         "severity_number": 13, "body": "v=-3 \"q\"",
         "attributes": {"code.filepath": "src/net/tls.c", "code.lineno": 5,
                        "code.function": "hs", "thread.id": 31, "process.pid": 999,
                        "xlog.module": "net.tls"}},
        {"timestamp": "2026-11-22T14:45:25.123456799Z", "severity_text": "INFO",
         "severity_number": 9, "body": "plain",
         "attributes": {"code.filepath": "src/main.c", "code.lineno": 6,
                        "code.function": "main", "thread.id": 31, "process.pid": 999}},
    ], "JSON objects")
    expect_run(["--pattern", "{nope}", p], "",
               "xlog-cat: --pattern: unknown field {nope} at column 1\n", 1)


# ---- against the library's own lines ----------------------------------------------------

TWIN_PATTERN = "[{level}] {path}:{line} {function} {module} {thread}|{message}"
TWIN_THREAD = b"tw\"in\\\x01\xff\xe2\x80\xa8"  # text_twin.c's, hostile
TWIN_HOSTILE = b"a\nb\r\tc\x01\x7f\xff\xc3(\xe2\x80\xa8\xc2\x85\xe9\x80\x80end"
# The calls of text_twin.c, in its order: level, format, kinds, values (as its
# caller side stores them: "%.*s" keeps 3 bytes, %m the errno, ENOENT; %hhd and %hd
# get 300 and 70000 here, their narrowed values in text_twin.c, for clang).
TWIN_CASES = [
    (x.INFO, THREE_FORMAT, THREE, [1, 2, 0.5]),
    (x.DEBUG, b"%d %i %u %x %c|%ld %lu|%lld %jd %zu %td|%hhd %hd",
     [x.INT] * 5 + [x.LONG, x.LONG, x.LLONG, x.INTMAX, x.SIZE, x.PTRDIFF, x.INT, x.INT],
     [-5, 2147483647, -1, 255, 65, -2**63, 2**64 - 1, -2**63, 2**63 - 1, 2**64 - 1, -7, 300,
      70000]),
    (x.WARN, b"%f %.2e %g %a|%Lf %.3Lg|%5.1f%%",
     [x.DOUBLE] * 4 + [x.LDOUBLE, x.LDOUBLE, x.DOUBLE],
     [3.25, 12345.678, 1e-5, 1.0, 2.5, -1234.5, 99.44]),
    (x.ERROR, b"[%s][%s][%s][%.*s][%p][%p][%ls][%ls][%m][%lc]",
     [x.STR, x.STR, x.STR, x.INT, x.STR | x.STAR, x.PTR, x.PTR, x.WSTR, x.WSTR, x.ERRNO, x.WINT],
     [None, b"", TWIN_HOSTILE, 3, b"abc", 0x1234, 0, None, "Hi!", 2, ord("A")]),
    (x.FATAL, b"%s", [x.STR], [b"x" * 20000]),
    (x.TRACE, b"plain\n", [], []),
    (x.INFO, b"100%% done %5s|%-5d|%+d|% d|%05.1f|%#o|%#x",
     [x.STR, x.INT, x.INT, x.INT, x.DOUBLE, x.INT, x.INT], [b"ab", 42, 7, 7, 2.25, 8, 255]),
    (x.INFO, b"%s and %s", [x.STR, x.STR], [b"\xe2\x80\xa9", b"\x1b[31mred"]),
]


def twin_files(kind):
    """The library's file of TWIN_CASES in layout kind, and the same calls in binary."""
    d = os.path.join(WORK, "twin-" + kind)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    subprocess.run([TWIN, os.path.join(d, "logs"), os.path.join(d, "persistent"), kind],
                   check=True, timeout=120)
    logs = os.listdir(os.path.join(d, "logs"))
    expect(len(logs), 1, "the library's files: %r" % logs)
    with open(os.path.join(d, "logs", logs[0]), "rb") as f:
        text = f.read().decode("utf-8")
    b = x.Block(base_ns=BASE).thread(1).thread_name(1, TWIN_THREAD)
    for number, (level, fmt, kinds, values) in enumerate(TWIN_CASES):
        b.site(number, level, number + 1, fmt, file=b"src/twin.c", function=b"twin",
               kinds=kinds)
        b.record(number, 1, kinds, values)
    return text, write("twin-%s.xlog" % kind, b.bytes())


def the_same_calls_give_the_library_text_lines_byte_for_byte():
    text, binary = twin_files("pattern")
    expect(len(text.splitlines()), len(TWIN_CASES), "the library's lines")
    expect_run(["--pattern", TWIN_PATTERN, binary], text)


def the_same_calls_give_the_library_default_lines_but_for_time_and_thread():
    text, binary = twin_files("default")
    rc, out, err = cat(binary)
    expect((rc, err), (0, ""), "status and stderr")
    # the default line's own path (text.c): "TIME [LEVEL] file:line function TID message"
    default_line = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{9} (\[\w+\] \S+ \S+) \d+ (.*)$")

    def timeless(lines):
        return [default_line.match(line).groups() for line in lines.splitlines()]

    want = timeless(text)
    expect(len(want), len(TWIN_CASES), "the library's lines")
    expect(timeless(out), want, "the default lines but for time and thread")


def the_same_calls_give_the_library_json_objects():
    text, binary = twin_files("json")
    rc, out, err = cat("--json", binary)
    expect((rc, err), (0, ""), "status and stderr")

    def timeless(line):
        o = json.loads(line)
        del o["timestamp"], o["attributes"]["thread.id"], o["attributes"]["process.pid"]
        return o

    want = [timeless(line) for line in text.splitlines()]
    expect(len(want), len(TWIN_CASES), "the library's objects")
    expect([timeless(line) for line in out.splitlines()], want, "JSON objects")


# ---- merging ---------------------------------------------------------------------------


def three_files_merge_by_time_keeping_each_files_order_for_equal_times():
    # a: times 0, 3, 3, 9; b: 1, 3, 8; c (two writers, two blocks): 2, 3 / 3, 10
    a = three_block(tid=1, values=[(1, 0, 0.0)]).record(0, 3, THREE, (1, 1, 0.0))
    a.record(0, 0, THREE, (1, 2, 0.0)).record(0, 6, THREE, (1, 3, 0.0))
    b = three_block(base=BASE + 1, tid=2, values=[(2, 0, 0.0)])
    b.record(0, 2, THREE, (2, 1, 0.0)).record(0, 5, THREE, (2, 2, 0.0))
    c1 = three_block(base=BASE + 2, tid=3, writer=7, values=[(3, 0, 0.0)])
    c1.record(0, 1, THREE, (3, 1, 0.0))
    c2 = three_block(base=BASE + 3, tid=4, writer=8, values=[(4, 0, 0.0)])
    c2.record(0, 7, THREE, (4, 1, 0.0))
    pa = write("a.xlog", a.bytes())
    pb = write("b.xlog", b.bytes())
    pc = write("c.xlog", c1.bytes() + c2.bytes())
    order = [(0, 1, 1, 0), (1, 2, 2, 0), (2, 3, 3, 0), (3, 1, 1, 1), (3, 1, 1, 2),
             (3, 2, 2, 1), (3, 3, 3, 1), (3, 4, 4, 0), (8, 2, 2, 2), (9, 1, 1, 3),
             (10, 4, 4, 1)]
    want = "".join(three_line("1234567%02d" % (89 + t), tid, i, j, "0.000000")
                   for t, tid, i, j in order)
    expect_run([pa, pb, pc], want)
    # the order of the files decides only between equal times
    order_b_first = sorted(order, key=lambda e: (e[0], {2: 0, 1: 1}.get(e[1], 2)))
    want = "".join(three_line("1234567%02d" % (89 + t), tid, i, j, "0.000000")
                   for t, tid, i, j in order_b_first)
    expect_run([pb, pa, pc], want)


def gzip_files_read_as_the_plain_ones():
    b = three_block(values=[(1, 2, 0.5), (3, 4, 1.5)], delta=1)
    plain = write("z.xlog", b.bytes())
    with gzip.open(path("z.1.xlog.gz"), "wb") as f:
        f.write(b.bytes())
    rc, want, err = cat(plain)
    expect((rc, err, len(want.splitlines())), (0, "", 2), "the plain file")
    expect_run([path("z.1.xlog.gz")], want)
    with open(path("z.1.xlog.gz"), "rb") as f:
        compressed = f.read()
    cut = write("z.2.xlog.gz", compressed[:len(compressed) - 30])
    rc, out, err = cat(cut)
    errs = err.splitlines()
    expect((rc, len(errs)), (1, 2), "a cut gzip file: " + err)
    expect(errs[0].startswith("xlog-cat: %s: byte " % cut) and
           errs[0].endswith(" of the decompressed data: unexpected end of file"), True, err)
    expect(errs[1].startswith("xlog-cat: %s: byte " % cut) and "is cut: the file ends" in errs[1],
           True, err)
    expect(want.startswith(out), True, "a cut gzip file's lines: " + out)
    garbled = write("z.3.xlog.gz", b"\x1f\x8b\x08\x00garbagegarbage")
    expect_run([garbled], "", "xlog-cat: %s: byte 0 of the decompressed data: invalid code "
                              "lengths set\n" % garbled, 1)
    expect_run([WORK], "", "xlog-cat: %s: byte 0: Is a directory\n" % WORK, 1)


# ---- filters ---------------------------------------------------------------------------


def filter_file():
    b = x.Block(base_ns=BASE, pid=100)
    b.site(0, x.DEBUG, 1, b"debug %d", module=b"net", kinds=[x.INT])
    b.site(1, x.WARN, 2, b"warn %d", module=b"net.tls", kinds=[x.INT])
    b.site(2, x.INFO, 3, b"info %d", module=b"network", kinds=[x.INT])
    b.site(3, x.ERROR, 4, b"error %d", kinds=[x.INT])
    b.thread(10)
    for i in range(4):
        b.record(i, 1000 * 1000 * 1000, [x.INT], [i])  # one a second
    b.thread(11)
    b.record(2, 1, [x.INT], [42])
    other = x.Block(writer=99, base_ns=BASE + 10, pid=200)
    other.site(0, x.INFO, 5, b"other %s", kinds=[x.STR]).thread(10)
    other.record(0, 0, [x.STR], [b"needle in it"])
    return write("filters.xlog", b.bytes() + other.bytes())


def filter_lines(out):
    return [line.split(" ", 6)[6] for line in out.splitlines()]


def each_filter_keeps_exactly_its_entries():
    p = filter_file()
    cases = [
        # one file of two processes: in time order, though the second block's
        # entry, the earliest, was written last
        ([], ["other needle in it", "debug 0", "warn 1", "info 2", "error 3", "info 42"]),
        (["--level", "warn"], ["warn 1", "error 3"]),
        (["--level", "WARNING, network = trace"], ["warn 1", "info 2", "error 3", "info 42"]),
        (["--level", "net=info"], ["other needle in it", "warn 1", "info 2", "error 3",
                                   "info 42"]),
        (["--module", "net"], ["debug 0", "warn 1"]),
        (["--module", "net.tls", "--module", "network"], ["warn 1", "info 2", "info 42"]),
        (["--since", "2026-11-22 14:45:27.123456789"], ["warn 1", "info 2", "error 3", "info 42"]),
        (["--until", "2026-11-22T14:45:27.123456789Z"],
         ["other needle in it", "debug 0"]),
        (["--since", "2026-11-22 14:45:27", "--until", "2026-11-22 14:45:28.5"],
         ["warn 1", "info 2"]),
        (["--since", "2026-11-23"], []),
        (["--tid", "11"], ["info 42"]),
        (["--pid", "200"], ["other needle in it"]),
        (["--tid", "10", "--pid", "100"], ["debug 0", "warn 1", "info 2", "error 3"]),
        (["--grep", "needle"], ["other needle in it"]),
        (["--grep", "info", "--tid", "10"], ["info 2"]),
    ]
    for args, want in cases:
        rc, out, err = cat(*args, p)
        expect((rc, err, filter_lines(out)), (0, "", want), "xlog-cat %s" % " ".join(args))


def bad_options_are_refused_with_the_reason():
    p = filter_file()
    expect_run(["--level", "warn,net=loud", p], "",
               "xlog-cat: --level=\"warn,net=loud\": \"loud\" at column 10 is not a level "
               "(trace, debug, info, warn or warning, error or err, fatal or off)\n", 1)
    expect_run(["--since", "yesterday", p], "",
               "xlog-cat: --since \"yesterday\": not a time (YYYY-MM-DD[ HH:MM[:SS[.fraction]]], "
               "UTC)\n", 1)
    expect_run(["--until", "2026-02-30", p], "",
               "xlog-cat: --until \"2026-02-30\": not a time (YYYY-MM-DD[ HH:MM[:SS[.fraction]]], "
               "UTC)\n", 1)
    expect_run(["--tid", "12x", p], "", "xlog-cat: --tid \"12x\": not a number\n", 1)
    rc, out, err = cat()
    expect((rc, out, err.splitlines()[0]), (1, "", "xlog-cat: no file given"), "no file")
    rc, out, err = cat("--help")
    expect((rc, err, out.splitlines()[0]), (0, "", "usage: xlog-cat [OPTIONS] FILE..."), "--help")
    expect_run([path("missing.xlog")], "",
               "xlog-cat: %s: No such file or directory\n" % path("missing.xlog"), 1)


# ---- damage ----------------------------------------------------------------------------


def a_cut_file_is_read_to_its_last_whole_entry():
    first = three_block(values=[(1, 2, 0.5)]).bytes()
    second = three_block(values=[(3, 4, 0.5), (5, 6, 0.5)], delta=1).bytes()
    line = three_line("123456789", 777, 1, 2, "0.500000")
    line3 = three_line("123456790", 777, 3, 4, "0.500000")
    cut = len(first) + len(second) - 3  # inside the last record
    p = write("cut.xlog", (first + second)[:cut])
    expect_run([p], line + line3,
               "xlog-cat: %s: byte %d: the block at byte %d is cut: the file ends 3 bytes before "
               "its end (its whole entries were read)\n" % (p, cut - 10, len(first)), 1)
    p = write("cut_header.xlog", first + second[:20])
    expect_run([p], line, "xlog-cat: %s: byte %d: the file ends inside a block header (20 of 32 "
                          "bytes)\n" % (p, len(first)), 1)
    p = write("magic_only.xlog", x.MAGIC[:5])
    expect_run([p], "", "xlog-cat: %s: byte 0: the file ends inside a block header (5 of 32 "
                        "bytes)\n" % p, 1)
    expect_run([write("empty.xlog", b"")], "")


def a_block_cut_by_a_kill_ends_where_the_next_block_begins():
    first = three_block(values=[(1, 2, 0.5), (3, 4, 0.5)], delta=1).bytes()
    second = three_block(base=BASE + 100, writer=9, values=[(5, 6, 0.5)]).bytes()
    cut = len(first) - 4  # the writer was killed in its last record
    p = write("shared.xlog", first[:cut] + second)
    want = three_line("123456790", 777, 1, 2, "0.500000") + \
        three_line("123456889", 777, 5, 6, "0.500000")
    # the next block's magic ends the block: the cut record is not read
    expect_run([p], want, "xlog-cat: %s: byte %d: the block at byte 0 is cut at byte %d, where "
                          "another block begins (its whole entries were read)\n"
                          % (p, cut - 9, cut), 1)
    # cut between two entries: the next block's magic stands where an entry would
    cut = len(three_block(values=[(1, 2, 0.5)], delta=1).bytes())
    p = write("shared2.xlog", first[:cut] + second)
    expect_run([p], want, "xlog-cat: %s: byte %d: the block at byte 0 is cut at byte %d, where "
                          "another block begins (its whole entries were read)\n"
                          % (p, cut, cut), 1)


def a_shared_file_reports_each_damage_once_learning_its_writers_from_block_headers():
    """A file of two writers is taken apart by writer after a look at its
    block headers only: that look reports what is wrong between and across
    blocks (a block cut where another begins, garbage), before any line; a
    garbled entry inside a whole block, which it does not decode, is
    reported by the reader of that block's writer, after.  Each once.  (The
    look decoded every entry, and said all in the file's order.)"""
    a = three_block(writer=1, values=[(1, 0, 0.5)]).bytes()
    b = three_block(base=BASE + 1, writer=9, values=[(2, 0, 0.5)]).raw(b"\x7f").bytes()
    c = three_block(base=BASE + 2, writer=1, values=[(3, 0, 0.5), (4, 0, 0.5)], delta=1).bytes()
    d = three_block(base=BASE + 5, writer=9, values=[(5, 0, 0.5)]).bytes()
    e = three_block(base=BASE + 6, writer=1, values=[(6, 0, 0.5)]).bytes()
    cut = len(c) - 4  # the writer was killed in its last record
    at_c = len(a) + len(b)
    junk = at_c + cut + len(d)
    p = write("shared_damage.xlog", a + b + c[:cut] + d + b"junk" + e)
    want = "".join(three_line(ns, 777, i, 0, "0.500000") for ns, i in
                   (("123456789", 1), ("123456790", 2), ("123456792", 3), ("123456794", 5),
                    ("123456795", 6)))
    expect_run([p], want,
               "xlog-cat: %s: byte %d: the block at byte %d is cut at byte %d, where another "
               "block begins (its whole entries were read)\n"
               "xlog-cat: %s: byte %d: 4 bytes that are not a block: skipped to the next block, "
               "at byte %d\n"
               "xlog-cat: %s: byte %d: an entry of unknown tag 0x7f: the rest of the block at "
               "byte %d is skipped\n"
               % (p, at_c + cut - 9, at_c, at_c + cut, p, junk, junk + 4,
                  p, at_c - 1, len(a)), 1)


class Skipped(Exception):
    """A test that cannot run here (said on its line of the output)."""


def a_shared_file_renamed_while_read_is_read_whole_from_the_file_first_opened():
    """xlog-cat reads a file of several writers once per writer (its lines
    put back in time order): each reader is the file first opened, whatever
    its name leads to by then.  gdb stops xlog-cat between learning the
    writers and reading per writer (at zlib's gzrewind) and puts another
    file in its place.  (The readers opened the name again: writer 9's line
    came from the other file.)"""
    gdb = shutil.which("gdb")
    if not gdb:
        raise Skipped("no gdb")
    d = os.path.join(WORK, "renamed")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    name, other = os.path.join(d, "shared.xlog"), os.path.join(d, "other.xlog")

    def blocks(first):
        return b"".join(three_block(base=BASE + t, writer=w, values=[(first + t, 0, 0.5)]).bytes()
                        for t, w in ((0, 1), (1, 9), (2, 1)))

    with open(name, "wb") as f:
        f.write(blocks(1))
    with open(other, "wb") as f:
        f.write(blocks(101))
    out, err = os.path.join(d, "out"), os.path.join(d, "err")
    p = subprocess.run(
        [gdb, "-batch", "-nx", "-ex", "set disable-randomization off", "-ex",
         "set breakpoint pending on", "-ex", "break gzrewind", "-ex",
         "run %s > %s 2> %s" % (name, out, err), "-ex",
         "shell mv %s %s.moved && mv %s %s" % (name, name, other, name), "-ex", "continue",
         "--args", CAT], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
    said = p.stdout.decode(errors="replace")
    expect(said.count("Breakpoint 1, "), 1, "gdb stopped xlog-cat once (gdb said %r)" % said)
    expect("exited normally" in said, True, "xlog-cat exited 0 (gdb said %r)" % said)
    with open(out) as f:
        expect(f.read(), "".join(three_line("%d" % (123456789 + t), 777, 1 + t, 0, "0.500000")
                                 for t in range(3)), "stdout")
    with open(err) as f:
        expect(f.read(), "", "stderr")


def garbage_between_blocks_is_skipped_to_the_next_magic():
    first = three_block(values=[(1, 2, 0.5)]).bytes()
    second = three_block(base=BASE + 1, values=[(3, 4, 0.5)]).bytes()
    p = write("garbage.xlog", first + b"\x00garbage\x89XLO" + second + b"tail")
    want = three_line("123456789", 777, 1, 2, "0.500000") + \
        three_line("123456790", 777, 3, 4, "0.500000")
    n = len(first)
    expect_run([p], want,
               "xlog-cat: %s: byte %d: 12 bytes that are not a block: skipped to the next "
               "block, at byte %d\n"
               "xlog-cat: %s: byte %d: 4 bytes that are not a block: skipped to the end of the "
               "file\n" % (p, n, n + 12, p, n + 12 + len(second)), 1)
    # into one stream, each message stands where its damage is
    both = subprocess.run([CAT, p], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
    lines = want.splitlines(keepends=True)
    expect(both.stdout.decode(), lines[0] +
           "xlog-cat: %s: byte %d: 12 bytes that are not a block: skipped to the next block, at "
           "byte %d\n" % (p, n, n + 12) + lines[1] +
           "xlog-cat: %s: byte %d: 4 bytes that are not a block: skipped to the end of the file\n"
           % (p, n + 12 + len(second)), "stdout and stderr in one")


def a_message_holding_the_magic_is_read_whole():
    """A string argument may hold the 8 bytes of the magic: a block whose size
    leads to the next block (or to the end) is whole whatever it holds."""
    magic_text = b"a" + x.MAGIC + b"z"
    b = x.Block(base_ns=BASE)
    b.site(0, x.INFO, 7, b"got %s", kinds=[x.STR]).thread(777)
    b.record(0, 0, [x.STR], [magic_text])
    second = three_block(base=BASE + 1, values=[(3, 4, 0.5)]).bytes()
    want = ("%s123456789 [INFO] main.c:7 main 777 got a\\x89XLOG\\r\\n\\x1az\n" % STAMP +
            three_line("123456790", 777, 3, 4, "0.500000"))
    expect_run([write("magic.xlog", b.bytes() + second)], want)
    expect_run([write("magic-last.xlog", second + b.bytes())],
               three_line("123456790", 777, 3, 4, "0.500000") +
               "%s123456789 [INFO] main.c:7 main 777 got a\\x89XLOG\\r\\n\\x1az\n" % STAMP)


def a_site_defined_anew_renders_by_its_new_format():
    """Each block defines its sites again; a reader that frees a site's old
    format and gets the same address for a new one of the same length must
    not render by the old one's parse (it read an int as a string)."""
    blocks = b""
    formats = [(b"v=%s!", [x.STR], [b"abc"], "v=abc!"), (b"w=%d!", [x.INT], [7], "w=7!"),
               (b"v=%ld", [x.LONG], [-5], "v=-5"), (b"v=%s!", [x.STR], [b"xyz"], "v=xyz!")] * 3
    want = ""
    for i, (fmt, kinds, values, text) in enumerate(formats):
        b = x.Block(base_ns=BASE + i)
        b.site(0, x.INFO, 7, fmt, kinds=kinds).thread(777).record(0, 0, kinds, values)
        blocks += b.bytes()
        want += "%s%09d [INFO] main.c:7 main 777 %s\n" % (STAMP, 123456789 + i, text)
    expect_run([write("anew.xlog", blocks)], want)


def every_bad_input_gets_its_message_and_the_rest_is_read():
    good = three_block(base=BASE + 1, writer=5, values=[(9, 9, 0.5)]).bytes()
    good_line = three_line("123456790", 777, 9, 9, "0.500000")
    def header_size(data, size):
        return data[:10] + size.to_bytes(2, "little") + data[12:]

    def block(**kw):
        return x.Block(base_ns=BASE, **kw)

    h = 32 + len(block().body)  # where the first entry after the Process entry is

    cases = [
        ("text.xlog", b"2026-11-22 14:45:25 [INFO] main.c:1 main 1 hello\n", "",
         "byte 0: not a binary xlog file (it does not begin with the magic "
         "\\x89XLOG\\r\\n\\x1a)"),
        ("version.xlog", block(version=2).bytes() + good, good_line,
         "byte 0: a block of format version 2 (this reader knows version 1): skipped"),
        ("header.xlog", header_size(block().bytes(), 16) + good, good_line,
         "byte 0: a garbled block header (header size 16, block size %d, writer not 0): "
         "skipped" % (32 + len(block().body))),
        ("writer0.xlog", block(writer=0).bytes() + good, good_line,
         "byte 0: a garbled block header (header size 32, block size %d, writer 0): skipped"
         % (32 + len(block().body))),
        ("tag.xlog", block().raw(b"\x42\x00").bytes() + good, good_line,
         "byte %d: an entry of unknown tag 0x42: the rest of the block at byte 0 is skipped"
         % h),
        ("level.xlog", block().site(0, 9, 1, b"x").bytes() + good, good_line,
         "byte %d: a garbled Site entry (a level above 5 (FATAL)): the rest of the block at "
         "byte 0 is skipped" % h),
        ("badkinds.xlog", block().site(0, 1, 1, b"%d %s", kinds=[x.INT, x.INT]).bytes() + good,
         good_line,
         "byte %d: a garbled Site entry (its argument kinds are not those of its format): the "
         "rest of the block at byte 0 is skipped" % h),
        ("site.xlog", block().thread(1).record(3, 0).bytes() + good, good_line,
         "byte %d: a garbled Record entry (its site was not defined before it): the rest of the "
         "block at byte 0 is skipped" % (h + 2)),
        ("thread.xlog", block().site(0, 1, 1, b"x").record(0, 0).bytes() + good, good_line,
         "byte %d: a garbled Record entry (a record before any Thread entry): the rest of the "
         "block at byte 0 is skipped" % (h + 10 + len(b"src/main.c") + len(b"main"))),
        ("flags.xlog", block().site(0, 1, 1, b"x").thread(1).raw(b"\x88\x00\x00").bytes() + good,
         good_line,
         "byte %d: a garbled Record entry (record flags 0x08 to 0x40 set): the rest of the "
         "block at byte 0 is skipped" % (h + 12 + len(b"src/main.c") + len(b"main"))),
        ("varint.xlog", block().raw(b"\x03" + b"\xff" * 11 + b"\x01").bytes() + good, good_line,
         "byte %d: a garbled Thread entry (a number of more than 64 bits): the rest of the "
         "block at byte 0 is skipped" % h),
        ("string.xlog", block().raw(b"\x02\x00\x01\x01\x00\x7f").bytes() + good, good_line,
         "byte %d: a garbled Site entry (it runs past the end of the block): the rest of the "
         "block at byte 0 is skipped" % h),
        ("process.xlog", x.Block(base_ns=BASE).thread(1).bytes()[:32] + b"\x03\x01" + good,
         good_line, None),
        ("max_message.xlog", block(max_message=10).bytes() + good, good_line,
         "byte 32: a garbled Process entry (a max_message below 256 or above 2^28): the rest of "
         "the block at byte 0 is skipped"),
    ]
    for name, data, want_out, why in cases:
        if name == "process.xlog":
            # a header whose block is only a Thread entry
            hdr = bytearray(data[:32])
            hdr[12:16] = (34).to_bytes(4, "little")
            data = bytes(hdr) + data[32:]
            why = ("byte 32: the block at byte 0 does not begin with a Process entry: skipped")
        p = write(name, data)
        expect_run([p], want_out, "xlog-cat: %s: %s\n" % (p, why), 1)


# ---- following -----------------------------------------------------------------------------


def expect_followed(follower, lines, n):
    """The follower's output is (comes to be, within a minute) lines[:n]."""
    expect(follower.read_until(n).decode(), "".join(lines[:n]), "lines after step %d" % n)


def follow_reads_on_across_two_rotations():
    d = os.path.join(WORK, "follow")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    live = os.path.join(d, "2026-11-22.xlog")
    blocks = [three_block(base=BASE + i, writer=1, values=[(i, 0, 0.5)]).bytes()
              for i in range(6)]
    lines = [three_line("1234567%02d" % (89 + i), 777, i, 0, "0.500000") for i in range(6)]
    with open(live, "wb") as f:
        f.write(blocks[0])
    follower = Follower(CAT, live)

    try:
        expect_followed(follower, lines, 1)
        with open(live, "ab") as f:  # appended whole
            f.write(blocks[1])
        expect_followed(follower, lines, 2)
        with open(live, "ab") as f:  # in two writes: half a block waits for its rest
            f.write(blocks[2][:10])
            f.flush()
            time.sleep(0.3)
            f.write(blocks[2][10:])
        expect_followed(follower, lines, 3)
        old = open(live, "ab")
        os.rename(live, os.path.join(d, "2026-11-22.1.xlog"))  # rotation 1
        old.write(blocks[3])  # written to the old file after the rename
        old.close()
        with open(live, "wb") as f:
            f.write(blocks[4])
        expect_followed(follower, lines, 5)
        rotate(live)  # rotation 2: .1 to .2, the live name to .1
        with open(live, "wb") as f:
            f.write(blocks[5])
        expect_followed(follower, lines, 6)
    finally:
        err = follower.stop()
    expect(err, b"", "stderr")


def rotate(live, compress_first=False):
    """Rotates live as the library does: <stem>.N.xlog (and .N.xlog.gz) to
    <stem>.N+1..., live to <stem>.1.xlog; that one compressed at once when
    compress_first (as a short compress_delay_ms would)."""
    stem = live[:-len(".xlog")]
    n = 1
    while os.path.exists("%s.%d.xlog" % (stem, n)) or os.path.exists("%s.%d.xlog.gz" % (stem, n)):
        n += 1
    for k in range(n - 1, 0, -1):
        for suffix in (".xlog", ".xlog.gz"):
            if os.path.exists("%s.%d%s" % (stem, k, suffix)):
                os.rename("%s.%d%s" % (stem, k, suffix), "%s.%d%s" % (stem, k + 1, suffix))
    first = "%s.1.xlog" % stem
    os.rename(live, first)
    if compress_first:
        with open(first, "rb") as f, gzip.open(first + ".gz", "wb") as z:
            z.write(f.read())
        os.unlink(first)


def follow_reads_every_file_of_a_name_rotated_twice_between_two_looks():
    """A name rotated twice (three times, the file in between compressed at
    once) between two of xlog-cat's looks at it (every 0.1 s): the old file
    is read to its end, then each file that had the name after it, the oldest
    first, then the new one; every line once, in order.  (It missed the files
    in between.)  Each round's renames take microseconds, so a look between
    them is rare, and gives the same lines."""
    d = os.path.join(WORK, "follow3")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    live = os.path.join(d, "2026-11-22.xlog")
    count = 11
    blocks = [three_block(base=BASE + i, writer=1, values=[(i, 0, 0.5)]).bytes()
              for i in range(count)]
    lines = [three_line("1234567%02d" % (89 + i), 777, i, 0, "0.500000") for i in range(count)]

    def put(name, *numbers, mode="ab"):
        with open(name, mode) as f:
            for i in numbers:
                f.write(blocks[i])

    put(live, 0, mode="wb")
    follower = Follower(CAT, live)

    try:
        expect_followed(follower, lines, 1)
        put(live, 1)  # the old file grows before its rotation
        rotate(live)
        put(live, 2, 3, mode="wb")
        rotate(live)
        put(live, 4, mode="wb")
        expect_followed(follower, lines, 5)
        put(live, 5)
        expect_followed(follower, lines, 6)
        put(live, 6)
        rotate(live)
        put(live, 7, mode="wb")
        rotate(live, compress_first=True)
        put(live, 8, mode="wb")
        rotate(live)
        put(live, 9, mode="wb")
        expect_followed(follower, lines, 10)
        put(live, 10)
        expect_followed(follower, lines, 11)
        time.sleep(0.3)  # anything more would be a line twice
        expect(follower.read_rest().decode(), "".join(lines), "all lines")
    finally:
        err = follower.stop()
    expect(err, b"", "stderr")


def follow_waits_for_a_missing_name_and_reads_a_gz_once():
    d = os.path.join(WORK, "follow2")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    gz, later = os.path.join(d, "old.xlog.gz"), os.path.join(d, "later.xlog")
    with gzip.open(gz, "wb") as f:
        f.write(three_block(values=[(1, 0, 0.5)]).bytes())
    follower = Follower(CAT, gz, later)
    want = [three_line("123456789", 777, 1, 0, "0.500000"),
            three_line("123456790", 777, 2, 0, "0.500000")]

    try:
        expect_followed(follower, want, 1)
        with open(later, "wb") as f:
            f.write(three_block(base=BASE + 1, values=[(2, 0, 0.5)]).bytes())
        expect_followed(follower, want, 2)
    finally:
        err = follower.stop()
    expect(err.decode(), "xlog-cat: %s: No such file or directory\n" % later, "stderr")


TESTS = [
    the_same_calls_give_the_library_text_lines_byte_for_byte,
    the_same_calls_give_the_library_default_lines_but_for_time_and_thread,
    the_same_calls_give_the_library_json_objects,
    every_argument_kind_renders_as_printf_and_the_text_layout_escapes_it,
    wide_characters_beyond_ascii_need_the_locale_option,
    truncation_suppressed_count_and_level_flags_show_as_the_back_end_writes_them,
    message_entries_show_as_given_escaped_and_before_a_thread_as_the_process,
    pattern_and_json_are_the_library_layouts,
    three_files_merge_by_time_keeping_each_files_order_for_equal_times,
    gzip_files_read_as_the_plain_ones,
    each_filter_keeps_exactly_its_entries,
    bad_options_are_refused_with_the_reason,
    a_cut_file_is_read_to_its_last_whole_entry,
    a_block_cut_by_a_kill_ends_where_the_next_block_begins,
    garbage_between_blocks_is_skipped_to_the_next_magic,
    a_shared_file_reports_each_damage_once_learning_its_writers_from_block_headers,
    a_shared_file_renamed_while_read_is_read_whole_from_the_file_first_opened,
    a_message_holding_the_magic_is_read_whole,
    a_site_defined_anew_renders_by_its_new_format,
    every_bad_input_gets_its_message_and_the_rest_is_read,
    follow_reads_on_across_two_rotations,
    follow_reads_every_file_of_a_name_rotated_twice_between_two_looks,
    follow_waits_for_a_missing_name_and_reads_a_gz_once,
]


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    only = set(sys.argv[4:])
    failed = 0
    for test in TESTS:
        if only and test.__name__ not in only:
            continue
        try:
            test()
            print("ok   %s" % test.__name__)
        except Skipped as why:
            print("skip %s: %s" % (test.__name__, why))
        except Exception:
            failed += 1
            print("FAIL %s" % test.__name__)
            traceback.print_exc(file=sys.stdout)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
