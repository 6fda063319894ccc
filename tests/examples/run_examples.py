#!/usr/bin/env python3
"""The programs of examples/ do what their comments say.

Each example is run in a directory of its own, as a user would run it after
reading it, and what it printed and the log it wrote are checked line by
line: the messages, their levels and their order (times and thread ids
aside).

    run_examples.py BUILD_DIR/examples WORK_DIR
"""
import json
import os
import re
import shutil
import subprocess
import sys

LINE = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{9}) \[(\w+)\] (\S+):(\d+) (\S+) (\d+) (.*)$")

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL: " + what)


def run(program, args, cwd, env=None):
    full_env = dict(os.environ)
    full_env.pop("XLOG_LEVEL", None)
    full_env.pop("XLOG_DIR", None)
    full_env.pop("XLOG_CONFIG", None)
    full_env.update(env or {})
    done = subprocess.run([program] + args, cwd=cwd, env=full_env, capture_output=True,
                          text=True, timeout=120)
    check(done.returncode == 0, "%s %s exits 0 (got %d: %s)"
          % (os.path.basename(program), " ".join(args), done.returncode, done.stderr.strip()))
    return done.stdout


def log_lines(directory):
    """(level, file, function, message) of every line of every file, in file order."""
    lines = []
    for name in sorted(os.listdir(directory)):
        with open(os.path.join(directory, name), encoding="utf-8") as f:
            for text in f.read().splitlines():
                m = LINE.match(text)
                check(m is not None, "a line of the default layout: %r" % text)
                if m:
                    lines.append((m.group(2), m.group(3), m.group(5), m.group(7)))
    return lines


def hello(examples, work):
    out = run(os.path.join(examples, "example_hello"), [], work)
    check(out == "wrote to logs/\n", "hello prints where it wrote: %r" % out)
    got = [(level, message) for level, _, _, message in log_lines(os.path.join(work, "logs"))]
    check(got == [("INFO", "hello from xlog, 2 + 2 = 4"), ("WARN", "disk 93% full")],
          "hello's log: %r" % got)


def threads(examples, work):
    for mode, files in (("shared", 1), ("per-thread", 3)):
        logs = os.path.join(work, mode)
        out = run(os.path.join(examples, "example_threads"), ["3", "5000", mode, logs], work)
        check(out.startswith("3 threads x 5000 messages"), "threads' summary: %r" % out)
        check("lines 15000," in out and "dropped 0" in out, "threads' counters: %r" % out)
        check(len(os.listdir(logs)) == files, "%s: %d files" % (mode, files))
        seen = {}
        for _, _, _, message in log_lines(logs):
            m = re.match(r"worker (\d+) message (\d+) of 5000, load ", message)
            check(m is not None, "a worker's message: %r" % message)
            if m:
                worker, index = int(m.group(1)), int(m.group(2))
                check(index == seen.get(worker, -1) + 1, "worker %d in order" % worker)
                seen[worker] = index
        check(seen == {0: 4999, 1: 4999, 2: 4999}, "%s: every message of every worker" % mode)


def custom_sink(examples, work):
    out = run(os.path.join(examples, "example_custom_sink"), ["logs"], work).splitlines()
    check(out[:1] == ["2 errors; the last ones:"], "custom_sink's count: %r" % out)
    kept = out[1:]
    check(len(kept) == 2, "custom_sink keeps the last errors: %r" % kept)
    for n, line in zip((2, 4), kept):
        check(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z request %d: backend timed out"
                           % n, line) is not None, "custom_sink's own layout: %r" % line)
    got = [(level, message) for level, _, _, message in log_lines(os.path.join(work, "logs"))]
    want = []
    for i in range(1, 6):
        want.append(("INFO", "request %d served" % i))
        if i % 2 == 0:
            want.append(("ERROR", "request %d: backend timed out" % i))
    check(got == want, "custom_sink: the files still get every line: %r" % got)


def modules(examples, work):
    program = os.path.join(examples, "example_modules")
    run(program, ["default"], work)
    got = [(level, file, message) for level, file, _, message in
           log_lines(os.path.join(work, "default"))]
    # info everywhere, net at debug (net.tls follows it), storage at info
    # until the program sets it to debug; the request thread traces all.
    want = [
        ("INFO", "main.c", "serving"),
        ("DEBUG", "net.c", "connection 1 accepted"),
        ("DEBUG", "tls.c", "connection 1: cipher chosen"),
        ("INFO", "net.c", "connection 1 ready"),
        ("INFO", "storage.c", "record 1 stored"),
        ("DEBUG", "storage.c", "record 2: page allocated"),
        ("INFO", "storage.c", "record 2 stored"),
        ("DEBUG", "net.c", "connection 99 accepted"),
        ("TRACE", "tls.c", "connection 99: client hello"),
        ("DEBUG", "tls.c", "connection 99: cipher chosen"),
        ("INFO", "net.c", "connection 99 ready"),
    ]
    check(got == want, "modules, default filter: %r" % got)
    run(program, ["operator"], work, {"XLOG_LEVEL": "warn,net.tls=trace"})
    got = [(level, file, message) for level, file, _, message in
           log_lines(os.path.join(work, "operator"))]
    want = [
        ("TRACE", "tls.c", "connection 1: client hello"),
        ("DEBUG", "tls.c", "connection 1: cipher chosen"),
        ("DEBUG", "storage.c", "record 2: page allocated"),
        ("INFO", "storage.c", "record 2 stored"),
        ("DEBUG", "net.c", "connection 99 accepted"),
        ("TRACE", "tls.c", "connection 99: client hello"),
        ("DEBUG", "tls.c", "connection 99: cipher chosen"),
        ("INFO", "net.c", "connection 99 ready"),
    ]
    check(got == want, "modules, XLOG_LEVEL from the operator: %r" % got)


def config_file(examples, work):
    program = os.path.join(examples, "example_config_file")
    run(program, [], work)
    got = [(level, message) for level, _, _, message in log_lines(os.path.join(work, "logs"))]
    check(got == [("INFO", "service started"), ("WARN", "disk 91% full")],
          "config_file without a file: the program's own settings: %r" % got)

    with open(os.path.join(work, "debug.conf"), "w") as f:
        f.write("# the operator's file\n"
                "dir = debug-logs\n"
                "level = debug\n"
                "file_pattern = {level} {message}\n")
    run(program, ["debug.conf"], work)
    names = os.listdir(os.path.join(work, "debug-logs"))
    check(len(names) == 1, "config_file with a file: one file in its dir: %r" % names)
    with open(os.path.join(work, "debug-logs", names[0]), encoding="utf-8") as f:
        got = f.read()
    check(got == "INFO service started\nDEBUG cache of 128 entries\nWARN disk 91% full\n",
          "config_file with a file: its level and pattern: %r" % got)

    # XLOG_CONFIG names another file in place of the program's; its mistake
    # stops the program, which says where it is.
    with open(os.path.join(work, "bad.conf"), "w") as f:
        f.write("level = debug\nrotate_keep = none\n")
    env = dict(os.environ)
    env.pop("XLOG_LEVEL", None)
    env.pop("XLOG_DIR", None)
    env["XLOG_CONFIG"] = "bad.conf"
    done = subprocess.run([program, "debug.conf"], cwd=work, env=env, capture_output=True,
                          text=True, timeout=120)
    check(done.returncode == 1 and done.stdout == "" and done.stderr ==
          'xlog_open: bad.conf:2:15: rotate_keep: "none" is not a number\n',
          "config_file with a mistake: %d %r %r" % (done.returncode, done.stdout, done.stderr))


def service(examples, work):
    """Context on every line of a request, files per part with filters of
    their own, the service's name on its files, the threads' names."""
    out = run(os.path.join(examples, "example_service"), [], work)
    check(out == "wrote to logs/\n", "service prints where it wrote: %r" % out)
    logs = os.path.join(work, "logs")
    names = sorted(os.listdir(logs))
    day = names[0][len("access-"):-len(".log")] if names else ""
    check(names == ["access-%s.log" % day, "errors-%s.log" % day, "service-%s.log" % day,
                    "storage"], "service's files: %r" % names)
    hours = sorted(os.listdir(os.path.join(logs, "storage")))
    check(len(hours) in (1, 2) and all(re.fullmatch(re.escape(day) + r"-\d\d\.log", h)
                                       for h in hours), "storage's hourly files: %r" % hours)

    def context(item):
        return "request_id=req-%d trace_id=%032x" % (item, 0x5EED0000 + item)

    def read(name):
        with open(os.path.join(logs, name), encoding="utf-8") as f:
            return f.read().splitlines()

    # Each worker serves its items in order; the two workers interleave.
    def by_worker(lines, worker_of):
        got = {}
        for line in lines:
            got.setdefault(worker_of(line), []).append(line)
        return got

    main_line = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{9} (.*)$")
    stripped = []
    for line in read("service-%s.log" % day):
        m = main_line.match(line)
        check(m is not None, "a service line: %r" % line)
        if m:
            stripped.append(m.group(1))
    want = {}
    for item in range(1, 7):
        worker = "worker-%d" % (2 - item % 2)
        lines = want.setdefault(worker, [])
        lines.append("[INFO] %s %s item %d requested" % (worker, context(item), item))
        if item == 5:
            lines.append("[ERROR] %s %s item 5: backend timed out after 250 ms"
                         % (worker, context(item)))
        else:
            lines.append("[INFO] %s %s item %d served" % (worker, context(item), item))
    check(by_worker(stripped, lambda l: l.split()[1]) == want,
          "service's main file: %r" % stripped)

    access = []
    for line in read("access-%s.log" % day):
        m = re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z (.*)$", line)
        check(m is not None, "an access line: %r" % line)
        if m:
            access.append(m.group(1))
    check(sorted(access) == sorted("%s GET /items/%d %d %dus" % (
        context(item), item, 503 if item == 5 else 200, 120 * item) for item in range(1, 7)),
        "service's access log: %r" % access)

    errors = [json.loads(line) for line in read("errors-%s.log" % day)]
    check(len(errors) == 1, "one error: %r" % errors)
    if errors:
        e = errors[0]
        attributes = e.get("attributes", {})
        check(e.get("body") == "item 5: backend timed out after 250 ms" and
              e.get("severity_text") == "ERROR" and e.get("trace_id") == "%032x" % 0x5EED0005
              and attributes.get("request_id") == "req-5" and
              attributes.get("thread.name") == "worker-1" and
              attributes.get("xlog.module") == "storage", "service's error: %r" % e)

    storage = [(level, message) for level, _, _, message in
               log_lines(os.path.join(logs, "storage"))]
    want = [("DEBUG", "item %d: page %d read" % (item, 7 * item)) for item in range(1, 7)]
    want.append(("ERROR", "item 5: backend timed out after 250 ms"))
    check(sorted(storage) == sorted(want), "storage's debug lines: %r" % storage)


def main():
    examples, work = sys.argv[1], sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    cases = (hello, threads, custom_sink, modules, config_file, service)
    failed = 0
    for case in cases:
        os.makedirs(os.path.join(work, case.__name__))
        before = len(failures)
        case(examples, os.path.join(work, case.__name__))
        ok = len(failures) == before
        failed += not ok
        print("%s: %s" % (case.__name__, "ok" if ok else "FAILED"))
    print("%d passed, %d failed" % (len(cases) - failed, failed))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
